"""The AI SDK's UI messages as pydantic models: its ``uiMessagesSchema``, key for key.

What ``useChat`` (``DefaultChatTransport``) posts: ``{"id", "messages", "trigger",
"messageId", ...the transport's extra body}``, ``messages`` a list of UI messages.
The models mirror the zod schema ``validateUIMessages`` checks in the ``ai`` package
(version pinned in ``tests/support/web_js/package.json``, which a test runs as the reference):

* a message: ``id``, ``role`` (``system`` / ``user`` / ``assistant``), ``metadata``
  (any), ``parts`` (at least one, except for an assistant message); a non-empty list;
* parts, told apart by ``type``: ``text``, ``reasoning``, ``source-url``,
  ``source-document``, ``file``, ``step-start``, ``data-NAME``, and the tool parts
  ``tool-NAME`` / ``dynamic-tool`` told apart by ``state``: ``input-streaming``,
  ``input-available``, ``approval-requested``, ``approval-responded``,
  ``output-available``, ``output-error``, ``output-denied``, each with the fields its
  state allows;
* as zod reads them: a key the schema does not name is ignored; an optional key may be
  left out but is not ``null`` (unless it takes any value); a key a state forbids (the
  schema's ``never``) must be left out; no type coercion (``"1"`` is not a number).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union, get_args

import pydantic
from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, Tag
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from unspool.web._conversation import ToolState

__all__ = [
    "PART_TAGS",
    "TOOL_STATES",
    "ChatBody",
    "ToolPart",
    "UIMessage",
    "UIPart",
    "tool_name",
]

TOOL_STATES: tuple[str, ...] = get_args(ToolState)
"""Every state a tool part can be in."""


def _refuse(value: Any) -> Any:
    raise PydanticCustomError("forbidden", "this key is not allowed here: leave it out")


def _not_null(value: Any) -> Any:
    if value is None:
        raise PydanticCustomError("not_null", "leave this key out rather than sending null")
    return value


_NotNull = BeforeValidator(_not_null)
Forbidden = Annotated[Any, BeforeValidator(_refuse)]
"""A key the schema types ``never``: any value is refused (left out, it is ``None``)."""
Json = pydantic.JsonValue
Metadata = dict[str, dict[str, Json]]
"""``providerMetadata``: provider name -> JSON object."""
OptStr = Annotated[str | None, _NotNull]
OptBool = Annotated[bool | None, _NotNull]
OptMetadata = Annotated[Metadata | None, _NotNull]


class _Model(pydantic.BaseModel):
    """camelCase keys, zod's reading: unknown keys ignored, no coercion."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, strict=True, extra="ignore", frozen=True
    )


# -------------------------------------------------------------------------- plain parts


class TextUIPart(_Model):
    type: Literal["text"]
    text: str
    state: Annotated[Literal["streaming", "done"] | None, _NotNull] = None
    provider_metadata: OptMetadata = None


class ReasoningUIPart(_Model):
    type: Literal["reasoning"]
    id: OptStr = None
    text: str
    state: Annotated[Literal["streaming", "done"] | None, _NotNull] = None
    provider_metadata: OptMetadata = None


class SourceUrlUIPart(_Model):
    type: Literal["source-url"]
    source_id: str
    url: str
    title: OptStr = None
    provider_metadata: OptMetadata = None


class SourceDocumentUIPart(_Model):
    type: Literal["source-document"]
    source_id: str
    media_type: str
    title: str
    filename: OptStr = None
    provider_metadata: OptMetadata = None


class FileUIPart(_Model):
    type: Literal["file"]
    media_type: str
    filename: OptStr = None
    url: str
    provider_metadata: OptMetadata = None


class StepStartUIPart(_Model):
    type: Literal["step-start"]


class DataUIPart(_Model):
    type: str  # data-NAME
    id: OptStr = None
    data: Any

    @property
    def name(self) -> str:
        return self.type[5:]


# ---------------------------------------------------------------------------- approvals


class ApprovalRequested(_Model):
    id: str
    approved: Forbidden = None
    descriptor: Any = None
    reason: Forbidden = None
    signature: OptStr = None
    input_schema_input: Any = None


class ApprovalResponded(_Model):
    id: str
    approved: bool
    descriptor: Any = None
    reason: OptStr = None
    signature: OptStr = None
    input_schema_input: Any = None


class ApprovalGranted(ApprovalResponded):
    approved: Literal[True]


class ApprovalDenied(ApprovalResponded):
    approved: Literal[False]


# ------------------------------------------------------------------------------ tools


class _ToolFields(_Model):
    """What every tool part has, whatever its state."""

    tool_call_id: str
    tool_metadata: Annotated[dict[str, Json] | None, _NotNull] = None
    provider_executed: OptBool = None
    call_provider_metadata: OptMetadata = None

    dynamic_part: ClassVar[bool] = False


class _InputStreaming(_ToolFields):
    state: Literal["input-streaming"]
    input: Any = None
    raw_input: OptStr = None
    input_encoding: Annotated[Literal["json", "text"] | None, _NotNull] = None
    output: Forbidden = None
    error_text: Forbidden = None
    approval: Forbidden = None


class _InputAvailable(_ToolFields):
    state: Literal["input-available"]
    input: Any
    output: Forbidden = None
    error_text: Forbidden = None
    approval: Forbidden = None


class _ApprovalRequested(_ToolFields):
    state: Literal["approval-requested"]
    input: Any
    output: Forbidden = None
    error_text: Forbidden = None
    approval: ApprovalRequested


class _ApprovalResponded(_ToolFields):
    state: Literal["approval-responded"]
    input: Any
    output: Forbidden = None
    error_text: Forbidden = None
    approval: ApprovalResponded


class _OutputAvailable(_ToolFields):
    state: Literal["output-available"]
    input: Any
    output: Any
    error_text: Forbidden = None
    result_provider_metadata: OptMetadata = None
    preliminary: OptBool = None
    approval: Annotated[ApprovalGranted | None, _NotNull] = None


class _OutputError(_ToolFields):
    state: Literal["output-error"]
    input: Any = None
    raw_input: Any = None
    output: Forbidden = None
    error_text: str
    result_provider_metadata: OptMetadata = None
    approval: Annotated[ApprovalGranted | None, _NotNull] = None


class _OutputDenied(_ToolFields):
    state: Literal["output-denied"]
    input: Any
    output: Forbidden = None
    error_text: Forbidden = None
    approval: ApprovalDenied


class _Static(_Model):
    """``type: "tool-NAME"``: a tool the app declared to the AI SDK."""

    type: str

    @property
    def tool_name(self) -> str:
        return self.type[5:]


class _Dynamic(_Model):
    """``type: "dynamic-tool"`` with its ``toolName``."""

    type: Literal["dynamic-tool"]
    dynamic: Annotated[Literal[False] | None, _NotNull] = None
    tool_name: str
    dynamic_part: ClassVar[bool] = True


_STATE_MODELS: dict[str, type[_ToolFields]] = {
    "input-streaming": _InputStreaming,
    "input-available": _InputAvailable,
    "approval-requested": _ApprovalRequested,
    "approval-responded": _ApprovalResponded,
    "output-available": _OutputAvailable,
    "output-error": _OutputError,
    "output-denied": _OutputDenied,
}


def _tool_model(state_model: type[_ToolFields], dynamic: bool) -> type[_ToolFields]:
    """The model of a ``tool-NAME`` (or ``dynamic-tool``) part in one state."""
    kind = "Dynamic" if dynamic else "Static"
    name = kind + state_model.__name__.strip("_")
    bases = (_Dynamic, state_model) if dynamic else (_Static, state_model)
    model: type[_ToolFields] = type(name, bases, {"__module__": __name__})
    return model


TOOL_MODELS: dict[str, type[_ToolFields]] = {
    f"{'dynamic-tool' if dynamic else 'tool'}:{state}": _tool_model(model, dynamic)
    for dynamic in (False, True)
    for state, model in _STATE_MODELS.items()
}
"""The model of each tool part, by tag: ``"tool:<state>"`` or ``"dynamic-tool:<state>"``."""

ToolPart = _ToolFields
"""Any tool part (``tool-NAME`` or ``dynamic-tool``), in any state."""


def tool_name(part: ToolPart) -> str:
    """The tool a part calls: ``NAME`` of ``tool-NAME``, or a dynamic part's ``toolName``."""
    name: str = part.tool_name if isinstance(part, (_Static, _Dynamic)) else ""
    return name


_PLAIN: dict[str, type[_Model]] = {
    "text": TextUIPart,
    "reasoning": ReasoningUIPart,
    "source-url": SourceUrlUIPart,
    "source-document": SourceDocumentUIPart,
    "file": FileUIPart,
    "step-start": StepStartUIPart,
    "data": DataUIPart,
}

PART_TAGS: frozenset[str] = frozenset(_PLAIN) | frozenset(TOOL_MODELS)
"""The union tags pydantic puts in error paths (a body's paths leave them out)."""


def _part_tag(value: Any) -> str | None:
    """The model that reads a part: by ``type``, and ``state`` for a tool part."""
    if isinstance(value, dict):
        kind, state = value.get("type"), value.get("state")
    else:
        kind, state = getattr(value, "type", None), getattr(value, "state", None)
    if not isinstance(kind, str):
        return None
    if kind in _PLAIN and kind != "data":
        return kind
    if kind.startswith("data-"):
        return "data"
    if kind == "dynamic-tool" or kind.startswith("tool-"):
        family = "dynamic-tool" if kind == "dynamic-tool" else "tool"
        return f"{family}:{state}" if state in TOOL_STATES else None
    return None


_PART_ERROR = (
    "unknown part: its type must be text, reasoning, file, source-url, source-document, "
    "step-start, data-NAME, tool-NAME or dynamic-tool, and a tool part's state one of "
    + ", ".join(TOOL_STATES)
)

if TYPE_CHECKING:
    UIPart = Any
else:
    UIPart = Annotated[
        Union[  # noqa: UP007 (a union built from the tables)
            tuple(Annotated[model, Tag(tag)] for tag, model in {**_PLAIN, **TOOL_MODELS}.items())
        ],
        Discriminator(
            _part_tag, custom_error_type="unknown_part", custom_error_message=_PART_ERROR
        ),
    ]
"""One part of a UI message."""


class UIMessage(_Model):
    """One UI message: ``id``, ``role``, ``metadata`` and its ``parts``."""

    id: str
    role: Literal["system", "user", "assistant"]
    metadata: Any = None
    parts: list[UIPart]

    @pydantic.model_validator(mode="after")
    def _has_parts(self) -> UIMessage:
        if self.role != "assistant" and not self.parts:
            raise PydanticCustomError("too_small", "Message must contain at least one part")
        return self


class ChatBody(_Model):
    """The body ``useChat`` posts; keys besides these (the transport's ``body``) are
    kept in ``model_extra``."""

    model_config = ConfigDict(extra="allow")

    id: OptStr = None
    messages: Annotated[list[UIMessage], Field(min_length=1)]
    trigger: Annotated[Literal["submit-message", "regenerate-message"] | None, _NotNull] = None
    message_id: OptStr = None

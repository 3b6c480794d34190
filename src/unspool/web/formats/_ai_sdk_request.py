"""Reading a ``useChat`` body: the validated UI messages into a provider-neutral conversation.

As the AI SDK's own ``convertToModelMessages`` reads them:

* a ``system`` message is an :class:`Instruction` (its text parts joined);
* a ``user`` message's ``text`` and ``file`` parts, in order (a ``data:`` URL is the
  file's bytes, any other URL is fetched by whoever needs it);
* an ``assistant`` message is one :class:`AssistantStep` per ``step-start``: its text
  (the text parts joined), its reasoning, and its tool parts as :class:`RequestToolCall`
  with the id the page sent, whatever their state;
* what only the page shows (sources, data parts, files an assistant made, metadata)
  stays in the validated body.

A ``toolCallId`` that appears twice is refused: the calls of a request must be told
apart to be checked against what the server streamed.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from unspool.events import ReasoningSignature
from unspool.web._conversation import (
    AssistantStep,
    AssistantTurn,
    FilePart,
    Instruction,
    RequestToolCall,
    TextPart,
    ToolApproval,
    Turn,
    UserTurn,
)
from unspool.web._errors import BadRequest, decode_base64, dotted
from unspool.web.formats._ui_messages import (
    ChatBody,
    FileUIPart,
    ReasoningUIPart,
    StepStartUIPart,
    TextUIPart,
    ToolPart,
    UIMessage,
    tool_name,
)

__all__ = ["read_ui_messages"]


def read_ui_messages(body: ChatBody) -> tuple[Turn, ...]:
    """The conversation of a validated ``useChat`` body."""
    turns: list[Turn] = []
    seen: dict[str, str] = {}
    for index, message in enumerate(body.messages):
        path: list[Any] = ["messages", index]
        if message.role == "system":
            text = "".join(p.text for p in message.parts if isinstance(p, TextUIPart))
            turns.append(Instruction(text, "system"))
        elif message.role == "user":
            turns.append(_user(message, path))
        else:
            turns.append(_assistant(message, path, seen))
    return tuple(turns)


def _user(message: UIMessage, path: list[Any]) -> UserTurn:
    parts: list[TextPart | FilePart] = []
    for i, part in enumerate(message.parts):
        if isinstance(part, TextUIPart):
            parts.append(TextPart(part.text))
        elif isinstance(part, FileUIPart):
            parts.append(_file(part, [*path, "parts", i, "url"]))
    return UserTurn(tuple(parts))


def _file(part: FileUIPart, path: list[Any]) -> FilePart:
    if not part.url.startswith("data:"):
        return FilePart(part.media_type, url=part.url, filename=part.filename)
    header, comma, payload = part.url[5:].partition(",")
    if not comma:
        where = dotted(path)
        raise BadRequest(
            f"invalid data URL at {where}: no ',' before the data",
            [{"path": where, "message": "a data URL needs a ',' before its data", "type": "url"}],
        )
    if header.endswith(";base64"):
        data = decode_base64(payload, path, "data URL")
    else:
        data = urllib.parse.unquote_to_bytes(payload)
    return FilePart(part.media_type, data=data, filename=part.filename)


def _assistant(message: UIMessage, path: list[Any], seen: dict[str, str]) -> AssistantTurn:
    steps: list[AssistantStep] = []
    text: list[str] = []
    reasoning: list[str] = []
    sealed: list[tuple[str, ReasoningSignature]] = []
    calls: list[RequestToolCall] = []

    def close() -> None:
        if text or reasoning or calls or sealed:
            step = AssistantStep("".join(text), "".join(reasoning), tuple(calls), tuple(sealed))
            steps.append(step)
        text.clear()
        reasoning.clear()
        sealed.clear()
        calls.clear()

    for i, part in enumerate(message.parts):
        if isinstance(part, StepStartUIPart):
            close()
        elif isinstance(part, TextUIPart):
            text.append(part.text)
        elif isinstance(part, ReasoningUIPart):
            reasoning.append(part.text)
            seal = _seal(part.provider_metadata)
            if seal is not None:
                sealed.append((part.text, seal))
        elif isinstance(part, ToolPart):
            where = dotted([*path, "parts", i, "toolCallId"])
            if part.tool_call_id in seen:
                raise BadRequest(
                    f"invalid ai-sdk request: {where}: the tool call id {part.tool_call_id!r} "
                    f"was already used at {seen[part.tool_call_id]}",
                    [{"path": where, "message": "a tool call id used twice", "type": "duplicate"}],
                )
            seen[part.tool_call_id] = where
            calls.append(_call(part, message.id))
    close()
    return AssistantTurn(tuple(steps), message.id)


SEALING_PROVIDERS = ("anthropic", "bedrock")
"""The providers whose reasoning parts carry a seal to send back (``providerMetadata``)."""


def _seal(metadata: Mapping[str, Any] | None) -> ReasoningSignature | None:
    """A reasoning part's seal: ``{"anthropic": {"signature": ...}}`` or ``{...:
    {"redactedData": ...}}`` under a provider that wants it back; ``None`` otherwise
    (the provider checks the seal: a forged one is its refusal, never a run)."""
    for provider in SEALING_PROVIDERS:
        given = (metadata or {}).get(provider)
        if not isinstance(given, Mapping):
            continue
        signature, redacted = given.get("signature"), given.get("redactedData")
        if isinstance(redacted, str) and redacted:
            return ReasoningSignature(provider, redacted=redacted)
        if isinstance(signature, str) and signature:
            return ReasoningSignature(provider, signature)
    return None


def _call(part: ToolPart, message_id: str) -> RequestToolCall:
    """A tool part as a :class:`RequestToolCall`, keeping what its state holds."""
    fields = part.model_fields_set
    args = getattr(part, "input", None)
    raw = getattr(part, "raw_input", None)
    if "input" not in fields and raw is not None and not isinstance(raw, str):
        args = raw  # an output-error part's rawInput may be the value itself
    approval = getattr(part, "approval", None)
    state = getattr(part, "state")  # noqa: B009 (every tool part's model has one)
    error = getattr(part, "error_text", None)
    if state == "output-denied" and approval is not None:
        error = approval.reason
    return RequestToolCall(
        id=part.tool_call_id,
        name=tool_name(part),
        state=state,
        args=args,
        raw_args=raw if isinstance(raw, str) else None,
        output=getattr(part, "output", None),
        error=error,
        approval=None
        if approval is None
        else ToolApproval(approval.id, getattr(approval, "approved", None), approval.reason),
        provider_executed=bool(part.provider_executed),
        message_id=message_id,
        metadata=dict(part.tool_metadata or {}),
    )

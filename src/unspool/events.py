"""The event vocabulary every protocol of unspool speaks.

Whatever the wire format (an interleaved JSON array, tags inside prose, or a
provider's native tool-call deltas), an application consumes one stream of
these events, in the order the model wrote things:

* :class:`TextDelta` / :class:`ReasoningDelta` / :class:`RefusalDelta`: text to show now;
  :class:`ReasoningSignature` seals a block of reasoning the provider wants back.
* :class:`Citation`: a source the provider attached to the reply's text.
* :class:`ActionStarted` -> :class:`ActionArgsDelta`* -> exactly one of
  :class:`ActionComplete` (the only event that allows execution) or
  :class:`ActionInvalid`.
* :class:`ActionResult` / :class:`ActionFailed`: added by a dispatcher; or
  :class:`ActionPending` when the page runs the action or an approval must come first.
* :class:`HostedToolStarted` -> :class:`HostedToolInput`? -> :class:`HostedToolResult`?:
  a tool the provider runs itself (web search, code execution...), for a UI to show;
  never an action, so nothing runs it again.
* :class:`Usage`: the tokens the provider counted for the reply (once, just before
  :class:`StreamDone`, when the provider reported any).
* :class:`Diagnostic`: something skipped, repaired or ignored, never silent.
* :class:`StreamError`: the upstream failed; events before it stay valid.
* :class:`StreamDone`: always last.
* :class:`AppData`, :class:`StateSnapshot`, :class:`StateDelta`: the application's own
  data for the page, which an application yields into the stream (never a parser).

Events are small immutable dataclasses; ``to_dict()`` gives a JSON-safe dict
whose ``"type"`` key names the event (``"text_delta"``, ``"action_complete"``...),
whatever the args and results hold (:func:`unspool._jsonsafe.to_jsonable`).  Their
``repr()`` never raises, so they are safe to log: an int too long for ``str()``
(more than ``sys.get_int_max_str_digits()`` digits) shows as ``<int of N digits>``
there, and a value whose own ``repr()`` fails as ``<TypeName: repr failed>``.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from unspool._jsonsafe import to_jsonable

__all__ = [
    "PATCH_OPS",
    "ActionArgsDelta",
    "ActionComplete",
    "ActionFailed",
    "ActionInvalid",
    "ActionPending",
    "ActionResult",
    "ActionStarted",
    "AppData",
    "Citation",
    "Diagnostic",
    "DoneReason",
    "Event",
    "FinishReason",
    "HostedToolInput",
    "HostedToolResult",
    "HostedToolStarted",
    "ReasoningDelta",
    "ReasoningSignature",
    "RefusalDelta",
    "StateDelta",
    "StateSnapshot",
    "StreamDone",
    "StreamError",
    "TextDelta",
    "Usage",
    "approval_id",
    "event_to_dict",
    "new_stream_id",
]

FinishReason = Literal["stop", "length", "abort"]
"""What the caller says about why the stream ended, given to ``finish()``."""

DoneReason = Literal["complete", "truncated", "aborted", "error", "paused"]
"""Why the event stream ended, as reported by :class:`StreamDone`: ``"paused"`` is a turn
the provider paused (Anthropic's ``stop_reason: "pause_turn"``, a long run of its own
tools): the reply is not finished, the caller sends it back as it stands to continue it
(``run_turns`` does)."""


def new_stream_id(prefix: str = "s") -> str:
    """A fresh stream id (``"s-"`` and 16 random hex digits) for a parser or adapter
    given no ``stream_id``: action ids (``"{stream_id}:{index}"``) of two replies can then
    never collide in a shared ledger. Pass a stable ``stream_id`` on purpose to replay."""
    return f"{prefix}-{os.urandom(8).hex()}"


def _int_repr(number: int) -> str:
    """``repr(number)``, or ``<int of N digits>`` past the int-to-str digit limit."""
    try:
        return repr(number)
    except ValueError:
        size = abs(number)
        digits = int((size.bit_length() - 1) * math.log10(2)) + 1  # at most one short
        sign = "-" if number < 0 else ""
        return f"{sign}<int of {digits + (size >= 10**digits)} digits>"


def _walk_repr(value: Any) -> str:
    """The repr of ``value``, built by walking the containers that hold ints."""
    kind = type(value)
    if kind is int:
        return _int_repr(value)
    if kind is list:
        return "[" + ", ".join(map(_walk_repr, value)) + "]"
    if kind is tuple:
        return "(" + ", ".join(map(_walk_repr, value)) + ("," if len(value) == 1 else "") + ")"
    if kind is dict:
        return "{" + ", ".join(f"{_walk_repr(k)}: {_walk_repr(v)}" for k, v in value.items()) + "}"
    try:
        return repr(value)
    except Exception:
        return f"<{kind.__qualname__}: repr failed>"


def _safe_repr(value: Any) -> str:
    """``repr(value)`` when it works, else the walked form; never raises."""
    try:
        return repr(value)
    except Exception:
        try:
            return _walk_repr(value)
        except Exception:  # e.g. RecursionError on a very deep value
            return f"<{type(value).__qualname__}: repr failed>"


class _Event:
    """Mixin: ``type`` tag, ``to_dict()`` and a ``repr()`` that never raises."""

    __slots__ = ()
    type: ClassVar[str]

    def __repr__(self) -> str:
        """The dataclass repr, with what cannot be shown replaced (module docstring)."""
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        shown = ", ".join(f"{f.name}={_safe_repr(getattr(self, f.name))}" for f in fields)
        return f"{type(self).__qualname__}({shown})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict, ``{"type": ..., <fields>}``, converted when called: plain JSON
        values that ``json.dumps(..., allow_nan=False)`` accepts and ``JSON.parse`` reads
        the same (rules in :mod:`unspool._jsonsafe`: NaN -> ``None``, datetimes in ISO 8601,
        ``Decimal`` as its exact string...)."""
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            out[f.name] = to_jsonable(getattr(self, f.name))
        return out


@dataclass(frozen=True, slots=True, repr=False)
class TextDelta(_Event):
    """Text to show the user now; deltas concatenate to the text exactly, each character once."""

    text: str
    type: ClassVar[str] = "text_delta"


@dataclass(frozen=True, slots=True, repr=False)
class ReasoningDelta(_Event):
    """Text of the model's reasoning channel (``<think>``, Anthropic thinking)."""

    text: str
    type: ClassVar[str] = "reasoning_delta"


@dataclass(frozen=True, slots=True, repr=False)
class ReasoningSignature(_Event):
    """The end of a block of reasoning that the provider must see again, unchanged, to go
    on from it: Anthropic (and Claude on Bedrock) refuse a tool turn sent back without its
    thinking blocks.  ``signature`` seals the text of the :class:`ReasoningDelta` events
    since the previous block ended; ``redacted`` is the encrypted data of a block the
    provider did not show (no text then; Bedrock's bytes in base64).  ``provider`` names
    the format they belong to (``"anthropic"``, ``"bedrock"``).  The result builders and
    ``run_turns`` send them back; a UI has nothing to show."""

    provider: str
    signature: str | None = None
    redacted: str | None = None
    type: ClassVar[str] = "reasoning_signature"


@dataclass(frozen=True, slots=True, repr=False)
class RefusalDelta(_Event):
    """Text of the model's refusal (OpenAI ``refusal``, Anthropic ``stop_reason="refusal"``),
    streamed in order like :class:`TextDelta` so a UI can show it as it arrives.  Anthropic
    sends no refusal text: one ``RefusalDelta("")`` marks where the model refused."""

    text: str
    type: ClassVar[str] = "refusal_delta"


@dataclass(frozen=True, slots=True, repr=False)
class Citation(_Event):
    """A source the provider attached to the reply (a URL, a document passage).

    ``kind`` is the provider's name for it (``"url_citation"``, ``"char_location"``...).
    ``start`` / ``end`` are character offsets into the reply's text (the joined
    :class:`TextDelta` texts; with a text protocol other than plain, the text the provider
    sent) that it annotates, when the provider says; ``cited_text``
    is the quoted passage, when given; ``raw`` keeps the provider's whole record.
    """

    kind: str
    url: str | None = None
    title: str | None = None
    cited_text: str | None = None
    start: int | None = None
    end: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)
    type: ClassVar[str] = "citation"


@dataclass(frozen=True, slots=True, repr=False)
class ActionStarted(_Event):
    """An action's name is known; arguments may follow.

    ``id`` is unspool's deterministic id (``"{stream_id}:{index}"``); the id the
    model or provider supplied, if any, is kept as ``action_id`` and never used
    for identity.  ``attributes`` holds extra tag attributes.
    """

    id: str
    index: int
    name: str
    action_id: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    type: ClassVar[str] = "action_started"


@dataclass(frozen=True, slots=True, repr=False)
class ActionArgsDelta(_Event):
    """The action's arguments so far, for a UI; never a reason to execute.

    ``partial`` is the arguments as they stood at this event, a value that later
    text never changes (successive deltas share the parts that did not change, so
    treat it as read-only); ``delta`` is the raw JSON text of the arguments that
    arrived since the previous delta: an action's deltas join to its argument text.
    """

    id: str
    index: int
    partial: Any
    delta: str | None = None
    type: ClassVar[str] = "action_args_delta"


@dataclass(frozen=True, slots=True, repr=False)
class ActionComplete(_Event):
    """The action's closing delimiter was seen and its args parsed (and validated,
    when a schema is registered: then ``args`` is the validated value).
    The only event that allows execution."""

    id: str
    index: int
    name: str
    args: Any
    action_id: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    type: ClassVar[str] = "action_complete"


@dataclass(frozen=True, slots=True, repr=False)
class ActionInvalid(_Event):
    """Replaces :class:`ActionComplete` for an action that must not run.

    ``reason`` is one of ``malformed_json``, ``schema``, ``unknown_action``,
    ``truncated``, ``nested``, ``bad_open_tag``, ``missing_name``,
    ``bad_params``, ``limit``...; ``errors`` holds structured details
    (dicts with at least ``message``); ``raw`` is the raw argument text when known.
    """

    id: str
    index: int
    name: str | None
    reason: str
    errors: tuple[Mapping[str, Any], ...] = ()
    raw: str | None = None
    action_id: str | None = None
    type: ClassVar[str] = "action_invalid"


@dataclass(frozen=True, slots=True, repr=False)
class ActionResult(_Event):
    """A dispatcher ran the action's handler; ``result`` is what it returned.
    ``replayed`` is True when the outcome came from the ledger (it ran before)."""

    id: str
    index: int
    name: str
    result: Any
    replayed: bool = False
    type: ClassVar[str] = "action_result"


@dataclass(frozen=True, slots=True, repr=False)
class ActionFailed(_Event):
    """A dispatcher did not get a result: the handler raised (``error_type`` is the
    exception's class name), the action's outcome is unknown after a crash
    (``error_type="unknown_outcome"``), or a limit stopped it.  ``replayed`` is
    True when a recorded failure was reported again from the ledger."""

    id: str
    index: int
    name: str
    error: str
    error_type: str
    replayed: bool = False
    type: ClassVar[str] = "action_failed"


def approval_id(action_id: str) -> str:
    """The id of the approval asked for the action ``action_id`` (an AI SDK
    ``approvalId``, an AG-UI interrupt's ``id``): derived from it, so a resumed run
    names the call its answer is for."""
    return f"approval-{action_id}"


@dataclass(frozen=True, slots=True, repr=False)
class ActionPending(_Event):
    """A dispatcher did not run the action and will not in this stream: the page runs it
    (``waiting_for="client"``), or a person must approve it first (``"approval"``;
    ``approval_id`` names the request). The dispatcher recorded it in its ledger, so the
    answer the next request brings is checked against what was streamed."""

    id: str
    index: int
    name: str
    waiting_for: Literal["client", "approval"]
    approval_id: str | None = None
    type: ClassVar[str] = "action_pending"


@dataclass(frozen=True, slots=True, repr=False)
class HostedToolStarted(_Event):
    """The provider began running one of its own tools (a web search, its code
    interpreter, a remote MCP call...): for a UI to show, never an action to run.

    ``id`` is unspool's id for the call (``"{stream_id}/hosted:{n}"``, never an action's
    id); ``name`` the tool's name (``web_search``, ``code_execution``...);
    ``provider_id`` the provider's id for the call; ``kind`` the provider's type of the
    call's record (``server_tool_use``, ``web_search_call``, ``executable_code``...);
    ``attributes`` what else names it (``server``: the MCP server).  At most one
    :class:`HostedToolInput` and one :class:`HostedToolResult` follow with its ``id``.
    """

    id: str
    name: str
    provider_id: str | None = None
    kind: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    type: ClassVar[str] = "hosted_tool_started"


@dataclass(frozen=True, slots=True, repr=False)
class HostedToolInput(_Event):
    """The input the provider's tool runs with, once it is complete: the value the
    provider gave (an object, or the text of a custom tool's or JSON-text field)."""

    id: str
    name: str
    input: Any
    type: ClassVar[str] = "hosted_tool_input"


@dataclass(frozen=True, slots=True, repr=False)
class HostedToolResult(_Event):
    """The provider's tool ended: ``output`` is what the provider reports of its result
    (``None`` when it reports none), ``error`` its failure, if it failed; ``kind`` the
    provider's type of the result's record (``web_search_tool_result``...)."""

    id: str
    name: str
    output: Any = None
    error: str | None = None
    kind: str | None = None
    type: ClassVar[str] = "hosted_tool_result"


_USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def _sum_raw(a: Any, b: Any) -> Any:
    """Two providers' usage records added: numbers summed, objects key by key, the rest
    the later one's."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return {
            k: _sum_raw(a[k], b[k]) if k in a and k in b else b.get(k, a.get(k)) for k in {**a, **b}
        }
    numbers = (int, float)
    if (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return a + b
    return b


@dataclass(frozen=True, slots=True, repr=False)
class Usage(_Event):
    """The tokens the provider counted for the reply, read from whatever it reports
    (Chat's final ``usage`` chunk, Responses' ``response.completed``, Anthropic's
    ``message_start`` / ``message_delta``, Gemini's ``usageMetadata``, Bedrock's
    ``metadata.usage``, Ollama's counts): one event just before :class:`StreamDone`.

    ``input_tokens`` counts every input token, cached ones included (Anthropic's and
    Bedrock's cache reads and writes are added to theirs); ``output_tokens`` every output
    token, reasoning included (Gemini's thoughts are added to its candidates);
    ``total_tokens`` the provider's total, else input + output; ``cached_input_tokens`` the
    input read from the provider's cache; ``cache_write_tokens`` the input written to it;
    ``reasoning_tokens`` the reasoning part of the output.  A count the provider does not
    give is ``None``.  ``raw`` is the provider's own record as it sent it (its extras:
    OpenRouter's ``cost``, Perplexity's ``num_search_queries``, Anthropic's
    ``server_tool_use``...).  ``a + b`` sums two (counts, and the numbers of ``raw``).
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)
    type: ClassVar[str] = "usage"

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        counts: dict[str, int | None] = {}
        for name in _USAGE_COUNTS:
            a, b = getattr(self, name), getattr(other, name)
            counts[name] = b if a is None else a if b is None else a + b
        return Usage(**counts, raw=_sum_raw(dict(self.raw), dict(other.raw)))


@dataclass(frozen=True, slots=True, repr=False)
class Diagnostic(_Event):
    """Something was skipped, repaired or ignored: ``kind`` says what, ``pos`` where
    (offset in the decoded stream, when known), ``text`` the input concerned."""

    kind: str
    message: str
    pos: int | None = None
    text: str | None = None
    type: ClassVar[str] = "diagnostic"


@dataclass(frozen=True, slots=True, repr=False)
class StreamError(_Event):
    """The upstream failed mid-stream; every event before this one stands."""

    message: str
    error_type: str
    type: ClassVar[str] = "stream_error"


@dataclass(frozen=True, slots=True, repr=False)
class StreamDone(_Event):
    """Always the last event: why the stream ended (:data:`DoneReason`), and what it held."""

    reason: DoneReason
    actions_complete: int = 0
    actions_invalid: int = 0
    text_chars: int = 0
    type: ClassVar[str] = "stream_done"


@dataclass(frozen=True, slots=True, repr=False)
class AppData(_Event):
    """The application's own data for the page, under a ``name`` (not the model's words).

    In the ``"ai-sdk"`` format a ``data-{name}`` part: one with an ``id`` is replaced by the
    next with the same name and ``id`` (a card that fills in stays one part), a
    ``transient`` one reaches ``onData`` only and is never kept in the message. In
    ``"ag-ui"`` a ``CUSTOM`` event named ``name`` whose value is ``data``. ``data`` is any
    value ``to_dict()`` can write (see :func:`unspool._jsonsafe.to_jsonable`)."""

    name: str
    data: Any
    id: str | None = None
    transient: bool = False
    type: ClassVar[str] = "app_data"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("AppData needs a non-empty name")


@dataclass(frozen=True, slots=True, repr=False)
class StateSnapshot(_Event):
    """The whole state the page shares with the application, replacing what it held
    (AG-UI ``STATE_SNAPSHOT``; see the web formats for the others)."""

    state: Any
    type: ClassVar[str] = "state_snapshot"


PATCH_OPS: dict[str, tuple[str, ...]] = {
    "add": ("path", "value"),
    "remove": ("path",),
    "replace": ("path", "value"),
    "move": ("from", "path"),
    "copy": ("from", "path"),
    "test": ("path", "value"),
}
"""The operations of a JSON Patch (RFC 6902) and the members each requires."""


def _pointer_ok(pointer: Any) -> bool:
    """Whether ``pointer`` is a JSON Pointer (RFC 6901): ``""`` or ``/``-led tokens, each
    ``~`` followed by ``0`` or ``1``."""
    if not isinstance(pointer, str) or (pointer and not pointer.startswith("/")):
        return False
    return all(
        token[i + 1 : i + 2] in ("0", "1")
        for token in pointer.split("/")
        for i, c in enumerate(token)
        if c == "~"
    )


@dataclass(frozen=True, slots=True, repr=False)
class StateDelta(_Event):
    """A change to the shared state as a JSON Patch (RFC 6902): a sequence of operations
    (``{"op": "add", "path": "/cart/-", "value": ...}``), applied in order, all or none
    (AG-UI ``STATE_DELTA``). A patch that is not well formed is a ``ValueError`` here;
    whether it applies to the state is for the one who applies it to say."""

    patch: tuple[Mapping[str, Any], ...]
    type: ClassVar[str] = "state_delta"

    def __post_init__(self) -> None:
        if isinstance(self.patch, (str, bytes, Mapping)):
            raise ValueError("a StateDelta's patch is a sequence of operations")
        patch = tuple(self.patch)
        for i, op in enumerate(patch):
            name = op.get("op") if isinstance(op, Mapping) else None
            if name not in PATCH_OPS:
                raise ValueError(f"patch[{i}]: not an operation of RFC 6902: {op!r}")
            missing = [m for m in PATCH_OPS[name] if m not in op]
            if missing:
                raise ValueError(f"patch[{i}]: {name!r} needs {', '.join(missing)}")
            bad = [m for m in ("path", "from") if m in PATCH_OPS[name] and not _pointer_ok(op[m])]
            if bad:
                raise ValueError(f"patch[{i}]: {bad[0]!r} is not a JSON Pointer: {op[bad[0]]!r}")
        object.__setattr__(self, "patch", patch)


Event = (
    TextDelta
    | ReasoningDelta
    | ReasoningSignature
    | RefusalDelta
    | Citation
    | ActionStarted
    | ActionArgsDelta
    | ActionComplete
    | ActionInvalid
    | ActionResult
    | ActionFailed
    | ActionPending
    | HostedToolStarted
    | HostedToolInput
    | HostedToolResult
    | Usage
    | Diagnostic
    | StreamError
    | StreamDone
    | AppData
    | StateSnapshot
    | StateDelta
)


def event_to_dict(event: Event) -> dict[str, Any]:
    """``event.to_dict()``, as a function (handy for ``map``)."""
    return event.to_dict()

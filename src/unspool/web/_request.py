"""``read_request``: what a chat UI posts, read into a :class:`ChatRequest`.

Two formats, one result::

    chat = read_request(await request.body(), format="ai-sdk")   # useChat's body
    chat = read_request(body, format="ag-ui")                     # AG-UI RunAgentInput
    messages = chat.to_messages("anthropic")                      # the provider's shape

The body (``bytes``, ``str`` or the already-decoded JSON value) is validated with the
format's own schema: the AI SDK's UI messages (:mod:`unspool.web.formats._ui_messages`,
a mirror of the ``ai`` package's ``uiMessagesSchema``) or the official
``ag-ui-protocol`` package's ``RunAgentInput``. Anything else is a
:class:`~unspool.web._errors.BadRequest` (a 400 naming the first wrong place; every
one is in ``errors``): not JSON, NaN or Infinity, too deep, too big (413), a part of
an unknown type, a key a tool part's state forbids, a tool call id used twice, a tool
result for a call no message made.

Nothing in a request runs anything: the tool calls it holds (:attr:`ChatRequest.tool_calls`)
carry the ids the page sent, for the server to check against what it streamed and
recorded before it accepts an answer or an approval.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import pydantic
from ag_ui.core import Context, ResumeEntry, RunAgentInput, Tool

from unspool.events import ActionFailed, ActionResult, Event, approval_id
from unspool.web._conversation import (
    AssistantTurn,
    Instruction,
    RequestToolCall,
    ToolApproval,
    Turn,
)
from unspool.web._errors import BadRequest
from unspool.web.formats._ag_ui_request import read_run_input
from unspool.web.formats._ai_sdk_request import read_ui_messages
from unspool.web.formats._ui_messages import ChatBody
from unspool.web.provider_messages import ProviderName, write_messages

__all__ = ["MAX_BODY_BYTES", "MAX_DEPTH", "ChatRequest", "RequestFormat", "read_request"]

RequestFormat = Literal["ai-sdk", "ag-ui"]

MAX_BODY_BYTES = 32 * 2**20
"""The largest body :func:`read_request` reads by default (32 MiB: files come inline)."""

MAX_DEPTH = 200
"""The deepest nesting of arrays and objects a body may have by default."""


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What a chat UI sent, read and validated.

    * ``format``: ``"ai-sdk"`` or ``"ag-ui"``; ``body``: the validated body (a
      :class:`~unspool.web.formats._ui_messages.ChatBody` or an AG-UI ``RunAgentInput``),
      with everything the page sent (data parts, sources, metadata...);
    * ``turns``: the conversation, provider-neutral (:mod:`unspool.web._conversation`);
    * ``chat_id``: the AI SDK chat ``id`` or the AG-UI ``threadId``; ``run_id``: AG-UI's
      ``runId``; ``trigger`` / ``message_id``: the AI SDK's (``"regenerate-message"``
      and the id of the message to regenerate);
    * AG-UI's ``tools`` (the page's own tools), ``context``, ``state``,
      ``forwarded_props`` and ``resume``; the AI SDK transport's extra body fields in
      ``extra``.
    """

    format: RequestFormat
    body: ChatBody | RunAgentInput
    turns: tuple[Turn, ...]
    chat_id: str | None = None
    run_id: str | None = None
    trigger: str | None = None
    message_id: str | None = None
    tools: tuple[Tool, ...] = ()
    context: tuple[Context, ...] = ()
    state: Any = None
    forwarded_props: Any = None
    resume: tuple[ResumeEntry, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def system(self) -> str | None:
        """The text of the system and developer messages (``None`` without any), for a
        provider's ``system`` parameter. A browser can write anything here: a server
        that has its own instructions should prefer them."""
        texts = [t.text for t in self.turns if isinstance(t, Instruction)]
        return "\n\n".join(texts) if texts else None

    @property
    def continued_message_id(self) -> str | None:
        """The id of the assistant message this request continues (AI SDK: the last
        message, when it is the assistant's, as after ``addToolOutput`` or an approval),
        else ``None``. Pass it as the reply's ``message_id``: ``useChat`` then extends that
        message; given another id, it adds a second message repeating the first one's
        parts, and the next request holds every tool call twice (refused)."""
        if self.format != "ai-sdk" or not self.turns:
            return None
        last = self.turns[-1]
        return last.message_id if isinstance(last, AssistantTurn) else None

    @property
    def tool_calls(self) -> tuple[RequestToolCall, ...]:
        """Every tool call of the conversation, in order, with the id the page sent. An
        AG-UI call that a ``resume`` entry answers (the interrupt of its approval, see
        :mod:`unspool.web.formats._ag_ui`) is ``approval-responded``, as in the AI SDK:
        approved only when resolved with ``{"approved": true}``."""
        calls = tuple(
            call
            for turn in self.turns
            if isinstance(turn, AssistantTurn)
            for step in turn.steps
            for call in step.calls
        )
        if not self.resume:
            return calls
        entries = {entry.interrupt_id: entry for entry in self.resume}
        out: list[RequestToolCall] = []
        for call in calls:
            entry = entries.get(approval_id(call.id))
            if entry is not None and not call.answered:
                payload = entry.payload if isinstance(entry.payload, dict) else {}
                approved = entry.status == "resolved" and payload.get("approved") is True
                reason = payload.get("reason")
                if not isinstance(reason, str):
                    reason = "cancelled" if entry.status == "cancelled" else None
                answer = ToolApproval(entry.interrupt_id, approved, reason)
                call = replace(call, state="approval-responded", approval=answer)
            out.append(call)
        return tuple(out)

    @property
    def stream_id(self) -> str:
        """A stream id for this request's reply, the same for the same request: pass it to
        ``run_turns(stream_id=...)`` so that a retried request (the same conversation sent
        again, as ``regenerate`` or a reload does) gives its actions the same ids, and the
        ledger replays them instead of running them twice (an answer the page sends makes it
        another conversation, so another id)."""
        body = self.body.model_dump(mode="json", by_alias=True, exclude_none=True)
        # the conversation, not how it was asked for (trigger, a fresh AG-UI run id)
        what = [self.format, self.chat_id, body.get("messages"), body.get("resume")]
        text = json.dumps(what, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return "c-" + hashlib.sha256(text.encode()).hexdigest()[:20]

    def to_page(self, outcomes: Iterable[Event]) -> list[Event]:
        """The outcomes (``Dispatcher.resume``'s) the page does not hold yet: those of the
        calls the request leaves unanswered (an approved call now run, a denied one), to
        stream before the reply, so the page shows them on the call (``useChat`` updates
        the part, an AG-UI client adds the tool message)."""
        waiting = {call.id for call in self.tool_calls if not call.answered}
        return [
            e for e in outcomes if isinstance(e, (ActionResult, ActionFailed)) and e.id in waiting
        ]

    @property
    def pending_calls(self) -> tuple[RequestToolCall, ...]:
        """The calls whose outcome the request does not hold (still streaming, waiting for
        the page or for an approval): :meth:`to_messages` leaves them out unless their
        outcome is given."""
        return tuple(call for call in self.tool_calls if not call.answered)

    def to_messages(
        self, provider: ProviderName | str, *, results: Iterable[Event] = ()
    ) -> list[dict[str, Any]]:
        """The conversation as ``provider``'s messages (``"openai"`` (Chat Completions),
        ``"openai_responses"``, ``"anthropic"``, ``"gemini"``, ``"bedrock"``,
        ``"ollama"``), tool results in its own shape (see
        :mod:`unspool.web.provider_messages`). Instructions are not among them (see
        :attr:`system`). ``results``: ``ActionResult`` / ``ActionFailed`` events (matched
        by the call's id) sent in place of what the request says of those calls: the
        outcome of a call the request leaves unanswered (an approved call the server has
        now run), or the server's own record of one the page echoes; other events are
        ignored."""
        given = {e.id: e for e in results if isinstance(e, (ActionResult, ActionFailed))}
        return write_messages(self.turns, provider, given)


def _depth_ok(value: Any, limit: int) -> bool:
    """Whether ``value`` nests no deeper than ``limit`` (iteratively: never recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _decode(body: bytes | str | Any, max_bytes: int, max_depth: int) -> Any:
    if isinstance(body, (bytes, bytearray, memoryview)):
        raw = bytes(body)
        if len(raw) > max_bytes:
            raise BadRequest(
                f"the body is {len(raw)} bytes, over the limit of {max_bytes}", status_code=413
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequest(f"the body is not UTF-8: {exc}") from None
    elif isinstance(body, str):
        text = body
        if len(text) > max_bytes:
            raise BadRequest(
                f"the body is {len(text)} characters, over the limit of {max_bytes}",
                status_code=413,
            )
    else:
        value = body
        text = None
    if text is not None:
        try:
            value = json.loads(text, parse_constant=_no_constant)
        except RecursionError:
            raise BadRequest(f"the body nests deeper than {max_depth} levels") from None
        except ValueError as exc:
            raise BadRequest(f"the body is not JSON: {exc}") from None
    if not _depth_ok(value, max_depth):
        raise BadRequest(f"the body nests deeper than {max_depth} levels")
    if not isinstance(value, dict):
        raise BadRequest(f"the body must be a JSON object, not {type(value).__name__}")
    return value


def _validate(model: type[pydantic.BaseModel], value: Any, what: str) -> Any:
    try:
        return model.model_validate(value)
    except pydantic.ValidationError as exc:
        raise BadRequest.from_validation(what, exc, value) from None
    except RecursionError:
        raise BadRequest(f"invalid {what}: nested too deep") from None


def read_request(
    body: bytes | str | Mapping[str, Any],
    format: RequestFormat | str = "ai-sdk",
    *,
    max_bytes: int = MAX_BODY_BYTES,
    max_depth: int = MAX_DEPTH,
) -> ChatRequest:
    """Read a chat UI's request body (see the module's documentation).

    ``format``: ``"ai-sdk"`` (``useChat``'s body: ``{"id", "messages", "trigger",
    "messageId", ...}``) or ``"ag-ui"`` (a ``RunAgentInput``). ``body``: the raw bytes
    or text, or the decoded JSON. ``max_bytes`` / ``max_depth`` bound what is read.
    Raises :class:`~unspool.web._errors.BadRequest` (a 400; 413 over ``max_bytes``)."""
    if format not in ("ai-sdk", "ag-ui"):
        raise ValueError(f"unknown request format {format!r}: expected 'ai-sdk' or 'ag-ui'")
    value = _decode(body, max_bytes, max_depth)
    if format == "ai-sdk":
        chat: ChatBody = _validate(ChatBody, value, "ai-sdk request")
        return ChatRequest(
            "ai-sdk",
            chat,
            read_ui_messages(chat),
            chat_id=chat.id,
            trigger=chat.trigger,
            message_id=chat.message_id,
            extra=dict(chat.model_extra or {}),
        )
    run: RunAgentInput = _validate(RunAgentInput, value, "ag-ui request")
    return ChatRequest(
        "ag-ui",
        run,
        read_run_input(run),
        chat_id=run.thread_id,
        run_id=run.run_id,
        tools=tuple(run.tools or ()),
        context=tuple(run.context or ()),
        state=run.state,
        forwarded_props=run.forwarded_props,
        resume=tuple(run.resume or ()),
    )

"""The ``"ai-sdk"`` format: the Vercel AI SDK's UI Message Stream protocol, v1.

What ``useChat`` (``DefaultChatTransport``) reads: ``data:`` frames holding one JSON
chunk each, ``data: [DONE]`` last, with the header ``x-vercel-ai-ui-message-stream: v1``.

* text, refusal and reasoning deltas: ``text-start`` / ``text-delta`` / ``text-end`` and
  ``reasoning-start`` / ``-delta`` / ``-end``; a part closes when an action or another
  kind of text comes between, so the message's parts keep the reply's order
  (a refusal is a text part of its own with ``providerMetadata.unspool.refusal``);
  a :class:`ReasoningSignature` ends the reasoning part with ``providerMetadata``
  ``{provider: {"signature"}}`` (a redacted block: an empty reasoning part with
  ``{"redactedData"}``), as the AI SDK's own Anthropic and Bedrock providers write it;
* an action: ``tool-input-start`` (``toolCallId`` is unspool's action id), a
  ``tool-input-delta`` per raw argument delta, then ``tool-input-available`` for
  :class:`ActionComplete`, the only chunk a client executes; an :class:`ActionInvalid`
  is ``tool-input-error`` (the part ends in state ``output-error``, never executable);
* an action left to the page (:class:`ActionPending`, ``waiting_for="client"``): nothing more
  than its ``tool-input-available`` (``useChat``'s ``onToolCall`` runs it, ``addToolOutput``
  answers it); one waiting for an approval: ``tool-approval-request`` (``approvalId``), which
  ``addToolApprovalResponse`` answers; a denial (``ActionFailed``, ``error_type="denied"``):
  ``tool-output-denied``;
* a dispatcher's :class:`ActionResult` / :class:`ActionFailed`: ``tool-output-available``
  / ``tool-output-error`` on the same call, never ``providerExecuted`` (that flag is for the
  model provider's own tools; ``convertToModelMessages`` would then not send the outcome
  back as the tool's result), as the AI SDK's ``streamText`` sends the tools it runs;
* a tool the model provider ran itself (:class:`HostedToolStarted` / :class:`HostedToolInput`
  / :class:`HostedToolResult`): ``tool-input-start``, ``tool-input-available`` and
  ``tool-output-available`` (``tool-output-error`` for a failure), each with
  ``providerExecuted: true``, which is what the flag means: ``onToolCall`` never fires
  for it, and ``convertToModelMessages`` files its result inside the assistant message;
* the provider's token counts (:class:`Usage`): a ``message-metadata`` chunk whose
  ``messageMetadata`` is ``{"usage": {...}}`` in the AI SDK's own names (``inputTokens``,
  ``outputTokens``, ``totalTokens``, ``cachedInputTokens``, ``reasoningTokens``, and
  ``cacheWriteTokens``; a count the provider did not give is left out) beside
  ``providerUsage``, the provider's record (``useChat`` keeps it as the message's
  ``metadata``);
* a citation: ``source-url`` (or ``source-document`` without a URL); a diagnostic: a
  transient ``data-unspool-diagnostic`` chunk (``onData`` sees it, the message keeps none);
* the application's :class:`AppData`: a ``data-{name}`` chunk (with its ``id``, and
  ``transient`` when it is; a kept one closes the open text part, as an action does,
  so the message's parts keep the stream's order); the shared state: one ``data-unspool-state`` part (id
  ``state``) holding the whole state, sent again after each :class:`StateSnapshot` and
  each :class:`StateDelta` (applied here, :mod:`unspool.web._json_patch`, to the state
  so far: ``{}`` until a snapshot says otherwise, as AG-UI's client starts); a delta that does
  not apply leaves the state as it was and is a transient ``data-unspool-diagnostic``
  (``kind`` ``bad_state_delta``);
* the end: ``finish`` with ``finishReason`` ``stop`` (complete), ``length``
  (truncated) or ``other`` (paused: the server continues the turn); ``abort`` (aborted);
  ``error`` then ``finish`` with ``error`` (failed upstream). Each is preceded by
  ``finish-step``, as the AI SDK's own streams do. Between the turns of a tool loop
  (``turns=True``): ``finish-step`` then ``start-step``.
"""

from __future__ import annotations

from typing import Any, Literal

from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionPending,
    ActionResult,
    ActionStarted,
    AppData,
    Citation,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    ReasoningSignature,
    RefusalDelta,
    StateDelta,
    StateSnapshot,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)
from unspool.web._json_patch import PatchError, apply_patch
from unspool.web._sse import dumps, frame
from unspool.web.formats._base import EncodeOptions, error_text, new_id

__all__ = ["HEADERS", "AiSdkEncoder", "invalid_text"]

HEADERS = {"x-vercel-ai-ui-message-stream": "v1"}
"""The header that tells the AI SDK's client which protocol the body speaks."""

DONE = b"data: [DONE]\n\n"

_Kind = Literal["text", "reasoning", "refusal"]
_FINISH = {"complete": "stop", "truncated": "length", "paused": "other"}


USAGE_NAMES = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "total_tokens": "totalTokens",
    "cached_input_tokens": "cachedInputTokens",
    "cache_write_tokens": "cacheWriteTokens",
    "reasoning_tokens": "reasoningTokens",
}
""":class:`Usage`'s counts under the AI SDK's names (its ``LanguageModelUsage``)."""


def invalid_text(event: ActionInvalid) -> str:
    """A one-line reason an invalid action did not run, for a browser."""
    messages = "; ".join(str(e.get("message", "")) for e in event.errors if e.get("message"))
    return f"invalid action ({event.reason})" + (f": {messages}" if messages else "")


def _chunk(value: dict[str, Any]) -> bytes:
    return frame(dumps(value))


class AiSdkEncoder:
    """Events to UI Message Stream chunks for one assistant message."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.message_id = options.message_id or new_id("msg")
        self.part: tuple[_Kind, str] | None = None
        self.parts = 0
        self.sources = 0
        self.open_calls: dict[str, str] = {}
        self.state: Any = {}  # as @ag-ui/client starts: a stream sends a snapshot to differ
        self.error: StreamError | None = None
        self.done = False

    def open(self) -> list[bytes]:
        return [
            _chunk({"type": "start", "messageId": self.message_id}),
            _chunk({"type": "start-step"}),
        ]

    # text-like parts ----------------------------------------------------------------

    def _end_part(self) -> list[bytes]:
        if self.part is None:
            return []
        kind, part_id = self.part
        self.part = None
        end = "reasoning-end" if kind == "reasoning" else "text-end"
        return [_chunk({"type": end, "id": part_id})]

    def _delta(self, kind: _Kind, text: str) -> list[bytes]:
        if not text:
            return []
        out: list[bytes] = []
        if self.part is None or self.part[0] != kind:
            out += self._end_part()
            self.parts += 1
            part_id = f"{kind}-{self.parts}"
            self.part = (kind, part_id)
            start: dict[str, Any] = {
                "type": "reasoning-start" if kind == "reasoning" else "text-start",
                "id": part_id,
            }
            if kind == "refusal":
                start["providerMetadata"] = {"unspool": {"refusal": True}}
            out.append(_chunk(start))
        delta = "reasoning-delta" if kind == "reasoning" else "text-delta"
        out.append(_chunk({"type": delta, "id": self.part[1], "delta": text}))
        return out

    def _sealed(self, event: ReasoningSignature) -> list[bytes]:
        """The open reasoning part ends carrying its signature (or a redacted block is an
        empty reasoning part carrying its data), under the provider's name as the AI SDK's
        own providers write it, so ``convertToModelMessages`` sends it back."""
        meta = {"signature": event.signature} if event.signature else {}
        if event.redacted:
            meta = {"redactedData": event.redacted}
        metadata = {event.provider: meta}
        if self.part is not None and self.part[0] == "reasoning" and not event.redacted:
            part_id = self.part[1]
            self.part = None
            return [_chunk({"type": "reasoning-end", "id": part_id, "providerMetadata": metadata})]
        out = self._end_part()
        self.parts += 1
        part_id = f"reasoning-{self.parts}"
        start = {"type": "reasoning-start", "id": part_id, "providerMetadata": metadata}
        end = {"type": "reasoning-end", "id": part_id, "providerMetadata": metadata}
        return [*out, _chunk(start), _chunk(end)]

    # actions ------------------------------------------------------------------------

    def _tool_error(
        self, call_id: str, name: str, text: str, raw: str | None, extra: dict[str, Any]
    ) -> bytes:
        self.open_calls.pop(call_id, None)
        chunk: dict[str, Any] = {
            "type": "tool-input-error",
            "toolCallId": call_id,
            "toolName": name,
            "input": raw,  # the raw argument text, never a parsed value to run
            "errorText": text,
            "toolMetadata": {"unspool": extra},
        }
        return _chunk(chunk)

    def _action(self, event: Event) -> list[bytes]:
        if isinstance(event, ActionStarted):
            self.open_calls[event.id] = event.name
            start = {"type": "tool-input-start", "toolCallId": event.id, "toolName": event.name}
            return [*self._end_part(), _chunk(start)]
        if isinstance(event, ActionArgsDelta):
            if not event.delta or event.id not in self.open_calls:
                return []
            delta = {
                "type": "tool-input-delta",
                "toolCallId": event.id,
                "inputTextDelta": event.delta,
            }
            return [_chunk(delta)]
        if isinstance(event, ActionComplete):
            self.open_calls.pop(event.id, None)
            available = {
                "type": "tool-input-available",
                "toolCallId": event.id,
                "toolName": event.name,
                "input": event.to_dict()["args"],
            }
            return [*self._end_part(), _chunk(available)]
        if isinstance(event, ActionInvalid):
            data = event.to_dict()
            extra = {"reason": event.reason, "errors": data["errors"]}
            name = event.name or self.open_calls.get(event.id) or "unknown"
            error = self._tool_error(event.id, name, invalid_text(event), event.raw, extra)
            return [*self._end_part(), error]
        if isinstance(event, ActionResult):
            output = {
                "type": "tool-output-available",
                "toolCallId": event.id,
                "output": event.to_dict()["result"],
            }
            return [_chunk(output)]
        if isinstance(event, ActionPending):
            if event.waiting_for != "approval":  # the page runs it: its input is all it needs
                return []
            ask = {
                "type": "tool-approval-request",
                "approvalId": event.approval_id,
                "toolCallId": event.id,
            }
            return [_chunk(ask)]
        if isinstance(event, ActionFailed) and event.error_type == "denied":
            return [_chunk({"type": "tool-output-denied", "toolCallId": event.id})]
        if isinstance(event, ActionFailed):
            failed = {
                "type": "tool-output-error",
                "toolCallId": event.id,
                "errorText": f"{event.error_type}: {event.error}",
            }
            return [_chunk(failed)]
        return []

    def _hosted(self, event: Event) -> list[bytes]:
        """A tool the model provider ran: its chunks say ``providerExecuted``."""
        chunk: dict[str, Any]
        if isinstance(event, HostedToolStarted):
            chunk = {"type": "tool-input-start", "toolCallId": event.id, "toolName": event.name}
            return [*self._end_part(), _chunk({**chunk, "providerExecuted": True})]
        if isinstance(event, HostedToolInput):
            chunk = {
                "type": "tool-input-available",
                "toolCallId": event.id,
                "toolName": event.name,
                "input": event.to_dict()["input"],
            }
        elif isinstance(event, HostedToolResult) and event.error is not None:
            chunk = {"type": "tool-output-error", "toolCallId": event.id, "errorText": event.error}
        elif isinstance(event, HostedToolResult):
            output = event.to_dict()["output"]
            chunk = {"type": "tool-output-available", "toolCallId": event.id, "output": output}
        else:
            return []
        return [_chunk({**chunk, "providerExecuted": True})]

    # the rest -----------------------------------------------------------------------

    def _citation(self, event: Citation) -> list[bytes]:
        self.sources += 1
        source_id = f"{self.message_id}-source-{self.sources}"
        meta = {
            k: v
            for k, v in (
                ("kind", event.kind),
                ("citedText", event.cited_text),
                ("start", event.start),
                ("end", event.end),
            )
            if v is not None
        }
        chunk: dict[str, Any]
        if event.url is not None:
            chunk = {"type": "source-url", "sourceId": source_id, "url": event.url}
            if event.title is not None:
                chunk["title"] = event.title
        else:
            title = event.title or event.cited_text or event.kind
            chunk = {
                "type": "source-document",
                "sourceId": source_id,
                "mediaType": "text/plain",
                "title": title,
            }
        chunk["providerMetadata"] = {"unspool": meta}
        return [_chunk(chunk)]

    def _usage(self, event: Usage) -> bytes:
        counts = {name: getattr(event, field) for field, name in USAGE_NAMES.items()}
        usage = {name: count for name, count in counts.items() if count is not None}
        meta = {"usage": usage, "providerUsage": event.to_dict()["raw"]}
        return _chunk({"type": "message-metadata", "messageMetadata": meta})

    def _diagnostic(self, event: Diagnostic) -> bytes:
        data = {"type": "data-unspool-diagnostic", "data": event.to_dict(), "transient": True}
        return _chunk(data)

    def _data(self, event: AppData) -> bytes:
        chunk: dict[str, Any] = {"type": f"data-{event.name}"}
        if event.id is not None:
            chunk["id"] = event.id
        chunk["data"] = event.to_dict()["data"]
        if event.transient:
            chunk["transient"] = True
        return _chunk(chunk)

    def _state(self, event: StateSnapshot | StateDelta) -> list[bytes]:
        if isinstance(event, StateSnapshot):
            self.state = event.to_dict()["state"]
        else:
            try:
                self.state = apply_patch(self.state, event.to_dict()["patch"])
            except PatchError as exc:
                note = Diagnostic("bad_state_delta", f"the state delta does not apply: {exc}")
                return [self._diagnostic(note)]
        state = {"type": "data-unspool-state", "id": "state", "data": self.state}
        return [*self._end_part(), _chunk(state)]

    def _done(self, event: StreamDone) -> list[bytes]:
        self.done = True
        out = self._end_part()
        for call_id, name in list(self.open_calls.items()):
            text = "invalid action (truncated): the stream ended inside the action"
            out.append(self._tool_error(call_id, name, text, None, {"reason": "truncated"}))
        out.append(_chunk({"type": "finish-step"}))
        if event.reason == "aborted":
            out.append(_chunk({"type": "abort", "reason": "aborted"}))
        elif event.reason == "error" or self.error is not None:
            out.append(_chunk({"type": "error", "errorText": error_text(self.error, self.options)}))
            out.append(_chunk({"type": "finish", "finishReason": "error"}))
        else:
            out.append(_chunk({"type": "finish", "finishReason": _FINISH[event.reason]}))
        out.append(DONE)
        return out

    def encode(self, event: Event) -> list[bytes]:
        if self.done:
            return []
        if isinstance(event, TextDelta):
            return self._delta("text", event.text)
        if isinstance(event, ReasoningDelta):
            return self._delta("reasoning", event.text)
        if isinstance(event, RefusalDelta):
            return self._delta("refusal", event.text)
        if isinstance(event, ReasoningSignature):
            return self._sealed(event)
        if isinstance(event, Citation):
            return self._citation(event)
        if isinstance(event, Diagnostic):
            return [self._diagnostic(event)]
        if isinstance(event, Usage):
            return [self._usage(event)]
        if isinstance(event, AppData):  # a part of its own closes the text (as an action)
            return (
                [self._data(event)] if event.transient else [*self._end_part(), self._data(event)]
            )
        if isinstance(event, (StateSnapshot, StateDelta)):
            return self._state(event)
        if isinstance(event, StreamError):
            self.error = event
            return []
        if isinstance(event, StreamDone):
            return self._done(event)
        if isinstance(event, (HostedToolStarted, HostedToolInput, HostedToolResult)):
            return self._hosted(event)
        return self._action(event)

    def step(self, done: StreamDone) -> list[bytes]:
        """Between two turns of one reply: one step ends, the next begins."""
        return [*self._end_part(), _chunk({"type": "finish-step"}), _chunk({"type": "start-step"})]

    def close(self) -> list[bytes]:
        return [] if self.done else self._done(StreamDone("aborted"))

"""The ``"ag-ui"`` format: AG-UI events, built with the official ``ag-ui-protocol`` package.

Each frame is what ``ag_ui.encoder.EventEncoder`` writes for an ``ag_ui.core`` event:

* ``RUN_STARTED`` first (``thread_id`` / ``run_id`` from the options, else fresh ids);
* text and refusal deltas: ``TEXT_MESSAGE_START`` / ``_CONTENT`` / ``_END``, a new
  assistant message after each action, so text and calls keep the reply's order
  (a refusal's start carries ``metadata.unspool.refusal``); reasoning:
  ``REASONING_START``, ``REASONING_MESSAGE_START`` / ``_CONTENT`` / ``_END``, ``REASONING_END``;
* an action: ``TOOL_CALL_START`` (``toolCallId`` is unspool's action id, attached to the
  assistant message before it), ``TOOL_CALL_ARGS`` per raw argument delta (the whole args
  as JSON text when the source gave none), ``TOOL_CALL_END`` on :class:`ActionComplete`; an :class:`ActionInvalid` also ends the call but is answered
  at once by a ``TOOL_CALL_RESULT`` whose content is ``{"error": ..., "reason": ...}``, so a
  client never holds it as a pending call to execute (an invalid action that never
  started is a ``CUSTOM`` event ``unspool.action_invalid`` only);
* a dispatcher's results: ``TOOL_CALL_RESULT`` (the result as JSON text, a string as is);
  failures: ``TOOL_CALL_RESULT`` with ``{"error": ..., "errorType": ...}``;
* a tool the model provider ran itself: one activity message per call
  (``ACTIVITY_SNAPSHOT``, ``activityType`` :data:`HOSTED_ACTIVITY`, a new snapshot per
  phase: ``content`` ``{"id", "name", "status": "running" | "complete" | "failed",
  "input", "output", "error", "providerId", "kind"}``), never a tool call: an AG-UI
  client runs only tool calls, holds only them pending, and never sends an activity
  message back to the agent (``@ag-ui/client`` drops them from the next run's input);
* citations, diagnostics, reasoning signatures and the provider's token counts: ``CUSTOM``
  events ``unspool.citation`` / ``unspool.diagnostic`` / ``unspool.reasoning_signature`` /
  ``unspool.usage`` (the event's ``to_dict()``), the counts also in ``RUN_FINISHED``'s
  ``result.usage``;
* the application's :class:`AppData`: a ``CUSTOM`` event named after it, ``value`` its
  data (an ``id`` in ``metadata.unspool.id``); :class:`StateSnapshot` / :class:`StateDelta`:
  ``STATE_SNAPSHOT`` / ``STATE_DELTA`` (the JSON Patch as is: the client applies it);
* an action left to the page (:class:`ActionPending`, ``waiting_for="client"``): its
  ``TOOL_CALL_*`` events and no result, so the client holds it as a pending frontend tool
  call; one waiting for an approval: an interrupt (``id`` the ``approval_id``, ``reason``
  ``"tool_approval"``, ``toolCallId``, ``responseSchema`` :data:`APPROVAL_SCHEMA`) in the
  ``RUN_FINISHED`` ``outcome``, answered by the next run's ``resume`` entry
  (``payload`` ``{"approved": bool, "reason"?: str}``; ``"cancelled"`` is a denial);
* the end: ``RUN_FINISHED`` with ``result`` ``{"reason": "complete" | "truncated" |
  "aborted" | "paused", ...counts}``, or ``RUN_ERROR`` (``code`` the error type) for a failed upstream.
"""

from __future__ import annotations

from typing import Any

from unspool._extras import needs_extra

with needs_extra("web", 'the "ag-ui" format'):
    import ag_ui  # noqa: F401

from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    CustomEvent,
    Interrupt,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from pydantic_core import PydanticSerializationError

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
from unspool.web._sse import dumps, frame
from unspool.web.formats._ai_sdk import invalid_text
from unspool.web.formats._base import EncodeOptions, error_text, new_id

__all__ = ["HOSTED_ACTIVITY", "AgUiEncoder"]

HOSTED_ACTIVITY = "unspool.hosted_tool"
"""The ``activityType`` of the activity message of a tool the model provider ran."""


class AgUiEncoder:
    """Events to AG-UI events for one run."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.thread_id = options.thread_id or new_id("thread")
        self.run_id = options.run_id or new_id("run")
        self.encoder = EventEncoder()
        self.messages = 0
        self.open_text: tuple[str, str] | None = None  # (kind, message id)
        self.last_message: str | None = None
        self.open_calls: set[str] = set()
        self.args_sent: set[str] = set()
        self.hosted: dict[str, dict[str, Any]] = {}  # hosted call id -> its activity content
        self.interrupts: list[Interrupt] = []
        self.error: StreamError | None = None
        self.usage: Usage | None = None
        self.done = False

    def _frames(self, *events: BaseEvent) -> list[bytes]:
        return [self._frame(e) for e in events]

    def _frame(self, event: BaseEvent) -> bytes:
        try:
            return self.encoder.encode(event).encode("utf-8")
        except PydanticSerializationError:
            # a lone surrogate (JSON's "\ud800" decodes to one), which pydantic cannot
            # write: the same JSON, the surrogate escaped
            return frame(dumps(event.model_dump(mode="json", by_alias=True)))

    def open(self) -> list[bytes]:
        return self._frames(RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id))

    # text-like messages -------------------------------------------------------------

    def _end_text(self) -> list[BaseEvent]:
        if self.open_text is None:
            return []
        kind, message_id = self.open_text
        self.open_text = None
        if kind == "reasoning":
            return [
                ReasoningMessageEndEvent(message_id=message_id),
                ReasoningEndEvent(message_id=message_id),
            ]
        return [TextMessageEndEvent(message_id=message_id)]

    def _delta(self, kind: str, text: str) -> list[BaseEvent]:
        if not text:
            return []
        out: list[BaseEvent] = []
        if self.open_text is None or self.open_text[0] != kind:
            out += self._end_text()
            self.messages += 1
            message_id = f"{self.run_id}-{kind}-{self.messages}"
            self.open_text = (kind, message_id)
            if kind == "reasoning":
                out += [
                    ReasoningStartEvent(message_id=message_id),
                    ReasoningMessageStartEvent(message_id=message_id),
                ]
            else:
                self.last_message = message_id
                meta = {"unspool": {"refusal": True}} if kind == "refusal" else None
                out.append(
                    TextMessageStartEvent(message_id=message_id, role="assistant", metadata=meta)
                )
        message_id = self.open_text[1]
        if kind == "reasoning":
            out.append(ReasoningMessageContentEvent(message_id=message_id, delta=text))
        else:
            out.append(TextMessageContentEvent(message_id=message_id, delta=text))
        return out

    # actions ------------------------------------------------------------------------

    def _result(self, call_id: str, content: str) -> ToolCallResultEvent:
        return ToolCallResultEvent(
            message_id=f"{call_id}-result", tool_call_id=call_id, content=content, role="tool"
        )

    def _invalid(self, event: ActionInvalid) -> list[BaseEvent]:
        data = event.to_dict()
        if event.id not in self.open_calls:
            return [CustomEvent(name="unspool.action_invalid", value=data)]
        self.open_calls.discard(event.id)
        content = {"error": invalid_text(event), "reason": event.reason, "errors": data["errors"]}
        return [ToolCallEndEvent(tool_call_id=event.id), self._result(event.id, dumps(content))]

    def _action(self, event: Event) -> list[BaseEvent]:
        if isinstance(event, ActionStarted):
            self.open_calls.add(event.id)
            return [
                *self._end_text(),
                ToolCallStartEvent(
                    tool_call_id=event.id,
                    tool_call_name=event.name,
                    parent_message_id=self.last_message,
                ),
            ]
        if isinstance(event, ActionArgsDelta):
            if not event.delta or event.id not in self.open_calls:
                return []
            self.args_sent.add(event.id)
            return [ToolCallArgsEvent(tool_call_id=event.id, delta=event.delta)]
        if isinstance(event, ActionComplete):
            out = self._end_text()
            if event.id not in self.open_calls:  # complete with no start: open it whole
                out.append(
                    ToolCallStartEvent(
                        tool_call_id=event.id,
                        tool_call_name=event.name,
                        parent_message_id=self.last_message,
                    )
                )
            if event.id not in self.args_sent:  # a source without raw deltas: the args whole
                args = dumps(event.to_dict()["args"])
                out.append(ToolCallArgsEvent(tool_call_id=event.id, delta=args))
            self.open_calls.discard(event.id)
            self.args_sent.discard(event.id)
            return [*out, ToolCallEndEvent(tool_call_id=event.id)]
        if isinstance(event, ActionInvalid):
            return [*self._end_text(), *self._invalid(event)]
        if isinstance(event, ActionResult):
            result = event.to_dict()["result"]
            content = result if isinstance(result, str) else dumps(result)
            return [self._result(event.id, content)]
        if isinstance(event, ActionPending):
            if event.waiting_for == "approval" and event.approval_id is not None:
                self.interrupts.append(_approval(event))
            return []  # a client action: the call stays pending, for the page to run
        if isinstance(event, ActionFailed):
            failure = {"error": event.error, "errorType": event.error_type}
            return [self._result(event.id, dumps(failure))]
        return []

    def _hosted(
        self, event: HostedToolStarted | HostedToolInput | HostedToolResult
    ) -> list[BaseEvent]:
        """A tool the model provider ran: its activity message, snapshot by snapshot."""
        out: list[BaseEvent] = []
        content = self.hosted.get(event.id)
        if isinstance(event, HostedToolStarted):
            if content is not None:
                return []
            out += self._end_text()  # the activity keeps its place in the reply
            data = event.to_dict()
            content = self.hosted[event.id] = {
                "id": event.id,
                "name": event.name,
                "status": "running",
                "providerId": data["provider_id"],
                "kind": data["kind"],
            }
        elif content is None:
            return []
        elif isinstance(event, HostedToolInput):
            content["input"] = event.to_dict()["input"]
        else:
            content["status"] = "failed" if event.error is not None else "complete"
            content["output"] = event.to_dict()["output"]
            content["error"] = event.error
        snapshot = ActivitySnapshotEvent(
            message_id=f"{self.run_id}-{event.id}",
            activity_type=HOSTED_ACTIVITY,
            content=dict(content),
        )
        return [*out, snapshot]

    # the rest -----------------------------------------------------------------------

    def _done(self, event: StreamDone) -> list[BaseEvent]:
        self.done = True
        out = self._end_text()
        for call_id in sorted(self.open_calls):
            truncated = {"error": "invalid action (truncated)", "reason": "truncated", "errors": []}
            out += [ToolCallEndEvent(tool_call_id=call_id), self._result(call_id, dumps(truncated))]
        self.open_calls.clear()
        if event.reason == "error" or self.error is not None:
            code = self.error.error_type if self.error is not None else "stream_error"
            out.append(RunErrorEvent(message=error_text(self.error, self.options), code=code))
            return out
        result: dict[str, Any] = {
            "reason": event.reason,
            "actionsComplete": event.actions_complete,
            "actionsInvalid": event.actions_invalid,
            "textChars": event.text_chars,
        }
        if self.usage is not None:
            result["usage"] = {k: v for k, v in self.usage.to_dict().items() if k != "type"}
        outcome = (
            RunFinishedInterruptOutcome(interrupts=self.interrupts)
            if self.interrupts and event.reason == "complete"
            else None
        )
        finished = RunFinishedEvent(
            thread_id=self.thread_id, run_id=self.run_id, result=result, outcome=outcome
        )
        out.append(finished)
        return out

    def encode(self, event: Event) -> list[bytes]:
        if self.done:
            return []
        out: list[BaseEvent]
        if isinstance(event, TextDelta):
            out = self._delta("text", event.text)
        elif isinstance(event, RefusalDelta):
            out = self._delta("refusal", event.text)
        elif isinstance(event, ReasoningDelta):
            out = self._delta("reasoning", event.text)
        elif isinstance(event, (Citation, Diagnostic, Usage, ReasoningSignature)):
            if isinstance(event, Usage):
                self.usage = event
            out = [CustomEvent(name=f"unspool.{event.type}", value=event.to_dict())]
        elif isinstance(event, AppData):
            meta = {"unspool": {"id": event.id}} if event.id is not None else None
            out = [CustomEvent(name=event.name, value=event.to_dict()["data"], metadata=meta)]
        elif isinstance(event, StateSnapshot):
            out = [StateSnapshotEvent(snapshot=event.to_dict()["state"])]
        elif isinstance(event, StateDelta):
            out = [StateDeltaEvent(delta=event.to_dict()["patch"])]
        elif isinstance(event, StreamError):
            self.error = event
            out = []
        elif isinstance(event, StreamDone):
            out = self._done(event)
        elif isinstance(event, (HostedToolStarted, HostedToolInput, HostedToolResult)):
            out = self._hosted(event)
        else:
            out = self._action(event)
        return self._frames(*out)

    def step(self, done: StreamDone) -> list[bytes]:
        """Between two turns of one run: the open message ends."""
        return self._frames(*self._end_text())

    def close(self) -> list[bytes]:
        return [] if self.done else self._frames(*self._done(StreamDone("aborted")))


APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
"""The answer an approval interrupt asks for (a resume entry's ``payload``)."""


def _approval(event: ActionPending) -> Interrupt:
    assert event.approval_id is not None
    return Interrupt(
        id=event.approval_id,
        reason="tool_approval",
        message=f"Approve {event.name}?",
        tool_call_id=event.id,
        response_schema=APPROVAL_SCHEMA,
    )

"""Assemble provider-native tool calls from their argument deltas (sans-I/O).

Providers stream a tool call as a start (name, provider id), raw argument text
in pieces (OpenAI ``tool_calls[i].function.arguments``, Anthropic
``input_json_delta``), and an end (the next call, ``content_block_stop``, the
finish reason).  :class:`ToolCallAssembler` turns that into the shared events:
``ActionStarted``, ``ActionArgsDelta`` with the live partial arguments from one
core :class:`~unspool.core._jsonstream.JsonStream` per call (so the whole call
costs O(n) and incomplete strings show as they grow), and exactly one of
``ActionComplete`` / ``ActionInvalid`` per call.  Calls are keyed by whatever
the provider uses to address them (an index, an item id); several may be open
at once.  Ids come from an :class:`~unspool.protocols._emitter.ActionEmitter`,
which a caller shares with its text protocol so that one stream has one
sequence of action ids.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from unspool.core._errors import UNSET, MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.events import Diagnostic, Event, FinishReason
from unspool.protocols._args_snapshot import Snapshots, new_snapshots
from unspool.protocols._emitter import ActionEmitter, ActionValidator

__all__ = ["ToolCallAssembler"]


@dataclass(slots=True)
class _Call:
    """One tool call being assembled."""

    index: int | None  # the emitter's index; None for a call without a name (never started)
    name: str | None
    provider_id: str | None
    parser: JsonStream
    raw: list[str] = field(default_factory=list)
    unsent: list[str] = field(default_factory=list)  # raw text no ActionArgsDelta carried yet
    snaps: Snapshots = field(default_factory=new_snapshots)
    error: MalformedJSON | None = None
    repairs: int = 0


class ToolCallAssembler:
    """Provider tool calls in, action events out.

    ``start(key, name, provider_id)`` opens a call, ``args_delta(key, text)``
    feeds its raw argument text, ``end(key)`` closes it with ``ActionComplete``
    (arguments parsed, validated when the emitter has a registry) or
    ``ActionInvalid`` (``malformed_json``, ``bad_params`` when the arguments are
    not an object, ``schema``/``unknown_action`` from the registry,
    ``missing_name``).  ``finish(reason)`` closes the calls still open as
    ``ActionInvalid(truncated)``: a call the provider never ended was cut off and
    is never completed with invented closers.  Empty arguments mean ``{}``.

    Strict JSON by default; ``lenient=True`` uses the core's lenient mode and
    reports each repair as a ``Diagnostic(kind="repair")``.
    """

    __slots__ = ("_calls", "_ended", "emitter", "lenient", "truncated")

    def __init__(
        self,
        emitter: ActionEmitter | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        self.emitter = emitter if emitter is not None else ActionEmitter(stream_id, registry)
        self.lenient = lenient
        self.truncated = False  # finish() cut off at least one call
        self._calls: dict[Hashable, _Call] = {}
        self._ended: set[Hashable] = set()

    def is_open(self, key: Hashable) -> bool:
        """Whether the call ``key`` was started and not yet ended."""
        return key in self._calls

    def ready(self, key: Hashable) -> bool:
        """Whether the open call ``key`` holds a complete JSON value (it may end now)."""
        call = self._calls.get(key)
        return call is not None and call.error is None and call.parser.complete

    def incomplete(self, key: Hashable) -> bool:
        """Whether the open call ``key`` holds a JSON value cut short: some argument
        text, no syntax error, and the value not closed (what a token limit leaves)."""
        call = self._calls.get(key)
        if call is None or call.error is not None or call.parser.complete:
            return False
        return bool(call.raw) and not all(piece.isspace() for piece in call.raw)

    def open_keys(self) -> list[Hashable]:
        """Keys of the open calls, in the order they started."""
        return list(self._calls)

    def start(
        self,
        key: Hashable,
        name: str | None,
        provider_id: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> list[Event]:
        """Open the call ``key``: ``ActionStarted``, or nothing yet for a call without a
        name (it ends as ``ActionInvalid(missing_name)``).  A ``key`` that is already
        open is reported and otherwise ignored.  ``attributes`` are what the provider
        attached to the call and wants back with its result (Gemini's thought signature);
        ``ActionStarted`` and ``ActionComplete`` carry them."""
        if key in self._calls:
            return [
                Diagnostic("duplicate_tool_call", f"tool call {key!r} started twice", text=name)
            ]
        parser = JsonStream(lenient=self.lenient)
        self._ended.discard(key)
        if not name:
            self._calls[key] = _Call(None, None, provider_id, parser)
            return []
        started = self.emitter.start(name, action_id=provider_id, attributes=attributes)
        self._calls[key] = _Call(started.index, name, provider_id, parser)
        return [started]

    def args_delta(self, key: Hashable, text: str) -> list[Event]:
        """Feed raw argument text of the call ``key``; ``ActionArgsDelta`` with the live
        partial arguments once a value is visible: a snapshot that later text never changes
        (``delta`` carries all the raw text since the previous one, so the deltas join
        to the raw arguments)."""
        if not text:
            return []
        call = self._calls.get(key)
        if call is None:
            if text.isspace():
                return []
            kind = "late_tool_delta" if key in self._ended else "orphan_tool_delta"
            return [
                Diagnostic(
                    kind, f"argument text for tool call {key!r}, which is not open", text=text
                )
            ]
        call.raw.append(text)
        if call.error is not None:
            return []
        try:
            value = call.parser.feed(text)
        except MalformedJSON as exc:
            call.error = exc
            return self._repairs(call)  # those made before the error, whatever the chunking
        events: list[Event] = self._repairs(call)
        if value is UNSET or call.index is None:
            call.unsent.append(text)  # a list: a long run of such text stays O(n)
            return events
        if call.unsent:
            call.unsent.append(text)
            delta = "".join(call.unsent)
            call.unsent.clear()
        else:
            delta = text
        partial = call.snaps.take(value, len(delta), call.parser.complete)
        events.append(self.emitter.args_delta(call.index, partial, delta))
        return events

    def end(self, key: Hashable) -> list[Event]:
        """Close the call ``key``: its one terminal event (nothing if it is not open)."""
        call = self._calls.pop(key, None)
        if call is None:
            return []
        self._ended.add(key)
        raw = "".join(call.raw)
        if call.index is None:
            return [
                self.emitter.reject(
                    None,
                    "missing_name",
                    _errors("the tool call has no name"),
                    raw,
                    call.provider_id,
                )
            ]
        if call.error is None:
            try:  # the lenient parser may find the text malformed only at its end
                value = call.parser.finish()
            except MalformedJSON as exc:
                call.error = exc
        events: list[Event] = self._repairs(call)
        if call.error is not None:
            err = call.error
            errors = ({"message": err.msg, "pos": err.pos},)
            events.append(self.emitter.invalid(call.index, "malformed_json", errors, raw))
            return events
        if value is UNSET and not raw.strip():
            value = {}
        elif value is UNSET or (isinstance(value, (dict, list, str)) and not call.parser.complete):
            message = "the arguments ended before their JSON value was complete"
            events.append(self.emitter.invalid(call.index, "malformed_json", _errors(message), raw))
            return events
        if not isinstance(value, dict):
            message = f"the arguments are a JSON {type(value).__name__}, not an object"
            events.append(self.emitter.invalid(call.index, "bad_params", _errors(message), raw))
            return events
        events.append(self.emitter.complete(call.index, value, raw=raw))
        return events

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """Close every call still open as ``ActionInvalid(truncated)`` (a call without a
        name as ``missing_name``); sets :attr:`truncated` when there was one."""
        events: list[Event] = []
        why = "aborted" if reason == "abort" else "cut off"
        for key in list(self._calls):
            call = self._calls.pop(key)
            self._ended.add(key)
            raw = "".join(call.raw)
            if call.index is None:
                message = "the tool call has no name"
                events.append(
                    self.emitter.reject(
                        None, "missing_name", _errors(message), raw, call.provider_id
                    )
                )
                continue
            self.truncated = True
            message = f"the stream was {why} inside this tool call"
            events.append(self.emitter.invalid(call.index, "truncated", _errors(message), raw))
        return events

    def _repairs(self, call: _Call) -> list[Event]:
        """``Diagnostic(kind="repair")`` for each repair the lenient parser made since last time."""
        if not self.lenient:
            return []
        repairs = call.parser.repairs
        new = repairs[call.repairs :]
        call.repairs = len(repairs)
        label = call.name or "tool call"
        return [Diagnostic("repair", f"{label}: {r.message}", pos=r.pos, text=r.kind) for r in new]


def _errors(message: str) -> tuple[dict[str, Any], ...]:
    return ({"message": message},)

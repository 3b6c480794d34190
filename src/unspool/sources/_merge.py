"""One event stream from a provider's channels: text, reasoning and tool calls.

A provider reply has a text channel (parsed by a text protocol: plain,
interleaved or tags), a reasoning channel, native tool calls and the calls of the
provider's own tools (:class:`~unspool.sources._hosted.HostedCalls`: never actions).
:class:`EventMerger` routes each piece to its parser and returns the events in
the order the pieces arrived, with one ``StreamDone`` at the very end whose
counts cover the whole stream.

Action ids (``stream_id=None``, the default, is a fresh
:func:`~unspool.events.new_stream_id`, so two replies never share ids): the tool
calls use the text parser's own :class:`~unspool.protocols._emitter.ActionEmitter`
(its public ``emitter`` attribute), so actions written in the text and native tool calls are numbered
in one sequence (``"{stream_id}:0"``, ``":1"``...).  A parser without an
``emitter`` attribute keeps its ids, and the tool calls get theirs from an
emitter of their own with the stream id ``"{stream_id}/tools"``, so ids never
collide.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping
from typing import Any

from unspool.events import (
    Citation,
    Diagnostic,
    DoneReason,
    Event,
    FinishReason,
    ReasoningDelta,
    ReasoningSignature,
    RefusalDelta,
    StreamDone,
    StreamError,
    new_stream_id,
)
from unspool.protocols._emitter import ActionEmitter, ActionValidator, done_reason
from unspool.protocols._toolcalls import ToolCallAssembler
from unspool.sources._hosted import HostedCalls
from unspool.sources._parsers import TextProtocol, emitter_of, make_parser
from unspool.sources._usage import UsageRecords

__all__ = ["EventMerger"]


class EventMerger:
    """Text, reasoning and tool-call pieces in, one ordered event stream out (sans-I/O)."""

    __slots__ = (
        "_own_tools",
        "_stopped",
        "closed",
        "hosted",
        "parser",
        "paused",
        "text_chars",
        "tools",
        "usage",
    )

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        if stream_id is None:
            stream_id = new_stream_id()
        self.parser = make_parser(text_parser, stream_id=stream_id, registry=registry)
        shared = emitter_of(self.parser)
        self._own_tools = shared is None
        emitter = shared if shared is not None else ActionEmitter(f"{stream_id}/tools", registry)
        self.tools = ToolCallAssembler(emitter, lenient=lenient)
        self.hosted = HostedCalls(stream_id)
        self.usage = UsageRecords()  # the provider's token counts, reported at the end
        self.paused = False  # the provider paused the turn: a complete end is "paused"
        self.closed = False  # finish() or fail() ran: nothing more is accepted
        self.text_chars = 0  # characters given to the text channel so far (citation offsets)
        self._stopped: list[Hashable] = []  # calls closed by the provider with incomplete JSON

    def text(self, chunk: str | bytes) -> list[Event]:
        """A piece of the text channel, through the text protocol."""
        if self.closed or not chunk:
            return []
        if isinstance(chunk, str):
            self.text_chars += len(chunk)
        return self.parser.feed(chunk)

    def reasoning(self, text: str) -> list[Event]:
        """A piece of the reasoning channel."""
        if self.closed or not text:
            return []
        return [ReasoningDelta(text)]

    def reasoning_end(
        self, provider: str, signature: str | None = None, redacted: str | None = None
    ) -> list[Event]:
        """The end of a block of reasoning, with what seals it (see ReasoningSignature)."""
        if self.closed or not (signature or redacted):
            return []
        return [ReasoningSignature(provider, signature or None, redacted or None)]

    def refusal(self, text: str) -> list[Event]:
        """A piece of the model's refusal, in order with the rest."""
        if self.closed:
            return []
        return [RefusalDelta(text)]

    def citation(self, citation: Citation) -> list[Event]:
        """A source the provider attached to the text."""
        return [] if self.closed else [citation]

    def note(self, kind: str, message: str, text: str | None = None) -> list[Event]:
        """A ``Diagnostic`` (something the provider sent that has no event of its own)."""
        if self.closed:
            return []
        return [Diagnostic(kind, message, text=text)]

    def tool_start(
        self,
        key: Hashable,
        name: str | None,
        provider_id: str | None,
        attributes: Mapping[str, str] | None = None,
    ) -> list[Event]:
        """A native tool call starts (``attributes``: what the provider wants back with it)."""
        return [] if self.closed else self.tools.start(key, name, provider_id, attributes)

    def tool_args(self, key: Hashable, text: str) -> list[Event]:
        """Raw argument text of a native tool call."""
        return [] if self.closed else self.tools.args_delta(key, text)

    def tool_end(self, key: Hashable) -> list[Event]:
        """A native tool call ends (the provider said so)."""
        return [] if self.closed else self.tools.end(key)

    def tool_stop(self, key: Hashable) -> list[Event]:
        """The provider closed a tool call's block.  A call whose JSON is complete (or
        malformed) ends now; one whose JSON is cut short waits for the stop reason:
        ``finish("length")`` makes it ``ActionInvalid(truncated)``, ``finish("stop")``
        ``ActionInvalid(malformed_json)``.  (Providers close the last block before
        they say that the token limit cut it.)"""
        if self.closed or not self.tools.is_open(key):
            return []
        if not self.tools.incomplete(key):
            return self.tools.end(key)
        self._stopped.append(key)
        return []

    def hosted_start(
        self,
        key: Hashable,
        name: str,
        provider_id: str | None = None,
        kind: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> list[Event]:
        """A call of one of the provider's own tools starts: never an action."""
        if self.closed:
            return []
        return self.hosted.start(key, name, provider_id, kind, attributes)

    def hosted_input(self, key: Hashable, value: Any) -> list[Event]:
        """The whole input of a provider-run call."""
        return [] if self.closed else self.hosted.input(key, value)

    def hosted_result(
        self, key: Hashable, output: Any = None, error: str | None = None, kind: str | None = None
    ) -> list[Event]:
        """A provider-run call ended (``error``: it failed)."""
        return [] if self.closed else self.hosted.result(key, output, error, kind)

    def end_tools(self) -> list[Event]:
        """End every open tool call (the provider finished normally)."""
        events: list[Event] = []
        for key in self.tools.open_keys():
            events.extend(self.tool_end(key))
        return events

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """Close the text protocol and the open tool calls; ``StreamDone`` last. Idempotent."""
        if self.closed:
            return []
        events, text_done = self._close(reason)
        truncated = self.tools.truncated or (
            text_done is not None and text_done.reason == "truncated"
        )
        events.extend(self._usage())
        ending = done_reason(reason, truncated)
        if self.paused and ending == "complete":
            ending = "paused"
        events.append(self._done(ending, text_done))
        return events

    def fail(self, message: str, error_type: str) -> list[Event]:
        """The upstream failed: ``StreamError``, then the open text and tool calls closed
        as aborted (``ActionInvalid(truncated)``), then ``StreamDone(reason="error")``."""
        if self.closed:
            return []
        events: list[Event] = [StreamError(message, error_type)]
        closing, text_done = self._close("abort")
        events.extend(closing)
        events.extend(self._usage())
        events.append(self._done("error", text_done))
        return events

    def _close(self, reason: FinishReason | None) -> tuple[list[Event], StreamDone | None]:
        """The text parser's and the tool calls' last events, without the parser's ``StreamDone``."""
        self.closed = True
        events: list[Event] = []
        if reason == "stop":
            for key in self._stopped:
                events.extend(self.tools.end(key))
        text_done: StreamDone | None = None
        for event in self.parser.finish(reason):
            if isinstance(event, StreamDone):
                text_done = event
            else:
                events.append(event)
        events.extend(self.tools.finish(reason))
        return events, text_done

    def _usage(self) -> list[Event]:
        """The ``Usage`` of the records the provider sent, if any counted tokens."""
        usage = self.usage.event()
        return [] if usage is None else [usage]

    def _done(self, reason: DoneReason, text_done: StreamDone | None) -> StreamDone:
        """The one ``StreamDone``: counts of every action, whichever emitter numbered it."""
        done = self.tools.emitter.done(reason, text_done.text_chars if text_done else 0)
        if self._own_tools and text_done is not None:
            done = dataclasses.replace(
                done,
                actions_complete=done.actions_complete + text_done.actions_complete,
                actions_invalid=done.actions_invalid + text_done.actions_invalid,
            )
        return done

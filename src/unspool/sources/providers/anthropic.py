"""Anthropic Messages streams in, unspool events out.

:func:`from_anthropic` takes what the ``anthropic`` SDK (extra
``unspool[anthropic]``) returns for a streamed call, sync or async: the raw
stream of ``client.messages.create(..., stream=True)`` or the ``MessageStream``
of ``client.messages.stream(...)`` (its derived ``text``/``input_json``/...
events repeat the raw ones and are skipped).  Mapping, in stream order:

* ``text`` blocks' ``text_delta`` -> the text protocol (plain by default, or
  ``"interleaved"``, ``"tags"``, a parser); the text of all text blocks is one
  text stream;
* ``tool_use`` blocks: ``content_block_start`` -> ``ActionStarted`` (the block's
  ``id`` kept as ``action_id``), ``input_json_delta`` -> ``ActionArgsDelta``
  with the live partial input, ``content_block_stop`` -> ``ActionComplete`` or
  ``ActionInvalid`` (a block closed with its JSON cut short waits for the stop
  reason: the API closes the last block before it says ``max_tokens``);
* ``thinking_delta`` -> ``ReasoningDelta``; ``redacted_thinking`` blocks and
  server-run tool blocks (``server_tool_use``, results) are reported once as a
  ``Diagnostic`` and not run;
* ``stop_reason="max_tokens"`` (or ``model_context_window_exceeded``) -> open
  calls ``ActionInvalid(truncated)`` and ``StreamDone(truncated)``; an ``error``
  event -> ``StreamError`` and ``StreamDone(error)``.

Events are read by duck typing (no SDK import), so plain dicts and
:class:`~unspool.sources.sse.SSEMessage`\\ s of the raw wire format work too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, overload

from unspool.events import Event
from unspool.protocols.emitter import ActionValidator
from unspool.sources.drive import drive_async, drive_sync
from unspool.sources.parsers import TextProtocol
from unspool.sources.payload import get, get_str
from unspool.sources.provider_decoder import ProviderDecoder

__all__ = ["ANTHROPIC_EVENT_TYPES", "AnthropicDecoder", "from_anthropic", "recognise"]

_CUT = frozenset({"max_tokens", "model_context_window_exceeded"})
_KNOWN_STOPS = frozenset({"end_turn", "stop_sequence", "tool_use", "pause_turn", "refusal", *_CUT})


class AnthropicDecoder(ProviderDecoder):
    """Anthropic Messages stream events in, events out (sans-I/O).

    ``feed(event)`` for each SDK event (or dict, or SSE message), then
    ``finish()``; ``fail(message, error_type)`` when the upstream breaks.
    """

    __slots__ = ("_blocks", "_noted")

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        super().__init__(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
        self._blocks: dict[Any, str] = {}  # open content blocks: index -> block type
        self._noted: set[tuple[Any, str]] = set()

    def _event(self, event: Any) -> list[Event]:
        handler = _HANDLERS.get(get_str(event, "type") or "")
        return handler(self, event) if handler is not None else []

    def _note_once(self, index: Any, kind: str, message: str, text: str | None) -> list[Event]:
        if (index, text or "") in self._noted:
            return []
        self._noted.add((index, text or ""))
        return self.merger.note(kind, message, text)

    def _block_start(self, event: Any) -> list[Event]:
        index = get(event, "index")
        block = get(event, "content_block")
        kind = get_str(block, "type") or ""
        self._blocks[index] = kind
        merger = self.merger
        if kind == "text":
            return merger.text(get_str(block, "text") or "")
        if kind == "thinking":
            return merger.reasoning(get_str(block, "thinking") or "")
        if kind == "tool_use":
            events = merger.tool_start(index, get_str(block, "name"), get_str(block, "id"))
            given = get(block, "input")
            if isinstance(given, Mapping) and given:  # the whole input up front, not streamed
                events.extend(merger.tool_args(index, json.dumps(given, ensure_ascii=False)))
            return events
        if kind == "redacted_thinking":
            return self._note_once(
                index, "redacted_thinking", "encrypted reasoning, not shown", kind
            )
        message = f"content block of type {kind!r} is handled by the provider, not an action"
        return self._note_once(index, "ignored_block", message, kind)

    def _block_delta(self, event: Any) -> list[Event]:
        index = get(event, "index")
        delta = get(event, "delta")
        kind = get_str(delta, "type")
        if kind == "text_delta":
            return self.merger.text(get_str(delta, "text") or "")
        if kind == "input_json_delta":
            if self._blocks.get(index) != "tool_use":
                return []  # the input of a server-run tool: reported at its block start
            return self.merger.tool_args(index, get_str(delta, "partial_json") or "")
        if kind == "thinking_delta":
            return self.merger.reasoning(get_str(delta, "thinking") or "")
        if kind == "signature_delta":
            return []  # the opaque signature of a thinking block: not content
        message = f"content delta of type {kind!r} has no event: ignored"
        return self._note_once(index, "ignored_delta", message, kind)

    def _block_stop(self, event: Any) -> list[Event]:
        index = get(event, "index")
        if self._blocks.pop(index, None) == "tool_use":
            return self.merger.tool_stop(index)
        return []

    def _message_delta(self, event: Any) -> list[Event]:
        stop = get_str(get(event, "delta"), "stop_reason")
        if stop is None:
            return []
        self._reason = "length" if stop in _CUT else "stop"
        if stop == "refusal":
            return self.merger.note("refusal", "the model refused", stop)
        if stop not in _KNOWN_STOPS:
            return self.merger.note("stop_reason", f"unknown stop reason {stop!r}", stop)
        return []

    def _error(self, event: Any) -> list[Event]:
        error = get(event, "error")
        message = (
            get_str(error, "message") if error is not None else None
        ) or "the stream reported an error"
        kind = (get_str(error, "type") if error is not None else None) or "error"
        return self.merger.fail(message, kind)


_HANDLERS: dict[str, Callable[[AnthropicDecoder, Any], list[Event]]] = {
    "content_block_start": AnthropicDecoder._block_start,
    "content_block_delta": AnthropicDecoder._block_delta,
    "content_block_stop": AnthropicDecoder._block_stop,
    "message_delta": AnthropicDecoder._message_delta,
    "error": AnthropicDecoder._error,
}

ANTHROPIC_EVENT_TYPES = frozenset(
    {"message_start", "message_delta", "message_stop", "ping", *_HANDLERS} - {"error"}
)
"""The raw event types that identify an Anthropic stream (``error`` is shared with OpenAI)."""


def recognise(item: Any) -> bool:
    """Whether ``item`` is an Anthropic Messages stream event."""
    return get_str(item, "type") in ANTHROPIC_EVENT_TYPES


@overload
def from_anthropic(
    stream: AsyncIterable[Any],
    text_parser: TextProtocol | None = None,
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    lenient: bool = False,
) -> AsyncIterator[Event]: ...


@overload
def from_anthropic(
    stream: Iterable[Any],
    text_parser: TextProtocol | None = None,
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    lenient: bool = False,
) -> Iterator[Event]: ...


def from_anthropic(
    stream: Iterable[Any] | AsyncIterable[Any],
    text_parser: TextProtocol | None = None,
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    lenient: bool = False,
) -> Iterator[Event] | AsyncIterator[Event]:
    """Events of an Anthropic Messages stream: a sync iterator for a sync stream
    (``Stream``, ``MessageStream``, a list of events), an async iterator for an async
    one (``AsyncStream``, ``AsyncMessageStream``).  Options as in
    :func:`unspool.from_openai`."""
    decoder = AnthropicDecoder(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
    if isinstance(stream, AsyncIterable):
        return drive_async(stream, decoder)
    return drive_sync(stream, decoder)

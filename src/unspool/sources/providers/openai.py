"""OpenAI streams in, unspool events out: Chat Completions and the Responses API.

:func:`from_openai` takes what the ``openai`` SDK (extra ``unspool[openai]``)
returns for a streamed call, sync or async, and yields events in stream order:

* Chat Completions (``client.chat.completions.create(..., stream=True)``, or the
  ``chat.completions.stream()`` helper's stream): ``delta.content`` goes to the
  text protocol (plain by default, or ``"interleaved"``, ``"tags"``, a parser);
  each ``delta.tool_calls[i]`` becomes ``ActionStarted``, ``ActionArgsDelta``
  (the live partial arguments, incomplete strings included) and one
  ``ActionComplete``/``ActionInvalid``; several calls may be open at once.  A
  call ends when a later call starts and its JSON value is complete, or at the
  finish reason.  ``finish_reason="length"`` (and ``"content_filter"``) cut off
  the open calls (``ActionInvalid(truncated)``) and end with
  ``StreamDone(truncated)``.  ``delta.reasoning_content`` / ``delta.reasoning``
  (sent by some OpenAI-compatible servers) become ``ReasoningDelta``.
* Responses API (``client.responses.create(..., stream=True)`` or
  ``responses.stream()``): ``response.output_text.delta`` to the text protocol,
  ``function_call`` output items and ``response.function_call_arguments.delta``
  / ``.done`` to actions, reasoning text to ``ReasoningDelta``,
  ``response.incomplete`` to truncation, ``response.failed`` / ``error`` to
  ``StreamError``.

Events are read by duck typing (documented attributes only, no SDK import), so
plain dicts and :class:`~unspool.sources.sse.SSEMessage`\\ s of the raw wire
format work too.  Refusals become ``Diagnostic(kind="refusal")``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Hashable, Iterable, Iterator
from typing import Any, overload

from unspool.events import Event
from unspool.protocols.emitter import ActionValidator
from unspool.sources.drive import drive_async, drive_sync
from unspool.sources.parsers import TextProtocol
from unspool.sources.payload import get, get_str
from unspool.sources.provider_decoder import ProviderDecoder

__all__ = ["OpenAIDecoder", "from_openai", "recognise"]

_NATURAL_END = frozenset({"stop", "tool_calls", "function_call"})
_OBJECTS = frozenset({"chat.completion.chunk", "text_completion", "response"})


def recognise(item: Any) -> bool:
    """Whether ``item`` is an OpenAI stream item: a Chat Completions or legacy
    Completions chunk, a Responses API event, or the chat stream helper's wrapper."""
    if get(item, "choices") is not None or get_str(item, "object") in _OBJECTS:
        return True
    kind = get_str(item, "type")
    return kind is not None and (kind.startswith("response.") or kind == "chunk")


class OpenAIDecoder(ProviderDecoder):
    """Chat Completions chunks and Responses API events in, events out (sans-I/O).

    ``feed(event)`` for each SDK event (or dict, or SSE message), then
    ``finish()``; ``fail(message, error_type)`` when the upstream breaks.
    ``choice`` selects the Chat Completions choice to follow when ``n > 1``
    (the others are reported once each and ignored).
    """

    __slots__ = ("_ignored", "_last_key", "_seen", "_streamed", "choice")

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        choice: int = 0,
        lenient: bool = False,
    ) -> None:
        super().__init__(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
        self.choice = choice
        self._ignored: set[Any] = set()
        self._seen: set[Hashable] = set()  # tool-call keys started
        self._streamed: set[Hashable] = set()  # Responses calls whose arguments came as deltas
        self._last_key: Hashable = 0

    def _event(self, event: Any) -> list[Event]:
        if get(event, "choices") is not None:
            return self._chat(event)
        kind = get_str(event, "type")
        if kind == "chunk":  # the chat.completions.stream() helper wraps each raw chunk
            inner = get(event, "chunk")
            return self._chat(inner) if inner is not None else []
        handler = _RESPONSES.get(kind) if kind else None
        return handler(self, event) if handler is not None else []

    # ----------------------------------------------------------- Chat Completions

    def _chat(self, chunk: Any) -> list[Event]:
        events: list[Event] = []
        for choice in get(chunk, "choices") or ():
            index = get(choice, "index", 0)
            if index != self.choice:
                if index not in self._ignored:
                    self._ignored.add(index)
                    message = f"choice {index!r} is ignored: following choice {self.choice}"
                    events.extend(self.merger.note("ignored_choice", message))
                continue
            delta = get(choice, "delta")
            if delta is not None:
                events.extend(self._chat_delta(delta))
            reason = get_str(choice, "finish_reason")
            if reason:
                events.extend(self._chat_finish(reason))
        return events

    def _chat_delta(self, delta: Any) -> list[Event]:
        merger = self.merger
        events: list[Event] = []
        reasoning = get_str(delta, "reasoning_content") or get_str(delta, "reasoning")
        if reasoning:
            events.extend(merger.reasoning(reasoning))
        content = get_str(delta, "content")
        if content:
            events.extend(merger.text(content))
        refusal = get_str(delta, "refusal")
        if refusal:
            events.extend(merger.note("refusal", "the model refused", refusal))
        for call in get(delta, "tool_calls") or ():
            events.extend(
                self._chat_tool(get(call, "index"), get_str(call, "id"), get(call, "function"))
            )
        legacy = get(delta, "function_call")  # the deprecated functions API: one call
        if legacy is not None:
            events.extend(self._chat_tool("function_call", None, legacy))
        return events

    def _chat_tool(self, index: Any, call_id: str | None, function: Any) -> list[Event]:
        key: Hashable = index if isinstance(index, (int, str)) else (call_id or self._last_key)
        self._last_key = key
        events: list[Event] = []
        if key not in self._seen:
            self._seen.add(key)
            tools = self.merger.tools
            for other in tools.open_keys():  # calls stream one after another: a finished one ends
                if tools.ready(other):
                    events.extend(self.merger.tool_end(other))
            name = get_str(function, "name") if function is not None else None
            events.extend(self.merger.tool_start(key, name, call_id))
        arguments = get_str(function, "arguments") if function is not None else None
        if arguments:
            events.extend(self.merger.tool_args(key, arguments))
        return events

    def _chat_finish(self, reason: str) -> list[Event]:
        if reason == "length":
            self._reason = "length"
            return []
        if reason == "content_filter":
            self._reason = "length"
            return self.merger.note(
                "content_filter", "the provider's content filter cut the output"
            )
        events: list[Event] = []
        if reason not in _NATURAL_END:
            events.extend(
                self.merger.note("finish_reason", f"unknown finish reason {reason!r}", reason)
            )
        self._reason = "stop"
        events.extend(self.merger.end_tools())
        return events

    # ----------------------------------------------------------- Responses API

    def _key(self, event: Any, item: Any = None) -> Hashable:
        index = get(event, "output_index")
        if isinstance(index, int):
            return index
        return get_str(event, "item_id") or get_str(item, "id") or self._last_key

    def _text_delta(self, event: Any) -> list[Event]:
        return self.merger.text(get_str(event, "delta") or "")

    def _refusal_delta(self, event: Any) -> list[Event]:
        return self.merger.note("refusal", "the model refused", get_str(event, "delta"))

    def _reasoning_delta(self, event: Any) -> list[Event]:
        return self.merger.reasoning(get_str(event, "delta") or "")

    def _item_added(self, event: Any) -> list[Event]:
        item = get(event, "item")
        kind = get_str(item, "type")
        if kind == "function_call":
            key = self._key(event, item)
            self._seen.add(key)
            events = self.merger.tool_start(key, get_str(item, "name"), get_str(item, "call_id"))
            arguments = get_str(item, "arguments")
            if arguments:
                self._streamed.add(key)
                events.extend(self.merger.tool_args(key, arguments))
            return events
        if kind in (None, "message", "reasoning"):
            return []
        message = f"output item of type {kind!r} is run by the provider, not an action"
        return self.merger.note("ignored_item", message, kind)

    def _args_delta(self, event: Any) -> list[Event]:
        key = self._key(event)
        self._streamed.add(key)
        return self.merger.tool_args(key, get_str(event, "delta") or "")

    def _args_done(self, event: Any) -> list[Event]:
        return self._end_call(self._key(event), get_str(event, "arguments"))

    def _item_done(self, event: Any) -> list[Event]:
        item = get(event, "item")
        if get_str(item, "type") != "function_call":
            return []
        key = self._key(event, item)
        events: list[Event] = []
        if key not in self._seen:  # no output_item.added: the whole call arrives here
            self._seen.add(key)
            events.extend(
                self.merger.tool_start(key, get_str(item, "name"), get_str(item, "call_id"))
            )
        events.extend(self._end_call(key, get_str(item, "arguments")))
        return events

    def _end_call(self, key: Hashable, arguments: str | None) -> list[Event]:
        if not self.merger.tools.is_open(key):
            return []
        events: list[Event] = []
        if arguments and key not in self._streamed:
            self._streamed.add(key)
            events.extend(self.merger.tool_args(key, arguments))
        events.extend(self.merger.tool_stop(key))
        return events

    def _completed(self, event: Any) -> list[Event]:
        self._reason = "stop"
        return self.merger.end_tools()

    def _incomplete(self, event: Any) -> list[Event]:
        self._reason = "length"
        details = get(get(event, "response"), "incomplete_details")
        why = get_str(details, "reason") if details is not None else None
        if why == "content_filter":
            return self.merger.note(
                "content_filter", "the provider's content filter cut the output"
            )
        return []

    def _failed(self, event: Any) -> list[Event]:
        error = get(get(event, "response"), "error")
        message = (
            get_str(error, "message") if error is not None else None
        ) or "the response failed"
        code = (get_str(error, "code") if error is not None else None) or "response.failed"
        return self.merger.fail(message, code)

    def _error(self, event: Any) -> list[Event]:
        message = get_str(event, "message") or "the stream reported an error"
        return self.merger.fail(message, get_str(event, "code") or "error")


_RESPONSES: dict[str, Callable[[OpenAIDecoder, Any], list[Event]]] = {
    "response.output_text.delta": OpenAIDecoder._text_delta,
    "response.refusal.delta": OpenAIDecoder._refusal_delta,
    "response.reasoning_summary_text.delta": OpenAIDecoder._reasoning_delta,
    "response.reasoning_text.delta": OpenAIDecoder._reasoning_delta,
    "response.output_item.added": OpenAIDecoder._item_added,
    "response.function_call_arguments.delta": OpenAIDecoder._args_delta,
    "response.function_call_arguments.done": OpenAIDecoder._args_done,
    "response.output_item.done": OpenAIDecoder._item_done,
    "response.completed": OpenAIDecoder._completed,
    "response.incomplete": OpenAIDecoder._incomplete,
    "response.failed": OpenAIDecoder._failed,
    "error": OpenAIDecoder._error,
}


@overload
def from_openai(
    stream: AsyncIterable[Any],
    text_parser: TextProtocol | None = None,
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    choice: int = 0,
    lenient: bool = False,
) -> AsyncIterator[Event]: ...


@overload
def from_openai(
    stream: Iterable[Any],
    text_parser: TextProtocol | None = None,
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    choice: int = 0,
    lenient: bool = False,
) -> Iterator[Event]: ...


def from_openai(
    stream: Iterable[Any] | AsyncIterable[Any],
    text_parser: TextProtocol | None = None,
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    choice: int = 0,
    lenient: bool = False,
) -> Iterator[Event] | AsyncIterator[Event]:
    """Events of an OpenAI stream: a sync iterator for a sync stream (``Stream``,
    a list of chunks), an async iterator for an async one (``AsyncStream``).

    ``text_parser`` is the protocol of the text channel (``"plain"``,
    ``"interleaved"``, ``"tags"`` or a parser instance); ``registry`` validates
    actions; ``lenient`` accepts repairable tool-argument JSON.  The stream is
    closed when the iteration ends, however it ends; an upstream error becomes
    ``StreamError`` then ``StreamDone(reason="error")``."""
    decoder = OpenAIDecoder(
        text_parser, stream_id=stream_id, registry=registry, choice=choice, lenient=lenient
    )
    if isinstance(stream, AsyncIterable):
        return drive_async(stream, decoder)
    return drive_sync(stream, decoder)

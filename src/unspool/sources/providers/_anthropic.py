"""Anthropic Messages streams in, unspool events out.

:func:`from_anthropic` takes what the ``anthropic`` SDK (extra
``unspool[anthropic]``) returns for a streamed call, sync or async: the raw
stream of ``client.messages.create(..., stream=True)`` or the ``MessageStream``
of ``client.messages.stream(...)`` (its derived ``text``/``input_json``/...
events repeat the raw ones and are skipped).  Mapping, in stream order:

* ``message_start``: content already in its ``message.content`` (a whole message,
  as programmatic tool calling sends it) is read like streamed blocks, and its
  ``stop_reason`` is honoured; a second ``message_start`` in one stream is an
  error (``StreamError``, then ``StreamDone(error)``), never glued to the first;
* ``text`` blocks' ``text_delta`` -> the text protocol (plain by default, or
  ``"interleaved"``, ``"tags"``, a parser); the text of all text blocks is one
  text stream; ``citations_delta`` -> one ``Citation`` each, sent when its block
  ends, with ``start`` / ``end`` the block's span in the text channel;
* ``tool_use`` blocks: ``content_block_start`` -> ``ActionStarted`` (the block's
  ``id`` kept as ``action_id``), ``input_json_delta`` -> ``ActionArgsDelta``
  with the live partial input, ``content_block_stop`` -> ``ActionComplete`` or
  ``ActionInvalid`` (a block closed with its JSON cut short waits for the stop
  reason: the API closes the last block before it says ``max_tokens``);
* ``thinking_delta`` -> ``ReasoningDelta``; its block's ``signature_delta`` and a
  ``redacted_thinking`` block -> ``ReasoningSignature`` (what the API wants back with the
  turn); ``compaction`` blocks are reported once, a ``fallback`` block (another model goes
  on with the reply) each time;
* server-run tool blocks are never actions: ``server_tool_use`` (web search, web fetch,
  code execution, tool search...) and ``mcp_tool_use`` -> ``HostedToolStarted`` at their
  start, ``HostedToolInput`` (the JSON their ``input_json_delta`` events streamed) at their
  stop; a ``*_tool_result`` block (``web_search_tool_result``, ``mcp_tool_result``...)
  -> ``HostedToolResult`` of the call its ``tool_use_id`` names (``output`` its
  ``content``; ``error`` the ``error_code`` of an ``*_error`` content, or the text of
  an ``is_error`` result);
* ``stop_reason="refusal"`` -> ``RefusalDelta`` with the ``explanation`` of its
  ``stop_details`` (``""`` when the API gives none: the event still marks where the
  model refused); ``"pause_turn"`` -> ``StreamDone(paused)`` (the caller sends the
  turn back as it stands to continue it); ``"max_tokens"`` (or
  ``model_context_window_exceeded``) -> open calls ``ActionInvalid(truncated)``
  and ``StreamDone(truncated)``; an ``error`` event -> ``StreamError`` and
  ``StreamDone(error)``.

Events are read by duck typing (no SDK import), so plain dicts and
:class:`~unspool.sources._sse.SSEMessage`\\ s of the raw wire format work too.  A
payload of the wrong shape is reported (``Diagnostic(kind="bad_event")``) and
skipped; the iteration never raises and ends with ``StreamDone``.
"""

from __future__ import annotations

import json
from collections.abc import (
    Callable,
    Hashable,
    Mapping,
)
from typing import Any

from unspool.events import Citation, Event, FinishReason
from unspool.protocols._emitter import ActionValidator
from unspool.sources._entry import entry_point
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import get, get_int, get_str, is_record, plain
from unspool.sources._provider_decoder import ProviderDecoder

__all__ = ["ANTHROPIC_EVENT_TYPES", "AnthropicDecoder", "from_anthropic", "recognise"]

_CUT = frozenset({"max_tokens", "model_context_window_exceeded"})
_KNOWN_STOPS = frozenset({"end_turn", "stop_sequence", "tool_use", "pause_turn", "refusal", *_CUT})
_DERIVED = frozenset({"text", "input_json", "citation", "thinking", "signature", "compaction"})
"""What ``MessageStream`` derives from the raw events (it yields both)."""
_QUIET = frozenset({"ping", "message_stop"})
_HOSTED_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Blocks of a call the API runs itself; their results are ``*_tool_result`` blocks."""


class AnthropicDecoder(ProviderDecoder):
    """Anthropic Messages stream events in, events out (sans-I/O).

    ``feed(event)`` for each SDK event (or dict, or SSE message), then
    ``finish()``; ``fail(message, error_type)`` when the upstream breaks.
    """

    __slots__ = ("_blocks", "_citations", "_inputs", "_started", "_starts")
    provider = "Anthropic"

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        super().__init__(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
        self._blocks: dict[Hashable, str] = {}  # open content blocks: key -> block type
        self._starts: dict[Hashable, int] = {}  # open text blocks: key -> text offset
        self._citations: dict[Hashable, list[Any]] = {}  # citations waiting for their block end
        self._inputs: dict[Hashable, tuple[Any, list[str]]] = {}  # server-run calls' input
        self._started = False  # a message_start was read

    def _event(self, event: Any) -> list[Event]:
        kind = get_str(event, "type")
        handler = _HANDLERS.get(kind or "")
        if handler is not None:
            return handler(self, event)
        if kind in _DERIVED or kind in _QUIET:
            return []
        return self.unknown(kind, event)

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End of the upstream: citations of blocks left open, then everything closes."""
        return [*self._flush_citations(), *super().finish(reason)]

    def fail(self, message: str, error_type: str) -> list[Event]:
        """The upstream broke: citations of blocks left open, then ``StreamError`` ..."""
        return [*self._flush_citations(), *super().fail(message, error_type)]

    # ----------------------------------------------------------- the message

    def _message_start(self, event: Any) -> list[Event]:
        if self._started:
            return self.merger.fail(
                "a second message_start in one stream: the first message never ended",
                "second_message_start",
            )
        self._started = True
        message = get(event, "message")
        if message is None:
            return []
        if not is_record(message):
            return self.bad("message_start's message is not an object", event)
        blocks, events = self.items(message, "content")
        events += self.usage("anthropic", get(message, "usage"))
        for index, block in enumerate(blocks):  # a whole message: each block starts and ends
            key = ("message_start", index)
            events += self._start(key, block)
            events += self._stop(key)
        events += self._stop_reason(get(message, "stop_reason"), get(message, "stop_details"))
        return events

    def _message_delta(self, event: Any) -> list[Event]:
        delta = get(event, "delta")
        if not is_record(delta):
            return self.bad("message_delta's delta is not an object", event)
        usage = self.usage("anthropic", get(event, "usage"))  # cumulative counts
        return usage + self._stop_reason(get(delta, "stop_reason"), get(delta, "stop_details"))

    def _stop_reason(self, stop: Any, details: Any = None) -> list[Event]:
        if stop is None:
            return []
        if not isinstance(stop, str):
            return self.bad("a stop reason is not a string", stop)
        self.set_reason("length" if stop in _CUT else "stop")
        self.merger.paused = stop == "pause_turn"  # the caller sends the turn back to go on
        if stop == "refusal":  # stop_details.explanation says why, when the API gives it
            return self.merger.refusal(get_str(details, "explanation") or "")
        if stop not in _KNOWN_STOPS:
            return self.merger.note("stop_reason", f"unknown stop reason {stop!r}", stop)
        return []

    def _error(self, event: Any) -> list[Event]:
        error = get(event, "error")
        message = get_str(error, "message") or "the stream reported an error"
        return self.merger.fail(message, get_str(error, "type") or "error")

    # ----------------------------------------------------------- content blocks

    def _index(self, event: Any) -> int | None:
        return get_int(event, "index")

    def _block_start(self, event: Any) -> list[Event]:
        index = self._index(event)
        if index is None:
            return self.bad("a content block without an integer index", event)
        return self._start(index, get(event, "content_block"))

    def _start(self, key: Hashable, block: Any) -> list[Event]:
        if not is_record(block):
            return self.bad("a content block is not an object", block)
        kind = get_str(block, "type") or ""
        self._blocks[key] = kind
        merger = self.merger
        if kind == "text":
            self._starts[key] = merger.text_chars
            cited, events = self.items(block, "citations")
            self._citations[key] = list(cited)
            text = get(block, "text")
            if isinstance(text, str):
                events += merger.text(text)
            return events
        if kind == "thinking":
            thinking = get(block, "thinking")
            return merger.reasoning(thinking) if isinstance(thinking, str) else []
        if kind == "tool_use":
            events = merger.tool_start(key, get_str(block, "name"), get_str(block, "id"))
            given = plain(get(block, "input"))
            if isinstance(given, Mapping) and given:  # the whole input up front, not streamed
                events += merger.tool_args(key, json.dumps(given, ensure_ascii=False))
            return events
        if kind == "redacted_thinking":  # sent back as it came; nothing to show
            data = get(block, "data")
            return merger.reasoning_end(
                "anthropic", redacted=data if isinstance(data, str) else None
            )
        if kind == "compaction":  # the API summarised the earlier turns: not reply text
            message = "the provider compacted the conversation; its summary is not reply text"
            return self.note_once("compaction", message, kind)
        if kind == "fallback":  # another model goes on with the reply
            old = get_str(get(block, "from"), "model") or "?"
            new = get_str(get(block, "to"), "model") or "?"
            return self.merger.note("fallback", f"the provider fell back from {old} to {new}")
        if kind in _HOSTED_CALLS:
            return self._hosted_call(key, kind, block)
        if kind.endswith("_tool_result") and get(block, "tool_use_id") is not None:
            return self._hosted_result(kind, block)
        message = f"content block of type {kind!r} has no event: ignored"
        return self.note_once("unknown_block", message, kind)

    def _block_delta(self, event: Any) -> list[Event]:
        index = self._index(event)
        delta = get(event, "delta")
        if index is None or not is_record(delta):
            return self.bad("a content block delta without an index or a delta", event)
        kind = get_str(delta, "type")
        merger = self.merger
        if kind == "text_delta":
            text = get(delta, "text")
            return (
                merger.text(text)
                if isinstance(text, str)
                else self.bad("a text delta is not text", delta)
            )
        if kind == "input_json_delta":
            text = get(delta, "partial_json")
            if not isinstance(text, str):
                return self.bad("a tool input delta is not text", delta)
            if index in self._inputs:  # a server-run call's input: reported when whole
                self._inputs[index][1].append(text)
                return []
            return merger.tool_args(index, text) if self._blocks.get(index) == "tool_use" else []
        if kind == "thinking_delta":
            text = get(delta, "thinking")
            return (
                merger.reasoning(text)
                if isinstance(text, str)
                else self.bad("a thinking delta is not text", delta)
            )
        if kind == "citations_delta":
            citation = get(delta, "citation")
            if not is_record(citation):
                return self.bad("a citation is not an object", delta)
            self._citations.setdefault(index, []).append(citation)
            return []
        if kind == "signature_delta":  # seals the thinking block: sent back with the turn
            signature = get(delta, "signature")
            if not isinstance(signature, str):
                return self.bad("a signature is not text", delta)
            return merger.reasoning_end("anthropic", signature=signature)
        if kind == "compaction_delta":
            return []  # the summary of a compaction block, reported when the block started
        message = f"content delta of type {kind!r} has no event: ignored"
        return self.note_once("ignored_delta", message, kind)

    def _block_stop(self, event: Any) -> list[Event]:
        index = self._index(event)
        if index is None:
            return self.bad("a content block stop without an integer index", event)
        return self._stop(index)

    def _stop(self, key: Hashable) -> list[Event]:
        events = self._cite(key)
        if self._blocks.pop(key, None) == "tool_use":
            events += self.merger.tool_stop(key)
        if key in self._inputs:
            events += self._hosted_input(key)
        return events

    # ----------------------------------------------------------- server-run tools

    def _hosted_call(self, key: Hashable, kind: str, block: Any) -> list[Event]:
        """A ``server_tool_use`` or ``mcp_tool_use`` block starts: its input streams."""
        server = get_str(block, "server_name")
        self._inputs[key] = (_field(block, "input"), [])
        return self.merger.hosted_start(
            key,
            get_str(block, "name") or kind,
            get_str(block, "id"),
            kind,
            {"server": server} if server else None,
        )

    def _hosted_input(self, key: Hashable) -> list[Event]:
        """The whole input of a server-run call whose block ends: the JSON its deltas
        streamed, else the block's own ``input``."""
        given, pieces = self._inputs.pop(key)
        if pieces:
            text = "".join(pieces)
            try:
                given = json.loads(text)
            except ValueError:
                message = "a server-run tool's input is not valid JSON: kept as text"
                return [
                    *self.merger.note("bad_event", message, text),
                    *self.merger.hosted_input(key, text),
                ]
        return self.merger.hosted_input(key, {} if given is None else given)

    def _hosted_result(self, kind: str, block: Any) -> list[Event]:
        """A ``*_tool_result`` block: the result of the server-run call it names."""
        merger = self.merger
        call_id = get_str(block, "tool_use_id")
        key = merger.hosted.key_of(call_id)
        events: list[Event] = []
        if key is None:  # its call was not seen: the result still shows
            key = ("result", call_id)
            events += merger.hosted_start(key, kind.removesuffix("_tool_result"), call_id, kind)
        content = _field(block, "content")
        return events + merger.hosted_result(key, content, _result_error(block, content), kind)

    # ----------------------------------------------------------- citations

    def _cite(self, key: Hashable) -> list[Event]:
        """The citations of a block that ends now, each spanning the block's text."""
        start = self._starts.pop(key, None)
        end = self.merger.text_chars
        events: list[Event] = []
        for citation in self._citations.pop(key, ()):
            raw = plain(citation)
            raw = dict(raw) if isinstance(raw, Mapping) else {"value": raw}
            events += self.merger.citation(
                Citation(
                    get_str(citation, "type") or "citation",
                    url=get_str(citation, "url"),
                    title=get_str(citation, "title") or get_str(citation, "document_title"),
                    cited_text=get_str(citation, "cited_text"),
                    start=start,
                    end=end if start is not None else None,
                    raw=raw,
                )
            )
        return events

    def _flush_citations(self) -> list[Event]:
        events: list[Event] = []
        for key in list(self._citations):
            events += self._cite(key)
        return events


def _field(block: Any, name: str) -> Any:
    """A block's field as its JSON form (an SDK block's nested blocks included)."""
    fields = plain(block)
    return fields.get(name) if isinstance(fields, Mapping) else None


def _result_error(block: Any, content: Any) -> str | None:
    """Why a server-run call failed: the ``error_code`` of an ``*_error`` content, or the
    text of a result marked ``is_error``."""
    if isinstance(content, Mapping):
        kind = content.get("type")
        if isinstance(kind, str) and kind.endswith("_error"):
            return str(content.get("error_code") or kind)
    if get(block, "is_error") is not True:
        return None
    if isinstance(content, str) and content:
        return content
    texts = [part.get("text") for part in content or () if isinstance(part, Mapping)]
    return "".join(t for t in texts if isinstance(t, str)) or "the tool failed"


_HANDLERS: dict[str, Callable[[AnthropicDecoder, Any], list[Event]]] = {
    "message_start": AnthropicDecoder._message_start,
    "content_block_start": AnthropicDecoder._block_start,
    "content_block_delta": AnthropicDecoder._block_delta,
    "content_block_stop": AnthropicDecoder._block_stop,
    "message_delta": AnthropicDecoder._message_delta,
    "error": AnthropicDecoder._error,
}

ANTHROPIC_EVENT_TYPES = frozenset({*_HANDLERS, *_QUIET} - {"error"})
"""The raw event types that identify an Anthropic stream (``error`` is shared with OpenAI)."""


def recognise(item: Any) -> bool:
    """Whether ``item`` is an Anthropic Messages stream event."""
    return get_str(item, "type") in ANTHROPIC_EVENT_TYPES


from_anthropic = entry_point(
    "anthropic",
    AnthropicDecoder,
    """Events of an Anthropic Messages stream: a sync iterator for a sync stream
    (``Stream``, ``MessageStream``, a list of events), an async iterator for an async
    one (``AsyncStream``, ``AsyncMessageStream``).  Options as in
    :func:`unspool.from_openai`.""",
)

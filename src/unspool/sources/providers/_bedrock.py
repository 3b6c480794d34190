"""Amazon Bedrock Converse streams in, unspool events out (``boto3``'s ``converse_stream``).

:func:`from_bedrock` takes what ``client.converse_stream(...)`` returns (extra
``unspool[bedrock]``): the response dict (its ``"stream"`` is read) or that
``EventStream`` itself, whose items are one-key dicts named after the event.
Mapping, in stream order:

* ``contentBlockDelta.delta.text`` -> the text protocol; ``reasoningContent.text`` ->
  ``ReasoningDelta``; its ``signature`` and a ``redactedContent`` (base64) ->
  ``ReasoningSignature``, sent back with the turn;
* ``contentBlockStart.start.toolUse`` (``toolUseId``, ``name``) -> ``ActionStarted``,
  ``delta.toolUse.input`` pieces -> ``ActionArgsDelta``, ``contentBlockStop`` ->
  ``ActionComplete`` / ``ActionInvalid`` (a block cut short waits for the stop reason);
* a ``toolUse`` block with a ``type`` (``server_tool_use``: a tool Bedrock runs itself, as
  Nova's ``nova_code_interpreter``) is never an action: ``HostedToolStarted`` at its
  start, ``HostedToolInput`` (the JSON its ``input`` pieces streamed) at its stop; a
  ``toolResult`` block (``toolUseId``, ``status``, its content streamed as ``text`` /
  ``json`` pieces) -> ``HostedToolResult`` of that call (``output``: the content blocks,
  ``[{"text": ...}]``; ``status: "error"`` is its ``error``);
* ``delta.citation`` -> ``Citation``;
* ``messageStop.stopReason``: ``end_turn``, ``tool_use``, ``stop_sequence`` end normally;
  ``max_tokens`` and ``model_context_window_exceeded`` are truncation;
  ``guardrail_intervened`` and ``content_filtered`` are reported
  (``Diagnostic(kind="content_filter")``) and end as truncated;
  ``malformed_tool_use`` and ``malformed_model_output`` (Bedrock could not use what the
  model wrote) are reported (``Diagnostic(kind="malformed_output")``) and end as
  truncated: a tool call still open is ``ActionInvalid(truncated)``, never completed;
* an exception event (``modelStreamErrorException``, ``throttlingException``...; boto3
  raises most of them itself) -> ``StreamError``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import (
    Callable,
    Hashable,
    Iterator,
    Mapping,
)
from typing import Any

from unspool.events import Citation, Event
from unspool.protocols._emitter import ActionValidator
from unspool.sources._entry import entry_point
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import get, get_str, is_record, plain
from unspool.sources._provider_decoder import ProviderDecoder

__all__ = [
    "BEDROCK_EVENT_TYPES",
    "BedrockDecoder",
    "EventStreamReader",
    "bedrock_stream",
    "from_bedrock",
    "recognise",
    "unwrap",
]

_NATURAL = frozenset({"end_turn", "tool_use", "stop_sequence"})
_CUT = frozenset({"max_tokens", "model_context_window_exceeded"})
_FILTERED = frozenset({"guardrail_intervened", "content_filtered"})
_MALFORMED = frozenset({"malformed_tool_use", "malformed_model_output"})


class BedrockDecoder(ProviderDecoder):
    """Converse stream events (one-key dicts) in, events out (sans-I/O)."""

    __slots__ = ("_blocks", "_hosted", "_results")

    provider = "Bedrock"

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        super().__init__(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
        self._blocks: set[int | str] = set()  # indices of the open toolUse blocks
        self._hosted: dict[int | str, tuple[Hashable, list[str]]] = {}  # server-run calls
        self._results: dict[int | str, _Result] = {}  # open toolResult blocks

    def _event(self, event: Any) -> list[Event]:
        if not isinstance(event, Mapping):
            return self.bad("this Bedrock stream item is not an event", event)
        events: list[Event] = []
        for name, body in event.items():
            handler = _HANDLERS.get(name) if isinstance(name, str) else None
            if handler is not None:
                if not is_record(body):
                    events.extend(self.bad(f"the {name} event is not an object", event))
                    continue
                events.extend(handler(self, body))
            elif isinstance(name, str) and name.endswith("Exception"):
                message = get_str(body, "message") or f"the stream reported {name}"
                events.extend(self.merger.fail(message, name))
            else:
                events.extend(self.unknown(name if isinstance(name, str) else None, event))
        return events

    def _index(self, body: Any) -> int | str | None:
        index = get(body, "contentBlockIndex")
        return index if isinstance(index, (int, str)) and not isinstance(index, bool) else None

    def _block_start(self, body: Any) -> list[Event]:
        index = self._index(body)
        start = get(body, "start")
        if index is None or not isinstance(start, Mapping):
            return self.bad("contentBlockStart needs an index and a start object", body)
        tool = get(start, "toolUse")
        result = get(start, "toolResult")
        if tool is None and is_record(result):
            self._results[index] = _Result(result)
            return []
        if tool is None:
            for kind in start:
                message = f"content block of type {kind!r} has no event: ignored"
                return self.note_once(str(kind), message, str(kind))
            return []
        if not is_record(tool):
            return self.bad("toolUse is not an object", body)
        kind = get_str(tool, "type")
        if kind:  # a tool Bedrock runs itself (server_tool_use)
            key = ("hosted", index, len(self._hosted))
            self._hosted[index] = (key, [])
            name = get_str(tool, "name") or kind
            return self.merger.hosted_start(key, name, get_str(tool, "toolUseId"), kind)
        self._blocks.add(index)
        return self.merger.tool_start(index, get_str(tool, "name"), get_str(tool, "toolUseId"))

    def _block_delta(self, body: Any) -> list[Event]:
        index = self._index(body)
        delta = get(body, "delta")
        if not isinstance(delta, Mapping):
            return self.bad("contentBlockDelta has no delta object", body)
        merger = self.merger
        if "text" in delta:
            text = get(delta, "text")
            return (
                merger.text(text)
                if isinstance(text, str)
                else self.bad("text is not a string", body)
            )
        tool = get(delta, "toolUse")
        if tool is not None:
            piece = get(tool, "input")
            if not isinstance(piece, str):
                return self.bad("toolUse.input is not a string", body)
            if index in self._hosted:  # a server-run call's input: reported when whole
                self._hosted[index][1].append(piece)
                return []
            if index not in self._blocks:
                message = f"tool input for content block {index!r}, which is not a tool call"
                return merger.note("orphan_tool_delta", message, piece)
            return merger.tool_args(index, piece)
        reasoning = get(delta, "reasoningContent")
        if reasoning is not None:
            text = get(reasoning, "text")
            if isinstance(text, str):
                return merger.reasoning(text)
            redacted = get(reasoning, "redactedContent")
            if isinstance(redacted, (bytes, bytearray)):  # boto3 decodes the blob: keep it JSON
                redacted = base64.b64encode(redacted).decode("ascii")
            if isinstance(redacted, str):  # sent back as it came; nothing to show
                return merger.reasoning_end("bedrock", redacted=redacted)
            signature = get(reasoning, "signature")
            if isinstance(signature, str):  # seals the reasoning block: sent back with the turn
                return merger.reasoning_end("bedrock", signature=signature)
            return self.bad("reasoningContent has no text", body)
        pieces = get(delta, "toolResult")
        if pieces is not None:
            return self._result_pieces(index, pieces, body)
        citation = get(delta, "citation")
        if citation is not None:
            return (
                self._citation(citation)
                if isinstance(citation, Mapping)
                else self.bad("citation is not an object", body)
            )
        for kind in delta:
            message = f"content delta of type {kind!r} has no event: ignored"
            return self.note_once(str(kind), message, str(kind))
        return []

    def _citation(self, citation: Mapping[str, Any]) -> list[Event]:
        parts, events = self.items(citation, "sourceContent")
        cited = "".join(get_str(p, "text") or "" for p in parts) or None
        location = get(citation, "location")
        url = None
        for where in location.values() if isinstance(location, Mapping) else ():
            url = get_str(where, "url") or url
        title = get_str(citation, "title")
        found = Citation("citation", url=url, title=title, cited_text=cited, raw=dict(citation))
        events.extend(self.merger.citation(found))
        return events

    def _block_stop(self, body: Any) -> list[Event]:
        index = self._index(body)
        if index is not None and index in self._blocks:
            self._blocks.discard(index)
            return self.merger.tool_stop(index)
        if index is not None and index in self._hosted:
            return self._hosted_input(*self._hosted.pop(index))
        if index is not None and index in self._results:
            return self._hosted_result(self._results.pop(index))
        return []

    # ----------------------------------------------------------- server-run tools

    def _hosted_input(self, key: Hashable, pieces: list[str]) -> list[Event]:
        """The whole input of a server-run call whose block ends."""
        text = "".join(pieces)
        if not text:
            return self.merger.hosted_input(key, {})
        try:
            given = json.loads(text)
        except ValueError:
            message = "a server-run tool's input is not valid JSON: kept as text"
            return [
                *self.merger.note("bad_event", message, text),
                *self.merger.hosted_input(key, text),
            ]
        return self.merger.hosted_input(key, given)

    def _result_pieces(self, index: int | str | None, pieces: Any, body: Any) -> list[Event]:
        """``toolResult`` content pieces of an open result block."""
        result = self._results.get(index) if index is not None else None
        if result is None:
            message = f"tool result content for content block {index!r}, which is no tool result"
            return self.merger.note(
                "orphan_tool_delta", message, json.dumps(plain(pieces), default=str)
            )
        if not isinstance(pieces, (list, tuple)):
            return self.bad("toolResult is not a list", body)
        events: list[Event] = []
        for piece in pieces:
            text, value = get(piece, "text"), get(piece, "json")
            if isinstance(text, str):
                result.add_text(text)
            elif value is not None:
                result.content.append({"json": plain(value)})
            else:
                events.extend(self.bad("a tool result piece has neither text nor json", piece))
        return events

    def _hosted_result(self, result: _Result) -> list[Event]:
        """A ``toolResult`` block ends: the result of the server-run call it names."""
        merger = self.merger
        call_id = get_str(result.start, "toolUseId")
        kind = get_str(result.start, "type")
        key = merger.hosted.key_of(call_id)
        events: list[Event] = []
        if key is None:  # its call was not seen: the result still shows
            key = ("result", call_id)
            name = (kind or "tool").removesuffix("_result")
            events += merger.hosted_start(key, name, call_id, kind)
        error = None
        if get_str(result.start, "status") == "error":
            texts = [block["text"] for block in result.content if "text" in block]
            error = "".join(texts) or "the tool failed"
        return events + merger.hosted_result(key, result.content, error, kind)

    def _message_stop(self, body: Any) -> list[Event]:
        reason = get(body, "stopReason")
        if reason is None:
            reason = "end_turn"
        if not isinstance(reason, str):
            return self.bad("stopReason is not a string", body)
        if reason in _CUT:
            self.set_reason("length")
            return []
        if reason in _FILTERED:
            self.set_reason("length")
            return self.merger.note(
                "content_filter", f"Bedrock stopped the output: {reason}", reason
            )
        if reason in _MALFORMED:
            self.set_reason("length")
            return self.merger.note(
                "malformed_output", f"Bedrock could not use the model's output: {reason}", reason
            )
        self.set_reason("stop")
        events = self.merger.end_tools()
        if reason not in _NATURAL:
            events.extend(
                self.merger.note("stop_reason", f"unknown stop reason {reason!r}", reason)
            )
        return events

    def _metadata(self, body: Any) -> list[Event]:
        """``metadata``: its ``usage`` is reported at the end (``metrics`` is timing)."""
        return self.usage("bedrock", get(body, "usage"))

    def _ignore(self, body: Any) -> list[Event]:
        return []


class _Result:
    """An open ``toolResult`` block: its start, and its content so far (adjacent text
    pieces joined, as one text block)."""

    __slots__ = ("content", "start")

    def __init__(self, start: Any) -> None:
        self.start = start
        self.content: list[dict[str, Any]] = []

    def add_text(self, text: str) -> None:
        last = self.content[-1] if self.content else None
        if last is not None and "text" in last:
            last["text"] += text
        else:
            self.content.append({"text": text})


_HANDLERS: dict[str, Callable[[BedrockDecoder, Any], list[Event]]] = {
    "messageStart": BedrockDecoder._ignore,
    "contentBlockStart": BedrockDecoder._block_start,
    "contentBlockDelta": BedrockDecoder._block_delta,
    "contentBlockStop": BedrockDecoder._block_stop,
    "messageStop": BedrockDecoder._message_stop,
    "metadata": BedrockDecoder._metadata,
}

BEDROCK_EVENT_TYPES = frozenset(_HANDLERS)
"""The keys that identify a Converse stream event."""


def recognise(item: Any) -> bool:
    """Whether ``item`` is a Converse stream event: a one-key dict named after the event."""
    if not isinstance(item, Mapping) or len(item) != 1:
        return False
    (name,) = item
    return name in BEDROCK_EVENT_TYPES or (isinstance(name, str) and name.endswith("Exception"))


class EventStreamReader:
    """A botocore ``EventStream`` whose ``close()`` also ends a read blocked in another
    thread (``generate()`` reads boto3's synchronous stream in a worker thread): it shuts
    the response's socket down first (urllib3's ``HTTPResponse.shutdown()``), so an abort
    releases the connection at once instead of after the read timeout."""

    __slots__ = ("stream",)

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def __iter__(self) -> Iterator[Any]:
        return iter(self.stream)

    def close(self) -> None:
        raw = getattr(self.stream, "_raw_stream", None)  # botocore keeps the urllib3 response
        shutdown = getattr(raw, "shutdown", None)
        if callable(shutdown):
            shutdown()
        close = getattr(self.stream, "close", None)
        if callable(close):
            close()


def bedrock_stream(response: Any) -> Any:
    """The ``EventStream`` of a ``converse_stream`` response (or the stream given), as an
    :class:`EventStreamReader`; anything else (a list of events) unchanged."""
    if isinstance(response, Mapping) and "stream" in response:
        response = response["stream"]
    if hasattr(response, "_raw_stream"):
        return EventStreamReader(response)
    return response


def unwrap(result: Any) -> Any:
    """The stream inside a ``converse_stream`` response dict, or ``None`` for anything else
    (how ``generate()`` finds the stream in what the model call returned)."""
    if isinstance(result, Mapping) and "stream" in result and "ResponseMetadata" in result:
        return bedrock_stream(result)
    return None


from_bedrock = entry_point(
    "bedrock",
    BedrockDecoder,
    """Events of a Bedrock ``converse_stream`` response: boto3's is synchronous (under
    ``generate()`` it is read in a worker thread); an async stream of the same events
    (aioboto3's) gives an async iterator.  Options as in :func:`unspool.from_openai`.""",
    find_stream=bedrock_stream,
)

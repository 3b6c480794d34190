"""Google Gemini streams in, unspool events out (the ``google-genai`` SDK).

:func:`from_gemini` takes what ``client.models.generate_content_stream(...)`` (sync) or
``await client.aio.models.generate_content_stream(...)`` (async) return: a stream of
``GenerateContentResponse`` chunks (extra ``unspool[gemini]``).  Raw wire chunks (the
JSON of each ``data:`` line of ``:streamGenerateContent?alt=sse``, camelCase keys) work
too.  Mapping, in stream order, for the first candidate:

* ``text`` parts -> the text protocol; parts with ``thought: true`` -> ``ReasoningDelta``;
* ``function_call`` parts -> ``ActionStarted`` / ``ActionArgsDelta`` / ``ActionComplete``
  (the call's ``id``, when Gemini gives one, kept as ``action_id``; the part's thought
  signature, which Gemini wants back with the call, as ``attributes["thought_signature"]``).  Gemini sends whole
  calls; a call streamed by Vertex AI (``will_continue`` and ``partial_args`` by JSON path)
  streams its arguments as they come;
* ``citation_metadata`` -> ``Citation`` (Gemini's byte offsets turned into characters);
  ``grounding_metadata`` (a provider-run Google Search) -> one ``Citation(kind="grounding")``
  per source of each grounded segment (``cited_text`` the segment, ``start`` / ``end`` its
  span in the text channel), or per source when no segment names it;
* ``finish_reason``: ``STOP`` ends normally; ``MAX_TOKENS`` is truncation (open calls
  ``ActionInvalid(truncated)``, ``StreamDone(truncated)``); ``SAFETY``, ``RECITATION``,
  ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII`` and the other filters, and a blocked
  prompt, are reported as ``Diagnostic(kind="content_filter")`` and end as truncated;
  ``MALFORMED_FUNCTION_CALL`` and unknown reasons are reported;
* the provider's own tools, never actions: an ``executable_code`` part (Gemini's code
  execution) -> ``HostedToolStarted`` (``code_execution``) and ``HostedToolInput``
  (``{"language", "code"}``), its ``code_execution_result`` part -> ``HostedToolResult``
  (``{"outcome", "output"}``; an outcome other than ``OUTCOME_OK`` is its ``error``); a
  ``tool_call`` part (a server-side tool invocation, named after its ``tool_type``:
  ``google_search_web``...) -> started with its ``args`` as input, its ``tool_response``
  part -> the result (``response``).  A result names its call by ``id``, or is the
  result of the last call still open;
* inline data and file data are given by the provider: reported once each as a
  ``Diagnostic`` (so is grounding that names no source).

An abort or a cancellation while the next chunk is awaited closes the SDK's HTTP response
at once.  Closed between two reads, google-genai's async stream (nested async generators)
releases its response only when the garbage collector finds it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Hashable, Mapping
from typing import Any

from unspool.events import Citation, Event
from unspool.protocols._emitter import ActionValidator
from unspool.sources._entry import entry_point
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import get, get_str, is_record, plain
from unspool.sources._provider_decoder import ProviderDecoder
from unspool.sources.providers._partial_args import OutOfOrder, PathWriter, parse_path, scalar

__all__ = ["GeminiDecoder", "from_gemini", "recognise"]

_FILTERS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "LANGUAGE",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
        "ESCALATION",
    }
)
_NATURAL = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})
_PROVIDER_PARTS = ("inline_data", "file_data")
_HOSTED_CALLS = {"executable_code": "code_execution_result", "tool_call": "tool_response"}
"""Parts of a call Gemini runs itself, and the part that holds each one's result."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def field(obj: Any, name: str) -> Any:
    """``obj.name`` (SDK object, snake_case dict) or the wire's camelCase key."""
    if obj is None:
        return None
    value = get(obj, name)
    if value is None and "_" in name:
        value = get(obj, _camel(name))
    return value


def _name(value: Any) -> str | None:
    """An enum's or a string's plain value (``FinishReason.STOP`` -> ``"STOP"``)."""
    value = getattr(value, "value", value)
    return value if isinstance(value, str) else None


def recognise(item: Any) -> bool:
    """Whether ``item`` is a Gemini stream chunk (``candidates``, ``prompt_feedback`` or
    ``model_version``: a first chunk may carry only usage)."""
    if get(item, "choices") is not None or get(item, "type") is not None:
        return False
    return any(
        field(item, name) is not None for name in ("candidates", "prompt_feedback", "model_version")
    )


def _signature(value: Any) -> str | None:
    """A thought signature as base64 text (the SDK gives bytes, the wire base64)."""
    if isinstance(value, bytes) and value:
        return base64.b64encode(value).decode("ascii")
    return value if isinstance(value, str) and value else None


class _Streamed:
    """A function call whose arguments Vertex streams by JSON path."""

    __slots__ = ("broken", "key", "writer")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.writer = PathWriter()
        self.broken = False


class GeminiDecoder(ProviderDecoder):
    """``GenerateContentResponse`` chunks in, events out (sans-I/O).

    ``candidate`` selects the candidate to follow when ``candidate_count > 1`` (the
    others are reported once each and ignored).
    """

    __slots__ = ("_calls", "_cited", "_hosted", "_ignored", "_streamed", "_text", "candidate")

    provider = "Gemini"

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        candidate: int = 0,
        lenient: bool = False,
    ) -> None:
        super().__init__(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
        self.candidate = candidate
        self._calls = 0  # function calls seen: their keys
        self._streamed: _Streamed | None = None
        self._ignored: set[int] = set()
        self._cited: set[tuple[Any, ...]] = set()
        self._text: list[str] = []  # the reply's text, for citation offsets
        self._hosted: dict[str, list[Hashable]] = {}  # call part kind -> its calls still open

    def _event(self, event: Any) -> list[Event]:
        error = get(event, "error")
        if error is not None:
            message = get_str(error, "message") or "the stream reported an error"
            return self.merger.fail(message, _name(field(error, "status")) or "error")
        candidates, events = self._list(event, "candidates")
        for candidate in candidates:
            index = field(candidate, "index")
            index = 0 if index is None else index
            if not is_record(candidate) or not isinstance(index, int):
                events.extend(self.bad("a candidate is not an object with an integer index", event))
                continue
            if index != self.candidate:
                if index not in self._ignored:
                    self._ignored.add(index)
                    message = (
                        f"candidate {index!r} is ignored: following candidate {self.candidate}"
                    )
                    events.extend(self.merger.note("ignored_choice", message))
                continue
            events.extend(self._candidate(candidate))
        events.extend(self.usage("gemini", field(event, "usage_metadata")))
        blocked = _name(field(field(event, "prompt_feedback"), "block_reason"))
        if blocked:
            self.set_reason("length")
            events.extend(
                self.merger.note("content_filter", f"the prompt was blocked ({blocked})", blocked)
            )
        return events

    def _list(self, obj: Any, name: str) -> tuple[list[Any], list[Event]]:
        """The list in field ``name`` (snake_case or the wire's camelCase), or a report."""
        value = field(obj, name)
        if value is None:
            return [], []
        if isinstance(value, (list, tuple)):
            return list(value), []
        return [], self.bad(f"{name!r} is not a list", value)

    def _candidate(self, candidate: Any) -> list[Event]:
        parts, events = self._list(field(candidate, "content"), "parts")
        for part in parts:
            if not is_record(part):
                events.extend(self.bad("a part is not an object", part))
                continue
            events.extend(self._part(part))
        events.extend(self._citations(field(candidate, "citation_metadata")))
        grounding = field(candidate, "grounding_metadata")
        if grounding is not None:
            events.extend(self._grounding(grounding))
        reason = field(candidate, "finish_reason")
        if reason is not None:
            name = _name(reason)
            if name is None:
                events.extend(self.bad("finishReason is not a string", candidate))
            elif name:
                events.extend(self._finish(name, _name(field(candidate, "finish_message"))))
        return events

    def _part(self, part: Any) -> list[Event]:
        merger = self.merger
        call = field(part, "function_call")
        if call is not None:
            if not is_record(call):
                return self.bad("functionCall is not an object", part)
            return self._function_call(call, _signature(field(part, "thought_signature")))
        text = field(part, "text")
        if text is not None and not isinstance(text, str):
            return self.bad("text is not a string", part)
        if text:
            if field(part, "thought") is True:
                return merger.reasoning(text)
            self._text.append(text)
            return merger.text(text)
        for kind, result in _HOSTED_CALLS.items():
            if field(part, kind) is not None:
                return self._hosted_call(kind, field(part, kind))
            if field(part, result) is not None:
                return self._hosted_result(kind, result, field(part, result))
        for kind in _PROVIDER_PARTS:
            if field(part, kind) is not None:
                message = f"part of kind {kind!r} is handled by the provider, not an action"
                return self.note_once("ignored_part", message, kind)
        return []  # an empty part: a thought signature alone, or an empty text

    # ------------------------------------------------------------------ function calls

    def _function_call(self, call: Any, signature: str | None) -> list[Event]:
        name = get_str(call, "name")
        call_id = get_str(call, "id")
        partial, events = self._list(call, "partial_args")
        more = field(call, "will_continue") is True
        args = get(call, "args")
        open_call = self._streamed
        if open_call is not None and (name is None or (not partial and not args)):
            events.extend(self._continue(open_call, partial, more))
            return events
        if open_call is not None:  # a new call while one is streaming: that one is over
            events.extend(self._end_streamed(open_call))
        key = self._calls
        self._calls += 1
        attributes = {"thought_signature": signature} if signature else None
        events.extend(self.merger.tool_start(key, name, call_id, attributes))
        if not more and not partial:  # a whole call, the Gemini API's only kind
            if args is not None and args != {}:  # not an object: the assembler says bad_params
                text = json.dumps(plain(args), ensure_ascii=False, default=repr)
                events.extend(self.merger.tool_args(key, text))
            events.extend(self.merger.tool_end(key))
            return events
        streamed = _Streamed(key)
        self._streamed = streamed
        text = streamed.writer.start()
        if args is not None and not isinstance(args, Mapping):
            events.extend(self.bad("args is not an object", call))
            args = None
        for arg_name, value in (args or {}).items():  # given whole beside the streamed ones
            value_text = json.dumps(plain(value), ensure_ascii=False, default=repr)
            text += streamed.writer.value((str(arg_name),), value_text)
        events.extend(self.merger.tool_args(key, text))
        events.extend(self._continue(streamed, partial, more))
        return events

    def _continue(self, streamed: _Streamed, partial: list[Any], more: bool) -> list[Event]:
        events: list[Event] = []
        for arg in partial:
            if streamed.broken:
                break
            try:
                text = self._write(streamed.writer, arg)
            except OutOfOrder as exc:
                streamed.broken = True
                events.extend(self.merger.note("partial_args", f"cannot stream the call: {exc}"))
                # End the call's JSON text where it is: the call ends as malformed_json,
                # never completed with a value it did not have.
                events.extend(self.merger.tool_args(streamed.key, "\x00"))
                continue
            events.extend(self.merger.tool_args(streamed.key, text))
        if not more:
            events.extend(self._end_streamed(streamed))
        return events

    @staticmethod
    def _write(writer: PathWriter, arg: Any) -> str:
        path = parse_path(get_str(arg, "json_path") or get_str(arg, "jsonPath") or "")
        more = field(arg, "will_continue") is True
        string = field(arg, "string_value")
        if isinstance(string, str):
            return writer.string(path, string, more)
        number = field(arg, "number_value")
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            if number != number or number in (float("inf"), float("-inf")):
                raise OutOfOrder(f"the number at {path!r} is not finite")
            return writer.value(path, scalar(number))
        flag = field(arg, "bool_value")
        if isinstance(flag, bool):
            return writer.value(path, scalar(flag))
        if field(arg, "null_value") is not None:
            return writer.value(path, "null")
        raise OutOfOrder(f"the partial argument at {path!r} has no value")

    def _end_streamed(self, streamed: _Streamed) -> list[Event]:
        self._streamed = None
        key = streamed.key
        events = [] if streamed.broken else self.merger.tool_args(key, streamed.writer.close())
        events.extend(self.merger.tool_end(key))
        return events

    # ------------------------------------------------------------------ the provider's tools

    def _hosted_call(self, kind: str, call: Any) -> list[Event]:
        """An ``executable_code`` or ``tool_call`` part: a call Gemini runs itself."""
        if not is_record(call):
            return self.bad(f"{_camel(kind)} is not an object", call)
        key = ("hosted", self._calls)
        self._calls += 1
        self._hosted.setdefault(kind, []).append(key)
        given = plain(call)
        given = dict(given) if isinstance(given, Mapping) else {}
        call_id = given.pop("id", None)
        if kind == "tool_call":
            name = (_name(field(call, "tool_type")) or "tool").lower()
            given = given.get("args", {})
        else:
            name = "code_execution"
        merger = self.merger
        provider_id = call_id if isinstance(call_id, str) else None
        events = merger.hosted_start(key, name, provider_id, kind)
        return events + merger.hosted_input(key, given)

    def _hosted_result(self, kind: str, result_kind: str, result: Any) -> list[Event]:
        """A ``code_execution_result`` or ``tool_response`` part: the result of the call
        its ``id`` names, or of the last one still open."""
        if not is_record(result):
            return self.bad(f"{_camel(result_kind)} is not an object", result)
        merger = self.merger
        output = plain(result)
        output = dict(output) if isinstance(output, Mapping) else {}
        call_id = output.pop("id", None)
        open_calls = self._hosted.get(kind, [])
        key = merger.hosted.key_of(call_id) if isinstance(call_id, str) else None
        if key is None and open_calls:
            key = open_calls[-1]
        events: list[Event] = []
        if key is None:  # its call was not seen: the result still shows
            key = ("hosted", self._calls)
            self._calls += 1
            name = "code_execution" if kind == "executable_code" else "tool"
            provider_id = call_id if isinstance(call_id, str) else None
            events += merger.hosted_start(key, name, provider_id, result_kind)
        if key in open_calls:
            open_calls.remove(key)
        error = None
        if kind == "tool_call":
            output = output.get("response")
        else:
            outcome = _name(field(result, "outcome"))
            error = outcome if outcome not in (None, "OUTCOME_OK") else None
        return events + merger.hosted_result(key, output, error, result_kind)

    # ------------------------------------------------------------------ citations, endings

    def _citations(self, metadata: Any) -> list[Event]:
        if metadata is None:
            return []
        name = "citations" if field(metadata, "citations") is not None else "citation_sources"
        sources, events = self._list(metadata, name)
        for source in sources:
            start, end = field(source, "start_index"), field(source, "end_index")
            start = start if isinstance(start, int) else None
            end = end if isinstance(end, int) else None
            uri, title = get_str(source, "uri"), get_str(source, "title")
            seen = (start, end, uri, title)
            if seen in self._cited:
                continue  # Gemini repeats the metadata in later chunks
            self._cited.add(seen)
            dump = getattr(source, "model_dump", None)
            raw = dump(mode="json", exclude_none=True) if callable(dump) else source
            citation = Citation(
                "citation",
                url=uri,
                title=title,
                start=self._char_offset(start),
                end=self._char_offset(end),
                raw=dict(raw) if isinstance(raw, dict) else {},
            )
            events.extend(self.merger.citation(citation))
        return events

    def _grounding(self, metadata: Any) -> list[Event]:
        """Sources of a provider-run search: each grounded segment's sources, then the
        sources no segment names (Gemini repeats the metadata: each once)."""
        chunks, events = self._list(metadata, "grounding_chunks")
        supports, bad = self._list(metadata, "grounding_supports")
        events.extend(bad)
        named: set[int] = set()
        for support in supports:
            segment = field(support, "segment")
            indices, bad = self._list(support, "grounding_chunk_indices")
            events.extend(bad)
            for index in indices:
                if isinstance(index, int) and 0 <= index < len(chunks):
                    named.add(index)
                    events.extend(self._grounded(chunks[index], segment))
        for index, source in enumerate(chunks):
            if index not in named:
                events.extend(self._grounded(source, None))
        if not chunks and not events:
            message = "grounding by a provider-run search that names no source"
            events.extend(self.note_once("grounding", message, "grounding_metadata"))
        return events

    def _grounded(self, source: Any, segment: Any) -> list[Event]:
        """One grounding source (``web``, ``retrieved_context`` or ``maps``) of a segment."""
        where = None
        for kind in ("web", "retrieved_context", "maps"):
            where = field(source, kind)
            if where is not None:
                break
        uri, title = get_str(where, "uri"), get_str(where, "title")
        start, end = field(segment, "start_index"), field(segment, "end_index")
        if segment is not None and not isinstance(start, int):
            start = 0  # proto3 leaves a zero start out
        text = get_str(segment, "text")
        seen = ("grounding", uri, title, start, end, text)
        if seen in self._cited:
            return []
        self._cited.add(seen)
        raw: dict[str, Any] = {}
        for name, value in (("source", source), ("segment", segment)):
            dump = getattr(value, "model_dump", None)
            value = dump(mode="json", exclude_none=True) if callable(dump) else value
            if isinstance(value, dict):
                raw[name] = value
        citation = Citation(
            "grounding",
            url=uri,
            title=title,
            cited_text=text,
            start=self._char_offset(start),
            end=self._char_offset(end),
            raw=raw,
        )
        return self.merger.citation(citation)

    def _char_offset(self, offset: Any) -> int | None:
        """Gemini's UTF-8 byte offset into the reply's text, as a character offset."""
        if not isinstance(offset, int):
            return None
        data = "".join(self._text).encode()
        return len(data[:offset].decode(errors="ignore"))

    def _finish(self, reason: str, message: str | None) -> list[Event]:
        events: list[Event] = []
        if self._streamed is not None and reason != "MAX_TOKENS":
            events.extend(self._end_streamed(self._streamed))
        if reason == "MAX_TOKENS":
            self.set_reason("length")
            return events
        if reason in _FILTERS:
            self.set_reason("length")
            why = f"Gemini stopped the output: {reason}" + (f" ({message})" if message else "")
            events.extend(self.merger.note("content_filter", why, reason))
            return events
        self.set_reason("stop")
        if reason not in _NATURAL:
            why = f"finish reason {reason!r}" + (f": {message}" if message else "")
            events.extend(self.merger.note("finish_reason", why, reason))
        events.extend(self.merger.end_tools())
        return events


from_gemini = entry_point(
    "gemini",
    GeminiDecoder,
    """Events of a Gemini stream: a sync iterator for ``generate_content_stream``, an
    async one for ``client.aio.models.generate_content_stream``.  Options as in
    :func:`unspool.from_openai`; ``candidate`` picks the candidate to follow.""",
)

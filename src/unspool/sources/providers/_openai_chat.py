"""Chat Completions chunks (and what OpenAI-compatible servers add) for ``OpenAIDecoder``.

Read, in stream order, from each chunk:

* ``choices[i].delta`` (or a whole ``message``): ``content`` to the text protocol, as
  a string or as a list of parts (Mistral's ``{"type": "text"}`` and
  ``{"type": "thinking", "thinking": [...]}`` parts, reasoning for the latter);
  ``reasoning_content`` / ``reasoning`` to ``ReasoningDelta``; ``refusal`` to
  ``RefusalDelta``; ``tool_calls`` (and the deprecated ``function_call``) to actions;
  ``annotations`` (search models' ``url_citation``) to ``Citation``; a custom tool call
  (``{"type": "custom", "custom": {"name", "input"}}``) streams its raw input text as
  the args ``{"input": "..."}``; ``audio`` (its transcript) is reported once; the thought
  signature Gemini's OpenAI-compatible endpoint attaches to a call
  (``extra_content.google.thought_signature``) is kept as
  ``attributes["thought_signature"]``;
* ``choices[i].text``: legacy Completions streams (``object: "text_completion"``); a
  choice that carries the same token in both ``text`` and ``delta.content`` (seen through
  routers) is read once, from ``delta.content`` (``Diagnostic(kind="duplicate_text")``
  once per stream);
* LiteLLM's ``delta.thinking_blocks`` (Claude's thinking, whose text also comes as
  ``reasoning_content``): a block's ``signature``, or a ``redacted_thinking`` block's
  ``data``, -> ``ReasoningSignature("anthropic", ...)``, sent back in the assistant
  message's ``thinking_blocks`` by :func:`openai_chat_results`;
* OpenRouter's ``delta.reasoning_details``: an encrypted entry (``reasoning.encrypted``)
  is reported once as ``Diagnostic(kind="redacted_thinking")``; the text of a ``reasoning.text`` /
  ``reasoning.summary`` entry is ``ReasoningDelta`` when the delta has no
  ``reasoning`` string (which repeats it);
* a ``moderation`` object (OpenAI's moderated completions: ``input`` / ``output``
  results or errors, on a chunk of its own): ``Diagnostic(kind="moderation")`` naming what
  it flagged, each time it changes; Groq's ``failed_generation``
  in an error object (the model output it could not read as a tool call):
  ``Diagnostic(kind="failed_generation")`` with that output, before the ``StreamError``;
* ``finish_reason``: ``length`` (``max_tokens``, ``model_context_window_exceeded`` and
  DeepSeek's ``insufficient_system_resource`` too) and ``content_filter`` truncate, ``error`` fails the
  stream, the others end the open calls (an unknown one is reported);
* a top-level ``error`` object (OpenAI-compatible servers and routers report a failure
  mid-stream this way, alone or beside ``choices``), or a chunk that is itself an error
  (vLLM's ``{"object": "error", "message", "type", "code"}``) -> ``StreamError``;
* Azure's ``prompt_filter_results`` and ``content_filter_results``: a category that
  was filtered or detected is reported (``Diagnostic(kind="content_filter")``);
* Groq's ``delta.executed_tools`` (the tools its compound systems ran on the server):
  ``HostedToolStarted`` the first time an ``index`` shows, ``HostedToolInput`` its
  ``arguments``, ``HostedToolResult`` once it carries ``output`` or
  ``search_results`` / ``code_results`` / ``browser_results``, never actions;
* Perplexity's ``citations`` (URLs, numbered as the text's ``[1]``...) and
  ``search_results``, Azure's ``delta.context.citations`` ("on your data", numbered as
  the text's ``[doc1]``...): one ``Citation`` per source.

Anything of the wrong shape is reported through the decoder and skipped.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

from unspool.events import Citation, Event
from unspool.sources._payload import get, get_str, is_record, plain, show

if TYPE_CHECKING:
    from unspool.sources.providers._openai import OpenAIDecoder

__all__ = ["ChatReader"]

_NATURAL_END = frozenset({"stop", "tool_calls", "function_call", "end_turn"})
_CUT = frozenset(
    {"length", "max_tokens", "model_context_window_exceeded", "insufficient_system_resource"}
)
"""Finish reasons of an output cut short (``length``, and what compatible servers say)."""
_CUSTOM_OPEN = '{"input": "'
_CUSTOM_CLOSE = '"}'
_EXECUTED_RESULTS = ("output", "search_results", "code_results", "browser_results")
"""The fields of a Groq executed tool that hold its result."""


class ChatReader:
    """The Chat Completions half of an :class:`OpenAIDecoder` (its tool-call keys,
    the choices it ignores and the sources it cited)."""

    __slots__ = (
        "_cited",
        "_current",
        "_custom",
        "_d",
        "_documents",
        "_executed",
        "_failing",
        "_ignored",
        "_last_key",
        "_moderation",
        "_seen",
    )

    def __init__(self, decoder: OpenAIDecoder) -> None:
        self._d = decoder
        self._ignored: set[int] = set()
        self._seen: set[Hashable] = set()  # tool-call keys started
        self._last_key: Hashable = 0
        self._current: dict[Hashable, tuple[Hashable, str | None]] = {}  # index -> (key, id)
        self._custom: set[Hashable] = set()  # open custom tool calls (raw input)
        self._failing = False  # this chunk carries an error object (reported after its choices)
        self._cited: set[str] = set()
        self._documents = 0  # Azure citations so far
        self._executed = 0  # Groq executed tools without an index so far
        self._moderation = ""  # the last moderation verdict reported

    def fast(self, chunk: Any) -> list[Event] | None:
        """The events of the most common chunk, read without the general walk: one choice
        (the followed one) whose delta is only a piece of text, or only a piece of the
        arguments of the call already open at its index, with nothing else set (no
        finish reason, usage, filters, citations, extra fields...).  ``None`` for any
        other chunk, which :meth:`chunk` reads (the same events, more slowly)."""
        fields = _fields(chunk, _CHUNK_KEYS)
        if fields is None:
            return None
        choices = fields.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = _fields(choices[0], _CHOICE_KEYS)
        if choice is None or choice.get("index", 0) != self._d.choice:
            return None
        delta = _fields(choice.get("delta"), _DELTA_KEYS)
        if delta is None:
            return None
        content = delta.get("content")
        calls = delta.get("tool_calls")
        if calls is None:
            return self._d.merger.text(content) if type(content) is str else None
        if content or type(calls) is not list or len(calls) != 1:
            return None
        call = _fields(calls[0], _CALL_KEYS)
        if call is None:
            return None
        index = call.get("index")
        current = self._current.get(index) if type(index) is int else None
        function = _fields(call.get("function"), _FUNCTION_KEYS)
        if current is None or function is None:
            return None
        key = current[0]
        arguments = function.get("arguments")
        if type(arguments) is not str or key not in self._seen or key in self._custom:
            return None
        return self._d.merger.tool_args(key, arguments)

    def chunk(self, chunk: Any) -> list[Event]:
        """The events of one chunk."""
        d = self._d
        events = self._sources(chunk)
        filters, bad = d.items(chunk, "prompt_filter_results")
        events += bad
        for entry in filters:
            events += self._filters(get(entry, "content_filter_results"), "prompt")
        events += self._moderated(get(chunk, "moderation"))
        error = plain(get(chunk, "error"))
        self._failing = bool(error)  # an empty or null error object says nothing failed
        choices, bad = d.items(chunk, "choices")
        events += bad
        for choice in choices:
            events += self._choice(choice)
        events += d.usage("openai_chat", get(chunk, "usage"))
        events += d.usage("openai_chat", get(get(chunk, "x_groq"), "usage"))  # Groq's place
        if error:
            events += self._error(error)
        return events

    def _moderated(self, verdict: Any) -> list[Event]:
        """A router's ``moderation`` verdict, reported each time it says something new."""
        verdict = plain(verdict)
        if not verdict:
            return []
        # quoted with sorted keys: the SDK's objects and the wire's JSON read the same
        text = show(json.loads(json.dumps(verdict, sort_keys=True, default=repr)))
        if text == self._moderation:
            return []
        self._moderation = text
        said: list[str] = []
        for side in ("input", "output"):  # OpenAI's moderated completions
            part = verdict.get(side) if isinstance(verdict, Mapping) else None
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "error":
                said.append(f"its {side} check failed ({part.get('code')}: {part.get('message')})")
            results = part.get("results")
            for result in results if isinstance(results, list) else []:
                found = result.get("categories") if isinstance(result, Mapping) else None
                if isinstance(result, Mapping) and result.get("flagged"):
                    hits = [k for k, v in found.items() if v] if isinstance(found, Mapping) else []
                    said.append(f"it flagged the {side}" + (f": {', '.join(hits)}" if hits else ""))
        if not said and isinstance(verdict, Mapping) and verdict.get("flagged"):
            said.append("it flagged the reply")
        message = "the provider's moderation: " + ("; ".join(said) or "nothing flagged")
        return self._d.merger.note("moderation", message, text)

    def _error(self, error: Any) -> list[Event]:
        """A failure the server reported inside the stream: ``StreamError`` (after Groq's
        ``failed_generation``, the output it could not use, as a ``Diagnostic``)."""
        failed = get(error, "failed_generation") if is_record(error) else None
        events = [] if failed is None else self.failed_generation(failed)
        return events + self._fail(error)

    def failed_generation(self, failed: Any) -> list[Event]:
        """Groq's ``failed_generation``: the output it could not use as a tool call."""
        text = failed if isinstance(failed, str) else show(failed)
        message = "the provider could not read the model's output as a tool call"
        return self._d.merger.note("failed_generation", message, text)

    def fail_with_error(self, error: Any) -> list[Event]:
        """An error object sent as the chunk itself (vLLM's ``{"object": "error", ...}``)."""
        return self._error(error)

    def _fail(self, error: Any) -> list[Event]:
        message = get_str(error, "message") if is_record(error) else None
        if message is None:
            message = error if isinstance(error, str) and error else show(error)
        code = (get_str(error, "code") or get_str(error, "type")) if is_record(error) else None
        return self._d.merger.fail(message, code or "error")

    def _choice(self, choice: Any) -> list[Event]:
        d = self._d
        if not is_record(choice):
            return d.bad("a choice is not an object", choice)
        index = get(choice, "index", 0)
        if not isinstance(index, int) or isinstance(index, bool):
            return d.bad("a choice's index is not an integer", choice)
        if index != d.choice:
            if index in self._ignored:
                return []
            self._ignored.add(index)
            return d.merger.note(
                "ignored_choice", f"choice {index} is ignored: following choice {d.choice}"
            )
        events = self._filters(get(choice, "content_filter_results"), "output")
        delta = get(choice, "delta")
        if delta is None:
            delta = get(choice, "message")  # a whole, non-streamed completion
        if is_record(delta):
            events += self._delta(delta)
        elif delta is not None:
            events += d.bad("a choice's delta is not an object", delta)
        text = get(choice, "text")  # legacy Completions
        if isinstance(text, str) and text and text == get(delta, "content"):
            message = "the text came twice (choices[].text and delta.content): read once"
            events += d.note_once("duplicate_text", message, "choices[].text")
        elif isinstance(text, str):
            events += d.merger.text(text)
        elif text is not None:
            events += d.bad("a completion's text is not a string", text)
        reason = get(choice, "finish_reason")
        if isinstance(reason, str) and reason:
            events += self._finish(reason)
        elif reason is not None and reason != "":
            events += d.bad("a finish reason is not a string", reason)
        return events

    def _delta(self, delta: Any) -> list[Event]:
        d = self._d
        merger = d.merger
        events: list[Event] = []
        said = False  # a reasoning string in this delta (OpenRouter's details repeat it)
        for field in ("reasoning_content", "reasoning"):
            reasoning = get(delta, field)
            if isinstance(reasoning, str):
                events += merger.reasoning(reasoning)
                said = True
                break
            if reasoning is not None:
                events += d.bad(f"{field!r} is not a string", reasoning)
        details, bad = d.items(delta, "reasoning_details")  # OpenRouter
        events += bad
        for detail in details:
            events += self._reasoning_detail(detail, said)
        blocks, bad = d.items(delta, "thinking_blocks")  # LiteLLM: Anthropic's thinking blocks
        events += bad
        for block in blocks:
            events += self._thinking_block(block)
        executed, bad = d.items(delta, "executed_tools")  # Groq: tools run on its servers
        events += bad
        for tool in executed:
            events += self._executed_tool(tool)
        content = get(delta, "content")
        if isinstance(content, str):
            events += merger.text(content)
        elif isinstance(content, (list, tuple)):
            for part in content:
                events += self._part(part)
        elif content is not None:
            events += d.bad("a delta's content is neither text nor a list of parts", content)
        refusal = get(delta, "refusal")
        if isinstance(refusal, str):
            if refusal:
                events += merger.refusal(refusal)
        elif refusal is not None:
            events += d.bad("a refusal is not a string", refusal)
        notes, bad = d.items(delta, "annotations")  # search models' url_citation annotations
        events += bad
        for note in notes:
            events += self._annotation(note)
        context = get(delta, "context")  # Azure "on your data": the documents it cited
        if is_record(context):
            events += self._context(context)
        elif context is not None:
            events += d.bad("a delta's context is not an object", context)
        calls, bad = d.items(delta, "tool_calls")
        events += bad
        for call in calls:
            if not is_record(call):
                events += d.bad("a tool call is not an object", call)
                continue
            events += self._call(call)
        legacy = get(delta, "function_call")  # the deprecated functions API: one call
        if legacy is not None:
            events += self._tool("function_call", None, legacy)
        audio = get(delta, "audio")
        if audio is not None:
            message = "audio output is not read: its transcript has no text event here"
            events += d.note_once("ignored_audio", message, "delta.audio")
        return events

    def _thinking_block(self, block: Any) -> list[Event]:
        """One of LiteLLM's ``thinking_blocks``: its text came as ``reasoning_content``;
        its ``signature`` (or a ``redacted_thinking`` block's ``data``) seals it."""
        if not is_record(block):
            return self._d.bad("a thinking block is not an object", block)
        merger = self._d.merger
        if get_str(block, "type") == "redacted_thinking":
            data = get(block, "data")
            return merger.reasoning_end(
                "anthropic", redacted=data if isinstance(data, str) else None
            )
        signature = get(block, "signature")
        return merger.reasoning_end("anthropic", signature) if isinstance(signature, str) else []

    def _reasoning_detail(self, detail: Any, said: bool) -> list[Event]:
        """One of OpenRouter's ``reasoning_details``."""
        d = self._d
        kind = get_str(detail, "type") if is_record(detail) else None
        if kind is None:
            return d.bad("a reasoning detail has no type", detail)
        if kind == "reasoning.encrypted":
            return d.note_once("redacted_thinking", "encrypted reasoning, not shown", kind)
        field = {"reasoning.text": "text", "reasoning.summary": "summary"}.get(kind)
        if field is None:
            return d.note_once("unknown_event", f"reasoning detail {kind!r} is not read", kind)
        text = get(detail, field)
        if not isinstance(text, str):
            return d.bad(f"a {kind} detail has no text", detail)
        return [] if said else d.merger.reasoning(text)

    def _call(self, call: Any) -> list[Event]:
        """One ``tool_calls`` entry.  Its ``index`` names the call; an entry whose ``id``
        differs from the id already seen at that index is a new call (some compatible
        servers give every call index 0)."""
        index = get(call, "index")
        call_id = get_str(call, "id") or None
        key: Hashable = index if isinstance(index, (int, str)) else call_id
        if key is not None:
            current = self._current.get(key)
            if current is None:
                self._current[key] = (key, call_id)
            elif call_id is not None and current[1] is None:
                self._current[key] = (current[0], call_id)
            elif call_id is not None and call_id != current[1] and self._starts(call, current[0]):
                self._current[key] = ((key, call_id), call_id)
            key = self._current[key][0]
        custom = get(call, "custom")
        if get_str(call, "type") == "custom" or (
            custom is not None and get(call, "function") is None
        ):
            return self._custom_call(key, call_id, custom)
        signature = get_str(get(get(call, "extra_content"), "google"), "thought_signature")
        return self._tool(key, call_id, get(call, "function"), signature)

    def _starts(self, call: Any, previous: Hashable) -> bool:
        """Whether an entry with a new id at a used index starts a new call: it names a
        tool, or the call open there holds a complete value (an id that merely changes
        mid-call, as some servers send, continues it)."""
        named = get_str(get(call, "function"), "name") or get_str(get(call, "custom"), "name")
        return bool(named) or self._d.merger.tools.ready(previous)

    def _custom_call(self, key: Hashable, call_id: str | None, custom: Any) -> list[Event]:
        """A custom tool call (raw text input): args ``{"input": "<the text>"}``."""
        d = self._d
        if custom is not None and not is_record(custom):
            return d.bad("a custom tool call's body is not an object", custom)
        events: list[Event] = []
        if key is None:
            key = self._last_key
        self._last_key = key
        if key not in self._seen:
            self._seen.add(key)
            events += self._end_previous()
            events += d.merger.tool_start(key, get_str(custom, "name"), call_id)
            self._custom.add(key)
            events += d.merger.tool_args(key, _CUSTOM_OPEN)
        given = get(custom, "input")
        if isinstance(given, str):
            if given and key in self._custom:
                events += d.merger.tool_args(key, json.dumps(given, ensure_ascii=False)[1:-1])
        elif given is not None:
            events += d.bad("a custom tool call's input is not text", custom)
        return events

    def _close_custom(self) -> list[Event]:
        """Close the JSON of the open custom calls (their input is complete)."""
        events: list[Event] = []
        for key in list(self._custom):
            events += self._d.merger.tool_args(key, _CUSTOM_CLOSE)
        self._custom.clear()
        return events

    def _end_previous(self) -> list[Event]:
        """A new call starts: the calls before it that are complete end now."""
        merger = self._d.merger
        events = self._close_custom()
        tools = merger.tools
        for other in tools.open_keys():  # calls stream one after another
            if tools.ready(other):
                events += merger.tool_end(other)
        return events

    def done_marker(self) -> list[Event]:
        """``data: [DONE]`` without a finish reason: the server ended the reply normally,
        so each open call whose arguments are complete JSON ends now (one cut short stays
        open, and ends truncated)."""
        d = self._d
        if d.reason is not None:
            return []
        merger = d.merger
        events = self._close_custom()
        for key in merger.tools.open_keys():
            if merger.tools.ready(key):
                events += merger.tool_end(key)
        return events

    def _executed_tool(self, tool: Any) -> list[Event]:
        """One of Groq's ``executed_tools``: a tool its servers ran, never an action.  The
        same ``index`` may come again with the tool's result."""
        d = self._d
        merger = d.merger
        if not is_record(tool):
            return d.bad("an executed tool is not an object", tool)
        index = get(tool, "index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = f"unnumbered-{self._executed}"
            self._executed += 1
        key = ("executed_tools", index)
        events = merger.hosted_start(key, get_str(tool, "type") or "tool", None, "executed_tools")
        arguments = plain(get(tool, "arguments"))
        if arguments is not None:
            events += merger.hosted_input(key, arguments)
        fields = plain(tool)
        found = (
            {k: fields[k] for k in _EXECUTED_RESULTS if fields.get(k) is not None}
            if isinstance(fields, Mapping)
            else {}
        )
        if found:
            events += merger.hosted_result(key, found, None, "executed_tools")
        return events

    def _annotation(self, note: Any) -> list[Event]:
        """A Chat ``annotations`` entry (``{"type": "url_citation", "url_citation": {...}}``):
        its indexes count in the message's text, which is the whole text channel."""
        d = self._d
        note = plain(note)
        if not isinstance(note, Mapping):
            return d.bad("an annotation is not an object", note)
        kind = str(note.get("type") or "annotation")
        body = note.get(kind)
        body = body if isinstance(body, Mapping) else note
        start, end = body.get("start_index"), body.get("end_index")
        citation = Citation(
            kind,
            url=_text(body.get("url")),
            title=_text(body.get("title")),
            cited_text=_text(body.get("content")),
            start=start if _index(start) else None,
            end=end if _index(end) else None,
            raw=dict(note),
        )
        return d.merger.citation(citation)

    def _context(self, context: Any) -> list[Event]:
        """Azure's ``delta.context.citations``: one ``Citation`` per document (the text
        marks it ``[doc1]``...; ``raw["number"]`` is that number)."""
        d = self._d
        cited, events = d.items(context, "citations")
        for citation in cited:
            if not is_record(citation):
                events += d.bad("a citation is not an object", citation)
                continue
            self._documents += 1
            raw = {**_raw(citation), "number": self._documents}
            url = get_str(citation, "url") or get_str(citation, "filepath")
            title, text = get_str(citation, "title"), get_str(citation, "content")
            events += d.merger.citation(
                Citation("azure_citation", url=url, title=title, cited_text=text, raw=raw)
            )
        return events

    def _part(self, part: Any) -> list[Event]:
        """One part of a list-shaped ``content`` (Mistral)."""
        d = self._d
        kind = get_str(part, "type")
        if kind == "text":
            text = get(part, "text")
            if isinstance(text, str):
                return d.merger.text(text)
        elif kind == "thinking":
            return self._thinking(get(part, "thinking"))
        elif kind == "reference":
            return d.merger.citation(Citation("reference", raw=_raw(part)))
        elif kind is not None and is_record(part):
            message = f"content part of type {kind!r} has no event: ignored"
            return d.note_once("ignored_part", message, kind)
        return d.bad("a content part has no readable text", part)

    def _thinking(self, thinking: Any) -> list[Event]:
        d = self._d
        if isinstance(thinking, str):
            return d.merger.reasoning(thinking)
        if not isinstance(thinking, (list, tuple)):
            return d.bad("a thinking part is neither text nor a list", thinking)
        events: list[Event] = []
        for piece in thinking:
            text = get(piece, "text") if is_record(piece) else piece
            if isinstance(text, str):
                events += d.merger.reasoning(text)
            else:
                events += d.bad("a thinking piece has no text", piece)
        return events

    def _tool(
        self, key: Hashable, call_id: str | None, function: Any, signature: str | None = None
    ) -> list[Event]:
        d = self._d
        merger = d.merger
        if key is None:
            key = self._last_key
        self._last_key = key
        if function is not None and not is_record(function):
            return d.bad("a tool call's function is not an object", function)
        events: list[Event] = []
        if key not in self._seen:
            self._seen.add(key)
            events += self._end_previous()
            attributes = {"thought_signature": signature} if signature else None
            events += merger.tool_start(key, get_str(function, "name"), call_id, attributes)
        arguments = get(function, "arguments")
        if isinstance(arguments, Mapping):  # some servers send the arguments as an object
            arguments = json.dumps(arguments, ensure_ascii=False)
        if isinstance(arguments, str):
            events += merger.tool_args(key, arguments)
        elif arguments is not None:
            events += d.bad("a tool call's arguments are not text", arguments)
        return events

    def _finish(self, reason: str) -> list[Event]:
        d = self._d
        if reason in _CUT:
            d.set_reason("length")
            if reason == "insufficient_system_resource":  # DeepSeek stopped the reply
                return d.merger.note("finish_reason", "the provider ran out of resources", reason)
            return []
        if reason == "content_filter":
            d.set_reason("length")
            return d.merger.note("content_filter", "the provider's content filter cut the output")
        if reason == "error":
            if self._failing:  # the chunk's error object says what failed
                return []
            return d.merger.fail("the provider ended the reply with finish_reason 'error'", "error")
        events = self._close_custom()
        if reason not in _NATURAL_END:
            events += d.merger.note("finish_reason", f"unknown finish reason {reason!r}", reason)
        d.set_reason("stop")
        events += d.merger.end_tools()
        return events

    def _filters(self, results: Any, where: str) -> list[Event]:
        """Azure's content-filter verdicts: each category filtered or detected is reported."""
        d = self._d
        results = plain(results)
        if results is None:
            return []
        if not isinstance(results, Mapping):
            return d.bad("content filter results are not an object", results)
        flagged: list[str] = []
        for category, verdict in results.items():
            if not isinstance(verdict, Mapping):
                continue
            if category == "error":
                flagged.append(f"error {verdict.get('code')!r}: {verdict.get('message')}")
            elif verdict.get("filtered") is True or verdict.get("detected") is True:
                severity = verdict.get("severity")
                flagged.append(f"{category} ({severity})" if severity else str(category))
        if not flagged:
            return []
        message = f"the content filter flagged the {where}: {', '.join(flagged)}"
        return d.note_once("content_filter", message, show(results))

    def _sources(self, chunk: Any) -> list[Event]:
        """Perplexity's ``citations`` and ``search_results`` (repeated in every chunk):
        each source once, the first time it is listed."""
        d = self._d
        urls, events = d.items(chunk, "citations")
        results, bad = d.items(chunk, "search_results")
        events += bad
        found = {get_str(r, "url"): r for r in results if is_record(r)}
        for number, url in enumerate(urls, start=1):
            if not isinstance(url, str):
                events += d.bad("a citation is not a URL", url)
            elif url not in self._cited:
                self._cited.add(url)
                result = found.get(url)
                title = get_str(result, "title") if result is not None else None
                raw = {**(_raw(result) if result is not None else {}), "url": url, "number": number}
                events += d.merger.citation(Citation("url", url=url, title=title, raw=raw))
        for result in results:
            url = get_str(result, "url") if is_record(result) else None
            if url is None:
                events += d.bad("a search result has no URL", result)
            elif url not in self._cited:
                self._cited.add(url)
                citation = Citation(
                    "search_result", url=url, title=get_str(result, "title"), raw=_raw(result)
                )
                events += d.merger.citation(citation)
        return events


_CHUNK_KEYS = frozenset(
    {"id", "object", "created", "model", "choices", "system_fingerprint", "service_tier"}
    | {"obfuscation"}  # random padding OpenAI adds to each chunk: no content
)
_CHOICE_KEYS = frozenset({"index", "delta", "logprobs"})
_DELTA_KEYS = frozenset({"role", "content", "tool_calls"})
_CALL_KEYS = frozenset({"index", "function"})
_FUNCTION_KEYS = frozenset({"arguments"})
"""The fields :meth:`ChatReader.fast` reads when set: any other set field (a finish
reason, usage, a tool's name or id, a refusal...) sends the chunk the general way."""


def _fields(obj: Any, allowed: frozenset[str]) -> dict[str, Any] | None:
    """The fields of a dict or an SDK (pydantic) object, when every field that is set
    (not ``None``) is one of ``allowed``; else ``None``."""
    cls = type(obj)
    if cls is dict:
        others: Any = obj.keys() - allowed
        fields: Any = obj
    else:
        fields = getattr(obj, "__dict__", None)
        if type(fields) is not dict or getattr(obj, "__pydantic_extra__", None):
            return None
        others = _OTHERS.get(cls)
        if others is None or others[0] is not allowed:
            # an SDK model's optional fields are always in its __dict__
            declared = getattr(cls, "model_fields", None)
            if not isinstance(declared, dict) or not fields.keys() <= declared.keys():
                return None
            others = _OTHERS[cls] = (allowed, tuple(declared.keys() - allowed))
        for name in others[1]:
            if fields.get(name) is not None:
                return None
        result: dict[str, Any] = fields
        return result
    for name in others:
        if obj[name] is not None:
            return None
    same: dict[str, Any] = obj
    return same


_OTHERS: dict[type, tuple[frozenset[str], tuple[str, ...]]] = {}
"""Per SDK model class: the allowed set it was read with, and its fields outside it."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _raw(value: Any) -> dict[str, Any]:
    """A provider record as a plain dict, for ``Citation.raw``."""
    value = plain(value)
    return dict(value) if isinstance(value, Mapping) else {"value": value}

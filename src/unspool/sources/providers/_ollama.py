"""Ollama chat streams in, unspool events out (the official ``ollama`` SDK).

:func:`from_ollama` takes what ``client.chat(..., stream=True)`` returns (sync
``Client`` or ``AsyncClient``, extra ``unspool[ollama]``): a stream of ``ChatResponse``
chunks, or the raw NDJSON objects of ``POST /api/chat``; the ``GenerateResponse`` chunks
of ``client.generate(..., stream=True)`` (``POST /api/generate``) work too.  Mapping, in
stream order:

* ``message.content`` (``response`` for generate) -> the text protocol;
  ``message.thinking`` (``thinking`` for generate) -> ``ReasoningDelta``;
* ``message.tool_calls``: Ollama sends each call whole (name and an arguments object)
  -> ``ActionStarted``, ``ActionArgsDelta``, ``ActionComplete`` / ``ActionInvalid``;
* ``done_reason``: ``"stop"`` ends normally, ``"length"`` is truncation
  (``StreamDone(truncated)``), others (``"load"``, ``"unload"``) are reported;
* an ``error`` object (the SDK raises ``ResponseError``) -> ``StreamError``.
"""

from __future__ import annotations

import json
from typing import Any

from unspool.events import Event
from unspool.protocols._emitter import ActionValidator
from unspool.sources._entry import entry_point
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import get, get_str, is_record, plain
from unspool.sources._provider_decoder import ProviderDecoder

__all__ = ["OllamaDecoder", "from_ollama", "recognise"]

_COUNTS = (
    "prompt_eval_count",
    "eval_count",
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
)
"""The counts and timings of Ollama's last chunk: its usage record."""


def recognise(item: Any) -> bool:
    """Whether ``item`` is an Ollama chat chunk (it has ``message`` and ``done``) or a
    generate chunk (``response`` or ``thinking``, and ``done``)."""
    if get(item, "done") is None:
        return False
    return get(item, "message") is not None or any(
        isinstance(get(item, name), str) for name in ("response", "thinking")
    )


class OllamaDecoder(ProviderDecoder):
    """``ChatResponse`` chunks (or ``/api/chat`` NDJSON objects) in, events out (sans-I/O)."""

    __slots__ = ("_calls",)

    provider = "Ollama"

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        super().__init__(text_parser, stream_id=stream_id, registry=registry, lenient=lenient)
        self._calls = 0

    def _event(self, event: Any) -> list[Event]:
        error = get(event, "error")
        if error:
            return self.merger.fail(str(error), "error")
        merger = self.merger
        events: list[Event] = []
        message = get(event, "message")
        if message is not None and not is_record(message):
            events.extend(self.bad("message is not an object", event))
            message = None
        if message is None:  # a generate chunk (or a compatible server's top-level thinking)
            events.extend(self._generated(event))
        for name in ("thinking", "content"):
            value = get(message, name)
            if value is not None and not isinstance(value, str):
                events.extend(self.bad(f"{name} is not a string", event))
            elif value and name == "thinking":
                events.extend(merger.reasoning(value))
            elif value:
                events.extend(merger.text(value))
        calls, bad = self.items(message, "tool_calls")
        events.extend(bad)
        for call in calls:
            events.extend(self._tool_call(call))
        if get(event, "done") is True:
            counts = {name: get(event, name) for name in _COUNTS}
            if any(value is not None for value in counts.values()):
                events.extend(self.usage("ollama", counts))
            events.extend(self._done(get(event, "done_reason")))
        return events

    def _generated(self, event: Any) -> list[Event]:
        """A ``/api/generate`` chunk: its ``thinking`` then its ``response`` text."""
        events: list[Event] = []
        for name in ("thinking", "response"):
            value = get(event, name)
            if value is not None and not isinstance(value, str):
                events.extend(self.bad(f"{name} is not a string", event))
            elif value and name == "thinking":
                events.extend(self.merger.reasoning(value))
            elif value:
                events.extend(self.merger.text(value))
        return events

    def _tool_call(self, call: Any) -> list[Event]:
        function = get(call, "function")
        if not is_record(function):
            return self.bad("a tool call has no function object", call)
        key = self._calls
        self._calls += 1
        events = self.merger.tool_start(key, get_str(function, "name"), get_str(call, "id"))
        arguments = plain(get(function, "arguments"))
        if isinstance(arguments, str):  # some servers send the arguments as JSON text
            events.extend(self.merger.tool_args(key, arguments))
        elif arguments is not None and arguments != {}:  # not an object: bad_params
            text = json.dumps(arguments, ensure_ascii=False, default=repr)
            events.extend(self.merger.tool_args(key, text))
        events.extend(self.merger.tool_end(key))
        return events

    def _done(self, reason: Any) -> list[Event]:
        if reason is not None and not isinstance(reason, str):
            return self.bad("done_reason is not a string", reason)
        if reason == "length":
            self.set_reason("length")
            return []
        self.set_reason("stop")
        events = self.merger.end_tools()
        if reason not in (None, "", "stop"):
            events.extend(self.merger.note("done_reason", f"done reason {reason!r}", reason))
        return events


from_ollama = entry_point(
    "ollama",
    OllamaDecoder,
    """Events of an Ollama chat stream: a sync iterator for ``Client.chat(stream=True)``,
    an async one for ``AsyncClient.chat(stream=True)``.  Options as in
    :func:`unspool.from_openai`.""",
)

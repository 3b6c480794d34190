"""OpenAI streams in, unspool events out: Chat Completions, legacy Completions, Responses.

:func:`from_openai` takes what the ``openai`` SDK (extra ``unspool[openai]``)
returns for a streamed call, sync or async, and yields events in stream order:

* Chat Completions (``client.chat.completions.create(..., stream=True)``, or the
  ``chat.completions.stream()`` helper's stream) and the streams of
  OpenAI-compatible servers (Azure, Mistral, DeepSeek, Groq, xAI, Perplexity...):
  see :mod:`unspool.sources.providers._openai_chat`.  A tool call becomes
  ``ActionStarted``, ``ActionArgsDelta`` (the live partial arguments, incomplete
  strings included) and one ``ActionComplete``/``ActionInvalid``; several calls may
  be open at once.  A call ends when a later call starts and its JSON value is
  complete, or at the finish reason; a stream that ends with ``data: [DONE]`` but no
  finish reason ends its calls whose arguments are complete JSON as complete (the
  others, and every open call of a stream that ends without ``[DONE]``, as
  ``ActionInvalid(truncated)``: the SDK drops ``[DONE]``, so through it such a call stays
  truncated).  ``finish_reason="length"`` (and
  ``"content_filter"``) cut off the open calls (``ActionInvalid(truncated)``) and
  end with ``StreamDone(truncated)``.
* Legacy Completions (``client.completions.create(..., stream=True)``):
  ``choices[].text`` is the text channel.
* Responses API (``client.responses.create(..., stream=True)`` or
  ``responses.stream()``): see :mod:`unspool.sources.providers._openai_responses`
  (text, refusals, citations, reasoning, function calls and the client-run tool
  items as actions; hosted tools reported).

Events are read by duck typing (documented attributes only, no SDK import), so
plain dicts and :class:`~unspool.sources._sse.SSEMessage`\\ s of the raw wire
format work too.  A payload of the wrong shape (``{"choices": 1.5}``...) is
reported as ``Diagnostic(kind="bad_event")`` and skipped; an ``{"error": {...}}``
payload (how compatible servers report a failure mid-stream) is ``StreamError``; an event type this
module does not read is reported once (``kind="unknown_event"``); the iteration
never raises and ends with ``StreamDone``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Iterable
from typing import Any

from unspool.events import Event
from unspool.protocols._emitter import ActionValidator
from unspool.sources._entry import entry_point
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import get, get_str, is_record, plain
from unspool.sources._provider_decoder import ProviderDecoder
from unspool.sources._sse import SSEMessage
from unspool.sources.providers._openai_chat import ChatReader
from unspool.sources.providers._openai_responses import ResponsesReader

__all__ = ["OpenAIDecoder", "from_openai", "recognise"]

_OBJECTS = frozenset({"chat.completion.chunk", "chat.completion", "text_completion"})
_HELPER_EVENTS = frozenset(
    {
        "content.delta",
        "content.done",
        "refusal.delta",
        "refusal.done",
        "tool_calls.function.arguments.delta",
        "tool_calls.function.arguments.done",
        "logprobs.content.delta",
        "logprobs.content.done",
        "logprobs.refusal.delta",
        "logprobs.refusal.done",
    }
)
"""What the ``chat.completions.stream()`` helper derives from each chunk (it repeats
the raw chunk, which it also yields wrapped as ``type="chunk"``)."""


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

    __slots__ = ("_chat", "_responses", "choice")
    provider = "OpenAI"

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
        self._chat = ChatReader(self)
        self._responses = ResponsesReader(self)

    def feed(self, item: Any) -> list[Event]:
        """The events of one upstream item; an SSE ``data: [DONE]`` ends a Chat stream
        that gave no finish reason (its calls whose arguments are complete end complete)."""
        if isinstance(item, SSEMessage):
            if item.data.strip() == "[DONE]" and not self.closed:
                return self._chat.done_marker()
        elif not self.merger.closed:
            try:
                fast = self._chat.fast(item)  # a piece of text or of a call's arguments
            except Exception:  # a shape it did not foresee: the general reader reports it
                fast = None
            if fast is not None:
                return fast
        return super().feed(item)

    def fail_with(self, exc: BaseException) -> list[Event]:
        """The SDK raised (an ``error`` object mid-stream): Groq's ``failed_generation`` in
        the error's body is reported first, then ``StreamError``."""
        body = getattr(exc, "body", None)
        failed = get(body, "failed_generation") if is_record(body) else None
        events: list[Event] = []
        if failed is not None:
            events += self._chat.failed_generation(failed)
        return events + self.fail(str(exc) or repr(exc), type(exc).__name__)

    def _event(self, event: Any) -> list[Event]:
        if get_str(event, "object") == "error":  # vLLM's failure: the error object itself
            return self._chat.fail_with_error(event)
        if get(event, "choices") is not None or get_str(event, "object") in _OBJECTS:
            return self._chat.chunk(event)
        kind = get_str(event, "type")
        if kind == "chunk":  # the chat.completions.stream() helper wraps each raw chunk
            inner = get(event, "chunk")
            return (
                self._chat.chunk(inner) if inner is not None else self.bad("an empty chunk", event)
            )
        if kind in _HELPER_EVENTS:
            return []
        if kind is None and plain(get(event, "error")):  # a compatible server failed
            return self._chat.chunk(event)
        if kind is not None and self._responses.handles(kind):
            return self._responses.event(kind, event)
        return self.unknown(kind, event)


def _no_loop() -> bool:
    """No event loop runs in this thread: a stream that iterates both ways (LiteLLM's
    ``CustomStreamWrapper``) is read sync here, async under a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False


def _read_async(stream: Any) -> bool:
    """An async stream is read async, unless it also iterates sync and no loop runs."""
    return isinstance(stream, AsyncIterable) and not (isinstance(stream, Iterable) and _no_loop())


from_openai = entry_point(
    "openai",
    OpenAIDecoder,
    """Events of an OpenAI stream: a sync iterator for a sync stream (``Stream``,
    a list of chunks), an async iterator for an async one (``AsyncStream``); a stream
    that iterates both ways (LiteLLM's ``litellm.completion(..., stream=True)``) is read
    async under a running event loop, sync otherwise.

    ``text_parser`` is the protocol of the text channel (``"plain"``,
    ``"interleaved"``, ``"tags"`` or a parser instance); ``registry`` validates
    actions; ``lenient`` accepts repairable tool-argument JSON.  The stream is
    closed when the iteration ends, however it ends; an upstream error becomes
    ``StreamError`` then ``StreamDone(reason="error")``.""",
    read_async=_read_async,
)

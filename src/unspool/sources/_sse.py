"""Server-Sent Events from raw bytes: any HTTP client's body in, messages out.

:class:`SSEDecoder` is an incremental, sans-I/O decoder of the ``text/event-stream``
format (WHATWG HTML, "Server-sent events"): lines end in CRLF, LF or CR (a CRLF
split across chunks counts once), a leading BOM is dropped, ``:`` lines are
comments, ``data`` lines join with ``\\n``, a blank line dispatches the message,
and a message with no ``data`` line is not dispatched.  Lines are cut on bytes
and decoded whole, so a chunk may end anywhere, inside a UTF-8 character too;
invalid UTF-8 becomes U+FFFD as the standard says.  The cost is O(input): each
byte is searched once, however the body is chunked.

:func:`iter_sse` / :func:`aiter_sse` turn an iterable of body chunks into
:class:`SSEMessage`\\ s; :func:`stream_sse` / :func:`astream_sse` feed each
message's ``data`` to a text protocol and yield its events.  For a provider's
raw wire format (OpenAI, Anthropic) without its SDK, give the messages to
:func:`unspool.from_openai` / :func:`unspool.from_anthropic`, which decode their
JSON ``data``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from unspool.events import Event, FinishReason
from unspool.protocols._emitter import ActionValidator
from unspool.sources._drive import TextDecoder, drive_async, drive_sync
from unspool.sources._merge import EventMerger
from unspool.sources._parsers import TextProtocol

__all__ = ["SSEDecoder", "SSEMessage", "aiter_sse", "astream_sse", "iter_sse", "stream_sse"]

_EOL = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
_CR = 13
_LF = 10


@dataclass(frozen=True, slots=True)
class SSEMessage:
    """One dispatched event: its type (``"message"`` unless an ``event`` field named
    it), its ``data``, the last event id seen, and the ``retry`` field of this message
    (milliseconds) if it had one."""

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None


class SSEDecoder:
    """Incremental ``text/event-stream`` decoder: ``feed(chunk)`` -> messages now complete.

    ``finish()`` ends the body: per the standard, a message cut off before its blank
    line is not dispatched; it is kept in :attr:`incomplete` so a caller can report it.
    """

    __slots__ = (
        "_buf",
        "_check_bom",
        "_data",
        "_event",
        "_retry",
        "_scan",
        "_skip_lf",
        "finished",
        "incomplete",
        "last_event_id",
        "retry",
    )

    def __init__(self) -> None:
        self._buf = bytearray()
        self._scan = 0  # bytes of _buf already searched for a line end
        self._check_bom = True
        self._skip_lf = False  # the last line ended in CR at a chunk end: a LF next is its pair
        self._data: list[str] = []
        self._event = ""
        self._retry: int | None = None
        self.last_event_id = ""
        self.retry: int | None = None  # the latest reconnection time announced
        self.incomplete: SSEMessage | None = None
        self.finished = False

    def feed(self, chunk: bytes | str) -> list[SSEMessage]:
        """The messages completed by ``chunk`` (``str`` is taken as UTF-8 text)."""
        if self.finished:
            raise RuntimeError("feed() after finish()")
        buf = self._buf
        # surrogatepass: a lone surrogate in str input must not raise; its bytes are
        # invalid UTF-8, which each line decodes as U+FFFD like any other
        buf += chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else chunk
        if self._check_bom:
            if len(buf) < len(_BOM) and _BOM.startswith(buf):
                return []
            if buf.startswith(_BOM):
                del buf[: len(_BOM)]
            self._check_bom = False
        start = 0
        if self._skip_lf and buf:
            self._skip_lf = False
            if buf[0] == _LF:
                start = 1
        out: list[SSEMessage] = []
        end = len(buf)
        for m in _EOL.finditer(buf, max(self._scan, start)):
            self._line(bytes(buf[start : m.start()]), out)
            start = m.end()
            if start == end and buf[start - 1] == _CR:
                self._skip_lf = True
        if start:
            del buf[:start]
        self._scan = len(buf)
        return out

    def finish(self) -> list[SSEMessage]:
        """End of the body: nothing more is dispatched (see :attr:`incomplete`)."""
        if self.finished:
            return []
        self.finished = True
        if self._buf:
            self._line(bytes(self._buf), [])
            self._buf.clear()
        if self._data:
            self.incomplete = self._message()
        return []

    def _line(self, line: bytes, out: list[SSEMessage]) -> None:
        if not line:
            if self._data:
                out.append(self._message())
            self._data = []
            self._event = ""
            self._retry = None
            return
        text = line.decode("utf-8", "replace")
        if text[0] == ":":
            return
        name, colon, value = text.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = self._retry = int(value)

    def _message(self) -> SSEMessage:
        data = "\n".join(self._data)
        return SSEMessage(self._event or "message", data, self.last_event_id, self._retry)


def iter_sse(chunks: Iterable[bytes | str]) -> Iterator[SSEMessage]:
    """The messages of an event-stream body given as an iterable of chunks."""
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.finish()


async def aiter_sse(chunks: AsyncIterable[bytes | str]) -> AsyncIterator[SSEMessage]:
    """The messages of an event-stream body given as an async iterable of chunks."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for message in decoder.feed(chunk):
            yield message
    for message in decoder.finish():
        yield message


class _SSETextDecoder(TextDecoder):
    """Body chunks in; each message's ``data`` goes to the text protocol."""

    __slots__ = ("done_data", "sse")

    def __init__(self, merger: EventMerger, done_data: str | None) -> None:
        super().__init__(merger)
        self.sse = SSEDecoder()
        self.done_data = done_data

    def feed(self, item: Any) -> list[Event]:
        if not isinstance(item, (bytes, str, bytearray, memoryview)):
            return super().feed(item)
        events: list[Event] = []
        for message in self.sse.feed(bytes(item) if not isinstance(item, str) else item):
            if message.data != self.done_data:
                events.extend(self.merger.text(message.data))
        return events

    def _cut(self) -> list[Event]:
        self.sse.finish()
        cut = self.sse.incomplete
        if cut is None:
            return []
        return self.merger.note("sse_incomplete", "the body ended inside an event", cut.data)

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        return [*self._cut(), *self.merger.finish(reason)] if not self.closed else []

    def fail(self, message: str, error_type: str) -> list[Event]:
        return [*self._cut(), *self.merger.fail(message, error_type)] if not self.closed else []


def stream_sse(
    chunks: Iterable[bytes | str],
    parser: TextProtocol = "plain",
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    done_data: str | None = "[DONE]",
) -> Iterator[Event]:
    """Events of a text protocol whose text arrives as the ``data`` of SSE messages
    (a message whose data is ``done_data`` is not text)."""
    merger = EventMerger(parser, stream_id=stream_id, registry=registry)
    return drive_sync(chunks, _SSETextDecoder(merger, done_data))


def astream_sse(
    chunks: AsyncIterable[bytes | str],
    parser: TextProtocol = "plain",
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    done_data: str | None = "[DONE]",
    abort: asyncio.Event | None = None,
) -> AsyncIterator[Event]:
    """:func:`stream_sse` for an async body; ``abort`` is an optional :class:`asyncio.Event`."""
    merger = EventMerger(parser, stream_id=stream_id, registry=registry)
    return drive_async(chunks, _SSETextDecoder(merger, done_data), abort=abort)

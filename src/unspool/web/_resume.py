"""``ResumableStreams``: ``"unspool"`` streams that a client can resume with ``Last-Event-ID``.

A browser's ``EventSource`` reconnects by itself after a dropped connection and sends
the id of the last frame it got as ``Last-Event-ID``. For that to lose and repeat
nothing, the stream must outlive the connection: :meth:`ResumableStreams.start` runs
the events into a buffer in a task of its own, and each :meth:`~ResumableStreams.response`
sends the buffered frames after the client's last id, then follows the live ones.

The bounds, all set on the constructor:

* **how big**: each stream keeps at least its last ``max_events`` frames (default 10,000,
  at most twice that; one frame per event, so a whole reply in practice); at most
  ``max_streams`` streams at once;
* **how long**: a stream's buffer is dropped ``keep_seconds`` (default 60) after the
  stream ended; a stream still running with no client attached for ``keep_seconds`` is
  stopped (its event source closed) and dropped;
* **past them**: a client whose ``Last-Event-ID`` is older than the oldest kept frame,
  or whose stream is gone, gets one ``event: resume_failed`` frame, ``data:``
  ``{"type": "resume_failed", "reason": "evicted" | "unknown_stream" | "bad_id", ...}``
  (``bad_id``: not plain ASCII digits, or past the last frame sent),
  and the response ends: start the reply again. Starting a stream beyond
  ``max_streams`` drops the oldest finished one, or raises :class:`TooManyStreams`.

Like every ``EventSource`` stream, the client closes its connection when it reads the
last event (``stream_done``, or ``resume_failed``); otherwise it reconnects, is sent
nothing new, and keeps reconnecting until the buffer is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

from unspool.events import Event
from unspool.web._encode import _aencode, aclose
from unspool.web._responses import EventStreamResponse
from unspool.web._sse import dumps, frame
from unspool.web.formats._base import EncodeOptions
from unspool.web.formats._unspool import UnspoolEncoder

__all__ = ["ResumableStreams", "TooManyStreams"]


class TooManyStreams(RuntimeError):
    """:meth:`ResumableStreams.start` was called with ``max_streams`` streams running."""


class _Buffer:
    """One stream's last frames, and the signal that more arrived.

    Frames live in a list trimmed by ``max_events`` at a time once it holds twice that,
    so appending and reading from an id are O(1) amortised: at least the last
    ``max_events`` frames are kept."""

    def __init__(self, max_events: int) -> None:
        self.max_events = max_events
        self.frames: list[bytes] = []
        self.first_id = 1
        self.finished = False
        self.readers = 0
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.timer: asyncio.TimerHandle | None = None

    @property
    def last_id(self) -> int:
        return self.first_id + len(self.frames) - 1

    def append(self, data: bytes) -> None:
        self.frames.append(data)
        if len(self.frames) >= 2 * self.max_events:
            del self.frames[: self.max_events]
            self.first_id += self.max_events
        self._wake()

    def finish(self) -> None:
        self.finished = True
        self._wake()

    def _wake(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    def since(self, first: int) -> list[bytes]:
        """The frames from id ``first`` on (``first`` >= ``first_id``)."""
        return self.frames[first - self.first_id :]


def _resume_failed(reason: str, **details: Any) -> bytes:
    data = {"type": "resume_failed", "reason": reason, **details}
    return frame(dumps(data), event="resume_failed")


class ResumableStreams:
    """Buffers of ``"unspool"`` streams by key, for ``Last-Event-ID`` resumption
    (bounds and behaviour past them: see the module's documentation)."""

    def __init__(
        self, *, max_events: int = 10_000, keep_seconds: float = 60.0, max_streams: int = 1_000
    ) -> None:
        if max_events < 1 or max_streams < 1:
            raise ValueError("max_events and max_streams must be >= 1")
        if keep_seconds < 0:
            raise ValueError("keep_seconds must be >= 0")
        self.max_events = max_events
        self.keep_seconds = keep_seconds
        self.max_streams = max_streams
        self._streams: dict[str, _Buffer] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._streams

    def start(
        self,
        key: str,
        events: AsyncIterable[Event] | Iterable[Event],
        *,
        expose_errors: bool = False,
    ) -> None:
        """Run ``events`` into a new buffer under ``key`` (call it inside the event loop).
        ``ValueError`` if ``key`` is in use."""
        if key in self._streams:
            raise ValueError(f"a stream with key {key!r} already exists")
        if len(self._streams) >= self.max_streams:
            finished = [k for k, b in self._streams.items() if b.finished]
            if not finished:
                raise TooManyStreams(f"{self.max_streams} streams are running (max_streams)")
            self._drop(finished[0])
        buffer = _Buffer(self.max_events)
        self._streams[key] = buffer
        buffer.task = asyncio.get_running_loop().create_task(
            self._produce(key, buffer, events, EncodeOptions(expose_errors))
        )
        self._watch(key, buffer)

    async def _produce(
        self,
        key: str,
        buffer: _Buffer,
        events: AsyncIterable[Event] | Iterable[Event],
        options: EncodeOptions,
    ) -> None:
        encoder = UnspoolEncoder(options)
        try:
            async for data in _aencode(events, encoder):
                buffer.append(data)  # one frame per event: its id is encoder.seq
        finally:
            buffer.finish()
            self._watch(key, buffer)

    def _watch(self, key: str, buffer: _Buffer) -> None:
        """Drop the stream ``keep_seconds`` from now unless a client is attached by then."""
        if buffer.timer is not None:
            buffer.timer.cancel()
        loop = asyncio.get_running_loop()
        buffer.timer = loop.call_later(self.keep_seconds, self._expire, key, buffer)

    def _expire(self, key: str, buffer: _Buffer) -> None:
        buffer.timer = None
        if buffer.readers == 0 and self._streams.get(key) is buffer:
            self._drop(key)

    def _drop(self, key: str) -> None:
        buffer = self._streams.pop(key)
        if buffer.timer is not None:
            buffer.timer.cancel()
        if buffer.task is not None and not buffer.task.done():
            buffer.task.cancel()  # closes the event source

    async def frames(self, key: str, last_event_id: str | None = None) -> AsyncIterator[bytes]:
        """The stream's frames after ``last_event_id`` (all of them for ``None``), then the
        live ones until it ends; a single ``resume_failed`` frame when that cannot be done."""
        buffer = self._streams.get(key)
        if buffer is None:
            yield _resume_failed("unknown_stream", lastEventId=last_event_id)
            return
        after = _frame_id(last_event_id)
        if not 0 <= after <= buffer.last_id:  # ids come from this buffer: never ahead
            yield _resume_failed("bad_id", lastEventId=last_event_id)
            return
        buffer.readers += 1
        if buffer.timer is not None:
            buffer.timer.cancel()
            buffer.timer = None
        try:
            next_id = after + 1
            while True:
                changed = buffer.changed
                if next_id < buffer.first_id:
                    yield _resume_failed("evicted", lastEventId=after, oldestId=buffer.first_id)
                    return
                for data in buffer.since(next_id):
                    yield data
                    next_id += 1
                if buffer.finished and next_id > buffer.last_id:
                    return
                if next_id > buffer.last_id:
                    await changed.wait()
        finally:
            buffer.readers -= 1
            if buffer.readers == 0 and self._streams.get(key) is buffer:
                self._watch(key, buffer)

    def response(
        self,
        key: str,
        last_event_id: str | None = None,
        *,
        keepalive: float | None = 15.0,
        retry: int | None = None,
    ) -> EventStreamResponse:
        """An :class:`EventStreamResponse` of :meth:`frames` (pass the request's
        ``Last-Event-ID`` header). ``retry``: milliseconds a browser waits before it
        reconnects, sent first as the SSE ``retry:`` field (browsers default to a few seconds)."""
        frames = self.frames(key, last_event_id)
        if retry is not None:
            if retry < 0:
                raise ValueError("retry must be >= 0 milliseconds")
            frames = _prefixed(f"retry: {retry}\n\n".encode(), frames)
        return EventStreamResponse.from_frames(frames, format="unspool", keepalive=keepalive)


def _frame_id(last_event_id: str | None) -> int:
    """The frame id a ``Last-Event-ID`` names (0 for none), or -1 when it is not plain ASCII
    digits: ``int()`` alone would read ``5_0`` as 50, ``+5`` / `` 5`` as 5 and ``\u0665``
    (an Arabic-Indic five) as 5, and the client would skip or repeat frames."""
    if not last_event_id:
        return 0
    if not (last_event_id.isascii() and last_event_id.isdigit()):
        return -1
    return int(last_event_id)


async def _prefixed(first: bytes, frames: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    try:
        yield first
        async for frame in frames:
            yield frame
    finally:
        await aclose(frames)

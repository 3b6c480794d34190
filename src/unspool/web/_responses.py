"""``EventStreamResponse``: unspool events as a Starlette (and so FastAPI) streaming response.

The only module of unspool that touches Starlette's response machinery. It adds, to
:func:`unspool.web.aencode_sse`'s frames, what a long-lived HTTP response needs:

* the media type ``text/event-stream`` and the format's headers (no caching, no proxy
  buffering; ``x-vercel-ai-ui-message-stream: v1`` for ``"ai-sdk"``);
* a keep-alive comment (``: keep-alive``) after every ``keepalive`` seconds without a
  frame, so proxies and browsers keep the connection open while the model thinks;
* the upstream closed as soon as the client disconnects: a task listens for the
  ``http.disconnect`` message whatever the server's ASGI version, cancels the stream and
  closes the event source (``aclose()``, or ``close()`` for a sync generator).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from unspool.events import Event
from unspool.web._encode import FORMATS, MEDIA_TYPE, FormatName, aclose, aencode_sse
from unspool.web._sse import KEEP_ALIVE

__all__ = ["EventStreamResponse", "with_keepalive"]


async def with_keepalive(frames: AsyncIterator[bytes], interval: float) -> AsyncIterator[bytes]:
    """``frames``, with :data:`KEEP_ALIVE` sent after each ``interval`` seconds of silence.

    The pending read is never cancelled by a keep-alive, so no frame is lost; ``frames``
    is closed however the iteration ends."""
    pending: asyncio.Future[bytes] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(frames))
            done, _ = await asyncio.wait({pending}, timeout=interval)
            if not done:
                yield KEEP_ALIVE
                continue
            try:
                chunk = pending.result()
            except StopAsyncIteration:
                return
            finally:
                pending = None
            yield chunk
    finally:
        if pending is not None:
            pending.cancel()
            with anyio.CancelScope(shield=True):
                await asyncio.wait({pending})
        with anyio.CancelScope(shield=True):
            await aclose(frames)


class EventStreamResponse(StreamingResponse):
    """Stream ``events`` (an async or sync iterable of unspool events) as SSE in ``format``.

    ``keepalive``: seconds of silence before a keep-alive comment (``None``: never).
    ``headers`` are added to the format's own. ``turns=True``: the events are the turns of
    :func:`unspool.run_turns`, one reply (see :mod:`unspool.web._encode`). The other options are
    :func:`unspool.web.encode_sse`'s. A sync iterable is read in a worker thread.
    Each response runs its own events once: a client's ``Last-Event-ID`` is not read here;
    for resumption use :class:`unspool.web.ResumableStreams`.
    """

    def __init__(
        self,
        events: AsyncIterable[Event] | Iterable[Event],
        *,
        format: FormatName | str = "unspool",
        keepalive: float | None = 15.0,
        expose_errors: bool = False,
        message_id: str | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        turns: bool = False,
    ) -> None:
        if format not in FORMATS:
            raise ValueError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
        frames = aencode_sse(
            events,
            format=format,
            expose_errors=expose_errors,
            message_id=message_id,
            thread_id=thread_id,
            run_id=run_id,
            turns=turns,
        )
        self._setup(frames, FORMATS[format].all_headers, keepalive, status_code, headers)

    @classmethod
    def from_frames(
        cls,
        frames: AsyncIterator[bytes],
        *,
        format: FormatName | str = "unspool",
        keepalive: float | None = 15.0,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> EventStreamResponse:
        """A response around frames already encoded in ``format`` (as ``ResumableStreams`` has)."""
        response = cls.__new__(cls)
        response._setup(frames, FORMATS[format].all_headers, keepalive, status_code, headers)
        return response

    def _setup(
        self,
        frames: AsyncIterator[bytes],
        format_headers: Mapping[str, str],
        keepalive: float | None,
        status_code: int,
        headers: Mapping[str, str] | None,
    ) -> None:
        if keepalive is not None and keepalive <= 0:
            raise ValueError("keepalive must be > 0 seconds, or None")
        self.frames = frames
        body = frames if keepalive is None else with_keepalive(frames, keepalive)
        super().__init__(
            body,
            status_code=status_code,
            headers={**format_headers, **(headers or {})},
            media_type=MEDIA_TYPE,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream until the frames end or the client disconnects, then close the source."""
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    with contextlib.suppress(OSError):  # the connection broke mid-send
                        await self.stream_response(send)
                    group.cancel_scope.cancel()

                async def listen() -> None:
                    await self.listen_for_disconnect(receive)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                group.start_soon(listen)
        finally:
            with anyio.CancelScope(shield=True):
                await aclose(self.body_iterator)
                await aclose(self.frames)
        if self.background is not None:
            await self.background()

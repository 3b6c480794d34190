"""Pull items from an upstream (sync or async) through a decoder, with clean endings.

A *decoder* is the sans-I/O part of a source: ``feed(item)`` turns one upstream
item (a text chunk, an SDK event) into events, ``finish(reason)`` ends the
stream, ``fail(message, error_type)`` ends it after an upstream error.  The
drivers here own the I/O rules shared by every source:

* the events of each item are yielded as soon as it arrives;
* an upstream exception becomes ``StreamError`` then ``StreamDone("error")``,
  after every event already produced;
* an abort (an :class:`asyncio.Event`) or the cancellation of the consuming
  task closes the upstream first, then yields the closing events and
  ``StreamDone("aborted")``; after a cancellation the next ``__anext__`` raises
  :class:`asyncio.CancelledError` again, so the task still ends cancelled;
* the upstream is closed however the iteration ends (also when the consumer
  stops early), and no helper task outlives the generator;
* a sync upstream is read in a worker thread; on abort or cancellation the socket
  under it (an SDK stream's httpx response) is shut down before it is closed, so the
  read blocked in the thread returns at once and the thread ends, instead of after
  the SDK's read timeout (closing alone does not wake a blocked read).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import socket
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import Any, Protocol, TypeVar

from unspool.events import Event, FinishReason
from unspool.sources._merge import EventMerger

__all__ = [
    "AbortRace",
    "Aborted",
    "Decoder",
    "TextDecoder",
    "close_async",
    "close_sync",
    "drive_async",
    "drive_sync",
    "interrupt_sync",
]

T = TypeVar("T")
_END: Any = object()


class Decoder(Protocol):
    """The sans-I/O half of a source."""

    @property
    def closed(self) -> bool:
        """True once the stream ended (``StreamDone`` was produced)."""
        ...

    def feed(self, item: Any) -> list[Event]:
        """Events for one upstream item."""
        ...

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """The closing events, ``StreamDone`` last; idempotent."""
        ...

    def fail(self, message: str, error_type: str) -> list[Event]:
        """``StreamError``, the closing events and ``StreamDone("error")``."""
        ...


class TextDecoder:
    """Decoder for an upstream of text chunks (``str`` or ``bytes``) into a text protocol."""

    __slots__ = ("merger",)

    def __init__(self, merger: EventMerger) -> None:
        self.merger = merger

    @property
    def closed(self) -> bool:
        return self.merger.closed

    def feed(self, item: Any) -> list[Event]:
        if isinstance(item, (str, bytes)):
            return self.merger.text(item)
        if isinstance(item, (bytearray, memoryview)):
            return self.merger.text(bytes(item))
        kind = type(item).__name__
        return self.merger.note("bad_chunk", f"expected str or bytes, got {kind}: ignored")

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        return self.merger.finish(reason)

    def fail(self, message: str, error_type: str) -> list[Event]:
        return self.merger.fail(message, error_type)


def _describe(exc: BaseException) -> tuple[str, str]:
    return (str(exc) or repr(exc), type(exc).__name__)


def _failed(decoder: Any, exc: BaseException) -> list[Event]:
    """The decoder's events for an upstream exception: its own reading of the exception
    (``fail_with``: what an SDK error's body says) when it has one, else ``fail``."""
    hook = getattr(decoder, "fail_with", None)
    if callable(hook):
        events: list[Event] = hook(exc)
        return events
    return list(decoder.fail(*_describe(exc)))


def close_sync(*objs: object) -> None:
    """Close each object that has ``close()`` (an iterator, an SDK stream, a response).

    Errors are suppressed: closing a stream that already failed can raise again,
    and that failure was already reported as ``StreamError``."""
    seen: set[int] = set()
    for obj in objs:
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        close = getattr(obj, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()


async def close_async(*objs: object) -> None:
    """Close each object with ``aclose()`` or ``close()`` (awaited when it is a coroutine)."""
    seen: set[int] = set()
    for obj in objs:
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        close = getattr(obj, "aclose", None) or getattr(obj, "close", None)
        if not callable(close):
            continue
        with contextlib.suppress(Exception):
            result = close()
            if inspect.isawaitable(result):
                await result


def drive_sync(source: Iterable[Any], decoder: Decoder) -> Iterator[Event]:
    """Iterate ``source`` through ``decoder``; the upstream is closed however it ends."""
    it = iter(source)
    try:
        while True:
            try:
                item = next(it, _END)
            except Exception as exc:
                yield from _failed(decoder, exc)
                return
            if item is _END:
                break
            yield from decoder.feed(item)
            if decoder.closed:
                return
        yield from decoder.finish()
    finally:
        close_sync(it, source)


def _socket_of(stream: object) -> object:
    """The socket under a sync SDK stream: its httpx ``response`` (or its raw
    stream's, for the SDK helpers' streams) keeps httpcore's network stream."""
    response = getattr(stream, "response", None)
    if response is None:
        response = getattr(getattr(stream, "_raw_stream", None), "response", None)
    extensions = getattr(response, "extensions", None)
    network = extensions.get("network_stream") if isinstance(extensions, Mapping) else None
    get_extra_info = getattr(network, "get_extra_info", None)
    return get_extra_info("socket") if callable(get_extra_info) else None


def interrupt_sync(stream: object) -> None:
    """Shut down the socket under a sync SDK stream, so that a read blocked on it in
    another thread returns now (an error there, which nobody waits for any more);
    nothing for a stream without one.  Only for a stream whose response is still
    being read: a finished connection may be back in the pool, serving another."""
    with contextlib.suppress(Exception):
        sock = _socket_of(stream)
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)


class Aborted(Exception):
    """The abort event was set while waiting for the upstream."""


async def _settle(task: asyncio.Future[Any]) -> None:
    """Wait until ``task`` is done (after a cancel) and consume its outcome."""
    await asyncio.wait((task,))
    if not task.cancelled():
        task.exception()


class AbortRace:
    """Races each upstream read against an abort event, with one waiter task per stream."""

    __slots__ = ("event", "waiter")

    def __init__(self, event: asyncio.Event) -> None:
        self.event = event
        self.waiter: asyncio.Task[Any] | None = None

    async def read(self, step: Callable[[], Awaitable[T]]) -> T:
        if self.event.is_set():
            raise Aborted
        if self.waiter is None:
            self.waiter = asyncio.ensure_future(self.event.wait())
        task: asyncio.Future[T] = asyncio.ensure_future(step())
        try:
            await asyncio.wait((task, self.waiter), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            await _settle(task)
            raise
        if task.done():
            return task.result()
        task.cancel()
        await _settle(task)
        raise Aborted

    async def close(self) -> None:
        if self.waiter is not None:
            self.waiter.cancel()
            await _settle(self.waiter)
            self.waiter = None


def _reader(source: Any) -> tuple[Callable[[], Awaitable[Any]], object, bool]:
    """An async ``step()`` giving the next item or ``_END``, the iterator to close,
    and whether it is read in a worker thread.

    Async iterables are awaited directly; a list or tuple is read inline; any other
    sync iterable (it may block on I/O) is read in a worker thread."""
    if hasattr(source, "__aiter__"):
        ait = source.__aiter__()

        async def step_async() -> Any:
            try:
                return await ait.__anext__()
            except StopAsyncIteration:
                return _END

        return step_async, ait, False
    it = iter(source)
    if isinstance(source, Sequence):

        async def step_inline() -> Any:
            return next(it, _END)

        return step_inline, it, False

    async def step_thread() -> Any:
        return await asyncio.to_thread(next, it, _END)

    return step_thread, it, True


async def drive_async(
    source: Any,
    decoder: Decoder,
    *,
    abort: asyncio.Event | None = None,
) -> AsyncGenerator[Event, None]:
    """Iterate ``source`` (async, or sync in a worker thread) through ``decoder``.

    See the module docstring for the abort, cancellation and error rules."""
    step, it, threaded = _reader(source)
    race = AbortRace(abort) if abort is not None else None
    cancelled = False
    closing: list[Event] = []
    try:
        while True:
            try:
                item = await (step() if race is None else race.read(step))
            except Aborted:
                if threaded:
                    interrupt_sync(source)
                closing = decoder.finish("abort")
                break
            except asyncio.CancelledError:
                if threaded:
                    interrupt_sync(source)
                cancelled = True
                closing = decoder.finish("abort")
                break
            except Exception as exc:
                closing = _failed(decoder, exc)
                break
            if item is _END:
                closing = decoder.finish()
                break
            for event in decoder.feed(item):
                yield event
            if decoder.closed:
                break
        if race is not None:
            await race.close()
        await close_async(it, source)
        for event in closing:
            yield event
        if cancelled:
            raise asyncio.CancelledError
    finally:
        if race is not None:
            await race.close()
        await close_async(it, source)

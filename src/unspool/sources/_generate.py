"""``generate()``: call a model, parse its stream, yield events (the seeds' ``statelessGenerate``).

``call`` is the model call: a function (sync or async) that returns a stream, or
the stream itself.  A stream is any of: an OpenAI or Anthropic SDK stream (sync
or async, raw or the SDK helper's), a stream manager to enter (``client.messages.
stream(...)``, ``client.chat.completions.stream(...)``), a result that wraps a
stream (a row's ``unwrap`` finds it), or an iterable / async iterable of text chunks
(``str`` or ``bytes``).  The kind is recognised from the first item: text goes to
the text protocol, a provider's events to the decoder of the first row of
:data:`~unspool.sources.providers._table.PROVIDERS` that recognises them (or the
row named by ``provider=``), anything else to the
:data:`~unspool.sources.providers._table.FALLBACK` row's decoder, which reports
what it cannot read.

Endings, all with ``StreamDone`` last and nothing already yielded taken back:

* the upstream ends: ``StreamDone`` with ``complete`` or ``truncated``;
* ``abort`` (an :class:`asyncio.Event`) is set, or the consuming task is
  cancelled: the upstream is closed at once, open actions end as
  ``ActionInvalid(truncated)``, then ``StreamDone(reason="aborted")``; after a
  cancellation the next ``__anext__`` raises :class:`asyncio.CancelledError`, so
  the task still ends cancelled, and no helper task is left behind;
* the call or the upstream raises: ``StreamError``, then ``StreamDone(reason="error")``.

A sync SDK stream is read in a worker thread; on abort or cancellation the socket
under its httpx response is shut down, so the blocked read returns and the thread
ends at once (a sync stream without one, e.g. a plain generator, ends the thread
only when its read returns: prefer async clients there).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any, Protocol

from unspool.events import Event, FinishReason, StreamDone, new_stream_id
from unspool.protocols._emitter import ActionValidator
from unspool.sources._drive import (
    Aborted,
    AbortRace,
    Decoder,
    TextDecoder,
    close_async,
    drive_async,
)
from unspool.sources._merge import EventMerger
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import SKIP, unpack
from unspool.sources.providers import _table as table

__all__ = ["EventDispatcher", "generate"]


class EventDispatcher(Protocol):
    """What ``generate(dispatcher=...)`` needs: :class:`unspool.Dispatcher` has it."""

    def arun(self, events: AsyncIterable[Event]) -> AsyncIterator[Event]:
        """Pass every event through, adding the outcomes of the actions it runs."""
        ...


_TEXT = (str, bytes, bytearray, memoryview)


class _AutoDecoder:
    """Chooses the decoder from the first item, and remembers the final ``StreamDone``."""

    __slots__ = ("_inner", "_options", "_protocol", "_provider", "done")

    def __init__(
        self, protocol: TextProtocol, options: dict[str, Any], provider: table.Provider | None
    ) -> None:
        self._protocol = protocol
        self._options = options
        self._provider = provider
        self._inner: Decoder | None = None
        self.done: StreamDone | None = None

    @property
    def closed(self) -> bool:
        return self._inner is not None and self._inner.closed

    def _pick(self, item: Any) -> Decoder:
        options = self._options
        if isinstance(item, _TEXT):
            registry = options["registry"]
            merger = EventMerger(self._protocol, stream_id=options["stream_id"], registry=registry)
            return TextDecoder(merger)
        row = self._provider or table.recognise(item) or table.provider(table.FALLBACK)
        return row.decoder(self._protocol, **options)

    def _seen(self, events: list[Event]) -> list[Event]:
        if events and isinstance(events[-1], StreamDone):
            self.done = events[-1]
        return events

    def feed(self, item: Any) -> list[Event]:
        if self._inner is None:
            try:
                probe = unpack(item)
            except ValueError:
                probe = None  # not JSON: the provider decoder reports it
            if probe is SKIP:
                return []
            self._inner = self._pick(item if probe is None else probe)
        return self._seen(self._inner.feed(item))

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        if self._inner is None:
            self._inner = self._pick("")
        return self._seen(self._inner.finish(reason))

    def fail(self, message: str, error_type: str) -> list[Event]:
        if self._inner is None:
            self._inner = self._pick("")
        return self._seen(self._inner.fail(message, error_type))


def _is_stream(obj: Any) -> bool:
    return isinstance(obj, (AsyncIterable, Iterable))


async def _open(call: Any, stack: contextlib.AsyncExitStack, abort: asyncio.Event | None) -> Any:
    """Make the model call and return the stream to read (entering a stream manager)."""
    source = call() if callable(call) and not _is_stream(call) else call
    if inspect.isawaitable(source):
        if abort is None:
            source = await source
        else:
            pending = source
            race = AbortRace(abort)
            try:
                source = await race.read(lambda: pending)
            except Aborted:
                if inspect.iscoroutine(pending):
                    pending.close()  # aborted before it ran: never awaited
                raise
            finally:
                await race.close()
    source = table.unwrap(source)
    if _is_stream(source):
        return source
    if hasattr(source, "__aenter__"):
        return await stack.enter_async_context(source)
    if hasattr(source, "__enter__"):
        return stack.enter_context(source)
    raise TypeError(f"the model call returned {type(source).__name__}, not a stream")


async def _events(
    call: Any, decoder: _AutoDecoder, abort: asyncio.Event | None
) -> AsyncIterator[Event]:
    """The parsed events of one model call (see the module docstring for the endings)."""
    stack = contextlib.AsyncExitStack()
    try:
        try:
            source = await _open(call, stack, abort)
        except Aborted:
            for event in decoder.finish("abort"):
                yield event
            return
        except asyncio.CancelledError:
            for event in decoder.finish("abort"):
                yield event
            raise
        except Exception as exc:
            for event in decoder.fail(str(exc) or repr(exc), type(exc).__name__):
                yield event
            return
        async with contextlib.aclosing(drive_async(source, decoder, abort=abort)) as events:
            async for event in events:
                yield event
    finally:
        await stack.aclose()


async def generate(
    call: Any,
    *,
    protocol: TextProtocol = "plain",
    registry: ActionValidator | None = None,
    dispatcher: EventDispatcher | None = None,
    abort: asyncio.Event | None = None,
    stream_id: str | None = None,
    lenient: bool = False,
    provider: str | None = None,
) -> AsyncIterator[Event]:
    """Call the model and yield its events as they are parsed, ``StreamDone`` last.

    ``protocol`` is the text protocol (``"plain"``, ``"interleaved"``, ``"tags"``
    or a parser instance); ``registry`` validates actions (by default the
    dispatcher's); ``dispatcher`` runs the complete actions and adds their
    ``ActionResult`` / ``ActionFailed``; ``abort`` ends the stream when set;
    ``provider`` names the provider table's row to decode with instead of
    recognising it from the first item.  ``stream_id=None`` (the default) is a
    fresh id per call; give a stable one to replay a reply's actions on purpose.
    """
    if registry is None and dispatcher is not None:
        registry = getattr(dispatcher, "registry", None)
    row = table.provider(provider) if provider is not None else None
    if stream_id is None:
        stream_id = new_stream_id()
    options: dict[str, Any] = {"stream_id": stream_id, "registry": registry, "lenient": lenient}
    decoder = _AutoDecoder(protocol, options, row)
    inner = _events(call, decoder, abort)
    outer = dispatcher.arun(inner) if dispatcher is not None else inner
    done_seen = False
    try:
        while True:
            try:
                event = await outer.__anext__()
            except StopAsyncIteration:
                return
            except asyncio.CancelledError:
                if done_seen:
                    raise
                break  # cancelled outside the stream's own reads (e.g. in a handler)
            done_seen = isinstance(event, StreamDone)
            yield event
        await close_async(outer, inner)
        if decoder.closed and decoder.done is not None:
            yield dataclasses.replace(decoder.done, reason="aborted")
        else:
            for event in decoder.finish("abort"):
                yield event
        raise asyncio.CancelledError
    finally:
        await close_async(outer, inner)

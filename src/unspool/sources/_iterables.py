"""Text streams from plain iterables: ``stream()`` for sync, ``astream()`` for async.

The source yields ``str`` or ``bytes`` chunks (``bytes`` are decoded incrementally
as UTF-8 by the parser, so a character may be split across chunks); the result
yields the text protocol's events as each chunk arrives, ``StreamDone`` last.
An exception raised by the source becomes ``StreamError`` then
``StreamDone(reason="error")`` after every event already produced.  The source
is closed (``close()`` / ``aclose()`` when it has one) however the iteration ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator

from unspool.events import Event, new_stream_id
from unspool.protocols._emitter import ActionValidator
from unspool.sources._drive import TextDecoder, drive_async, drive_sync
from unspool.sources._merge import EventMerger
from unspool.sources._parsers import TextProtocol

__all__ = ["astream", "stream"]


def stream(
    source: Iterable[str | bytes],
    parser: TextProtocol = "plain",
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
) -> Iterator[Event]:
    """Events of ``parser`` (a protocol name or a parser instance) over a sync iterable.
    Without ``stream_id`` the action ids are fresh (:func:`~unspool.events.new_stream_id`);
    give a stable one to replay a reply's actions from a ledger."""
    merger = EventMerger(parser, stream_id=_fresh(stream_id), registry=registry)
    return drive_sync(source, TextDecoder(merger))


def astream(
    source: AsyncIterable[str | bytes] | Iterable[str | bytes],
    parser: TextProtocol = "plain",
    *,
    stream_id: str | None = None,
    registry: ActionValidator | None = None,
    abort: asyncio.Event | None = None,
) -> AsyncIterator[Event]:
    """Events of ``parser`` over an async iterable (a sync one is read in a worker
    thread, a list or tuple inline); setting ``abort`` ends it with
    ``StreamDone(reason="aborted")``."""
    merger = EventMerger(parser, stream_id=_fresh(stream_id), registry=registry)
    return drive_async(source, TextDecoder(merger), abort=abort)


def _fresh(stream_id: str | None) -> str:
    """The caller's stream id, or a fresh one so that two replies never share ids."""
    return new_stream_id() if stream_id is None else stream_id

"""What every provider decoder shares: one merger, one ``feed`` / ``finish`` / ``fail``.

A provider decoder turns the items of one SDK stream (SDK event objects, dicts,
or raw :class:`~unspool.sources.sse.SSEMessage`\\ s) into unspool events.  The
subclasses only say how to read one decoded provider event (:meth:`_event`);
unpacking, a closed stream, the finish reason and upstream failures are the same
for every provider.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from unspool.events import Event, FinishReason
from unspool.protocols.emitter import ActionValidator
from unspool.sources.merge import EventMerger
from unspool.sources.parsers import TextProtocol
from unspool.sources.payload import SKIP, get_str, unpack

__all__ = ["ProviderDecoder"]


class ProviderDecoder(ABC):
    """Provider stream items in, events out (sans-I/O): ``feed(item)`` for each
    upstream item, then ``finish()``; ``fail(message, error_type)`` when the
    upstream breaks."""

    __slots__ = ("_reason", "merger")

    def __init__(
        self,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        self.merger = EventMerger(
            text_parser, stream_id=stream_id, registry=registry, lenient=lenient
        )
        self._reason: FinishReason | None = None  # what the provider said about the end

    @property
    def closed(self) -> bool:
        """True once ``StreamDone`` was produced."""
        return self.merger.closed

    def feed(self, item: Any) -> list[Event]:
        """The events of one upstream item."""
        try:
            event = unpack(item)
        except ValueError as exc:
            return self.merger.note(
                "bad_event", f"event data is not JSON: {exc}", get_str(item, "data")
            )
        if event is SKIP or self.merger.closed:
            return []
        return self._event(event)

    @abstractmethod
    def _event(self, event: Any) -> list[Event]:
        """The events of one decoded provider event."""

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End of the upstream: close everything; ``StreamDone`` last."""
        return self.merger.finish(reason or self._reason)

    def fail(self, message: str, error_type: str) -> list[Event]:
        """The upstream broke: ``StreamError`` ... ``StreamDone(error)``."""
        return self.merger.fail(message, error_type)

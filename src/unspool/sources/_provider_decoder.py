"""What every provider decoder shares: one merger, one ``feed`` / ``finish`` / ``fail``.

A provider decoder turns the items of one SDK stream (SDK event objects, dicts,
or raw :class:`~unspool.sources._sse.SSEMessage`\\ s) into unspool events.  The
subclasses only say how to read one decoded provider event (:meth:`_event`);
unpacking, a closed stream, the finish reason, upstream failures and payloads of
the wrong shape are handled the same for every provider: a payload that cannot be
read is reported (``Diagnostic(kind="bad_event")`` with the payload as its text)
and the stream goes on, so the iteration never raises and still ends with
``StreamDone``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from unspool.events import Event, FinishReason
from unspool.protocols._emitter import ActionValidator
from unspool.sources._merge import EventMerger
from unspool.sources._parsers import TextProtocol
from unspool.sources._payload import SKIP, get, get_str, is_record, plain, show, unpack

__all__ = ["ProviderDecoder"]


class ProviderDecoder(ABC):
    """Provider stream items in, events out (sans-I/O): ``feed(item)`` for each
    upstream item, then ``finish()``; ``fail(message, error_type)`` when the
    upstream breaks."""

    __slots__ = ("_once", "_reason", "merger")

    provider: str = "provider"
    """The provider's name, for messages."""

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
        self._once: set[tuple[str, str]] = set()  # (kind, text) reported by note_once

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
        if not is_record(event):
            return self.bad(f"this {self.provider} stream item is not an object", event)
        try:
            return self._event(event)
        except Exception as exc:  # a shape no check foresaw: reported, never raised
            message = f"could not read this {self.provider} event ({type(exc).__name__}: {exc})"
            return self.merger.note("unreadable_event", message, show(event))

    @abstractmethod
    def _event(self, event: Any) -> list[Event]:
        """The events of one decoded provider event."""

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End of the upstream: close everything; ``StreamDone`` last."""
        return self.merger.finish(reason or self._reason)

    def fail(self, message: str, error_type: str) -> list[Event]:
        """The upstream broke: ``StreamError`` ... ``StreamDone(error)``."""
        return self.merger.fail(message, error_type)

    # ----------------------------------------------------------- for the subclasses

    @property
    def reason(self) -> FinishReason | None:
        """How the provider said the reply ended, if it said."""
        return self._reason

    def set_reason(self, reason: FinishReason) -> None:
        """Record how the provider said the reply ended (given to ``finish``)."""
        self._reason = reason

    def bad(self, message: str, payload: Any) -> list[Event]:
        """Report a payload of the wrong shape (``Diagnostic(kind="bad_event")``)."""
        return self.merger.note("bad_event", message, show(payload))

    def usage(self, shape: str, record: Any) -> list[Event]:
        """A usage record (a row of :data:`unspool.sources._usage.SHAPES`), reported as
        ``Usage`` at the end; ``None`` is nothing, anything but an object a report."""
        if record is None:
            return []
        value = plain(record)
        if not isinstance(value, Mapping):
            return self.bad(f"this {self.provider} usage is not an object", record)
        self.merger.usage.add(shape, value)
        return []

    def note_once(self, kind: str, message: str, text: str | None = None) -> list[Event]:
        """A ``Diagnostic`` the first time this ``kind`` and ``text`` come up."""
        key = (kind, text or "")
        if key in self._once:
            return []
        self._once.add(key)
        return self.merger.note(kind, message, text)

    def unknown(self, kind: str | None, event: Any) -> list[Event]:
        """Report, once per type, an event type this decoder does not read."""
        if kind is None:
            return self.bad(f"this {self.provider} event has no type", event)
        message = f"{self.provider} event of type {kind!r} has no event: ignored"
        return self.note_once("unknown_event", message, kind)

    def items(self, obj: Any, name: str) -> tuple[Sequence[Any], list[Event]]:
        """The list in field ``name`` of ``obj`` (empty when absent), or a report
        when it is not a list."""
        value = get(obj, name)
        if value is None:
            return (), []
        if isinstance(value, (list, tuple)):
            return value, []
        return (), self.bad(f"{name!r} is not a list", value)

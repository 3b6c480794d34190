"""The ``"unspool"`` format: every event as it is, one SSE frame each.

``event:`` is the event's type (``text_delta``, ``action_complete``,
``hosted_tool_started``...), ``data:`` its
``to_dict()`` JSON and ``id:`` its sequence number in the stream, from 1, so a client
that reconnects with ``Last-Event-ID: n`` can be sent the events after ``n``
(see :class:`unspool.web.ResumableStreams`).
"""

from __future__ import annotations

import dataclasses

from unspool.events import Event, StreamDone, StreamError
from unspool.web._sse import dumps, frame
from unspool.web.formats._base import EncodeOptions, error_text

__all__ = ["UnspoolEncoder"]


class UnspoolEncoder:
    """Events to ``"unspool"`` frames; a :class:`StreamError`'s message is replaced by a
    generic one unless ``options.expose_errors`` (its ``error_type`` is kept)."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.seq = 0
        self.done = False

    def open(self) -> list[bytes]:
        return []

    def encode(self, event: Event) -> list[bytes]:
        if isinstance(event, StreamError) and not self.options.expose_errors:
            event = dataclasses.replace(event, message=error_text(event, self.options))
        if isinstance(event, StreamDone):
            self.done = True
        self.seq += 1
        return [frame(dumps(event.to_dict()), event=event.type, id=self.seq)]

    def step(self, done: StreamDone) -> list[bytes]:
        """Between two turns: the turn's ``StreamDone``, as every event."""
        frames = self.encode(done)
        self.done = False  # the stream goes on
        return frames

    def close(self) -> list[bytes]:
        if self.done:
            return []
        return self.encode(StreamDone("aborted"))

"""What every wire format shares: the options, the encoder shape, the error text rule."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Protocol

from unspool.events import Event, StreamDone, StreamError

__all__ = ["GENERIC_ERROR", "EncodeOptions", "FrameEncoder", "error_text", "new_id"]

GENERIC_ERROR = "The model's stream failed before the reply was complete."
"""What the browser is told about a :class:`StreamError` unless ``expose_errors`` is set."""


def new_id(prefix: str) -> str:
    """A fresh id for a message, thread or run the caller did not name."""
    return f"{prefix}-{os.urandom(8).hex()}"


@dataclass(frozen=True, slots=True)
class EncodeOptions:
    """Options of :func:`unspool.web.encode_sse`, read by the formats that use them.

    ``expose_errors``: send a :class:`StreamError`'s type and message to the browser
    (off by default: it can hold internals such as hosts, keys or stack details);
    ``message_id``: the AI SDK message id; ``thread_id`` / ``run_id``: the AG-UI run's ids.
    """

    expose_errors: bool = False
    message_id: str | None = None
    thread_id: str | None = None
    run_id: str | None = None


def error_text(error: StreamError | None, options: EncodeOptions) -> str:
    """The text a browser sees for a failed upstream."""
    if error is not None and options.expose_errors:
        return f"{error.error_type}: {error.message}"
    return GENERIC_ERROR


class FrameEncoder(Protocol):
    """Events in, SSE frames out, for one stream.

    ``open()`` once before the first event, ``encode(event)`` per event up to and
    including ``StreamDone``; ``close()`` once after, which also ends a stream that
    stopped without ``StreamDone`` (as ``aborted``).
    """

    def open(self) -> list[bytes]:
        """The frames that start the stream."""
        ...

    def encode(self, event: Event) -> list[bytes]:
        """The frames of one event (possibly none)."""
        ...

    def step(self, done: StreamDone) -> list[bytes]:
        """The frames between two turns of one reply (``done``: the first one's end)."""
        ...

    def close(self) -> list[bytes]:
        """The frames that end the stream."""
        ...

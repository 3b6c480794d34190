"""Event streams as a protocol parser would produce them, built with the shared
:class:`~unspool.protocols._emitter.ActionEmitter` (so ids, validation and
counts follow the same rules as in every parser)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unspool.events import Event, TextDelta
from unspool.protocols._emitter import ActionEmitter, ActionValidator

__all__ = ["action_stream"]


def action_stream(
    items: Sequence[str | tuple[str, Any]],
    *,
    stream_id: str = "s",
    registry: ActionValidator | None = None,
) -> list[Event]:
    """Events for ``items``: a ``str`` is text, ``(name, args)`` an action that
    starts, shows its args once and completes; ``StreamDone`` last."""
    emitter = ActionEmitter(stream_id, registry)
    events: list[Event] = []
    chars = 0
    for item in items:
        if isinstance(item, str):
            events.append(TextDelta(item))
            chars += len(item)
            continue
        name, args = item
        started = emitter.start(name)
        events.append(started)
        events.append(emitter.args_delta(started.index, args))
        events.append(emitter.complete(started.index, args))
    events.append(emitter.done("complete", chars))
    return events

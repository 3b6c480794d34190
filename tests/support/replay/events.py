"""Collecting events in tests: ``ActionArgsDelta.partial`` is live, so keep a copy."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import AsyncIterable, Iterable

from unspool.events import ActionArgsDelta, Event

__all__ = ["acollect", "collect", "frozen"]


def frozen(event: Event) -> Event:
    """The event with a deep copy of its live partial args (other events are immutable)."""
    if isinstance(event, ActionArgsDelta):
        return dataclasses.replace(event, partial=copy.deepcopy(event.partial))
    return event


def collect(events: Iterable[Event]) -> list[Event]:
    """Every event, each frozen as it arrives."""
    return [frozen(e) for e in events]


async def acollect(events: AsyncIterable[Event]) -> list[Event]:
    """:func:`collect` for an async iterable."""
    return [frozen(e) async for e in events]

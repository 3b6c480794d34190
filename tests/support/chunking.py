"""Chunking helpers shared by the protocol tests.

A protocol parser must give the same events for every chunking of the same
input, except that text may be cut into different deltas and argument deltas
may come at different moments.  These helpers feed one input in many ways and
normalise the events so that the results compare equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import AnyStr, Protocol

from unspool.events import ActionArgsDelta, Event, FinishReason, ReasoningDelta, TextDelta

__all__ = ["StreamParser", "char_chunks", "merge_events", "run_chunks", "splits"]


class StreamParser(Protocol):
    """The shape every protocol parser has: ``feed`` chunks, then ``finish``."""

    def feed(self, chunk: str | bytes) -> list[Event]: ...

    def finish(self, reason: FinishReason | None = None) -> list[Event]: ...


def splits(text: AnyStr) -> Iterator[list[AnyStr]]:
    """Every two-way split ``[text[:i], text[i:]]`` for ``i`` in ``0..len(text)``
    (the ends included, so empty chunks are exercised too)."""
    for i in range(len(text) + 1):
        yield [text[:i], text[i:]]


def char_chunks(text: AnyStr) -> list[AnyStr]:
    """One character (``str``) or one byte (``bytes``) per chunk."""
    return [text[i : i + 1] for i in range(len(text))]


def merge_events(events: Iterable[Event]) -> list[Event]:
    """Merge consecutive ``TextDelta``s (and ``ReasoningDelta``s) and drop
    ``ActionArgsDelta``s, so that different chunkings of one input compare equal."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, ActionArgsDelta):
            continue
        last = out[-1] if out else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        else:
            out.append(event)
    return out


def run_chunks(
    parser: StreamParser,
    chunks: Sequence[str] | Sequence[bytes],
    reason: FinishReason | None = None,
) -> list[Event]:
    """Feed every chunk to ``parser``, then ``finish(reason)``; all the events, in order."""
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.finish(reason))
    return events

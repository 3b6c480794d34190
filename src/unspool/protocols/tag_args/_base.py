"""What every argument reader of :mod:`unspool.protocols._model_tags` shares.

A reader reads one call region (the text after a call's opener) while it streams.
``feed(text)`` consumes text and returns ``None`` while the region goes on, or the
text after the region's end (the parser reads it as prose again); ``finish()`` is
the end of the reply.  A reader holds back only what could still be the start of a
literal it waits for, so its results do not depend on how the text was cut.

It reports what it found to a :class:`Sink` (the parser): a call's start once its
name is known, its arguments as a JSON value so far with the raw text since the
previous report, and exactly one end per call (complete or invalid).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from unspool.protocols._holdback import Delimiters

__all__ = [
    "AFTER",
    "BEFORE",
    "DONE",
    "SKIP",
    "VALUE",
    "Call",
    "Reader",
    "Sink",
    "SteppedReader",
    "match_literal",
    "skip_space",
    "skipper",
]

BEFORE, VALUE, AFTER, SKIP, DONE = range(5)
"""The states of a :class:`SteppedReader`: before a call's value, in it, after it (a
separator or the region's end), skipping a broken call to where the reader resyncs, done."""

_SPACE = " \t\r\n"


class Call:
    """One call being read: its action ``index`` once started, its ``name``, the id
    the model gave it (``action_id``), and its raw text so far (``raw``, for
    ``ActionInvalid.raw``)."""

    __slots__ = ("action_id", "index", "name", "raw")

    def __init__(self, name: str | None = None) -> None:
        self.index: int | None = None
        self.name = name
        self.action_id: str | None = None
        self.raw: list[str] = []


class Sink(Protocol):
    """What a reader reports to (the parser implements it)."""

    def start(self, call: Call, name: str) -> None:
        """The call's name is known: ``ActionStarted``."""

    def args(self, call: Call, partial: Any, delta: str) -> None:
        """The call's arguments so far (a JSON value) and the raw text since the last."""

    def complete(self, call: Call, args: Any) -> None:
        """The call is whole: ``ActionComplete`` (or ``ActionInvalid`` from the registry)."""

    def invalid(self, call: Call, reason: str, message: str) -> None:
        """The call is broken: ``ActionInvalid(reason)`` naming what was wrong."""

    def reasoning(self, text: str) -> None:
        """Reasoning text found inside a region (harmony's analysis channel)."""

    def text(self, text: str) -> None:
        """Reply text found inside a region (harmony's final channel)."""

    def schema(self, name: str) -> Mapping[str, Any] | None:
        """The JSON schema of the action ``name``'s arguments, when the registry has it."""


class Reader(Protocol):
    """One call region's reader (see the module docstring)."""

    def feed(self, text: str) -> str | None:
        """Consume ``text``; ``None`` while the region goes on, else the text after it."""

    def finish(self) -> None:
        """The reply ended inside the region."""


def skip_space(s: str, i: int) -> int:
    """The index of the first non-blank character of ``s`` at or after ``i``."""
    n = len(s)
    while i < n and s[i] in _SPACE:
        i += 1
    return i


def match_literal(s: str, i: int, literals: Iterable[str]) -> str | None:
    """The longest literal that starts at ``s[i]``; ``""`` when more text decides (the
    text from ``i`` is a proper prefix of one); ``None`` when none can start there."""
    rest = s[i : i + 64]
    best: str | None = None
    for lit in literals:
        if len(rest) < len(lit) and lit.startswith(rest):
            return ""
        if rest.startswith(lit) and (best is None or len(lit) > len(best)):
            best = lit
    return best


@functools.cache
def skipper(closers: tuple[str, ...], resync: tuple[str, ...]) -> Delimiters | None:
    """What a broken region scans for: its ``close`` literals (consumed) and the
    ``resync`` ones (a next call's opener, left to the parser); None without either."""
    groups = {k: v for k, v in (("close", closers), ("resync", resync)) if v}
    return Delimiters(groups) if groups else None


class SteppedReader(ABC):
    """The driver of a reader that reads a list of calls in the states above: one step
    method per state, each taking ``s`` and an index and returning where it stopped.
    ``feed`` runs the steps over the held text and the chunk until the region is done
    (the text after it is returned) or a step holds text back for the next chunk."""

    _state: int
    _held: str

    def feed(self, text: str) -> str | None:
        s = self._held + text if self._held else text
        self._held = ""
        i, n = 0, len(s)
        while i < n:
            state = self._state
            if state == BEFORE:
                i = self._before(s, i)
            elif state == VALUE:
                i = self._value(s, i)
            elif state == AFTER:
                i = self._after(s, i)
            elif state == SKIP:
                i = self._skipping(s, i)
            if self._state == DONE:
                self._flush()
                return s[i:]
            if self._held:
                break
        return None

    @abstractmethod
    def _before(self, s: str, i: int) -> int:
        """Before a call: find where its value starts."""

    @abstractmethod
    def _value(self, s: str, i: int) -> int:
        """In a call's value: feed it on."""

    @abstractmethod
    def _after(self, s: str, i: int) -> int:
        """After a value: a separator, or the end of the region."""

    @abstractmethod
    def _skipping(self, s: str, i: int) -> int:
        """Past a broken call: skip to where the reader resyncs."""

    @abstractmethod
    def _flush(self) -> None:
        """The region is done: report its calls."""

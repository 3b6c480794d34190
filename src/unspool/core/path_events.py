"""Path events of the core parser: what a consumer needs to follow a document as it forms.

A *path* is a tuple of object keys (``str``) and array indices (``int``) from the
root; the root's path is ``()``.  Events come in document order and are the same
for every chunking of the input, except that a string's :class:`StringDelta`
pieces may be cut at different places (their concatenation is always the same).

* :class:`ValueStart` is emitted when a value becomes visible in the live value:
  at the opening ``{`` / ``[`` / ``"`` of a container or string, and for a
  number, ``true``, ``false`` or ``null`` when it completes (a scalar is atomic,
  so its start is immediately followed by its :class:`ValueEnd`).
* :class:`StringDelta` carries only the newly decoded text of a string value
  (never of a key): O(delta), so a consumer can render a huge string linearly.
* :class:`ValueEnd` is emitted when a value is complete on real input, with the
  final value (for a container, the live object itself, now closed).  Values
  still open at ``finish()`` get no ``ValueEnd``: they were cut off.
* :class:`Repair` reports something the lenient mode accepted or fixed.
* :class:`Skipped` reports input that was not part of the value (a preamble,
  a ``<think>`` block, a fence, text after the root).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Path", "PathEvent", "Repair", "Skipped", "StringDelta", "ValueEnd", "ValueStart"]

Path = tuple[str | int, ...]


class ValueStart(NamedTuple):
    """A value became visible at ``path``; ``kind`` is one of
    ``"object" "array" "string" "number" "bool" "null"``."""

    path: Path
    kind: str


class StringDelta(NamedTuple):
    """The string at ``path`` grew by ``text`` (decoded)."""

    path: Path
    text: str


class ValueEnd(NamedTuple):
    """The value at ``path`` completed with ``value``."""

    path: Path
    value: Any


class Repair(NamedTuple):
    """Lenient mode repaired ``kind`` at stream offset ``pos``."""

    kind: str
    pos: int
    message: str


class Skipped(NamedTuple):
    """Text at ``pos`` that is not part of the value: ``kind`` is ``"preamble"``,
    ``"think"``, ``"fence"`` or ``"trailing"``."""

    kind: str
    pos: int
    text: str


PathEvent = ValueStart | StringDelta | ValueEnd | Repair | Skipped

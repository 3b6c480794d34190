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

What a path costs: a path of up to :data:`PATH_FLAT` keys is a tuple made with its
event; a deeper one is held as a link to its parent's path (shared by every value
under it) and built as a tuple only when ``.path`` (or iteration, indexing,
comparison, hashing, ``repr``) reads it.  So an event costs O(1) however deep the
document nests, and a path read costs O(its length), as a tuple copy does.  Such an
event is of a private subclass of its type (``isinstance`` holds, ``type(e) is
ValueStart`` does not) that reads, compares, hashes, prints, pickles and serialises
as the event of the public type with the tuple path; a shallower event is of the
public type itself and costs nothing more than it did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, SupportsIndex

__all__ = [
    "DEEP_STRING_DELTA",
    "DEEP_VALUE_END",
    "DEEP_VALUE_START",
    "PATH_FLAT",
    "Path",
    "PathEvent",
    "Repair",
    "Skipped",
    "StringDelta",
    "ValueEnd",
    "ValueStart",
    "child_path",
]

Path = tuple[str | int, ...]

PATH_FLAT = 32
"""Paths up to this many keys are tuples; a deeper path links to its parent's."""


class _Link(tuple):  # type: ignore[type-arg]
    """A path deeper than :data:`PATH_FLAT`: ``(parent, key)``, the parent a ``_Link``
    or a tuple of :data:`PATH_FLAT` keys.  Internal: events hand out the tuple."""

    __slots__ = ()


def child_path(parent: Any, key: str | int) -> Any:
    """The path of ``key`` under ``parent`` (a path as the machines hold it): a tuple,
    or past :data:`PATH_FLAT` keys a link to ``parent``, made in O(1)."""
    if type(parent) is tuple and len(parent) < PATH_FLAT:
        return (*parent, key)
    return tuple.__new__(_Link, (parent, key))


def _full(path: Any) -> Path:
    """The tuple a linked path stands for (O(its length))."""
    keys = []
    while type(path) is _Link:
        keys.append(path[1])
        path = path[0]
    keys.reverse()
    return path + tuple(keys)  # type: ignore[no-any-return]


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


_item: Any = tuple.__getitem__  # an event's own items, its path as held


class _Deep:
    """An event whose path is linked (deeper than :data:`PATH_FLAT`): every way of
    reading it goes through the path built as a tuple, so it is the same value as
    the event of its public type (which it subclasses; ``repr``, pickling and copies
    name that type).  Events of shallower paths are the public types themselves and
    pay nothing for this."""

    __slots__ = ()

    @property
    def path(self) -> Path:
        """The value's path from the root: object keys and array indices."""
        return _full(_item(self, 0))

    def _flat(self) -> Any:
        """This event as its public type, with its path as a tuple."""
        return tuple.__new__(_PUBLIC[type(self)], (self.path, *_item(self, slice(1, None))))

    def __iter__(self) -> Iterator[Any]:
        return tuple.__iter__(self._flat())

    def __getitem__(self, index: Any) -> Any:
        return _item(self._flat(), index)

    def __contains__(self, item: object) -> bool:
        return tuple.__contains__(self._flat(), item)

    def __hash__(self) -> int:
        return tuple.__hash__(self._flat())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__eq__(self._flat(), _flat_of(other))

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__ne__(self._flat(), _flat_of(other))

    def __lt__(self, other: Any) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__lt__(self._flat(), _flat_of(other))

    def __le__(self, other: Any) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__le__(self._flat(), _flat_of(other))

    def __gt__(self, other: Any) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__gt__(self._flat(), _flat_of(other))

    def __ge__(self, other: Any) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__ge__(self._flat(), _flat_of(other))

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__add__(self._flat(), _flat_of(other))

    def __mul__(self, count: SupportsIndex) -> Any:
        return tuple.__mul__(self._flat(), count)

    __rmul__ = __mul__

    def count(self, value: Any) -> int:
        return tuple.count(self._flat(), value)

    def index(self, value: Any, *bounds: Any) -> int:
        return tuple.index(self._flat(), value, *bounds)

    def __repr__(self) -> str:
        return repr(self._flat())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_PUBLIC[type(self)], tuple(self._flat()))


def _flat_of(other: tuple[Any, ...]) -> tuple[Any, ...]:
    return other._flat() if isinstance(other, _Deep) else other


class _DeepValueStart(_Deep, ValueStart):
    __slots__ = ()


class _DeepStringDelta(_Deep, StringDelta):
    __slots__ = ()


class _DeepValueEnd(_Deep, ValueEnd):
    __slots__ = ()


_PUBLIC: dict[type, type] = {
    _DeepValueStart: ValueStart,
    _DeepStringDelta: StringDelta,
    _DeepValueEnd: ValueEnd,
}

DEEP_VALUE_START: Any = _DeepValueStart
"""For the machines: the type of a :class:`ValueStart` whose path is linked."""
DEEP_STRING_DELTA: Any = _DeepStringDelta
DEEP_VALUE_END: Any = _DeepValueEnd


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

"""The protocols' per-chunk fast paths in C (``unspool.protocols._direct``), loaded once.

Built with the C machine and used when it runs (``unspool.accelerated``; none with
``UNSPOOL_PURE=1``): :data:`Direct` for ``InterleavedParser`` inside its array,
:data:`TextRun`, :data:`HeldRun`, :data:`TagRun` and :data:`BodyRun` for ``TagParser``'s
prose, a closer's prefix held in a body, open tags and action bodies.  Each parser keeps the
same path in Python as the reference; all are None when the extension is not built.
"""

from __future__ import annotations

from typing import Any, Protocol

from unspool.core import _machines as machines
from unspool.core._errors import MalformedJSON
from unspool.core._path_events import StringDelta, ValueEnd, ValueStart
from unspool.events import ActionArgsDelta, Event, ReasoningDelta, TextDelta

__all__ = [
    "BodyPath",
    "BodyRun",
    "Direct",
    "HeldPath",
    "HeldRun",
    "ProsePath",
    "TagPath",
    "TagRun",
    "TextPath",
    "TextRun",
    "enabled",
]


class TextPath(Protocol):
    """One of ``TagParser``'s C paths (:data:`TextRun`, :data:`HeldRun`, :data:`TagRun`,
    :data:`BodyRun`): called with a chunk, its events, or None when the chunk is not
    for it (nothing changed); its counts are read back when it is left."""

    lag: int
    text_chars: int

    def __call__(self, chunk: str | bytes) -> list[Event] | None: ...


class BodyPath(TextPath, Protocol):
    """A :data:`BodyRun`; also read back when it is left: the core's value after the
    last chunk it took (``BodyScanner._partial``) and ``BodyScanner.grew``."""

    partial: Any
    grew: bool


class HeldPath(TextPath, Protocol):
    """A :data:`HeldRun`; also read back: the text held now."""

    held: str


class ProsePath(HeldPath, Protocol):
    """A :data:`TextRun`; also read back: the text held now, and the markdown line state
    it followed (at a line's start, its indent)."""

    line_start: int
    indent: int


class TagPath(TextPath, Protocol):
    """A :data:`TagRun`; also read back: the open tag's length, open quote (or ``""``)
    and whether an ``=`` came last (a quote may open)."""

    tag_len: int
    quote: str
    after_eq: bool


def _load() -> Any:
    if not machines.ACCELERATED:
        return None  # UNSPOOL_PURE=1: nothing in C
    try:
        from unspool.protocols import _direct  # type: ignore[attr-defined]
    except ImportError:
        return None
    from unspool.protocols._interleaved_items import _MISSING, Item

    _direct.configure(
        StringDelta,
        TextDelta,
        ActionArgsDelta,
        ReasoningDelta,
        ValueStart,
        ValueEnd,
        _MISSING,
        Item,
        MalformedJSON,
    )
    return _direct


_module = _load()

Direct: Any = None if _module is None else _module.Direct
"""``InterleavedParser``'s fast path (see ``interleaved.py``), or None."""

TextRun: Any = None if _module is None else _module.TextRun
"""``TagParser``'s text fast path (see ``tags.py``), or None."""

HeldRun: Any = None if _module is None else _module.HeldRun
"""``TagParser``'s fast path while held text grows as a delimiter's prefix, or None."""

TagRun: Any = None if _module is None else _module.TagRun
"""``TagParser``'s fast path in an open tag's attributes, or None."""

BodyRun: Any = None if _module is None else _module.BodyRun
"""``TagParser``'s fast path in an action body that is its JSON arguments (see
``tags.py``), or None."""


def enabled() -> bool:
    """Whether new parsers take the C fast paths: built, and the C machine selected."""
    return _module is not None and machines.selected() == "c"

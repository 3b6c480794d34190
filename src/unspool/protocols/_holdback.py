"""Finding literal delimiters in streamed text, and holding back what could become one.

:class:`Delimiters` searches a chunk for the first of a set of literal
delimiters (plus, optionally, single "signal" characters the caller wants to
stop at) and computes the hold-back: the **longest** suffix of the text that is
a proper prefix of some delimiter.  Only that suffix waits for the next chunk;
everything before it can be released at once, so ``a < b`` or ``<br>`` never
wait, and a self-overlapping delimiter (``<<A>>`` after ``x<<``) is still found.

Matching may fold ASCII case (``<ACTION`` matches ``<action``); non-ASCII
characters are never folded, so lengths and offsets are unchanged.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping

__all__ = ["ASCII_FOLD", "Delimiters"]

ASCII_FOLD = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
"""``str.translate`` table lowering ASCII letters only (length-preserving)."""


def _none(text: str) -> None:
    """No delimiter anywhere (a set without literals)."""


class Delimiters:
    """A compiled set of literal delimiters, in named groups.

    ``groups`` maps a group name to its literals; ``signals`` is a set of single
    characters reported in the group ``"signal"`` (they are never held back).
    ``fold`` makes matching ASCII-case-insensitive.  ``starts(text)`` finds a
    character at which a delimiter (or a hold-back) could begin, or a signal: when it
    finds none, :meth:`search` finds nothing and :meth:`hold` is 0.
    """

    __slots__ = ("_first", "_max_hold", "_prefixes", "find", "fold", "pattern", "starts", "stops")

    def __init__(
        self,
        groups: Mapping[str, Iterable[str]],
        *,
        signals: str = "",
        fold: bool = False,
    ) -> None:
        self.fold = fold
        parts: list[str] = []
        literals: list[str] = []
        for group, words in groups.items():
            words = sorted(set(words), key=len, reverse=True)
            if not words or any(not w for w in words):
                raise ValueError(f"group {group!r} needs non-empty literals")
            literals.extend(words)
            parts.append(f"(?P<{group}>{'|'.join(re.escape(w) for w in words)})")
        if signals:
            parts.append(f"(?P<signal>[{re.escape(signals)}])")
        flags = re.IGNORECASE | re.ASCII if fold else 0
        self.pattern: re.Pattern[str] | None = re.compile("|".join(parts), flags) if parts else None
        self.find: Callable[[str], object] = self.pattern.search if self.pattern else _none
        """``find(text)``: :meth:`search` from 0 (a C fast path calls it)."""
        keyed = [w.translate(ASCII_FOLD) for w in literals] if fold else literals
        self._prefixes = frozenset(w[:k] for w in keyed for k in range(1, len(w)))
        self._max_hold = max((len(w) - 1 for w in keyed), default=0)
        first = {w[0] for w in keyed}
        if fold:
            first |= {c.upper() for c in first}
        self._first = frozenset(first)
        stops = "".join(sorted(first | set(signals)))
        self.stops = stops
        """The characters ``starts`` looks for (a C fast path scans for them itself)."""
        self.starts = re.compile(f"[{re.escape(stops)}]" if stops else "(?!)").search

    @property
    def max_hold(self) -> int:
        """The length of the longest proper prefix of a delimiter."""
        return self._max_hold

    @property
    def prefixes(self) -> frozenset[str]:
        """The proper prefixes of the delimiters (ASCII-folded with ``fold``)."""
        return self._prefixes

    def search(self, text: str, pos: int) -> re.Match[str] | None:
        """The first delimiter or signal character in ``text[pos:]``."""
        return self.pattern.search(text, pos) if self.pattern is not None else None

    def hold(self, text: str, start: int = 0) -> int:
        """Length of the longest suffix of ``text[start:]`` that is a proper prefix
        of a delimiter (0 when nothing needs to wait)."""
        limit = min(self._max_hold, len(text) - start)
        first = self._first
        prefixes = self._prefixes
        n = len(text)
        for k in range(limit, 0, -1):
            if text[n - k] in first:
                tail = text[n - k :]
                if self.fold:
                    tail = tail.translate(ASCII_FOLD)
                if tail in prefixes:
                    return k
        return 0

    def is_prefix(self, text: str) -> bool:
        """True when ``text`` is a proper prefix of one of the delimiters."""
        return (text.translate(ASCII_FOLD) if self.fold else text) in self._prefixes

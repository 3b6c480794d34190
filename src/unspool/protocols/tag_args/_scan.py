"""A reader's one primitive: read text up to the first of some literals, holding
back only a suffix that could still become one of them."""

from __future__ import annotations

import functools
import re

from unspool.protocols._holdback import Delimiters

__all__ = ["Until"]


class Until:
    """Literals in two groups: ``end`` (consumed) and ``stop`` (left for what follows)."""

    __slots__ = ("_d",)

    def __init__(self, end: tuple[str, ...] = (), stop: tuple[str, ...] = ()) -> None:
        self._d = _compiled(end, stop)

    def scan(self, s: str, i: int) -> tuple[str, re.Match[str] | None, int]:
        """``(text, match, j)``: the text read from ``i``; with a match, ``j`` is just
        past an ``end`` literal or at a ``stop`` one; without, ``s[j:]`` must be held."""
        d = self._d
        m = d.search(s, i)
        if m is None:
            end = len(s) - d.hold(s, i)
            return s[i:end], None, end
        j = m.end() if m.lastgroup == "end" else m.start()
        return s[i : m.start()], m, j


@functools.cache
def _compiled(end: tuple[str, ...], stop: tuple[str, ...]) -> Delimiters:
    """The delimiters of ``Until(end, stop)``, compiled once per pair (readers are made
    per call)."""
    groups: dict[str, tuple[str, ...]] = {}
    if end:
        groups["end"] = end
    if stop:
        groups["stop"] = stop
    return Delimiters(groups)

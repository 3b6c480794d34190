"""String escapes that a chunk boundary cuts: what can still become a surrogate pair."""

from __future__ import annotations

from unspool.core import _lexicon as lx

__all__ = ["bad_escape_at", "low_surrogate_prefix_len", "maybe_low_surrogate"]


def bad_escape_at(text: str, escapes: dict[str, str]) -> int:
    """Offset in ``text`` of the first bad character of an escape it starts with, or -1."""
    if text[:1] != "\\" or len(text) < 2:
        return -1
    if text[1] == "u":
        for off, h in enumerate(text[2:6]):
            if h not in lx.HEX:
                return 2 + off
        return -1
    return -1 if text[1] in escapes else 1


def low_surrogate_prefix_len(text: str) -> int:
    """How many leading characters of ``text`` could still begin a low-surrogate escape."""
    k = 0
    while k < min(len(text), 6) and maybe_low_surrogate(text[: k + 1]):
        k += 1
    return k


def maybe_low_surrogate(text: str) -> bool:
    """Could ``text`` (shorter than 6 chars) still grow into ``\\uDC00``-``\\uDFFF``?"""
    if text[:1] not in ("", "\\"):
        return False
    if len(text) >= 2 and text[1] != "u":
        return False
    hexpart = text[2:]
    if any(h not in lx.HEX for h in hexpart):
        return False
    if len(hexpart) >= 1 and hexpart[0] not in "dD":
        return False
    return not (len(hexpart) >= 2 and hexpart[1] not in "cdefCDEF")

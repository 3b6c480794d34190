"""Lenient mode's hardest call: is a quote the end of a string, or a quote inside it?

Models write ``"He said "hi" to me"``.  When lenient mode meets a quote inside a
string value it looks at what follows (a few characters of lookahead, carried to
the next chunk when the chunk ends first) and decides once, so the live value
only ever grows.
"""

from __future__ import annotations

import re
from typing import Final, cast

from unspool.core import lexicon as lx

__all__ = ["CLOSE", "INNER", "INNER_QUOTE_WS", "UNDECIDED", "decide_close", "word_follows"]

CLOSE: Final = 1
INNER: Final = 0
UNDECIDED: Final = -1
INNER_QUOTE_WS: Final = 256
"""Whitespace after a quote beyond which it is taken as a real close (bounds the lookahead)."""

# Runs matched at most one character past the bound: each decision reads a bounded
# window, however long the run, so re-deciding a carried quote costs O(1).
_BOUND: Final = INNER_QUOTE_WS + 1
_ws: Final = cast(lx.Run, re.compile(rf"[ \t\n\r]{{0,{_BOUND}}}").match)
_ident: Final = cast(lx.Run, re.compile(rf"[A-Za-z0-9_$\-]{{0,{_BOUND}}}").match)

LITERAL_WORDS: Final = frozenset(
    {"true", "false", "null", "True", "False", "None", "NaN", "Infinity"}
)


def decide_close(text: str, j: int, in_object: bool) -> int:
    """Lenient mode: is the quote just before ``text[j]`` a real close or an inner quote?

    It closes when what follows (after whitespace) is a closer, a colon, a quote, a
    comment, a ``<`` (a closing tag), an unquoted key and its ``:`` in an object (a
    missing comma), or a comma followed by something that can start the next member
    or item; otherwise the quote belongs to the text (``"He said "hi" to me"``).
    """
    k = _ws(text, j).end()
    if k - j > INNER_QUOTE_WS:
        return CLOSE
    if k >= len(text):
        return UNDECIDED
    c = text[k]
    if c in "}]:\"'/<":  # '<': the closing tag right after a tagged action's body
        return CLOSE
    if c == ",":
        k2 = _ws(text, k + 1).end()
        if k2 - k > INNER_QUOTE_WS:
            return CLOSE
        if k2 >= len(text):
            return UNDECIDED
        c2 = text[k2]
        if c2 in "\"'{[]}/-0123456789":
            return CLOSE
        if c2 in lx.IDENT_START:
            return word_follows(text, k2, in_object, literal_closes=True)
        return INNER
    if in_object and c in lx.IDENT_START:
        return word_follows(text, k, in_object, literal_closes=False)
    return INNER


def word_follows(text: str, k: int, in_object: bool, literal_closes: bool) -> int:
    """A word starts at ``text[k]`` after a quote: a literal item (after a comma) or an
    unquoted key followed by ``:`` or a comment means the quote closed the string;
    any other word is prose (``"x", then left"``)."""
    k2 = _ident(text, k).end()
    if k2 - k > INNER_QUOTE_WS:
        return INNER
    if k2 >= len(text):
        return UNDECIDED
    if literal_closes and text[k:k2] in LITERAL_WORDS:
        return CLOSE
    if not in_object:
        return INNER
    k3 = _ws(text, k2).end()
    if k3 - k > INNER_QUOTE_WS:
        return INNER
    if k3 >= len(text):
        return UNDECIDED
    return CLOSE if text[k3] in ":/" else INNER

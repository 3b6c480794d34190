"""Lenient mode's unquoted values: what a bare token such as ``New York``, ``TRUE``,
``2024-01-15`` or ``01`` stands for, decided once the whole token is known.

A token keeps the meaning of a JSON literal or number only when the *whole* token
is one (``true``, ``Null``, ``1e3``, ``007``); anything else is a string.  The parser
holds the token back until it ends, so the live value never shows a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any, Final, cast

from unspool.core import _lexicon as lx
from unspool.core._numbers import number_value

__all__ = [
    "NUMBER_END",
    "is_atom",
    "literal_prefix",
    "root_word_run_us",
    "token_rest_run",
    "token_value",
    "token_word_run",
    "token_word_run_us",
]

NUMBER_END: Final = frozenset(' \t\n\r,]}/"[{')
"""What may follow a number; anything else glued to it makes the token a string (``12abc``)."""

token_word_run: Final = cast(lx.Run, re.compile(r'[^ \t\n\r,\[\]{}"/]*').match)
"""The first word of a token inside a container: up to a blank or a delimiter (a
bracket or brace ends it too: ``1{"i": 2}`` is a number and the next object)."""
token_rest_run: Final = cast(lx.Run, re.compile(r'[^\n\r,\[\]{}"/]*').match)
"""The rest of a token inside a container: blanks allowed, up to a delimiter or a line end."""
root_word_run: Final = cast(lx.Run, re.compile(r"[^ \t\n\r/]*").match)
token_word_run_us: Final = cast(
    lx.Run, re.compile(rf'[^ \t\n\r,\[\]{{}}"/{lx.UNICODE_SPACES}]*').match
)
root_word_run_us: Final = cast(lx.Run, re.compile(rf"[^ \t\n\r/{lx.UNICODE_SPACES}]*").match)
"""The same when Unicode spaces are blanks (``unicode_space``): they end the first word."""
root_rest_run: Final = cast(lx.Run, re.compile(r"[^\n\r/]*").match)
"""The same at the root, where only the line's end ends a token."""

_LEADING_ZEROS: Final = re.compile(r"-?0+(?=[0-9])([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)")
_WORDS: Final = {"true": True, "false": False, "null": None}
_PYTHON: Final = {"True": True, "False": False, "None": None}
_NAN: Final = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_PREFIXES: Final = frozenset(
    w[:k].lower() for w in (*_WORDS, *_PYTHON, *_NAN) for k in range(1, len(w))
)


def is_atom(word: str) -> bool:
    """Is ``word`` a whole literal (any case) or number, so that a blank ends its token?"""
    if word.lower() in _WORDS or word in _PYTHON or word in _NAN:
        return True
    m = lx.number_full(word)
    return (m is not None and m.end() == len(word)) or _LEADING_ZEROS.fullmatch(word) is not None


def literal_prefix(word: str) -> bool:
    """Could ``word`` still have grown into a literal (a cut-off ``tr``)?"""
    return word.lower() in _PREFIXES


def token_value(
    tok: str,
    kinds: Collection[str],
    allow_nan: bool,
    parse_float: Callable[[str], Any],
    parse_int: Callable[[str], Any],
    max_int: int,
    pos: int,
) -> tuple[Any, str, str]:
    """``(value, event kind, repair kind)`` of a whole token; repair kind ``""`` when the
    token is plain JSON.  Event kind ``""`` means refused: the token spells a literal or
    number whose repair is not allowed (never read as a string instead, which would
    change its type), or a string while ``unquoted_value`` is not allowed."""
    if tok in _WORDS:
        return _WORDS[tok], "null" if tok == "null" else "bool", ""
    if tok in _PYTHON:
        if "python_literal" in kinds:
            return _PYTHON[tok], "null" if tok == "None" else "bool", "python_literal"
        return None, "", ""
    low = tok.lower()
    if low in _WORDS:
        if "literal_case" in kinds:
            return _WORDS[low], "null" if low == "null" else "bool", "literal_case"
        return None, "", ""
    if tok in _NAN:
        if allow_nan or "nan" in kinds:
            return _NAN[tok], "number", "" if allow_nan else "nan"
        return None, "", ""
    m = lx.number_full(tok)
    if m is not None and m.end() == len(tok):
        return number_value(parse_float, parse_int, max_int, tok, pos), "number", ""
    z = _LEADING_ZEROS.fullmatch(tok)
    if z is not None:
        if "leading_zeros" in kinds:
            text = ("-" if tok[0] == "-" else "") + z.group(1)
            value = number_value(parse_float, parse_int, max_int, text, pos)
            return value, "number", "leading_zeros"
        return None, "", ""
    if _refused(tok):
        return None, "", ""
    if "unquoted_value" in kinds:
        return tok, "string", "unquoted_value"
    return None, "", ""


def _refused(tok: str) -> bool:
    """A token no reading fits without a guess that changes its type: an unfinished
    number followed by its delimiter (``1.``, ``2e``, ``-``), digits grouped by ``_``
    (``1_000``), JavaScript's ``undefined``."""
    m = lx.number_prefix(tok, 0)
    return m.end() == len(tok) or _GROUPED.fullmatch(tok) is not None or tok == "undefined"


_GROUPED: Final = re.compile(r"-?[0-9][0-9_]*_[0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9_]+)?")

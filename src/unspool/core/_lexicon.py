"""Character classes, compiled patterns and constants shared by the core parser.

Bulk work is done by compiled regular expressions and the stdlib's C helpers,
never by a per-character Python loop: a run of plain string characters,
whitespace or number characters is consumed with one ``match`` call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, cast

from unspool.core._repairs import kind_names

Run = Callable[[str, int], "re.Match[str]"]
"""A compiled ``pattern.match`` whose pattern can match the empty string: it never returns None."""

__all__ = [
    "ESCAPES",
    "IDENT_START",
    "LENIENT_KINDS",
    "LITERALS",
    "NUMBER_START",
    "UNICODE_SPACES",
    "WHITESPACE",
]

WHITESPACE: Final = " \t\n\r"
NUMBER_START: Final = "-0123456789"
IDENT_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")

ws_run: Final = cast(Run, re.compile(r"[ \t\n\r]*").match)
"""Consume JSON whitespace."""

UNICODE_SPACES: Final = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""Spaces JSON does not know; lenient mode (``unicode_space``) reads them as whitespace
between tokens (a non-breaking space pasted from a web page)."""

LOOKAHEAD: Final = 256
"""Blanks a lenient decision reads past before deciding without them (bounds its work)."""

ws_upto: Final = cast(Run, re.compile(rf"[ \t\n\r]{{0,{LOOKAHEAD + 1}}}").match)
"""Whitespace, at most one character past :data:`LOOKAHEAD`."""

CURLY_DOUBLE: Final = "\u201c\u201d"
CURLY_SINGLE: Final = "\u2018\u2019"
"""Typographic quotes that models use as JSON string delimiters."""

curly_dq_run: Final = cast(Run, re.compile(r'[^"\\\x00-\x1f\u201c\u201d]*').match)
curly_dq_special: Final = re.compile(r'["\\\x00-\x1f\u201c\u201d]').search
curly_sq_run: Final = cast(Run, re.compile(r"[^'\\\x00-\x1f\u2018\u2019]*").match)
curly_sq_special: Final = re.compile(r"['\\\x00-\x1f\u2018\u2019]").search
"""Runs of a string opened by a curly quote: they stop at either kind of closing quote."""

dq_run: Final = cast(Run, re.compile(r'[^"\\\x00-\x1f]*').match)
"""Plain characters of a double-quoted string (strict: no control characters)."""

dq_run_lenient: Final = cast(Run, re.compile(r'[^"\\]*').match)
"""Plain characters of a double-quoted string, raw control characters allowed."""

sq_run_lenient: Final = cast(Run, re.compile(r"[^'\\]*").match)
"""Plain characters of a single-quoted string (lenient mode only)."""

dq_special: Final = re.compile(r'["\\\x00-\x1f]').search

dq_run_comma: Final = cast(Run, re.compile(r'[^"\\\x00-\x1f,\]}]*').match)
dq_special_comma: Final = re.compile(r'["\\\x00-\x1f,\]}]').search
"""A lenient string value's runs also stop at a comma or a closer (a missing closing quote)."""

closer_tail: Final = cast(Run, re.compile(r"[\]}\s`]{0,257}").match)
"""Closers, blanks and fence backticks: what ends a reply whose last string lost its quote."""
"""Anything that ends a run of plain double-quoted string text (None: the chunk is all text)."""

sq_special: Final = re.compile(r"['\\\x00-\x1f]").search
"""The same for a single-quoted string (lenient mode)."""

number_run: Final = cast(Run, re.compile(r"[-+0-9.eE]*").match)
"""Characters that can belong to a JSON number token."""

number_full = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?").match
"""The longest valid JSON number at a position (used to validate a token)."""

number_prefix: Final = cast(
    Run,
    re.compile(
        r"-?(?:(?:0|[1-9][0-9]*)(?:\.(?:[0-9]+(?:[eE][-+]?[0-9]*)?)?|[eE][-+]?[0-9]*)?)?"
    ).match,
)
"""The longest prefix of a token that can still grow into a JSON number."""

digits_run: Final = cast(Run, re.compile(r"[0-9]*").match)

ident_run: Final = cast(Run, re.compile(r"[A-Za-z0-9_$\-]*").match)
"""Characters of an unquoted key (lenient mode)."""

ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
"""Single-character JSON escapes and what they decode to."""

LENIENT_ESCAPES: Final = {**ESCAPES, "'": "'"}
"""Escapes accepted in lenient mode (``\\'`` inside single-quoted strings)."""

HEX: Final = frozenset("0123456789abcdefABCDEF")

LITERALS: Final = {
    "t": ("true", True, "bool"),
    "f": ("false", False, "bool"),
    "n": ("null", None, "null"),
}
"""Strict JSON literals by first character: (spelling, value, event kind)."""

PY_LITERALS: Final = {
    "T": ("True", True, "bool"),
    "F": ("False", False, "bool"),
    "N": ("None", None, "null"),
}
"""Python's spellings, accepted in lenient mode (kind ``python_literal``)."""

LENIENT_KINDS: Final = kind_names()
"""Every repair the lenient mode knows (the rows of :data:`~unspool.core._repairs.REPAIR_KINDS`);
pass a subset as ``lenient=`` to allow only those."""

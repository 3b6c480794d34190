"""Completing number tokens: validation at the first bad character, ints of any size."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from unspool.core import _lexicon as lx
from unspool.core._errors import parse_error

__all__ = ["big_int", "number_value"]


def number_value(
    parse_float: Callable[[str], Any],
    parse_int: Callable[[str], Any],
    max_int: int,
    tok: str,
    pos: int,
) -> Any:
    """Convert a complete number token, or raise at its first invalid character."""
    m = lx.number_full(tok)
    if m is None or m.end() != len(tok):
        # the first offending character: past the longest valid prefix (which is the
        # terminator itself when the whole token could still have grown into a number)
        raise parse_error("Invalid number", pos + lx.number_prefix(tok, 0).end())
    if "." in tok or "e" in tok or "E" in tok:
        return parse_float(tok)
    if len(tok) - (tok[0] == "-") > max_int:
        raise parse_error(f"integer longer than max_int_digits={max_int}", pos, True)
    try:
        return parse_int(tok)
    except ValueError as exc:
        if parse_int is not int:
            raise parse_error(f"integer rejected by parse_int ({exc})", pos) from None
    return big_int(tok)


def big_int(tok: str) -> int:
    """``int(tok)`` for more digits than the interpreter converts at once (its
    ``sys.get_int_max_str_digits()`` guard), when ``max_int_digits`` allows them."""
    sign = -1 if tok[0] == "-" else 1
    digits = tok.lstrip("-")
    value = 0
    for k in range(0, len(digits), 4000):
        part = digits[k : k + 4000]
        value = value * 10 ** len(part) + int(part)
    return sign * value

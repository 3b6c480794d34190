"""The pure-Python machine's decisions that read more than one character.

Which quote closes a string, what an unquoted token is, where a comment ends, what
a closer of the wrong kind means, how a ``\\u`` escape decodes: each a function of
the text and a few facts about the machine, returning a verdict the machine acts on
(:mod:`unspool.core._machine_steps`).  Most are lenient mode's; the C machine calls
some of them too (see :class:`unspool.core._state.Helpers`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from unspool.core import _lexicon as lx
from unspool.core._errors import parse_error
from unspool.core._escapes import bad_escape_at, low_surrogate_prefix_len, maybe_low_surrogate
from unspool.core._live import _repair, _spaces_after
from unspool.core._path_events import PathEvent, Repair
from unspool.core._quotes import CLOSE, INNER, PLAIN, UNDECIDED, decide_close, missing_quote
from unspool.core._repairs import say
from unspool.core._tokens import is_atom, literal_prefix, token_value

_Literal = tuple[str, Any, str, str]


def _nan_literals() -> dict[str, list[_Literal]]:
    return {
        "N": [("NaN", float("nan"), "number", "nan")],
        "I": [("Infinity", float("inf"), "number", "nan")],
    }


_Search = Callable[[str], "re.Match[str] | None"]
_StringKind = tuple[str, str, lx.Run, _Search]


@cache
def _string_kinds(comma: bool) -> dict[str, _StringKind]:
    """By opening character: the quote that closes the string, the other characters
    that may close it (a curly-quoted string), the match of a run of its plain text,
    and the search for what ends such a run (``comma``: a comma or a closer may end a
    double-quoted string, for missing_quote).  Made once per ``comma`` (the machine only
    reads it): each parser and each hand-over from the C machine sets its machine up
    with it."""
    dq = (lx.dq_run_comma, lx.dq_special_comma) if comma else (lx.dq_run, lx.dq_special)
    curly_dq: _StringKind = ('"', lx.CURLY_DOUBLE, lx.curly_dq_run, lx.curly_dq_special)
    curly_sq: _StringKind = ("'", lx.CURLY_SINGLE, lx.curly_sq_run, lx.curly_sq_special)
    kinds: dict[str, _StringKind] = {
        '"': ('"', "", *dq),
        "'": ("'", "", lx.sq_run_lenient, lx.sq_special),
    }
    kinds.update(dict.fromkeys(lx.CURLY_DOUBLE, curly_dq))
    kinds.update(dict.fromkeys(lx.CURLY_SINGLE, curly_sq))
    return kinds


def _u_escape(
    s: str,
    i: int,
    base: int,
    lenient: bool,
    escapes: dict[str, str],
    repairs: list[Repair],
    evs: list[PathEvent] | None,
) -> tuple[str, int]:
    """Decode the ``\\u`` escape at ``s[i]``: its text and how many characters it took,
    or ``("", 0)`` while this chunk cannot decide it (hold ``s[i:]``).

    A surrogate pair is read as one character.  A broken escape is an error, or with
    ``lenient`` (invalid_escape) the ``\\u`` is kept as text and repaired.
    """
    hexpart = s[i + 2 : i + 6]
    for off, h in enumerate(hexpart):
        if h not in lx.HEX:
            if not lenient:
                raise parse_error("Invalid \\uXXXX escape", base + i + 2 + off)
            hexpart = ""
            break
    if not hexpart and lenient and s[i + 2 : i + 3]:
        _repair(repairs, evs, "invalid_escape", base + i, say("invalid_escape", e="u"))
        return "\\u", 2
    if len(hexpart) < 4:
        return "", 0
    cp = int(hexpart, 16)
    if 0xD800 <= cp <= 0xDBFF:
        nxt = s[i + 6 : i + 12]
        if (
            len(nxt) == 6
            and nxt[:2] == "\\u"
            and all(h in lx.HEX for h in nxt[2:])
            and 0xDC00 <= int(nxt[2:], 16) <= 0xDFFF
        ):
            low = int(nxt[2:], 16)
            return chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)), 12
        if len(nxt) < 6 and maybe_low_surrogate(nxt):
            return "", 0
        # a lone high surrogate: but a broken escape after it fails first, so the
        # partial never shows the held half
        bad = bad_escape_at(nxt, escapes)
        if not lenient and 0 <= bad <= low_surrogate_prefix_len(nxt):
            raise parse_error("Invalid \\escape", base + i + 6 + bad)
    return chr(cp), 6


def _literal_table(allow_nan: bool, nan: bool, python: bool) -> dict[str, list[_Literal]]:
    """The literals a value may be, by first character: (word, value, kind, the repair
    that reading it reports or "").  ``nan``/``python``: the lenient kinds of that name."""
    literals: dict[str, list[_Literal]] = {
        c: [(word, val, kind, "")] for c, (word, val, kind) in lx.LITERALS.items()
    }
    if allow_nan or nan:
        for c, nan_entries in _nan_literals().items():
            tag = "" if allow_nan else "nan"
            literals[c] = [(w, v, kd, tag) for (w, v, kd, _) in nan_entries]
    if python:
        for c, (py_word, py_val, py_kind) in lx.PY_LITERALS.items():
            literals.setdefault(c, []).append((py_word, py_val, py_kind, "python_literal"))
    return literals


def _close_verdict(s: str, j: int, eof: bool, stack: list[Any], text: str) -> int:
    """Lenient: whether the quote before ``s[j]`` closes the string ``text`` (``CLOSE``), is
    an unescaped quote inside it (``INNER``), is undecided yet, or is refused (see
    :func:`unspool.core._quotes.decide_close`)."""
    in_list = bool(stack) and type(stack[-1]) is list
    return decide_close(
        s,
        j,
        bool(stack) and not in_list,
        eof,
        in_list and PLAIN.fullmatch(text) is not None,
    )


def _string_cut(s: str, i: int, eof: bool, stack: list[Any]) -> int:
    """missing_quote: whether the ``,`` ``]`` or ``}`` at ``s[i]`` inside a string value
    ends it (``CLOSE``: its closing quote was missing), is text (``INNER``), or is
    ``UNDECIDED`` yet."""
    if s[i] == ",":
        return missing_quote(s, i, bool(stack) and type(stack[-1]) is dict, eof)
    if not stack:
        return INNER
    # '{"a": ["x]}' then the end: the closers were not text
    j = lx.closer_tail(s, i).end()
    if j < len(s) or j - i > lx.LOOKAHEAD:
        return INNER
    return CLOSE if eof else UNDECIDED


def _comment_open(
    s: str, i: int, base: int, repairs: list[Repair], evs: list[PathEvent] | None
) -> str:
    """At the ``#`` or ``/`` that opens a comment (with the character after it, or at
    the end for ``#``): report it and return what ends it; an invalid opener is an error."""
    opener = s[i + 1] if i + 1 < len(s) else "\n"
    if s[i] == "#":
        if opener not in " \t\r\n#!":
            raise parse_error("Invalid comment", base + i + 1)
        _repair(repairs, evs, "comment", base + i, say("comment", "hash"))
        return "\n"
    if opener == "/" or opener == "*":
        _repair(repairs, evs, "comment", base + i, say("comment"))
        return "\n" if opener == "/" else "*/"
    raise parse_error("Invalid comment", base + i + 1)


def _neg_infinity(
    s: str, i: int, pos: int, tag: str, repairs: list[Repair], evs: list[PathEvent] | None
) -> bool:
    """At a ``-`` followed by ``I`` (with NaN/Infinity allowed): True when ``-Infinity``
    is there (reported as the repair ``tag`` unless it is ""), False while a cut-off
    prefix of it ends the chunk; anything else is an error."""
    if s.startswith("-Infinity", i):
        if tag:
            _repair(repairs, evs, tag, pos, say(tag, tok="-Infinity"))
        return True
    if len(s) - i < 9 and "-Infinity".startswith(s[i:]):
        return False
    raise parse_error("Invalid literal", pos)


def _refuse_prose(word: str, ended: bool, pos: int) -> None:
    """A root unquoted token's first word (``ended``: complete) that can only be prose
    is refused at once ("Expecting value"): at the root a token must be a literal or a
    number, or at least start with a digit."""
    if word[0] not in lx.NUMBER_START and not literal_prefix(word) and not is_atom(word):
        raise parse_error("Expecting value", pos)
    if ended and word[0] not in "0123456789" and not is_atom(word):
        # the word ended without being a literal or number: whatever follows, a root
        # token led by a non-digit is refused, so refuse it now rather than hold the
        # rest of the line undecided
        raise parse_error("Expecting value", pos)


_HOLD = -1  # _wrong_closer: undecided, hold the text for more
_STRAY = 0  # a stray closer: drop it (extra_closer)
_TYPO = 1  # a typo for the innermost container's closer: close it and read past
_OUTER = 2  # an outer container's closer: close the innermost one, read the closer again


def _wrong_closer(s: str, i: int, eof: bool, stack: list[Any], c: str, k_extra: bool) -> int:
    """What a closer of the wrong kind after a value means (mismatched_closer):
    ``_HOLD``, ``_STRAY``, ``_TYPO`` or ``_OUTER``."""
    n = len(s)
    k = lx.ws_upto(s, i + 1).end()
    if k >= n and not eof and k - i <= lx.LOOKAHEAD:
        return _HOLD
    want = list if c == "]" else dict
    deeper = any(type(x) is want for x in stack)
    typo = not deeper or (k < n and s[k] == ",")
    if (
        deeper
        and typo
        and len(stack) > 2
        and type(stack[-2]) is want
        and type(stack[-3]) is not want
    ):
        # '{"a": [{"k": 1], "b": 2}': after the comma a key (or, for
        # '[{"a": [1}, {"b": 2}]', an item) says the closer was the
        # outer one's and the inner closer was missing
        member = _next_member(s, k + 1, eof)
        if member == UNDECIDED:
            return _HOLD
        if member == (_KEY_NEXT if want is list else _ITEM_NEXT):
            typo = False
    if not deeper and k < n and s[k] == "," and k_extra:
        # '[{"a": 1}}, {"b": 2}]': a stray closer, the array goes on
        return _STRAY
    return _TYPO if typo else _OUTER


def _token(
    tok: str,
    spaced: str,
    at_root: bool,
    opts: tuple[frozenset[str], bool, Callable[[str], Any], Callable[[str], Any], int],
    pos: int,
    repairs: list[Repair],
    evs: list[PathEvent] | None,
) -> tuple[Any, str]:
    """Decide an unquoted token (lenient): its value and kind, after reporting its
    repairs (``spaced``: the token's text with the Unicode spaces that ended it, or "").
    ``opts``: the lenient kinds, allow_inf_nan, parse_float, parse_int, max_int_digits.
    A refused token, and prose at the root, is "Expecting value"."""
    val, kind, tag = token_value(tok, *opts, pos)
    if not kind or (kind == "string" and at_root and tok[0] not in "0123456789"):
        # refused; and prose at the root is not a value ("Sure! ...")
        raise parse_error("Expecting value", pos)
    if tag:
        _repair(repairs, evs, tag, pos, say(tag, tok=tok))
    if spaced:
        _spaces_after(repairs, evs, spaced, len(tok), pos)
    return val, kind


_NOT_TOKEN = frozenset("{}[],:\"'/#.\\<+`\u2026" + lx.CURLY_DOUBLE + lx.CURLY_SINGLE)
"""Characters that never start an unquoted value token."""


_COMMENT_MEMBER = re.compile(r"[\]}][ \t]{0,16},[ \t]{0,16}[\"'A-Za-z_$]")
"""In a line comment's text: a closer, a comma and the next member, as the document
would go on (``// note }, "b": 2``)."""


_KEY_NEXT = 1
_ITEM_NEXT = 0
_MEMBER_KEY = re.compile(
    r'[ \t\n\r]{0,256}(?:"[^"\\\n]{0,64}"|[A-Za-z_$][A-Za-z0-9_$\-]{0,64})[ \t\n\r]{0,256}:'
)


_MEMBER_KEY_PREFIX = re.compile(
    r'[ \t\n\r]{0,256}(?:"[^"\\\n]{0,64}(?:"[ \t\n\r]{0,256})?'
    r"|[A-Za-z_$][A-Za-z0-9_$\-]{0,64}[ \t\n\r]{0,256})?\Z"
)


_MEMBER_ITEM = re.compile(r'[ \t\n\r]{0,256}[\[{"\'0-9-]')


def _next_member(s: str, k: int, eof: bool) -> int:
    """What follows a comma at ``s[k]``: a key and its colon (``_KEY_NEXT``), an item
    (``_ITEM_NEXT``), ``UNDECIDED`` while a bounded lookahead has not seen enough, or
    ``-2`` for anything else."""
    if _MEMBER_KEY.match(s, k):
        return _KEY_NEXT
    if not eof and _MEMBER_KEY_PREFIX.match(s, k):
        return UNDECIDED
    return _ITEM_NEXT if _MEMBER_ITEM.match(s, k) else -2


_CONCAT_TAIL = re.compile(r"\+[ \t]*[\r\n][ \t\r\n]*\Z")
"""A string's text ending in ``+`` and a line break, then a quote: ``"a +\n "b"``."""


def _whole_number(tok: str) -> bool:
    m = lx.number_full(tok)
    return m is not None and m.end() == len(tok)


def _common_prefix(a: str, b: str) -> int:
    k = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        k += 1
    return k

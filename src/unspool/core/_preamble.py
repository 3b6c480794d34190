"""Finding where the JSON starts in a model's reply: prose, fences and ``<think>`` blocks.

:class:`PreambleScanner` is the part of :class:`~unspool.core._jsonstream.JsonStream`
that runs before the root value when ``skip_preamble=True``.  It is a heuristic,
documented here because callers rely on it:

* At the start of the reply (only whitespace, ``<think>`` blocks or a fence so
  far) and inside a ````json`` / ````jsonc`` / bare ```` ``` ```` fence, any
  JSON value may start.
* After prose, only a container starts the value, and only when it looks like
  JSON: ``{`` followed by ``"`` or ``}`` (lenient: also ``'``, a bare key or a
  comment), ``[`` followed by ``{``, ``[``, ``"`` or ``]`` (lenient: ``'``),
  with at most 256 blanks between them.
  So "see [1]" or "use {braces}" in a sentence is prose.
* ``<think>…</think>`` and ``<thinking>…</thinking>`` are skipped whole, braces
  and all.  A fence with another language tag is prose.
* Lenient: a markdown bullet (``- ``, ``* ``, ``• ``) right before a container or
  string at the start is skipped, and a curly quote may open a root string.
"""

from __future__ import annotations

import re
from typing import cast

from unspool.core import _lexicon as lx

__all__ = ["PreambleScanner"]

_INTERESTING = re.compile(r"[{\[`<]")
_FENCE_LANGS = frozenset({"", "json", "jsonc", "json5", "javascript", "js"})
_THINK_OPEN = ("<think>", "<thinking>")
_MAX_FENCE_INFO = 64
_MAX_OPENER_WS = 256
_ws_bounded = cast(lx.Run, re.compile(rf"[ \t\n\r]{{0,{_MAX_OPENER_WS}}}").match)
"""Whitespace read after a prose ``{`` or ``[`` to judge it: bounded, so a brace
followed by endless blanks is decided (as prose) after O(1) work, not re-read per chunk."""


class PreambleScanner:
    """Scans text before the root value; holds no input, only a little state."""

    __slots__ = ("_at_start", "_close", "_lenient")

    def __init__(self, *, lenient: bool = False) -> None:
        self._lenient = lenient
        self._at_start = True  # nothing but whitespace, fences and think blocks so far
        self._close = ""  # inside a think block: its closing tag

    def scan(self, s: str, i: int, base: int) -> tuple[int, bool, list[tuple[str, int, str]]]:
        """Scan ``s`` from ``i``.  Returns ``(j, started, skipped)``: when ``started``,
        the root value begins at ``s[j]``; otherwise ``s[j:]`` is undecided and must be
        offered again with more text appended.  ``skipped`` lists ``(kind, pos, text)``."""
        n = len(s)
        skipped: list[tuple[str, int, str]] = []
        while i < n:
            if self._close:
                found = s.find(self._close, i)
                if found < 0:
                    keep = _partial_suffix(s, self._close)
                    end = n - keep
                    if end > i:
                        skipped.append(("think", base + i, s[i:end]))
                    return end, False, skipped
                end = found + len(self._close)
                skipped.append(("think", base + i, s[i:end]))
                self._close = ""
                i = end
                continue
            if self._at_start:
                j = lx.ws_run(s, i).end()
                if j > i:
                    skipped.append(("preamble", base + i, s[i:j]))
                    i = j
                    if i >= n:
                        break
                c = s[i]
                if c in "-*\u2022" and self._lenient:
                    # a markdown bullet before a container or string ("- {...}"; "- 5" is
                    # not read, it could be a sign)
                    if i + 2 >= n:
                        return i, False, skipped
                    if s[i + 1] in " \t" and s[i + 2] in '{["':
                        skipped.append(("preamble", base + i, s[i : i + 2]))
                        i += 2
                        continue
                if c not in "`<":
                    if c in '{["-0123456789' or (self._lenient and c in "'\u201c\u2018"):
                        return i, True, skipped
                    literal = _literal_at(s, i, self._lenient)
                    if literal is None:
                        return i, False, skipped  # a literal's prefix at the end: undecided
                    if literal:
                        return i, True, skipped
                    self._at_start = False
                    continue
            m = _INTERESTING.search(s, i)
            if m is None:
                skipped.append(("preamble", base + i, s[i:]))
                return n, False, skipped
            j = m.start()
            if j > i:
                skipped.append(("preamble", base + i, s[i:j]))
                i = j
            c = s[i]
            if c == "<":
                for tag in _THINK_OPEN:
                    if s.startswith(tag, i):
                        self._close = "</" + tag[1:]
                        break
                    if n - i < len(tag) and tag.startswith(s[i:]):
                        return i, False, skipped
                if self._close:
                    continue
            elif c == "`":
                if n - i < 3 and "```".startswith(s[i:]):
                    return i, False, skipped
                if s.startswith("```", i):
                    # the info line is short: look no further than its bound for its end
                    eol = s.find("\n", i + 3, i + 4 + _MAX_FENCE_INFO)
                    if eol < 0:
                        if n - i <= 3 + _MAX_FENCE_INFO:
                            return i, False, skipped
                    elif s[i + 3 : eol].strip().lower() in _FENCE_LANGS:
                        skipped.append(("fence", base + i, s[i : eol + 1]))
                        self._at_start = True
                        i = eol + 1
                        continue
            else:
                k = _ws_bounded(s, i + 1).end()
                if k >= n:
                    return i, False, skipped
                if _looks_like_start(c, s[k], self._lenient):
                    return i, True, skipped
            skipped.append(("preamble", base + i, c))
            self._at_start = False
            i += 1
        return i, False, skipped


_STRICT_WORDS = ("true", "false", "null")
_LENIENT_WORDS = (*_STRICT_WORDS, "True", "False", "None", "NaN", "Infinity")


def _literal_at(s: str, i: int, lenient: bool) -> bool | None:
    """Does a whole literal (followed by a non-word character) start at ``s[i]``?
    None when the text ends inside what could still be one."""
    rest = s[i : i + 10]
    for word in _LENIENT_WORDS if lenient else _STRICT_WORDS:
        if rest.startswith(word):
            after = rest[len(word) : len(word) + 1]
            if after == "":
                return None
            if not (after.isalnum() or after == "_"):
                return True
        elif word.startswith(rest):
            return None
    return False


def _looks_like_start(opener: str, nxt: str, lenient: bool) -> bool:
    if opener == "{":
        return nxt in '"}' or (lenient and (nxt == "'" or nxt == "/" or nxt in lx.IDENT_START))
    return nxt in '{["]' or (lenient and nxt == "'")


def _partial_suffix(s: str, tag: str) -> int:
    """Length of the longest suffix of ``s`` that is a proper prefix of ``tag``."""
    for k in range(min(len(tag) - 1, len(s)), 0, -1):
        if s.endswith(tag[:k]):
            return k
    return 0

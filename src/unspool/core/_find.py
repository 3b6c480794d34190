"""Finding the JSON objects and arrays embedded in prose, each with its span.

A candidate is every ``{`` or ``[`` of the text.  It is read by a lenient
:class:`~unspool.core._jsonstream.JsonStream` in growing windows (1,024 characters,
then doubling); a value still open and still strict after the first window is
offered to the stdlib's C decoder once, which reads a long valid value much
faster.  A candidate that reads to a complete value is a match and scanning
resumes after it, so matches never overlap and each is a *top-level* value.
Scalars are not searched for: in prose, ``42`` or ``true`` is just a word.
With ``lenient=True`` every lenient kind but ``unquoted_value`` and ``extra_closer``
is on: in prose, ``[docs]`` is a bracketed word, not an array holding a string, and a
value ends at its own closer.
``<think>…</think>`` / ``<thinking>…</thinking>`` blocks are skipped by default
(a schema or example inside the model's reasoning is not its answer); an
unclosed one hides the rest of the text.

Cost bound: a failed candidate is retried one character later, so a value
nested inside a broken one (``{"note": oops {"a": 1}}``) is still found.  The
characters read by failed candidates are counted, and once they exceed
``4 * len(text) + 65536`` scanning resumes where each failed candidate broke
off instead.  Matches do not overlap and each is read at most twice (lenient
and strict) with a read-ahead at most its own length plus 1,024 characters, so
the total work is O(len(text)) parser steps whatever the input (the one strict
attempt of a long failed candidate adds a C-speed O(len(text)) scan to build
its error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from unspool.core._errors import MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.core._lexicon import LENIENT_KINDS
from unspool.core._path_events import Repair

__all__ = ["JsonMatch", "find_all_json", "find_json"]

_CANDIDATES = re.compile(r"[{\[]|<think>|<thinking>")
_CONTAINERS = re.compile(r"[{\[]")
_BUDGET_FACTOR = 4
_BUDGET_MIN = 65536
_WINDOW = 1024
_WS = " \t\n\r"


@dataclass(frozen=True)
class JsonMatch:
    """One JSON value found in a text: ``text[start:end]`` is its source.

    ``complete`` is False only for a value cut off by the end of the text
    (``partial=True``); ``repairs`` are what lenient mode fixed inside the span,
    with positions that are offsets into the whole text.
    """

    value: Any
    start: int
    end: int
    complete: bool = True
    repairs: tuple[Repair, ...] = ()


def find_json(
    text: str,
    *,
    which: str = "first",
    lenient: bool | Collection[str] = True,
    partial: bool = False,
    skip_think: bool = True,
) -> JsonMatch | None:
    """The first (``which="first"``) or last (``"last"``) top-level object or array
    in ``text``, or None.

    ``lenient`` is as for :class:`~unspool.core._jsonstream.JsonStream`.  With
    ``partial=True`` a value still open at the end of the text counts too (it is
    then the last match, with ``complete=False`` and ``end == len(text)``).
    """
    if which not in ("first", "last"):
        raise ValueError("which must be 'first' or 'last'")
    found = None
    for match in _scan(text, lenient, partial, skip_think):
        if which == "first":
            return match
        found = match
    return found


def find_all_json(
    text: str,
    *,
    lenient: bool | Collection[str] = True,
    partial: bool = False,
    skip_think: bool = True,
) -> list[JsonMatch]:
    """Every top-level object or array in ``text``, in order (see :func:`find_json`)."""
    return list(_scan(text, lenient, partial, skip_think))


def _scan(
    text: str, lenient: bool | Collection[str], partial: bool, skip_think: bool
) -> Iterator[JsonMatch]:
    if not isinstance(text, str):
        raise TypeError(f"expected str, not {type(text).__name__}")
    if lenient is True:
        # in prose a bracket often holds words ("see [docs]"): bare words are not values here
        lenient = LENIENT_KINDS - {"unquoted_value", "extra_closer"}
    n = len(text)
    candidates = _CANDIDATES if skip_think else _CONTAINERS
    budget = _BUDGET_FACTOR * n + _BUDGET_MIN
    i = 0
    while True:
        m = candidates.search(text, i)
        if m is None:
            return
        j = m.start()
        if text[j] == "<":
            close = "</" + m.group()[1:]
            k = text.find(close, m.end())
            if k < 0:
                return
            i = k + len(close)
            continue
        match, reach = _read_at(text, j, lenient)
        if match is not None and (match.complete or partial):
            yield match
            if not match.complete:
                return
            i = match.end
            continue
        cost = reach - j
        if cost <= budget:
            budget -= cost
            i = j + 1
        else:
            budget = 0
            i = max(reach, j + 1)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT = json.JSONDecoder(parse_constant=_reject_constant)


def _read_at(text: str, j: int, lenient: bool | Collection[str]) -> tuple[JsonMatch | None, int]:
    """Read the container starting at ``text[j]``.  Returns the match (None if the
    text there is malformed) and how far the reading went."""
    n = len(text)
    parser = JsonStream(lenient=lenient, trailing="ignore")
    pos = j
    size = _WINDOW
    strict_tried = False
    try:
        while pos < n:
            chunk = text[pos : pos + size]
            pos += len(chunk)
            size *= 2
            parser.feed(chunk)
            if parser.complete:
                end = _value_end(text, j, parser)
                repairs = tuple(
                    Repair(r.kind, r.pos + j, r.message) for r in parser.repairs if r.pos + j < end
                )
                return JsonMatch(parser.value, j, end, True, repairs), end
            if not strict_tried and not parser.repairs and pos < n:
                # a long value, strict so far: the C decoder may read it whole, faster.
                # Tried once per candidate, and only here: its errors cost O(j) to build.
                strict_tried = True
                try:
                    value, end = _STRICT.raw_decode(text, j)
                except (ValueError, RecursionError):
                    pass  # not strict JSON after all: the lenient parser goes on
                else:
                    return JsonMatch(value, j, end), end
        value = parser.finish()
    except MalformedJSON as exc:
        return None, j + exc.pos
    repairs = tuple(Repair(r.kind, r.pos + j, r.message) for r in parser.repairs)
    return JsonMatch(value, j, n, False, repairs), n


def _value_end(text: str, j: int, parser: JsonStream) -> int:
    """Where the complete root value read from ``text[j:]`` ends (just after its closer).

    After the closer the parser has consumed only whitespace and comments (each
    reported as a ``comment`` repair), and perhaps held back a ``/`` that may open
    one; then comes its ``tail``.  Walk back from the tail over those comments.
    """
    fed = parser.pos
    cut = fed - len(parser.tail)  # offsets relative to j
    if cut == fed and text[j + cut - 1] == "/":
        cut -= 1  # a '/' held back as a possible comment opener
    for r in reversed(parser.repairs):
        if r.pos >= cut:
            continue
        if r.kind != "comment":
            break
        if text[_comment_end(text, j + r.pos) : j + cut].strip(_WS):
            break  # something (the closer) lies between this comment and the cut
        cut = r.pos
    end = j + cut
    while text[end - 1] in _WS:
        end -= 1
    return end


def _comment_end(text: str, start: int) -> int:
    """End of the ``//`` or ``/* */`` comment starting at ``start`` (the text's end if open)."""
    if text.startswith("//", start):
        k = text.find("\n", start + 2)
        return len(text) if k < 0 else k + 1
    k = text.find("*/", start + 2)
    return len(text) if k < 0 else k + 2

"""One-shot parsing of a finished reply: :func:`loads`, :func:`loads_with_repairs`, :func:`repair`.

Three steps, cheapest first, each tried only if the one before gave nothing:

1. The strict fast path: the stdlib's C decoder on the whole text (valid JSON
   costs what :func:`json.loads` costs, and reports no repairs).
2. One lenient pass of :class:`~unspool.core._jsonstream.JsonStream` with
   ``skip_preamble`` (prose, ````json`` fences and ``<think>`` blocks before the
   value are skipped, text after it is ignored), then ``finish()`` to complete
   a reply that was cut off.  The :class:`Allow` filter then decides which
   kinds of value may be left incomplete.
3. Only if that pass saw no value at all (the value follows prose in a way the
   streaming heuristic does not take for JSON, e.g. ``"Here: [1, 2]"``): the first
   object or array :func:`~unspool.core._find.find_json` finds, read by the same pass.
4. Still nothing, and the reply is JSON escaped as a string's content
   (``{\\"key\\": \\"value\\"}``): one level of ``\\"`` and ``\\\\`` undone, then the
   same pass (kind ``escaped_json``, a one-shot repair: a stream cannot undo it as
   it goes, so :class:`~unspool.core._jsonstream.JsonStream` ignores this kind).

Nothing is guessed: a cut-off literal (``tr``) or number (``1.``) is dropped,
never completed, and the first value wins (use :func:`~unspool.core._find.find_all_json`
for replies that embed several).
"""

from __future__ import annotations

import json
import json.scanner
import math
import re
import sys
from collections.abc import Collection, Iterable
from enum import IntFlag
from typing import Any

from unspool.core import _machines as machines
from unspool.core._errors import UNSET, MalformedJSON
from unspool.core._find import find_json
from unspool.core._jsonstream import JsonStream
from unspool.core._machines import max_depth
from unspool.core._path_events import Path, PathEvent, Repair, ValueEnd, ValueStart
from unspool.core._repairs import say

__all__ = ["Allow", "loads", "loads_with_repairs", "repair"]


class Allow(IntFlag):
    """Which kinds of value may be left incomplete at the end of the text.

    The flags and their bits are those of the partial-json / partial-json-parser
    libraries.  A flag only governs an *incomplete* value; complete values always
    parse.  An incomplete value whose flag is absent is dropped from its parent
    (``loads('{"a": [1, 2', allow=Allow.OBJ)`` is ``{}``); at the root it is an error.

    * ``STR``: a string cut off before its closing quote (keys are never partial).
    * ``NUM``: a number inside a container that only the end of the text ended
      (``[1, 2`` keeps ``2`` only with ``NUM``).  A root number is complete.
    * ``ARR`` / ``OBJ``: an array / object whose closer never came.
    * ``NULL``, ``BOOL``, ``NAN``, ``INFINITY``, ``_INFINITY``: accepted for
      compatibility, but unspool never completes a cut-off literal (``tr`` is not
      ``true``), so such a literal is always dropped, whatever these flags say.
    """

    STR = 1
    NUM = 2
    ARR = 4
    OBJ = 8
    NULL = 16
    BOOL = 32
    NAN = 64
    INFINITY = 128
    _INFINITY = 256
    INF = INFINITY | _INFINITY
    SPECIAL = NULL | BOOL | INF | NAN
    ATOM = STR | NUM | SPECIAL
    COLLECTION = ARR | OBJ
    ALL = ATOM | COLLECTION


_FLAG_OF_KIND = {
    "object": Allow.OBJ,
    "array": Allow.ARR,
    "string": Allow.STR,
    "number": Allow.NUM,
}
_TRACKED = Allow.OBJ | Allow.ARR | Allow.STR | Allow.NUM
_FAST_OPTIONS = frozenset(
    {"parse_float", "parse_int", "allow_inf_nan", "skip_preamble", "trailing", "max_depth"}
)
"""Core options the strict fast path honours; any other option sends the text to the core."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_MISS: Any = object()


def loads(
    text: str | bytes,
    *,
    allow: Allow = Allow.ALL,
    lenient: bool | Collection[str] = True,
    **core_options: Any,
) -> Any:
    """Parse the JSON value in a model's finished reply (see the module docstring).

    ``lenient``: ``True`` (every kind of :data:`~unspool.core._lexicon.LENIENT_KINDS`),
    ``False`` (strict JSON, still with prose skipping and completion of a cut-off
    reply), or a collection of kind names.  ``core_options`` go to
    :class:`~unspool.core._jsonstream.JsonStream` (``parse_float``, ``max_depth``,
    ``skip_preamble=False`` to require the value at the start, ...).

    Raises :class:`MalformedJSON` (with ``.pos``) when there is no value or it is
    malformed beyond what ``lenient`` accepts; bytes are read as UTF-8.
    """
    if not core_options and type(text) is str:  # the commonest call, with nothing in between
        value = _strict_default(text)
        if value is not _MISS:
            return value
    return loads_with_repairs(text, allow=allow, lenient=lenient, **core_options)[0]


def loads_with_repairs(
    text: str | bytes,
    *,
    allow: Allow = Allow.ALL,
    lenient: bool | Collection[str] = True,
    **core_options: Any,
) -> tuple[Any, list[Repair]]:
    """Like :func:`loads`, and also return the repairs made, in text order.

    The result is a plain ``(value, repairs)`` tuple; each
    :class:`~unspool.core._path_events.Repair` has ``kind``, ``pos`` (a character
    offset into ``text``) and ``message``.  Valid JSON gives ``[]``; so do prose,
    fences and think blocks around the value, which are skipped, not repaired.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = _decode_utf8(bytes(text))
    elif not isinstance(text, str):
        raise TypeError(f"loads() takes str or bytes, not {type(text).__name__}")
    value = _strict(text, core_options)
    if value is not _MISS:
        return value, []
    try:
        value, repairs = _lenient_pass(text, allow, lenient, core_options)
    except MalformedJSON:
        found = _escaped_pass(text, allow, lenient, core_options)
        if found is None:
            raise
        return found
    if value is not UNSET:
        return value, repairs
    if core_options.get("skip_preamble", True):
        match = find_json(text, lenient=lenient, partial=True)
        if match is not None:
            start = match.start
            try:
                value, repairs = _lenient_pass(text[start:], allow, lenient, core_options)
            except MalformedJSON as exc:
                raise type(exc)(exc.msg, exc.pos + start, exc.partial) from None
            if value is not UNSET:
                return value, [Repair(r.kind, r.pos + start, r.message) for r in repairs]
    found = _escaped_pass(text, allow, lenient, core_options)
    if found is not None:
        return found
    raise MalformedJSON("No JSON value found", len(text))


def _escaped_pass(
    text: str, allow: Allow, lenient: bool | Collection[str], options: dict[str, Any]
) -> tuple[Any, list[Repair]] | None:
    """'{\\"key\\": \\"value\\"}': JSON written as the inside of a JSON string, read
    with one level of escapes undone (None when that is not it)."""
    start = _escaped_start(text)
    if start is None or not _allows(lenient, "escaped_json"):
        return None
    inner = _UNESCAPE.sub(r"\1", text[start:])
    try:
        value, repairs = _lenient_pass(inner, allow, lenient, options)
    except MalformedJSON:
        return None
    if value is UNSET:
        return None
    found = [Repair("escaped_json", start, say("escaped_json"))]
    return value, found + [Repair(r.kind, start, r.message) for r in repairs]


def _escaped_start(text: str) -> int | None:
    r"""Where a reply written as escaped JSON starts: the first place at the start of
    the text or after whitespace where brackets, whitespace and ``\\"`` follow.

    (The regex ``(?:^|(?<=\s))[\[{]*\s*\\"`` says the same, but a search with it
    tries every position of a whitespace run to its end: O(n^2) on a long run.)
    Each ``\\"`` looks back over the whitespace and the brackets before it; those
    runs hold no quote, so every character is looked at once or twice.
    """
    at = text.find('\\"')
    while at >= 0:
        ws = at
        while ws and text[ws - 1].isspace():
            ws -= 1
        brackets = ws
        while brackets and text[brackets - 1] in "[{":
            brackets -= 1
        if brackets == 0 or text[brackets - 1].isspace():
            return brackets
        if ws < at:
            return ws + 1
        at = text.find('\\"', at + 2)
    return None


_UNESCAPE = re.compile(r'\\(["\\])')


def _allows(lenient: bool | Collection[str], kind: str) -> bool:
    return lenient is True or (not isinstance(lenient, bool) and kind in lenient)


def repair(
    text: str | bytes,
    *,
    indent: int | None = None,
    allow: Allow = Allow.ALL,
    lenient: bool | Collection[str] = True,
    **core_options: Any,
) -> str:
    """The value :func:`loads` reads, written back as valid JSON text.

    Valid JSON has no ``NaN`` or ``Infinity``: those become ``null`` (as
    JavaScript's ``JSON.stringify`` does).  Non-ASCII text is written as is,
    except lone surrogates, which only ``\\uXXXX`` escapes can carry (then the
    whole output is ASCII-escaped).  Raises :class:`MalformedJSON` like :func:`loads`.
    """
    value = loads(text, allow=allow, lenient=lenient, **core_options)
    try:
        try:
            out = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
        except ValueError:  # a NaN or an infinity somewhere
            value = _finite(value)
            out = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
        if _SURROGATE.search(out):
            out = json.dumps(value, ensure_ascii=True, indent=indent, allow_nan=False)
    except RecursionError:  # nested deeper than json.dumps can go from here
        out = _dumps_deep(value, False, indent)
        if _SURROGATE.search(out):
            out = _dumps_deep(value, True, indent)
    return out


def _dumps_deep(value: Any, ensure_ascii: bool, indent: int | None) -> str:
    """What :func:`repair` writes with ``json.dumps`` (NaN and infinities as ``null``),
    written without recursion: the parser accepts values nested 1000 deep, deeper
    than ``json.dumps`` goes below a caller's frames."""
    item_sep = ", " if indent is None else ","
    out: list[str] = []
    work: list[tuple[bool, Any, int]] = [(False, value, 0)]  # (text to write as is, ...)
    while work:
        raw, item, depth = work.pop()
        kind = type(item)
        if raw:
            out.append(item)
        elif kind is list or kind is dict:
            if not item:
                out.append("[]" if kind is list else "{}")
                continue
            inner = "" if indent is None else "\n" + " " * (indent * (depth + 1))
            outer = "" if indent is None else "\n" + " " * (indent * depth)
            out.append("[" if kind is list else "{")
            entries = list(item.items()) if kind is dict else [(None, v) for v in item]
            todo: list[tuple[bool, Any, int]] = [(True, outer + ("]" if kind is list else "}"), 0)]
            for i in range(len(entries) - 1, -1, -1):  # the stack pops them in order
                key, child = entries[i]
                lead = (item_sep if i else "") + inner
                if kind is dict:
                    lead += json.dumps(key, ensure_ascii=ensure_ascii) + ": "
                todo += [(False, child, depth + 1), (True, lead, 0)]
            work += todo
        elif kind is float and not math.isfinite(item):
            out.append("null")
        else:
            out.append(json.dumps(item, ensure_ascii=ensure_ascii))
    return "".join(out)


# ---------------------------------------------------------------------------- the steps


def _strict(text: str, options: dict[str, Any]) -> Any:
    """The value of ``text`` as strict JSON (C speed), or ``_MISS``."""
    if not options:
        return _strict_default(text)
    if not options.keys() <= _FAST_OPTIONS:
        return _MISS
    key = (options.get("parse_float"), options.get("parse_int"), bool(options.get("allow_inf_nan")))
    scan = _SCANNERS.get(key)
    if scan is None:
        scan = _scanner(*key)
        if len(_SCANNERS) < _MAX_SCANNERS:
            _SCANNERS[key] = scan
    return _decode(scan, text, options.get("max_depth", _DEFAULT_DEPTH))


def _scanner(parse_float: Any, parse_int: Any, allow_inf_nan: bool) -> Any:
    """The stdlib decoder's C scanner, with unspool's settings (no NaN unless allowed)."""
    decoder = json.JSONDecoder(
        parse_float=parse_float,
        parse_int=parse_int,
        parse_constant=None if allow_inf_nan else _reject_constant,
    )
    return json.scanner.make_scanner(decoder)  # type: ignore[arg-type]  # typeshed types the class oddly


def _decode(scan: Any, text: str, limit: int) -> Any:
    """What ``json.loads`` does, without its layers of Python calls: skip whitespace,
    scan one value, require nothing but whitespace after it; then the depth limit
    (the core reports it when it is exceeded)."""
    start = _ws_end(text, 0) if text[:1] in _WS else 0
    try:
        value, end = scan(text, start)
    except (StopIteration, ValueError, RecursionError):
        return _MISS
    if end != len(text) and _ws_end(text, end) != len(text):
        return _MISS
    if (type(value) is dict or type(value) is list) and _may_nest_past(text, value, limit):
        return _MISS
    return value


def _may_nest_past(text: str, value: Any, limit: int) -> bool:
    """Whether ``value`` (a dict or list the stdlib decoder gave) nests deeper than ``limit``.

    Cheapest first.  On CPython before 3.12 the decoder's C scanner counts its nesting
    against the interpreter's recursion limit (one counter for Python and C calls), so
    with a recursion limit no higher than ``limit`` it cannot have returned a deeper
    value (a test checks this premise).  Otherwise the containers are walked, in C when
    the extension is built (about a tenth of the decoding time on container-heavy
    JSON), else in Python after a count: fewer brackets than the limit cannot nest past it.
    """
    if _SCANNER_SHARES_RECURSION_LIMIT and sys.getrecursionlimit() <= limit:
        return False
    if not _C_DEPTH and text.count("[") + text.count("{") <= limit:
        return False
    return max_depth(value, limit) > limit


def _strict_default(text: str) -> Any:
    return _decode(_DEFAULT_SCAN, text, _DEFAULT_DEPTH)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DEFAULT_DEPTH = 1000  # JsonStream's default max_depth
_DEFAULT_SCAN = _scanner(None, None, False)
_SCANNERS: dict[tuple[Any, Any, bool], Any] = {}
_MAX_SCANNERS = 64  # distinct hook combinations kept; more are made per call
_WS = frozenset(" \t\n\r")
_WS_RUN = re.compile(r"[ \t\n\r]*")  # JSON whitespace, as json.decoder skips it


def _ws_end(text: str, at: int) -> int:
    """Where the run of JSON whitespace at ``at`` ends."""
    return _WS_RUN.match(text, at).end()  # type: ignore[union-attr]  # a * run always matches


_C_DEPTH = machines.AVAILABLE
_SCANNER_SHARES_RECURSION_LIMIT = (
    sys.implementation.name == "cpython"
    and sys.version_info < (3, 12)
    and getattr(json.scanner, "c_make_scanner", None) is not None
)


def _lenient_pass(
    text: str, allow: Allow, lenient: bool | Collection[str], options: dict[str, Any]
) -> tuple[Any, list[Repair]]:
    """One pass of the core (``UNSET`` if it saw no value), then the :class:`Allow` filter."""
    track = allow & _TRACKED != _TRACKED  # path events are only needed to filter
    parser = JsonStream(events=track, lenient=lenient, **{"skip_preamble": True, **options})
    if track:
        chain = _OpenChain()
        chain.add(parser.feed_events(text), at_finish=False)
        chain.add(parser.finish_events(), at_finish=True)
    else:
        parser.feed(text)
        parser.finish()
    value = parser.value
    if value is not UNSET and track:
        value = _apply_allow(value, chain.open, allow, parser.pos)
    return value, list(parser.repairs)


class _OpenChain:
    """Follows path events to find the values still incomplete at the end.

    Objects, arrays and strings are incomplete when they got a ``ValueStart`` and
    no ``ValueEnd``; a number is incomplete when only ``finish()`` committed it
    (except at the root, where the end of the text is a number's natural end).
    Incomplete values always form one chain from the root down, shallowest first.
    """

    __slots__ = ("open",)

    def __init__(self) -> None:
        self.open: list[tuple[Path, str]] = []

    def add(self, events: Iterable[PathEvent], *, at_finish: bool) -> None:
        chain = self.open
        for ev in events:
            if isinstance(ev, ValueStart):
                if ev.kind in ("object", "array", "string"):
                    chain.append((ev.path, ev.kind))
                elif at_finish and ev.kind == "number" and ev.path:
                    chain.append((ev.path, "number"))
            elif (
                isinstance(ev, ValueEnd)
                and chain
                and chain[-1][0] == ev.path
                and chain[-1][1] != "number"
            ):
                chain.pop()


def _apply_allow(value: Any, chain: list[tuple[Path, str]], allow: Allow, pos: int) -> Any:
    """Drop the shallowest incomplete value whose kind ``allow`` lacks (and so all below it)."""
    for path, kind in chain:
        flag = _FLAG_OF_KIND[kind]
        if allow & flag:
            continue
        if not path:
            raise MalformedJSON(
                f"The root {kind} is incomplete and Allow.{flag.name} is not set",
                pos,
                value,
            )
        parent = value
        for step in path[:-1]:
            parent = parent[step]
        del parent[path[-1]]
        break
    return value


def _decode_utf8(data: bytes) -> str:
    """UTF-8 (a BOM skipped); a character cut off at the very end is dropped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8-sig")
        if exc.end == len(data) and exc.reason == "unexpected end of data":
            return good
        raise MalformedJSON(f"Invalid UTF-8 ({exc.reason})", len(good)) from None


def _finite(value: Any) -> Any:
    """``value`` with every NaN and infinity replaced by None (iterative, in place)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    work = [value] if isinstance(value, (list, dict)) else []
    while work:
        node = work.pop()
        items = enumerate(node) if isinstance(node, list) else node.items()
        for key, child in list(items):
            if isinstance(child, float) and not math.isfinite(child):
                node[key] = None
            elif isinstance(child, (list, dict)):
                work.append(child)
    return value

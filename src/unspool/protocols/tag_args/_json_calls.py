"""JSON call bodies: one call object, an array of them, or the arguments of a named call.

* ``shape="object"``: ``{"name": …, "arguments": {…}}`` (``"parameters"`` too);
* ``shape="list"``: ``[{…}, {…}]`` of such objects (a lone object is read as one);
* ``shape="args"``: the body is the arguments of a call whose name came before it.

Options: ``closers`` (literals that end the region; without them the region ends with
the value), ``seps`` (literals between values, as Llama's ``;``), ``fence`` (the
value may sit in a ````json`` fence, as DeepSeek V3 writes it) and ``resync``
(literals that end a broken region when no closer comes: the format's openers).

The JSON is read by the core :class:`~unspool.core._jsonstream.JsonStream`, so a
closer inside a string is data.  Calls of a region with a closer end at the closer
(or at the end of the reply, once their value is whole): text after the value
that is neither a closer nor a separator ends the region there, and is prose.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from unspool.core._errors import UNSET, MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.core._path_events import ValueEnd, ValueStart
from unspool.protocols._args_snapshot import Snapshots, new_snapshots
from unspool.protocols.tag_args._base import (
    AFTER,
    BEFORE,
    DONE,
    SKIP,
    VALUE,
    Call,
    Sink,
    SteppedReader,
    match_literal,
    skip_space,
    skipper,
)

__all__ = ["ARGS_KEYS", "JsonCalls", "shape_args"]

ARGS_KEYS = ("arguments", "parameters")
_CUT = re.compile(r"[}\]]")
_BEFORE, _VALUE, _AFTER, _SKIP, _DONE = BEFORE, VALUE, AFTER, SKIP, DONE
_FENCES = ("```json", "```")
_TRUNCATED = "the reply ended inside this call"


def _settled(stream: JsonStream) -> bool:
    """The value is whole and nothing can change that: a container closed, or a scalar
    followed by text (``true`` may still be ``trueX``, which is malformed)."""
    return stream.complete and (isinstance(stream.value, (dict, list)) or bool(stream.tail))


def shape_args(args: Any) -> tuple[Any, str | None]:
    """Arguments as the action gets them: an object (a JSON-encoded string is decoded);
    ``(args, None)`` or ``(None, message)``."""
    if isinstance(args, str):
        with contextlib.suppress(ValueError, RecursionError):
            args = json.loads(args)
    if not isinstance(args, dict):
        return None, f"the arguments must be a JSON object, not {type(args).__name__}"
    return args, None


class _Elem:
    __slots__ = ("call", "done", "snaps")

    def __init__(self) -> None:
        self.call = Call()
        self.snaps: Snapshots = new_snapshots()
        self.done = False


class JsonCalls(SteppedReader):
    """Reads a JSON call region (see the module docstring)."""

    def __init__(
        self,
        sink: Sink,
        *,
        shape: str = "object",
        call: Call | None = None,
        closers: tuple[str, ...] = (),
        seps: tuple[str, ...] = (),
        fence: bool = False,
        resync: tuple[str, ...] = (),
    ) -> None:
        self._sink = sink
        self._shape = shape
        self._named = call  # shape "args": the call, started by the caller
        self._closers = closers
        self._seps = seps
        self._fence = fence
        self._skip = skipper(closers, resync)
        self._state = _BEFORE
        self._held = ""
        self._stream: JsonStream | None = None
        self._depth = 0  # where the calls are in the value: () for one, (i,) in a list
        self._elems: list[_Elem] = []
        self._pending: list[tuple[_Elem, str | None, str, Any]] = []
        self._raw: list[str] = []
        self._fenced = False
        self._fed = 0  # characters the current JsonStream took
        self._fed_text: list[str] = []  # and their text (read again when a call breaks)
        self._root_pending = 0  # the first of _pending from the current JsonStream
        self._bad: _Elem | None = None  # the broken call, whose raw text the skip extends
        if call is not None:
            elem = _Elem()
            elem.call = call
            self._elems.append(elem)

    # ------------------------------------------------------------------ feeding

    def finish(self) -> None:
        stream = self._stream
        if self._state == _VALUE and stream is not None and stream.complete:
            self._state = _AFTER  # a scalar the end of the reply settles (not cut off)
        before = self._state == _BEFORE and (not self._elems or self._current() is not None)
        if self._state == _VALUE or before:  # cut off: no value yet, or one still open
            self._raw.append(self._held)
            self._held = ""
            self._truncate()
        self._flush()
        self._state = _DONE

    def _take(self, text: str) -> None:
        if text:
            self._raw.append(text)
            elem = self._current()  # only the last call can be open
            if elem is not None:
                elem.call.raw.append(text)

    def _before(self, s: str, i: int) -> int:
        j = skip_space(s, i)
        self._take(s[i:j])
        if j == len(s):
            return j
        if self._fence and not self._fenced and s[j] == "`":
            lit = match_literal(s, j, _FENCES)
            if lit == "":
                self._held = s[j:]
                return len(s)
            if lit:
                self._fenced = True
                self._take(lit)
                return j + len(lit)
        self._stream = JsonStream(events=True, trailing="ignore")
        self._fed = 0
        self._fed_text = []
        self._root_pending = len(self._pending)
        if self._shape == "args":
            self._depth = -1
        else:
            self._depth = 1 if self._shape == "list" and s[j] == "[" else 0
        self._state = _VALUE
        return j

    def _value(self, s: str, i: int) -> int:
        stream = self._stream
        assert stream is not None
        if self._depth < 0:
            return i + self._feed_args(stream, s[i:])
        if self._depth == 0:  # one call: it ends with the value, where the core says
            return i + self._feed_calls(stream, s[i:])
        n = len(s)  # a list: cut after each closer, so each call's text is its own
        while i < n:
            m = _CUT.search(s, i)
            j = n if m is None else m.end()
            i += self._feed_calls(stream, s[i:j])
            if self._state != _VALUE:
                return i
        return n

    def _used(self, exc: MalformedJSON, piece: str) -> int:
        """How much of ``piece`` the core read before ``exc``."""
        return max(0, min(len(piece), exc.pos - self._fed))

    def _feed_args(self, stream: JsonStream, piece: str) -> int:
        elem = self._elems[0]
        try:
            stream.feed_events(piece)
        except MalformedJSON as exc:
            used = self._used(exc, piece)
            self._take(piece[:used])
            self._broken(elem.call, exc.msg)
            return used
        used = len(piece) - len(stream.tail)
        self._fed += used
        text = piece[:used]
        self._take(text)
        call = elem.call
        if text and call.index is not None and stream.value is not UNSET:
            self._sink.args(call, elem.snaps.take(stream.value, len(text)), text)
        if _settled(stream):
            elem.done = True
            self._pending.append((elem, None, "", stream.value))
            self._state = _AFTER
        return used

    def _feed_calls(self, stream: JsonStream, piece: str) -> int:
        try:
            events = stream.feed_events(piece)
        except MalformedJSON as exc:
            used = self._used(exc, piece)
            self._take(piece[:used])
            self._fed_text.append(piece[:used])
            # a scalar that ended before the error may have been glued to it (``trueX``):
            # whether its end was seen depends on the chunking, so only the error counts
            mine = self._pending[self._root_pending :]
            self._pending[self._root_pending :] = [p for p in mine if isinstance(p[3], dict)]
            current = self._current()
            if current is None:
                current = _Elem()
                current.call.raw.append(piece[:used])
                self._elems.append(current)
            if current.call.index is None:
                self._replay_name(current)
            self._broken(current.call, exc.msg)
            return used
        used = len(piece) - len(stream.tail)
        self._fed += used
        text = piece[:used]
        self._fed_text.append(text)
        self._take(text)
        depth = self._depth
        for ev in events:
            if isinstance(ev, ValueStart):
                if len(ev.path) == depth:
                    new = _Elem()
                    new.call.raw.append(text)
                    self._elems.append(new)
            elif isinstance(ev, ValueEnd):
                path = ev.path
                cur = self._current()
                if cur is None:
                    continue
                if (
                    len(path) == depth + 1
                    and path[-1] == "name"
                    and isinstance(ev.value, str)
                    and ev.value
                    and cur.call.index is None
                ):
                    self._sink.start(cur.call, ev.value)
                elif len(path) == depth:
                    self._report_elem(cur, stream, text)
                    cur.done = True
                    self._pending.append((cur, None, "", ev.value))
        last = self._current()
        if last is not None:
            self._report_elem(last, stream, text)
        if _settled(stream):
            self._state = _AFTER
        return used

    def _replay_name(self, elem: _Elem) -> None:
        """The piece that broke the JSON may have completed the broken call's name: read
        the valid text again (once per broken call) so the name does not depend on the
        chunking."""
        stream = JsonStream(events=True, trailing="ignore")
        depth = self._depth
        try:
            events = stream.feed_events("".join(self._fed_text))
        except MalformedJSON:
            return
        for ev in events:
            if (
                isinstance(ev, ValueEnd)
                and len(ev.path) == depth + 1
                and ev.path[-1] == "name"
                and isinstance(ev.value, str)
                and ev.value
                and (depth == 0 or ev.path[0] == len(self._elems) - 1)
            ):
                elem.call.name = ev.value

    def _current(self) -> _Elem | None:
        elems = self._elems
        return elems[-1] if elems and not elems[-1].done else None

    def _report_elem(self, elem: _Elem, stream: JsonStream, text: str) -> None:
        call = elem.call
        if call.index is None or not text:
            return
        value = stream.value
        if self._depth == 1:
            value = value[-1] if isinstance(value, list) and value else UNSET
        if not isinstance(value, dict):
            return
        args = next((value[k] for k in ARGS_KEYS if k in value), UNSET)
        if args is UNSET:
            return
        self._sink.args(call, elem.snaps.take(args, len(text)), text)

    def _broken(self, call: Call, message: str) -> None:
        elem = next((e for e in self._elems if e.call is call), None)
        if elem is None:
            elem = _Elem()
            elem.call = call
            self._elems.append(elem)
        elem.done = True
        self._pending.append((elem, "malformed_json", message, None))
        self._bad = elem
        self._state = _SKIP if self._skip is not None else _DONE

    def _after(self, s: str, i: int) -> int:
        j = skip_space(s, i)
        self._take_after(s[i:j])
        if j == len(s):
            return j
        lits = (*self._closers, *self._seps, *(("```",) if self._fenced else ()))
        lit = match_literal(s, j, lits)
        if lit == "":
            self._held = s[j:]
            return len(s)
        if lit is None:
            self._state = _DONE
            return j
        self._take_after(lit)
        if lit in self._closers:
            self._state = _DONE
        elif lit in self._seps:
            self._state = _BEFORE
            self._fenced = False
        else:
            self._fenced = False
        return j + len(lit)

    def _take_after(self, text: str) -> None:
        if text:
            self._raw.append(text)

    def _skipping(self, s: str, i: int) -> int:
        skip = self._skip
        assert skip is not None
        m = skip.search(s, i)
        if m is None:
            end = len(s) - skip.hold(s, i)
            self._take_bad(s[i:end])
            self._held = s[end:]
            return len(s)
        self._state = _DONE
        if m.lastgroup == "close":
            self._take_bad(s[i : m.end()])
            return m.end()
        self._take_bad(s[i : m.start()])
        return m.start()

    def _take_bad(self, text: str) -> None:
        if text:
            self._raw.append(text)
            if self._bad is not None:
                self._bad.call.raw.append(text)

    # ------------------------------------------------------------------ ending

    def _truncate(self) -> None:
        elem = self._current()
        if elem is None:
            if self._elems:
                return
            elem = _Elem()
            elem.call.raw.extend(self._raw)
            self._elems.append(elem)
        elem.done = True
        self._pending.append((elem, "truncated", _TRUNCATED, None))

    def _flush(self) -> None:
        sink = self._sink
        for elem, reason, message, value in self._pending:
            call = elem.call
            if reason is not None:
                sink.invalid(call, reason, message)
                continue
            if self._named is not None:
                args, error = shape_args(value)
                if error is not None:
                    sink.invalid(call, "bad_params", error)
                else:
                    sink.complete(call, args)
                continue
            if not isinstance(value, dict):
                msg = f"a call must be a JSON object, not {type(value).__name__}"
                sink.invalid(call, "bad_params", msg)
                continue
            name = value.get("name")
            if not isinstance(name, str) or not name:
                sink.invalid(call, "missing_name", "the call has no string 'name'")
                continue
            if call.index is None:
                sink.start(call, name)
            raw_args: Any = next((value[k] for k in ARGS_KEYS if k in value), {})
            args, error = shape_args(raw_args)
            if error is not None:
                sink.invalid(call, "bad_params", error)
            else:
                sink.complete(call, args)
        self._pending.clear()

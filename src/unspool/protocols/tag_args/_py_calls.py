"""Python-style calls: ``[get_weather(city='LA'), f()]`` or ``f(a=1)`` lines.

Read by :class:`~unspool.core._pyliteral.PyLiteralStream` (incremental, O(n), never
``eval``): a list of calls (Llama 4, Llama 3.2 pythonic) or calls one after
another (OLMo 3 writes one per line).  Each call is an action from its ``(`` on;
its keyword arguments are its arguments.  A positional argument is an
``ActionInvalid(bad_params)``: the action's parameters have names, not places.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from unspool.core._errors import MalformedJSON
from unspool.core._path_events import ValueEnd, ValueStart
from unspool.core._pyliteral import PyCall, PyLiteralStream
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

__all__ = ["PyCalls"]

_CUT = re.compile(r"[)\]]")
_BEFORE, _VALUE, _AFTER, _SKIP, _DONE = BEFORE, VALUE, AFTER, SKIP, DONE
_TRUNCATED = "the reply ended inside this call"


class _Elem:
    __slots__ = ("call", "done", "live", "snaps")

    def __init__(self) -> None:
        self.call = Call()
        self.snaps: Snapshots = new_snapshots()
        self.live: PyCall | None = None
        self.done = False


class PyCalls(SteppedReader):
    """Reads a region of Python-style calls (see the module docstring).  ``closers``
    end the region; ``multi``: another call may follow a call (after blanks);
    ``resync``: literals that end a broken region with no closer."""

    def __init__(
        self,
        sink: Sink,
        *,
        closers: tuple[str, ...] = (),
        multi: bool = False,
        resync: tuple[str, ...] = (),
    ) -> None:
        self._sink = sink
        self._closers = closers
        self._multi = multi
        self._skip = skipper(closers, resync)
        self._state = _BEFORE
        self._held = ""
        self._stream: PyLiteralStream | None = None
        self._fed = 0
        self._depth = 0
        self._elems: list[_Elem] = []
        self._pending: list[tuple[_Elem, str | None, str]] = []
        self._roots = 0
        self._root_first = 0

    def finish(self) -> None:
        if self._state == _VALUE or (self._state == _BEFORE and not self._roots):
            elem = self._current()
            if elem is None:
                elem = _Elem()
                elem.call.raw.append(self._held)
                self._elems.append(elem)
            elem.done = True
            self._pending.append((elem, "truncated", _TRUNCATED))
        self._held = ""
        self._flush()
        self._state = _DONE

    def _current(self) -> _Elem | None:
        elems = self._elems
        return elems[-1] if elems and not elems[-1].done else None

    def _take(self, text: str) -> None:
        elem = self._current()
        if elem is not None and text:
            elem.call.raw.append(text)

    def _before(self, s: str, i: int) -> int:
        j = skip_space(s, i)
        if j == len(s):
            return j
        self._stream = PyLiteralStream(events=True, calls=True, trailing="ignore")
        self._fed = 0
        self._fed_text: list[str] = []
        self._depth = 1 if s[j] == "[" else 0
        self._roots += 1
        self._root_first = len(self._elems)
        self._state = _VALUE
        return j

    def _value(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            m = _CUT.search(s, i)
            j = n if m is None else m.end()
            i += self._feed(s[i:j])
            if self._state != _VALUE:
                return i
        return n

    def _feed(self, piece: str) -> int:
        stream = self._stream
        assert stream is not None
        try:
            events = stream.feed_events(piece)
        except MalformedJSON as exc:
            used = max(0, min(len(piece), exc.pos - self._fed))
            self._take(piece[:used])
            self._fed_text.append(piece[:used])
            elem = self._current()
            if elem is None:
                elem = _Elem()
                elem.call.raw.append(piece[:used])
                self._elems.append(elem)
                self._replay_name(elem)
            elem.done = True
            self._pending.append((elem, "malformed_call", exc.msg))
            self._state = _SKIP if self._skip is not None else _DONE
            return used
        used = len(piece) - len(stream.tail)
        self._fed += used
        text = piece[:used]
        self._fed_text.append(text)
        self._take(text)
        depth = self._depth
        for ev in events:
            if isinstance(ev, ValueStart) and len(ev.path) == depth:
                elem = _Elem()
                self._elems.append(elem)
                value = stream.value
                live = value[-1] if depth and isinstance(value, list) and value else value
                elem.call.raw.append(text)
                if isinstance(live, PyCall):
                    elem.live = live
                    self._sink.start(elem.call, live.name)
            elif isinstance(ev, ValueEnd) and len(ev.path) == depth:
                elem2 = self._current()
                if elem2 is None:
                    continue
                self._report(elem2, text)
                elem2.done = True
                self._pending.append((elem2, None, ""))
        elem3 = self._current()
        if elem3 is not None:
            self._report(elem3, text)
        if stream.complete:
            if len(self._elems) == self._root_first:  # a literal, not a call
                bad = _Elem()
                bad.done = True
                bad.call.raw.append(text)
                self._elems.append(bad)
                self._pending.append((bad, "bad_params", "expected a call or a list of calls"))
            self._state = _AFTER
        return used

    def _replay_name(self, elem: _Elem) -> None:
        """The piece that broke the call may also have opened it: read the valid text
        again (once per broken call) for its name, whatever the chunking."""
        stream = PyLiteralStream(calls=True, trailing="ignore")
        with contextlib.suppress(MalformedJSON):
            stream.feed("".join(self._fed_text))
        value = stream.value
        if self._depth and isinstance(value, list):
            value = value[-1] if len(value) == len(self._elems) - self._root_first else None
        if isinstance(value, PyCall):
            elem.call.name = value.name

    def _report(self, elem: _Elem, text: str) -> None:
        live = elem.live
        if live is None or elem.call.index is None or not text:
            return
        self._sink.args(elem.call, elem.snaps.take(live.kwargs, len(text)), text)

    def _after(self, s: str, i: int) -> int:
        j = skip_space(s, i)
        if j == len(s):
            return j
        lit = match_literal(s, j, self._closers)
        if lit == "":
            self._held = s[j:]
            return len(s)
        if lit:
            self._state = _DONE
            return j + len(lit)
        if self._multi and (s[j].isalpha() or s[j] == "_" or s[j] == "["):
            self._state = _BEFORE
            return j
        self._state = _DONE
        return j

    def _skipping(self, s: str, i: int) -> int:
        skip = self._skip
        assert skip is not None
        m = skip.search(s, i)
        # the broken call is the last one ended
        bad = [e for e, reason, _ in self._pending[-1:] if reason is not None]
        if m is None:
            end = len(s) - skip.hold(s, i)
            for e in bad:
                e.call.raw.append(s[i:end])
            self._held = s[end:]
            return len(s)
        self._state = _DONE
        end = m.end() if m.lastgroup == "close" else m.start()
        for e in bad:
            e.call.raw.append(s[i : m.start()])
        return end

    def _flush(self) -> None:
        sink = self._sink
        for elem, reason, message in self._pending:
            call = elem.call
            live = elem.live
            if reason is None and live is not None and live.args:
                reason, message = "bad_params", "positional arguments: name each argument"
            if reason is not None or live is None:
                sink.invalid(call, reason or "bad_params", message or "not a call")
                continue
            args: Any = live.kwargs
            sink.complete(call, args)
        self._pending.clear()

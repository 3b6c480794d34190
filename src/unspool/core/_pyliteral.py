"""An incremental reader of Python-style literals and calls: ``f(a=1, b='x', c=None)``.

Some models write their tool calls in Python syntax rather than JSON (Llama 4's
``[get_weather(city='LA'), f()]``, OLMo 3's ``f(a=1)``).  :class:`PyLiteralStream`
reads that text as it streams, with the contract of
:class:`~unspool.core._jsonstream.JsonStream`: ``feed(chunk)`` costs O(len(chunk)),
the live value only grows (containers appear at once and stay the same objects,
strings grow, numbers and names appear once complete), ``finish()`` closes what is
open, and text that is not a literal raises :class:`MalformedLiteral` with its
position.  Nothing is ever evaluated: the reader knows literals, not Python.

What it reads, as :func:`ast.literal_eval` reads it, with JSON's types:

* strings in either quote, triple-quoted, with the ``r`` and ``u`` prefixes, every
  escape Python knows (``\\n``, ``\\x41``, ``\\u00e9``, ``\\N{BULLET}``, octal, a
  backslash-newline) and adjacent strings joined (``'a' "b"`` is ``'ab'``);
* numbers: ints (``1_000``, ``0x1F``, ``0o7``, ``0b1``), floats (``1.``, ``.5``,
  ``1e-3``), a sign before either (``-1``, ``- 2.5``);
* ``True``/``False``/``None`` (and JSON's ``true``/``false``/``null``, which models
  also write);
* lists, dicts and tuples (a tuple reads as a list: the value is meant for JSON; a
  tuple used as a dict key stays a tuple), trailing commas, ``#`` comments;
* with ``calls=True``, calls ``name(value, key=value)`` (a dotted name such as
  ``tools.search`` too) as the root value or as the items of a root list or tuple:
  each is a :class:`PyCall`.

Refused, each with a clear error: bytes and f-strings, complex numbers, sets, names
that are not literals, calls anywhere else, ``*args``, operators, and a tuple
without its parentheses at the root (``1, 2``: the root's type would change at the
comma).  A parenthesis is
decided at its first ``,`` or ``)`` (``(1)`` is ``1``, ``(1,)`` a tuple): what it
holds until then is not shown, and its path events come at that moment.

Path events (``events=True``) are the core's (:mod:`unspool.core._path_events`) with
one more kind, ``"call"``: a call is a value whose children are its positional
arguments (integer paths) and keyword arguments (string paths).  A string's
``ValueEnd`` comes once the next token shows that no adjacent string continues it.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from collections.abc import Callable
from typing import Any, NoReturn, cast

from unspool.core._errors import UNSET, LimitExceeded, MalformedJSON
from unspool.core._path_events import Path, PathEvent, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.core._snapshot import deep_copy

__all__ = [
    "LiteralLimitExceeded",
    "MalformedLiteral",
    "PyCall",
    "PyLiteralStream",
    "parse_pyliteral",
]


class MalformedLiteral(MalformedJSON):
    """The input is not (a prefix of) the Python literal the reader was asked to read.

    ``pos`` is the offset of the offending character (characters fed, not bytes);
    ``partial`` a detached copy of the last good live value.  It is a
    :class:`~unspool.core._errors.MalformedJSON`, so code that handles the JSON
    reader's errors handles these too.
    """


class LiteralLimitExceeded(MalformedLiteral, LimitExceeded):
    """A configured limit (depth, token length, document size, int digits) was
    exceeded: both a :class:`MalformedLiteral` and the core's
    :class:`~unspool.core._errors.LimitExceeded`."""


class PyCall:
    """A call ``name(*args, **kwargs)`` read from the text: never run, only read.

    ``args`` and ``kwargs`` are live: they grow while the call streams and stay the
    same objects.  ``start`` is the stream offset of the name, ``args_start`` just
    after the ``(``, ``args_end`` the offset of the ``)`` (-1 while it is open):
    ``text[args_start:args_end]`` is the arguments as the model wrote them.
    Equality and ``repr`` look at the name and arguments only.
    """

    __slots__ = ("args", "args_end", "args_start", "kwargs", "name", "start")

    def __init__(
        self,
        name: str,
        args: list[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
        *,
        start: int = 0,
        args_start: int = 0,
        args_end: int = -1,
    ) -> None:
        self.name = name
        self.args: list[Any] = [] if args is None else args
        self.kwargs: dict[str, Any] = {} if kwargs is None else kwargs
        self.start = start
        self.args_start = args_start
        self.args_end = args_end

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PyCall):
            return NotImplemented
        return (self.name, self.args, self.kwargs) == (other.name, other.args, other.kwargs)

    __hash__ = None  # type: ignore[assignment]  # live and mutable, like a list

    def __repr__(self) -> str:
        return f"PyCall({self.name!r}, {self.args!r}, {self.kwargs!r})"

    def copy(self) -> PyCall:
        """A detached deep copy (the arguments copied, offsets kept)."""
        return PyCall(
            self.name,
            deep_copy(self.args),
            deep_copy(self.kwargs),
            start=self.start,
            args_start=self.args_start,
            args_end=self.args_end,
        )


# frame kinds
_ROOT, _LIST, _TUPLE, _PAREN, _DICT, _CALL = range(6)
# what the top frame expects when no token is open
_X_VALUE, _X_AFTER, _X_KEY, _X_COLON, _X_END = range(5)
# the token being read
_T_NONE, _T_STRING, _T_STR_END, _T_NUMBER, _T_SIGN, _T_NAME, _T_NAME_END, _T_COMMENT = range(8)

_CLOSERS = {_LIST: "]", _TUPLE: ")", _PAREN: ")", _DICT: "}", _CALL: ")"}
_KIND_NAMES = {_LIST: "list", _TUPLE: "tuple", _PAREN: "parenthesis", _DICT: "dict", _CALL: "call"}
_LITERALS: dict[str, Any] = {
    "True": True,
    "False": False,
    "None": None,
    "true": True,
    "false": False,
    "null": None,
}
_LITERAL_KIND = {True: "bool", False: "bool", None: "null"}
_PREFIXES = frozenset({"r", "u", "R", "U"})
_Run = Callable[..., "re.Match[str]"]
"""A compiled ``match`` that never returns None where it is called."""

_ws_run = cast(_Run, re.compile(r"[ \t\r\n\f]*").match)
_comment_run = cast(_Run, re.compile(r"[^\n]*").match)
_name_run = cast(_Run, re.compile(r"[\w.]*").match)
_number_run = cast(_Run, re.compile(r"[0-9A-Za-z_.]*").match)
_name_start = re.compile(r"[^\W\d]").match
_octal = cast(_Run, re.compile(r"[0-7]{1,3}").match)  # called at an octal digit
_hex_digits = cast(_Run, re.compile(r"[0-9a-fA-F]*").match)
_NUMBER_START = frozenset("0123456789.")

_DIGITPART = r"[0-9](?:_?[0-9])*"
_POINTFLOAT = rf"(?:(?:{_DIGITPART})?\.{_DIGITPART}|{_DIGITPART}\.)"
_INT = re.compile(
    r"(?:[1-9](?:_?[0-9])*|0+(?:_?0)*|0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+)"
).fullmatch
_FLOAT = re.compile(
    rf"(?:{_POINTFLOAT}|(?:{_POINTFLOAT}|{_DIGITPART})[eE][-+]?{_DIGITPART})"
).fullmatch
_IMAGINARY = re.compile(rf"(?:{_POINTFLOAT}|{_DIGITPART}|.*[eE].*)[jJ]").fullmatch

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_MAX_NAME_ESCAPE = 100  # \N{...}: the longest Unicode character name is 88 characters


def _runs(quote: str, triple: bool) -> _Run:
    """The plain characters of a string in ``quote`` (a line break ends a one-line one)."""
    stops = f"{quote}\\\\" if triple else f"{quote}\\\\\n\r"
    return cast(_Run, re.compile(f"[^{stops}]*").match)


_STRING_RUNS = {(q, t): _runs(q, t) for q in "'\"" for t in (False, True)}


class _Frame:
    """One open container (or the root): where its values go and what comes next."""

    __slots__ = (
        "box",
        "buffer",
        "closer_ok",
        "expect",
        "key",
        "kind",
        "kw",
        "kw_seen",
        "path",
        "quiet",
        "sink",
        "slot",
        "value",
    )

    def __init__(
        self,
        kind: int,
        value: Any,
        path: Path,
        sink: list[PathEvent] | None,
        quiet: bool,
        slot: tuple[Any, Any],
    ) -> None:
        self.kind = kind
        self.value = value
        self.path = path  # relative to the sink's base
        self.sink = sink  # where this frame's own events go (None: no events)
        self.quiet = quiet  # a dict key or inside one: never shown
        self.slot = slot  # (container, key) holding this frame's value
        self.expect = _X_KEY if kind == _DICT else _X_VALUE
        self.closer_ok = kind != _ROOT
        self.key: Any = None  # a dict's pending key
        self.kw: str | None = None  # a call's pending keyword
        self.kw_seen = False
        self.box: list[Any] = [UNSET]  # a parenthesis' first value, a dict's key
        self.buffer: list[PathEvent] | None = None  # an undecided parenthesis' events


class _Target:
    """Where the value about to start goes."""

    __slots__ = ("key", "obj", "path", "quiet", "sink")

    def __init__(
        self, obj: Any, key: Any, path: Path, sink: list[PathEvent] | None, quiet: bool
    ) -> None:
        self.obj = obj
        self.key = key
        self.path = path
        self.sink = sink
        self.quiet = quiet


def _put(obj: Any, key: Any, value: Any) -> None:
    if type(obj) is list and key == len(obj):
        obj.append(value)
    else:
        obj[key] = value


class PyLiteralStream:
    """Incremental reader of one Python literal or call (see the module docstring).

    Options:

    * ``events``: collect path events (:meth:`feed_events`, :meth:`finish_events`).
    * ``calls``: read calls as the root value or as the items of a root list or tuple.
    * ``trailing``: ``"error"`` (only blanks and comments may follow the value) or
      ``"ignore"`` (what follows is kept in :attr:`tail`, from the character right
      after the value).
    * Limits, each raising :class:`~unspool.core._errors.LimitExceeded`: ``max_depth``
      (nesting), ``max_token_chars`` (one string, name or number),
      ``max_document_chars`` (everything fed), ``max_int_digits`` (an int's digits).
    """

    __slots__ = (
        "_box",
        "_calls",
        "_complete",
        "_decoder",
        "_error",
        "_events",
        "_finished",
        "_held",
        "_limits",
        "_max_depth",
        "_mode",
        "_pos",
        "_runs",
        "_stack",
        "_str",
        "_str_at",
        "_str_quote",
        "_str_raw",
        "_str_target",
        "_str_triple",
        "_tail",
        "_tok",
        "_tok_at",
        "_tok_text",
        "_trailing",
    )

    def __init__(
        self,
        *,
        events: bool = False,
        calls: bool = False,
        trailing: str = "error",
        max_depth: int = 1000,
        max_token_chars: int | None = None,
        max_document_chars: int | None = None,
        max_int_digits: int = 4300,
    ) -> None:
        if trailing not in ("error", "ignore"):
            raise ValueError("trailing must be 'error' or 'ignore'")
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self._events: list[PathEvent] | None = [] if events else None
        self._calls = calls
        self._trailing = trailing
        self._max_depth = max_depth
        self._limits = (max_token_chars, max_document_chars, max_int_digits)
        self._box: list[Any] = [UNSET]
        root = _Frame(_ROOT, None, (), self._events, False, (self._box, 0))
        self._stack = [root]
        self._tok = _T_NONE
        self._tok_text = ""  # a number's or name's text so far; a sign
        self._tok_at = 0  # where the token began
        self._held = ""  # undecided characters (a quote, an escape, '=')
        self._pos = 0
        self._complete = False
        self._finished = False
        self._error: MalformedLiteral | None = None
        self._tail: list[str] = []
        self._mode: type | None = None
        self._decoder: Any = None
        # the string being read
        self._str = ""
        self._runs: list[str] = []  # its text read in this feed
        self._str_target: _Target | None = None
        self._str_quote = ""
        self._str_triple = False
        self._str_raw = False
        self._str_at = 0

    # ------------------------------------------------------------------ public API

    @property
    def value(self) -> Any:
        """The live root value (the same object across feeds), or ``UNSET``."""
        return self._box[0]

    @property
    def complete(self) -> bool:
        """True once the root value ended on real input."""
        return self._complete

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` was called."""
        return self._finished

    @property
    def pos(self) -> int:
        """Characters fed so far (the offset errors and :class:`PyCall` offsets use)."""
        return self._pos

    @property
    def tail(self) -> str:
        """Text after the root value (``trailing="ignore"``)."""
        if len(self._tail) > 1:
            self._tail[:] = ["".join(self._tail)]
        return self._tail[0] if self._tail else ""

    def feed(self, chunk: str | bytes) -> Any:
        """Consume ``chunk`` (text, or UTF-8 bytes split anywhere); the live value."""
        if self._error is not None:
            raise self._error
        if self._finished:
            raise RuntimeError("feed() after finish()")
        text = self._decode(chunk)
        if text:
            limit = self._limits[1]
            if limit is not None and self._pos + len(text) > limit:
                head = text[: limit - self._pos]
                if head:
                    self._guarded(head, False)
                self._fail(
                    LiteralLimitExceeded(f"document longer than max_document_chars={limit}", limit)
                )
            self._guarded(text, False)
        return self._box[0]

    def finish(self) -> Any:
        """Close what is open and return the final value (or ``UNSET``). Idempotent."""
        if self._error is not None:
            raise self._error
        if not self._finished:
            if self._decoder is not None:
                try:
                    rest = self._decoder.decode(b"", True)
                except UnicodeDecodeError:
                    rest = ""  # a character cut off at the end: dropped like any truncation
                if rest:
                    self.feed(rest)
            self._finished = True
            self._guarded("", True)
        return self._box[0]

    def feed_events(self, chunk: str | bytes) -> list[PathEvent]:
        """Feed ``chunk``; the path events it produced (needs ``events=True``).  After a
        :class:`MalformedLiteral` the events before the bad character are left for
        :meth:`take_events`."""
        self._need_events()
        self.feed(chunk)
        return self.take_events()

    def finish_events(self) -> list[PathEvent]:
        """:meth:`finish`, and the path events it produced (needs ``events=True``)."""
        self._need_events()
        self.finish()
        return self.take_events()

    def take_events(self) -> list[PathEvent]:
        """Return and forget the path events collected so far (needs ``events=True``)."""
        events = self._need_events()
        out = events[:]
        events.clear()
        return out

    def snapshot(self) -> Any:
        """A detached deep copy of the live value."""
        return _detached(self._box[0])

    def __repr__(self) -> str:
        state = "complete" if self._complete else "finished" if self._finished else "streaming"
        return f"<PyLiteralStream {state} pos={self._pos} value={self._box[0]!r:.60}>"

    # ------------------------------------------------------------------ input

    def _need_events(self) -> list[PathEvent]:
        if self._events is None:
            raise ValueError("path events are off: create the reader with events=True")
        return self._events

    def _decode(self, chunk: str | bytes) -> str:
        if type(chunk) is str:
            if self._mode is bytes:
                raise TypeError("cannot mix str and bytes chunks in one stream")
            self._mode = str
            return chunk
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            if self._mode is str:
                raise TypeError("cannot mix str and bytes chunks in one stream")
            if self._mode is None:
                self._mode = bytes
                self._decoder = codecs.getincrementaldecoder("utf-8")()
            try:
                text: str = self._decoder.decode(bytes(chunk))
            except UnicodeDecodeError as exc:
                good = exc.object[: exc.start].decode("utf-8")
                self._decoder = None
                if good:
                    self._guarded(good, False)
                self._fail(MalformedLiteral(f"invalid UTF-8 ({exc.reason})", self._pos))
            return text
        raise TypeError(f"feed() takes str or bytes, not {type(chunk).__name__}")

    def _guarded(self, text: str, eof: bool) -> None:
        try:
            self._read(text, eof)
        except MalformedLiteral as exc:
            self._fail(exc)

    def _fail(self, exc: MalformedLiteral) -> NoReturn:
        with contextlib.suppress(MalformedLiteral):
            self._write_back()  # the live value shows the string read before the error
        if exc.partial is UNSET:
            exc.partial = _detached(self._box[0])
        self._error = exc
        raise exc

    def _bad(self, message: str, pos: int) -> NoReturn:
        raise MalformedLiteral(message, pos)

    # ------------------------------------------------------------------ the machine

    def _read(self, text: str, eof: bool) -> None:
        """Read ``held + text``; keep what cannot be decided yet in ``_held``."""
        held = self._held
        base = self._pos - len(held)
        self._pos += len(text)
        s = held + text if held else text
        self._held = ""
        target = self._str_target
        if target is not None and not target.quiet:
            target.obj[target.key] = ""  # let the string grow in place (see _write_back)
        i, n = 0, len(s)
        while True:
            tok = self._tok
            if tok == _T_STRING:
                i = self._string(s, i, base, eof)
            elif tok == _T_NONE:
                i = self._structure(s, i, base, eof)
            elif tok == _T_STR_END:
                i = self._string_end(s, i, base, eof)
            elif tok == _T_NUMBER:
                i = self._number(s, i, base, eof)
            elif tok == _T_NAME:
                i = self._name(s, i, base, eof)
            elif tok == _T_NAME_END:
                i = self._name_end(s, i, base, eof)
            elif tok == _T_SIGN:
                i = self._sign(s, i, base, eof)
            else:  # _T_COMMENT
                m = _comment_run(s, i)
                i = m.end()
                if i < n:
                    self._tok = _T_NONE if self._tok_text == "" else _T_STR_END
                    self._tok_text = ""
            if i < 0:  # undecided: hold the rest
                self._held = s[-i - 1 :]
                break
            if i >= n:
                break
        if eof:
            self._at_eof()
        self._write_back()

    def _write_back(self) -> None:
        """Put the string read so far into its slot (once per feed, so it grows in place)."""
        target = self._str_target
        if target is None:
            return
        if self._runs:
            piece = "".join(self._runs)
            self._runs.clear()
            grown = self._str
            self._str = ""
            grown += piece
            self._str = grown
            if not target.quiet and target.sink is not None:
                target.sink.append(StringDelta(target.path, piece))
            limit = self._limits[0]
            if limit is not None and len(grown) > limit:
                raise LiteralLimitExceeded(
                    f"string longer than max_token_chars={limit}", self._str_at + limit
                )
        if not target.quiet:
            target.obj[target.key] = self._str

    # ---------------------------------------------------------------- structure

    def _structure(self, s: str, i: int, base: int, eof: bool) -> int:
        """Between tokens: blanks, comments, punctuation, and the start of a token."""
        n = len(s)
        stack = self._stack
        while i < n:
            frame = stack[-1]
            expect = frame.expect
            if expect == _X_END and self._trailing == "ignore":
                self._trail(s[i:], base + i)
                return n
            i = _ws_run(s, i).end()
            if i >= n:
                return n
            c = s[i]
            if expect == _X_END:
                if c == "#":
                    self._tok, self._tok_text = _T_COMMENT, ""
                    return i + 1
                self._bad("text after the value", base + i)
            if c == "#":
                self._tok, self._tok_text = _T_COMMENT, ""
                return i + 1
            if expect in (_X_VALUE, _X_KEY):
                if c == _CLOSERS.get(frame.kind) and frame.closer_ok:
                    self._close(frame, base + i)
                    i += 1
                    continue
                i = self._value_start(s, i, base, eof, frame)
                if self._tok != _T_NONE or i < 0:
                    return i
            elif expect == _X_AFTER:
                if c == ",":
                    self._comma(frame)
                    i += 1
                elif c == _CLOSERS.get(frame.kind):
                    self._close(frame, base + i)
                    i += 1
                else:
                    closer = _CLOSERS.get(frame.kind, "")
                    self._bad(
                        f"expected ',' or {closer!r} in the {_KIND_NAMES[frame.kind]}", base + i
                    )
            else:  # _X_COLON
                if c != ":":
                    self._bad("expected ':' after the dict key", base + i)
                frame.expect = _X_VALUE
                frame.closer_ok = False
                i += 1
        return n

    def _value_start(self, s: str, i: int, base: int, eof: bool, frame: _Frame) -> int:
        """A value begins at ``s[i]``: open it; returns where reading goes on."""
        c = s[i]
        if c == "'" or c == '"':
            return self._open_string(s, i, base, eof, "", i)
        if c in _NUMBER_START:
            self._tok, self._tok_text, self._tok_at = _T_NUMBER, "", base + i
            return i
        if c == "-" or c == "+":
            self._tok, self._tok_text, self._tok_at = _T_SIGN, c, base + i
            return i + 1
        if c == "[":
            self._open(_LIST, [], "array", base + i)
            return i + 1
        if c == "{":
            self._open(_DICT, {}, "object", base + i)
            return i + 1
        if c == "(":
            self._open_paren(base + i)
            return i + 1
        if _name_start(c):
            self._tok, self._tok_text, self._tok_at = _T_NAME, "", base + i
            return i
        what = "a dict key" if frame.expect == _X_KEY else "a value"
        self._bad(f"expected {what}, found {c!r}", base + i)

    def _target(self, pos: int) -> _Target:
        """Where a value starting now goes; checks what the top frame allows."""
        frame = self._stack[-1]
        kind = frame.kind
        if kind in (_LIST, _TUPLE):
            items = frame.value
            key = len(items)
            return _Target(items, key, (*frame.path, key), frame.sink, frame.quiet)
        if kind == _DICT:
            if frame.expect == _X_KEY:
                frame.key = pos  # where the key began, until it is complete
                return _Target(frame.box, 0, (), None, True)
            key = frame.key
            return _Target(frame.value, key, (*frame.path, key), frame.sink, frame.quiet)
        if kind == _CALL:
            call: PyCall = frame.value
            kw = frame.kw
            if kw is not None:
                return _Target(call.kwargs, kw, (*frame.path, kw), frame.sink, frame.quiet)
            if frame.kw_seen:
                self._bad("a positional argument after a keyword argument", pos)
            key = len(call.args)
            return _Target(call.args, key, (*frame.path, key), frame.sink, frame.quiet)
        if kind == _PAREN:
            return _Target(frame.box, 0, (), frame.buffer, frame.quiet)
        return _Target(self._box, 0, (), frame.sink, False)  # the root

    def _scalar(self, value: Any, kind: str, pos: int) -> None:
        target = self._target(pos)
        _put(target.obj, target.key, value)
        sink = target.sink
        if sink is not None and not target.quiet:
            sink.append(ValueStart(target.path, kind))
            sink.append(ValueEnd(target.path, value))
        self._done(pos)

    def _open(self, kind: int, value: Any, name: str, pos: int) -> None:
        target = self._target(pos)
        if len(self._stack) > self._max_depth:
            raise LiteralLimitExceeded(f"nesting deeper than max_depth={self._max_depth}", pos)
        _put(target.obj, target.key, value)
        quiet = target.quiet
        if target.sink is not None and not quiet:
            target.sink.append(ValueStart(target.path, name))
        self._stack.append(
            _Frame(kind, value, target.path, target.sink, quiet, (target.obj, target.key))
        )

    def _open_paren(self, pos: int) -> None:
        target = self._target(pos)
        if len(self._stack) > self._max_depth:
            raise LiteralLimitExceeded(f"nesting deeper than max_depth={self._max_depth}", pos)
        frame = _Frame(
            _PAREN, None, target.path, target.sink, target.quiet, (target.obj, target.key)
        )
        if target.sink is not None and not target.quiet:
            frame.buffer = []
        self._stack.append(frame)

    def _comma(self, frame: _Frame) -> None:
        kind = frame.kind
        if kind == _PAREN:  # (x, ...: a tuple
            self._decide_tuple(frame)
        frame.closer_ok = True
        frame.expect = _X_KEY if kind == _DICT else _X_VALUE

    def _decide_tuple(self, frame: _Frame) -> None:
        items = [frame.box[0]]
        frame.kind = _TUPLE
        frame.value = items
        obj, key = frame.slot
        _put(obj, key, items)
        sink = frame.sink
        if sink is not None and not frame.quiet:
            sink.append(ValueStart(frame.path, "array"))
            _replay(frame.buffer, (*frame.path, 0), sink)
        frame.buffer = None

    def _close(self, frame: _Frame, pos: int) -> None:
        """The closer of the top frame at ``pos``."""
        self._stack.pop()
        kind = frame.kind
        sink = None if frame.quiet else frame.sink
        if kind == _PAREN:
            obj, key = frame.slot
            if frame.box[0] is UNSET:  # (): the empty tuple
                empty: Any = () if frame.quiet else []
                _put(obj, key, empty)
                if sink is not None:
                    sink.append(ValueStart(frame.path, "array"))
                    sink.append(ValueEnd(frame.path, empty))
            else:  # (x): x itself, now shown
                _put(obj, key, frame.box[0])
                if sink is not None:
                    _replay(frame.buffer, frame.path, sink)
            self._done(pos)
            return
        value = frame.value
        if kind == _TUPLE and frame.quiet:
            value = tuple(value)
            obj, key = frame.slot
            obj[key] = value
        elif kind == _CALL:
            value.args_end = pos
        if sink is not None:
            sink.append(ValueEnd(frame.path, value))
        self._done(pos)

    def _done(self, pos: int) -> None:
        """The value in the top frame's slot is complete."""
        frame = self._stack[-1]
        kind = frame.kind
        if kind == _ROOT:
            frame.expect = _X_END
            self._complete = True
            return
        if kind == _DICT and frame.expect == _X_KEY:
            key = frame.box[0]
            frame.box[0] = UNSET
            try:
                hash(key)
            except TypeError:
                self._bad(f"a {type(key).__name__} cannot be a dict key", frame.key)
            frame.key = key
            frame.expect = _X_COLON
            return
        if kind == _CALL:
            frame.kw = None
        frame.expect = _X_AFTER

    # ---------------------------------------------------------------- strings

    def _open_string(self, s: str, i: int, base: int, eof: bool, prefix: str, at: int) -> int:
        """A quote at ``s[i]`` (after ``prefix``) opens a string; ``at`` is where the
        string's text began (its prefix).  Holds the quote until triple or not is known."""
        q = s[i]
        n = len(s)
        if i + 2 < n or eof:
            triple = s[i + 1 : i + 3] == q + q
        elif i + 1 < n and s[i + 1] != q:
            triple = False
        else:
            return -(at + 1)  # hold the prefix and quotes
        if self._str_target is None:  # a new string value (not a continuation)
            target = self._target(base + at)
            _put(target.obj, target.key, "")
            if target.sink is not None and not target.quiet:
                target.sink.append(ValueStart(target.path, "string"))
            self._str_target = target
            self._str = ""
            self._str_at = base + at
        self._str_quote = q
        self._str_triple = triple
        self._str_raw = "r" in prefix or "R" in prefix
        self._tok = _T_STRING
        return i + (3 if triple else 1)

    def _string(self, s: str, i: int, base: int, eof: bool) -> int:
        """Inside a string: runs of plain text, escapes, and the closing quote."""
        q, triple, raw = self._str_quote, self._str_triple, self._str_raw
        run = _STRING_RUNS[q, triple]
        runs = self._runs
        n = len(s)
        while True:
            m = run(s, i)
            j = m.end()
            if j > i:
                runs.append(s[i:j])
            if j >= n:
                return n
            c = s[j]
            if c == q:
                if not triple:
                    self._tok = _T_STR_END
                    return j + 1
                if s.startswith(q * 3, j):
                    self._tok = _T_STR_END
                    return j + 3
                if j + 3 > n and not eof and s[j:] == q * (n - j):
                    return -(j + 1)  # '' at the end: maybe the closing '''
                runs.append(c)
                i = j + 1
                continue
            if c == "\\":
                i = self._escape(s, j, base, eof, raw)
                if i < 0:
                    return i
                continue
            # a line break in a one-line string
            self._bad("a line break inside a one-line string", base + j)

    def _escape(self, s: str, j: int, base: int, eof: bool, raw: bool) -> int:
        """The backslash at ``s[j]``; where the string goes on (negative: hold from j)."""
        n = len(s)
        if j + 1 >= n:
            return n if eof else -(j + 1)
        c = s[j + 1]
        runs = self._runs
        if raw:
            runs.append(s[j : j + 2])
            return j + 2
        simple = _SIMPLE_ESCAPES.get(c)
        if simple is not None:
            if simple:
                runs.append(simple)
            return j + 2
        if c == "\r":  # a backslash before CR LF: the line goes on
            if j + 2 >= n and not eof:
                return -(j + 1)
            return j + 3 if s.startswith("\n", j + 2) else j + 2
        if "0" <= c <= "7":
            m = _octal(s, j + 1)
            if m.end() - j - 1 < 3 and m.end() >= n and not eof:
                return -(j + 1)
            runs.append(chr(int(m.group(), 8)))
            return m.end()
        size = _HEX_ESCAPES.get(c)
        if size is not None:
            digits = _hex_digits(s, j + 2, j + 2 + size).group()
            if len(digits) < size:
                if j + 2 + len(digits) >= n:
                    return n if eof else -(j + 1)  # cut off at the end: dropped
                self._bad(f"truncated \\{c} escape", base + j)
            code = int(digits, 16)
            if code > 0x10FFFF:
                self._bad("a \\U escape beyond U+10FFFF", base + j)
            runs.append(chr(code))
            return j + 2 + size
        if c == "N":
            return self._named_escape(s, j, base, eof)
        runs.append(s[j : j + 2])  # an unknown escape keeps its backslash, as Python does
        return j + 2

    def _named_escape(self, s: str, j: int, base: int, eof: bool) -> int:
        n = len(s)
        if j + 2 >= n:
            return n if eof else -(j + 1)
        if not s.startswith("{", j + 2):
            self._bad("malformed \\N{...} escape", base + j)
        end = s.find("}", j + 3, j + 3 + _MAX_NAME_ESCAPE)
        if end < 0:
            if n < j + 3 + _MAX_NAME_ESCAPE:
                return n if eof else -(j + 1)
            self._bad("malformed \\N{...} escape", base + j)
        import unicodedata

        try:
            self._runs.append(unicodedata.lookup(s[j + 3 : end]))
        except KeyError:
            self._bad(f"unknown Unicode character name {s[j + 3 : end]!r}", base + j)
        return end + 1

    def _string_end(self, s: str, i: int, base: int, eof: bool) -> int:
        """After a closing quote: an adjacent string continues this one, or it is done.
        At the root with ``trailing="ignore"`` a string ends at its quote (what follows
        is the tail)."""
        n = len(s)
        if self._stack[-1].kind == _ROOT and self._trailing == "ignore":
            self._string_done(base + i)
            return i
        j = _ws_run(s, i).end()
        if j >= n:
            return n
        c = s[j]
        if c == "#":
            self._tok, self._tok_text = _T_COMMENT, "#"
            return j + 1
        if c == "'" or c == '"':
            return self._open_string(s, j, base, eof, "", j)
        m = _prefix_quote(s, j)
        if m is not None:
            if m.group(2):
                prefix = m.group(1)
                if prefix not in _PREFIXES:
                    self._refused_prefix(prefix, base + j)
                return self._open_string(s, m.start(2), base, eof, prefix, j)
            if m.end() >= n and not eof:
                return -(j + 1)  # maybe a prefix: wait for the quote
        self._string_done(base + j)
        return j

    def _refused_prefix(self, prefix: str, pos: int) -> NoReturn:
        low = prefix.lower()
        if "b" in low:
            self._bad("a bytes literal has no JSON form", pos)
        if "f" in low:
            self._bad("an f-string is code, not a literal", pos)
        self._bad(f"unknown string prefix {prefix!r}", pos)

    def _string_done(self, pos: int) -> None:
        self._write_back()
        target = self._str_target
        assert target is not None
        value = self._str
        if target.quiet:
            target.obj[target.key] = value
        elif target.sink is not None:
            target.sink.append(ValueEnd(target.path, value))
        self._str_target = None
        self._str = ""
        self._tok = _T_NONE
        self._done(pos)

    # ---------------------------------------------------------------- numbers and names

    def _number(self, s: str, i: int, base: int, eof: bool) -> int:
        n = len(s)
        text = self._tok_text
        while True:
            j = _number_run(s, i).end()
            text += s[i:j]
            i = j
            if (
                i < n
                and s[i] in "+-"
                and text[-1:] in ("e", "E")
                and not text.lstrip("-+").lower().startswith("0x")
            ):
                text += s[i]
                i += 1
                continue
            break
        limit = self._limits[0]
        if limit is not None and len(text.lstrip("+-")) > limit:
            raise LiteralLimitExceeded(
                f"number longer than max_token_chars={limit}", self._tok_at + limit
            )
        if i >= n:
            self._tok_text = text
            return n
        self._end_number(text)
        return i

    def _end_number(self, text: str) -> None:
        self._tok = _T_NONE
        self._tok_text = ""
        self._scalar(self._number_value(text), "number", self._tok_at)

    def _number_value(self, text: str) -> Any:
        sign = ""
        if text[0] in "+-":
            sign, text = text[0], text[1:]
        at = self._tok_at
        if _INT(text):
            digits = len(text) - text.count("_")
            limit = self._limits[2]
            plain = not text[1:2].isalpha()
            if plain and digits > limit:
                raise LiteralLimitExceeded(f"an int of more than max_int_digits={limit} digits", at)
            number: Any = int(text, 0) if not set(text) <= {"0", "_"} else 0
        elif _FLOAT(text):
            number = float(text)
        elif _IMAGINARY(text):
            self._bad("a complex number has no JSON form", at)
        elif text == ".":
            self._bad("expected a value, found '.'", at)
        else:
            self._bad(f"not a number: {text!r}", at)
        return -number if sign == "-" else number

    def _sign(self, s: str, i: int, base: int, eof: bool) -> int:
        """After a unary sign: blanks, then the number it applies to."""
        n = len(s)
        i = _ws_run(s, i).end()
        if i >= n:
            return n
        if s[i] not in _NUMBER_START:
            self._bad(f"expected a number after {self._tok_text!r}", base + i)
        self._tok = _T_NUMBER  # the sign stays at the start of the token text
        return i

    def _name(self, s: str, i: int, base: int, eof: bool) -> int:
        n = len(s)
        j = _name_run(s, i).end()
        text = self._tok_text + s[i:j]
        limit = self._limits[0]
        if limit is not None and len(text) > limit:
            raise LiteralLimitExceeded(
                f"name longer than max_token_chars={limit}", self._tok_at + limit
            )
        if j >= n:
            self._tok_text = text
            return n
        if s[j] in "'\"" and text in _ALL_PREFIXES:
            if text not in _PREFIXES:
                self._refused_prefix(text, self._tok_at)
            self._tok, self._tok_text = _T_NONE, ""
            return self._open_string_at(s, j, base, eof, text)
        literal = _LITERALS.get(text, _NOT_LITERAL)
        if literal is not _NOT_LITERAL:
            self._tok, self._tok_text = _T_NONE, ""
            self._scalar(literal, _LITERAL_KIND[literal], self._tok_at)
            return j
        self._tok, self._tok_text = _T_NAME_END, text
        return j

    def _open_string_at(self, s: str, j: int, base: int, eof: bool, prefix: str) -> int:
        """A prefixed string whose quote is at ``s[j]``; the prefix was read as a name
        (maybe in an earlier feed), so hold only from the quote."""
        at = self._tok_at - base  # where the prefix began, in ``s`` (maybe negative)
        q = s[j]
        n = len(s)
        if j + 2 < n or eof or (j + 1 < n and s[j + 1] != q):
            return self._open_string(s, j, base, eof, prefix, at)
        # undecided quotes: hold them, and remember the prefix as a name token
        self._tok, self._tok_text = _T_NAME, prefix
        return -(j + 1)

    def _name_end(self, s: str, i: int, base: int, eof: bool) -> int:
        """After a name that is not a literal: a call, a keyword, or an error."""
        n = len(s)
        i = _ws_run(s, i).end()
        name = self._tok_text
        if i >= n:
            return n
        c = s[i]
        frame = self._stack[-1]
        if c == "(":
            if not self._calls or frame.quiet or not self._call_allowed(frame):
                self._bad(f"a call ({name}(...)) is not a literal here", self._tok_at)
            if not all(part.isidentifier() for part in name.split(".")):
                self._bad(f"not a function name: {name!r}", self._tok_at)
            self._tok, self._tok_text = _T_NONE, ""
            start = self._tok_at
            self._open(_CALL, PyCall(name, start=start, args_start=base + i + 1), "call", start)
            return i + 1
        if c == "=" and frame.kind == _CALL and frame.kw is None and frame.expect == _X_VALUE:
            if i + 1 >= n and not eof:
                return -(i + 1)
            if not s.startswith("=", i + 1):
                if not name.isidentifier():
                    self._bad(f"not a keyword name: {name!r}", self._tok_at)
                if name in frame.value.kwargs:
                    self._bad(f"keyword argument {name!r} repeated", self._tok_at)
                frame.kw = name
                frame.kw_seen = True
                frame.closer_ok = False
                self._tok, self._tok_text = _T_NONE, ""
                return i + 1
        self._bad(f"the name {name!r} is not a literal", self._tok_at)

    def _call_allowed(self, frame: _Frame) -> bool:
        stack = self._stack
        if frame.kind == _ROOT:
            return True
        return len(stack) == 2 and frame.kind in (_LIST, _TUPLE, _PAREN)

    # ---------------------------------------------------------------- ends

    def _trail(self, text: str, pos: int) -> None:
        if text:
            self._tail.append(text)
            if self._events is not None:
                self._events.append(Skipped("trailing", pos, text))

    def _at_eof(self) -> None:
        """The end of the input: the token open there ends (a string that closed, a
        number, a literal); a cut-off number, name or sign is dropped; containers and
        a string left open stay as they are."""
        tok = self._tok
        if tok == _T_STR_END:
            self._string_done(self._pos)
        elif tok == _T_NUMBER:
            text = self._tok_text
            digits = text.lstrip("+-")
            if _INT(digits) or _FLOAT(digits) or _IMAGINARY(digits):
                self._end_number(text)
            elif not (_INT(digits + "0") or _FLOAT(digits + "0")):
                self._bad(f"not a number: {digits!r}", self._tok_at)
        elif tok in (_T_NAME, _T_NAME_END):
            name = self._tok_text
            literal = _LITERALS.get(name, _NOT_LITERAL)
            if literal is not _NOT_LITERAL:
                self._tok, self._tok_text = _T_NONE, ""
                self._scalar(literal, _LITERAL_KIND[literal], self._tok_at)
            elif not (tok == _T_NAME and (name in _ALL_PREFIXES or _literal_prefix(name))):
                frame = self._stack[-1]
                call = self._calls and not frame.quiet and self._call_allowed(frame)
                keyword = frame.kind == _CALL and frame.kw is None
                if not (call or keyword):  # a cut-off call or keyword is dropped
                    self._bad(f"the name {name!r} is not a literal", self._tok_at)
        if self._tok != _T_STRING:
            self._tok, self._tok_text = _T_NONE, ""


_ALL_PREFIXES = (
    _PREFIXES
    | {"b", "B", "f", "F"}
    | {a + b for a in "rR" for b in "bBfF"}
    | {b + a for a in "rR" for b in "bBfF"}
)
_prefix_quote = re.compile(r"([rRbBfFuU]{1,2})(['\"])?").match
_NOT_LITERAL = object()


def _literal_prefix(name: str) -> bool:
    """Whether ``name`` may be a literal cut off (``Tru``)."""
    return any(word.startswith(name) for word in _LITERALS)


def _replay(buffer: list[PathEvent] | None, prefix: Path, sink: list[PathEvent]) -> None:
    """The events a parenthesis held, now that its value's path is known."""
    for ev in buffer or ():
        if isinstance(ev, ValueStart):
            sink.append(ValueStart((*prefix, *ev.path), ev.kind))
        elif isinstance(ev, StringDelta):
            sink.append(StringDelta((*prefix, *ev.path), ev.text))
        elif isinstance(ev, ValueEnd):
            sink.append(ValueEnd((*prefix, *ev.path), ev.value))


def _detached(value: Any) -> Any:
    """A deep copy of a value that may hold calls (at the root or in a root list)."""
    if isinstance(value, PyCall):
        return value.copy()
    if type(value) is list and any(isinstance(v, PyCall) for v in value):
        return [v.copy() if isinstance(v, PyCall) else deep_copy(v) for v in value]
    return deep_copy(value)


def parse_pyliteral(text: str | bytes, **options: Any) -> Any:
    """``feed(text)`` then ``finish()`` of a fresh :class:`PyLiteralStream`."""
    stream = PyLiteralStream(**options)
    stream.feed(text)
    return stream.finish()

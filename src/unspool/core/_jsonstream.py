"""The incremental partial-JSON parser: ``feed(chunk)`` costs O(len(chunk)).

:class:`JsonStream` keeps a live value that grows as text arrives, following
the contract in ``spec/partial-json.md``: containers appear at once and stay the
same objects; strings grow; numbers and literals appear only once complete;
nothing is ever guessed, so the live value never flickers or changes type.

How it stays linear (and fast) in pure Python:

* The state machine is a generator: ``feed`` is one ``send``, and all parser
  state lives in the generator's local variables between calls.
* Runs of string characters, whitespace and number characters are consumed
  by compiled regular expressions; a string that closes inside the chunk is
  decoded by the stdlib's C ``scanstring``; a whole object or array that
  closes inside a large chunk is decoded by the stdlib's C scanner.
* An in-flight string is extended in place (its slot in the live container is
  released while it grows, so CPython can resize it without copying), and its
  slot is refreshed once per ``feed``.
* Only what cannot be decided yet is held back (an escape, a partial literal,
  a lookahead of lenient mode) and prepended to the next chunk: a few
  characters, never the consumed input.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator
from contextlib import suppress
from json import JSONDecoder
from json.decoder import scanstring  # type: ignore[attr-defined]
from types import GeneratorType
from typing import Any, NamedTuple, NoReturn, cast

from unspool.core import _lexicon as lx
from unspool.core._decisions import (
    _NOT_TOKEN,
    _close_verdict,
    _neg_infinity,
    _Search,
)
from unspool.core._errors import (
    HOOK_FAILED,
    REENTRY,
    UNSET,
    LimitExceeded,
    MalformedJSON,
)
from unspool.core._live import (
    _close,
    _end_string,
    _odd_quote,
    _put,
    _release,
    _repair,
    _set_slot,
    _too_deep,
    _too_long,
    _trailing_comma,
    _unicode_space,
)
from unspool.core._machine_steps import (
    _AFTER,
    _COLON,
    _COMMENT,
    _ELEM,
    _ELEM_FIRST,
    _END,
    _FENCED,
    _GO,
    _KEY,
    _KEY_FIRST,
    _NUM_DONE,
    _NUM_SLASH,
    _NUM_TOKEN,
    _NUMBER,
    _PREAMBLE,
    _QUOTED,
    _STRING,
    _UKEY,
    _UVAL,
    _VALUE,
    _WAIT,
    _giveback,
    _number_end,
    _step_after_root,
    _step_after_value,
    _step_colon,
    _step_comment,
    _step_end,
    _step_key,
    _step_number,
    _step_preamble,
    _step_setup,
    _step_string,
    _step_token,
    _step_value,
    _to_token,
)
from unspool.core._machines import new_stream
from unspool.core._numbers import number_value
from unspool.core._path_events import DEEP_STRING_DELTA as _DEEP_SD
from unspool.core._path_events import DEEP_VALUE_END as _DEEP_VE
from unspool.core._path_events import (
    Path,
    PathEvent,
    Repair,
    StringDelta,
    ValueEnd,
)
from unspool.core._quotes import CLOSE, UNDECIDED
from unspool.core._repairs import say
from unspool.core._snapshot import deep_copy, max_depth
from unspool.core._state import Giveback, Handover

__all__ = ["REPAIRS_KEPT", "JsonStream", "parse_partial"]

_FAST_MIN = 256  # the C scanner is tried on a container when this much input is buffered
_FAST_MAX_DEPTH = 64  # ... and only this close to the root (a failed try costs a scan)


class _Options(NamedTuple):
    """A parser's options after validation, by name (the machine reads them into locals once)."""

    skip_preamble: bool
    trailing: str  # "error" or "ignore"
    allow_inf_nan: bool
    max_depth: int
    max_token_chars: int | None
    max_document_chars: int | None
    max_int_digits: int
    parse_float: Callable[[str], Any] | None
    parse_int: Callable[[str], Any] | None


class JsonStream:
    """Incremental parser of one JSON value (see the module docstring).

    Options:

    * ``events``: collect path events, read with :meth:`feed_events` and
      :meth:`finish_events`; when off they cost nothing.
    * ``lenient``: ``True`` accepts every deviation in
      :data:`unspool.core._lexicon.LENIENT_KINDS` (trailing commas, single
      quotes, unquoted keys, comments, Python literals, raw control characters,
      missing commas, unescaped inner quotes, ``NaN``/``Infinity``), each
      recorded as a :class:`Repair`; a collection of kind names allows only those.
    * ``skip_preamble``: skip prose, a ````json`` fence line and
      ``<think>`` blocks before the value (implies ``trailing="ignore"``).
    * ``trailing``: ``"error"`` (strict JSON) or ``"ignore"``: text after the root
      value is kept in :attr:`tail` instead of failing.
    * ``allow_inf_nan``: accept ``NaN``, ``Infinity``, ``-Infinity`` (as ``json.loads`` does).
    * Limits, each raising :class:`LimitExceeded`: ``max_depth`` (nesting),
      ``max_token_chars`` (one string, key or number), ``max_document_chars``
      (everything fed), ``max_int_digits`` (an integer's digits).
    * ``parse_float`` / ``parse_int``: as in :func:`json.loads`.
    * ``release_items`` (needs ``events``): when the root is an array, each of its
      items is handed over by its :class:`ValueEnd` event and then dropped from the
      live root list (at the end of the ``feed`` that ended it, and before the
      array's own ``ValueEnd``), so memory stays bounded by the largest item, not
      the document, as ijson's ``items`` does.  Paths keep absolute indices.  The
      live :attr:`value` is then the root list holding only the item still open
      (or nothing); ``finish()`` returns it likewise (an item cut off at the end is
      kept, an item the end completed is released), and the root's ``ValueEnd``
      carries the empty list.  A root object or scalar is unaffected.  :attr:`repairs`
      then keeps only the last :data:`REPAIRS_KEPT` repairs (each also went out as a
      :class:`Repair` event); :attr:`repair_count` counts them all.
    """

    __slots__ = (
        "_complete",
        "_decoder",
        "_error",
        "_events",
        "_fast",
        "_finished",
        "_gen",
        "_kinds",
        "_mode",
        "_opts",
        "_pos",
        "_release",
        "_repairs",
        "_root",
        "_send",
        "_tail",
    )

    def __new__(cls, **options: Any) -> JsonStream:
        """Make the parser on the machine that runs ``options``: the C one when it can
        (see :mod:`unspool.core._machines`), else this module's reference machine."""
        return new_stream(cls, options)  # type: ignore[no-any-return]

    def __init__(
        self,
        *,
        events: bool = False,
        lenient: bool | Collection[str] = False,
        skip_preamble: bool = False,
        trailing: str | None = None,
        allow_inf_nan: bool = False,
        max_depth: int = 1000,
        max_token_chars: int | None = None,
        max_document_chars: int | None = None,
        max_int_digits: int = 4300,
        parse_float: Callable[[str], Any] | None = None,
        parse_int: Callable[[str], Any] | None = None,
        release_items: bool = False,
    ) -> None:
        if release_items and not events:
            raise ValueError("release_items=True needs events=True (items leave by their ValueEnd)")
        kinds = _kinds_of(lenient)
        if trailing is None:
            trailing = "ignore" if skip_preamble else "error"
        if trailing not in ("error", "ignore"):
            raise ValueError("trailing must be 'error' or 'ignore'")
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self._kinds: frozenset[str] = kinds
        self._opts = _Options(
            skip_preamble=skip_preamble,
            trailing=trailing,
            allow_inf_nan=allow_inf_nan,
            max_depth=max_depth,
            max_token_chars=max_token_chars,
            max_document_chars=max_document_chars,
            max_int_digits=max_int_digits,
            parse_float=parse_float,
            parse_int=parse_int,
        )
        self._events: list[PathEvent] | None = [] if events else None
        self._release = release_items
        self._repairs: list[Repair] = _RepairWindow() if release_items else []
        self._root: Any = UNSET
        self._complete = False
        self._finished = False
        # a MalformedJSON, or a RuntimeError(HOOK_FAILED) once a parse hook raised
        self._error: BaseException | None = None
        self._tail: list[str] = []
        self._pos = 0
        self._mode: type | None = None
        self._decoder: Any = None
        self._gen = self._machine()
        self._send = self._gen.send
        next(self._gen)
        self._fast = False  # str chunks, no document limit, not finished, not failed

    # ------------------------------------------------------------------ public API

    @property
    def value(self) -> Any:
        """The live root value (the same object across feeds), or ``UNSET``."""
        return self._root

    @property
    def complete(self) -> bool:
        """True once the root value closed on real input (lenient mode may still read
        stray closers after it; see :attr:`tail`)."""
        return self._complete

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` was called."""
        return self._finished

    @property
    def pos(self) -> int:
        """Characters fed so far (the offset used by errors and repairs)."""
        return self._pos

    @property
    def tail(self) -> str:
        """Text that followed the root value (with ``trailing="ignore"``): from the first
        character that is not a lenient repair (a stray closer) to the end of the input."""
        if len(self._tail) > 1:
            self._tail[:] = ["".join(self._tail)]
        return self._tail[0] if self._tail else ""

    @property
    def repairs(self) -> list[Repair]:
        """What lenient mode repaired so far, in stream order (with ``release_items``,
        the last :data:`REPAIRS_KEPT` of them)."""
        return self._repairs

    @property
    def repair_count(self) -> int:
        """How many repairs lenient mode made so far (:attr:`repairs` may keep fewer)."""
        kept = self.repairs  # (the C machine's own property)
        return len(kept) + (kept.dropped if type(kept) is _RepairWindow else 0)

    def feed(self, chunk: str | bytes) -> Any:
        """Consume ``chunk`` and return the live root value (or ``UNSET``)."""
        if self._fast and type(chunk) is str:
            # the common case, kept short: ~1 us per call matters at 4-8 character chunks
            self._pos += len(chunk)
            try:
                self._send(chunk)
            except MalformedJSON as exc:
                self._fail(exc)
            except BaseException as exc:
                self._stopped(exc, len(chunk))
            return self._root
        self._refuse_reentry()
        if self._error is not None:
            raise self._error
        if self._finished:
            raise RuntimeError("feed() after finish()")
        text = self._decode(chunk)
        if text:
            limit = self._opts.max_document_chars
            if limit is not None and self._pos + len(text) > limit:
                head = text[: limit - self._pos]
                if head:
                    self._pos += len(head)
                    try:
                        self._gen.send(head)
                    except MalformedJSON as exc:
                        self._fail(exc)
                    except BaseException as exc:
                        self._stopped(exc, len(head))
                self._fail(LimitExceeded(f"document longer than max_document_chars={limit}", limit))
            self._pos += len(text)
            try:
                self._gen.send(text)
            except MalformedJSON as exc:
                self._fail(exc)
            except BaseException as exc:
                self._stopped(exc, len(text))
        return self._root

    def finish(self) -> Any:
        """Close what is open and return the final value (or ``UNSET``). Idempotent."""
        self._refuse_reentry()
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
            self._fast = False
            try:
                self._gen.send(None)
            except StopIteration:
                pass  # the machine ran to its end: finish() has nothing more to report
            except MalformedJSON as exc:
                self._fail(exc)
            except BaseException as exc:
                self._stopped(exc, 0)
        return self._root

    def _refuse_reentry(self) -> None:
        """A parse hook that calls back into the parser running it is refused before
        anything changes (as a generator refuses to resume itself, and as the C machine
        does)."""
        if _running(self._gen):
            raise ValueError(REENTRY)

    def _stopped(self, exc: BaseException, fed: int) -> NoReturn:
        """The machine raised ``exc``, not a MalformedJSON, on a call that counted ``fed``
        characters: it refused to run inside itself (nothing changed: the characters
        are given back), or a parse hook raised and the machine is gone: ``exc`` goes to
        the caller, and every later feed or finish raises ``RuntimeError(HOOK_FAILED)``,
        as on the C machine."""
        tb = exc.__traceback__
        if type(exc) is ValueError and tb is not None and tb.tb_next is None:
            # raised by send() itself, the machine not entered: it runs in another
            # thread (which got past _refuse_reentry first)
            self._pos -= fed
            raise ValueError(REENTRY) from None
        self._fast = False
        self._error = RuntimeError(HOOK_FAILED)
        cause = exc.__cause__
        if type(exc) is RuntimeError and type(cause) is StopIteration and exc.__context__ is cause:
            # the generator turned a hook's StopIteration into a RuntimeError (PEP 479):
            # the hook's own exception goes on, as it does out of the C machine
            raise cause from None
        raise exc

    def feed_events(self, chunk: str | bytes) -> list[PathEvent]:
        """Feed ``chunk`` and return the path events it produced (needs ``events=True``).

        If the chunk is malformed, :class:`MalformedJSON` is raised and the events
        produced before the offending character are left for :meth:`take_events`.
        """
        events = self._events
        if events is None:
            events = self._need_events()  # raises
        self.feed(chunk)
        if not events:
            return []
        out = events[:]
        events.clear()
        return out

    def finish_events(self) -> list[PathEvent]:
        """Call :meth:`finish` and return the path events it produced (needs ``events=True``)."""
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
        """A detached deep copy of the live value (iterative: no recursion limit).
        ``ValueError`` when code outside the parser put a container inside itself."""
        return deep_copy(self._root)

    def __repr__(self) -> str:
        state = "complete" if self._complete else "finished" if self._finished else "streaming"
        return f"<JsonStream {state} pos={self._pos} value={self._root!r:.60}>"

    # ------------------------------------------------------------------ helpers

    def _need_events(self) -> list[PathEvent]:
        if self._events is None:
            raise ValueError("path events are off: create the parser with JsonStream(events=True)")
        return self._events

    def _decode(self, chunk: str | bytes) -> str:
        kind = type(chunk)
        if kind is str:
            if self._mode is bytes:
                raise TypeError("cannot mix str and bytes chunks in one stream")
            if self._mode is None:
                self._mode = str
                self._fast = self._opts.max_document_chars is None
            return chunk  # type: ignore[return-value]
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            if self._mode is str:
                raise TypeError("cannot mix str and bytes chunks in one stream")
            if self._mode is None:
                import codecs

                self._mode = bytes
                self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
            try:
                text: str = self._decoder.decode(bytes(chunk))
            except UnicodeDecodeError as exc:
                self._bad_utf8(exc)
            return text
        raise TypeError(f"feed() takes str or bytes, not {kind.__name__}")

    def _bad_utf8(self, exc: UnicodeDecodeError) -> NoReturn:
        """Parse the valid text before the bad byte (its errors come first), then fail
        at the bad byte's character offset."""
        good = exc.object[: exc.start].decode("utf-8")
        if self._pos == 0 and good.startswith("\ufeff"):
            good = good[1:]
        self._decoder = None
        if good:
            self._pos += len(good)
            try:
                self._gen.send(good)
            except MalformedJSON as err:
                self._fail(err)
            except BaseException as err:
                self._stopped(err, len(good))
        self._fail(MalformedJSON(f"invalid UTF-8 ({exc.reason})", self._pos))

    def _fail(self, exc: MalformedJSON) -> NoReturn:
        self._fast = False
        if exc.partial is UNSET:
            with suppress(ValueError):  # a cycle the caller added: no copy (as in C)
                exc.partial = deep_copy(self._root)
        self._error = exc
        raise exc

    def _c_scanner(self) -> Callable[[str, int, int], tuple[Any, int]] | None:
        """The stdlib's C scanner configured like this parser, or None when it cannot
        honour the options (events, lenient, token limits): ``scan(s, i, budget)`` reads
        the whole container at ``s[i]`` nested at most ``budget`` deep, returning its
        value and where it ends, or ``(None, -1)`` (not closed here, or invalid: the
        machine reads it as always)."""
        opts = self._opts
        if self._events is not None or self._kinds or opts.max_token_chars is not None:
            return None
        max_int = opts.max_int_digits
        parse_int = opts.parse_int

        def reject_constant(name: str) -> Any:
            raise ValueError(name)

        if max_int < 4300:
            base_int = parse_int or int

            def parse_int_limited(text: str) -> Any:
                if len(text) - (text[0] == "-") > max_int:
                    raise ValueError("too many digits")
                return base_int(text)

            parse_int = parse_int_limited
        decoder = JSONDecoder(
            parse_float=opts.parse_float,
            parse_int=parse_int,
            parse_constant=None if opts.allow_inf_nan else reject_constant,
            strict=True,
        )
        scan_once = decoder.scan_once  # type: ignore[attr-defined]

        def scan(s: str, i: int, budget: int) -> tuple[Any, int]:
            try:
                val, j = scan_once(s, i)
            except (StopIteration, ValueError, RecursionError, ArithmeticError):
                # (ArithmeticError: a parse hook refused a number of a container that
                # may not even close here, as Decimal does "1e1000000000000000000")
                return None, -1
            if (
                s.count("{", i, j) + s.count("[", i, j) <= budget
                or max_depth(val, budget) <= budget
            ):
                return val, j
            return None, -1

        return scan

    # ------------------------------------------------------------------ the machine

    def _machine(  # noqa: C901 (the driver: its hot steps stay inline)
        self, resume: Handover | None = None
    ) -> Generator[Giveback | None, str | None, None]:
        """The parser's driver: one loop over the characters of the chunks sent in.

        Each turn takes one step in the current state, in this order: the chunk
        boundary, a string, the states past ``_STRING`` (number, token, comment,
        preamble, after the root), blanks, after a value, a value, a key, the colon;
        then the end of input.  The hot steps are inline, each opened by a
        ``# step: <name>`` comment; the cold ones are the ``_step_<name>`` functions of
        :mod:`unspool.core._machine_steps`, sharing a ``StepState`` with this loop.

        ``resume``: the C machine hands a lenient stream over here (see :func:`_resume`)
        with its state and its text, a :class:`~unspool.core._state.Handover`; the machine
        goes on from there.  When ``resume.give_back`` asks for it (a stream offset, -1:
        never), the machine gives the stream back at the next comma between members, or
        chunk boundary, past that offset in a state the C machine reads (nothing held
        back): it yields that state and the rest of the text (``s`` None at a boundary)
        as a :class:`~unspool.core._state.Giveback`, and ends.
        """
        # step: setup
        m = _step_setup(self, resume)
        max_depth_, max_tok, max_int = self._opts.max_depth, m.max_tok, m.max_int
        evs, repairs, parse_float, parse_int = m.evs, m.repairs, m.parse_float, m.parse_int
        k_inner, k_mquote, k_token, k_space = m.k_inner, m.k_mquote, m.k_token, m.k_space
        literals, neg_inf_tag, escapes = m.literals, m.neg_inf_tag, m.escapes
        value_quotes, key_quotes, quote_openers = m.value_quotes, m.key_quotes, m.quote_openers
        scan, release = self._c_scanner(), self._release
        ws_run, number_run, WS, NUM0 = lx.ws_run, lx.number_run, lx.WHITESPACE, lx.NUMBER_START
        new_event = tuple.__new__  # builds a path event without its Python-level __new__
        str_run = lx.dq_run
        special: _Search = lx.dq_special  # finds what ends a run of plain string text

        stack = m.stack  # open containers, innermost last
        cpaths = m.cpaths  # their paths (events only)
        rlist = m.rlist  # release_items: the root array, once open
        key: Any = None  # the key whose value is expected in the innermost object
        state = _PREAMBLE if m.preamble is not None else _VALUE
        # the in-flight string: its text, quote (and qalt: the other characters that may
        # close a string opened by a curly quote), whether it is a key
        sbuf, quote, qalt, is_key = "", '"', "", False
        s_cont: Any = None  # container holding the string (None: the root)
        s_key: Any = None  # its key (objects) or None (arrays)
        s_path: Path = ()
        d_start = 0  # length of sbuf already reported by StringDelta
        s_pos = 0  # stream offset of its opening quote
        nbuf, n_pos = "", 0  # the in-flight number, its stream offset
        shift = 0  # release_items: how many of the root array's items were released

        carry = ""  # undecided text, prepended to the next chunk
        eof = False  # finish() came: the held text is read once more, then the machine ends
        base = 0  # stream offset of s[0]
        back = False  # resumed for the C machine, which takes the stream back when it can
        give_back = 0  # ... once the machine read up to this stream offset
        i = 0
        if resume is None:
            s = yield None
            if s is None:  # finish() before any input
                return
        else:
            # the state the C machine reached at s[i] (a Handover: see unspool.core._state)
            h = resume
            key, state, shift, is_key, sbuf = h.key, h.state, h.shift, h.is_key, h.sbuf
            s_path, d_start, s_pos, nbuf, n_pos = h.s_path, h.d_start, h.s_pos, h.nbuf, h.n_pos
            base, eof, s, i, give_back = h.base, h.eof, h.s, h.i, h.give_back
            back = give_back >= 0 and not eof  # at the end of input the machine ends the stream
            if state == _STRING:
                quote, qalt, str_run, special = (key_quotes if is_key else value_quotes)[h.quote]
                if stack and not is_key:
                    s_cont = stack[-1]
                    s_key = None if type(s_cont) is list else key
        n = len(s)

        try:
            while True:
                # step: boundary
                if i >= n:
                    if state == _STRING and not is_key:
                        # Streaming a string value: chunks of plain text take this short loop.
                        while True:
                            if s_key is not None:
                                s_cont[s_key] = sbuf
                            elif s_cont is not None:
                                s_cont[-1] = sbuf
                            else:
                                self._root = sbuf
                            if evs is not None and len(sbuf) > d_start:
                                sd = StringDelta if type(s_path) is tuple else _DEEP_SD
                                evs.append(new_event(sd, (s_path, sbuf[d_start:])))
                                d_start = len(sbuf)
                            if rlist and len(rlist) > 1:  # release_items: all but the open last
                                shift = _release(rlist, 1, shift)  # item have ended
                            base += n
                            s = None if eof else (yield None)
                            if s is None:
                                if eof or not carry:
                                    break
                                # finish(): decide what was held, the end as its delimiter
                                eof = True
                                back = False  # (and the machine ends the stream)
                                s = ""
                            if carry:
                                s = carry + s
                                base -= len(carry)
                                carry = ""
                            n = len(s)
                            # release the slot so the string can grow in place
                            if s_key is not None:
                                s_cont[s_key] = ""
                            elif s_cont is not None:
                                s_cont[-1] = ""
                            else:
                                self._root = ""
                            match = special(s)
                            if match is not None:
                                i = match.start()
                                if i:
                                    sbuf += s[:i]
                                break
                            sbuf += s
                            if max_tok is not None and len(sbuf) > max_tok:
                                raise _too_long("string", max_tok, s_pos)
                        if s is None:
                            break
                        continue
                    if rlist:  # release_items: drop the items whose ValueEnd went out
                        shift = _release(rlist, len(stack) > 1, shift)
                    base += n
                    if (
                        back
                        and not carry
                        and base >= give_back
                        and (state <= _AFTER or state == _END)
                    ):
                        # resumed for the C machine: it takes the stream back from here
                        yield _giveback(m, key, state, shift, None, 0)
                        return
                    s = None if eof else (yield None)
                    if s is None:
                        if eof or not carry:
                            break
                        eof = True
                        back = False
                        s = ""
                    if carry:
                        s = carry + s
                        base -= len(carry)
                        carry = ""
                    n = len(s)
                    i = 0
                    continue

                # step: string
                if state == _STRING:
                    while True:
                        j = str_run(s, i).end()
                        if j != i:
                            sbuf += s[i:j]
                            i = j
                        if i >= n:
                            break
                        c = s[i]
                        closes = c == quote and not qalt
                        if closes and k_inner and not is_key:  # (the common verdicts, inline)
                            verdict = _close_verdict(s, i + 1, eof, stack, sbuf)
                            if verdict == UNDECIDED:
                                carry, i = s[i:], n
                                break
                            closes = verdict == CLOSE
                        if closes:
                            i += 1
                            how = _QUOTED
                        else:
                            if c == "\\" and i + 1 < n:
                                dec = escapes.get(s[i + 1])
                                if dec is not None and (dec != "'" or quote == "'"):
                                    sbuf += dec
                                    i += 2
                                    continue
                            text, i, how = _step_string(
                                m, s, i, base, eof, sbuf, quote, qalt, is_key
                            )
                            if how == _GO:
                                sbuf += text
                                continue
                            if how == _WAIT:
                                carry, i = s[i:], n
                                break
                        # the string ends: at its quote, or (missing_quote) at a , ] or }
                        if how == _QUOTED and max_tok is not None and len(sbuf) > max_tok:
                            raise _too_long("string", max_tok, s_pos)
                        if is_key:
                            key = sbuf
                            state = _COLON
                        else:
                            _end_string(self, s_cont, s_key, sbuf, evs, s_path, d_start)
                            state = _AFTER if stack else _END
                        sbuf = ""
                        s_cont = None
                        break
                    if max_tok is not None and len(sbuf) > max_tok:
                        raise _too_long("string", max_tok, s_pos)
                    continue

                c = s[i]
                if state > _STRING:
                    # step: number
                    if state == _NUMBER:
                        if nbuf == "-" and c == "I" and neg_inf_tag is not None:
                            # "-" ended the last chunk and "Infinity" follows: re-read as a literal
                            s, base, i, state, nbuf = "-" + s[i:], base + i - 1, 0, _VALUE, ""
                            n = len(s)
                            continue
                        j = number_run(s, i).end()
                        if len(nbuf) < 100 or lx.digits_run(s, i).end() < j:
                            ok = lx.number_prefix(nbuf + s[i:j], 0).end()
                            if ok != len(nbuf) + j - i:
                                state = _step_number(m, nbuf, n_pos, ok)
                                nbuf = ""
                                continue
                        nbuf += s[i:j]
                        i = j
                        if max_tok is not None and len(nbuf) > max_tok:
                            raise _too_long("number", max_tok, n_pos)
                        if i >= n:
                            continue
                        if k_token:
                            how = _number_end(s, i, eof, nbuf)
                            if how == _NUM_SLASH:
                                # "1/3" or a comment after 1: the next character says
                                carry, i = "/", n
                                continue
                            if how == _NUM_TOKEN:
                                # "12abc", or "01", "1." or "-" at a chunk's end: decided as
                                # a token, as when the same text arrives in one chunk
                                state = _to_token(m, nbuf, n_pos)
                                nbuf = ""
                                continue
                        val = number_value(parse_float, parse_int, max_int, nbuf, n_pos)
                        nbuf = ""
                        _put(self, stack, cpaths, key, shift, rlist, evs, val, "number", True)
                        if stack:
                            state = _AFTER
                        else:
                            state, m.glue = _END, True  # (a letter right after it is an error)
                    elif state in (_END, _FENCED):
                        i, state = _step_after_root(m, s, i, base, state)
                    elif state in (_UVAL, _UKEY):
                        i, state, carry, key = _step_token(m, s, i, base, eof, state, key, shift)
                    elif state == _COMMENT:
                        i, state, carry = _step_comment(m, s, i, base, eof)
                    else:
                        i, state, carry = _step_preamble(m, s, i, base)
                    continue

                if c in WS:
                    i = ws_run(s, i).end()
                    continue
                if c == "`" and m.k_fence and stack:
                    # '{"a": "b"```': a closing fence before the closers: the rest is trailing text
                    if s.startswith("```", i):
                        state = _FENCED
                        continue
                    if n - i < 3 and not eof:
                        carry, i = s[i:], n
                        continue
                if k_space and c in lx.UNICODE_SPACES:
                    _unicode_space(repairs, evs, base + i)
                    i += 1
                    continue

                # step: after_value
                if state == _AFTER:
                    top = stack[-1]
                    if c == ",":
                        i += 1
                        if i < n and s[i] in WS:  # whitespace after the delimiter, at once
                            i = ws_run(s, i + 1).end()
                        state = _ELEM if type(top) is list else _KEY
                        if back and base + i >= give_back and s[i : i + 1] in _C_NEXT[state]:
                            # resumed for the C machine: it reads the next item or '"' key
                            yield _giveback(m, key, state, shift, s, i)
                            return
                        continue
                    if (c == "]" and type(top) is list) or (c == "}" and type(top) is dict):
                        # the common close, inline (see _close)
                        stack.pop()
                        if top is rlist:
                            shift += len(top)
                            top.clear()  # release_items: every item went out with its ValueEnd
                        if evs is not None:
                            p = cpaths.pop()
                            ve = ValueEnd if type(p) is tuple else _DEEP_VE
                            evs.append(new_event(ve, (p, top)))
                        i += 1
                        if not stack:
                            state = _END
                            self._complete = True
                        continue
                    i, state, carry, shift = _step_after_value(m, s, i, base, eof, shift)
                    continue

                # step: value
                if state <= _ELEM:
                    if c == '"' and s.find('"', i + 1) >= 0:
                        # fast path: the whole string is in this chunk
                        try:
                            text, j = scanstring(s, i + 1, True)
                        except ValueError:
                            j = 0  # not closed cleanly in this chunk: read it incrementally
                        if j and (
                            not (k_inner or k_mquote)
                            or _close_verdict(s, j, eof, stack, text) == CLOSE
                        ):
                            if max_tok is not None and len(text) > max_tok:
                                raise _too_long("string", max_tok, base + i)
                            _put(self, stack, cpaths, key, shift, rlist, evs, text, "string", True)
                            state = _AFTER if stack else _END
                            i = j
                            continue
                    if c in quote_openers:
                        if c != '"':
                            _odd_quote(repairs, evs, c, base + i, "string")
                        # slow path: the string streams
                        if stack:
                            s_cont = stack[-1]
                            s_key = None if type(s_cont) is list else key
                        else:
                            s_cont = s_key = None
                        s_path = _put(
                            self, stack, cpaths, key, shift, rlist, evs, "", "string", False
                        )
                        quote, qalt, str_run, special = value_quotes[c]
                        state, is_key, sbuf, s_pos, d_start = _STRING, False, "", base + i, 0
                        m.ctrl_seen = False
                        i += 1
                        continue

                    if c == "{" or c == "[":
                        depth = len(stack)
                        if scan is not None and n - i >= _FAST_MIN and depth < _FAST_MAX_DEPTH:
                            val, j = scan(s, i, max_depth_ - depth)  # a whole container
                            if j > 0:
                                i = j
                                # (no events: the scanner runs only without them)
                                _put(self, stack, cpaths, key, 0, None, None, val, "", True)
                                state = _AFTER if stack else _END
                                continue
                        if depth >= max_depth_:
                            raise _too_deep(max_depth_, base + i)
                        new: Any = {} if c == "{" else []
                        kind = "object" if c == "{" else "array"
                        p = _put(self, stack, cpaths, key, shift, rlist, evs, new, kind, False)
                        if evs is not None:
                            cpaths.append(p)
                        if release and not stack and c == "[":
                            rlist = m.rlist = new
                        stack.append(new)
                        state = _KEY_FIRST if c == "{" else _ELEM_FIRST
                        i += 1
                        continue

                    if c == "]" and state != _VALUE:
                        if state == _ELEM:
                            _trailing_comma(m.k_trailing_comma, repairs, evs, base + i, "]")
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        i += 1
                        state = _AFTER if stack else _END
                        continue

                    # step: number (a scalar: numbers and literals are visible only once complete)
                    kind = "number"
                    pos = base + i
                    if c in NUM0:
                        j = number_run(s, i).end()
                        if j >= n:
                            nbuf = s[i:]
                            n_pos = pos
                            i = n
                            ok = lx.number_prefix(nbuf, 0).end()
                            if ok != len(nbuf):
                                state = _step_number(m, nbuf, pos, ok)
                                nbuf = ""
                                continue
                            if max_tok is not None and len(nbuf) > max_tok:
                                raise _too_long("number", max_tok, pos)
                            state = _NUMBER
                            continue
                        tok = s[i:j]
                        if max_tok is not None and j - i > max_tok:
                            raise _too_long("number", max_tok, pos)
                        if tok == "-" and neg_inf_tag is not None and s[j] == "I":
                            if not _neg_infinity(s, i, pos, neg_inf_tag, repairs, evs):
                                carry, i = s[i:], n
                                continue
                            val = float("-inf")
                            i += 9
                        else:
                            how = _number_end(s, j, eof, tok) if k_token else _NUM_DONE
                            if how == _NUM_SLASH:
                                nbuf = tok  # "1/3" or a comment after 1: the next character says
                                n_pos = pos
                                state = _NUMBER
                                carry, i = "/", n
                                continue
                            if how == _NUM_TOKEN:
                                # "12abc", "1/3", "2024-01-15", "01": a token, decided when it ends
                                i, state, carry, key = _step_token(
                                    m, s, i, base, eof, state, key, shift
                                )
                                continue
                            val = number_value(parse_float, parse_int, max_int, tok, pos)
                            i = j
                    elif k_token and c not in _NOT_TOKEN:  # "New York", "TRUE", "None" (lenient)
                        i, state, carry, key = _step_token(m, s, i, base, eof, state, key, shift)
                        continue
                    else:
                        # step: value (a whole literal; the rest is _step_value's)
                        for word, wval, wkind, tag in literals.get(c, ()):
                            if s.startswith(word, i):
                                if tag:
                                    _repair(repairs, evs, tag, pos, say(tag, tok=word))
                                val = wval
                                kind = wkind
                                i += len(word)
                                break
                        else:
                            i, state, carry, shift = _step_value(
                                m, s, i, base, eof, state, key, shift
                            )
                            continue
                    _put(self, stack, cpaths, key, shift, rlist, evs, val, kind, True)
                    if stack:
                        state = _AFTER
                    else:
                        state, m.glue = _END, True
                    continue

                # step: key
                if state in (_KEY_FIRST, _KEY):
                    if c in quote_openers:
                        if c != '"':
                            _odd_quote(repairs, evs, c, base + i, "key")
                        elif s.find('"', i + 1) >= 0:
                            try:
                                key, j = scanstring(s, i + 1, True)
                            except ValueError:
                                pass  # not closed cleanly in this chunk: read it incrementally
                            else:
                                if max_tok is not None and len(key) > max_tok:
                                    raise _too_long("key", max_tok, base + i)
                                i = j
                                state = _COLON
                                if i < n and s[i] == ":":  # the colon right after the key
                                    i += 1
                                    if i < n and s[i] in WS:
                                        i = ws_run(s, i + 1).end()
                                    state = _VALUE
                                continue
                        quote, qalt, str_run, special = key_quotes[c]
                        state, is_key, sbuf, s_pos = _STRING, True, "", base + i
                        m.ctrl_seen = False
                        i += 1
                        continue
                    if c == "}":
                        if state == _KEY:
                            _trailing_comma(m.k_trailing_comma, repairs, evs, base + i, "}")
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        i += 1
                        state = _AFTER if stack else _END
                        continue
                    i, state, carry, key, shift = _step_key(m, s, i, base, eof, state, key, shift)
                    continue

                # step: colon
                if state == _COLON:
                    if c == ":":
                        i += 1
                        if i < n and s[i] in WS:  # whitespace after the delimiter, at once
                            i = ws_run(s, i + 1).end()
                        state = _VALUE
                        continue
                    state = _step_colon(m, s, i, base)
                    continue

                raise AssertionError(f"unreachable parser state {state}")  # pragma: no cover
        except MalformedJSON:
            if state == _STRING and not is_key:
                _set_slot(self, s_cont, s_key, sbuf)  # the partial shows the string so far
            raise

        # step: end
        if state == _STRING and not is_key:
            if carry[:1] == quote:  # a lenient close that waited for lookahead
                _end_string(self, s_cont, s_key, sbuf, evs, s_path, d_start)
            else:
                _set_slot(self, s_cont, s_key, sbuf)
        _step_end(m, state, is_key, carry, base, key, shift, nbuf, n_pos)


def _kinds_of(lenient: bool | Collection[str]) -> frozenset[str]:
    """The lenient kinds a ``lenient=`` option allows (an unknown kind is an error)."""
    if lenient is True:
        return lx.LENIENT_KINDS
    if lenient is False:
        return frozenset()
    kinds = frozenset(lenient)
    unknown = kinds - lx.LENIENT_KINDS
    if unknown:
        raise ValueError(f"unknown lenient kinds: {sorted(unknown)}")
    return kinds


def _resume(
    parser: JsonStream,
    options: dict[str, Any],
    events: list[PathEvent] | None,
    repairs: list[Repair],
    tail: list[str],
    root: Any,
    complete: bool,
    state: Handover,
    first: bool,
) -> Giveback | None:
    """The C machine hands its lenient stream over to this machine, for a repair or a
    decision it leaves to the reference: ``parser`` (a C machine's instance) gets this
    machine's state, sharing the C machine's lists, and its machine resumes from
    ``state`` (see :meth:`JsonStream._machine`) and reads the rest of the text in it.
    The C machine then sends the next chunks to ``parser._send``, until the machine
    gives the stream back: returns what it yielded first (a state for the C machine to
    take back, or None).  ``first``: the first hand-over (the parser's Python state is
    made)."""
    if first:
        JsonStream.__init__(parser, **options)
    parser._events = events
    parser._repairs = repairs
    parser._tail = tail
    parser._root = root
    parser._complete = complete
    gen = parser._machine(state)
    parser._gen = gen
    parser._send = gen.send
    return next(gen, None)  # (None too when finish() handed over and the machine ended)


def _string_fast(s: str, i: int, stack: list[Any]) -> int:
    """For the C machine: where the string value opened at ``s[i]`` ends when the
    machine's fast path reads it in one piece (missing_quote), or -1 when it does not."""
    if s.find('"', i + 1) < 0:
        return -1
    try:
        text, j = scanstring(s, i + 1, True)
    except ValueError:
        return -1
    return j if _close_verdict(s, j, False, stack, text) == CLOSE else -1


def _running(gen: Generator[Any, str | None, None]) -> bool:
    """Whether the machine is executing (a call into it from a parse hook it runs)."""
    return cast(GeneratorType, gen).gi_running  # type: ignore[type-arg]


REPAIRS_KEPT = 1000
"""With ``release_items``, :attr:`JsonStream.repairs` keeps this many of the latest repairs."""


class _RepairWindow(list[Repair]):
    """The repairs of a parser made with ``release_items``: the last
    :data:`REPAIRS_KEPT`, and how many earlier ones were let go (so memory stays
    bounded by the largest item, not by how many items needed a repair)."""

    __slots__ = ("dropped",)

    def __init__(self) -> None:
        super().__init__()
        self.dropped = 0

    def append(self, repair: Repair) -> None:
        if len(self) >= REPAIRS_KEPT:
            del self[0]
            self.dropped += 1
        list.append(self, repair)


_C_NEXT = {_ELEM: frozenset('"-0123456789[{'), _KEY: frozenset('"')}
"""Where the C machine takes a stream back after a comma, by the state after it: an
item it reads, a quoted key (see :meth:`JsonStream._machine`)."""


def parse_partial(text: str | bytes, **options: Any) -> Any:
    """Parse a possibly truncated document in one call: ``feed(text)`` then ``finish()``."""
    parser = JsonStream(**options)
    parser.feed(text)
    return parser.finish()

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

import re
from collections.abc import Callable, Collection, Generator
from contextlib import suppress
from functools import cache
from json import JSONDecoder
from json.decoder import scanstring  # type: ignore[attr-defined]
from types import GeneratorType
from typing import Any, NamedTuple, NoReturn, cast

from unspool.core import lexicon as lx
from unspool.core.errors import (
    HOOK_FAILED,
    REENTRY,
    UNSET,
    LimitExceeded,
    MalformedJSON,
    parse_error,
)
from unspool.core.escapes import bad_escape_at, low_surrogate_prefix_len, maybe_low_surrogate
from unspool.core.machines import new_stream
from unspool.core.numbers import number_value
from unspool.core.path_events import DEEP_STRING_DELTA as _DEEP_SD
from unspool.core.path_events import DEEP_VALUE_END as _DEEP_VE
from unspool.core.path_events import DEEP_VALUE_START as _DEEP_VS
from unspool.core.path_events import (
    Path,
    PathEvent,
    Repair,
    Skipped,
    StringDelta,
    ValueEnd,
    ValueStart,
    child_path,
)
from unspool.core.preamble import PreambleScanner
from unspool.core.quotes import (
    CLOSE,
    INNER,
    PLAIN,
    REFUSE,
    UNDECIDED,
    decide_close,
    missing_quote,
)
from unspool.core.repairs import say
from unspool.core.snapshot import deep_copy, max_depth
from unspool.core.state import Giveback, Handover
from unspool.core.tokens import (
    NUMBER_END,
    is_atom,
    literal_prefix,
    root_rest_run,
    root_word_run,
    root_word_run_us,
    token_rest_run,
    token_value,
    token_word_run,
    token_word_run_us,
)

__all__ = ["REPAIRS_KEPT", "JsonStream", "parse_partial"]

# Parser states (locals of the generator).
_VALUE = 0  # a value is expected: at the root, or after ':'
_ELEM_FIRST = 1  # after '[': a value or ']'
_ELEM = 2  # after ',' in an array: a value
_KEY_FIRST = 3  # after '{': a key or '}'
_KEY = 4  # after ',' in an object: a key
_COLON = 5  # after a key
_AFTER = 6  # after a value inside a container: ',' or the closer
_STRING = 8  # inside a string (a value or a key)
_NUMBER = 9  # inside a number token that reached the end of a chunk
_UKEY = 10  # inside an unquoted key (lenient)
_COMMENT = 11  # inside a comment (lenient)
_PREAMBLE = 12  # before the root value (skip_preamble)
_END = 13  # the root value is complete
_UVAL = 14  # inside an unquoted value token (lenient)
_FENCED = 15  # a closing fence came before the closers: the rest is trailing text (lenient)

_FAST_MIN = 256  # the C scanner is tried on a container when this much input is buffered
_FAST_MAX_DEPTH = 64  # ... and only this close to the root (a failed try costs a scan)


_Literal = tuple[str, Any, str, str]


def _nan_literals() -> dict[str, list[_Literal]]:
    return {
        "N": [("NaN", float("nan"), "number", "nan")],
        "I": [("Infinity", float("inf"), "number", "nan")],
    }


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
      :data:`unspool.core.lexicon.LENIENT_KINDS` (trailing commas, single
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
        (see :mod:`unspool.core.machines`), else this module's reference machine."""
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

    def _c_scanner(self) -> Callable[[str, int], tuple[Any, int]] | None:
        """The stdlib's C scanner configured like this parser, or None when it cannot
        honour the options (events, lenient, token limits)."""
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
        return decoder.scan_once  # type: ignore[attr-defined,no-any-return]

    # ------------------------------------------------------------------ the machine

    def _machine(
        self, resume: Handover | None = None
    ) -> Generator[Giveback | None, str | None, None]:
        """The parser: one loop over the characters of the chunks sent in.

        Each turn handles one step in the current state, in this order: the chunk
        boundary (and the short loop of a streaming string value), inside a string,
        the states past ``_STRING`` (number, unquoted token or key, comment, preamble,
        after the root), blanks, after a value, a value, a key, the colon.  Then the
        end of input.  The hot paths (string runs, numbers, structural characters) stay
        inline; what repeats (:func:`_put`, :func:`_close`, :func:`_end_string`) and the
        lenient decisions are the module's helper functions below the class.

        ``resume``: the C machine hands a lenient stream over here (see :func:`_resume`)
        with its state and its text, a :class:`~unspool.core.state.Handover` read by
        field name; the machine goes on from there.  When ``resume.give_back`` asks for
        it (a stream offset, -1: never), the machine gives the stream back at the next
        comma between members, or chunk boundary, past that offset in a state the C
        machine reads (nothing held back): it yields that state and the rest of the
        text (``s`` None at a boundary) as a :class:`~unspool.core.state.Giveback`, and
        ends.
        """
        opts = self._opts
        skip_preamble = opts.skip_preamble
        allow_nan = opts.allow_inf_nan
        max_depth_ = opts.max_depth
        max_tok = opts.max_token_chars
        max_int = opts.max_int_digits
        kinds = self._kinds
        lenient = bool(kinds)
        evs = self._events
        repairs = self._repairs
        tail = self._tail
        parse_float = opts.parse_float or float
        parse_int = opts.parse_int or int
        scan_once = self._c_scanner()
        ignore_trailing = opts.trailing == "ignore"

        k_trailing_comma = "trailing_comma" in kinds
        k_single = "single_quotes" in kinds
        k_unquoted = "unquoted_key" in kinds
        k_comment = "comment" in kinds
        k_ctrl = "control_char" in kinds
        k_missing_comma = "missing_comma" in kinds
        k_inner = "inner_quote" in kinds
        k_nan = "nan" in kinds
        k_escape = "invalid_escape" in kinds
        k_token = bool(kinds & {"unquoted_value", "literal_case", "leading_zeros"})
        k_curly = "curly_quotes" in kinds
        k_ellipsis = "ellipsis" in kinds
        k_missing_value = "missing_value" in kinds
        k_closer = "mismatched_closer" in kinds
        k_extra = "extra_closer" in kinds
        k_mquote = "missing_quote" in kinds
        k_space = "unicode_space" in kinds
        k_fence = "truncated" in kinds and ignore_trailing
        strip = " \t" + lx.UNICODE_SPACES if k_space else " \t"  # what ends a token's text
        word_in = token_word_run_us if k_space else token_word_run
        word_root = root_word_run_us if k_space else root_word_run

        literals = _literal_table(allow_nan, k_nan, "python_literal" in kinds)
        token_opts = (kinds, allow_nan, parse_float, parse_int, max_int)  # for _token
        neg_inf_tag = None if not (allow_nan or k_nan) else ("" if allow_nan else "nan")

        ws_run = lx.ws_run
        new_event = tuple.__new__  # builds a path event without its Python-level __new__
        number_run = lx.number_run
        WS = lx.WHITESPACE
        NUM0 = lx.NUMBER_START
        escapes = lx.LENIENT_ESCAPES if k_single else lx.ESCAPES
        str_run = lx.dq_run
        special: _Search = lx.dq_special  # finds what ends a run of plain string text
        value_quotes = _string_kinds(k_mquote)  # by opening character: see _string_kinds
        quote_openers = (
            '"' + ("'" if k_single else "") + (lx.CURLY_DOUBLE + lx.CURLY_SINGLE if k_curly else "")
        )
        key_quotes = _string_kinds(False)

        stack: list[Any] = []  # open containers, innermost last
        val: Any = None
        cpaths: list[Path] = []  # their paths (events only)
        key: Any = None  # the key whose value is expected in the innermost object
        state = _PREAMBLE if skip_preamble else _VALUE
        preamble = PreambleScanner(lenient=lenient) if skip_preamble else None

        # the in-flight string
        sbuf = ""
        quote = '"'
        is_key = False
        s_cont: Any = None  # container holding the string (None: the root)
        s_key: Any = None  # its key (objects) or None (arrays)
        s_path: Path = ()
        d_start = 0  # length of sbuf already reported by StringDelta
        s_pos = 0  # stream offset of its opening quote
        ctrl_seen = False
        qalt = ""  # other characters that may close it (a string opened by a curly quote)
        # the in-flight unquoted token (lenient)
        ubuf = ""
        u_pos = 0
        u_word = True  # still in its first word
        glue = False  # a root number or literal just ended: a letter right after it is an error
        # the in-flight number
        nbuf = ""
        n_pos = 0
        # lenient: where a comment returns to
        comment_end = ""
        comment_ret = _VALUE
        comment_closer = False  # a line comment in a container skipped '}, "next"'
        comment_tail = ""  # the last characters of that comment's text (the search's context)

        release = self._release
        rlist: Any = None  # release_items: the root array, once open
        shift = 0  # release_items: how many of its items were released

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
            # the state the C machine reached at s[i] (a Handover: see unspool.core.state)
            h = resume
            stack, cpaths, key, state, glue = h.stack, h.cpaths, h.key, h.state, h.glue
            rlist, shift, is_key, sbuf, s_path = h.rlist, h.shift, h.is_key, h.sbuf, h.s_path
            d_start, s_pos, nbuf, n_pos, ubuf, u_pos = (
                h.d_start,
                h.s_pos,
                h.nbuf,
                h.n_pos,
                h.ubuf,
                h.u_pos,
            )
            base, eof, s, i, give_back = h.base, h.eof, h.s, h.i, h.give_back
            comment_end, comment_ret, comment_closer = h.c_end, h.c_ret, h.c_closer
            comment_tail, ctrl_seen = h.c_tail, h.ctrl_seen
            back = give_back >= 0 and not eof  # at the end of input the machine ends the stream
            if state == _STRING:
                quote, qalt, str_run, special = (key_quotes if is_key else value_quotes)[h.quote]
                if stack and not is_key:
                    s_cont = stack[-1]
                    s_key = None if type(s_cont) is list else key
        n = len(s)

        try:
            while True:
                # ---------------------------------------------------------- chunk boundary
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
                                evs.append(
                                    new_event(
                                        StringDelta if type(s_path) is tuple else _DEEP_SD,
                                        (s_path, sbuf[d_start:]),
                                    )
                                )
                                d_start = len(sbuf)
                            if rlist and len(rlist) > 1:
                                # release_items: all but the open last item have ended
                                shift += len(rlist) - 1
                                del rlist[:-1]
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
                            m = special(s)
                            if m is not None:
                                i = m.start()
                                if i:
                                    sbuf += s[:i]
                                break
                            sbuf += s
                            if max_tok is not None and len(sbuf) > max_tok:
                                raise _too_long("string", max_tok, s_pos)
                        if s is None:
                            break
                        continue
                    if rlist:
                        k = len(rlist) - (len(stack) > 1)
                        if k > 0:  # release_items: drop the items whose ValueEnd went out
                            shift += k
                            del rlist[:k]
                    base += n
                    if (
                        back
                        and not carry
                        and base >= give_back
                        and (state <= _AFTER or state == _END)
                    ):
                        # resumed for the C machine: it takes the stream back from here
                        yield Giveback(
                            stack=stack,
                            cpaths=cpaths,
                            key=key,
                            state=state,
                            glue=glue,
                            rlist=rlist,
                            shift=shift,
                            s=None,
                            i=0,
                        )
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

                # ---------------------------------------------------------- inside a string
                if state == _STRING:
                    while True:
                        j = str_run(s, i).end()
                        if j != i:
                            sbuf += s[i:j]
                            i = j
                        if i >= n:
                            break
                        c = s[i]
                        if c == quote or c in qalt:
                            if (k_inner or qalt) and not is_key:
                                verdict = _close_verdict(s, i + 1, eof, stack, sbuf)
                                if verdict == UNDECIDED:
                                    carry = s[i:]
                                    i = n
                                    break
                                if verdict == REFUSE or (
                                    verdict == INNER and _CONCAT_TAIL.search(sbuf[-80:])
                                ):
                                    raise parse_error("Strings joined by '+'", base + i)
                                if verdict == INNER:
                                    k = ws_run(s, i + 1).end()
                                    _repair(
                                        repairs,
                                        evs,
                                        "inner_quote",
                                        base + i,
                                        say("inner_quote"),
                                    )
                                    sbuf += s[i:k]
                                    i = k
                                    continue
                            i += 1
                            if max_tok is not None and len(sbuf) > max_tok:
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
                        if c == "\\":
                            if i + 1 >= n:
                                carry = s[i:]
                                i = n
                                break
                            e = s[i + 1]
                            if e == "u":
                                text, k = _u_escape(s, i, base, k_escape, escapes, repairs, evs)
                                if not k:
                                    carry = s[i:]
                                    i = n
                                    break
                                sbuf += text
                                i += k
                                continue
                            dec = escapes.get(e)
                            if dec is None:
                                if not k_escape:
                                    raise parse_error("Invalid \\escape", base + i + 1)
                                _repair(
                                    repairs,
                                    evs,
                                    "invalid_escape",
                                    base + i,
                                    say("invalid_escape", e=e),
                                )
                                dec = "\\" + e
                            if (
                                e == "'" and quote == '"'
                            ):  # in a single-quoted string it is expected
                                _repair(
                                    repairs,
                                    evs,
                                    "single_quotes",
                                    base + i,
                                    say("single_quotes", "escape"),
                                )
                            sbuf += dec
                            i += 2
                            continue
                        if c < " ":
                            if not k_ctrl:
                                raise parse_error("Invalid control character in string", base + i)
                            if not ctrl_seen:
                                ctrl_seen = True
                                _repair(
                                    repairs,
                                    evs,
                                    "control_char",
                                    base + i,
                                    say("control_char"),
                                )
                            sbuf += c
                            i += 1
                            continue
                        if k_mquote and not is_key and (c == "," or c == "]" or c == "}"):
                            verdict = _string_cut(s, i, eof, stack)
                            if verdict == UNDECIDED:
                                carry = s[i:]
                                i = n
                                break
                            if verdict == CLOSE:
                                _repair(
                                    repairs,
                                    evs,
                                    "missing_quote",
                                    base + i,
                                    say("missing_quote"),
                                )
                                _end_string(self, s_cont, s_key, sbuf, evs, s_path, d_start)
                                state = _AFTER if stack else _END
                                sbuf = ""
                                s_cont = None
                                break
                        # a comma, or a quote of the other kind inside a single/double-quoted string
                        sbuf += c
                        i += 1
                    if max_tok is not None and len(sbuf) > max_tok:
                        raise _too_long("string", max_tok, s_pos)
                    continue

                c = s[i]
                if state > _STRING:
                    if state == _FENCED:
                        _trailing(tail, evs, s[i:], base + i)
                        i = n
                        continue
                    if state == _END:
                        if glue:
                            glue = False
                            if c.isalnum() or c in "_$.+-":
                                # "12abc", "false$": never a silent prefix of one token
                                raise parse_error("Invalid value: text glued to it", base + i)
                        if k_extra and c in "]}" and not tail:
                            # (once trailing text began, a closer is part of it, as when
                            # the trailing text arrives in one chunk)
                            _repair(
                                repairs, evs, "extra_closer", base + i, say("extra_closer", c=c)
                            )
                            i += 1
                            continue
                        if ignore_trailing:
                            _trailing(tail, evs, s[i:], base + i)
                            i = n
                            continue
                        if c in WS:
                            i = ws_run(s, i).end()
                            continue
                        if k_space and c in lx.UNICODE_SPACES:
                            _unicode_space(repairs, evs, base + i)
                            i += 1
                            continue
                        if (c == "/" or c == "#") and k_comment:
                            comment_ret = state
                            state = _COMMENT
                            continue
                        raise parse_error("Extra data after the JSON value", base + i)
                    if state == _NUMBER:
                        if nbuf == "-" and c == "I" and neg_inf_tag is not None:
                            # "-" ended the last chunk and "Infinity" follows: re-read as a literal
                            s = "-" + s[i:]
                            base += i - 1
                            n = len(s)
                            i = 0
                            state = _VALUE
                            nbuf = ""
                            continue
                        j = number_run(s, i).end()
                        if len(nbuf) < 100 or lx.digits_run(s, i).end() < j:
                            ok = lx.number_prefix(nbuf + s[i:j], 0).end()
                            if ok != len(nbuf) + j - i:
                                if not k_token:
                                    raise parse_error("Invalid number", n_pos + ok)
                                # "01", "1.1.1", "2024-01-15": a token, decided when it ends
                                ubuf = nbuf
                                u_pos = n_pos
                                u_word = True
                                nbuf = ""
                                state = _UVAL
                                continue
                        nbuf += s[i:j]
                        i = j
                        if max_tok is not None and len(nbuf) > max_tok:
                            raise _too_long("number", max_tok, n_pos)
                        if i >= n:
                            continue
                        if k_token and s[i] == "/" and i + 1 >= n and not eof:
                            carry = "/"  # "1/3" or a comment after 1: the next character says
                            i = n
                            continue
                        if k_token and (
                            s[i] not in NUMBER_END
                            or (s[i] == "/" and s[i + 1 : i + 2] not in ("/", "*", ""))
                            or not _whole_number(nbuf)
                        ):
                            # "12abc": the number was the start of a token; "01", "1." or
                            # "-" at a chunk's end: decided as a token, as when the same
                            # text arrives in one chunk
                            ubuf = nbuf
                            u_pos = n_pos
                            u_word = True
                            nbuf = ""
                            state = _UVAL
                            continue
                        val = number_value(parse_float, parse_int, max_int, nbuf, n_pos)
                        nbuf = ""
                        _put(self, stack, cpaths, key, shift, rlist, evs, val, "number", True)
                        if stack:
                            state = _AFTER
                        else:
                            state = _END
                            glue = True
                        continue

                    if state == _UVAL:
                        if c == "/":
                            # a comment ends the token; any other '/' is text ("1/3", "a/b")
                            if i + 1 >= n and not eof:
                                carry = "/"
                                i = n
                                continue
                            if (
                                s[i + 1 : i + 2] not in ("/", "*", "")
                                or not k_comment
                                or ubuf[-1:] == ":"  # "https://...": a URL, not a comment
                            ) and not (eof and i + 1 >= n):
                                ubuf += "/"
                                i += 1
                                continue
                            j = -2
                        elif u_word:
                            j = (word_in if stack else word_root)(s, i).end()
                            if j > i:
                                ubuf += s[i:j]
                                i = j
                            if max_tok is not None and len(ubuf) > max_tok:
                                raise _too_long("value", max_tok, u_pos)
                            if not stack:
                                _refuse_prose(ubuf, not (i >= n or s[i] == "/"), u_pos)
                            if i >= n or s[i] == "/":
                                continue
                            u_word = False
                            # "true false", "1 2": a blank ends a literal or number
                            j = i if s[i] in strip and is_atom(ubuf) else -1
                        else:
                            j = -1
                        if j == -1:
                            j = (token_rest_run if stack else root_rest_run)(s, i).end()
                            if j > i:
                                ubuf += s[i:j]
                                i = j
                            if max_tok is not None and len(ubuf) > max_tok:
                                raise _too_long("value", max_tok, u_pos)
                            if i >= n or s[i] == "/":
                                continue
                        tok = ubuf.rstrip(strip)
                        glued = len(tok) == len(ubuf) and s[i] == '"'
                        spaced = ubuf if k_space else ""
                        ubuf = ""
                        val, kind = _token(tok, spaced, not stack, token_opts, u_pos, repairs, evs)
                        if glued and kind == "string" and k_mquote:
                            # '[a", "b"]': the quote glued to the word closes it (its opening
                            # quote was missing), never opens the next item
                            _glued_quote(repairs, evs, base + i, "string")
                            i += 1
                        _put(self, stack, cpaths, key, shift, rlist, evs, val, kind, True)
                        state = _AFTER if stack else _END
                        continue

                    if state == _UKEY:
                        j = lx.ident_run(s, i).end()
                        sbuf += s[i:j]
                        i = j
                        if i >= n:
                            continue
                        key = sbuf
                        sbuf = ""
                        state = _COLON
                        if s[i] == '"' and k_mquote:
                            # '{a": 1}': the quote glued to the key closes it
                            _glued_quote(repairs, evs, base + i, "key")
                            i += 1
                        continue

                    if state == _COMMENT:
                        if not comment_end:
                            # at the '/' (or '#') that opens the comment
                            if i + 1 >= n and not (eof and s[i] == "#"):
                                carry = s[i:]
                                i = n
                                state = comment_ret
                                continue
                            comment_end = _comment_open(s, i, base, repairs, evs)
                            i += 1 if s[i] == "#" else 2
                        found = s.find(comment_end, i)
                        if found < 0:
                            if comment_end == "*/" and n - 1 >= i and s.endswith("*"):
                                carry = "*"
                            elif comment_end == "\n" and stack and not comment_closer:
                                seen = comment_tail + s[i:]
                                comment_closer = _COMMENT_MEMBER.search(seen) is not None
                                comment_tail = seen[-40:]
                            i = n
                            continue
                        i = found + len(comment_end)
                        comment_end = ""
                        comment_closer = False
                        comment_tail = ""
                        state = comment_ret
                        continue

                    if state == _PREAMBLE:
                        assert preamble is not None
                        i, start, skipped = preamble.scan(s, i, base)
                        if evs is not None:
                            for kind_, pos_, text_ in skipped:
                                evs.append(new_event(Skipped, (kind_, pos_, text_)))
                        if start:
                            state = _VALUE
                        elif i < n:
                            # undecided: hold the rest for the next chunk
                            carry = s[i:]
                            i = n
                        continue

                    raise AssertionError(f"unreachable parser state {state}")  # pragma: no cover

                if c in WS:
                    i = ws_run(s, i).end()
                    continue
                if c == "`" and k_fence and stack:
                    # '{"a": "b"```': the reply's closing fence before the closers; the
                    # document was cut there, what follows is trailing text
                    if n - i < 3 and not eof:
                        carry = s[i:]
                        i = n
                        continue
                    if s.startswith("```", i):
                        state = _FENCED
                        continue
                if k_space and c in lx.UNICODE_SPACES:
                    _unicode_space(repairs, evs, base + i)
                    i += 1
                    continue

                # ---------------------------------------------------------- after a value
                if state == _AFTER:
                    top = stack[-1]
                    if c == ",":
                        if type(top) is list:
                            i += 1
                            if i < n and s[i] in WS:  # whitespace after the delimiter, at once
                                i = ws_run(s, i + 1).end()
                            state = _ELEM
                            if back and base + i >= give_back and s[i : i + 1] in _C_ITEM:
                                # resumed for the C machine: it reads the next item
                                yield Giveback(
                                    stack=stack,
                                    cpaths=cpaths,
                                    key=key,
                                    state=state,
                                    glue=glue,
                                    rlist=rlist,
                                    shift=shift,
                                    s=s,
                                    i=i,
                                )
                                return
                            continue
                        i += 1
                        if i < n and s[i] in WS:
                            i = ws_run(s, i + 1).end()
                        state = _KEY
                        if back and base + i >= give_back and s[i : i + 1] == '"':
                            yield Giveback(
                                stack=stack,
                                cpaths=cpaths,
                                key=key,
                                state=state,
                                glue=glue,
                                rlist=rlist,
                                shift=shift,
                                s=s,
                                i=i,
                            )
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
                            evs.append(
                                new_event(ValueEnd if type(p) is tuple else _DEEP_VE, (p, top))
                            )
                        i += 1
                        if not stack:
                            state = _END
                            self._complete = True
                        continue
                    if (c == "/" or c == "#") and k_comment:
                        comment_ret = state
                        state = _COMMENT
                        continue
                    if (
                        k_closer
                        and c == "{"
                        and type(top) is dict
                        and len(stack) > 1
                        and type(stack[-2]) is list
                    ):
                        # '[{"i": 1{"i": 2}]': the object's closer is missing before the next
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        _repair(
                            repairs,
                            evs,
                            "mismatched_closer",
                            base + i,
                            say("mismatched_closer", "before"),
                        )
                        continue
                    if k_closer and c in "]}":
                        # "[{"a": 1]" or "{"a": [1}": the closer of the wrong kind
                        verdict = _wrong_closer(s, i, eof, stack, c, k_extra)
                        if verdict == _HOLD:
                            carry = s[i:]
                            i = n
                            continue
                        if verdict == _STRAY:
                            _repair(
                                repairs, evs, "extra_closer", base + i, say("extra_closer", c=c)
                            )
                            i += 1
                            continue
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        _repair(
                            repairs,
                            evs,
                            "mismatched_closer",
                            base + i,
                            say(
                                "mismatched_closer",
                                what="an object" if type(top) is dict else "an array",
                                c=c,
                            ),
                        )
                        if verdict == _TYPO:
                            i += 1  # a typo for the right closer: the document goes on after it
                        # else the closer of an outer container: the inner one's was missing
                        if not stack:
                            state = _END
                        continue
                    if k_missing_comma and c not in "]}:,":
                        _repair(repairs, evs, "missing_comma", base + i, say("missing_comma"))
                        state = _ELEM if type(top) is list else _KEY
                        continue
                    raise parse_error(
                        "Expecting ',' delimiter" if c not in "]}" else "Mismatched closer",
                        base + i,
                    )

                # ---------------------------------------------------------- a value
                if state <= _ELEM:
                    if state == _VALUE:
                        if k_missing_value and stack and c in ",}":
                            # '"k": ,' or '"k": }': the value never came
                            _repair(repairs, evs, "missing_value", base + i, say("missing_value"))
                            _put(self, stack, cpaths, key, shift, rlist, evs, None, "null", True)
                            state = _AFTER
                            continue
                    elif c == "." or c == "\u2026":
                        if k_ellipsis:
                            if c == "." and not s.startswith("...", i):
                                if n - i < 3 and "...".startswith(s[i:]):
                                    # a cut-off "..": held for more, or at the end
                                    # dropped like any truncation
                                    carry = "" if eof else s[i:]
                                    i = n
                                    continue
                            else:
                                # "[1, 2, ...]": a placeholder, not a value
                                _repair(repairs, evs, "ellipsis", base + i, say("ellipsis"))
                                i += 3 if c == "." else 1
                                state = _AFTER
                                continue
                    elif c == "}" and k_closer:
                        # "[1, 2}": the array's closer mistyped
                        if state == _ELEM:
                            _trailing_comma(k_trailing_comma, repairs, evs, base + i, "}")
                        _repair(
                            repairs,
                            evs,
                            "mismatched_closer",
                            base + i,
                            say("mismatched_closer", what="an array", c="}"),
                        )
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        i += 1
                        state = _AFTER if stack else _END
                        continue
                    if c in quote_openers:
                        if c != '"':
                            _odd_quote(repairs, evs, c, base + i, "string")
                        # fast path: the whole string is in this chunk
                        elif s.find('"', i + 1) >= 0:
                            try:
                                text, j = scanstring(s, i + 1, True)
                            except ValueError:
                                pass  # not closed cleanly in this chunk: read it incrementally
                            else:
                                if (
                                    not (k_inner or k_mquote)
                                    or _close_verdict(s, j, eof, stack, text) == CLOSE
                                ):
                                    if max_tok is not None and len(text) > max_tok:
                                        raise _too_long("string", max_tok, base + i)
                                    _put(
                                        self,
                                        stack,
                                        cpaths,
                                        key,
                                        shift,
                                        rlist,
                                        evs,
                                        text,
                                        "string",
                                        True,
                                    )
                                    state = _AFTER if stack else _END
                                    i = j
                                    continue
                        # slow path: the string streams
                        if stack:
                            s_cont = stack[-1]
                            s_key = None if type(s_cont) is list else key
                        else:
                            s_cont = s_key = None
                        s_path = _put(
                            self, stack, cpaths, key, shift, rlist, evs, "", "string", False
                        )
                        state = _STRING
                        is_key = False
                        quote, qalt, str_run, special = value_quotes[c]
                        sbuf = ""
                        s_pos = base + i
                        d_start = 0
                        ctrl_seen = False
                        i += 1
                        continue

                    if c == "{" or c == "[":
                        depth = len(stack)
                        if scan_once is not None and n - i >= _FAST_MIN and depth < _FAST_MAX_DEPTH:
                            try:
                                val, j = scan_once(s, i)
                            except (StopIteration, ValueError, RecursionError, ArithmeticError):
                                # (ArithmeticError: a parse hook refused a number of a
                                # container that may not even close here, as Decimal does
                                # "1e1000000000000000000": the machine reads it as always)
                                j = -1
                            if j > 0:
                                budget = max_depth_ - depth
                                if (
                                    s.count("{", i, j) + s.count("[", i, j) <= budget
                                    or max_depth(val, budget) <= budget
                                ):
                                    i = j
                                    # (no events: the scanner runs only without them)
                                    _put(self, stack, cpaths, key, 0, None, None, val, "", True)
                                    state = _AFTER if stack else _END
                                    continue
                        if depth >= max_depth_:
                            raise parse_error(
                                f"nesting deeper than max_depth={max_depth_}", base + i, True
                            )
                        new: Any = {} if c == "{" else []
                        p = _put(
                            self,
                            stack,
                            cpaths,
                            key,
                            shift,
                            rlist,
                            evs,
                            new,
                            "object" if c == "{" else "array",
                            False,
                        )
                        if evs is not None:
                            cpaths.append(p)
                        if release and not stack and c == "[":
                            rlist = new
                        stack.append(new)
                        state = _KEY_FIRST if c == "{" else _ELEM_FIRST
                        i += 1
                        continue

                    if c == "]" and state != _VALUE:
                        if state == _ELEM:
                            _trailing_comma(k_trailing_comma, repairs, evs, base + i, "]")
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        i += 1
                        state = _AFTER if stack else _END
                        continue

                    # scalars: numbers and literals are visible only once complete
                    val = UNSET
                    kind = "number"
                    pos = base + i
                    if c in NUM0:
                        j = number_run(s, i).end()
                        if j >= n:
                            nbuf = s[i:]
                            n_pos = pos
                            ok = lx.number_prefix(nbuf, 0).end()
                            if ok != len(nbuf):
                                if not k_token:
                                    raise parse_error("Invalid number", pos + ok)
                                ubuf = nbuf
                                u_pos = pos
                                u_word = True
                                nbuf = ""
                                state = _UVAL
                                i = n
                                continue
                            if max_tok is not None and len(nbuf) > max_tok:
                                raise _too_long("number", max_tok, pos)
                            state = _NUMBER
                            i = n
                            continue
                        tok = s[i:j]
                        if max_tok is not None and j - i > max_tok:
                            raise _too_long("number", max_tok, pos)
                        if tok == "-" and neg_inf_tag is not None and s[j] == "I":
                            if not _neg_infinity(s, i, pos, neg_inf_tag, repairs, evs):
                                carry = s[i:]
                                i = n
                                continue
                            val = float("-inf")
                            i += 9
                        elif k_token and s[j] == "/" and j + 1 >= n and not eof:
                            nbuf = tok  # "1/3" or a comment after 1: the next character says
                            n_pos = pos
                            state = _NUMBER
                            carry = "/"
                            i = n
                            continue
                        elif k_token and (
                            s[j] not in NUMBER_END
                            or not _whole_number(tok)
                            or (s[j] == "/" and s[j + 1 : j + 2] not in ("/", "*", ""))
                        ):
                            # "12abc", "1/3", "2024-01-15", "01": a token, decided when it ends
                            ubuf = ""
                            u_pos = pos
                            u_word = True
                            state = _UVAL
                            continue
                        else:
                            val = number_value(parse_float, parse_int, max_int, tok, pos)
                            i = j
                    elif k_token and c not in _NOT_TOKEN:
                        # "New York", "TRUE", "None": held back until the token ends
                        ubuf = ""
                        u_pos = pos
                        u_word = True
                        state = _UVAL
                        continue
                    else:
                        entries = literals.get(c)
                        if entries is None:
                            if (c == "/" or c == "#") and k_comment:
                                comment_ret = state
                                state = _COMMENT
                                continue
                            raise parse_error("Expecting value", pos)
                        for word, wval, wkind, tag in entries:
                            if s.startswith(word, i):
                                if tag:
                                    _repair(repairs, evs, tag, pos, say(tag, tok=word))
                                val = wval
                                kind = wkind
                                i += len(word)
                                break
                        else:
                            rest = s[i : i + 9]
                            if any(len(rest) < len(w) and w.startswith(rest) for w, *_ in entries):
                                carry = s[i:]
                                i = n
                                continue
                            longest = max((_common_prefix(rest, w) for w, *_ in entries), default=0)
                            raise parse_error("Expecting value", pos + longest)
                    _put(self, stack, cpaths, key, shift, rlist, evs, val, kind, True)
                    if stack:
                        state = _AFTER
                    else:
                        state = _END
                        glue = True
                    continue

                # ---------------------------------------------------------- a key
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
                        state = _STRING
                        is_key = True
                        quote, qalt, str_run, special = key_quotes[c]
                        sbuf = ""
                        s_pos = base + i
                        ctrl_seen = False
                        i += 1
                        continue
                    if c == "}":
                        if state == _KEY:
                            _trailing_comma(k_trailing_comma, repairs, evs, base + i, "}")
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        i += 1
                        state = _AFTER if stack else _END
                        continue
                    if k_unquoted and (c in lx.IDENT_START or c in "0123456789"):
                        _repair(repairs, evs, "unquoted_key", base + i, say("unquoted_key"))
                        sbuf = ""
                        state = _UKEY
                        continue
                    if (
                        c == "{"
                        and k_closer
                        and state == _KEY
                        and len(stack) > 1
                        and type(stack[-2]) is list
                    ):
                        # '[{"i": 1, {"i": 2}]': the object's closer is missing before the next
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        _repair(
                            repairs,
                            evs,
                            "mismatched_closer",
                            base + i,
                            say("mismatched_closer", "before"),
                        )
                        state = _ELEM
                        continue
                    if (c == "/" or c == "#") and k_comment:
                        comment_ret = state
                        state = _COMMENT
                        continue
                    if k_ellipsis and (c == "." or c == "\u2026"):
                        if c == "\u2026" or s.startswith("...", i):
                            _repair(repairs, evs, "ellipsis", base + i, say("ellipsis"))
                            i += 1 if c == "\u2026" else 3
                            state = _AFTER
                            continue
                        if n - i < 3 and "...".startswith(s[i:]):
                            carry = "" if eof else s[i:]  # at the end: dropped, a truncation
                            i = n
                            continue
                    if k_closer and c == "]":
                        # '{"a": 1, ]': the object's closer mistyped
                        if state == _KEY:
                            _trailing_comma(k_trailing_comma, repairs, evs, base + i, "]")
                        _repair(
                            repairs,
                            evs,
                            "mismatched_closer",
                            base + i,
                            say("mismatched_closer", what="an object", c="]"),
                        )
                        shift = _close(self, stack, cpaths, evs, rlist, shift)
                        i += 1
                        state = _AFTER if stack else _END
                        continue
                    raise parse_error("Expecting property name enclosed in double quotes", base + i)

                if state == _COLON:
                    if c == ":":
                        i += 1
                        if i < n and s[i] in WS:  # whitespace after the delimiter, at once
                            i = ws_run(s, i + 1).end()
                        state = _VALUE
                        continue
                    if (c == "/" or c == "#") and k_comment:
                        comment_ret = state
                        state = _COMMENT
                        continue
                    raise parse_error("Expecting ':' delimiter", base + i)

                raise AssertionError(f"unreachable parser state {state}")  # pragma: no cover
        except MalformedJSON:
            if state == _STRING and not is_key:
                _set_slot(self, s_cont, s_key, sbuf)  # the partial shows the string so far
            raise

        # -------------------------------------------------------------- end of input
        if state == _COMMENT and comment_closer:
            # '{"a": {"b": 1 // note }, "c": 2}' on one line: the comment ran to the end
            # over a closer and the next member, which would silently be dropped
            raise parse_error("A line comment ran to the end over the rest of the document", base)
        if state == _PREAMBLE and carry:
            # the reply is only a literal ("true"), held because more word could follow
            for word, wval, wkind, tag in literals.get(carry[:1], ()):
                if carry == word:
                    if tag:
                        _repair(repairs, evs, tag, base, say(tag, tok=word))
                    _put(self, stack, cpaths, key, shift, rlist, evs, wval, wkind, True)
        if state == _STRING and not is_key:
            if carry[:1] == quote:  # a lenient close that waited for lookahead
                _end_string(self, s_cont, s_key, sbuf, evs, s_path, d_start)
            else:
                _set_slot(self, s_cont, s_key, sbuf)
        elif state == _UVAL:
            tok = ubuf.rstrip(strip)
            if tok and not literal_prefix(tok):  # a cut-off "tr" is dropped
                val, kind = _token(
                    tok, ubuf if k_space else "", not stack, token_opts, u_pos, repairs, evs
                )
                _put(self, stack, cpaths, key, shift, rlist, evs, val, kind, True)
        elif state == _NUMBER:
            m = lx.number_full(nbuf)
            if m is not None and m.end() == len(nbuf):
                val = number_value(parse_float, parse_int, max_int, nbuf, n_pos)
                _put(self, stack, cpaths, key, shift, rlist, evs, val, "number", True)
        if rlist:
            k = len(rlist) - (len(stack) > 1 or (state == _STRING and not is_key))
            if k > 0:
                del rlist[:k]
        if lenient and not self._complete and "truncated" in kinds and self._root is not UNSET:
            _repair(
                repairs,
                evs,
                "truncated",
                base,
                say("truncated", n=len(stack)),
            )


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


def _set_slot(parser: JsonStream, cont: Any, key: Any, text: str) -> None:
    """Write the in-flight string into its slot (the root, an array's last item, or a key)."""
    if cont is None:
        parser._root = text
    elif key is None:
        cont[-1] = text
    else:
        cont[key] = text


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


def _repair(
    repairs: list[Repair], evs: list[PathEvent] | None, kind: str, pos: int, msg: str
) -> None:
    r = Repair(kind, pos, msg)
    repairs.append(r)
    if evs is not None:
        evs.append(r)


_new_event = tuple.__new__  # builds a path event without its Python-level __new__

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


def _put(
    parser: JsonStream,
    stack: list[Any],
    cpaths: list[Path],
    key: Any,
    shift: int,
    rlist: Any,
    evs: list[PathEvent] | None,
    val: Any,
    kind: str,
    done: bool,
) -> Path:
    """Set a new value in the innermost open container (appended to an array, under
    ``key`` in an object) or as the root, and report its ``ValueStart``.

    ``done``: the value is complete; its end is reported too (after a ``StringDelta``
    with the text of a non-empty string), and a root value completes the document.
    Returns its path (``()`` when events are off: paths are built only for events), as
    :func:`~unspool.core.path_events.child_path` holds it: O(1) however deep.
    ``shift`` counts the items released from the root array ``rlist`` (release_items).
    """
    p: Path = ()
    if stack:
        top = stack[-1]
        if type(top) is list:
            if evs is not None:
                p = child_path(cpaths[-1], len(top) + (shift if top is rlist else 0))
            top.append(val)
        else:
            if evs is not None:
                p = child_path(cpaths[-1], key)
            top[key] = val
    else:
        parser._root = val
        if done:
            parser._complete = True
    if evs is not None:
        flat = type(p) is tuple  # else a linked path: the events of its deep types
        evs.append(_new_event(ValueStart if flat else _DEEP_VS, (p, kind)))
        if done:
            if kind == "string" and val:
                evs.append(_new_event(StringDelta if flat else _DEEP_SD, (p, val)))
            evs.append(_new_event(ValueEnd if flat else _DEEP_VE, (p, val)))
    return p


def _close(
    parser: JsonStream,
    stack: list[Any],
    cpaths: list[Path],
    evs: list[PathEvent] | None,
    rlist: Any,
    shift: int,
) -> int:
    """Close the innermost open container and report its ``ValueEnd``; a closed root
    completes the document.  The root array of release_items is emptied first (each
    item went out with its own ``ValueEnd``).  Returns the new count of released items."""
    top = stack.pop()
    if top is rlist:
        shift += len(top)
        top.clear()
    if evs is not None:
        p = cpaths.pop()
        evs.append(_new_event(ValueEnd if type(p) is tuple else _DEEP_VE, (p, top)))
    if not stack:
        parser._complete = True
    return shift


def _end_string(
    parser: JsonStream,
    cont: Any,
    key: Any,
    text: str,
    evs: list[PathEvent] | None,
    path: Path,
    reported: int,
) -> None:
    """A streamed string value closed: write it to its slot and report the text not
    yet reported (past ``reported`` characters) and its ``ValueEnd``; a root string
    (``cont`` None) completes the document."""
    if cont is None:
        parser._root = text
        parser._complete = True
    elif key is None:
        cont[-1] = text
    else:
        cont[key] = text
    if evs is not None:
        flat = type(path) is tuple
        if len(text) > reported:
            evs.append(_new_event(StringDelta if flat else _DEEP_SD, (path, text[reported:])))
        evs.append(_new_event(ValueEnd if flat else _DEEP_VE, (path, text)))


def _too_long(what: str, limit: int, pos: int) -> MalformedJSON:
    """The error for a string, key, number or unquoted value longer than max_token_chars."""
    return parse_error(f"{what} longer than max_token_chars={limit}", pos, True)


def _trailing_comma(
    allowed: bool, repairs: list[Repair], evs: list[PathEvent] | None, pos: int, closer: str
) -> None:
    """A closer right after a comma: a trailing_comma repair when ``allowed``, else the error."""
    if not allowed:
        raise parse_error(f"Trailing comma before '{closer}'", pos)
    _repair(repairs, evs, "trailing_comma", pos, say("trailing_comma"))


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


def _odd_quote(
    repairs: list[Repair], evs: list[PathEvent] | None, c: str, pos: int, what: str
) -> None:
    """Report a string or key (``what``) opened by a single or a curly quote ``c``."""
    if c == "'":
        _repair(repairs, evs, "single_quotes", pos, say("single_quotes", what=what))
    else:
        _repair(repairs, evs, "curly_quotes", pos, say("curly_quotes", what=what))


def _close_verdict(s: str, j: int, eof: bool, stack: list[Any], text: str) -> int:
    """Lenient: whether the quote before ``s[j]`` closes the string ``text`` (``CLOSE``), is
    an unescaped quote inside it (``INNER``), is undecided yet, or is refused (see
    :func:`unspool.core.quotes.decide_close`)."""
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


def _trailing(tail: list[str], evs: list[PathEvent] | None, text: str, pos: int) -> None:
    """Keep ``text`` that followed the root value (trailing="ignore") and report it."""
    tail.append(text)
    if evs is not None:
        evs.append(_new_event(Skipped, ("trailing", pos, text)))


def _unicode_space(repairs: list[Repair], evs: list[PathEvent] | None, pos: int) -> None:
    """Report a Unicode space read as a blank (unicode_space)."""
    _repair(repairs, evs, "unicode_space", pos, say("unicode_space"))


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


def _glued_quote(repairs: list[Repair], evs: list[PathEvent] | None, pos: int, what: str) -> None:
    """Report a quote glued to the end of an unquoted string or key (``what``) that
    closes it: its opening quote was missing (missing_quote)."""
    _repair(repairs, evs, "missing_quote", pos, say("missing_quote", "opening", what=what))


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

_C_ITEM = frozenset('"-0123456789[{')
"""Where the C machine takes a stream back after a comma: an item it reads (see
:meth:`JsonStream._machine`); after a comma in an object, a '"' key."""

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


def _spaces_after(
    repairs: list[Repair], evs: list[PathEvent] | None, text: str, end: int, pos: int
) -> None:
    """Report the Unicode spaces a token's text ended with (``text[end:]``), if any."""
    for k in range(end, len(text)):
        if text[k] in lx.UNICODE_SPACES:
            _unicode_space(repairs, evs, pos + k)
            return


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


def parse_partial(text: str | bytes, **options: Any) -> Any:
    """Parse a possibly truncated document in one call: ``feed(text)`` then ``finish()``."""
    parser = JsonStream(**options)
    parser.feed(text)
    return parser.finish()

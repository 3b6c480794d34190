"""The pure-Python machine's cold steps, cut out of its driver.

:meth:`unspool.core._jsonstream.JsonStream._machine` is the driver: one loop over the
characters, with the hot steps inline (the chunk boundary, string runs, numbers,
structural characters), each opened by a ``# step: <name>`` comment.  What is rare
or lenient is a function here, ``_step_<name>``: the setup of the options, the lenient
decisions of a string, a value, a key, the colon and after a value, the unquoted
tokens, comments, the preamble, after the root, and the end of input.  The names are
the C machine's (``_speedups.c``): setup, boundary, string, value, key, colon,
after_value, number, token, comment, preamble, after_root, end.

A step takes the :class:`StepState` (the options it reads and the state only cold
steps touch) and the driver's hot locals it needs, and returns the ones it changed,
so the hot loop keeps its locals and pays nothing for the cut.  Steps run only
between characters, so the C machine's hand-over (:mod:`unspool.core._state`) still
happens only between steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unspool.core import _lexicon as lx
from unspool.core._decisions import (
    _COMMENT_MEMBER,
    _CONCAT_TAIL,
    _HOLD,
    _STRAY,
    _TYPO,
    _close_verdict,
    _comment_open,
    _common_prefix,
    _Literal,
    _literal_table,
    _refuse_prose,
    _string_cut,
    _string_kinds,
    _StringKind,
    _token,
    _u_escape,
    _whole_number,
    _wrong_closer,
)
from unspool.core._errors import UNSET, parse_error
from unspool.core._live import (
    _close,
    _glued_quote,
    _new_event,
    _put,
    _repair,
    _too_long,
    _trailing,
    _trailing_comma,
    _unicode_space,
)
from unspool.core._numbers import number_value
from unspool.core._path_events import Path, PathEvent, Repair, Skipped
from unspool.core._preamble import PreambleScanner
from unspool.core._quotes import CLOSE, INNER, REFUSE, UNDECIDED
from unspool.core._repairs import say
from unspool.core._state import Giveback, Handover
from unspool.core._tokens import (
    NUMBER_END,
    is_atom,
    literal_prefix,
    root_rest_run,
    root_word_run,
    root_word_run_us,
    token_rest_run,
    token_word_run,
    token_word_run_us,
)

if TYPE_CHECKING:
    from unspool.core._jsonstream import JsonStream

# Parser states (the driver's local ``state``; the C machine's ST_* have the same values).
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

# How the string step leaves the string (see _step_string).
_GO = 0  # the text goes on: append what it returned
_WAIT = 1  # undecided: hold the text from the returned position for the next chunk
_QUOTED = 2  # the closing quote was read: the string ends before the returned position
_CUT = 3  # missing_quote: the string ends at the returned position (no closing quote)

# What follows a number in lenient mode (see _number_end).
_NUM_DONE = 0  # the number is complete
_NUM_SLASH = 1  # a '/' ends the chunk: hold it, the next character says
_NUM_TOKEN = 2  # the number is the start of an unquoted token


class StepState:
    """What the driver shares with its cold steps: the options they read and the state
    that only they touch between chunks (an unquoted token, a comment, the preamble).
    The containers (``stack``, ``cpaths``, ``rlist``) are the driver's own lists."""

    __slots__ = (
        "comment_closer",
        "comment_end",
        "comment_ret",
        "comment_tail",
        "cpaths",
        "ctrl_seen",
        "escapes",
        "evs",
        "glue",
        "ignore_trailing",
        "k_closer",
        "k_comment",
        "k_ctrl",
        "k_ellipsis",
        "k_escape",
        "k_extra",
        "k_fence",
        "k_inner",
        "k_missing_comma",
        "k_missing_value",
        "k_mquote",
        "k_space",
        "k_token",
        "k_trailing_comma",
        "k_unquoted",
        "key_quotes",
        "kinds",
        "literals",
        "max_int",
        "max_tok",
        "neg_inf_tag",
        "parse_float",
        "parse_int",
        "parser",
        "preamble",
        "quote_openers",
        "repairs",
        "rlist",
        "stack",
        "strip",
        "tail",
        "token_opts",
        "u_pos",
        "u_word",
        "ubuf",
        "value_quotes",
        "word_in",
        "word_root",
    )

    parser: JsonStream
    evs: list[PathEvent] | None
    repairs: list[Repair]
    tail: list[str]
    kinds: frozenset[str]
    stack: list[Any]  # the open containers, innermost last
    cpaths: list[Path]  # their paths (events only)
    rlist: Any  # release_items: the root array, once open
    glue: bool  # a root number or literal just ended: a letter right after it is an error
    ignore_trailing: bool
    max_tok: int | None
    max_int: int
    parse_float: Callable[[str], Any]
    parse_int: Callable[[str], Any]
    literals: dict[str, list[_Literal]]
    token_opts: tuple[frozenset[str], bool, Callable[[str], Any], Callable[[str], Any], int]
    neg_inf_tag: str | None
    strip: str  # what ends a token's text
    word_in: lx.Run
    word_root: lx.Run
    escapes: dict[str, str]
    value_quotes: dict[str, _StringKind]
    key_quotes: dict[str, _StringKind]
    quote_openers: str
    k_trailing_comma: bool
    k_unquoted: bool
    k_comment: bool
    k_ctrl: bool
    k_missing_comma: bool
    k_inner: bool
    k_escape: bool
    k_token: bool
    k_ellipsis: bool
    k_missing_value: bool
    k_closer: bool
    k_extra: bool
    k_mquote: bool
    k_space: bool
    k_fence: bool
    preamble: PreambleScanner | None
    ubuf: str  # the in-flight unquoted token or key (lenient)
    u_pos: int
    u_word: bool  # still in its first word
    comment_end: str  # what ends the comment ("" at its opener)
    comment_ret: int  # the state a comment returns to
    comment_closer: bool  # a line comment in a container skipped '}, "next"'
    comment_tail: str  # the last characters of that comment's text (the search's context)
    ctrl_seen: bool  # the in-flight string reported its raw control character


def _step_setup(parser: JsonStream, resume: Handover | None) -> StepState:
    """Read the parser's options into a new :class:`StepState` (and, resuming for the C
    machine, the cold state of its :class:`~unspool.core._state.Handover`)."""
    m = StepState()
    opts = parser._opts
    kinds = parser._kinds
    m.parser = parser
    m.evs = parser._events
    m.repairs = parser._repairs
    m.tail = parser._tail
    m.kinds = kinds
    m.ignore_trailing = opts.trailing == "ignore"
    m.max_tok = opts.max_token_chars
    m.max_int = opts.max_int_digits
    m.parse_float = opts.parse_float or float
    m.parse_int = opts.parse_int or int
    allow_nan = opts.allow_inf_nan
    m.k_trailing_comma = "trailing_comma" in kinds
    k_single = "single_quotes" in kinds
    m.k_unquoted = "unquoted_key" in kinds
    m.k_comment = "comment" in kinds
    m.k_ctrl = "control_char" in kinds
    m.k_missing_comma = "missing_comma" in kinds
    m.k_inner = "inner_quote" in kinds
    k_nan = "nan" in kinds
    m.k_escape = "invalid_escape" in kinds
    m.k_token = bool(kinds & {"unquoted_value", "literal_case", "leading_zeros"})
    k_curly = "curly_quotes" in kinds
    m.k_ellipsis = "ellipsis" in kinds
    m.k_missing_value = "missing_value" in kinds
    m.k_closer = "mismatched_closer" in kinds
    m.k_extra = "extra_closer" in kinds
    m.k_mquote = "missing_quote" in kinds
    m.k_space = k_space = "unicode_space" in kinds
    m.k_fence = "truncated" in kinds and m.ignore_trailing
    m.strip = " \t" + lx.UNICODE_SPACES if k_space else " \t"
    m.word_in = token_word_run_us if k_space else token_word_run
    m.word_root = root_word_run_us if k_space else root_word_run
    m.literals = _literal_table(allow_nan, k_nan, "python_literal" in kinds)
    m.token_opts = (kinds, allow_nan, m.parse_float, m.parse_int, m.max_int)  # for _token
    m.neg_inf_tag = None if not (allow_nan or k_nan) else ("" if allow_nan else "nan")
    m.escapes = lx.LENIENT_ESCAPES if k_single else lx.ESCAPES
    m.value_quotes = _string_kinds(m.k_mquote)  # by opening character: see _string_kinds
    m.key_quotes = _string_kinds(False)
    m.quote_openers = (
        '"' + ("'" if k_single else "") + (lx.CURLY_DOUBLE + lx.CURLY_SINGLE if k_curly else "")
    )
    m.preamble = PreambleScanner(lenient=bool(kinds)) if opts.skip_preamble else None
    m.ubuf, m.u_pos, m.u_word = "", 0, True
    m.comment_end, m.comment_ret, m.comment_closer, m.comment_tail = "", _VALUE, False, ""
    m.ctrl_seen = False
    if resume is None:
        m.stack, m.cpaths, m.rlist, m.glue = [], [], None, False
        return m
    h = resume  # the state the C machine reached (see unspool.core._state)
    m.stack, m.cpaths, m.rlist, m.glue = h.stack, h.cpaths, h.rlist, h.glue
    m.ubuf = h.sbuf if h.state == _UKEY else h.ubuf  # (C keeps an unquoted key in sbuf)
    m.u_pos = h.u_pos
    m.comment_end, m.comment_ret, m.comment_closer = h.c_end, h.c_ret, h.c_closer
    m.comment_tail, m.ctrl_seen = h.c_tail, h.ctrl_seen
    return m


def _giveback(m: StepState, key: Any, state: int, shift: int, s: str | None, i: int) -> Giveback:
    """boundary: the state the C machine takes the stream back in, at ``s[i]``."""
    return Giveback(
        stack=m.stack,
        cpaths=m.cpaths,
        key=key,
        state=state,
        glue=m.glue,
        rlist=m.rlist,
        shift=shift,
        s=s,
        i=i,
    )


def _step_string(
    m: StepState, s: str, i: int, base: int, eof: bool, sbuf: str, quote: str, qalt: str, key: bool
) -> tuple[str, int, int]:
    """The rare characters of a string (``sbuf`` so far; ``key``: a key): a quote that
    lenient mode weighs, an escape but the common ones, a raw control character, a
    comma or closer that may end it (missing_quote).  Returns the text to append, the
    position to go on from, and how the string goes on (``_GO``, ``_WAIT``, ``_QUOTED``,
    ``_CUT``)."""
    c = s[i]
    if c == quote or c in qalt:
        if (m.k_inner or qalt) and not key:
            verdict = _close_verdict(s, i + 1, eof, m.stack, sbuf)
            if verdict == UNDECIDED:
                return "", i, _WAIT
            if verdict == REFUSE or (verdict == INNER and _CONCAT_TAIL.search(sbuf[-80:])):
                raise parse_error("Strings joined by '+'", base + i)
            if verdict == INNER:
                k = lx.ws_run(s, i + 1).end()
                _repair(m.repairs, m.evs, "inner_quote", base + i, say("inner_quote"))
                return s[i:k], k, _GO
        return "", i + 1, _QUOTED
    if c == "\\":
        if i + 1 >= len(s):
            return "", i, _WAIT
        e = s[i + 1]
        if e == "u":
            text, k = _u_escape(s, i, base, m.k_escape, m.escapes, m.repairs, m.evs)
            return (text, i + k, _GO) if k else ("", i, _WAIT)
        dec = m.escapes.get(e)
        if dec is None:
            if not m.k_escape:
                raise parse_error("Invalid \\escape", base + i + 1)
            _repair(m.repairs, m.evs, "invalid_escape", base + i, say("invalid_escape", e=e))
            dec = "\\" + e
        if e == "'" and quote == '"':  # in a single-quoted string it is expected
            _repair(m.repairs, m.evs, "single_quotes", base + i, say("single_quotes", "escape"))
        return dec, i + 2, _GO
    if c < " ":
        if not m.k_ctrl:
            raise parse_error("Invalid control character in string", base + i)
        if not m.ctrl_seen:
            m.ctrl_seen = True
            _repair(m.repairs, m.evs, "control_char", base + i, say("control_char"))
        return c, i + 1, _GO
    if m.k_mquote and not key and (c == "," or c == "]" or c == "}"):
        verdict = _string_cut(s, i, eof, m.stack)
        if verdict == UNDECIDED:
            return "", i, _WAIT
        if verdict == CLOSE:
            _repair(m.repairs, m.evs, "missing_quote", base + i, say("missing_quote"))
            return "", i, _CUT
    # a comma, or a quote of the other kind inside a single/double-quoted string
    return c, i + 1, _GO


def _to_token(m: StepState, text: str, pos: int) -> int:
    """An unquoted value token begins at stream offset ``pos`` with ``text``: its state."""
    m.ubuf = text
    m.u_pos = pos
    m.u_word = True
    return _UVAL


def _step_number(m: StepState, text: str, pos: int, ok: int) -> int:
    """A number's ``text`` (at ``pos``) is valid only for ``ok`` characters: an error, or
    in lenient mode a token ("01", "1.1.1", "2024-01-15") decided when it ends."""
    if not m.k_token:
        raise parse_error("Invalid number", pos + ok)
    return _to_token(m, text, pos)


def _number_end(s: str, j: int, eof: bool, text: str) -> int:
    """Lenient tokens: what the number ``text`` is, followed by ``s[j]``: complete
    (``_NUM_DONE``), undecided by a '/' ending the chunk ("1/3" or a comment after 1:
    ``_NUM_SLASH``), or the start of a token ("12abc", "1/3", "01", ``_NUM_TOKEN``)."""
    c = s[j]
    if c == "/" and j + 1 >= len(s) and not eof:
        return _NUM_SLASH
    if c not in NUMBER_END or (c == "/" and s[j + 1 : j + 2] not in ("/", "*", "")):
        return _NUM_TOKEN
    whole = lx.number_full(text)  # (as _whole_number, inline: this runs on every number)
    return _NUM_DONE if whole is not None and whole.end() == len(text) else _NUM_TOKEN


def _step_value(
    m: StepState, s: str, i: int, base: int, eof: bool, state: int, key: Any, shift: int
) -> tuple[int, int, str, int]:
    """A value expected at ``s[i]`` that is not a string, a container, a number, a whole
    literal or an unquoted token: a missing value, an ellipsis, a mistyped closer, a
    cut-off literal, a comment, or the error.  Returns ``i``, the
    state, the text to hold and the count of released items."""
    c = s[i]
    n = len(s)
    stack = m.stack
    if state == _VALUE:
        if m.k_missing_value and stack and c in ",}":
            # '"k": ,' or '"k": }': the value never came
            _repair(m.repairs, m.evs, "missing_value", base + i, say("missing_value"))
            _put(m.parser, stack, m.cpaths, key, shift, m.rlist, m.evs, None, "null", True)
            return i, _AFTER, "", shift
    elif c == "." or c == "\u2026":
        if m.k_ellipsis:
            if c == "." and not s.startswith("...", i):
                if n - i < 3 and "...".startswith(s[i:]):
                    # a cut-off "..": held for more, or at the end dropped like any truncation
                    return n, state, "" if eof else s[i:], shift
            else:
                # "[1, 2, ...]": a placeholder, not a value
                _repair(m.repairs, m.evs, "ellipsis", base + i, say("ellipsis"))
                return i + (3 if c == "." else 1), _AFTER, "", shift
    elif c == "}" and m.k_closer:
        # "[1, 2}": the array's closer mistyped
        if state == _ELEM:
            _trailing_comma(m.k_trailing_comma, m.repairs, m.evs, base + i, "}")
        what = say("mismatched_closer", what="an array", c="}")
        _repair(m.repairs, m.evs, "mismatched_closer", base + i, what)
        shift = _close(m.parser, stack, m.cpaths, m.evs, m.rlist, shift)
        return i + 1, _AFTER if stack else _END, "", shift
    pos = base + i
    entries = m.literals.get(c)
    if entries is None:
        if (c == "/" or c == "#") and m.k_comment:
            m.comment_ret = state
            i, state, carry = _step_comment(m, s, i, base, eof)  # (at once: one call less)
            return i, state, carry, shift
        raise parse_error("Expecting value", pos)
    # (the driver read a whole literal; this one is cut off by the chunk, or wrong)
    rest = s[i : i + 9]
    if any(len(rest) < len(w) and w.startswith(rest) for w, *_ in entries):
        return n, state, s[i:], shift
    longest = max((_common_prefix(rest, w) for w, *_ in entries), default=0)
    raise parse_error("Expecting value", pos + longest)


def _step_key(
    m: StepState, s: str, i: int, base: int, eof: bool, state: int, key: Any, shift: int
) -> tuple[int, int, str, Any, int]:
    """A key expected at ``s[i]`` that is neither quoted nor the object's closer: an
    unquoted key (read at once), a missing closer before the next object, a comment, an
    ellipsis, a mistyped closer, or the error.  Returns ``i``, the state, the text to
    hold, the key and the count of released items."""
    c = s[i]
    stack = m.stack
    if m.k_unquoted and (c in lx.IDENT_START or c in "0123456789"):
        _repair(m.repairs, m.evs, "unquoted_key", base + i, say("unquoted_key"))
        j = lx.ident_run(s, i).end()  # read at once (as _step_token does an unquoted key)
        if j >= len(s):
            m.ubuf = s[i:j]
            return j, _UKEY, "", key, shift
        if s[j] == '"' and m.k_mquote:
            # '{a": 1}': the quote glued to the key closes it
            _glued_quote(m.repairs, m.evs, base + j, "key")
            return j + 1, _COLON, "", s[i:j], shift
        return j, _COLON, "", s[i:j], shift
    if c == "{" and m.k_closer and state == _KEY and len(stack) > 1 and type(stack[-2]) is list:
        # '[{"i": 1, {"i": 2}]': the object's closer is missing before the next
        shift = _close(m.parser, stack, m.cpaths, m.evs, m.rlist, shift)
        what = say("mismatched_closer", "before")
        _repair(m.repairs, m.evs, "mismatched_closer", base + i, what)
        return i, _ELEM, "", key, shift
    if (c == "/" or c == "#") and m.k_comment:
        m.comment_ret = state
        i, state, carry = _step_comment(m, s, i, base, eof)  # (at once: one call less)
        return i, state, carry, key, shift
    if m.k_ellipsis and (c == "." or c == "\u2026"):
        if c == "\u2026" or s.startswith("...", i):
            _repair(m.repairs, m.evs, "ellipsis", base + i, say("ellipsis"))
            return i + (1 if c == "\u2026" else 3), _AFTER, "", key, shift
        if len(s) - i < 3 and "...".startswith(s[i:]):
            return len(s), state, "" if eof else s[i:], key, shift  # at the end: a truncation
    if m.k_closer and c == "]":
        # '{"a": 1, ]': the object's closer mistyped
        if state == _KEY:
            _trailing_comma(m.k_trailing_comma, m.repairs, m.evs, base + i, "]")
        what = say("mismatched_closer", what="an object", c="]")
        _repair(m.repairs, m.evs, "mismatched_closer", base + i, what)
        shift = _close(m.parser, stack, m.cpaths, m.evs, m.rlist, shift)
        return i + 1, _AFTER if stack else _END, "", key, shift
    raise parse_error("Expecting property name enclosed in double quotes", base + i)


def _step_colon(m: StepState, s: str, i: int, base: int) -> int:
    """Not the colon after a key: a comment (its state), or the error."""
    if s[i] in "/#" and m.k_comment:
        m.comment_ret = _COLON
        return _COMMENT
    raise parse_error("Expecting ':' delimiter", base + i)


def _step_after_value(
    m: StepState, s: str, i: int, base: int, eof: bool, shift: int
) -> tuple[int, int, str, int]:
    """After a value, neither a comma nor the right closer: a comment, a closer of the
    wrong kind, a missing comma, or the error.  Returns as :func:`_step_value`."""
    c = s[i]
    stack = m.stack
    top = stack[-1]
    if (c == "/" or c == "#") and m.k_comment:
        m.comment_ret = _AFTER
        i, state, carry = _step_comment(m, s, i, base, eof)  # (at once: one call less)
        return i, state, carry, shift
    if m.k_closer and c == "{" and type(top) is dict and len(stack) > 1 and type(stack[-2]) is list:
        # '[{"i": 1{"i": 2}]': the object's closer is missing before the next
        shift = _close(m.parser, stack, m.cpaths, m.evs, m.rlist, shift)
        what = say("mismatched_closer", "before")
        _repair(m.repairs, m.evs, "mismatched_closer", base + i, what)
        return i, _AFTER, "", shift
    if m.k_closer and c in "]}":
        # "[{"a": 1]" or "{"a": [1}": the closer of the wrong kind
        verdict = _wrong_closer(s, i, eof, stack, c, m.k_extra)
        if verdict == _HOLD:
            return len(s), _AFTER, s[i:], shift
        if verdict == _STRAY:
            _repair(m.repairs, m.evs, "extra_closer", base + i, say("extra_closer", c=c))
            return i + 1, _AFTER, "", shift
        shift = _close(m.parser, stack, m.cpaths, m.evs, m.rlist, shift)
        kind = "an object" if type(top) is dict else "an array"
        what = say("mismatched_closer", what=kind, c=c)
        _repair(m.repairs, m.evs, "mismatched_closer", base + i, what)
        if verdict == _TYPO:
            i += 1  # a typo for the right closer: the document goes on after it
        # else the closer of an outer container: the inner one's was missing
        return i, _AFTER if stack else _END, "", shift
    if m.k_missing_comma and c not in "]}:,":
        _repair(m.repairs, m.evs, "missing_comma", base + i, say("missing_comma"))
        return i, _ELEM if type(top) is list else _KEY, "", shift
    raise parse_error(
        "Expecting ',' delimiter" if c not in "]}" else "Mismatched closer",
        base + i,
    )


def _step_token(
    m: StepState, s: str, i: int, base: int, eof: bool, state: int, key: Any, shift: int
) -> tuple[int, int, str, Any]:
    """Inside an unquoted key (``_UKEY``) or value token (``_UVAL``), or in a value
    state at the start of a value token ("New York", "TRUE", "None", "12abc"): read on;
    a value token that ends is decided and put.  Returns ``i``, the state, the text to
    hold and the key."""
    n = len(s)
    if state <= _ELEM:  # a value state: the token starts here (as _to_token, inline)
        m.ubuf, m.u_pos, m.u_word = "", base + i, True
        state = _UVAL
    if state == _UKEY:
        j = lx.ident_run(s, i).end()
        m.ubuf += s[i:j]
        if j >= n:
            return j, state, "", key
        key = m.ubuf
        m.ubuf = ""
        if s[j] == '"' and m.k_mquote:
            # '{a": 1}': the quote glued to the key closes it
            _glued_quote(m.repairs, m.evs, base + j, "key")
            j += 1
        return j, _COLON, "", key
    stack = m.stack
    max_tok = m.max_tok
    ubuf = m.ubuf
    if s[i] == "/":
        # a comment ends the token; any other '/' is text ("1/3", "a/b")
        if i + 1 >= n and not eof:
            return n, state, "/", key
        if (
            s[i + 1 : i + 2] not in ("/", "*", "")
            or not m.k_comment
            or ubuf[-1:] == ":"  # "https://...": a URL, not a comment
        ) and not (eof and i + 1 >= n):
            m.ubuf = ubuf + "/"
            return i + 1, state, "", key
        j = -2
    elif m.u_word:
        j = (m.word_in if stack else m.word_root)(s, i).end()
        if j > i:
            ubuf += s[i:j]
            i = j
        m.ubuf = ubuf
        if max_tok is not None and len(ubuf) > max_tok:
            raise _too_long("value", max_tok, m.u_pos)
        if not stack:
            _refuse_prose(ubuf, not (i >= n or s[i] == "/"), m.u_pos)
        if i >= n or s[i] == "/":
            return i, state, "", key
        m.u_word = False
        # "true false", "1 2": a blank ends a literal or number
        j = i if s[i] in m.strip and is_atom(ubuf) else -1
    else:
        j = -1
    if j == -1:
        j = (token_rest_run if stack else root_rest_run)(s, i).end()
        if j > i:
            ubuf += s[i:j]
            i = j
        m.ubuf = ubuf
        if max_tok is not None and len(ubuf) > max_tok:
            raise _too_long("value", max_tok, m.u_pos)
        if i >= n or s[i] == "/":
            return i, state, "", key
    tok = ubuf.rstrip(m.strip)
    glued = len(tok) == len(ubuf) and s[i] == '"'
    m.ubuf = ""
    spaced = ubuf if m.k_space else ""
    val, kind = _token(tok, spaced, not stack, m.token_opts, m.u_pos, m.repairs, m.evs)
    if glued and kind == "string" and m.k_mquote:
        # '[a", "b"]': the quote glued to the word closes it (its opening quote was
        # missing), never opens the next item
        _glued_quote(m.repairs, m.evs, base + i, "string")
        i += 1
    _put(m.parser, stack, m.cpaths, key, shift, m.rlist, m.evs, val, kind, True)
    return i, _AFTER if stack else _END, "", key


def _step_comment(m: StepState, s: str, i: int, base: int, eof: bool) -> tuple[int, int, str]:
    """Inside a comment (lenient), or at its opener: skip to its end.  Returns ``i``,
    the state (the one the comment returns to, once it ended) and the text to hold."""
    n = len(s)
    if not m.comment_end:
        # at the '/' (or '#') that opens the comment
        if i + 1 >= n and not (eof and s[i] == "#"):
            return n, m.comment_ret, s[i:]
        m.comment_end = _comment_open(s, i, base, m.repairs, m.evs)
        i += 1 if s[i] == "#" else 2
    end = m.comment_end
    found = s.find(end, i)
    if found < 0:
        carry = ""
        if end == "*/" and n - 1 >= i and s.endswith("*"):
            carry = "*"
        elif end == "\n" and m.stack and not m.comment_closer:
            seen = m.comment_tail + s[i:]
            m.comment_closer = _COMMENT_MEMBER.search(seen) is not None
            m.comment_tail = seen[-40:]
        return n, _COMMENT, carry
    m.comment_end = ""
    m.comment_closer = False
    m.comment_tail = ""
    return found + len(end), m.comment_ret, ""


def _step_preamble(m: StepState, s: str, i: int, base: int) -> tuple[int, int, str]:
    """Before the root value (skip_preamble): skip prose, fences and think blocks.
    Returns ``i``, the state and the undecided text to hold."""
    assert m.preamble is not None
    i, start, skipped = m.preamble.scan(s, i, base)
    evs = m.evs
    if evs is not None:
        for kind, pos, text in skipped:
            evs.append(_new_event(Skipped, (kind, pos, text)))
    if start:
        return i, _VALUE, ""
    if i < len(s):
        return len(s), _PREAMBLE, s[i:]
    return i, _PREAMBLE, ""


def _step_after_root(m: StepState, s: str, i: int, base: int, state: int) -> tuple[int, int]:
    """After the root value (``_END``) or a closing fence (``_FENCED``): trailing text,
    blanks, a stray closer, a comment, or the error.  Returns ``i`` and the state."""
    c = s[i]
    if state == _FENCED:
        _trailing(m.tail, m.evs, s[i:], base + i)
        return len(s), state
    if m.glue:
        m.glue = False
        if c.isalnum() or c in "_$.+-":
            # "12abc", "false$": never a silent prefix of one token
            raise parse_error("Invalid value: text glued to it", base + i)
    if m.k_extra and c in "]}" and not m.tail:
        # (once trailing text began, a closer is part of it, as when the trailing text
        # arrives in one chunk)
        _repair(m.repairs, m.evs, "extra_closer", base + i, say("extra_closer", c=c))
        return i + 1, state
    if m.ignore_trailing:
        _trailing(m.tail, m.evs, s[i:], base + i)
        return len(s), state
    if c in lx.WHITESPACE:
        return lx.ws_run(s, i).end(), state
    if m.k_space and c in lx.UNICODE_SPACES:
        _unicode_space(m.repairs, m.evs, base + i)
        return i + 1, state
    if (c == "/" or c == "#") and m.k_comment:
        m.comment_ret = state
        return i, _COMMENT
    raise parse_error("Extra data after the JSON value", base + i)


def _step_end(
    m: StepState,
    state: int,
    is_key: bool,
    carry: str,
    base: int,
    key: Any,
    shift: int,
    nbuf: str,
    n_pos: int,
) -> None:
    """The end of input (after the driver settled an open string value): a comment that
    ran over the rest, a held root literal, a token or number the end completes, the
    last released items, and the truncated report."""
    parser = m.parser
    stack = m.stack
    if state == _COMMENT and m.comment_closer:
        # '{"a": {"b": 1 // note }, "c": 2}' on one line: the comment ran to the end
        # over a closer and the next member, which would silently be dropped
        raise parse_error("A line comment ran to the end over the rest of the document", base)
    if state == _PREAMBLE and carry:
        # the reply is only a literal ("true"), held because more word could follow
        for word, wval, wkind, tag in m.literals.get(carry[:1], ()):
            if carry == word:
                if tag:
                    _repair(m.repairs, m.evs, tag, base, say(tag, tok=word))
                _put(parser, stack, m.cpaths, key, shift, m.rlist, m.evs, wval, wkind, True)
    elif state == _UVAL:
        tok = m.ubuf.rstrip(m.strip)
        if tok and not literal_prefix(tok):  # a cut-off "tr" is dropped
            spaced = m.ubuf if m.k_space else ""
            val, kind = _token(tok, spaced, not stack, m.token_opts, m.u_pos, m.repairs, m.evs)
            _put(parser, stack, m.cpaths, key, shift, m.rlist, m.evs, val, kind, True)
    elif state == _NUMBER and _whole_number(nbuf):
        val = number_value(m.parse_float, m.parse_int, m.max_int, nbuf, n_pos)
        _put(parser, stack, m.cpaths, key, shift, m.rlist, m.evs, val, "number", True)
    rlist = m.rlist
    if rlist:
        k = len(rlist) - (len(stack) > 1 or (state == _STRING and not is_key))
        if k > 0:
            del rlist[:k]
    kinds = m.kinds
    if kinds and not parser._complete and "truncated" in kinds and parser._root is not UNSET:
        _repair(m.repairs, m.evs, "truncated", base, say("truncated", n=len(stack)))

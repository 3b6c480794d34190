"""How the pure-Python machine writes the live value and reports what it did.

A value goes into the innermost open container (or becomes the root) with its path
events (:func:`_put`), a container closes (:func:`_close`), a streamed string ends
(:func:`_end_string`); repairs, skipped text and limit errors are reported by the
small helpers below.  The machine's driver and its steps
(:mod:`unspool.core._machine_steps`) share them; no I/O, no state of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unspool.core import _lexicon as lx
from unspool.core._errors import MalformedJSON, parse_error
from unspool.core._path_events import DEEP_STRING_DELTA as _DEEP_SD
from unspool.core._path_events import DEEP_VALUE_END as _DEEP_VE
from unspool.core._path_events import DEEP_VALUE_START as _DEEP_VS
from unspool.core._path_events import (
    Path,
    PathEvent,
    Repair,
    Skipped,
    StringDelta,
    ValueEnd,
    ValueStart,
    child_path,
)
from unspool.core._repairs import say

if TYPE_CHECKING:
    from unspool.core._jsonstream import JsonStream


def _set_slot(parser: JsonStream, cont: Any, key: Any, text: str) -> None:
    """Write the in-flight string into its slot (the root, an array's last item, or a key)."""
    if cont is None:
        parser._root = text
    elif key is None:
        cont[-1] = text
    else:
        cont[key] = text


def _repair(
    repairs: list[Repair], evs: list[PathEvent] | None, kind: str, pos: int, msg: str
) -> None:
    r = Repair(kind, pos, msg)
    repairs.append(r)
    if evs is not None:
        evs.append(r)


_new_event = tuple.__new__  # builds a path event without its Python-level __new__


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
    :func:`~unspool.core._path_events.child_path` holds it: O(1) however deep.
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


def _release(rlist: list[Any], keep: int, shift: int) -> int:
    """release_items: drop the items of the root array ``rlist`` but its last ``keep``
    (their ``ValueEnd`` went out); returns the new count of released items."""
    k = len(rlist) - keep
    if k > 0:
        del rlist[:k]
        shift += k
    return shift


def _too_long(what: str, limit: int, pos: int) -> MalformedJSON:
    """The error for a string, key, number or unquoted value longer than max_token_chars."""
    return parse_error(f"{what} longer than max_token_chars={limit}", pos, True)


def _too_deep(limit: int, pos: int) -> MalformedJSON:
    """The error for a container opened deeper than max_depth."""
    return parse_error(f"nesting deeper than max_depth={limit}", pos, True)


def _trailing_comma(
    allowed: bool, repairs: list[Repair], evs: list[PathEvent] | None, pos: int, closer: str
) -> None:
    """A closer right after a comma: a trailing_comma repair when ``allowed``, else the error."""
    if not allowed:
        raise parse_error(f"Trailing comma before '{closer}'", pos)
    _repair(repairs, evs, "trailing_comma", pos, say("trailing_comma"))


def _odd_quote(
    repairs: list[Repair], evs: list[PathEvent] | None, c: str, pos: int, what: str
) -> None:
    """Report a string or key (``what``) opened by a single or a curly quote ``c``."""
    if c == "'":
        _repair(repairs, evs, "single_quotes", pos, say("single_quotes", what=what))
    else:
        _repair(repairs, evs, "curly_quotes", pos, say("curly_quotes", what=what))


def _trailing(tail: list[str], evs: list[PathEvent] | None, text: str, pos: int) -> None:
    """Keep ``text`` that followed the root value (trailing="ignore") and report it."""
    tail.append(text)
    if evs is not None:
        evs.append(_new_event(Skipped, ("trailing", pos, text)))


def _unicode_space(repairs: list[Repair], evs: list[PathEvent] | None, pos: int) -> None:
    """Report a Unicode space read as a blank (unicode_space)."""
    _repair(repairs, evs, "unicode_space", pos, say("unicode_space"))


def _glued_quote(repairs: list[Repair], evs: list[PathEvent] | None, pos: int, what: str) -> None:
    """Report a quote glued to the end of an unquoted string or key (``what``) that
    closes it: its opening quote was missing (missing_quote)."""
    _repair(repairs, evs, "missing_quote", pos, say("missing_quote", "opening", what=what))


def _spaces_after(
    repairs: list[Repair], evs: list[PathEvent] | None, text: str, end: int, pos: int
) -> None:
    """Report the Unicode spaces a token's text ended with (``text[end:]``), if any."""
    for k in range(end, len(text)):
        if text[k] in lx.UNICODE_SPACES:
            _unicode_space(repairs, evs, pos + k)
            return

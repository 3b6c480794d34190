"""Which machine runs a :class:`~unspool.core._jsonstream.JsonStream`.

Like the stdlib's ``json`` with ``_json`` behind it: the C machine
(``unspool.core._speedups``, built when a compiler was there at install time) runs
the configurations it accelerates: strict JSON and lenient mode (``lenient=True`` or
a collection of kinds), with or without path events and ``release_items``, every
limit (but ``max_token_chars`` with ``lenient``), str or bytes input.  In lenient
mode it reads valid JSON, the lenient decisions and the commonest repairs (trailing
and missing commas, unquoted keys, single quotes, comments, unquoted tokens) itself,
calling the reference's helpers for each decision and report; at any other repair,
an error or the end of an incomplete document it hands the stream over to the
pure-Python machine, which resumes from the same state at the same character
(``jsonstream._resume``) and gives the stream back at the next member it can; the
state crossing between the two is named once in :mod:`unspool.core._state`.  With
``skip_preamble`` in lenient mode (as ``loads`` and ``repair`` run) the C machine
starts handed over: the pure-Python machine skips the preamble and gives the stream
back once the value began.
Everything else (``skip_preamble`` in strict mode; ``max_token_chars`` with
``lenient``), and
everything when the extension is missing or ``UNSPOOL_PURE=1`` is set, runs on the
pure-Python machine in ``jsonstream.py``, which stays the reference: both give the
same values, events, repairs, errors and positions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Final

__all__ = [
    "ACCELERATED",
    "AVAILABLE",
    "accelerates",
    "max_depth",
    "new_stream",
    "select",
    "selected",
]


def _load() -> ModuleType | None:
    try:
        from unspool.core import _speedups  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _speedups  # type: ignore[no-any-return]


_speedups = _load()

AVAILABLE: Final = _speedups is not None
"""True when the C extension imported."""

ACCELERATED: Final = AVAILABLE and os.environ.get("UNSPOOL_PURE") != "1"
"""True when new parsers run on the C machine by default (exported as ``unspool.accelerated``)."""

_state = {"machine": "c" if ACCELERATED else "python"}
_c_type: list[Any] = []

_SIZE_LIMIT = 2**62  # larger limits are the same as none for the C machine's integers

_LIMITS = ("max_token_chars", "max_document_chars")


def select(machine: str) -> None:
    """Run new parsers on ``"c"`` or ``"python"`` (tests and benchmarks compare the two)."""
    if machine not in ("c", "python"):
        raise ValueError("machine must be 'c' or 'python'")
    if machine == "c" and not AVAILABLE:
        raise RuntimeError("the C machine is not built (unspool.core._speedups is missing)")
    _state["machine"] = machine


def selected() -> str:
    """The machine new parsers run on when their options allow it: ``"c"`` or ``"python"``."""
    return _state["machine"]


def max_depth(value: Any, limit: int) -> int:
    """:func:`~unspool.core._snapshot.max_depth` on the selected machine.

    The C twin (``_speedups.max_depth``, same name, same result) walks the containers
    a tenth as fast as decoding them costs, so ``loads`` checks the depth limit of
    every value at no visible cost; the pure-Python reference is the fallback.
    """
    if _state["machine"] == "c":
        return _speedups.max_depth(value, limit)  # type: ignore[union-attr,no-any-return]
    from unspool.core._snapshot import max_depth as reference

    return reference(value, limit)


def _small_int(value: Any, low: int) -> bool:
    return type(value) is int and low <= value < _SIZE_LIMIT


def accelerates(options: Mapping[str, Any]) -> bool:
    """Whether the C machine runs a parser made with these keyword ``options``."""
    lenient = options.get("lenient", False)
    if lenient is not False:
        if not (lenient is True or isinstance(lenient, (frozenset, set, list, tuple))):
            return False
        if options.get("max_token_chars") is not None:
            return False
    for name, value in options.items():
        if name in (
            "events",
            "allow_inf_nan",
            "parse_float",
            "parse_int",
            "release_items",
            "lenient",
        ):
            continue
        if name == "skip_preamble":
            # a preamble in lenient mode: the C machine lets the Python machine skip it
            if value and (lenient is False or (lenient is not True and not lenient)):
                return False
        elif name == "trailing":
            if value not in (None, "error", "ignore"):
                return False
        elif name == "max_depth":
            if not _small_int(value, 1):
                return False
        elif name == "max_int_digits":
            if not _small_int(value, -_SIZE_LIMIT):
                return False
        elif name in _LIMITS:
            if value is not None and not _small_int(value, 0):
                return False
        else:
            return False  # an option the C machine does not know: the Python one runs it
    return True


def _stream_type() -> Any:
    """The C machine's JsonStream subclass, made on first use (it needs the Python class)."""
    if not _c_type:
        from unspool.core import (
            _decisions as decisions,
        )
        from unspool.core import (
            _errors as errors,
        )
        from unspool.core import (
            _jsonstream as jsonstream,
        )
        from unspool.core import (
            _live as live,
        )
        from unspool.core import (
            _numbers as numbers,
        )
        from unspool.core import (
            _path_events as path_events,
        )
        from unspool.core import (
            _snapshot as snapshot,
        )
        from unspool.core import (
            _state as state,
        )
        from unspool.core._jsonstream import JsonStream
        from unspool.core._state import Helpers

        assert _speedups is not None
        helpers = Helpers(
            UNSET=errors.UNSET,
            parse_error=errors.parse_error,
            MalformedJSON=errors.MalformedJSON,
            LimitExceeded=errors.LimitExceeded,
            deep_copy=snapshot.deep_copy,
            big_int=numbers.big_int,
            ValueStart=path_events.ValueStart,
            StringDelta=path_events.StringDelta,
            ValueEnd=path_events.ValueEnd,
            Skipped=path_events.Skipped,
            path_flat=path_events.PATH_FLAT,
            path_link=path_events._Link,
            DeepValueStart=path_events.DEEP_VALUE_START,
            DeepStringDelta=path_events.DEEP_STRING_DELTA,
            DeepValueEnd=path_events.DEEP_VALUE_END,
            # lenient mode: the reference's decisions, and the hand-over to its machine
            resume=jsonstream._resume,
            kinds_of=jsonstream._kinds_of,
            close_verdict=decisions._close_verdict,
            string_cut=decisions._string_cut,
            string_fast=jsonstream._string_fast,
            token=decisions._token,
            glued_quote=live._glued_quote,
            repair=live._repair,
            repair_window=jsonstream._RepairWindow,
            Handover=state.Handover,
            Giveback=state.Giveback,
        )
        _c_type.extend((_speedups.make_type(JsonStream, helpers), JsonStream))
    return _c_type[0]


def new_stream(cls: type, options: Mapping[str, Any]) -> Any:
    """A new, uninitialised instance for ``JsonStream(**options)`` on the right machine.

    Only ``JsonStream`` itself is accelerated: a subclass keeps the Python machine
    its methods were written against.
    """
    if _state["machine"] == "c" and accelerates(options):
        fast = _c_type[0] if _c_type else _stream_type()
        if cls is _c_type[1]:
            return fast.__new__(fast)
    return object.__new__(cls)

"""Argument readers of the open-weights tool-call formats, one per argument syntax.

:data:`READERS` maps a reader's name (the ``reader`` of a
:class:`~unspool.protocols._model_formats.CallOpener`) to a function building it for
one call region: ``READERS[name](sink, opener, options, resync)``.  A new model
family whose syntax is one of these is a row of
:data:`~unspool.protocols._model_formats.MODEL_FORMATS`; a new syntax is a reader here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from unspool.protocols.tag_args._base import Call, Reader, Sink, skip_space
from unspool.protocols.tag_args._harmony import Harmony
from unspool.protocols.tag_args._json_calls import JsonCalls
from unspool.protocols.tag_args._named import NamedCall
from unspool.protocols.tag_args._py_calls import PyCalls
from unspool.protocols.tag_args._xml_params import XmlCall

__all__ = ["READERS", "Call", "Either", "Reader", "ReaderFactory", "Sink"]

ReaderFactory = Callable[[Sink, str, Mapping[str, Any], tuple[str, ...]], Reader]
"""``(sink, opener, options, resync) -> Reader``."""


class Either:
    """Waits for the region's first non-blank character: ``[`` or ``{`` starts the
    ``json`` reader, anything else the ``other`` one."""

    def __init__(self, json: Callable[[], Reader], other: Callable[[], Reader]) -> None:
        self._json = json
        self._other = other
        self._blanks: list[str] = []  # blanks so far (kept apart: a long run stays O(n))
        self._reader: Reader | None = None

    def feed(self, text: str) -> str | None:
        if self._reader is not None:
            return self._reader.feed(text)
        j = skip_space(text, 0)
        if j == len(text):
            self._blanks.append(text)
            return None
        self._reader = self._json() if text[j] in "[{" else self._other()
        blanks = "".join(self._blanks)
        self._blanks = []
        return self._reader.feed(blanks + text)

    def finish(self) -> None:
        if self._reader is None:
            self._reader = self._other()
            self._reader.feed("".join(self._blanks))
        self._reader.finish()


def _json(sink: Sink, opener: str, o: Mapping[str, Any], resync: tuple[str, ...]) -> Reader:
    return JsonCalls(
        sink,
        shape=o.get("shape", "object"),
        closers=tuple(o.get("closers", ())),
        seps=tuple(o.get("seps", ())),
        fence=bool(o.get("fence", False)),
        resync=resync,
    )


def _named_json(sink: Sink, opener: str, o: Mapping[str, Any], resync: tuple[str, ...]) -> Reader:
    closers = tuple(o.get("closers", ()))
    fence = bool(o.get("fence", False))

    def args(sink: Sink, call: Call) -> Reader:
        return JsonCalls(sink, shape="args", call=call, closers=closers, fence=fence, resync=resync)

    return NamedCall(
        sink,
        args,
        ends=tuple(o["ends"]),
        stops=tuple(o.get("stops", ())),
        strip=tuple(o.get("strip", ())),
        suffix=o.get("suffix"),
        kinds=tuple(o.get("kinds", ())),
        id_marker=o.get("id_marker"),
        keep_id=bool(o.get("keep_id", False)),
    )


def _either(sink: Sink, opener: str, o: Mapping[str, Any], resync: tuple[str, ...]) -> Reader:
    first, second = o["json"], o["other"]
    return Either(
        lambda: READERS[first[0]](sink, opener, first[1], resync),
        lambda: READERS[second[0]](sink, opener, second[1], resync),
    )


def _xml(sink: Sink, opener: str, o: Mapping[str, Any], resync: tuple[str, ...]) -> Reader:
    return XmlCall(
        sink,
        o["dialect"],
        closers=tuple(o["closers"]),
        resync=resync,
        bare=bool(o.get("bare", False)),
    )


def _python(sink: Sink, opener: str, o: Mapping[str, Any], resync: tuple[str, ...]) -> Reader:
    return PyCalls(
        sink,
        closers=tuple(o.get("closers", ())),
        multi=bool(o.get("multi", False)),
        resync=resync,
    )


def _harmony(sink: Sink, opener: str, o: Mapping[str, Any], resync: tuple[str, ...]) -> Reader:
    return Harmony(sink, opener)


READERS: dict[str, ReaderFactory] = {
    "json": _json,
    "named_json": _named_json,
    "either": _either,
    "xml": _xml,
    "python": _python,
    "harmony": _harmony,
}
"""The argument readers by name (see the module docstring)."""

"""What the command writes: every record a stream produces, as one JSON object per line.

A *record* is an :mod:`unspool.events` event (action protocols), or, for
``--protocol json``, one of the core's path events, a :class:`SchemaCheck` and
the closing :class:`JsonDone`.  :func:`record_to_dict` gives each its JSON
form; :class:`JsonLinesWriter` writes one line per record and flushes it, so a
consumer downstream of a pipe sees each record as soon as it exists.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from unspool.core._errors import UNSET
from unspool.core._path_events import PathEvent, Repair, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.events import Event

__all__ = [
    "JsonDone",
    "JsonLinesWriter",
    "Record",
    "SchemaCheck",
    "dumps_line",
    "record_to_dict",
]


@dataclass(frozen=True, slots=True)
class JsonDone:
    """The end of a ``--protocol json`` stream: the final value and whether its root closed."""

    value: Any
    complete: bool


@dataclass(frozen=True, slots=True)
class SchemaCheck:
    """The final JSON value checked against ``--schema``: ``ok``, or the errors found."""

    ok: bool
    errors: tuple[Mapping[str, Any], ...] = ()


Record = Event | PathEvent | JsonDone | SchemaCheck


def record_to_dict(record: Record) -> dict[str, Any]:
    """The JSON-ready dict of a record; its ``"type"`` key names what it is."""
    if isinstance(record, ValueStart):
        return {"type": "value_start", "path": list(record.path), "kind": record.kind}
    if isinstance(record, StringDelta):
        return {"type": "string_delta", "path": list(record.path), "text": record.text}
    if isinstance(record, ValueEnd):
        return {"type": "value_end", "path": list(record.path), "value": record.value}
    if isinstance(record, Repair):
        return {"type": "repair", "kind": record.kind, "pos": record.pos, "message": record.message}
    if isinstance(record, Skipped):
        return {"type": "skipped", "kind": record.kind, "pos": record.pos, "text": record.text}
    if isinstance(record, JsonDone):
        if record.value is UNSET:  # nothing was parsed: no "value" key (null is a value)
            return {"type": "done", "complete": record.complete}
        return {"type": "done", "value": record.value, "complete": record.complete}
    if isinstance(record, SchemaCheck):
        return {"type": "validation", "ok": record.ok, "errors": [dict(e) for e in record.errors]}
    return record.to_dict()


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats spelled as strings (JSON has no NaN or Infinity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def dumps_line(obj: Mapping[str, Any]) -> bytes:
    """One JSON line, UTF-8 encoded, newline included; always valid JSON."""
    safe: Any = obj
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=repr)
    except ValueError:
        safe = _finite(obj)
        text = json.dumps(safe, ensure_ascii=False, default=repr)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: let json escape it
        data = json.dumps(safe, default=repr).encode("ascii")
    return data + b"\n"


class JsonLinesWriter:
    """Writes records as JSON lines to a binary stream, flushing after each line."""

    __slots__ = ("_stream",)

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, record: Record) -> None:
        """Write one record as a line and flush it."""
        self._stream.write(dumps_line(record_to_dict(record)))
        self._stream.flush()

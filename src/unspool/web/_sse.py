"""Server-Sent Events framing: one place that turns fields into the bytes of a frame.

A frame is ``field: value`` lines and a blank line (the WHATWG ``text/event-stream``
format). A value holding a line break is split over several ``data:`` lines, which a
client joins back with ``\\n``; ``event`` and ``id`` may not hold one at all.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["KEEP_ALIVE", "comment", "dumps", "frame"]

KEEP_ALIVE = b": keep-alive\n\n"
"""The comment sent while the model is silent, so proxies keep the connection open."""

_BREAKS = ("\r\n", "\r", "\n")


def frame(data: str, *, event: str | None = None, id: str | int | None = None) -> bytes:
    """One SSE frame: ``id:``, ``event:`` and the ``data:`` lines, then a blank line."""
    lines: list[str] = []
    if id is not None:
        text = str(id)
        if any(b in text for b in _BREAKS) or "\0" in text:
            raise ValueError("an SSE id may not hold a line break or NUL")
        lines.append(f"id: {text}")
    if event is not None:
        if any(b in event for b in _BREAKS):
            raise ValueError("an SSE event name may not hold a line break")
        lines.append(f"event: {event}")
    normalized = data.replace("\r\n", "\n").replace("\r", "\n")
    lines.extend(f"data: {line}" for line in normalized.split("\n"))
    text = "\n".join(lines) + "\n\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escape_surrogates(text).encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as a ``\\uXXXX`` escape.

    JSON's ``"\\ud800"`` decodes to a lone surrogate, so a model can put one in any
    string an event carries; UTF-8 cannot encode it.  Inside the JSON text of a
    ``data:`` line the escape is what ``JSON.parse`` reads back as the same string."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def comment(text: str) -> bytes:
    """An SSE comment line (clients ignore it); line breaks become spaces."""
    flat = " ".join(text.replace("\r", "\n").split("\n"))
    return f": {flat}\n\n".encode()


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by ``None`` (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """Compact JSON that a browser's ``JSON.parse`` reads back the same: NaN and
    infinities become ``null``; anything else JSON has no form for is a ``TypeError``."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(
            _finite(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )

"""Reading provider events by duck typing: SDK objects, plain dicts or SSE messages.

The adapters read only the documented attributes of each provider event, through
:func:`get`, which works on the SDK's typed objects (attributes) and on decoded
JSON (dict keys) alike.  So the adapters need no SDK import, keep working when a
newer SDK adds fields or event types, and also accept a raw wire stream read by
any HTTP client (:func:`unpack` decodes the JSON ``data`` of an SSE message).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from unspool.sources.sse import SSEMessage

__all__ = ["SKIP", "get", "get_str", "unpack"]

_MISSING: Any = object()
SKIP: Any = object()
"""Returned by :func:`unpack` for an item that carries no event (``[DONE]``, a blank message)."""


def get(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, else ``getattr(obj, name)``; ``default`` when absent."""
    if type(obj) is dict:
        return obj.get(name, default)
    value = getattr(obj, name, _MISSING)
    if value is not _MISSING:
        return value
    return obj.get(name, default) if isinstance(obj, Mapping) else default


def get_str(obj: Any, name: str) -> str | None:
    """:func:`get` for a field that should be a string: anything else is ``None``."""
    value = get(obj, name)
    return value if isinstance(value, str) else None


def unpack(item: Any) -> Any:
    """An SSE message's JSON ``data`` (or :data:`SKIP`); any other item unchanged.

    Raises :class:`ValueError` when the data is not JSON."""
    if not isinstance(item, SSEMessage):
        return item
    data = item.data
    if not data.strip() or data == "[DONE]":
        return SKIP
    return json.loads(data)

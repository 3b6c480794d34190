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

from unspool.sources._sse import SSEMessage

__all__ = ["SKIP", "get", "get_int", "get_str", "is_record", "plain", "show", "unpack"]

_MISSING: Any = object()
SKIP: Any = object()
"""Returned by :func:`unpack` for an item that carries no event (``[DONE]``, a blank message)."""


_CLASS_HAS: dict[tuple[type, str], bool] = {}


def _on_class(cls: type, name: str) -> bool:
    """Whether a model class defines ``name`` itself (a property...), remembered per class:
    the SDKs' model classes and the field names read are few."""
    key = (cls, name)
    found = _CLASS_HAS.get(key)
    if found is None:
        found = _CLASS_HAS[key] = any(name in vars(base) for base in cls.__mro__)
    return found


def get(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, else ``getattr(obj, name)``; ``default`` when absent.

    An SDK object (a pydantic model) is read from its fields and extra fields first:
    asking a model for a field it lacks costs an exception, and the adapters ask for
    many optional fields of every chunk."""
    if type(obj) is dict:
        return obj.get(name, default)
    fields = getattr(obj, "__dict__", None)
    if fields is not None and name in fields:
        return fields[name]
    extra = getattr(obj, "__pydantic_extra__", _MISSING)
    if extra is not _MISSING:
        if extra is not None and name in extra:
            return extra[name]
        if not _on_class(type(obj), name):  # not a field, an extra or a property
            return default
    value = getattr(obj, name, _MISSING)
    if value is not _MISSING:
        return value
    return obj.get(name, default) if isinstance(obj, Mapping) else default


def get_str(obj: Any, name: str) -> str | None:
    """:func:`get` for a field that should be a string: anything else is ``None``."""
    value = get(obj, name)
    return value if isinstance(value, str) else None


def get_int(obj: Any, name: str) -> int | None:
    """:func:`get` for a field that should be an integer (``bool`` is not): else ``None``."""
    value = get(obj, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_SCALARS = (str, bytes, bytearray, int, float, bool, list, tuple, set, frozenset)


def is_record(value: Any) -> bool:
    """Whether ``value`` can be an event or a field object: a mapping or an SDK
    object, not ``None``, a scalar or a list."""
    return value is not None and not isinstance(value, _SCALARS)


def plain(value: Any) -> Any:
    """An SDK object as its JSON form (``model_dump`` of the fields the provider sent,
    so it equals the decoded wire JSON); decoded JSON unchanged."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        return dump(mode="json", by_alias=True, exclude_unset=True)
    return value


SHOW_LIMIT = 500
"""Characters of a payload quoted in a ``Diagnostic`` before it is shortened."""


def show(value: Any) -> str:
    """A payload as compact JSON for a ``Diagnostic`` (an SDK object by its JSON form,
    anything else by ``repr``), shortened to :data:`SHOW_LIMIT` characters."""
    dump = getattr(value, "model_dump", None)
    try:
        if callable(dump):
            value = dump(mode="json")
        text = json.dumps(value, ensure_ascii=False, default=repr, separators=(",", ":"))
    except Exception:  # an object whose JSON form or repr fails: its type is all we can say
        text = f"<{type(value).__name__}>"
    if len(text) > SHOW_LIMIT:
        return text[:SHOW_LIMIT] + f"… ({len(text)} characters)"
    return text


def unpack(item: Any) -> Any:
    """An SSE message's JSON ``data`` (or :data:`SKIP`); any other item unchanged.

    Raises :class:`ValueError` when the data is not JSON."""
    if not isinstance(item, SSEMessage):
        return item
    data = item.data
    if not data.strip() or data == "[DONE]":
        return SKIP
    return json.loads(data)

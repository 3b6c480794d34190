"""JSON-safe values: what ``Event.to_dict()`` gives for anything an event carries.

:func:`to_jsonable` turns args, results, errors and partial values into plain
``dict`` / ``list`` / ``str`` / ``int`` / ``float`` / ``bool`` / ``None`` that
``json.dumps(value, allow_nan=False)`` accepts and that a browser's ``JSON.parse``
reads as the same value.  The rules, one per kind of value:

* ``str`` as is, lone surrogates included: ``json.dumps`` writes them as ``\\ud800``
  escapes (its default ``ensure_ascii=True``), which ``JSON.parse`` reads as the same
  UTF-16 code unit; a writer using ``ensure_ascii=False`` must escape them itself;
* ``int`` as is inside JavaScript's safe range (``abs(n) <= 2**53 - 1``), else its
  exact decimal string (``JSON.parse`` would round it), however many digits;
* ``float`` as is; NaN, Infinity and -Infinity become ``None`` (JSON has none of them);
* ``decimal.Decimal`` as its exact string (``"1.10"``); a NaN or infinite one as ``None``;
* ``datetime``, ``date`` and ``time`` in ISO 8601 (``isoformat()``); ``timedelta`` as an
  ISO 8601 duration (``"P1DT2H0.5S"``, ``"-PT30S"``);
* ``uuid.UUID`` and paths as their string; an ``Enum`` member as its value;
* ``bytes``, ``bytearray`` and ``memoryview`` as standard base64 text;
* ``set`` / ``frozenset`` as a list, sorted (by value when the items compare, else by
  their JSON text) so the output does not depend on hashing;
* a mapping as a dict; keys that are not strings become JSON's spelling of them
  (``1`` -> ``"1"``, ``None`` -> ``"null"``, a UUID -> its string); when two keys
  spell the same, the later one wins, as ``JSON.parse`` does with repeated keys;
* lists, tuples and other sequences as lists;
* Pydantic models by ``model_dump(mode="json")``, dataclass instances by their
  fields, exceptions as ``"TypeName: message"``;
* the core's ``UNSET`` (nothing parsed yet) as ``None``;
* any other object as ``"TypeName: str(value)"``, or just its qualified type name
  when it has no text of its own (never a ``repr()`` holding a memory address);
* a container met again inside itself becomes ``"[circular reference]"``, and one
  nested more than :data:`MAX_DEPTH` (500) levels deep ``"[nested too deep]"``, so the
  conversion ends and ``json.dumps`` (which recurses) cannot hit the recursion limit.

Never raises: a ``__str__`` or ``model_dump`` that raises falls back to the type name.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import enum
import json
import math
import os
import uuid
from collections.abc import Mapping, Sequence, Set
from typing import Any

from unspool.core._errors import Unset

__all__ = ["CIRCULAR", "MAX_DEPTH", "TOO_DEEP", "to_jsonable"]

MAX_DEPTH = 500
"""Containers nested deeper than this are cut (``json.dumps`` itself recurses)."""

CIRCULAR = "[circular reference]"
"""What a container becomes where it appears inside itself."""

TOO_DEEP = "[nested too deep]"
"""What a container nested deeper than :data:`MAX_DEPTH` becomes."""

_SAFE_INT = 2**53 - 1
_REPLACE: Any = object()
_DEFAULT_TEXT: tuple[Any, Any] = (object.__str__, object.__repr__)
_DIGITS_PER_PIECE = 1000


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (see the module docs for each kind's rule)."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return value
    if kind is int:
        return value if -_SAFE_INT <= value <= _SAFE_INT else _int_text(value)
    if kind is float:
        return value if math.isfinite(value) else None
    return _convert(value)


# A frame is ("value", obj, holder, key, depth): convert obj into holder[key];
# or ("exit", obj_id, holder, key, sort): leave a container (sorting a set's list).
_Frame = tuple[str, Any, Any, Any, Any]


def _convert(value: Any) -> Any:
    root: list[Any] = [None]
    active: set[int] = set()  # the containers being converted: the current path
    stack: list[_Frame] = [("value", value, root, 0, 0)]
    while stack:
        tag, obj, holder, key, extra = stack.pop()
        if tag == "exit":
            active.discard(obj)
            if extra:
                holder[key] = _sorted(holder[key])
            continue
        done, result = _scalar(obj)
        if done:
            holder[key] = result
            continue
        children, make, is_set = _children(obj)
        if children is None:
            holder[key] = make
            continue
        if make is _REPLACE:  # an Enum's value, a model's dump: converted in its place
            stack.append(("value", children[0][1], holder, key, extra + 1))
            continue
        if id(obj) in active:
            holder[key] = CIRCULAR
            continue
        if extra >= MAX_DEPTH:
            holder[key] = TOO_DEEP
            continue
        holder[key] = make
        active.add(id(obj))
        stack.append(("exit", id(obj), holder, key, is_set))
        for child_key, child in reversed(children):
            stack.append(("value", child, make, child_key, extra + 1))
    return root[0]


def _children(obj: Any) -> tuple[list[tuple[Any, Any]] | None, Any, bool]:
    """``(children as (key, value), the new container, is a set)`` for a container;
    ``(None, converted value, False)`` for an object converted whole."""
    if isinstance(obj, Mapping):
        try:
            items = [(_key(k), v) for k, v in obj.items()]
        except Exception:
            return None, _other(obj), False
        return items, dict.fromkeys(k for k, _ in items), False
    if isinstance(obj, (list, tuple, Set)) or (
        isinstance(obj, Sequence) and not isinstance(obj, (str, bytes, bytearray))
    ):
        try:
            values = list(obj)
        except Exception:
            return None, _other(obj), False
        return list(enumerate(values)), [None] * len(values), isinstance(obj, Set)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = [(f.name, getattr(obj, f.name, None)) for f in dataclasses.fields(obj)]
        return fields, dict.fromkeys(name for name, _ in fields), False
    if isinstance(obj, enum.Enum):
        return [(0, obj.value)], _REPLACE, False
    dump = getattr(obj, "model_dump", None)  # pydantic models, without importing pydantic
    if callable(dump) and not isinstance(obj, type):
        for kwargs in ({"mode": "json"}, {}):
            try:
                return [(0, dump(**kwargs))], _REPLACE, False
            except Exception:
                continue
    return None, _other(obj), False


def _scalar(obj: Any) -> tuple[bool, Any]:
    """``(True, JSON value)`` for a value that is not a container, else ``(False, None)``."""
    if obj is None or isinstance(obj, bool):
        return True, obj
    if isinstance(obj, enum.Enum):
        return False, None  # its value, converted in its place
    if isinstance(obj, str):
        return True, str(obj)
    if isinstance(obj, int):
        number = int(obj)
        return True, (number if -_SAFE_INT <= number <= _SAFE_INT else _int_text(number))
    if isinstance(obj, float):
        return True, (float(obj) if math.isfinite(obj) else None)
    if isinstance(obj, decimal.Decimal):
        return True, (str(obj) if obj.is_finite() else None)
    if isinstance(obj, (dt.datetime, dt.date, dt.time)):
        return True, obj.isoformat()
    if isinstance(obj, dt.timedelta):
        return True, _duration(obj)
    if isinstance(obj, uuid.UUID):
        return True, str(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return True, base64.b64encode(bytes(obj)).decode("ascii")
    if isinstance(obj, os.PathLike):
        path = os.fspath(obj)
        return True, path if isinstance(path, str) else base64.b64encode(path).decode("ascii")
    if isinstance(obj, Unset):
        return True, None
    if isinstance(obj, BaseException):
        text = _text(obj)
        return True, type(obj).__name__ if text is None else f"{type(obj).__name__}: {text}"
    return False, None


def _key(key: Any) -> str:
    """A mapping key as JSON spells it: a string as is, ``1`` -> ``"1"``, ``None`` -> ``"null"``."""
    if isinstance(key, str) and not isinstance(key, enum.Enum):
        return str(key)
    converted = to_jsonable(key)
    if isinstance(converted, str):
        return converted
    return json.dumps(converted, sort_keys=True, separators=(",", ":"))


def _sorted(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:  # mixed types, or dicts: order by JSON text
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))


def _int_text(number: int) -> str:
    """The exact decimal digits of ``number``, past ``sys.get_int_max_str_digits``."""
    try:
        return str(number)
    except ValueError:  # CPython's int-to-str digit limit: convert in pieces
        sign, number = ("-", -number) if number < 0 else ("", number)
        pieces: list[int] = []
        base = 10**_DIGITS_PER_PIECE
        while number:
            number, piece = divmod(number, base)
            pieces.append(piece)
        width = f"0{_DIGITS_PER_PIECE}d"
        return sign + str(pieces[-1]) + "".join(format(p, width) for p in reversed(pieces[:-1]))


def _duration(delta: dt.timedelta) -> str:
    """ISO 8601 duration: ``P1DT2H3M4.5S``; negative ones start with ``-``."""
    sign = "-" if delta < dt.timedelta(0) else ""
    delta = abs(delta)
    hours, rest = divmod(delta.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if delta.microseconds:
        clock += f"{seconds}.{delta.microseconds:06d}".rstrip("0") + "S"
    elif seconds:
        clock += f"{seconds}S"
    days = f"{delta.days}D" if delta.days else ""
    if not days and not clock:
        return "PT0S"
    return f"{sign}P{days}" + (f"T{clock}" if clock else "")


def _type_name(obj: Any) -> str:
    kind = type(obj)
    module = kind.__module__
    return (
        kind.__qualname__ if module in ("builtins", "__main__") else f"{module}.{kind.__qualname__}"
    )


def _text(obj: Any) -> str | None:
    try:
        return str(obj)
    except Exception:
        return None


def _other(obj: Any) -> str:
    """An object with no JSON form: its type name, with its text when it has one."""
    kind = type(obj)
    if (kind.__str__, kind.__repr__) == _DEFAULT_TEXT:
        return _type_name(obj)  # the default text holds a memory address: not a value
    text = _text(obj)
    return _type_name(obj) if text is None else f"{_type_name(obj)}: {text}"

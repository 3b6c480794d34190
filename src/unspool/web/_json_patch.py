"""JSON Patch (RFC 6902) applied to a JSON value: what a page does with a ``StateDelta``.

The ``"ai-sdk"`` format has no state of its own, so its encoder keeps the state and
applies each patch here, then sends the whole new state (see
:mod:`unspool.web.formats._ai_sdk`). The rules are the RFC's, as ``fast-json-patch``
(what ``@ag-ui/client`` applies ``STATE_DELTA`` with) reads them; a test holds the two
to the same results:

* a patch applies whole or not at all (:class:`PatchError`, the value unchanged);
* pointers per RFC 6901 (``~1`` is ``/``, ``~0`` is ``~``); an array index is ``0`` or
  digits without a leading zero, ``-`` (only to ``add``) is past the end. Where
  ``fast-json-patch`` reads more than the RFC allows, this module refuses the patch: an
  index with leading zeros or an empty one to insert at (it inserts at the number, or
  at 0), a ``move`` / ``copy`` to an index past the end (it appends), a path through a
  number, string, boolean or null (it ignores the operation);
* ``add`` into an object sets the member, into an array inserts (``0`` to its length);
  ``remove`` / ``replace`` need the target to exist (the whole value is replaced, never
  removed); ``move`` may not move a value into itself; ``copy`` copies deeply; ``test`` compares as JSON (``1`` equals ``1.0``, never
  ``true``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["PatchError", "apply_patch", "json_equal", "parse_pointer"]


class PatchError(ValueError):
    """The patch does not apply to the value (``index``: the operation that failed)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"operation {index}: {message}")
        self.index = index


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON Pointer (``""`` is the whole value: no tokens)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {pointer!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON has it: numbers by value, booleans never numbers, objects by
    members, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _index(token: str, size: int, *, end_ok: bool) -> int:
    if token == "-" and end_ok:
        return size
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise LookupError(f"{token!r} is not an array index")
    index = int(token)
    if index > size or (index == size and not end_ok):
        raise LookupError(f"index {index} is out of range")
    return index


def _get(doc: Any, tokens: list[str]) -> Any:
    for token in tokens:
        if isinstance(doc, dict):
            if token not in doc:
                raise LookupError(f"no member {token!r}")
            doc = doc[token]
        elif isinstance(doc, list):
            doc = doc[_index(token, len(doc), end_ok=False)]
        else:
            raise LookupError(f"{token!r} is inside a {type(doc).__name__}")
    return doc


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent = _get(doc, tokens[:-1])
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(last, len(parent), end_ok=True), value)
    else:
        raise LookupError(f"cannot add inside a {type(parent).__name__}")
    return doc


def _remove(doc: Any, tokens: list[str]) -> tuple[Any, Any]:
    """``(doc, removed value)``; the whole value cannot be removed (a state is never
    nothing: ``@ag-ui/client`` keeps its state when a patch would)."""
    if not tokens:
        raise LookupError("the whole value cannot be removed")
    parent = _get(doc, tokens[:-1])
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise LookupError(f"no member {last!r}")
        return doc, parent.pop(last)
    if isinstance(parent, list):
        return doc, parent.pop(_index(last, len(parent), end_ok=False))
    raise LookupError(f"cannot remove inside a {type(parent).__name__}")


def _apply_one(doc: Any, op: Mapping[str, Any]) -> Any:
    name = op.get("op")
    tokens = parse_pointer(op["path"])
    if name == "add":
        return _add(doc, tokens, copy.deepcopy(op["value"]))
    if name == "remove":
        return _remove(doc, tokens)[0]
    if name == "replace":
        if not tokens:
            return copy.deepcopy(op["value"])
        _get(doc, tokens)
        doc, _ = _remove(doc, tokens)
        return _add(doc, tokens, copy.deepcopy(op["value"]))
    if name in ("move", "copy"):
        source = parse_pointer(op["from"])
        if name == "move":
            if tokens[: len(source)] == source and len(tokens) > len(source):
                raise LookupError("a value cannot be moved into itself")
            value = _get(doc, source)
            doc, value = _remove(doc, source)
        else:
            value = copy.deepcopy(_get(doc, source))
        return _add(doc, tokens, value)
    if name == "test":
        if not json_equal(_get(doc, tokens), op["value"]):
            raise LookupError(f"the value at {op['path']!r} is not the one tested")
        return doc
    raise LookupError(f"unknown operation {name!r}")


def apply_patch(doc: Any, patch: Iterable[Mapping[str, Any]]) -> Any:
    """The value ``doc`` becomes with ``patch`` applied (``doc`` itself is not changed);
    :class:`PatchError` when an operation does not apply."""
    result = copy.deepcopy(doc)
    for index, op in enumerate(patch):
        try:
            result = _apply_one(result, op)
        except (LookupError, ValueError, KeyError, TypeError) as exc:
            raise PatchError(index, str(exc)) from None
    return result

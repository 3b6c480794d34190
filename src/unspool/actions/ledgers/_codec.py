"""How ledgers write values a database cannot take as they are, and read them back.

* :func:`dump_json` / :func:`load_json`: JSON text for any JSON-ready value, ASCII
  only (a lone surrogate such as ``"\\ud800"`` is written as its escape), ints of any
  size (past Python's 4300-digit limit for ``str(int)``), NaN and infinities as
  ``NaN`` / ``Infinity``; the text reads back to an equal value.
* :func:`to_text` / :func:`from_text`: a string for a ``TEXT`` column. Text that
  is not valid UTF-8 (lone surrogates) or holds NUL (PostgreSQL refuses it) is
  stored as ``"\\x01"`` plus its JSON string literal; so is text that starts with
  ``"\\x01"``, so every string round-trips exactly.
* :func:`jsonable`: a handler's result in its JSON form (Pydantic's encoder:
  models, dataclasses, datetimes, sets...), or :class:`Unstorable`.
* :func:`fingerprint`: the canonical fingerprint of an action's validated args.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

from pydantic_core import to_jsonable_python

__all__ = [
    "Unstorable",
    "dump_json",
    "fingerprint",
    "from_text",
    "jsonable",
    "load_json",
    "safe_str",
    "to_text",
]

_ESCAPE = "\x01"
_SUMMARY_CHARS = 60
_INT_DIGITS = 4000  # below Python's default limit of int <-> str conversion (4300)


class Unstorable(ValueError):
    """A value with no JSON form (circular, or of a type the encoder does not know)."""


def safe_str(value: object) -> str:
    """``str(value)``, or a description when its ``__str__`` raises."""
    try:
        return str(value)
    except Exception as exc:
        return f"<{type(value).__name__}: str() raised {type(exc).__name__}>"


def jsonable(value: Any) -> Any:
    """The JSON form of ``value``; raises :class:`Unstorable` when there is none."""
    try:
        return to_jsonable_python(value)
    except Exception as exc:  # pydantic's error for cycles and unknown types
        raise Unstorable(f"{type(exc).__name__}: {safe_str(exc)}") from None


def dump_json(value: Any, *, canonical: bool = False) -> str:
    """ASCII JSON text of a JSON-ready value (see the module docs); ``canonical``
    sorts keys and drops spaces. Raises :class:`Unstorable` for cycles."""
    sep = (",", ":") if canonical else (", ", ": ")
    try:
        return json.dumps(value, sort_keys=canonical, separators=sep)
    except RecursionError:
        raise Unstorable("nested too deeply") from None
    except ValueError as exc:
        if "Circular" in str(exc):
            raise Unstorable("circular reference") from None
        # an int past the digit limit: write the text by hand
        out: list[str] = []
        _write(value, out, canonical, sep, 0)
        return "".join(out)


def _write(value: Any, out: list[str], canonical: bool, sep: tuple[str, str], depth: int) -> None:
    if depth > 10_000:
        raise Unstorable("nested too deeply")
    if isinstance(value, int) and not isinstance(value, bool):
        out.append(str(Decimal(value)))  # Decimal prints any number of digits
    elif isinstance(value, dict):
        out.append("{")
        items = sorted(value.items()) if canonical else value.items()
        for i, (k, v) in enumerate(items):
            if i:
                out.append(sep[0])
            out.append(json.dumps(str(k)) + sep[1])
            _write(v, out, canonical, sep, depth + 1)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(sep[0])
            _write(v, out, canonical, sep, depth + 1)
        out.append("]")
    else:
        out.append(json.dumps(value))


def _parse_int(text: str) -> int:
    return int(Decimal(text)) if len(text) > _INT_DIGITS else int(text)


def load_json(text: str) -> Any:
    """The value of JSON text written by :func:`dump_json`."""
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(text, parse_int=_parse_int)


def to_text(text: str) -> str:
    """``text`` as a database ``TEXT`` value can hold it (see the module docs)."""
    if text.isascii():
        if "\x00" not in text and not text.startswith(_ESCAPE):
            return text
    elif "\x00" not in text:
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
    return _ESCAPE + json.dumps(text)


def from_text(text: str) -> str:
    """The string :func:`to_text` stored."""
    if text.startswith(_ESCAPE):
        value: str = json.loads(text[1:])
        return value
    return text


def fingerprint(args: Any) -> tuple[str, str]:
    """The fingerprint of an action's validated args (32 hex digits of the SHA-256
    of their canonical JSON: sorted keys, no spaces, ASCII) and a short summary of
    that JSON for messages. Args with no JSON form are fingerprinted by ``repr``."""
    try:
        text = dump_json(jsonable(args), canonical=True)
    except Unstorable:
        text = safe_repr(args)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    summary = text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"
    return digest, summary


def safe_repr(value: object) -> str:
    """``repr(value)``, or a description when its ``__repr__`` raises."""
    try:
        return repr(value)
    except Exception as exc:
        return f"<{type(value).__name__}: repr() raised {type(exc).__name__}>"

"""XML-style parameters, their values typed by the action's schema.

Two dialects, one reader:

* ``"qwen3_coder"`` (also Seed-OSS): ``<function=NAME><parameter=k>value</parameter>…
  </function>``; the template puts a newline around each value, which is not part
  of it.
* ``"glm"`` (GLM-4.5/4.6): ``NAME`` then ``<arg_key>k</arg_key><arg_value>v</arg_value>``
  pairs.

A value is raw text.  With the action's schema (from the registry) a ``string``
parameter keeps it as written and any other type reads it as JSON (or a Python
literal such as ``True``); without one, text that reads as a JSON number, boolean,
null, object or array is that value and anything else a string.  While a value
streams, the partial arguments show it as the string so far.
"""

from __future__ import annotations

import ast
import contextlib
import json
from collections.abc import Mapping
from typing import Any

from unspool.protocols._args_snapshot import new_snapshots
from unspool.protocols.tag_args._base import Call, Sink, match_literal, skip_space, skipper
from unspool.protocols.tag_args._named import clean_name
from unspool.protocols.tag_args._scan import Until

__all__ = ["DIALECTS", "XmlCall", "type_value"]

DIALECTS: dict[str, dict[str, str]] = {
    "qwen3_coder": {
        "func_open": "<function=",
        "name_end": ">",
        "param_open": "<parameter=",
        "key_end": ">",
        "value_open": "",
        "value_end": "</parameter>",
        "func_close": "</function>",
    },
    "glm": {
        "func_open": "",
        "name_end": "\n",
        "param_open": "<arg_key>",
        "key_end": "</arg_key>",
        "value_open": "<arg_value>",
        "value_end": "</arg_value>",
        "func_close": "",
    },
}
"""The literals of each dialect (an empty one is not written)."""

_FUNC, _NAME, _PARAMS, _KEY, _VOPEN, _VALUE, _END, _SKIP, _DONE = range(9)
_MAX_NAME = 256
_TYPED = ("integer", "number", "boolean", "object", "array", "null")


def type_value(raw: str, schema: Mapping[str, Any] | None) -> Any:
    """The value of a parameter written as ``raw`` (see the module docstring)."""
    kinds: Any = None if schema is None else schema.get("type")
    if isinstance(kinds, str):
        kinds = [kinds]
    if schema is not None and kinds is None:
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list):
                kinds = [o.get("type") for o in options if isinstance(o, Mapping)]
    if kinds is not None and "string" in kinds and not any(k in _TYPED for k in kinds):
        return raw
    text = raw.strip()
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = _py_literal(text) if kinds is not None else raw
    if kinds is None and isinstance(value, str):
        return raw
    return value


def _py_literal(text: str) -> Any:
    with contextlib.suppress(ValueError, SyntaxError, RecursionError, MemoryError):
        if len(text) <= 100_000:
            return ast.literal_eval(text)
    return text


class XmlCall:
    """Reads one call of a dialect (see the module docstring) up to ``closers``; with
    ``bare`` the region opened at the function's own opener (no wrapper)."""

    def __init__(
        self,
        sink: Sink,
        dialect: str,
        *,
        closers: tuple[str, ...],
        resync: tuple[str, ...] = (),
        bare: bool = False,
    ) -> None:
        d = DIALECTS[dialect]
        self._d = d
        self._sink = sink
        self._closers = closers
        self._call = Call()
        # bare: the opener was the function's own (``<function=``), no wrapper around it
        self._state = _FUNC if d["func_open"] and not bare else _NAME
        self._held = ""
        closes = tuple(x for x in (d["func_close"], *closers) if x)
        self._name_until = Until((d["name_end"],), (d["param_open"], *closes))
        self._key_until = Until((d["key_end"],), closes)
        value_stops = tuple(x for x in (d["param_open"], *closes) if x)
        self._value_until = Until((d["value_end"],), value_stops)
        skip = skipper(closers, resync)
        assert skip is not None
        self._skip = skip
        self._parts: list[str] = []
        self._size = 0
        self._key = ""
        self._args: dict[str, Any] = {}
        self._schema: Mapping[str, Any] | None = None
        self._snaps = new_snapshots()
        self._error: tuple[str, str] | None = None

    def feed(self, text: str) -> str | None:
        s = self._held + text if self._held else text
        self._held = ""
        i, n = 0, len(s)
        while i < n and not self._held:
            i = self._step(s, i)
            if self._state == _DONE:
                self._end()
                return s[i:]
        return None

    def finish(self) -> None:
        state = self._state
        if state == _DONE:
            return
        if state == _VALUE:
            self._parts.append(self._held)
        self._held = ""
        if state in (_FUNC, _NAME, _KEY, _VOPEN, _VALUE) and self._error is None:
            self._error = ("truncated", "the reply ended inside this call")
        self._end()
        self._state = _DONE

    # ------------------------------------------------------------------ steps

    def _raw(self, text: str) -> None:
        if text:
            self._call.raw.append(text)

    def _expect(self, s: str, i: int, lits: tuple[str, ...]) -> tuple[str | None, int]:
        """Blanks, then one of ``lits``: ``(lit, j)``; ``("", n)`` when more text decides
        (held); ``(None, j)`` when something else comes at ``j``."""
        j = skip_space(s, i)
        self._raw(s[i:j])
        if j == len(s):
            return "", j
        lit = match_literal(s, j, [x for x in lits if x])
        if lit == "":
            self._held = s[j:]
            return "", len(s)
        if lit:
            self._raw(lit)
            return lit, j + len(lit)
        return None, j

    def _step(self, s: str, i: int) -> int:
        d = self._d
        state = self._state
        if state == _FUNC:
            lit, j = self._expect(s, i, (d["func_open"], *self._closers))
            if lit == "":
                return j  # held: more text decides
            if lit == d["func_open"]:
                self._state = _NAME
            elif lit:
                self._fail("missing_name", "the call has no function name")
                self._state = _DONE
            elif lit is None:
                self._fail("malformed_call", f"expected {d['func_open']!r}")
            return j
        if state == _NAME:
            got, m, j = self._name_until.scan(s, i)
            self._raw(s[i:j])
            self._parts.append(got)
            self._size += len(got)
            if m is None:
                self._held = s[j:]
                if self._size > _MAX_NAME:
                    self._fail("missing_name", "the function name is too long")
                return len(s)
            self._begin()
            self._state = _PARAMS
            return j
        if state == _PARAMS:
            lit, j = self._expect(s, i, (d["param_open"], d["func_close"], *self._closers))
            if lit == "":
                return j  # held: more text decides
            if lit == d["param_open"]:
                self._parts = []
                self._state = _KEY
            elif lit == d["func_close"]:
                self._state = _END
            elif lit:
                self._state = _DONE
            elif lit is None:
                self._fail("malformed_call", f"expected {d['param_open']!r}")
            return j
        if state == _KEY:
            got, m, j = self._key_until.scan(s, i)
            self._raw(s[i:j])
            self._parts.append(got)
            if m is None:
                self._held = s[j:]
                return len(s)
            if m.lastgroup != "end":
                self._fail("malformed_call", "a parameter's name is not closed")
                return j
            self._key = "".join(self._parts).strip()
            self._parts = []
            self._size = 0
            self._state = _VOPEN if d["value_open"] else _VALUE
            return j
        if state == _VOPEN:
            lit, j = self._expect(s, i, (d["value_open"],))
            if lit == "":
                return j  # held: more text decides
            if lit:
                self._state = _VALUE
            elif lit is None:
                self._fail("malformed_call", f"expected {d['value_open']!r}")
            return j
        if state == _VALUE:
            return self._value(s, i)
        if state == _END:
            lit, j = self._expect(s, i, self._closers)
            if lit == "":
                return j  # held: more text decides
            if lit or lit is None:
                self._state = _DONE
            return j
        if state == _SKIP:
            m = self._skip.search(s, i)
            if m is None:
                end = len(s) - self._skip.hold(s, i)
                self._raw(s[i:end])
                self._held = s[end:]
                return len(s)
            self._state = _DONE
            if m.lastgroup == "close":
                self._raw(s[i : m.end()])
                return m.end()
            self._raw(s[i : m.start()])
            return m.start()
        return len(s)

    def _begin(self) -> None:
        raw = "".join(self._parts)
        self._parts = []
        name = clean_name(raw)
        if name is None:
            self._fail("missing_name", f"not a function name: {raw.strip()[:80]!r}")
            return
        self._sink.start(self._call, name)
        self._schema = self._sink.schema(name)

    def _value(self, s: str, i: int) -> int:
        got, m, j = self._value_until.scan(s, i)
        self._raw(s[i:j])
        if m is None:
            self._held = s[j:]
        if got:
            self._parts.append(got)
            self._size += len(got)
            self._report(got, m is not None)
        if m is None:
            return len(s)
        self._store()
        self._state = _PARAMS
        return j

    def _report(self, delta: str, done: bool) -> None:
        call = self._call
        if call.index is None:
            return
        text = "".join(self._parts)
        if len(self._parts) > 1:
            self._parts[:] = [text]
        live = dict(self._args)
        live[self._key] = _trim(text) if done else _trim(text).rstrip("\n")
        self._sink.args(call, self._snaps.take(live, len(delta)), delta)

    def _store(self) -> None:
        raw = _trim("".join(self._parts))
        self._parts = []
        props = None if self._schema is None else self._schema.get("properties")
        prop = props.get(self._key) if isinstance(props, Mapping) else None
        if self._schema is not None and not isinstance(prop, Mapping):
            prop = {}
        self._args[self._key] = type_value(raw, prop)

    def _fail(self, reason: str, message: str) -> None:
        if self._error is None:
            self._error = (reason, message)
        self._state = _SKIP

    def _end(self) -> None:
        call = self._call
        if self._state == _DONE and self._error is None and call.index is None:
            self._error = ("missing_name", "the call has no function name")
        if self._error is not None:
            self._sink.invalid(call, *self._error)
        else:
            self._sink.complete(call, self._args)
        self._error = ("done", "")  # once


def _trim(text: str) -> str:
    """The value without the one newline the template writes on each side."""
    if text.startswith("\n"):
        text = text[1:]
    if text.endswith("\n"):
        text = text[:-1]
    return text

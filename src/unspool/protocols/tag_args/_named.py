"""Calls whose name is written before their arguments, outside them.

``NAME<sep>{args}`` in its many spellings: Mistral's ``get_weather[ARGS]{…}`` (with
``[CALL_ID]id`` between them in newer tokenizers), Kimi K2's
``functions.get_weather:0<|tool_call_argument_begin|>{…}``, DeepSeek V3.1's
``get_weather<｜tool▁sep｜>{…}`` and V3's ``function<｜tool▁sep｜>get_weather`` then
a fenced ````json`` body.  The name is cleaned (``strip`` prefixes such as
``functions.``, an index suffix such as ``:0``) and checked; the arguments are read
by the reader ``make_args`` builds for the started call.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from unspool.protocols.tag_args._base import Call, Reader, Sink
from unspool.protocols.tag_args._scan import Until

__all__ = ["NAME_CHARS", "NamedCall", "clean_name"]

NAME_CHARS = re.compile(r"[A-Za-z_][\w.\-:/]*")
"""What a call's name may be once cleaned."""

_MAX_NAME = 256
_NAME, _ID, _ARGS, _DONE = range(4)


def clean_name(raw: str, strip: tuple[str, ...] = (), suffix: str | None = None) -> str | None:
    """The name in ``raw`` without a prefix from ``strip`` and a ``suffix`` pattern, or
    ``None`` when it is not a name."""
    name = raw.strip()
    for prefix in strip:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    if suffix is not None:
        name = re.sub(suffix, "", name)
    return name if NAME_CHARS.fullmatch(name) else None


class NamedCall:
    """Reads ``NAME`` up to one of ``ends`` (consumed) or ``stops`` (left to the
    arguments), then the arguments.  ``kinds``: a first word that names the call's
    kind, not the call (DeepSeek V3's ``function``), after which the name runs to a
    newline.  ``id_marker``: a literal after the name that introduces a call id (read
    up to ``ends`` or ``stops``); ``keep_id``: the name as written is the call's id
    (Kimi's ``functions.NAME:0``).  The id becomes ``ActionStarted.action_id``."""

    def __init__(
        self,
        sink: Sink,
        make_args: Callable[[Sink, Call], Reader],
        *,
        ends: tuple[str, ...],
        stops: tuple[str, ...] = (),
        strip: tuple[str, ...] = (),
        suffix: str | None = None,
        kinds: tuple[str, ...] = (),
        id_marker: str | None = None,
        keep_id: bool = False,
    ) -> None:
        self._sink = sink
        self._make_args = make_args
        self._strip = strip
        self._suffix = suffix
        self._kinds = kinds
        self._id_marker = id_marker
        self._ends = ends
        self._stops = stops
        marker = (id_marker,) if id_marker else ()
        self._until = Until(ends + marker, stops)
        self._id_until = Until(ends, stops)
        self._state = _NAME
        self._held = ""
        self._name: list[str] = []
        self._size = 0
        self._args: Reader | None = None
        self._call = Call()
        self._kinded = False
        self._keep_id = keep_id
        self._id: list[str] = []

    def feed(self, text: str) -> str | None:
        s = self._held + text if self._held else text
        self._held = ""
        i = 0
        while self._state in (_NAME, _ID) and i < len(s):
            until = self._until if self._state == _NAME else self._id_until
            got, m, j = until.scan(s, i)
            self._call.raw.append(s[i:j])
            if self._state == _NAME:
                self._name.append(got)
                self._size += len(got)
            elif len(self._id) < _MAX_NAME:
                self._id.append(got)
            if m is None:
                self._held = s[j:]
                if self._size > _MAX_NAME:
                    self._begin_args()
                return None
            i = j
            lit = m.group()
            if (
                self._state == _NAME
                and not self._kinded
                and m.lastgroup == "end"
                and "".join(self._name).strip() in self._kinds
            ):
                self._kinded = True  # "function<sep>NAME\n": the name runs to the newline
                self._name = []
                self._size = 0
                self._until = Until(("\n",), ("`", "{", *self._stops))
                continue
            if self._id_marker is not None and lit == self._id_marker:
                self._state = _ID
                continue
            self._begin_args()
        if self._state == _ARGS:
            assert self._args is not None
            return self._args.feed(s[i:] if i else s)
        return None

    def _begin_args(self) -> None:
        raw = "".join(self._name)
        name = clean_name(raw, self._strip, self._suffix) if self._size <= _MAX_NAME else None
        call = self._call
        call.raw.clear()
        model_id = "".join(self._id).strip() or (raw.strip() if self._keep_id else "")
        call.action_id = model_id[:_MAX_NAME] or None
        if name is not None:
            self._sink.start(call, name)
        else:
            call.name = None
            call.raw.append(raw)
        self._args = self._make_args(self._sink, call)
        self._state = _ARGS

    def finish(self) -> None:
        if self._state in (_NAME, _ID):
            self._call.raw.append(self._held)
            self._sink.invalid(self._call, "truncated", "the reply ended inside this call")
        elif self._args is not None:
            self._args.finish()
        self._state = _DONE

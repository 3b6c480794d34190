"""The body of one tagged action: JSON-aware while it parses, then a raw scan to its closer.

:class:`BodyScanner` feeds the body to the core :class:`~unspool.core._jsonstream.JsonStream`
(``trailing="ignore"``), so a close delimiter inside a JSON string is data.
Once the value is complete and the core has left text after it (``tail``; until
then lenient mode may still read on, for example to drop a stray closer), that
text is scanned for the close delimiter; once the JSON is malformed, the rest of the body is scanned
for it without JSON awareness.  Either way the action ends only at the close
delimiter: a body that happens to parse does not complete it.

Every body character is fed to the core once; the raw scan re-reads at most the
held prefix of the close delimiter, so the cost is linear in the body.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from typing import Any

from unspool.core._errors import UNSET, MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.core._lexicon import LENIENT_KINDS
from unspool.core._path_events import PathEvent, Repair, ValueEnd, ValueStart
from unspool.protocols._holdback import Delimiters
from unspool.protocols._tag_formats import TagFormat

__all__ = ["BODY_LENIENT_KINDS", "BodyResult", "BodyScanner"]

_ARGS_BEFORE, _ARGS_OBJECT, _ARGS_ARRAY, _ARGS_STRING, _ARGS_DONE = range(5)
_ARGS_KINDS = {"object": _ARGS_OBJECT, "array": _ARGS_ARRAY, "string": _ARGS_STRING}
_OPENERS = re.compile(r'[{\["]')
_CLOSERS = {
    _ARGS_OBJECT: re.compile(r"\}"),
    _ARGS_ARRAY: re.compile(r"\]"),
    _ARGS_STRING: re.compile(r'"'),
}

BODY_LENIENT_KINDS = LENIENT_KINDS - {"comment", "truncated"}
"""Repairs allowed in a body with ``lenient=True``.  Comments are left out: a
``//`` comment after the value would swallow the close delimiter."""

Errors = tuple[Mapping[str, Any], ...]


class BodyResult:
    """What a closed body holds: ``name`` and ``args`` when it is usable,
    else ``reason`` (``malformed_json``, ``nested``, ``bad_params``,
    ``missing_name``) and ``errors``."""

    __slots__ = ("args", "errors", "name", "reason")

    def __init__(
        self,
        args: Any = None,
        *,
        name: str | None = None,
        reason: str | None = None,
        errors: Errors = (),
    ) -> None:
        self.args = args
        self.name = name
        self.reason = reason
        self.errors = errors


class BodyScanner:
    """Reads one action body (see the module docstring).

    ``start`` is the stream offset of the body's first character (for error
    positions).  With a ``name_key`` format, :attr:`name` is set as soon as the
    name's string value is complete in the body.
    """

    __slots__ = (
        "_args_state",
        "_close",
        "_delta",
        "_error",
        "_error_at",
        "_extra_at",
        "_fed",
        "_fmt",
        "_lenient",
        "_partial",
        "_parts",
        "_scanning",
        "_size",
        "_stream",
        "closer",
        "grew",
        "held",
        "name",
        "replay",
        "start",
    )

    def __init__(self, fmt: TagFormat, close: Delimiters, *, lenient: bool, start: int) -> None:
        self._fmt = fmt
        self._close = close
        self._lenient = lenient
        self._stream = self._new_stream()
        self._parts: list[str] = []
        self._delta: list[str] = []
        self._size = 0
        self._fed = 0
        self._scanning = False
        self._error: MalformedJSON | None = None
        self._error_at = 0
        self._extra_at = -1
        self._partial: Any = UNSET
        self._args_state = _ARGS_BEFORE  # where the arguments member is (name_key formats)
        self.start = start
        self.held = ""
        self.closer = ""
        self.replay = ""  # text after the closer that came before the last feed (see _rewind)
        self.name: str | None = None
        self.grew = False  # the partial args may have changed since the reader reset this

    def _new_stream(self) -> JsonStream:
        kinds = BODY_LENIENT_KINDS if self._lenient else False
        return JsonStream(events=True, trailing="ignore", lenient=kinds)

    # ------------------------------------------------------------------ feeding

    def feed(self, text: str, i: int) -> int:
        """Consume ``text[i:]``; the index just after the close delimiter, or -1 when
        the body goes on past the end of ``text``."""
        if not self._scanning:
            piece = text[i:] if i else text
            stream = self._stream
            try:
                if self._fmt.name_key is not None:
                    self._feed_watching(piece)
                    self.grew = True
                elif stream.feed_events(piece) or self._lenient:
                    # strict: the value changes only with a path event
                    self.grew = True
            except MalformedJSON as exc:
                i = self._broken(exc, piece, i)
            else:
                self._fed += len(piece)
                self._partial = stream.value
                if not stream.tail:
                    # the value is open, or complete with nothing after it the core has
                    # refused yet: lenient mode may still read on (a stray closer after the
                    # value is its repair), so the body goes on feeding it until it
                    # leaves text in its tail; one feed of the whole body does the same
                    self._take(piece)
                    return -1
                i = self._value_done(piece, i)
        return self._scan(text, i)

    def feed_args(self, text: str) -> str:
        """:meth:`feed` of ``text`` in which the close delimiter cannot begin (so the
        body goes on), then :meth:`take_delta`; the common case, a body that is the
        arguments while their value is open, in a few steps."""
        if self._scanning or self._fmt.name_key is not None or self._delta or not text:
            self.feed(text, 0)
            return self.take_delta()
        stream = self._stream
        try:
            if stream.feed_events(text) or self._lenient:
                self.grew = True
        except MalformedJSON as exc:
            self._scan(text, self._broken(exc, text, 0))
            return self.take_delta()
        self._fed += len(text)
        self._partial = stream.value
        if stream.tail:
            self._scan(text, self._value_done(text, 0))
            return self.take_delta()
        self._parts.append(text)
        self._size += len(text)
        return text

    @property
    def args_only(self) -> bool:
        """Whether :meth:`feed_args` takes its common case here (the C fast path's, see
        ``TagParser._settle``): the body is the arguments and the JSON still reads."""
        return (
            not self._scanning
            and self._fmt.name_key is None
            and not self._delta
            and type(self._partial) is not str
        )

    @property
    def may_rewind(self) -> bool:
        """Whether the core may be holding text after the value undecided (a root string
        whose closing quote lenient mode weighs): the text it holds may hold the closer,
        so the body must be fed where a closer can end it (not on a fast path)."""
        return not self._scanning and type(self._partial) is str

    def c_args(self) -> tuple[JsonStream, list[str]]:
        """The core and the body's text list, for the C fast path to feed and extend."""
        return self._stream, self._parts

    def took_args(self, chars: int, partial: Any, grew: bool) -> None:
        """The C fast path took ``chars`` characters as :meth:`feed_args`'s common case
        does (it appended them to the text list): count them, and the core's value
        after them (``partial``) and :attr:`grew` as they left them."""
        self._size += chars
        self._fed += chars
        self._partial = partial
        self.grew = grew

    def fed_args(self, text: str, exc: MalformedJSON | None, changed: bool) -> str:
        """The rest of :meth:`feed_args` once the core took ``text`` (the C fast path fed
        it) and raised ``exc`` or, None, left text after the value (``changed``: it
        made path events); the delta."""
        if exc is not None:
            self._scan(text, self._broken(exc, text, 0))
            return self.take_delta()
        if changed or self._lenient:
            self.grew = True
        self._fed += len(text)
        self._partial = self._stream.value
        self._scan(text, self._value_done(text, 0))
        return self.take_delta()

    def _broken(self, exc: MalformedJSON, piece: str, i: int) -> int:
        """The JSON broke in ``piece`` (from ``text[i]``): keep its valid part, scan on
        from there (returned)."""
        self.grew = True
        used = min(exc.pos - self._fed, len(piece))
        if used < 0:  # the core held the text where it broke: scan it again for the closer
            self._rewind(-used)
            used = 0
        self._take(piece[:used])
        self._error, self._error_at, self._scanning = exc, self._size, True
        self._partial = exc.partial
        if self.name is None and self._fmt.name_key is not None:
            self._replay_name()
        return i + used

    def _value_done(self, piece: str, i: int) -> int:
        """The value ended in ``piece`` (from ``text[i]``) and the core left text after
        it: take the value's part, scan on from there (returned)."""
        stream = self._stream
        used = len(piece) - len(stream.tail)
        if used < 0:
            # the value ended inside text taken at an earlier feed (lenient mode's
            # lookahead held it): that text follows the value, and may hold the closer
            self._rewind(-used)
            used = 0
        self._take(piece[:used])
        self._scanning = True
        return i + used

    def _rewind(self, count: int) -> None:
        """The core decided about the last ``count`` characters of the body only now (its
        lenient lookahead held them): take them out of the body again and put them before
        the next scan, as one feed of the whole body would scan them.  A closer among
        them ends the body there; what follows it is :attr:`replay`."""
        raw = self.raw
        keep = len(raw) - count
        self._parts[:] = [raw[:keep]] if keep else []
        self._size -= count
        if self._fmt.name_key is None and self._delta:
            delta = "".join(self._delta)
            cut = len(delta) - min(count, len(delta))
            self._delta[:] = [delta[:cut]] if cut else []
        self.held = raw[keep:] + self.held

    def _scan(self, text: str, i: int) -> int:
        held = self.held
        if held:
            s, start, shift = held + text[i:], 0, i - len(held)
        else:
            s, start, shift = text, i, 0
        m = self._close.search(s, start)
        if m is not None:
            self._take_raw(s[start : m.start()])
            self.held = ""
            self.closer = m.group()
            if m.end() < len(held):  # the closer ended in text taken before this feed
                self.replay = s[m.end() : len(held)]
                return i
            return m.end() + shift
        end = len(s) - self._close.hold(s, start)
        self._take_raw(s[start:end])
        self.held = s[end:]
        return -1

    def _take(self, text: str) -> None:
        if text:
            self._parts.append(text)
            if self._fmt.name_key is None:  # the body is the arguments
                self._delta.append(text)
            self._size += len(text)

    def _feed_watching(self, text: str) -> None:
        """Feed a body whose arguments are one member (``{"name": …, "arguments": …}``),
        cut so that the arguments' raw text is a run of whole pieces (``_delta`` gets
        them): each character that may open them is a piece of its own until they
        open, and while they are open a piece ends after each character that may close
        them.  Once the value is complete the rest is fed in one piece."""
        stream = self._stream
        i, n = 0, len(text)
        while i < n:
            state = self._args_state
            if state == _ARGS_DONE or stream.complete:
                # once the value is complete the core reads on (a lenient repair such as
                # a stray closer) or keeps the rest as its tail
                self._watch(stream.feed_events(text[i:] if i else text))
                return
            if state == _ARGS_BEFORE:
                m = _OPENERS.search(text, i)
                j = n if m is None else m.start() if m.start() > i else i + 1
            else:
                m = _CLOSERS[state].search(text, i)
                j = n if m is None else m.end()
            piece = text[i:j]
            self._watch(stream.feed_events(piece))
            if state != _ARGS_BEFORE or self._args_state != _ARGS_BEFORE:
                self._delta.append(piece)
            i = j

    def _after_value(self, taken: str) -> None:
        """``taken``, the last characters of the body so far, came after the value: note
        it as extra text like :meth:`_take_raw` does (it holds no ``<``, so no closer)."""
        if self._error is None and self._extra_at < 0 and taken.strip():
            self._extra_at = self._size - len(taken.lstrip())

    def _take_raw(self, text: str) -> None:
        if self._error is None and self._extra_at < 0 and text.strip():
            self._extra_at = self._size + len(text) - len(text.lstrip())
        self._take(text)

    def _watch(self, events: list[PathEvent]) -> None:
        """Follow the name (complete once its string ends) and where the arguments are."""
        key = self._fmt.name_key
        for ev in events:
            if isinstance(ev, ValueStart):
                if self._args_state == _ARGS_BEFORE and _is_args(ev.path, self._fmt):
                    self._args_state = _ARGS_KINDS.get(ev.kind, _ARGS_DONE)
            elif isinstance(ev, ValueEnd) and len(ev.path) == 1:
                if self._args_state != _ARGS_DONE and _is_args(ev.path, self._fmt):
                    self._args_state = _ARGS_DONE
                value = ev.value
                if self.name is None and ev.path == (key,) and isinstance(value, str) and value:
                    self.name = value

    def _replay_name(self) -> None:
        """The chunk that broke the JSON may also have completed the name: read the
        valid prefix again (once per action) so the name does not depend on chunking."""
        stream = self._new_stream()
        try:
            self._watch(stream.feed_events("".join(self._parts)))
        except MalformedJSON:
            return

    # ------------------------------------------------------------------ reading

    @property
    def raw(self) -> str:
        """The body text consumed so far (without a held prefix of the closer)."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def take_delta(self) -> str:
        """Body text consumed since the last call."""
        out = "".join(self._delta)
        self._delta.clear()
        return out

    @property
    def partial(self) -> Any:
        """The live partial arguments (``UNSET`` before any are visible)."""
        value = self._partial
        if self._fmt.name_key is None:
            return value
        if not isinstance(value, dict):
            return UNSET
        for key in self._fmt.args_keys:
            if key in value:
                return value[key]
        return UNSET

    @property
    def repairs(self) -> list[Repair]:
        """Lenient repairs of the body, offsets relative to the body."""
        return self._stream.repairs

    def result(self, nested: Delimiters) -> BodyResult:
        """Judge the closed body; ``nested`` finds an open delimiter in a broken body."""
        raw = self.raw
        if not raw.strip():
            return self._shape({})
        exc = self._error
        if exc is not None:
            is_nested = nested.search(raw, self._error_at) is not None
            reason = "nested" if is_nested else "malformed_json"
            msg = "another action opened inside this one" if is_nested else exc.msg
            return BodyResult(
                reason=reason, errors=({"message": msg, "pos": self.start + exc.pos},)
            )
        if self._extra_at >= 0:
            msg = "text after the JSON value, before the close delimiter"
            return BodyResult(
                reason="malformed_json",
                errors=({"message": msg, "pos": self.start + self._extra_at},),
            )
        return self._shape(self._stream.value)

    def _shape(self, value: Any) -> BodyResult:
        fmt = self._fmt
        if not isinstance(value, dict):
            msg = f"the body must be a JSON object, not {type(value).__name__}"
            return BodyResult(reason="bad_params", errors=({"message": msg},))
        if fmt.name_key is None:
            return BodyResult(value, name=fmt.name)
        name = value.get(fmt.name_key)
        if not isinstance(name, str) or not name:
            msg = f"the body has no string {fmt.name_key!r}"
            return BodyResult(reason="missing_name", errors=({"message": msg},))
        args: Any = {}
        for key in fmt.args_keys:
            if key in value:
                args = value[key]
                break
        if isinstance(args, str):  # arguments sent as a JSON-encoded string
            with contextlib.suppress(ValueError, RecursionError):
                args = json.loads(args)
        if not isinstance(args, dict):
            msg = f"the arguments must be a JSON object, not {type(args).__name__}"
            return BodyResult(name=name, reason="bad_params", errors=({"message": msg},))
        return BodyResult(args, name=name)


def _is_args(path: tuple[Any, ...], fmt: TagFormat) -> bool:
    """Whether ``path`` is the arguments member of a ``{"name": …, "arguments": …}`` body."""
    return len(path) == 1 and path[0] in fmt.args_keys

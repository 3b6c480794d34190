"""Telling the user when ``--protocol`` does not fit the input, and what would.

``unspool parse -p openai-sse`` on plain text, or ``-p interleaved`` on an SSE body,
would otherwise report a complete, empty or garbled stream and exit 0.
:class:`CheckedParser` wraps the parser of ``parse`` and of each stream ``replay`` plays:
it keeps the first :data:`HEAD_CHARS` characters of the input and counts the actions,
and at the end reports one line naming the protocol that fits (:func:`mismatch`), using
the same signs as ``unspool replay``'s guess (:func:`unspool.cli._replay.guess_protocol`);
text with no ``{`` or ``[`` in it is plain text (``--protocol plain``). When strict JSON
fails on a reply that starts with a code fence, ``<think>`` or prose, or has text after
the value, the error says which option reads it; ``--protocol json`` on an input that
holds no value at all fails saying so.
"""

from __future__ import annotations

import re

from unspool.cli._inputs import InputError
from unspool.cli._parsers import StreamParser
from unspool.cli._records import JsonDone, Record
from unspool.cli._replay import Chunk, RecordedStream, detect_format, guess_protocol
from unspool.core._errors import UNSET
from unspool.events import ActionStarted, FinishReason

__all__ = ["HEAD_CHARS", "NO_VALUE", "CheckedParser", "mismatch", "strict_json_hint"]

HEAD_CHARS = 65536
"""How much of the input's start is kept to tell what it is."""

_NAMES = {
    "json": "a JSON value",
    "interleaved": "an interleaved JSON array of text and actions",
    "tags": "prose with action tags",
    "plain": "plain text",
}
_TEXT_PROTOCOLS = frozenset(_NAMES)
_STREAMS_PROSE = frozenset({"interleaved", "tags"})
"""The protocols that show plain text as text (and so read it well)."""
_ARRAY_OF_ITEMS = re.compile(r'\[\s*\{\s*"(type|tool_name)"\s*:')
_JSON_OPENER = re.compile(r"[{\[]")
NO_VALUE = "the input holds no JSON value"
_FENCE = re.compile(r"\s*(```|~~~)")
_THINK = re.compile(r"\s*<think\b", re.IGNORECASE)


def _fitting(head: str) -> str | None:
    """The protocol ``head`` looks like, or None when nothing says."""
    if not head.strip():
        return None
    recorded = RecordedStream([Chunk(head)])
    if detect_format(head) == "sse":
        try:
            return guess_protocol(recorded, "sse")
        except InputError:  # SSE, but of no provider we know
            return None
    fits = guess_protocol(recorded, "raw")
    if fits == "interleaved" and not _JSON_OPENER.search(head):
        return "plain"  # the guess streams prose as interleaved; it is plain text
    return fits


def mismatch(protocol: str, head: str, actions: int) -> str | None:
    """Why ``protocol`` does not fit an input starting with ``head`` that gave
    ``actions`` actions, naming the one that fits; None when it fits."""
    fits = _fitting(head)
    if fits is None or fits == protocol:
        return None
    if protocol not in _TEXT_PROTOCOLS or fits not in _TEXT_PROTOCOLS:
        pass  # a provider stream read as text, or text read as one: always wrong
    elif fits == "plain":
        if protocol in _STREAMS_PROSE:
            return None  # shown as text, as plain would show it
    elif protocol == "plain":
        if fits == "interleaved" and not _ARRAY_OF_ITEMS.search(head):
            return None  # prose with a bracket or a brace in it
        # else tags, an array of items or a JSON value shown as bare text
    elif protocol == "interleaved" and fits == "tags" and actions == 0:
        pass  # tags streamed as prose
    elif protocol == "tags" and actions == 0 and _ARRAY_OF_ITEMS.search(head):
        fits = "interleaved"  # an array of items shown as text
    else:
        return None
    looks = _describe(fits)
    if fits == "interleaved" and not _ARRAY_OF_ITEMS.search(head):
        looks = "prose"  # which the interleaved protocol streams as text
    return f"the input looks like {looks}, not {_describe(protocol)}: try --protocol {fits}"


def _describe(protocol: str) -> str:
    return _NAMES.get(protocol) or f"a raw {protocol} body"


def strict_json_hint(head: str, message: str) -> str:
    """The option that reads what strict JSON failed on, if the reply says which."""
    if _FENCE.match(head):
        return " (the reply starts with a code fence: --lenient skips it)"
    if _THINK.match(head):
        return " (the reply starts with a <think> block: --lenient skips it)"
    stripped = head.lstrip()
    if stripped and stripped[0].isalpha() and not stripped.startswith(("true", "false", "null")):
        return " (the reply starts with prose: --lenient skips it)"
    if "Extra data" in message:
        return " (text follows the value: --trailing ignore keeps it aside)"
    return ""


class CheckedParser:
    """A :class:`~unspool.cli._parsers.StreamParser` that also checks the protocol fits."""

    def __init__(self, parser: StreamParser, protocol: str, *, lenient: bool = False) -> None:
        self._parser = parser
        self._protocol = protocol
        self._lenient = lenient
        self._head: list[str] = []
        self._kept = 0
        self._actions = 0
        self.problem: str | None = None
        """After :meth:`finish`: why the protocol does not fit the input, or None."""

    @property
    def empty(self) -> bool:
        """Whether no character has been fed (yet)."""
        return self._kept == 0

    @property
    def head(self) -> str:
        """The start of the input seen so far (at most :data:`HEAD_CHARS`)."""
        return "".join(self._head)

    def feed(self, chunk: str) -> list[Record]:
        """The wrapped parser's records; a strict JSON error names what may fix it."""
        if self._kept < HEAD_CHARS:
            piece = chunk[: HEAD_CHARS - self._kept]
            self._head.append(piece)
            self._kept += len(piece)
        try:
            records = self._parser.feed(chunk)
        except InputError as exc:
            raise self._explained(exc) from None
        self._count(records)
        return records

    def finish(self, reason: FinishReason | None = None) -> list[Record]:
        """The last records; :attr:`problem` then says whether the protocol fits."""
        try:
            records = self._parser.finish(reason)
        except InputError as exc:
            raise self._explained(exc) from None
        self._count(records)
        self.problem = mismatch(self._protocol, self.head, self._actions)
        no_value = any(isinstance(r, JsonDone) and r.value is UNSET for r in records)
        if self.problem is None and no_value and self._kept:
            self.problem = NO_VALUE
        return records

    def _count(self, records: list[Record]) -> None:
        self._actions += sum(isinstance(r, ActionStarted) for r in records)

    def _explained(self, exc: InputError) -> InputError:
        message = exc.message
        problem = mismatch(self._protocol, self.head, self._actions)
        if problem is not None:
            message += f"; {problem}"
        elif self._protocol == "json" and not self._lenient:
            message += strict_json_hint(self.head, message)
        return InputError(message, exc.records)

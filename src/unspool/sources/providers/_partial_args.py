"""Partial function-call arguments given by JSON path, written out as JSON text.

Vertex AI can stream a Gemini function call's arguments (``stream_function_call_arguments``):
each ``partial_args`` entry names one value by a JSON path (RFC 9535: ``$``, ``.name``,
``['name']``, ``[0]``) and gives a string piece, a number, a boolean or null; a string
with ``will_continue`` goes on in the next entry for the same path.  The model writes its
arguments in order, so the entries arrive in document order and can be turned into JSON
text as they come.  :class:`PathWriter` does that; its text goes to the same tool-call
assembler as every other provider's argument text, so the live partial arguments, the
validation and the ids work the same.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["OutOfOrder", "PathWriter", "parse_path", "scalar"]

_SEGMENT = re.compile(
    r"\.(?P<name>[A-Za-z_][\w-]*)|\[(?P<index>\d+)\]|\['(?P<sq>(?:[^'\\]|\\.)*)'\]"
    r'|\["(?P<dq>(?:[^"\\]|\\.)*)"\]'
)


class OutOfOrder(ValueError):
    """An entry that cannot be written in document order (a path re-entered, an index skipped)."""


def parse_path(path: str) -> tuple[str | int, ...]:
    """``"$.a['b'][0]"`` -> ``("a", "b", 0)``; :class:`OutOfOrder` for anything else."""
    if not path.startswith("$"):
        raise OutOfOrder(f"the JSON path {path!r} does not start at '$'")
    segments: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _SEGMENT.match(path, pos)
        if match is None:
            raise OutOfOrder(f"unsupported JSON path {path!r}")
        if match["name"] is not None:
            segments.append(match["name"])
        elif match["index"] is not None:
            segments.append(int(match["index"]))
        else:
            quoted = match["sq"] if match["sq"] is not None else match["dq"]
            segments.append(re.sub(r"\\(.)", r"\1", quoted))
        pos = match.end()
    if not segments:
        raise OutOfOrder("a partial argument must name a value below the root '$'")
    return tuple(segments)


def _escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def scalar(value: Any) -> str:
    """JSON text of a number, boolean or null (an integral double is written as an integer)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return json.dumps(value)


class PathWriter:
    """``(path, value)`` entries in document order in, JSON text of one object out (sans-I/O)."""

    __slots__ = ("_closed", "_counts", "_kinds", "_open", "_string")

    def __init__(self) -> None:
        self._open: list[str | int] = []  # the segments of the open containers below the root
        self._kinds: list[type] = [str]  # the root's and each open container's key type
        self._counts: list[int] = [0]  # members written in the root and each open container
        self._closed: set[tuple[str | int, ...]] = set()
        self._string: tuple[str | int, ...] | None = None  # the path of a string left open

    def start(self) -> str:
        """The text before the first entry."""
        return "{"

    def string(self, path: tuple[str | int, ...], piece: str, more: bool) -> str:
        """A piece of the string at ``path``; ``more``: the next entry continues it."""
        if self._string == path:
            text = _escaped(piece)
        else:
            text = self._close_string() + self._enter(path) + '"' + _escaped(piece)
            self._string = path
        if not more:
            text += '"'
            self._string = None
        return text

    def value(self, path: tuple[str | int, ...], json_text: str) -> str:
        """A complete value (its JSON text) at ``path``."""
        return self._close_string() + self._enter(path) + json_text

    def close(self) -> str:
        """The text that closes everything still open."""
        text = self._close_string() + self._close_to(0)
        return text + "}"

    def _close_string(self) -> str:
        if self._string is None:
            return ""
        self._string = None
        return '"'

    def _close_to(self, depth: int) -> str:
        out = []
        while len(self._open) > depth:
            self._closed.add(tuple(self._open))
            self._open.pop()
            self._counts.pop()
            out.append("}" if self._kinds.pop() is str else "]")
        return "".join(out)

    def _enter(self, path: tuple[str | int, ...]) -> str:
        """Close what ``path`` leaves, open what it enters, and write its member prefix."""
        parent = path[:-1]
        common = 0
        while (
            common < len(self._open)
            and common < len(parent)
            and self._open[common] == parent[common]
        ):
            common += 1
        for depth in range(1, len(path) + 1):
            if path[:depth] in self._closed:
                raise OutOfOrder(f"the value at {path!r} comes after its container was closed")
        out = [self._close_to(common)]
        for depth in range(common, len(parent)):
            out.append(self._member(path[depth]))
            kind = type(path[depth + 1])
            out.append("{" if kind is str else "[")
            self._open.append(path[depth])
            self._kinds.append(kind)
            self._counts.append(0)
        out.append(self._member(path[-1]))
        return "".join(out)

    def _member(self, segment: str | int) -> str:
        """A member's prefix in the innermost open container (a comma, an object key)."""
        count = self._counts[-1]
        if type(segment) is not self._kinds[-1]:
            raise OutOfOrder(f"{segment!r} does not fit the container it is written into")
        if isinstance(segment, int) and segment != count:
            raise OutOfOrder(f"array index {segment} written after {count} items")
        self._counts[-1] = count + 1
        comma = "," if count else ""
        return comma + (
            json.dumps(segment, ensure_ascii=False) + ":" if isinstance(segment, str) else ""
        )

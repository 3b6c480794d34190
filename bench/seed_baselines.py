"""The seed system's streaming approaches, rebuilt in Python for the protocol rows.

Both re-scan the whole accumulated buffer on every chunk, which is what makes them
O(n²/c).  They are rebuilt from the descriptions in the shared research notes
(``openmaic.md`` §2.2 for the interleaved array, seed 002 for the action tags), using
the Python ports of the seed's libraries (``json_repair`` for jsonrepair,
``partial_json_parser`` for partial-json).  Their output is a list of
``("text", str)`` / ``("action", name, args)`` tuples, for checking.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bench.outputs import Output

__all__ = ["SeedInterleaved", "SeedTags"]


class SeedInterleaved:
    """The seed's interleaved-array parser: on every chunk, ``json_repair`` over the
    whole buffer (``partial_json_parser`` if that fails), then emit the items that
    became complete and the growth of a trailing text item, by position and length."""

    def __init__(self, json_repair: Any, partial_json_parser: Any) -> None:
        self._repair = json_repair.repair_json
        self._partial = partial_json_parser.loads
        allow = partial_json_parser.Allow
        self._allow = allow.ARR | allow.OBJ | allow.STR | allow.NUM | allow.BOOL | allow.NULL
        self.buffer = ""
        self.started = False
        self.done = False
        self.count = 0  # lastParsedItemCount
        self.partial_len = 0  # lastPartialTextLength

    def parse(self, buffer: str) -> list[Any] | None:
        """One re-parse of the buffer: the seed's per-chunk cost."""
        try:
            parsed = self._repair(buffer, return_objects=True)
            if not isinstance(parsed, list):
                raise ValueError("not an array")
        except Exception:
            try:
                parsed = self._partial(buffer, self._allow)
            except Exception:
                return None
        return parsed if isinstance(parsed, list) else None

    def feed(self, chunk: str) -> list[Output]:
        if self.done:
            return []
        self.buffer += chunk
        if not self.started:
            i = self.buffer.find("[")
            if i < 0:
                return []
            self.buffer = self.buffer[i:]
            self.started = True
        stripped = self.buffer.rstrip()
        closed = len(stripped) > 1 and stripped.endswith("]")
        parsed = self.parse(self.buffer)
        if parsed is None:
            return []
        upto = len(parsed) if closed else max(0, len(parsed) - 1)
        out: list[Output] = []
        for idx in range(self.count, upto):
            item = parsed[idx]
            if not isinstance(item, dict):
                continue
            if idx == self.count and self.partial_len > 0 and item.get("type") == "text":
                rest = str(item.get("content", ""))[self.partial_len :]
                if rest:
                    out.append(("text", rest))
                self.partial_len = 0
                continue
            out.append(self._emit(item))
        self.count = upto
        if not closed and len(parsed) > upto:
            last = parsed[-1]
            if isinstance(last, dict) and last.get("type") == "text":
                content = last.get("content", "")
                if isinstance(content, str) and len(content) > self.partial_len:
                    out.append(("text", content[self.partial_len :]))
                    self.partial_len = len(content)
        if closed:
            self.done = True
            self.count = len(parsed)
            self.partial_len = 0
        return out

    @staticmethod
    def _emit(item: dict[str, Any]) -> Output:
        if item.get("type") == "text":
            return ("text", str(item.get("content", "")))
        return ("action", item.get("name"), item.get("params"))


_SEED_TAG = re.compile(r'<action\s+name="([^"]+)">([\s\S]*?)</action>')
_OPEN_PREFIX = "<action"


class SeedTags:
    """Action tags found by re-scanning the accumulated text with the seed's regex on
    every chunk: new complete matches become actions (``json.loads`` of the body);
    the prose outside the tags is rebuilt and its new suffix emitted, holding back
    an unfinished tag or a trailing ``<`` that could start one."""

    def __init__(self) -> None:
        self.buffer = ""
        self.actions = 0
        self.shown = 0

    def feed(self, chunk: str) -> list[Output]:
        self.buffer += chunk
        buf = self.buffer
        out: list[Output] = []
        pieces: list[str] = []
        end = 0
        for n, m in enumerate(_SEED_TAG.finditer(buf)):
            pieces.append(buf[end : m.start()])
            end = m.end()
            if n >= self.actions:
                visible = "".join(pieces)  # the text before this tag is shown first
                if len(visible) > self.shown:
                    out.append(("text", visible[self.shown :]))
                    self.shown = len(visible)
                try:
                    args = json.loads(m.group(2))
                except ValueError:
                    args = None
                out.append(("action", m.group(1), args))
                self.actions = n + 1
        rest = buf[end:]
        cut = rest.find(_OPEN_PREFIX)
        if cut < 0:
            lt = rest.rfind("<")
            if lt >= 0 and _OPEN_PREFIX.startswith(rest[lt : lt + len(_OPEN_PREFIX)]):
                cut = lt
        pieces.append(rest if cut < 0 else rest[:cut])
        visible = "".join(pieces)
        if len(visible) > self.shown:
            out.append(("text", visible[self.shown :]))
            self.shown = len(visible)
        return out

    def finish(self) -> list[Output]:
        """Release the held tail as text (the tags never closed)."""
        out: list[Output] = []
        visible = _SEED_TAG.sub("", self.buffer)
        if len(visible) > self.shown:
            out.append(("text", visible[self.shown :]))
            self.shown = len(visible)
        return out

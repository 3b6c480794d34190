"""Finding where the interleaved array starts inside prose, each character once.

Models often write prose or a markdown fence before the array, and plain-prose
replies may contain brackets (``see [1]``, ``Sure [note]:``).  The scanner
tells prose from the start of the array without ever going back:

* an **array start** is a ``[`` followed by optional whitespace and then ``{``
  or ``]`` (or, before any prose was seen, any JSON value); anything else after
  a ``[`` makes it prose;
* a **fence** is three backticks, an optional info string (``json``,
  ``python``...), optional spaces and an optional newline.  A fence directly
  followed (after whitespace) by an array start belongs to the array and is
  never shown.  A fence that is not followed by the array is shown as prose,
  except a ``json`` fence marker line, which is never shown (it is reported).

Only the text that could still become a fence or an array start is held back
(``[`` plus whitespace, or a fence plus whitespace); everything before it is
released at once, and the held part is released the moment it cannot be a
start any more.  Each input character is examined once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ArrayStart", "DroppedFence", "ProseScanner", "ProseText", "Segment"]

_JSON_INFOS = frozenset({"json", "json5", "jsonc"})
_INFO_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+.")
_MAX_INFO = 20
_WS = frozenset(" \t\r\n")
_SPECIAL = re.compile(r"[\[`]")
_VALUE_START = frozenset('"-0123456789[tfn')

# scanner states
_TEXT = 0  # plain prose
_TICKS = 1  # one or two backticks seen
_INFO = 2  # three backticks, reading the info string
_INFO_SP = 3  # spaces after the info string, before the newline
_AFTER_FENCE = 4  # a whole fence line, then whitespace
_BRACKET = 5  # '[' then whitespace


@dataclass(frozen=True, slots=True)
class ProseText:
    """Prose: text that is not part of the array (``pos``: offset of its first character)."""

    text: str
    pos: int


@dataclass(frozen=True, slots=True)
class DroppedFence:
    """A ``json`` fence marker line that no array followed: never shown, reported."""

    text: str
    pos: int


Segment = ProseText | DroppedFence


@dataclass(frozen=True, slots=True)
class ArrayStart:
    """Where the array starts: ``bracket`` is the ``[`` and the whitespace after it,
    at offset ``pos``; ``fence`` is the fence (and whitespace) right before it, if any,
    with ``fence_segment`` saying how to release that fence if the array is rejected."""

    pos: int
    bracket: str
    fence: str | None = None
    fence_pos: int = 0
    fence_segment: Segment | None = None


def fence_segment(text: str, info: str, pos: int) -> Segment:
    """How a fence no array followed is released: ``json`` fences are dropped."""
    if info.lower() in _JSON_INFOS:
        return DroppedFence(text, pos)
    return ProseText(text, pos)


class ProseScanner:
    """Incremental scanner for the prose around the interleaved array.

    ``feed(text, pos)`` returns the segments that are decided, the
    :class:`ArrayStart` if the array started, and the rest of ``text`` after the
    array start's ``[`` and whitespace (it begins with ``{`` or ``]``).
    ``seen_text`` tells whether any non-whitespace prose was released.
    """

    __slots__ = (
        "_fence",
        "_fence_info",
        "_fence_pos",
        "_hold",
        "_hold_pos",
        "_info",
        "_state",
        "seen_text",
    )

    def __init__(self) -> None:
        self._state = _TEXT
        self._hold: list[str] = []  # the candidate being decided
        self._hold_pos = 0
        self._info = ""
        self._fence: str | None = None  # fence text before a '[' candidate
        self._fence_info = ""
        self._fence_pos = 0
        self.seen_text = False

    def mark_text(self) -> None:
        """Record that non-whitespace prose was released by the caller."""
        self.seen_text = True

    def feed(self, text: str, pos: int) -> tuple[list[Segment], ArrayStart | None, str]:
        """Scan ``text`` (whose first character is at offset ``pos``)."""
        out: list[Segment] = []
        i = 0
        n = len(text)
        while i < n:
            state = self._state
            if state == _TEXT:
                match = _SPECIAL.search(text, i)
                end = n if match is None else match.start()
                if end > i:
                    self._text(out, text[i:end], pos + i)
                if match is None:
                    break
                self._hold = [text[end]]
                self._hold_pos = pos + end
                self._state = _BRACKET if text[end] == "[" else _TICKS
                i = end + 1
                continue
            c = text[i]
            if state == _BRACKET:
                if c in _WS:
                    self._hold.append(c)
                    i += 1
                elif c in "{]" or (not self.seen_text and c in _VALUE_START):
                    start = self.take_bracket()
                    return out, start, text[i:]
                else:
                    self._release(out)
            elif state == _TICKS:
                if c == "`":
                    self._hold.append(c)
                    i += 1
                    if len(self._hold) == 3:
                        self._state = _INFO
                        self._info = ""
                else:
                    self._release(out)
            elif state in (_INFO, _INFO_SP):
                if state == _INFO and c in _INFO_CHARS and len(self._info) < _MAX_INFO:
                    self._info += c
                    self._hold.append(c)
                    i += 1
                elif c in " \t\r":
                    self._state = _INFO_SP
                    self._hold.append(c)
                    i += 1
                elif c == "\n":
                    self._state = _AFTER_FENCE
                    self._hold.append(c)
                    i += 1
                elif c == "[":
                    self._bracket_after_fence(pos + i)
                    i += 1
                else:
                    self._release(out)
            elif c in _WS:  # _AFTER_FENCE
                self._hold.append(c)
                i += 1
            elif c == "[":
                self._bracket_after_fence(pos + i)
                i += 1
            else:
                self._release(out)
        return out, None, ""

    def take_bracket(self) -> ArrayStart | None:
        """At the end of the stream: the held ``[`` (and the fence before it), if the
        scanner is waiting to see what follows one; the scanner forgets it."""
        if self._state != _BRACKET:
            return None
        start = ArrayStart(
            self._hold_pos,
            "".join(self._hold),
            self._fence,
            self._fence_pos,
            None
            if self._fence is None
            else fence_segment(self._fence, self._fence_info, self._fence_pos),
        )
        self._reset()
        return start

    def finish(self) -> list[Segment]:
        """Release whatever is held at the end of the stream."""
        out: list[Segment] = []
        if self._state in (_INFO, _INFO_SP) and self._info:
            # a fence line that ends with the stream
            self._state = _AFTER_FENCE
        self._release(out)
        return out

    # -- internals ---------------------------------------------------------------

    def _text(self, out: list[Segment], text: str, pos: int) -> None:
        if not self.seen_text and not text.isspace():
            self.seen_text = True
        out.append(ProseText(text, pos))

    def _bracket_after_fence(self, pos: int) -> None:
        self._fence = "".join(self._hold)
        self._fence_info = self._info
        self._fence_pos = self._hold_pos
        self._hold = ["["]
        self._hold_pos = pos
        self._state = _BRACKET

    def _release(self, out: list[Segment]) -> None:
        """The held candidate is not a start: release it as prose (or a dropped fence)."""
        held = "".join(self._hold)
        state = self._state
        if self._fence is not None:
            seg = fence_segment(self._fence, self._fence_info, self._fence_pos)
            if isinstance(seg, ProseText):
                self._text(out, seg.text, seg.pos)
            else:
                out.append(seg)
        if held:
            if state == _AFTER_FENCE:
                seg = fence_segment(held, self._info, self._hold_pos)
                if isinstance(seg, ProseText):
                    self._text(out, seg.text, seg.pos)
                else:
                    out.append(seg)
            else:
                self._text(out, held, self._hold_pos)
        self._reset()

    def _reset(self) -> None:
        self._state = _TEXT
        self._hold = []
        self._info = ""
        self._fence = None
        self._fence_info = ""

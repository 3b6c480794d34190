"""A reasoning block at the start of a reply: ``<think>…</think>`` is reasoning, not text.

Reasoning models (DeepSeek-R1, QwQ, Qwen3...) open their reply with a
``<think>`` (or ``<thinking>``) block before the answer.  :class:`LeadingThink`
sits in front of a protocol parser: it passes the reply through unchanged unless
it starts (after optional whitespace) with such a block, whose content it hands
out as reasoning while it streams, holding back only what could still be the
start of the opening tag or of the closing tag.  Each character is examined once.
"""

from __future__ import annotations

from typing import Literal

from unspool.protocols._holdback import Delimiters

__all__ = ["LeadingThink", "Piece"]

_OPENERS = ("<think>", "<thinking>")
_CLOSERS = {"<think>": "</think>", "<thinking>": "</thinking>"}
_START, _INSIDE, _AFTER = 0, 1, 2

Piece = tuple[Literal["reasoning", "text"], str, int]
"""``(kind, text, pos)``: reasoning or reply text, and its offset in the stream."""


class LeadingThink:
    """Splits a leading ``<think>`` block off a streamed reply (see the module doc).

    ``feed(text, pos)`` and ``finish()`` return :data:`Piece` s in stream order;
    the ``<think>`` and ``</think>`` tags themselves are in neither kind.
    """

    __slots__ = ("_close", "_held", "_held_pos", "_state")

    def __init__(self) -> None:
        self._state = _START
        self._held = ""  # undecided text: leading whitespace and a tag's prefix
        self._held_pos = 0
        self._close: Delimiters | None = None

    @property
    def done(self) -> bool:
        """True once the reply's start was decided: everything after passes through."""
        return self._state == _AFTER

    def feed(self, text: str, pos: int) -> list[Piece]:
        """Consume ``text``, whose first character is at stream offset ``pos``."""
        if self._state == _AFTER:
            return [("text", text, pos)] if text else []
        if self._held:
            text, pos = self._held + text, self._held_pos
            self._held = ""
        if self._state == _START:
            return self._start(text, pos)
        return self._inside(text, pos)

    def finish(self) -> list[Piece]:
        """What is still held: a cut-off opening tag is text, a cut-off block reasoning."""
        held, pos = self._held, self._held_pos
        self._held = ""
        kind: Literal["reasoning", "text"] = "reasoning" if self._state == _INSIDE else "text"
        self._state = _AFTER
        return [(kind, held, pos)] if held else []

    def _start(self, text: str, pos: int) -> list[Piece]:
        body = text.lstrip()
        lead = len(text) - len(body)
        low = body[:11].lower()
        for opener in _OPENERS:
            if low.startswith(opener):
                out: list[Piece] = [("text", text[:lead], pos)] if lead else []
                self._state = _INSIDE
                self._close = Delimiters({"close": [_CLOSERS[opener]]}, fold=True)
                rest = lead + len(opener)
                return out + self._inside(text[rest:], pos + rest)
        if not body or any(o.startswith(low) for o in _OPENERS):
            # whitespace is text whatever follows: only a tag's prefix is held, so a
            # long run of whitespace is not joined and stripped again on every feed
            self._held, self._held_pos = body, pos + lead
            return [("text", text[:lead], pos)] if lead else []
        self._state = _AFTER
        return [("text", text, pos)]

    def _inside(self, text: str, pos: int) -> list[Piece]:
        close = self._close
        assert close is not None
        m = close.search(text, 0)
        if m is None:
            end = len(text) - close.hold(text)
            self._held, self._held_pos = text[end:], pos + end
            return [("reasoning", text[:end], pos)] if end else []
        out: list[Piece] = [("reasoning", text[: m.start()], pos)] if m.start() else []
        self._state = _AFTER
        rest = text[m.end() :]
        if rest:
            out.append(("text", rest, pos + m.end()))
        return out

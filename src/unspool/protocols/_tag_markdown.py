"""Markdown code tracking for the tag parser: tags inside code are examples, not actions.

:class:`CodeTracker` follows fenced code blocks and inline code spans one
character at a time, across chunks, without holding any text back (code is
text either way; only the meaning of later characters changes):

* a fence is a run of three or more backticks or tildes at the start of a line
  (up to three spaces of indent); it closes at a line holding only a run of the
  same character at least as long (CommonMark).  An unclosed fence lasts to EOF.
* an inline code span opens with a run of backticks and closes at the next run
  of exactly the same length, or at the end of the line (a streaming parser
  cannot wait for the end of the paragraph to learn that a backtick was stray).

The tag parser asks :attr:`key` which delimiters apply, stops its search at the
:attr:`signals` characters and hands them to :meth:`signal`, and feeds
characters to :meth:`step` while :attr:`char_mode` is set (line starts, runs).
"""

from __future__ import annotations

__all__ = ["CodeTracker"]

_NORMAL = 0  # prose: delimiters are live
_INLINE = 1  # inside an inline code span
_INFO = 2  # on the info line of an opening fence
_FENCE = 3  # inside a fenced block
_CLOSING = 4  # on a line that starts with a closing fence run: only spaces may follow

_SPACES = " \t\r"


class CodeTracker:
    """Where the text is, with respect to markdown code (see the module docstring)."""

    __slots__ = (
        "_fence_char",
        "_fence_len",
        "_indent",
        "_inline_len",
        "_kind",
        "_line_start",
        "_run",
        "_run_at_line_start",
        "_run_len",
    )

    def __init__(self) -> None:
        self._kind = _NORMAL
        self._fence_char = ""
        self._fence_len = 0
        self._inline_len = 0
        self._line_start = True
        self._indent = 0
        self._run = ""
        self._run_len = 0
        self._run_at_line_start = False

    @property
    def key(self) -> str:
        """``"prose"`` (delimiters live), ``"inline"``, ``"info"`` (a backtick
        fence's info line) or ``"fence"``."""
        kind = self._kind
        if kind == _NORMAL:
            return "prose"
        if kind == _INLINE:
            return "inline"
        if kind == _INFO and self._fence_char == "`":
            return "info"
        return "fence"

    @property
    def char_mode(self) -> bool:
        """True while each character must go through :meth:`step`."""
        return self._line_start or bool(self._run) or self._kind == _CLOSING

    @property
    def prose_lines(self) -> bool:
        """In prose with no run of backticks or tildes open: what :meth:`step` and
        :meth:`signal` then do is follow line starts (:attr:`lines`), which the C text
        path does itself."""
        return self._kind == _NORMAL and not self._run

    @property
    def lines(self) -> tuple[bool, int]:
        """At a line's start, and its indent so far."""
        return self._line_start, self._indent

    def set_lines(self, line_start: bool, indent: int) -> None:
        """Where the C text path left :attr:`lines` (under :attr:`prose_lines`)."""
        self._line_start = line_start
        self._indent = indent

    @staticmethod
    def signals(key: str) -> str:
        """Characters that change the state under ``key`` (see :attr:`key`)."""
        return "\n" if key == "fence" else "`\n"

    def reset(self) -> None:
        """Back to prose, mid-line (after markup such as a tag or ``<think>``)."""
        self._kind = _NORMAL
        self._line_start = False
        self._run = ""

    def signal(self, c: str) -> None:
        """Take a signal character found outside :attr:`char_mode`."""
        if c == "\n":
            self._newline()
        else:
            self._start_run(c, at_line_start=False)

    def step(self, c: str) -> bool:
        """Take ``c`` in char mode: True when it was consumed (it is text); False when
        char mode ended without consuming it (search on from ``c``)."""
        if self._run:
            if c == self._run:
                self._run_len += 1
                return True
            self._end_run()
        if self._kind == _CLOSING:
            if c in _SPACES:
                return True
            if c == "\n":
                self._kind = _NORMAL
                self._newline()
                return True
            self._kind = _FENCE  # more on the line: not a closing fence
            return False
        if self._line_start:
            if c == " " and self._indent < 3:
                self._indent += 1
                return True
            if c == "`" or c == "~":
                self._start_run(c, at_line_start=True)
                return True
            if c == "\n":
                self._newline()
                return True
            self._line_start = False
        return False

    def _newline(self) -> None:
        if self._kind == _INLINE:
            self._kind = _NORMAL
        elif self._kind == _INFO:
            self._kind = _FENCE
        self._line_start = True
        self._indent = 0

    def _start_run(self, c: str, *, at_line_start: bool) -> None:
        self._run = c
        self._run_len = 1
        self._run_at_line_start = at_line_start
        self._line_start = False

    def _end_run(self) -> None:
        c, n, at_start = self._run, self._run_len, self._run_at_line_start
        self._run = ""
        kind = self._kind
        if kind == _NORMAL:
            if at_start and n >= 3:
                self._kind, self._fence_char, self._fence_len = _INFO, c, n
            elif c == "`":
                self._kind, self._inline_len = _INLINE, n
        elif kind == _INLINE:
            if c == "`" and n == self._inline_len:
                self._kind = _NORMAL
        elif kind == _INFO:
            if c == "`" and self._fence_char == "`":
                # a backtick in a backtick fence's info string: it was an inline span
                self._kind, self._inline_len = _INLINE, self._fence_len
                if n == self._fence_len:
                    self._kind = _NORMAL
        elif kind == _FENCE and at_start and c == self._fence_char and n >= self._fence_len:
            self._kind = _CLOSING

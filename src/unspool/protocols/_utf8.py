"""The one incremental UTF-8 decoding every protocol parser uses for ``bytes`` chunks.

A character split across chunks is held back until it is whole.  Invalid bytes
are never raised and never dropped: they become U+FFFD, as Python's ``"replace"``
handler makes them (one per maximal invalid sequence), and each run of them is
reported once by a ``Diagnostic(kind="invalid_utf8", pos=...)`` whose ``pos`` is
the stream offset (in decoded characters) of the run's first U+FFFD.

Placement is the same in every protocol: :meth:`Utf8Decoder.feed` returns the
decoded text cut into segments, the diagnostic between the text before the run
and the text from its first U+FFFD on.  A parser processes the segments in order
and, before appending a diagnostic, flushes what it produced from the text before
it, so the diagnostic follows that text's events and precedes the replacement's.
The segments (and so the events) are the same for every chunking: a run that
goes on across a chunk boundary is reported once.

Decoding is one C-speed pass (``surrogateescape``, then a search for the escaped
bytes, which valid UTF-8 never decodes to), so it stays O(n) on any input.
"""

from __future__ import annotations

import codecs
import re

from unspool.events import Diagnostic

__all__ = ["INVALID_UTF8", "Segment", "Utf8Decoder"]

INVALID_UTF8 = "invalid UTF-8 replaced with U+FFFD"
"""The message of every ``invalid_utf8`` diagnostic."""

Segment = str | Diagnostic
"""Decoded text, or the report of the invalid bytes whose U+FFFD the next text starts with."""

_ESCAPED = re.compile("[\udc80-\udcff]+")


class Utf8Decoder:
    """Incremental UTF-8 decoding that reports invalid input instead of raising.

    ``feed(chunk)`` takes ``str`` (passed through; an incomplete character held
    from earlier bytes is first flushed as U+FFFD) or ``bytes``, and returns
    :data:`Segment` s; ``finish()`` flushes a held incomplete character.
    :attr:`chars` counts the characters given out (the next one's stream offset).
    """

    __slots__ = ("_bytes", "_decoder", "_in_run", "chars")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._in_run = False  # the last character given out replaced invalid bytes
        self._bytes = False  # bytes were fed (str-only streams never ask the decoder)
        self.chars = 0

    @property
    def text_only(self) -> bool:
        """True while only ``str`` was fed: a ``str`` chunk then passes through as is
        (a parser may skip :meth:`feed` and call :meth:`passed` instead)."""
        return not self._bytes

    def passed(self, text: str) -> None:
        """Count ``text`` a parser took directly while :attr:`text_only` (no bytes, so
        no run of invalid ones to end)."""
        self.chars += len(text)

    @property
    def pending(self) -> bytes:
        """Bytes of an incomplete character held for the next call."""
        return bytes(self._decoder.getstate()[0])

    def feed(self, chunk: str | bytes) -> list[Segment]:
        """The segments of ``chunk``, in order (see the module doc)."""
        if isinstance(chunk, str):
            out = self.finish() if self._bytes and self.pending else []
            if chunk:
                out.append(chunk)
                self.chars += len(chunk)
                self._in_run = False
            return out
        self._bytes = True
        return self._segments(self._decoder.decode(bytes(chunk), False))

    def finish(self) -> list[Segment]:
        """Flush an incomplete character held at the end (as U+FFFD, reported)."""
        if not self._bytes:
            return []
        return self._segments(self._decoder.decode(b"", True))

    def _segments(self, text: str) -> list[Segment]:
        if not text:
            return []
        m = _ESCAPED.search(text)
        if m is None:
            self.chars += len(text)
            self._in_run = False
            return [text]
        out: list[Segment] = []
        text_run: list[str] = []  # text since the last diagnostic: one segment
        i = 0
        while m is not None:
            if m.start() > i:
                text_run.append(text[i : m.start()])
                self.chars += m.start() - i
                self._in_run = False
            bad = m.group().encode("utf-8", "surrogateescape")
            if not self._in_run:
                if text_run:
                    out.append("".join(text_run))
                    text_run.clear()
                out.append(Diagnostic("invalid_utf8", INVALID_UTF8, self.chars))
            replaced = bad.decode("utf-8", "replace")
            text_run.append(replaced)
            self.chars += len(replaced)
            self._in_run = True
            i = m.end()
            m = _ESCAPED.search(text, i)
        if i < len(text):
            text_run.append(text[i:])
            self.chars += len(text) - i
            self._in_run = False
        out.append("".join(text_run))
        return out

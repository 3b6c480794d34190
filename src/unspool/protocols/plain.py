"""The plain-text protocol: every chunk is text to show, nothing else.

:class:`PlainTextParser` has the same ``feed``/``finish`` shape as the other
protocol parsers, so a source or a provider adapter can use it wherever a text
protocol is expected (it is the default for a provider's ``content`` channel).
:class:`Utf8Decoder` is the incremental UTF-8 decoding it uses for ``bytes``:
a character split across chunks is held back until it is whole, and invalid
bytes are replaced with U+FFFD and reported, never raised and never dropped.
"""

from __future__ import annotations

import codecs

from unspool.events import Diagnostic, Event, FinishReason, TextDelta
from unspool.protocols.emitter import ActionEmitter, ActionValidator, done_reason

__all__ = ["PlainTextParser", "Utf8Decoder"]


class Utf8Decoder:
    """Incremental UTF-8 decoding that reports invalid input instead of raising.

    ``decode(data)`` returns the text of every complete character so far (an
    incomplete sequence at the end is kept for the next call) and, when the
    input held invalid bytes, the index in that text of the first replacement.
    """

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending = b""

    @property
    def pending(self) -> bytes:
        """Bytes of an incomplete character held for the next call."""
        return self._pending

    def decode(self, data: bytes, final: bool = False) -> tuple[str, int | None]:
        """Decode ``data``; returns ``(text, index of the first U+FFFD put in, or None)``."""
        if self._pending:
            data = self._pending + data
        bad: int | None = None
        try:
            text, used = codecs.utf_8_decode(data, "strict", final)
        except UnicodeDecodeError as exc:
            bad = len(codecs.utf_8_decode(data[: exc.start], "strict", True)[0])
            text, used = codecs.utf_8_decode(data, "replace", final)
        self._pending = data[used:]
        return text, bad


class PlainTextParser:
    """Text in, :class:`~unspool.events.TextDelta` out: no markup, no actions.

    ``feed`` returns one ``TextDelta`` per non-empty decoded chunk; ``finish``
    returns ``StreamDone`` (``"truncated"`` for ``finish("length")``, ``"aborted"``
    for ``finish("abort")``).  ``stream_id`` and ``registry`` are accepted for the
    common parser shape; :attr:`emitter` is the stream's action bookkeeping, which
    a provider adapter shares with its tool calls so that all action ids come from
    one counter.
    """

    __slots__ = ("_done", "_utf8", "emitter", "text_chars")

    def __init__(
        self,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        *,
        emitter: ActionEmitter | None = None,
    ) -> None:
        self.emitter = emitter if emitter is not None else ActionEmitter(stream_id, registry)
        self.text_chars = 0
        self._utf8 = Utf8Decoder()
        self._done = False

    def feed(self, chunk: str | bytes) -> list[Event]:
        """The text of ``chunk`` as a ``TextDelta`` (none for an empty chunk)."""
        if self._done:
            raise RuntimeError("feed() after finish()")
        if isinstance(chunk, str):
            if self._utf8.pending:  # a str after bytes: the split character never completed
                return [*self._flush_bytes(), *self._text(chunk)]
            return self._text(chunk)
        text, bad = self._utf8.decode(bytes(chunk))
        return self._with_invalid(text, bad)

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """Flush an incomplete UTF-8 sequence (as U+FFFD, reported) and end the stream."""
        if self._done:
            return []
        self._done = True
        events = self._flush_bytes()
        events.append(self.emitter.done(done_reason(reason, False), self.text_chars))
        return events

    def _text(self, text: str) -> list[Event]:
        if not text:
            return []
        self.text_chars += len(text)
        return [TextDelta(text)]

    def _flush_bytes(self) -> list[Event]:
        if not self._utf8.pending:
            return []
        text, bad = self._utf8.decode(b"", final=True)
        return self._with_invalid(text, bad)

    def _with_invalid(self, text: str, bad: int | None) -> list[Event]:
        if bad is None:
            return self._text(text)
        pos = self.text_chars + bad
        note = Diagnostic("invalid_utf8", "invalid or incomplete UTF-8 replaced with U+FFFD", pos)
        return [note, *self._text(text)]

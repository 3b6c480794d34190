"""The plain-text protocol: every chunk is text to show, nothing else.

:class:`PlainTextParser` has the same ``feed``/``finish`` shape as the other
protocol parsers, so a source or a provider adapter can use it wherever a text
protocol is expected (it is the default for a provider's ``content`` channel).
:class:`~unspool.protocols._utf8.Utf8Decoder` (re-exported here) is the incremental
UTF-8 decoding every protocol parser uses for ``bytes``.
"""

from __future__ import annotations

from unspool.events import Event, FinishReason, TextDelta
from unspool.protocols._emitter import ActionEmitter, ActionValidator, done_reason
from unspool.protocols._utf8 import Segment, Utf8Decoder

__all__ = ["PlainTextParser", "Utf8Decoder"]


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
        """The text of ``chunk`` as ``TextDelta``s (none for an empty chunk), with an
        ``invalid_utf8`` diagnostic before the U+FFFD of invalid bytes."""
        if self._done:
            raise RuntimeError("feed() after finish()")
        return self._events(self._utf8.feed(chunk))

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """Flush an incomplete UTF-8 sequence (as U+FFFD, reported) and end the stream."""
        if self._done:
            return []
        self._done = True
        events = self._events(self._utf8.finish())
        events.append(self.emitter.done(done_reason(reason, False), self.text_chars))
        return events

    def _events(self, segments: list[Segment]) -> list[Event]:
        out: list[Event] = []
        for seg in segments:
            if isinstance(seg, str):
                self.text_chars += len(seg)
                if out and isinstance(out[-1], TextDelta):  # one delta per run of text
                    out[-1] = TextDelta(out[-1].text + seg)
                else:
                    out.append(TextDelta(seg))
            else:
                out.append(seg)
        return out

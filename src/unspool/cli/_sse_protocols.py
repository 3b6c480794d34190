"""``--protocol openai-sse`` / ``anthropic-sse`` / ...: a provider's raw body, no SDK needed.

Every row of the provider table (:data:`~unspool.sources.providers._table.PROVIDERS`)
with a ``cli_name`` is a protocol here.  The body is split into messages by the
row's ``wire`` framing (Server-Sent Events through
:class:`~unspool.sources._sse.SSEDecoder`, or one JSON value per line), and each
message goes to the row's decoder, which reads the wire format's JSON by duck
typing, so no SDK is imported.  A message cut off before its end (no blank line,
no newline) is reported as a ``Diagnostic`` rather than dropped silently.
"""

from __future__ import annotations

from unspool.cli._records import Record
from unspool.events import Diagnostic, FinishReason
from unspool.protocols._emitter import ActionValidator
from unspool.sources._parsers import ProtocolName
from unspool.sources._sse import SSEDecoder, SSEMessage
from unspool.sources.providers._table import Provider

__all__ = ["NdjsonSplitter", "ProviderSseParser"]


class NdjsonSplitter:
    """A body of one JSON value per line in, one :class:`SSEMessage` per line out (so the
    provider decoders read both framings alike); blank lines are skipped."""

    def __init__(self) -> None:
        self._tail = ""

    def feed(self, chunk: str) -> list[SSEMessage]:
        """The lines this chunk completed."""
        *lines, self._tail = (self._tail + chunk).split("\n")
        return [SSEMessage(data=line) for line in lines if line.strip()]

    def finish(self) -> list[SSEMessage]:
        """The last line, when the body did not end with a newline (a whole value is read)."""
        tail, self._tail = self._tail, ""
        return [SSEMessage(data=tail)] if tail.strip() else []


class ProviderSseParser:
    """Raw body text of one provider's stream (its table row says which) in, events out."""

    def __init__(
        self,
        provider: Provider,
        *,
        text_protocol: ProtocolName = "plain",
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        self._split: SSEDecoder | NdjsonSplitter = (
            NdjsonSplitter() if provider.wire == "ndjson" else SSEDecoder()
        )
        self._decoder = provider.decoder(
            text_protocol, stream_id=stream_id, registry=registry, lenient=lenient
        )

    def feed(self, chunk: str) -> list[Record]:
        """The events of the messages this chunk completed."""
        records: list[Record] = []
        for message in self._split.feed(chunk):
            records += self._decoder.feed(message)
        return records

    def finish(self, reason: FinishReason | None = None) -> list[Record]:
        """End of the body: a cut-off message is reported, then the stream closes."""
        records: list[Record] = []
        for message in self._split.finish():
            records += self._decoder.feed(message)
        cut = self._split.incomplete if isinstance(self._split, SSEDecoder) else None
        if cut is not None:
            records.append(
                Diagnostic(
                    "incomplete_sse",
                    "the body ended inside an SSE message (no blank line); it was not read",
                    text=cut.data,
                )
            )
        return records + self._decoder.finish(reason)

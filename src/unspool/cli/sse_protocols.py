"""``--protocol openai-sse`` / ``anthropic-sse``: a provider's raw SSE body, no SDK needed.

The body is decoded incrementally by :class:`~unspool.sources.sse.SSEDecoder`
and each message goes to the provider's decoder
(:class:`~unspool.sources.openai_adapter.OpenAIDecoder`,
:class:`~unspool.sources.anthropic_adapter.AnthropicDecoder`), which read the
wire format's JSON by duck typing, so neither SDK is imported.  A message cut
off before its blank line is not dispatched (the SSE standard), and is
reported as a ``Diagnostic`` rather than dropped silently.
"""

from __future__ import annotations

from typing import Literal

from unspool.cli.records import Record, detach
from unspool.events import Diagnostic, FinishReason
from unspool.protocols.emitter import ActionValidator
from unspool.sources.anthropic_adapter import AnthropicDecoder
from unspool.sources.openai_adapter import OpenAIDecoder
from unspool.sources.parsers import ProtocolName
from unspool.sources.sse import SSEDecoder

__all__ = ["ProviderSseParser"]


class ProviderSseParser:
    """Raw SSE text of an OpenAI or Anthropic stream in, events out."""

    def __init__(
        self,
        provider: Literal["openai", "anthropic"],
        *,
        text_protocol: ProtocolName = "plain",
        stream_id: str = "stream",
        registry: ActionValidator | None = None,
        lenient: bool = False,
    ) -> None:
        self._sse = SSEDecoder()
        self._decoder: OpenAIDecoder | AnthropicDecoder
        if provider == "openai":
            self._decoder = OpenAIDecoder(
                text_protocol, stream_id=stream_id, registry=registry, lenient=lenient
            )
        else:
            self._decoder = AnthropicDecoder(
                text_protocol, stream_id=stream_id, registry=registry, lenient=lenient
            )

    def feed(self, chunk: str) -> list[Record]:
        """The events of the SSE messages this chunk completed (partial args copied
        after each message, so each ``ActionArgsDelta`` keeps the args of its moment)."""
        records: list[Record] = []
        for message in self._sse.feed(chunk):
            records += detach(self._decoder.feed(message))
        return records

    def finish(self, reason: FinishReason | None = None) -> list[Record]:
        """End of the body: a cut-off message is reported, then the stream closes."""
        self._sse.finish()
        records: list[Record] = []
        cut = self._sse.incomplete
        if cut is not None:
            records.append(
                Diagnostic(
                    "incomplete_sse",
                    "the body ended inside an SSE message (no blank line); it was not read",
                    text=cut.data,
                )
            )
        return records + detach(self._decoder.finish(reason))

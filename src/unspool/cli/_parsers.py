"""The command's protocols: one parser shape over the core and the protocol parsers.

``--protocol`` picks what the input is:

* ``json``: one JSON value; records are the core's path events
  (:class:`JsonParser`), then a ``SchemaCheck`` with ``--schema``, then ``JsonDone``;
* ``interleaved`` / ``tags``: a model's reply text
  (:class:`~unspool.protocols._interleaved.InterleavedParser`,
  :class:`~unspool.protocols._tags.TagParser`); records are events;
* ``plain``: text as it is, no markup (:class:`~unspool.protocols._plain.PlainTextParser`);
* ``openai-sse`` / ``anthropic-sse`` / every other ``cli_name`` of the provider
  table: a provider's raw body (:mod:`unspool.cli._sse_protocols`), its text channel
  read with ``text_protocol``.

Every parser here has ``feed(chunk) -> list[Record]`` and
``finish(reason) -> list[Record]``, and raises :class:`~unspool.cli._inputs.InputError`
for input it cannot read (strict JSON that is not JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from unspool.cli._inputs import InputError
from unspool.cli._records import JsonDone, Record, SchemaCheck
from unspool.core._errors import UNSET, MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.events import FinishReason, new_stream_id
from unspool.protocols._emitter import ActionValidator
from unspool.protocols._model_formats import MODEL_FORMATS
from unspool.protocols._tag_formats import FORMATS
from unspool.sources._parsers import ProtocolName, TextParser
from unspool.sources.providers._table import CLI_NAMES, by_cli_name

__all__ = [
    "PROTOCOLS",
    "TAG_FORMAT_NAMES",
    "TEXT_PROTOCOLS",
    "JsonParser",
    "StreamParser",
    "make_stream_parser",
]

PROTOCOLS = ("json", "interleaved", "tags", "plain", *CLI_NAMES)
"""What ``--protocol`` accepts."""

TEXT_PROTOCOLS = ("plain", "interleaved", "tags")

TAG_FORMAT_NAMES = (*FORMATS, *MODEL_FORMATS, "auto")
"""What ``--format`` takes with ``--protocol tags``: the tag formats and the model formats."""
"""What ``--text-protocol`` accepts (the text channel of a provider stream)."""


class StreamParser(Protocol):
    """What the commands feed: text chunks in, records out."""

    def feed(self, chunk: str) -> list[Record]:
        """Records for one chunk."""
        ...

    def finish(self, reason: FinishReason | None = None) -> list[Record]:
        """The last records; the closing one last."""
        ...


class JsonParser:
    """``--protocol json``: the core's path events for one JSON value.

    ``lenient`` turns on the core's repairs, skips a preamble (prose, a fence,
    ``<think>``) and ignores text after the value (a closing fence, a last remark);
    ``trailing="ignore"`` ignores that text without the rest.  Each repair, skipped
    preamble and ignored tail is reported as a record.
    """

    def __init__(
        self,
        *,
        lenient: bool = False,
        check: Callable[[Any], SchemaCheck] | None = None,
        trailing: str = "error",
    ) -> None:
        self._stream = JsonStream(
            events=True,
            lenient=lenient,
            skip_preamble=lenient,
            trailing="ignore" if lenient else trailing,
        )
        self._check = check

    def feed(self, chunk: str) -> list[Record]:
        """Feed a chunk; strict JSON errors become :class:`InputError`."""
        try:
            return list(self._stream.feed_events(chunk))
        except MalformedJSON as exc:
            # the path events before the bad character still get written
            raise InputError(f"invalid JSON: {exc}", self._stream.take_events()) from None

    def finish(self, reason: FinishReason | None = None) -> list[Record]:
        """Close the value: its last path events, the schema check, then ``JsonDone``."""
        try:
            records: list[Record] = list(self._stream.finish_events())
        except MalformedJSON as exc:
            raise InputError(f"invalid JSON: {exc}") from None
        value = self._stream.value
        if self._check is not None and value is not UNSET:
            records.append(self._check(value))
        records.append(JsonDone(value, self._stream.complete))
        return records


class _EventParser:
    """A protocol parser whose events are the records (events are values: no copy needed)."""

    def __init__(self, parser: TextParser) -> None:
        self._parser = parser

    def feed(self, chunk: str) -> list[Record]:
        return list(self._parser.feed(chunk))

    def finish(self, reason: FinishReason | None = None) -> list[Record]:
        return list(self._parser.finish(reason))


def make_stream_parser(
    protocol: str,
    *,
    lenient: bool = False,
    registry: ActionValidator | None = None,
    check: Callable[[Any], SchemaCheck] | None = None,
    stream_id: str | None = None,
    text_protocol: str = "plain",
    trailing: str = "error",
    tag_format: str = "action",
) -> StreamParser:
    """A fresh parser for ``protocol`` (one of :data:`PROTOCOLS`); without ``stream_id``
    its action ids are fresh (:func:`~unspool.events.new_stream_id`). ``trailing`` is
    the core's option, for ``json``; ``tag_format`` the ``format`` of ``tags`` (a name
    of ``tag_formats.FORMATS`` or of ``model_formats.MODEL_FORMATS``)."""
    if stream_id is None:
        stream_id = new_stream_id()
    if protocol == "json":
        return JsonParser(lenient=lenient, check=check, trailing=trailing)
    if protocol == "interleaved":
        from unspool.protocols._interleaved import InterleavedParser

        return _EventParser(
            InterleavedParser(stream_id=stream_id, registry=registry, lenient=lenient)
        )
    if protocol == "tags":
        from unspool.protocols._tags import TagParser

        return _EventParser(
            TagParser(stream_id=stream_id, registry=registry, lenient=lenient, format=tag_format)
        )
    if protocol == "plain":
        from unspool.protocols._plain import PlainTextParser

        return _EventParser(PlainTextParser(stream_id=stream_id, registry=registry))
    if protocol in CLI_NAMES:
        from unspool.cli._sse_protocols import ProviderSseParser

        if text_protocol not in TEXT_PROTOCOLS:
            raise ValueError(f"unknown text protocol {text_protocol!r}")
        return ProviderSseParser(
            by_cli_name(protocol),
            text_protocol=cast(ProtocolName, text_protocol),
            stream_id=stream_id,
            registry=registry,
            lenient=lenient,
        )
    raise ValueError(f"unknown protocol {protocol!r}")

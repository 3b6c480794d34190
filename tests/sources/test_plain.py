"""PlainTextParser, and stream()/astream() over sync and async iterables of str or bytes."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterable, Iterator

import pytest

from tests.support.replay import acollect, collect
from unspool.events import (
    ActionComplete,
    Diagnostic,
    Event,
    StreamDone,
    StreamError,
    TextDelta,
)
from unspool.protocols._emitter import ActionEmitter
from unspool.protocols._interleaved import InterleavedParser
from unspool.protocols._plain import PlainTextParser, Utf8Decoder
from unspool.protocols._tags import TagParser
from unspool.protocols._toolcalls import ToolCallAssembler
from unspool.protocols._utf8 import INVALID_UTF8
from unspool.sources._iterables import astream, stream

TEXT = "naïve café — 日本語 🎉 ok"
DATA = TEXT.encode()
BAD = INVALID_UTF8


def joined(events: list) -> list:
    """Consecutive TextDeltas merged (the only thing chunking may change)."""
    out: list = []
    for event in events:
        if isinstance(event, TextDelta) and out and isinstance(out[-1], TextDelta):
            out[-1] = TextDelta(out[-1].text + event.text)
        else:
            out.append(event)
    return out


def test_plain_text_chunks_are_text_deltas() -> None:
    parser = PlainTextParser(stream_id="stream")
    assert parser.feed("Hello ") == [TextDelta("Hello ")]
    assert parser.feed("") == []
    assert parser.feed("world") == [TextDelta("world")]
    assert parser.finish() == [StreamDone("complete", 0, 0, 11)]
    assert parser.finish() == []
    with pytest.raises(RuntimeError):
        parser.feed("more")


@pytest.mark.parametrize(
    ("reason", "done"), [("stop", "complete"), ("length", "truncated"), ("abort", "aborted")]
)
def test_plain_finish_reason(reason: str, done: str) -> None:
    parser = PlainTextParser(stream_id="stream")
    parser.feed("x")
    assert parser.finish(reason) == [StreamDone(done, 0, 0, 1)]  # type: ignore[arg-type]


def test_plain_bytes_split_at_every_index() -> None:
    for i in range(len(DATA) + 1):
        parser = PlainTextParser(stream_id="stream")
        events = parser.feed(DATA[:i]) + parser.feed(DATA[i:]) + parser.finish()
        assert joined(events) == [TextDelta(TEXT), StreamDone("complete", 0, 0, len(TEXT))], i


def test_plain_one_byte_per_chunk() -> None:
    parser = PlainTextParser(stream_id="stream")
    events = [e for i in range(len(DATA)) for e in parser.feed(DATA[i : i + 1])]
    assert all(e.text for e in events)
    assert joined(events + parser.finish()) == [
        TextDelta(TEXT),
        StreamDone("complete", 0, 0, len(TEXT)),
    ]


def test_plain_invalid_bytes_are_replaced_and_reported() -> None:
    parser = PlainTextParser(stream_id="stream")
    assert parser.feed("ab") == [TextDelta("ab")]
    assert parser.feed(b"c\xffd") == [
        TextDelta("c"),
        Diagnostic("invalid_utf8", BAD, 3),
        TextDelta("\ufffdd"),
    ]


def test_plain_incomplete_character_at_the_end() -> None:
    parser = PlainTextParser(stream_id="stream")
    assert parser.feed(b"ok\xe6\x97") == [TextDelta("ok")]
    assert parser.finish() == [
        Diagnostic("invalid_utf8", BAD, 2),
        TextDelta("\ufffd"),
        StreamDone("complete", 0, 0, 3),
    ]


def test_plain_str_after_a_split_character() -> None:
    parser = PlainTextParser(stream_id="stream")
    assert parser.feed(b"\xe6") == []
    assert parser.feed("x") == [Diagnostic("invalid_utf8", BAD, 0), TextDelta("\ufffdx")]


def test_utf8_decoder_holds_a_split_character() -> None:
    decoder = Utf8Decoder()
    assert decoder.feed("🎉".encode()[:3]) == []
    assert decoder.pending == b"\xf0\x9f\x8e"
    assert decoder.feed(b"\x89!") == ["🎉!"]
    assert decoder.feed(b"\xc3(") == [Diagnostic("invalid_utf8", BAD, 2), "\ufffd("]
    assert decoder.chars == 4


def test_stream_bytes_split_at_every_index() -> None:
    for i in range(len(DATA) + 1):
        events = collect(stream([DATA[:i], DATA[i:]]))
        assert joined(events) == [TextDelta(TEXT), StreamDone("complete", 0, 0, len(TEXT))], i


def test_stream_closes_the_source_when_the_consumer_stops() -> None:
    closed: list[bool] = []

    def source() -> Iterator[str]:
        try:
            yield "a"
            yield "b"
        finally:
            closed.append(True)

    events = stream(source())
    assert next(events) == TextDelta("a")
    events.close()  # type: ignore[attr-defined]
    assert closed == [True]


def test_stream_source_error_becomes_stream_error() -> None:
    def source() -> Iterator[str]:
        yield "a"
        yield "b"
        raise OSError("connection reset")

    assert collect(stream(source())) == [
        TextDelta("a"),
        TextDelta("b"),
        StreamError("connection reset", "OSError"),
        StreamDone("error", 0, 0, 2),
    ]


def test_stream_reports_a_chunk_that_is_not_text() -> None:
    events = collect(stream([b"x", 42, bytearray(b"y"), "z"]))  # type: ignore[list-item]
    assert events == [
        TextDelta("x"),
        Diagnostic("bad_chunk", "expected str or bytes, got int: ignored"),
        TextDelta("y"),
        TextDelta("z"),
        StreamDone("complete", 0, 0, 3),
    ]


def test_stream_with_the_tag_protocol_equals_the_parser_alone() -> None:
    chunks = ['Hi <action name="open">{"id": "p1', '"}</act', "ion> bye"]
    expected = []
    direct = TagParser(stream_id="stream")
    for chunk in chunks:
        expected.extend(collect(direct.feed(chunk)))
    expected.extend(direct.finish())
    assert collect(stream(chunks, TagParser(stream_id="stream"))) == expected
    assert collect(stream(chunks, "tags", stream_id="stream")) == expected


async def _agen(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


async def test_astream_bytes_split_at_every_index() -> None:
    for i in range(0, len(DATA) + 1):
        events = await acollect(astream(_agen([DATA[:i], DATA[i:]])))
        assert joined(events) == [TextDelta(TEXT), StreamDone("complete", 0, 0, len(TEXT))], i


async def test_astream_sync_sources() -> None:
    expected = [TextDelta("a"), TextDelta("é"), StreamDone("complete", 0, 0, 2)]
    assert await acollect(astream(["a", "é".encode()])) == expected  # a list: read inline
    assert await acollect(astream(iter(["a", "é".encode()]))) == expected  # in a worker thread


async def test_astream_abort_closes_the_source() -> None:
    abort = asyncio.Event()
    closed: list[bool] = []

    async def source() -> AsyncIterator[str]:
        try:
            yield "a"
            await asyncio.Event().wait()  # stalls forever
            yield "never"
        finally:
            closed.append(True)

    events = []
    async for event in astream(source(), abort=abort):
        events.append(event)
        abort.set()
    assert events == [TextDelta("a"), StreamDone("aborted", 0, 0, 1)]
    assert closed == [True]
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_astream_source_error() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield "日".encode()[:2]
        raise ConnectionError("peer closed")

    assert await acollect(astream(source())) == [
        StreamError("peer closed", "ConnectionError"),
        Diagnostic("invalid_utf8", BAD, 0),
        TextDelta("\ufffd"),
        StreamDone("error", 0, 0, 1),
    ]


def test_parsers_and_sources_default_to_fresh_stream_ids() -> None:
    """Two replies parsed without a stream_id never share action ids (a shared ledger
    would hand the second the first one's result); a stable id is kept as given."""
    reply = '<action name="pay">{"to": "bob"}</action>'

    def ids(events: Iterable[Event]) -> list[str]:
        return [e.id for e in events if isinstance(e, ActionComplete)]

    first = ids(stream([reply], "tags"))
    second = ids(stream([reply], "tags"))
    assert len(first) == len(second) == 1 and first != second
    assert ids(stream([reply], "tags", stream_id="turn7")) == ["turn7:0"]
    made = [
        TagParser().emitter,
        InterleavedParser().emitter,
        PlainTextParser().emitter,
        ToolCallAssembler().emitter,
        ActionEmitter(),
    ]
    fresh = {e.stream_id for e in made}
    assert len(fresh) == len(made) and all(re.fullmatch(r"s-[0-9a-f]{16}", s) for s in fresh)
    assert ActionEmitter("stream").action_id(3) == "stream:3"

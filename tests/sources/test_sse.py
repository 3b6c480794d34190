"""The Server-Sent Events decoder and the SSE text source."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_profiles import examples
from tests.support.replay import acollect, collect
from unspool.events import Diagnostic, StreamDone, StreamError, TextDelta
from unspool.sources._sse import (
    SSEDecoder,
    SSEMessage,
    aiter_sse,
    astream_sse,
    iter_sse,
    stream_sse,
)

BODY = (
    b"\xef\xbb\xbf: a comment\r\n"
    b"event: greet\r\n"
    b"data: h\xc3\xa9llo\r\n"
    b"data:  two spaces\r\n"
    b"id: 7\r\n"
    b"\r\n"
    b"data: \xe6\x97\xa5\xe6\x9c\xac\r"
    b"retry: 1500\r"
    b"\r"
    b"event: no data, not dispatched\n"
    b"\n"
    b"data\n"
    b"id\n"
    b"\n"
    b"data: \xf0\x9f\x8e\x89 last\n"
    b"unknown: field\n"
    b"\n"
)
MESSAGES = [
    SSEMessage("greet", "héllo\n two spaces", "7", None),
    SSEMessage("message", "日本", "7", 1500),
    SSEMessage("message", "", "", None),
    SSEMessage("message", "🎉 last", "", None),
]


def decode(chunks: list[bytes]) -> list[SSEMessage]:
    decoder = SSEDecoder()
    out = [m for chunk in chunks for m in decoder.feed(chunk)]
    out.extend(decoder.finish())
    assert decoder.incomplete is None
    return out


def test_sse_whole_body() -> None:
    assert decode([BODY]) == MESSAGES


def test_sse_split_at_every_index() -> None:
    for i in range(len(BODY) + 1):
        assert decode([BODY[:i], BODY[i:]]) == MESSAGES, i


def test_sse_split_at_every_pair_of_indices() -> None:
    n = len(BODY)
    for i in range(n + 1):
        for j in range(i, n + 1):
            assert decode([BODY[:i], BODY[i:j], BODY[j:]]) == MESSAGES, (i, j)


def test_sse_one_byte_per_chunk() -> None:
    assert decode([BODY[i : i + 1] for i in range(len(BODY))]) == MESSAGES


def test_sse_crlf_split_counts_once() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"\r") == [SSEMessage("message", "a")]
    assert decoder.feed(b"\ndata: b\n\n") == [SSEMessage("message", "b")]


def test_sse_str_chunks_and_retry_state() -> None:
    decoder = SSEDecoder()
    assert decoder.feed("retry: 20\nretry: x\ndata: é\n\n") == [SSEMessage("message", "é", "", 20)]
    assert decoder.retry == 20


def test_sse_message_cut_off_is_kept_aside() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: one\n\nevent: e\ndata: tw") == [SSEMessage("message", "one")]
    assert decoder.finish() == []
    assert decoder.incomplete == SSEMessage("e", "tw")
    assert decoder.finish() == []
    with pytest.raises(RuntimeError):
        decoder.feed(b"more")


def test_sse_id_with_nul_is_ignored() -> None:
    assert decode([b"id: 1\n\nid: a\x00b\ndata: x\n\n"]) == [SSEMessage("message", "x", "1")]


def test_iter_sse() -> None:
    assert list(iter_sse([BODY[:50], BODY[50:]])) == MESSAGES


async def test_aiter_sse() -> None:
    async def body() -> AsyncIterator[bytes]:
        for i in range(0, len(BODY), 9):
            yield BODY[i : i + 9]

    assert [m async for m in aiter_sse(body())] == MESSAGES


TEXT_BODY = "data: Hel\n\ndata: lo 👋\n\n: keep-alive\n\ndata: [DONE]\n\n".encode()


def test_stream_sse_feeds_the_data_to_the_parser() -> None:
    expected = [TextDelta("Hel"), TextDelta("lo 👋"), StreamDone("complete", 0, 0, 7)]
    for i in range(len(TEXT_BODY) + 1):
        assert collect(stream_sse([TEXT_BODY[:i], TEXT_BODY[i:]])) == expected, i


def test_stream_sse_reports_a_message_cut_off() -> None:
    events = collect(stream_sse([b"data: a\n\ndata: b"]))
    assert events == [
        TextDelta("a"),
        Diagnostic("sse_incomplete", "the body ended inside an event", text="b"),
        StreamDone("complete", 0, 0, 1),
    ]


async def test_astream_sse_upstream_error() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"data: one\n\ndata: tw"
        raise ConnectionResetError("reset by peer")

    assert await acollect(astream_sse(body())) == [
        TextDelta("one"),
        Diagnostic("sse_incomplete", "the body ended inside an event", text="tw"),
        StreamError("reset by peer", "ConnectionResetError"),
        StreamDone("error", 0, 0, 3),
    ]


_field_text = st.text(
    alphabet=st.characters(blacklist_characters="\r\n\x00", blacklist_categories=("Cs",)),
    max_size=10,
)


@settings(max_examples=examples(150), deadline=None)
@given(
    events=st.lists(
        st.tuples(_field_text, st.lists(_field_text, min_size=1, max_size=3)), max_size=5
    ),
    eol=st.sampled_from(["\n", "\r", "\r\n"]),
    cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=8),
)
def test_sse_any_body_any_chunking(
    events: list[tuple[str, list[str]]], eol: str, cuts: list[int]
) -> None:
    text = ""
    expected = []
    for name, lines in events:
        kind = name.replace(":", "").lstrip(" ")
        text += f"event: {kind}{eol}" if kind else ""
        text += "".join(f"data: {line}{eol}" for line in lines) + eol
        expected.append(SSEMessage(kind or "message", "\n".join(lines)))
    body = text.encode()
    edges = [0, *sorted(c for c in cuts if c < len(body)), len(body)]
    assert decode([body[a:b] for a, b in itertools.pairwise(edges)]) == expected

"""One UTF-8 decoding path for every protocol parser (issue 12 item 12).

``Utf8Decoder`` replaces invalid bytes as Python's ``"replace"`` does and reports
each run once, at the offset of its first U+FFFD; every parser puts that report
in the same place (after the events of the text before it, before those of the
replacement), for every chunking of the bytes.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.chunking import char_chunks, merge_events, run_chunks, splits
from tests.support.hypothesis_profiles import examples
from unspool.events import Diagnostic, Event, StreamDone, TextDelta
from unspool.protocols._interleaved import InterleavedParser
from unspool.protocols._plain import PlainTextParser
from unspool.protocols._tags import TagParser
from unspool.protocols._utf8 import INVALID_UTF8, Segment, Utf8Decoder

PARSERS: dict[str, Any] = {
    "plain": PlainTextParser,
    "tags": TagParser,
    "interleaved": InterleavedParser,
}


def test_every_protocol_places_the_report_alike_for_every_chunking() -> None:
    data = "ok café ".encode() + b"\xff\xfe" + " then 東京 and ".encode() + b"\xe4\xb8"
    expected: list[Event] = [
        TextDelta("ok café "),
        Diagnostic("invalid_utf8", INVALID_UTF8, 8),
        TextDelta("\ufffd\ufffd then 東京 and "),
        Diagnostic("invalid_utf8", INVALID_UTF8, 23),
        TextDelta("\ufffd"),
        StreamDone("complete", 0, 0, 24),
    ]
    for name, cls in PARSERS.items():
        for chunks in [[data], *splits(data), char_chunks(data)]:
            events = run_chunks(cls(stream_id="s"), chunks)
            assert merge_events(events) == expected, (name, chunks)


def test_a_str_chunk_after_a_split_character_flushes_it_first() -> None:
    for cls in PARSERS.values():
        parser = cls(stream_id="s")
        events = [*parser.feed(b"a\xe6\x97"), *parser.feed("b"), *parser.finish()]
        assert merge_events(events) == [
            TextDelta("a"),
            Diagnostic("invalid_utf8", INVALID_UTF8, 1),
            TextDelta("\ufffdb"),
            StreamDone("complete", 0, 0, 3),
        ]


PIECES = [
    b"a",
    "é".encode(),
    "東".encode(),
    "🎉".encode(),
    b"\xff",
    b"\x80",
    b"\xe4\xb8",  # a 3-byte character cut short
    b"\xf0\x9f",  # a 4-byte one cut short
    b"\xed\xa0\x80",  # an encoded surrogate
    b"\xc0\xaf",  # an overlong form
    "\ufffd".encode(),  # a real U+FFFD in the input: text, not reported
]


def _merged(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for seg in segments:
        if isinstance(seg, str) and out and isinstance(out[-1], str):
            out[-1] += seg
        elif seg != "":
            out.append(seg)
    return out


@settings(max_examples=examples(150), deadline=None)
@given(
    parts=st.lists(st.sampled_from(PIECES), max_size=12),
    cuts=st.lists(st.integers(0, 40), max_size=8),
)
def test_decoding_is_the_same_for_every_chunking(parts: list[bytes], cuts: list[int]) -> None:
    data = b"".join(parts)
    whole = Utf8Decoder()
    expected = _merged([*whole.feed(data), *whole.finish()])
    points = sorted({min(c, len(data)) for c in cuts})
    decoder = Utf8Decoder()
    segments: list[Segment] = []
    for a, b in itertools.pairwise([0, *points, len(data)]):
        segments += decoder.feed(data[a:b])
    segments += decoder.finish()
    assert _merged(segments) == expected
    text = "".join(s for s in expected if isinstance(s, str))
    assert text == data.decode("utf-8", "replace")
    assert decoder.chars == len(text)
    offset = 0
    for seg in expected:  # each report sits right before a U+FFFD, at its offset
        if isinstance(seg, str):
            offset += len(seg)
        else:
            assert seg.pos == offset and text[offset] == "\ufffd"

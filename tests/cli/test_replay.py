"""Recorded streams: formats, sessions, pacing (unspool.cli._replay and unspool.cli._run)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from unspool.cli._inputs import InputError
from unspool.cli._records import Record
from unspool.cli._replay import (
    Chunk,
    RecordedStream,
    detect_format,
    guess_protocol,
    load_recording,
    pace,
    split_raw,
    split_sse,
)
from unspool.cli._run import Pacing


def test_split_raw_cuts_word_sized_chunks_that_rebuild_the_text() -> None:
    text = "Hello, wonderful   world!\n<action>{}"
    pieces = split_raw(text)
    assert pieces == ["Hello,", " wonder", "ful", "   world!", "\n<actio", "n>{}"]
    assert "".join(pieces) == text


def test_split_raw_keeps_trailing_whitespace() -> None:
    assert split_raw("a \n\n") == ["a", " \n\n"]
    assert split_raw("") == []


def test_split_sse_keeps_each_event_with_its_blank_line() -> None:
    body = "data: 1\n\nevent: x\ndata: 2\r\n\r\ndata: 3"
    assert split_sse(body) == ["data: 1\n\n", "event: x\ndata: 2\r\n\r\n", "data: 3"]


@pytest.mark.parametrize(
    ("text", "filename", "expected"),
    [
        ('{"chunk": "a"}', "rec.txt", "jsonl"),
        ("anything", "rec.JSONL", "jsonl"),
        ("anything", "rec.ndjson", "jsonl"),
        ("anything", "cap.sse", "sse"),
        ("\n\ndata: {}\n\n", None, "sse"),
        ("event: message_start\n", None, "sse"),
        (": comment\n", None, "sse"),
        ('"a bare chunk"\n"another"\n', None, "jsonl"),
        ('{"session": "s1"}\n', None, "jsonl"),
        ('{"finish": "stop"}\n', None, "jsonl"),
        ('{"a": 1}\n', None, "raw"),
        ("[1, 2]", None, "raw"),
        ("Hello <action name='x'>{}</action>", None, "raw"),
        ("", None, "raw"),
    ],
)
def test_detect_format(text: str, filename: str | None, expected: str) -> None:
    assert detect_format(text, filename) == expected


JSONL = "\n".join(
    json.dumps(item)
    for item in [
        {"session": "one", "protocol": "tags", "title": "First"},
        {"chunk": "Hi ", "delay": 0.5},
        {"chunk": "there", "t": 1.25},
        {"chunk": "!", "t": 2.0},
        "bare",
        {"finish": "length"},
        {"session": "two"},
        {"chunk": "[", "t": 0.5},
    ]
)


def test_load_jsonl_sessions_delays_timestamps_and_finish() -> None:
    first, second = load_recording(JSONL + "\n\n", "jsonl")
    assert first == RecordedStream(
        [Chunk("Hi ", 0.5), Chunk("there", 1.25), Chunk("!", 0.75), Chunk("bare", None)],
        protocol="tags",
        title="First",
        finish="length",
        name="one",
    )
    assert first.text == "Hi there!bare"
    assert second == RecordedStream([Chunk("[", 0.5)], title="two", name="two")


def test_load_jsonl_without_header_is_one_session() -> None:
    (only,) = load_recording('"a"\n{"chunk": "b", "delay": 0}\n', "jsonl")
    assert only == RecordedStream([Chunk("a"), Chunk("b", 0.0)])


def test_timestamps_going_backwards_wait_zero() -> None:
    (only,) = load_recording('{"chunk": "a", "t": 2}\n{"chunk": "b", "t": 1}\n', "jsonl")
    assert only.chunks == [Chunk("a", 2.0), Chunk("b", 0.0)]


def test_load_raw_and_sse() -> None:
    assert load_recording("one two", "raw") == [RecordedStream([Chunk("one"), Chunk(" two")])]
    assert load_recording("data: 1\n\ndata: 2\n\n", "sse") == [
        RecordedStream([Chunk("data: 1\n\n"), Chunk("data: 2\n\n")])
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "{nope",
            "line 2: not JSON (Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1))",
        ),
        ("42", 'line 2: expected a string or an object with "chunk", "session" or "finish"'),
        (
            '{"text": "a"}',
            'line 2: expected a string or an object with "chunk", "session" or "finish"',
        ),
        ('{"chunk": 5}', 'line 2: "chunk" must be a string'),
        ('{"chunk": "a", "delay": -1}', 'line 2: "delay" must be a number of seconds >= 0'),
        ('{"chunk": "a", "delay": true}', 'line 2: "delay" must be a number of seconds >= 0'),
        ('{"chunk": "a", "t": "soon"}', 'line 2: "t" must be a number of seconds >= 0'),
        ('{"finish": "done"}', 'line 2: "finish" must be one of stop, length, abort'),
        ('{"session": 1}', 'line 2: "session" must be a string'),
        ('{"session": "s", "protocol": 2}', 'line 2: "protocol" must be a string'),
    ],
)
def test_bad_jsonl_lines_are_input_errors(line: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        load_recording('"ok"\n' + line + "\n", "jsonl")
    assert info.value.message == message
    assert info.value.exit_code == 1


def test_pace_recorded_default_speed_delay_and_no_delay() -> None:
    chunks = [Chunk("a", 0.5), Chunk("b"), Chunk("c", 0.0)]
    assert list(pace(chunks)) == [(0.5, "a"), (0.03, "b"), (0.0, "c")]
    assert list(pace(chunks, speed=2.0)) == [(0.25, "a"), (0.015, "b"), (0.0, "c")]
    assert list(pace(chunks, delay=0.1)) == [(0.1, "a"), (0.1, "b"), (0.1, "c")]
    assert list(pace(chunks, no_delay=True)) == [(0.0, "a"), (0.0, "b"), (0.0, "c")]
    assert list(pace(chunks, default_delay=1.0, speed=4.0)) == [
        (0.125, "a"),
        (0.25, "b"),
        (0.0, "c"),
    ]


def recorded(text: str) -> RecordedStream:
    return RecordedStream([Chunk(text)])


@pytest.mark.parametrize(
    ("text", "fmt", "expected"),
    [
        (
            'data: {"id":"c1","object":"chat.completion.chunk","choices":[]}\n\n',
            "sse",
            "openai-sse",
        ),
        ('data: {"choices": [{"delta": {}}]}\n\n', "sse", "openai-sse"),
        ('event: x\ndata: {"type":"message_start","message":{}}\n\n', "sse", "anthropic-sse"),
        ('data: {"type": "content_block_delta"}\n\n', "sse", "anthropic-sse"),
        ("Sure <action name='x'>{}</action>", "raw", "tags"),
        ('<TOOL_CALL>{"name": "x"}</TOOL_CALL>', "raw", "tags"),
        ('  {"a": 1}', "raw", "json"),
        ('[{"type":"text","content":"hi"}]', "jsonl", "interleaved"),
        ("Just prose.", "raw", "interleaved"),
    ],
)
def test_guess_protocol(text: str, fmt: str, expected: str) -> None:
    assert guess_protocol(recorded(text), fmt) == expected


def test_guess_protocol_unknown_sse_provider_is_an_input_error() -> None:
    with pytest.raises(InputError) as info:
        guess_protocol(recorded("data: {}\n\n"), "sse")
    assert info.value.message == "cannot tell which provider wrote this SSE stream: give --protocol"


class RecordingView:
    """A view that logs the calls the pacing loop makes."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def start_session(self, title: str | None, protocol: str) -> None:
        self.log.append(f"start {title} {protocol}")

    def update(self, records: Sequence[Record]) -> None:
        self.log.append(f"update {len(records)}")

    def idle(self) -> None:
        self.log.append("idle")

    def close(self) -> None:
        self.log.append("close")


def test_pacing_draws_the_view_before_each_wait_and_sleeps_the_delay() -> None:
    sleeps: list[float] = []
    view = RecordingView()
    stream = RecordedStream([Chunk("a", 0.2), Chunk("b", 0.0), Chunk("c", 0.4)])
    pacing = Pacing(speed=2.0, sleep=sleeps.append)
    got = []
    for text in pacing.chunks(stream, view):
        got.append(text)
        view.log.append(f"chunk {text}")
    assert got == ["a", "b", "c"]
    assert sleeps == [0.1, 0.2]
    assert view.log == ["idle", "chunk a", "chunk b", "idle", "chunk c"]


def test_pacing_no_delay_never_sleeps() -> None:
    sleeps: list[float] = []
    view = RecordingView()
    pacing = Pacing(no_delay=True, sleep=sleeps.append)
    assert list(pacing.chunks(RecordedStream([Chunk("a", 5.0)]), view)) == ["a"]
    assert sleeps == []
    assert view.log == []

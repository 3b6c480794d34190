"""Regression tests for what adversarial inputs found (issue 12): super-linear cost,
exceptions out of parsers that must never raise, results that depend on the chunking.

Growth guards are in the style of ``tests/core/test_cost.py`` (``best_time``: least
thread CPU time of a few runs, gc frozen): 4x the input must cost well under 8x the
time, where a quadratic cause takes ~16x.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.chunking import char_chunks, merge_events, run_chunks
from tests.support.cost import RATIO_LIMIT, best_time
from unspool import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Diagnostic,
    InterleavedParser,
    MalformedJSON,
    Repair,
    SSEDecoder,
    TagParser,
    TextDelta,
    ToolCallAssembler,
    loads,
    loads_with_repairs,
    repair,
)
from unspool.events import Event

ITEM = '[{"type":"text","content":"hi"}]'


def _assert_linear(make: Callable[[int], Callable[[], Any]], base: int) -> None:
    t_small = best_time(make(base))
    t_large = best_time(make(4 * base))
    assert t_large < RATIO_LIMIT * t_small, (
        f"4x the input took {t_large / t_small:.1f}x the time "
        f"({t_small * 1000:.1f} ms -> {t_large * 1000:.1f} ms)"
    )


def _in_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- a reply that opens with a long run of whitespace (InterleavedParser's <think> check)


def test_leading_whitespace_costs_linear_time() -> None:
    """The leading-<think> check held the whitespace and joined and stripped it again on
    every feed: 128 K spaces in 8-character chunks took 14x the time of 32 K."""

    def make(size: int) -> Callable[[], Any]:
        chunks = _in_chunks(" \n" * (size // 2) + ITEM, 8)
        return lambda: run_chunks(InterleavedParser(stream_id="s"), chunks)

    _assert_linear(make, 100_000)


def test_leading_whitespace_is_the_same_for_every_chunking() -> None:
    for reply, expected in [
        (
            " \n\t" * 3 + "<think>why</think>" + ITEM,
            [
                "ReasoningDelta(text='why')",
                "TextDelta(text='hi')",
                "StreamDone(reason='complete', actions_complete=0, actions_invalid=0, "
                "text_chars=2)",
            ],
        ),
        (
            " \n\t" * 3 + "<thi",
            [
                "TextDelta(text=' \\n\\t \\n\\t \\n\\t<thi')",
                "StreamDone(reason='complete', actions_complete=0, actions_invalid=0, "
                "text_chars=13)",
            ],
        ),
    ]:
        for chunks in ([reply], char_chunks(reply), _in_chunks(reply, 4)):
            events = run_chunks(InterleavedParser(stream_id="s"), chunks)
            assert [repr(e) for e in merge_events(events)] == expected


# -- tool-call arguments (every provider adapter assembles them here)


def _tool_call(args: str, chunk: int, *, lenient: bool = False) -> list[Event]:
    assembler = ToolCallAssembler(stream_id="s", lenient=lenient)
    events = assembler.start("k", "f", "call_1")
    for piece in _in_chunks(args, chunk):
        events += assembler.args_delta("k", piece)
    return merge_events(events + assembler.end("k") + assembler.finish())


def _nesting(value: Any) -> int:
    """How deep ``[[[...]]]`` is (each level one list holding the next), walked without
    recursion; -1 when ``value`` is not such a nest."""
    depth = 0
    while type(value) is list:
        depth += 1
        if not value:
            return depth
        if len(value) != 1:
            return -1
        value = value[0]
    return -1


def test_tool_call_args_nested_to_the_depth_limit_do_not_overflow() -> None:
    """Snapshots of the live arguments recursed three frames per level: arguments nested
    400 deep raised RecursionError out of every adapter and the tag protocol."""
    depth = 999
    args = '{"x":' + "[" * depth + "]" * depth + "}"
    reply = f'<action name="f">{args}</action>'
    for events in (
        _tool_call(args, 8),
        _tool_call(args, len(args)),
        merge_events(run_chunks(TagParser(stream_id="s"), [reply])),
        merge_events(run_chunks(TagParser(stream_id="s"), _in_chunks(reply, 8))),
    ):
        assert [type(e) for e in events][:2] == [ActionStarted, ActionComplete]
        done = events[1]
        assert isinstance(done, ActionComplete)
        assert (done.name, list(done.args), _nesting(done.args["x"])) == ("f", ["x"], depth)


def test_lenient_tool_call_malformed_at_its_end_is_invalid_not_raised() -> None:
    """The lenient parser finds ``----`` malformed only at the end: ``end()`` raised
    MalformedJSON out of the adapter instead of reporting the call invalid."""
    for chunk in (1, 4):
        assert _tool_call("----", chunk, lenient=True) == [
            ActionStarted("s:0", 0, "f", action_id="call_1"),
            ActionInvalid(
                "s:0",
                0,
                "f",
                "malformed_json",
                ({"message": "Expecting value", "pos": 0},),
                "----",
                action_id="call_1",
            ),
        ]


def test_repairs_before_a_json_error_are_reported_for_every_chunking() -> None:
    """A repair made in the feed that then failed was dropped: whole, ``''''`` gave no
    repair diagnostic; one character at a time, it did."""
    expected = [
        ActionStarted("s:0", 0, "f", action_id="call_1"),
        Diagnostic("repair", "f: read a single-quoted string", pos=0, text="single_quotes"),
        ActionInvalid(
            "s:0",
            0,
            "f",
            "malformed_json",
            ({"message": "Extra data after the JSON value", "pos": 2},),
            "''''",
            action_id="call_1",
        ),
    ]
    for chunk in (1, 2, 4):
        assert _tool_call("''''", chunk, lenient=True) == expected


# -- prose="hold" with many brackets (each "[" starts a candidate array)


def test_held_prose_with_many_brackets_costs_linear_time() -> None:
    """Every candidate joined all the held prose for its preamble report, even the ones
    then rejected: "[{} " repeated to 50 K characters took 4.9 s, 200 K 97 s."""

    def make(size: int) -> Callable[[], Any]:
        chunks = _in_chunks("[{} " * (size // 4) + ITEM, 8)
        return lambda: run_chunks(InterleavedParser(stream_id="s", prose="hold"), chunks)

    _assert_linear(make, 10_000)


def test_held_prose_is_reported_once_the_array_is_confirmed() -> None:
    reply = "intro [a [ " + ITEM
    expected = [
        "Diagnostic(kind='preamble', message='prose before the array was not shown', pos=0, "
        "text='intro [a [')",
        "TextDelta(text='hi')",
        "StreamDone(reason='complete', actions_complete=0, actions_invalid=0, text_chars=2)",
    ]
    for chunks in ([reply], char_chunks(reply), _in_chunks(reply, 3)):
        events = run_chunks(InterleavedParser(stream_id="s", prose="hold"), chunks)
        assert [repr(e) for e in merge_events(events)] == expected


def _tool_call_run(args: str, chunk: int) -> Callable[[], Any]:
    chunks = _in_chunks(args, chunk)

    def run() -> list[Event]:
        assembler = ToolCallAssembler(stream_id="s")
        events = assembler.start("k", "f", "call_1")
        for piece in chunks:
            events += assembler.args_delta("k", piece)
        return events + assembler.end("k")

    return run


def test_tool_call_text_before_a_value_costs_linear_time() -> None:
    """Argument text that shows no value yet (whitespace, a number in flight) was kept
    by ``unsent += text``: 256 K spaces took 13x the time of 64 K."""
    _assert_linear(lambda size: _tool_call_run(" " * size + "{}", 8), 100_000)
    _assert_linear(lambda size: _tool_call_run("0." + "1" * size, 8), 100_000)


def test_tool_call_root_string_snapshots_are_refreshed_like_containers() -> None:
    """A root string in flight was a new copy of all of it in every ActionArgsDelta:
    O(n^2) time and memory (400 K characters in 8-character chunks: 12 s and gigabytes)."""
    _assert_linear(lambda size: _tool_call_run('"' + "a" * size + '"', 8), 100_000)
    events = _tool_call_run('"' + "ab" * 50_000 + '"', 8)()
    partials = [e.partial for e in events if isinstance(e, ActionArgsDelta)]
    assert len(partials) == 12_501  # one per chunk
    assert len({id(p) for p in partials}) == 660  # a fresh copy only every 1/128 of growth
    assert partials[-1] == "ab" * 50_000  # the last one is whole
    assert all(("ab" * 50_000).startswith(p) for p in partials[::500])
    assert isinstance(events[-1], ActionInvalid) and events[-1].reason == "bad_params"


# -- one-shot parsing of a reply that holds no JSON


def test_loads_of_a_long_whitespace_run_costs_linear_time() -> None:
    """The search for escaped JSON (a regex) tried every position of a whitespace run
    to its end: loads(" " * 32_000) took 0.8 s, 4x that 16x the time."""

    def make(size: int) -> Callable[[], Any]:
        text = " \n" * (size // 2)

        def run() -> str:
            with pytest.raises(MalformedJSON) as caught:
                loads(text)
            return str(caught.value)

        return run

    assert make(10)() == "No JSON value found at position 10"
    _assert_linear(make, 100_000)


def test_escaped_json_is_found_after_whitespace_and_brackets() -> None:
    assert loads_with_repairs('note:  [{\\"a\\": 1}]') == (
        [{"a": 1}],
        [Repair("escaped_json", 7, "read JSON escaped as a string's content")],
    )
    assert loads_with_repairs('x[  \\"a\\"') == (
        "a",
        [Repair("escaped_json", 3, "read JSON escaped as a string's content")],
    )


# -- lone surrogates: JSON's "\ud800" escape decodes to one, UTF-8 cannot encode it


def test_web_encoders_write_a_lone_surrogate_as_an_escape() -> None:
    """Every format raised UnicodeEncodeError (AG-UI: PydanticSerializationError) on a
    text delta holding a lone surrogate, which a model's JSON escape produces."""
    from unspool.web import encode_sse

    reply = '[{"type":"text","content":"a\\ud800b"}]'
    events = run_chunks(InterleavedParser(stream_id="s"), [reply])
    assert events[0] == TextDelta("a\ud800b")
    expected = {
        "unspool": b'data: {"type":"text_delta","text":"a\\ud800b"}\n\n',
        "ai-sdk": b'data: {"type":"text-delta","id":"text-1","delta":"a\\ud800b"}\n\n',
        "ag-ui": b'"delta":"a\\ud800b"}\n\n',
    }
    for name, frame in expected.items():
        body = b"".join(encode_sse(events, format=name))
        assert frame in body, name
        sent = [line for line in body.split(b"\n") if b"a\\ud800b" in line]
        assert len(sent) == 1
        field = "text" if name == "unspool" else "delta"
        assert json.loads(sent[0].removeprefix(b"data: "))[field] == "a\ud800b"


def test_sse_decoder_reads_a_lone_surrogate_in_str_input_for_every_chunking() -> None:
    """``SSEDecoder.feed(str)`` raised UnicodeEncodeError on a lone surrogate."""
    body = "data: a\ud800b\n\ndata: c\n\n"
    for size in (1, 3, len(body)):
        decoder = SSEDecoder()
        messages = [m for piece in _in_chunks(body, size) for m in decoder.feed(piece)]
        assert [m.data for m in messages] == ["a\ufffd\ufffd\ufffdb", "c"]


def test_repair_writes_values_nested_to_the_depth_limit() -> None:
    """``json.dumps`` recursed past Python's limit on a value the parser accepts
    (999 levels): repair raised RecursionError."""
    depth = 999
    assert repair("[" * depth + "]" * depth) == "[" * depth + "]" * depth
    nested = '{"a":' * depth + "NaN" + "}" * depth
    assert repair(nested) == '{"a": ' * depth + "null" + "}" * depth
    expected = "".join("{\n" + " " * (i + 1) + '"a": ' for i in range(depth)) + '"\\ud800"'
    expected += "".join("\n" + " " * i + "}" for i in reversed(range(depth)))
    assert repair('{"a":' * depth + '"\\ud800"' + "}" * depth, indent=1) == expected


# -- stream_model with one long string field (ModelStream.partial re-joined it per chunk)


def test_stream_model_long_string_field_costs_linear_time() -> None:
    """Each partial re-joined the whole field: 1.6 M characters in 8-character chunks took
    33x the time of 400 K. The shown string is now extended in place."""
    pydantic = pytest.importorskip("pydantic")
    from unspool import stream_model

    class Note(pydantic.BaseModel):  # type: ignore[misc,name-defined]
        title: str
        body: str
        tags: list[str] = pydantic.Field(default_factory=list)

    def run(doc: str) -> Callable[[], Any]:
        chunks = _in_chunks(doc, 8)

        def consume() -> Any:
            body = None
            for part in stream_model(Note, chunks):  # each part shown, then let go
                body = len(part.value.body or "")
            return body

        return consume

    field = '{"title": "t", "body": "'
    item = '{"title": "t", "body": "b", "tags": ["'
    parts = stream_model(Note, _in_chunks(field + "ab" * 20 + '"}', 8))
    shown = [p.value.body for p in parts if p.value.body is not None]
    assert shown[-1] == "ab" * 20 and len(shown) > 5
    assert all(b.startswith(a) for a, b in itertools.pairwise(shown))  # only grows
    *_, last = stream_model(Note, _in_chunks(item + "xy" * 20 + '"]}', 3))
    assert last.complete and last.final is not None and last.final.tags == ["xy" * 20]
    _assert_linear(lambda n: run(field + "a" * n + '"}'), 200_000)
    _assert_linear(lambda n: run(item + "a" * n + '"]}'), 200_000)

"""ToolCallAssembler (provider tool-call deltas -> action events) and EventMerger."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tests.support.hypothesis_profiles import examples
from tests.support.replay import collect
from unspool.actions._registry import ActionRegistry
from unspool.core._errors import MalformedJSON
from unspool.core._jsonstream import JsonStream, parse_partial
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Diagnostic,
    Event,
    FinishReason,
    StreamDone,
    TextDelta,
)
from unspool.protocols._emitter import ActionEmitter
from unspool.protocols._toolcalls import ToolCallAssembler
from unspool.sources._merge import EventMerger

INCOMPLETE = ({"message": "the arguments ended before their JSON value was complete"},)
CUT = ({"message": "the stream was cut off inside this tool call"},)


def test_one_call_streams_live_partial_args() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    assert tools.start(0, "search", "call_1") == [ActionStarted("stream:0", 0, "search", "call_1")]
    assert collect(tools.args_delta(0, '{"q": "hel')) == [
        ActionArgsDelta("stream:0", 0, {"q": "hel"}, '{"q": "hel')
    ]
    assert collect(tools.args_delta(0, 'lo", "n": 1')) == [
        ActionArgsDelta("stream:0", 0, {"q": "hello"}, 'lo", "n": 1')
    ]
    assert tools.is_open(0) and not tools.ready(0)
    assert collect(tools.args_delta(0, "}")) == [
        ActionArgsDelta("stream:0", 0, {"q": "hello", "n": 1}, "}")
    ]
    assert tools.ready(0)
    assert tools.end(0) == [
        ActionComplete("stream:0", 0, "search", {"q": "hello", "n": 1}, "call_1")
    ]
    assert tools.end(0) == []
    assert tools.finish() == [] and not tools.truncated


def test_text_before_a_visible_value_rides_on_the_next_delta() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    tools.start("k", "f")
    assert tools.args_delta("k", "  ") == []
    assert tools.args_delta("k", "") == []
    assert collect(tools.args_delta("k", "{}")) == [ActionArgsDelta("stream:0", 0, {}, "  {}")]


def test_every_split_of_the_arguments_gives_the_same_call() -> None:
    raw = '{"city": "東京 🌸", "days": [1, 2.5, {"x": null}], "ok": true, "s": "a\\"b\\u00e9"}'
    for i in range(len(raw) + 1):
        tools = ToolCallAssembler(stream_id="stream")
        events: list[Event] = [*tools.start(3, "f", None)]
        events += tools.args_delta(3, raw[:i]) + tools.args_delta(3, raw[i:]) + tools.end(3)
        deltas = [e for e in events if isinstance(e, ActionArgsDelta)]
        assert "".join(d.delta or "" for d in deltas) == raw, i
        assert events[-1] == ActionComplete(
            "stream:0",
            0,
            "f",
            {"city": "東京 🌸", "days": [1, 2.5, {"x": None}], "ok": True, "s": 'a"bé'},
        )


def test_empty_arguments_are_an_empty_object() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    tools.start(0, "ping")
    assert tools.end(0) == [ActionComplete("stream:0", 0, "ping", {})]
    tools.start(1, "ping")
    tools.args_delta(1, " \n")
    assert tools.end(1) == [ActionComplete("stream:1", 1, "ping", {})]


def test_malformed_arguments() -> None:
    with pytest.raises(MalformedJSON) as err:
        parse_partial('{"a": 1,}')
    tools = ToolCallAssembler(stream_id="stream")
    tools.start(0, "f", "c0")
    assert collect(tools.args_delta(0, '{"a": 1,')) == [
        ActionArgsDelta("stream:0", 0, {"a": 1}, '{"a": 1,')
    ]
    assert tools.args_delta(0, "}") == []
    assert tools.args_delta(0, " more") == []
    assert not tools.ready(0) and not tools.incomplete(0)
    errors = ({"message": err.value.msg, "pos": err.value.pos},)
    assert tools.end(0) == [
        ActionInvalid("stream:0", 0, "f", "malformed_json", errors, '{"a": 1,} more', "c0")
    ]


def test_arguments_that_end_too_early() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    tools.start(0, "f")
    tools.args_delta(0, '{"a": "x')
    assert tools.incomplete(0)
    assert tools.end(0) == [
        ActionInvalid("stream:0", 0, "f", "malformed_json", INCOMPLETE, '{"a": "x')
    ]


@pytest.mark.parametrize(("raw", "kind"), [("[1, 2]", "list"), ('"s"', "str"), ("42", "int")])
def test_arguments_that_are_not_an_object(raw: str, kind: str) -> None:
    tools = ToolCallAssembler(stream_id="stream")
    tools.start(0, "f")
    tools.args_delta(0, raw)
    errors = ({"message": f"the arguments are a JSON {kind}, not an object"},)
    assert tools.end(0) == [ActionInvalid("stream:0", 0, "f", "bad_params", errors, raw)]


def test_a_call_without_a_name() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    assert tools.start(0, None, "call_x") == []
    assert tools.args_delta(0, '{"a": 1}') == []
    errors = ({"message": "the tool call has no name"},)
    assert tools.end(0) == [
        ActionInvalid("stream:0", 0, None, "missing_name", errors, '{"a": 1}', "call_x")
    ]
    tools.start(1, "")
    assert tools.finish() == [ActionInvalid("stream:1", 1, None, "missing_name", errors, "")]
    assert not tools.truncated


def test_deltas_for_calls_that_are_not_open_are_reported() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    assert tools.args_delta(5, '{"a"') == [
        Diagnostic(
            "orphan_tool_delta", "argument text for tool call 5, which is not open", text='{"a"'
        )
    ]
    tools.start(5, "f")
    assert tools.start(5, "g") == [
        Diagnostic("duplicate_tool_call", "tool call 5 started twice", text="g")
    ]
    tools.args_delta(5, "{}")
    tools.end(5)
    assert tools.args_delta(5, " \n") == []
    assert tools.args_delta(5, "x") == [
        Diagnostic("late_tool_delta", "argument text for tool call 5, which is not open", text="x")
    ]


@pytest.mark.parametrize(
    ("reason", "why"), [("length", "cut off"), ("abort", "aborted"), (None, "cut off")]
)
def test_finish_cuts_off_the_open_calls(reason: FinishReason | None, why: str) -> None:
    tools = ToolCallAssembler(stream_id="s")
    tools.start("a", "f", "ca")
    tools.start("b", "g", "cb")
    tools.args_delta("b", '{"x": [1')
    tools.args_delta("a", '{"y": "z"}')
    errors = ({"message": f"the stream was {why} inside this tool call"},)
    assert tools.finish(reason) == [
        ActionInvalid("s:0", 0, "f", "truncated", errors, '{"y": "z"}', "ca"),
        ActionInvalid("s:1", 1, "g", "truncated", errors, '{"x": [1', "cb"),
    ]
    assert tools.truncated
    assert tools.emitter.done("truncated") == StreamDone("truncated", 0, 2, 0)


def test_parallel_calls_interleaved() -> None:
    tools = ToolCallAssembler(stream_id="stream")
    events = tools.start(0, "a") + tools.start(1, "b")
    for key, text in [(1, '{"n": '), (0, '{"m": "x'), (1, "2}"), (0, '"}')]:
        events += collect(tools.args_delta(key, text))
    events += tools.end(1) + tools.end(0)
    assert events == [
        ActionStarted("stream:0", 0, "a"),
        ActionStarted("stream:1", 1, "b"),
        ActionArgsDelta("stream:1", 1, {}, '{"n": '),
        ActionArgsDelta("stream:0", 0, {"m": "x"}, '{"m": "x'),
        ActionArgsDelta("stream:1", 1, {"n": 2}, "2}"),
        ActionArgsDelta("stream:0", 0, {"m": "x"}, '"}'),
        ActionComplete("stream:1", 1, "b", {"n": 2}),
        ActionComplete("stream:0", 0, "a", {"m": "x"}),
    ]


def test_lenient_arguments_report_each_repair() -> None:
    core = JsonStream(lenient=True)
    core.feed("{a: 1,}")
    core.finish()
    repairs = [Diagnostic("repair", f"f: {r.message}", r.pos, r.kind) for r in core.repairs]
    assert len(repairs) == 2
    tools = ToolCallAssembler(lenient=True, stream_id="stream")
    tools.start(0, "f")
    events = tools.args_delta(0, "{a: 1") + tools.args_delta(0, ",}") + tools.end(0)
    assert [e for e in events if isinstance(e, Diagnostic)] == repairs
    assert events[-1] == ActionComplete("stream:0", 0, "f", {"a": 1})
    strict = ToolCallAssembler(stream_id="stream")
    strict.start(0, "f")
    strict.args_delta(0, "{a: 1,}")
    assert strict.end(0)[0].reason == "malformed_json"  # type: ignore[union-attr]


class Weather(BaseModel):
    city: str
    days: int = 1


def test_registry_validates_the_arguments() -> None:
    registry = ActionRegistry()
    registry.register("weather", model=Weather)
    tools = ToolCallAssembler(registry=registry, stream_id="stream")
    tools.start(0, "weather")
    tools.args_delta(0, '{"city": "Oslo", "days": 3}')
    assert tools.end(0) == [ActionComplete("stream:0", 0, "weather", Weather(city="Oslo", days=3))]
    tools.start(1, "weather")
    tools.args_delta(1, '{"days": "x"}')
    [bad] = tools.end(1)
    assert isinstance(bad, ActionInvalid)
    assert (bad.reason, bad.raw, sorted(e["path"] for e in bad.errors)) == (
        "schema",
        '{"days": "x"}',
        [["city"], ["days"]],
    )


# ------------------------------------------------------------------ EventMerger


def test_merger_shares_the_tag_parsers_emitter() -> None:
    merger = EventMerger("tags", stream_id="r")
    events = merger.text('I will <action name="note">{"t": 1}</action>')
    events += merger.tool_start("k", "native", "call_1")
    events += merger.tool_args("k", "{}")
    events += merger.tool_end("k")
    events += merger.text(" done")
    events += merger.finish("stop")
    assert events == [
        TextDelta("I will "),
        ActionStarted("r:0", 0, "note"),
        ActionArgsDelta("r:0", 0, {"t": 1}, '{"t": 1}'),
        ActionComplete("r:0", 0, "note", {"t": 1}),
        ActionStarted("r:1", 1, "native", "call_1"),
        ActionArgsDelta("r:1", 1, {}, "{}"),
        ActionComplete("r:1", 1, "native", {}, "call_1"),
        TextDelta(" done"),
        StreamDone("complete", 2, 0, 12),
    ]
    assert merger.finish() == []


class _Echo:
    """A parser of the common shape with no ``emitter`` attribute."""

    def __init__(self) -> None:
        self.emitter_like = ActionEmitter("mine")

    def feed(self, chunk: str | bytes) -> list[Event]:
        text = chunk if isinstance(chunk, str) else chunk.decode()
        start = self.emitter_like.start("echo")
        return [TextDelta(text), start, self.emitter_like.complete(start.index, {"t": text})]

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        return [StreamDone("complete", 1, 0, 2)]


def test_merger_without_a_shared_emitter_uses_its_own_ids() -> None:
    merger = EventMerger(_Echo(), stream_id="s")
    events = merger.text("hi") + merger.tool_start(0, "f", None) + merger.tool_end(0)
    events += merger.finish()
    assert events == [
        TextDelta("hi"),
        ActionStarted("mine:0", 0, "echo"),
        ActionComplete("mine:0", 0, "echo", {"t": "hi"}),
        ActionStarted("s/tools:0", 0, "f"),
        ActionComplete("s/tools:0", 0, "f", {}),
        StreamDone("complete", 2, 0, 2),
    ]


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("length", ActionInvalid("stream:0", 0, "f", "truncated", CUT, '{"a": "b')),
        ("stop", ActionInvalid("stream:0", 0, "f", "malformed_json", INCOMPLETE, '{"a": "b')),
    ],
)
def test_merger_waits_for_the_stop_reason_of_a_call_closed_early(
    reason: FinishReason, expected: Event
) -> None:
    merger = EventMerger(stream_id="stream")
    merger.tool_start(0, "f", None)
    merger.tool_args(0, '{"a": "b')
    assert merger.tool_stop(0) == []
    done = "truncated" if reason == "length" else "complete"
    assert merger.finish(reason) == [expected, StreamDone(done, 0, 1, 0)]


def test_merger_fail_and_closed_state() -> None:
    merger = EventMerger(stream_id="stream")
    merger.text("a")
    merger.tool_start(0, "f", None)
    events = merger.fail("boom", "OSError")
    assert events[0].message == "boom"  # type: ignore[union-attr]
    assert events[1:] == [
        ActionInvalid(
            "stream:0",
            0,
            "f",
            "truncated",
            ({"message": "the stream was aborted inside this tool call"},),
            "",
        ),
        StreamDone("error", 0, 1, 1),
    ]
    assert merger.text("b") == [] and merger.reasoning("r") == [] and merger.finish() == []
    assert merger.note("k", "m") == [] and merger.tool_start(1, "g", None) == []


def test_merger_rejects_a_second_registry_for_a_parser_instance() -> None:
    from unspool.protocols._tags import TagParser

    with pytest.raises(ValueError, match="registry"):
        EventMerger(TagParser(stream_id="stream"), registry=ActionRegistry())
    with pytest.raises(ValueError, match="unknown protocol"):
        EventMerger("xml")  # type: ignore[arg-type]


# ------------------------------------------------------------------ property: any chunking

_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=examples(150), deadline=None)
@given(
    args=st.dictionaries(st.text(max_size=6), _values, max_size=5),
    ascii_only=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_any_chunking_of_any_arguments(
    args: dict[str, object], ascii_only: bool, cuts: list[int]
) -> None:
    raw = json.dumps(args, ensure_ascii=ascii_only)
    edges = [0, *sorted(c for c in cuts if c < len(raw)), len(raw)]
    tools = ToolCallAssembler(stream_id="stream")
    events: list[Event] = [*tools.start("k", "f", None)]
    for a, b in itertools.pairwise(edges):
        events += tools.args_delta("k", raw[a:b])
    events += tools.end("k")
    deltas = [e for e in events if isinstance(e, ActionArgsDelta)]
    assert "".join(d.delta or "" for d in deltas) == raw
    assert events[-1] == ActionComplete("stream:0", 0, "f", args)

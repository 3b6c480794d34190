"""JSON lines: every record's dict, the line encoding, detached partial args."""

from __future__ import annotations

import io
import json

from unspool.cli.records import (
    JsonDone,
    JsonLinesWriter,
    SchemaCheck,
    detach,
    dumps_line,
    record_to_dict,
)
from unspool.core.errors import UNSET
from unspool.core.path_events import Repair, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.events import ActionArgsDelta, StreamDone, TextDelta


def test_path_events_as_dicts() -> None:
    assert record_to_dict(ValueStart(("a", 0), "string")) == {
        "type": "value_start",
        "path": ["a", 0],
        "kind": "string",
    }
    assert record_to_dict(StringDelta(("a", 0), "hé")) == {
        "type": "string_delta",
        "path": ["a", 0],
        "text": "hé",
    }
    assert record_to_dict(ValueEnd((), {"a": [1]})) == {
        "type": "value_end",
        "path": [],
        "value": {"a": [1]},
    }
    assert record_to_dict(Repair("comment", 9, "skipped a comment")) == {
        "type": "repair",
        "kind": "comment",
        "pos": 9,
        "message": "skipped a comment",
    }
    assert record_to_dict(Skipped("preamble", 0, "Sure: ")) == {
        "type": "skipped",
        "kind": "preamble",
        "pos": 0,
        "text": "Sure: ",
    }


def test_done_validation_and_events_as_dicts() -> None:
    assert record_to_dict(JsonDone({"a": None}, True)) == {
        "type": "done",
        "value": {"a": None},
        "complete": True,
    }
    assert record_to_dict(JsonDone(None, True)) == {"type": "done", "value": None, "complete": True}
    assert record_to_dict(JsonDone(UNSET, False)) == {"type": "done", "complete": False}
    check = SchemaCheck(False, ({"path": ["a"], "message": "bad", "type": "type"},))
    assert record_to_dict(check) == {
        "type": "validation",
        "ok": False,
        "errors": [{"path": ["a"], "message": "bad", "type": "type"}],
    }
    assert record_to_dict(TextDelta("hi")) == {"type": "text_delta", "text": "hi"}


def test_dumps_line_is_utf8_json_with_a_newline() -> None:
    assert dumps_line({"text": "café ☕"}) == '{"text": "café ☕"}\n'.encode()


def test_dumps_line_spells_non_finite_floats_as_strings() -> None:
    line = dumps_line({"v": [float("nan"), float("inf"), -float("inf"), 1.5]})
    assert line == b'{"v": ["NaN", "Infinity", "-Infinity", 1.5]}\n'


def test_dumps_line_escapes_a_lone_surrogate() -> None:
    line = dumps_line({"t": "a\ud800b"})
    assert line == b'{"t": "a\\ud800b"}\n'
    assert json.loads(line) == {"t": "a\ud800b"}


def test_writer_writes_and_flushes_each_line() -> None:
    out = io.BytesIO()
    writer = JsonLinesWriter(out)
    writer.write(TextDelta("a"))
    assert out.getvalue() == b'{"type": "text_delta", "text": "a"}\n'
    writer.write(StreamDone("complete", 0, 0, 1))
    assert out.getvalue().splitlines()[1] == (
        b'{"type": "stream_done", "reason": "complete", "actions_complete": 0, '
        b'"actions_invalid": 0, "text_chars": 1}'
    )


def test_detach_copies_partial_args_and_keeps_other_events() -> None:
    tags = ["a"]
    live: dict[str, object] = {"city": "Pa", "tags": tags}
    text = TextDelta("x")
    delta = ActionArgsDelta("s:0", 0, live, '{"city": "Pa')
    out = detach([text, delta])
    live["city"] = "Paris"
    tags.append("b")
    assert out[0] is text
    assert out[1] == ActionArgsDelta("s:0", 0, {"city": "Pa", "tags": ["a"]}, '{"city": "Pa')

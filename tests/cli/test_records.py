"""JSON lines: every record's dict, the line encoding, partial args kept as they were."""

from __future__ import annotations

import io
import json

from unspool.cli._parsers import make_stream_parser
from unspool.cli._records import (
    JsonDone,
    JsonLinesWriter,
    SchemaCheck,
    dumps_line,
    record_to_dict,
)
from unspool.core._errors import UNSET
from unspool.core._path_events import Repair, Skipped, StringDelta, ValueEnd, ValueStart
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


def test_records_keep_each_partial_as_it_was_when_emitted() -> None:
    parser = make_stream_parser("tags", stream_id="s")
    records = []
    for chunk in ['<action name="go">{"city": "Pa', 'ris", "tags": ["a"', ', "b"]}</action>']:
        records += parser.feed(chunk)
    records += parser.finish()
    partials = [r.partial for r in records if isinstance(r, ActionArgsDelta)]
    assert partials == [
        {"city": "Pa"},
        {"city": "Paris", "tags": ["a"]},
        {"city": "Paris", "tags": ["a", "b"]},
    ]

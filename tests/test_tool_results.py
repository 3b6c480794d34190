"""The result builders on hand-made turns: every outcome's wording and each format's shape."""

from __future__ import annotations

import pydantic
import pytest

from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Event,
    StreamDone,
    TextDelta,
)
from unspool.sources.providers import tool_results as tr


class Point(pydantic.BaseModel):
    x: int
    y: int


TURN: list[Event] = [
    TextDelta("On it."),
    ActionComplete("s:0", 0, "move", Point(x=1, y=2), "call_0"),
    ActionResult("s:0", 0, "move", "moved"),
    ActionInvalid(
        "s:1",
        1,
        "move",
        "schema",
        (
            {"path": ["x"], "message": "Input should be a valid integer", "type": "int_parsing"},
            {"path": ["items", 0, "qty"], "message": "Field required", "type": "missing"},
            {"path": [], "message": "too many fields", "type": "x"},
        ),
        '{"x": "a"}',
        "call_1",
    ),
    ActionInvalid(
        "s:2",
        2,
        "fly",
        "unknown_action",
        ({"message": "unknown action 'fly' (known: 'move')"},),
        "{}",
        None,
    ),
    ActionInvalid(
        "s:3",
        3,
        "move",
        "malformed_json",
        ({"message": "Expecting ','", "pos": 5},),
        '{"x" 1',
        "call_3",
    ),
    ActionComplete("s:4", 4, "stats", {}, "call_4"),
    ActionResult("s:4", 4, "stats", {"n": [1, "é"]}),
    ActionComplete("s:5", 5, "boom", {}, "call_5"),
    ActionFailed("s:5", 5, "boom", "disk full", "OSError"),
    StreamDone("complete", 3, 3, 6),
]


def test_read_turn_words_each_outcome() -> None:
    turn = tr.read_turn(TURN)
    assert turn.text == "On it."
    assert [(c.call_id, c.name, c.args, c.is_error) for c in turn.calls] == [
        ("call_0", "move", {"x": 1, "y": 2}, False),
        ("call_1", "move", {"x": "a"}, True),
        ("s:2", "fly", {}, True),  # no provider id: unspool's id answers it
        ("call_3", "move", {}, True),
        ("call_4", "stats", {}, False),
        ("call_5", "boom", {}, True),
    ]
    texts = [c.text for c in turn.calls]
    assert texts[0] == "moved"
    assert texts[1] == (
        "Error: the arguments of move are invalid. Fix these and call it again:\n"
        "- x: Input should be a valid integer\n"
        "- items[0].qty: Field required\n"
        "- (the arguments): too many fields"
    )
    assert (
        texts[2] == "Error: unknown action 'fly' (known: 'move'). Call one of the available tools."
    )
    assert texts[3] == (
        "Error: the arguments of move are not a valid JSON object (Expecting ','). "
        "Call it again with one JSON object."
    )
    assert texts[4] == '{"n": [1, "é"]}'
    assert texts[5] == "Error: boom failed (OSError): disk full"
    assert turn.calls[3].raw_args == '{"x" 1'  # what the model sent, for formats that echo text


def test_a_call_without_an_outcome_is_an_error() -> None:
    with pytest.raises(tr.MissingOutcome, match="no result"):
        tr.read_turn([ActionComplete("s:0", 0, "move", {}, "c")])


def test_truncated_and_other_reasons() -> None:
    turn = tr.read_turn(
        [
            ActionInvalid("s:0", 0, "w", "truncated", (), '{"a": "b', "c0"),
            ActionInvalid(
                "s:1", 1, None, "missing_name", ({"message": "the tool call has no name"},)
            ),
        ]
    )
    assert [c.text for c in turn.calls] == [
        "Error: the call to w was cut off before its arguments were complete.",
        "Error: the call to the tool was not run (missing_name): the tool call has no name",
    ]


def test_formats_of_a_turn_without_calls() -> None:
    events = [TextDelta("Hello."), StreamDone("complete", 0, 0, 6)]
    assert tr.openai_chat_results(events) == [{"role": "assistant", "content": "Hello."}]
    assert tr.openai_responses_results(events) == [
        {"type": "message", "role": "assistant", "content": "Hello."}
    ]
    assert tr.anthropic_results(events) == [
        {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}
    ]
    assert tr.gemini_results(events) == [{"role": "model", "parts": [{"text": "Hello."}]}]
    assert tr.bedrock_results(events) == [{"role": "assistant", "content": [{"text": "Hello."}]}]
    assert tr.ollama_results(events) == [{"role": "assistant", "content": "Hello."}]


def test_gemini_and_bedrock_results_keep_structured_outputs() -> None:
    events = TURN[6:8]  # stats -> {"n": [1, "é"]}
    assert tr.gemini_results(events)[1] == {
        "role": "user",
        "parts": [
            {
                "function_response": {
                    "name": "stats",
                    "id": "call_4",
                    "response": {"output": {"n": [1, "é"]}},
                }
            }
        ],
    }
    assert tr.bedrock_results(events)[1] == {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "call_4", "content": [{"json": {"n": [1, "é"]}}]}}
        ],
    }
    failed = tr.bedrock_results(TURN[8:10])[1]["content"][0]["toolResult"]
    assert failed == {
        "toolUseId": "call_5",
        "content": [{"text": "Error: boom failed (OSError): disk full"}],
        "status": "error",
    }
    assert tr.anthropic_results(TURN[8:10])[1]["content"][0]["is_error"] is True

"""The result builders on hand-made turns: every outcome's wording and each format's shape."""

from __future__ import annotations

import json
from typing import get_args, get_type_hints

import pydantic
import pytest
from openai.types.responses import ResponseInputItemParam

from tests.support.replay import wire
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Event,
    ReasoningDelta,
    ReasoningSignature,
    StreamDone,
    TextDelta,
)
from unspool.sources.providers import _tool_results as tr
from unspool.sources.providers._openai import OpenAIDecoder


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


# ------------------------------------------------------------------ Responses items by kind


def _call(
    index: int,
    name: str,
    args: dict[str, object],
    call_id: str,
    kind: str | None,
    item_id: str,
    outcome: str = "ok",
    result: object = None,
) -> list[Event]:
    """The events of one Responses call: its start (with the item's attributes), its
    completion and its outcome (``ok`` with ``result``, ``failed`` or ``invalid``)."""
    aid = f"r:{index}"
    attributes = {"item_type": kind, "item_id": item_id} if kind else {}
    events: list[Event] = [ActionStarted(aid, index, name, call_id, attributes)]
    if outcome == "invalid":
        error = {"message": f"unknown action {name!r}"}
        raw = json.dumps(args)
        return [*events, ActionInvalid(aid, index, name, "unknown_action", (error,), raw, call_id)]
    events.append(ActionComplete(aid, index, name, args, call_id, attributes))
    if outcome == "failed":
        return [*events, ActionFailed(aid, index, name, "no display", "RuntimeError")]
    return [*events, ActionResult(aid, index, name, result)]


LS = {"type": "exec", "command": ["ls"], "env": {}}
SHELL = {"commands": ["ls", "sleep 9"], "timeout_ms": 5000, "max_output_length": 4096}
PATCH = {"type": "update_file", "path": "a.py", "diff": "@@\n-a\n+b\n"}
CLICK = {"type": "click", "button": "left", "x": 1, "y": 2}
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": True,
}
APPROVAL = {"arguments": '{"q": "é"}', "name": "ask", "server_label": "wiki"}

RESPONSES_TURN: list[Event] = [
    TextDelta("Working."),
    *_call(0, "get_weather", {"city": "Paris"}, "call_f", None, "", result={"temp_c": 21}),
    *_call(1, "run_sql", {"input": "SELECT 1;"}, "call_c", "custom_tool_call", "ctc_1", result="1"),
    *_call(2, "local_shell", {"action": LS}, "call_l", "local_shell_call", "lsh_2", result="a\n"),
    *_call(
        3,
        "shell",
        {"action": SHELL},
        "call_s",
        "shell_call",
        "sh_3",
        result=[{"stdout": "a\n", "stderr": "", "exit_code": 0}, {"stderr": "", "timed_out": True}],
    ),
    *_call(
        4, "apply_patch", {"operation": PATCH}, "call_p", "apply_patch_call", "apc_4", result="ok"
    ),
    *_call(
        5,
        "computer",
        {"action": CLICK, "pending_safety_checks": []},
        "call_k",
        "computer_call",
        "cu_5",
        result={"image_url": "data:image/png;base64,AAAA"},
    ),
    *_call(
        6,
        "tool_search",
        {"arguments": {"query": "weather"}, "execution": "client"},
        "call_t",
        "tool_search_call",
        "ts_6",
        result=[WEATHER_TOOL],
    ),
    *_call(
        7,
        "mcp_approval_request",
        APPROVAL,
        "mcpr_7",
        "mcp_approval_request",
        "mcpr_7",
        result={"approve": False, "reason": "not now"},
    ),
    StreamDone("complete", 8, 0, 8),
]


def _sdk_valid(items: list[dict[str, object]]) -> None:
    """Each item is one of the openai SDK's ``ResponseInputItemParam`` types (pydantic
    validates the union, nested types included), with no key its type does not have."""
    adapter = pydantic.TypeAdapter(ResponseInputItemParam)
    members = {}
    for member in get_args(ResponseInputItemParam):
        literal = get_type_hints(member)["type"]
        for kind in get_args(literal):
            members.setdefault(kind, []).append(member)
    for item in items:
        adapter.validate_python(item)  # raises for a shape the SDK does not have
        known = [m.__required_keys__ | m.__optional_keys__ for m in members[item["type"]]]
        assert any(set(item) <= keys for keys in known), item


def test_responses_results_answer_each_item_with_its_own_output() -> None:
    items = tr.openai_responses_results(RESPONSES_TURN)
    assert items == [
        {"type": "message", "role": "assistant", "content": "Working."},
        {
            "type": "function_call",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "call_id": "call_f",
        },
        {
            "type": "custom_tool_call",
            "name": "run_sql",
            "input": "SELECT 1;",
            "call_id": "call_c",
            "id": "ctc_1",
        },
        {
            "type": "local_shell_call",
            "action": LS,
            "status": "completed",
            "call_id": "call_l",
            "id": "lsh_2",
        },
        {
            "type": "shell_call",
            "action": SHELL,
            "status": "completed",
            "call_id": "call_s",
            "id": "sh_3",
        },
        {
            "type": "apply_patch_call",
            "operation": PATCH,
            "status": "completed",
            "call_id": "call_p",
            "id": "apc_4",
        },
        {
            "type": "computer_call",
            "action": CLICK,
            "pending_safety_checks": [],
            "status": "completed",
            "call_id": "call_k",
            "id": "cu_5",
        },
        {
            "type": "tool_search_call",
            "arguments": {"query": "weather"},
            "execution": "client",
            "status": "completed",
            "call_id": "call_t",
            "id": "ts_6",
        },
        {"type": "mcp_approval_request", "id": "mcpr_7", **APPROVAL},
        {"type": "function_call_output", "call_id": "call_f", "output": '{"temp_c": 21}'},
        {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1"},
        {"type": "local_shell_call_output", "id": "call_l", "output": "a\n"},
        {
            "type": "shell_call_output",
            "call_id": "call_s",
            "output": [
                {"stdout": "a\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
                {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}},
            ],
            "max_output_length": 4096,
        },
        {
            "type": "apply_patch_call_output",
            "call_id": "call_p",
            "status": "completed",
            "output": "ok",
        },
        {
            "type": "computer_call_output",
            "call_id": "call_k",
            "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"},
        },
        {
            "type": "tool_search_output",
            "call_id": "call_t",
            "execution": "client",
            "status": "completed",
            "tools": [WEATHER_TOOL],
        },
        {
            "type": "mcp_approval_response",
            "approval_request_id": "mcpr_7",
            "approve": False,
            "reason": "not now",
        },
    ]
    _sdk_valid(items)


def test_responses_failures_per_item_kind() -> None:
    failed = "Error: {} failed (RuntimeError): no display"
    events = [
        *_call(0, "run_sql", {"input": "x"}, "call_c", "custom_tool_call", "ctc_0", "failed"),
        *_call(1, "local_shell", {"action": LS}, "call_l", "local_shell_call", "lsh_1", "failed"),
        *_call(2, "shell", {"action": SHELL}, "call_s", "shell_call", "sh_2", "failed"),
        *_call(
            3, "apply_patch", {"operation": PATCH}, "call_p", "apply_patch_call", "a3", "failed"
        ),
        *_call(4, "computer", {"action": CLICK}, "call_k", "computer_call", "cu_4", "failed"),
        *_call(
            5, "tool_search", {"arguments": {}}, "call_t", "tool_search_call", "ts_5", "invalid"
        ),
        *_call(6, "mcp_approval_request", APPROVAL, "m6", "mcp_approval_request", "m6", "failed"),
    ]
    items = tr.openai_responses_results(events)
    outputs = items[7:]
    unknown = "Error: unknown action 'tool_search'. Call one of the available tools."
    assert outputs == [
        {
            "type": "custom_tool_call_output",
            "call_id": "call_c",
            "output": failed.format("run_sql"),
        },
        {"type": "local_shell_call_output", "id": "call_l", "output": failed.format("local_shell")},
        {
            "type": "shell_call_output",
            "call_id": "call_s",
            "output": [
                {
                    "stdout": "",
                    "stderr": failed.format("shell"),
                    "outcome": {"type": "exit", "exit_code": 1},
                }
            ],
            "max_output_length": 4096,
        },
        {
            "type": "apply_patch_call_output",
            "call_id": "call_p",
            "status": "failed",
            "output": failed.format("apply_patch"),
        },
        {
            "type": "computer_call_output",
            "call_id": "call_k",
            "output": {"type": "computer_screenshot"},
        },
        {
            "type": "tool_search_output",
            "call_id": "call_t",
            "execution": "client",
            "status": "incomplete",
            "tools": [],
        },
        {
            "type": "mcp_approval_response",
            "approval_request_id": "m6",
            "approve": False,
            "reason": failed.format("mcp_approval_request"),
        },
        # no place for text in these two outputs: the model reads it in a message
        {"type": "message", "role": "user", "content": failed.format("computer")},
        {"type": "message", "role": "user", "content": unknown},
    ]
    _sdk_valid(items)


@pytest.mark.parametrize(
    ("result", "approve"),
    [(True, True), (False, False), ({"approve": True}, True), ("yes", True), (None, False)],
)
def test_an_mcp_approval_result_approves_or_denies(result: object, approve: bool) -> None:
    events = _call(
        0, "mcp_approval_request", APPROVAL, "m0", "mcp_approval_request", "m0", result=result
    )
    items = tr.openai_responses_results(events)
    assert items[1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "m0",
        "approve": approve,
    }
    _sdk_valid(items)


def test_shell_and_patch_results_in_other_shapes() -> None:
    shell = _call(
        0,
        "shell",
        {"action": {"commands": ["ls"]}},
        "call_s",
        "shell_call",
        "sh_0",
        result={"stdout": "a\n", "stderr": "w", "outcome": {"type": "exit", "exit_code": 2}},
    )
    plain = _call(
        1, "shell", {"action": {"commands": ["ls"]}}, "c1", "shell_call", "sh_1", result=7
    )
    patch = _call(
        2,
        "apply_patch",
        {"operation": PATCH},
        "call_p",
        "apply_patch_call",
        "apc_2",
        result={"status": "failed", "output": "a.py does not exist"},
    )
    items = tr.openai_responses_results([*shell, *plain, *patch])
    assert items[3:] == [
        {
            "type": "shell_call_output",
            "call_id": "call_s",
            "output": [
                {"stdout": "a\n", "stderr": "w", "outcome": {"type": "exit", "exit_code": 2}}
            ],
        },
        {
            "type": "shell_call_output",
            "call_id": "c1",
            "output": [{"stdout": "7", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
        },
        {
            "type": "apply_patch_call_output",
            "call_id": "call_p",
            "status": "failed",
            "output": "a.py does not exist",
        },
    ]
    _sdk_valid(items)


def test_a_namespaced_function_call_is_echoed_with_its_namespace() -> None:
    events: list[Event] = [
        ActionStarted("r:0", 0, "get_weather", "call_f", {"namespace": "meteo"}),
        ActionComplete("r:0", 0, "get_weather", {"city": "Paris"}, "call_f"),
        ActionResult("r:0", 0, "get_weather", "sunny"),
    ]
    items = tr.openai_responses_results(events)
    assert items == [
        {
            "type": "function_call",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "call_id": "call_f",
            "namespace": "meteo",
        },
        {"type": "function_call_output", "call_id": "call_f", "output": "sunny"},
    ]
    _sdk_valid(items)


def test_items_decoded_from_a_stream_get_their_own_outputs() -> None:
    """Through the Responses decoder: each client-run item's attributes lead the builder
    to its own output item (the computer call and the client tool search included)."""
    screen = {"type": "screenshot"}
    check = {"id": "sc_1", "code": "malicious_instructions", "message": "Careful."}
    items = [
        wire.Item(
            {
                "type": "computer_call",
                "id": "cu_0",
                "call_id": "call_K",
                "action": screen,
                "pending_safety_checks": [check],
            }
        ),
        wire.Item(
            {
                "type": "tool_search_call",
                "id": "ts_1",
                "call_id": "call_T",
                "execution": "client",
                "arguments": {"query": "weather"},
            }
        ),
        wire.Item(
            {"type": "custom_tool_call", "id": "ctc_2", "call_id": "c2", "name": "sql"}, ["é"]
        ),
    ]
    decoder = OpenAIDecoder(stream_id="d")
    events: list[Event] = []
    for payload in wire.response_events(items):
        events += list(decoder.feed(payload))
    events += decoder.finish()
    results = {
        "computer": {
            "image_url": "https://example.org/s.png",
            "acknowledged_safety_checks": [check],
        },
        "tool_search": {"tools": [WEATHER_TOOL]},
        "sql": "0 rows",
    }
    done = [e for e in events if isinstance(e, ActionComplete)]
    assert [(e.name, dict(e.attributes)) for e in done] == [
        ("computer", {"item_type": "computer_call", "item_id": "cu_0"}),
        ("tool_search", {"item_type": "tool_search_call", "item_id": "ts_1"}),
        ("sql", {"item_type": "custom_tool_call", "item_id": "ctc_2"}),
    ]
    events += [ActionResult(e.id, e.index, e.name, results[e.name]) for e in done]
    built = tr.openai_responses_results(events)
    assert built == [
        {
            "type": "computer_call",
            "action": screen,
            "pending_safety_checks": [check],
            "status": "completed",
            "call_id": "call_K",
            "id": "cu_0",
        },
        {
            "type": "tool_search_call",
            "arguments": {"query": "weather"},
            "execution": "client",
            "status": "completed",
            "call_id": "call_T",
            "id": "ts_1",
        },
        {"type": "custom_tool_call", "name": "sql", "input": "é", "call_id": "c2", "id": "ctc_2"},
        {
            "type": "computer_call_output",
            "call_id": "call_K",
            "acknowledged_safety_checks": [check],
            "output": {"type": "computer_screenshot", "image_url": "https://example.org/s.png"},
        },
        {
            "type": "tool_search_output",
            "call_id": "call_T",
            "execution": "client",
            "status": "completed",
            "tools": [WEATHER_TOOL],
        },
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "0 rows"},
    ]
    _sdk_valid(built)


def test_an_unknown_item_type_is_answered_as_a_function_call() -> None:
    events = _call(0, "f", {"a": 1}, "call_x", "future_call", "fx_0", result="done")
    assert tr.openai_responses_results(events) == [
        {"type": "function_call", "name": "f", "arguments": '{"a": 1}', "call_id": "call_x"},
        {"type": "function_call_output", "call_id": "call_x", "output": "done"},
    ]


SIGNED: list[Event] = [
    ReasoningDelta("unsealed, "),  # reasoning no signature sealed is never sent back
    ReasoningSignature("anthropic", redacted="ZW5jcnlwdGVk"),
    ReasoningDelta("Two cities, "),
    ReasoningDelta("one tool."),
    ReasoningSignature("anthropic", "EqQBsig"),
    TextDelta("On it."),
    ActionComplete("s:0", 0, "move", {"x": 1}, "call_0"),
    ActionResult("s:0", 0, "move", "moved"),
    ReasoningDelta("trailing thought"),
    StreamDone("complete", 1, 0, 6),
]


def test_signed_thinking_goes_back_first_and_unchanged() -> None:
    """Claude refuses a tool turn sent back without its thinking blocks: each sealed block,
    redacted ones too, comes before the text and the calls, in stream order."""
    assistant = tr.anthropic_results(SIGNED)[0]["content"]
    assert assistant == [
        {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
        {"type": "thinking", "thinking": "Two cities, one tool.", "signature": "EqQBsig"},
        {"type": "text", "text": "On it."},
        {"type": "tool_use", "id": "call_0", "name": "move", "input": {"x": 1}},
    ]
    bedrock = tr.bedrock_results(SIGNED)[0]["content"]
    assert bedrock[:3] == [
        {"reasoningContent": {"redactedContent": b"encrypted"}},  # boto3 takes the bytes
        {
            "reasoningContent": {
                "reasoningText": {"text": "Two cities, one tool.", "signature": "EqQBsig"}
            }
        },
        {"text": "On it."},
    ]
    # Chat (Claude through LiteLLM) carries them in thinking_blocks
    chat = tr.openai_chat_results(SIGNED)[0]
    assert chat["thinking_blocks"] == assistant[:2]
    # the formats whose providers sign nothing are unchanged by it
    plain = [e for e in SIGNED if not isinstance(e, (ReasoningDelta, ReasoningSignature))]
    assert "thinking_blocks" not in tr.openai_chat_results(plain)[0]
    for build in (tr.gemini_results, tr.ollama_results, tr.openai_responses_results):
        assert build(SIGNED) == build(plain)

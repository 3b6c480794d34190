"""Actions left to the page or to an approval, in each format, and the turns of a tool loop
as one reply: exact frames."""

from __future__ import annotations

import json
from typing import Any

from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionPending,
    ActionResult,
    StreamDone,
    TextDelta,
)
from unspool.web import encode_sse

EVENTS = [
    TextDelta("Checking."),
    ActionComplete("s/0:0", 0, "get_weather", {"city": "Paris"}),
    ActionResult("s/0:0", 0, "get_weather", {"temp_c": 21}),
    StreamDone("complete", 1),
    ActionComplete("s/1:0", 0, "pick_color", {"prompt": "?"}),
    ActionPending("s/1:0", 0, "pick_color", "client"),
    ActionComplete("s/1:1", 1, "pay", {"cents": 5}),
    ActionPending("s/1:1", 1, "pay", "approval", "approval-s/1:1"),
    StreamDone("complete", 2),
]


def chunks(frames: list[bytes]) -> list[Any]:
    out = []
    for f in frames:
        text = f.decode()
        assert text.startswith("data: ")
        out.append(text[6:].strip() if "[DONE]" in text else json.loads(text[6:]))
    return out


def test_ai_sdk_turns_client_action_and_approval() -> None:
    got = chunks(list(encode_sse(EVENTS, format="ai-sdk", message_id="m", turns=True)))
    assert got == [
        {"type": "start", "messageId": "m"},
        {"type": "start-step"},
        {"type": "text-start", "id": "text-1"},
        {"type": "text-delta", "id": "text-1", "delta": "Checking."},
        {"type": "text-end", "id": "text-1"},
        {
            "type": "tool-input-available",
            "toolCallId": "s/0:0",
            "toolName": "get_weather",
            "input": {"city": "Paris"},
        },
        {"type": "tool-output-available", "toolCallId": "s/0:0", "output": {"temp_c": 21}},
        {"type": "finish-step"},  # the turn boundary
        {"type": "start-step"},
        {
            "type": "tool-input-available",
            "toolCallId": "s/1:0",
            "toolName": "pick_color",
            "input": {"prompt": "?"},
        },  # nothing more: the page runs it
        {"type": "tool-input-available", "toolCallId": "s/1:1", "toolName": "pay",
         "input": {"cents": 5}},
        {"type": "tool-approval-request", "approvalId": "approval-s/1:1", "toolCallId": "s/1:1"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
        "[DONE]",
    ]  # fmt: skip
    # without turns=True the first StreamDone ends the stream, as before
    one = chunks(list(encode_sse(EVENTS, format="ai-sdk", message_id="m")))
    assert one[-3:] == [
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
        "[DONE]",
    ]
    assert len(one) == 10


def test_ai_sdk_denial() -> None:
    denied = [ActionFailed("s/1:1", 1, "pay", "not today", "denied"), StreamDone("complete")]
    got = chunks(list(encode_sse(denied, format="ai-sdk", message_id="m")))
    assert got[2] == {"type": "tool-output-denied", "toolCallId": "s/1:1"}


def test_ag_ui_pending_call_and_interrupt() -> None:
    frames = encode_sse(EVENTS, format="ag-ui", thread_id="t", run_id="r", turns=True)
    got = chunks(list(frames))
    types = [c["type"] for c in got]
    assert types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",  # pick_color: left pending
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",  # pay: no result, an interrupt
        "RUN_FINISHED",
    ]  # fmt: skip
    assert got[-1]["outcome"] == {
        "type": "interrupt",
        "interrupts": [
            {
                "id": "approval-s/1:1",
                "reason": "tool_approval",
                "message": "Approve pay?",
                "toolCallId": "s/1:1",
                "responseSchema": {
                    "type": "object",
                    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
                    "required": ["approved"],
                },
            }
        ],
    }


def test_unspool_format_keeps_each_turns_stream_done() -> None:
    frames = [f.decode() for f in encode_sse(EVENTS, format="unspool", turns=True)]
    names = [line for f in frames for line in f.split("\n") if line.startswith("event: ")]
    assert names.count("event: stream_done") == 2 and names[-1] == "event: stream_done"
    assert "event: action_pending" in names


def test_a_failing_source_after_a_turn_ends_with_the_error() -> None:
    def source() -> Any:
        yield TextDelta("a")
        yield StreamDone("complete")
        raise RuntimeError("boom")

    got = chunks(list(encode_sse(source(), format="ai-sdk", message_id="m", turns=True)))
    assert [c["type"] if isinstance(c, dict) else c for c in got][-6:] == [
        "finish-step",
        "start-step",
        "finish-step",
        "error",
        "finish",
        "[DONE]",
    ]


def ag_ui_run(resume: list[dict[str, Any]], run_id: str = "r2") -> dict[str, Any]:
    call = {
        "id": "s/1:1",
        "type": "function",
        "function": {"name": "pay", "arguments": '{"cents": 5}'},
    }
    return {
        "threadId": "t",
        "runId": run_id,
        "messages": [
            {"id": "u", "role": "user", "content": "Pay."},
            {"id": "a", "role": "assistant", "toolCalls": [call]},
        ],
        "resume": resume,
    }


def test_an_ag_ui_resume_entry_answers_the_approval_it_names() -> None:
    from unspool import read_request
    from unspool.web._conversation import ToolApproval

    def approval(resume: list[dict[str, Any]]) -> tuple[Any, ...]:
        (call,) = read_request(ag_ui_run(resume), format="ag-ui").tool_calls
        return call.state, call.approval

    entry = {"interruptId": "approval-s/1:1", "status": "resolved"}
    assert approval([{**entry, "payload": {"approved": True}}]) == (
        "approval-responded",
        ToolApproval("approval-s/1:1", True),
    )
    assert approval([{**entry, "payload": {"approved": False, "reason": "no"}}]) == (
        "approval-responded",
        ToolApproval("approval-s/1:1", False, "no"),
    )
    # anything but a resolved {"approved": true} is a denial
    assert approval([{**entry, "payload": {"approved": "yes"}}])[1].approved is False
    assert approval([{**entry, "status": "cancelled"}])[1] == ToolApproval(
        "approval-s/1:1", False, "cancelled"
    )
    # an entry for another interrupt answers nothing
    assert approval([{**entry, "interruptId": "approval-x", "payload": {"approved": True}}]) == (
        "input-available",
        None,
    )


def test_the_stream_id_is_the_conversations() -> None:
    from unspool import read_request

    same = read_request(ag_ui_run([], "r1"), format="ag-ui").stream_id
    assert read_request(ag_ui_run([], "r9"), format="ag-ui").stream_id == same  # a new run id
    resumed = ag_ui_run([{"interruptId": "approval-s/1:1", "status": "cancelled"}])
    assert read_request(resumed, format="ag-ui").stream_id != same
    body = {
        "id": "c",
        "trigger": "submit-message",
        "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "Hi"}]}],
    }
    first = read_request(body).stream_id
    again = read_request({**body, "trigger": "regenerate-message", "messageId": "m"}).stream_id
    assert first == again and first.startswith("c-")
    body["messages"][0]["parts"][0]["text"] = "Hi!"
    assert read_request(body).stream_id != first

"""``encode_sse`` / ``aencode_sse``: exact frames per format, and the shared endings."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from ag_ui.core import Event as AgUiEvent
from pydantic import TypeAdapter

from unspool import TagParser
from unspool.events import (
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)
from unspool.web import FORMATS, GENERIC_ERROR, aencode_sse, encode_sse
from unspool.web._sse import comment, dumps, frame

IDS = {"message_id": "m", "thread_id": "th", "run_id": "r"}


def _events(reply: str, finish: Any = "stop") -> list[Event]:
    parser = TagParser(stream_id="s", reasoning=True)
    return [*parser.feed(reply), *parser.finish(finish)]


def _data(frames: list[bytes]) -> list[Any]:
    out = []
    for raw in frames:
        text = raw.decode()
        assert text.endswith("\n\n")
        data = "\n".join(line[6:] for line in text.splitlines() if line.startswith("data: "))
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


REPLY = '<think>hm</think>Hi <action name="go">{"to": "x"}</action> ok <action name="b">{"y":'


def test_unspool_format_frames_are_exact() -> None:
    frames = list(encode_sse([TextDelta("a\nb"), StreamDone("complete", text_chars=3)]))
    assert frames == [
        b'id: 1\nevent: text_delta\ndata: {"type":"text_delta","text":"a\\nb"}\n\n',
        b"id: 2\nevent: stream_done\n"
        b'data: {"type":"stream_done","reason":"complete","actions_complete":0,'
        b'"actions_invalid":0,"text_chars":3}\n\n',
    ]


def test_ai_sdk_chunks_are_exact() -> None:
    chunks = _data(list(encode_sse(_events(REPLY, "length"), format="ai-sdk", **IDS)))
    invalid_error = "invalid action (truncated): the stream ended inside this action"
    assert chunks == [
        {"type": "start", "messageId": "m"},
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "reasoning-1"},
        {"type": "reasoning-delta", "id": "reasoning-1", "delta": "hm"},
        {"type": "reasoning-end", "id": "reasoning-1"},
        {"type": "text-start", "id": "text-2"},
        {"type": "text-delta", "id": "text-2", "delta": "Hi "},
        {"type": "text-end", "id": "text-2"},
        {"type": "tool-input-start", "toolCallId": "s:0", "toolName": "go"},
        {"type": "tool-input-delta", "toolCallId": "s:0", "inputTextDelta": '{"to": "x"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "s:0",
            "toolName": "go",
            "input": {"to": "x"},
        },
        {"type": "text-start", "id": "text-3"},
        {"type": "text-delta", "id": "text-3", "delta": " ok "},
        {"type": "text-end", "id": "text-3"},
        {"type": "tool-input-start", "toolCallId": "s:1", "toolName": "b"},
        {"type": "tool-input-delta", "toolCallId": "s:1", "inputTextDelta": '{"y":'},
        {
            "type": "tool-input-error",
            "toolCallId": "s:1",
            "toolName": "b",
            "input": '{"y":',
            "errorText": invalid_error,
            "toolMetadata": {
                "unspool": {
                    "reason": "truncated",
                    "errors": [{"message": "the stream ended inside this action"}],
                }
            },
        },
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "length"},
        "[DONE]",
    ]


def test_ag_ui_events_are_the_packages_own_and_in_order() -> None:
    frames = list(encode_sse(_events(REPLY), format="ag-ui", **IDS))
    adapter: TypeAdapter[Any] = TypeAdapter(AgUiEvent)
    for raw in frames:  # each frame is one valid AG-UI event
        adapter.validate_json(raw.decode().removeprefix("data: ").strip())
    events = _data(frames)
    assert [e["type"] for e in events] == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "RUN_FINISHED",
    ]
    assert events[0] == {"type": "RUN_STARTED", "threadId": "th", "runId": "r"}
    assert events[9]["parentMessageId"] == events[6]["messageId"]
    assert json.loads(events[18]["content"])["reason"] == "truncated"
    assert events[-1]["result"]["reason"] == "truncated"  # it ended inside an action


HOSTED: list[Event] = [
    TextDelta("Hi "),
    HostedToolStarted("s/hosted:0", "web_search", "srvtoolu_1", "server_tool_use"),
    HostedToolInput("s/hosted:0", "web_search", {"query": "météo"}),
    HostedToolResult("s/hosted:0", "web_search", [{"url": "u"}], None, "web_search_tool_result"),
    HostedToolStarted("s/hosted:1", "code_execution", None, "executable_code"),
    HostedToolResult("s/hosted:1", "code_execution", None, "OUTCOME_FAILED", "code_result"),
    StreamDone("complete", text_chars=3),
]


def test_a_provider_run_tool_in_each_format() -> None:
    """The AI SDK's provider-executed tool parts; AG-UI activity messages, never tool
    calls; the "unspool" format's own event names."""
    chunks = _data(list(encode_sse(HOSTED, format="ai-sdk", **IDS)))
    done = {"providerExecuted": True}
    assert chunks[2:-3] == [
        {"type": "text-start", "id": "text-1"},
        {"type": "text-delta", "id": "text-1", "delta": "Hi "},
        {"type": "text-end", "id": "text-1"},
        {"type": "tool-input-start", "toolCallId": "s/hosted:0", "toolName": "web_search", **done},
        {
            "type": "tool-input-available",
            "toolCallId": "s/hosted:0",
            "toolName": "web_search",
            "input": {"query": "météo"},
            **done,
        },
        {
            "type": "tool-output-available",
            "toolCallId": "s/hosted:0",
            "output": [{"url": "u"}],
            **done,
        },
        {
            "type": "tool-input-start",
            "toolCallId": "s/hosted:1",
            "toolName": "code_execution",
            **done,
        },
        {
            "type": "tool-output-error",
            "toolCallId": "s/hosted:1",
            "errorText": "OUTCOME_FAILED",
            **done,
        },
    ]
    assert chunks[-2:] == [{"type": "finish", "finishReason": "stop"}, "[DONE]"]

    frames = list(encode_sse(HOSTED, format="ag-ui", **IDS))
    adapter: TypeAdapter[Any] = TypeAdapter(AgUiEvent)
    for raw in frames:
        adapter.validate_json(raw.decode().removeprefix("data: ").strip())
    events = _data(frames)
    assert [e["type"] for e in events] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",  # the activity keeps its place after the text
        *["ACTIVITY_SNAPSHOT"] * 5,
        "RUN_FINISHED",
    ]
    snapshots = [e for e in events if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert {e["activityType"] for e in snapshots} == {"unspool.hosted_tool"}
    assert [e["messageId"] for e in snapshots] == ["r-s/hosted:0"] * 3 + ["r-s/hosted:1"] * 2
    call = {"id": "s/hosted:0", "name": "web_search", "providerId": "srvtoolu_1", "kind": "server_tool_use"}  # fmt: skip
    assert [e["content"] for e in snapshots[:3]] == [
        {**call, "status": "running"},
        {**call, "status": "running", "input": {"query": "météo"}},
        {
            **call,
            "status": "complete",
            "input": {"query": "météo"},
            "output": [{"url": "u"}],
            "error": None,
        },
    ]
    assert snapshots[-1]["content"]["status"] == "failed"
    assert events[-1]["result"] == {"reason": "complete", "actionsComplete": 0, "actionsInvalid": 0, "textChars": 3}  # fmt: skip

    names = [raw.decode().split("\n")[1] for raw in encode_sse(HOSTED)]
    assert names[1:6] == [
        "event: hosted_tool_started",
        "event: hosted_tool_input",
        "event: hosted_tool_result",
        "event: hosted_tool_started",
        "event: hosted_tool_result",
    ]


RAW_USAGE = {"prompt_tokens": 12, "completion_tokens": 30, "total_tokens": 42, "cost": 0.002}
COUNTED: list[Event] = [
    TextDelta("Hi"),
    Usage(12, 30, 42, 4, None, 10, RAW_USAGE),
    StreamDone("complete", 0, 0, 2),
]


def test_usage_in_each_format() -> None:
    """AI SDK message metadata in its own names; AG-UI a CUSTOM event and the run's
    result; the "unspool" format's ``usage`` frame."""
    chunks = _data(list(encode_sse(COUNTED, format="ai-sdk", **IDS)))
    counts = {"inputTokens": 12, "outputTokens": 30, "totalTokens": 42, "cachedInputTokens": 4, "reasoningTokens": 10}  # fmt: skip
    assert chunks[2:] == [
        {"type": "text-start", "id": "text-1"},
        {"type": "text-delta", "id": "text-1", "delta": "Hi"},
        {
            "type": "message-metadata",
            "messageMetadata": {"usage": counts, "providerUsage": RAW_USAGE},
        },
        {"type": "text-end", "id": "text-1"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
        "[DONE]",
    ]

    frames = list(encode_sse(COUNTED, format="ag-ui", **IDS))
    adapter: TypeAdapter[Any] = TypeAdapter(AgUiEvent)
    for raw in frames:
        adapter.validate_json(raw.decode().removeprefix("data: ").strip())
    events = _data(frames)
    whole = COUNTED[1].to_dict()
    assert events[3] == {"type": "CUSTOM", "name": "unspool.usage", "value": whole}
    assert [e["type"] for e in events] == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "CUSTOM", "TEXT_MESSAGE_END", "RUN_FINISHED"]  # fmt: skip
    del whole["type"]
    assert events[-1]["result"] == {"reason": "complete", "actionsComplete": 0, "actionsInvalid": 0, "textChars": 2, "usage": whole}  # fmt: skip

    sent = [raw.decode() for raw in encode_sse(COUNTED)]
    assert sent[1] == frame(dumps(COUNTED[1].to_dict()), event="usage", id=2).decode()


def _failing() -> Iterator[Event]:
    yield TextDelta("partial ")
    raise ConnectionError("token sk-secret refused by 10.1.2.3")


@pytest.mark.parametrize("expose", [False, True])
def test_a_failing_source_ends_with_each_formats_error(expose: bool) -> None:
    shown = "ConnectionError: token sk-secret refused by 10.1.2.3" if expose else GENERIC_ERROR
    unspool = _data(list(encode_sse(_failing(), expose_errors=expose)))
    assert unspool[1]["type"] == "stream_error" and unspool[2]["reason"] == "error"
    assert unspool[1]["message"] == (shown.split(": ", 1)[1] if expose else GENERIC_ERROR)
    ai = _data(list(encode_sse(_failing(), format="ai-sdk", expose_errors=expose)))
    assert ai[-4:] == [
        {"type": "finish-step"},
        {"type": "error", "errorText": shown},
        {"type": "finish", "finishReason": "error"},
        "[DONE]",
    ]
    ag = _data(list(encode_sse(_failing(), format="ag-ui", expose_errors=expose)))
    assert ag[-1] == {"type": "RUN_ERROR", "message": shown, "code": "ConnectionError"}
    if not expose:
        for out in (unspool, ai, ag):
            assert "sk-secret" not in json.dumps(out)


def test_a_source_that_stops_without_stream_done_is_aborted() -> None:
    events = [TextDelta("cut")]
    assert _data(list(encode_sse(events)))[-1]["reason"] == "aborted"
    assert _data(list(encode_sse(events, format="ai-sdk")))[-3:] == [
        {"type": "finish-step"},
        {"type": "abort", "reason": "aborted"},
        "[DONE]",
    ]
    assert _data(list(encode_sse(events, format="ag-ui")))[-1]["result"]["reason"] == "aborted"


def test_reading_stops_at_stream_done_and_closes_the_source() -> None:
    closed: list[bool] = []

    def source() -> Iterator[Event]:
        try:
            yield StreamDone("complete")
            yield TextDelta("never read")
        finally:
            closed.append(True)

    assert [f["type"] for f in _data(list(encode_sse(source())))] == ["stream_done"]
    assert closed == [True]


@pytest.mark.parametrize("format", sorted(FORMATS))
async def test_aencode_matches_encode_for_async_and_sync_sources(format: str) -> None:
    events = _events(REPLY, "length")

    async def agen() -> AsyncIterator[Event]:
        for event in events:
            await asyncio.sleep(0)
            yield event

    sync = list(encode_sse(events, format=format, **IDS))
    assert [f async for f in aencode_sse(agen(), format=format, **IDS)] == sync
    assert [f async for f in aencode_sse(iter(events), format=format, **IDS)] == sync


async def test_aencode_turns_an_async_source_error_into_the_error_ending() -> None:
    async def agen() -> AsyncIterator[Event]:
        yield TextDelta("x")
        raise StreamClosed("boom")

    frames = [f async for f in aencode_sse(agen(), format="ai-sdk")]
    assert {"type": "error", "errorText": GENERIC_ERROR} in _data(frames)


class StreamClosed(Exception):
    pass


def test_unknown_format_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown format 'vercel'"):
        encode_sse([], format="vercel")


def test_sse_framing_rules() -> None:
    assert frame("a\r\nb\rc", event="e", id=3) == b"id: 3\nevent: e\ndata: a\ndata: b\ndata: c\n\n"
    assert comment("x\ny") == b": x y\n\n"
    with pytest.raises(ValueError):
        frame("x", id="1\n2")
    with pytest.raises(ValueError):
        frame("x", event="a\nb")
    assert (
        dumps({"a": float("nan"), "b": [float("inf")], "c": "é"}) == '{"a":null,"b":[null],"c":"é"}'
    )


def test_stream_error_event_keeps_its_type_but_not_its_message() -> None:
    frames = _data(list(encode_sse([StreamError("db at 10.0.0.1", "OperationalError")])))
    assert frames[0] == {
        "type": "stream_error",
        "message": GENERIC_ERROR,
        "error_type": "OperationalError",
    }


def test_ag_ui_sends_the_args_whole_when_the_source_gave_no_raw_deltas() -> None:
    from unspool.events import ActionArgsDelta, ActionComplete, ActionStarted

    events: list[Event] = [
        ActionStarted("a:0", 0, "go"),
        ActionArgsDelta("a:0", 0, {"to": "x"}, None),
        ActionComplete("a:0", 0, "go", {"to": "x"}),
        StreamDone("complete", actions_complete=1),
    ]
    frames = _data(list(encode_sse(events, format="ag-ui", **IDS)))
    args = [f["delta"] for f in frames if f["type"] == "TOOL_CALL_ARGS"]
    assert args == ['{"to":"x"}']


def test_web_imports_only_events_extras_and_itself() -> None:
    """``unspool._extras`` only says which extra to install when a module is missing."""
    import ast
    from pathlib import Path

    import unspool.web

    root = Path(unspool.web.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("unspool")
            ):
                allowed = node.module in (
                    "unspool.events",
                    "unspool._extras",
                    "unspool.sources.providers",
                ) or node.module.startswith("unspool.web")
                if node.module == "unspool.sources.providers":  # the result builders only
                    assert [a.name for a in node.names] == ["_tool_results"], path.name
                assert allowed, f"{path.name} imports {node.module}"

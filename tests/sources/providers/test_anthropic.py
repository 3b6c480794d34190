"""from_anthropic over the real anthropic SDK, over real HTTP, against recorded streams."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import httpx
import pytest

from tests.support.replay import ReplayServer, Reply, acollect, chunkings, collect, load
from tests.support.replay.expected import ANTHROPIC_MAX_TOKENS as MAX_TOKENS
from tests.support.replay.expected import ANTHROPIC_STARTED, ANTHROPIC_USAGE
from tests.support.replay.expected import ANTHROPIC_TOOLS as TOOLS
from tests.support.replay.expected import EXPECTED as ALL
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionStarted,
    Citation,
    HostedToolInput,
    HostedToolStarted,
    ReasoningSignature,
    RefusalDelta,
    StreamDone,
    TextDelta,
)
from unspool.sources._anthropic_adapter import AnthropicDecoder, from_anthropic
from unspool.sources._sse import iter_sse

MESSAGES = [{"role": "user", "content": "weather?"}]
EXPECTED = {name: events for name, events in ALL.items() if name.startswith("anthropic")}
CASES = [(name, how) for name in EXPECTED for how in chunkings(load(name))]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def client(server: ReplayServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="test-key", max_retries=0)


def aclient(server: ReplayServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=server.url, api_key="test-key", max_retries=0)


@pytest.mark.parametrize(("name", "how"), CASES)
def test_messages_sync(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    stream = client(server).messages.create(
        model="claude-test",
        max_tokens=64,
        messages=MESSAGES,  # type: ignore[arg-type]
        stream=True,
    )
    assert collect(from_anthropic(stream, stream_id="stream")) == EXPECTED[name]
    assert server.requests[-1][1] == "/v1/messages"


@pytest.mark.parametrize(("name", "how"), CASES)
async def test_messages_async(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    stream = await aclient(server).messages.create(
        model="claude-test",
        max_tokens=64,
        messages=MESSAGES,  # type: ignore[arg-type]
        stream=True,
    )
    assert await acollect(from_anthropic(stream, stream_id="stream")) == EXPECTED[name]


def test_message_stream_helper(server: ReplayServer) -> None:
    """``client.messages.stream()``: its derived events are skipped, the result is the same."""
    server.play(Reply(chunkings(load("anthropic_tools.sse"))["every-7-bytes"]))
    manager = client(server).messages.stream(model="claude-test", max_tokens=64, messages=MESSAGES)  # type: ignore[arg-type]
    with manager as stream:
        assert collect(from_anthropic(stream, stream_id="stream")) == TOOLS


async def test_message_stream_helper_async(server: ReplayServer) -> None:
    server.play(Reply(chunkings(load("anthropic_max_tokens.sse"))["inside-utf8"]))
    manager = aclient(server).messages.stream(model="claude-test", max_tokens=64, messages=MESSAGES)  # type: ignore[arg-type]
    async with manager as stream:
        assert await acollect(from_anthropic(stream, stream_id="stream")) == MAX_TOKENS


@pytest.mark.parametrize("name", EXPECTED)
def test_raw_http_body_without_the_sdk(server: ReplayServer, name: str) -> None:
    server.play(Reply(chunkings(load(name))["every-7-bytes"]))
    with httpx.stream("POST", server.url + "/v1/messages", json={"stream": True}) as response:
        assert (
            collect(from_anthropic(iter_sse(response.iter_bytes()), stream_id="stream"))
            == EXPECTED[name]
        )


def test_tags_protocol_in_text_blocks_shares_the_ids(server: ReplayServer) -> None:
    from tests.support.replay.wire import Call, Text, anthropic_events, sse

    blocks = [
        Text(['Opening <action name="open">{"id": ', '"p1"}</action> now.']),
        Call("log", "toolu_9", ['{"m": "x"}']),
    ]
    server.play(Reply([sse(anthropic_events(blocks, "tool_use"), named=True)]))
    stream = client(server).messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    events = [
        e
        for e in collect(from_anthropic(stream, "tags", stream_id="stream"))
        if not isinstance(e, ActionArgsDelta)
    ]
    assert events == [
        TextDelta("Opening "),
        ActionStarted("stream:0", 0, "open"),
        ActionComplete("stream:0", 0, "open", {"id": "p1"}),
        TextDelta(" now."),
        ActionStarted("stream:1", 1, "log", "toolu_9"),
        ActionComplete("stream:1", 1, "log", {"m": "x"}, "toolu_9"),
        ANTHROPIC_USAGE,
        StreamDone("complete", 2, 0, 13),
    ]


# ------------------------------------------------------------------ sans-I/O decoder cases


def block_start(index: int, block: dict[str, object]) -> dict[str, object]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def block_delta(index: int, delta: dict[str, object]) -> dict[str, object]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def test_decoder_server_tools_redacted_thinking_and_unknown_deltas() -> None:
    decoder = AnthropicDecoder(stream_id="s")
    events = decoder.feed(block_start(0, {"type": "redacted_thinking", "data": "xx"}))
    events += decoder.feed(
        block_start(1, {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}})
    )
    events += decoder.feed(block_delta(1, {"type": "input_json_delta", "partial_json": '{"q": 1}'}))
    events += decoder.feed({"type": "content_block_stop", "index": 1})
    events += decoder.feed(block_start(2, {"type": "text", "text": "Hi"}))
    events += decoder.feed(block_delta(2, {"type": "citations_delta", "citation": {}}))
    events += decoder.feed(block_delta(2, {"type": "citations_delta", "citation": {}}))
    events += decoder.feed({"type": "message_delta", "delta": {"stop_reason": "refusal"}})
    events += decoder.finish()
    assert events == [
        ReasoningSignature("anthropic", redacted="xx"),  # sent back, never shown
        HostedToolStarted("s/hosted:0", "web_search", "srv", "server_tool_use"),
        HostedToolInput("s/hosted:0", "web_search", {"q": 1}),
        TextDelta("Hi"),
        RefusalDelta(""),
        Citation("citation", start=0, end=2),  # the block never ended: sent at the end
        Citation("citation", start=0, end=2),
        StreamDone("complete", 0, 0, 2),
    ]


def test_decoder_tool_input_given_whole_at_block_start() -> None:
    events = collect(
        from_anthropic(
            [
                block_start(0, {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": "é"}}),
                {"type": "content_block_stop", "index": 0},
                {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
                {"type": "message_stop"},
            ],
            stream_id="stream",
        )
    )
    assert events == [
        ActionStarted("stream:0", 0, "f", "t1"),
        ActionArgsDelta("stream:0", 0, {"a": "é"}, '{"a": "é"}'),
        ActionComplete("stream:0", 0, "f", {"a": "é"}, "t1"),
        StreamDone("complete", 1, 0, 0),
    ]


def test_decoder_error_event() -> None:
    events = collect(
        from_anthropic(
            [
                block_start(0, {"type": "text", "text": ""}),
                block_delta(0, {"type": "text_delta", "text": "partial"}),
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                block_delta(0, {"type": "text_delta", "text": "never"}),
            ],
            stream_id="stream",
        )
    )
    assert [type(e).__name__ for e in events] == ["TextDelta", "StreamError", "StreamDone"]
    assert (events[1].message, events[1].error_type) == ("Overloaded", "overloaded_error")  # type: ignore[union-attr]
    assert events[2] == StreamDone("error", 0, 0, 7)


def test_sdk_error_event_over_http(server: ReplayServer) -> None:
    """The SDK raises on an ``event: error`` mid-stream: it becomes StreamError."""
    body = load("anthropic_tools.sse")
    cut = body.index(b'event: content_block_start\ndata: {"type":"content_block_start","index":2')
    error = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    server.play(Reply([body[:cut], error]))
    stream = client(server).messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    events = collect(from_anthropic(stream, stream_id="stream"))
    assert events[:-3] == TOOLS[:6]
    assert events[-2:] == [ANTHROPIC_STARTED, StreamDone("error", 0, 0, 28)]
    assert events[-3].error_type == "APIStatusError"  # type: ignore[union-attr]
    assert "overloaded_error" in events[-3].message  # type: ignore[union-attr]

"""from_ollama over the real ollama SDK, over real HTTP, against Ollama's NDJSON chat stream."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ollama
import pytest

from tests.support.replay import ReplayServer, Reply, acollect, collect, pieces_of
from tests.support.replay.ollama_wire import CONTENT_TYPE, COUNTED, line, ndjson, tool_call
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Diagnostic,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
)
from unspool.sources.providers._ollama import from_ollama as _from_ollama

MESSAGES = [{"role": "user", "content": "weather?"}]


def from_ollama(stream: Any, **options: Any) -> Any:
    """``from_ollama`` with the fixed stream id the expected events use."""
    return _from_ollama(stream, stream_id="stream", **options)


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


W1 = {"city": "Paris", "unit": "c"}
W2 = {"city": "東京 🌸"}
TOOLS_BODY = ndjson(
    [
        line(thinking="The user wants "),
        line(thinking="the weather."),
        line("Checking Paris — "),
        line("and 東京 🌦."),
        line(tool_calls=[tool_call("get_weather", W1), tool_call("get_weather", W2)]),
        line(done_reason="stop"),
    ]
)
TOOLS = [
    ReasoningDelta("The user wants "),
    ReasoningDelta("the weather."),
    TextDelta("Checking Paris — "),
    TextDelta("and 東京 🌦."),
    ActionStarted("stream:0", 0, "get_weather"),
    ActionArgsDelta("stream:0", 0, W1, '{"city": "Paris", "unit": "c"}'),
    ActionComplete("stream:0", 0, "get_weather", W1),
    ActionStarted("stream:1", 1, "get_weather"),
    ActionArgsDelta("stream:1", 1, W2, '{"city": "東京 🌸"}'),
    ActionComplete("stream:1", 1, "get_weather", W2),
    COUNTED,
    StreamDone("complete", 2, 0, 26),
]


def cuts(body: bytes) -> dict[str, list[bytes]]:
    inside = [i + 1 for i, byte in enumerate(body) if byte >= 0xC0]
    return {
        "whole": [body],
        "byte-by-byte": pieces_of(body, 1),
        "inside-utf8": pieces_of(body, cuts=inside),
    }


@pytest.mark.parametrize("how", ["whole", "byte-by-byte", "inside-utf8"])
def test_chat_stream_sync(server: ReplayServer, how: str) -> None:
    server.play(Reply(cuts(TOOLS_BODY)[how], content_type=CONTENT_TYPE))
    stream = ollama.Client(host=server.url).chat(model="qwen3:8b", messages=MESSAGES, stream=True)
    assert collect(from_ollama(stream)) == TOOLS
    method, path, body = server.requests[-1]
    assert (method, path) == ("POST", "/api/chat")
    assert body["messages"] == MESSAGES and body["stream"] is True


@pytest.mark.parametrize("how", ["whole", "inside-utf8"])
async def test_chat_stream_async(server: ReplayServer, how: str) -> None:
    server.play(Reply(cuts(TOOLS_BODY)[how], content_type=CONTENT_TYPE))
    client = ollama.AsyncClient(host=server.url)
    stream = await client.chat(model="qwen3:8b", messages=MESSAGES, stream=True)
    assert await acollect(from_ollama(stream)) == TOOLS


def test_length_is_truncation_and_other_reasons_are_reported(server: ReplayServer) -> None:
    body = ndjson([line("Once upon a "), line(done_reason="length")])
    server.play(Reply([body], content_type=CONTENT_TYPE))
    stream = ollama.Client(host=server.url).chat(model="m", messages=MESSAGES, stream=True)
    assert collect(from_ollama(stream)) == [
        TextDelta("Once upon a "),
        COUNTED,
        StreamDone("truncated", 0, 0, 12),
    ]
    events = collect(from_ollama([line(done_reason="unload")]))
    assert events == [
        Diagnostic("done_reason", "done reason 'unload'", text="unload"),
        COUNTED,
        StreamDone("complete", 0, 0, 0),
    ]


def test_error_line_mid_stream(server: ReplayServer) -> None:
    body = ndjson([line("Partial"), {"error": "model runner has unexpectedly stopped"}])
    server.play(Reply([body], content_type=CONTENT_TYPE))
    stream = ollama.Client(host=server.url).chat(model="m", messages=MESSAGES, stream=True)
    events = collect(from_ollama(stream))
    assert events[0] == TextDelta("Partial")
    assert isinstance(events[1], StreamError) and events[1].error_type == "ResponseError"
    assert events[1].message.startswith("model runner has unexpectedly stopped")
    assert events[2] == StreamDone("error", 0, 0, 7)


def test_raw_objects_without_the_sdk_and_odd_arguments() -> None:
    events = collect(
        from_ollama(
            [
                line(tool_calls=[{"function": {"name": "f", "arguments": '{"a": 1}'}}]),
                line(tool_calls=[{"function": {"name": "g", "arguments": [1]}}]),
                line(done_reason="stop"),
            ]
        )
    )
    assert events[2] == ActionComplete("stream:0", 0, "f", {"a": 1})
    assert isinstance(events[5], ActionInvalid) and events[5].reason == "bad_params"
    assert events[-1] == StreamDone("complete", 1, 1, 0)


def test_recognise(server: ReplayServer) -> None:
    from unspool.sources.providers._ollama import recognise

    server.play(Reply([TOOLS_BODY], content_type=CONTENT_TYPE))
    chunks = list(ollama.Client(host=server.url).chat(model="m", messages=MESSAGES, stream=True))
    assert all(recognise(c) for c in chunks)
    assert not recognise({"choices": []}) and not recognise({"type": "ping"})

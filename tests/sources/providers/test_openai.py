"""from_openai over the real openai SDK, over real HTTP, against recorded streams.

The replay server writes each recorded body in pieces (whole, every 7 bytes,
cut inside every multi-byte UTF-8 character); the SDK client reads it like a
response from the API; the events must be exactly the expected ones.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest
from pydantic import BaseModel

from tests.support.replay import ReplayServer, Reply, acollect, chunkings, collect, load
from tests.support.replay.expected import CHAT_TOOLS, CUT, EXPECTED, RESPONSES_TOOLS
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Citation,
    Diagnostic,
    Event,
    HostedToolStarted,
    ReasoningDelta,
    RefusalDelta,
    StreamDone,
    TextDelta,
)
from unspool.protocols._interleaved import InterleavedParser
from unspool.sources._openai_adapter import OpenAIDecoder, from_openai
from unspool.sources._parsers import emitter_of
from unspool.sources._sse import iter_sse

MESSAGES = [{"role": "user", "content": "weather?"}]
CHAT = {name: EXPECTED[name] for name in EXPECTED if name.startswith("openai_chat")}
RESPONSES = {name: EXPECTED[name] for name in EXPECTED if name.startswith("openai_responses")}


def cases(table: dict[str, list[Event]]) -> list[tuple[str, str]]:
    return [(name, how) for name in table for how in chunkings(load(name))]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def client(server: ReplayServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)


def aclient(server: ReplayServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)


@pytest.mark.parametrize(("name", "how"), cases(CHAT))
def test_chat_completions_sync(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    stream = client(server).chat.completions.create(
        model="gpt-4o-mini", messages=MESSAGES, stream=True
    )  # type: ignore[arg-type]
    assert collect(from_openai(stream, stream_id="stream")) == CHAT[name]
    assert stream.response.is_closed


@pytest.mark.parametrize(("name", "how"), cases(CHAT))
async def test_chat_completions_async(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    stream = await aclient(server).chat.completions.create(
        model="gpt-4o-mini",
        messages=MESSAGES,  # type: ignore[arg-type]
        stream=True,
    )
    assert await acollect(from_openai(stream, stream_id="stream")) == CHAT[name]
    assert stream.response.is_closed


@pytest.mark.parametrize(("name", "how"), cases(RESPONSES))
def test_responses_sync(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    stream = client(server).responses.create(model="gpt-4.1-mini", input="weather?", stream=True)
    assert collect(from_openai(stream, stream_id="stream")) == RESPONSES[name]


@pytest.mark.parametrize(("name", "how"), cases(RESPONSES))
async def test_responses_async(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    stream = await aclient(server).responses.create(
        model="gpt-4.1-mini", input="weather?", stream=True
    )
    assert await acollect(from_openai(stream, stream_id="stream")) == RESPONSES[name]


class GetWeather(BaseModel):
    city: str
    unit: str


class GetTime(BaseModel):
    tz: str


TOOLS = [
    openai.pydantic_function_tool(GetWeather, name="get_weather"),
    openai.pydantic_function_tool(GetTime, name="get_time"),
]


def test_chat_stream_helper(server: ReplayServer) -> None:
    """The SDK's own helper stream (strict tools) gives the same events."""
    server.play(Reply(chunkings(load("openai_chat_tools.sse"))["every-7-bytes"]))
    manager = client(server).chat.completions.stream(
        model="gpt-4o-mini", messages=MESSAGES, tools=TOOLS
    )  # type: ignore[arg-type]
    with manager as stream:
        assert collect(from_openai(stream, stream_id="stream")) == CHAT_TOOLS


async def test_chat_stream_helper_async(server: ReplayServer) -> None:
    server.play(Reply(chunkings(load("openai_chat_tools.sse"))["inside-utf8"]))
    manager = aclient(server).chat.completions.stream(
        model="gpt-4o-mini", messages=MESSAGES, tools=TOOLS
    )  # type: ignore[arg-type]
    async with manager as stream:
        assert await acollect(from_openai(stream, stream_id="stream")) == CHAT_TOOLS


def test_responses_stream_helper(server: ReplayServer) -> None:
    server.play(Reply(chunkings(load("openai_responses_tools.sse"))["every-7-bytes"]))
    with client(server).responses.stream(model="gpt-4.1-mini", input="weather?") as stream:
        assert collect(from_openai(stream, stream_id="stream")) == RESPONSES_TOOLS


@pytest.mark.parametrize("name", [*CHAT, *RESPONSES])
def test_raw_http_body_without_the_sdk(server: ReplayServer, name: str) -> None:
    """Any HTTP client's body: bytes -> iter_sse -> from_openai."""
    server.play(Reply(chunkings(load(name))["inside-utf8"]))
    with httpx.stream(
        "POST", server.url + "/v1/chat/completions", json={"stream": True}
    ) as response:
        events = collect(from_openai(iter_sse(response.iter_bytes()), stream_id="stream"))
    assert events == {**CHAT, **RESPONSES}[name]


def test_interleaved_protocol_in_the_content_channel(server: ReplayServer) -> None:
    from tests.support.replay.wire import Call, Text, chat_chunks, sse

    content = [
        '[{"type":"text","content":"Hi"},',
        '{"type":"action","name":"wb_open","params":{}}]',
    ]
    body = sse(
        chat_chunks([Text(content), Call("get_time", "c1", ['{"tz": "UTC"}'])]),
        named=False,
        done=True,
    )
    server.play(Reply([body]))
    stream = client(server).chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    events = collect(from_openai(stream, "interleaved", stream_id="stream"))
    events = [e for e in events if not isinstance(e, ActionArgsDelta)]
    # One id sequence when the parser exposes its emitter; else the tool calls' own ids.
    tool = ("stream:1", 1) if emitter_of(InterleavedParser()) is not None else ("stream/tools:0", 0)
    assert events == [
        TextDelta("Hi"),
        ActionStarted("stream:0", 0, "wb_open"),
        ActionComplete("stream:0", 0, "wb_open", {}),
        ActionStarted(*tool, "get_time", "c1"),
        ActionComplete(*tool, "get_time", {"tz": "UTC"}, "c1"),
        StreamDone("complete", 2, 0, 2),
    ]


# ------------------------------------------------------------------ sans-I/O decoder cases


def chunk(delta: dict[str, object], finish: str | None = None, index: int = 0) -> dict[str, object]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


def test_decoder_reasoning_refusal_other_choices_and_filters() -> None:
    items = [
        chunk({"reasoning_content": "think"}),
        chunk({"content": "a"}),
        chunk({"content": "x"}, index=1),
        chunk({"content": "y"}, index=1),
        chunk({"refusal": "I can't"}),
        chunk({}, "content_filter"),
    ]
    assert collect(from_openai(items, stream_id="stream")) == [
        ReasoningDelta("think"),
        TextDelta("a"),
        Diagnostic("ignored_choice", "choice 1 is ignored: following choice 0"),
        RefusalDelta("I can't"),
        Diagnostic("content_filter", "the provider's content filter cut the output"),
        StreamDone("truncated", 0, 0, 1),
    ]


def test_decoder_legacy_function_call_and_unknown_finish_reason() -> None:
    items = [
        chunk({"function_call": {"name": "lookup", "arguments": '{"q": '}}),
        chunk({"function_call": {"arguments": '"x"}'}}),
        chunk({}, "weird"),
    ]
    events = collect(from_openai(items, stream_id="stream"))
    assert events == [
        ActionStarted("stream:0", 0, "lookup"),
        ActionArgsDelta("stream:0", 0, {}, '{"q": '),
        ActionArgsDelta("stream:0", 0, {"q": "x"}, '"x"}'),
        Diagnostic("finish_reason", "unknown finish reason 'weird'", text="weird"),
        ActionComplete("stream:0", 0, "lookup", {"q": "x"}),
        StreamDone("complete", 1, 0, 0),
    ]


def test_decoder_call_cut_without_finish_reason() -> None:
    items = [
        chunk(
            {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}]}
        )
    ]
    assert collect(from_openai(items, stream_id="stream"))[-2:] == [
        ActionInvalid("stream:0", 0, "f", "truncated", CUT, "{}", "c"),
        StreamDone("truncated", 0, 1, 0),
    ]


def test_decoder_responses_errors_and_ignored_items() -> None:
    decoder = OpenAIDecoder(stream_id="s")
    item = {"type": "web_search_call", "id": "ws_1"}
    assert decoder.feed(
        {"type": "response.output_item.added", "output_index": 0, "item": item}
    ) == [HostedToolStarted("s/hosted:0", "web_search", "ws_1", "web_search_call")]
    assert decoder.feed(
        {"type": "response.output_text.delta", "output_index": 1, "delta": "hi"}
    ) == [TextDelta("hi")]
    failed = {
        "type": "response.failed",
        "response": {"error": {"code": "server_error", "message": "boom"}},
    }
    events = decoder.feed(failed)
    assert events[-1] == StreamDone("error", 0, 0, 2)
    assert (events[0].message, events[0].error_type) == ("boom", "server_error")  # type: ignore[union-attr]
    assert (
        decoder.closed and decoder.feed({"type": "response.output_text.delta", "delta": "x"}) == []
    )
    assert decoder.finish() == []


def test_decoder_function_call_that_arrives_only_when_done() -> None:
    item = {"type": "function_call", "name": "f", "call_id": "c1", "arguments": '{"a": 1}'}
    events = collect(
        from_openai(
            [
                {"type": "response.output_item.done", "output_index": 0, "item": item},
                {"type": "response.completed", "response": {}},
            ],
            stream_id="stream",
        )
    )
    assert events == [
        ActionStarted("stream:0", 0, "f", "c1"),
        ActionArgsDelta("stream:0", 0, {"a": 1}, '{"a": 1}'),
        ActionComplete("stream:0", 0, "f", {"a": 1}, "c1"),
        StreamDone("complete", 1, 0, 0),
    ]


def test_decoder_bad_sse_data_is_reported() -> None:
    from unspool.sources._sse import SSEMessage

    events = collect(
        from_openai([SSEMessage(data="{oops"), SSEMessage(data="[DONE]")], stream_id="stream")
    )
    assert len(events) == 2 and events[1] == StreamDone("complete", 0, 0, 0)
    assert isinstance(events[0], Diagnostic) and (events[0].kind, events[0].text) == (
        "bad_event",
        "{oops",
    )


def test_decoder_azure_on_your_data_citations() -> None:
    doc = {"content": "Tents sleep two.", "title": "Tents", "url": None, "filepath": "tents.md"}
    context = {"citations": [doc], "intent": '["tents"]'}
    events = collect(
        from_openai(
            [
                chunk({"role": "assistant", "context": context}),
                chunk({"content": "Two [doc1]."}, "stop"),
            ],
            stream_id="s",
        )
    )
    assert events == [
        Citation(
            "azure_citation",
            url="tents.md",
            title="Tents",
            cited_text="Tents sleep two.",
            raw={**doc, "number": 1},
        ),
        TextDelta("Two [doc1]."),
        StreamDone("complete", 0, 0, 11),
    ]


def test_decoder_chat_url_citation_annotations() -> None:
    note = {
        "type": "url_citation",
        "url_citation": {"url": "https://e.org", "title": "E", "start_index": 3, "end_index": 8},
    }
    items = [chunk({"content": "It's [E.org]."}), chunk({"annotations": [note]}, "stop")]
    assert collect(from_openai(items, stream_id="s")) == [
        TextDelta("It's [E.org]."),
        Citation("url_citation", "https://e.org", "E", start=3, end=8, raw=note),
        StreamDone("complete", 0, 0, 13),
    ]


def test_decoder_responses_items_that_arrive_whole_when_done() -> None:
    """A server that sends no deltas: the done items' text, refusal, annotations and
    reasoning summary parts are read like deltas would be."""
    note = {"type": "url_citation", "url": "u", "title": "T", "start_index": 0, "end_index": 2}
    reasoning = {
        "type": "reasoning",
        "id": "rs",
        "summary": [{"type": "summary_text", "text": "a"}, {"type": "summary_text", "text": "b"}],
    }
    message = {
        "type": "message",
        "id": "m",
        "content": [
            {"type": "output_text", "text": "Hé there", "annotations": [note]},
            {"type": "refusal", "refusal": "no more"},
        ],
    }
    events = collect(
        from_openai(
            [
                {"type": "response.output_text.delta", "output_index": 0, "delta": "x"},
                {"type": "response.output_item.done", "output_index": 1, "item": reasoning},
                {"type": "response.output_item.done", "output_index": 2, "item": message},
                {"type": "response.completed", "response": {}},
            ],
            stream_id="s",
        )
    )
    assert events == [
        TextDelta("x"),
        ReasoningDelta("a"),
        ReasoningDelta("\n\n"),
        ReasoningDelta("b"),
        TextDelta("Hé there"),
        Citation("url_citation", "u", "T", start=1, end=3, raw=note),
        RefusalDelta("no more"),
        StreamDone("complete", 0, 0, 9),
    ]

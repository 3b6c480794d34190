"""Ends that mean something else (issue 25, item 3).

* Anthropic's ``stop_reason: "pause_turn"`` (a long run of its own tools, paused): the
  stream ends ``StreamDone("paused")``, never ``complete``, and ``run_turns`` sends the
  turn back as it stands (its ``server_tool_use`` and ``web_search_tool_result`` blocks
  echoed in place) so the next turn continues it;
* a Chat stream that ends with ``data: [DONE]`` but no ``finish_reason`` while a call
  with complete arguments is open: the call is complete; without ``[DONE]`` (or with
  arguments cut short) it is ``ActionInvalid(truncated)``.

Each as dicts, as SSE cut every few bytes, and through the real SDK over HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.support.replay import ReplayServer, Reply, acollect, collect, pieces_of
from tests.support.replay.wire import sse
from unspool import ActionRegistry, Dispatcher, run_turns
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    StreamDone,
    TextDelta,
    Usage,
)
from unspool.sources._sse import SSEDecoder
from unspool.sources.providers._anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers._openai import OpenAIDecoder, from_openai
from unspool.web import encode_sse

MESSAGES = [{"role": "user", "content": "What happened in Lyon today?"}]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def fed(decoder: Any, payloads: list[dict[str, Any]]) -> list[Event]:
    events: list[Event] = []
    for payload in payloads:
        events += collect(decoder.feed(json.loads(json.dumps(payload))))
    return events + decoder.finish()


def cut(decoder: Any, body: bytes, size: int) -> list[Event]:
    reader = SSEDecoder()
    events: list[Event] = []
    for piece in pieces_of(body, size):
        for message in reader.feed(piece):
            events += collect(decoder.feed(message))
    for message in reader.finish():
        events += collect(decoder.feed(message))
    return events + decoder.finish()


# ------------------------------------------------------------------ pause_turn

FOUND = [
    {
        "type": "web_search_result",
        "url": "https://example.org/lyon",
        "title": "Lyon — actualités",
        "encrypted_content": "EqgfCioIARgBIiQ3",
        "page_age": "1 hour ago",
    }
]
SEARCH = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": FOUND}


def anthropic_turn(blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]], stop: str) -> list[dict[str, Any]]:  # fmt: skip
    message = {"id": "msg_p", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 30, "output_tokens": 1}}  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    for index, (start, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 20}})  # fmt: skip
    events.append({"type": "message_stop"})
    return events


PAUSED = anthropic_turn(
    [
        ({"type": "text", "text": ""}, [{"type": "text_delta", "text": "Je cherche…"}]),
        (SEARCH, [{"type": "input_json_delta", "partial_json": '{"query": "Lyon"}'}]),
        (RESULT, []),
    ],
    "pause_turn",
)
ANSWERED = anthropic_turn(
    [({"type": "text", "text": ""}, [{"type": "text_delta", "text": "Il pleut à Lyon."}])],
    "end_turn",
)
COUNTED = Usage(30, 20, 50, raw={"input_tokens": 30, "output_tokens": 20})


def paused_events(stream: str = "s") -> list[Event]:
    hosted = f"{stream}/hosted:0"
    return [
        TextDelta("Je cherche…"),
        HostedToolStarted(hosted, "web_search", "srvtoolu_01", "server_tool_use"),
        HostedToolInput(hosted, "web_search", {"query": "Lyon"}),
        HostedToolResult(hosted, "web_search", FOUND, None, "web_search_tool_result"),
        COUNTED,
        StreamDone("paused", 0, 0, 11),
    ]


def test_pause_turn_is_paused_as_dicts_cut_and_in_the_web_formats() -> None:
    assert fed(AnthropicDecoder(stream_id="s"), PAUSED) == paused_events()
    body = sse(PAUSED, named=True)
    for size in (2, 7):
        assert cut(AnthropicDecoder(stream_id="s"), body, size) == paused_events()
    frames = b"".join(encode_sse(paused_events(), format="ai-sdk", message_id="m"))
    assert b'{"type":"finish","finishReason":"other"}' in frames
    frames = b"".join(encode_sse(paused_events(), format="ag-ui", thread_id="t", run_id="r"))
    assert b'"reason":"paused"' in frames


def test_pause_turn_through_the_sdk(server: ReplayServer) -> None:
    server.play(Reply(pieces_of(sse(PAUSED, named=True), 5)))
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    stream = client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    assert collect(from_anthropic(stream, stream_id="s")) == paused_events()


async def test_run_turns_continues_a_paused_turn(server: ReplayServer) -> None:
    ran: list[str] = []
    registry = ActionRegistry()

    @registry.action
    def web_search(query: str) -> str:  # planted: the provider's own tool never runs here
        ran.append(query)
        return "no"

    server.play(Reply([sse(PAUSED, named=True)]), Reply([sse(ANSWERED, named=True)]))
    before = len(server.requests)
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)

    async def call(messages: list[Any]) -> Any:
        return await client.messages.create(
            model="m", max_tokens=99, messages=messages, stream=True
        )

    loop = run_turns(
        call, MESSAGES, dispatcher=Dispatcher(registry), provider="anthropic", stream_id="c"
    )
    events = await acollect(loop)
    assert ran == []
    assert (loop.turns, loop.stopped) == (2, "answered")
    assert events == [
        *paused_events("c/0"),
        TextDelta("Il pleut à Lyon."),
        COUNTED,
        StreamDone("complete", 0, 0, 16),
    ]
    assert loop.usage == Usage(60, 40, 100, raw={"input_tokens": 60, "output_tokens": 40})
    paused_turn = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Je cherche…"},
            {**SEARCH, "input": {"query": "Lyon"}},
            RESULT,
        ],
    }
    requests = server.requests[before:]
    assert len(requests) == 2
    assert requests[1][2]["messages"] == [*MESSAGES, paused_turn]  # sent back as it stands
    assert loop.messages == [
        *MESSAGES,
        paused_turn,
        {"role": "assistant", "content": [{"type": "text", "text": "Il pleut à Lyon."}]},
    ]


# ------------------------------------------------------------------ [DONE] without a finish reason


def chat(delta: dict[str, Any]) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": None}
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [choice]}  # fmt: skip


def no_finish(pieces: list[str]) -> list[dict[str, Any]]:
    """A call streamed in ``pieces``, and no chunk with a finish reason (as some
    compatible servers end)."""
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}  # fmt: skip
    chunks = [chat({"role": "assistant", "content": "Voilà."}), chat({"tool_calls": [head]})]
    return chunks + [
        chat({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces
    ]


WHOLE = ['{"city": ', '"Zürich"}']
ARGS = {"city": "Zürich"}
OPENED = [
    TextDelta("Voilà."),
    ActionStarted("s:0", 0, "get_weather", "call_1"),
    ActionArgsDelta("s:0", 0, {}, '{"city": '),
    ActionArgsDelta("s:0", 0, ARGS, '"Zürich"}'),
]
CUT = ({"message": "the stream was cut off inside this tool call"},)


def test_done_without_a_finish_reason_completes_a_whole_call() -> None:
    body = sse(no_finish(WHOLE), named=False, done=True)
    expected = [
        *OPENED,
        ActionComplete("s:0", 0, "get_weather", ARGS, "call_1"),
        StreamDone("complete", 1, 0, 6),
    ]
    for size in (1, 3, 8):
        assert cut(OpenAIDecoder(stream_id="s"), body, size) == expected


def test_no_done_or_arguments_cut_short_stay_truncated() -> None:
    truncated = [
        *OPENED,
        ActionInvalid("s:0", 0, "get_weather", "truncated", CUT, '{"city": "Zürich"}', "call_1"),
        StreamDone("truncated", 0, 1, 6),
    ]
    without_done = sse(no_finish(WHOLE), named=False)
    assert cut(OpenAIDecoder(stream_id="s"), without_done, 4) == truncated
    assert fed(OpenAIDecoder(stream_id="s"), no_finish(WHOLE)) == truncated  # no marker at all
    short = sse(no_finish(['{"city": ', '"Zür']), named=False, done=True)
    events = cut(OpenAIDecoder(stream_id="s"), short, 4)
    raw = '{"city": "Zür'
    assert events[-2:] == [
        ActionInvalid("s:0", 0, "get_weather", "truncated", CUT, raw, "call_1"),
        StreamDone("truncated", 0, 1, 6),
    ]


def test_through_the_sdk_which_hides_done_the_call_stays_truncated(server: ReplayServer) -> None:
    """The openai SDK stops at ``[DONE]`` without saying so: a stream it ends looks cut, and
    the call is not run (documented in ``from_openai``)."""
    server.play(Reply(pieces_of(sse(no_finish(WHOLE), named=False, done=True), 6)))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    events = collect(from_openai(stream, stream_id="s"))
    assert events[-1] == StreamDone("truncated", 0, 1, 6)

"""Token usage from every adapter (issue 25, item 2): one exact ``Usage`` just before
``StreamDone``, from streams in each provider's documented shape (OpenAI's
``stream_options.include_usage`` chunk, Groq's ``x_groq.usage``, DeepSeek's cache
counts, OpenRouter's cost, Responses' ``response.completed``, Anthropic's cache counts in
``message_start`` and cumulative ``message_delta``, Gemini's thoughts and cached tokens,
Bedrock's cache reads and writes, Ollama's counts), fed as dicts, as SSE cut every few
bytes, and through the real SDKs over HTTP; ``run_turns`` sums them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from google import genai

from tests.support.replay import ReplayServer, Reply, acollect, collect, pieces_of
from tests.support.replay.gemini_wire import gemini_sse
from tests.support.replay.wire import sse
from unspool.events import Diagnostic, Event, StreamDone, TextDelta, Usage
from unspool.sources._sse import SSEDecoder
from unspool.sources._usage import SHAPES, read_usage
from unspool.sources.providers._anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers._bedrock import BedrockDecoder
from unspool.sources.providers._gemini import GeminiDecoder, from_gemini
from unspool.sources.providers._openai import OpenAIDecoder, from_openai

MESSAGES = [{"role": "user", "content": "?"}]


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
    """The SSE body cut every ``size`` bytes, through unspool's own SSE reader."""
    reader = SSEDecoder()
    events: list[Event] = []
    for piece in pieces_of(body, size):
        for message in reader.feed(piece):
            events += collect(decoder.feed(message))
    for message in reader.finish():
        events += collect(decoder.feed(message))
    return events + decoder.finish()


# ------------------------------------------------------------------ Chat Completions


def chat(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body = {"id": "chatcmpl-u", "object": "chat.completion.chunk", "created": 1767225600}
    return {**body, "model": "m", "choices": choices, **extra}


OPENAI_USAGE = {  # stream_options={"include_usage": True}: a last chunk without choices
    "prompt_tokens": 1117,
    "completion_tokens": 46,
    "total_tokens": 1163,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 30, "audio_tokens": 0},
}
GROQ_USAGE = {"queue_time": 0.02, "prompt_tokens": 40, "prompt_time": 0.003, "completion_tokens": 8, "completion_time": 0.01, "total_tokens": 48, "total_time": 0.013}  # fmt: skip
DEEPSEEK_USAGE = {"prompt_tokens": 60, "completion_tokens": 12, "total_tokens": 72, "prompt_cache_hit_tokens": 32, "prompt_cache_miss_tokens": 28, "completion_tokens_details": {"reasoning_tokens": 5}}  # fmt: skip
OPENROUTER_USAGE = {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14, "cost": 0.00042, "is_byok": False, "prompt_tokens_details": {"cached_tokens": 0}, "cost_details": {"upstream_inference_cost": None}, "completion_tokens_details": {"reasoning_tokens": 0}}  # fmt: skip

CHAT_STREAMS: dict[str, tuple[list[dict[str, Any]], Usage]] = {
    "openai": (
        [
            chat({"role": "assistant", "content": ""}, usage=None),
            chat({"content": "Héllo"}, usage=None),
            chat({}, "stop", usage=None),
            chat(None, usage=OPENAI_USAGE),
        ],
        Usage(1117, 46, 1163, 1024, None, 30, OPENAI_USAGE),
    ),
    "groq": (  # usage under x_groq, on the last chunk
        [
            chat({"role": "assistant", "content": "Héllo"}, x_groq={"id": "req_01"}),
            chat({}, "stop", x_groq={"id": "req_01", "usage": GROQ_USAGE}),
        ],
        Usage(40, 8, 48, raw=GROQ_USAGE),
    ),
    "deepseek": (  # its cache hits beside prompt_tokens, usage on the finishing chunk
        [
            chat({"role": "assistant", "content": "Héllo"}, usage=None),
            chat({"content": ""}, "stop", usage=DEEPSEEK_USAGE),
        ],
        Usage(60, 12, 72, 32, None, 5, DEEPSEEK_USAGE),
    ),
    "openrouter": (  # the cost of the call, in credits
        [
            chat({"role": "assistant", "content": "Héllo"}),
            chat({"content": ""}, "stop", usage=OPENROUTER_USAGE),
        ],
        Usage(10, 4, 14, 0, None, 0, OPENROUTER_USAGE),
    ),
}


def chat_expected(usage: Usage) -> list[Event]:
    return [TextDelta("Héllo"), usage, StreamDone("complete", 0, 0, 5)]


@pytest.mark.parametrize("name", CHAT_STREAMS)
def test_chat_usage_as_dicts_and_as_sse_cut_every_few_bytes(name: str) -> None:
    chunks, usage = CHAT_STREAMS[name]
    assert fed(OpenAIDecoder(stream_id="s"), chunks) == chat_expected(usage)
    body = sse(chunks, named=False, done=True)
    for size in (1, 3, 7):
        assert cut(OpenAIDecoder(stream_id="s"), body, size) == chat_expected(usage)


@pytest.mark.parametrize("name", CHAT_STREAMS)
def test_chat_usage_through_the_sdk(server: ReplayServer, name: str) -> None:
    chunks, usage = CHAT_STREAMS[name]
    server.play(Reply(pieces_of(sse(chunks, named=False, done=True), 5)))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    stream = client.chat.completions.create(
        model="m",
        messages=MESSAGES,  # type: ignore[arg-type]
        stream=True,
        stream_options={"include_usage": True},
    )
    assert collect(from_openai(stream, stream_id="s")) == chat_expected(usage)


def test_usage_null_on_every_chunk_is_no_usage_and_a_bad_one_is_reported() -> None:
    chunks = [chat({"content": "Hi"}, usage=None), chat({}, "stop", usage=None)]
    assert fed(OpenAIDecoder(stream_id="s"), chunks) == [
        TextDelta("Hi"),
        StreamDone("complete", 0, 0, 2),
    ]
    bad = [chat({"content": "Hi"}), chat({}, "stop", usage="12 tokens")]
    assert fed(OpenAIDecoder(stream_id="s"), bad) == [
        TextDelta("Hi"),
        Diagnostic("bad_event", "this OpenAI usage is not an object", text='"12 tokens"'),
        StreamDone("complete", 0, 0, 2),
    ]


# ------------------------------------------------------------------ Responses API

RESPONSES_USAGE = {
    "input_tokens": 328,
    "input_tokens_details": {"cached_tokens": 256},
    "output_tokens": 52,
    "output_tokens_details": {"reasoning_tokens": 40},
    "total_tokens": 380,
}


def responses_events(status: str = "completed") -> list[dict[str, Any]]:
    base = {"id": "resp_u", "object": "response", "created_at": 1767225600, "model": "gpt-5", "output": []}  # fmt: skip
    message = {"id": "msg_u", "type": "message", "role": "assistant", "status": "in_progress", "content": []}  # fmt: skip
    part = {"type": "output_text", "text": "", "annotations": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**base, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        {
            "type": "response.content_part.added",
            "item_id": "msg_u",
            "output_index": 0,
            "content_index": 0,
            "part": part,
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_u",
            "output_index": 0,
            "content_index": 0,
            "delta": "Héllo",
            "logprobs": [],
        },
        {
            "type": f"response.{status}",
            "response": {**base, "status": status, "usage": RESPONSES_USAGE},
        },
    ]
    return [{**e, "sequence_number": i} for i, e in enumerate(events)]


RESPONSES_COUNTED = Usage(328, 52, 380, 256, None, 40, RESPONSES_USAGE)


def test_responses_usage_as_dicts_cut_and_through_the_sdk(server: ReplayServer) -> None:
    expected = [TextDelta("Héllo"), RESPONSES_COUNTED, StreamDone("complete", 0, 0, 5)]
    assert fed(OpenAIDecoder(stream_id="s"), responses_events()) == expected
    body = sse(responses_events(), named=True)
    assert cut(OpenAIDecoder(stream_id="s"), body, 4) == expected
    server.play(Reply(pieces_of(body, 6)))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    stream = client.responses.create(model="m", input="?", stream=True)
    assert collect(from_openai(stream, stream_id="s")) == expected
    incomplete = fed(OpenAIDecoder(stream_id="s"), responses_events("incomplete"))
    assert incomplete[-2:] == [RESPONSES_COUNTED, StreamDone("truncated", 0, 0, 5)]


# ------------------------------------------------------------------ Anthropic

START_USAGE = {"input_tokens": 21, "cache_creation_input_tokens": 188, "cache_read_input_tokens": 1800, "output_tokens": 1, "service_tier": "standard"}  # fmt: skip
DELTA_USAGE = {"input_tokens": 21, "cache_creation_input_tokens": 188, "cache_read_input_tokens": 1800, "output_tokens": 77, "server_tool_use": {"web_search_requests": 1}}  # fmt: skip


def anthropic_stream() -> list[dict[str, Any]]:
    message = {"id": "msg_u", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "stop_sequence": None, "usage": START_USAGE}  # fmt: skip
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Héllo"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": DELTA_USAGE,
        },
        {"type": "message_stop"},
    ]


# input: 21 + 1800 read + 188 written; the delta's cumulative output replaces the start's 1
ANTHROPIC_COUNTED = Usage(2009, 77, 2086, 1800, 188, None, {**START_USAGE, **DELTA_USAGE})


async def test_anthropic_usage_as_dicts_cut_and_through_the_sdk(server: ReplayServer) -> None:
    expected = [TextDelta("Héllo"), ANTHROPIC_COUNTED, StreamDone("complete", 0, 0, 5)]
    assert fed(AnthropicDecoder(stream_id="s"), anthropic_stream()) == expected
    body = sse(anthropic_stream(), named=True)
    assert cut(AnthropicDecoder(stream_id="s"), body, 3) == expected
    server.play(Reply(pieces_of(body, 7)))
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
    stream = await client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    assert await acollect(from_anthropic(stream, stream_id="s")) == expected


# ------------------------------------------------------------------ Gemini, Bedrock

GEMINI_USAGE = {
    "promptTokenCount": 120,
    "candidatesTokenCount": 9,
    "thoughtsTokenCount": 31,
    "cachedContentTokenCount": 100,
    "totalTokenCount": 160,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 120}],
}


def gemini_chunks() -> list[dict[str, Any]]:
    first = {"promptTokenCount": 120, "totalTokenCount": 120}  # counts grow chunk by chunk
    text = {"content": {"parts": [{"text": "Héllo"}], "role": "model"}, "index": 0}
    return [
        {"candidates": [text], "usageMetadata": first, "modelVersion": "gemini-2.5-flash"},
        {
            "candidates": [
                {
                    **text,
                    "content": {"parts": [{"text": ""}], "role": "model"},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": GEMINI_USAGE,
            "modelVersion": "gemini-2.5-flash",
        },
    ]


# output: 9 candidates + 31 thoughts
GEMINI_COUNTED = Usage(120, 40, 160, 100, None, 31, GEMINI_USAGE)


def test_gemini_usage_as_dicts_and_through_the_sdk(server: ReplayServer) -> None:
    expected = [TextDelta("Héllo"), GEMINI_COUNTED, StreamDone("complete", 0, 0, 5)]
    assert fed(GeminiDecoder(stream_id="s"), gemini_chunks()) == expected
    server.play(Reply(pieces_of(gemini_sse(gemini_chunks()), 5)))
    client = genai.Client(api_key="k", http_options={"base_url": server.url})
    stream = client.models.generate_content_stream(model="gemini-2.5-flash", contents="?")
    events = collect(from_gemini(stream, stream_id="s"))
    assert events[0] == TextDelta("Héllo") and events[-1] == StreamDone("complete", 0, 0, 5)
    usage = events[1]
    assert isinstance(usage, Usage)
    assert usage.to_dict() == GEMINI_COUNTED.to_dict()  # the SDK's dump: the same record


BEDROCK_USAGE = {"inputTokens": 15, "outputTokens": 20, "totalTokens": 1235, "cacheReadInputTokens": 1000, "cacheWriteInputTokens": 200}  # fmt: skip


def test_bedrock_usage_with_its_cache() -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Héllo"}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": BEDROCK_USAGE, "metrics": {"latencyMs": 420}}},
    ]
    assert fed(BedrockDecoder(stream_id="s"), events) == [
        TextDelta("Héllo"),
        Usage(1215, 20, 1235, 1000, 200, None, BEDROCK_USAGE),
        StreamDone("complete", 0, 0, 5),
    ]


# ------------------------------------------------------------------ the event itself


def test_usage_adds_up_counts_and_raw_numbers() -> None:
    a = Usage(10, 5, 15, None, None, 2, {"cost": 0.5, "details": {"n": 1}, "tier": "a"})
    b = Usage(4, 1, 5, 3, None, None, {"cost": 0.25, "details": {"n": 2}, "tier": "b"})
    assert a + b == Usage(14, 6, 20, 3, None, 2, {"cost": 0.75, "details": {"n": 3}, "tier": "b"})
    assert json.loads(json.dumps((a + b).to_dict(), allow_nan=False))["type"] == "usage"


def test_every_shape_reads_nothing_from_an_empty_record() -> None:
    assert all(read_usage(shape, {}) is None for shape in SHAPES)
    assert read_usage("openai_chat", {"prompt_tokens": True, "completion_tokens": "3"}) is None

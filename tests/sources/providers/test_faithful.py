"""What providers really send, through the real SDK clients over real HTTP (issue 14, 1-5).

Each stream of :mod:`tests.support.replay.faithful` is written by the replay server whole, every 7
bytes, cut inside every multi-byte UTF-8 character and (for a few) one byte at a time;
the SDK reads it like an API response and the events must be exactly the expected
ones.  A last test feeds every fixture payload by payload: each kind of payload that
carries content yields at least one event.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.support.replay import ReplayServer, Reply, acollect, chunkings, collect, load, pieces_of
from tests.support.replay.expected_faithful import EXPECTED_FAITHFUL as EXPECTED
from tests.support.replay.faithful import STREAMS
from unspool.cli._replay import guess_protocol, load_recording
from unspool.events import Citation, Event
from unspool.sources._generate import generate
from unspool.sources.providers._anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers._openai import OpenAIDecoder, from_openai

MESSAGES = [{"role": "user", "content": "?"}]
CASES = [(name, how) for name in EXPECTED for how in chunkings(load(name))]
BYTE_BY_BYTE = [
    "openai_chat_mistral_parts.sse",
    "openai_responses_client_tools.sse",
    "anthropic_citations_refusal.sse",
]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def call(server: ReplayServer, name: str) -> Any:
    """The real SDK's streamed call for the fixture's API."""
    if name.startswith("anthropic"):
        client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        return from_anthropic(
            client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True),  # type: ignore[arg-type]
            stream_id="stream",
        )
    oai = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    if name.startswith("openai_responses"):
        stream: Any = oai.responses.create(model="m", input="?", stream=True)
    elif name.startswith("openai_completions"):
        stream = oai.completions.create(model="m", prompt="?", stream=True)
    else:
        stream = oai.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    return from_openai(stream, stream_id="stream")


async def acall(server: ReplayServer, name: str) -> Any:
    if name.startswith("anthropic"):
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        stream: Any = await client.messages.create(
            model="m",
            max_tokens=9,
            messages=MESSAGES,  # type: ignore[arg-type]
            stream=True,
        )
        return from_anthropic(stream, stream_id="stream")
    oai = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    if name.startswith("openai_responses"):
        stream = await oai.responses.create(model="m", input="?", stream=True)
    elif name.startswith("openai_completions"):
        stream = await oai.completions.create(model="m", prompt="?", stream=True)
    else:
        stream = await oai.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    return from_openai(stream, stream_id="stream")


@pytest.mark.parametrize(("name", "how"), CASES)
def test_sdk_sync(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how]))
    assert collect(call(server, name)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_sdk_async(server: ReplayServer, name: str) -> None:
    server.play(Reply(chunkings(load(name))["inside-utf8"]))
    assert await acollect(await acall(server, name)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_generate_recognises_each_stream(server: ReplayServer, name: str) -> None:
    """generate() picks the decoder from the provider table by the SDK's first event."""
    server.play(Reply([load(name)]))
    if name.startswith("anthropic"):
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        call: Any = lambda: client.messages.create(  # noqa: E731
            model="m", max_tokens=9, messages=MESSAGES, stream=True
        )
    elif name.startswith("openai_responses"):
        oai = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        call = lambda: oai.responses.create(model="m", input="?", stream=True)  # noqa: E731
    elif name.startswith("openai_completions"):
        oai = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        call = lambda: oai.completions.create(model="m", prompt="?", stream=True)  # noqa: E731
    else:
        oai = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        call = lambda: oai.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # noqa: E731
    assert await acollect(generate(call, stream_id="stream")) == EXPECTED[name]


@pytest.mark.parametrize("name", BYTE_BY_BYTE)
def test_sdk_byte_by_byte(server: ReplayServer, name: str) -> None:
    server.play(Reply(pieces_of(load(name), 1)))
    assert collect(call(server, name)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_cli_reads_and_sniffs_the_raw_body(name: str) -> None:
    from unspool.cli._parsers import make_stream_parser

    (stream,) = load_recording(load(name).decode(), "sse")
    protocol = guess_protocol(stream, "sse")
    assert protocol == ("anthropic-sse" if name.startswith("anthropic") else "openai-sse")
    parser = make_stream_parser(protocol, stream_id="stream")
    records = [r for chunk in stream.chunks for r in parser.feed(chunk.text)] + parser.finish()
    assert records == EXPECTED[name]


# ------------------------------------------------------------------ nothing dropped silently


def labels(payload: dict[str, Any]) -> list[str]:
    """What kinds of content a payload carries."""
    kind = payload.get("type")
    if kind is None:  # a Chat Completions or Completions chunk
        found = [key for key in ("citations", "search_results") if payload.get(key)]
        for choice in payload.get("choices") or ():
            delta = choice.get("delta") or {}
            found += [f"delta.{k}" for k, v in delta.items() if v and k != "role"]
            found += [k for k in ("text", "finish_reason") if choice.get(k)]
            verdicts = choice.get("content_filter_results") or {}
            if any(v.get("filtered") for v in verdicts.values()):
                found.append("content_filter_results:flagged")
        return found
    for field in ("item", "content_block", "delta"):
        inner = payload.get(field)
        if isinstance(inner, dict) and "type" in inner:
            return [f"{kind}:{inner['type']}"]
    if kind == "message_start":
        return [f"message_start:{block['type']}" for block in payload["message"]["content"]]
    return [kind]


CARRY_NOTHING = {
    # announcements and repeats of what other payloads carry
    "response.created",
    "response.completed",
    "response.content_part.added",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.refusal.done",
    "response.output_item.added:message",
    "response.output_item.done:message",
    "response.output_item.added:reasoning",
    "response.output_item.done:reasoning",
    "response.output_item.added:tool_search_call",  # provisional call_id: starts when done
    "response.output_item.done:custom_tool_call",  # closed by custom_tool_call_input.done
    "response.output_item.added:shell_call",  # says not where it runs: read when done
    "response.shell_call_command.added",  # the commands arrive whole with the item
    "response.shell_call_command.delta",
    "response.shell_call_command.done",
    "response.web_search_call.searching",
    "content_block_start:text",  # an empty text block: its text comes as deltas
    "message_stop",
    "ping",
}


DEFERRED = {"content_block_delta:citations_delta": Citation}
"""Content sent when its block ends (a citation spans the block's text)."""


def test_every_kind_of_content_in_the_fixtures_yields_an_event() -> None:
    produced: dict[str, list[Event]] = defaultdict(list)
    for name, payloads in STREAMS.items():
        decoder = AnthropicDecoder() if name.startswith("anthropic") else OpenAIDecoder()
        seen: list[Event] = []
        for payload in payloads:
            events = decoder.feed(json.loads(json.dumps(payload)))
            seen += events
            for label in labels(payload):
                produced[label] += [] if label in DEFERRED else events
        seen += decoder.finish()
        for label, kind in DEFERRED.items():
            if label in produced:
                produced[label] += [e for e in seen if isinstance(e, kind)]
    silent = sorted(label for label, events in produced.items() if not events)
    assert silent == sorted(CARRY_NOTHING & set(produced)), silent
    assert set(produced) >= CARRY_NOTHING  # every exemption is still exercised

"""Every OpenAI-compatible server of ``COMPATIBLE`` (issue 25, item 5): its recorded stream
read exactly, as dicts, as SSE cut every few bytes (its comments included) and through the
real ``openai`` SDK over HTTP; its failure mid-stream as it reports it; and the README's
table is the table in the code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.support.paths import ROOT
from tests.support.replay import ReplayServer, Reply, collect, pieces_of
from tests.support.replay.compatible import FAILURES, STREAMS
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionStarted,
    Diagnostic,
    Event,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)
from unspool.sources._sse import SSEDecoder
from unspool.sources.providers._compatible import COMPATIBLE, markdown
from unspool.sources.providers._openai import OpenAIDecoder, from_openai

README = ROOT / "README.md"
MESSAGES = [{"role": "user", "content": "?"}]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def raw(name: str) -> dict[str, Any]:
    """The usage record of the server's stream, as it sent it (null fields aside)."""
    payloads, _ = STREAMS[name]
    found: dict[str, Any] = {}
    for p in payloads:
        for record in (p.get("usage"), p.get("x_groq", {}).get("usage")):
            if record:
                found.update((k, v) for k, v in record.items() if v is not None)
    return found


def done(text_chars: int, complete: int = 0) -> StreamDone:
    return StreamDone("complete", complete, 0, text_chars)


TWICE = "the text came twice (choices[].text and delta.content): read once"
EXPECTED: dict[str, list[Event]] = {
    "vLLM": [
        ReasoningDelta("Je pense."),
        TextDelta("Bonjour"),
        Usage(12, 5, 17, raw=raw("vLLM")),
        done(7),
    ],
    "llama.cpp server": [
        ReasoningDelta("Hmm…"),
        TextDelta("Salut"),
        Usage(9, 4, 13, raw=raw("llama.cpp server")),
        done(5),
    ],
    "LM Studio": [
        ReasoningDelta("Réfléchir"),
        TextDelta("Oui"),
        Usage(20, 3, 23, raw=raw("LM Studio")),
        done(3),
    ],
    "Ollama (`/v1`)": [
        ReasoningDelta("Deux outils."),
        ActionStarted("s:0", 0, "get_weather", "call_a1"),
        ActionArgsDelta("s:0", 0, {"city": "Paris"}, '{"city":"Paris"}'),
        ActionComplete("s:0", 0, "get_weather", {"city": "Paris"}, "call_a1"),
        ActionStarted("s:1", 1, "get_time", "call_b2"),
        ActionArgsDelta("s:1", 1, {"zone": "CET"}, '{"zone":"CET"}'),
        ActionComplete("s:1", 1, "get_time", {"zone": "CET"}, "call_b2"),
        Usage(30, 22, 52, raw=raw("Ollama (`/v1`)")),
        done(0, 2),
    ],
    "OpenRouter": [
        ReasoningDelta("Vérifions."),
        Diagnostic(
            "redacted_thinking", "encrypted reasoning, not shown", text="reasoning.encrypted"
        ),
        TextDelta("C'est fait."),
        Usage(14, 9, 23, 0, None, 5, raw("OpenRouter")),
        done(11),
    ],
    "Groq": [
        ReasoningDelta("Simple."),
        TextDelta("Oui."),
        Usage(75, 20, 95, raw=raw("Groq")),
        done(4),
    ],
    "Together": [
        ReasoningDelta("Bon."),
        TextDelta("Ciao"),
        Diagnostic("duplicate_text", TWICE, text="choices[].text"),
        TextDelta(" a tutti"),
        Usage(8, 6, 14, raw=raw("Together")),
        done(12),
    ],
    "DeepSeek": [
        ReasoningDelta("Calculons."),
        TextDelta("42"),
        Usage(40, 18, 58, 32, None, 12, raw("DeepSeek")),
        done(2),
    ],
    "Mistral": [
        ReasoningDelta("Court."),
        TextDelta("Très bien"),
        Usage(10, 6, 16, raw=raw("Mistral")),
        done(9),
    ],
}
FAILED: dict[str, list[Event]] = {
    "vLLM": [StreamError("The engine died.", "InternalServerError")],
    "llama.cpp server": [StreamError("context shift disabled", "server_error")],
    "LM Studio": [StreamError("Model unloaded.", "error")],
    "Ollama (`/v1`)": [StreamError("model runner stopped", "api_error")],
    "OpenRouter": [StreamError("Provider disconnected", "error")],
    "Groq": [
        Diagnostic(
            "failed_generation",
            "the provider could not read the model's output as a tool call",
            text="<function=f>{}",
        ),
        StreamError("Failed to call a function.", "tool_use_failed"),
    ],
    "Together": [StreamError("Service unavailable", "server_error")],
    "DeepSeek": [
        Diagnostic(
            "finish_reason",
            "the provider ran out of resources",
            text="insufficient_system_resource",
        )
    ],
    "Mistral": [StreamError("Upstream timeout", "3000")],
}
NAMES = [row.name for row in COMPATIBLE]


def test_every_row_has_its_recorded_stream_and_failure() -> None:
    assert list(STREAMS) == list(EXPECTED) == list(FAILURES) == list(FAILED) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_the_servers_stream_as_dicts_and_cut(name: str) -> None:
    payloads, body = STREAMS[name]
    decoder = OpenAIDecoder(stream_id="s")
    events = [e for p in payloads for e in collect(decoder.feed(json.loads(json.dumps(p))))]
    assert events + decoder.finish() == EXPECTED[name]
    for size in (1, 5, 13):
        decoder, reader = OpenAIDecoder(stream_id="s"), SSEDecoder()
        events = []
        for piece in pieces_of(body, size):
            for message in reader.feed(piece):
                events += collect(decoder.feed(message))
        assert events + decoder.finish() == EXPECTED[name]


@pytest.mark.parametrize("name", NAMES)
def test_the_servers_stream_through_the_sdk(server: ReplayServer, name: str) -> None:
    _, body = STREAMS[name]
    server.play(Reply(pieces_of(body, 9)))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    assert collect(from_openai(stream, stream_id="s")) == EXPECTED[name]


@pytest.mark.parametrize("name", NAMES)
def test_the_servers_failure_mid_stream(name: str) -> None:
    decoder = OpenAIDecoder(stream_id="s")
    events = [e for p in FAILURES[name] for e in collect(decoder.feed(p))] + decoder.finish()
    ending = "truncated" if name == "DeepSeek" else "error"
    assert events == [TextDelta("Part"), *FAILED[name], StreamDone(ending, 0, 0, 4)]


def test_the_readme_table_is_the_table_in_the_code() -> None:
    assert markdown() in README.read_text(encoding="utf-8")

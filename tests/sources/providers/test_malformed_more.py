"""Gemini, Bedrock and Ollama payloads of the wrong shape never make an adapter raise:
each is reported and the stream still ends with exactly one ``StreamDone``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.malformed import FUZZ, mutated, values, well_formed
from tests.support.replay import collect
from unspool.events import Diagnostic, StreamDone
from unspool.sources.providers._bedrock import from_bedrock
from unspool.sources.providers._gemini import from_gemini
from unspool.sources.providers._ollama import from_ollama


def gemini_chunk(*parts: dict[str, Any], **candidate: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"parts": list(parts), "role": "model"}, **candidate}]}


GEMINI_TEMPLATES = [
    gemini_chunk({"text": "Hé"}),
    gemini_chunk({"text": "think", "thought": True}),
    gemini_chunk({"functionCall": {"name": "f", "args": {"a": [1]}, "id": "c1"}}),
    gemini_chunk({"functionCall": {"name": "g", "willContinue": True}}),
    gemini_chunk(
        {
            "functionCall": {
                "partialArgs": [{"jsonPath": "$.a", "stringValue": "x", "willContinue": True}],
                "willContinue": True,
            }
        }
    ),
    gemini_chunk({"functionCall": {}}),
    gemini_chunk({"executableCode": {"code": "1"}}),
    gemini_chunk({"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "x"}}),
    gemini_chunk({"toolCall": {"toolType": "URL_CONTEXT", "args": {"u": 1}, "id": "t"}}),
    gemini_chunk({"toolResponse": {"toolType": "URL_CONTEXT", "response": {}, "id": "t"}}),
    gemini_chunk(
        {"text": "t"},
        finishReason="STOP",
        citationMetadata={"citationSources": [{"startIndex": 0, "endIndex": 1, "uri": "u"}]},
    ),
    gemini_chunk(finishReason="MAX_TOKENS"),
    gemini_chunk(finishReason="SAFETY", index=1),
    {"promptFeedback": {"blockReason": "SAFETY"}},
    {"error": {"message": "boom", "status": "INTERNAL"}},
]
BEDROCK_TEMPLATES = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hé"}}},
    {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "t", "name": "f"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"a": 1'}}}},
    {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"reasoningContent": {"text": "r"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": {"title": "T", "sourceContent": [{"text": "q"}], "location": {"web": {"url": "u"}}}}}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    {"contentBlockStart": {"contentBlockIndex": 3, "start": {"toolUse": {"toolUseId": "s", "name": "nova_code_interpreter", "type": "server_tool_use"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 3, "delta": {"toolUse": {"input": '{"code": "1"}'}}}},
    {"contentBlockStop": {"contentBlockIndex": 3}},
    {"contentBlockStart": {"contentBlockIndex": 4, "start": {"toolResult": {"toolUseId": "s", "status": "error"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 4, "delta": {"toolResult": [{"text": "x"}, {"json": {"a": 1}}]}}},
    {"contentBlockStop": {"contentBlockIndex": 4}},
    {"messageStop": {"stopReason": "tool_use"}},
    {"messageStop": {"stopReason": "max_tokens"}},
    {"metadata": {"usage": {"inputTokens": 1}}},
    {"throttlingException": {"message": "slow down"}},
]  # fmt: skip
OLLAMA_TEMPLATES = [
    {"message": {"role": "assistant", "content": "Hé"}, "done": False},
    {"message": {"role": "assistant", "content": "", "thinking": "t"}, "done": False},
    {
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
        },
        "done": False,
    },
    {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "length"},
    {"error": "crashed"},
]


@FUZZ
@given(st.lists(mutated(GEMINI_TEMPLATES) | values, max_size=10))
def test_from_gemini_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_gemini(items, stream_id="s")))


@FUZZ
@given(st.lists(mutated(BEDROCK_TEMPLATES) | values, max_size=10))
def test_from_bedrock_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_bedrock(items, stream_id="s")))


@FUZZ
@given(st.lists(mutated(OLLAMA_TEMPLATES) | values, max_size=10))
def test_from_ollama_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_ollama(items, stream_id="s")))


@pytest.mark.parametrize(
    ("adapter", "name"),
    [(from_gemini, "Gemini"), (from_bedrock, "Bedrock"), (from_ollama, "Ollama")],
)
def test_bad_payload_report_names_the_provider(adapter: Any, name: str) -> None:
    # each decoder sets ProviderDecoder.provider; without it the report says "this provider"
    assert collect(adapter([7], stream_id="s")) == [
        Diagnostic("bad_event", f"this {name} stream item is not an object", None, "7"),
        StreamDone("complete", 0, 0, 0),
    ]


def test_unknown_bedrock_event_names_the_provider() -> None:
    assert collect(from_bedrock([{"surprise": {}}], stream_id="s")) == [
        Diagnostic(
            "unknown_event",
            "Bedrock event of type 'surprise' has no event: ignored",
            None,
            "surprise",
        ),
        StreamDone("complete", 0, 0, 0),
    ]

"""Shapes found by replaying real recorded provider streams (issue 14's hold-out).

Each case is a small event sequence written from the provider's documented wire
format, reproducing one shape that real streams showed: fed payload by payload to
the decoder, and (where the SDK reads the shape) through the real SDK client over
real HTTP, the events must be exactly the expected ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import ollama
import openai
import pytest
from google import genai

from tests.support.replay import ReplayServer, Reply, chunkings, collect, pieces_of
from tests.support.replay.gemini_wire import gemini_sse
from tests.support.replay.ollama_wire import ndjson
from tests.support.replay.wire import sse
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionResult,
    ActionStarted,
    Citation,
    Diagnostic,
    Event,
    ReasoningDelta,
    RefusalDelta,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)
from unspool.sources.providers import _table as table
from unspool.sources.providers._anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers._gemini import GeminiDecoder, from_gemini
from unspool.sources.providers._ollama import OllamaDecoder, from_ollama
from unspool.sources.providers._openai import OpenAIDecoder, from_openai
from unspool.sources.providers._tool_results import openai_chat_results

MESSAGES: Any = [{"role": "user", "content": "?"}]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def fed(decoder: Any, payloads: list[dict[str, Any]]) -> list[Event]:
    """Every event of ``payloads`` fed one by one (as decoded JSON), then the end."""
    events: list[Event] = []
    for payload in payloads:
        events += collect(decoder.feed(json.loads(json.dumps(payload))))
    return events + decoder.finish()


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [choice],
        **extra,
    }


# ------------------------------------------------------------------ Chat Completions: errors

ROUTER_ERROR = [
    chunk({"role": "assistant", "content": "Hel"}),
    chunk({"content": "lo"}),
    chunk(
        {"content": ""},
        "error",
        error={"code": "server_error", "message": "Provider disconnected unexpectedly"},
    ),
]


def test_an_error_object_beside_choices_fails_the_stream() -> None:
    events = fed(OpenAIDecoder(stream_id="s"), ROUTER_ERROR)
    assert events == [
        TextDelta("Hel"),
        TextDelta("lo"),
        StreamError("Provider disconnected unexpectedly", "server_error"),
        StreamDone("error", text_chars=5),
    ]


def test_a_lone_error_object_fails_the_stream_and_is_recognised() -> None:
    lone = {"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": 429}}
    assert table.recognise(lone) is None  # no row claims it: the fallback (OpenAI) reads it
    events = fed(OpenAIDecoder(stream_id="s"), [chunk({"content": "Hi"}), lone])
    assert events == [
        TextDelta("Hi"),
        StreamError("Rate limit reached", "rate_limit_error"),
        StreamDone("error", text_chars=2),
    ]


def test_finish_reason_error_alone_fails_the_stream() -> None:
    events = fed(OpenAIDecoder(stream_id="s"), [chunk({"content": "Hi"}), chunk({}, "error")])
    assert events == [
        TextDelta("Hi"),
        StreamError("the provider ended the reply with finish_reason 'error'", "error"),
        StreamDone("error", text_chars=2),
    ]


# ------------------------------------------------------------------ Chat Completions: tool calls

CUSTOM_CALL = [
    chunk({"role": "assistant", "content": None}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_sql",
                    "type": "custom",
                    "custom": {"name": "write_sql", "input": ""},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "custom": {"input": 'SELECT "nom" '}}]}),
    chunk({"tool_calls": [{"index": 0, "custom": {"input": "FROM villes"}}]}),
    chunk({}, "tool_calls"),
]
SQL = 'SELECT "nom" FROM villes'


def test_a_chat_custom_tool_call_streams_its_raw_input() -> None:
    events = fed(OpenAIDecoder(stream_id="s"), CUSTOM_CALL)
    assert events == [
        ActionStarted("s:0", 0, "write_sql", "call_sql"),
        ActionArgsDelta("s:0", 0, {"input": ""}, '{"input": "'),
        ActionArgsDelta("s:0", 0, {"input": 'SELECT "nom" '}, 'SELECT \\"nom\\" '),
        ActionArgsDelta("s:0", 0, {"input": SQL}, "FROM villes"),
        ActionArgsDelta("s:0", 0, {"input": SQL}, '"}'),
        ActionComplete("s:0", 0, "write_sql", {"input": SQL}, "call_sql"),
        StreamDone("complete", actions_complete=1),
    ]


def test_a_chat_custom_tool_call_through_the_sdk(server: ReplayServer) -> None:
    body = sse(CUSTOM_CALL, named=False, done=True)
    server.play(Reply(pieces_of(body, 5)))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    events = collect(from_openai(stream, stream_id="s"))
    assert events == fed(OpenAIDecoder(stream_id="s"), CUSTOM_CALL)


def test_a_custom_call_cut_by_the_token_limit_is_truncated() -> None:
    events = fed(OpenAIDecoder(stream_id="s"), [*CUSTOM_CALL[:3], chunk({}, "length")])
    assert kinds(events)[-2:] == ["ActionInvalid", "StreamDone"]
    assert events[-2].reason == "truncated"  # type: ignore[attr-defined]
    assert events[-1] == StreamDone("truncated", actions_invalid=1)


SAME_INDEX = [
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"tz": "UTC"}'},
                }
            ]
        }
    ),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Zürich"}'}}]}),
    chunk({}, "tool_calls"),
]


def test_calls_that_share_an_index_but_not_an_id_are_two_calls() -> None:
    events = fed(OpenAIDecoder(stream_id="s"), SAME_INDEX)
    done = [(e.name, e.args, e.action_id) for e in events if isinstance(e, ActionComplete)]
    assert done == [
        ("get_time", {"tz": "UTC"}, "call_a"),
        ("get_weather", {"city": "Zürich"}, "call_b"),
    ]
    assert events[-1] == StreamDone("complete", actions_complete=2)


def test_a_repeated_id_at_the_same_index_stays_one_call() -> None:
    again = [
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_a", "function": {"name": "f", "arguments": '{"a"'}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"arguments": ": 1}"}}]}),
        chunk({}, "tool_calls"),
    ]
    events = fed(OpenAIDecoder(stream_id="s"), again)
    done = [(e.name, e.args) for e in events if isinstance(e, ActionComplete)]
    assert done == [("f", {"a": 1})]


def test_chat_audio_is_reported_once() -> None:
    audio = [
        chunk({"audio": {"id": "audio_1", "transcript": "Bon", "data": "AAAA"}}),
        chunk({"audio": {"transcript": "jour"}}),
        chunk({}, "stop"),
    ]
    events = fed(OpenAIDecoder(stream_id="s"), audio)
    assert kinds(events) == ["Diagnostic", "StreamDone"]
    assert isinstance(events[0], Diagnostic)
    assert events[0].kind == "ignored_audio"


# ------------------------------------------------------------------ Anthropic refusal

REFUSAL = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_r",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 18, "output_tokens": 1},
        },
    },
    {"type": "ping"},
    {
        "type": "message_delta",
        "delta": {
            "stop_reason": "refusal",
            "stop_sequence": None,
            "stop_details": {
                "type": "refusal",
                "category": "cyber",
                "explanation": "This request was blocked under the usage policy.",
            },
        },
        "usage": {"output_tokens": 5},
    },
    {"type": "message_stop"},
]


def test_an_anthropic_refusal_carries_its_explanation() -> None:
    assert fed(AnthropicDecoder(stream_id="s"), REFUSAL) == [
        RefusalDelta("This request was blocked under the usage policy."),
        Usage(18, 5, 23, raw={"input_tokens": 18, "output_tokens": 5}),
        StreamDone("complete"),
    ]


def test_an_anthropic_refusal_explanation_through_the_sdk(server: ReplayServer) -> None:
    server.play(Reply(pieces_of(sse(REFUSAL, named=True), 6)))
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    stream = client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)
    events = collect(from_anthropic(stream, stream_id="s"))
    assert events == [
        RefusalDelta("This request was blocked under the usage policy."),
        Usage(18, 5, 23, raw={"input_tokens": 18, "output_tokens": 5}),
        StreamDone("complete"),
    ]


def test_a_refusal_without_details_still_marks_the_place() -> None:
    bare = [REFUSAL[0], {"type": "message_delta", "delta": {"stop_reason": "refusal"}}]
    assert fed(AnthropicDecoder(stream_id="s"), bare) == [
        RefusalDelta(""),
        Usage(18, 1, 19, raw={"input_tokens": 18, "output_tokens": 1}),  # message_start's
        StreamDone("complete"),
    ]


# ------------------------------------------------------------------ Responses API


def responses(*events: dict[str, Any]) -> list[dict[str, Any]]:
    created = {
        "type": "response.created",
        "response": {"id": "resp_1", "status": "in_progress", "output": []},
    }
    completed = {
        "type": "response.completed",
        "response": {"id": "resp_1", "status": "completed", "output": []},
    }
    return [created, *events, completed]


PATCH = {
    "type": "apply_patch_call",
    "id": "apc_0",
    "call_id": "call_p",
    "status": "in_progress",
    "operation": {"type": "create_file", "path": "liste.md", "diff": ""},
}
PATCHED = {
    **PATCH,
    "status": "completed",
    "operation": {"type": "create_file", "path": "liste.md", "diff": "+- [ ] Café\n"},
}


def test_apply_patch_diff_events_are_known_and_the_call_is_whole() -> None:
    stream = responses(
        {"type": "response.output_item.added", "output_index": 0, "item": PATCH},
        {
            "type": "response.apply_patch_call_operation_diff.delta",
            "item_id": "apc_0",
            "output_index": 0,
            "delta": "+- [ ] ",
        },
        {
            "type": "response.apply_patch_call_operation_diff.delta",
            "item_id": "apc_0",
            "output_index": 0,
            "delta": "Café\n",
        },
        {
            "type": "response.apply_patch_call_operation_diff.done",
            "item_id": "apc_0",
            "output_index": 0,
            "diff": "+- [ ] Café\n",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": PATCHED},
    )
    events = fed(OpenAIDecoder(stream_id="s"), stream)
    assert not any(isinstance(e, Diagnostic) for e in events)
    operation = {"diff": "+- [ ] Café\n", "path": "liste.md", "type": "create_file"}
    assert [e for e in events if isinstance(e, ActionComplete)] == [
        ActionComplete(
            "s:0",
            0,
            "apply_patch",
            {"operation": operation},
            "call_p",
            {"item_type": "apply_patch_call", "item_id": "apc_0"},
        )
    ]


def test_a_client_tool_search_takes_the_call_id_of_the_done_item() -> None:
    added = {
        "type": "tool_search_call",
        "id": "tsc_0",
        "status": "in_progress",
        "arguments": {},
        "call_id": "call_provisional",
        "execution": "client",
    }
    done = {
        **added,
        "status": "completed",
        "arguments": {"goal": "weather"},
        "call_id": "call_final",
    }
    stream = responses(
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
    )
    events = fed(OpenAIDecoder(stream_id="s"), stream)
    args = {"arguments": {"goal": "weather"}, "execution": "client"}
    attributes = {"item_type": "tool_search_call", "item_id": done["id"]}
    assert [e for e in events if isinstance(e, (ActionStarted, ActionComplete))] == [
        ActionStarted("s:0", 0, "tool_search", "call_final", attributes),
        ActionComplete("s:0", 0, "tool_search", args, "call_final", attributes),
    ]


def test_a_reasoning_item_given_whole_yields_its_reasoning_text() -> None:
    item = {
        "type": "reasoning",
        "id": "rs_0",
        "status": "completed",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "Compter les r."}],
    }
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Trois.", "annotations": []}],
    }
    stream = responses(
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
    )
    assert fed(OpenAIDecoder(stream_id="s"), stream) == [
        ReasoningDelta("Compter les r."),
        TextDelta("Trois."),
        StreamDone("complete", text_chars=6),
    ]


# ------------------------------------------------------------------ Ollama generate

GENERATE = [
    {"model": "gpt-oss:20b", "created_at": "2026-08-15T22:55:08Z", "response": "", "done": False},
    {
        "model": "gpt-oss:20b",
        "created_at": "2026-08-15T22:55:08Z",
        "response": "",
        "thinking": "Trois mots",
        "done": False,
    },
    {
        "model": "gpt-oss:20b",
        "created_at": "2026-08-15T22:55:08Z",
        "response": "",
        "thinking": ".",
        "done": False,
    },
    {
        "model": "gpt-oss:20b",
        "created_at": "2026-08-15T22:55:09Z",
        "response": "Doux, ",
        "done": False,
    },
    {
        "model": "gpt-oss:20b",
        "created_at": "2026-08-15T22:55:09Z",
        "response": "vif, curieux.",
        "done": False,
    },
    {
        "model": "gpt-oss:20b",
        "created_at": "2026-08-15T22:55:09Z",
        "response": "",
        "done": True,
        "done_reason": "stop",
        "eval_count": 9,
    },
]
GENERATED = [
    ReasoningDelta("Trois mots"),
    ReasoningDelta("."),
    TextDelta("Doux, "),
    TextDelta("vif, curieux."),
    Usage(None, 9, None, raw={"eval_count": 9}),  # /api/generate sent no prompt count here
    StreamDone("complete", text_chars=19),
]


def test_ollama_generate_chunks_are_read() -> None:
    assert table.recognise(GENERATE[0]) is table.provider("ollama")
    assert fed(OllamaDecoder(stream_id="s"), GENERATE) == GENERATED


def test_ollama_generate_through_the_sdk(server: ReplayServer) -> None:
    server.play(Reply(pieces_of(ndjson(GENERATE), 7), content_type="application/x-ndjson"))
    stream = ollama.Client(host=server.url).generate(model="gpt-oss:20b", prompt="?", stream=True)
    assert collect(from_ollama(stream, stream_id="s")) == GENERATED


def test_top_level_thinking_of_a_compatible_server_is_read() -> None:
    lines = [
        {"thinking": "Hmm", "done": False},
        {"response": "Oui", "done": True, "done_reason": "stop"},
    ]
    assert table.recognise(lines[0]) is table.provider("ollama")
    assert fed(OllamaDecoder(stream_id="s"), lines) == [
        ReasoningDelta("Hmm"),
        TextDelta("Oui"),
        StreamDone("complete", text_chars=3),
    ]


def test_an_id_that_changes_mid_call_continues_the_call() -> None:
    drifting = [
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": '{"a": '}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "id": "call_2", "function": {"arguments": "1}"}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "", "function": {"arguments": ""}}]}),
        chunk({}, "tool_calls"),
    ]
    events = fed(OpenAIDecoder(stream_id="s"), drifting)
    done = [(e.name, e.args, e.action_id) for e in events if isinstance(e, ActionComplete)]
    assert done == [("f", {"a": 1}, "call_1")]


# ------------------------------------------------------------------ Gemini grounding

ANSWER = ["Spain won Euro 2024, ", "defeating England 2–1 in the final."]
SEGMENT = {"endIndex": len("".join(ANSWER).encode()), "text": "".join(ANSWER)}
GROUNDED = [
    {"candidates": [{"content": {"parts": [{"text": ANSWER[0]}], "role": "model"}, "index": 0}]},
    {
        "candidates": [
            {
                "content": {"parts": [{"text": ANSWER[1]}], "role": "model"},
                "finishReason": "STOP",
                "index": 0,
                "groundingMetadata": {
                    "webSearchQueries": ["UEFA Euro 2024 winner"],
                    "groundingChunks": [
                        {"web": {"uri": "https://example.org/uefa", "title": "uefa.com"}},
                        {"web": {"uri": "https://example.org/news", "title": "news.example"}},
                        {"web": {"uri": "https://example.org/other", "title": "other.example"}},
                    ],
                    "groundingSupports": [{"segment": SEGMENT, "groundingChunkIndices": [0, 1]}],
                },
            }
        ],
        "modelVersion": "gemini-2.5-flash",
    },
]


def grounding(events: list[Event]) -> list[tuple[Any, ...]]:
    return [
        (e.kind, e.url, e.title, e.cited_text, e.start, e.end)
        for e in events
        if isinstance(e, Citation)
    ]


EXPECTED_GROUNDING = [
    ("grounding", "https://example.org/uefa", "uefa.com", "".join(ANSWER), 0, 56),
    ("grounding", "https://example.org/news", "news.example", "".join(ANSWER), 0, 56),
    ("grounding", "https://example.org/other", "other.example", None, None, None),
]


def test_gemini_grounding_sources_are_citations_of_their_segment() -> None:
    metadata = GROUNDED[1]["candidates"][0]["groundingMetadata"]
    again = {"candidates": [{"content": {"parts": []}, "groundingMetadata": metadata}]}
    events = fed(GeminiDecoder(stream_id="s"), [*GROUNDED, again])  # repeated: once each
    assert grounding(events) == EXPECTED_GROUNDING
    assert not any(isinstance(e, Diagnostic) for e in events)
    assert events[-1] == StreamDone("complete", text_chars=56)


def test_gemini_grounding_through_the_sdk(server: ReplayServer) -> None:
    server.play(Reply(chunkings(gemini_sse(GROUNDED))["inside-utf8"]))
    client = genai.Client(api_key="k", http_options={"base_url": server.url})
    stream = client.models.generate_content_stream(model="gemini-2.5-flash", contents="?")
    assert grounding(collect(from_gemini(stream, stream_id="s"))) == EXPECTED_GROUNDING


def test_grounding_that_names_no_source_is_reported_once() -> None:
    bare = {
        "candidates": [
            {
                "content": {"parts": [{"text": "Oui."}]},
                "finishReason": "STOP",
                "groundingMetadata": {"webSearchQueries": ["q"]},
            }
        ]
    }
    events = fed(GeminiDecoder(stream_id="s"), [bare, bare])
    assert [e.kind for e in events if isinstance(e, Diagnostic)] == ["grounding"]


# ------------------------------------------------------------------ Anthropic compaction, fallback


def anthropic_message(*blocks: tuple[dict[str, Any], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """A streamed message of ``(content block, its deltas)``, ending with ``end_turn``."""
    events: list[dict[str, Any]] = [REFUSAL[0]]
    for index, (block, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": "end_turn"}})
    return [*events, {"type": "message_stop"}]


def test_a_compaction_block_is_reported_once_and_a_fallback_names_the_models() -> None:
    stream = anthropic_message(
        (
            {"type": "compaction", "content": None},
            [{"type": "compaction_delta", "content": "## Résumé"}],
        ),
        (
            {"type": "thinking", "thinking": "", "signature": ""},
            [{"type": "thinking_delta", "thinking": "Hmm"}],
        ),
        (
            {"type": "fallback", "from": {"model": "claude-big"}, "to": {"model": "claude-small"}},
            [],
        ),
        ({"type": "text", "text": ""}, [{"type": "text_delta", "text": "Voilà."}]),
    )
    events = fed(AnthropicDecoder(stream_id="s"), stream)
    assert [e.kind for e in events if isinstance(e, Diagnostic)] == ["compaction", "fallback"]
    assert [e for e in events if not isinstance(e, Diagnostic)] == [
        ReasoningDelta("Hmm"),
        TextDelta("Voilà."),
        Usage(18, 1, 19, raw={"input_tokens": 18, "output_tokens": 1}),
        StreamDone("complete", text_chars=6),
    ]
    assert events[2] == Diagnostic(
        "fallback", "the provider fell back from claude-big to claude-small"
    )


def test_an_empty_or_null_error_field_is_not_a_failure() -> None:
    quiet = [chunk({"content": "Hi"}, error=None), chunk({}, "stop", error={})]
    assert fed(OpenAIDecoder(stream_id="s"), quiet) == [
        TextDelta("Hi"),
        StreamDone("complete", text_chars=2),
    ]


@pytest.mark.parametrize("reason", ["max_tokens", "model_context_window_exceeded"])
def test_compatible_servers_token_limit_reasons_truncate(reason: str) -> None:
    cut = [
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a": "x'}}
                ]
            }
        ),
        chunk({}, reason),
    ]
    events = fed(OpenAIDecoder(stream_id="s"), cut)
    assert kinds(events)[-2:] == ["ActionInvalid", "StreamDone"]
    assert events[-1] == StreamDone("truncated", actions_invalid=1)


def test_deepseek_insufficient_resource_truncates_and_is_reported() -> None:
    events = fed(
        OpenAIDecoder(stream_id="s"),
        [chunk({"content": "Par"}), chunk({}, "insufficient_system_resource")],
    )
    assert kinds(events) == ["TextDelta", "Diagnostic", "StreamDone"]
    assert events[-1] == StreamDone("truncated", text_chars=3)


# ------------------------------------------------------------------ Gemini's OpenAI-compatible endpoint

GEMINI_COMPAT = [
    chunk(
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "function-call-1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Genève"}'},
                    "extra_content": {"google": {"thought_signature": "c2lnLTE="}},
                }
            ],
        }
    ),
    chunk({}, "tool_calls"),
]


def test_gemini_compat_thought_signature_is_kept_and_sent_back() -> None:
    events = fed(OpenAIDecoder(stream_id="s"), GEMINI_COMPAT)
    assert events[0] == ActionStarted(
        "s:0", 0, "get_weather", "function-call-1", {"thought_signature": "c2lnLTE="}
    )
    result = ActionResult("s:0", 0, "get_weather", {"temp": 21})
    assistant, tool = openai_chat_results([*events, result])
    assert assistant["tool_calls"] == [
        {
            "id": "function-call-1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Genève"}'},
            "extra_content": {"google": {"thought_signature": "c2lnLTE="}},
        }
    ]
    assert tool == {"role": "tool", "tool_call_id": "function-call-1", "content": '{"temp": 21}'}

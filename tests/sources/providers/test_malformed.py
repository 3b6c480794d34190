"""Payloads of the wrong shape never make an adapter raise: each is reported and the
stream still ends with exactly one ``StreamDone`` (issue 12, item 5)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.malformed import (
    ANTHROPIC_TYPES,
    FIELDS,
    FUZZ,
    OPENAI_TYPES,
    mutated,
    values,
    well_formed,
)
from tests.support.replay import collect
from unspool.events import (
    Diagnostic,
    StreamDone,
    TextDelta,
)
from unspool.sources.providers._anthropic import from_anthropic
from unspool.sources.providers._openai import from_openai


@pytest.mark.parametrize(
    "payload",
    [
        {"choices": 1.5},
        {"choices": "abc"},
        {"choices": [{"index": {"a": 1}, "delta": {"content": "x"}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": 7}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [7]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": [1], "function": 3}]}}]},
        {"choices": [{"index": 0, "delta": "hello"}]},
        {"choices": [{"index": 0, "delta": {"content": 5}}]},
        {"choices": [{"index": 0, "delta": {"content": [{"type": "text", "text": 1}]}}]},
        {"choices": [{"index": 0, "delta": {"refusal": ["no"]}}]},
        {"choices": [{"index": 0, "finish_reason": 3}]},
        {"choices": [{"index": 0, "text": {"t": 1}}]},
        {"choices": [None]},
        {"choices": [], "citations": "https://x"},
        {"choices": [], "prompt_filter_results": 3},
        {"type": "response.output_text.delta", "delta": 5},
        {"type": "response.output_item.added", "item": "x"},
        {"type": "response.output_item.done", "output_index": 0, "item": {"type": 9}},
        {"type": "response.output_text.annotation.added", "annotation": 3},
        {"type": "response.something_new"},
        [1, 2],
        "text",
        7,
    ],
)
def test_from_openai_reports_a_bad_payload_and_ends(payload: Any) -> None:
    good = {"choices": [{"index": 0, "delta": {"content": "ok"}}]}
    events = collect(from_openai([payload, good], stream_id="s"))
    well_formed(events)
    assert TextDelta("ok") in events  # the stream goes on after the bad payload
    reports = [e for e in events if isinstance(e, Diagnostic)]
    assert reports and all(e.kind in ("bad_event", "unknown_event") for e in reports)
    assert events[-1] == StreamDone("complete", 0, 0, 2)


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "content_block_start", "index": {"a": 1}, "content_block": {"type": "text"}},
        {"type": "content_block_start", "index": 0, "content_block": 5},
        {"type": "content_block_delta", "index": [0], "delta": {"type": "text_delta"}},
        {"type": "content_block_delta", "index": 0, "delta": "x"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 1}},
        {"type": "content_block_stop", "index": None},
        {"type": "message_delta", "delta": 3},
        {"type": "message_delta", "delta": {"stop_reason": ["end_turn"]}},
        {"type": "message_start", "message": {"content": 4}},
        {"type": "brand_new_event"},
        {"no": "type"},
        None,
    ],
)
def test_from_anthropic_reports_a_bad_payload_and_ends(payload: Any) -> None:
    start = {"type": "content_block_start", "index": 1, "content_block": {"type": "text"}}
    good = {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "text_delta", "text": "ok"},
    }
    events = collect(from_anthropic([start, payload, good], stream_id="s"))
    well_formed(events)
    assert TextDelta("ok") in events
    assert any(isinstance(e, Diagnostic) for e in events)


# ------------------------------------------------------------------ fuzzing the shapes


def chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def item(kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"type": kind, **fields},
    }


TOOL = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}
OPENAI_TEMPLATES: list[dict[str, Any]] = [
    chat({"content": "hi", "reasoning_content": "hm", "refusal": "no"}),
    chat({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "t"}]}]}),
    chat({"content": [{"type": "text", "text": "x"}, {"type": "reference", "reference_ids": [1]}]}),
    chat({"tool_calls": [TOOL]}),
    chat({"context": {"citations": [{"content": "c", "title": "t", "url": "u"}]}}),
    chat({"tool_calls": [{"index": 0, "function": {"arguments": '1}'}}]}, "tool_calls"),
    chat({"function_call": {"name": "g", "arguments": "{}"}}, "length"),
    {"object": "text_completion", "choices": [{"index": 0, "text": "old", "finish_reason": None}]},
    {**chat({}, "content_filter"), "citations": ["https://a"], "search_results": [{"url": "https://a", "title": "A"}]},
    {"choices": [{"index": 0, "delta": {}, "content_filter_results": {"hate": {"filtered": True, "severity": "high"}}}]},
    {"type": "chunk", "chunk": chat({"content": "w"})},
    item("function_call", name="f", call_id="c", arguments=""),
    item("custom_tool_call", name="grammar", call_id="c", input=""),
    item("shell_call", call_id="c", action={"commands": ["ls"]}),
    item("tool_search_call", call_id="c", execution="client", arguments={}),
    item("web_search_call", id="ws"),
    item("shell_call", call_id="c2", environment={"type": "container_auto"}, action={"commands": ["ls"]}),
    item("custom_tool_call", name="x_keyword_search", call_id="xs_call_1", input=""),
    {"type": "response.output_item.done", "output_index": 5, "item": {"type": "mcp_call", "id": "m", "name": "f", "server_label": "s", "arguments": "{}", "output": "o", "error": {"message": "e"}, "status": "failed"}},
    {"type": "response.output_item.done", "output_index": 6, "item": {"type": "shell_call_output", "call_id": "c2", "output": [{"stdout": "x"}]}},
    {"type": "response.output_item.done", "output_index": 7, "item": {"type": "tool_search_output", "call_id": None, "execution": "server", "tools": []}},
    chat({"executed_tools": [{"index": 0, "type": "search", "arguments": "{}", "output": "r"}]}),
    {"type": "response.output_item.done", "output_index": 3, "item": {"type": "message", "content": [{"type": "output_text", "text": "t", "annotations": [{"type": "url_citation", "start_index": 0}]}, {"type": "refusal", "refusal": "r"}]}},
    {"type": "response.output_item.done", "output_index": 4, "item": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "s"}]}},
    chat({"annotations": [{"type": "url_citation", "url_citation": {"url": "u", "start_index": 0}}]}),
    {"type": "response.output_item.done", "output_index": 0, "item": {"type": "apply_patch_call", "call_id": "c", "operation": {"type": "delete_file", "path": "a"}}},
    {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"a": 1}'},
    {"type": "response.function_call_arguments.done", "output_index": 0, "arguments": '{"a": 1}'},
    {"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "x = 1"},
    {"type": "response.custom_tool_call_input.done", "output_index": 0, "input": "x = 1"},
    {"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "hey"},
    {"type": "response.output_text.annotation.added", "output_index": 1, "content_index": 0, "annotation": {"type": "url_citation", "url": "u", "start_index": 0, "end_index": 2}},
    {"type": "response.reasoning_summary_text.delta", "output_index": 2, "summary_index": 1, "delta": "r"},
    {"type": "response.refusal.delta", "output_index": 1, "delta": "no"},
    {"type": "response.completed", "response": {}},
    {"type": "response.incomplete", "response": {"incomplete_details": {"reason": "content_filter"}}},
]  # fmt: skip
ANTHROPIC_TEMPLATES: list[dict[str, Any]] = [
    {"type": "message_start", "message": {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}], "stop_reason": "tool_use"}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
    {"type": "content_block_start", "index": 2, "content_block": {"type": "server_tool_use", "id": "s", "name": "web_search"}},
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"q": 1}'}},
    {"type": "content_block_stop", "index": 2},
    {"type": "content_block_start", "index": 4, "content_block": {"type": "web_search_tool_result", "tool_use_id": "s", "content": {"type": "web_search_tool_result_error", "error_code": "x"}}},
    {"type": "content_block_start", "index": 5, "content_block": {"type": "mcp_tool_result", "tool_use_id": "m", "is_error": True, "content": [{"type": "text", "text": "e"}]}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "c"}}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"a": '}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "1}"}},
    {"type": "content_block_delta", "index": 3, "delta": {"type": "thinking_delta", "thinking": "t"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}},
    {"type": "message_delta", "delta": {"stop_reason": "refusal"}},
    {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
]  # fmt: skip


def events_of(types: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda kind, rest: {**rest, "type": kind} if kind is not None else rest,
        st.none() | st.sampled_from(types),
        st.dictionaries(st.sampled_from(FIELDS), values, max_size=6),
    )


@FUZZ
@given(st.lists(mutated(OPENAI_TEMPLATES) | events_of(OPENAI_TYPES) | values, max_size=10))
def test_from_openai_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_openai(items, stream_id="s")))


@FUZZ
@given(st.lists(mutated(ANTHROPIC_TEMPLATES) | events_of(ANTHROPIC_TYPES) | values, max_size=10))
def test_from_anthropic_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_anthropic(items, stream_id="s")))

"""Payloads of the wrong shape never make an adapter raise: each is reported and the
stream still ends with exactly one ``StreamDone`` (issue 12, item 5)."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay import collect
from unspool.events import (
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    StreamDone,
    TextDelta,
)
from unspool.sources.providers.anthropic import from_anthropic
from unspool.sources.providers.openai import from_openai


def kinds(events: list[Event]) -> list[str]:
    return [e.kind if isinstance(e, Diagnostic) else type(e).__name__ for e in events]


def well_formed(events: list[Event]) -> None:
    """One StreamDone, last; every started action ends once; no payload fell through
    to the last-resort report; a provider-run call starts once, before its input and its
    result (at most one of each), and never shares an id with an action."""
    assert isinstance(events[-1], StreamDone)
    assert sum(isinstance(e, StreamDone) for e in events) == 1
    assert "unreadable_event" not in kinds(events), events
    started = {e.id for e in events if isinstance(e, ActionStarted)}
    ended = Counter(e.id for e in events if isinstance(e, (ActionComplete, ActionInvalid)))
    assert all(ended[i] == 1 for i in started), events
    assert all(n == 1 for n in ended.values())
    hosted: set[str] = set()
    for phase in (HostedToolStarted, HostedToolInput, HostedToolResult):
        ids = [e.id for e in events if isinstance(e, phase)]
        assert len(ids) == len(set(ids)), events
        assert phase is HostedToolStarted or set(ids) <= hosted, events
        hosted.update(ids)
    assert not hosted & (started | set(ended)), events
    for event in events:  # each phase after the call started
        if isinstance(event, (HostedToolInput, HostedToolResult)):
            first = next(e for e in events if isinstance(e, HostedToolStarted) and e.id == event.id)
            assert events.index(first) < events.index(event), events


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

FIELDS = [
    "choices", "index", "delta", "message", "content", "text", "refusal", "reasoning",
    "reasoning_content", "tool_calls", "function", "function_call", "arguments", "name",
    "id", "call_id", "finish_reason", "object", "citations", "search_results", "url",
    "content_filter_results", "prompt_filter_results", "filtered", "thinking", "type",
    "item", "output_index", "item_id", "content_index", "summary_index", "annotation",
    "start_index", "end_index", "input", "action", "execution", "response", "error",
    "incomplete_details", "reason", "content_block", "partial_json", "stop_reason",
    "citation", "chunk", "context", "executed_tools", "environment", "tool_use_id",
    "is_error", "server_label", "output", "status",
]  # fmt: skip
OPENAI_TYPES = [
    "chunk", "response.output_text.delta", "response.output_text.annotation.added",
    "response.refusal.delta", "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta", "response.output_item.added",
    "response.output_item.done", "response.function_call_arguments.delta",
    "response.function_call_arguments.done", "response.custom_tool_call_input.delta",
    "response.custom_tool_call_input.done", "response.completed", "response.incomplete",
    "response.failed", "error", "response.created",
]  # fmt: skip
ITEM_TYPES = [
    "function_call", "custom_tool_call", "shell_call", "local_shell_call", "apply_patch_call",
    "computer_call", "tool_search_call", "mcp_approval_request", "web_search_call", "message",
    "reasoning", "mystery", "mcp_call", "code_interpreter_call", "shell_call_output",
    "tool_search_output", "x_search_call", "container_auto", "local",
]  # fmt: skip
ANTHROPIC_TYPES = [
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop", "ping", "error", "text", "citation",
]  # fmt: skip
BLOCK_TYPES = [
    "text", "thinking", "tool_use", "redacted_thinking", "server_tool_use",
    "web_search_tool_result", "text_delta", "input_json_delta", "thinking_delta",
    "citations_delta", "signature_delta", "mystery", "mcp_tool_use", "mcp_tool_result",
    "web_search_tool_result_error",
]  # fmt: skip

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-2, 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "a", '{"x": ', "1}", "é", "stop", "length", "tool_calls", "refusal"])
    | st.sampled_from(OPENAI_TYPES + ITEM_TYPES + ANTHROPIC_TYPES + BLOCK_TYPES)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=5)
    ),
    max_leaves=12,
)


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


@st.composite
def mutated(draw: st.DrawFn, templates: list[dict[str, Any]]) -> Any:
    """A well-formed event with up to three of its values replaced by anything."""
    event = copy.deepcopy(draw(st.sampled_from(templates)))
    for _ in range(draw(st.integers(0, 3))):
        spots: list[tuple[Any, Any]] = []
        stack: list[Any] = [event]
        while stack:
            node = stack.pop()
            keys = node.keys() if isinstance(node, dict) else range(len(node))
            for key in keys:
                spots.append((node, key))
                if isinstance(node[key], (dict, list)):
                    stack.append(node[key])
        if not spots:
            break
        node, key = draw(st.sampled_from(spots))
        if isinstance(node, dict) and draw(st.booleans()):
            del node[key]
        else:
            node[key] = draw(values)
    return event


def events_of(types: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda kind, rest: {**rest, "type": kind} if kind is not None else rest,
        st.none() | st.sampled_from(types),
        st.dictionaries(st.sampled_from(FIELDS), values, max_size=6),
    )


FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.lists(mutated(OPENAI_TEMPLATES) | events_of(OPENAI_TYPES) | values, max_size=10))
def test_from_openai_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_openai(items, stream_id="s")))


@FUZZ
@given(st.lists(mutated(ANTHROPIC_TEMPLATES) | events_of(ANTHROPIC_TYPES) | values, max_size=10))
def test_from_anthropic_never_raises_on_any_shape(items: list[Any]) -> None:
    well_formed(collect(from_anthropic(items, stream_id="s")))

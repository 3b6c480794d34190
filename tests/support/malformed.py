"""Payloads of the wrong shape for the provider adapters, and the check that a
stream still ends well, shared by the malformed-payload tests."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

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
)


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


FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

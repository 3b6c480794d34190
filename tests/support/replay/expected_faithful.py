"""The exact events expected from each stream of :mod:`tests.support.replay.faithful`."""

from __future__ import annotations

from typing import Any

from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionStarted,
    Citation,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    RefusalDelta,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)


def whole(
    i: int,
    name: str,
    args: dict[str, Any],
    call_id: str,
    raw: str,
    item: tuple[str, str] | None = None,
) -> list[Event]:
    """An action whose args arrive in one piece (from the Responses item ``(type, id)``)."""
    attributes = {"item_type": item[0], "item_id": item[1]} if item else {}
    return [
        ActionStarted(f"stream:{i}", i, name, call_id, attributes),
        ActionArgsDelta(f"stream:{i}", i, args, raw),
        ActionComplete(f"stream:{i}", i, name, args, call_id, attributes),
    ]


CUSTOM = {"item_type": "custom_tool_call", "item_id": "ctc_0"}


SQL = 'SELECT nom FROM villes WHERE nom = "Zürich";\n'
SHELL = {"commands": ["ls -la"], "timeout_ms": 5000, "max_output_length": None}
LOCAL = {"type": "exec", "command": ["cat", "naïve.txt"], "env": {}}
PATCH = {"type": "update_file", "path": "café.py", "diff": "@@\n-a\n+b\n"}
APPROVAL = {"server_label": "wiki", "name": "ask_question", "arguments": '{"question": "¿Qué?"}'}
SEARCH = {"execution": "client", "arguments": {"query": "weather"}}
SAFE = '{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"}'
EIFFEL = {"title": "Tour Eiffel", "url": "https://example.org/eiffel", "date": "2025-01-02"}
PARIS = {"title": "Paris — city", "url": "https://example.org/paris", "date": None}
NOTE = {
    "type": "url_citation",
    "url": "https://example.org/paris",
    "title": "Paris",
    "start_index": 21,
    "end_index": 29,
}
CITE = {
    "type": "char_location",
    "cited_text": "The grass is green.",
    "document_index": 0,
    "document_title": "Nature facts",
    "start_char_index": 0,
    "end_char_index": 19,
}

EXPECTED_FAITHFUL: dict[str, list[Event]] = {
    "openai_chat_mistral_parts.sse": [
        ReasoningDelta("Two plus two… "),
        ReasoningDelta("is four."),
        TextDelta("2 + 2 = 4"),
        TextDelta(" ✓"),
        StreamDone("complete", 0, 0, 11),
    ],
    "openai_chat_refusal.sse": [
        RefusalDelta("I’m sorry, "),
        RefusalDelta("I can’t help with that."),
        StreamDone("complete", 0, 0, 0),
    ],
    "openai_chat_perplexity.sse": [
        Citation("url", EIFFEL["url"], EIFFEL["title"], raw={**EIFFEL, "number": 1}),
        Citation("url", PARIS["url"], PARIS["title"], raw={**PARIS, "number": 2}),
        TextDelta("It is 330 m tall"),
        TextDelta(" [1], in Paris [2]."),
        StreamDone("complete", 0, 0, 35),
    ],
    "openai_chat_azure_filter.sse": [
        TextDelta("The duel "),
        TextDelta("began at dawn — "),
        Diagnostic(
            "content_filter",
            "the content filter flagged the output: violence (medium)",
            text=SAFE + ',"violence":{"filtered":true,"severity":"medium"}}',
        ),
        Diagnostic("content_filter", "the provider's content filter cut the output"),
        StreamDone("truncated", 0, 0, 25),
    ],
    "openai_completions_legacy.sse": [
        TextDelta("Once upon"),
        TextDelta(" a tïme"),
        StreamDone("truncated", 0, 0, 16),
    ],
    "openai_responses_client_tools.sse": [
        ActionStarted("stream:0", 0, "run_sql", "call_c0", CUSTOM),
        ActionArgsDelta("stream:0", 0, {"input": ""}, '{"input": "'),
        ActionArgsDelta("stream:0", 0, {"input": "SELECT nom FROM "}, "SELECT nom FROM "),
        ActionArgsDelta("stream:0", 0, {"input": SQL[:-2]}, 'villes WHERE nom = \\"Zürich\\"'),
        ActionArgsDelta("stream:0", 0, {"input": SQL}, ";\\n"),
        ActionArgsDelta("stream:0", 0, {"input": SQL}, '"}'),
        ActionComplete("stream:0", 0, "run_sql", {"input": SQL}, "call_c0", CUSTOM),
        *whole(
            1,
            "shell",
            {"action": SHELL},
            "call_s1",
            '{"action": {"commands": ["ls -la"], "max_output_length": null, "timeout_ms": 5000}}',
            ("shell_call", "sh_1"),
        ),
        *whole(
            2,
            "local_shell",
            {"action": LOCAL},
            "call_l2",
            '{"action": {"command": ["cat", "naïve.txt"], "env": {}, "type": "exec"}}',
            ("local_shell_call", "lsh_2"),
        ),
        *whole(
            3,
            "apply_patch",
            {"operation": PATCH},
            "call_p3",
            '{"operation": {"diff": "@@\\n-a\\n+b\\n", "path": "café.py", "type": "update_file"}}',
            ("apply_patch_call", "apc_3"),
        ),
        *whole(
            4,
            "tool_search",
            SEARCH,
            "call_t4",
            '{"arguments": {"query": "weather"}, "execution": "client"}',
            ("tool_search_call", "ts_4"),
        ),
        *whole(
            5,
            "mcp_approval_request",
            APPROVAL,
            "mcpr_5",
            '{"arguments": "{\\"question\\": \\"¿Qué?\\"}", "name": "ask_question", "server_label": "wiki"}',
            ("mcp_approval_request", "mcpr_5"),
        ),
        HostedToolStarted("stream/hosted:0", "web_search", "ws_6", "web_search_call"),
        HostedToolInput(
            "stream/hosted:0", "web_search", {"action": {"type": "search", "query": "météo"}}
        ),
        HostedToolResult("stream/hosted:0", "web_search", None, None, "web_search_call"),
        StreamDone("complete", 6, 0, 0),
    ],
    "openai_responses_refusal_citations.sse": [
        ReasoningDelta("**Plan**"),
        ReasoningDelta(" — look it up"),
        ReasoningDelta("\n\n"),
        ReasoningDelta("Then answer."),
        TextDelta("Paris is "),
        TextDelta("the capital "),
        TextDelta("(source)."),
        Citation("url_citation", NOTE["url"], "Paris", start=21, end=29, raw=NOTE),
        RefusalDelta("I can’t "),
        RefusalDelta("share the rest."),
        StreamDone("complete", 0, 0, 30),
    ],
    "anthropic_message_start.sse": [
        ReasoningDelta("Roll for player two…"),
        TextDelta("Rolling — "),
        *whole(0, "rollDie", {"player": "player2"}, "toolu_roll", '{"player": "player2"}'),
        Usage(10, 1, 11, raw={"input_tokens": 10, "output_tokens": 1}),
        StreamDone("complete", 1, 0, 10),
    ],
    "anthropic_citations_refusal.sse": [
        TextDelta("According to the document, "),
        TextDelta("the grass is gréen"),
        Citation(
            "char_location",
            title="Nature facts",
            cited_text="The grass is green.",
            start=27,
            end=45,
            raw=CITE,
        ),
        RefusalDelta(""),
        Usage(10, 9, 19, raw={"input_tokens": 10, "output_tokens": 9}),
        StreamDone("complete", 0, 0, 45),
    ],
    "anthropic_second_message_start.sse": [
        TextDelta("First reply ✓"),
        StreamError(
            "a second message_start in one stream: the first message never ended",
            "second_message_start",
        ),
        Usage(10, 1, 11, raw={"input_tokens": 10, "output_tokens": 1}),
        StreamDone("error", 0, 0, 13),
    ],
}

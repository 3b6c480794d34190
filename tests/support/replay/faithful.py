"""Streams of what providers really send beyond text and function calls (issue 14, items 1-5).

Each is written from the provider's documented wire format: list-shaped Mistral
content, refusals, Perplexity citations, Azure content filters, legacy Completions,
client-run and hosted Responses items, annotations, multi-part reasoning summaries,
Anthropic content inside ``message_start``, citations, refusals and a second
``message_start``.  :data:`STREAMS` maps a fixture file name to its events;
``make_fixtures.py`` writes them with :func:`replay.wire.sse`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NAMED", "STREAMS"]

CREATED = 1767225600


def chat(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One Chat Completions chunk of choice 0 (no choice when ``delta`` is None)."""
    choices = (
        []
        if delta is None
        else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    )
    return {
        "id": "chatcmpl-faithful",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "model-x",
        "choices": choices,
        **extra,
    }


def thinking(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": text}]}]}  # fmt: skip


MISTRAL = [
    chat({"role": "assistant", "content": ""}),
    chat(thinking("Two plus two… ")),
    chat(thinking("is four.")),
    chat({"content": [{"type": "text", "text": "2 + 2 = 4"}]}),
    chat({"content": " ✓"}),
    chat({"content": ""}, "stop"),
]

REFUSAL = [
    chat({"role": "assistant", "content": None, "refusal": ""}),
    chat({"refusal": "I’m sorry, "}),
    chat({"refusal": "I can’t help with that."}),
    chat({}, "stop"),
]

SOURCES = {
    "citations": ["https://example.org/eiffel", "https://example.org/paris"],
    "search_results": [
        {"title": "Tour Eiffel", "url": "https://example.org/eiffel", "date": "2025-01-02"},
        {"title": "Paris — city", "url": "https://example.org/paris", "date": None},
    ],
}
PERPLEXITY = [
    chat({"role": "assistant", "content": "It is 330 m tall"}, **SOURCES),
    chat({"content": " [1], in Paris [2]."}, **SOURCES),
    chat({"content": ""}, "stop", **SOURCES),
]

SAFE = {
    "hate": {"filtered": False, "severity": "safe"},
    "self_harm": {"filtered": False, "severity": "safe"},
    "sexual": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": False, "severity": "safe"},
}
FLAGGED = {**SAFE, "violence": {"filtered": True, "severity": "medium"}}


def azure(
    delta: dict[str, Any], results: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    chunk = chat(delta, finish)
    chunk["choices"][0]["content_filter_results"] = results
    return chunk


AZURE = [
    {
        "id": "",
        "object": "",
        "created": 0,
        "model": "",
        "choices": [],
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": SAFE}],
    },
    azure({"role": "assistant", "content": "The duel "}, SAFE),
    azure({"content": "began at dawn — "}, SAFE),
    azure({}, FLAGGED, "content_filter"),
]


def completion(text: str, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "cmpl-faithful",
        "object": "text_completion",
        "created": CREATED,
        "model": "gpt-3.5-turbo-instruct",
        "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": finish}],
    }


LEGACY = [completion("Once upon"), completion(" a tïme"), completion("", "length")]


# ------------------------------------------------------------------ Responses API


class _Responses:
    """Builds Responses events with running ``sequence_number``\\ s."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.base = {"id": "resp_faithful", "object": "response", "created_at": CREATED, "model": "gpt-5", "output": []}  # fmt: skip
        self.add("response.created", response={**self.base, "status": "in_progress"})

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "sequence_number": len(self.events), **fields})

    def item(self, index: int, item: dict[str, Any], done: dict[str, Any] | None = None) -> None:
        self.add("response.output_item.added", output_index=index, item=item)
        if done is not None:
            self.add("response.output_item.done", output_index=index, item=done)

    def end(self) -> list[dict[str, Any]]:
        self.add("response.completed", response={**self.base, "status": "completed"})
        return self.events


def _client_tools() -> list[dict[str, Any]]:
    r = _Responses()
    custom = {"id": "ctc_0", "type": "custom_tool_call", "call_id": "call_c0", "name": "run_sql", "input": ""}  # fmt: skip
    r.item(0, custom)
    for piece in ["SELECT nom FROM ", 'villes WHERE nom = "Zürich"', ";\n"]:
        r.add("response.custom_tool_call_input.delta", item_id="ctc_0", output_index=0, delta=piece)
    text = 'SELECT nom FROM villes WHERE nom = "Zürich";\n'
    r.add("response.custom_tool_call_input.done", item_id="ctc_0", output_index=0, input=text)
    r.add("response.output_item.done", output_index=0, item={**custom, "input": text})
    shell = {"id": "sh_1", "type": "shell_call", "call_id": "call_s1", "status": "in_progress", "action": {"commands": [], "timeout_ms": None, "max_output_length": None}}  # fmt: skip
    r.item(1, shell)
    r.add("response.shell_call_command.added", output_index=1, command_index=0, command="")
    r.add("response.shell_call_command.delta", output_index=1, command_index=0, delta="ls -la")
    r.add("response.shell_call_command.done", output_index=1, command_index=0, command="ls -la")
    action = {"commands": ["ls -la"], "timeout_ms": 5000, "max_output_length": None}
    r.add("response.output_item.done", output_index=1, item={**shell, "status": "completed", "action": action})  # fmt: skip
    local = {"id": "lsh_2", "type": "local_shell_call", "call_id": "call_l2", "status": "completed", "action": {"type": "exec", "command": ["cat", "naïve.txt"], "env": {}}}  # fmt: skip
    r.item(2, {**local, "status": "in_progress"}, local)
    patch = {"id": "apc_3", "type": "apply_patch_call", "call_id": "call_p3", "status": "completed", "operation": {"type": "update_file", "path": "café.py", "diff": "@@\n-a\n+b\n"}}  # fmt: skip
    r.item(3, {**patch, "status": "in_progress"}, patch)
    search = {"id": "ts_4", "type": "tool_search_call", "call_id": "call_t4", "execution": "client", "status": "completed", "arguments": {"query": "weather"}}  # fmt: skip
    r.item(4, search, search)
    approval = {"id": "mcpr_5", "type": "mcp_approval_request", "server_label": "wiki", "name": "ask_question", "arguments": '{"question": "¿Qué?"}'}  # fmt: skip
    r.item(5, approval, approval)
    web = {"id": "ws_6", "type": "web_search_call", "status": "in_progress"}
    r.item(6, web)
    r.add("response.web_search_call.searching", output_index=6, item_id="ws_6")
    r.add("response.output_item.done", output_index=6, item={**web, "status": "completed", "action": {"type": "search", "query": "météo"}})  # fmt: skip
    return r.end()


def _refusal_and_citations() -> list[dict[str, Any]]:
    r = _Responses()
    reasoning = {"id": "rs_0", "type": "reasoning", "summary": []}
    r.item(0, reasoning)
    for index, pieces in enumerate([["**Plan**", " — look it up"], ["Then answer."]]):
        r.add("response.reasoning_summary_part.added", item_id="rs_0", output_index=0, summary_index=index, part={"type": "summary_text", "text": ""})  # fmt: skip
        for piece in pieces:
            r.add("response.reasoning_summary_text.delta", item_id="rs_0", output_index=0, summary_index=index, delta=piece)  # fmt: skip
        r.add("response.reasoning_summary_part.done", item_id="rs_0", output_index=0, summary_index=index, part={"type": "summary_text", "text": "".join(pieces)})  # fmt: skip
    r.add("response.output_item.done", output_index=0, item=reasoning)
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}  # fmt: skip
    r.item(1, message)
    r.add("response.content_part.added", item_id="msg_1", output_index=1, content_index=0, part={"type": "output_text", "text": "", "annotations": []})  # fmt: skip
    for piece in ["Paris is ", "the capital ", "(source)."]:
        r.add("response.output_text.delta", item_id="msg_1", output_index=1, content_index=0, delta=piece, logprobs=[])  # fmt: skip
    note = {"type": "url_citation", "url": "https://example.org/paris", "title": "Paris", "start_index": 21, "end_index": 29}  # fmt: skip
    r.add("response.output_text.annotation.added", item_id="msg_1", output_index=1, content_index=0, annotation_index=0, annotation=note)  # fmt: skip
    r.add("response.content_part.added", item_id="msg_1", output_index=1, content_index=1, part={"type": "refusal", "refusal": ""})  # fmt: skip
    for piece in ["I can’t ", "share the rest."]:
        r.add("response.refusal.delta", item_id="msg_1", output_index=1, content_index=1, delta=piece)  # fmt: skip
    r.add("response.refusal.done", item_id="msg_1", output_index=1, content_index=1, refusal="I can’t share the rest.")  # fmt: skip
    r.add("response.output_item.done", output_index=1, item={**message, "status": "completed"})
    return r.end()


# ------------------------------------------------------------------ Anthropic


def _message(content: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_faithful",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }


WHOLE_MESSAGE = [
    _message(
        [
            {"type": "thinking", "thinking": "Roll for player two…", "signature": "sig"},
            {"type": "text", "text": "Rolling — "},
            {
                "type": "tool_use",
                "id": "toolu_roll",
                "name": "rollDie",
                "input": {"player": "player2"},
            },
        ],
        "tool_use",
    ),
    {"type": "message_stop"},
]


def _block(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


CITE = {"type": "char_location", "cited_text": "The grass is green.", "document_index": 0, "document_title": "Nature facts", "start_char_index": 0, "end_char_index": 19}  # fmt: skip
CITATIONS_REFUSAL = [
    _message([], None),
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    _block(0, {"type": "text_delta", "text": "According to the document, "}),
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "text", "text": "", "citations": []},
    },
    _block(1, {"type": "citations_delta", "citation": CITE}),
    _block(1, {"type": "text_delta", "text": "the grass is gréen"}),
    {"type": "content_block_stop", "index": 1},
    {"type": "ping"},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "refusal", "stop_sequence": None},
        "usage": {"output_tokens": 9},
    },
    {"type": "message_stop"},
]

SECOND_START = [
    _message([], None),
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    _block(0, {"type": "text_delta", "text": "First reply ✓"}),
    {"type": "content_block_stop", "index": 0},
    _message([], None),
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    _block(0, {"type": "text_delta", "text": "second"}),
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 9},
    },
    {"type": "message_stop"},
]

STREAMS: dict[str, list[dict[str, Any]]] = {
    "openai_chat_mistral_parts.sse": MISTRAL,
    "openai_chat_refusal.sse": REFUSAL,
    "openai_chat_perplexity.sse": PERPLEXITY,
    "openai_chat_azure_filter.sse": AZURE,
    "openai_completions_legacy.sse": LEGACY,
    "openai_responses_client_tools.sse": _client_tools(),
    "openai_responses_refusal_citations.sse": _refusal_and_citations(),
    "anthropic_message_start.sse": WHOLE_MESSAGE,
    "anthropic_citations_refusal.sse": CITATIONS_REFUSAL,
    "anthropic_second_message_start.sse": SECOND_START,
}
NAMED = {name: not name.startswith(("openai_chat", "openai_completions")) for name in STREAMS}
"""Whether a stream's SSE messages carry ``event:`` lines (Responses and Anthropic do)."""

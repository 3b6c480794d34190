"""Streams of tools the provider runs itself (issue 25, item 1), in each provider's wire shape.

Each follows a public recording of the provider's stream (the shapes, ids and fields of
the Vercel AI SDK's recorded fixtures and the providers' documented examples), trimmed:

* OpenAI Responses: web search (``action.sources``), code interpreter, image generation,
  a remote MCP server's tool list and calls (one failed), file search, a server-run tool
  search whose output names no ``call_id``, then a client function call;
* OpenAI Responses: a ``shell_call`` in a hosted container (``container_reference``) and
  its ``shell_call_output`` in the same response, then a ``shell_call`` in the ``local``
  environment, which the client runs;
* xAI Responses: X search's ``custom_tool_call`` items with server call ids
  (``xs_call_…``), a web search, an ``x_search_call``, then the answer;
* Anthropic: web search, web fetch (failed), code execution (bash and text editor) and a
  remote MCP tool, each with its ``*_tool_result`` block, then a client ``tool_use``;
* Groq Chat Completions: ``delta.executed_tools`` (a compound system's search, then its
  result in a later delta under the same ``index``);
* Gemini: code execution (``executableCode`` / ``codeExecutionResult``) and a server-side
  tool invocation (``toolCall`` / ``toolResponse``), then a client function call;
* Bedrock Converse: Nova's ``nova_code_interpreter`` (a ``toolUse`` of type
  ``server_tool_use``) and its ``toolResult`` block, then a client ``toolUse``.

:data:`STREAMS` maps a fixture file name to its payloads; ``make_fixtures.py`` writes
them in each provider's framing (:func:`body`).
"""

from __future__ import annotations

from typing import Any

from tests.support.replay.bedrock_wire import event_stream
from tests.support.replay.faithful import CREATED, chat
from tests.support.replay.gemini_wire import gemini_sse
from tests.support.replay.wire import sse

__all__ = ["NAMED", "STREAMS", "body"]


class _Responses:
    """Responses events with running ``sequence_number``\\ s."""

    def __init__(self, model: str = "gpt-5", response_id: str = "resp_hosted") -> None:
        self.events: list[dict[str, Any]] = []
        self.base = {"id": response_id, "object": "response", "created_at": CREATED, "model": model, "output": []}  # fmt: skip
        self.add("response.created", response={**self.base, "status": "in_progress"})

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "sequence_number": len(self.events), **fields})

    def added(self, index: int, item: dict[str, Any]) -> None:
        self.add("response.output_item.added", output_index=index, item=item)

    def done(self, index: int, item: dict[str, Any]) -> None:
        self.add("response.output_item.done", output_index=index, item=item)

    def text(self, index: int, item_id: str, pieces: list[str]) -> None:
        message = {"id": item_id, "type": "message", "role": "assistant", "status": "in_progress", "content": []}  # fmt: skip
        self.added(index, message)
        self.add("response.content_part.added", item_id=item_id, output_index=index, content_index=0, part={"type": "output_text", "text": "", "annotations": []})  # fmt: skip
        for piece in pieces:
            self.add("response.output_text.delta", item_id=item_id, output_index=index, content_index=0, delta=piece, logprobs=[])  # fmt: skip
        whole = {"type": "output_text", "text": "".join(pieces), "annotations": []}
        self.done(index, {**message, "status": "completed", "content": [whole]})

    def end(self) -> list[dict[str, Any]]:
        self.add("response.completed", response={**self.base, "status": "completed"})
        return self.events


# ------------------------------------------------------------------ OpenAI Responses

SOURCES = [
    {"type": "url", "url": "https://www.wired.com/story/the-big-interview-2025-recap"},
    {"type": "url", "url": "https://example.org/météo"},
]
CODE = "import random\nsums = [random.randint(2, 12) for _ in range(20)]\nsums[:3]\n"
LOGS = [{"type": "logs", "logs": "[6, 7, 2]"}]
MCP_TOOLS = [{"name": "web_search_exa", "description": "Search the web", "input_schema": {"type": "object"}, "annotations": {"read_only": False}}]  # fmt: skip
MCP_ARGS = '{"query":"élection 2025","numResults":5}'
HITS = [{"file_id": "file-1", "filename": "notes.pdf", "score": 0.92, "text": "An embedding model…", "attributes": {}}]  # fmt: skip
LOADED = [{"type": "function", "name": "get_weather", "description": "Weather", "defer_loading": True, "parameters": {"type": "object"}}]  # fmt: skip


def _openai_hosted() -> list[dict[str, Any]]:
    r = _Responses()
    web = {"id": "ws_0cc96ac8", "type": "web_search_call", "status": "in_progress"}
    r.added(0, web)
    r.add("response.web_search_call.in_progress", output_index=0, item_id="ws_0cc96ac8")
    r.add("response.web_search_call.searching", output_index=0, item_id="ws_0cc96ac8")
    r.add("response.web_search_call.completed", output_index=0, item_id="ws_0cc96ac8")
    action = {"type": "search", "query": "météo Paris", "sources": SOURCES}
    r.done(0, {**web, "status": "completed", "action": action})
    ci = {"id": "ci_68c2e6f7", "type": "code_interpreter_call", "status": "in_progress", "code": "", "container_id": "cntr_68c2e6f3", "outputs": []}  # fmt: skip
    r.added(1, ci)
    r.add("response.code_interpreter_call.in_progress", output_index=1, item_id="ci_68c2e6f7")
    for piece in [CODE[:20], CODE[20:]]:
        r.add("response.code_interpreter_call_code.delta", output_index=1, item_id="ci_68c2e6f7", delta=piece)  # fmt: skip
    r.add("response.code_interpreter_call_code.done", output_index=1, item_id="ci_68c2e6f7", code=CODE)  # fmt: skip
    r.add("response.code_interpreter_call.interpreting", output_index=1, item_id="ci_68c2e6f7")
    r.add("response.code_interpreter_call.completed", output_index=1, item_id="ci_68c2e6f7")
    r.done(1, {**ci, "status": "completed", "code": CODE, "outputs": LOGS})
    image = {"id": "ig_0df93c0b", "type": "image_generation_call", "status": "in_progress"}
    r.added(2, image)
    r.add("response.image_generation_call.generating", output_index=2, item_id="ig_0df93c0b")
    r.add("response.image_generation_call.partial_image", output_index=2, item_id="ig_0df93c0b", partial_image_index=0, partial_image_b64="UklGRg==")  # fmt: skip
    r.done(2, {**image, "status": "completed", "background": "opaque", "output_format": "webp", "quality": "low", "result": "UklGRuIWGQBXRUJQ"})  # fmt: skip
    listing = {"id": "mcpl_0c72b103", "type": "mcp_list_tools", "server_label": "dmcp", "tools": []}
    r.added(3, listing)
    r.add("response.mcp_list_tools.in_progress", output_index=3, item_id="mcpl_0c72b103")
    r.add("response.mcp_list_tools.completed", output_index=3, item_id="mcpl_0c72b103")
    r.done(3, {**listing, "tools": MCP_TOOLS})
    mcp = {"id": "mcp_0c72b103", "type": "mcp_call", "status": "in_progress", "approval_request_id": None, "arguments": "", "error": None, "name": "web_search_exa", "output": None, "server_label": "dmcp"}  # fmt: skip
    r.added(4, mcp)
    r.add("response.mcp_call_arguments.delta", output_index=4, item_id="mcp_0c72b103", delta=MCP_ARGS)  # fmt: skip
    r.add("response.mcp_call_arguments.done", output_index=4, item_id="mcp_0c72b103", arguments=MCP_ARGS)  # fmt: skip
    r.add("response.mcp_call.completed", output_index=4, item_id="mcp_0c72b103")
    r.done(4, {**mcp, "status": "completed", "arguments": MCP_ARGS, "output": '{"results": ["Zohran Mamdani"]}'})  # fmt: skip
    failed = {**mcp, "id": "mcp_0c72b104", "arguments": "{}"}
    r.added(5, failed)
    r.add("response.mcp_call.failed", output_index=5, item_id="mcp_0c72b104")
    r.done(5, {**failed, "status": "failed", "error": {"type": "mcp_protocol_error", "code": 32600, "message": "Rate limit exceeded"}})  # fmt: skip
    fs = {"id": "fs_04595170", "type": "file_search_call", "status": "in_progress", "queries": [], "results": None}  # fmt: skip
    r.added(6, fs)
    r.add("response.file_search_call.searching", output_index=6, item_id="fs_04595170")
    r.done(6, {**fs, "status": "completed", "queries": ["What is an embedding model?"], "results": HITS})  # fmt: skip
    search = {"id": "tsc_08a14073", "type": "tool_search_call", "status": "in_progress", "arguments": {}, "call_id": None, "execution": "server"}  # fmt: skip
    r.added(7, search)
    r.done(7, {**search, "status": "completed", "arguments": {"paths": ["get_weather"]}})
    loaded = {"id": "tso_08a14073", "type": "tool_search_output", "status": "in_progress", "call_id": None, "execution": "server", "tools": LOADED}  # fmt: skip
    r.added(8, loaded)
    r.done(8, {**loaded, "status": "completed"})
    call = {"id": "fc_08a14073", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_pddfxhfO", "name": "get_weather"}  # fmt: skip
    r.added(9, call)
    r.add("response.function_call_arguments.delta", output_index=9, item_id="fc_08a14073", delta='{"city": "Paris"}')  # fmt: skip
    r.add("response.function_call_arguments.done", output_index=9, item_id="fc_08a14073", arguments='{"city": "Paris"}')  # fmt: skip
    r.done(9, {**call, "status": "completed", "arguments": '{"city": "Paris"}'})
    return r.end()


CONTAINER = {"type": "container_reference", "container_id": "cntr_aabbccdd11223344"}
COMMAND = "echo 'Hello from container!' && uname -a"
STDOUT = "Hello from container! ☁️\nLinux container-host 6.1.0 x86_64 GNU/Linux\n"


def _openai_hosted_shell() -> list[dict[str, Any]]:
    r = _Responses()
    shell = {"id": "sh_0f1a2b3c", "type": "shell_call", "status": "in_progress", "action": {"commands": [], "max_output_length": None, "timeout_ms": None}, "call_id": "call_abc123def456", "environment": CONTAINER}  # fmt: skip
    r.added(0, shell)
    r.add("response.shell_call_command.added", command="", command_index=0, output_index=0)
    for piece in ["echo", " 'Hello from container!'", " && ", "uname -a"]:
        r.add("response.shell_call_command.delta", command_index=0, delta=piece, output_index=0)
    r.add("response.shell_call_command.done", command=COMMAND, command_index=0, output_index=0)
    action = {"commands": [COMMAND], "max_output_length": None, "timeout_ms": None}
    r.done(0, {**shell, "status": "completed", "action": action})
    output = {"id": "sho_0f1a2b3c", "type": "shell_call_output", "status": "completed", "call_id": "call_abc123def456", "max_output_length": None, "output": []}  # fmt: skip
    r.added(1, output)
    r.add("response.shell_call_output_content.delta", command_index=0, delta={"stdout": STDOUT}, item_id="sho_0f1a2b3c", output_index=1)  # fmt: skip
    ran = [{"outcome": {"type": "exit", "exit_code": 0}, "stderr": "", "stdout": STDOUT}]
    r.add("response.shell_call_output_content.done", command_index=0, item_id="sho_0f1a2b3c", output=ran, output_index=1)  # fmt: skip
    r.done(1, {**output, "output": ran})
    r.text(2, "msg_0f1a2b3c", ["The command ran ", "in the container."])
    local = {"id": "sh_9e8d7c6b", "type": "shell_call", "status": "in_progress", "action": {"commands": [], "max_output_length": None, "timeout_ms": None}, "call_id": "call_local1", "environment": {"type": "local"}}  # fmt: skip
    r.added(3, local)
    r.add("response.shell_call_command.done", command="ls", command_index=0, output_index=3)
    r.done(3, {**local, "status": "completed", "action": {"commands": ["ls"], "max_output_length": None, "timeout_ms": None}})  # fmt: skip
    return r.end()


XAI_RESPONSE = "b7b464ea-cc85-d44a-0f2f-1f7320e703c3"
X_QUERY = '{"query":"from:xai filter:media","limit":20,"mode":"Latest"}'
X_VIDEO = '{"video_url":"https://video.twimg.com/amplify_video/1991284765027364866/vid.mp4"}'


def _xai_search() -> list[dict[str, Any]]:
    r = _Responses("grok-4-fast-reasoning", XAI_RESPONSE)
    keyword = {"call_id": "xs_call_24148162", "input": "", "name": "x_keyword_search", "type": "custom_tool_call", "id": f"ctc_{XAI_RESPONSE}_xs_call_24148162", "status": "in_progress"}  # fmt: skip
    r.added(0, keyword)
    r.add("response.custom_tool_call_input.delta", item_id=keyword["id"], output_index=0, delta=X_QUERY)  # fmt: skip
    r.add("response.custom_tool_call_input.done", item_id=keyword["id"], output_index=0, input=X_QUERY)  # fmt: skip
    r.done(0, {**keyword, "input": X_QUERY, "status": "completed"})
    video = {"call_id": "xs_call-5c1d0e4a-9c41-4f7e-8d3a-2b6f0c1e9a77-0", "input": "", "name": "view_x_video", "type": "custom_tool_call", "id": f"ctc_{XAI_RESPONSE}_xs_call_14963218", "status": "in_progress"}  # fmt: skip
    r.added(1, video)
    r.add("response.custom_tool_call_input.delta", item_id=video["id"], output_index=1, delta=X_VIDEO)  # fmt: skip
    r.add("response.custom_tool_call_input.done", item_id=video["id"], output_index=1, input=X_VIDEO)  # fmt: skip
    web = {"id": f"ws_{XAI_RESPONSE}_call_55360208", "type": "web_search_call", "status": "in_progress", "action": {"type": "search", "query": "", "sources": []}}  # fmt: skip
    r.added(2, web)
    r.add("response.web_search_call.in_progress", item_id=web["id"], output_index=2)
    r.add("response.web_search_call.searching", item_id=web["id"], output_index=2)
    r.add("response.web_search_call.completed", item_id=web["id"], output_index=2)
    r.done(2, {**web, "status": "completed"})
    r.done(1, {**video, "input": X_VIDEO, "status": "completed"})  # after the search, as recorded
    xs = {"id": f"xs_{XAI_RESPONSE}", "type": "x_search_call", "status": "in_progress", "name": "x_semantic_search", "arguments": '{"query":"xAI Grok"}', "call_id": ""}  # fmt: skip
    r.added(3, xs)
    r.add("response.x_search_call.in_progress", item_id=xs["id"], output_index=3)
    r.add("response.x_search_call.searching", item_id=xs["id"], output_index=3)
    r.add("response.x_search_call.completed", item_id=xs["id"], output_index=3)
    r.done(3, {**xs, "status": "completed"})
    r.text(
        4,
        f"msg_{XAI_RESPONSE}",
        ["### Latest", " Videos from xAI", " (as of December 1, 2025) — ✓"],
    )
    return r.end()


# ------------------------------------------------------------------ Anthropic


def _message_start() -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_hosted",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _json(index: int, piece: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}  # fmt: skip


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def _text(index: int, text: str) -> list[dict[str, Any]]:
    delta = {"type": "text_delta", "text": text}
    return [_start(index, {"type": "text", "text": ""}), {"type": "content_block_delta", "index": index, "delta": delta}, _stop(index)]  # fmt: skip


def _server_call(index: int, tool_id: str, name: str, pieces: list[str], **extra: Any) -> list[dict[str, Any]]:  # fmt: skip
    block = {"type": "server_tool_use", "id": tool_id, "name": name, "input": {}, **extra}
    return [_start(index, block), _json(index, ""), *(_json(index, p) for p in pieces), _stop(index)]  # fmt: skip


def _result(index: int, kind: str, tool_id: str, content: Any, **extra: Any) -> list[dict[str, Any]]:  # fmt: skip
    return [_start(index, {"type": kind, "tool_use_id": tool_id, "content": content, **extra}), _stop(index)]  # fmt: skip


SEARCHED = [
    {
        "type": "web_search_result",
        "title": "Météo Paris",
        "url": "https://example.org/météo",
        "encrypted_content": "ErkeCioICBgC",
        "page_age": None,
    },
]
BASH = {"type": "bash_code_execution_result", "stdout": "The 10th Fibonacci number is: 34\n", "stderr": "", "return_code": 0, "content": []}  # fmt: skip
CREATED_FILE = {"type": "text_editor_code_execution_create_result", "is_file_update": False}
FETCH_ERROR = {"type": "web_fetch_tool_result_error", "error_code": "unavailable"}
MCP_ECHO = [{"type": "text", "text": "Tool echo: héllo"}]


def _anthropic_server_tools() -> list[dict[str, Any]]:
    return [
        _message_start(),
        *_text(0, "Let me look that up."),
        *_server_call(1, "srvtoolu_01Bj5uzz", "web_search", ['{"query": "m', 'étéo Paris"}']),
        *_result(2, "web_search_tool_result", "srvtoolu_01Bj5uzz", SEARCHED),
        *_server_call(
            3, "srvtoolu_013gia34", "web_fetch", ['{"url": "https://example.org/ai.pdf"}']
        ),
        *_result(4, "web_fetch_tool_result", "srvtoolu_013gia34", FETCH_ERROR),
        *_server_call(
            5,
            "srvtoolu_0112cP8R",
            "text_editor_code_execution",
            ['{"command": "create", "path": "/tmp/fib.py", ', '"file_text": "print(34)\\n"}'],
        ),
        *_result(6, "text_editor_code_execution_tool_result", "srvtoolu_0112cP8R", CREATED_FILE),
        *_server_call(
            7, "srvtoolu_01K2E2j5", "bash_code_execution", ['{"command": "python /tmp/fib.py"}']
        ),
        *_result(8, "bash_code_execution_tool_result", "srvtoolu_01K2E2j5", BASH),
        _start(
            9,
            {
                "type": "mcp_tool_use",
                "id": "mcptoolu_017Cuqa",
                "name": "echo",
                "input": {},
                "server_name": "echo",
            },
        ),
        _json(9, '{"text": "héllo"}'),
        _stop(9),
        *_result(10, "mcp_tool_result", "mcptoolu_017Cuqa", MCP_ECHO, is_error=False),
        *_text(11, "Now the weather."),
        _start(
            12, {"type": "tool_use", "id": "toolu_01UmPwke", "name": "get_weather", "input": {}}
        ),
        _json(12, '{"city": '),
        _json(12, '"Paris"}'),
        _stop(12),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 90},
        },
        {"type": "message_stop"},
    ]


# ------------------------------------------------------------------ Groq (Chat Completions)

GROQ_ARGS = '{"query": "météo Paris aujourd\'hui"}'
GROQ_RESULTS = {"results": [{"title": "Météo Paris", "url": "https://example.org/météo", "content": "21 °C", "score": 0.9}]}  # fmt: skip


def _groq_executed() -> list[dict[str, Any]]:
    x_groq = {"x_groq": {"id": "req_01k6"}}
    tool = {"index": 0, "type": "search", "arguments": GROQ_ARGS}
    return [
        chat({"role": "assistant", "content": ""}, **x_groq),
        chat({"reasoning": "Searching the web."}),
        chat({"executed_tools": [tool]}),
        chat(
            {
                "executed_tools": [
                    {**tool, "output": "Title: Météo Paris\n21 °C", "search_results": GROQ_RESULTS}
                ]
            }
        ),
        chat({"content": "Il fait 21 °C "}),
        chat({"content": "à Paris."}),
        chat({}, "stop", **x_groq),
    ]


# ------------------------------------------------------------------ Gemini


def _gemini_chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "resp-hosted"}  # fmt: skip


GEMINI_CODE = "total = sum(range(1, 11))\nprint(f'Summe: {total}')\n"


def _gemini_hosted() -> list[dict[str, Any]]:
    search = {"toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["météo Paris"]}, "id": "tc-1"}
    found = {"toolType": "GOOGLE_SEARCH_WEB", "response": {"results": ["21 °C"]}, "id": "tc-1"}
    return [
        _gemini_chunk({"text": "Je calcule d'abord."}),
        _gemini_chunk({"executableCode": {"language": "PYTHON", "code": GEMINI_CODE}}),
        _gemini_chunk({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "Summe: 55\n"}}),
        _gemini_chunk({"executableCode": {"language": "PYTHON", "code": "1/0"}}),
        _gemini_chunk(
            {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"}}
        ),
        _gemini_chunk({"toolCall": search}, {"toolResponse": found}),
        _gemini_chunk(
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "fc-1"}}
        ),
        _gemini_chunk({"text": "Fertig ✓"}, finish="STOP"),
    ]


# ------------------------------------------------------------------ Bedrock (Converse)

NOVA_CODE = "numbers = [10, 24, 2, 3]\nsum(numbers) / len(numbers)"
NOVA_RESULT = '{"stdOut":"9.75","stdErr":"","exitCode":0,"isError":false}'


def _bedrock_nova() -> list[dict[str, Any]]:
    start = {"toolUse": {"toolUseId": "tooluse_WytfF0g1", "name": "nova_code_interpreter", "type": "server_tool_use"}}  # fmt: skip
    result = {"toolResult": {"toolUseId": "tooluse_WytfF0g1", "type": "nova_code_interpreter_result", "status": "success"}}  # fmt: skip
    client = {"toolUse": {"toolUseId": "tooluse_Client01", "name": "get_weather"}}
    return [
        {"messageStart": {"role": "assistant"}},
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"text": "Calculating the mean — "},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockStart": {"contentBlockIndex": 1, "start": start}},
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"toolUse": {"input": '{"code": "numbers = [10, 24, 2, 3]\\n'}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"toolUse": {"input": 'sum(numbers) / len(numbers)"}'}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"contentBlockStart": {"contentBlockIndex": 2, "start": result}},
        {
            "contentBlockDelta": {
                "contentBlockIndex": 2,
                "delta": {"toolResult": [{"text": NOVA_RESULT[:20]}]},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 2,
                "delta": {"toolResult": [{"text": NOVA_RESULT[20:]}]},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"contentBlockDelta": {"contentBlockIndex": 3, "delta": {"text": "The mean is 9.75 ✓"}}},
        {"contentBlockStop": {"contentBlockIndex": 3}},
        {"contentBlockStart": {"contentBlockIndex": 4, "start": client}},
        {
            "contentBlockDelta": {
                "contentBlockIndex": 4,
                "delta": {"toolUse": {"input": '{"city": "Paris"}'}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 4}},
        {"messageStop": {"stopReason": "tool_use"}},
        {
            "metadata": {
                "usage": {"inputTokens": 30, "outputTokens": 12, "totalTokens": 42},
                "metrics": {"latencyMs": 321},
            }
        },
    ]


STREAMS: dict[str, list[dict[str, Any]]] = {
    "openai_responses_hosted.sse": _openai_hosted(),
    "openai_responses_hosted_shell.sse": _openai_hosted_shell(),
    "openai_responses_xai_search.sse": _xai_search(),
    "anthropic_server_tools.sse": _anthropic_server_tools(),
    "openai_chat_groq_executed.sse": _groq_executed(),
    "gemini_hosted.sse": _gemini_hosted(),
    "bedrock_nova_code_interpreter.eventstream": _bedrock_nova(),
}
NAMED = {name: name.startswith(("openai_responses", "anthropic")) for name in STREAMS}
"""Whether a stream's SSE messages carry ``event:`` lines (Responses and Anthropic do)."""


def body(name: str) -> bytes:
    """The HTTP body of a stream in its provider's framing."""
    payloads = STREAMS[name]
    if name.startswith("gemini"):
        return gemini_sse(payloads)
    if name.startswith("bedrock"):
        return event_stream((key, value) for event in payloads for key, value in event.items())
    return sse(payloads, named=NAMED[name], done=not NAMED[name])

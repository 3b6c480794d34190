"""The exact events expected from each stream of :mod:`tests.support.replay.hosted` (stream id ``"stream"``)."""

from __future__ import annotations

from typing import Any

from tests.support.replay.hosted import (
    BASH,
    CODE,
    COMMAND,
    CONTAINER,
    CREATED_FILE,
    FETCH_ERROR,
    GEMINI_CODE,
    GROQ_ARGS,
    GROQ_RESULTS,
    HITS,
    LOADED,
    LOGS,
    MCP_ARGS,
    MCP_ECHO,
    MCP_TOOLS,
    NOVA_CODE,
    NOVA_RESULT,
    SEARCHED,
    SOURCES,
    STDOUT,
    X_QUERY,
    X_VIDEO,
    XAI_RESPONSE,
)
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionStarted,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    StreamDone,
    TextDelta,
    Usage,
)


def hosted(
    n: int,
    name: str,
    provider_id: str | None,
    kind: str,
    given: Any,
    *result: Any,
    attributes: dict[str, str] | None = None,
) -> list[Event]:
    """A provider-run call: started, its input, and (``result``: output, error, kind) its
    end."""
    call = f"stream/hosted:{n}"
    events: list[Event] = [
        HostedToolStarted(call, name, provider_id, kind, attributes or {}),
        HostedToolInput(call, name, given),
    ]
    if result:
        events.append(HostedToolResult(call, name, *result))
    return events


def weather(action_id: str, attributes: dict[str, str] | None = None) -> list[Event]:
    """The client's own call: ``get_weather(city="Paris")``, in one piece."""
    args = {"city": "Paris"}
    return [
        ActionStarted("stream:0", 0, "get_weather", action_id, attributes or {}),
        ActionArgsDelta("stream:0", 0, args, '{"city": "Paris"}'),
        ActionComplete("stream:0", 0, "get_weather", args, action_id, attributes or {}),
    ]


SEARCH_ACTION = {"action": {"type": "search", "query": "météo Paris"}}
MCP_INPUT = {"approval_request_id": None, "server_label": "dmcp"}
DMCP = {"server": "dmcp"}
LOCAL_ACTION = {"commands": ["ls"], "max_output_length": None, "timeout_ms": None}
LOCAL_SHELL = {"action": LOCAL_ACTION, "environment": {"type": "local"}}
LOCAL_RAW = (
    '{"action": {"commands": ["ls"], "max_output_length": null, "timeout_ms": null},'
    ' "environment": {"type": "local"}}'
)
SHELL_ITEM = {"item_type": "shell_call", "item_id": "sh_9e8d7c6b"}

EXPECTED_HOSTED: dict[str, list[Event]] = {
    "openai_responses_hosted.sse": [
        *hosted(
            0,
            "web_search",
            "ws_0cc96ac8",
            "web_search_call",
            SEARCH_ACTION,
            SOURCES,
            None,
            "web_search_call",
        ),
        *hosted(
            1,
            "code_interpreter",
            "ci_68c2e6f7",
            "code_interpreter_call",
            {"code": CODE, "container_id": "cntr_68c2e6f3"},
            LOGS,
            None,
            "code_interpreter_call",
        ),
        *hosted(
            2,
            "image_generation",
            "ig_0df93c0b",
            "image_generation_call",
            {"background": "opaque", "output_format": "webp", "quality": "low"},
            "UklGRuIWGQBXRUJQ",
            None,
            "image_generation_call",
        ),
        *hosted(
            3,
            "mcp_list_tools",
            "mcpl_0c72b103",
            "mcp_list_tools",
            {"server_label": "dmcp"},
            MCP_TOOLS,
            None,
            "mcp_list_tools",
            attributes=DMCP,
        ),
        *hosted(
            4,
            "web_search_exa",
            "mcp_0c72b103",
            "mcp_call",
            {**MCP_INPUT, "arguments": MCP_ARGS},
            '{"results": ["Zohran Mamdani"]}',
            None,
            "mcp_call",
            attributes=DMCP,
        ),
        *hosted(
            5,
            "web_search_exa",
            "mcp_0c72b104",
            "mcp_call",
            {**MCP_INPUT, "arguments": "{}"},
            None,
            "Rate limit exceeded",
            "mcp_call",
            attributes=DMCP,
        ),
        *hosted(
            6,
            "file_search",
            "fs_04595170",
            "file_search_call",
            {"queries": ["What is an embedding model?"]},
            HITS,
            None,
            "file_search_call",
        ),
        *hosted(
            7,
            "tool_search",
            "tsc_08a14073",
            "tool_search_call",
            {"arguments": {"paths": ["get_weather"]}, "execution": "server"},
            LOADED,
            None,
            "tool_search_output",
        ),
        *weather("call_pddfxhfO"),
        StreamDone("complete", 1, 0, 0),
    ],
    "openai_responses_hosted_shell.sse": [
        *hosted(
            0,
            "shell",
            "call_abc123def456",
            "shell_call",
            {
                "action": {"commands": [COMMAND], "max_output_length": None, "timeout_ms": None},
                "environment": CONTAINER,
            },
            [{"outcome": {"type": "exit", "exit_code": 0}, "stderr": "", "stdout": STDOUT}],
            None,
            "shell_call_output",
        ),
        TextDelta("The command ran "),
        TextDelta("in the container."),
        ActionStarted("stream:0", 0, "shell", "call_local1", SHELL_ITEM),
        ActionArgsDelta("stream:0", 0, LOCAL_SHELL, LOCAL_RAW),
        ActionComplete("stream:0", 0, "shell", LOCAL_SHELL, "call_local1", SHELL_ITEM),
        StreamDone("complete", 1, 0, 33),
    ],
    "openai_responses_xai_search.sse": [
        *hosted(
            0,
            "x_keyword_search",
            "xs_call_24148162",
            "custom_tool_call",
            X_QUERY,
            None,
            None,
            "custom_tool_call",
        ),
        *hosted(
            1,
            "view_x_video",
            "xs_call-5c1d0e4a-9c41-4f7e-8d3a-2b6f0c1e9a77-0",
            "custom_tool_call",
            X_VIDEO,
        ),
        *hosted(
            2,
            "web_search",
            f"ws_{XAI_RESPONSE}_call_55360208",
            "web_search_call",
            {"action": {"type": "search", "query": ""}},
            [],
            None,
            "web_search_call",
        ),
        HostedToolResult("stream/hosted:1", "view_x_video", None, None, "custom_tool_call"),
        *hosted(
            3,
            "x_semantic_search",
            f"xs_{XAI_RESPONSE}",
            "x_search_call",
            {"arguments": '{"query":"xAI Grok"}'},
            None,
            None,
            "x_search_call",
        ),
        TextDelta("### Latest"),
        TextDelta(" Videos from xAI"),
        TextDelta(" (as of December 1, 2025) — ✓"),
        StreamDone("complete", 0, 0, 55),
    ],
    "anthropic_server_tools.sse": [
        TextDelta("Let me look that up."),
        *hosted(
            0,
            "web_search",
            "srvtoolu_01Bj5uzz",
            "server_tool_use",
            {"query": "météo Paris"},
            SEARCHED,
            None,
            "web_search_tool_result",
        ),
        *hosted(
            1,
            "web_fetch",
            "srvtoolu_013gia34",
            "server_tool_use",
            {"url": "https://example.org/ai.pdf"},
            FETCH_ERROR,
            "unavailable",
            "web_fetch_tool_result",
        ),
        *hosted(
            2,
            "text_editor_code_execution",
            "srvtoolu_0112cP8R",
            "server_tool_use",
            {"command": "create", "path": "/tmp/fib.py", "file_text": "print(34)\n"},
            CREATED_FILE,
            None,
            "text_editor_code_execution_tool_result",
        ),
        *hosted(
            3,
            "bash_code_execution",
            "srvtoolu_01K2E2j5",
            "server_tool_use",
            {"command": "python /tmp/fib.py"},
            BASH,
            None,
            "bash_code_execution_tool_result",
        ),
        *hosted(
            4,
            "echo",
            "mcptoolu_017Cuqa",
            "mcp_tool_use",
            {"text": "héllo"},
            MCP_ECHO,
            None,
            "mcp_tool_result",
            attributes={"server": "echo"},
        ),
        TextDelta("Now the weather."),
        ActionStarted("stream:0", 0, "get_weather", "toolu_01UmPwke"),
        ActionArgsDelta("stream:0", 0, {}, '{"city": '),
        ActionArgsDelta("stream:0", 0, {"city": "Paris"}, '"Paris"}'),
        ActionComplete("stream:0", 0, "get_weather", {"city": "Paris"}, "toolu_01UmPwke"),
        Usage(10, 90, 100, raw={"input_tokens": 10, "output_tokens": 90}),
        StreamDone("complete", 1, 0, 36),
    ],
    "openai_chat_groq_executed.sse": [
        ReasoningDelta("Searching the web."),
        *hosted(
            0,
            "search",
            None,
            "executed_tools",
            GROQ_ARGS,
            {"output": "Title: Météo Paris\n21 °C", "search_results": GROQ_RESULTS},
            None,
            "executed_tools",
        ),
        TextDelta("Il fait 21 °C "),
        TextDelta("à Paris."),
        StreamDone("complete", 0, 0, 22),
    ],
    "gemini_hosted.sse": [
        TextDelta("Je calcule d'abord."),
        *hosted(
            0,
            "code_execution",
            None,
            "executable_code",
            {"language": "PYTHON", "code": GEMINI_CODE},
            {"outcome": "OUTCOME_OK", "output": "Summe: 55\n"},
            None,
            "code_execution_result",
        ),
        *hosted(
            1,
            "code_execution",
            None,
            "executable_code",
            {"language": "PYTHON", "code": "1/0"},
            {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"},
            "OUTCOME_FAILED",
            "code_execution_result",
        ),
        *hosted(
            2,
            "google_search_web",
            "tc-1",
            "tool_call",
            {"queries": ["météo Paris"]},
            {"results": ["21 °C"]},
            None,
            "tool_response",
        ),
        *weather("fc-1"),
        TextDelta("Fertig ✓"),
        StreamDone("complete", 1, 0, 27),
    ],
    "bedrock_nova_code_interpreter.eventstream": [
        TextDelta("Calculating the mean — "),
        *hosted(
            0,
            "nova_code_interpreter",
            "tooluse_WytfF0g1",
            "server_tool_use",
            {"code": NOVA_CODE},
            [{"text": NOVA_RESULT}],
            None,
            "nova_code_interpreter_result",
        ),
        TextDelta("The mean is 9.75 ✓"),
        *weather("tooluse_Client01"),
        Usage(30, 12, 42, raw={"inputTokens": 30, "outputTokens": 12, "totalTokens": 42}),
        StreamDone("complete", 1, 0, 41),
    ],
}

HOSTED_NAMES: dict[str, set[str]] = {
    name: {e.name for e in events if isinstance(e, HostedToolStarted)}
    for name, events in EXPECTED_HOSTED.items()
}
"""The provider-run tool names of each stream: a test plants handlers of these names."""

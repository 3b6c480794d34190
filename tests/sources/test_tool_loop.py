"""The tool loop closed, per provider, over each real SDK and real HTTP.

Turn 1: the model calls three actions (one runs, one has invalid arguments, one's
handler raises); the dispatcher runs them; the provider's result builder makes the next
messages; turn 2's request must carry them in the provider's documented shape (checked
by ``tests.support.replay.conversation_shapes``); the model then answers in text and the loop stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anthropic
import boto3
import ollama
import openai
import pytest
from google import genai

from tests.support.replay import ReplayServer, Reply, acollect, wire
from tests.support.replay.bedrock_wire import CONTENT_TYPE as EVENTSTREAM
from tests.support.replay.bedrock_wire import converse_events, event_stream
from tests.support.replay.conversation_shapes import CHECKS
from tests.support.replay.gemini_wire import call as gemini_call
from tests.support.replay.gemini_wire import chunk, gemini_sse
from tests.support.replay.gemini_wire import text as gemini_text
from tests.support.replay.ollama_wire import CONTENT_TYPE as NDJSON
from tests.support.replay.ollama_wire import COUNTS as OLLAMA_COUNTS
from tests.support.replay.ollama_wire import line, ndjson, tool_call
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._ledger import MemoryLedger
from unspool.actions._registry import ActionRegistry
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Diagnostic,
    Event,
    StreamDone,
    TextDelta,
    Usage,
)
from unspool.sources._turns import run_turns
from unspool.sources.providers import _tool_results as tool_results

SSE = "text/event-stream; charset=utf-8"
SIGNED = {"thoughtSignature": "c2lnbmF0dXJlLUE="}
ANSWER = "It is 21 °C in Paris ☀️."
PARIS = '{"city": "Paris"}'
LYON = '{"town": "Lyon"}'
RESULTS = [
    ('{"city": "Paris", "temp_c": 21}', False),
    (
        "Error: the arguments of get_weather are invalid. Fix these and call it again:\n"
        "- city: Field required\n"
        "- town: Extra inputs are not permitted",
        True,
    ),
    ("Error: explode failed (RuntimeError): the sensor is offline", True),
]


def make_registry(ran: list[str]) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action
    def get_weather(city: str) -> dict[str, Any]:
        """The weather in a city."""
        ran.append(city)
        return {"city": city, "temp_c": 21}

    @registry.action
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("the sensor is offline")

    return registry


@pytest.fixture(scope="module")
def shared_server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


@pytest.fixture
def server(shared_server: ReplayServer) -> Iterator[ReplayServer]:
    """The module's server, with no reply or request left from an earlier test: a reply
    one test queued and never had requested (a turn that ended in an error) must not
    answer the next test's request."""
    shared_server.reset()
    yield shared_server
    shared_server.reset()


@dataclass
class Case:
    name: str
    first: Reply
    second: Reply
    messages: list[Any]
    call: Callable[[ReplayServer, ActionRegistry], Callable[[list[Any]], Any]]


def _chat() -> Case:
    calls = [
        wire.Call("get_weather", "call_A", [PARIS]),
        wire.Call("get_weather", "call_B", [LYON]),
        wire.Call("explode", "call_C", ["{}"]),
    ]
    first = wire.sse(wire.chat_chunks(calls, "tool_calls"), named=False, done=True)
    second = wire.sse(wire.chat_chunks([wire.Text([ANSWER])], "stop"), named=False, done=True)

    def call(server: ReplayServer, registry: ActionRegistry) -> Callable[[list[Any]], Any]:
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        return lambda messages: client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=registry.tools("openai"), stream=True
        )

    return Case(
        "openai_chat", Reply([first]), Reply([second]), [{"role": "user", "content": "?"}], call
    )


def _responses() -> Case:
    calls = [
        wire.Call("get_weather", "call_A", [PARIS]),
        wire.Call("get_weather", "call_B", [LYON]),
        wire.Call("explode", "call_C", ["{}"]),
    ]
    first = wire.sse(wire.response_events(calls), named=True)
    second = wire.sse(wire.response_events([wire.Text([ANSWER])]), named=True)

    def call(server: ReplayServer, registry: ActionRegistry) -> Callable[[list[Any]], Any]:
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        return lambda items: client.responses.create(
            model="gpt-4.1-mini",
            input=items,
            tools=registry.tools("openai_responses"),
            stream=True,
        )

    return Case(
        "openai_responses",
        Reply([first]),
        Reply([second]),
        [{"role": "user", "content": "?"}],
        call,
    )


def _anthropic() -> Case:
    calls = [
        wire.Call("get_weather", "toolu_A", [PARIS]),
        wire.Call("get_weather", "toolu_B", [LYON]),
        wire.Call("explode", "toolu_C", ["{}"]),
    ]
    thinking = wire.Thinking(["Two cities, ", "one tool."], signature="EqQBsig")
    first = wire.sse(
        wire.anthropic_events([thinking, wire.Text(["Let me check."]), *calls], "tool_use"),
        named=True,
    )
    second = wire.sse(wire.anthropic_events([wire.Text([ANSWER])]), named=True)

    def call(server: ReplayServer, registry: ActionRegistry) -> Callable[[list[Any]], Any]:
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        return lambda messages: client.messages.create(
            model="claude-test",
            max_tokens=256,
            messages=messages,
            tools=registry.tools("anthropic"),
            stream=True,
        )

    return Case(
        "anthropic", Reply([first]), Reply([second]), [{"role": "user", "content": "?"}], call
    )


def _gemini() -> Case:
    first = gemini_sse(
        [
            # Gemini 3 signs parallel calls on the first part only; it must come back there
            chunk({**gemini_call("get_weather", {"city": "Paris"}, id="fc_A"), **SIGNED}),
            chunk(gemini_call("get_weather", {"town": "Lyon"}, id="fc_B")),
            chunk(gemini_call("explode", {}, id="fc_C"), finish="STOP"),
        ]
    )
    second = gemini_sse([chunk(gemini_text(ANSWER), finish="STOP")])

    def call(server: ReplayServer, registry: ActionRegistry) -> Callable[[list[Any]], Any]:
        client = genai.Client(api_key="k", http_options={"base_url": server.url})
        config = {"tools": [{"function_declarations": registry.tools("gemini")}]}
        return lambda contents: client.aio.models.generate_content_stream(
            model="gemini-2.5-flash", contents=contents, config=config
        )

    return Case(
        "gemini",
        Reply([first]),
        Reply([second]),
        [{"role": "user", "parts": [{"text": "?"}]}],
        call,
    )


def _bedrock() -> Case:
    first = event_stream(
        converse_events(
            [
                ("reasoning", ["Two cities, ", "one tool."]),
                ("tool", ("tooluse_A", "get_weather", [PARIS])),
                ("tool", ("tooluse_B", "get_weather", [LYON])),
                ("tool", ("tooluse_C", "explode", ["{}"])),
            ],
            "tool_use",
        )
    )
    second = event_stream(converse_events([("text", [ANSWER])]))

    def call(server: ReplayServer, registry: ActionRegistry) -> Callable[[list[Any]], Any]:
        client = boto3.client(
            "bedrock-runtime",
            endpoint_url=server.url,
            region_name="us-east-1",
            aws_access_key_id="AKIDEXAMPLE",
            aws_secret_access_key="secret",
        )
        tools = {"tools": registry.tools("bedrock")}
        return lambda messages: client.converse_stream(
            modelId="anthropic.claude-sonnet-4", messages=messages, toolConfig=tools
        )

    return Case(
        "bedrock",
        Reply([first], content_type=EVENTSTREAM),
        Reply([second], content_type=EVENTSTREAM),
        [{"role": "user", "content": [{"text": "?"}]}],
        call,
    )


def _ollama() -> Case:
    calls = [
        tool_call("get_weather", {"city": "Paris"}),
        tool_call("get_weather", {"town": "Lyon"}),
        tool_call("explode", {}),
    ]
    first = ndjson([line(tool_calls=calls), line(done_reason="stop")])
    second = ndjson([line(ANSWER), line(done_reason="stop")])

    def call(server: ReplayServer, registry: ActionRegistry) -> Callable[[list[Any]], Any]:
        client = ollama.AsyncClient(host=server.url)
        return lambda messages: client.chat(
            model="qwen3:8b", messages=messages, tools=registry.tools("ollama"), stream=True
        )

    return Case(
        "ollama",
        Reply([first], content_type=NDJSON),
        Reply([second], content_type=NDJSON),
        [{"role": "user", "content": "?"}],
        call,
    )


CASES = {
    case.name: case
    for case in (_chat(), _responses(), _anthropic(), _gemini(), _bedrock(), _ollama())
}
BUILDERS = {
    "openai_chat": tool_results.openai_chat_results,
    "openai_responses": tool_results.openai_responses_results,
    "anthropic": tool_results.anthropic_results,
    "gemini": tool_results.gemini_results,
    "bedrock": tool_results.bedrock_results,
    "ollama": tool_results.ollama_results,
}


OLLAMA_TWICE = {k: 2 * v for k, v in OLLAMA_COUNTS.items()}
TWO_TURNS_USAGE = {  # each turn's counts (the wire helpers'), summed by the loop
    "openai_chat": None,  # these recordings carry no usage
    "openai_responses": None,
    "anthropic": Usage(50, 84, 134, raw={"input_tokens": 50, "output_tokens": 84}),
    "gemini": Usage(
        24, 14, 38, raw={"promptTokenCount": 24, "candidatesTokenCount": 14, "totalTokenCount": 38}
    ),
    "bedrock": Usage(60, 24, 84, raw={"inputTokens": 60, "outputTokens": 24, "totalTokens": 84}),
    "ollama": Usage(52, 564, 616, raw=OLLAMA_TWICE),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_two_turn_conversation(server: ReplayServer, name: str) -> None:
    case = CASES[name]
    ran: list[str] = []
    registry = make_registry(ran)
    server.play(case.first, case.second)
    before = len(server.requests)
    by_name = {"openai_chat": "openai", "openai_responses": None}.get(name, name)
    loop = run_turns(  # the row's name where its builder is this format's, else the builder
        case.call(server, registry),
        case.messages,
        dispatcher=Dispatcher(registry),
        provider=by_name,
        results=BUILDERS[name] if by_name is None else None,
        stream_id="conv",
    )
    events = await acollect(loop)
    assert ran == ["Paris"]  # exactly once; the invalid call never ran
    assert (loop.turns, loop.stopped) == (2, "answered")
    assert loop.usage == TWO_TURNS_USAGE[name]
    outcomes = [
        e
        for e in events
        if isinstance(e, (ActionComplete, ActionInvalid, ActionResult, ActionFailed))
    ]
    assert [(type(e).__name__, e.id) for e in outcomes] == [
        ("ActionComplete", "conv/0:0"),
        ("ActionResult", "conv/0:0"),
        ("ActionInvalid", "conv/0:1"),
        ("ActionComplete", "conv/0:2"),
        ("ActionFailed", "conv/0:2"),
    ]
    dones = [e for e in events if isinstance(e, StreamDone)]
    assert dones == [
        StreamDone("complete", 2, 1, dones[0].text_chars),
        StreamDone("complete", 0, 0, len(ANSWER)),
    ]
    shown = [e for e in events if not isinstance(e, Usage)]  # each provider counts its own
    assert shown[-2:] == [TextDelta(ANSWER), dones[-1]]
    # the second request carries the results, in the provider's documented shape
    requests = server.requests[before:]
    assert len(requests) == 2
    assert CHECKS[name](requests[1][2]) == RESULTS
    # with thinking on, Claude wants its signed thinking back first, unchanged
    if name == "anthropic":
        assert requests[1][2]["messages"][1]["content"][0] == {
            "type": "thinking",
            "thinking": "Two cities, one tool.",
            "signature": "EqQBsig",
        }
    if name == "bedrock":
        assert requests[1][2]["messages"][1]["content"][0] == {
            "reasoningContent": {
                "reasoningText": {"text": "Two cities, one tool.", "signature": "c2lnbmF0dXJl"}
            }
        }
    if name == "gemini":
        parts = requests[1][2]["contents"][-2]["parts"]
        assert [p.get("thoughtSignature") for p in parts] == ["c2lnbmF0dXJlLUE=", None, None]
    # the conversation grew by both turns (the final answer included)
    assert len(loop.messages) > len(case.messages) + 1


SQL = 'SELECT nom FROM villes WHERE nom = "Zürich";'
SHELL = {"commands": ["ls -la"], "timeout_ms": 5000, "max_output_length": 2048}
LOCAL = {"type": "exec", "command": ["cat", "naïve.txt"], "env": {}}
PATCH = {"type": "update_file", "path": "café.py", "diff": "@@\n-a\n+b\n"}
APPROVAL = {"server_label": "wiki", "name": "ask", "arguments": '{"q": "¿Qué?"}'}
CLIENT_ITEMS = [
    wire.Call("get_weather", "call_A", [PARIS]),
    wire.Item(
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_C", "name": "run_sql"},
        ["SELECT nom FROM ", 'villes WHERE nom = "Zürich";'],
    ),
    wire.Item({"type": "shell_call", "id": "sh_2", "call_id": "call_S", "action": SHELL}),
    wire.Item({"type": "local_shell_call", "id": "lsh_3", "call_id": "call_L", "action": LOCAL}),
    wire.Item({"type": "apply_patch_call", "id": "apc_4", "call_id": "call_P", "operation": PATCH}),
    wire.Item({"type": "mcp_approval_request", "id": "mcpr_5", **APPROVAL}),
]


def make_client_registry(ran: list[str]) -> ActionRegistry:
    """The conversation's registry, with a handler for each client-run item."""
    registry = make_registry(ran)

    @registry.action
    def run_sql(input: str) -> str:
        """A custom tool: raw SQL."""
        ran.append(input)
        return "1 row: Zürich"

    @registry.action
    def shell(action: dict[str, Any]) -> dict[str, Any]:
        ran.append(" && ".join(action["commands"]))
        return {"stdout": "café.py\n", "stderr": "", "exit_code": 0}

    @registry.action
    def local_shell(action: dict[str, Any]) -> str:
        ran.append(" ".join(action["command"]))
        return "contenu naïf"

    @registry.action
    def apply_patch(operation: dict[str, Any]) -> str:
        raise FileNotFoundError(operation["path"])

    @registry.action
    def mcp_approval_request(server_label: str, name: str, arguments: str) -> dict[str, Any]:
        ran.append(f"{server_label}.{name}")
        return {"approve": True}

    return registry


async def test_responses_conversation_answers_each_client_item_with_its_own_output(
    server: ReplayServer,
) -> None:
    """The Responses conversation with client-run items: a custom tool (raw input streamed),
    a shell call, a local shell call, an apply_patch call and an MCP approval request next
    to a function call; the second request answers each with its own output item."""
    ran: list[str] = []
    registry = make_client_registry(ran)
    first = wire.sse(wire.response_events(CLIENT_ITEMS), named=True)
    second = wire.sse(wire.response_events([wire.Text([ANSWER])]), named=True)
    server.play(Reply([first]), Reply([second]))
    before = len(server.requests)
    loop = run_turns(
        _responses().call(server, registry),
        [{"role": "user", "content": "?"}],
        dispatcher=Dispatcher(registry),
        results=tool_results.openai_responses_results,
        stream_id="conv",
    )
    events = await acollect(loop)
    assert ran == ["Paris", SQL, "ls -la", "cat naïve.txt", "wiki.ask"]
    assert (loop.turns, loop.stopped) == (2, "answered")
    assert events[-2] == TextDelta(ANSWER)
    body = server.requests[before:][1][2]
    assert CHECKS["openai_responses"](body) == [
        ('{"city": "Paris", "temp_c": 21}', False),
        ("1 row: Zürich", False),
        ("café.py\n", False),
        ("contenu naïf", False),
        ("Error: apply_patch failed (FileNotFoundError): café.py", True),
        ("", False),  # approved
    ]
    inputs = body["input"]
    assert [i.get("type", i.get("role")) for i in inputs] == [
        "user",
        "function_call",
        "custom_tool_call",
        "shell_call",
        "local_shell_call",
        "apply_patch_call",
        "mcp_approval_request",
        "function_call_output",
        "custom_tool_call_output",
        "shell_call_output",
        "local_shell_call_output",
        "apply_patch_call_output",
        "mcp_approval_response",
    ]
    assert inputs[2:7] == [
        {
            "type": "custom_tool_call",
            "name": "run_sql",
            "input": SQL,
            "call_id": "call_C",
            "id": "ctc_1",
        },
        {
            "type": "shell_call",
            "action": SHELL,
            "status": "completed",
            "call_id": "call_S",
            "id": "sh_2",
        },
        {
            "type": "local_shell_call",
            "action": LOCAL,
            "status": "completed",
            "call_id": "call_L",
            "id": "lsh_3",
        },
        {
            "type": "apply_patch_call",
            "operation": PATCH,
            "status": "completed",
            "call_id": "call_P",
            "id": "apc_4",
        },
        {"type": "mcp_approval_request", "id": "mcpr_5", **APPROVAL},
    ]
    assert inputs[9:] == [
        {
            "type": "shell_call_output",
            "call_id": "call_S",
            "output": [
                {"stdout": "café.py\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
            ],
            "max_output_length": 2048,
        },
        {"type": "local_shell_call_output", "id": "call_L", "output": "contenu naïf"},
        {
            "type": "apply_patch_call_output",
            "call_id": "call_P",
            "status": "failed",
            "output": "Error: apply_patch failed (FileNotFoundError): café.py",
        },
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_5", "approve": True},
    ]


async def test_max_turns_stops_with_a_diagnostic(server: ReplayServer) -> None:
    case = CASES["openai_chat"]
    ran: list[str] = []
    registry = make_registry(ran)
    server.play(case.first)
    loop = run_turns(
        case.call(server, registry),
        case.messages,
        results=tool_results.openai_chat_results,
        dispatcher=Dispatcher(registry),
        max_turns=1,
    )
    events = await acollect(loop)
    assert (loop.turns, loop.stopped) == (1, "max_turns")
    assert isinstance(events[-2], Diagnostic) and events[-2].kind == "max_turns"
    assert isinstance(events[-1], StreamDone)
    assert [m["role"] for m in loop.messages] == ["user", "assistant", "tool", "tool", "tool"]


async def test_rerun_with_the_same_ledger_replays_instead_of_running_again(
    server: ReplayServer,
) -> None:
    case = CASES["anthropic"]
    ran: list[str] = []
    registry = make_registry(ran)
    ledger = MemoryLedger()
    for _ in range(2):
        server.play(case.first, case.second)
        loop = run_turns(
            case.call(server, registry),
            case.messages,
            results=tool_results.anthropic_results,
            dispatcher=Dispatcher(registry, ledger),
            stream_id="resume-1",
        )
        events = await acollect(loop)
    assert ran == ["Paris"]
    replayed = [e for e in events if isinstance(e, ActionResult)]
    assert replayed and all(e.replayed for e in replayed)


async def test_cancelled_mid_turn_stops_the_loop(server: ReplayServer) -> None:
    case = CASES["openai_chat"]
    registry = make_registry([])
    server.disconnected.clear()
    server.play(Reply([b'data: {"choices": []}\n\n'], end="stall"))
    loop = run_turns(
        case.call(server, registry),
        case.messages,
        results=tool_results.openai_chat_results,
        dispatcher=Dispatcher(registry),
    )
    seen: list[Event] = []

    async def consume() -> None:
        async for event in loop:
            seen.append(event)

    task = asyncio.ensure_future(consume())
    while not server.requests:  # the turn is under way (a sleep alone races a loaded machine)
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [StreamDone("aborted", 0, 0, 0)]
    assert loop.stopped == "aborted" and loop.turns == 1
    assert await asyncio.to_thread(server.disconnected.wait, 15)


async def test_abort_event_stops_the_loop(server: ReplayServer) -> None:
    case = CASES["openai_chat"]
    registry = make_registry([])
    server.play(Reply([b'data: {"choices": []}\n\n'], end="stall"))
    abort = asyncio.Event()
    asyncio.get_running_loop().call_later(0.2, abort.set)
    loop = run_turns(
        case.call(server, registry),
        case.messages,
        results=tool_results.openai_chat_results,
        dispatcher=Dispatcher(registry),
        abort=abort,
    )
    assert await acollect(loop) == [StreamDone("aborted", 0, 0, 0)]
    assert loop.stopped == "aborted"


def test_results_by_provider_name() -> None:
    dispatcher = Dispatcher(ActionRegistry())
    loop = run_turns(lambda m: [], [], results="bedrock", dispatcher=dispatcher)
    assert loop.results is tool_results.bedrock_results
    assert run_turns(lambda m: [], [], provider="gemini", dispatcher=dispatcher).results is (
        tool_results.gemini_results
    )
    with pytest.raises(ValueError, match="unknown provider"):
        run_turns(lambda m: [], [], results="nope", dispatcher=dispatcher)
    with pytest.raises(ValueError, match="give the provider"):
        run_turns(lambda m: [], [], dispatcher=dispatcher)


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_turns"):
        run_turns(
            lambda m: [],
            [],
            results=tool_results.openai_chat_results,
            dispatcher=Dispatcher(ActionRegistry()),
            max_turns=0,
        )


STALLED = {
    "gemini": gemini_sse([chunk(gemini_text("Hel"))]),
    "ollama": ndjson([line("Hel")]),
    "bedrock": event_stream(converse_events([("text", ["Hel"])])[:2]),
}


@pytest.mark.parametrize("name", list(STALLED))
async def test_abort_closes_each_new_sdk_stream(server: ReplayServer, name: str) -> None:
    """An abort while the next chunk is awaited closes the SDK's stream (async, or boto3's
    in its thread): the server sees the client go away, and the turn ends aborted."""
    case = CASES[name]
    registry = make_registry([])
    server.disconnected.clear()
    content_type = case.first.content_type
    server.play(Reply([STALLED[name]], content_type=content_type, end="stall"))
    abort = asyncio.Event()
    loop = run_turns(
        case.call(server, registry),
        case.messages,
        provider=name,
        dispatcher=Dispatcher(registry),
        abort=abort,
        stream_id="ab",
    )
    events: list[Event] = []
    async for event in loop:
        events.append(event)
        if isinstance(event, TextDelta):
            asyncio.get_running_loop().call_later(0.1, abort.set)
    shown = [e for e in events if not isinstance(e, Usage)]  # Gemini counts in every chunk
    assert shown == [TextDelta("Hel"), StreamDone("aborted", 0, 0, 3)]
    assert loop.stopped == "aborted"
    assert await asyncio.to_thread(server.disconnected.wait, 15)

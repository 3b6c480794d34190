"""A tool the provider already ran is never an action to dispatch (issue 25, item 1).

Each stream of :mod:`tests.support.replay.hosted` (OpenAI's and xAI's Responses, Anthropic, Groq's Chat
Completions, Gemini, Bedrock) must give exactly its expected events: fed payload by
payload as dicts, as its raw body cut every 7 bytes and inside every multi-byte
character, and through the provider's real SDK over real HTTP.  Then the same streams
run through a ``Dispatcher`` and through ``run_turns`` with a handler planted under the
name of every provider-run tool: none of them ever runs, and nothing asks for a result.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import boto3
import openai
import pytest
from google import genai

from tests.support.replay import ReplayServer, Reply, acollect, chunkings, collect, load, wire
from tests.support.replay.bedrock_wire import CONTENT_TYPE as EVENTSTREAM
from tests.support.replay.bedrock_wire import converse_events, event_stream
from tests.support.replay.expected_hosted import EXPECTED_HOSTED as EXPECTED
from tests.support.replay.expected_hosted import HOSTED_NAMES
from tests.support.replay.gemini_wire import chunk, gemini_sse, text
from tests.support.replay.hosted import STREAMS
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._registry import ActionRegistry
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    StreamDone,
    TextDelta,
    Usage,
)
from unspool.sources._provider_decoder import ProviderDecoder
from unspool.sources._sse import iter_sse
from unspool.sources._turns import run_turns
from unspool.sources.providers import _tool_results as tool_results
from unspool.sources.providers._anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers._bedrock import BedrockDecoder, from_bedrock
from unspool.sources.providers._gemini import GeminiDecoder, from_gemini
from unspool.sources.providers._openai import OpenAIDecoder, from_openai

MESSAGES = [{"role": "user", "content": "?"}]
SSE_NAMES = [name for name in EXPECTED if not name.endswith(".eventstream")]
CASES = [(name, how) for name in EXPECTED for how in chunkings(load(name))]
ANSWER = "Done — 21 °C."
HOSTED = (HostedToolStarted, HostedToolInput, HostedToolResult)


def decoder(name: str, registry: ActionRegistry | None = None) -> ProviderDecoder:
    kind: type[ProviderDecoder] = OpenAIDecoder
    for prefix, other in (
        ("anthropic", AnthropicDecoder),
        ("gemini", GeminiDecoder),
        ("bedrock", BedrockDecoder),
    ):
        if name.startswith(prefix):
            kind = other
    return kind(stream_id="stream", registry=registry)


def fed(name: str, decode: ProviderDecoder | None = None) -> list[Event]:
    """The stream's payloads fed one by one, as the decoded JSON dicts of the wire."""
    decode = decode or decoder(name)
    events = [e for p in STREAMS[name] for e in decode.feed(json.loads(json.dumps(p)))]
    return events + decode.finish()


@pytest.fixture(scope="module")
def shared_server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


@pytest.fixture
def server(shared_server: ReplayServer) -> Iterator[ReplayServer]:
    """The module's server, with nothing left queued by an earlier test."""
    shared_server.reset()
    yield shared_server
    shared_server.reset()


@pytest.fixture(autouse=True)
def fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials, so boto3 signs requests without looking anywhere else."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


# ------------------------------------------------------------------ exact events, every way


@pytest.mark.parametrize("name", list(EXPECTED))
def test_payloads_as_dicts(name: str) -> None:
    assert fed(name) == EXPECTED[name]


@pytest.mark.parametrize(("name", "how"), [c for c in CASES if c[0] in SSE_NAMES])
def test_the_raw_body_cut_anywhere(name: str, how: str) -> None:
    messages = iter_sse(chunkings(load(name))[how])
    adapter = {"anthropic": from_anthropic, "gemini": from_gemini}.get(name.split("_")[0])
    assert collect((adapter or from_openai)(messages, stream_id="stream")) == EXPECTED[name]


def sdk_call(server: ReplayServer, name: str) -> Any:
    """The real SDK's streamed call for the stream's API, read by its adapter."""
    if name.startswith("anthropic"):
        client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        stream = client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]
        return from_anthropic(stream, stream_id="stream")
    if name.startswith("gemini"):
        gemini = genai.Client(api_key="k", http_options={"base_url": server.url})
        stream = gemini.models.generate_content_stream(model="gemini-2.5-flash", contents="?")
        return collect(from_gemini(stream, stream_id="stream"))  # read while the client lives
    if name.startswith("bedrock"):
        bedrock = boto3.client("bedrock-runtime", endpoint_url=server.url)
        response = bedrock.converse_stream(modelId="amazon.nova-2-lite-v1:0", messages=[])
        return from_bedrock(response, stream_id="stream")
    oai = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    if name.startswith("openai_responses"):
        return from_openai(oai.responses.create(model="m", input="?", stream=True), stream_id="stream")  # fmt: skip
    chat = oai.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    return from_openai(chat, stream_id="stream")


def content_type(name: str) -> str:
    return EVENTSTREAM if name.endswith(".eventstream") else "text/event-stream; charset=utf-8"


@pytest.mark.parametrize(("name", "how"), CASES)
def test_the_real_sdk_over_http(server: ReplayServer, name: str, how: str) -> None:
    server.play(Reply(chunkings(load(name))[how], content_type=content_type(name)))
    assert collect(sdk_call(server, name)) == EXPECTED[name]


@pytest.mark.parametrize("name", [n for n in SSE_NAMES if not n.startswith("gemini")])
async def test_the_real_async_sdk_over_http(server: ReplayServer, name: str) -> None:
    server.play(Reply(chunkings(load(name))["inside-utf8"]))
    if name.startswith("anthropic"):
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        stream: Any = await client.messages.create(
            model="m",
            max_tokens=9,
            messages=MESSAGES,  # type: ignore[arg-type]
            stream=True,
        )
        events = await acollect(from_anthropic(stream, stream_id="stream"))
    else:
        oai = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        if name.startswith("openai_responses"):
            stream = await oai.responses.create(model="m", input="?", stream=True)
        else:
            stream = await oai.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
        events = await acollect(from_openai(stream, stream_id="stream"))
    assert events == EXPECTED[name]


# ------------------------------------------------------------------ never run by a dispatcher


def planted(names: set[str], ran: list[str]) -> ActionRegistry:
    """A registry with a handler under every name in ``names`` (each records that it ran)
    and the client's own ``get_weather``."""
    registry = ActionRegistry()
    for tool in sorted(names):

        def run(args: Any, tool: str = tool) -> str:
            ran.append(tool)
            return f"{tool} ran on the client"

        registry.register(tool, run, schema={"type": ["object", "string", "null"]})

    @registry.action
    def get_weather(city: str) -> dict[str, Any]:
        """The weather in a city."""
        ran.append("get_weather")
        return {"city": city, "temp_c": 21}

    return registry


def same_but_args(events: list[Event]) -> list[Any]:
    """The events with an action's (validated) args left out."""
    return [
        (e.id, e.name, e.action_id) if isinstance(e, ActionComplete) else e
        for e in events
        if not isinstance(e, ActionResult)
    ]


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_handler_of_the_same_name_never_runs(name: str) -> None:
    ran: list[str] = []
    registry = planted(HOSTED_NAMES[name], ran)
    events = list(Dispatcher(registry).run(fed(name)))
    client_calls = [e for e in EXPECTED[name] if isinstance(e, ActionComplete)]
    # only the client's calls ran (the local shell call is named "shell", as the hosted one)
    assert ran == [e.name for e in client_calls]
    outcomes = [e for e in events if isinstance(e, (ActionResult, ActionFailed, ActionInvalid))]
    assert [(type(e), e.id) for e in outcomes] == [(ActionResult, e.id) for e in client_calls]
    # the dispatcher only adds outcomes: every other event went through as it was
    assert same_but_args(events) == same_but_args(EXPECTED[name])
    hosted = {e.id for e in events if isinstance(e, HostedToolStarted)}
    assert hosted and not hosted & {e.id for e in events if hasattr(e, "index")}
    # a registry validating in the decoder leaves them alone too: no action to validate
    validated = fed(name, decoder(name, registry))
    assert [e for e in validated if isinstance(e, HOSTED)] == [
        e for e in EXPECTED[name] if isinstance(e, HOSTED)
    ]
    assert not any(isinstance(e, ActionInvalid) for e in validated)


def second_turn(name: str) -> Reply:
    """A plain text answer in the stream's own format."""
    if name.startswith("anthropic"):
        body = wire.sse(wire.anthropic_events([wire.Text([ANSWER])]), named=True)
    elif name.startswith("openai_responses"):
        body = wire.sse(wire.response_events([wire.Text([ANSWER])]), named=True)
    elif name.startswith("gemini"):
        body = gemini_sse([chunk(text(ANSWER), finish="STOP")])
    elif name.startswith("bedrock"):
        return Reply([event_stream(converse_events([("text", [ANSWER])]))], content_type=EVENTSTREAM)  # fmt: skip
    else:
        body = wire.sse(wire.chat_chunks([wire.Text([ANSWER])], "stop"), named=False, done=True)
    return Reply([body])


def loop_call(server: ReplayServer, name: str) -> tuple[Callable[[list[Any]], Any], list[Any], dict[str, Any]]:  # fmt: skip
    """The model call of a turn, the first messages, and ``run_turns``' provider options."""
    if name.startswith("anthropic"):
        claude = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        call = lambda messages: claude.messages.create(  # noqa: E731
            model="claude-test", max_tokens=256, messages=messages, stream=True
        )
        return call, MESSAGES, {"provider": "anthropic"}
    if name.startswith("gemini"):
        gemini = genai.Client(api_key="k", http_options={"base_url": server.url})
        call = lambda contents: gemini.aio.models.generate_content_stream(  # noqa: E731
            model="gemini-2.5-flash", contents=contents
        )
        return call, [{"role": "user", "parts": [{"text": "?"}]}], {"provider": "gemini"}
    if name.startswith("bedrock"):
        bedrock = boto3.client("bedrock-runtime", endpoint_url=server.url)
        call = lambda messages: bedrock.converse_stream(  # noqa: E731
            modelId="amazon.nova-2-lite-v1:0", messages=messages
        )
        return call, [{"role": "user", "content": [{"text": "?"}]}], {"provider": "bedrock"}
    oai = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    if name.startswith("openai_responses"):
        call = lambda items: oai.responses.create(model="m", input=items, stream=True)  # noqa: E731
        return call, MESSAGES, {"results": tool_results.openai_responses_results}
    call = lambda messages: oai.chat.completions.create(  # noqa: E731
        model="groq/compound", messages=messages, stream=True
    )
    return call, MESSAGES, {"provider": "openai"}


@pytest.mark.parametrize("name", list(EXPECTED))
async def test_run_turns_never_runs_nor_answers_a_provider_run_tool(
    server: ReplayServer, name: str
) -> None:
    ran: list[str] = []
    registry = planted(HOSTED_NAMES[name], ran)
    client_calls = [e for e in EXPECTED[name] if isinstance(e, ActionComplete)]
    server.play(Reply([load(name)], content_type=content_type(name)), second_turn(name))
    call, messages, options = loop_call(server, name)
    loop = run_turns(call, messages, dispatcher=Dispatcher(registry), stream_id="conv", **options)
    events = await acollect(loop)
    # only the client's own call ran; a turn of provider-run tools alone is an answer
    assert ran == [e.name for e in client_calls]
    assert (loop.turns, loop.stopped) == (2 if client_calls else 1, "answered")
    assert not any(isinstance(e, (ActionFailed, ActionInvalid)) for e in events)
    # the provider-run calls of the first turn, as the stream said, with the turn's ids
    assert [e for e in events if isinstance(e, HOSTED)] == [
        dataclasses.replace(e, id=e.id.replace("stream/", "conv/0/"))
        for e in EXPECTED[name]
        if isinstance(e, HOSTED)
    ]
    if client_calls:  # the next request answers the client's call, and nothing else
        body = dict(server.requests[-1][2])
        for key in ("messages", "contents", "input"):  # the model's own turn, echoed, aside
            if key in body:
                body[key] = [m for m in body[key] if m.get("role") not in ("assistant", "model")]
        sent = json.dumps(body, ensure_ascii=False)
        assert client_calls[0].action_id in sent
        for event in EXPECTED[name]:
            if isinstance(event, HostedToolStarted) and event.provider_id:
                assert event.provider_id not in sent
        shown = [e for e in events if not isinstance(e, Usage)]  # each provider counts its own
        assert shown[-2:] == [TextDelta(ANSWER), StreamDone("complete", 0, 0, len(ANSWER))]


# ------------------------------------------------------------------ who runs a call


@pytest.mark.parametrize(
    ("environment", "hosted"),
    [
        ({"type": "container_auto"}, True),
        ({"type": "container_reference", "container_id": "cntr_1"}, True),
        ({"type": "local"}, False),
        (None, False),  # the shell tool before environments: the client's
    ],
)
def test_a_shell_call_runs_where_its_environment_says(environment: Any, hosted: bool) -> None:
    item: dict[str, Any] = {"type": "shell_call", "id": "sh_1", "call_id": "call_1", "action": {"commands": ["ls"]}}  # fmt: skip
    if environment is not None:
        item["environment"] = environment
    decode = OpenAIDecoder(stream_id="s")
    events = decode.feed({"type": "response.output_item.added", "output_index": 0, "item": {**item, "status": "in_progress"}})  # fmt: skip
    events += decode.feed({"type": "response.output_item.done", "output_index": 0, "item": {**item, "status": "completed"}})  # fmt: skip
    events += decode.feed({"type": "response.completed", "response": {}}) + decode.finish()
    kinds = [type(e) for e in events]
    if hosted:
        assert kinds == [HostedToolStarted, HostedToolInput, StreamDone]  # its output: an item
        assert events[-1] == StreamDone("complete", 0, 0, 0)
    else:
        assert kinds == [ActionStarted, ActionArgsDelta, ActionComplete, StreamDone]


@pytest.mark.parametrize(
    ("call_id", "hosted"),
    [
        ("xs_call_24148162", True),
        ("xs_call-5c1d0e4a-9c41-4f7e-8d3a-2b6f0c1e9a77-0", True),
        ("ws_call_1", True),
        ("call_R3SFJWQHZ4ebOGHTATol2WJF", False),  # OpenAI's: the client's custom tool
        ("call_xs_1", False),
    ],
)
def test_a_custom_tool_call_is_the_servers_by_its_call_id(call_id: str, hosted: bool) -> None:
    ran: list[str] = []
    registry = planted({"x_keyword_search"}, ran)
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": call_id, "name": "x_keyword_search", "input": ""}  # fmt: skip
    decode = OpenAIDecoder(stream_id="s")
    events = decode.feed({"type": "response.output_item.added", "output_index": 0, "item": item})
    events += decode.feed({"type": "response.custom_tool_call_input.done", "output_index": 0, "input": "q"})  # fmt: skip
    events += decode.feed({"type": "response.output_item.done", "output_index": 0, "item": {**item, "input": "q"}})  # fmt: skip
    events = list(Dispatcher(registry).run(events + decode.finish()))
    if hosted:
        assert events == [
            HostedToolStarted("s/hosted:0", "x_keyword_search", call_id, "custom_tool_call"),
            HostedToolInput("s/hosted:0", "x_keyword_search", "q"),
            HostedToolResult("s/hosted:0", "x_keyword_search", None, None, "custom_tool_call"),
            StreamDone("complete", 0, 0, 0),
        ]
        assert ran == []
    else:
        assert ran == ["x_keyword_search"]  # the planted handler: this call is the client's
        assert [type(e) for e in events][-3:] == [ActionComplete, ActionResult, StreamDone]


# ------------------------------------------------------------------ edges


def test_a_result_whose_call_was_not_seen_still_shows() -> None:
    decode = AnthropicDecoder(stream_id="s")
    block = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_9", "content": []}
    events = decode.feed({"type": "content_block_start", "index": 0, "content_block": block})
    responses = OpenAIDecoder(stream_id="r")
    item = {"type": "shell_call_output", "id": "sho_1", "call_id": "call_9", "output": []}
    events += responses.feed({"type": "response.output_item.done", "output_index": 0, "item": item})  # fmt: skip
    assert events == [
        HostedToolStarted("s/hosted:0", "web_search", "srvtoolu_9", "web_search_tool_result"),
        HostedToolResult("s/hosted:0", "web_search", [], None, "web_search_tool_result"),
        HostedToolStarted("r/hosted:0", "shell", "call_9", "shell_call_output"),
        HostedToolResult("r/hosted:0", "shell", [], None, "shell_call_output"),
    ]


def test_a_whole_anthropic_message_and_a_bad_input() -> None:
    """Content inside ``message_start`` (a whole message) and a server-run call whose
    streamed input is not JSON (kept as its text, with a report)."""
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "ü"}}  # fmt: skip
    failed = {"type": "mcp_tool_result", "tool_use_id": "srvtoolu_1", "is_error": True, "content": [{"type": "text", "text": "boom"}]}  # fmt: skip
    start = {"type": "message_start", "message": {"content": [use, failed], "stop_reason": None}}
    decode = AnthropicDecoder(stream_id="s")
    events = decode.feed(start)
    bad = {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_fetch", "input": {}}
    events += decode.feed({"type": "content_block_start", "index": 0, "content_block": bad})
    events += decode.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"url": '}})  # fmt: skip
    events += decode.feed({"type": "content_block_stop", "index": 0})
    assert events == [
        HostedToolStarted("s/hosted:0", "web_search", "srvtoolu_1", "server_tool_use"),
        HostedToolInput("s/hosted:0", "web_search", {"query": "ü"}),
        HostedToolResult("s/hosted:0", "web_search", failed["content"], "boom", "mcp_tool_result"),
        HostedToolStarted("s/hosted:1", "web_fetch", "srvtoolu_2", "server_tool_use"),
        Diagnostic(
            "bad_event",
            "a server-run tool's input is not valid JSON: kept as text",
            text='{"url": ',
        ),
        HostedToolInput("s/hosted:1", "web_fetch", '{"url": '),
    ]


def test_groq_executed_tools_whole_or_unnumbered() -> None:
    decode = OpenAIDecoder(stream_id="s")
    whole = {"index": 0, "type": "python", "arguments": '{"code": "1+1"}', "output": "2", "code_results": [{"text": "2"}]}  # fmt: skip
    unnumbered = {"type": "visit", "arguments": "{}"}
    delta = {"executed_tools": [whole, unnumbered]}
    events = decode.feed({"choices": [{"index": 0, "delta": delta, "finish_reason": "stop"}]})
    assert events == [
        HostedToolStarted("s/hosted:0", "python", None, "executed_tools"),
        HostedToolInput("s/hosted:0", "python", '{"code": "1+1"}'),
        HostedToolResult(
            "s/hosted:0",
            "python",
            {"output": "2", "code_results": [{"text": "2"}]},
            None,
            "executed_tools",
        ),
        HostedToolStarted("s/hosted:1", "visit", None, "executed_tools"),
        HostedToolInput("s/hosted:1", "visit", "{}"),
    ]


def test_gemini_pairs_a_result_by_its_id() -> None:
    decode = GeminiDecoder(stream_id="s")
    calls = [{"toolCall": {"toolType": "URL_CONTEXT", "args": {"url": f"u{i}"}, "id": f"t{i}"}} for i in (1, 2)]  # fmt: skip
    results = [{"toolResponse": {"toolType": "URL_CONTEXT", "response": {"n": i}, "id": f"t{i}"}} for i in (2, 1)]  # fmt: skip
    events = decode.feed({"candidates": [{"content": {"parts": [*calls, *results]}}]})
    ended = [(e.id, e.output) for e in events if isinstance(e, HostedToolResult)]
    assert ended == [("s/hosted:1", {"n": 2}), ("s/hosted:0", {"n": 1})]


def test_bedrock_a_failed_server_tool() -> None:
    decode = BedrockDecoder(stream_id="s")
    start = {"toolUse": {"toolUseId": "t1", "name": "nova_code_interpreter", "type": "server_tool_use"}}  # fmt: skip
    result = {"toolResult": {"toolUseId": "t1", "status": "error"}}
    events = decode.feed({"contentBlockStart": {"contentBlockIndex": 0, "start": start}})
    events += decode.feed({"contentBlockStop": {"contentBlockIndex": 0}})
    events += decode.feed({"contentBlockStart": {"contentBlockIndex": 1, "start": result}})
    events += decode.feed({"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolResult": [{"text": "time"}, {"text": "out"}, {"json": {"code": 7}}]}}})  # fmt: skip
    events += decode.feed({"contentBlockStop": {"contentBlockIndex": 1}})
    output = [{"text": "timeout"}, {"json": {"code": 7}}]
    assert events == [
        HostedToolStarted("s/hosted:0", "nova_code_interpreter", "t1", "server_tool_use"),
        HostedToolInput("s/hosted:0", "nova_code_interpreter", {}),
        HostedToolResult("s/hosted:0", "nova_code_interpreter", output, "timeout", None),
    ]


def test_a_stream_cut_during_a_provider_run_tool_invents_no_result() -> None:
    cut = STREAMS["anthropic_server_tools.sse"][:9]  # the web search's input, no result
    decode = AnthropicDecoder(stream_id="stream")
    events = [e for p in cut for e in decode.feed(p)] + decode.finish("length")
    assert events == [
        TextDelta("Let me look that up."),
        *EXPECTED["anthropic_server_tools.sse"][1:3],
        Usage(10, 1, 11, raw={"input_tokens": 10, "output_tokens": 1}),  # message_start's
        StreamDone("truncated", 0, 0, 20),
    ]


def test_each_phase_is_reported_once() -> None:
    """A call's item, block or part sent again (a retried delivery) reports nothing new."""
    web = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}
    responses = OpenAIDecoder(stream_id="r")
    done = {"type": "response.output_item.done", "output_index": 0, "item": web}
    events = responses.feed(done) + responses.feed(done)
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    claude = AnthropicDecoder(stream_id="a")
    for _ in range(2):
        events += claude.feed({"type": "content_block_start", "index": 0, "content_block": use})
        events += claude.feed({"type": "content_block_stop", "index": 0})
    groq = OpenAIDecoder(stream_id="g")
    tool = {"index": 0, "type": "search", "arguments": "{}", "output": "r"}
    for _ in range(2):
        events += groq.feed({"choices": [{"index": 0, "delta": {"executed_tools": [tool]}}]})
    assert [(type(e).__name__, e.id) for e in events] == [  # type: ignore[union-attr]
        ("HostedToolStarted", "r/hosted:0"),
        ("HostedToolInput", "r/hosted:0"),
        ("HostedToolResult", "r/hosted:0"),
        ("HostedToolStarted", "a/hosted:0"),
        ("HostedToolInput", "a/hosted:0"),
        ("HostedToolStarted", "g/hosted:0"),
        ("HostedToolInput", "g/hosted:0"),
        ("HostedToolResult", "g/hosted:0"),
    ]

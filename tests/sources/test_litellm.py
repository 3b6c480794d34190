"""LiteLLM as a source (issue 25, item 5): ``litellm.completion(..., stream=True)`` yields
OpenAI-shaped chunks (``ModelResponseStream``) whatever the provider behind it, and
``from_openai`` / ``generate`` read them as they are.  LiteLLM's real client talks HTTP to
the loopback replay server, one test per provider shape it normalises: an
OpenAI-compatible server (DeepSeek's recorded stream), Anthropic's Messages stream, and
the async client.  LiteLLM computes the usage it reports (a cost, estimated reasoning
tokens), so its ``raw`` is held to the fields the server sent, and the counts exactly."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no download at import

from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():  # its pydantic models warn about ReadOnly at import
    warnings.simplefilter("ignore", UserWarning)
    litellm = pytest.importorskip("litellm")

from tests.support.replay import ReplayServer, Reply, acollect, collect, load
from tests.support.replay.compatible import STREAMS
from tests.support.replay.expected import ANTHROPIC_TOOLS
from unspool.actions import ActionRegistry, Dispatcher
from unspool.events import Event, ReasoningDelta, StreamDone, TextDelta, Usage
from unspool.sources._generate import generate
from unspool.sources._turns import run_turns
from unspool.sources.providers._openai import from_openai
from unspool.sources.providers._tool_results import openai_chat_results

MESSAGES = [{"role": "user", "content": "?"}]
# LiteLLM's pydantic models warn about ReadOnly items when its providers load lazily
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def counted(events: list[Event], expected: Usage) -> list[Event]:
    """``events`` with their ``Usage`` checked (the counts exactly, the server's fields in
    its raw record) and replaced by ``expected``."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, Usage):
            counts = (event.input_tokens, event.output_tokens, event.total_tokens)
            assert counts == (expected.input_tokens, expected.output_tokens, expected.total_tokens)
            assert event.cached_input_tokens == expected.cached_input_tokens
            for name, value in expected.raw.items():
                assert event.raw[name] == value, name
            event = expected
        out.append(event)
    return out


def test_an_openai_compatible_server_through_litellm(server: ReplayServer) -> None:
    _, body = STREAMS["DeepSeek"]
    server.play(Reply([body]))
    stream = litellm.completion(
        model="openai/deepseek-reasoner",
        api_base=server.url + "/v1",
        api_key="k",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )
    usage = Usage(40, 18, 58, 32, raw={"prompt_tokens": 40, "completion_tokens": 18})
    assert counted(collect(from_openai(stream, stream_id="s")), usage) == [
        ReasoningDelta("Calculons."),
        TextDelta("42"),
        usage,
        StreamDone("complete", 0, 0, 2),
    ]


def anthropic_stream(server: ReplayServer) -> Any:
    server.play(Reply([load("anthropic_tools.sse")]))
    return litellm.completion(
        model="anthropic/claude-sonnet-4-5",
        api_base=server.url,
        api_key="k",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )


ANTHROPIC_USAGE = Usage(25, 42, 67, 0, raw={"prompt_tokens": 25, "completion_tokens": 42})


def test_anthropics_stream_normalised_by_litellm(server: ReplayServer) -> None:
    """LiteLLM turns Anthropic's thinking, text and tool_use blocks into Chat chunks: the
    same events as ``from_anthropic`` on the stream itself (the thinking block's signature
    read from ``thinking_blocks``), LiteLLM's usage aside."""
    events = counted(collect(from_openai(anthropic_stream(server), stream_id="stream")), ANTHROPIC_USAGE)  # fmt: skip
    assert events == [*ANTHROPIC_TOOLS[:-2], ANTHROPIC_USAGE, ANTHROPIC_TOOLS[-1]]


async def test_generate_recognises_litellm_and_reads_the_async_client(server: ReplayServer) -> None:
    server.play(Reply([load("anthropic_tools.sse")]))
    stream = await litellm.acompletion(
        model="anthropic/claude-sonnet-4-5",
        api_base=server.url,
        api_key="k",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )
    events = counted(await acollect(generate(stream, stream_id="stream")), ANTHROPIC_USAGE)
    assert events == [*ANTHROPIC_TOOLS[:-2], ANTHROPIC_USAGE, ANTHROPIC_TOOLS[-1]]


async def test_claudes_signed_thinking_goes_back_through_litellm(server: ReplayServer) -> None:
    """A tool turn of Claude read through LiteLLM goes back with its signed thinking:
    ``openai_chat_results`` puts it in ``thinking_blocks``, and LiteLLM's own request to
    Anthropic (what the replay server received) holds it before the ``tool_use``."""
    registry = ActionRegistry()

    @registry.action("get_weather")
    def get_weather(city: str) -> str:
        return f"21 °C in {city}"

    server.play(Reply([load("anthropic_tools.sse")]), Reply([load("anthropic_tools.sse")]))
    before = len(server.requests)

    def call(messages: list[Any]) -> Any:
        return litellm.acompletion(
            model="anthropic/claude-sonnet-4-5",
            api_base=server.url,
            api_key="k",
            messages=messages,
            stream=True,
        )

    loop = run_turns(
        call,
        list(MESSAGES),
        dispatcher=Dispatcher(registry),
        results=openai_chat_results,
        stream_id="lt",
        max_turns=2,
    )
    await acollect(loop)
    assert loop.turns == 2
    sent = server.requests[before + 1][2]  # the second request, as LiteLLM wrote it
    assistant = next(m for m in sent["messages"] if m["role"] == "assistant")
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "The user wants the weather.",
        "signature": "EqQBCkYIBxgCKkBSig",
    }
    assert [b["type"] for b in assistant["content"][1:]] == ["text", "tool_use", "tool_use"]

"""generate(): model call in, events out; cancellation, aborts and upstream failures.

The faults are real: the replay server stalls (the client must go away) or
drops the connection in the middle of a chunked body.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.support.replay import ReplayServer, Reply, acollect, frozen, load
from tests.support.replay.expected import (
    ANTHROPIC_STARTED,
    ANTHROPIC_TOOLS,
    CHAT_TEXT,
    CHAT_TOOLS,
    EXPECTED,
)
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._registry import ActionRegistry
from unspool.events import (
    ActionComplete,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Event,
    StreamDone,
    StreamError,
    TextDelta,
)
from unspool.sources._generate import generate

MESSAGES = [{"role": "user", "content": "weather?"}]
ABORTED = ({"message": "the stream was aborted inside this tool call"},)


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


@pytest.fixture
def fresh(server: ReplayServer) -> ReplayServer:
    server.disconnected.clear()
    return server


def oai(server: ReplayServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)


def claude(server: ReplayServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=server.url, api_key="test-key", max_retries=0)


def chat_call(server: ReplayServer) -> Callable[[], Any]:
    client = oai(server)
    return lambda: client.chat.completions.create(
        model="gpt-4o-mini", messages=MESSAGES, stream=True
    )


def only_task_left() -> bool:
    return asyncio.all_tasks() == {asyncio.current_task()}


async def disconnected(server: ReplayServer) -> bool:
    return await asyncio.to_thread(server.disconnected.wait, 5)


async def sdk_error(server: ReplayServer, reply: Reply, call: Callable[[], Any]) -> StreamError:
    """What the SDK itself raises for ``reply``, as the StreamError it must become
    (its wording and class differ between SDK versions)."""
    server.play(reply)
    try:
        async for _ in await call():
            continue  # drain
    except Exception as exc:
        return StreamError(str(exc), type(exc).__name__)
    raise AssertionError("the SDK did not fail")


# ------------------------------------------------------------------ normal streams


async def test_async_openai_call(server: ReplayServer) -> None:
    server.play(Reply([load("openai_chat_tools.sse")]))
    assert await acollect(generate(chat_call(server), stream_id="stream")) == CHAT_TOOLS
    assert only_task_left()


async def test_anthropic_stream_manager_is_entered(server: ReplayServer) -> None:
    server.play(Reply([load("anthropic_tools.sse")]))
    client = claude(server)
    call = lambda: client.messages.stream(model="claude-test", max_tokens=64, messages=MESSAGES)  # noqa: E731
    assert await acollect(generate(call, stream_id="stream")) == ANTHROPIC_TOOLS


async def test_sync_openai_stream_is_read_in_a_thread(server: ReplayServer) -> None:
    server.play(Reply([load("openai_chat_text.sse")]))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    assert await acollect(generate(stream, stream_id="stream")) == CHAT_TEXT
    assert stream.response.is_closed


@pytest.mark.parametrize("name", ["openai_responses_incomplete.sse", "anthropic_max_tokens.sse"])
async def test_truncated_streams(server: ReplayServer, name: str) -> None:
    server.play(Reply([load(name)]))
    if name.startswith("openai"):
        client = oai(server)
        events = generate(
            lambda: client.responses.create(model="m", input="x", stream=True), stream_id="stream"
        )
    else:
        c = claude(server)
        events = generate(
            lambda: c.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True),
            stream_id="stream",
        )  # type: ignore[arg-type]
    assert await acollect(events) == EXPECTED[name]


async def test_text_chunks() -> None:
    assert await acollect(
        generate(["Hel", b"lo ", "wörld".encode()[:2], "wörld".encode()[2:]], stream_id="stream")
    ) == [
        TextDelta("Hel"),
        TextDelta("lo "),
        TextDelta("w"),
        TextDelta("örld"),
        StreamDone("complete", 0, 0, 11),
    ]
    assert await acollect(generate([], stream_id="stream")) == [StreamDone("complete", 0, 0, 0)]


async def test_tags_protocol_with_a_dispatcher() -> None:
    registry = ActionRegistry()
    ran: list[int] = []

    @registry.action
    def double(n: int) -> int:
        ran.append(n)
        return n * 2

    async def model() -> AsyncIterator[str]:
        for chunk in ['Sure <action name="double">{"n"', ": 21}</action>", " done"]:
            await asyncio.sleep(0)
            yield chunk

    events = await acollect(
        generate(model, protocol="tags", dispatcher=Dispatcher(registry), stream_id="stream")
    )
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "TextDelta",
        "ActionStarted",
        "ActionArgsDelta",
        "ActionArgsDelta",
        "ActionComplete",
        "ActionResult",
        "TextDelta",
        "StreamDone",
    ]
    assert events[0] == TextDelta("Sure ")
    complete = events[4]
    assert isinstance(complete, ActionComplete) and complete.args.model_dump() == {"n": 21}
    assert events[5] == ActionResult("stream:0", 0, "double", 42)
    assert events[6:] == [TextDelta(" done"), StreamDone("complete", 1, 0, 10)]
    assert ran == [21]


# ------------------------------------------------------------------ upstream failures


async def test_connection_dropped_mid_tool_call(fresh: ReplayServer) -> None:
    body = load("openai_chat_tools.sse")
    cut = body.index("京".encode()) + 1  # inside the character, inside an SSE line
    reply = Reply([body[: cut - 40], body[cut - 40 : cut]], end="drop")
    error = await sdk_error(fresh, reply, chat_call(fresh))
    assert error.error_type in ("RemoteProtocolError", "APIConnectionError")
    fresh.play(reply)
    events = await acollect(generate(chat_call(fresh), stream_id="stream"))
    assert events == [
        *CHAT_TOOLS[:10],
        error,
        ActionInvalid(
            "stream:1", 1, "get_weather", "truncated", ABORTED, '{"city": "東', "call_w2"
        ),
        StreamDone("error", 1, 1, 21),
    ]
    assert only_task_left()


async def test_connection_dropped_anthropic(fresh: ReplayServer) -> None:
    body = load("anthropic_tools.sse")
    reply = Reply([body[: body.index(b'"index":3')]], end="drop")
    client = claude(fresh)

    def call() -> Any:
        return client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]

    error = await sdk_error(fresh, reply, call)
    fresh.play(reply)
    events = await acollect(generate(call, stream_id="stream"))
    assert events == [
        *ANTHROPIC_TOOLS[:10],
        error,
        ANTHROPIC_STARTED,
        StreamDone("error", 1, 0, 28),
    ]


async def test_http_error_before_the_stream(server: ReplayServer) -> None:
    body = b'{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}'
    reply = Reply([body], status=429)
    error = await sdk_error(server, reply, chat_call(server))
    assert error.error_type == "RateLimitError" and "Rate limit reached" in error.message
    server.play(reply)
    events = await acollect(generate(chat_call(server), stream_id="stream"))
    assert events == [error, StreamDone("error", 0, 0, 0)]


async def test_call_that_raises_or_returns_no_stream() -> None:
    assert await acollect(generate(lambda: 1 / 0, stream_id="stream")) == [
        StreamError("division by zero", "ZeroDivisionError"),
        StreamDone("error", 0, 0, 0),
    ]
    assert await acollect(generate(lambda: 42, stream_id="stream")) == [
        StreamError("the model call returned int, not a stream", "TypeError"),
        StreamDone("error", 0, 0, 0),
    ]


# ------------------------------------------------------------------ abort and cancellation


def stalled_prefix(name: str, marker: bytes) -> list[bytes]:
    body = load(name)
    return [body[: body.index(marker)]]


async def test_abort_event_closes_the_connection(fresh: ReplayServer) -> None:
    # the stream stalls inside the second tool call
    fresh.play(
        Reply(
            stalled_prefix("openai_chat_tools.sse", b"\xe4\xba\xac \xf0\x9f\x8c\xb8"), end="stall"
        )
    )
    abort = asyncio.Event()
    events: list[Event] = []
    async for event in generate(chat_call(fresh), abort=abort, stream_id="stream"):
        events.append(frozen(event))
        if event == CHAT_TOOLS[9]:  # the first delta of the second call: then the server stalls
            asyncio.get_running_loop().call_later(0.05, abort.set)
    assert events[:10] == CHAT_TOOLS[:10]
    assert events[10:] == [
        ActionInvalid(
            "stream:1", 1, "get_weather", "truncated", ABORTED, '{"city": "東', "call_w2"
        ),
        StreamDone("aborted", 1, 1, 21),
    ]
    assert await disconnected(fresh)
    assert only_task_left()


async def test_abort_before_the_call_returns(fresh: ReplayServer) -> None:
    abort = asyncio.Event()
    started = asyncio.Event()

    async def slow_call() -> object:
        started.set()
        await asyncio.sleep(30)
        return ["never"]

    async def set_abort() -> None:
        await started.wait()
        abort.set()

    setter = asyncio.ensure_future(set_abort())
    assert await acollect(generate(slow_call, abort=abort, stream_id="stream")) == [
        StreamDone("aborted", 0, 0, 0)
    ]
    await setter
    abort2 = asyncio.Event()
    abort2.set()
    assert await acollect(generate(slow_call, abort=abort2, stream_id="stream")) == [
        StreamDone("aborted", 0, 0, 0)
    ]
    assert only_task_left()


async def test_task_cancel_closes_the_connection(fresh: ReplayServer) -> None:
    fresh.play(
        Reply(stalled_prefix("anthropic_tools.sse", b'"partial_json":"\\"Paris\\"}"'), end="stall")
    )
    client = claude(fresh)
    events: list[Event] = []
    seen_call = asyncio.Event()

    async def consume() -> None:
        def call() -> object:
            return client.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]

        async for event in generate(call, stream_id="stream"):
            events.append(frozen(event))
            if isinstance(event, ActionStarted):
                seen_call.set()

    task = asyncio.ensure_future(consume())
    await seen_call.wait()
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert events[:-3] == ANTHROPIC_TOOLS[:8]
    assert events[-3:] == [
        ActionInvalid("stream:0", 0, "get_weather", "truncated", ABORTED, '{"city": ', "toolu_01A"),
        ANTHROPIC_STARTED,
        StreamDone("aborted", 0, 1, 28),
    ]
    assert await disconnected(fresh)
    assert only_task_left()


async def test_task_cancel_while_a_handler_runs() -> None:
    registry = ActionRegistry()
    entered = asyncio.Event()

    @registry.action
    async def slow(n: int) -> int:
        entered.set()
        await asyncio.sleep(30)
        return n

    closed = threading.Event()

    async def model() -> AsyncIterator[str]:
        try:
            yield 'Go <action name="slow">{"n": 1}</action>'
            yield " more"
        finally:
            closed.set()

    events: list[Event] = []

    async def consume() -> None:
        async for event in generate(
            model, protocol="tags", dispatcher=Dispatcher(registry), stream_id="stream"
        ):
            events.append(event)

    task = asyncio.ensure_future(consume())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "ActionStarted",
        "ActionArgsDelta",
        "ActionComplete",
        "StreamDone",
    ]
    assert events[-1] == StreamDone("aborted", 1, 0, 3)
    assert closed.is_set()
    assert only_task_left()


async def test_consumer_that_stops_early_closes_the_upstream(fresh: ReplayServer) -> None:
    fresh.play(Reply(stalled_prefix("openai_chat_tools.sse", b'"index":1'), end="stall"))
    events = generate(chat_call(fresh), stream_id="stream")
    first = await events.__anext__()
    assert first == TextDelta("Checking ")
    await events.aclose()  # type: ignore[attr-defined]
    assert await disconnected(fresh)
    assert only_task_left()


def sync_stream(server: ReplayServer, sdk: str) -> Any:
    """A sync SDK stream (or the SDK helper's stream manager) whose server stalls
    mid-body; the read timeout is 20 s."""
    if sdk.startswith("openai"):
        server.play(Reply(stalled_prefix("openai_chat_tools.sse", b'"index":1'), end="stall"))
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0, timeout=20)
        if sdk == "openai-helper":
            return client.chat.completions.stream(model="m", messages=MESSAGES)  # type: ignore[arg-type]
        return client.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    server.play(Reply(stalled_prefix("anthropic_tools.sse", b'"partial_json"'), end="stall"))
    claude_sync = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0, timeout=20)
    if sdk == "anthropic-helper":
        return claude_sync.messages.stream(model="m", max_tokens=9, messages=MESSAGES)  # type: ignore[arg-type]
    return claude_sync.messages.create(model="m", max_tokens=9, messages=MESSAGES, stream=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("sdk", ["openai", "anthropic", "openai-helper", "anthropic-helper"])
def test_abort_ends_a_sync_stream_and_its_worker_thread(fresh: ReplayServer, sdk: str) -> None:
    # closing a sync SDK stream does not wake the read blocked in generate()'s worker
    # thread: without the socket shut down, asyncio.run waits for the 20 s read timeout
    async def run() -> list[Event]:
        abort = asyncio.Event()
        asyncio.get_running_loop().call_later(0.3, abort.set)
        stream = sync_stream(fresh, sdk)
        return await acollect(generate(lambda: stream, abort=abort, stream_id="s"))

    started = time.monotonic()
    events = asyncio.run(run())  # it joins the worker threads before returning
    assert time.monotonic() - started < 3
    assert events[-1].reason == "aborted"  # type: ignore[union-attr]
    assert not [t for t in threading.enumerate() if t.name.startswith("asyncio_")]
    assert fresh.disconnected.wait(2)

"""``EventStreamResponse`` and ``ResumableStreams`` over a real uvicorn server on 127.0.0.1:
headers, keep-alive, the upstream closed on disconnect, ``Last-Event-ID`` resumption."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.web.app import build_app, reference_dicts
from tests.support.web.server import LiveServer
from unspool.events import Event, StreamDone, TextDelta
from unspool.web import EventStreamResponse, ResumableStreams, TooManyStreams


def _frames(body: str) -> list[dict[str, Any]]:
    """The frames of an SSE body: their fields (comments kept as ``comment``)."""
    out = []
    for block in body.split("\n\n"):
        if not block:
            continue
        fields: dict[str, Any] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            fields[name or "comment"] = value
        out.append(fields)
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(build_app()) as live:
        yield live


@pytest.mark.parametrize(
    ("format", "extra"),
    [("unspool", {}), ("ai-sdk", {"x-vercel-ai-ui-message-stream": "v1"}), ("ag-ui", {})],
)
def test_each_format_has_its_media_type_and_headers(format: str, extra: dict[str, str]) -> None:
    async def endpoint(request: Request) -> Response:
        return EventStreamResponse([StreamDone("complete")], format=format)

    with LiveServer(Starlette(routes=[Route("/", endpoint)])) as live:
        response = httpx.get(live.url)
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache, no-transform"
    assert response.headers["x-accel-buffering"] == "no"
    for name, value in extra.items():
        assert response.headers[name] == value


def test_keep_alive_comments_flow_while_the_model_is_silent() -> None:
    async def silent_then_text() -> AsyncIterator[Event]:
        await asyncio.sleep(0.5)
        yield TextDelta("hello")
        yield StreamDone("complete", text_chars=5)

    async def endpoint(request: Request) -> Response:
        return EventStreamResponse(silent_then_text(), keepalive=0.1)

    with LiveServer(Starlette(routes=[Route("/", endpoint)])) as live:
        frames = _frames(httpx.get(live.url).text)
    first = next(i for i, f in enumerate(frames) if "event" in f)
    assert first >= 2 and all(f == {"comment": "keep-alive"} for f in frames[:first])
    assert [f.get("event") for f in frames[first:]] == ["text_delta", "stream_done"]


def test_the_upstream_is_closed_when_the_client_disconnects() -> None:
    closed = threading.Event()

    async def endless() -> AsyncIterator[Event]:
        try:
            yield TextDelta("first")
            await asyncio.Event().wait()  # the model goes silent for ever
            yield TextDelta("never")
        finally:
            closed.set()

    async def endpoint(request: Request) -> Response:
        return EventStreamResponse(endless(), keepalive=None)

    with LiveServer(Starlette(routes=[Route("/", endpoint)])) as live:
        with httpx.stream("GET", live.url) as response:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    break
        assert closed.wait(5), "the event source was not closed after the disconnect"


def _read(
    url: str, last_event_id: str | None = None, stop_after: int | None = None
) -> list[dict[str, Any]]:
    headers = {"last-event-id": last_event_id} if last_event_id is not None else {}
    frames: list[dict[str, Any]] = []
    with httpx.stream("GET", url, headers=headers, timeout=10) as response:
        block: list[str] = []
        for line in response.iter_lines():
            if line:
                block.append(line)
                continue
            if block:
                frames += _frames("\n".join(block) + "\n\n")
                block = []
            if stop_after is not None and len(frames) >= stop_after:
                break
    return [f for f in frames if "comment" not in f]


def test_last_event_id_resumes_with_nothing_lost_or_repeated(server: LiveServer) -> None:
    assert httpx.post(f"{server.url}/runs/r1?scenario=complete&delay=0.002").status_code == 204
    first = _read(f"{server.url}/runs/r1", stop_after=7)  # the connection drops mid-stream
    rest = _read(f"{server.url}/runs/r1", last_event_id=first[-1]["id"])
    frames = first + rest
    assert [int(f["id"]) for f in frames] == list(range(1, len(frames) + 1))
    expected = reference_dicts("complete")
    assert [json.loads(f["data"]) for f in frames] == expected
    assert [f["event"] for f in frames] == [e["type"] for e in expected]
    # a new reader (a second tab) gets the whole stream from the buffer
    assert _read(f"{server.url}/runs/r1") == frames


def test_resuming_an_unknown_stream_says_so(server: LiveServer) -> None:
    frames = _read(f"{server.url}/runs/nope", last_event_id="3")
    assert frames == [
        {
            "event": "resume_failed",
            "data": '{"type":"resume_failed","reason":"unknown_stream","lastEventId":"3"}',
        }
    ]


async def _collect(stream: AsyncIterator[bytes]) -> list[bytes]:
    return [frame async for frame in stream]


async def test_past_the_buffer_a_client_is_told_to_start_again() -> None:
    store = ResumableStreams(max_events=4)
    store.start("k", [TextDelta(str(i)) for i in range(20)])
    await asyncio.sleep(0.05)
    evicted = await _collect(store.frames("k", "1"))
    assert len(evicted) == 1 and b'"reason":"evicted"' in evicted[0]
    kept = await _collect(store.frames("k", "16"))
    assert [_frames(f.decode())[0]["id"] for f in kept] == ["17", "18", "19", "20", "21"]
    # plain ASCII digits only: int() would read "1_7" as 17, " 17" and "+17" as 17, and
    # "\u0661\u0667" (Arabic-Indic digits) as 17, and the client would skip frames
    for bad_id in ("x", "-1", "22", "1_7", "+17", " 17", "17 ", "\u0661\u0667", "\u00b9", "0x11"):
        bad = await _collect(store.frames("k", bad_id))
        assert len(bad) == 1 and b'"reason":"bad_id"' in bad[0], bad_id


async def test_buffers_expire_and_an_abandoned_stream_is_stopped() -> None:
    closed = asyncio.Event()

    async def endless() -> AsyncIterator[Event]:
        try:
            yield TextDelta("a")
            await asyncio.Event().wait()
        finally:
            closed.set()

    store = ResumableStreams(keep_seconds=0.05, max_streams=2)
    store.start("done", [StreamDone("complete")])
    store.start("endless", endless())
    with pytest.raises(TooManyStreams):
        store.start("third", [])
    await asyncio.wait_for(closed.wait(), 2)  # nobody attached for keep_seconds: stopped
    await asyncio.sleep(0.1)
    assert "done" not in store and "endless" not in store
    with pytest.raises(ValueError, match="keep_seconds"):
        ResumableStreams(keep_seconds=-1)


async def test_a_resumable_response_can_set_the_reconnection_delay() -> None:
    store = ResumableStreams()
    store.start("k", [StreamDone("complete")])
    response = store.response("k", retry=250, keepalive=None)
    body = [chunk async for chunk in response.body_iterator]
    assert body[0] == b"retry: 250\n\n" and b"event: stream_done" in body[1]
    with pytest.raises(ValueError, match="retry"):
        store.response("k", retry=-1)

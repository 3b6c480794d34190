"""``unspool demo --web``: the bundled replies, played to a browser page (Starlette + uvicorn).

The page (``unspool/web/static/``) reads the ``"unspool"`` format with a plain
``EventSource``; its switch (on at ``/ai-sdk``) plays the same replies through the Vercel AI
SDK's own chat client instead, reading the ``"ai-sdk"`` format. That client is built on
demand (:mod:`unspool.web.ai_sdk_build`, ``unspool demo --web --build-ai-sdk``); while it
is not, the page disables the switch and, folded away, names the command that builds it.
The replies are read as the terminal demo reads them (leniently unless ``--strict``), and
the page says which.
The server side is what an application would write: a protocol parser per reply, fed
the recorded chunks at their recorded pace, its events sent with
:class:`~unspool.web.ResumableStreams` (so a dropped connection resumes) or
:class:`~unspool.web.EventStreamResponse`. The actions run in the page, not here.

Routes:

* ``GET /``, ``GET /ai-sdk``: the page; ``/static/...`` its files;
* ``GET /vendor/ai-sdk-chat.js`` (and its ``.LICENSES.txt``): the built AI SDK client,
  404 with what to do when it is not built;
* ``GET /api/replies``: the replies' names, titles and protocols, ``reading``
  (``"lenient"`` or ``"strict"``), and ``aiSdk``: ``{"built": bool, "help": str}`` (the
  help names the command, never a folder of the server);
* ``POST /api/runs`` (JSON ``{"reply": name}``): starts a reply, answers
  ``{"events": url}``; ``GET`` that url: its events (``Last-Event-ID`` resumes);
* ``POST /api/chat``: the AI SDK transport's request (``{"reply": name, ...}``), answered
  in the ``"ai-sdk"`` format; ``POST /api/ag-ui``: an AG-UI ``RunAgentInput``
  (``forwardedProps.reply``), answered in the ``"ag-ui"`` format.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import click
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from unspool.cli._demo import SERVER_FAILED, demo_registry, demo_streams, reading
from unspool.cli._replay import RecordedStream
from unspool.events import Event, new_stream_id
from unspool.protocols._emitter import ActionValidator
from unspool.protocols._interleaved import InterleavedParser
from unspool.protocols._tags import TagParser
from unspool.sources._parsers import TextParser
from unspool.web import EventStreamResponse, ResumableStreams
from unspool.web.ai_sdk_build import (
    BUILD_COMMAND,
    BUNDLE,
    LICENSES,
    ai_sdk_dir,
    build_help,
    built_ai_sdk,
)
from unspool.web.static import STATIC_DIR

__all__ = ["ServerCannotListen", "create_demo_app", "listen", "play_reply", "serve", "url_of"]


class ServerCannotListen(click.ClickException):
    """The demo's server cannot listen where asked: one line, exit status 3."""

    exit_code = SERVER_FAILED


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: a free port), for :func:`serve`; bound before
    anything is printed, so a busy port fails at once, naming the port."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise ServerCannotListen(f"cannot listen on {host}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not over a live listener
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServerCannotListen(
                f"port {port} on {host} is in use: stop what uses it, or choose another "
                f"port with --port (--port 0 takes any free one)"
            ) from None
        raise ServerCannotListen(f"cannot listen on {host} port {port}: {exc.strerror}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    """The page's address for a socket from :func:`listen`."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def page_help() -> str:
    """What the page says about the AI SDK client while it is not built: the command
    only (the server's cache folder is for its terminal, not for the page)."""
    tools = shutil.which("node") is not None and shutil.which("npm") is not None
    needs = "" if tools else " (it needs node and npm)"
    return f"To read the replies with it too, run `{BUILD_COMMAND}` once{needs}."


def _parser(stream: RecordedStream, registry: ActionValidator | None, lenient: bool) -> TextParser:
    """The reply's protocol parser, reading as the terminal demo does."""
    stream_id = new_stream_id(stream.name or "reply")
    if stream.protocol == "tags":
        return TagParser(stream_id=stream_id, registry=registry, lenient=lenient)
    return InterleavedParser(stream_id=stream_id, registry=registry, lenient=lenient)


async def play_reply(
    stream: RecordedStream, registry: ActionValidator | None, speed: float, lenient: bool = True
) -> AsyncIterator[Event]:
    """The events of a recorded reply, each chunk fed after its recorded delay / ``speed``."""
    parser = _parser(stream, registry, lenient)
    for chunk in stream.chunks:
        await asyncio.sleep((chunk.delay or 0.0) / speed)
        for event in parser.feed(chunk.text):
            yield event
    for event in parser.finish(stream.finish):
        yield event


def create_demo_app(
    *,
    speed: float = 1.0,
    keepalive: float = 15.0,
    ai_sdk: Path | None = None,
    lenient: bool = True,
) -> Starlette:
    """The demo's web application; ``speed`` plays the recordings X times faster,
    ``lenient`` reads them as ``unspool demo`` does (``--strict``: False); the AI
    SDK client is served from the folder ``ai_sdk`` (default: :func:`ai_sdk_dir`) once
    built there (checked on each request, so a build while it runs is picked up)."""
    if speed <= 0:
        raise ValueError("speed must be > 0")
    ai_sdk_folder = ai_sdk or ai_sdk_dir()
    replies = {stream.name or f"reply{n + 1}": stream for n, stream in enumerate(demo_streams())}
    registry = demo_registry()
    runs = ResumableStreams(max_streams=100)

    def reply_named(name: Any) -> RecordedStream | None:
        return replies.get(name) if isinstance(name, str) else None

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    async def page(request: Request) -> Response:
        # one page; at /ai-sdk its switch starts on the AI SDK client
        return FileResponse(STATIC_DIR / "index.html", headers={"cache-control": "no-cache"})

    async def list_replies(request: Request) -> Response:
        listing = [
            {"name": name, "title": s.title, "protocol": s.protocol} for name, s in replies.items()
        ]
        built = built_ai_sdk(ai_sdk_folder) is not None
        return JSONResponse(
            {
                "replies": listing,
                "validated": registry is not None,
                "reading": reading(lenient),
                "aiSdk": {"built": built, "help": "" if built else page_help()},
            }
        )

    async def vendor(request: Request) -> Response:
        name = request.path_params["name"]
        dist = built_ai_sdk(ai_sdk_folder)
        if name not in (BUNDLE, LICENSES):
            return PlainTextResponse(f"not found: {name}", 404)
        if dist is None:
            return PlainTextResponse(build_help(ai_sdk_folder), 404)
        media = "text/javascript" if name == BUNDLE else "text/plain"
        return FileResponse(dist / name, media_type=media, headers={"cache-control": "no-cache"})

    async def start_run(request: Request) -> Response:
        stream = reply_named((await body_of(request)).get("reply"))
        if stream is None:
            return JSONResponse({"error": f"reply must be one of {sorted(replies)}"}, 400)
        key = os.urandom(8).hex()
        runs.start(key, play_reply(stream, registry, speed, lenient))
        return JSONResponse({"events": f"/api/runs/{key}/events"})

    async def run_events(request: Request) -> Response:
        key = request.path_params["key"]
        last_event_id = request.headers.get("last-event-id")
        return runs.response(key, last_event_id, keepalive=keepalive, retry=1000)

    async def chat(request: Request) -> Response:
        stream = reply_named((await body_of(request)).get("reply"))
        if stream is None:
            return JSONResponse({"error": f"reply must be one of {sorted(replies)}"}, 400)
        events = play_reply(stream, registry, speed, lenient)
        return EventStreamResponse(events, format="ai-sdk", keepalive=keepalive)

    async def ag_ui(request: Request) -> Response:
        body = await body_of(request)
        props = body.get("forwardedProps")
        stream = reply_named(props.get("reply") if isinstance(props, dict) else None)
        if stream is None:
            return JSONResponse({"error": f"forwardedProps.reply: one of {sorted(replies)}"}, 400)
        return EventStreamResponse(
            play_reply(stream, registry, speed, lenient),
            format="ag-ui",
            keepalive=keepalive,
            thread_id=body.get("threadId") if isinstance(body.get("threadId"), str) else None,
            run_id=body.get("runId") if isinstance(body.get("runId"), str) else None,
        )

    return Starlette(
        routes=[
            Route("/", page),
            Route("/ai-sdk", page),
            Route("/vendor/{name}", vendor),
            Route("/api/replies", list_replies),
            Route("/api/runs", start_run, methods=["POST"]),
            Route("/api/runs/{key}/events", run_events),
            Route("/api/chat", chat, methods=["POST"]),
            Route("/api/ag-ui", ag_ui, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ]
    )


def serve(sock: socket.socket, speed: float, *, lenient: bool = True) -> None:
    """Run the demo with uvicorn on a socket from :func:`listen` until interrupted."""
    app = create_demo_app(speed=speed, lenient=lenient)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])

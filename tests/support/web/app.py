"""The test app: three scripted replies served in every format through the public API.

Each scenario is a tagged reply fed, in 5-character chunks, to a ``TagParser`` with
reasoning on and a registry with handlers, behind a ``Dispatcher`` (fresh ledger per
request, fixed ``stream_id`` so ids match :func:`reference_events`):

* ``complete``: reasoning, text, a modal, two cart additions (one with malformed JSON),
  a checkout whose handler raises, non-ASCII text; then (as a provider adapter would add
  them) two citations, a diagnostic, two tools the provider ran (a web search, and one
  that failed under the name of a registered handler, which must never run) and a refusal;
* ``truncated``: cut inside the second action, finished with ``"length"``;
* ``failing``: the upstream raises after some chunks, an error message with a secret.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from unspool import ActionRegistry, Dispatcher, TagParser, astream, stream
from unspool.events import (
    Citation,
    Diagnostic,
    Event,
    FinishReason,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    ReasoningSignature,
    RefusalDelta,
    StreamDone,
)
from unspool.web import EventStreamResponse, ResumableStreams

__all__ = [
    "EXTRAS",
    "HOSTED",
    "REPLY",
    "SECRET",
    "build_app",
    "reference_dicts",
    "reference_events",
    "scenario_chunks",
]

REPLY = (
    "<think>The user wants the kit, twice.</think>Sure! "
    '<action name="show_product_modal">{"productId": "kit-42", "viewMode": "compact"}</action>'
    " Adding two. "
    '<action name="add_to_cart">{"productId": "kit-42", "quantity": 2}</action>'
    " Paying: "
    '<action name="checkout">{"card": "4242"}</action>'
    " And one more "
    '<action name="add_to_cart">{"productId": "kit-42" "quantity": 1}</action>'
    " Done, café ☕ — 2×."
)
CUT = REPLY.index('"quantity": 2') + 4
FAIL_AT = REPLY.index(" Paying")
SECRET = "password=hunter2 at db.internal:5432"


class PaymentDeclined(Exception):
    """The checkout handler's failure."""


def _registry() -> ActionRegistry:
    registry = ActionRegistry()

    def show_product_modal(args: dict[str, Any]) -> dict[str, Any]:
        return {"opened": args["productId"]}

    def add_to_cart(args: dict[str, Any]) -> dict[str, Any]:
        return {"cartCount": args["quantity"]}

    def checkout(args: dict[str, Any]) -> None:
        raise PaymentDeclined("card declined")

    product = {"type": "object", "properties": {"productId": {"type": "string"}}}
    registry.register("show_product_modal", show_product_modal, schema=product)
    registry.register("add_to_cart", add_to_cart, schema=product)
    registry.register("checkout", checkout, schema={"type": "object"})
    return registry


def scenario_chunks(scenario: str) -> list[str]:
    text = {"complete": REPLY, "truncated": REPLY[:CUT], "failing": REPLY[:FAIL_AT]}[scenario]
    return [text[i : i + 5] for i in range(0, len(text), 5)]


def _parser() -> TagParser:
    return TagParser(stream_id="t", reasoning=True)


SEARCHED = [{"url": "https://example.org/kit-42", "title": "Kit 42 — 19 €"}]
HOSTED: list[Event] = [
    HostedToolStarted("t/hosted:0", "web_search", "srvtoolu_1", "server_tool_use"),
    HostedToolInput("t/hosted:0", "web_search", {"query": "kit 42 prix"}),
    HostedToolResult("t/hosted:0", "web_search", SEARCHED, None, "web_search_tool_result"),
    HostedToolStarted("t/hosted:1", "add_to_cart", "srvtoolu_2", "server_tool_use"),
    HostedToolInput("t/hosted:1", "add_to_cart", {"productId": "kit-42", "quantity": 9}),
    HostedToolResult("t/hosted:1", "add_to_cart", None, "unavailable", "web_fetch_tool_result"),
]
"""Tools the provider ran (the second under a registered handler's name: never run)."""

EXTRAS: list[Event] = [
    Citation("url_citation", url="https://example.org/kit-42", title="Kit 42", start=0, end=5),
    Citation("char_location", cited_text="twenty prepared slides", start=6, end=10),
    Diagnostic("missing_comma", "inserted a missing comma", pos=3),
    *HOSTED,
    ReasoningSignature("anthropic", redacted="cmVkYWN0ZWQ="),  # a redacted block: no text
    RefusalDelta("I cannot pay on your behalf."),
]


SEALED = ReasoningSignature("anthropic", "EqQBCkYIBxgCKkBSig")
"""What seals the scenarios' reasoning in ``complete``: yielded where the reasoning ends."""


def _extras(scenario: str, event: Event, before: Event | None) -> list[Event]:
    """What ``complete`` adds before ``event``: the reasoning's signature once it ends, and
    :data:`EXTRAS` before ``StreamDone``."""
    if scenario != "complete":
        return []
    out: list[Event] = []
    if isinstance(before, ReasoningDelta) and not isinstance(event, ReasoningDelta):
        out.append(SEALED)
    if isinstance(event, StreamDone):
        out += EXTRAS
    return out


def _with_extras(scenario: str, events: Iterable[Event]) -> Iterator[Event]:
    before: Event | None = None
    for event in events:
        yield from _extras(scenario, event, before)
        yield event
        before = event


async def _awith_extras(scenario: str, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    before: Event | None = None
    async for event in events:
        for extra in _extras(scenario, event, before):
            yield extra
        yield event
        before = event


def _finish(scenario: str) -> FinishReason:
    return "length" if scenario == "truncated" else "stop"


def reference_events(scenario: str) -> list[Event]:
    """The events the server sends for ``scenario``, computed in-process."""
    if scenario == "failing":

        def failing() -> Iterator[str]:
            yield from scenario_chunks(scenario)
            raise RuntimeError(SECRET)

        events: Iterable[Event] = stream(failing(), _parser())
    else:
        parser = _parser()
        events = [e for chunk in scenario_chunks(scenario) for e in parser.feed(chunk)]
        events += parser.finish(_finish(scenario))
    return list(Dispatcher(_registry()).run(_with_extras(scenario, events)))


def reference_dicts(scenario: str) -> list[dict[str, Any]]:
    """``to_dict()`` of each reference event, taken as it is produced (as a server does)."""
    parser = _parser()

    def events() -> Iterator[Event]:
        for chunk in scenario_chunks(scenario):
            yield from parser.feed(chunk)
        yield from parser.finish(_finish(scenario))

    return [e.to_dict() for e in Dispatcher(_registry()).run(_with_extras(scenario, events()))]


async def _chunks(scenario: str, delay: float) -> AsyncIterator[str]:
    for chunk in scenario_chunks(scenario):
        await asyncio.sleep(delay)
        yield chunk
    if scenario == "failing":
        raise RuntimeError(SECRET)


def served_events(scenario: str, delay: float = 0.0) -> AsyncIterator[Event]:
    """The events of ``scenario`` as an application would make them: a source, a
    parser, a dispatcher."""
    if scenario == "failing":
        events = astream(_chunks(scenario, delay), _parser())
    else:

        async def parsed() -> AsyncIterator[Event]:
            parser = _parser()
            async for chunk in _chunks(scenario, delay):
                for event in parser.feed(chunk):
                    yield event
            for event in parser.finish(_finish(scenario)):
                yield event

        events = parsed()
    return Dispatcher(_registry()).arun(_awith_extras(scenario, events))


def build_app(*, expose_errors: bool = False) -> Starlette:
    """The app: ``POST /chat`` (ai-sdk), ``POST /ag-ui``, ``GET /events/{scenario}``."""
    runs = ResumableStreams()

    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        return EventStreamResponse(
            served_events(body["scenario"]),
            format="ai-sdk",
            message_id="msg-1",
            expose_errors=expose_errors,
        )

    async def ag_ui(request: Request) -> Response:
        body = json.loads(await request.body())
        return EventStreamResponse(
            served_events(body["forwardedProps"]["scenario"]),
            format="ag-ui",
            thread_id=body["threadId"],
            run_id=body["runId"],
            expose_errors=expose_errors,
        )

    async def events(request: Request) -> Response:
        scenario = request.path_params["scenario"]
        return EventStreamResponse(served_events(scenario), expose_errors=expose_errors)

    async def start(request: Request) -> Response:
        key = request.path_params["key"]
        delay = float(request.query_params.get("delay", "0"))
        runs.start(key, served_events(request.query_params["scenario"], delay))
        return Response(status_code=204)

    async def resume(request: Request) -> Response:
        key = request.path_params["key"]
        return runs.response(key, request.headers.get("last-event-id"))

    async def flaky(request: Request) -> Response:
        """Like ``resume``, but every connection ends after ``cut`` event frames (a
        dropped connection), with ``retry: 20`` so the browser comes back at once."""
        key, cut = request.path_params["key"], int(request.query_params["cut"])
        if key not in runs:
            runs.start(key, served_events("complete", 0.002))
        frames = runs.frames(key, request.headers.get("last-event-id"))

        async def cut_short() -> AsyncIterator[bytes]:
            yield b"retry: 20\n\n"
            sent = 0
            async for frame in frames:
                yield frame
                sent += 1
                if sent == cut:
                    return

        return EventStreamResponse.from_frames(cut_short())

    async def blank(request: Request) -> Response:
        return Response("<!doctype html><title>blank</title>", media_type="text/html")

    return Starlette(
        routes=[
            Route("/chat", chat, methods=["POST"]),
            Route("/ag-ui", ag_ui, methods=["POST"]),
            Route("/events/{scenario}", events),
            Route("/runs/{key}", start, methods=["POST"]),
            Route("/runs/{key}", resume, methods=["GET"]),
            Route("/flaky/{key}", flaky),
            Route("/blank", blank),
        ]
    )

"""A chat UI's backend on unspool, for ``useChat`` (the AI SDK) and AG-UI clients.

A party planner with four actions:

* ``get_weather``: run here, exactly once per call (the ledger);
* ``pick_color``: run by the page (``runs_on="client"``): streamed as a call to run,
  answered by the page in the next request, recorded once;
* ``place_order``: run here after a person approves it (``approval=True``);
* ``show_card``: run here; its arguments fill in on the page as a card (``data-card``)
  while the model writes them.

Every request is stateless: the page sends the conversation, the ledger holds what this
server streamed and ran. ``POST /api/chat`` speaks the AI SDK's protocol, ``POST /api/agui``
AG-UI's; ``GET /`` serves the React page when it was built (``page/``, see its README).

Run it from the repository's root: ``CHAT_APP_SERVE=1 uvicorn examples.chat_app.app:app``
(``OPENAI_API_KEY``, or ``OPENAI_BASE_URL`` for any OpenAI-compatible server; the ledger is
an SQLite file, ``CHAT_APP_LEDGER``), or build your own app with :func:`build_app`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from unspool import ActionRegistry, Dispatcher, amodel_data, read_request, run_turns
from unspool.actions.ledgers import Ledger, SqliteLedger
from unspool.events import ActionStarted, AppData, Event, StreamDone
from unspool.web import BadRequest, EventStreamResponse, bad_request_handler

SYSTEM = (
    "You plan parties. Check the weather, let the user pick a balloon color, show a card "
    "of the plan, and order the balloons (the user approves orders)."
)


class Card(BaseModel):
    """The plan, shown to the user as it is written."""

    title: str
    lines: list[str]


@dataclass
class Shop:
    """What the actions did (their side effects), for the tests to count."""

    lookups: list[str] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)


def build_registry(shop: Shop) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action
    def get_weather(city: str) -> dict[str, Any]:
        """The weather in a city."""
        shop.lookups.append(city)
        return {"city": city, "temp_c": 21, "sky": "sunny"}

    @registry.action(runs_on="client")
    def pick_color(prompt: str) -> None:
        """Ask the user to pick a balloon color (the page shows a picker)."""

    @registry.action(approval=True)
    def place_order(item: str, color: str, quantity: int) -> dict[str, Any]:
        """Order party supplies (the user approves it first)."""
        order = {"item": item, "color": color, "quantity": quantity, "id": len(shop.orders) + 1}
        shop.orders.append(order)
        return {"order_id": order["id"], "status": "placed"}

    @registry.action
    def show_card(title: str, lines: list[str]) -> str:
        """Show the plan as a card."""
        shop.cards.append(title)
        return "shown"

    return registry


async def with_cards(events: AsyncIterable[Event], stream_id: str) -> AsyncIterator[Event]:
    """Each turn's ``show_card`` arguments as a ``card`` the page fills in as they stream
    (one ``data-card`` part per turn, its id the turn's: a later request adds its own)."""
    source = aiter(events)
    ended = False
    called = False

    async def one_turn() -> AsyncIterator[Event]:
        nonlocal ended, called
        called = False
        async for event in source:
            called = called or (isinstance(event, ActionStarted) and event.name == "show_card")
            yield event
            if isinstance(event, StreamDone):
                return
        ended = True

    turn = 0
    while not ended:
        cards = amodel_data(
            Card, one_turn(), name="card", tool="show_card", id=f"{stream_id}/{turn}"
        )
        async for event in cards:
            if called or not (isinstance(event, AppData) and event.name == "card"):
                yield event  # a turn without the card sends none
        turn += 1


async def _chain(first: Iterable[Event], then: AsyncIterable[Event]) -> AsyncIterator[Event]:
    for event in first:
        yield event
    async for event in then:
        yield event


def build_app(
    *,
    ledger: Ledger,
    client: Any,
    model: str = "gpt-4o-mini",
    shop: Shop | None = None,
    page: Path | None = None,
) -> Starlette:
    """The app: ``client`` an ``openai.AsyncOpenAI`` (or compatible), ``ledger`` shared by
    every worker, ``page`` the built page's folder (``index.html``, ``page.js``)."""
    shop = shop if shop is not None else Shop()
    registry = build_registry(shop)
    dispatcher = Dispatcher(registry, ledger)

    def call(messages: list[Any]) -> Any:
        return client.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": SYSTEM}, *messages],
            tools=registry.tools("openai"),
            stream=True,
        )

    async def reply(request: Request, format: str) -> Response:
        chat = read_request(await request.body(), format=format)
        answers = await dispatcher.aresume(chat.tool_calls)  # recorded once, approved run once
        loop = run_turns(
            call,
            chat.to_messages("openai", results=answers),
            dispatcher=dispatcher,
            provider="openai",
            stream_id=chat.stream_id,  # a retried request: the same ids, replayed
        )
        events = with_cards(_chain(chat.to_page(answers), loop), chat.stream_id)
        if format == "ai-sdk":
            return EventStreamResponse(
                events, format="ai-sdk", message_id=chat.continued_message_id, turns=True
            )
        return EventStreamResponse(
            events, format="ag-ui", thread_id=chat.chat_id, run_id=chat.run_id, turns=True
        )

    async def ai_sdk(request: Request) -> Response:
        return await reply(request, "ai-sdk")

    async def ag_ui(request: Request) -> Response:
        return await reply(request, "ag-ui")

    def static(name: str, media_type: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            if page is None or not (page / name).is_file():
                return PlainTextResponse("the page is not built (see page/README.md)", 404)
            return FileResponse(page / name, media_type=media_type)

        return serve

    app = Starlette(
        routes=[
            Route("/api/chat", ai_sdk, methods=["POST"]),
            Route("/api/agui", ag_ui, methods=["POST"]),
            Route("/", static("index.html", "text/html")),
            Route("/page.js", static("page.js", "text/javascript")),
        ],
        exception_handlers={BadRequest: bad_request_handler},  # a bad body: a JSON 400
    )
    app.state.shop = shop
    app.state.ledger = ledger
    return app


def _default_app() -> Starlette:  # pragma: no cover - for uvicorn
    page = Path(os.environ.get("CHAT_APP_PAGE", Path(__file__).parent / "page" / "dist"))
    return build_app(
        ledger=SqliteLedger(os.environ.get("CHAT_APP_LEDGER", "chat-app-ledger.db")),
        client=openai.AsyncOpenAI(),
        model=os.environ.get("CHAT_APP_MODEL", "gpt-4o-mini"),
        page=page,
    )


app = _default_app() if os.environ.get("CHAT_APP_SERVE") else None

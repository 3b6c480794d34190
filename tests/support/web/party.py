"""The party planner (``examples/chat_app``) against the loopback replay server as its model.

``MODEL_REPLIES`` are the model's replies, in the order the flows ask for them (OpenAI Chat
Completions streams, the card's arguments cut in small pieces so the page sees it fill in).
``party_app`` builds the example's app on a ledger, with the real ``openai`` SDK pointed at
the replay server.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import openai

from tests.support.paths import ROOT
from tests.support.replay import ReplayServer, Reply, wire
from unspool.actions.ledgers import Ledger

EXAMPLES = ROOT / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

from chat_app.app import Shop, build_app  # noqa: E402

__all__ = [
    "CARD",
    "CARD_AND_ORDER",
    "MODEL_REPLIES",
    "NOT_ORDERED",
    "ORDERED",
    "WELCOME",
    "Shop",
    "party_app",
    "reply",
]

CARD = '{"title": "Paris party", "lines": ["Sunny, 21 °C", "Red balloons", "Order: 30"]}'
ORDER = '{"item": "balloons", "color": "red", "quantity": 30}'


def reply(*blocks: wire.Text | wire.Call) -> Reply:
    calls = any(isinstance(b, wire.Call) for b in blocks)
    chunks = wire.chat_chunks(list(blocks), "tool_calls" if calls else "stop")
    return Reply([wire.sse(chunks, named=False, done=True)])


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


WEATHER = reply(
    wire.Text(["Let me check ", "the weather."]),
    wire.Call("get_weather", "call_w", ['{"city": ', '"Paris"}']),
)
PICK = reply(wire.Call("pick_color", "call_p", ['{"prompt": "Balloon color?"}']))
CARD_AND_ORDER = reply(
    wire.Text(["Here is the plan."]),
    wire.Call("show_card", "call_c", _pieces(CARD, 7)),
    wire.Call("place_order", "call_o", [ORDER]),
)
ORDERED = reply(wire.Text(["Ordered: 30 red balloons. ", "See you there!"]))
WELCOME = reply(wire.Text(["You're welcome!"]))
NOT_ORDERED = reply(wire.Text(["Not ordered, as you wish."]))

MODEL_REPLIES: dict[str, list[Reply]] = {
    # request 1: the weather (run), then pick_color (the page's)
    "first": [WEATHER, PICK],
    # request 2, after the page's color: the card (run) and the order (to approve)
    "color": [CARD_AND_ORDER],
    # request 3, after the approval: the order runs, then the model answers
    "approved": [ORDERED],
    "thanks": [WELCOME],
}


def party_app(server: ReplayServer, ledger: Ledger, shop: Shop, page: Path | None = None) -> Any:
    client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    return build_app(ledger=ledger, client=client, shop=shop, page=page)

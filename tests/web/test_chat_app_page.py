"""The example chat app's React page (``examples/chat_app/page``: the real ``useChat`` of
``@ai-sdk/react``, and ``@ag-ui/client``'s ``HttpAgent``), built on demand with npm and
esbuild, in Debian's Chromium driven by Playwright, against the example's Starlette backend
with the loopback replay server as the model.

The page plans a party: the server looks up the weather (once), the page runs the color
picker, a card fills in, the order waits for the user's approval and runs once. Requests
are sent twice (a network retry, through Playwright's routing) and the page is reloaded
mid-flow: nothing runs twice; the ledger's records say so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.actions.servers import ledger_of
from tests.support.replay import ReplayServer
from tests.support.web.js import chat_app_page, require_tool
from tests.support.web.party import CARD_AND_ORDER, MODEL_REPLIES, ORDERED, WELCOME, Shop, party_app
from tests.support.web.server import LiveServer
from unspool.actions.ledgers._answers import CLIENT_RESULT

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.xdist_group("web-browser")

# Records every title and line count the card showed, in order.
WATCH_CARD = """() => {
  window.cardsSeen = [];
  new MutationObserver(() => {
    const card = document.querySelector(".card");
    if (card) window.cardsSeen.push([card.querySelector(".title").textContent,
                                     card.querySelectorAll("li").length, card.dataset.complete]);
  }).observe(document.getElementById("root"), { subtree: true, childList: true, characterData: true });
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path is None:
        path = require_tool("chromium", "apt-get install -y chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page_dist() -> Path:
    return chat_app_page()


def twice(route: Any) -> None:
    """Send the request to the server twice (a retry after a lost response); the page
    gets the second answer."""
    route.fetch()
    route.fulfill(response=route.fetch())


def rows(ledger: Any) -> dict[str, tuple[Any, ...]]:
    return {r.name: (r.state, r.ok, r.result, r.error_type) for r in ledger.records()}


def test_use_chat_page(
    browser: Any, page_dist: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    shop = Shop()
    with (
        ledger_of("sqlite", tmp_path) as ledger,
        LiveServer(party_app(replay_server, ledger, shop, page=page_dist)) as live,
    ):
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(live.url + "/")
        page.wait_for_selector('main[data-client="ai-sdk"][data-status="ready"]')
        page.evaluate(WATCH_CARD)

        replay_server.play(*MODEL_REPLIES["first"])
        page.fill("#prompt", "Plan a party in Paris.")
        page.click("#send")
        page.wait_for_selector('.tool[data-tool="pick_color"][data-state="input-available"]')
        assert page.locator('.tool[data-tool="get_weather"]').get_attribute("data-state") == (
            "output-available"
        )

        # the page's color, its request sent twice
        page.route("**/api/chat", twice)
        replay_server.play(CARD_AND_ORDER, CARD_AND_ORDER)
        page.click('button[data-color="red"]')
        page.wait_for_selector("#approve")
        page.wait_for_selector('.card[data-complete="true"]')
        seen = page.evaluate("window.cardsSeen")
        assert seen[-1] == ["Paris party", 3, "true"]
        assert len({tuple(s) for s in seen}) > 3  # it filled in, step by step
        assert len(shop.orders) == 0  # asked, not run

        # a reload: the conversation comes back (the page keeps it); the approval is still asked
        page.reload()
        page.wait_for_selector('main[data-status="ready"]')
        page.wait_for_selector("#approve")
        replay_server.play(ORDERED, ORDERED)
        page.click("#approve")  # its request sent twice as well
        page.wait_for_selector('.tool[data-tool="place_order"][data-state="output-available"]')
        page.wait_for_selector('main[data-status="ready"]')
        assert "Ordered: 30 red balloons." in page.inner_text("main")
        page.unroute("**/api/chat")

        replay_server.play(WELCOME, WELCOME)
        page.fill("#prompt", "Thanks!")
        page.click("#send")
        page.wait_for_function('document.body.innerText.includes("You\'re welcome!")')
        page.wait_for_selector('main[data-status="ready"]')
        page.click("#retry")  # regenerate: the same conversation again
        page.wait_for_selector('main[data-status="ready"]')
        page.screenshot(path=str(tmp_path / "chat-app.png"))
        assert errors == []
        assert page.locator(".msg.assistant").count() == 2
        assert len(replay_server.requests) == 8  # 2 + 2 sent twice + 2 sent twice + 1 + 1

        assert (shop.lookups, len(shop.orders), shop.cards) == (["Paris"], 1, ["Paris party"])
        assert rows(ledger) == {
            "get_weather": (
                "finished",
                True,
                {"city": "Paris", "temp_c": 21, "sky": "sunny"},
                None,
            ),
            "pick_color": ("finished", True, {"color": "red"}, CLIENT_RESULT),
            "show_card": ("finished", True, "shown", None),
            "place_order": ("finished", True, {"order_id": 1, "status": "placed"}, None),
        }
        page.close()


def test_ag_ui_page(
    browser: Any, page_dist: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    shop = Shop()
    with (
        ledger_of("sqlite", tmp_path) as ledger,
        LiveServer(party_app(replay_server, ledger, shop, page=page_dist)) as live,
    ):
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(live.url + "/?client=ag-ui")
        page.wait_for_selector('main[data-client="ag-ui"][data-busy="false"]')
        page.evaluate(WATCH_CARD)

        replay_server.play(*MODEL_REPLIES["first"])
        page.fill("#prompt", "Plan a party in Paris.")
        page.click("#send")
        page.wait_for_selector('button[data-color="red"]')
        replay_server.play(CARD_AND_ORDER)
        page.click('button[data-color="red"]')
        page.wait_for_selector("#approve")
        page.wait_for_selector('.card[data-complete="true"]')
        assert page.evaluate("window.cardsSeen")[-1] == ["Paris party", 3, "true"]
        page.route("**/api/agui", twice)  # the resumed run, sent twice
        replay_server.play(ORDERED, ORDERED)
        page.click("#approve")
        page.wait_for_selector('.tool[data-tool="place_order"][data-state="output-available"]')
        page.wait_for_selector('main[data-runs="3"][data-busy="false"]')
        assert "Ordered: 30 red balloons." in page.inner_text("main")
        assert errors == []
        assert len(replay_server.requests) == 5  # 2 + 1 + the resumed run sent twice
        assert (shop.lookups, len(shop.orders), shop.cards) == (["Paris"], 1, ["Paris party"])
        assert rows(ledger)["place_order"] == (
            "finished",
            True,
            {"order_id": 1, "status": "placed"},
            None,
        )
        page.close()

"""The demo page in a real Chromium (Debian's ``chromium``) driven by Playwright.

One browser per test session; the page is served by ``unspool demo --web``'s app on a
real uvicorn server, playing the bundled replies 20 times faster than recorded. The
test waits for the page's own state and checks the DOM, then saves a screenshot.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from web_support.js import require_tool
from web_support.server import LiveServer

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        path = shutil.which("chromium") or require_tool("chromium", "apt-get install -y chromium")
    else:
        path = CHROMIUM
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def demo() -> Iterator[LiveServer]:
    from unspool.cli.web_demo import create_demo_app

    with LiveServer(create_demo_app(speed=20)) as live:
        yield live


def test_the_demo_page_runs_complete_actions_and_shows_invalid_ones(
    browser: Any, demo: LiveServer, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo.url}/")

    page.click("#play-classroom")
    page.wait_for_selector('article[data-reply="classroom"][data-done]', timeout=15_000)
    classroom = page.locator('article[data-reply="classroom"]')
    assert classroom.get_attribute("data-done") == "truncated"
    assert page.locator(".slide .spotlight").get_attribute("data-element-id") == "img_leaf"
    assert page.inner_text("#whiteboard .wb-text") == "6CO₂ + 6H₂O → C₆H₁₂O₆ + 6O₂"
    table = classroom.locator('.action[data-name="wb_draw_table"]')
    assert table.get_attribute("data-state") == "invalid"
    assert table.get_attribute("data-reason") == "truncated"
    assert page.locator("#whiteboard table").count() == 0  # never run

    page.click("#play-shop")
    page.wait_for_selector('article[data-reply="shop"][data-done]', timeout=15_000)
    shop = page.locator('article[data-reply="shop"]')
    assert shop.get_attribute("data-done") == "complete"
    assert page.is_visible("#product-modal") and page.inner_text("#modal-title") == "kit-42"
    assert page.inner_text("#cart-count") == "2"
    assert "missing_comma" in shop.locator(".diagnostic").first.inner_text()
    route = shop.locator('.action[data-name="navigate_route"]')
    assert route.get_attribute("data-state") == "invalid"
    assert route.get_attribute("data-reason") == "schema"
    assert "does not match" in route.locator(".why").inner_text()
    assert page.inner_text("#route") == "/products"  # never run
    ran = shop.locator('.action[data-state="ran"]')
    assert [ran.nth(i).get_attribute("data-name") for i in range(ran.count())] == [
        "show_product_modal",
        "add_to_cart",
    ]
    text = shop.locator(".text > span").all_inner_texts()
    assert "".join(text).startswith("Sure! This kit has a microscope and 20 prepared slides.")

    page.screenshot(path=str(tmp_path / "demo-page.png"), full_page=True)
    assert (tmp_path / "demo-page.png").stat().st_size > 10_000
    assert errors == []
    page.close()

"""The demo page in a real Chromium (Debian's ``chromium``) driven by Playwright.

One browser for the module; the page is served by ``unspool demo --web``'s app on a
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

# Records every text an action panel's arguments showed, in order.
WATCH_ARGS = """() => {
  window.argsSeen = [];
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      const node = m.target.nodeType === Node.TEXT_NODE ? m.target.parentElement : m.target;
      if (node && node.classList && node.classList.contains("args")) {
        window.argsSeen.push([node.closest(".action").dataset.name, node.textContent]);
      }
    }
  }).observe(document.getElementById("transcript"),
             { subtree: true, childList: true, characterData: true });
}"""

# one worker for the module, so one Chromium
pytestmark = pytest.mark.xdist_group("web-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for this module's tests; closed at its end, because Playwright's sync
    API keeps an event loop running in the thread, which async tests after it cannot share."""
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


@pytest.mark.parametrize("path", ["/", "/ai-sdk"], ids=["eventsource", "ai-sdk-client"])
def test_the_demo_page_runs_complete_actions_and_shows_invalid_ones(
    browser: Any, demo: LiveServer, tmp_path: Path, path: str
) -> None:
    """``/`` reads the "unspool" format with EventSource; ``/ai-sdk`` the "ai-sdk" format
    with the AI SDK's chat client: the page must end in the same state either way."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{demo.url}{path}")
    client = "ai-sdk" if path == "/ai-sdk" else "unspool"
    assert page.locator('input[name="client"]:checked').get_attribute("value") == client

    page.click("#play-classroom")
    page.wait_for_selector('article[data-reply="classroom"][data-done]', timeout=15_000)
    classroom = page.locator('article[data-reply="classroom"]')
    assert classroom.get_attribute("data-client") == client
    assert classroom.get_attribute("data-done") == "truncated"
    assert page.locator(".slide .spotlight").get_attribute("data-element-id") == "img_leaf"
    assert page.inner_text("#whiteboard .wb-text") == "6CO₂ + 6H₂O → C₆H₁₂O₆ + 6O₂"
    table = classroom.locator('.action[data-name="wb_draw_table"]')
    assert table.get_attribute("data-state") == "invalid"
    assert table.get_attribute("data-reason") == "truncated"
    assert page.locator("#whiteboard table").count() == 0  # never run

    page.evaluate(WATCH_ARGS)
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
    # the modal's arguments filled in live, before the action ran
    shown = [
        text for name, text in page.evaluate("window.argsSeen") if name == "show_product_modal"
    ]
    final = '{"productId":"kit-42","viewMode":"compact"}'
    assert shown[-1] == final and '{"productId":"kit-42"}' in shown[:-1]
    text = shop.locator(".text > span").all_inner_texts()
    assert "".join(text).startswith("Sure! This kit has a microscope and 20 prepared slides.")

    shot = tmp_path / f"demo-page-{client}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert errors == []
    page.close()


def test_unspool_demo_web_serves_the_page_and_every_format() -> None:
    """The documented command, as a user runs it: a server on 127.0.0.1 at ``--port``."""
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "unspool", "demo", "--web", "--port", str(port)]
    server = subprocess.Popen([*command, "--speed", "50"], stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                replies = httpx.get(f"{base}/api/replies").json()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "no server"
                time.sleep(0.05)
        assert [r["name"] for r in replies["replies"]] == ["classroom", "shop"]
        assert "unspool" in httpx.get(f"{base}/ai-sdk").text
        bundle = httpx.get(f"{base}/static/vendor/ai-sdk-chat.js")
        assert bundle.headers["content-type"].startswith(
            ("text/javascript", "application/javascript")
        )
        chat = httpx.post(f"{base}/api/chat", json={"reply": "shop"}, timeout=10)
        assert chat.headers["x-vercel-ai-ui-message-stream"] == "v1"
        assert '"type":"tool-input-available","toolCallId"' in chat.text
        assert chat.text.endswith("data: [DONE]\n\n")
        run = {"threadId": "t", "runId": "r", "forwardedProps": {"reply": "classroom"}}
        ag_ui = httpx.post(f"{base}/api/ag-ui", json=run, timeout=10)
        assert '"type":"RUN_FINISHED","threadId":"t","runId":"r"' in ag_ui.text
        assert httpx.post(f"{base}/api/runs", json={"reply": "nope"}).status_code == 400
    finally:
        server.terminate()
        server.wait(timeout=10)


COLLECT = """(url) => new Promise((resolve) => {
  const seen = [];
  const source = new EventSource(url);
  const types = ["text_delta", "reasoning_delta", "refusal_delta", "citation", "action_started",
    "action_args_delta", "action_complete", "action_invalid", "action_result", "action_failed",
    "diagnostic", "stream_done", "resume_failed"];
  let opens = 0;
  source.onopen = () => { opens += 1; };
  for (const type of types) {
    source.addEventListener(type, (message) => {
      seen.push([message.lastEventId, JSON.parse(message.data)]);
      if (type === "stream_done" || type === "resume_failed") {
        source.close();
        resolve({ seen, opens });
      }
    });
  }
})"""


def test_chromium_event_source_resumes_with_last_event_id(browser: Any) -> None:
    """The browser's own EventSource reconnects after each dropped connection, sending
    Last-Event-ID by itself: it must see every event once, in order."""
    from web_support.app import build_app, reference_dicts

    with LiveServer(build_app()) as live:
        page = browser.new_page()
        page.goto(f"{live.url}/blank")
        out = page.evaluate(COLLECT, "/flaky/run-1?cut=25")
        page.close()
    expected = reference_dicts("complete")
    assert [int(i) for i, _ in out["seen"]] == list(range(1, len(expected) + 1))
    assert [event for _, event in out["seen"]] == expected
    assert out["opens"] >= len(expected) // 25  # it really reconnected, more than once

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

from tests.support.web.js import AI_SDK_CACHE, ai_sdk_client, require_tool
from tests.support.web.server import LiveServer

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
    """The demo app serving the AI SDK client from the tests' cache (built by the tests
    that need it; the "unspool" page needs nothing built)."""
    from unspool.cli._web_demo import create_demo_app

    with LiveServer(create_demo_app(speed=20, ai_sdk=AI_SDK_CACHE)) as live:
        yield live


@pytest.mark.parametrize("path", ["/", "/ai-sdk"], ids=["eventsource", "ai-sdk-client"])
def test_the_demo_page_runs_complete_actions_and_shows_invalid_ones(
    browser: Any, demo: LiveServer, tmp_path: Path, path: str
) -> None:
    """``/`` reads the "unspool" format with EventSource; ``/ai-sdk`` the "ai-sdk" format
    with the AI SDK's chat client: the page must end in the same state either way."""
    client = "ai-sdk" if path == "/ai-sdk" else "unspool"
    if client == "ai-sdk":
        ai_sdk_client()  # built into the tests' cache, which the demo serves from
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{demo.url}{path}")
    page.wait_for_selector("#client[data-ai-sdk]")
    assert page.locator('input[name="client"]:checked').get_attribute("value") == client

    assert page.get_attribute("body", "data-reading") == "lenient"
    assert "read leniently" in page.inner_text("#reading")

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


def test_without_the_ai_sdk_client_built_the_switch_is_off_and_says_what_to_do(
    browser: Any, tmp_path: Path
) -> None:
    """Nothing built in the folder: at ``/ai-sdk`` the page stays on the "unspool" format,
    the AI SDK switch is disabled, and the page names the command that builds it."""
    from unspool.cli._web_demo import create_demo_app

    with LiveServer(create_demo_app(speed=50, ai_sdk=tmp_path / "none")) as live:
        page = browser.new_page()
        page.goto(f"{live.url}/ai-sdk")
        page.wait_for_selector("#client[data-ai-sdk]")
        assert page.get_attribute("#client", "data-ai-sdk") == "missing"
        assert page.is_disabled('input[name="client"][value="ai-sdk"]')
        assert page.locator('input[name="client"]:checked').get_attribute("value") == "unspool"
        # the first screen: no build hint spelled out, no folder of the server
        assert page.is_visible("#ai-sdk-help summary")
        assert not page.is_visible("#ai-sdk-help-text")
        first_screen = page.inner_text("body")
        assert "--build-ai-sdk" not in first_screen
        assert str(tmp_path) not in page.content() and ".cache" not in page.content()
        page.click("#ai-sdk-help summary")  # unfolded on request: the command only
        assert "run `unspool demo --web --build-ai-sdk` once" in page.inner_text(
            "#ai-sdk-help-text"
        )
        page.click("#play-shop")
        page.wait_for_selector('article[data-reply="shop"][data-done]', timeout=15_000)
        assert page.get_attribute('article[data-reply="shop"]', "data-done") == "complete"
        page.close()


def _run_demo(*options: str, env: dict[str, str]) -> tuple[Any, str]:
    """``unspool demo --web`` on a free port, as a user runs it; the process and its URL
    once it answers."""
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "unspool", "demo", "--web", "--port", str(port), *options]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 15
    while True:
        try:
            httpx.get(f"{base}/api/replies")
            return server, base
        except httpx.TransportError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise AssertionError(f"no server: {server.communicate()[1]}") from None
            time.sleep(0.05)


def _stop(server: Any) -> str:
    server.terminate()
    return str(server.communicate(timeout=10)[1])


def test_unspool_demo_web_build_ai_sdk_serves_the_built_client() -> None:
    """``--build-ai-sdk`` with the client already built in ``$UNSPOOL_AI_SDK_DIR``: no
    rebuild, the page is told it is built, and the bundle is served as JavaScript."""
    import httpx

    folder = ai_sdk_client()
    server, base = _run_demo("--build-ai-sdk", env={"UNSPOOL_AI_SDK_DIR": str(folder)})
    try:
        assert httpx.get(f"{base}/api/replies").json()["aiSdk"] == {"built": True, "help": ""}
        bundle = httpx.get(f"{base}/vendor/ai-sdk-chat.js")
        assert bundle.headers["content-type"].startswith("text/javascript")
        assert bundle.content == (folder / "dist" / "ai-sdk-chat.js").read_bytes()
        licences = httpx.get(f"{base}/vendor/ai-sdk-chat.LICENSES.txt").text
        assert "==== ai@6.0.326 (Apache-2.0) ====" in licences
        assert httpx.get(f"{base}/vendor/other.js").status_code == 404
    finally:
        stderr = _stop(server)
    assert "building" not in stderr and "note:" not in stderr


def test_unspool_demo_web_serves_the_page_and_every_format(tmp_path: Path) -> None:
    """The documented command, as a user runs it: a server on 127.0.0.1 at ``--port``;
    here with no AI SDK client built, which it says (and the page is told) at start."""
    import httpx

    env = {"UNSPOOL_AI_SDK_DIR": str(tmp_path / "ai-sdk")}
    server, base = _run_demo("--speed", "50", env=env)
    try:
        replies = httpx.get(f"{base}/api/replies").json()
        assert [r["name"] for r in replies["replies"]] == ["classroom", "shop"]
        assert replies["aiSdk"]["built"] is False
        assert replies["reading"] == "lenient"
        assert "unspool demo --web --build-ai-sdk" in replies["aiSdk"]["help"]
        assert str(tmp_path) not in replies["aiSdk"]["help"]  # the page never shows a folder
        assert "unspool" in httpx.get(f"{base}/ai-sdk").text
        missing = httpx.get(f"{base}/vendor/ai-sdk-chat.js")
        assert missing.status_code == 404
        assert missing.text.startswith("The AI SDK client is not built: run `unspool demo")
        chat = httpx.post(f"{base}/api/chat", json={"reply": "shop"}, timeout=10)
        assert chat.headers["x-vercel-ai-ui-message-stream"] == "v1"
        assert '"type":"tool-input-available","toolCallId"' in chat.text
        assert chat.text.endswith("data: [DONE]\n\n")
        run = {"threadId": "t", "runId": "r", "forwardedProps": {"reply": "classroom"}}
        ag_ui = httpx.post(f"{base}/api/ag-ui", json=run, timeout=10)
        assert '"type":"RUN_FINISHED","threadId":"t","runId":"r"' in ag_ui.text
        assert httpx.post(f"{base}/api/runs", json={"reply": "nope"}).status_code == 400
    finally:
        stderr = _stop(server)
    assert f"note: {missing.text}" in stderr  # the terminal is told where it builds
    assert f"open {base}/ (replies read leniently; Ctrl-C to stop)" in stderr
    assert not (tmp_path / "ai-sdk").exists()  # nothing built, nothing downloaded


def test_playing_a_reply_again_starts_its_stage_and_transcript_afresh(
    browser: Any, demo: LiveServer
) -> None:
    """A replay resets the stage (no second equation on the whiteboard, the cart back to
    0 before its 2, the modal closed) and replaces the reply's transcript; the cut-off
    note reads as the cut, not as a repaired action."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(demo.url)
    page.wait_for_selector("#client[data-ai-sdk]")
    for _ in range(2):
        page.click("#play-classroom")
        page.wait_for_selector('article[data-reply="classroom"][data-done]', timeout=15_000)
        page.click("#play-shop")
        page.wait_for_selector('article[data-reply="shop"][data-done]', timeout=15_000)
        assert page.locator("#whiteboard .wb-text").count() == 1
        assert page.inner_text("#cart-count") == "2"
        assert page.locator("#transcript article").count() == 2
    page.click("#modal-close")  # the restored stage's button still works
    assert not page.is_visible("#product-modal")
    page.click("#play-shop")
    page.wait_for_selector('#transcript article[data-reply="shop"]:not([data-done])')
    assert page.inner_text("#cart-count") in ("0", "2")  # reset, then the reply adds 2
    page.wait_for_selector('article[data-reply="shop"][data-done]', timeout=15_000)
    notes = page.locator('article[data-reply="classroom"] .diagnostic').all_inner_texts()
    assert notes[-1] == (
        "note (cut off): the reply ended before it was complete; an action it cut off is not run"
    )
    assert not any("repair" in note or "closed" in note for note in notes)
    page.close()


def test_a_strict_demo_says_so_and_never_runs_the_malformed_action(browser: Any) -> None:
    """``unspool demo --web --strict``: read as ``unspool demo --strict`` reads it."""
    from unspool.cli._web_demo import create_demo_app

    with LiveServer(create_demo_app(speed=50, lenient=False)) as live:
        page = browser.new_page()
        page.goto(live.url)
        page.wait_for_selector("body[data-reading]")
        assert page.get_attribute("body", "data-reading") == "strict"
        assert "read as strict JSON" in page.inner_text("#reading")
        page.click("#play-shop")
        page.wait_for_selector('article[data-reply="shop"][data-done]', timeout=15_000)
        cart = page.locator('.action[data-name="add_to_cart"]')
        assert cart.get_attribute("data-reason") == "malformed_json"
        assert page.inner_text("#cart-count") == "0"
        page.close()


COLLECT = """(url) => new Promise((resolve) => {
  const seen = [];
  const source = new EventSource(url);
  const types = ["text_delta", "reasoning_delta", "reasoning_signature", "refusal_delta", "citation", "action_started",
    "action_args_delta", "action_complete", "action_invalid", "action_result", "action_failed",
    "hosted_tool_started", "hosted_tool_input", "hosted_tool_result", "diagnostic",
    "stream_done", "resume_failed"];
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
    from tests.support.web.app import build_app, reference_dicts

    with LiveServer(build_app()) as live:
        page = browser.new_page()
        page.goto(f"{live.url}/blank")
        out = page.evaluate(COLLECT, "/flaky/run-1?cut=25")
        page.close()
    expected = reference_dicts("complete")
    assert [int(i) for i, _ in out["seen"]] == list(range(1, len(expected) + 1))
    assert [event for _, event in out["seen"]] == expected
    assert out["opens"] >= len(expected) // 25  # it really reconnected, more than once

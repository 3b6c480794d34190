"""The npm clients of the web tests, and the demo page's AI SDK client, built once into
gitignored caches.

``tests/support/web_js/package.json`` (and its lock) pin the clients; they are installed with
``npm ci`` into ``.cache/web-js/`` at the repository's root, reused while the pins and
scripts are unchanged, under a file lock so parallel test workers install once. The
page's AI SDK client is built by unspool's own :func:`~unspool.web.ai_sdk_build.build_ai_sdk`
into ``.cache/ai-sdk/``, under a file lock too.
Without node and npm the tests skip saying what to install, except under ``CI=true``,
where they fail: CI must run every test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from tests.support.paths import ROOT

__all__ = [
    "AI_SDK_CACHE",
    "JS_SOURCES",
    "ai_sdk_client",
    "chat_app_page",
    "js_clients",
    "require_tool",
    "run_node",
]

JS_SOURCES = ROOT / "tests" / "support" / "web_js"
CACHE = ROOT / ".cache" / "web-js"
AI_SDK_CACHE = CACHE.parent / "ai-sdk"


def require_tool(name: str, install: str) -> str:
    """The path of ``name``; a skip (a failure under ``CI=true``) saying how to install it."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed: {install}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def _sources() -> list[Path]:
    """The pinned manifest, its lock and the scripts (not a stray ``node_modules``)."""
    return sorted(p for p in JS_SOURCES.iterdir() if p.is_file())


def _stamp() -> str:
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def js_clients() -> Path:
    """The folder holding the scripts and their ``node_modules``, installed if needed."""
    require_tool("node", "apt-get install -y nodejs npm")
    npm = require_tool("npm", "apt-get install -y npm")
    CACHE.mkdir(parents=True, exist_ok=True)
    stamp = _stamp()
    marker = CACHE / ".stamp"
    with FileLock(str(CACHE.parent / "web-js.lock")):
        if marker.exists() and marker.read_text() == stamp:
            return CACHE
        for path in _sources():
            shutil.copy2(path, CACHE / path.name)
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=CACHE,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {CACHE}:\n{done.stderr[-2000:]}")
        marker.write_text(stamp)
    return CACHE


def ai_sdk_client() -> Path:
    """:data:`AI_SDK_CACHE`, where the page's AI SDK client is built (if not already)."""
    from unspool.web.ai_sdk_build import AiSdkBuildError, build_ai_sdk

    require_tool("node", "apt-get install -y nodejs npm")
    require_tool("npm", "apt-get install -y npm")
    AI_SDK_CACHE.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(AI_SDK_CACHE.parent / "ai-sdk.lock")):
        try:
            build_ai_sdk(AI_SDK_CACHE)
        except AiSdkBuildError as exc:
            pytest.fail(str(exc))
    return AI_SDK_CACHE


def run_node(
    folder: Path,
    script: str,
    *args: str,
    timeout: float = 60,
    expect_json: bool = True,
    stdin: str | None = None,
) -> Any:
    """Run ``script`` (in ``folder``) with node (``stdin`` written to it); the JSON it
    prints, when ``expect_json``."""
    done = subprocess.run(
        ["node", script, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
    )
    assert done.returncode == 0, f"node {script} failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout) if expect_json else done.stdout


CHAT_APP_PAGE = ROOT / "examples" / "chat_app" / "page"
CHAT_APP_CACHE = CACHE.parent / "chat-app-page"


def chat_app_page() -> Path:
    """The example chat app's page (``examples/chat_app/page``) built into a gitignored cache
    (``npm ci`` and its ``build.mjs``), again only when its sources changed; its ``dist``."""
    require_tool("node", "apt-get install -y nodejs npm")
    npm = require_tool("npm", "apt-get install -y npm")
    sources = sorted(
        p for p in CHAT_APP_PAGE.rglob("*") if p.is_file() and "node_modules" not in p.parts
    )
    digest = hashlib.sha256()
    for path in sources:
        digest.update(str(path.relative_to(CHAT_APP_PAGE)).encode() + b"\0" + path.read_bytes())
    stamp = digest.hexdigest()
    CHAT_APP_CACHE.mkdir(parents=True, exist_ok=True)
    marker = CHAT_APP_CACHE / ".stamp"
    dist = CHAT_APP_CACHE / "dist"
    with FileLock(str(CHAT_APP_CACHE.parent / "chat-app-page.lock")):
        if marker.exists() and marker.read_text() == stamp and (dist / "page.js").exists():
            return dist
        for path in sources:
            target = CHAT_APP_CACHE / path.relative_to(CHAT_APP_PAGE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        for command in (
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            ["node", "build.mjs", "dist"],
        ):
            done = subprocess.run(
                command, cwd=CHAT_APP_CACHE, capture_output=True, text=True, timeout=600
            )
            if done.returncode != 0:
                pytest.fail(
                    f"{' '.join(command)} failed in {CHAT_APP_CACHE}:\n{done.stderr[-2000:]}"
                )
        marker.write_text(stamp)
    return dist

"""``unspool.web.ai_sdk_build``: where the demo page's AI SDK client is built, when it
counts as built, and the clear errors of ``unspool demo --web --build-ai-sdk``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.web.js import ai_sdk_client
from unspool.cli._demo import demo_command
from unspool.web.ai_sdk_build import (
    BUILD_COMMAND,
    BUNDLE,
    LICENSES,
    AiSdkBuildError,
    ai_sdk_dir,
    build_ai_sdk,
    build_help,
    built_ai_sdk,
)


def test_the_folder_is_the_env_var_else_the_xdg_cache_else_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("UNSPOOL_AI_SDK_DIR", raising=False)
    assert ai_sdk_dir() == tmp_path / "home" / ".cache" / "unspool" / "ai-sdk"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ai_sdk_dir() == tmp_path / "xdg" / "unspool" / "ai-sdk"
    monkeypatch.setenv("UNSPOOL_AI_SDK_DIR", str(tmp_path / "mine"))
    assert ai_sdk_dir() == tmp_path / "mine"


def test_without_node_the_build_fails_clearly_and_the_help_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no node, no npm
    with pytest.raises(AiSdkBuildError, match="needs node and npm on PATH"):
        build_ai_sdk(tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert built_ai_sdk(tmp_path / "out") is None
    help_text = build_help(tmp_path / "out")
    assert help_text.startswith("The AI SDK client is not built: install node and npm")
    assert BUILD_COMMAND in help_text and str(tmp_path / "out") in help_text


def test_the_cli_reports_a_failed_build_and_a_misplaced_flag(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runner = CliRunner()
    misplaced = runner.invoke(demo_command, ["--build-ai-sdk"])
    assert misplaced.exit_code == 2 and "--build-ai-sdk goes with --web" in misplaced.output
    env = {"PATH": str(tmp_path), "UNSPOOL_AI_SDK_DIR": str(tmp_path / "out")}
    failed = runner.invoke(demo_command, ["--web", "--build-ai-sdk"], env=env)
    assert failed.exit_code == 1
    assert "Error: building the AI SDK client needs node and npm on PATH" in failed.output


def test_the_built_client_is_the_pinned_ai_with_its_licences(tmp_path: Path) -> None:
    """Built by the tests' set-up with unspool's own builder; a second build is a no-op,
    and output stamped from other sources does not count as built."""
    folder = ai_sdk_client()
    dist = built_ai_sdk(folder)
    assert dist == folder / "dist"
    bundle = (dist / BUNDLE).read_text()
    assert bundle.startswith(
        "/* The Vercel AI SDK's chat client (AbstractChat, DefaultChatTransport) from ai@6.0.326,"
    )
    assert "export{" in bundle  # one ES module
    licences = (dist / LICENSES).read_text()
    assert "==== ai@6.0.326 (Apache-2.0) ====" in licences
    assert "Licensed under the Apache License, Version 2.0" in licences
    assert build_ai_sdk(folder) == dist  # already built: nothing run
    stale = tmp_path / "stale"
    shutil.copytree(dist, stale / "dist")
    assert built_ai_sdk(stale) == stale / "dist"
    (stale / "dist" / ".stamp").write_text("built from older pins")
    assert built_ai_sdk(stale) is None

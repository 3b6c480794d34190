"""The README's examples run as written, and its quick start is what CI runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SKIP = "<!-- readme-test: skip"


def python_blocks() -> list[tuple[int, str]]:
    """(line number, code) of every ```python block not marked with the skip comment."""
    blocks = []
    for match in re.finditer(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", README, re.S):
        if match.group("before").startswith(SKIP):
            continue
        line = README.count("\n", 0, match.start("code")) + 1
        blocks.append((line, match.group("code")))
    return blocks


@pytest.mark.parametrize(("line", "code"), python_blocks(), ids=lambda v: str(v)[:12])
def test_readme_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "readme_example"})


def test_there_are_examples() -> None:
    assert len(python_blocks()) >= 8


def test_quick_start_test_command_is_what_ci_runs() -> None:
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)
    assert len(commands) >= 2
    demo, tests = commands[0], commands[1]
    assert demo.endswith("unspool demo")
    assert tests.endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    setup, run = tests.split(" && .venv/bin/python -m pytest")[0], ".venv/bin/python -m pytest"
    assert setup in ci
    assert run in ci

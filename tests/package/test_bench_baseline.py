"""``python -m bench --baseline PATH``: a smoke test with this checkout as its own baseline.

The bench is a development tool, not part of the package: these tests run only from a
checkout that has ``bench/``, on the smallest stream (the tags section, 1 KB, one repeat).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.skipif(
    not (ROOT / "bench" / "baseline.py").is_file(), reason="bench/ is not in this tree"
)


def bench(tmp_path: Path, *args: str) -> tuple[str, dict[str, object]]:
    out = tmp_path / "results.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src")
    command = [sys.executable, "-m", "bench", "--only", "tags", "--sizes", "1KB"]
    done = subprocess.run(
        [*command, "--repeats", "1", "--json", str(out), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(out.read_text())


def test_baseline_rows_and_target_appear(tmp_path: Path) -> None:
    stdout, results = bench(tmp_path, "--baseline", str(ROOT))
    meta = results["meta"]
    assert isinstance(meta, dict)
    baseline = meta["baseline"]
    assert isinstance(baseline, dict)
    row = f"unspool @{baseline['name']}"
    assert baseline["unspool_file"] == str((ROOT / "src" / "unspool" / "__init__.py").resolve())
    table = [line for line in stdout.splitlines() if line.startswith(row + " ")]
    assert table, stdout
    assert "×" in table[0]  # the ratio against the current row
    assert f"TagParser vs {row} 1KB 4-char" in stdout
    sections = results["sections"]
    assert isinstance(sections, dict)
    assert row in sections["tags"]["rows"]


def test_without_baseline_no_extra_rows(tmp_path: Path) -> None:
    stdout, results = bench(tmp_path)
    assert " @" not in stdout
    meta = results["meta"]
    assert isinstance(meta, dict)
    assert meta["baseline"] is None


def test_baseline_that_cannot_be_imported_is_a_note(tmp_path: Path) -> None:
    broken = tmp_path / "broken" / "src" / "unspool"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('not this one')\n")
    stdout, results = bench(tmp_path, "--baseline", str(tmp_path / "broken"))
    assert "unspool not importable" in stdout
    assert "going on without a baseline" in stdout
    assert "unspool TagParser" in stdout
    meta = results["meta"]
    assert isinstance(meta, dict)
    assert meta["baseline"] is None

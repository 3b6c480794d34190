"""Worker processes that dispatch through a shared ledger, for the crash and race tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT, SRC

SUPPORT = Path(__file__).parent


def start(script: str, *args: str) -> subprocess.Popen[str]:
    """``python tests/support/actions/<script> args...`` with ``src`` and the repository's
    root (for ``tests.support``) on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)])}
    return subprocess.Popen(
        [sys.executable, str(SUPPORT / script), *args],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def outcome_lines(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [e for e in events if e["type"] in ("action_result", "action_failed")]


def crash_mid_action(where: str, runs: Path, *flags: str) -> None:
    """Run the crash worker until the handler of order A is running, then SIGKILL it."""
    proc = start("crash_worker.py", where, str(runs), "hang", *flags)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip() == "RUNNING":
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def finish_worker(where: str, runs: Path, *flags: str) -> list[dict[str, Any]]:
    proc = start("crash_worker.py", where, str(runs), "normal", *flags)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    return outcome_lines(out)


def charged(order: str, cents: int, index: int, *, replayed: bool) -> dict[str, Any]:
    """The JSON line of the crash worker's ``charge`` result for ``order``."""
    return {
        "type": "action_result",
        "id": f"reply-1:{index}",
        "index": index,
        "name": "charge",
        "result": {"order": order, "charged": cents},
        "replayed": replayed,
    }

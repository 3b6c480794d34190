"""Closing a ``SqliteLedger`` while other threads use it (an async heartbeat renewing its
leases in a worker thread, dispatchers still finishing) never crashes the process: the
connection of a thread is closed only once no statement runs on it, and a thread that
comes back opens a new one. Closing a connection under a running statement was a
segfault (found in the suite under load); the child process makes one visible."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.paths import SRC

HAMMER = textwrap.dedent(
    """
    import sys, threading, time
    from unspool import SqliteLedger

    led = SqliteLedger(sys.argv[1], lease=5)
    stop = threading.Event()
    problems = []

    def use(n):
        k = 0
        while not stop.is_set():
            k += 1
            try:
                led.renew_leases([(f"k{n}-{j}", "t") for j in range(20)], time.time() + 5)
                led.get(f"k{n}-{k}")
                led.records()
            except Exception as exc:
                problems.append(repr(exc))

    threads = [threading.Thread(target=use, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    closes = 0
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end or closes < 5:
        time.sleep(0.002)
        led.close()
        closes += 1
    stop.set()
    for t in threads:
        t.join()
    led.close()
    print(closes, problems[:3])
    """
)


def test_closing_while_threads_run_statements_never_crashes(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", HAMMER, str(tmp_path / "ledger.db"), "1.5"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # -11: a segfault
    closes, problems = done.stdout.split(" ", 1)
    assert int(closes) >= 5
    assert problems.strip() == "[]"  # every statement ran on an open connection

"""The ledger soak (issue 22): processes x dispatchers x actions with random handler
times around the lease and random SIGKILLs, on SQLite, PostgreSQL and Redis.

Every action runs exactly once, or ends ``unknown_outcome`` only if its handler
began; no key has two outcomes. It runs in the tests' long profile only
(``UNSPOOL_HYPOTHESIS=long``); ``UNSPOOL_SOAK`` sets its size as
``PROCESSESxDISPATCHERSxACTIONS[:KILLS[:LEASE]]`` (default ``4x2x500:8:1.0``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.actions.processes import start
from tests.support.actions.servers import close, drop, open_ledger, spec
from tests.support.hypothesis_profiles import chosen_profile

long_only = pytest.mark.skipif(
    chosen_profile() != "long", reason="the soak runs in the long profile (UNSPOOL_HYPOTHESIS=long)"
)


@dataclass(frozen=True)
class Size:
    processes: int = 4
    dispatchers: int = 2
    actions: int = 500
    kills: int = 8
    lease: float = 1.0


def soak_size(text: str | None) -> Size:
    """The size ``UNSPOOL_SOAK`` asks for (see the module docs)."""
    if not text:
        return Size()
    shape, _, rest = text.partition(":")
    kills, _, lease = rest.partition(":")
    processes, dispatchers, actions = (int(x) for x in shape.lower().split("x"))
    return Size(
        processes, dispatchers, actions, int(kills or Size.kills), float(lease or Size.lease)
    )


def test_soak_size() -> None:
    assert soak_size(None) == Size(4, 2, 500, 8, 1.0)
    assert soak_size("2x1x50") == Size(2, 1, 50, 8, 1.0)
    assert soak_size("4x2x60:3:0.4") == Size(4, 2, 60, 3, 0.4)


@long_only
@pytest.mark.parametrize("kind", ["sqlite", "postgres", "redis"])
def test_soak(kind: str, tmp_path: Path) -> None:
    size = soak_size(os.environ.get("UNSPOOL_SOAK"))
    where = spec(kind, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    rng = random.Random()
    seeds = iter(range(1, 1_000_000))

    def launch() -> subprocess.Popen[str]:
        args = (str(size.actions), str(size.dispatchers), str(size.lease), str(next(seeds)))
        return start("soak_worker.py", json.dumps(where), str(out), *args)

    try:
        setup = open_ledger(where, lease=size.lease)
        setup.get("warm-up")  # the table exists before the workers race to create it
        close(setup)
        procs = [launch() for _ in range(size.processes)]
        born = [time.monotonic()] * size.processes
        killed = 0
        while killed < size.kills:
            time.sleep(rng.uniform(0.25, 1.5) * size.lease)
            # a victim that has had time to claim and run (not one still importing)
            ripe = [
                i
                for i, p in enumerate(procs)
                if p.poll() is None and time.monotonic() - born[i] > 2 + 2 * size.lease
            ]
            if not any(p.poll() is None for p in procs):
                break
            if not ripe:
                continue
            slot = rng.choice(ripe)
            procs[slot].send_signal(signal.SIGKILL)
            procs[slot].wait(30)
            killed += 1
            procs[slot], born[slot] = launch(), time.monotonic()  # a new worker takes its place
        for proc in procs:
            proc.wait(timeout=60 + 10 * size.actions * size.lease)
            assert proc.returncode == 0
        ledger = open_ledger(where, lease=size.lease)
        try:
            rows = {int(r.key.partition(":")[2]): r for r in ledger.records()}
        finally:
            close(ledger)
    finally:
        drop(where)

    begins = Counter(int(n) for n in (out / "begins").read_text().split())
    reported: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for line in (out / "outcomes").read_text().splitlines():
        e = json.loads(line)
        reported[e["n"]].add((e["type"], e["value"]))
    everything = range(size.actions)
    assert sorted(rows) == list(everything)
    assert not [n for n, r in rows.items() if r.state == "claimed"]  # all resolved
    unknown = {n for n, r in rows.items() if r.state == "started"}
    assert max(begins.values()) == 1  # no handler ever began twice
    for n in everything:
        row = rows[n]
        if row.state == "finished":
            assert begins[n] == 1
            assert reported[n] == {("action_result", row.result)}  # one outcome
        else:  # its handler began under a worker that was killed
            assert reported[n] == {("action_failed", "unknown_outcome")}
    # a handler that began before its first write (a kill in between) is not in begins
    unlogged = [n for n in unknown if begins[n] == 0]
    assert len(unlogged) <= killed
    assert len(unknown) <= killed * size.dispatchers * 2  # 2 workers each
    print(
        f"\nsoak {kind} {size}: {killed} kills, {len(unknown)} unknown "
        f"({len(unlogged)} killed before their first write), "
        f"{size.actions - len(unknown)} ran exactly once"
    )

"""Ledger rows (issue 17): what exactly-once costs per action, for each ledger.

* **per action**: one process, a sequential ``Dispatcher.run`` over a reply of N
  actions whose handler returns at once, with fresh keys each run: the time per
  action is the dispatcher's claim, heartbeat bookkeeping and recorded outcome
  (memory, SQLite ``synchronous=FULL`` and ``NORMAL``, PostgreSQL, Redis).
* **4 processes**: four processes (started beforehand, released together by a
  barrier) each dispatch their own reply of M actions through one shared ledger;
  the row shows actions per second over the wall time of all four.

PostgreSQL and Redis are read from ``UNSPOOL_TEST_POSTGRES`` / ``UNSPOOL_TEST_REDIS``
(defaults: 127.0.0.1, trust authentication, database ``test``); a server that
cannot be reached leaves its rows out with a note. Each run uses a table or key
prefix of its own and removes it afterwards.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.profiles import Profile
from bench.table import fmt_seconds, render

__all__ = ["run"]

POSTGRES = os.environ.get("UNSPOOL_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("UNSPOOL_TEST_REDIS", "redis://127.0.0.1:6379/0")
KINDS = ("memory", "sqlite FULL", "sqlite NORMAL", "postgres", "redis")
SHARED = KINDS[1:]


def _where(kind: str, folder: str) -> dict[str, str]:
    tag = uuid.uuid4().hex[:10]
    if kind.startswith("sqlite"):
        return {"kind": kind, "path": os.path.join(folder, f"{tag}.db")}
    if kind == "postgres":
        return {"kind": kind, "dsn": POSTGRES, "table": f"unspool_bench_{tag}"}
    if kind == "redis":
        return {"kind": kind, "url": REDIS, "prefix": f"unspool-bench:{tag}:"}
    return {"kind": kind}


def _open(where: dict[str, str]) -> Any:
    from unspool.actions.ledgers import MemoryLedger, SqliteLedger

    kind = where["kind"]
    if kind.startswith("sqlite"):
        if kind.endswith("FULL"):
            return SqliteLedger(where["path"], synchronous="FULL")
        return SqliteLedger(where["path"], synchronous="NORMAL")
    if kind == "postgres":
        from unspool.actions.ledgers._postgres import PostgresLedger

        return PostgresLedger(where["dsn"], table=where["table"])
    if kind == "redis":
        from unspool.actions.ledgers._redis import RedisLedger

        return RedisLedger(where["url"], prefix=where["prefix"])
    return MemoryLedger()


def _drop(where: dict[str, str]) -> None:
    if where["kind"] == "postgres":
        import psycopg

        with psycopg.connect(where["dsn"], autocommit=True) as conn:
            conn.execute(f'DROP TABLE IF EXISTS "{where["table"]}"')
    elif where["kind"] == "redis":
        import redis

        client = redis.Redis.from_url(where["url"])
        keys = list(client.scan_iter(match=where["prefix"] + "*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i : i + 1000])
        client.close()


def _problem(kind: str) -> str | None:
    """Why ``kind`` cannot be measured here, or ``None``."""
    try:
        if kind == "postgres":
            import psycopg

            psycopg.connect(POSTGRES, connect_timeout=3).close()
        elif kind == "redis":
            import redis

            redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()
    return None


def _reply(stream_id: str, count: int) -> tuple[Any, list[Any]]:
    from unspool.actions._registry import ActionRegistry
    from unspool.events import ActionComplete

    registry = ActionRegistry()
    registry.register("work", lambda value: value["n"], schema={"type": "object"})
    events = [ActionComplete(f"{stream_id}:{n}", n, "work", {"n": n}) for n in range(count)]
    return registry, events


def _dispatch(ledger: Any, registry: Any, events: list[Any]) -> float:
    from unspool.actions._dispatcher import Dispatcher

    started = time.perf_counter()
    for _ in Dispatcher(registry, ledger).run(events):
        pass
    return time.perf_counter() - started


def _per_action(kind: str, count: int, repeats: int, folder: str) -> float:
    """Median seconds per action over ``repeats`` runs of ``count`` fresh actions."""
    where = _where(kind, folder)
    ledger = _open(where)
    try:
        registry, warm = _reply("warm", 5)
        _dispatch(ledger, registry, warm)  # connect, create the table
        times = []
        for r in range(repeats):
            registry, events = _reply(f"run{r}", count)
            times.append(_dispatch(ledger, registry, events) / count)
        return statistics.median(times)
    finally:
        close = getattr(ledger, "close", None)
        if close is not None:
            close()
        _drop(where)


def _worker(where: dict[str, str], name: str, count: int, barrier: Any, done: Any) -> None:
    ledger = _open(where)
    registry, warm = _reply(f"{name}-warm", 2)
    _dispatch(ledger, registry, warm)
    registry, events = _reply(name, count)
    barrier.wait()
    _dispatch(ledger, registry, events)
    done.put(time.perf_counter())
    close = getattr(ledger, "close", None)
    if close is not None:
        close()


def _throughput(kind: str, count: int, folder: str) -> float:
    """Actions per second of four processes dispatching ``count`` actions each."""
    where = _where(kind, folder)
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(5)
    done = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(where, f"p{i}", count, barrier, done)) for i in range(4)
    ]
    try:
        for proc in procs:
            proc.start()
        barrier.wait(timeout=120)
        started = time.perf_counter()
        ends = [done.get(timeout=300) for _ in procs]
        for proc in procs:
            proc.join(60)
        return 4 * count / (max(ends) - started)
    finally:
        _drop(where)


def run(profile: Profile) -> dict[str, Any]:
    """Measure every ledger that can be reached; print the two tables."""
    quick = profile.name == "quick"
    repeats = 3 if quick else 5
    counts = {"memory": 2000, "sqlite FULL": 100, "sqlite NORMAL": 500}
    per_process = 100 if quick else 300
    kinds = []
    notes = []
    for kind in KINDS:
        problem = _problem(kind)
        if problem:
            notes.append(f"{kind} skipped: {problem}")
        else:
            kinds.append(kind)
    results: dict[str, Any] = {"per_action": {}, "four_processes": {}, "notes": notes}
    with tempfile.TemporaryDirectory() as folder:
        for kind in kinds:
            results["per_action"][kind] = _per_action(kind, counts.get(kind, 300), repeats, folder)
        for kind in kinds:
            if kind in SHARED:
                results["four_processes"][kind] = _throughput(kind, per_process, folder)
    rows = []
    for kind in kinds:
        each = results["per_action"][kind]
        rate = results["four_processes"].get(kind)
        rows.append(
            [
                kind,
                fmt_seconds(each),
                f"{1 / each:,.0f}/s",
                "—" if rate is None else f"{rate:,.0f}/s",
            ]
        )
    print(
        render(
            [
                "ledger",
                "per action (1 process)",
                "actions/s (1 process)",
                "actions/s (4 processes)",
            ],
            rows,
        )
    )
    for note in notes:
        print(f"note: {note}")
    results["machine"] = {"cpus": os.cpu_count(), "tmp": str(Path(tempfile.gettempdir()))}
    return results

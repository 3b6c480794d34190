"""Many workers (issue 17): PostgreSQL and Redis ledgers on the real servers.

Processes racing on one reply, a worker killed inside a handler, connections cut
mid-stream, async use, and a caller's own connection, pool or client. The servers'
addresses come from ``UNSPOOL_TEST_POSTGRES`` / ``UNSPOOL_TEST_REDIS`` (see
``tests/support/actions/servers.py``); without them these tests skip, except under CI.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.actions.processes import (
    charged,
    crash_mid_action,
    finish_worker,
    outcome_lines,
    start,
)
from tests.support.actions.servers import (
    close,
    drop,
    ledger_of,
    open_ledger,
    postgres_dsn,
    redis_url,
    spec,
)
from tests.support.actions.streams import action_stream
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._registry import ActionRegistry
from unspool.actions.ledgers import LedgerError, Record
from unspool.events import ActionFailed, ActionResult, Event

SHARED = ("postgres", "redis")


def outcomes(events: list[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, (ActionResult, ActionFailed))]


# processes --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SHARED)
def test_four_processes_on_one_reply_run_each_action_exactly_once(
    kind: str, tmp_path: Path
) -> None:
    where = spec(kind, tmp_path)
    runs, go = tmp_path / "runs.txt", tmp_path / "go"
    try:
        procs = [start("race_worker.py", json.dumps(where), str(runs), str(go)) for _ in range(4)]
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "READY"
        go.touch()  # all four start dispatching the same 100 actions at the same moment
        lines = []
        for proc in procs:
            out, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0
            lines.append(outcome_lines(out))
    finally:
        drop(where)
    assert sorted(int(n) for n in runs.read_text().split()) == list(range(100))
    fresh = Counter(e["index"] for out in lines for e in out if not e["replayed"])
    assert all(e["type"] == "action_result" for out in lines for e in out)
    assert fresh == Counter(range(100))  # one run per action; the others replayed it
    for out in lines:
        assert [(e["index"], e["result"]) for e in out] == [(n, n * n) for n in range(100)]


@pytest.mark.parametrize("kind", SHARED)
def test_a_worker_killed_inside_a_handler(kind: str, tmp_path: Path) -> None:
    where = spec(kind, tmp_path)
    runs = tmp_path / "runs.txt"
    try:
        crash_mid_action(json.dumps(where), runs)
        assert runs.read_text() == "A\n"
        # the next worker waits out the dead worker's lease (0.5 s), then reports it
        out = finish_worker(json.dumps(where), runs)
        assert [(e["type"], e.get("error_type")) for e in out] == [
            ("action_failed", "unknown_outcome"),
            ("action_result", None),
        ]
        assert out[1] == charged("B", 700, 1, replayed=False)
        assert runs.read_text() == "A\nB\n"  # A was not charged again
        ledger = open_ledger(where)
        try:
            rows = {r.key: (r.state, r.attempts) for r in ledger.records()}
        finally:
            close(ledger)
        assert rows == {"reply-1:0": ("started", 1), "reply-1:1": ("finished", 1)}
        # registered idempotent=True, it runs once more, then replays
        assert finish_worker(json.dumps(where), runs, "idempotent") == [
            charged("A", 500, 0, replayed=False),
            charged("B", 700, 1, replayed=True),
        ]
        assert finish_worker(json.dumps(where), runs, "idempotent") == [
            charged("A", 500, 0, replayed=True),
            charged("B", 700, 1, replayed=True),
        ]
        assert runs.read_text() == "A\nB\nA\n"
    finally:
        drop(where)


# connections cut mid-stream ---------------------------------------------------------------


def counting_registry(runs: list[int], during: Any = None) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action
    def step(n: int) -> int:
        runs.append(n)
        if during is not None and n == 1:
            during()
        return n * 10

    return registry


def test_postgres_connection_cut_while_recording(tmp_path: Path) -> None:
    import psycopg

    dsn = postgres_dsn()
    app = f"unspool-cut-{time.time_ns()}"
    where = spec("postgres", tmp_path)
    admin = psycopg.connect(dsn, autocommit=True)
    cut: list[int] = []

    def cut_the_write() -> None:
        """Hold the row of action 1, so that recording its outcome waits; then
        terminate the ledger's connection that waits, and let go."""
        admin.execute("BEGIN")
        admin.execute(f'SELECT 1 FROM "{where["table"]}" WHERE key = %s FOR UPDATE', ("cut:1",))

        def terminate() -> None:
            deadline = time.monotonic() + 10
            while not cut and time.monotonic() < deadline:
                rows = admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = %s"
                    " AND wait_event_type = 'Lock'",
                    (app,),
                ).fetchall()
                for (pid,) in rows:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                    cut.append(pid)
                time.sleep(0.01)
            admin.execute("ROLLBACK")

        threading.Thread(target=terminate).start()

    runs: list[int] = []
    registry = counting_registry(runs, cut_the_write)
    stream = action_stream([("step", {"n": n}) for n in range(3)], stream_id="cut")
    from unspool.actions.ledgers._postgres import PostgresLedger

    ledger = PostgresLedger(
        f"{dsn}?application_name={app}", table=where["table"], lease=0.5, wait=5
    )
    try:
        first = outcomes(list(Dispatcher(registry, ledger).run(stream)))
        assert cut
        assert first[0] == ActionResult("cut:0", 0, "step", 0)
        failed = first[1]
        assert isinstance(failed, ActionFailed) and failed.error_type == "ledger_error"
        assert failed.error.startswith(
            "the handler of 'cut:1' returned 10, but the ledger could not record it ("
        )
        assert failed.error.endswith("later claims of this key report an unknown outcome")
        assert first[2] == ActionResult("cut:2", 2, "step", 20)  # a new connection
        # a re-render: nothing runs twice; the cut action's outcome is unknown
        again = outcomes(list(Dispatcher(registry, ledger).run(stream)))
        assert [(type(e).__name__, e.replayed) for e in again] == [
            ("ActionResult", True),
            ("ActionFailed", False),
            ("ActionResult", True),
        ]
        assert isinstance(again[1], ActionFailed) and again[1].error_type == "unknown_outcome"
        assert runs == [0, 1, 2]
    finally:
        ledger.close()
        admin.close()
        drop(where)


def test_redis_connection_killed_mid_stream(tmp_path: Path) -> None:
    import redis

    url = redis_url()
    name = f"unspool-kill-{time.time_ns()}"
    admin = redis.Redis.from_url(url)
    killed: list[int] = []

    def kill_the_ledgers_connections() -> None:
        for client in admin.client_list():
            if client.get("name") == name:
                admin.client_kill_filter(_id=client["id"])
                killed.append(int(client["id"]))

    where = spec("redis", tmp_path)
    runs: list[int] = []
    registry = counting_registry(runs, kill_the_ledgers_connections)
    stream = action_stream([("step", {"n": n}) for n in range(3)], stream_id="kill")
    from unspool.actions.ledgers._redis import RedisLedger

    client = redis.Redis.from_url(url, client_name=name)
    ledger = RedisLedger(client=client, prefix=where["prefix"], lease=0.5, wait=5)
    try:
        first = outcomes(list(Dispatcher(registry, ledger).run(stream)))
        assert killed
        # redis-py reconnects a killed connection on its next command: every outcome
        # is recorded, and a re-render replays them all
        assert first == [ActionResult(f"kill:{n}", n, "step", n * 10) for n in range(3)]
        again = outcomes(list(Dispatcher(registry, ledger).run(stream)))
        assert again == [
            ActionResult(f"kill:{n}", n, "step", n * 10, replayed=True) for n in range(3)
        ]
        assert runs == [0, 1, 2]
    finally:
        client.close()
        admin.close()
        drop(where)


def test_a_server_that_cannot_be_reached_is_a_ledger_error_and_nothing_runs() -> None:
    from unspool.actions.ledgers._postgres import PostgresLedger
    from unspool.actions.ledgers._redis import RedisLedger

    runs: list[int] = []
    registry = counting_registry(runs)
    stream = action_stream([("step", {"n": 0})], stream_id="down")
    for ledger in (
        PostgresLedger("postgresql://postgres@127.0.0.1:1/test", timeout=1),
        RedisLedger("redis://127.0.0.1:1/0"),
    ):
        (failed,) = outcomes(list(Dispatcher(registry, ledger).run(stream)))
        assert isinstance(failed, ActionFailed) and failed.error_type == "ledger_error"
        assert failed.error.startswith("the ledger could not claim key 'down:0' (")
        assert failed.error.endswith("); not run")
        ledger.close()
    assert runs == []


# async, and the caller's own connections --------------------------------------------------


@pytest.mark.parametrize("kind", SHARED)
async def test_async_dispatch(kind: str, tmp_path: Path) -> None:
    runs: list[int] = []
    registry = ActionRegistry()

    @registry.action
    async def fetch(n: int) -> int:
        runs.append(n)
        return -n

    stream = action_stream([("fetch", {"n": n}) for n in range(5)], stream_id="async")
    where = spec(kind, tmp_path)
    ledger: Any = open_ledger(where, lease=1.0)
    try:
        first = outcomes(
            [e async for e in Dispatcher(registry, ledger, concurrent=True).arun(stream)]
        )
        again = outcomes([e async for e in Dispatcher(registry, ledger).arun(stream)])
        rows = await ledger.arecords()
        assert await ledger.apurge(older_than=0) == 5
    finally:
        await ledger.aclose()
        drop(where)
    assert first == [ActionResult(f"async:{n}", n, "fetch", -n) for n in range(5)]
    assert again == [ActionResult(f"async:{n}", n, "fetch", -n, replayed=True) for n in range(5)]
    assert sorted(runs) == list(range(5))
    assert [(r.key, r.state, r.result) for r in rows] == [
        (f"async:{n}", "finished", -n) for n in range(5)
    ]


def test_postgres_with_the_callers_connection_and_pool(tmp_path: Path) -> None:
    import psycopg
    from psycopg_pool import ConnectionPool

    from unspool.actions.ledgers._postgres import PostgresLedger

    dsn, table = postgres_dsn(), f"unspool_test_{time.time_ns()}"
    runs: list[int] = []
    registry = counting_registry(runs)
    stream = action_stream([("step", {"n": n}) for n in range(2)], stream_id="own")
    conn = psycopg.connect(dsn, autocommit=True)
    pool: ConnectionPool[Any] = ConnectionPool(dsn, min_size=1, max_size=2, open=True)
    try:
        mine = PostgresLedger(connection=conn, table=f"public.{table}")
        assert outcomes(list(Dispatcher(registry, mine).run(stream))) == [
            ActionResult("own:0", 0, "step", 0),
            ActionResult("own:1", 1, "step", 10),
        ]
        pooled = PostgresLedger(pool=pool, table=table)
        assert [e.replayed for e in outcomes(list(Dispatcher(registry, pooled).run(stream)))] == [
            True,
            True,
        ]
        assert runs == [0, 1]
        names = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s"
            " ORDER BY ordinal_position",
            (table,),
        ).fetchall()
        assert [n for (n,) in names][:4] == ["key", "name", "action_id", "state"]
        conn.execute("BEGIN")  # a connection inside the caller's transaction is refused
        with pytest.raises(LedgerError, match="not idle"):
            mine.get("own:0")
        conn.execute("ROLLBACK")
        with pytest.raises(ValueError, match="table must be a name"):
            PostgresLedger(dsn, table='x"; DROP TABLE y; --')
        with pytest.raises(TypeError, match="exactly one"):
            PostgresLedger(dsn, connection=conn)
    finally:
        conn.execute(f'DROP TABLE IF EXISTS "{table}"')
        conn.close()
        pool.close()


async def test_postgres_with_the_callers_async_connection() -> None:
    import psycopg

    from unspool.actions.ledgers._postgres import PostgresLedger

    dsn, table = postgres_dsn(), f"unspool_test_{time.time_ns()}"
    registry = ActionRegistry()

    @registry.action
    async def ping(n: int) -> int:
        return n

    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    try:
        ledger = PostgresLedger(connection=conn, table=table)
        stream = action_stream([("ping", {"n": 3})], stream_id="aconn")
        assert outcomes([e async for e in Dispatcher(registry, ledger).arun(stream)]) == [
            ActionResult("aconn:0", 0, "ping", 3)
        ]
        with pytest.raises(LedgerError, match="async pool or connection"):
            ledger.get("aconn:0")  # a sync call on an async connection
    finally:
        await conn.execute(f'DROP TABLE IF EXISTS "{table}"')
        await conn.close()


def test_redis_retention_expires_finished_rows(tmp_path: Path) -> None:
    import redis

    where = spec("redis", tmp_path)
    from unspool.actions.ledgers._redis import RedisLedger

    ledger = RedisLedger(where["url"], prefix=where["prefix"], retention=30)
    admin = redis.Redis.from_url(where["url"])
    try:
        done = ledger.claim("a*b", "x", "s:0")
        ledger.finish(done, result=1)
        running = ledger.claim("a?c", "x", "s:1")
        assert 0 < admin.pttl(where["prefix"] + "a*b") <= 30_000
        assert admin.pttl(where["prefix"] + "a?c") == -1  # started rows never expire
        assert [r.key for r in ledger.records()] == ["a*b", "a?c"]
        ledger.cancel(running)
    finally:
        ledger.close()
        admin.close()
        drop(where)


@pytest.mark.parametrize("kind", SHARED)
def test_records_read_back_exactly(kind: str, tmp_path: Path) -> None:
    with ledger_of(kind, tmp_path, lease=5.0) as ledger:
        run = ledger.claim("k\x00\ud800", "act", "s\udfff:0", fingerprint="f", summary="{}")
        row = ledger.finish(run, result={"big": 10**5000 // 3, "nan": [1.5, -0.0]})
        (stored,) = ledger.records()
    assert isinstance(row, Record)
    assert stored == row

"""Exactly once under real concurrency (issue 22, items 1 and 2).

A claim's lease is renewed from the moment it is taken (queued ones too) until its
outcome is recorded; a row says whether its handler began (``claimed`` ->
``started`` -> ``finished``); an expired claim that never started runs again,
exactly once, by whoever takes it over (compare-and-set on token and state); an
expired started one is ``unknown_outcome``, sealed so that a key has one outcome.
Tables and keys written by earlier versions keep working.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.actions.processes import start
from tests.support.actions.servers import KINDS, close, drop, ledger_of, open_ledger, spec
from tests.support.actions.streams import action_stream
from unspool.actions._context import ActionContext
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._registry import ActionRegistry
from unspool.actions.ledgers import Ledger, LedgerError, Record
from unspool.events import ActionFailed, ActionResult, Event

SHARED = ("sqlite", "postgres", "redis")
LEASE = 0.25  # the queue below (6 x 0.15 s on one worker) is longer than the lease


def outcomes(events: list[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, (ActionResult, ActionFailed))]


def summary(events: list[Event]) -> list[tuple[str, Any, bool]]:
    """(type, result or error_type, replayed) of each outcome."""
    return [
        (e.type, e.result if isinstance(e, ActionResult) else e.error_type, e.replayed)
        for e in outcomes(events)
    ]


# the reproducer: two live dispatchers, queued work longer than the lease -----------


def slow_registry(runs: Counter[int], *, idempotent: bool, is_async: bool = False) -> Any:
    registry = ActionRegistry()
    lock = threading.Lock()

    if is_async:

        @registry.action("slow", idempotent=idempotent)
        async def aslow(i: int) -> int:
            with lock:
                runs[i] += 1
            await asyncio.sleep(0.15)
            return i

    else:

        @registry.action("slow", idempotent=idempotent)
        def slow(i: int) -> int:
            with lock:
                runs[i] += 1
            time.sleep(0.15)
            return i

    return registry


def reply(registry: ActionRegistry) -> list[Event]:
    return action_stream([("slow", {"i": i}) for i in range(6)], stream_id="s1", registry=registry)


def one_outcome_per_key(events: list[list[Event]]) -> list[tuple[int, list[str], set[bool]]]:
    """Per action: what each dispatcher reported, and which of them ran it fresh. The
    first dispatcher claims the reply's actions up front; on a loaded machine the second,
    started 0.4 s later, may still claim one it has not reached (it runs it; the first
    then waits for it and replays), so who ran which is not fixed, only that one did."""
    first, second = (summary(out) for out in events)
    return [(a[1], [a[0], b[0]], {a[2], b[2]}) for a, b in zip(first, second, strict=True)]


EXPECTED = [(i, ["action_result", "action_result"], {False, True}) for i in range(6)]
"""Each action: a result in both dispatchers, fresh in one and replayed in the other
(waited for, never taken over; never an unknown outcome)."""


@pytest.mark.parametrize("idempotent", [True, False], ids=["idempotent", "not_idempotent"])
@pytest.mark.parametrize("kind", KINDS)
def test_two_live_dispatchers_with_queued_claims(
    kind: str, idempotent: bool, tmp_path: Path
) -> None:
    runs: Counter[int] = Counter()
    registry = slow_registry(runs, idempotent=idempotent)
    events = reply(registry)
    options = {} if kind == "memory" else {"lease": LEASE}
    outs: list[list[Event]] = [[], []]
    with ledger_of(kind, tmp_path, **options) as ledger:

        def go(n: int, delay: float) -> None:
            time.sleep(delay)
            dispatcher = Dispatcher(registry, ledger, concurrent=True, max_workers=1)
            outs[n] = list(dispatcher.run(events))

        threads = [threading.Thread(target=go, args=(n, d)) for n, d in ((0, 0), (1, 0.4))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        rows = [(r.key, r.state, r.attempts) for r in ledger.records()]
    assert runs == Counter(range(6))  # once each (the issue saw {2: 2, 3: 2, 4: 2, 5: 2})
    assert one_outcome_per_key(outs) == EXPECTED  # one outcome per key, never unknown
    assert sorted(rows) == [(f"s1:{i}", "finished", 1) for i in range(6)]


@pytest.mark.parametrize("kind", SHARED)
def test_two_live_async_dispatchers_with_queued_claims(kind: str, tmp_path: Path) -> None:
    """``arun(concurrent=True)``: the claims are renewed by a task on each loop."""
    runs: Counter[int] = Counter()
    registry = slow_registry(runs, idempotent=False, is_async=True)
    events = reply(registry)
    where = spec(kind, tmp_path)
    outs: list[list[Event]] = [[], []]

    async def go(n: int, delay: float) -> None:
        await asyncio.sleep(delay)
        ledger: Any = open_ledger(where, lease=LEASE)
        try:
            dispatcher = Dispatcher(registry, ledger, concurrent=True, max_workers=1)
            outs[n] = [e async for e in dispatcher.arun(events)]
        finally:
            if hasattr(ledger, "aclose"):
                await ledger.aclose()
            close(ledger)

    threads = [
        threading.Thread(target=asyncio.run, args=(go(n, d),)) for n, d in ((0, 0), (1, 0.4))
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        drop(where)
    assert runs == Counter(range(6))
    assert one_outcome_per_key(outs) == EXPECTED


# a worker killed while it holds queued claims ---------------------------------------------


@pytest.mark.parametrize("kind", SHARED)
def test_a_killed_workers_queued_claims_run_exactly_once_elsewhere(
    kind: str, tmp_path: Path
) -> None:
    where, runs = spec(kind, tmp_path), tmp_path / "runs.txt"
    proc = start("queue_worker.py", json.dumps(where), str(runs), "5")
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "RUNNING"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        proc.stdout.close()
        ledger = open_ledger(where, lease=0.3)
        try:
            rows = {r.key: (r.state, r.ok) for r in ledger.records()}
            assert rows == {
                "queued:0": ("started", None),  # its handler began
                **{f"queued:{n}": ("claimed", None) for n in range(1, 5)},  # never began
            }
            here: list[int] = []
            registry = ActionRegistry()

            @registry.action
            def work(n: int) -> int:
                here.append(n)
                return n * n

            events = action_stream(
                [("work", {"n": n}) for n in range(5)], stream_id="queued", registry=registry
            )
            first = summary(list(Dispatcher(registry, ledger, concurrent=True).run(events)))
            again = summary(list(Dispatcher(registry, ledger).run(events)))
        finally:
            close(ledger)
    finally:
        drop(where)
    assert first == [
        ("action_failed", "unknown_outcome", False),
        *[("action_result", n * n, False) for n in range(1, 5)],
    ]
    assert again == [
        ("action_failed", "unknown_outcome", False),
        *[("action_result", n * n, True) for n in range(1, 5)],
    ]
    assert runs.read_text() == "0\n" and sorted(here) == [1, 2, 3, 4]  # each exactly once


# the ledger: takeover by compare-and-set, sealing, a lost claim ---------------------------


def dead_row(ledger: Ledger, key: str, state: Any, attempts: int = 1) -> Record:
    """A row as a worker that died left it (nobody renews it; its lease has expired)."""
    row = Record(
        key, "act", f"{key}:0", state, time.time() - 5, attempts, token=f"dead-{key}",
        lease_until=time.time() - 1,
    )  # fmt: skip
    assert ledger.insert_started(row) is None
    return row


@pytest.mark.parametrize("kind", SHARED)
def test_an_expired_claim_that_never_started_runs_again_once(kind: str, tmp_path: Path) -> None:
    with ledger_of(kind, tmp_path, lease=5.0) as ledger:
        dead_row(ledger, "k", "claimed")
        taken = ledger.claim("k", "act", "k:0")  # not idempotent: still free to run
        assert taken.status == "run" and taken.record is not None and not taken.rerun
        assert (taken.record.state, taken.record.attempts) == ("claimed", 1)
        assert ledger.claim("k", "act", "k:0", wait=0).status == "in_progress"  # held now
        assert not ledger.write_outcome(replace(taken.record, token="dead-k", state="finished"))
        ledger.start(taken)
        ledger.finish(taken, result=1)
        (row,) = ledger.records()
        assert (row.state, row.result, row.attempts) == ("finished", 1, 1)


@pytest.mark.parametrize("kind", SHARED)
def test_an_expired_started_claim_is_sealed_unknown(kind: str, tmp_path: Path) -> None:
    with ledger_of(kind, tmp_path, lease=5.0) as ledger:
        dead = dead_row(ledger, "k", "started")
        unknown = ledger.claim("k", "act", "k:0")
        assert unknown.status == "unknown" and unknown.record is not None
        assert unknown.record.token != dead.token and unknown.record.lease_until == 0
        # the old holder, had it only been cut off, can no longer record an outcome
        assert not ledger.write_outcome(replace(dead, state="finished", ok=True, result=2))
        assert not ledger.renew_lease("k", dead.token, time.time() + 60)
        assert ledger.claim("k", "act", "k:0").status == "unknown"  # sealed once
        again = ledger.claim("k", "act", "k:0", rerun_unknown=True)  # idempotent: rerun
        assert (again.status, again.rerun) == ("run", True)
        assert again.record is not None and again.record.attempts == 2


@pytest.mark.parametrize("state", ["claimed", "started"])
@pytest.mark.parametrize("kind", SHARED)
def test_two_takers_never_both_win(kind: str, state: str, tmp_path: Path) -> None:
    """Eight workers (each its own ledger) claim one dead row at the same moment."""
    where = spec(kind, tmp_path)
    ledgers = [open_ledger(where, lease=5.0) for _ in range(8)]
    try:
        for ledger in ledgers:
            ledger.get("warm-up")
        dead_row(ledgers[0], "k", state)
        barrier = threading.Barrier(len(ledgers))
        got: list[str] = []

        def take(ledger: Ledger) -> None:
            barrier.wait()
            claim = ledger.claim("k", "act", "k:0", rerun_unknown=True, wait=0)
            got.append(claim.status)

        threads = [threading.Thread(target=take, args=(ledger,)) for ledger in ledgers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(got) == ["in_progress"] * 7 + ["run"]
        (row,) = ledgers[0].records()
        assert row.attempts == (1 if state == "claimed" else 2)
    finally:
        for ledger in ledgers:
            close(ledger)
        drop(where)


@pytest.mark.parametrize("kind", SHARED)
def test_start_refuses_a_lost_claim(kind: str, tmp_path: Path) -> None:
    with ledger_of(kind, tmp_path, lease=5.0) as ledger:
        mine = ledger.claim("k", "act", "k:0")
        assert mine.record is not None
        peer = replace(mine.record, token="peer")
        assert ledger.take_over(mine.record.token, peer, "claimed")  # as a taker would
        with pytest.raises(LedgerError, match="lost before its handler began"):
            ledger.start(mine)
        assert ledger.take_over(mine.record.token, peer, "claimed") is False  # CAS


# a dispatcher whose claim was taken reports the key's one outcome --------------------------


@pytest.mark.parametrize("idempotent", [False, True], ids=["not_idempotent", "idempotent"])
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_dispatcher_cut_off_mid_handler_reports_the_keys_outcome(
    kind: str, idempotent: bool, tmp_path: Path
) -> None:
    """While the handler runs, a peer finds the lease expired (the holder was cut off):
    it seals the row as unknown, or (idempotent) runs it again and records "peer". The
    holder's own outcome can no longer be recorded; it reports what the ledger has."""
    with ledger_of(kind, tmp_path) as ledger:
        registry = ActionRegistry()

        @registry.action(idempotent=idempotent)
        def pay(order: str, context: ActionContext) -> str:
            row = ledger.get(context.key)
            assert row is not None and row.state == "started"
            if idempotent:  # the peer's rerun, finished first
                peer = replace(row, token="peer", attempts=2)
                assert ledger.take_over(row.token, peer)
                done = replace(peer, state="finished", ok=True, result="peer", finished_at=1.0)
                assert ledger.write_outcome(done)
            else:
                assert ledger.take_over(row.token, replace(row, token="seal", lease_until=0.0))
            return "holder"

        events = action_stream([("pay", {"order": "A"})], stream_id="cut", registry=registry)
        first = summary(list(Dispatcher(registry, ledger).run(events)))
        later = summary(list(Dispatcher(registry, ledger).run(events)))
    if idempotent:
        assert first == later == [("action_result", "peer", True)]
    else:
        assert first == later == [("action_failed", "unknown_outcome", False)]


# stored data of earlier versions ----------------------------------------------------------

OLD_SQLITE = """
CREATE TABLE unspool_actions (
    key         TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    action_id   TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('started', 'finished')),
    attempts    INTEGER NOT NULL DEFAULT 1,
    ok          INTEGER,
    result      TEXT,
    error       TEXT,
    error_type  TEXT,
    started_at  REAL NOT NULL,
    finished_at REAL
)
"""  # as released: the four columns after finished_at were added later

OLD_POSTGRES = """
CREATE TABLE "{table}" (
    key         text PRIMARY KEY,
    name        text NOT NULL,
    action_id   text NOT NULL,
    state       text NOT NULL CHECK (state IN ('started', 'finished')),
    started_at  double precision NOT NULL,
    attempts    integer NOT NULL DEFAULT 1,
    ok          boolean,
    result      text,
    error       text,
    error_type  text,
    finished_at double precision,
    fingerprint text NOT NULL DEFAULT '',
    summary     text NOT NULL DEFAULT '',
    token       text NOT NULL,
    lease_until double precision
)
"""


def check_old_rows_then_new_claims(ledger: Ledger) -> None:
    """``done`` finished, ``crashed`` started by a worker that died: as 0.2 left them."""
    done = ledger.claim("done", "act", "done")
    assert done.status == "finished" and done.record is not None and done.record.result == 5
    crashed = ledger.claim("crashed", "act", "crashed")
    assert crashed.status == "unknown"  # a started row of 0.2: its handler may have begun
    new = ledger.claim("new", "act", "new")  # a 'claimed' row: the old CHECK would refuse it
    assert new.status == "run" and new.record is not None and new.record.state == "claimed"
    ledger.start(new)
    ledger.finish(new, result=6)
    assert [(r.key, r.state) for r in ledger.records()] == [
        ("done", "finished"),
        ("crashed", "started"),
        ("new", "finished"),
    ]


def test_an_sqlite_file_of_an_earlier_version_is_migrated(tmp_path: Path) -> None:
    from unspool.actions.ledgers import SqliteLedger

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute(OLD_SQLITE)
    db.execute(
        "INSERT INTO unspool_actions VALUES ('done', 'act', 'done', 'finished', 1, 1, '5',"
        " NULL, NULL, 1.0, 2.0)"
    )
    db.execute(
        "INSERT INTO unspool_actions VALUES ('crashed', 'act', 'crashed', 'started', 1, NULL,"
        " NULL, NULL, NULL, 3.0, NULL)"
    )
    db.commit()
    db.close()
    with SqliteLedger(path, lease=5.0) as ledger:
        check_old_rows_then_new_claims(ledger)
    with SqliteLedger(path, lease=5.0) as reopened:  # already current: opened as is
        assert len(reopened.records()) == 3
    db = sqlite3.connect(path)
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'unspool_actions'").fetchone()
    db.close()
    assert "'claimed', 'started', 'finished'" in sql


def test_a_postgres_table_of_an_earlier_version_is_migrated(tmp_path: Path) -> None:
    import psycopg

    where = spec("postgres", tmp_path)
    try:
        with psycopg.connect(where["dsn"], autocommit=True) as conn:
            conn.execute(OLD_POSTGRES.format(table=where["table"]))
            conn.execute(
                f'INSERT INTO "{where["table"]}" (key, name, action_id, state, started_at, ok,'
                " result, finished_at, token, lease_until) VALUES"
                " ('done', 'act', 'done', 'finished', 1, true, '5', 2, 't1', NULL),"
                " ('crashed', 'act', 'crashed', 'started', 3, NULL, NULL, NULL, 't2', 4)"
            )
        ledger = open_ledger(where, lease=5.0)
        try:
            check_old_rows_then_new_claims(ledger)
        finally:
            close(ledger)
        with psycopg.connect(where["dsn"], autocommit=True) as conn:
            checks = conn.execute(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
                " WHERE conrelid = %s::regclass AND contype = 'c'",
                (f'"{where["table"]}"',),
            ).fetchall()
        assert len(checks) == 1 and "claimed" in checks[0][0]
    finally:
        drop(where)


def test_redis_keys_of_an_earlier_version_read_as_they_are(tmp_path: Path) -> None:
    import redis

    where = spec("redis", tmp_path)
    client = redis.Redis.from_url(where["url"])
    try:
        old = {  # the fields 0.2 wrote (a None is left out)
            "done": {"state": "finished", "started_at": "1.0", "ok": "1", "result": "5",
                     "finished_at": "2.0", "lease_until": None},
            "crashed": {"state": "started", "started_at": "3.0", "ok": None, "result": None,
                        "finished_at": None, "lease_until": "4.0"},
        }  # fmt: skip
        for key, fields in old.items():
            base = {"key": key, "name": "act", "action_id": key, "attempts": "1"}
            mapping = {k: v for k, v in {**base, **fields}.items() if v is not None}
            client.hset(where["prefix"] + key, mapping={**mapping, "token": "t-" + key})
        ledger = open_ledger(where, lease=5.0)
        try:
            check_old_rows_then_new_claims(ledger)
        finally:
            close(ledger)
    finally:
        client.close()
        drop(where)

"""Ledgers: the claim protocol, SQLite durability, and crashes between started and finished."""

from __future__ import annotations

import gc
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tests.support.actions.processes import charged, crash_mid_action, finish_worker
from tests.support.actions.servers import KINDS, ledger_of
from unspool.actions._ledger import Ledger, LedgerError, SqliteLedger


class Receipt(BaseModel):
    order: str
    cents: int


@pytest.fixture(params=KINDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Each ledger kind; PostgreSQL and Redis on the test servers (see servers.py)."""
    with ledger_of(request.param, tmp_path) as made:
        yield made


def test_claim_protocol(ledger: Ledger) -> None:
    run = ledger.claim("k1", "charge", "s:0", fingerprint="f1", summary="{}")
    assert run.status == "run" and run.record is not None and not run.rerun
    assert (run.record.state, run.record.attempts, run.record.fingerprint) == ("claimed", 1, "f1")
    assert ledger.claim("k1", "charge", "s:0", fingerprint="f1", wait=0).status == "in_progress"
    assert ledger.claim("k1", "refund", "s:0", fingerprint="f1").status == "conflict"
    assert ledger.claim("k1", "charge", "s:0", fingerprint="f2").status == "conflict"
    ledger.finish(run, result={"ok": 1})
    finished = ledger.claim("k1", "charge", "s:0", fingerprint="f1")
    assert finished.status == "finished"
    assert finished.record is not None
    assert (finished.record.ok, finished.record.result, finished.record.attempts) == (
        True,
        {"ok": 1},
        1,
    )
    assert ledger.claim("k1", "charge", "s:0", fingerprint="f9").status == "conflict"

    failing = ledger.claim("k2", "charge", "s:1")
    ledger.finish(failing, error="declined", error_type="CardError")
    record = ledger.get("k2")
    assert record is not None
    assert (record.state, record.ok, record.result, record.error, record.error_type) == (
        "finished",
        False,
        None,
        "declined",
        "CardError",
    )


def test_a_claim_in_progress_waits_for_the_outcome(ledger: Ledger) -> None:
    run = ledger.claim("k", "a", "s:0")
    threading.Timer(0.1, lambda: ledger.finish(run, result=7)).start()
    started = time.monotonic()
    waited = ledger.claim("k", "a", "s:0")
    assert waited.status == "finished" and waited.record is not None
    assert waited.record.result == 7
    assert time.monotonic() - started < 5


def test_abandoned_claim_is_unknown_then_rerun_only_when_idempotent(ledger: Ledger) -> None:
    first = ledger.claim("k", "charge", "s:0")
    ledger.start(first)
    ledger.abandon(first)  # interrupted mid-handler: the outcome is unknown
    unknown = ledger.claim("k", "charge", "s:0")
    assert unknown.status == "unknown"
    assert unknown.record is not None and unknown.record.state == "started"
    again = ledger.claim("k", "charge", "s:0", rerun_unknown=True)
    assert (again.status, again.rerun) == ("run", True)
    record = ledger.get("k")
    assert record is not None and record.attempts == 2
    ledger.finish(again, result=3)
    assert [(r.key, r.state, r.result, r.attempts) for r in ledger.records()] == [
        ("k", "finished", 3, 2)
    ]
    with pytest.raises(LedgerError, match="lost"):
        ledger.finish(first, result=4)  # the old claim no longer holds the row


def test_cancel_forget_and_purge(ledger: Ledger) -> None:
    run = ledger.claim("k", "a", "s:0")
    ledger.cancel(run)  # never started: may run later
    assert ledger.get("k") is None
    ledger.finish(ledger.claim("k", "a", "s:0"), result=None)
    ledger.forget("k")
    assert ledger.records() == []
    ledger.finish(ledger.claim("old", "a", "s:1"), result=1)
    time.sleep(0.01)
    new = ledger.finish(ledger.claim("new", "a", "s:2"), result=2)
    running = ledger.claim("running", "a", "s:3")
    assert ledger.purge(older_than=3600) == 0
    assert new.finished_at is not None
    assert ledger.purge_before(new.finished_at) == 1  # finished before "new" did
    assert [r.key for r in ledger.records()] == ["new", "running"]
    assert ledger.purge(older_than=0) == 1  # started rows stay
    assert [r.key for r in ledger.records()] == ["running"]
    ledger.cancel(running)


def test_a_live_holders_claims_are_renewed_until_released(tmp_path: Path) -> None:
    with SqliteLedger(tmp_path / "l.db", lease=0.3) as ledger:
        queued = ledger.claim("queued", "a", "s:0")  # its handler has not begun
        running = ledger.claim("running", "a", "s:1")
        ledger.start(running)
        time.sleep(0.6)  # twice the lease: the heartbeats renew both
        assert ledger.claim("queued", "a", "s:0", wait=0).status == "in_progress"
        assert ledger.claim("running", "a", "s:1", wait=0).status == "in_progress"
        ledger.finish(running, result=1)
        ledger.cancel(queued)
        assert [(r.key, r.state) for r in ledger.records()] == [("running", "finished")]


def test_a_claim_waits_out_the_wait_then_says_in_progress(tmp_path: Path) -> None:
    with SqliteLedger(tmp_path / "l.db", lease=0.3, wait=0.2) as ledger:
        mine = ledger.claim("busy", "a", "s:2")
        ledger.renew_lease("busy", mine.record.token if mine.record else "", time.time() + 60)
        started = time.monotonic()
        assert ledger.claim("busy", "a", "s:2").status == "in_progress"  # waited 0.2 s
        assert 0.15 < time.monotonic() - started < 5
        ledger.cancel(mine)


def test_sqlite_file_format_and_json_results(tmp_path: Path) -> None:
    path = tmp_path / "actions.db"
    with SqliteLedger(path) as ledger:
        ledger.finish(ledger.claim("s:0", "charge", "s:0"), result=Receipt(order="o1", cents=5))
        # not JSON: stored by pydantic's encoder
        ledger.finish(ledger.claim("s:1", "charge", "s:1"), result={1, 2} - {2})
    with SqliteLedger(path) as reopened:
        rows = reopened.records()
    assert [(r.key, r.result) for r in rows] == [("s:0", {"order": "o1", "cents": 5}), ("s:1", [1])]
    assert all(r.finished_at is not None and r.finished_at >= r.started_at for r in rows)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("SELECT key, name, state, ok, result FROM unspool_actions").fetchall() == [
        ("s:0", "charge", "finished", 1, '{"order": "o1", "cents": 5}'),
        ("s:1", "charge", "finished", 1, "[1]"),
    ]
    db.close()


# processes --------------------------------------------------------------------------------


def test_restarted_process_replays_instead_of_running_again(tmp_path: Path) -> None:
    db, runs = tmp_path / "ledger.db", tmp_path / "runs.txt"
    first = finish_worker(str(db), runs)
    second = finish_worker(str(db), runs)
    assert first == [charged("A", 500, 0, replayed=False), charged("B", 700, 1, replayed=False)]
    assert second == [charged("A", 500, 0, replayed=True), charged("B", 700, 1, replayed=True)]
    assert runs.read_text() == "A\nB\n"


def test_sigkill_between_started_and_finished_reports_unknown_outcome(tmp_path: Path) -> None:
    db, runs = tmp_path / "ledger.db", tmp_path / "runs.txt"
    crash_mid_action(str(db), runs)
    assert runs.read_text() == "A\n"
    with SqliteLedger(db) as ledger:
        (row,) = ledger.records()
        assert (row.key, row.state, row.ok, row.attempts) == ("reply-1:0", "started", None, 1)
        started_at = datetime.fromtimestamp(row.started_at, timezone.utc).isoformat(
            timespec="seconds"
        )

    # the unknown outcome is not a recorded outcome, so it is never a replay
    unknown = {
        "type": "action_failed",
        "id": "reply-1:0",
        "index": 0,
        "name": "charge",
        "error": f"action 'reply-1:0' was started at {started_at} (attempt 1) and its "
        "outcome was never recorded; not run again",
        "error_type": "unknown_outcome",
        "replayed": False,
    }
    assert finish_worker(str(db), runs) == [unknown, charged("B", 700, 1, replayed=False)]
    assert runs.read_text() == "A\nB\n"  # A was not charged a second time
    # and never will be, until resolved by hand; B is now reported from the ledger
    assert finish_worker(str(db), runs) == [unknown, charged("B", 700, 1, replayed=True)]
    assert runs.read_text() == "A\nB\n"


def test_sigkill_then_restart_reruns_an_idempotent_handler(tmp_path: Path) -> None:
    db, runs = tmp_path / "ledger.db", tmp_path / "runs.txt"
    crash_mid_action(str(db), runs, "idempotent")
    # A is run again (not replayed): its earlier run never recorded an outcome
    assert finish_worker(str(db), runs, "idempotent") == [
        charged("A", 500, 0, replayed=False),
        charged("B", 700, 1, replayed=False),
    ]
    assert runs.read_text() == "A\nA\nB\n"
    with SqliteLedger(db) as ledger:
        assert [(r.key, r.state, r.attempts) for r in ledger.records()] == [
            ("reply-1:0", "finished", 2),
            ("reply-1:1", "finished", 1),
        ]


def test_sqlite_synchronous_option(tmp_path: Path) -> None:
    with SqliteLedger(tmp_path / "n.db", synchronous="NORMAL") as ledger:
        assert ledger._execute("PRAGMA synchronous")[1] == [(1,)]
    with SqliteLedger(tmp_path / "f.db") as ledger:
        assert ledger._execute("PRAGMA synchronous")[1] == [(2,)]
    with pytest.raises(ValueError, match="synchronous"):
        SqliteLedger(tmp_path / "x.db", synchronous="OFF")  # type: ignore[arg-type]


def test_sqlite_connections_of_finished_threads_are_closed(tmp_path: Path) -> None:
    """A concurrent dispatcher's pool threads come and go; their connections go with them."""
    with SqliteLedger(tmp_path / "t.db") as ledger:
        for n in range(10):
            worker = threading.Thread(target=ledger.get, args=(f"k{n}",))
            worker.start()
            worker.join()
        gc.collect()
        assert len(ledger._all) == 1  # this thread's

"""Ledgers: the record that makes an action run at most once per key.

A ledger holds one row per idempotency key: ``started`` when a dispatcher is
about to run the handler, ``finished`` with the result or the error once it
returned. Before running an action a dispatcher *claims* its key:

* no row yet: the row is written as ``started`` (durably, for
  :class:`SqliteLedger`) and the claim says ``"run"``;
* ``finished``: ``"finished"``, the recorded outcome is reported again;
* ``started`` and still running in this process (another dispatcher, a
  re-render): ``"in_flight"``, with a ``threading.Event`` to wait on;
* ``started`` and not running here: the process that started it died (or another
  process is running it right now): ``"unknown"``, the outcome was never recorded
  and running again could repeat a side effect. With ``rerun_unknown=True`` (an
  idempotent handler) the claim says ``"run"`` again and counts an attempt;
* a row of another action name: ``"conflict"`` (two different actions share a
  key, e.g. two streams with the same ``stream_id``); nothing runs.

:class:`MemoryLedger` lasts as long as the object; :class:`SqliteLedger` survives
restarts (stdlib ``sqlite3``, WAL, ``synchronous=FULL``) and can be shared by
processes on one machine.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Literal

from pydantic_core import to_jsonable_python

__all__ = ["Claim", "ClaimStatus", "Ledger", "MemoryLedger", "Record", "SqliteLedger"]

ClaimStatus = Literal["run", "finished", "in_flight", "unknown", "conflict"]


@dataclass(frozen=True, slots=True)
class Record:
    """One ledger row. ``ok`` is ``None`` while started, then ``True`` (``result``
    holds what the handler returned) or ``False`` (``error`` and ``error_type``)."""

    key: str
    name: str
    action_id: str
    state: Literal["started", "finished"]
    started_at: float
    attempts: int = 1
    ok: bool | None = None
    result: Any = None
    error: str | None = None
    error_type: str | None = None
    finished_at: float | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """What :meth:`Ledger.claim` decided; ``record`` is the row found (``None``
    for a new key), ``wait`` is set for ``"in_flight"``."""

    status: ClaimStatus
    record: Record | None = None
    wait: threading.Event | None = None


# Keys being run right now in this process, per storage scope: a second claim on
# such a key waits for the first instead of calling it a crash.
_IN_FLIGHT: dict[tuple[str, str], threading.Event] = {}
_IN_FLIGHT_LOCK = threading.Lock()


class Ledger(ABC):
    """Base of every ledger: the claim protocol over a small storage interface."""

    def __init__(self, scope: str) -> None:
        self.scope = scope

    def claim(self, key: str, name: str, action_id: str, *, rerun_unknown: bool = False) -> Claim:
        """Claim ``key`` before running the action ``name`` (see the module docs)."""
        with _IN_FLIGHT_LOCK:
            marker = _IN_FLIGHT.get((self.scope, key))
            if marker is not None:
                running = self.get(key)
                if running is not None and running.name != name:
                    return Claim("conflict", running)
                return Claim("in_flight", running, marker)
            now = time.time()
            existing = self._insert(key, name, action_id, now)
            if existing is None:
                _IN_FLIGHT[(self.scope, key)] = threading.Event()
                return Claim("run")
            if existing.name != name:
                return Claim("conflict", existing)
            if existing.state == "finished":
                return Claim("finished", existing)
            if rerun_unknown:
                self._restart(key, name, action_id, now)
                _IN_FLIGHT[(self.scope, key)] = threading.Event()
                return Claim("run", existing)
            return Claim("unknown", existing)

    def finish(
        self,
        key: str,
        *,
        result: Any = None,
        error: str | None = None,
        error_type: str | None = None,
    ) -> None:
        """Record the outcome of a claimed key: a result, or an error when
        ``error_type`` is given; wakes whoever waits on it."""
        self._finish(key, error_type is None, result, error, error_type, time.time())
        self._release(key)

    def cancel(self, key: str) -> None:
        """Give up a claimed key whose handler was never called: its row is
        deleted, so the action can run later."""
        self.forget(key)
        self._release(key)

    def abandon(self, key: str) -> None:
        """Give up a claimed key without an outcome (the handler was cancelled
        mid-run): its row stays ``started``, so later claims see ``"unknown"``."""
        self._release(key)

    def _release(self, key: str) -> None:
        with _IN_FLIGHT_LOCK:
            marker = _IN_FLIGHT.pop((self.scope, key), None)
        if marker is not None:
            marker.set()

    @abstractmethod
    def get(self, key: str) -> Record | None:
        """The row of ``key``, if any."""

    @abstractmethod
    def forget(self, key: str) -> None:
        """Delete the row of ``key`` (after resolving an unknown outcome by hand, or
        to allow a deliberate retry)."""

    @abstractmethod
    def records(self) -> list[Record]:
        """Every row, oldest first."""

    @abstractmethod
    def _insert(self, key: str, name: str, action_id: str, now: float) -> Record | None:
        """Atomically add a ``started`` row; ``None`` if added, else the existing row."""

    @abstractmethod
    def _restart(self, key: str, name: str, action_id: str, now: float) -> None:
        """Count one more attempt of a ``started`` row."""

    @abstractmethod
    def _finish(
        self,
        key: str,
        ok: bool,
        result: Any,
        error: str | None,
        error_type: str | None,
        now: float,
    ) -> None:
        """Mark the row ``finished`` with its outcome."""


class MemoryLedger(Ledger):
    """A ledger in memory, for one process's lifetime: enough against re-renders
    and retries; a finished action replays the very object its handler returned."""

    def __init__(self) -> None:
        super().__init__(f"memory:{uuid.uuid4().hex}")
        self._rows: dict[str, Record] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Record | None:
        with self._lock:
            return self._rows.get(key)

    def forget(self, key: str) -> None:
        with self._lock:
            self._rows.pop(key, None)

    def records(self) -> list[Record]:
        with self._lock:
            return list(self._rows.values())

    def _insert(self, key: str, name: str, action_id: str, now: float) -> Record | None:
        with self._lock:
            existing = self._rows.get(key)
            if existing is None:
                self._rows[key] = Record(key, name, action_id, "started", now)
            return existing

    def _restart(self, key: str, name: str, action_id: str, now: float) -> None:
        with self._lock:
            row = self._rows[key]
            self._rows[key] = replace(
                row, name=name, action_id=action_id, started_at=now, attempts=row.attempts + 1
            )

    def _finish(
        self,
        key: str,
        ok: bool,
        result: Any,
        error: str | None,
        error_type: str | None,
        now: float,
    ) -> None:
        with self._lock:
            row = self._rows[key]
            self._rows[key] = replace(
                row,
                state="finished",
                ok=ok,
                result=result if ok else None,
                error=error,
                error_type=error_type,
                finished_at=now,
            )


_SCHEMA = """
CREATE TABLE IF NOT EXISTS unspool_actions (
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
"""
_COLUMNS = (
    "key, name, action_id, state, started_at, attempts, ok, result, error, error_type, finished_at"
)


class SqliteLedger(Ledger):
    """A durable ledger in an SQLite file (table ``unspool_actions``, one row per
    key, WAL journal). ``started`` is committed before a handler runs, so a crash
    at any point leaves either no row (the action never ran) or a row that says
    what is known. Results are stored as JSON (Pydantic's ``to_jsonable_python``,
    ``repr`` for anything else), so a replay reports the JSON form of the result.
    Safe to share between threads and processes.

    ``synchronous="FULL"`` (default) also survives power loss and OS crashes, at
    the price of an fsync per commit (two per action); ``"NORMAL"`` survives any
    crash of the process itself and is much faster."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
    ) -> None:
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError("synchronous must be 'FULL' or 'NORMAL'")
        location = os.fspath(path)
        if location == ":memory:" or location.startswith("file:"):
            scope = f"sqlite:{location}:{uuid.uuid4().hex}"
        else:
            scope = f"sqlite:{os.path.realpath(location)}"
        super().__init__(scope)
        self.path = location
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            location, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute(_SCHEMA)

    def close(self) -> None:
        """Close the connection (the file stays)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteLedger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def get(self, key: str) -> Record | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM unspool_actions WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else _record(row)

    def forget(self, key: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM unspool_actions WHERE key = ?", (key,))

    def records(self) -> list[Record]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM unspool_actions ORDER BY started_at, rowid"
            ).fetchall()
        return [_record(row) for row in rows]

    def _insert(self, key: str, name: str, action_id: str, now: float) -> Record | None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO unspool_actions"
                    " (key, name, action_id, state, started_at) VALUES (?, ?, ?, 'started', ?)",
                    (key, name, action_id, now),
                )
                row = None
                if cursor.rowcount != 1:
                    row = self._db.execute(
                        f"SELECT {_COLUMNS} FROM unspool_actions WHERE key = ?", (key,)
                    ).fetchone()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return None if row is None else _record(row)

    def _restart(self, key: str, name: str, action_id: str, now: float) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE unspool_actions SET attempts = attempts + 1, name = ?, action_id = ?,"
                " started_at = ? WHERE key = ? AND state = 'started'",
                (name, action_id, now, key),
            )

    def _finish(
        self,
        key: str,
        ok: bool,
        result: Any,
        error: str | None,
        error_type: str | None,
        now: float,
    ) -> None:
        payload = json.dumps(to_jsonable_python(result, fallback=repr)) if ok else None
        with self._lock:
            self._db.execute(
                "UPDATE unspool_actions SET state = 'finished', ok = ?, result = ?, error = ?,"
                " error_type = ?, finished_at = ? WHERE key = ?",
                (int(ok), payload, error, error_type, now, key),
            )


def _record(row: tuple[Any, ...]) -> Record:
    key, name, action_id, state, started_at, attempts, ok, result, error, error_type, done = row
    return Record(
        key=key,
        name=name,
        action_id=action_id,
        state=state,
        started_at=started_at,
        attempts=attempts,
        ok=None if ok is None else bool(ok),
        result=None if result is None else json.loads(result),
        error=error,
        error_type=error_type,
        finished_at=done,
    )

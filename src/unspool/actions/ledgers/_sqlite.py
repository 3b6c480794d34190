""":class:`SqliteLedger`: a durable ledger in an SQLite file (stdlib ``sqlite3``)."""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Literal

from unspool.actions.ledgers._base import Ledger, Record, RowState
from unspool.actions.ledgers._codec import to_text
from unspool.actions.ledgers._rows import COLUMNS, from_row, to_row

__all__ = ["SqliteLedger"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS {table} (
    key         TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    action_id   TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('claimed', 'started', 'finished')),
    attempts    INTEGER NOT NULL DEFAULT 1,
    ok          INTEGER,
    result      TEXT,
    error       TEXT,
    error_type  TEXT,
    started_at  REAL NOT NULL,
    finished_at REAL,
    fingerprint TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT '',
    token       TEXT NOT NULL DEFAULT '',
    lease_until REAL DEFAULT 0
)
"""
"""The table (``{table}``: ``unspool_actions``). A file written by an earlier version
is migrated when opened: it gains the last four columns, and a table whose states
were only ``started`` and ``finished`` is rebuilt to take ``claimed`` (rows keep
their values: a ``started`` row stays started, its handler may have begun)."""

_ADDED = {
    "fingerprint": "TEXT NOT NULL DEFAULT ''",
    "summary": "TEXT NOT NULL DEFAULT ''",
    "token": "TEXT NOT NULL DEFAULT ''",
    "lease_until": "REAL DEFAULT 0",  # rows started before leases existed count as expired
}
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM unspool_actions"
_INSERT = (
    f"INSERT OR IGNORE INTO unspool_actions ({', '.join(COLUMNS)})"
    f" VALUES ({', '.join('?' for _ in COLUMNS)})"
)
_SETS = (
    "UPDATE unspool_actions SET name = ?, action_id = ?, state = ?, started_at = ?,"
    " attempts = ?, ok = ?, result = ?, error = ?, error_type = ?, finished_at = ?,"
    " fingerprint = ?, summary = ?, token = ?, lease_until = ?"
)
_TAKE_OVER = f"{_SETS} WHERE key = ? AND token = ? AND state = ?"
_OUTCOME = f"{_SETS} WHERE key = ? AND token = ? AND state != 'finished'"
_RENEW = (
    "UPDATE unspool_actions SET lease_until = ? WHERE key = ? AND token = ? AND state != 'finished'"
)


class _Conn:
    """A thread's connection; it is closed when the thread's locals are dropped, or by
    :meth:`SqliteLedger.close`, which takes ``lock`` first: a connection is never closed
    while a statement runs on it (another thread's, such as an async heartbeat's)."""

    __slots__ = ("__weakref__", "closed", "db", "lock")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.lock = threading.RLock()
        self.closed = False


class SqliteLedger(Ledger):
    """A durable ledger in an SQLite file (table ``unspool_actions``, one row per
    key, WAL journal), shared by the threads and processes of one machine.

    ``started`` is committed before a handler runs, so a crash at any point leaves
    either no row (the action never ran) or a row that says what is known. Results
    are stored as JSON text (Pydantic's encoder), so a replay reports the JSON form
    of the result. Each thread uses its own connection: no lock of this process is
    held while SQLite waits for another writer (``timeout`` seconds at most).

    ``synchronous="FULL"`` (default) also survives power loss and OS crashes, at
    the price of an fsync per commit (two per action); ``"NORMAL"`` survives any
    crash of the process itself and is much faster. ``lease`` and ``wait``: see
    :class:`~unspool.actions.ledgers._base.Ledger`."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
        lease: float = 30.0,
        wait: float = 30.0,
    ) -> None:
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError("synchronous must be 'FULL' or 'NORMAL'")
        location = os.fspath(path)
        if location == ":memory:" or location.startswith("file:"):
            raise ValueError("SqliteLedger needs a file path (use MemoryLedger in memory)")
        super().__init__(f"sqlite:{os.path.realpath(location)}", lease=lease, wait=wait)
        self.path = location
        self.timeout = timeout
        self.synchronous = synchronous
        self._local = threading.local()
        self._all: weakref.WeakSet[_Conn] = weakref.WeakSet()
        self._all_lock = threading.Lock()
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            if not _current(db):  # (a file in use needs no write lock to be opened)
                db.execute("BEGIN IMMEDIATE")  # processes opening an old file migrate it once
                try:
                    _migrate(db)
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, held while it is used (closed when the thread ends,
        or by :meth:`close`, which waits until no statement runs on it)."""
        while True:
            held = self._held()
            with held.lock:
                if not held.closed:
                    yield held.db
                    return
            self._local.conn = None  # closed by close() meanwhile: open another

    def _held(self) -> _Conn:
        held: _Conn | None = getattr(self._local, "conn", None)
        if held is None:
            db = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            db.execute(f"PRAGMA synchronous={self.synchronous}")
            held = _Conn(db)
            weakref.finalize(held, db.close)
            self._local.conn = held
            with self._all_lock:
                self._all.add(held)
        return held

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> tuple[int, list[Any]]:
        """One statement on this thread's connection: the rows it changed and the rows it
        read, all read before the connection is let go."""
        with self._db() as db:
            cursor = db.execute(sql, params)
            return cursor.rowcount, cursor.fetchall()

    def close(self) -> None:
        """Close every connection (the file stays), each once no statement runs on it."""
        self._stop_heartbeats()  # claims still held are given up
        with self._all_lock:
            conns, self._all = list(self._all), weakref.WeakSet()
        self._local = threading.local()
        for held in conns:
            with held.lock:
                held.closed = True
                held.db.close()

    def __enter__(self) -> SqliteLedger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def insert_started(self, row: Record) -> Record | None:
        values = to_row(row)
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                added = db.execute(_INSERT, values).rowcount == 1
                found = (
                    None
                    if added
                    else db.execute(f"{_SELECT} WHERE key = ?", (values[0],)).fetchone()
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return None if found is None else from_row(found)

    def take_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        values = to_row(row)
        changed, _ = self._execute(_TAKE_OVER, (*values[1:], values[0], token, state))
        return changed == 1

    def write_outcome(self, row: Record) -> bool:
        values = to_row(row)
        changed, _ = self._execute(_OUTCOME, (*values[1:], values[0], row.token))
        return changed == 1

    def mark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        changed, _ = self._execute(
            "UPDATE unspool_actions SET state = 'started', lease_until = ?"
            " WHERE key = ? AND token = ? AND state = 'claimed'",
            (lease_until, to_text(key), token),
        )
        return changed == 1

    def renew_lease(self, key: str, token: str, lease_until: float) -> bool:
        changed, _ = self._execute(_RENEW, (lease_until, to_text(key), token))
        return changed == 1

    def renew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        kept: set[str] = set()
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")  # one write transaction (one sync) for them all
            try:
                for key, token in held:
                    if db.execute(_RENEW, (lease_until, to_text(key), token)).rowcount == 1:
                        kept.add(token)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return kept

    def delete_claim(self, key: str, token: str) -> bool:
        changed, _ = self._execute(
            "DELETE FROM unspool_actions WHERE key = ? AND token = ? AND state != 'finished'",
            (to_text(key), token),
        )
        return changed == 1

    def get(self, key: str) -> Record | None:
        _, rows = self._execute(f"{_SELECT} WHERE key = ?", (to_text(key),))
        return from_row(rows[0]) if rows else None

    def forget(self, key: str) -> None:
        self._execute("DELETE FROM unspool_actions WHERE key = ?", (to_text(key),))

    def records(self) -> list[Record]:
        _, rows = self._execute(f"{_SELECT} ORDER BY rowid")
        return [from_row(row) for row in rows]

    def purge_before(self, finished_before: float) -> int:
        changed, _ = self._execute(
            "DELETE FROM unspool_actions WHERE state = 'finished' AND finished_at < ?",
            (finished_before,),
        )
        return changed


def _table_sql(db: sqlite3.Connection) -> str | None:
    found = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'unspool_actions'"
    ).fetchone()
    return None if found is None else str(found[0])


def _current(db: sqlite3.Connection) -> bool:
    """Whether the file's table is already as :data:`SCHEMA` says (read only)."""
    sql = _table_sql(db)
    if sql is None or "'claimed'" not in sql:
        return False
    have = {row[1] for row in db.execute("PRAGMA table_info(unspool_actions)")}
    return all(column in have for column in _ADDED)


def _migrate(db: sqlite3.Connection) -> None:
    """Create the table, or bring one of an earlier version up to :data:`SCHEMA`
    (inside the caller's write transaction)."""
    db.execute(SCHEMA.format(table="unspool_actions"))
    have = {row[1] for row in db.execute("PRAGMA table_info(unspool_actions)")}
    for column, decl in _ADDED.items():
        if column not in have:
            db.execute(f"ALTER TABLE unspool_actions ADD COLUMN {column} {decl}")
    if "'claimed'" in (_table_sql(db) or ""):
        return
    # a CHECK cannot be altered in SQLite: copy the rows into a new table, in order
    columns = ", ".join(COLUMNS)
    db.execute("DROP TABLE IF EXISTS unspool_actions_migrating")
    db.execute(SCHEMA.format(table="unspool_actions_migrating"))
    db.execute(
        f"INSERT INTO unspool_actions_migrating (rowid, {columns})"
        f" SELECT rowid, {columns} FROM unspool_actions"
    )
    db.execute("DROP TABLE unspool_actions")
    db.execute("ALTER TABLE unspool_actions_migrating RENAME TO unspool_actions")

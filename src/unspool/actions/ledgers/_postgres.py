""":class:`PostgresLedger`: a ledger shared by every worker on every machine, in
PostgreSQL (extra ``unspool[postgres]``: psycopg 3 and its pool).

The table is created on first use (``CREATE TABLE IF NOT EXISTS``, under an advisory
lock so that workers starting together do not race); its SQL is :data:`SCHEMA`. A
table of an earlier version, whose states were only ``started`` and ``finished``,
has its ``CHECK`` replaced then, to take ``claimed`` too (its rows stay as they are).
Every operation is one short transaction, committed before the method returns:

* claim: ``INSERT ... ON CONFLICT (key) DO NOTHING``, then the row found if any;
* take over, start, heartbeat, outcome, cancel: one ``UPDATE`` / ``DELETE`` guarded
  by the claim's token (and the state it expects: compare-and-set), so a worker
  whose lease expired and was taken over can never overwrite the new holder's row;
  a heartbeat renews all of a worker's claims in one ``UPDATE``.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from unspool._extras import needs_extra
from unspool.actions.ledgers._base import Ledger, LedgerError, Record, RowState
from unspool.actions.ledgers._codec import to_text
from unspool.actions.ledgers._rows import COLUMNS, from_row, to_row

with needs_extra("postgres", "PostgresLedger"):
    import psycopg
    from psycopg import pq
    from psycopg_pool import AsyncConnectionPool, ConnectionPool

__all__ = ["SCHEMA", "PostgresLedger"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS {table} (
    key         text PRIMARY KEY,
    name        text NOT NULL,
    action_id   text NOT NULL,
    state       text NOT NULL CHECK (state IN ('claimed', 'started', 'finished')),
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
"""The table's SQL (``{table}``: the quoted table name). Text the database cannot
hold (NUL, lone surrogates) is stored escaped; results are JSON text."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


def _quoted(table: str) -> str:
    parts = table.split(".")
    if len(parts) > 2 or not all(_NAME.fullmatch(p) for p in parts):
        raise ValueError(
            f"table must be a name of letters, digits and '_' (optionally schema.name), "
            f"not {table!r}"
        )
    return ".".join(f'"{p}"' for p in parts)


class _Sql:
    """The statements, for one table."""

    def __init__(self, table: str) -> None:
        t = _quoted(table)
        cols = ", ".join(COLUMNS)
        self.schema = SCHEMA.format(table=t)
        self.lock = "SELECT pg_advisory_xact_lock(hashtext(%s))"
        # the CHECKs on state of an earlier version (no 'claimed'), to replace
        self.old_checks = (
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass"
            " AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%%state%%'"
            " AND pg_get_constraintdef(oid) NOT LIKE '%%claimed%%'"
        )
        self.drop_check = f"ALTER TABLE {t} DROP CONSTRAINT " + "{}"
        self.add_check = f"ALTER TABLE {t} ADD CHECK (state IN ('claimed', 'started', 'finished'))"
        self.quoted = t
        self.insert = (
            f"INSERT INTO {t} ({cols}) VALUES ({', '.join('%s' for _ in COLUMNS)})"
            " ON CONFLICT (key) DO NOTHING"
        )
        self.select = f"SELECT {cols} FROM {t} WHERE key = %s"
        sets = ", ".join(f"{c} = %s" for c in COLUMNS[1:])
        self.take_over = f"UPDATE {t} SET {sets} WHERE key = %s AND token = %s AND state = %s"
        # by token alone: writing the same outcome again (a retried call) is harmless
        self.outcome = f"UPDATE {t} SET {sets} WHERE key = %s AND token = %s"
        self.mark_started = (
            f"UPDATE {t} SET state = 'started', lease_until = %s"
            " WHERE key = %s AND token = %s AND state = 'claimed'"
        )
        self.renew = (
            f"UPDATE {t} SET lease_until = %s WHERE key = %s AND token = %s AND state <> 'finished'"
        )
        self.renew_many = (
            f"UPDATE {t} AS r SET lease_until = %s"
            " FROM unnest(%s::text[], %s::text[]) AS h(k, tok)"
            " WHERE r.key = h.k AND r.token = h.tok AND r.state <> 'finished' RETURNING r.token"
        )
        self.delete_claim = f"DELETE FROM {t} WHERE key = %s AND token = %s AND state <> 'finished'"
        self.forget = f"DELETE FROM {t} WHERE key = %s"
        self.records = f"SELECT {cols} FROM {t} ORDER BY started_at, key"
        self.purge = f"DELETE FROM {t} WHERE state = 'finished' AND finished_at < %s"


class PostgresLedger(Ledger):
    """A ledger in a PostgreSQL table, shared by processes and machines.

    Give one of: ``dsn`` (a pool of up to ``pool_size`` connections is opened on first
    use, a sync one for :meth:`claim`... and an async one for :meth:`aclaim`...; a
    connection that was cut is replaced), ``pool`` (a ``psycopg_pool.ConnectionPool``
    or ``AsyncConnectionPool`` of yours), or ``connection`` (a ``psycopg.Connection``
    or ``AsyncConnection`` of yours, used by one operation at a time, best in
    autocommit mode; a cut connection is not replaced: every later operation
    reports ``ledger_error``). A caller's pool or connection serves only its own
    kind of call (sync or async).

    ``table`` may be schema-qualified. ``timeout`` bounds the wait for a pooled
    connection. An outcome is committed before the dispatcher hands on its event.
    ``lease`` and ``wait``: see :class:`~unspool.actions.ledgers._base.Ledger`.
    """

    def __init__(
        self,
        dsn: str | None = None,
        *,
        pool: ConnectionPool[Any] | AsyncConnectionPool[Any] | None = None,
        connection: psycopg.Connection[Any] | psycopg.AsyncConnection[Any] | None = None,
        table: str = "unspool_actions",
        pool_size: int = 4,
        timeout: float = 10.0,
        lease: float = 30.0,
        wait: float = 30.0,
    ) -> None:
        if sum(x is not None for x in (dsn, pool, connection)) != 1:
            raise TypeError("give exactly one of dsn, pool or connection")
        self._sql = _Sql(table)
        super().__init__(
            f"postgres:{dsn or id(pool or connection)}:{table}", lease=lease, wait=wait
        )
        self.dsn = dsn
        self.table = table
        self.pool_size = pool_size
        self.timeout = timeout
        self._pool = pool if isinstance(pool, ConnectionPool) else None
        self._apool = pool if isinstance(pool, AsyncConnectionPool) else None
        self._conn = connection if isinstance(connection, psycopg.Connection) else None
        self._aconn = connection if isinstance(connection, psycopg.AsyncConnection) else None
        self._lock = threading.Lock()  # this ledger's sync setup, and a caller's connection
        self._alock: asyncio.Lock | None = None
        self._ready = False

    # connections ----------------------------------------------------------------------

    def _kwargs(self) -> dict[str, Any]:
        return {"autocommit": True, "connect_timeout": max(1, round(self.timeout))}

    @contextmanager
    def _connect(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for one sync operation (the table created first)."""
        if self._conn is not None:
            with self._lock:
                self._idle(self._conn)
                self._setup(self._conn)
                yield self._conn
            return
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    if self.dsn is None:
                        raise LedgerError(
                            "this PostgresLedger was given an async pool or connection"
                        )
                    self._pool = ConnectionPool(
                        self.dsn,
                        min_size=1,
                        max_size=self.pool_size,
                        kwargs=self._kwargs(),
                        check=ConnectionPool.check_connection,
                        timeout=self.timeout,
                        name="unspool-ledger",
                        open=True,
                    )
        with self._pool.connection() as conn:
            if not self._ready:
                self._setup(conn)
            yield conn

    def _setup(self, conn: psycopg.Connection[Any]) -> None:
        if self._ready:
            return
        with conn.transaction():
            conn.execute(self._sql.lock, (self.table,))
            conn.execute(self._sql.schema)
            old = conn.execute(self._sql.old_checks, (self._sql.quoted,)).fetchall()
            for (name,) in old:
                conn.execute(self._sql.drop_check.format(_ident(name)))
            if old:
                conn.execute(self._sql.add_check)
        self._ready = True

    @asynccontextmanager
    async def _aconnect(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A connection for one async operation (the table created first)."""
        if self._alock is None:
            self._alock = asyncio.Lock()
        if self._aconn is not None:
            async with self._alock:
                self._idle(self._aconn)
                await self._asetup(self._aconn)
                yield self._aconn
            return
        if self._apool is None:
            async with self._alock:
                if self._apool is None:
                    if self.dsn is None:
                        raise LedgerError("this PostgresLedger was given a sync pool or connection")
                    apool: AsyncConnectionPool[Any] = AsyncConnectionPool(
                        self.dsn,
                        min_size=1,
                        max_size=self.pool_size,
                        kwargs=self._kwargs(),
                        check=AsyncConnectionPool.check_connection,
                        timeout=self.timeout,
                        name="unspool-ledger-async",
                        open=False,
                    )
                    await apool.open()
                    self._apool = apool
        async with self._apool.connection() as conn:
            if not self._ready:
                await self._asetup(conn)
            yield conn

    async def _asetup(self, conn: psycopg.AsyncConnection[Any]) -> None:
        if self._ready:
            return
        async with conn.transaction():
            await conn.execute(self._sql.lock, (self.table,))
            await conn.execute(self._sql.schema)
            cursor = await conn.execute(self._sql.old_checks, (self._sql.quoted,))
            old = await cursor.fetchall()
            for (name,) in old:
                await conn.execute(self._sql.drop_check.format(_ident(name)))
            if old:
                await conn.execute(self._sql.add_check)
        self._ready = True

    @staticmethod
    def _idle(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> None:
        """A caller's connection inside a transaction would delay our commits: refuse."""
        status = conn.info.transaction_status
        if status != pq.TransactionStatus.IDLE:
            raise LedgerError(
                f"the ledger's connection is not idle ({status.name}): outcomes could not be "
                "committed before they are reported; use autocommit or a connection of its own"
            )

    def close(self) -> None:
        """Close the pools this ledger opened (a caller's pool or connection stays open)."""
        self._stop_heartbeats()  # claims still held are given up
        if self.dsn is not None and self._pool is not None:
            self._pool.close()
            self._pool = None

    async def aclose(self) -> None:
        """Close the pools this ledger opened, the async one included."""
        self.close()
        if self.dsn is not None and self._apool is not None:
            await self._apool.close()
            self._apool = None

    # the storage interface, sync ------------------------------------------------------

    def insert_started(self, row: Record) -> Record | None:
        values = to_row(row)
        with self._connect() as conn, conn.transaction():
            while True:
                if conn.execute(self._sql.insert, values).rowcount == 1:
                    return None
                found = conn.execute(self._sql.select, (values[0],)).fetchone()
                if found is not None:  # else deleted meanwhile: insert again
                    return from_row(found)

    def take_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        values = to_row(row)
        args = (*values[1:], values[0], token, state)
        with self._connect() as conn, conn.transaction():
            return conn.execute(self._sql.take_over, args).rowcount == 1

    def mark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        with self._connect() as conn, conn.transaction():
            cursor = conn.execute(self._sql.mark_started, (lease_until, to_text(key), token))
            return cursor.rowcount == 1

    def write_outcome(self, row: Record) -> bool:
        values = to_row(row)
        with self._connect() as conn, conn.transaction():
            return (
                conn.execute(self._sql.outcome, (*values[1:], values[0], row.token)).rowcount == 1
            )

    def renew_lease(self, key: str, token: str, lease_until: float) -> bool:
        with self._connect() as conn, conn.transaction():
            cursor = conn.execute(self._sql.renew, (lease_until, to_text(key), token))
            return cursor.rowcount == 1

    def renew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        keys, tokens = [to_text(k) for k, _ in held], [t for _, t in held]
        with self._connect() as conn, conn.transaction():
            rows = conn.execute(self._sql.renew_many, (lease_until, keys, tokens)).fetchall()
        return {token for (token,) in rows}

    def delete_claim(self, key: str, token: str) -> bool:
        with self._connect() as conn, conn.transaction():
            return conn.execute(self._sql.delete_claim, (to_text(key), token)).rowcount == 1

    def get(self, key: str) -> Record | None:
        with self._connect() as conn, conn.transaction():
            found = conn.execute(self._sql.select, (to_text(key),)).fetchone()
        return None if found is None else from_row(found)

    def forget(self, key: str) -> None:
        with self._connect() as conn, conn.transaction():
            conn.execute(self._sql.forget, (to_text(key),))

    def records(self) -> list[Record]:
        with self._connect() as conn, conn.transaction():
            rows = conn.execute(self._sql.records).fetchall()
        return [from_row(r) for r in rows]

    def purge_before(self, finished_before: float) -> int:
        with self._connect() as conn, conn.transaction():
            return conn.execute(self._sql.purge, (finished_before,)).rowcount

    # the storage interface, async -----------------------------------------------------

    async def ainsert_started(self, row: Record) -> Record | None:
        values = to_row(row)
        async with self._aconnect() as conn, conn.transaction():
            while True:
                if (await conn.execute(self._sql.insert, values)).rowcount == 1:
                    return None
                found = await (await conn.execute(self._sql.select, (values[0],))).fetchone()
                if found is not None:
                    return from_row(found)

    async def atake_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        values = to_row(row)
        args = (*values[1:], values[0], token, state)
        async with self._aconnect() as conn, conn.transaction():
            return (await conn.execute(self._sql.take_over, args)).rowcount == 1

    async def amark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        args = (lease_until, to_text(key), token)
        async with self._aconnect() as conn, conn.transaction():
            return (await conn.execute(self._sql.mark_started, args)).rowcount == 1

    async def awrite_outcome(self, row: Record) -> bool:
        values = to_row(row)
        async with self._aconnect() as conn, conn.transaction():
            cursor = await conn.execute(self._sql.outcome, (*values[1:], values[0], row.token))
            return cursor.rowcount == 1

    async def arenew_lease(self, key: str, token: str, lease_until: float) -> bool:
        async with self._aconnect() as conn, conn.transaction():
            cursor = await conn.execute(self._sql.renew, (lease_until, to_text(key), token))
            return cursor.rowcount == 1

    async def arenew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        keys, tokens = [to_text(k) for k, _ in held], [t for _, t in held]
        async with self._aconnect() as conn, conn.transaction():
            cursor = await conn.execute(self._sql.renew_many, (lease_until, keys, tokens))
            return {token for (token,) in await cursor.fetchall()}

    async def adelete_claim(self, key: str, token: str) -> bool:
        async with self._aconnect() as conn, conn.transaction():
            cursor = await conn.execute(self._sql.delete_claim, (to_text(key), token))
            return cursor.rowcount == 1

    async def aget(self, key: str) -> Record | None:
        async with self._aconnect() as conn, conn.transaction():
            found = await (await conn.execute(self._sql.select, (to_text(key),))).fetchone()
        return None if found is None else from_row(found)

    async def arecords(self) -> list[Record]:
        async with self._aconnect() as conn, conn.transaction():
            rows = await (await conn.execute(self._sql.records)).fetchall()
        return [from_row(r) for r in rows]

    async def apurge_before(self, finished_before: float) -> int:
        async with self._aconnect() as conn, conn.transaction():
            return (await conn.execute(self._sql.purge, (finished_before,))).rowcount


def _ident(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'

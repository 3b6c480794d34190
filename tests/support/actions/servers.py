"""The PostgreSQL and Redis servers the shared-ledger tests use, and ledgers on them.

Addresses come from ``UNSPOOL_TEST_POSTGRES`` / ``UNSPOOL_TEST_REDIS`` (defaults:
127.0.0.1 with trust authentication, database ``test``). A server that cannot be
reached skips its tests with a message naming the variable, except under
``CI=true``, where they fail. Every ledger gets a table or key prefix of its own,
so parallel test workers never share rows.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from unspool.actions.ledgers import Ledger, MemoryLedger, SqliteLedger

POSTGRES_VAR = "UNSPOOL_TEST_POSTGRES"
REDIS_VAR = "UNSPOOL_TEST_REDIS"
DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
KINDS = ("memory", "sqlite", "postgres", "redis")


def _unreachable(var: str, address: str, problem: str) -> None:
    msg = f"{address} is not reachable ({problem}); set {var} to the server's address"
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


@functools.cache
def _postgres_problem(dsn: str) -> str | None:
    try:
        import psycopg

        psycopg.connect(dsn, connect_timeout=3).close()
    except Exception as exc:  # not installed, refused, no such database...
        return f"{type(exc).__name__}: {exc}".strip()
    return None


@functools.cache
def _redis_problem(url: str) -> str | None:
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=3)
        client.ping()
        client.close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()
    return None


def postgres_dsn() -> str:
    """The test server's DSN, or skip (fail under CI)."""
    dsn = os.environ.get(POSTGRES_VAR, DEFAULT_POSTGRES)
    problem = _postgres_problem(dsn)
    if problem:
        _unreachable(POSTGRES_VAR, dsn, problem)
    return dsn


def redis_url() -> str:
    """The test server's URL, or skip (fail under CI)."""
    url = os.environ.get(REDIS_VAR, DEFAULT_REDIS)
    problem = _redis_problem(url)
    if problem:
        _unreachable(REDIS_VAR, url, problem)
    return url


def unique() -> str:
    return uuid.uuid4().hex[:12]


def spec(kind: str, tmp_path: Path) -> dict[str, str]:
    """Where a fresh ledger of ``kind`` lives, as JSON-ready data (for worker processes)."""
    if kind == "sqlite":
        return {"kind": kind, "path": str(tmp_path / f"ledger-{unique()}.db")}
    if kind == "postgres":
        return {"kind": kind, "dsn": postgres_dsn(), "table": f"unspool_test_{unique()}"}
    if kind == "redis":
        return {"kind": kind, "url": redis_url(), "prefix": f"unspool-test:{unique()}:"}
    return {"kind": kind}


def open_ledger(where: dict[str, str], **options: Any) -> Ledger:
    """The ledger described by :func:`spec`."""
    kind = where["kind"]
    if kind == "sqlite":
        return SqliteLedger(where["path"], **options)
    if kind == "postgres":
        from unspool.actions.ledgers._postgres import PostgresLedger

        return PostgresLedger(where["dsn"], table=where["table"], **options)
    if kind == "redis":
        from unspool.actions.ledgers._redis import RedisLedger

        return RedisLedger(where["url"], prefix=where["prefix"], **options)
    return MemoryLedger(**options)


def drop(where: dict[str, str]) -> None:
    """Remove what a test's ledger left on the server."""
    if where["kind"] == "postgres":
        import psycopg

        with psycopg.connect(where["dsn"], autocommit=True) as conn:
            conn.execute(f'DROP TABLE IF EXISTS "{where["table"]}"')
    elif where["kind"] == "redis":
        import redis

        client = redis.Redis.from_url(where["url"])
        keys = list(client.scan_iter(match=where["prefix"] + "*"))
        if keys:
            client.delete(*keys)
        client.close()


def close(ledger: Ledger) -> None:
    closer = getattr(ledger, "close", None)
    if closer is not None:
        closer()


@contextmanager
def ledger_of(kind: str, tmp_path: Path, **options: Any) -> Iterator[Ledger]:
    """A fresh ledger of ``kind``, removed afterwards."""
    where = spec(kind, tmp_path)
    ledger = open_ledger(where, **options)
    try:
        yield ledger
    finally:
        close(ledger)
        drop(where)

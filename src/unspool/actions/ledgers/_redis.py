""":class:`RedisLedger`: a ledger shared by every worker on every machine, in Redis
(extra ``unspool[redis]``: redis-py, sync and asyncio).

One hash per key (``{prefix}{key}``, the fields of a :class:`Record`). Every change
is one Lua script, atomic on the server: the claim adds the hash only when the key
has none (else returns it), and take-over, start, heartbeat, outcome and cancel
compare the claim's token (and the state expected) first, so a worker whose lease
expired and was taken over never overwrites the new holder's row. A heartbeat sends
the renewals of all of a worker's claims in one pipeline. Hashes written by earlier
versions read as they are (their ``started`` rows stay started).

Durability is Redis's: an outcome is in the server's memory when the event is
handed on; it reaches the disk per the server's persistence settings
(``appendonly yes`` with ``appendfsync always``: every write; ``everysec``: up to
a second may be lost on a crash of the server's machine; snapshots only: the
writes since the last snapshot). A lost ``started`` row lets the action run
again; a lost outcome after it ran makes it run again too: choose the settings
for what a repeat would cost, or use :class:`PostgresLedger`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unspool._extras import needs_extra
from unspool.actions.ledgers._base import Ledger, Record, RowState
from unspool.actions.ledgers._codec import to_text
from unspool.actions.ledgers._rows import COLUMNS, from_row, to_row

with needs_extra("redis", "RedisLedger"):
    import redis
    import redis.asyncio

__all__ = ["RedisLedger"]

_INSERT = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return false
"""
# ARGV: expected token, expected state ('': any), ttl in ms (0: none), fields
_SWAP = """
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'state') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
"""
_START = """
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'state') ~= 'claimed' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'started')
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'lease_until')
else redis.call('HSET', KEYS[1], 'lease_until', ARGV[2]) end
return 1
"""
_RENEW = """
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'state') == 'finished' then return 0 end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[2])
return 1
"""
_DELETE = """
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'state') == 'finished' then return 0 end
return redis.call('DEL', KEYS[1])
"""
_PURGE = """
if redis.call('HGET', KEYS[1], 'state') ~= 'finished' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'finished_at')) >= tonumber(ARGV[1]) then return 0 end
return redis.call('DEL', KEYS[1])
"""


def _fields(row: Record) -> list[str]:
    """The hash's field/value pairs, flattened; ``None`` values are left out."""
    out: list[str] = []
    for column, value in zip(COLUMNS, to_row(row), strict=True):
        if value is None:
            continue
        out.append(column)
        if isinstance(value, bool):
            out.append("1" if value else "0")
        elif isinstance(value, float):
            out.append(repr(value))
        else:
            out.append(str(value))
    return out


def _record(flat: list[Any] | dict[Any, Any]) -> Record:
    """The :class:`Record` of a hash (``HGETALL``: a flat list from a script, a dict
    from the client)."""
    items = flat.items() if isinstance(flat, dict) else zip(flat[::2], flat[1::2], strict=True)
    pairs: list[tuple[Any, Any]] = list(items)
    found = {_str(k): _str(v) for k, v in pairs}
    values: list[Any] = [found.get(column) for column in COLUMNS]
    ok = found.get("ok")
    values[COLUMNS.index("ok")] = None if ok is None else ok == "1"
    return from_row(values)


def _str(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _glob(text: str) -> str:
    """``text`` with the characters of a SCAN pattern escaped."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class RedisLedger(Ledger):
    """A ledger in Redis, shared by processes and machines.

    Give ``url`` (clients are made on first use: ``redis.Redis`` for :meth:`claim`...,
    ``redis.asyncio.Redis`` for :meth:`aclaim`...; redis-py reconnects a cut
    connection on its next command) or ``client`` (a ``redis.Redis`` or
    ``redis.asyncio.Redis`` of yours; it serves only its own kind of call). Keys
    are ``prefix`` plus the idempotency key. ``retention`` (seconds) lets Redis
    expire finished rows by itself; :meth:`purge` does it by hand (a ``SCAN`` of
    the prefix). ``lease`` and ``wait``: see :class:`~unspool.actions.ledgers._base.Ledger`.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        client: redis.Redis | redis.asyncio.Redis | None = None,
        prefix: str = "unspool:actions:",
        retention: float | None = None,
        lease: float = 30.0,
        wait: float = 30.0,
    ) -> None:
        if (url is None) == (client is None):
            raise TypeError("give exactly one of url or client")
        if retention is not None and retention <= 0:
            raise ValueError("retention must be > 0 seconds (or None)")
        super().__init__(f"redis:{url or id(client)}:{prefix}", lease=lease, wait=wait)
        self.url = url
        self.prefix = prefix
        self.retention = retention
        self._client = client if isinstance(client, redis.Redis) else None
        self._aclient = client if isinstance(client, redis.asyncio.Redis) else None
        self._scripts: dict[str, Any] = {}
        self._ascripts: dict[str, Any] = {}

    def _sync(self) -> redis.Redis:
        if self._client is None:
            if self.url is None:
                raise TypeError("this RedisLedger was given an asyncio client")
            self._client = redis.Redis.from_url(self.url)
        return self._client

    def _async(self) -> redis.asyncio.Redis:
        if self._aclient is None:
            if self.url is None:
                raise TypeError("this RedisLedger was given a sync client")
            self._aclient = redis.asyncio.Redis.from_url(self.url)
        return self._aclient

    def _script(self, source: str) -> Any:
        script = self._scripts.get(source)
        if script is None:
            script = self._scripts[source] = self._sync().register_script(source)
        return script

    def _ascript(self, source: str) -> Any:
        script = self._ascripts.get(source)
        if script is None:
            script = self._ascripts[source] = self._async().register_script(source)
        return script

    def _key(self, key: str) -> str:
        return self.prefix + to_text(key)

    def _ttl(self, row: Record) -> str:
        finished = row.state == "finished" and self.retention is not None
        return str(round(self.retention * 1000)) if finished and self.retention else "0"

    def close(self) -> None:
        """Close the sync client this ledger made."""
        self._stop_heartbeats()  # claims still held are given up
        if self.url is not None and self._client is not None:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        """Close the clients this ledger made."""
        self.close()
        if self.url is not None and self._aclient is not None:
            await self._aclient.aclose()
            self._aclient = None

    # the storage interface, sync ------------------------------------------------------

    def insert_started(self, row: Record) -> Record | None:
        found = self._script(_INSERT)(keys=[self._key(row.key)], args=_fields(row))
        return None if found is None else _record(found)

    def take_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        args = [token, state, "0", *_fields(row)]
        return bool(self._script(_SWAP)(keys=[self._key(row.key)], args=args))

    def write_outcome(self, row: Record) -> bool:
        # by token alone: writing the same outcome again (a retried call) is harmless
        args = [row.token, "", self._ttl(row), *_fields(row)]
        return bool(self._script(_SWAP)(keys=[self._key(row.key)], args=args))

    def mark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        args = [token, "" if lease_until is None else repr(lease_until)]
        return bool(self._script(_START)(keys=[self._key(key)], args=args))

    def renew_lease(self, key: str, token: str, lease_until: float) -> bool:
        args = [token, repr(lease_until)]
        return bool(self._script(_RENEW)(keys=[self._key(key)], args=args))

    def renew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        renew, until = self._script(_RENEW), repr(lease_until)
        pipe = self._sync().pipeline(transaction=False)
        for key, token in held:
            renew(keys=[self._key(key)], args=[token, until], client=pipe)
        done = pipe.execute()
        return {token for (_, token), ok in zip(held, done, strict=True) if ok}

    def settle_answer(self, token: str, row: Record) -> bool:
        """An answer's row, as ``take_over`` writes it, kept for ``retention`` once finished."""
        args = [token, "started", self._ttl(row), *_fields(row)]
        return bool(self._script(_SWAP)(keys=[self._key(row.key)], args=args))

    def delete_claim(self, key: str, token: str) -> bool:
        return bool(self._script(_DELETE)(keys=[self._key(key)], args=[token]))

    def get(self, key: str) -> Record | None:
        found = self._sync().hgetall(self._key(key))
        return _record(found) if found else None

    def forget(self, key: str) -> None:
        self._sync().delete(self._key(key))

    def _keys(self) -> list[bytes]:
        return list(self._sync().scan_iter(match=_glob(self.prefix) + "*", count=1000))

    def records(self) -> list[Record]:
        client = self._sync()
        pipe = client.pipeline(transaction=False)
        for key in self._keys():
            pipe.hgetall(key)
        rows = [_record(found) for found in pipe.execute() if found]
        return sorted(rows, key=lambda r: (r.started_at, r.key))

    def purge_before(self, finished_before: float) -> int:
        purge = self._script(_PURGE)
        return sum(purge(keys=[k], args=[repr(finished_before)]) for k in self._keys())

    # the storage interface, async -----------------------------------------------------

    async def ainsert_started(self, row: Record) -> Record | None:
        found = await self._ascript(_INSERT)(keys=[self._key(row.key)], args=_fields(row))
        return None if found is None else _record(found)

    async def atake_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        args = [token, state, "0", *_fields(row)]
        return bool(await self._ascript(_SWAP)(keys=[self._key(row.key)], args=args))

    async def awrite_outcome(self, row: Record) -> bool:
        args = [row.token, "", self._ttl(row), *_fields(row)]
        return bool(await self._ascript(_SWAP)(keys=[self._key(row.key)], args=args))

    async def amark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        args = [token, "" if lease_until is None else repr(lease_until)]
        return bool(await self._ascript(_START)(keys=[self._key(key)], args=args))

    async def arenew_lease(self, key: str, token: str, lease_until: float) -> bool:
        args = [token, repr(lease_until)]
        return bool(await self._ascript(_RENEW)(keys=[self._key(key)], args=args))

    async def arenew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        renew, until = self._ascript(_RENEW), repr(lease_until)
        pipe = self._async().pipeline(transaction=False)
        for key, token in held:
            await renew(keys=[self._key(key)], args=[token, until], client=pipe)
        done = await pipe.execute()
        return {token for (_, token), ok in zip(held, done, strict=True) if ok}

    async def asettle_answer(self, token: str, row: Record) -> bool:
        """Async :meth:`settle_answer`."""
        args = [token, "started", self._ttl(row), *_fields(row)]
        return bool(await self._ascript(_SWAP)(keys=[self._key(row.key)], args=args))

    async def adelete_claim(self, key: str, token: str) -> bool:
        return bool(await self._ascript(_DELETE)(keys=[self._key(key)], args=[token]))

    async def aget(self, key: str) -> Record | None:
        found = await self._async().hgetall(self._key(key))
        return _record(found) if found else None

    async def arecords(self) -> list[Record]:
        client = self._async()
        keys = [k async for k in client.scan_iter(match=_glob(self.prefix) + "*", count=1000)]
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(key)
        rows = [_record(found) for found in await pipe.execute() if found]
        return sorted(rows, key=lambda r: (r.started_at, r.key))

    async def apurge_before(self, finished_before: float) -> int:
        client = self._async()
        purge = self._ascript(_PURGE)
        total = 0
        async for key in client.scan_iter(match=_glob(self.prefix) + "*", count=1000):
            total += int(await purge(keys=[key], args=[repr(finished_before)]))
        return total

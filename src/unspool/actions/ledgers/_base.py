"""The ledger semantics, written once, over a small public storage interface.

A ledger holds one row (:class:`Record`) per idempotency key, in one of three
states: ``claimed`` (a worker holds the key; its handler has not begun),
``started`` (the handler began: it may have had its effect) and ``finished``
(the outcome is recorded). Before running an action a dispatcher *claims* its
key (:meth:`Ledger.claim`):

* no row: a ``claimed`` row is written atomically with a fresh ``token`` and a
  lease, and the claim says ``"run"``;
* a row with another action name or another args fingerprint: ``"conflict"``
  (two different actions share a key); nothing runs, nothing is replayed;
* ``finished``: ``"finished"``, the recorded outcome is reported again;
* ``claimed`` or ``started`` with a live lease (its holder is alive: it renews
  the lease from the moment of the claim until the outcome is recorded, queued
  or running): the claim waits for the outcome, up to ``wait`` seconds, then
  says ``"in_progress"``. A live holder's claim is never taken over;
* ``claimed`` with an expired lease (its holder died before the handler began):
  taken over (compare-and-set on its token and state): ``"run"``, as if new;
* ``started`` with an expired lease (its holder died, or was cut off, after the
  handler began): ``"unknown"``, the outcome was never recorded and running again
  could repeat a side effect. The row is sealed (compare-and-set to a new token),
  so the old holder can no longer record an outcome over it: a key has one
  outcome. With ``rerun_unknown=True`` (an ``idempotent=True`` handler) the row
  is taken over instead, the attempt counted, and the claim says ``"run"`` with
  ``rerun=True``.

The holder of a ``"run"`` claim calls :meth:`Ledger.start` just before the
handler (``claimed`` -> ``started``, compare-and-set; :class:`LedgerError` when
the claim was lost: the handler must not run), then exactly one of
:meth:`Ledger.finish` (record the outcome), :meth:`Ledger.cancel` (the handler
never ran: delete the row) or :meth:`Ledger.abandon` (the outcome is unknown:
expire the lease now). The ledger heartbeats every claim it handed out, from
:meth:`~Ledger.claim` until one of those three, for as long as the process
lives (a thread, or a task on the loop for :meth:`~Ledger.aclaim`). Every method
has an ``a``-prefixed async twin. :meth:`Ledger.purge` deletes finished rows
older than an age.

A backend implements the storage interface: :meth:`~Ledger.insert_started`,
:meth:`~Ledger.take_over`, :meth:`~Ledger.mark_started`,
:meth:`~Ledger.renew_lease` (and :meth:`~Ledger.renew_leases`, many at once),
:meth:`~Ledger.write_outcome`, :meth:`~Ledger.delete_claim`, :meth:`~Ledger.get`,
:meth:`~Ledger.forget`, :meth:`~Ledger.records`, :meth:`~Ledger.purge_before`;
each atomic on its own. The async twins (``ainsert_started``...) run the sync
method in a worker thread unless the backend has a native async client.
Rows written before the ``claimed`` state existed read as ``started`` (their
handler may have begun). Leases are compared on the workers' clocks: keep them
in sync (NTP), well within the lease.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Generator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal

from unspool.actions.ledgers._answers import Answers
from unspool.actions.ledgers._codec import Unstorable, dump_json, jsonable

__all__ = ["Claim", "ClaimStatus", "Ledger", "LedgerError", "Record", "RowState"]

ClaimStatus = Literal["run", "finished", "in_progress", "unknown", "conflict"]
RowState = Literal["claimed", "started", "finished"]

RESULT_NOT_STORED = "result_not_stored"
"""``Record.error_type`` of a success whose result has no JSON form (kept with ``ok=True``)."""


class LedgerError(RuntimeError):
    """The ledger could not do what was asked (a lost claim; storage failures are
    the backend's own exceptions)."""


class _LostClaim(LedgerError):
    """A claim's key was taken over by another worker (its lease had expired)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One ledger row. ``state``: ``claimed`` (held, the handler not begun),
    ``started`` (the handler began) or ``finished``. ``ok`` is ``None`` until
    finished, then ``True`` (``result`` holds what the handler returned, in its JSON
    form for a durable ledger) or ``False`` (``error`` and ``error_type``). ``token``
    identifies the claim that holds the row; ``lease_until`` (seconds since the
    epoch) is when a row whose holder stopped renewing it counts as abandoned
    (``None``: never). ``started_at`` is when the key was claimed."""

    key: str
    name: str
    action_id: str
    state: RowState
    started_at: float
    attempts: int = 1
    ok: bool | None = None
    result: Any = None
    error: str | None = None
    error_type: str | None = None
    finished_at: float | None = None
    fingerprint: str = ""
    summary: str = ""
    token: str = ""
    lease_until: float | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """What :meth:`Ledger.claim` decided. ``record`` is the row found, or for
    ``"run"`` the row written (its ``token`` is the claim's). ``rerun`` is True when
    a row of unknown outcome was taken over."""

    status: ClaimStatus
    record: Record | None = None
    rerun: bool = False


@dataclass(frozen=True, slots=True)
class _Call:
    method: str
    args: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Pause:
    key: str
    seconds: float
    round: int  # how many pauses before this one: polling backs off


_Op = _Call | _Pause


class Ledger(Answers, ABC):
    """Base of every ledger: the claim protocol over the storage interface.

    ``lease`` is how long a started row stays live without a heartbeat (``None``:
    until released; only for a ledger that dies with its process); ``wait`` is how
    long a claim waits for a live row's outcome before saying ``"in_progress"``.
    ``scope`` names the storage; claims on one scope in one process wait on each
    other without polling."""

    stores_objects = False
    """True when results are kept as the objects themselves (no JSON form needed)."""

    def __init__(self, scope: str, *, lease: float | None = 30.0, wait: float = 30.0) -> None:
        if lease is not None and lease <= 0:
            raise ValueError("lease must be > 0 seconds (or None)")
        if wait < 0:
            raise ValueError("wait must be >= 0 seconds")
        self.scope = scope
        self.lease = lease
        self.wait = wait
        self._heart = _Heartbeat(self)

    # the semantics -------------------------------------------------------------------

    def _claim_steps(
        self,
        key: str,
        name: str,
        action_id: str,
        fingerprint: str,
        summary: str,
        rerun_unknown: bool,
        wait: float,
    ) -> Generator[_Op, Any, Claim]:
        deadline: float | None = None
        pauses = 0
        while True:
            now = time.time()
            mine = Record(
                key,
                name,
                action_id,
                "claimed",
                now,
                fingerprint=fingerprint,
                summary=summary,
                token=_token(),
                lease_until=None if self.lease is None else now + self.lease,
            )
            found: Record | None = yield _Call("insert_started", (mine,))
            if found is None:
                return Claim("run", mine)
            if found.token == mine.token:  # our own insert, seen after a retried write
                return Claim("run", found)
            if found.name != name or (
                found.fingerprint and fingerprint and found.fingerprint != fingerprint
            ):
                return Claim("conflict", found)
            if found.state == "finished":
                return Claim("finished", found)
            if found.lease_until is None or found.lease_until > now:
                if deadline is None:
                    deadline = now + wait
                if now >= deadline:
                    return Claim("in_progress", found)
                until = deadline if found.lease_until is None else min(deadline, found.lease_until)
                yield _Pause(key, max(until - now, 0.0), pauses)
                pauses += 1
                continue
            if found.state == "claimed":  # its holder died before the handler began
                again = replace(mine, attempts=found.attempts)
                if (yield _Call("take_over", (found.token, again, "claimed"))):
                    return Claim("run", again, rerun=again.attempts > 1)
                continue
            if rerun_unknown:
                again = replace(mine, attempts=found.attempts + 1)
                if (yield _Call("take_over", (found.token, again, "started"))):
                    return Claim("run", again, rerun=True)
                continue
            if found.lease_until == 0:  # abandoned, or sealed already
                return Claim("unknown", found)
            # seal it: the holder that was cut off can no longer record an outcome
            sealed = replace(found, token=_token(), lease_until=0.0)
            if (yield _Call("take_over", (found.token, sealed, "started"))):
                return Claim("unknown", sealed)

    def _outcome(
        self, claim: Claim, ok: bool, result: Any, error: str | None, error_type: str | None
    ) -> Record:
        record = _claimed(claim)
        if ok and not self.stores_objects:
            try:
                result = jsonable(result)
                dump_json(result)
            except Unstorable as exc:
                error = f"the handler returned a result with no JSON form ({exc}); not stored"
                result, error_type = None, RESULT_NOT_STORED
        return Record(  # spelled out: dataclasses.replace costs as much as the rest
            record.key,
            record.name,
            record.action_id,
            "finished",
            record.started_at,
            record.attempts,
            ok,
            result if ok else None,
            error,
            error_type,
            time.time(),
            record.fingerprint,
            record.summary,
            record.token,
            None,
        )

    def claim(
        self,
        key: str,
        name: str,
        action_id: str,
        *,
        fingerprint: str = "",
        summary: str = "",
        rerun_unknown: bool = False,
        wait: float | None = None,
    ) -> Claim:
        """Claim ``key`` before running the action ``name`` (see the module docs);
        ``wait`` overrides the ledger's wait (0: decide now)."""
        steps = self._claim_steps(
            key, name, action_id, fingerprint, summary, rerun_unknown, self._wait(wait)
        )
        try:
            op = next(steps)
            while True:
                if isinstance(op, _Pause):
                    _local_wait(self.scope, op)
                    op = steps.send(None)
                else:
                    op = steps.send(getattr(self, op.method)(*op.args))
        except StopIteration as stop:
            done: Claim = stop.value
        if done.status == "run":
            self._hold(_claimed(done), asynchronous=False)
        return done

    async def aclaim(
        self,
        key: str,
        name: str,
        action_id: str,
        *,
        fingerprint: str = "",
        summary: str = "",
        rerun_unknown: bool = False,
        wait: float | None = None,
    ) -> Claim:
        """Async :meth:`claim`."""
        steps = self._claim_steps(
            key, name, action_id, fingerprint, summary, rerun_unknown, self._wait(wait)
        )
        try:
            op = next(steps)
            while True:
                if isinstance(op, _Pause):
                    await _alocal_wait(self.scope, op)
                    op = steps.send(None)
                else:
                    op = steps.send(await getattr(self, "a" + op.method)(*op.args))
        except StopIteration as stop:
            done: Claim = stop.value
        if done.status == "run":
            self._hold(_claimed(done), asynchronous=True)
        return done

    def _hold(self, record: Record, *, asynchronous: bool) -> None:
        """This process holds ``record``'s key from now: its lease is renewed (by the
        heartbeat thread, or a task on the running loop) until it is released."""
        _local_hold(self.scope, record.key)
        if self.lease is not None:
            self._heart.add(record, asynchronous)

    def _stop_heartbeats(self) -> None:
        """For a backend's ``close``: stop renewing this ledger's claims, and wait until
        no heartbeat uses the storage."""
        self._heart.stop()

    def _release(self, record: Record) -> None:
        self._heart.remove(record)
        _local_release(self.scope, record.key)

    def start(self, claim: Claim) -> None:
        """Say that the handler of a ``"run"`` claim begins now (``claimed`` ->
        ``started``, compare-and-set on the claim's token). Call it just before the
        handler; :class:`LedgerError` when the claim was lost (its lease expired and
        another worker took the key over): the handler must not run."""
        record = _claimed(claim)
        if not self.mark_started(record.key, record.token, self._lease_until()):
            self._release(record)
            raise _LostClaim(_lost(record, "before its handler began"))

    async def astart(self, claim: Claim) -> None:
        """Async :meth:`start`."""
        record = _claimed(claim)
        if not await self.amark_started(record.key, record.token, self._lease_until()):
            self._release(record)
            raise _LostClaim(_lost(record, "before its handler began"))

    def _lease_until(self) -> float | None:
        return None if self.lease is None else time.time() + self.lease

    def _wait(self, wait: float | None) -> float:
        return self.wait if wait is None else wait

    def finish(
        self,
        claim: Claim,
        *,
        result: Any = None,
        error: str | None = None,
        error_type: str | None = None,
    ) -> Record:
        """Record the outcome of a ``"run"`` claim: a result, or an error when
        ``error_type`` is given. Returns the row written; raises :class:`LedgerError`
        when the claim was lost (its lease expired and another worker took it)."""
        try:
            row = self._outcome(claim, error_type is None, result, error, error_type)
            if not self.write_outcome(row):
                raise _LostClaim(_lost(row, "before its outcome was recorded"))
            return row
        finally:
            self._release(_claimed(claim))

    async def afinish(
        self,
        claim: Claim,
        *,
        result: Any = None,
        error: str | None = None,
        error_type: str | None = None,
    ) -> Record:
        """Async :meth:`finish`."""
        try:
            row = self._outcome(claim, error_type is None, result, error, error_type)
            if not await self.awrite_outcome(row):
                raise _LostClaim(_lost(row, "before its outcome was recorded"))
            return row
        finally:
            self._release(_claimed(claim))

    def cancel(self, claim: Claim) -> None:
        """Give up a ``"run"`` claim whose handler was never called: its row is
        deleted, so the action can run later."""
        record = _claimed(claim)
        try:
            self.delete_claim(record.key, record.token)
        finally:
            self._release(record)

    async def acancel(self, claim: Claim) -> None:
        """Async :meth:`cancel`."""
        record = _claimed(claim)
        try:
            await self.adelete_claim(record.key, record.token)
        finally:
            self._release(record)

    def abandon(self, claim: Claim) -> None:
        """Give up a ``"run"`` claim without an outcome (the handler was interrupted
        mid-run): its lease ends now, so later claims see ``"unknown"``."""
        record = _claimed(claim)
        try:
            self.renew_lease(record.key, record.token, 0.0)
        finally:
            self._release(record)

    async def aabandon(self, claim: Claim) -> None:
        """Async :meth:`abandon`."""
        record = _claimed(claim)
        try:
            await self.arenew_lease(record.key, record.token, 0.0)
        finally:
            self._release(record)

    @contextmanager
    def hold(self, claim: Claim) -> Iterator[None]:
        """Run a ``"run"`` claim's handler in the block: :meth:`start` on entry (the
        lease is renewed from the claim on, until :meth:`finish`, :meth:`cancel` or
        :meth:`abandon`)."""
        self.start(claim)
        yield

    @asynccontextmanager
    async def ahold(self, claim: Claim) -> AsyncIterator[None]:
        """Async :meth:`hold`."""
        await self.astart(claim)
        yield

    def purge(self, older_than: float) -> int:
        """Delete finished rows that finished more than ``older_than`` seconds ago;
        started rows (running, or of unknown outcome) stay. Returns how many went."""
        return self.purge_before(time.time() - older_than)

    async def apurge(self, older_than: float) -> int:
        """Async :meth:`purge`."""
        return await self.apurge_before(time.time() - older_than)

    # the storage interface -----------------------------------------------------------

    @abstractmethod
    def insert_started(self, row: Record) -> Record | None:
        """Atomically add ``row`` (state ``started``) if its key has no row: ``None``
        when added, else the row found."""

    @abstractmethod
    def take_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        """Replace the row of ``row.key`` whose token is ``token`` and whose state is
        ``state`` by ``row`` (compare-and-set on both); False when the row changed."""

    @abstractmethod
    def mark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        """Turn the ``claimed`` row of ``key`` held by ``token`` into ``started``,
        its lease renewed to ``lease_until`` (compare-and-set); False when that claim
        no longer holds the row."""

    @abstractmethod
    def renew_lease(self, key: str, token: str, lease_until: float) -> bool:
        """Set ``lease_until`` of the unfinished row of ``key`` held by ``token``."""

    def renew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        """:meth:`renew_lease` for many ``(key, token)`` claims (a heartbeat); the
        tokens still held. A backend may do it in one round trip."""
        return {token for key, token in held if self.renew_lease(key, token, lease_until)}

    @abstractmethod
    def write_outcome(self, row: Record) -> bool:
        """Replace the unfinished row of ``row.key`` held by ``row.token`` by the
        finished ``row``, durably; False when that claim no longer holds the row."""

    @abstractmethod
    def delete_claim(self, key: str, token: str) -> bool:
        """Delete the unfinished row of ``key`` held by ``token``."""

    @abstractmethod
    def get(self, key: str) -> Record | None:
        """The row of ``key``, if any."""

    @abstractmethod
    def forget(self, key: str) -> None:
        """Delete the row of ``key`` whatever its state (after resolving an unknown
        outcome by hand, or to allow a deliberate retry)."""

    @abstractmethod
    def records(self) -> list[Record]:
        """Every row, oldest first."""

    @abstractmethod
    def purge_before(self, finished_before: float) -> int:
        """Delete the finished rows with ``finished_at < finished_before``; how many."""

    async def ainsert_started(self, row: Record) -> Record | None:
        """Async :meth:`insert_started`."""
        return await asyncio.to_thread(self.insert_started, row)

    async def atake_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        """Async :meth:`take_over`."""
        return await asyncio.to_thread(self.take_over, token, row, state)

    async def amark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        """Async :meth:`mark_started`."""
        return await asyncio.to_thread(self.mark_started, key, token, lease_until)

    async def arenew_lease(self, key: str, token: str, lease_until: float) -> bool:
        """Async :meth:`renew_lease`."""
        return await asyncio.to_thread(self.renew_lease, key, token, lease_until)

    async def arenew_leases(self, held: Sequence[tuple[str, str]], lease_until: float) -> set[str]:
        """Async :meth:`renew_leases`."""
        return await asyncio.to_thread(self.renew_leases, held, lease_until)

    async def awrite_outcome(self, row: Record) -> bool:
        """Async :meth:`write_outcome`."""
        return await asyncio.to_thread(self.write_outcome, row)

    async def adelete_claim(self, key: str, token: str) -> bool:
        """Async :meth:`delete_claim`."""
        return await asyncio.to_thread(self.delete_claim, key, token)

    async def aget(self, key: str) -> Record | None:
        """Async :meth:`get`."""
        return await asyncio.to_thread(self.get, key)

    async def arecords(self) -> list[Record]:
        """Async :meth:`records`."""
        return await asyncio.to_thread(self.records)

    async def apurge_before(self, finished_before: float) -> int:
        """Async :meth:`purge_before`."""
        return await asyncio.to_thread(self.purge_before, finished_before)


def _claimed(claim: Claim) -> Record:
    if claim.status != "run" or claim.record is None:
        raise ValueError(f"not a 'run' claim: {claim.status!r}")
    return claim.record


def _lost(row: Record, when: str) -> str:
    return (
        f"the claim on ledger key {row.key!r} was lost {when} "
        "(its lease expired and another worker took it over)"
    )


def _token() -> str:
    return os.urandom(12).hex()


class _Heartbeat:
    """The claims a ledger holds in this process, and what renews their leases: one
    background thread for the claims of :meth:`Ledger.claim`, one task per event
    loop for those of :meth:`Ledger.aclaim`; each renews all its claims at once
    (:meth:`Ledger.renew_leases`), every third of the lease, and ends when it holds
    none. A claim whose renewal says it is no longer held is dropped."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.lock = threading.Lock()
        self.held: dict[str, Record] = {}
        self.thread: threading.Thread | None = None
        self.loops: dict[asyncio.AbstractEventLoop, dict[str, Record]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.wake = threading.Event()

    def stop(self) -> None:
        """Renew nothing more (the ledger is closing: its claims' leases will expire);
        returns once the thread is out of the storage, so connections can be closed."""
        with self.lock:
            self.held.clear()
            for held in self.loops.values():
                held.clear()
            thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            self.wake.set()
            thread.join(60)
            self.wake.clear()

    def add(self, record: Record, asynchronous: bool) -> None:
        loop = asyncio.get_running_loop() if asynchronous else None
        with self.lock:
            if loop is None:
                self.held[record.token] = record
                if self.thread is None:
                    self.thread = threading.Thread(
                        target=self._run, name="unspool-ledger-heartbeat", daemon=True
                    )
                    self.thread.start()
            elif loop in self.loops:
                self.loops[loop][record.token] = record
            else:
                self.loops[loop] = {record.token: record}
                task = loop.create_task(self._arun(loop))
                self.tasks.add(task)  # the loop keeps only a weak reference
                task.add_done_callback(self.tasks.discard)

    def remove(self, record: Record) -> None:
        with self.lock:
            self.held.pop(record.token, None)
            for held in self.loops.values():
                held.pop(record.token, None)

    def _drop(self, held: dict[str, Record], sent: list[Record], kept: set[str]) -> None:
        with self.lock:
            for record in sent:
                if record.token not in kept:
                    held.pop(record.token, None)

    def _run(self) -> None:
        lease = self.ledger.lease
        assert lease is not None
        while True:
            self.wake.wait(lease / 3)
            with self.lock:
                sent = list(self.held.values())
                if not sent:
                    self.thread = None
                    return
            try:
                kept = self.ledger.renew_leases(
                    [(r.key, r.token) for r in sent], time.time() + lease
                )
            except Exception:  # the storage is down: a lease may expire; that is reported
                continue
            self._drop(self.held, sent, kept)

    async def _arun(self, loop: asyncio.AbstractEventLoop) -> None:
        lease = self.ledger.lease
        assert lease is not None
        try:
            while True:
                await asyncio.sleep(lease / 3)
                with self.lock:
                    held = self.loops[loop]
                    sent = list(held.values())
                    if not sent:
                        del self.loops[loop]
                        return
                try:
                    kept = await self.ledger.arenew_leases(
                        [(r.key, r.token) for r in sent], time.time() + lease
                    )
                except Exception:  # as in _run
                    continue
                self._drop(held, sent, kept)
        except asyncio.CancelledError:  # the loop is closing: its claims' leases will expire
            with self.lock:
                self.loops.pop(loop, None)
            raise


# Claims being run in this process, per storage scope: a claim on such a key waits on
# its event instead of polling the storage (the event is made by the first waiter).
# The lock guards the dict only, never I/O.
_LOCAL: dict[tuple[str, str], threading.Event | None] = {}
_LOCAL_LOCK = threading.Lock()


def _poll(pause: _Pause) -> float:
    """How long to sleep before looking at the storage again: 2 ms, doubling to 50 ms."""
    return min(pause.seconds, 0.002 * (1 << min(pause.round, 5)), 0.05)


def _local_hold(scope: str, key: str) -> None:
    with _LOCAL_LOCK:
        _LOCAL[(scope, key)] = None


def _local_release(scope: str, key: str) -> None:
    with _LOCAL_LOCK:
        marker = _LOCAL.pop((scope, key), None)
    if marker is not None:
        marker.set()


def _local_marker(scope: str, key: str) -> threading.Event | None:
    """The event set when this process releases ``key``, or ``None`` if it does not hold it."""
    with _LOCAL_LOCK:
        if (scope, key) not in _LOCAL:
            return None
        marker = _LOCAL[(scope, key)]
        if marker is None:
            marker = _LOCAL[(scope, key)] = threading.Event()
        return marker


def _local_wait(scope: str, pause: _Pause) -> None:
    marker = _local_marker(scope, pause.key)
    if marker is not None:  # held in this process: woken when it is released
        marker.wait(pause.seconds)
    else:
        time.sleep(_poll(pause))


async def _alocal_wait(scope: str, pause: _Pause) -> None:
    held = _local_marker(scope, pause.key) is not None
    await asyncio.sleep(min(_poll(pause), 0.005) if held else _poll(pause))

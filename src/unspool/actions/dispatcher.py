"""The dispatcher: runs action handlers exactly once, in stream order.

``Dispatcher.run(events)`` (and ``arun`` for async code) passes every event
through unchanged and adds, after each ``ActionComplete``, one
:class:`~unspool.events.ActionResult` or :class:`~unspool.events.ActionFailed`:

* handlers run only on ``ActionComplete`` (never on a start or an args delta);
* each idempotency key (the action id by default) runs at most once per ledger:
  a key already finished reports its recorded outcome again (with ``replayed=True``,
  and its action id is added to :attr:`Dispatcher.replayed`); a key started by a process that died
  reports ``ActionFailed(error_type="unknown_outcome")`` and does not run again,
  unless the handler was registered ``idempotent=True``;
* a handler's exception becomes ``ActionFailed(error_type=<exception class>)`` and
  the next action still runs;
* ``max_actions`` bounds the actions dispatched per stream (per ``run`` call);
  beyond it, ``ActionFailed(error_type="limit")``.

Other ``error_type`` values: ``"no_handler"`` (no handler registered; with
``unhandled="pass"`` such actions are left to the application and get no
event), ``"schema"`` (args that no parser validated fail the registry's schema),
``"key_error"`` (the idempotency key function raised), ``"key_conflict"`` (the
key was recorded for another action name).

Sequential by default: the handler runs right after its ``ActionComplete`` is
handed on, before the next event is read. With ``concurrent=True`` handlers
overlap (``run``: a thread pool; ``arun``: asyncio tasks) and results are still
reported in stream order, always before ``StreamDone``.

Async handlers under ``run`` each run to completion in their own event loop
(``asyncio.run``, in a helper thread when the calling thread already runs a
loop); use ``arun`` to run them on your loop. Sync handlers under ``arun`` run in
a worker thread (``asyncio.to_thread``) so they never block the loop.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections import deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Generator,
    Iterable,
)
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, TypeVar

from unspool.actions.ledger import Claim, Ledger, MemoryLedger
from unspool.actions.registry import ActionRegistry, ActionSpec
from unspool.events import ActionComplete, ActionFailed, ActionResult, Event, StreamDone

__all__ = ["Dispatcher"]

T = TypeVar("T")
Outcome = ActionResult | ActionFailed


@dataclass(slots=True)
class _Run:
    """Claimed: call the handler, then record the outcome."""

    event: ActionComplete
    spec: ActionSpec
    value: Any
    key: str
    phase: Literal["claimed", "entered", "released"] = "claimed"


@dataclass(frozen=True, slots=True)
class _Wait:
    """The key is being run elsewhere in this process: wait for it, then claim again."""

    event: ActionComplete
    spec: ActionSpec
    value: Any
    key: str
    marker: threading.Event


_Step = Outcome | _Run | _Wait | None


class _StreamState:
    __slots__ = ("dispatched",)

    def __init__(self) -> None:
        self.dispatched = 0


class Dispatcher:
    """Runs the handlers of a registry on the actions of an event stream.

    ``ledger`` defaults to a fresh :class:`MemoryLedger` (exactly once for this
    dispatcher's lifetime); pass a :class:`SqliteLedger` to survive restarts, or
    share one ledger between dispatchers (re-renders, retries). ``max_workers``
    bounds concurrent handlers (``None``: the thread pool's default for ``run``,
    unbounded for ``arun``).
    """

    def __init__(
        self,
        registry: ActionRegistry,
        ledger: Ledger | None = None,
        *,
        concurrent: bool = False,
        max_actions: int | None = None,
        max_workers: int | None = None,
        unhandled: Literal["fail", "pass"] = "fail",
    ) -> None:
        if max_actions is not None and max_actions < 0:
            raise ValueError("max_actions must be >= 0")
        if max_workers is not None and max_workers < 1:
            raise ValueError("max_workers must be >= 1")
        if unhandled not in ("fail", "pass"):
            raise ValueError(f"unhandled must be 'fail' or 'pass', not {unhandled!r}")
        self.registry = registry
        self.ledger: Ledger = ledger if ledger is not None else MemoryLedger()
        self.concurrent = concurrent
        self.max_actions = max_actions
        self.max_workers = max_workers
        self.unhandled = unhandled
        self.replayed: set[str] = set()
        """Ids of the actions whose outcome was reported from the ledger, not run."""

    # planning (in stream order, in the consuming thread) ---------------------------------

    def _plan(self, event: ActionComplete, state: _StreamState) -> _Step:
        spec = self.registry.get(event.name)
        if spec is None or spec.handler is None:
            if self.unhandled == "pass":
                return None
            return _failed(
                event, f"no handler is registered for action {event.name!r}", "no_handler"
            )
        if self.max_actions is not None and state.dispatched >= self.max_actions:
            return _failed(
                event, f"the limit of {self.max_actions} actions per stream was reached", "limit"
            )
        state.dispatched += 1
        verdict = spec.validate(event.args)
        if not verdict.ok:
            return _failed(event, _describe(verdict.errors), "schema")
        try:
            key = spec.ledger_key(event.id, verdict.value)
        except Exception as exc:
            return _failed(event, f"the idempotency key function raised {exc!r}", "key_error")
        return self._claim(event, spec, verdict.value, key)

    def _claim(self, event: ActionComplete, spec: ActionSpec, value: Any, key: str) -> _Step:
        claim = self.ledger.claim(key, event.name, event.id, rerun_unknown=spec.idempotent)
        if claim.status == "run":
            return _Run(event, spec, value, key)
        if claim.status == "in_flight":
            assert claim.wait is not None
            return _Wait(event, spec, value, key, claim.wait)
        return self._recorded(event, key, claim)

    def _recorded(self, event: ActionComplete, key: str, claim: Claim) -> Outcome:
        record = claim.record
        assert record is not None
        if claim.status == "conflict":
            msg = f"ledger key {key!r} was recorded for action {record.name!r}"
            return _failed(event, msg, "key_conflict")
        if claim.status == "unknown":
            when = datetime.fromtimestamp(record.started_at, timezone.utc)
            msg = (
                f"action {key!r} was started at {when.isoformat(timespec='seconds')} (attempt "
                f"{record.attempts}) and its outcome was never recorded; not run again"
            )
            return _failed(event, msg, "unknown_outcome")
        self.replayed.add(event.id)
        if record.ok:
            return ActionResult(event.id, event.index, event.name, record.result, replayed=True)
        return _failed(event, record.error or "", record.error_type or "Exception", replayed=True)

    # sync execution ---------------------------------------------------------------------

    def _settle(self, step: _Step) -> Outcome | None:
        while isinstance(step, _Wait):
            step.marker.wait()
            step = self._claim(step.event, step.spec, step.value, step.key)
        if isinstance(step, _Run):
            return self._execute(step)
        return step

    def _release_unrun(self, run: _Run) -> None:
        """Release a claim whose handler was never called (it did not run)."""
        if run.phase == "claimed":
            run.phase = "released"
            self.ledger.cancel(run.key)

    def _execute(self, run: _Run) -> Outcome:
        run.phase = "entered"
        try:
            result = run.spec.invoke(run.value)
            if inspect.isawaitable(result):
                result = _run_awaitable(result)
        except Exception as exc:
            return self._record_error(run, exc)
        except BaseException:
            self.ledger.abandon(run.key)
            raise
        return self._record_result(run, result)

    def _record_result(self, run: _Run, result: Any) -> ActionResult:
        """The handler returned: record the result, and report it."""
        self.ledger.finish(run.key, result=result)
        return ActionResult(run.event.id, run.event.index, run.event.name, result)

    def _record_error(self, run: _Run, exc: Exception) -> ActionFailed:
        message = str(exc) or type(exc).__name__
        self.ledger.finish(run.key, error=message, error_type=type(exc).__name__)
        return _failed(run.event, message, type(exc).__name__)

    def run(self, events: Iterable[Event]) -> Generator[Event, None, None]:
        """Pass ``events`` through, adding the outcome of every ``ActionComplete``."""
        if self.concurrent:
            return self._run_concurrent(events)
        return self._run_sequential(events)

    def _run_sequential(self, events: Iterable[Event]) -> Generator[Event, None, None]:
        state = _StreamState()
        for event in events:
            yield event
            if isinstance(event, ActionComplete):
                outcome = self._settle(self._plan(event, state))
                if outcome is not None:
                    yield outcome

    def _run_concurrent(self, events: Iterable[Event]) -> Generator[Event, None, None]:
        state = _StreamState()
        pending: deque[tuple[_Step, Future[Outcome | None]]] = deque()
        pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="unspool-action")
        try:
            for event in events:
                if isinstance(event, StreamDone):
                    while pending:
                        outcome = pending.popleft()[1].result()
                        if outcome is not None:
                            yield outcome
                yield event
                if isinstance(event, ActionComplete):
                    step = self._plan(event, state)
                    if isinstance(step, (_Run, _Wait)):
                        pending.append((step, pool.submit(self._settle, step)))
                    elif step is not None:
                        done: Future[Outcome | None] = Future()
                        done.set_result(step)
                        pending.append((step, done))
                while pending and pending[0][1].done():
                    outcome = pending.popleft()[1].result()
                    if outcome is not None:
                        yield outcome
            while pending:
                outcome = pending.popleft()[1].result()
                if outcome is not None:
                    yield outcome
        finally:
            # Abandoned early: actions whose handler never started are released
            # (they did not run); the ones running are left to finish and record.
            for step, future in pending:
                if future.cancel() and isinstance(step, _Run):
                    self._release_unrun(step)
            pool.shutdown(wait=True)

    # async execution --------------------------------------------------------------------

    async def _asettle(self, step: _Step, limit: asyncio.Semaphore | None) -> Outcome | None:
        while isinstance(step, _Wait):
            await asyncio.to_thread(step.marker.wait)
            step = self._claim(step.event, step.spec, step.value, step.key)
        if not isinstance(step, _Run):
            return step
        try:
            if limit is None:
                return await self._aexecute(step)
            async with limit:
                return await self._aexecute(step)
        except asyncio.CancelledError:
            self._release_unrun(step)
            raise

    async def _aexecute(self, run: _Run) -> Outcome:
        run.phase = "entered"
        try:
            if run.spec.is_async:
                result = await run.spec.invoke(run.value)
            else:
                result = await asyncio.to_thread(run.spec.invoke, run.value)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            return self._record_error(run, exc)
        except BaseException:
            self.ledger.abandon(run.key)
            raise
        return self._record_result(run, result)

    def arun(self, events: AsyncIterable[Event] | Iterable[Event]) -> AsyncGenerator[Event, None]:
        """Async :meth:`run`: accepts an async or a sync iterable of events. With
        ``concurrent=True`` a result is handed on as soon as it and every result
        before it are ready, even while the source is idle."""
        source = _aiter(events)
        if self.concurrent:
            return self._arun_concurrent(source)
        return self._arun_sequential(source)

    async def _arun_sequential(self, source: AsyncIterator[Event]) -> AsyncGenerator[Event, None]:
        state = _StreamState()
        async for event in source:
            yield event
            if isinstance(event, ActionComplete):
                outcome = await self._asettle(self._plan(event, state), None)
                if outcome is not None:
                    yield outcome

    async def _arun_concurrent(self, source: AsyncIterator[Event]) -> AsyncGenerator[Event, None]:
        state = _StreamState()
        limit = asyncio.Semaphore(self.max_workers) if self.max_workers else None
        pending: deque[tuple[_Step, asyncio.Future[Outcome | None]]] = deque()
        loop = asyncio.get_running_loop()
        try:
            while True:
                upcoming: asyncio.Future[Event] = asyncio.ensure_future(_next(source))
                try:
                    while pending and not upcoming.done():
                        either: set[asyncio.Future[Any]] = {upcoming, pending[0][1]}
                        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                        while pending and pending[0][1].done():
                            outcome = pending.popleft()[1].result()
                            if outcome is not None:
                                yield outcome
                    event = await upcoming
                except StopAsyncIteration:
                    break
                finally:
                    if not upcoming.done():
                        upcoming.cancel()
                if isinstance(event, StreamDone):
                    while pending:
                        outcome = await pending.popleft()[1]
                        if outcome is not None:
                            yield outcome
                yield event
                if isinstance(event, ActionComplete):
                    step = self._plan(event, state)
                    if isinstance(step, (_Run, _Wait)):
                        pending.append((step, asyncio.ensure_future(self._asettle(step, limit))))
                    elif step is not None:
                        done: asyncio.Future[Outcome | None] = loop.create_future()
                        done.set_result(step)
                        pending.append((step, done))
                while pending and pending[0][1].done():
                    outcome = pending.popleft()[1].result()
                    if outcome is not None:
                        yield outcome
            while pending:
                outcome = await pending.popleft()[1]
                if outcome is not None:
                    yield outcome
        finally:
            await self._aclose(pending)

    async def _aclose(self, pending: deque[tuple[_Step, asyncio.Future[Outcome | None]]]) -> None:
        """Abandoned early: handlers already called finish and record; the rest are
        cancelled and their keys released (they never ran)."""
        running: list[asyncio.Future[Outcome | None]] = []
        for step, future in pending:
            if future.done():
                continue
            if isinstance(step, _Run) and step.phase == "entered":
                running.append(future)
            else:
                future.cancel()
                running.append(future)
        if running:
            await asyncio.wait(running)
        for step, _ in pending:
            if isinstance(step, _Run):
                self._release_unrun(step)


def _failed(
    event: ActionComplete, error: str, error_type: str, *, replayed: bool = False
) -> ActionFailed:
    return ActionFailed(event.id, event.index, event.name, error, error_type, replayed)


def _describe(errors: Iterable[Any]) -> str:
    parts = []
    for err in errors:
        path = ".".join(str(p) for p in err.get("path", ()))
        parts.append(f"{path}: {err.get('message')}" if path else str(err.get("message")))
    return "; ".join(parts) or "invalid arguments"


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _run_awaitable(awaitable: Awaitable[T]) -> T:
    """Run an awaitable to completion from sync code, in its own event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    with ThreadPoolExecutor(1, thread_name_prefix="unspool-async-handler") as helper:
        return helper.submit(asyncio.run, _await(awaitable)).result()


async def _next(source: AsyncIterator[Event]) -> Event:
    return await source.__anext__()


async def _from_sync(events: Iterable[Event]) -> AsyncIterator[Event]:
    for event in events:
        yield event


def _aiter(events: AsyncIterable[Event] | Iterable[Event]) -> AsyncIterator[Event]:
    if isinstance(events, AsyncIterable):
        return events.__aiter__()
    return _from_sync(events)

"""The dispatcher: runs action handlers exactly once, in stream order.

``Dispatcher.run(events)`` (and ``arun`` for async code) passes every event
through unchanged and adds, after each ``ActionComplete``, one
:class:`~unspool.events.ActionResult` or :class:`~unspool.events.ActionFailed`:

* handlers run only on ``ActionComplete`` (never on a start or an args delta);
* an ``ActionComplete`` whose args fail the registry's schema is handed on as
  ``ActionInvalid(reason="schema")`` instead, and an action name the registry does
  not know as ``ActionInvalid(reason="unknown_action")`` (args this registry's
  validation already gave, in the parser, are not validated again); valid args
  are handed on in their validated form;
* each idempotency key (the action id by default) runs at most once per ledger:
  a key already finished reports its recorded outcome again (with ``replayed=True``,
  and its action id is added to :attr:`Dispatcher.replayed`); the same key for
  another action (another name or other args) is ``ActionFailed(error_type="id_conflict")``
  and runs nothing; a key being run by another worker is waited for, up to the
  ledger's ``wait``, then ``"in_progress"``; a key claimed by a worker that died
  before its handler began is run by the next claim; a key whose handler began
  under a worker that died (or was cut off from the ledger for longer than its
  lease) reports ``ActionFailed(error_type="unknown_outcome")`` and does not run
  again, unless the handler was registered ``idempotent=True``. Every claim's lease
  is renewed from the moment it is taken (queued ones too) until its outcome is
  recorded, so a live dispatcher's claims are never taken over, and a key has one
  outcome: a dispatcher whose claim was lost anyway reports the key's outcome as
  the ledger has it;
* a handler declaring a parameter annotated :class:`~unspool.actions._context.ActionContext`
  receives the action's id, stream id and idempotency key;
* a handler's exception becomes ``ActionFailed(error_type=<exception class>)`` and
  the next action still runs;
* ``max_actions`` bounds the actions dispatched per stream (per ``run`` call);
  beyond it, ``ActionFailed(error_type="limit")``.

Other ``error_type`` values: ``"no_handler"`` (no handler registered; with
``unhandled="pass"`` such actions are left to the application and get no
event), ``"key_error"`` (the idempotency key function raised), ``"ledger_error"``
(the ledger failed: a claim that could not be taken, and the action did not run;
or an outcome that could not be recorded, said in the message),
``"result_not_stored"`` (replay of a success whose result had no JSON form).

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
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Literal, Protocol, TypeVar

from unspool.actions._context import ActionContext, idempotency_key
from unspool.actions._registry import ActionRegistry, ActionSpec
from unspool.actions.ledgers._answers import AWAITING_APPROVAL, AWAITING_CLIENT, Answer
from unspool.actions.ledgers._base import RESULT_NOT_STORED, Claim, Ledger, _LostClaim
from unspool.actions.ledgers._codec import fingerprint, safe_repr, safe_str
from unspool.actions.ledgers._memory import MemoryLedger
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionPending,
    ActionResult,
    Event,
    StreamDone,
    approval_id,
)
from unspool.protocols._emitter import Validation

__all__ = ["AnsweredCall", "Dispatcher"]

T = TypeVar("T")
Outcome = ActionResult | ActionFailed | ActionPending
_SHOWN = 200  # characters of a result shown in a ledger_error message


@dataclass(frozen=True, slots=True)
class _Job:
    """An action to claim: its validated value, ledger key and fingerprint."""

    event: ActionComplete
    spec: ActionSpec
    value: Any
    key: str
    fingerprint: str
    summary: str
    waits: Literal["client", "approval"] | None = None  # offered, not run


@dataclass(slots=True)
class _Run:
    """Claimed: call the handler, then record the outcome."""

    job: _Job
    claim: Claim
    phase: Literal["claimed", "entered", "released"] = "claimed"


# an outcome to report, a claimed run, a job whose key is in progress (claim it
# again, waiting, off the consuming thread), or nothing to add
_Step = Outcome | _Run | _Job | None


class _StreamState:
    __slots__ = ("dispatched", "rejected")

    def __init__(self) -> None:
        self.dispatched = 0
        self.rejected = 0

    def done(self, event: StreamDone) -> StreamDone:
        """``event`` with the actions this dispatcher turned invalid counted as such."""
        if not self.rejected:
            return event
        return replace(
            event,
            actions_complete=max(0, event.actions_complete - self.rejected),
            actions_invalid=event.actions_invalid + self.rejected,
        )


class Dispatcher:
    """Runs the handlers of a registry on the actions of an event stream.

    ``ledger`` defaults to a fresh :class:`MemoryLedger` (exactly once for this
    dispatcher's lifetime); pass a :class:`SqliteLedger` to survive restarts, or
    share one ledger between dispatchers (re-renders, retries) and, with a
    PostgreSQL or Redis ledger, between processes. ``max_workers`` bounds
    concurrent handlers (``None``: the thread pool's default for ``run``,
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

    def _admit(self, event: ActionComplete, state: _StreamState) -> tuple[Event, _Step | _Job]:
        """Validate ``event`` against the registry (unless its validation already gave
        these args) and say what to do: the event to hand on (``ActionInvalid``
        instead when it fails) and the job to claim, or the outcome to report."""
        spec = self.registry.get(event.name)
        if spec is None:
            verdict = self.registry.validate(event.name, event.args)
            if not verdict.ok:
                return self._reject(event, verdict, state), None
            if self.unhandled == "pass":
                return event, None
            msg = f"no handler is registered for action {event.name!r}"
            return event, _failed(event, msg, "no_handler")
        value = event.args
        if not self.registry.validated(spec, value):
            verdict = spec.validate(value)
            if not verdict.ok:
                return self._reject(event, verdict, state), None
            value = verdict.value
            if value is not event.args:
                event = replace(event, args=value)
        return event, self._job(event, spec, value, state)

    def _reject(self, event: ActionComplete, verdict: Validation, state: _StreamState) -> Event:
        state.rejected += 1
        return ActionInvalid(
            event.id, event.index, event.name, verdict.reason, verdict.errors, None, event.action_id
        )

    def _job(
        self, event: ActionComplete, spec: ActionSpec, value: Any, state: _StreamState
    ) -> Outcome | _Job | None:
        if spec.handler is None and spec.waits_for is None:
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
        try:
            key = str(spec.ledger_key(event.id, value))
        except Exception as exc:
            msg = f"the idempotency key function raised {type(exc).__name__}: {safe_str(exc)}"
            return _failed(event, msg, "key_error")
        digest, summary = fingerprint(value)
        return _Job(event, spec, value, key, digest, summary, spec.waits_for)

    def _claim_args(self, job: _Job) -> dict[str, Any]:
        return {
            "fingerprint": job.fingerprint,
            "summary": job.summary,
            "rerun_unknown": job.spec.idempotent,
        }

    def _claimed(self, job: _Job, claim: Claim, waited: bool) -> _Step:
        if claim.status == "run":
            return _Run(job, claim)
        if claim.status == "in_progress" and not waited:
            return job
        return self._recorded(job, claim)

    def _recorded(self, job: _Job, claim: Claim) -> Outcome:
        event, key, record = job.event, job.key, claim.record
        assert record is not None
        if claim.status == "conflict":
            msg = (
                f"ledger key {key!r} was recorded for {record.name} {record.summary} "
                f"(fingerprint {record.fingerprint[:12] or 'unknown'}); this action is "
                f"{event.name} {job.summary} (fingerprint {job.fingerprint[:12]}): not run"
            )
            return _failed(event, msg, "id_conflict")
        when = datetime.fromtimestamp(record.started_at, timezone.utc).isoformat(timespec="seconds")
        if claim.status == "unknown":
            msg = (
                f"action {key!r} was started at {when} (attempt {record.attempts}) and its "
                "outcome was never recorded; not run again"
            )
            return _failed(event, msg, "unknown_outcome")
        if claim.status == "in_progress":
            msg = (
                f"action {key!r} is being run by another worker (started at {when}, attempt "
                f"{record.attempts}); its outcome did not come within {self.ledger.wait:g} s; "
                "not run"
            )
            return _failed(event, msg, "in_progress")
        self.replayed.add(event.id)
        if record.ok and record.error_type != RESULT_NOT_STORED:
            return ActionResult(event.id, event.index, event.name, record.result, replayed=True)
        error_type = record.error_type or "Exception"
        return _failed(event, record.error or "", error_type, replayed=True)

    def _context(self, run: _Run) -> ActionContext | None:
        """The handler's :class:`ActionContext`, when it declares a parameter for it."""
        if run.job.spec.context is None:
            return None
        event, record = run.job.event, run.claim.record
        assert record is not None
        stream_id = event.id.rpartition(":")[0] if ":" in event.id else event.id
        return ActionContext(
            event.id,
            stream_id,
            event.name,
            run.job.key,
            idempotency_key(event.name, run.job.key),
            record.attempts,
            run.claim.rerun,
        )

    def _outcome(
        self, run: _Run, result: Any, error: tuple[str, str] | None, problem: Exception | None
    ) -> Outcome:
        """The event for a handler's outcome, once recorded (``problem``: the ledger's
        failure to record it)."""
        event = run.job.event
        if problem is not None:
            ran = f"raised {error[1]}: {error[0]}" if error else f"returned {_shown(result)}"
            msg = (
                f"the handler of {run.job.key!r} {ran}, but the ledger could not record it "
                f"({type(problem).__name__}: {safe_str(problem)}); later claims of this key "
                "report an unknown outcome"
            )
            return _failed(event, msg, "ledger_error")
        if error is not None:
            return _failed(event, error[0], error[1])
        return ActionResult(event.id, event.index, event.name, result)

    def _offered(self, job: _Job, answer: Answer) -> Outcome | _Job:
        """What offering a client or approval action gave: it waits (``ActionPending``),
        it was answered already (the recorded outcome, replayed), it is being run after
        its approval (claim it as any action), or its key holds another action."""
        event, record = job.event, answer.record
        assert job.waits is not None and record is not None
        if answer.status == "conflict":
            return self._recorded(job, Claim("conflict", record))
        if record.state == "finished":
            return self._recorded(job, Claim("finished", record))
        if answer.status == "recorded" or record.error_type in (AWAITING_CLIENT, AWAITING_APPROVAL):
            ask = approval_id(event.id) if job.waits == "approval" else None
            return ActionPending(event.id, event.index, event.name, job.waits, ask)
        return replace(job, waits=None)  # approved and started: its outcome is the run's

    def _offer_args(self, job: _Job) -> tuple[Any, ...]:
        return (job.key, job.event.name, job.event.id, job.waits)

    # sync execution ---------------------------------------------------------------------

    def _claim(self, job: _Job, wait: float | None = None) -> _Step:
        if job.waits is not None:
            try:
                answer = self.ledger.offer(
                    *self._offer_args(job), fingerprint=job.fingerprint, summary=job.summary
                )
            except Exception as exc:
                return _ledger_failed(job, exc)
            step = self._offered(job, answer)
            return self._claim(step, wait) if isinstance(step, _Job) else step
        try:
            claim = self.ledger.claim(
                job.key, job.event.name, job.event.id, wait=wait, **self._claim_args(job)
            )
        except Exception as exc:
            return _ledger_failed(job, exc)
        return self._claimed(job, claim, wait != 0)

    def _settle(self, step: _Step) -> Outcome | None:
        if isinstance(step, _Job):
            step = self._claim(step)
        if isinstance(step, _Run):
            return self._execute(step)
        assert not isinstance(step, _Job)
        return step

    def _release_unrun(self, run: _Run) -> None:
        """Release a claim whose handler was never called (it did not run)."""
        if run.phase == "claimed":
            run.phase = "released"
            _quietly(self.ledger.cancel, run.claim)

    def _execute(self, run: _Run) -> Outcome:
        run.phase = "entered"
        try:
            self.ledger.start(run.claim)  # claimed -> started, just before the handler
        except _LostClaim:  # taken over before the handler began: report what its taker did
            return self._taken(run)
        except BaseException as exc:
            _quietly(self.ledger.cancel, run.claim)  # the handler never began
            if not isinstance(exc, Exception):
                raise
            return _ledger_failed(run.job, exc)
        outcome: Outcome | None = None
        try:
            try:
                result = run.job.spec.invoke(run.job.value, self._context(run))
                if inspect.isawaitable(result):
                    result = _run_awaitable(result)
            except Exception as exc:
                outcome = self._record(run, None, _error_of(exc))
            else:
                outcome = self._record(run, result, None)
            return outcome
        finally:
            if outcome is None:  # interrupted mid-handler: the outcome is unknown
                _quietly(self.ledger.abandon, run.claim)

    def _taken(self, run: _Run) -> Outcome:
        """The outcome of a key whose claim this dispatcher lost: claimed again, waiting
        for the outcome its new holder records (or the unknown outcome it was sealed with)."""
        outcome = self._settle(self._claim(run.job))
        assert outcome is not None
        return outcome

    def _record(self, run: _Run, result: Any, error: tuple[str, str] | None) -> Outcome:
        try:
            if error is None:
                self.ledger.finish(run.claim, result=result)
            else:
                self.ledger.finish(run.claim, error=error[0], error_type=error[1])
        except _LostClaim:
            return self._taken(run)
        except Exception as exc:
            return self._outcome(run, result, error, exc)
        return self._outcome(run, result, error, None)

    def run(self, events: Iterable[Event]) -> Generator[Event, None, None]:
        """Pass ``events`` through, adding the outcome of every ``ActionComplete``."""
        if self.concurrent:
            return self._run_concurrent(events)
        return self._run_sequential(events)

    def _run_sequential(self, events: Iterable[Event]) -> Generator[Event, None, None]:
        state = _StreamState()
        for event in events:
            if isinstance(event, ActionComplete):
                passed, step = self._admit(event, state)
                yield passed
                outcome = self._settle(step)
                if outcome is not None:
                    yield outcome
            elif isinstance(event, StreamDone):
                yield state.done(event)
            else:
                yield event

    def _run_concurrent(self, events: Iterable[Event]) -> Generator[Event, None, None]:
        state = _StreamState()
        pending: deque[tuple[_Step, Future[Outcome | None]]] = deque()
        pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="unspool-action")
        # Keys held elsewhere are waited for off the handlers' pool: a worker waiting on
        # another dispatcher's queued claim while that one waits on ours would deadlock.
        waiters = ThreadPoolExecutor(self.max_workers, thread_name_prefix="unspool-action-wait")
        try:
            for event in events:
                if isinstance(event, StreamDone):
                    while pending:
                        outcome = pending.popleft()[1].result()
                        if outcome is not None:
                            yield outcome
                    event = state.done(event)
                if not isinstance(event, ActionComplete):
                    yield event
                else:
                    passed, step = self._admit(event, state)
                    yield passed
                    if isinstance(step, _Job):
                        step = self._claim(step, wait=0)  # in stream order, never waiting here
                    if isinstance(step, _Run):
                        pending.append((step, pool.submit(self._execute, step)))
                    elif isinstance(step, _Job):
                        pending.append((step, waiters.submit(self._wait_then_run, step, pool)))
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
            waiters.shutdown(wait=True)
            pool.shutdown(wait=True)

    def _wait_then_run(self, job: _Job, pool: ThreadPoolExecutor) -> Outcome | None:
        """Claim a key held elsewhere, waiting for its outcome; a claim it wins (its
        holder died) runs on the handlers' pool."""
        step = self._claim(job)
        if not isinstance(step, _Run):
            assert not isinstance(step, _Job)
            return step
        try:
            running = pool.submit(self._execute, step)
        except RuntimeError:  # the run was abandoned meanwhile: the handler never began
            self._release_unrun(step)
            return None
        return running.result()

    # async execution --------------------------------------------------------------------

    async def _aclaim(self, job: _Job, wait: float | None = None) -> _Step:
        if job.waits is not None:
            try:
                answer = await self.ledger.aoffer(
                    *self._offer_args(job), fingerprint=job.fingerprint, summary=job.summary
                )
            except Exception as exc:
                return _ledger_failed(job, exc)
            step = self._offered(job, answer)
            return await self._aclaim(step, wait) if isinstance(step, _Job) else step
        try:
            claim = await self.ledger.aclaim(
                job.key, job.event.name, job.event.id, wait=wait, **self._claim_args(job)
            )
        except Exception as exc:
            return _ledger_failed(job, exc)
        return self._claimed(job, claim, wait != 0)

    async def _asettle(self, step: _Step, limit: asyncio.Semaphore | None) -> Outcome | None:
        if isinstance(step, _Job):
            step = await self._aclaim(step)
        if not isinstance(step, _Run):
            assert not isinstance(step, _Job)
            return step
        try:
            if limit is None:
                return await self._aexecute(step)
            async with limit:
                return await self._aexecute(step)
        except asyncio.CancelledError:
            await self._arelease_unrun(step)
            raise

    async def _arelease_unrun(self, run: _Run) -> None:
        if run.phase == "claimed":
            run.phase = "released"
            await _aquietly(self.ledger.acancel(run.claim))

    async def _aexecute(self, run: _Run) -> Outcome:
        run.phase = "entered"
        try:
            await self.ledger.astart(run.claim)
        except _LostClaim:
            return await self._ataken(run)
        except BaseException as exc:
            await _aquietly(asyncio.shield(self.ledger.acancel(run.claim)))
            if not isinstance(exc, Exception):
                raise
            return _ledger_failed(run.job, exc)
        outcome: Outcome | None = None
        spec, value = run.job.spec, run.job.value
        try:
            try:
                if spec.is_async:
                    result = await spec.invoke(value, self._context(run))
                else:
                    result = await asyncio.to_thread(spec.invoke, value, self._context(run))
                if inspect.isawaitable(result):
                    result = await result
            except Exception as exc:
                outcome = await self._arecord(run, None, _error_of(exc))
            else:
                outcome = await self._arecord(run, result, None)
            return outcome
        finally:
            if outcome is None:  # cancelled mid-handler: the outcome is unknown
                await _aquietly(asyncio.shield(self.ledger.aabandon(run.claim)))

    async def _ataken(self, run: _Run) -> Outcome:
        """Async :meth:`_taken`."""
        outcome = await self._asettle(await self._aclaim(run.job), None)
        assert outcome is not None
        return outcome

    async def _arecord(self, run: _Run, result: Any, error: tuple[str, str] | None) -> Outcome:
        try:
            if error is None:
                await self.ledger.afinish(run.claim, result=result)
            else:
                await self.ledger.afinish(run.claim, error=error[0], error_type=error[1])
        except _LostClaim:
            return await self._ataken(run)
        except Exception as exc:
            return self._outcome(run, result, error, exc)
        return self._outcome(run, result, error, None)

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
            if isinstance(event, ActionComplete):
                passed, step = self._admit(event, state)
                yield passed
                outcome = await self._asettle(step, None)
                if outcome is not None:
                    yield outcome
            elif isinstance(event, StreamDone):
                yield state.done(event)
            else:
                yield event

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
                    event = state.done(event)
                if not isinstance(event, ActionComplete):
                    yield event
                else:
                    passed, step = self._admit(event, state)
                    yield passed
                    if isinstance(step, _Job):
                        step = await self._aclaim(step, wait=0)  # in stream order, not waiting
                    if isinstance(step, (_Run, _Job)):
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
                await self._arelease_unrun(step)

    # answers a request brings (the page's results, approvals) ------------------------

    def _answer(self, call: AnsweredCall, scope: str = "") -> Outcome | _Job | None:
        """Plan one call of a request: nothing (the request does not answer it), what to
        report at once (an action this server does not have, args that do not validate),
        or the job whose answer to record."""
        decision = _decision(call)
        if getattr(call, "provider_executed", False) or not (call.answered or decision):
            return None
        event = ActionComplete(call.id, _index(call.id), call.name, call.args)
        spec = self.registry.get(call.name)
        if spec is None:
            return _failed(event, f"this server has no action {call.name!r}", "unknown_call")
        if not call.id.startswith(scope):
            msg = f"call {call.id!r} is not one of this conversation's (scope {scope!r})"
            return _failed(event, msg, "unknown_call")
        verdict = spec.validate(call.args)
        if not verdict.ok:
            if call.state == "output-error" and decision is None:
                return None  # streamed as invalid: the page's error text says why, as sent
            return self._reject_answer(event, verdict)
        try:
            key = str(spec.ledger_key(call.id, verdict.value))
        except Exception as exc:
            msg = f"the idempotency key function raised {type(exc).__name__}: {safe_str(exc)}"
            return _failed(event, msg, "key_error")
        digest, summary = fingerprint(verdict.value)
        return _Job(replace(event, args=verdict.value), spec, verdict.value, key, digest, summary)

    def _reject_answer(self, event: ActionComplete, verdict: Validation) -> ActionFailed:
        messages = "; ".join(str(e.get("message", "")) for e in verdict.errors)
        return _failed(event, f"invalid action ({verdict.reason}): {messages}", "invalid_args")

    def _answered(self, job: _Job, call: AnsweredCall, answer: Answer) -> Outcome | _Job | _Run:
        """The outcome of recording ``call``'s answer (``answer``)."""
        event, status, record = job.event, answer.status, answer.record
        replayed = status == "replayed"
        if status in ("unknown_call", "not_waiting"):
            what = "streamed" if status == "unknown_call" else "left to the page or to an approval"
            msg = f"call {call.id!r} ({call.name}) was never {what} by this server: not answered"
            return _failed(event, msg, status)
        if status == "args_changed":
            assert record is not None
            msg = (
                f"the approval of {call.id!r} is for other args ({job.summary}) than the "
                f"server asked about ({record.summary}): refused, not run"
            )
            return _failed(event, msg, "args_changed")
        if status == "conflict":
            assert record is not None
            msg = f"call {call.id!r} already has another answer recorded: this one is refused"
            return _failed(event, msg, "id_conflict")
        if answer.claim is not None:
            return _Run(job, answer.claim)
        assert record is not None
        if record.state == "finished":
            outcome = self._recorded(job, Claim("finished", record))
            if not replayed and isinstance(outcome, (ActionResult, ActionFailed)):
                outcome = replace(outcome, replayed=False)
                self.replayed.discard(event.id)
            return outcome
        return job  # approved before and being run: wait for its outcome as any claim

    def _client_answer(self, job: _Job, call: AnsweredCall) -> tuple[str, dict[str, Any]]:
        if call.state == "output-available":
            return "record_client_result", {"result": call.output}
        return "record_client_result", {"error": call.error or "the page reported an error"}

    def _server_answer(self, job: _Job) -> Outcome:
        """A call the server runs, answered in the request: the ledger's record of it,
        never the page's copy."""
        try:
            record = self.ledger.get(job.key)
        except Exception as exc:
            return _ledger_failed(job, exc)
        return self._record_of(job, record)

    def _record_of(self, job: _Job, record: Any) -> Outcome:
        if record is None or record.name != job.event.name:
            msg = f"call {job.event.id!r} ({job.event.name}) was never run by this server"
            return _failed(job.event, msg, "unknown_call")
        if record.state != "finished":
            msg = f"call {job.event.id!r} has no recorded outcome yet"
            return _failed(job.event, msg, "in_progress")
        return self._recorded(job, Claim("finished", record))

    def _route(self, job: _Job, call: AnsweredCall) -> tuple[str, dict[str, Any]] | None:
        """The ledger method and arguments recording ``call``'s answer; ``None`` for a
        call the server runs itself (its record is read instead)."""
        decision = _decision(call)
        waits = job.spec.waits_for
        if decision is not None:
            if waits != "approval":
                return "_not_waiting", {}
            approved, reason = decision
            return "record_approval", {
                "approved": approved,
                "fingerprint": job.fingerprint,
                "reason": reason,
            }
        if waits == "client":
            return self._client_answer(job, call)
        return None

    def resume(self, calls: Iterable[AnsweredCall], *, scope: str = "") -> list[Outcome]:
        """Record the answers a request brings and report every answered call's outcome,
        as this server's ledger has it (a request can be forged: nothing runs or is
        answered because it says so).

        ``calls`` are the request's tool calls (``ChatRequest.tool_calls``). For each one
        the request answers: a client action's result (or error) is recorded once (the
        same again: replayed; another: ``id_conflict``); an approval decision is recorded
        once, and an approved action is run here, exactly once (a denied one never: its
        outcome is ``ActionFailed(error_type="denied")``, what the model is told); an
        approval for other args than those streamed is ``args_changed``; a server
        action's outcome is the ledger's record, replayed. A call this server never
        streamed and recorded is ``unknown_call`` (``not_waiting``: it was not left to the
        page or to an approval). Calls the request does not answer are skipped. Give the
        outcomes to ``chat.to_messages(provider, results=...)``.

        ``scope``: a prefix every call id of this conversation has (give ``run_turns`` a
        ``stream_id`` starting with it, e.g. the signed-in user's id): a call id without it
        is ``unknown_call``, so a request can answer only its own user's calls, even one
        that knows another's ids."""
        out: list[Outcome] = []
        for call in calls:
            step: Outcome | _Job | _Run | None = self._answer(call, scope)
            if isinstance(step, _Job):
                route = self._route(step, call)
                if route is None:
                    step = self._server_answer(step)
                elif route[0] == "_not_waiting":
                    step = self._answered(step, call, Answer("not_waiting"))
                else:
                    try:
                        answer = getattr(self.ledger, route[0])(
                            step.key, step.event.name, **route[1]
                        )
                    except Exception as exc:  # a ledger failure, or a result with no JSON form
                        step = _ledger_failed(step, exc)
                    else:
                        step = self._answered(step, call, answer)
            if isinstance(step, (_Job, _Run)):
                step = self._settle(step)
            if step is not None:
                out.append(step)
        return out

    async def aresume(self, calls: Iterable[AnsweredCall], *, scope: str = "") -> list[Outcome]:
        """Async :meth:`resume` (handlers run as under :meth:`arun`)."""
        out: list[Outcome] = []
        for call in calls:
            step: Outcome | _Job | _Run | None = self._answer(call, scope)
            if isinstance(step, _Job):
                route = self._route(step, call)
                if route is None:
                    try:
                        record = await self.ledger.aget(step.key)
                    except Exception as exc:
                        step = _ledger_failed(step, exc)
                    else:
                        step = self._record_of(step, record)
                elif route[0] == "_not_waiting":
                    step = self._answered(step, call, Answer("not_waiting"))
                else:
                    try:
                        answer = await getattr(self.ledger, "a" + route[0])(
                            step.key, step.event.name, **route[1]
                        )
                    except Exception as exc:
                        step = _ledger_failed(step, exc)
                    else:
                        step = self._answered(step, call, answer)
            if isinstance(step, (_Job, _Run)):
                step = await self._asettle(step, None)
            if step is not None:
                out.append(step)
        return out


class AnsweredCall(Protocol):
    """A tool call as a chat request holds it (``unspool.web``'s ``RequestToolCall``):
    its id, name and args as the page sent them, its state (the AI SDK's names), the
    page's output or error, and the approval asked with its answer, if any."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def args(self) -> Any: ...
    @property
    def output(self) -> Any: ...
    @property
    def error(self) -> str | None: ...
    @property
    def approval(self) -> Any: ...
    @property
    def answered(self) -> bool: ...


def _decision(call: AnsweredCall) -> tuple[bool, str | None] | None:
    """The approval decision ``call`` carries: (approved, reason), or ``None``."""
    approval = call.approval
    if approval is None or call.state not in ("approval-responded", "output-denied"):
        return None
    approved = getattr(approval, "approved", None)
    if approved is None:
        return None
    return bool(approved), getattr(approval, "reason", None)


def _index(action_id: str) -> int:
    tail = action_id.rpartition(":")[2]
    return int(tail) if tail.isdigit() and len(tail) < 10 else 0


def _failed(
    event: ActionComplete, error: str, error_type: str, *, replayed: bool = False
) -> ActionFailed:
    return ActionFailed(event.id, event.index, event.name, error, error_type, replayed)


def _ledger_failed(job: _Job, exc: Exception) -> ActionFailed:
    msg = (
        f"the ledger could not claim key {job.key!r} ({type(exc).__name__}: {safe_str(exc)}); "
        "not run"
    )
    return _failed(job.event, msg, "ledger_error")


def _error_of(exc: Exception) -> tuple[str, str]:
    """The message and type of a handler's exception (even when its ``__str__`` raises)."""
    return safe_str(exc) or type(exc).__name__, type(exc).__name__


def _shown(result: Any) -> str:
    text = safe_repr(result)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _quietly(release: Any, claim: Claim) -> None:
    """Release a claim on the way out of an interruption; a ledger failure here must
    not hide the interruption (the lease then expires on its own)."""
    try:
        release(claim)
    except Exception:  # the lease expires by itself; the interruption is what matters
        return


async def _aquietly(release: Awaitable[None]) -> None:
    try:
        await release
    except Exception:  # as in _quietly
        return


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

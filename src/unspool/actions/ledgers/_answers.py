"""Answers from outside the server, recorded under the action's key, once.

An action the page runs itself (``runs_on="client"``) or that needs a person's
approval (``approval=True``) is not run when the model calls it: the dispatcher
*offers* it (:meth:`Answers.offer`), a ``started`` row that waits, with no lease
(it never expires: a page can answer hours later) and ``error_type`` naming what it
waits for (:data:`AWAITING_CLIENT`, :data:`AWAITING_APPROVAL`). The next request
carries the answer, which is recorded on that row by compare-and-set on its token
(:meth:`Answers.settle_answer`, the storage interface's ``take_over``), so of two requests
racing with answers one wins and the other sees the recorded one:

* :meth:`Answers.record_client_result`: the page's result (or its error) finishes
  the row (``ok=True``, ``error_type`` :data:`CLIENT_RESULT`; ``ok=False``,
  :data:`CLIENT_ERROR`). The same result again is ``"replayed"``, another result
  ``"conflict"``.
* :meth:`Answers.record_approval`: a denial finishes the row (``ok=False``,
  ``error_type`` :data:`DENIED`, the reason as ``error``); an approval turns it into
  an ordinary ``claimed`` row with a lease, held by the :class:`~unspool.actions.ledgers._base.Claim`
  returned (``status="run"``: run the handler, then ``finish`` it), so the action runs
  exactly once. The same decision again is ``"replayed"``, the other one
  ``"conflict"``; an approval for other args than those offered is
  ``"args_changed"`` (the fingerprints differ) and changes nothing.

A key with no row was never offered by this server: ``"unknown_call"`` (a forged
conversation); a row that waits for something else (or never waited: a server
action) is ``"not_waiting"``. Nothing runs and nothing is recorded in either case.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from unspool.actions.ledgers._codec import Unstorable, jsonable

if TYPE_CHECKING:  # pragma: no cover
    from unspool.actions.ledgers._base import Claim, Record

__all__ = [
    "AWAITING",
    "AWAITING_APPROVAL",
    "AWAITING_CLIENT",
    "CLIENT_ERROR",
    "CLIENT_RESULT",
    "DENIED",
    "Answer",
    "AnswerStatus",
    "Answers",
    "WaitingFor",
]

WaitingFor = Literal["client", "approval"]
AnswerStatus = Literal[
    "recorded", "replayed", "conflict", "args_changed", "unknown_call", "not_waiting"
]

AWAITING_CLIENT = "awaiting_client"
"""``error_type`` of a started row waiting for the page's result."""
AWAITING_APPROVAL = "awaiting_approval"
"""``error_type`` of a started row waiting for an approval."""
AWAITING: dict[str, str] = {"client": AWAITING_CLIENT, "approval": AWAITING_APPROVAL}
CLIENT_RESULT = "client_result"
"""``error_type`` of a finished row holding the page's result (``ok=True``)."""
CLIENT_ERROR = "client_error"
"""``error_type`` of a finished row holding the page's error (``ok=False``)."""
DENIED = "denied"
"""``error_type`` of a finished row of a denied action (``ok=False``; ``error``: the reason)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What recording an offer or an answer did (see the module docs). ``record`` is
    the row found or written; ``claim``, for a newly recorded approval, is the
    ``"run"`` claim to run the handler under."""

    status: AnswerStatus
    record: Record | None = None
    claim: Claim | None = None


@dataclass(frozen=True, slots=True)
class _Op:
    method: str
    args: tuple[Any, ...]


def _same_value(a: Any, b: Any) -> bool:
    try:
        return bool(jsonable(a) == jsonable(b))
    except Unstorable:
        return bool(a == b)


class Answers:
    """The offer/answer methods of a ledger (mixed into
    :class:`~unspool.actions.ledgers._base.Ledger`; they use its storage interface only)."""

    lease: float | None
    stores_objects: bool

    if TYPE_CHECKING:  # the storage interface of Ledger, which this is mixed into

        def take_over(self, token: str, row: Record) -> bool: ...
        async def atake_over(self, token: str, row: Record) -> bool: ...
        def _hold(self, record: Record, *, asynchronous: bool) -> None: ...

    def settle_answer(self, token: str, row: Record) -> bool:
        """Replace the waiting row of ``row.key`` held by ``token`` by ``row`` (finished,
        or started for an approved run), compare-and-set; the storage's ``take_over``
        unless a backend has more to do (Redis: a finished row's retention)."""
        return self.take_over(token, row)

    async def asettle_answer(self, token: str, row: Record) -> bool:
        """Async :meth:`settle_answer`."""
        return await self.atake_over(token, row)

    # the steps, written once for the sync and async methods --------------------------

    def _offer_steps(
        self,
        key: str,
        name: str,
        action_id: str,
        waiting_for: WaitingFor,
        fingerprint: str,
        summary: str,
    ) -> Generator[_Op, Any, Answer]:
        from unspool.actions.ledgers._base import Record

        if waiting_for not in AWAITING:
            raise ValueError(f"waiting_for must be 'client' or 'approval', not {waiting_for!r}")
        row = Record(
            key,
            name,
            action_id,
            "started",
            time.time(),
            fingerprint=fingerprint,
            summary=summary,
            token=os.urandom(12).hex(),
            lease_until=None,
            error_type=AWAITING[waiting_for],
        )
        found = yield _Op("insert_started", (row,))
        if found is None or found.token == row.token:
            return Answer("recorded", row)
        if found.name != name or (found.fingerprint and found.fingerprint != fingerprint):
            return Answer("conflict", found)
        return Answer("replayed", found)

    def _client_steps(
        self, key: str, name: str, result: Any, error: str | None
    ) -> Generator[_Op, Any, Answer]:
        ok = error is None
        if ok and not self.stores_objects:
            result = jsonable(result)  # Unstorable: the caller's to report
        while True:
            found = yield _Op("get", (key,))
            if found is None:
                return Answer("unknown_call")
            if found.name != name:
                return Answer("conflict", found)
            if found.state == "started" and found.error_type == AWAITING_CLIENT:
                done = replace(
                    found,
                    state="finished",
                    ok=ok,
                    result=result if ok else None,
                    error=error,
                    error_type=CLIENT_RESULT if ok else CLIENT_ERROR,
                    finished_at=time.time(),
                )
                if (yield _Op("settle_answer", (found.token, done))):
                    return Answer("recorded", done)
                continue  # answered meanwhile: look again
            if found.state == "finished" and found.error_type in (CLIENT_RESULT, CLIENT_ERROR):
                same = found.ok == ok and (
                    _same_value(found.result, result) if ok else found.error == error
                )
                return Answer("replayed" if same else "conflict", found)
            return Answer("not_waiting", found)

    def _approval_steps(
        self, key: str, name: str, approved: bool, fingerprint: str, reason: str | None
    ) -> Generator[_Op, Any, Answer]:
        from unspool.actions.ledgers._base import Claim

        while True:
            found = yield _Op("get", (key,))
            if found is None:
                return Answer("unknown_call")
            if found.name != name:
                return Answer("conflict", found)
            if found.error_type in (AWAITING_CLIENT, CLIENT_RESULT, CLIENT_ERROR):
                return Answer("not_waiting", found)
            if found.fingerprint != fingerprint:
                return Answer("args_changed", found)
            if found.state == "started" and found.error_type == AWAITING_APPROVAL:
                now = time.time()
                if approved:  # claimed: its handler begins when the holder starts it
                    row = replace(
                        found,
                        state="claimed",
                        started_at=now,
                        token=os.urandom(12).hex(),
                        error_type=None,
                        lease_until=None if self.lease is None else now + self.lease,
                    )
                else:
                    row = replace(
                        found,
                        state="finished",
                        ok=False,
                        error=reason or "the action was denied",
                        error_type=DENIED,
                        finished_at=now,
                    )
                if (yield _Op("settle_answer", (found.token, row))):
                    return Answer("recorded", row, Claim("run", row) if approved else None)
                continue
            if found.state == "finished" and found.error_type == DENIED:
                return Answer("conflict" if approved else "replayed", found)
            if found.state == "started" and found.error_type is not None:
                return Answer("not_waiting", found)
            return Answer("replayed" if approved else "conflict", found)  # approved, run

    def _drive(self, steps: Generator[_Op, Any, Answer]) -> Answer:
        try:
            op = next(steps)
            while True:
                op = steps.send(getattr(self, op.method)(*op.args))
        except StopIteration as stop:
            done: Answer = stop.value
            return done

    async def _adrive(self, steps: Generator[_Op, Any, Answer]) -> Answer:
        try:
            op = next(steps)
            while True:
                op = steps.send(await getattr(self, "a" + op.method)(*op.args))
        except StopIteration as stop:
            done: Answer = stop.value
            return done

    # the methods ----------------------------------------------------------------------

    def offer(
        self,
        key: str,
        name: str,
        action_id: str,
        waiting_for: WaitingFor,
        *,
        fingerprint: str = "",
        summary: str = "",
    ) -> Answer:
        """Record that the action ``name`` under ``key`` was streamed to wait for the
        page (``waiting_for="client"``) or for an approval (``"approval"``):
        ``"recorded"``; ``"replayed"`` when that key already holds this action (the
        row says how far it got); ``"conflict"`` for another action on the key."""
        return self._drive(
            self._offer_steps(key, name, action_id, waiting_for, fingerprint, summary)
        )

    async def aoffer(
        self,
        key: str,
        name: str,
        action_id: str,
        waiting_for: WaitingFor,
        *,
        fingerprint: str = "",
        summary: str = "",
    ) -> Answer:
        """Async :meth:`offer`."""
        return await self._adrive(
            self._offer_steps(key, name, action_id, waiting_for, fingerprint, summary)
        )

    def record_client_result(
        self, key: str, name: str, *, result: Any = None, error: str | None = None
    ) -> Answer:
        """Record the page's ``result`` (or its ``error``) for the client action offered
        under ``key`` (see the module docs for the statuses). Raises
        :class:`~unspool.actions.ledgers._codec.Unstorable` for a result with no JSON
        form (a durable ledger stores JSON)."""
        return self._drive(self._client_steps(key, name, result, error))

    async def arecord_client_result(
        self, key: str, name: str, *, result: Any = None, error: str | None = None
    ) -> Answer:
        """Async :meth:`record_client_result`."""
        return await self._adrive(self._client_steps(key, name, result, error))

    def record_approval(
        self,
        key: str,
        name: str,
        *,
        approved: bool,
        fingerprint: str,
        reason: str | None = None,
    ) -> Answer:
        """Record a decision on the action offered for approval under ``key``, whose
        args have ``fingerprint`` in the request (see the module docs). A newly
        recorded approval comes with the ``"run"`` claim to run the handler under (held
        from now, as a claim of :meth:`~unspool.actions.ledgers._base.Ledger.claim` is)."""
        done = self._drive(self._approval_steps(key, name, approved, fingerprint, reason))
        if done.claim is not None and done.claim.record is not None:
            self._hold(done.claim.record, asynchronous=False)
        return done

    async def arecord_approval(
        self,
        key: str,
        name: str,
        *,
        approved: bool,
        fingerprint: str,
        reason: str | None = None,
    ) -> Answer:
        """Async :meth:`record_approval`."""
        steps = self._approval_steps(key, name, approved, fingerprint, reason)
        done = await self._adrive(steps)
        if done.claim is not None and done.claim.record is not None:
            self._hold(done.claim.record, asynchronous=True)
        return done

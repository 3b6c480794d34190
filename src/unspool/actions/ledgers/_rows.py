"""A :class:`Record` as the column values of a SQL row, and back: what the SQL
ledgers share (text escaped by :func:`~unspool.actions.ledgers._codec.to_text`,
results as JSON text)."""

from __future__ import annotations

from typing import Any

from unspool.actions.ledgers._base import Record
from unspool.actions.ledgers._codec import dump_json, from_text, load_json, to_text

__all__ = ["COLUMNS", "from_row", "to_row"]

COLUMNS = (
    "key",
    "name",
    "action_id",
    "state",
    "started_at",
    "attempts",
    "ok",
    "result",
    "error",
    "error_type",
    "finished_at",
    "fingerprint",
    "summary",
    "token",
    "lease_until",
)
"""The columns of a ledger table, in :class:`Record` field order."""


def _text(value: str | None) -> str | None:
    return None if value is None else to_text(value)


def _untext(value: str | None) -> str | None:
    return None if value is None else from_text(value)


def to_row(r: Record) -> tuple[Any, ...]:
    """The column values of ``r``, in :data:`COLUMNS` order (``ok`` stays a bool)."""
    result = dump_json(r.result) if r.ok else None
    return (
        to_text(r.key),
        to_text(r.name),
        to_text(r.action_id),
        r.state,
        r.started_at,
        r.attempts,
        r.ok,
        result,
        _text(r.error),
        _text(r.error_type),
        r.finished_at,
        r.fingerprint,
        to_text(r.summary),
        r.token,
        r.lease_until,
    )


def from_row(row: tuple[Any, ...] | list[Any]) -> Record:
    """The :class:`Record` of column values in :data:`COLUMNS` order."""
    (key, name, action_id, state, started_at, attempts, ok, result, error, error_type) = row[:10]
    finished_at, fingerprint, summary, token, lease_until = row[10:15]
    return Record(
        key=from_text(key),
        name=from_text(name),
        action_id=from_text(action_id),
        state=state,
        started_at=float(started_at),
        attempts=int(attempts),
        ok=None if ok is None else bool(ok),
        result=None if result is None else load_json(result),
        error=_untext(error),
        error_type=_untext(error_type),
        finished_at=None if finished_at is None else float(finished_at),
        fingerprint=fingerprint or "",
        summary=from_text(summary or ""),
        token=token or "",
        lease_until=None if lease_until is None else float(lease_until),
    )

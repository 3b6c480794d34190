"""Ledgers: the record that makes an action run at most once per key.

``base.py`` holds the semantics (claim with fingerprint, lease and heartbeats,
finish, replay, waiting for a claim in progress, unknown outcomes, retention) and
the storage interface a backend implements; ``answers.py`` the answers from outside
(the page's result for a client action, an approval decision), recorded once on the
same storage interface; each other module is one backend:
:class:`MemoryLedger` (one process), :class:`SqliteLedger` (one machine),
:class:`PostgresLedger` and :class:`RedisLedger` (many machines; imported on first
access, as they need the extras ``unspool[postgres]`` / ``unspool[redis]``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from unspool._extras import needs_extra
from unspool.actions.ledgers._answers import Answer
from unspool.actions.ledgers._base import Claim, ClaimStatus, Ledger, LedgerError, Record
from unspool.actions.ledgers._memory import MemoryLedger
from unspool.actions.ledgers._sqlite import SqliteLedger

BACKENDS: dict[str, tuple[str, str]] = {
    "PostgresLedger": ("unspool.actions.ledgers._postgres", "postgres"),
    "RedisLedger": ("unspool.actions.ledgers._redis", "redis"),
}
"""The ledgers on third-party clients: name -> (module, extra)."""

if TYPE_CHECKING:  # pragma: no cover - the lazy names, for type checkers
    from unspool.actions.ledgers._postgres import PostgresLedger
    from unspool.actions.ledgers._redis import RedisLedger


def __getattr__(name: str) -> Any:
    if name not in BACKENDS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, extra = BACKENDS[name]
    with needs_extra(extra, name):  # the backend module names what it misses itself
        value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Answer",
    "Claim",
    "ClaimStatus",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "PostgresLedger",
    "Record",
    "RedisLedger",
    "SqliteLedger",
]

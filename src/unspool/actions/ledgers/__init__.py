"""Ledgers: the record that makes an action run at most once per key.

``base.py`` holds the semantics (claim with fingerprint, lease and heartbeats,
finish, replay, waiting for a claim in progress, unknown outcomes, retention) and
the storage interface a backend implements; each other module is one backend:
:class:`MemoryLedger` (one process), :class:`SqliteLedger` (one machine).
"""

from unspool.actions.ledgers.base import Claim, ClaimStatus, Ledger, LedgerError, Record
from unspool.actions.ledgers.memory import MemoryLedger
from unspool.actions.ledgers.sqlite import SqliteLedger

__all__ = [
    "Claim",
    "ClaimStatus",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "Record",
    "SqliteLedger",
]

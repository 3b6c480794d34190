"""The former home of the ledgers, kept so that old imports keep working; they
now live in :mod:`unspool.actions.ledgers`."""

from unspool.actions.ledgers import (
    Claim,
    ClaimStatus,
    Ledger,
    LedgerError,
    MemoryLedger,
    Record,
    SqliteLedger,
)

__all__ = [
    "Claim",
    "ClaimStatus",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "Record",
    "SqliteLedger",
]

"""Action schemas, validation and exactly-once dispatch (extra: ``unspool[actions]``).

* :class:`ActionRegistry`: actions by name, with a handler, a Pydantic model or a
  JSON Schema; parsers take it as ``registry=`` to validate args in the stream.
* :class:`Dispatcher`: runs handlers on ``ActionComplete`` only, once per key,
  in stream order, adding ``ActionResult`` / ``ActionFailed``.
* :class:`MemoryLedger`, :class:`SqliteLedger`, :class:`PostgresLedger`,
  :class:`RedisLedger`: what makes "once" hold across re-renders, retries,
  restarts and workers (:mod:`unspool.actions.ledgers`; the last two are imported
  on first access).
* :class:`ActionContext`: what a handler may learn about its action (ids, an
  idempotency key for the services it calls).
* :func:`stream_model`, :func:`astream_model`: typed partial Pydantic models
  while their JSON streams (text, or a provider's events); :func:`model_data`,
  :func:`amodel_data`: those events for a page, the model as it fills in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unspool._extras import needs_extra

with needs_extra("actions", "unspool.actions"):
    import jsonschema  # noqa: F401
    import pydantic  # noqa: F401

from unspool.actions import ledgers
from unspool.actions._context import ActionContext
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._partial_model import (
    JsonFromEvents,
    ModelStream,
    Partial,
    PartialModel,
    amodel_data,
    astream_model,
    model_data,
    stream_model,
)
from unspool.actions._registry import ActionRegistry, ActionSpec
from unspool.actions._strict_schemas import StrictSchemaError
from unspool.actions.ledgers import Claim, Ledger, LedgerError, MemoryLedger, Record, SqliteLedger

if TYPE_CHECKING:  # pragma: no cover - the lazy names, for type checkers
    from unspool.actions.ledgers import PostgresLedger, RedisLedger


def __getattr__(name: str) -> Any:
    if name in ledgers.BACKENDS:
        return getattr(ledgers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ActionContext",
    "ActionRegistry",
    "ActionSpec",
    "Claim",
    "Dispatcher",
    "JsonFromEvents",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "ModelStream",
    "Partial",
    "PartialModel",
    "PostgresLedger",
    "Record",
    "RedisLedger",
    "SqliteLedger",
    "StrictSchemaError",
    "amodel_data",
    "astream_model",
    "model_data",
    "stream_model",
]

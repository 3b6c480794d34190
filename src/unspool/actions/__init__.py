"""Action schemas, validation and exactly-once dispatch (extra: ``unspool[actions]``).

* :class:`ActionRegistry`: actions by name, with a handler, a Pydantic model or a
  JSON Schema; parsers take it as ``registry=`` to validate args in the stream.
* :class:`Dispatcher`: runs handlers on ``ActionComplete`` only, once per key,
  in stream order, adding ``ActionResult`` / ``ActionFailed``.
* :class:`MemoryLedger`, :class:`SqliteLedger`: what makes "once" hold across
  re-renders, retries and restarts (:mod:`unspool.actions.ledgers`).
* :class:`ActionContext`: what a handler may learn about its action (ids, an
  idempotency key for the services it calls).
* :func:`stream_model`, :func:`astream_model`: typed partial Pydantic models
  while their JSON streams.
"""

from unspool.actions.context import ActionContext
from unspool.actions.dispatcher import Dispatcher
from unspool.actions.ledgers import Claim, Ledger, LedgerError, MemoryLedger, Record, SqliteLedger
from unspool.actions.partial_model import (
    ModelStream,
    Partial,
    PartialModel,
    astream_model,
    stream_model,
)
from unspool.actions.registry import ActionRegistry, ActionSpec

__all__ = [
    "ActionContext",
    "ActionRegistry",
    "ActionSpec",
    "Claim",
    "Dispatcher",
    "Ledger",
    "LedgerError",
    "MemoryLedger",
    "ModelStream",
    "Partial",
    "PartialModel",
    "Record",
    "SqliteLedger",
    "astream_model",
    "stream_model",
]

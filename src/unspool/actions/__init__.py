"""Action schemas, validation and exactly-once dispatch (extra: ``unspool[actions]``).

* :class:`ActionRegistry`: actions by name, with a handler, a Pydantic model or a
  JSON Schema; parsers take it as ``registry=`` to validate args in the stream.
* :class:`Dispatcher`: runs handlers on ``ActionComplete`` only, once per key,
  in stream order, adding ``ActionResult`` / ``ActionFailed``.
* :class:`MemoryLedger`, :class:`SqliteLedger`: what makes "once" hold across
  re-renders, retries and restarts.
* :func:`stream_model`, :func:`astream_model`: typed partial Pydantic models
  while their JSON streams.
"""

from unspool.actions.dispatcher import Dispatcher
from unspool.actions.ledger import Claim, Ledger, MemoryLedger, Record, SqliteLedger
from unspool.actions.partial_model import ModelStream, PartialModel, astream_model, stream_model
from unspool.actions.registry import ActionRegistry, ActionSpec

__all__ = [
    "ActionRegistry",
    "ActionSpec",
    "Claim",
    "Dispatcher",
    "Ledger",
    "MemoryLedger",
    "ModelStream",
    "PartialModel",
    "Record",
    "SqliteLedger",
    "astream_model",
    "stream_model",
]

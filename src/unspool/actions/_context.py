"""What a handler may learn about the action it runs: :class:`ActionContext`.

A handler declares a parameter annotated ``ActionContext`` (any name, anywhere in
its signature) to receive it; that parameter is not part of the action's args::

    @registry.action
    def charge(order: str, cents: int, ctx: ActionContext) -> str:
        return payments.charge(order, cents, idempotency_key=ctx.idempotency_key)

``idempotency_key`` depends only on the action's name and its ledger key, so a
re-run of an ``idempotent=True`` action after an unknown outcome (a crash while
it ran) passes the same key on to the services it calls, and they can drop the
duplicate: exactly once beyond the process.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["ActionContext", "idempotency_key"]


def idempotency_key(name: str, ledger_key: str) -> str:
    """A key for the services a handler calls: 32 hex digits derived from the action's
    name and its ledger key (safe for any API's header or column)."""
    raw = f"{name}\x00{ledger_key}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class ActionContext:
    """The action a handler is running.

    ``action_id`` is the event's id (``"{stream_id}:{index}"``), ``stream_id`` the
    part before the last ``:``; ``key`` is the ledger key (the action id, or
    ``"{name}:{key(args)}"`` with a ``key=`` function); ``idempotency_key`` is
    derived from the name and ``key``; ``attempt`` counts the runs recorded for the
    key (1 the first time); ``rerun`` is True when an earlier run's outcome is
    unknown (it may have taken effect) and this ``idempotent=True`` action runs again.
    """

    action_id: str
    stream_id: str
    name: str
    key: str
    idempotency_key: str
    attempt: int = 1
    rerun: bool = False

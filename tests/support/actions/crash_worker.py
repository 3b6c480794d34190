"""A process that dispatches two actions with a durable ledger, for the crash tests.

Usage: ``python crash_worker.py LEDGER RUNS MODE [idempotent]``. LEDGER is an
SQLite file path, or the JSON of :func:`tests.support.actions.servers.spec`. Each
handler run appends the order id to the file RUNS (fsynced) before anything else;
with MODE ``hang`` the handler of order ``A`` then prints ``RUNNING`` and sleeps
until the test kills the process with SIGKILL (between "started" and "finished"
in the ledger; the lease is 0.5 s). With MODE ``normal`` every event is printed
as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time

from tests.support.actions.servers import close, open_ledger
from tests.support.actions.streams import action_stream
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._registry import ActionRegistry


def main() -> None:
    where, runs, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    idempotent = len(sys.argv) > 4 and sys.argv[4] == "idempotent"
    registry = ActionRegistry()

    @registry.action(idempotent=idempotent)
    def charge(order: str, cents: int) -> dict[str, object]:
        """Charge an order (a side effect that must not happen twice)."""
        with open(runs, "a", encoding="utf-8") as f:
            f.write(order + "\n")
            f.flush()
            os.fsync(f.fileno())
        if mode == "hang" and order == "A":
            print("RUNNING", flush=True)
            time.sleep(600)
        return {"order": order, "charged": cents}

    events = action_stream(
        [("charge", {"order": "A", "cents": 500}), ("charge", {"order": "B", "cents": 700})],
        stream_id="reply-1",
        registry=registry,
    )
    spec = json.loads(where) if where.startswith("{") else {"kind": "sqlite", "path": where}
    ledger = open_ledger(spec, lease=0.5)
    try:
        for event in Dispatcher(registry, ledger).run(events):
            print(json.dumps(event.to_dict()), flush=True)
    finally:
        close(ledger)


if __name__ == "__main__":
    main()

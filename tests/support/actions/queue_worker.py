"""A process whose concurrent dispatcher holds queued claims when it is killed.

Usage: ``python queue_worker.py LEDGER RUNS ACTIONS``. LEDGER is the JSON of
:func:`tests.support.actions.servers.spec`. ``Dispatcher(concurrent=True, max_workers=1)``
claims all ACTIONS actions of the reply ``queued`` up front; the handler of action
0 appends ``0`` to RUNS, prints ``RUNNING`` and sleeps until the test kills the
process with SIGKILL, so actions 1... stay claimed and never started. The lease is
0.3 s.
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

LEASE = 0.3


def main() -> None:
    where, runs, actions = sys.argv[1], sys.argv[2], int(sys.argv[3])
    registry = ActionRegistry()
    fd = os.open(runs, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    @registry.action
    def work(n: int) -> int:
        os.write(fd, f"{n}\n".encode())
        if n == 0:
            while len(ledger.records()) < actions:  # until the rest are claimed, queued
                time.sleep(0.01)
            print("RUNNING", flush=True)
            time.sleep(600)
        return n * n

    events = action_stream(
        [("work", {"n": n}) for n in range(actions)], stream_id="queued", registry=registry
    )
    ledger = open_ledger(json.loads(where), lease=LEASE)
    try:
        for _ in Dispatcher(registry, ledger, concurrent=True, max_workers=1).run(events):
            pass
    finally:
        close(ledger)


if __name__ == "__main__":
    main()

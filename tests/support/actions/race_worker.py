"""A process that dispatches the same 100-action reply as its peers, for the race test.

Usage: ``python race_worker.py LEDGER RUNS GO``. LEDGER is the JSON of
:func:`tests.support.actions.servers.spec`. The worker prepares everything, prints
``READY``, waits for the file GO to exist (the test creates it once every worker
is ready), then dispatches; each handler run appends its action's number to RUNS
(one ``O_APPEND`` write), and every outcome is printed as one JSON line.
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

ACTIONS = 100


def main() -> None:
    where, runs, go = sys.argv[1], sys.argv[2], sys.argv[3]
    registry = ActionRegistry()
    fd = os.open(runs, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    @registry.action
    def work(n: int) -> int:
        os.write(fd, f"{n}\n".encode())
        time.sleep(0.002)
        return n * n

    events = action_stream(
        [("work", {"n": n}) for n in range(ACTIONS)], stream_id="race", registry=registry
    )
    ledger = open_ledger(json.loads(where), lease=5.0)  # no worker dies here
    dispatcher = Dispatcher(registry, ledger)
    ledger.get("warm-up")  # connect (and create the table) before the start
    print("READY", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    try:
        for event in dispatcher.run(events):
            if event.type in ("action_result", "action_failed"):
                print(json.dumps(event.to_dict()), flush=True)
    finally:
        close(ledger)
        os.close(fd)


if __name__ == "__main__":
    main()

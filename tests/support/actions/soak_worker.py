"""One process of the ledger soak: several dispatchers on one shared reply.

Usage: ``python soak_worker.py LEDGER OUT ACTIONS DISPATCHERS LEASE SEED``. LEDGER is
the JSON of :func:`tests.support.actions.servers.spec`; OUT a folder. Each of the
DISPATCHERS threads runs ``Dispatcher(concurrent=True, max_workers=2)`` over all
ACTIONS actions, in an order of its own (a seeded shuffle), each keyed by its
number (``key=``), so every dispatcher of every process competes for every key.
A handler appends its number to ``OUT/begins`` (one ``O_APPEND`` write) first,
then sleeps 0.5 to 1.5 leases, and returns who ran it (process and thread). Every outcome is appended
to ``OUT/outcomes`` as one JSON line. The test SIGKILLs these processes at random.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time

from tests.support.actions.servers import close, open_ledger
from tests.support.actions.streams import action_stream
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._registry import ActionRegistry
from unspool.events import ActionFailed, ActionResult


def main() -> None:
    where, out = json.loads(sys.argv[1]), sys.argv[2]
    actions, dispatchers = int(sys.argv[3]), int(sys.argv[4])
    lease, seed = float(sys.argv[5]), int(sys.argv[6])
    begins = os.open(os.path.join(out, "begins"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    outcomes = os.open(os.path.join(out, "outcomes"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    registry = ActionRegistry()

    @registry.action(key=lambda args: args["n"] if isinstance(args, dict) else args.n)
    def work(n: int) -> str:
        os.write(begins, f"{n}\n".encode())
        time.sleep(random.uniform(0.5, 1.5) * lease)
        return f"{os.getpid()}/{threading.get_ident()}"  # who ran it

    def dispatch(d: int) -> None:
        order = list(range(actions))
        random.Random(seed * 100 + d).shuffle(order)
        events = action_stream(
            [("work", {"n": n}) for n in order],
            stream_id=f"soak-{seed}-{d}",
            registry=registry,
        )
        ledger = open_ledger(where, lease=lease, wait=600.0)
        try:
            for event in Dispatcher(registry, ledger, concurrent=True, max_workers=2).run(events):
                if isinstance(event, (ActionResult, ActionFailed)):
                    line = {
                        "n": order[int(event.id.rpartition(":")[2])],
                        "type": event.type,
                        "value": event.result
                        if isinstance(event, ActionResult)
                        else event.error_type,
                        "replayed": event.replayed,
                    }
                    os.write(outcomes, (json.dumps(line) + "\n").encode())
        finally:
            close(ledger)

    threads = [threading.Thread(target=dispatch, args=(d,)) for d in range(dispatchers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    main()

"""What tests share across the processes of one pytest run (``-n auto`` starts several).

Each xdist worker is its own process with its own session fixtures, so a session
fixture that starts a server or installs packages would run once per worker. For
what must exist once per run (``npm install`` of the JS clients, a database
cluster's data folder), :func:`build_once` builds a folder under the run's shared
temporary root, guarded by a file lock; every worker gets the same folder.  For what
each worker may have of its own (a database name, a Redis key prefix, a port), use
``worker_id`` (``"gw0"``, ``"gw1"``... or ``"master"`` without xdist) in the name.
Tests that must all run in one process (one server they take turns on) carry
``@pytest.mark.xdist_group("name")``: ``--dist loadgroup`` sends a group to one worker.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

__all__ = ["build_once", "worker_id"]

_DONE = ".built"


def worker_id() -> str:
    """This process's xdist worker name, or ``"master"`` when xdist is not running."""
    return os.environ.get("PYTEST_XDIST_WORKER", "master")


def build_once(root: Path, key: str, build: Callable[[Path], None]) -> Path:
    """``root / key``, built by ``build(folder)`` by the first process to ask; the others
    wait for it and reuse it.  A build that raised is retried by the next caller."""
    root.mkdir(parents=True, exist_ok=True)
    target = root / key
    with (root / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        if not (target / _DONE).exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            build(target)
            (target / _DONE).touch()
    return target

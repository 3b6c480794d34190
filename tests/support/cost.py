"""Coarse cost guards shared by the cost and attack tests: a ratio limit and the
least CPU time of a few runs."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

RATIO_LIMIT = 8.0
REPEATS = 3


def best_time(run: Callable[[], Any]) -> float:
    """The least CPU time of this thread over a few runs: CPU time, not wall time, so
    another process (a parallel test worker, a neighbour) using the core does not count.

    The objects alive before the first run are frozen (``gc.freeze``) while it measures:
    the collection before each run then scans only what the runs made, not the whole
    heap of a test worker that has imported every SDK (that made each guard ~4x slower)."""
    best = float("inf")
    gc.freeze()
    try:
        for _ in range(REPEATS):
            gc.collect()
            gc.disable()
            try:
                started = time.thread_time()
                run()
                best = min(best, time.thread_time() - started)
            finally:
                gc.enable()
    finally:
        gc.unfreeze()
    return best

"""Measuring cells: medians of repeats, a time cap per peer, and the growth exponent.

A *cell* is one parser on one stream.  Its first run is checked against the expected
value (a wrong value is reported, never hidden) and doubles as a warm-up; the cell is
then repeated within a time budget and summarised by the median of the repeats (the
first run alone when the cell is too slow to repeat).  A repeat of a fast cell loops
the cell for about 5 ms and counts the time per loop.  Garbage collection is off while a run is timed, as in
``timeit``, and a collection runs before each.

A *series* runs one parser over growing sizes.  Quadratic peers would take minutes at
1 MB, so a series stops ("capped") once a cell took longer than the cap, or when the
next cell is predicted to take more than four times the cap; the estimate is kept.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["Cell", "Settings", "growth_exponent", "measure", "series"]

Status = Literal["ok", "wrong", "error", "capped"]


@dataclass(frozen=True)
class Settings:
    """How hard to measure: ``repeats`` timed runs at most after the checked first run,
    ``budget`` seconds of runs per cell, and the ``cap`` in seconds beyond which a
    series stops."""

    repeats: int = 3
    budget: float = 1.0
    cap: float = 1.0


@dataclass
class Cell:
    """The result of one parser on one stream.  ``seconds`` is the median run time
    (None when capped or failed); ``estimate`` is a predicted time for a capped cell."""

    parser: str
    label: str
    chars: int
    status: Status = "ok"
    seconds: float | None = None
    runs: list[float] = field(default_factory=list)
    estimate: float | None = None
    detail: str = ""

    @property
    def mbps(self) -> float | None:
        """Throughput in MB (10^6 characters) per second."""
        if self.seconds is None or self.seconds <= 0:
            return None
        return self.chars / 1e6 / self.seconds

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["mbps"] = self.mbps
        return out


_MIN_RUN = 0.005
"""A timed run of a fast cell loops its function until it lasts about this long (as
``timeit`` does), so that a cell of a few hundred microseconds is not dominated by the
timer and by the caches a collection just emptied."""


def _timed(fn: Callable[[], Any], loops: int = 1) -> tuple[float, Any]:
    """Seconds per call of ``fn`` over ``loops`` calls, and the last result."""
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(loops):
            result = fn()
        return (time.perf_counter() - t0) / loops, result
    finally:
        gc.enable()


def measure(
    parser: str,
    label: str,
    chars: int,
    fn: Callable[[], Any],
    check: Callable[[Any], str | None],
    settings: Settings,
) -> Cell:
    """Run ``fn`` once, check its result (``check`` returns a reason when it is
    wrong), then repeat within the budget; the cell holds the median."""
    cell = Cell(parser, label, chars)
    try:
        first, result = _timed(fn)
    except Exception as exc:  # a peer failing on a workload is a result, not a crash
        cell.status = "error"
        cell.detail = f"{type(exc).__name__}: {str(exc)[:120]}"
        return cell
    problem = check(result)
    if problem is not None:
        cell.status = "wrong"
        cell.detail = problem
    runs = [first]
    loops = max(1, min(1000, int(_MIN_RUN / max(first, 1e-7))))
    while len(runs) <= settings.repeats and loops * (sum(runs) + runs[-1]) <= settings.budget:
        runs.append(_timed(fn, loops)[0])
    cell.runs = runs
    # The first run is the checked one and warms caches up: with repeats, it is left out.
    cell.seconds = statistics.median(runs[1:] if len(runs) > 1 else runs)
    return cell


def growth_exponent(cells: Sequence[Cell]) -> float | None:
    """The slope of log(time) against log(size) by least squares over measured cells."""
    points = [
        (math.log(c.chars), math.log(c.seconds))
        for c in cells
        if c.seconds is not None and c.seconds > 0 and c.status in ("ok", "wrong")
    ]
    if len(points) < 2:
        return None
    mx = sum(p[0] for p in points) / len(points)
    my = sum(p[1] for p in points) / len(points)
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx


def series(
    parser: str,
    steps: Sequence[tuple[str, int, Callable[[], Any], Callable[[Any], str | None]]],
    settings: Settings,
) -> list[Cell]:
    """Measure ``parser`` on growing ``(label, chars, fn, check)`` steps, capping the
    series once it gets too slow (see the module docstring)."""
    cells: list[Cell] = []
    stop_reason: str | None = None
    for label, chars, fn, check in steps:
        if stop_reason is not None:
            cells.append(Cell(parser, label, chars, "capped", detail=stop_reason))
            continue
        measured = [c for c in cells if c.seconds is not None]
        if measured:
            last = measured[-1]
            assert last.seconds is not None
            slope = 2.0
            if len(measured) >= 2:
                fitted = growth_exponent(measured[-2:])
                slope = min(2.2, max(1.0, fitted if fitted is not None else 2.0))
            predicted = last.seconds * (chars / last.chars) ** slope
            if predicted > 4 * settings.cap:
                stop_reason = f"predicted {predicted:.1f} s > 4 x cap {settings.cap:g} s"
                cells.append(
                    Cell(parser, label, chars, "capped", estimate=predicted, detail=stop_reason)
                )
                continue
        cell = measure(parser, label, chars, fn, check, settings)
        cells.append(cell)
        if cell.status == "error":
            stop_reason = "error at a smaller size"
        elif cell.seconds is not None and cell.seconds > settings.cap:
            stop_reason = f"{label} took {cell.seconds:.1f} s > cap {settings.cap:g} s"
    return cells

"""Another unspool checkout measured beside the current one: ``python -m bench --baseline PATH``.

Two ``unspool`` packages cannot share one process, so the baseline's rows are
measured in a subprocess: ``python -m bench.baseline`` with the baseline's ``src``
first on ``PYTHONPATH`` and this bench package importable (the child's working
directory is this checkout's root, which holds ``bench/`` but no ``unspool``).  The
child runs the same code of this bench over the same workloads, chunks and settings
and writes its cells as JSON on stdout; the parent prints them as extra rows named
``unspool @<commit>`` in the same tables, with the ×time ratio against the current
row.

On a shared machine the speed a process gets changes from one second to the next
(the same code measured in two processes a few seconds apart differed by ×1.8 at a
load of 3.6 on 2 CPUs).  So a section measures its current unspool rows and the
baseline's rows alternately, :data:`ROUNDS` times each (current, baseline, current,
...), and each cell of both shows the median of its rounds.  That narrows the noise
but does not remove it: this checkout as its own baseline still read ×0.63 to ×1.72
at 4–98 KB at a load of 4 on 2 CPUs.  Ratios near a target need a quiet machine.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.timing import Cell

if TYPE_CHECKING:
    from bench.profiles import Profile

__all__ = [
    "ROUNDS",
    "Baseline",
    "alternate",
    "cells_from",
    "legend",
    "measure",
    "resolve",
    "row_name",
]

Rows = dict[str, list[Cell]]

ROOT = Path(__file__).resolve().parent.parent
"""This checkout's root: the directory that holds ``bench/``."""

ROUNDS = 3
"""Times the current rows and the baseline's are measured, alternately."""

TIMEOUT = 3600.0
"""Seconds one child may take before it is stopped and its rows left out."""


@dataclass(frozen=True)
class Baseline:
    """A checkout to compare with: ``src`` holds its ``unspool`` package, ``name`` is
    the short commit (or the directory's name) that row names carry."""

    path: str
    src: str
    name: str
    unspool_file: str = ""


def row_name(row: str, baseline: Baseline) -> str:
    """``unspool`` -> ``unspool @0f7b578``; ``unspool 1-chunk`` -> ``unspool 1-chunk @0f7b578``."""
    return f"{row} @{baseline.name}"


def legend(baseline: Baseline, current: str) -> str:
    """The line under a table that holds baseline rows, measured alternately with
    ``current``."""
    return (
        f"({row_name('unspool', baseline)}: the same streams through the unspool of "
        f"{baseline.src} in a subprocess; it and {current} were measured alternately, "
        f"{ROUNDS} rounds each, in this run, and each of their cells is the median of its "
        "rounds; its ×time is its time over the current row's)"
    )


def _commit(path: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


def _env(src: str) -> dict[str, str]:
    """The child's environment: the baseline's ``src`` first, then this checkout's root
    (for ``bench``); the parent's ``PYTHONPATH`` (which may point at the current
    ``src``) is dropped."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([src, str(ROOT)])
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _child(src: str, request: dict[str, Any]) -> dict[str, Any]:
    """Run ``python -m bench.baseline`` on ``request``; its JSON answer, or
    ``{"error": ...}``."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bench.baseline"],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=_env(src),
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"the baseline subprocess took over {TIMEOUT:g} s"}
    except OSError as exc:
        return {"error": f"the baseline subprocess did not start ({exc})"}
    lines = done.stdout.strip().splitlines()
    try:
        answer: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        return {"error": f"the baseline subprocess failed (exit {done.returncode}): {tail}"}
    return answer


def resolve(path: str) -> tuple[Baseline | None, str]:
    """The baseline at ``path`` (a checkout or its ``src``), checked by importing its
    ``unspool`` in a subprocess; ``(None, reason)`` when it cannot be used."""
    given = Path(path).expanduser().resolve()
    if (given / "src" / "unspool").is_dir():
        src = given / "src"
    elif (given / "unspool").is_dir():
        src = given
    else:
        return None, f"--baseline {path}: no unspool package in {given}/src or {given}"
    top = given if src != given else given.parent
    name = _commit(top) or top.name
    baseline = Baseline(str(given), str(src), name)
    answer = _child(baseline.src, {"section": "import"})
    if "error" in answer:
        return None, f"--baseline {path}: unspool not importable: {answer['error']}"
    return Baseline(baseline.path, baseline.src, name, answer["unspool_file"]), ""


def cells_from(data: list[dict[str, Any]]) -> list[Cell]:
    """Cells back from their JSON form (``Cell.to_dict``)."""
    names = {f.name for f in fields(Cell)}
    return [Cell(**{k: v for k, v in d.items() if k in names}) for d in data]


def measure(
    baseline: Baseline, section: str, profile: Profile, **options: Any
) -> tuple[dict[str, list[Cell]], str]:
    """The baseline's rows of ``section`` (``{row name: cells}``, names already
    carrying ``@name``), and a note (empty when all went well)."""
    request = {"section": section, "profile": profile_dict(profile), **options}
    answer = _child(baseline.src, request)
    if "error" in answer:
        return {}, f"{row_name('unspool', baseline)} rows left out: {answer['error']}"
    rows = {row_name(k, baseline): cells_from(v) for k, v in answer["rows"].items()}
    for cells in rows.values():
        for c in cells:
            c.parser = row_name(c.parser, baseline)
    return rows, str(answer.get("note", ""))


def _combined(rounds: list[Rows]) -> Rows:
    """One set of rows from several rounds of the same rows: each cell as in the first
    round, with the median of the rounds' times and all their runs."""
    out: Rows = {}
    for name, cells in rounds[0].items():
        merged: list[Cell] = []
        for i, first in enumerate(cells):
            cell = copy.copy(first)
            same = [r[name][i] for r in rounds if name in r and len(r[name]) > i]
            times = [
                c.seconds for c in same if c.seconds is not None and c.status in ("ok", "wrong")
            ]
            if cell.status in ("ok", "wrong") and times:
                cell.seconds = statistics.median(times)
                cell.runs = [x for c in same for x in c.runs]
                if len(times) > 1:
                    rounds_text = f"median of {len(times)} alternated rounds"
                    cell.detail = f"{cell.detail}; {rounds_text}" if cell.detail else rounds_text
            merged.append(cell)
        out[name] = merged
    return out


def alternate(
    baseline: Baseline,
    current: Callable[[], Rows],
    section: str,
    profile: Profile,
    **options: Any,
) -> tuple[Rows, Rows, str]:
    """``current()`` (the current unspool rows) and the baseline's rows of ``section``,
    measured alternately :data:`ROUNDS` times: ``(current rows, baseline rows, note)``.
    When the baseline cannot be measured, the current rows of one round and the note."""
    ours: list[Rows] = []
    theirs: list[Rows] = []
    note = ""
    for _ in range(ROUNDS):
        ours.append(current())
        rows, note = measure(baseline, section, profile, **options)
        if not rows:
            break
        theirs.append(rows)
    return _combined(ours), _combined(theirs) if theirs else {}, note


# --- the profile across the process boundary ------------------------------------------


def profile_dict(profile: Profile) -> dict[str, Any]:
    """``profile`` as JSON-ready data, without its baseline."""
    out = {f.name: getattr(profile, f.name) for f in fields(profile) if f.name != "baseline"}
    out["settings"] = asdict(out["settings"])
    return out


def profile_from(data: dict[str, Any]) -> Profile:
    """The profile back from :func:`profile_dict` (without a baseline)."""
    from bench import profiles
    from bench.timing import Settings

    values = dict(data)
    values["settings"] = Settings(**values["settings"])
    for key in ("shapes", "sizes", "chunkers", "protocol_sizes"):
        values[key] = tuple(values[key])
    return profiles.Profile(**values)


# --- the child ------------------------------------------------------------------------


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    import unspool

    unspool_file = str(Path(unspool.__file__ or "").resolve())
    first = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]
    if first and not unspool_file.startswith(str(Path(first).resolve()) + os.sep):
        return {"error": f"imported unspool from {unspool_file}, not from {first}"}
    section = request["section"]
    if section == "import":
        return {"unspool_file": unspool_file}
    profile = profile_from(request["profile"])
    if section == "interleaved":
        from bench import sec_interleaved

        rows, note = sec_interleaved.unspool_rows(profile)
    elif section == "tags":
        from bench import sec_tags

        rows, note = sec_tags.unspool_rows(profile)
    elif section == "core":
        from bench import sec_core

        rows, note = sec_core.unspool_rows(profile, request["shape"], request["chunker"])
    else:
        return {"error": f"unknown section {section!r}"}
    if not rows:
        return {"error": note or "no rows"}
    return {
        "unspool_file": unspool_file,
        "rows": {k: [c.to_dict() for c in v] for k, v in rows.items()},
        "note": note,
    }


def _main() -> int:
    request = json.loads(sys.stdin.read())
    out = sys.stdout
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stray prints must not break the JSON
            answer = _answer(request)
    except Exception as exc:  # reported to the parent, which prints a note and goes on
        answer = {"error": f"{type(exc).__name__}: {exc}"}
    out.write(json.dumps(answer, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())

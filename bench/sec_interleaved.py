"""Interleaved rows (issue 4): an interleaved reply in 4-character chunks through
``InterleavedParser`` against the seed system's approach rebuilt in Python (re-repair
and re-parse the whole buffer on every chunk, then diff the items)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.baseline import alternate, row_name
from bench.baseline import legend as baseline_legend
from bench.outputs import Output, check_outputs, merged, protocol_runner
from bench.peers import optional_module, unspool_module
from bench.profiles import Profile
from bench.report import (
    Step,
    Target,
    baseline_target,
    block,
    cell_at,
    protocol_steps,
    series_dict,
    targets_table,
)
from bench.seed_baselines import SeedInterleaved
from bench.table import fmt_ratio
from bench.timing import Cell, growth_exponent, series
from bench.workloads import Document, chunk, document

__all__ = ["run", "unspool_rows"]

CHUNKER = "4"
OURS = "unspool InterleavedParser"
SEED = "seed rebuilt"
SEED_EST = "seed rebuilt (sampled)"
SAMPLES = 120
SAMPLE_MAX_CHARS = 110_000  # the sampled estimate is not run beyond ~100 KB (≈1 min at 1 MB)
LINEAR = 1.1


def expected(doc: Document) -> list[Output]:
    """What a reader of the reply should get: each text, each action, in order."""
    out: list[Output] = []
    for item in doc.value:
        if item["type"] == "text":
            out.append(("text", item["content"]))
        else:
            out.append(("action", item["name"], item["params"]))
    return merged(out)


def _seed(json_repair: Any, pjp: Any) -> Callable[[Sequence[str]], list[Output]]:
    def run(chunks: Sequence[str]) -> list[Output]:
        seed = SeedInterleaved(json_repair, pjp)
        out: list[Output] = []
        for c in chunks:
            out += seed.feed(c)
        return merged(out)

    return run


def sampled_estimate(seed: SeedInterleaved, chunks: Sequence[str], samples: int) -> float:
    """Estimated seconds of the seed's whole stream: the re-parse of the buffer timed
    at ``samples`` evenly spaced chunks, times the number of chunks (a Riemann sum of
    the per-chunk cost, which is the re-parse of the prefix received so far)."""
    ends: list[int] = []
    pos = 0
    for c in chunks:
        pos += len(c)
        ends.append(pos)
    text = "".join(chunks)
    n = len(chunks)
    picks = sorted({min(n - 1, int((k + 0.5) * n / samples)) for k in range(samples)})
    seed.parse(text)  # warm-up
    total = 0.0
    gc.disable()  # as in the measured runs
    try:
        for i in picks:
            buffer = text[: ends[i]]
            t0 = time.perf_counter()
            seed.parse(buffer)
            total += time.perf_counter() - t0
    finally:
        gc.enable()
    return total / len(picks) * n


def _streams(profile: Profile) -> tuple[list[Document], list[list[str]]]:
    docs = [document("interleaved", s, brackets=False) for s in profile.protocol_sizes]
    return docs, [chunk(d.text, CHUNKER) for d in docs]


def _steps(
    docs: Sequence[Document],
    streams: Sequence[Sequence[str]],
    fn: Callable[[Sequence[str]], list[Output]],
) -> list[Step]:
    cases = [
        (d.size_label, len(d.text), s, check_outputs(expected(d)))
        for d, s in zip(docs, streams, strict=True)
    ]
    return protocol_steps(cases, fn)


def unspool_rows(profile: Profile) -> tuple[dict[str, list[Cell]], str]:
    """The row of the ``unspool`` importable here (``{"unspool": cells}``), or no row
    and the reason.  ``python -m bench.baseline`` calls it with a baseline's unspool."""
    try:
        parser_cls = unspool_module("unspool.protocols._interleaved").InterleavedParser
    except ImportError as exc:
        return {}, f"unspool.protocols._interleaved not importable ({exc})"
    docs, streams = _streams(profile)
    cells = series("unspool", _steps(docs, streams, protocol_runner(parser_cls)), profile.settings)
    return {"unspool": cells}, ""


def _baseline_target(rows: dict[str, list[Cell]], label: str, name: str) -> Target:
    """Issue 16: the baseline's time over the current one's, at least ×3."""
    what = f"InterleavedParser vs {name} {label} 4-char"
    return baseline_target(rows, OURS, name, label, what, 3)


def run(profile: Profile) -> dict[str, Any]:
    """Measure and print the interleaved rows; returns the results as JSON-ready data."""
    notes: list[str] = []
    try:
        parser_cls = unspool_module("unspool.protocols._interleaved").InterleavedParser
    except ImportError as exc:
        parser_cls = None
        notes.append(f"unspool row skipped: unspool.protocols._interleaved not importable ({exc})")
    json_repair, pjp = optional_module("json_repair"), optional_module("partial_json_parser")
    if json_repair is None or pjp is None:
        notes.append("seed rows skipped: json_repair or partial_json_parser not installed")
    for n in notes:
        print(f"note: {n}")
    docs, streams = _streams(profile)
    settings = profile.settings
    rows: dict[str, list[Cell]] = {}

    def steps_for(fn: Callable[[Sequence[str]], list[Output]]) -> list[Step]:
        return _steps(docs, streams, fn)

    baseline = profile.baseline
    if parser_cls is not None:
        runner = protocol_runner(parser_cls)

        def current() -> dict[str, list[Cell]]:
            return {OURS: series(OURS, steps_for(runner), settings)}

        if baseline is None:
            rows.update(current())
        else:
            ours, base_rows, note = alternate(baseline, current, "interleaved", profile)
            rows.update({**ours, **base_rows})
            if note:
                notes.append(note)
                print(f"note: {note}")
    if json_repair is not None and pjp is not None:
        rows[SEED] = series(SEED, steps_for(_seed(json_repair, pjp)), settings)
        est: list[Cell] = []
        for d, s in zip(docs, streams, strict=True):
            cell = Cell(SEED_EST, d.size_label, len(d.text))
            if len(d.text) > SAMPLE_MAX_CHARS:
                cell.status = "capped"
                cell.detail = "sampling not run beyond ~100 KB"
            else:
                seconds = sampled_estimate(SeedInterleaved(json_repair, pjp), s, SAMPLES)
                cell.seconds = seconds
                cell.runs = [seconds]
                cell.detail = f"estimated from {SAMPLES} timed re-parses"
            est.append(cell)
        rows[SEED_EST] = est
    title = f"interleaved · seed approach vs InterleavedParser · {CHUNKER}-char chunks"
    print(block(title, profile.protocol_sizes, rows, OURS if parser_cls else None), flush=True)
    print(
        f"({SEED_EST}: the seed's per-chunk re-parse timed at {SAMPLES} evenly spaced "
        "chunks × the number of chunks; compare it with the measured row where both ran)"
    )
    if baseline is not None and row_name("unspool", baseline) in rows:
        print(baseline_legend(baseline, f"the {OURS} row"))
    targets: list[Target] = []
    label = "98KB" if "98KB" in profile.protocol_sizes else profile.protocol_sizes[-1]
    ours_cell = cell_at(rows, OURS, label)
    seed_cell = cell_at(rows, SEED, label)
    if seed_cell is None or seed_cell.seconds is None:
        seed_cell = cell_at(rows, SEED_EST, label)
    name = f"interleaved {label} 4-char: seed approach / InterleavedParser"
    if ours_cell and seed_cell and ours_cell.seconds and seed_cell.seconds:
        r = seed_cell.seconds / ours_cell.seconds
        how = "measured" if seed_cell.parser == SEED else "seed time sampled"
        targets.append(Target(name, fmt_ratio(r), "≥ ×100", r >= 100, how))
    else:
        targets.append(Target(name, "—", "≥ ×100", None, "not measured"))
    exp = growth_exponent(rows.get(OURS, []))
    span = f"{profile.protocol_sizes[0]}→{profile.protocol_sizes[-1]}"
    targets.append(
        Target(
            f"InterleavedParser growth exponent {span}",
            "—" if exp is None else f"{exp:.3f}",
            f"≤ {LINEAR} (linear)",
            None if exp is None else exp <= LINEAR,
        )
    )
    if baseline is not None:
        targets.append(_baseline_target(rows, label, row_name("unspool", baseline)))
    print(targets_table("interleaved targets (issue 4)", targets), flush=True)
    return {
        "notes": notes,
        "chunker": CHUNKER,
        "rows": series_dict(rows),
        "targets": [t.to_dict() for t in targets],
    }

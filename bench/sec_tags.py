"""Tag rows (issue 5): prose with ``<action name="...">{json}</action>`` tags in
4-character chunks through ``TagParser`` against re-scanning the accumulated text with
the seed's regex on every chunk."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from bench.baseline import alternate, row_name
from bench.baseline import legend as baseline_legend
from bench.outputs import Output, check_outputs, merged, protocol_runner
from bench.peers import unspool_module
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
from bench.seed_baselines import SeedTags
from bench.table import fmt_ratio
from bench.timing import Cell, growth_exponent, series
from bench.workloads import SIZES, TaggedProse, chunk, tagged_prose

__all__ = ["run", "unspool_rows"]

CHUNKER = "4"
OURS = "unspool TagParser"
SEED = "regex re-scan"
CHARS_PER_ACTION = 500  # 98 KB of prose holds 200 actions
LINEAR = 1.1
BASELINE_CAP = 30.0  # seconds: the re-scan stops growing past this


def expected(doc: TaggedProse) -> list[Output]:
    """The prose pieces and the actions, in order."""
    out: list[Output] = []
    for i, text in enumerate(doc.prose):
        out.append(("text", text))
        if i < len(doc.actions):
            name, args = doc.actions[i]
            out.append(("action", name, args))
    return merged(out)


def _rescan(chunks: Sequence[str]) -> list[Output]:
    seed = SeedTags()
    out: list[Output] = []
    for c in chunks:
        out += seed.feed(c)
    out += seed.finish()
    return merged(out)


def _streams(profile: Profile) -> tuple[list[TaggedProse], list[list[str]]]:
    labels = profile.protocol_sizes
    docs = [tagged_prose(SIZES[s], max(1, SIZES[s] // CHARS_PER_ACTION)) for s in labels]
    return docs, [chunk(d.text, CHUNKER) for d in docs]


def _steps(
    labels: Sequence[str],
    docs: Sequence[TaggedProse],
    streams: Sequence[Sequence[str]],
    fn: Callable[[Sequence[str]], list[Output]],
) -> list[Step]:
    cases = [
        (label, len(d.text), s, check_outputs(expected(d)))
        for label, d, s in zip(labels, docs, streams, strict=True)
    ]
    return protocol_steps(cases, fn)


def unspool_rows(profile: Profile) -> tuple[dict[str, list[Cell]], str]:
    """The row of the ``unspool`` importable here (``{"unspool": cells}``), or no row
    and the reason.  ``python -m bench.baseline`` calls it with a baseline's unspool."""
    try:
        parser_cls: Any = unspool_module("unspool.protocols._tags").TagParser
    except ImportError as exc:
        return {}, f"unspool.protocols._tags not importable ({exc})"
    docs, streams = _streams(profile)
    steps = _steps(profile.protocol_sizes, docs, streams, protocol_runner(parser_cls))
    return {"unspool": series("unspool", steps, profile.settings)}, ""


def _baseline_target(rows: dict[str, list[Cell]], label: str, name: str) -> Target:
    """Issue 16: the baseline's time over the current one's, at least ×2."""
    what = f"TagParser vs {name} {label} 4-char"
    return baseline_target(rows, OURS, name, label, what, 2)


def run(profile: Profile) -> dict[str, Any]:
    """Measure and print the tag rows; returns the results as JSON-ready data."""
    notes: list[str] = []
    try:
        parser_cls: Any = unspool_module("unspool.protocols._tags").TagParser
    except ImportError as exc:
        parser_cls = None
        notes.append(f"unspool row skipped: unspool.protocols._tags not importable ({exc})")
    for n in notes:
        print(f"note: {n}")
    labels = profile.protocol_sizes
    docs, streams = _streams(profile)

    def steps_for(fn: Callable[[Sequence[str]], list[Output]]) -> list[Step]:
        return _steps(labels, docs, streams, fn)

    rows: dict[str, list[Cell]] = {}
    baseline = profile.baseline
    if parser_cls is not None:
        runner = protocol_runner(parser_cls)

        def current() -> dict[str, list[Cell]]:
            return {OURS: series(OURS, steps_for(runner), profile.settings)}

        if baseline is None:
            rows.update(current())
        else:
            ours, base_rows, note = alternate(baseline, current, "tags", profile)
            rows.update({**ours, **base_rows})
            if note:
                notes.append(note)
                print(f"note: {note}")
    # One run of the baseline at 98 KB takes ~15 s: allowed, since the target needs it.
    rows[SEED] = series(SEED, steps_for(_rescan), replace(profile.settings, cap=BASELINE_CAP))
    counts = ", ".join(f"{lb}: {len(d.actions)}" for lb, d in zip(labels, docs, strict=True))
    title = f"tags · regex re-scan vs TagParser · {CHUNKER}-char chunks · actions {counts}"
    print(block(title, labels, rows, OURS if parser_cls else None), flush=True)
    if baseline is not None and row_name("unspool", baseline) in rows:
        print(baseline_legend(baseline, f"the {OURS} row"))
    targets: list[Target] = []
    label = "98KB" if "98KB" in labels else labels[-1]
    ours_cell, seed_cell = cell_at(rows, OURS, label), cell_at(rows, SEED, label)
    name = f"tags {label} 4-char: regex re-scan / TagParser"
    if ours_cell and seed_cell and ours_cell.seconds and seed_cell.seconds:
        r = seed_cell.seconds / ours_cell.seconds
        targets.append(Target(name, fmt_ratio(r), "≥ ×50", r >= 50))
    else:
        targets.append(Target(name, "—", "≥ ×50", None, "not measured"))
    exp = growth_exponent(rows.get(OURS, []))
    targets.append(
        Target(
            f"TagParser growth exponent {labels[0]}→{labels[-1]}",
            "—" if exp is None else f"{exp:.3f}",
            f"≤ {LINEAR} (linear)",
            None if exp is None else exp <= LINEAR,
        )
    )
    if baseline is not None:
        targets.append(_baseline_target(rows, label, row_name("unspool", baseline)))
    print(targets_table("tag targets (issue 5)", targets), flush=True)
    return {
        "notes": notes,
        "chunker": CHUNKER,
        "rows": series_dict(rows),
        "targets": [t.to_dict() for t in targets],
    }

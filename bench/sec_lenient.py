"""Lenient rows (issues 3 and 13): ``JsonStream(lenient=True)`` streaming malformed JSON
against json_repair (re-parse, and ``stream_stable=True``) and jsonmend (incremental), the
cost of leniency on clean input, and the value each reads on the repairs of issue 13."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench.lenient_cases import compare
from bench.lenient_cases import readers as repair_readers
from bench.peers import Peer, Stream, lenient_peers, unspool_peers
from bench.profiles import Profile
from bench.report import (
    Target,
    block,
    cell_at,
    expect,
    series_dict,
    steps,
    targets_table,
    time_or_bound,
)
from bench.table import fmt_ratio
from bench.timing import Cell, measure, series
from bench.workloads import DEVIATIONS, chunk, document, malformed

__all__ = ["run"]

Rows = dict[str, list[Cell]]
OURS = "unspool lenient"


def _chunker(profile: Profile) -> str:
    return "8" if "8" in profile.chunkers else profile.chunkers[0]


def _deviation_rows(peers: Sequence[Peer], shape: str, profile: Profile) -> Rows:
    """Each peer on every deviation at one size; a peer slower than the cap on one
    deviation is not run on the rest (its time there is the estimate)."""
    base = document(shape, profile.lenient_size)
    chunker = _chunker(profile)
    variants = [malformed(base, dev) for dev in DEVIATIONS]
    streams = [Stream(v.text, chunk(v.text, chunker)) for v in variants]
    rows: Rows = {}
    for peer in peers:
        cells: list[Cell] = []
        slow: float | None = None
        for dev, v, s in zip(DEVIATIONS, variants, streams, strict=True):
            if slow is not None:
                cells.append(
                    Cell(peer.name, dev, len(v.text), "capped", estimate=slow, detail="slow")
                )
                continue

            def run(p: Peer = peer, st: Stream = s) -> Any:
                return p.run(st)

            cell = measure(
                peer.name,
                dev,
                len(v.text),
                run,
                expect(v.value, "the clean value"),
                profile.settings,
            )
            cells.append(cell)
            if cell.seconds is not None and cell.seconds > profile.settings.cap:
                slow = cell.seconds
        rows[peer.name] = cells
    return rows


def _faster_than_all(
    rows: Mapping[str, Sequence[Cell]], labels: Sequence[str], what: str
) -> Target:
    """Whether ``OURS`` beats every other row at every label: the smallest margin."""
    worst: tuple[float, str, str, bool] | None = None
    for label in labels:
        ours = cell_at(rows, OURS, label)
        if ours is None or ours.seconds is None:
            continue
        for name in rows:
            if name.startswith("unspool"):
                continue
            tb = time_or_bound(rows, name, label)
            if tb is None:
                continue
            margin = tb[0] / ours.seconds
            if worst is None or margin < worst[0]:
                worst = (margin, name, label, tb[1])
    if worst is None:
        return Target(f"{what}: faster than every peer", "—", "> ×1", None, "not measured")
    margin, name, label, bound = worst
    return Target(
        f"{what}: faster than every peer",
        ("≥ " if bound else "") + fmt_ratio(margin),
        "> ×1 (smallest margin)",
        margin > 1,
        f"closest: {name} at {label}",
    )


def run(profile: Profile) -> dict[str, Any]:
    """Measure and print the lenient rows; returns the results as JSON-ready data."""
    ours, notes = unspool_peers(lenient=True)
    strict, more = unspool_peers()
    notes += more
    theirs, more = lenient_peers()
    notes += more
    for n in dict.fromkeys(notes):
        print(f"note: {n}")
    streaming = [p for p in (*ours, *theirs) if p.kind != "floor"]
    chunker = _chunker(profile)
    settings = profile.settings
    out: dict[str, Any] = {"notes": notes, "chunker": chunker, "blocks": []}
    targets: list[Target] = []
    reference = OURS if ours else None

    shape = "structured" if "structured" in profile.shapes else profile.shapes[0]
    rows = _deviation_rows(streaming, shape, profile)
    title = f"lenient · {shape} {profile.lenient_size} · each deviation · {chunker}-char chunks"
    print(block(title, DEVIATIONS, rows, reference, exponent=False), flush=True)
    out["blocks"].append({"table": "deviations", "workload": shape, "rows": series_dict(rows)})
    targets.append(_faster_than_all(rows, DEVIATIONS, f"{shape} each deviation"))

    for shape in profile.shapes:
        docs = [malformed(document(shape, s), "mixed") for s in profile.sizes]
        streams = [Stream(d.text, chunk(d.text, chunker)) for d in docs]
        rows = {p.name: series(p.name, steps(p, docs, streams), settings) for p in streaming}
        title = f"lenient · {shape} · every deviation at once · {chunker}-char chunks"
        print(block(title, profile.sizes, rows, reference), flush=True)
        out["blocks"].append({"table": "mixed", "workload": shape, "rows": series_dict(rows)})
        targets.append(_faster_than_all(rows, profile.sizes, f"{shape} mixed, every size"))

        clean = [document(shape, s) for s in profile.sizes]
        cstreams = [Stream(d.text, chunk(d.text, chunker)) for d in clean]
        both = [p for p in (*strict, *ours) if not p.name.endswith("+events")]
        crows = {p.name: series(p.name, steps(p, clean, cstreams), settings) for p in both}
        title = f"lenient · {shape} · clean input, strict vs lenient · {chunker}-char chunks"
        print(block(title, profile.sizes, crows, "unspool" if strict else None), flush=True)
        out["blocks"].append({"table": "clean", "workload": shape, "rows": series_dict(crows)})
        label = profile.sizes[-1]
        s_cell = cell_at(crows, "unspool", label)
        l_cell = cell_at(crows, OURS, label)
        name = f"{shape} {label} clean: lenient time / strict time"
        if s_cell and l_cell and s_cell.seconds and l_cell.seconds:
            r = l_cell.seconds / s_cell.seconds
            targets.append(Target(name, fmt_ratio(r), "≤ ×1.5", r <= 1.5))
        else:
            targets.append(Target(name, "—", "≤ ×1.5", None, "not measured"))
        # the cost of leniency itself on the pure-Python machine, and what the C
        # machine gains on lenient input (rows present when the C machine is built)
        py_strict = cell_at(crows, "unspool py", label)
        py_lenient = cell_at(crows, OURS + " py", label)
        name = f"{shape} {label} clean: lenient / strict, both Python machine"
        if py_strict and py_lenient and py_strict.seconds and py_lenient.seconds:
            r = py_lenient.seconds / py_strict.seconds
            targets.append(Target(name, fmt_ratio(r), "≤ ×1.5", r <= 1.5))
        if py_lenient and l_cell and py_lenient.seconds and l_cell.seconds:
            r = py_lenient.seconds / l_cell.seconds
            name = f"{shape} {label} clean: lenient, pure-Python machine / C machine"
            targets.append(Target(name, fmt_ratio(r), "info", None))
    table, verdicts = compare(repair_readers()[0])
    print("lenient · the repairs of issue 13 · value read vs the expected one", flush=True)
    print(table, flush=True)
    out["repairs"] = verdicts
    wrong = verdicts["counts"]["unspool lenient"]["wrong"]
    targets.append(Target("issue 13 repairs: wrong values", str(wrong), "0", wrong == 0))
    print(targets_table("lenient targets (issues 3 and 13)", targets), flush=True)
    out["targets"] = [t.to_dict() for t in targets]
    return out

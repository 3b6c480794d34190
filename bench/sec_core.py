"""Core rows (issue 2): unspool's ``JsonStream`` against every JSON peer on the same
chunked streams, the one-chunk floor, and the issue's targets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bench.baseline import alternate, row_name
from bench.baseline import legend as baseline_legend
from bench.peers import Peer, Stream, core_peers, unspool_peers
from bench.profiles import Profile
from bench.report import (
    Target,
    block,
    cell_at,
    series_dict,
    steps,
    targets_table,
    time_or_bound,
)
from bench.table import fmt_ratio
from bench.timing import Cell, growth_exponent, series
from bench.workloads import Document, chunk, document

__all__ = ["PARTIAL_TARGET_PEERS", "run", "unspool_rows"]

PARTIAL_TARGET_PEERS = ("jiter", "pydantic_core", "partial_json", "json_repair", "jsonriver")
"""The peers of issue 2 that give partial values: the targets compare against the fastest."""

Rows = dict[str, list[Cell]]


def _partial_target(
    rows: Mapping[str, list[Cell]], shape: str, label: str, goal: float, names: tuple[str, ...]
) -> Target:
    name = f"{shape} {label} 8-char: fastest partial peer / unspool"
    ours = cell_at(rows, "unspool", label)
    timed = [(n, tb) for n in names if (tb := time_or_bound(rows, n, label)) is not None]
    if ours is None or ours.seconds is None or not timed:
        return Target(name, "—", f"≥ {goal:g}", None, "not measured")
    peer, (t, bound) = min(timed, key=lambda x: x[1][0])
    ratio = t / ours.seconds
    return Target(
        name,
        ("≥ " if bound else "") + fmt_ratio(ratio),
        f"≥ ×{goal:g}",
        ratio >= goal,
        f"fastest: {peer}",
    )


def _targets(
    results: Mapping[tuple[str, str], Rows], floors: Mapping[str, Rows], profile: Profile
) -> list[Target]:
    targets: list[Target] = []
    for shape in profile.shapes:
        rows = results.get((shape, "8"))
        if rows is None:
            targets.append(
                Target(f"{shape}: 8-char targets", "—", "", None, "8-char chunker not run")
            )
            continue
        for label, goal in (("1KB", 1.5), ("24KB", 8.0), ("98KB", 8.0)):
            if label in profile.sizes:
                targets.append(_partial_target(rows, shape, label, goal, PARTIAL_TARGET_PEERS))
        with_mend = _partial_target(rows, shape, "98KB", 8.0, (*PARTIAL_TARGET_PEERS, "jsonmend"))
        targets.append(
            Target(
                with_mend.name.replace("fastest partial peer", "fastest incl. jsonmend"),
                with_mend.measured,
                "info",
                None,
                with_mend.detail,
            )
        )
        exp = growth_exponent(rows.get("unspool", []))
        span = f"{profile.sizes[0]}→{profile.sizes[-1]}"
        targets.append(
            Target(
                f"{shape} 8-char: unspool growth exponent {span}",
                "—" if exp is None else f"{exp:.3f}",
                "≤ 1.05",
                None if exp is None else exp <= 1.05,
                "" if span == "1KB→1MB" else "not the full 1KB→1MB span",
            )
        )
        if shape == "interleaved":
            label = "98KB" if "98KB" in profile.sizes else profile.sizes[-1]
            ours = cell_at(rows, "unspool", label)
            ij = cell_at(rows, "ijson C", label)
            name = f"interleaved {label} 8-char: unspool throughput / ijson C"
            if ours and ij and ours.seconds and ij.seconds:
                r = ij.seconds / ours.seconds
                targets.append(Target(name, fmt_ratio(r), "≥ ×0.6", r >= 0.6))
            else:
                targets.append(Target(name, "—", "≥ ×0.6", None, "not measured"))
        frows = floors.get(shape, {})
        for label in dict.fromkeys(("98KB", profile.sizes[-1])):
            one = cell_at(frows, "unspool 1-chunk", label)
            jl = cell_at(frows, "json.loads", label)
            name = f"{shape} {label}: one-chunk speed / json.loads"
            if one and jl and one.seconds and jl.seconds:
                r = jl.seconds / one.seconds
                targets.append(Target(name, fmt_ratio(r), "≥ ×0.3", r >= 0.3))
            else:
                targets.append(Target(name, "—", "≥ ×0.3", None, "not measured"))
    return targets


def _ratio_target(
    name: str, num: Cell | None, den: Cell | None, goal: float, at_least: bool
) -> Target:
    """``num.seconds / den.seconds`` against ``goal`` (``≥`` when ``at_least``, else ``≤``)."""
    sign = "≥" if at_least else "≤"
    if num is None or den is None or not num.seconds or not den.seconds:
        return Target(name, "—", f"{sign} ×{goal:g}", None, "not measured")
    r = num.seconds / den.seconds
    return Target(name, fmt_ratio(r), f"{sign} ×{goal:g}", r >= goal if at_least else r <= goal)


LOADS_PARITY = 0.95
"""``json.loads`` time / ``unspool.loads`` time at or above this is parity: the goal is
×1.00, and ±5% is what two runs of the same cell differ by on a shared machine."""


def _loads_targets(floors: Mapping[str, Rows], profile: Profile) -> list[Target]:
    """Issue 26: ``unspool.loads`` on clean JSON at ``json.loads`` speed, at every size."""
    return [
        _ratio_target(
            f"{shape} {label}: json.loads / unspool.loads",
            cell_at(floors.get(shape, {}), "json.loads", label),
            cell_at(floors.get(shape, {}), "unspool.loads", label),
            LOADS_PARITY,
            True,
        )
        for shape in profile.shapes
        for label in profile.sizes
    ]


def _machine_targets(
    results: Mapping[tuple[str, str], Rows], floors: Mapping[str, Rows], profile: Profile
) -> list[Target]:
    """Issue 16's targets for the C machine (rows ``unspool``), with the pure-Python
    machine (rows ``unspool py``) beside it in the same run."""
    label = "98KB" if "98KB" in profile.sizes else profile.sizes[-1]
    targets: list[Target] = []
    for shape in profile.shapes:
        rows = results.get((shape, "8"), {})
        ours = cell_at(rows, "unspool", label)
        goal = 50.0 if shape == "toolargs" else 1.5
        targets.append(
            _ratio_target(
                f"{shape} {label} 8-char: ijson C time / unspool",
                cell_at(rows, "ijson C", label),
                ours,
                goal,
                True,
            )
        )
        targets.append(
            _ratio_target(
                f"{shape} {label} 8-char: unspool+events / unspool",
                cell_at(rows, "unspool+events", label),
                ours,
                1.5,
                False,
            )
        )
        frows = floors.get(shape, {})
        targets.append(
            _ratio_target(
                f"{shape} {label}: json.loads / unspool 1-chunk",
                cell_at(frows, "json.loads", label),
                cell_at(frows, "unspool 1-chunk", label),
                1.0,
                True,
            )
        )
        py = cell_at(rows, "unspool py", label)
        if py is not None:
            targets.append(
                Target(
                    f"{shape} {label} 8-char: pure-Python machine / C machine",
                    _ratio_target("", py, ours, 1.0, True).measured,
                    "info",
                    None,
                )
            )
        span = f"{profile.sizes[0]}→{profile.sizes[-1]}"
        for row in ("unspool", "unspool py"):
            if row not in rows:
                continue
            exp = growth_exponent(rows[row])
            targets.append(
                Target(
                    f"{shape} 8-char: {row} growth exponent {span}",
                    "—" if exp is None else f"{exp:.3f}",
                    "≤ 1.02",
                    None if exp is None else exp <= 1.02,
                    "wall-clock: a loaded machine inflates the large sizes",
                )
            )
    return targets


def unspool_rows(
    profile: Profile, shape: str, chunker: str | None
) -> tuple[dict[str, list[Cell]], str]:
    """The rows of the ``unspool`` importable here on ``shape``: its streamed rows on
    ``chunker``'s chunks, or with ``chunker`` None its one-chunk rows (the floors).
    ``python -m bench.baseline`` calls it with a baseline's unspool."""
    ours, notes = unspool_peers()
    floor = chunker is None
    peers = [p for p in ours if (p.kind == "floor") == floor]
    if not peers:
        return {}, "; ".join(notes) or "no unspool rows"
    docs = [document(shape, s) for s in profile.sizes]
    if chunker is None:
        streams = [Stream(d.text, [d.text]) for d in docs]
    else:
        streams = [Stream(d.text, chunk(d.text, chunker)) for d in docs]
    rows = {p.name: series(p.name, steps(p, docs, streams), profile.settings) for p in peers}
    return rows, "; ".join(notes)


def run(profile: Profile) -> dict[str, Any]:
    """Measure and print the core rows; returns the results as JSON-ready data."""
    ours, notes = unspool_peers()
    theirs, more = core_peers()
    notes += more
    for n in notes:
        print(f"note: {n}")
    everyone = [*ours, *theirs]
    kinds = {p.name: p.kind for p in everyone}
    settings = profile.settings
    baseline = profile.baseline
    results: dict[tuple[str, str], Rows] = {}
    floors: dict[str, Rows] = {}
    out: dict[str, Any] = {
        "notes": notes,
        "peers": {p.name: p.note for p in everyone},
        "blocks": [],
    }

    def measured(peers: list[Peer], streams: list[Stream], docs: list[Document]) -> Rows:
        return {p.name: series(p.name, steps(p, docs, streams), settings) for p in peers}

    def with_baseline(
        mine: list[Peer],
        streams: list[Stream],
        docs: list[Document],
        shape: str,
        chunker: str | None,
    ) -> Rows:
        """The current unspool rows, and with a baseline its rows after them (both
        measured alternately)."""
        if baseline is None:
            return measured(mine, streams, docs)
        current, rows, note = alternate(
            baseline,
            lambda: measured(mine, streams, docs),
            "core",
            profile,
            shape=shape,
            chunker=chunker,
        )
        if note:
            notes.append(note)
            print(f"note: {note}")
        for name in rows:
            kinds[name] = "floor" if chunker is None else "unspool"
        return {**current, **rows}

    def split(floor: bool) -> tuple[list[Peer], list[Peer]]:
        return (
            [p for p in ours if (p.kind == "floor") == floor],
            [p for p in theirs if (p.kind == "floor") == floor],
        )

    for shape in profile.shapes:
        docs = [document(shape, s) for s in profile.sizes]
        whole = [Stream(d.text, [d.text]) for d in docs]
        mine, others = split(floor=True)
        floors[shape] = {
            **with_baseline(mine, whole, docs, shape, None),
            **measured(others, whole, docs),
        }
        for chunker in profile.chunkers:
            streams = [Stream(d.text, chunk(d.text, chunker)) for d in docs]
            mine, others = split(floor=False)
            rows: Rows = {
                **with_baseline(mine, streams, docs, shape, chunker),
                **measured(others, streams, docs),
            }
            results[(shape, chunker)] = rows
            shown = {**rows, **floors[shape]}
            title = f"core · {shape} · {chunker}-char chunks"
            print(
                block(title, profile.sizes, shown, "unspool" if ours else None, kinds), flush=True
            )
            if baseline is not None and row_name("unspool", baseline) in shown:
                print(baseline_legend(baseline, "the current unspool rows"))
            out["blocks"].append(
                {"workload": shape, "chunker": chunker, "rows": series_dict(shown)}
            )
    targets = _targets(results, floors, profile)
    print(targets_table("core targets (issue 2)", targets), flush=True)
    loads_targets = _loads_targets(floors, profile)
    print(targets_table("core targets (issue 26: loads on clean JSON)", loads_targets), flush=True)
    targets += loads_targets
    machine_targets = _machine_targets(results, floors, profile)
    print(targets_table("core targets (issue 16: the C machine)", machine_targets), flush=True)
    targets += machine_targets
    out["targets"] = [t.to_dict() for t in targets]
    return out

"""Result tables and targets shared by the sections of the bench."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bench.peers import Peer, Stream
from bench.table import fmt_cell, fmt_ratio, render
from bench.timing import Cell, growth_exponent
from bench.workloads import Document

__all__ = [
    "Step",
    "Target",
    "baseline_target",
    "block",
    "cell_at",
    "expect",
    "first_difference",
    "protocol_steps",
    "series_dict",
    "steps",
    "targets_table",
    "time_or_bound",
]

Step = tuple[str, int, Callable[[], Any], Callable[[Any], str | None]]
"""(label, chars, run, check): one cell of a series."""


def first_difference(got: Any, want: Any) -> str:
    """Where ``got`` first differs from ``want``: the path and both values, shortened."""
    stack: list[tuple[tuple[Any, ...], Any, Any]] = [((), got, want)]
    while stack:
        path, a, b = stack.pop()
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b):
            stack.extend(((*path, k), a[k], b[k]) for k in reversed(list(a)))
            continue
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            pairs = enumerate(zip(a, b, strict=True))
            stack.extend(((*path, i), x, y) for i, (x, y) in reversed(list(pairs)))
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            return f"at {list(path)}: keys {list(a)[:6]} vs {list(b)[:6]}"
        return f"at {list(path)}: {repr(a)[:50]} vs {repr(b)[:50]}"
    return "equal"


def expect(value: Any, what: str = "json.loads") -> Callable[[Any], str | None]:
    """A check: None when the result equals ``value``, else where it differs."""

    def check(result: Any) -> str | None:
        if result == value:
            return None
        return f"differs from {what} {first_difference(result, value)}"

    return check


def steps(peer: Peer, docs: list[Document], streams: list[Stream]) -> list[Step]:
    """One step per document: ``peer`` on its stream, checked against its value."""

    def bind(stream: Stream) -> Callable[[], Any]:
        return lambda: peer.run(stream)

    return [
        (d.size_label, len(d.text), bind(s), expect(d.value))
        for d, s in zip(docs, streams, strict=True)
    ]


def cell_at(rows: Mapping[str, Sequence[Cell]], name: str, label: str) -> Cell | None:
    """The cell of parser ``name`` at ``label``, if any."""
    for c in rows.get(name, ()):
        if c.label == label:
            return c
    return None


def time_or_bound(
    rows: Mapping[str, Sequence[Cell]], name: str, label: str
) -> tuple[float, bool] | None:
    """The cell's time, or for a capped cell a lower bound: the last measured time
    scaled linearly to this size (no parser reads its input in less than linear time)."""
    cells = rows.get(name, [])
    for i, c in enumerate(cells):
        if c.label != label:
            continue
        if c.seconds is not None and c.status in ("ok", "wrong"):
            return c.seconds, False
        if c.status == "capped":
            before = [x for x in cells[:i] if x.seconds is not None]
            if before and before[-1].seconds is not None:
                return before[-1].seconds * c.chars / before[-1].chars, True
    return None


def block(
    title: str,
    labels: Sequence[str],
    rows: Mapping[str, Sequence[Cell]],
    reference: str | None,
    kinds: Mapping[str, str] | None = None,
    exponent: bool = True,
) -> str:
    """One table: a row per parser, a column per size (``time MB/s ×ratio`` where the
    ratio is the parser's time over the ``reference`` row's), then the growth exponent.
    An exponent marked ``*`` was fitted over fewer sizes (the rest capped)."""
    ref_cells = {c.label: c for c in rows.get(reference, ())} if reference else {}
    headers = ["parser", *(["kind"] if kinds else []), *labels, *(["exp"] if exponent else [])]
    out_rows: list[list[str]] = []
    for name, cells in rows.items():
        by_label = {c.label: c for c in cells}
        exp = growth_exponent(cells)
        measured = sum(1 for c in cells if c.seconds is not None)
        exp_text = "" if exp is None else f"{exp:.2f}" + ("*" if measured < len(labels) else "")
        out_rows.append(
            [
                name,
                *([kinds.get(name, "")] if kinds else []),
                *(fmt_cell(by_label.get(lb), ref_cells.get(lb)) for lb in labels),
                *([exp_text] if exponent else []),
            ]
        )
    legend = "cells: median time, MB/s, ×time vs " + (reference or "—") + "; ≠ = wrong value"
    problems = [
        f"  {c.parser} {c.label}: {c.status}: {c.detail}"
        for cells in rows.values()
        for c in cells
        if c.status in ("wrong", "error")
    ]
    return "\n".join([f"\n{title}", legend, render(headers, out_rows), *problems])


def series_dict(rows: Mapping[str, Sequence[Cell]]) -> dict[str, Any]:
    """Rows as JSON-ready data: the cells and the growth exponent of each parser."""
    return {
        name: {"cells": [c.to_dict() for c in cells], "exponent": growth_exponent(cells)}
        for name, cells in rows.items()
    }


@dataclass(frozen=True)
class Target:
    """A goal of an issue, as measured: ``met`` is None when it could not be measured."""

    name: str
    measured: str
    goal: str
    met: bool | None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def targets_table(title: str, targets: Sequence[Target]) -> str:
    """The targets with their measured values and ``met`` / ``MISSED`` / ``n/a``."""
    rows = [
        [
            t.name,
            t.measured,
            t.goal,
            "n/a" if t.met is None else ("met" if t.met else "MISSED"),
            t.detail,
        ]
        for t in targets
    ]
    return f"\n{title}\n" + render(["target", "measured", "goal", "status", "detail"], rows)


def protocol_steps(
    cases: Sequence[tuple[str, int, Sequence[str], Callable[[Any], str | None]]],
    fn: Callable[[Sequence[str]], Any],
) -> list[Step]:
    """One step per ``(label, characters, chunks, check)``: ``fn`` run over the chunks."""

    def bind(chunks: Sequence[str]) -> Callable[[], Any]:
        return lambda: fn(chunks)

    return [(label, size, bind(chunks), check) for label, size, chunks, check in cases]


def baseline_target(
    rows: Mapping[str, list[Cell]], ours: str, name: str, label: str, what: str, goal: float
) -> Target:
    """The baseline row ``name``'s time over the current row ``ours``'s at ``label``,
    at least ``goal`` (issue 16's protocol targets)."""
    ours_cell, theirs = cell_at(rows, ours, label), cell_at(rows, name, label)
    if ours_cell and theirs and ours_cell.seconds and theirs.seconds:
        r = theirs.seconds / ours_cell.seconds
        return Target(what, fmt_ratio(r), f"≥ ×{goal:g}", r >= goal, "baseline time / current time")
    return Target(what, "—", f"≥ ×{goal:g}", None, "not measured")

"""Open-weights format rows (issue 24): a 98 KB reply in each family's raw markup (prose
and 200 calls with nested arguments, 8-character chunks) through ``ModelTagParser``,
against the Hermes path (the same reader on the Hermes reply) and against ``TagParser``
as it read Hermes tags before the table (``format="tool_call"``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bench.profiles import Profile
from bench.report import Target, block, cell_at, series_dict, targets_table
from bench.timing import Cell, measure
from bench.workloads import chunk
from unspool.events import ActionComplete
from unspool.protocols._model_formats import MODEL_FORMATS
from unspool.protocols._model_tags import ModelTagParser
from unspool.protocols._tags import TagParser

__all__ = ["CALLS", "reply", "run"]

CALLS = 200
CHUNKER = "8"
LABEL = "98KB"
GOAL = 1.5
HERMES = "ModelTagParser hermes (the Hermes path)"
TODAY = "TagParser tool_call (before the table)"

_PROSE = (
    "Here is what I found about the request, with the details that matter for the next "
    "step, and a short note on what remains to be checked before we go on. "
)


def _args(i: int) -> dict[str, Any]:
    return {
        "query": f"item {i}: " + "lorem ipsum dolor sit amet, consectetur adipiscing " * 4,
        "limit": i % 17,
        "filters": {"tags": ["alpha", "beta", f"t{i}"], "exact": i % 2 == 0, "since": None},
        "note": "héllo ✓",
    }


def reply(fmt: str, calls: int = CALLS) -> str:
    """A reply in ``fmt``: prose and ``calls`` calls in turn (xLAM: one list of calls)."""
    write = MODEL_FORMATS[fmt].write
    if fmt == "xlam":  # one list of calls, at the start
        calls_list = [{"name": f"tool_{i}", "arguments": _args(i)} for i in range(calls)]
        return json.dumps(calls_list, ensure_ascii=False)
    parts = []
    for i in range(calls):
        parts.append(_PROSE if fmt != "harmony" else f"<|channel|>final<|message|>{_PROSE}<|end|>")
        parts.append(write(f"tool_{i}", _args(i)))
    parts.append(_PROSE)
    return "".join(parts)


def _count(events: list[Any]) -> int:
    return sum(isinstance(e, ActionComplete) for e in events)


def _runner(make: Callable[[], Any], chunks: list[str]) -> Callable[[], int]:
    def go() -> int:
        parser = make()
        n = 0
        for c in chunks:
            n += _count(parser.feed(c))
        return n + _count(parser.finish())

    return go


def _check(result: int) -> str | None:
    return None if result == CALLS else f"{result} calls read, {CALLS} written"


def run(profile: Profile) -> dict[str, Any]:
    rows: dict[str, list[Cell]] = {}
    hermes_chunks = chunk(reply("hermes"), CHUNKER)
    size = len(reply("hermes"))
    rows[TODAY] = [
        measure(
            TODAY,
            LABEL,
            size,
            _runner(lambda: TagParser(format="tool_call", stream_id="b"), hermes_chunks),
            _check,
            profile.settings,
        )
    ]
    for name in MODEL_FORMATS:
        text = reply(name)
        label = HERMES if name == "hermes" else f"ModelTagParser {name}"
        make: Callable[[], Any] = lambda n=name: ModelTagParser(n, stream_id="b")  # noqa: E731
        rows[label] = [
            measure(
                label,
                LABEL,
                len(text),
                _runner(make, chunk(text, CHUNKER)),
                _check,
                profile.settings,
            )
        ]
    print(
        block(f"Open-weights formats ({CALLS} calls, {CHUNKER}-char chunks)", [LABEL], rows, HERMES)
    )
    ref = cell_at(rows, HERMES, LABEL)
    targets = []
    for label, cells in rows.items():
        cell = cells[0]
        if label in (HERMES, TODAY) or ref is None or not ref.seconds or not cell.seconds:
            continue
        # per character: the replies of the families differ in length
        ratio = (cell.seconds / cell.chars) / (ref.seconds / ref.chars)
        targets.append(
            Target(label, f"x{ratio:.2f} per char", f"<= x{GOAL}", ratio <= GOAL, cell.status)
        )
    print(targets_table("Targets (issue 24): each format within 1.5x of the Hermes path", targets))
    return {"rows": series_dict(rows), "targets": [t.to_dict() for t in targets]}

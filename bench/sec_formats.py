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
from unspool.protocols.model_formats import MODEL_FORMATS
from unspool.protocols.model_tags import ModelTagParser
from unspool.protocols.tags import TagParser

__all__ = ["CALLS", "WRITERS", "reply", "run"]

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


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _py(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def _xml(name: str, args: dict[str, Any]) -> str:
    params = "".join(
        f"<parameter={k}>\n{v if isinstance(v, str) else _j(v)}\n</parameter>\n"
        for k, v in args.items()
    )
    return f"<function={name}>\n{params}</function>"


def _call_obj(name: str, args: dict[str, Any], key: str = "arguments") -> str:
    return _j({"name": name, key: args})


Writer = Callable[[str, dict[str, Any]], str]

WRITERS: dict[str, Writer] = {
    "hermes": lambda n, a: f"<tool_call>\n{_call_obj(n, a)}\n</tool_call>",
    "qwen3_coder": lambda n, a: f"<tool_call>\n{_xml(n, a)}\n</tool_call>",
    "seed_oss": lambda n, a: f"<seed:tool_call>\n{_xml(n, a)}\n</seed:tool_call>",
    "glm45": lambda n, a: (
        f"<tool_call>{n}\n"
        + "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{v if isinstance(v, str) else _j(v)}</arg_value>\n"
            for k, v in a.items()
        )
        + "</tool_call>"
    ),
    "mistral": lambda n, a: f"[TOOL_CALLS]{n}[ARGS]{_j(a)}",
    "llama3_json": lambda n, a: f"<|python_tag|>{_call_obj(n, a, 'parameters')}<|eom_id|>",
    "pythonic": lambda n, a: f"<|python_start|>[{_py(n, a)}]<|python_end|>",
    "olmo3": lambda n, a: f"<function_calls>{_py(n, a)}</function_calls>",
    "deepseek": lambda n, a: (
        f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{_j(a)}"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ),
    "kimi_k2": lambda n, a: (
        f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{n}:0"
        f"<|tool_call_argument_begin|>{_j(a)}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "harmony": lambda n, a: (
        f"<|end|><|start|>assistant<|channel|>commentary to=functions.{n} <|constrain|>json"
        f"<|message|>{_j(a)}<|call|><|start|>assistant<|channel|>final<|message|>"
    ),
    "granite": lambda n, a: f"<|tool_call|>[{_call_obj(n, a)}]",
    "granite_20b_fc": lambda n, a: f"<function_call> {_call_obj(n, a)}",
    "phi4_mini": lambda n, a: f"functools[{_call_obj(n, a)}]",
    "jamba": lambda n, a: f"<tool_calls>[{_call_obj(n, a)}]</tool_calls>",
    "xlam": lambda n, a: _call_obj(n, a),
    "internlm2": lambda n, a: (
        f"<|action_start|><|plugin|>{_call_obj(n, a, 'parameters')}<|action_end|>"
    ),
}
"""How each family writes one call (the bench's replies, and a differential test's)."""


def reply(fmt: str, calls: int = CALLS) -> str:
    """A reply in ``fmt``: prose and ``calls`` calls in turn (xLAM: one list of calls)."""
    write = WRITERS[fmt]
    if fmt == "xlam":
        return "[" + ", ".join(write(f"tool_{i}", _args(i)) for i in range(calls)) + "]"
    parts = []
    if fmt == "harmony":
        parts.append("<|channel|>final<|message|>")
    for i in range(calls):
        parts.append(_PROSE)
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

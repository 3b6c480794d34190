"""Typed partial model rows (issue 6): ``unspool.actions._partial_model.stream_model``
against instructor's ``Partial[Model]`` streaming, on the structured workload.

instructor's streaming is driven from raw chunks by ``Partial[M].model_from_chunks``
(no client needed), and that row runs when the installed instructor can build
``Partial[M]``.  instructor 1.3.2, the version pinned here, cannot with pydantic 2.14
(``create_model`` lost the ``__model_name`` keyword), so the row it stands for is
rebuilt from instructor 1.17's ``model_from_chunks`` and labelled as such: on every
chunk, append to the buffer, ``jiter.from_json(buffer, partial_mode="trailing-strings")``
and ``model_validate`` on a copy of the model whose fields are all optional.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, Optional, Union, get_args, get_origin

from bench.peers import optional_module, unspool_module
from bench.profiles import Profile
from bench.report import Step, Target, block, cell_at, expect, series_dict, targets_table
from bench.table import fmt_ratio
from bench.timing import Cell, growth_exponent, series
from bench.workloads import chunk, document

__all__ = ["run"]

CHUNKER = "8"
OURS = "unspool stream_model"
REAL = "instructor Partial"
REBUILT = "instructor-style (rebuilt)"
LINEAR = 1.1


def _models(pydantic: Any) -> Any:
    """The pydantic model of the structured workload."""
    base: Any = pydantic.BaseModel

    class Ref(base):  # type: ignore[misc]
        url: str
        year: int

    class Section(base):  # type: ignore[misc]
        heading: str
        body: str
        tags: list[str]
        score: float
        published: bool
        refs: list[Ref]

    class Stats(base):  # type: ignore[misc]
        words: int
        reading_minutes: float

    class Report(base):  # type: ignore[misc]
        id: str
        title: str
        summary: str
        language: str
        version: int
        draft: bool
        reviewer: Optional[str]  # noqa: UP045 - evaluated by pydantic on Python 3.10 too
        sections: list[Section]
        stats: Stats

    return Report


def _partial_builder(pydantic: Any) -> Callable[[Any], Any]:
    """``partial(M)``: a copy of M whose fields are all optional, recursively (nested
    models and models inside lists too), as instructor's ``Partial`` builds it."""
    base: Any = pydantic.BaseModel

    def relax(tp: Any) -> Any:
        if isinstance(tp, type) and issubclass(tp, base):
            return partial(tp)
        origin = get_origin(tp)
        if origin is None:
            return tp
        args = tuple(relax(a) for a in get_args(tp))
        if origin is Union:
            return Union[args]  # noqa: UP007 - a runtime-built union
        return origin[args]

    @cache
    def partial(model: Any) -> Any:
        fields = {
            name: (Optional[relax(f.annotation)], None)  # noqa: UP045
            for name, f in model.model_fields.items()
        }
        return pydantic.create_model(f"Partial{model.__name__}", **fields)

    return partial


def _rebuilt(jiter: Any, pydantic: Any, model: Any) -> Callable[[Sequence[str]], Any]:
    partial_model = _partial_builder(pydantic)(model)
    from_json = jiter.from_json

    def run(chunks: Sequence[str]) -> Any:
        buf = ""
        obj: Any = None
        for c in chunks:
            buf += c
            data = from_json((buf.strip() or "{}").encode(), partial_mode="trailing-strings")
            obj = partial_model.model_validate(data)
        return obj.model_dump() if obj is not None else None

    return run


def _last(items: Iterable[Any]) -> Any:
    """The last item of a stream of partial values (None when there was none)."""
    tail = deque(items, maxlen=1)
    return tail[0] if tail else None


def _real(partial_cls: Any) -> Callable[[Sequence[str]], Any]:
    def run(chunks: Sequence[str]) -> Any:
        obj = _last(partial_cls.model_from_chunks(iter(chunks)))
        return obj.model_dump() if obj is not None else None

    return run


def _ours(stream_model: Any, model: Any) -> Callable[[Sequence[str]], Any]:
    def run(chunks: Sequence[str]) -> Any:
        last = _last(stream_model(model, chunks))
        return last.value.model_dump() if last is not None and last.done else None

    return run


def run(profile: Profile) -> dict[str, Any]:
    """Measure and print the typed-model rows; returns the results as JSON-ready data."""
    notes: list[str] = []
    pydantic = optional_module("pydantic")
    if pydantic is None:
        print("note: models section skipped: pydantic not installed")
        return {"notes": ["pydantic not installed"]}
    model = _models(pydantic)
    runners: dict[str, Callable[[Sequence[str]], Any]] = {}
    try:
        stream_model = unspool_module("unspool.actions._partial_model").stream_model
        runners[OURS] = _ours(stream_model, model)
    except ImportError as exc:
        notes.append(f"unspool row skipped: unspool.actions._partial_model not importable ({exc})")
    instructor = optional_module("instructor.dsl.partial")
    try:
        if instructor is None:
            raise ImportError("instructor not installed")
        runners[REAL] = _real(instructor.Partial[model])
    except Exception as exc:
        version = optional_module("importlib.metadata")
        v = version.version("instructor") if instructor is not None and version else "none"
        notes.append(
            f"{REAL} row skipped: instructor {v} cannot build Partial[Model] here "
            f"({type(exc).__name__}: {str(exc)[:80]}); see the rebuilt row"
        )
    jiter = optional_module("jiter")
    if jiter is not None:
        runners[REBUILT] = _rebuilt(jiter, pydantic, model)
    else:
        notes.append(f"{REBUILT} row skipped: jiter not installed")
    for n in notes:
        print(f"note: {n}")
    labels = profile.protocol_sizes
    docs = [document("structured", s) for s in labels]
    streams = [chunk(d.text, CHUNKER) for d in docs]

    def steps_for(fn: Callable[[Sequence[str]], Any]) -> list[Step]:
        def bind(chunks: Sequence[str]) -> Callable[[], Any]:
            return lambda: fn(chunks)

        def check_for(text: str) -> Callable[[Any], str | None]:
            want = model.model_validate_json(text).model_dump()
            return expect(want, "model_validate_json")

        return [
            (lb, len(d.text), bind(s), check_for(d.text))
            for lb, d, s in zip(labels, docs, streams, strict=True)
        ]

    rows: dict[str, list[Cell]] = {
        name: series(name, steps_for(fn), profile.settings) for name, fn in runners.items()
    }
    title = f"models · structured output into a pydantic model · {CHUNKER}-char chunks"
    print(block(title, labels, rows, OURS if OURS in rows else None), flush=True)
    targets: list[Target] = []
    label = "98KB" if "98KB" in labels else labels[-1]
    peer = REAL if REAL in rows else REBUILT
    for lb in dict.fromkeys(("1KB", "24KB", label)):
        if lb not in labels:
            continue
        ours_cell, peer_cell = cell_at(rows, OURS, lb), cell_at(rows, peer, lb)
        name = f"structured {lb} 8-char: {peer} / stream_model"
        if ours_cell and peer_cell and ours_cell.seconds and peer_cell.seconds:
            r = peer_cell.seconds / ours_cell.seconds
            targets.append(Target(name, fmt_ratio(r), "> ×1 (faster)", r > 1))
        else:
            targets.append(Target(name, "—", "> ×1 (faster)", None, "capped or not measured"))
    exp = growth_exponent(rows.get(OURS, []))
    targets.append(
        Target(
            f"stream_model growth exponent {labels[0]}→{labels[-1]}",
            "—" if exp is None else f"{exp:.3f}",
            f"≤ {LINEAR} (linear)",
            None if exp is None else exp <= LINEAR,
        )
    )
    print(targets_table("model targets (issue 6)", targets), flush=True)
    return {
        "notes": notes,
        "chunker": CHUNKER,
        "rows": series_dict(rows),
        "targets": [t.to_dict() for t in targets],
    }

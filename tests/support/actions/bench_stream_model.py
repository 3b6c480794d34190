"""``stream_model`` against instructor's ``Partial[Model]`` on the same stream, one run.

Usage: ``PYTHONPATH=src:. python tests/support/actions/bench_stream_model.py [SIZES...]``
(document sizes in KB, default ``4 16 64``; chunks of 8 characters, as a model
streams tokens). Each library consumes every chunk as a streaming UI would:
unspool's :func:`stream_model` (incremental), instructor's
``Partial[M].model_from_chunks`` (buffer + re-parse + validate per chunk).
instructor is skipped above 16 KB, where it needs tens of seconds.
Prints one line per (library, size): seconds, partial values yielded, and
whether the final value equals ``Model.model_validate_json(document)``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from unspool.actions._partial_model import stream_model


class Step(BaseModel):
    title: str
    body: str
    minutes: int
    tags: list[str] = []


class Lesson(BaseModel):
    title: str
    level: str
    steps: list[Step]


def document(kb: int) -> str:
    steps = []
    i = 0
    while True:
        steps.append(
            {
                "title": f"Step {i}: halves and quarters",
                "body": "Fold the paper in half, then again; "
                + "name each part and compare them. " * 2,
                "minutes": 5 + i % 7,
                "tags": ["fractions", f"t{i}"],
            }
        )
        text = json.dumps({"title": "Fractions", "level": "intro", "steps": steps})
        if len(text) >= kb * 1024:
            return text
        i += 1


def run_unspool(chunks: list[str]) -> tuple[int, Any]:
    count, last = 0, None
    for part in stream_model(Lesson, chunks):
        count, last = count + 1, part.value
    return count, last


def run_instructor(chunks: list[str]) -> tuple[int, Any]:
    from instructor import Partial

    count, last = 0, None
    for value in Partial[Lesson].model_from_chunks(chunks):  # type: ignore[attr-defined]
        count, last = count + 1, value
    return count, last


def measure(name: str, run: Callable[[list[str]], tuple[int, Any]], sizes: Iterable[int]) -> None:
    for kb in sizes:
        text = document(kb)
        chunks = [text[i : i + 8] for i in range(0, len(text), 8)]
        start = time.perf_counter()
        count, last = run(chunks)
        elapsed = time.perf_counter() - start
        same = Lesson.model_validate(last.model_dump()) == Lesson.model_validate_json(text)
        print(
            f"{name:<12} {len(text) / 1024:6.1f} KB  {elapsed:8.3f} s  {count:6d} partials  final ok={same}"
        )


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [4, 16, 64]
    measure("unspool", run_unspool, sizes)
    measure("instructor", run_instructor, [kb for kb in sizes if kb <= 16])


if __name__ == "__main__":
    main()

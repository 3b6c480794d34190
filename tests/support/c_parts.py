"""Shared by the tests of the protocols' C parts (snapshots, fast paths): the C machine
selected for a test, the Python forms forced for a run, and a leak check."""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.machines import on_machine
from unspool.protocols import _c_fastpaths as c_fastpaths

not_sanitized = pytest.mark.skipif(
    os.environ.get("UNSPOOL_SANITIZED") == "1",
    reason="AddressSanitizer's quarantine holds freed memory",
)
"""For memory checks: scripts/sanitize.sh sets UNSPOOL_SANITIZED=1."""


@pytest.fixture
def c_machine() -> Iterator[None]:
    """The C machine selected for the test (the C parts run only with it)."""
    with on_machine("c"):
        yield


@contextmanager
def python_fast_paths() -> Iterator[None]:
    """Parsers made inside take their fast paths in Python (the reference)."""
    saved = c_fastpaths._module
    c_fastpaths._module = None
    try:
        yield
    finally:
        c_fastpaths._module = saved


def feed_in_pieces(parser: Any, text: str, size: int = 4) -> None:
    """Feed ``text`` to a protocol parser in ``size``-character pieces, each a new chunk
    object (a leaked reference to a reused chunk would not show), then finish it."""
    for i in range(0, len(text), size):
        parser.feed(text[i : i + size])
    parser.finish()


def traced_growth(run: Callable[[], None], warm: int = 30, first: int = 50) -> int:
    """Bytes the traced heap grew between ``first`` and ``5 * first`` calls of ``run``
    (after ``warm`` calls): a leaked reference per call keeps what it points to."""
    for _ in range(warm):
        run()
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(first):
            run()
        gc.collect()
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(4 * first):
            run()
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return after - before

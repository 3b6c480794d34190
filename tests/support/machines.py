"""The JsonStream machines the suite runs on, named once: the matrix of ``conftest.py``
(every module of ``tests/core`` on each) and the tests that pick a machine themselves
(the differential tests, the hand-over, the protocols' C parts) take them from here."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from unspool.core import _machines as machines

MACHINES: list[str] = ["python", "c"] if machines.AVAILABLE else ["python"]
"""The pure-Python reference, and the C machine of ``unspool.core._speedups`` when it is
built (without it the ``[c]`` half of the matrix is left out, not failed)."""

needs_c = pytest.mark.skipif(not machines.AVAILABLE, reason="the C machine is not built here")
"""For a test of the C machine itself."""


@contextmanager
def on_machine(name: str) -> Iterator[str]:
    """New parsers made inside run on ``name`` (``"python"`` or ``"c"``); the machine
    selected before is selected again after."""
    before = machines.selected()
    machines.select(name)
    try:
        yield name
    finally:
        machines.select(before)

"""Run every core test on both JsonStream machines.

Each module named ``test_core_*`` (and the other modules in :data:`BOTH_MACHINES`)
is collected twice, once per machine: ``[python]`` runs the pure-Python reference,
``[c]`` the C machine of ``unspool.core._speedups`` (left out, with a note in the
test ids, when the extension is not built).  A test module needs no change: the
module-scoped autouse fixture :func:`machine` selects the machine before its tests run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from unspool.core import machines

BOTH_MACHINES = ("test_find_json", "test_oneshot", "test_speedups")
"""Modules outside ``test_core_*`` that also run on both machines."""

MACHINES = ["python", "c"] if machines.AVAILABLE else ["python"]


def _on_both(module_name: str) -> bool:
    short = module_name.rsplit(".", 1)[-1]
    return short.startswith("test_core_") or short in BOTH_MACHINES


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "machine" in metafunc.fixturenames and _on_both(metafunc.module.__name__):
        metafunc.parametrize("machine", MACHINES, indirect=True, scope="module")


@pytest.fixture(autouse=True, scope="module")
def machine(request: pytest.FixtureRequest) -> Iterator[str]:
    """The machine new parsers run on in this module: ``"python"`` or ``"c"``."""
    name: str = getattr(request, "param", machines.selected())
    before = machines.selected()
    machines.select(name)
    yield name
    machines.select(before)

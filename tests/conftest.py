"""Setup every test module shares: the hypothesis profile, both core machines, and
per-run shared folders.

* The hypothesis profile (``tests/support/hypothesis_profiles.py``) is loaded here, before any test
  module is imported, so ``examples(weight)`` in a decorator already sees it.
* The machine matrix: each module of ``tests/core`` (but those of :data:`ONE_MACHINE`)
  is collected twice, once per JsonStream machine of ``tests.support.machines.MACHINES``:
  ``[python]`` runs the pure-Python reference, ``[c]`` the C machine of
  ``unspool.core._speedups`` (left out when the extension is not built).  A test module
  needs no change: the module-scoped autouse fixture :func:`machine` selects the machine
  before its tests run.  This is the one place that says which tests run on which
  machine; a test that compares the machines itself takes them from ``MACHINES`` and
  ``on_machine``.
* The suite runs under pytest-xdist (``-n auto --dist loadgroup`` in
  ``pyproject.toml``); ``tests/support/runs.py`` says what a fixture needs to be safe there,
  and :func:`build_once` gives the workers one folder built once per run.  Each
  worker collects its garbage before it reports that it finished
  (:func:`pytest_sessionfinish`), so that it shuts down quietly.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import runs
from tests.support.hypothesis_profiles import load_profile
from tests.support.machines import MACHINES, on_machine
from tests.support.replay import ReplayServer
from unspool.core import _machines as machines

PROFILE = load_profile()

ONE_MACHINE = (
    "test_machine_state",
    "test_speedups",
    "test_pyliteral",
    "test_repair_kinds",
    "test_machine_steps_py",  # these two read the sources: no machine runs
    "test_machine_steps_c",
)
"""Modules of ``tests/core`` collected once: they pick the machine in each test (the
differential tests, the hand-over between the machines) or do not parse with JsonStream."""


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: the full garbage collection now, then ``gc.freeze()``.

    Once every worker reported that it finished, execnet gives each one 5 seconds to
    return, then sends it SIGINT. pytest's last step in a worker is a full collection
    (to report the unraisable exceptions of objects freed late); over a worker's heap
    of about a million objects, on a loaded two-core machine, it took 7 to 14 seconds,
    so the SIGINT landed inside a GC callback (hypothesis's, a ``WeakSet``'s) and pytest
    printed a ``KeyboardInterrupt`` as a ``PytestUnraisableExceptionWarning`` after a
    green run. This hook runs inside xdist's, before the worker reports: the same
    collection, under pytest's unraisable hook still (what it finds is reported as
    before), while the controller waits without a deadline; the frozen survivors are
    then left out of pytest's own last collection, which takes milliseconds.
    """
    if runs.worker_id() != "master":
        gc.collect()
        gc.freeze()


def pytest_report_header() -> str:
    return f"hypothesis profile: {PROFILE} (set UNSPOOL_HYPOTHESIS=dev, ci or long)"


def _on_both(module_name: str) -> bool:
    package, _, short = module_name.rpartition(".")
    return package == "tests.core" and short not in ONE_MACHINE


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "machine" in metafunc.fixturenames and _on_both(metafunc.module.__name__):
        metafunc.parametrize("machine", MACHINES, indirect=True, scope="module")


@pytest.fixture(autouse=True, scope="module")
def machine(request: pytest.FixtureRequest) -> Iterator[str]:
    """The machine new parsers run on in this module: ``"python"`` or ``"c"``."""
    with on_machine(getattr(request, "param", machines.selected())) as name:
        yield name


@pytest.fixture(scope="session")
def worker_id() -> str:
    """``"gw0"``, ``"gw1"``... under xdist, ``"master"`` in a single process."""
    return runs.worker_id()


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all the processes of this pytest run share (xdist workers included)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent / "shared" if runs.worker_id() != "master" else base / "shared"


@pytest.fixture(scope="session")
def build_once(run_dir: Path) -> Callable[[str, Callable[[Path], None]], Path]:
    """``build_once(key, build)``: a folder built once per run, whichever worker asks first."""

    def once(key: str, build: Callable[[Path], None]) -> Path:
        return runs.build_once(run_dir, key, build)

    return once


@pytest.fixture(scope="module")
def module_replay_server() -> Iterator[ReplayServer]:
    """One loopback replay server (``tests/support/replay``) for the module's tests."""
    with ReplayServer() as server:
        yield server


@pytest.fixture
def replay_server(module_replay_server: ReplayServer) -> Iterator[ReplayServer]:
    """The module's replay server with no reply or request left from an earlier test."""
    module_replay_server.reset()
    yield module_replay_server
    module_replay_server.reset()

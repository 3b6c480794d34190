"""Setup every test module shares: the hypothesis profile, and per-run shared folders.

The profile (``hypothesis_profiles``) is loaded here, before any test module is
imported, so ``examples(weight)`` in a decorator already sees it.  The suite runs
under pytest-xdist (``-n auto --dist loadgroup`` in ``pyproject.toml``); see
``run_support`` for what a fixture needs to be safe there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import run_support
from hypothesis_profiles import load_profile

PROFILE = load_profile()


def pytest_report_header() -> str:
    return f"hypothesis profile: {PROFILE} (set UNSPOOL_HYPOTHESIS=dev, ci or long)"


@pytest.fixture(scope="session")
def worker_id() -> str:
    """``"gw0"``, ``"gw1"``... under xdist, ``"master"`` in a single process."""
    return run_support.worker_id()


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all the processes of this pytest run share (xdist workers included)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent / "shared" if run_support.worker_id() != "master" else base / "shared"


@pytest.fixture(scope="session")
def build_once(run_dir: Path) -> Callable[[str, Callable[[Path], None]], Path]:
    """``build_once(key, build)``: a folder built once per run, whichever worker asks first."""

    def once(key: str, build: Callable[[Path], None]) -> Path:
        return run_support.build_once(run_dir, key, build)

    return once

"""The test suite's own setup: hypothesis profiles, xdist, and per-run shared folders."""

from __future__ import annotations

import gc
import multiprocessing
import re
import sys
import weakref
from pathlib import Path

import pytest
from hypothesis import settings

from tests import conftest
from tests.support import runs
from tests.support.hypothesis_profiles import PROFILES, chosen_profile, examples
from tests.support.paths import ROOT


def test_profile_is_dev_by_default_ci_under_ci_and_long_on_request() -> None:
    assert chosen_profile({}) == "dev"
    assert chosen_profile({"CI": "true"}) == "ci"
    assert chosen_profile({"CI": "false"}) == "dev"
    assert chosen_profile({"CI": "true", "UNSPOOL_HYPOTHESIS": "long"}) == "long"
    assert chosen_profile({"UNSPOOL_HYPOTHESIS": "CI"}) == "ci"
    with pytest.raises(ValueError, match="choose one of"):
        chosen_profile({"UNSPOOL_HYPOTHESIS": "forever"})


def test_budgets_scale_with_the_profile() -> None:
    budgets = {name: PROFILES[name].max_examples for name in ("dev", "ci", "long")}
    assert budgets["dev"] < budgets["ci"] < budgets["long"]
    assert PROFILES["ci"].derandomize and PROFILES["ci"].database is None
    assert PROFILES["dev"].derandomize and not PROFILES["long"].derandomize
    assert PROFILES["dev"].deadline is None and PROFILES["long"].deadline is None
    assert examples(200, PROFILES["dev"]) == 60  # a weight is the test's budget in CI
    assert examples(10, PROFILES["dev"]) == 5
    assert examples(200, PROFILES["ci"]) == 200
    assert examples(200, PROFILES["long"]) == 2000
    assert examples(100) == settings().max_examples  # the loaded profile


def test_the_suite_runs_on_every_core_and_the_readme_says_how_to_go_long() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib on 3.10
    addopts = re.search(r'^addopts = "(.*)"$', pyproject, re.M)
    assert addopts is not None
    assert "-n auto --dist loadgroup" in addopts.group(1)
    assert "-rs" in addopts.group(1).split()  # every skip prints its reason
    test_extra = re.search(r"^test = \[(.*?)^\]", pyproject, re.M | re.S)
    assert test_extra is not None and '"pytest-xdist>=' in test_extra.group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "UNSPOOL_HYPOTHESIS=long" in readme
    assert re.search(r"The whole suite takes about [\d.–-]+ minutes on 2 cores\.", readme)


class _Node:
    me: object


def test_a_worker_collects_and_freezes_its_heap_before_it_reports_finished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The quiet shutdown (conftest.pytest_sessionfinish): a worker's last full collection
    runs while the controller still waits for it; a single process keeps its heap as is."""
    assert gc.get_freeze_count() == 0
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "master")
    conftest.pytest_sessionfinish(pytest.Session)  # type: ignore[arg-type]
    assert gc.get_freeze_count() == 0
    cycle = _Node()
    cycle.me = cycle  # only a collection frees it
    freed = weakref.ref(cycle)
    del cycle
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    try:
        conftest.pytest_sessionfinish(pytest.Session)  # type: ignore[arg-type]
        assert gc.get_freeze_count() > 0
        assert freed() is None  # collected before the freeze
    finally:
        gc.unfreeze()


def _build_in_process(root: str, log: str) -> None:
    def build(folder: Path) -> None:
        with open(log, "a", encoding="utf-8") as out:
            out.write("built\n")
        (folder / "artifact").write_text("ok", encoding="utf-8")

    runs.build_once(Path(root), "tool", build)


@pytest.mark.skipif(sys.platform == "win32", reason="fcntl locks are POSIX")
def test_build_once_builds_one_folder_for_many_processes(tmp_path: Path) -> None:
    log = tmp_path / "log"
    ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    workers = [
        ctx.Process(target=_build_in_process, args=(str(tmp_path / "run"), str(log)))
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    assert log.read_text(encoding="utf-8") == "built\n"
    assert (tmp_path / "run" / "tool" / "artifact").read_text(encoding="utf-8") == "ok"


def test_build_once_retries_a_build_that_failed(tmp_path: Path) -> None:
    def broken(folder: Path) -> None:
        (folder / "half").write_text("x", encoding="utf-8")
        raise RuntimeError("network down")

    with pytest.raises(RuntimeError):
        runs.build_once(tmp_path, "tool", broken)
    folder = runs.build_once(tmp_path, "tool", lambda f: (f / "ok").touch())
    assert sorted(p.name for p in folder.iterdir()) == [".built", "ok"]


def test_every_property_test_takes_its_budget_from_the_profile() -> None:
    """A literal number given as ``max_examples`` would ignore the profile (slow by default,
    short in ``long``): budgets are written ``max_examples=examples(150)``."""
    literal = re.compile(r"max_examples\s*=\s*\d")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if literal.search(line)
    ]
    assert offenders == []

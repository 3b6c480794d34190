"""The suite's layout (issue 26): test modules in one folder per layer of ``src/unspool``
(``tests/package`` for the package as a whole), the code they share in ``tests/support``,
no test module importing another, and the machine matrix declared once."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

TESTS = ROOT / "tests"
PACKAGE = ROOT / "src" / "unspool"
WHOLE = "package"
"""The folder of the tests of the package as a whole (readme, names, build, docs...)."""
DATA = ("data",)
"""Folders of ``tests`` that hold data only (JSONTestSuite)."""
MACHINES = TESTS / "support" / "machines.py"
SELECTS = {"tests/core/test_speedups.py"}
"""The one test module that calls ``machines.select`` itself: it tests the selection."""


def _python_files() -> list[Path]:
    return sorted(
        p
        for p in TESTS.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(TESTS).parts[0] not in DATA
    )


def _test_modules() -> list[Path]:
    return [p for p in _python_files() if p.name.startswith("test_")]


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports (top level or inside a function), by full name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_every_test_module_lives_in_a_layer_folder() -> None:
    """Each folder of test modules mirrors a package of ``src/unspool`` (or is
    ``tests/package``), and holds an ``__init__.py``: modules of the same name in two
    layers (``core/test_events.py``...) are then ``tests.core.test_events`` and never clash."""
    assert _test_modules()
    for path in _test_modules():
        folder = path.parent.relative_to(TESTS)
        assert folder.parts, f"{path.name} is at the top of tests/: put it in its layer's folder"
        if folder.parts != (WHOLE,):
            assert (PACKAGE / folder / "__init__.py").is_file(), (
                f"{folder} is no package of unspool"
            )
        for level in (path.parent, *path.parent.parents):
            assert (level / "__init__.py").is_file(), f"{level} has no __init__.py"
            if level == TESTS:
                break


def test_shared_code_lives_in_support() -> None:
    """Outside ``tests/support`` there are test modules, ``__init__.py`` files and the one
    ``tests/conftest.py``: a helper two modules need goes to the support package, and a
    fixture every module needs to the root conftest (no conftest per folder)."""
    stray = [
        str(path.relative_to(TESTS))
        for path in _python_files()
        if path.relative_to(TESTS).parts[0] != "support"
        and not path.name.startswith("test_")
        and path.name != "__init__.py"
        and path != TESTS / "conftest.py"
    ]
    assert stray == []


def test_no_test_module_imports_another() -> None:
    """A test module imports the support package (or ``tests.conftest``, whose hooks the
    suite's own tests check), never another test module: one module's tests then never
    run, or break, because another module changed."""
    offenders = {
        str(path.relative_to(TESTS)): sorted(
            name
            for name in _imported(path)
            if any(part.startswith("test_") for part in name.split("."))
            or (
                name.startswith("tests.")
                and not name.startswith(("tests.support", "tests.conftest"))
            )
        )
        for path in _python_files()
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_machine_matrix_is_declared_once() -> None:
    """The machines are named in ``tests/support/machines.py`` and the matrix is
    ``conftest.py``'s: no other module (but this one) lists ``"python"`` and ``"c"`` or
    selects a machine without ``on_machine`` (but the test of the selection itself)."""
    offenders = []
    for path in _python_files():
        if path in (MACHINES, TESTS / "conftest.py", Path(__file__).resolve()):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if values == {"python", "c"} and len(node.elts) == 2:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} lists the machines")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "select"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "machines"
                and str(path.relative_to(ROOT)) not in SELECTS
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} selects a machine")
    assert offenders == []

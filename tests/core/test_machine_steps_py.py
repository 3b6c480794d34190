"""The pure-Python machine stays cut along its steps (issue 26).

The driver (``JsonStream._machine``) keeps the hot steps inline, each opened by a
``# step: <name>`` comment; the cold ones are functions ``_step_<name>`` (or
``step_<name>``).  The step names are shared with the C machine's scans in
``_speedups.c``.  These tests read the source: every step name appears in one of the
two forms, the driver stays under 500 lines, and no other function of ``core/``
grows past 150 (complexity is held by ruff's C901 in ``pyproject.toml``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support.paths import SRC
from unspool.core._state import MACHINE_STEPS

CORE = SRC / "unspool" / "core"
MACHINE_MODULES = ("_jsonstream.py", "_machine_steps.py")
STEPS = tuple(MACHINE_STEPS)
DRIVER = ("_jsonstream.py", "_machine")
DRIVER_MAX_LINES = 500
FUNCTION_MAX_LINES = 150


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _lines(node: ast.AST) -> int:
    end = node.end_lineno
    assert end is not None
    return end - node.lineno


def _step_forms() -> tuple[set[str], set[str]]:
    """The step names the machine's modules name: as functions, and as inline sections."""
    functions: set[str] = set()
    sections: set[str] = set()
    for name in MACHINE_MODULES:
        path = CORE / name
        for fn in _functions(path):
            m = re.fullmatch(r"_?step_(\w+)", fn.name)
            if m:
                functions.add(m.group(1))
        sections.update(
            re.findall(r"^\s*# step: (\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)
        )
    return functions, sections


@pytest.mark.parametrize("step", STEPS)
def test_every_step_is_named(step: str) -> None:
    functions, sections = _step_forms()
    assert step in functions or step in sections, (
        f"step {step!r}: no function _step_{step} and no '# step: {step}' section"
    )


def test_no_unknown_step_names() -> None:
    functions, sections = _step_forms()
    assert (functions | sections) <= set(STEPS)


def test_inline_sections_are_in_the_driver() -> None:
    """A ``# step:`` section comment sits inside the driver, where the hot steps run."""
    path = CORE / DRIVER[0]
    (driver,) = [fn for fn in _functions(path) if fn.name == DRIVER[1]]
    end = driver.end_lineno
    assert end is not None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.match(r"\s*# step: ", line):
            assert driver.lineno <= number <= end, f"{path.name}:{number} is outside the driver"


def test_driver_stays_short() -> None:
    path = CORE / DRIVER[0]
    (driver,) = [fn for fn in _functions(path) if fn.name == DRIVER[1]]
    assert _lines(driver) < DRIVER_MAX_LINES


def test_core_functions_stay_short() -> None:
    long = [
        f"{path.name}:{fn.lineno} {fn.name} ({_lines(fn)} lines)"
        for path in sorted(CORE.glob("*.py"))
        for fn in _functions(path)
        if (path.name, fn.name) != DRIVER and _lines(fn) > FUNCTION_MAX_LINES
    ]
    assert not long

"""The C machine's steps (issue 26): src/unspool/core/_speedups.c names the same steps
as the Python machine, each as a function ``step_<name>`` or as a section of the scan
opened by ``/* step: <name> */``, and no C function in it is over 250 lines (the scan
is cut into steps instead of two long loops)."""

from __future__ import annotations

import re

import pytest

from tests.support.paths import SRC
from unspool.core._state import MACHINE_STEPS

SOURCE = SRC / "unspool" / "core" / "_speedups.c"

pytestmark = pytest.mark.skipif(not SOURCE.is_file(), reason="needs the source tree (_speedups.c)")

STEPS = tuple(MACHINE_STEPS)
"""The step names shared with the Python machine (jsonstream._machine)."""

MAX_LINES = 250

# a static function's definition: its storage class and return type on the line before
# the name (this file's style), the STEP macro (static inline) or static
_DEFINITION = re.compile(r"^(?:STEP|static)\b[^\n;{}()]*\n(step_\w+)\(", re.MULTILINE)
_SECTION = re.compile(r"/\* step: (\w+) \*/")


def _source() -> str:
    return SOURCE.read_text(encoding="utf-8")


def _blank(m: re.Match[str]) -> str:
    """The match with every character but its newlines made a space (lines stay put)."""
    return re.sub(r"[^\n]", " ", m.group(0))


def _code(text: str) -> str:
    """text without comments, string and character literals and preprocessor lines
    (each blanked, so the line numbers hold): what is left has only code braces."""
    text = re.sub(
        r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
        _blank,
        text,
        flags=re.DOTALL,
    )
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", _blank, text, flags=re.MULTILINE)


def functions(text: str) -> dict[str, int]:
    """Each top-level function of the C text: its length in lines, from the line of
    its name to the line of its closing brace (as lizard counts it)."""
    code = _code(text)
    out: dict[str, int] = {}
    depth = 0
    head_start = 0  # where the text before the current top-level block starts
    open_at = 0
    for k, ch in enumerate(code):
        if ch == "{":
            if depth == 0:
                open_at = k
            depth += 1
        elif ch == "}":
            depth -= 1
            assert depth >= 0, f"unbalanced '}}' at line {code.count(chr(10), 0, k) + 1}"
            if depth == 0:
                head = code[head_start:open_at]
                m = re.search(r"(\w+)\s*\([^()]*\)\s*$", head)
                if m is not None and "=" not in head:  # not an initializer
                    first = code.count("\n", 0, head_start + m.start(1)) + 1
                    last = code.count("\n", 0, k) + 1
                    out[m.group(1)] = last - first + 1
                head_start = k + 1
        elif ch == ";" and depth == 0:
            head_start = k + 1
    assert depth == 0, "unbalanced braces"
    return out


def test_every_step_is_named() -> None:
    text = _source()
    defined = set(_DEFINITION.findall(text))
    sections = set(_SECTION.findall(text))
    named = {name[len("step_") :] for name in defined} | sections
    missing = [s for s in STEPS if s not in named]
    assert not missing, (
        f"steps neither a step_<name> function nor a /* step: <name> */ section: {missing}"
    )
    unknown = sorted(named - set(STEPS))
    assert not unknown, f"steps the Python machine does not name: {unknown}"


def test_the_scans_are_cut_into_steps() -> None:
    sizes = functions(_source())
    assert {"run", "scan_lenient", "scan", "step_string", "handover"} <= sizes.keys()
    long = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not long, f"C functions over {MAX_LINES} lines: {long}"


def test_the_brace_scan_measures_functions() -> None:
    text = (
        "/* { */\nstatic int\nf(int a)\n{\n    if (a == '{') {\n        return \"}\";\n"
        "    }\n    return 0;\n}\n"
        "static const int t[] = {1, 2};\n#define M(x) \\\n    { x }\nstruct s { int a; };\n"
        "static int\ng(void)\n{\n}\n"
    )
    assert functions(text) == {"f": 7, "g": 3}

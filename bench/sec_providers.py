"""Provider rows (issue 7), written in ``bench/bench_providers.py`` by the sources work.

That module is run here when it exists: its ``run(profile) -> dict`` (the contract of
every section), or else its ``main()`` with no command-line arguments, whose printed
table is kept in the results file as lines.  When it is missing the section is skipped
with a note.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import sys
from pathlib import Path
from typing import Any

from bench.profiles import Profile

__all__ = ["run"]

MODULE = "bench.bench_providers"
FILE = Path(__file__).resolve().parent / "bench_providers.py"


def run(profile: Profile) -> dict[str, Any]:
    """Run the provider rows if ``bench/bench_providers.py`` exists."""
    if not FILE.exists():
        note = "providers section skipped: bench/bench_providers.py not present yet"
        print(f"note: {note}")
        return {"notes": [note]}
    module = importlib.import_module(MODULE)
    section = getattr(module, "run", None)
    if callable(section):
        result = section(profile)
        return result if isinstance(result, dict) else {"result": result}
    entry = getattr(module, "main", None)
    if callable(entry):
        # main() reads sys.argv: give it none of ours, so it runs with its defaults.
        buffer = io.StringIO()
        saved = sys.argv
        sys.argv = [str(FILE)]
        try:
            with contextlib.redirect_stdout(buffer):
                code = entry()
        finally:
            sys.argv = saved
        output = buffer.getvalue()
        print(output, end="", flush=True)
        return {
            "notes": ["ran bench_providers.main() with its default arguments"],
            "exit_code": code,
            "output": output.splitlines(),
        }
    note = "providers section skipped: bench_providers has neither run(profile) nor main()"
    print(f"note: {note}")
    return {"notes": [note]}

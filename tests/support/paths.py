"""Where the checkout's folders are, for tests that read its files or run its code in a
child process (one place, whichever layer folder a test module lives in)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root (the folder holding ``tests/``, ``src/`` and ``README.md``)."""

SRC = ROOT / "src"
"""The folder a child process puts on ``PYTHONPATH`` to import this checkout's unspool."""

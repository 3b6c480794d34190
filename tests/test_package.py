"""The package's shape: public names, no third-party imports in the core, sans-I/O layers."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import unspool

SRC = Path(unspool.__file__).resolve().parent
THIRD_PARTY = (
    "pydantic",
    "jsonschema",
    "openai",
    "anthropic",
    "google",
    "boto3",
    "botocore",
    "ollama",
    "click",
    "rich",
    "httpx",
    "starlette",
    "uvicorn",
    "ag_ui",
    "anyio",
    "psycopg",
    "psycopg_pool",
    "redis",
)
IO_MODULES = {"socket", "threading", "time", "asyncio", "select", "subprocess", "selectors"}


def test_every_public_name_resolves() -> None:
    missing = [name for name in unspool.__all__ if not hasattr(unspool, name)]
    assert missing == []


def test_import_unspool_pulls_in_no_third_party_package() -> None:
    code = (
        "import sys, unspool\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {THIRD_PARTY!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_and_protocols_are_stdlib_only_and_sans_io() -> None:
    stdlib = set(sys.stdlib_module_names)
    offenders: dict[str, set[str]] = {}
    for layer in ("core", "protocols"):
        for path in sorted((SRC / layer).glob("*.py")):
            imported = _imports(path) - {"__future__", "unspool"}
            bad = {m for m in imported if m not in stdlib or m in IO_MODULES}
            if bad:
                offenders[f"{layer}/{path.name}"] = bad
    assert offenders == {}

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


# ------------------------------------------------------------------------------ layer order

LAYERS: dict[str, int] = {
    # bottom: the parser and the vocabulary (and its JSON-safe form)
    "core": 0,
    "events": 0,
    "_jsonsafe": 0,
    "_extras": 0,  # which extra installs a missing module (stdlib only)
    # text in, events out
    "protocols": 1,
    # side by side: none imports another (see ALLOWED_SIBLING_IMPORTS)
    "actions": 2,
    "sources": 2,
    "web": 2,
    # on top: the command, and the package facade that re-exports the public names
    "cli": 3,
    "__main__": 3,
    "_moved": 0,  # 0.2's module paths, kept importable (stdlib only)
    "": 3,
}
"""The layer of each top-level module or folder of ``src/unspool`` (docs/architecture.md).
A new folder or module must be placed here (the test fails until it is)."""

SIDE_BY_SIDE = 2
"""The layer whose folders must not import each other (core and events, or the cli and
the package facade, share a layer and may)."""

ALLOWED_SIBLING_IMPORTS: frozenset[tuple[str, str]] = frozenset({("web", "sources")})
"""Imports allowed between folders of the same layer (importer, imported).  One: the web
layer writes a chat UI's conversation in each provider's shape with the providers' own
tool-result builders (``web/provider_messages.py`` imports
``sources/providers/_tool_results.py``, so a tool result reads the same in one process and
across requests).  Otherwise actions, sources and web meet only through events and
duck-typed interfaces (a source's ``dispatcher=`` argument, a registry's ``validate``)."""


def _part_of(module: str) -> str:
    """The top-level part of ``unspool.x.y`` (``""`` for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imported_modules(path: Path, module: str) -> list[tuple[int, str]]:
    """(line, module) of every unspool import in a file: top-level, in functions, under
    TYPE_CHECKING, relative ones resolved, and ``import_module("unspool...")`` calls."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (
                called == "import_module"
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                found.append((node.lineno, first.value))
    return [(line, name) for line, name in found if name.split(".")[0] == "unspool"]


def layer_violations(src: Path) -> list[str]:
    """Every import in the package at ``src`` that goes up a layer, across the same
    layer, or comes from a module no layer holds."""
    problems: list[str] = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        here = _part_of(module)
        if here not in LAYERS:
            problems.append(f"{module}: '{here}' has no layer in LAYERS")
            continue
        for line, name in _imported_modules(path, module):
            there = _part_of(name)
            if there not in LAYERS:
                problems.append(f"{module}:{line} imports {name}: '{there}' has no layer")
            elif here == there:
                continue
            elif LAYERS[there] > LAYERS[here]:
                problems.append(f"{module}:{line} imports {name}, a layer above")
            elif (
                LAYERS[here] == SIDE_BY_SIDE
                and LAYERS[there] == SIDE_BY_SIDE
                and (here, there) not in ALLOWED_SIBLING_IMPORTS
            ):
                problems.append(f"{module}:{line} imports {name}, a sibling layer")
    return problems


def test_imports_follow_the_layer_order() -> None:
    assert layer_violations(SRC) == []


def test_an_import_up_or_across_a_layer_is_caught(tmp_path: Path) -> None:
    """The checker itself, on a small fake package (a future ``web/`` included)."""
    root = tmp_path / "unspool"
    files = {
        "__init__.py": "from unspool.cli import main\n",
        "events.py": "import unspool.core._errors\n",
        "core/__init__.py": "",
        "core/_errors.py": "def f():\n    from unspool.protocols import tags\n",
        "protocols/__init__.py": "",
        "protocols/_tags.py": "from ..sources import sse\nfrom ..events import X\n",
        "sources/__init__.py": "",
        "sources/_sse.py": "import importlib\nimportlib.import_module('unspool.actions._ledger')\n",
        "actions/__init__.py": "",
        "actions/_ledger.py": "from unspool.core._errors import E\nfrom unspool.events import V\n",
        "web/__init__.py": "",
        "web/_encode.py": "from unspool.cli._main import main\nfrom unspool.events import V\n",
        "cli/__init__.py": "",
        "cli/_main.py": "from unspool import web\nfrom unspool.sources import sse\n",
        "plugins/__init__.py": "",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    assert layer_violations(root) == [
        "unspool.core._errors:2 imports unspool.protocols, a layer above",
        "unspool.plugins: 'plugins' has no layer in LAYERS",
        "unspool.protocols._tags:1 imports unspool.sources, a layer above",
        "unspool.sources._sse:2 imports unspool.actions._ledger, a sibling layer",
        "unspool.web._encode:1 imports unspool.cli._main, a layer above",
    ]

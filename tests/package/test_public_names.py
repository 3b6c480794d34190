"""Names that appear in several places are derived from their tables or checked against
them: the tool formats, the web formats, the package root's lazy names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import get_args

import pytest

import unspool
from unspool.actions._registry import ToolFormat
from unspool.actions._tool_formats import TOOL_FORMATS
from unspool.web._encode import FORMATS, FormatName

ROOT = Path(unspool.__file__).resolve().parent


def test_the_tool_format_names_are_the_table_rows() -> None:
    assert set(get_args(ToolFormat)) == set(TOOL_FORMATS)


def test_the_web_format_names_are_the_table_rows() -> None:
    assert set(get_args(FormatName)) == set(FORMATS)


def _type_checking_imports() -> dict[str, str]:
    """The names the package root imports under ``if TYPE_CHECKING:`` (for type checkers)."""
    tree = ast.parse((ROOT / "__init__.py").read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    for alias in stmt.names:
                        found[alias.asname or alias.name] = stmt.module
    return found


def test_the_lazy_names_agree_everywhere() -> None:
    """Each lazy top-level name: in ``__all__``, imported for type checkers from the same
    module, and that module's own public name."""
    lazy: dict[str, str] = unspool._LAZY
    assert _type_checking_imports() == lazy
    assert set(lazy) <= set(unspool.__all__)
    for name, module in lazy.items():
        mod = importlib.import_module(module)
        assert name in mod.__all__, (name, module)
        assert getattr(unspool, name) is getattr(mod, name)


def test_all_holds_public_names_only() -> None:
    """No ``_name`` in any module's ``__all__`` (the package root's ``__version__`` aside)."""
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(("unspool", *path.relative_to(ROOT).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        names = getattr(importlib.import_module(module), "__all__", [])
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, (module, private)
    assert len(unspool.__all__) == len(set(unspool.__all__))


def test_the_provider_entry_points_come_from_one_factory() -> None:
    """from_openai, from_anthropic, ...: the same function made by ``entry_point``, each
    with its own name and docstring; an option its decoder does not know is a TypeError."""
    from unspool.sources._entry import entry_point
    from unspool.sources._provider_decoder import ProviderDecoder

    made = entry_point("x", ProviderDecoder, "doc")
    names = [n for n in unspool.__all__ if n.startswith("from_")]
    assert sorted(names) == [
        "from_anthropic",
        "from_bedrock",
        "from_gemini",
        "from_ollama",
        "from_openai",
    ]
    for name in names:
        fn = getattr(unspool, name)
        assert fn.__code__ is made.__code__, name  # type: ignore[attr-defined]
        assert fn.__name__ == name and fn.__doc__
        with pytest.raises(TypeError):
            fn([], colour=1)

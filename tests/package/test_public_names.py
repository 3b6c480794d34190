"""Names that appear in several places are derived from their tables or checked against
them: the tool formats, the web formats, the package root's lazy names."""

from __future__ import annotations

import ast
import importlib
import re
import sys
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


# ------------------------------------------------------------------ the visible boundary

PUBLIC_MODULES = {"events", "web/provider_messages", "protocols/prompts"}
"""The modules (besides the packages' ``__init__``) that are documented import paths;
every other module is private, named with a leading underscore."""


def test_private_modules_are_named_with_an_underscore() -> None:
    public = sorted(
        rel
        for path in ROOT.rglob("*.py")
        if not path.name.startswith("_")
        and (rel := path.relative_to(ROOT).with_suffix("").as_posix()) not in PUBLIC_MODULES
    )
    assert public == []
    for rel in PUBLIC_MODULES:
        assert (ROOT / f"{rel}.py").is_file(), rel


def test_the_documents_import_only_public_paths() -> None:
    """What the README and docs/ tell a user to import is public: the package root, a
    subpackage, or one of :data:`PUBLIC_MODULES`."""
    repo = ROOT.parent.parent
    texts = [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]
    public = {"unspool." + rel.replace("/", ".") for rel in PUBLIC_MODULES}
    for text in texts:
        for module in re.findall(r"^\s*from (unspool[\w.]*) import", text.read_text("utf-8"), re.M):
            last = module.rpartition(".")[2]
            assert module in public or (ROOT.parent / module.replace(".", "/")).is_dir(), (
                text.name,
                module,
            )
            assert not last.startswith("_"), (text.name, module)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("unspool.core.jsonstream", "unspool.core._jsonstream"),
        ("unspool.core.machines", "unspool.core._machines"),
        ("unspool.sources.providers.table", "unspool.sources.providers._table"),
        ("unspool.actions.ledgers.sqlite", "unspool.actions.ledgers._sqlite"),
    ],
)
def test_the_old_module_paths_still_import_with_a_warning(old: str, new: str) -> None:
    """0.2's paths name the same module object, with a DeprecationWarning saying where
    it went (``mock.patch`` targets and pickles of 0.2 keep working)."""
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=re.escape(new)):
        moved = importlib.import_module(old)
    assert moved is importlib.import_module(new)


def test_an_unknown_module_is_still_an_import_error() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("unspool.core.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("unspool.core._no_such_module")

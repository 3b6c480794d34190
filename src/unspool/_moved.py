"""The module paths of 0.2, kept importable for one more release.

0.3 named every module that is not a documented import path with a leading underscore
(``unspool.core.jsonstream`` became ``unspool.core._jsonstream``): the public names live
at the package root (and in ``unspool.events``, ``unspool.web``,
``unspool.actions.ledgers``, ``unspool.web.provider_messages`` and
``unspool.protocols.prompts``). Code, pickles and ``mock.patch`` targets written against
0.2 still import the old path: this finder, last on ``sys.meta_path``, maps an unknown
``unspool.a.b`` to an existing ``unspool.a._b`` (the same module object) and warns with a
:class:`DeprecationWarning` naming where to import from instead.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

__all__: list[str] = []

REMOVED_IN = "0.4"
"""The release that drops the old paths."""


class _Alias(importlib.abc.Loader):
    """Loads an old path as the private module it now names."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} is private since unspool 0.3 and is now {self.target}; import "
            f"the public names from unspool instead (the old path goes in {REMOVED_IN})",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the private module ran when it was imported."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds ``unspool.a.b`` as ``unspool.a._b`` when only the latter exists."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        head, _, name = fullname.rpartition(".")
        if not head.startswith("unspool") or name.startswith("_"):
            return None
        if not (head == "unspool" or head.startswith("unspool.")):
            return None
        private = f"{head}._{name}"
        try:
            found = importlib.util.find_spec(private)
        except (ImportError, ValueError):
            return None
        if found is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(private))


def install() -> None:
    """Put the finder last on ``sys.meta_path`` (once): only paths nothing else finds
    reach it."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())

"""One way to say that an optional dependency is missing: which extra installs it.

Every entry point that needs a third-party package (the ``unspool`` command, ``unspool.web``,
``unspool.actions``, the PostgreSQL and Redis ledgers, the ``"ag-ui"`` format, ``unspool demo
--web``...) imports it inside :class:`needs_extra`, which turns a missing module into a
:class:`MissingExtra` whose message names the extra, with no chained traceback::

    with needs_extra("web", "unspool.web"):
        import starlette

    # MissingExtra: unspool.web needs starlette: pip install 'unspool[web]'
"""

from __future__ import annotations

from types import TracebackType

__all__ = ["MissingExtra", "install_hint", "needs_extra"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``."""
    return f"pip install 'unspool[{extra}]'"


class MissingExtra(ModuleNotFoundError):
    """A module an optional feature needs is not installed; the message says what needs
    it and the extra to install (``except ImportError`` and ``except
    ModuleNotFoundError`` both catch it). ``name`` is the missing module, ``extra`` the
    extra, ``feature`` what needed it."""

    def __init__(self, feature: str, module: str, extra: str) -> None:
        super().__init__(f"{feature} needs {module}: {install_hint(extra)}", name=module)
        self.feature = feature
        self.extra = extra


class needs_extra:
    """Import what ``feature`` needs inside this block: a third-party module that is not
    installed becomes :class:`MissingExtra` naming ``extra``. A missing ``unspool`` module
    (a broken install) and a :class:`MissingExtra` from further in are left as they are."""

    __slots__ = ("extra", "feature")

    def __init__(self, extra: str, feature: str) -> None:
        self.extra = extra
        self.feature = feature

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not isinstance(exc, ModuleNotFoundError) or isinstance(exc, MissingExtra):
            return
        top = (exc.name or "").split(".")[0]
        if top and top != "unspool":
            raise MissingExtra(self.feature, top, self.extra) from None

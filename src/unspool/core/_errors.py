"""Errors raised by the core parser, and the ``UNSET`` sentinel."""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "HOOK_FAILED",
    "REENTRY",
    "UNSET",
    "LimitExceeded",
    "MalformedJSON",
    "Unset",
    "parse_error",
]

HOOK_FAILED = "JsonStream stopped after an error in a parse hook"
REENTRY = (
    "JsonStream is already running: a parse hook called back into it, or another thread"
    " uses it (a parser is not shared between threads)"
)
"""The ``ValueError`` a call into a parser that is running raises, before anything changes
(both machines; the parser goes on with the call that runs it)."""

"""The ``RuntimeError`` every later ``feed`` / ``finish`` raises once a parse hook
(``parse_float``, ``parse_int``) raised something other than :class:`MalformedJSON`
(that exception itself went to the caller of the call that ran the hook)."""


class Unset:
    """Type of :data:`UNSET`: "nothing visible yet" (``None`` is JSON ``null``)."""

    _instance: Unset | None = None

    def __new__(cls) -> Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"

    def __copy__(self) -> Unset:
        return self

    def __deepcopy__(self, memo: Any) -> Unset:
        return self


UNSET: Final = Unset()


class MalformedJSON(ValueError):
    """The input is not (a prefix of) the JSON the parser was asked to read.

    ``pos`` is the offset of the offending character in the decoded stream
    (characters, not bytes); ``partial`` is a detached copy of the last good
    live value (or :data:`UNSET`).
    """

    def __init__(self, message: str, pos: int, partial: Any = UNSET) -> None:
        super().__init__(f"{message} at position {pos}")
        self.msg = message
        self.pos = pos
        self.partial = partial


class LimitExceeded(MalformedJSON):
    """A configured limit (depth, token length, document size, int digits) was exceeded."""


def parse_error(msg: str, pos: int, limit: bool = False) -> MalformedJSON:
    """The error to raise at ``pos``: :class:`LimitExceeded` when ``limit``."""
    return (LimitExceeded if limit else MalformedJSON)(msg, pos)

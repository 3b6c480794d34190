"""unspool: turn a live LLM output stream into structured events while it is still arriving.

The core (:class:`JsonStream`, :func:`parse_partial`) and the protocol parsers are
stdlib-only and sans-I/O.  Names that need an optional extra (pydantic for
actions, the provider SDKs, the CLI) are imported lazily on first access, so
``import unspool`` never requires them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from unspool.core.errors import UNSET, LimitExceeded, MalformedJSON
from unspool.core.jsonstream import JsonStream, parse_partial
from unspool.core.path_events import PathEvent, Repair, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Diagnostic,
    Event,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
)

__version__ = "0.1.0"

# name -> module that defines it; imported on first attribute access (PEP 562).
_LAZY: dict[str, str] = {}

if TYPE_CHECKING:  # pragma: no cover - static names for type checkers
    pass


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'unspool' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "UNSET",
    "ActionArgsDelta",
    "ActionComplete",
    "ActionFailed",
    "ActionInvalid",
    "ActionResult",
    "ActionStarted",
    "Diagnostic",
    "Event",
    "JsonStream",
    "LimitExceeded",
    "MalformedJSON",
    "PathEvent",
    "ReasoningDelta",
    "Repair",
    "Skipped",
    "StreamDone",
    "StreamError",
    "StringDelta",
    "TextDelta",
    "ValueEnd",
    "ValueStart",
    "__version__",
    "parse_partial",
    *_LAZY,
]

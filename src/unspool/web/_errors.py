"""``BadRequest``: a request body the server cannot read, answered with a 400.

It is a Starlette ``HTTPException`` (status 400, ``detail`` the one-line message), so
Starlette answers it with a plain-text 400 and FastAPI with ``{"detail": message}``
without any setup: a malformed body never becomes a 500. Install
:func:`bad_request_handler` to answer every ``BadRequest`` with the whole JSON
(``{"error": "bad_request", "message", "errors": [{"path", "message", "type"}]}``).
It is also a ``ValueError``, for code that reads requests outside a web framework.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

import pydantic
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

__all__ = [
    "BadRequest",
    "ErrorDetail",
    "bad_request_handler",
    "body_path",
    "decode_base64",
    "dotted",
]

ErrorDetail = dict[str, Any]
"""``{"path": "messages[0].parts[2].output", "message": ..., "type": ...}``."""


def dotted(path: Sequence[Any]) -> str:
    """``("messages", 0, "parts")`` as ``messages[0].parts`` (``"(body)"`` for the root)."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(body)"


class BadRequest(HTTPException, ValueError):
    """The request body is not one the format allows: ``errors`` says where and why,
    ``status_code`` is 400 (413 for a body over the size limit)."""

    def __init__(
        self, message: str, errors: Sequence[ErrorDetail] = (), *, status_code: int = 400
    ) -> None:
        super().__init__(status_code=status_code, detail=message)
        self.message = message
        self.errors: tuple[ErrorDetail, ...] = tuple(errors) or (
            {"path": "(body)", "message": message, "type": "bad_request"},
        )

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        """The JSON body of the 400 response."""
        return {"error": "bad_request", "message": self.message, "errors": list(self.errors)}

    @classmethod
    def from_validation(cls, what: str, exc: pydantic.ValidationError, body: Any) -> BadRequest:
        """The errors of a pydantic validation of ``body``, each path as the body spells
        it (pydantic's union labels left out: see :func:`body_path`); the message names
        the deepest (a union's other members fail higher up, and say less)."""
        errors: list[ErrorDetail] = []
        depths: list[int] = []
        for err in exc.errors(include_url=False, include_input=False):
            path = body_path(body, err["loc"])
            errors.append({"path": dotted(path), "message": err["msg"], "type": err["type"]})
            depths.append(len(path))
        first = (
            errors[depths.index(max(depths))] if errors else {"path": "(body)", "message": str(exc)}
        )
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return cls(f"invalid {what}: {first['path']}: {first['message']}{more}", errors)


def _holds(value: Any, key: Any) -> bool:
    if isinstance(value, dict):
        return isinstance(key, str) and key in value
    return isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value)


def body_path(body: Any, loc: Sequence[Any]) -> list[Any]:
    """A pydantic error location as a path into ``body``: each key or index that is in
    the body is kept, as is a missing key at the end; anything else is a label pydantic
    adds for a union member (``"tool:output-available"``, ``"str"``) and is left out. A
    label that is also a key of the value (a ``"text"`` part's tag) counts as a label
    when what follows it is found beside it rather than under it."""
    out: list[Any] = []
    current = body
    for i, part in enumerate(loc):
        following = loc[i + 1] if i + 1 < len(loc) else None
        if _holds(current, part):
            if (
                following is not None
                and not _holds(current[part], following)
                and _holds(current, following)
            ):
                continue
            current = current[part]
            out.append(part)
        elif following is None and isinstance(current, dict):
            out.append(part)
    return out


async def bad_request_handler(request: Request, exc: Exception) -> JSONResponse:
    """A Starlette / FastAPI exception handler answering a :class:`BadRequest` with its
    JSON (``Starlette(exception_handlers={BadRequest: bad_request_handler})``, or
    ``app.add_exception_handler(BadRequest, bad_request_handler)``)."""
    if not isinstance(exc, BadRequest):  # registered for another class by mistake
        raise exc
    return JSONResponse(exc.to_dict(), status_code=exc.status_code)


def decode_base64(text: str, path: Sequence[Any], what: str = "base64 data") -> bytes:
    """The bytes of ``text`` (standard base64, padding optional); a :class:`BadRequest`
    naming ``path`` when it is not base64."""
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        where = dotted(path)
        raise BadRequest(
            f"invalid {what} at {where}: not base64 ({exc})",
            [{"path": where, "message": f"not base64: {exc}", "type": "base64"}],
        ) from None

"""Gemini ``streamGenerateContent?alt=sse`` bodies, following Google's documented wire format.

Each chunk is one ``data: {GenerateContentResponse}`` SSE message with camelCase keys:
``candidates[0].content.parts`` (``text``, ``thought: true`` for thought summaries,
``functionCall {name, args, id}``, Vertex's streamed ``functionCall {partialArgs,
willContinue}``), ``finishReason`` on the last chunk, ``usageMetadata``,
``modelVersion`` and ``responseId`` on every chunk.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from unspool.events import Usage

__all__ = ["call", "chunk", "gemini_sse", "text", "thought"]

USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 7, "totalTokenCount": 19}
COUNTED = Usage(12, 7, 19, raw=USAGE)
"""The ``Usage`` every stream of ``chunk()`` ends with."""


def text(piece: str) -> dict[str, Any]:
    return {"text": piece}


def thought(piece: str) -> dict[str, Any]:
    return {"text": piece, "thought": True}


def call(name: str | None, args: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if name is not None:
        body["name"] = name
    if args is not None:
        body["args"] = args
    body.update(extra)
    return {"functionCall": body}


def chunk(*parts: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One ``GenerateContentResponse`` of the stream (the first candidate only)."""
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate.update(extra)
    return {
        "candidates": [candidate],
        "usageMetadata": USAGE,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp-gemini-1",
    }


def gemini_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """The SSE body: ``data: <json>`` and a blank line (CRLF, as Google's servers send)."""
    return b"".join(
        b"data: " + json.dumps(c, ensure_ascii=False).encode() + b"\r\n\r\n" for c in chunks
    )

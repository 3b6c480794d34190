"""Ollama ``POST /api/chat`` streaming bodies, following Ollama's documented API.

The body is NDJSON (``application/x-ndjson``): one object per line with ``model``,
``created_at``, ``message`` (``role``, ``content``, and ``thinking`` / ``tool_calls``
when present) and ``done: false``; the last object has ``done: true``, ``done_reason``
and the timing counters.  An error mid-stream is a line ``{"error": "..."}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from unspool.events import Usage

__all__ = ["CONTENT_TYPE", "line", "ndjson", "tool_call"]

CONTENT_TYPE = "application/x-ndjson"
MODEL = "qwen3:8b"


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}}


def line(
    content: str = "",
    *,
    thinking: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    done_reason: str | None = None,
) -> dict[str, Any]:
    """One chunk; ``done_reason`` makes it the last one."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    out: dict[str, Any] = {
        "model": MODEL,
        "created_at": "2026-01-01T00:00:00.000000Z",
        "message": message,
        "done": done_reason is not None,
    }
    if done_reason is not None:
        out.update(
            done_reason=done_reason,
            total_duration=4_883_583_458,
            load_duration=1_334_875,
            prompt_eval_count=26,
            prompt_eval_duration=342_546_000,
            eval_count=282,
            eval_duration=4_535_599_000,
        )  # COUNTS
    return out


COUNTS = {
    "prompt_eval_count": 26,
    "eval_count": 282,
    "total_duration": 4_883_583_458,
    "load_duration": 1_334_875,
    "prompt_eval_duration": 342_546_000,
    "eval_duration": 4_535_599_000,
}
COUNTED = Usage(26, 282, 308, raw=COUNTS)
"""The ``Usage`` of a stream whose last :func:`line` has a ``done_reason``."""


def ndjson(lines: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(obj, ensure_ascii=False).encode() + b"\n" for obj in lines)

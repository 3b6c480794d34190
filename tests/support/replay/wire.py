"""Builders of provider wire streams, following the providers' documented SSE formats.

* OpenAI Chat Completions: ``data: {chat.completion.chunk}`` lines, then
  ``data: [DONE]``; a tool call's first delta carries ``id``, ``type`` and
  ``function.name`` with empty ``arguments``, later deltas only argument text.
* OpenAI Responses: ``event: <type>`` / ``data: {...}`` with ``sequence_number``;
  ``response.output_item.added`` -> deltas -> ``.done`` -> ``output_item.done``.
* Anthropic Messages: ``event: <type>`` / ``data: {...}``; ``message_start``,
  per block ``content_block_start`` / ``_delta`` / ``_stop``, ``message_delta``
  with the stop reason, ``message_stop``; ``ping`` now and then.

Used to write the fixtures under ``tests/support/fixtures/providers/`` and by the
benchmark to build large streams.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Call",
    "Item",
    "Message",
    "Reasoning",
    "Text",
    "Thinking",
    "anthropic_events",
    "chat_chunks",
    "response_events",
    "sse",
]


@dataclass(frozen=True)
class Text:
    """A text block / message item, streamed in ``pieces``."""

    pieces: Sequence[str]


@dataclass(frozen=True)
class Thinking:
    """An Anthropic thinking block (``Reasoning`` summary text for Responses)."""

    pieces: Sequence[str]
    signature: str = "EqQBCkYIBxgCKkBSig"


Reasoning = Thinking
Message = Text


@dataclass(frozen=True)
class Call:
    """A tool call whose argument text is streamed in ``pieces``."""

    name: str
    call_id: str
    pieces: Sequence[str]


@dataclass(frozen=True)
class Item:
    """A client-run Responses output item (``fields``: its ``type``, ``call_id``, ``action``,
    ``operation``...), given whole when done; a ``custom_tool_call``'s ``input`` streams
    in ``pieces``."""

    fields: Mapping[str, Any]
    pieces: Sequence[str] = ()


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def sse(events: Iterable[dict[str, Any]], *, named: bool, done: bool = False) -> bytes:
    """The SSE body of ``events`` (``event:`` lines from their ``type`` when ``named``)."""
    out: list[str] = []
    for event in events:
        if named:
            out.append(f"event: {event['type']}\n")
        out.append(f"data: {_json(event)}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


# ------------------------------------------------------------------ Chat Completions


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-replay1",
        "object": "chat.completion.chunk",
        "created": 1767225600,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_replay",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def chat_chunks(blocks: Sequence[Text | Call], finish_reason: str = "stop") -> list[dict[str, Any]]:
    """Chat Completions chunks: the text pieces, then the tool calls (index 0, 1, ...)."""
    chunks = [_chunk({"role": "assistant", "content": "", "refusal": None})]
    tool_index = 0
    for block in blocks:
        if isinstance(block, Text):
            chunks.extend(_chunk({"content": piece}) for piece in block.pieces)
            continue
        head = {
            "index": tool_index,
            "id": block.call_id,
            "type": "function",
            "function": {"name": block.name, "arguments": ""},
        }
        chunks.append(_chunk({"tool_calls": [head]}))
        for piece in block.pieces:
            part = {"index": tool_index, "function": {"arguments": piece}}
            chunks.append(_chunk({"tool_calls": [part]}))
        tool_index += 1
    chunks.append(_chunk({}, finish_reason))
    return chunks


# ------------------------------------------------------------------ Responses API


def response_events(
    items: Sequence[Text | Thinking | Call | Item], status: str = "completed"
) -> list[dict[str, Any]]:
    """Responses API events for output ``items``; ``status="incomplete"`` ends the
    last item unfinished and the response with ``max_output_tokens``."""
    seq = iter(range(1_000_000))
    base = {
        "id": "resp_replay1",
        "object": "response",
        "created_at": 1767225600,
        "model": "gpt-4.1-mini-2025-04-14",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }

    def ev(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "sequence_number": next(seq), **fields}

    events = [
        ev("response.created", response={**base, "status": "in_progress"}),
        ev("response.in_progress", response={**base, "status": "in_progress"}),
    ]
    output: list[dict[str, Any]] = []
    for oi, item in enumerate(items):
        last = oi == len(items) - 1
        cut = last and status == "incomplete"
        done_status = "incomplete" if cut else "completed"
        if isinstance(item, Item):
            iid = str(item.fields.get("id") or f"item_{oi}")
            added = {**item.fields, "id": iid, "status": "in_progress"}
            if item.pieces:
                added["input"] = ""
            events.append(ev("response.output_item.added", output_index=oi, item=added))
            for piece in item.pieces:
                events.append(
                    ev(
                        "response.custom_tool_call_input.delta",
                        item_id=iid,
                        output_index=oi,
                        delta=piece,
                    )
                )
            done = {**item.fields, "id": iid, "status": done_status}
            if item.pieces:
                done["input"] = "".join(item.pieces)
                events.append(
                    ev(
                        "response.custom_tool_call_input.done",
                        item_id=iid,
                        output_index=oi,
                        input=done["input"],
                    )
                )
            events.append(ev("response.output_item.done", output_index=oi, item=done))
            output.append(done)
        elif isinstance(item, Call):
            iid = f"fc_{oi}"
            added = {
                "id": iid,
                "type": "function_call",
                "status": "in_progress",
                "arguments": "",
                "call_id": item.call_id,
                "name": item.name,
            }
            events.append(ev("response.output_item.added", output_index=oi, item=added))
            for piece in item.pieces:
                events.append(
                    ev(
                        "response.function_call_arguments.delta",
                        item_id=iid,
                        output_index=oi,
                        delta=piece,
                    )
                )
            args = "".join(item.pieces)
            done = {**added, "status": done_status, "arguments": args}
            if not cut:
                events.append(
                    ev(
                        "response.function_call_arguments.done",
                        item_id=iid,
                        output_index=oi,
                        arguments=args,
                    )
                )
            events.append(ev("response.output_item.done", output_index=oi, item=done))
            output.append(done)
        elif isinstance(item, Thinking):
            iid = f"rs_{oi}"
            added = {"id": iid, "type": "reasoning", "summary": []}
            events.append(ev("response.output_item.added", output_index=oi, item=added))
            part = {"type": "summary_text", "text": ""}
            events.append(
                ev(
                    "response.reasoning_summary_part.added",
                    item_id=iid,
                    output_index=oi,
                    summary_index=0,
                    part=part,
                )
            )
            for piece in item.pieces:
                events.append(
                    ev(
                        "response.reasoning_summary_text.delta",
                        item_id=iid,
                        output_index=oi,
                        summary_index=0,
                        delta=piece,
                    )
                )
            text = "".join(item.pieces)
            events.append(
                ev(
                    "response.reasoning_summary_text.done",
                    item_id=iid,
                    output_index=oi,
                    summary_index=0,
                    text=text,
                )
            )
            done = {**added, "summary": [{"type": "summary_text", "text": text}]}
            events.append(ev("response.output_item.done", output_index=oi, item=done))
            output.append(done)
        else:
            iid = f"msg_{oi}"
            added = {
                "id": iid,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }
            events.append(ev("response.output_item.added", output_index=oi, item=added))
            part = {"type": "output_text", "text": "", "annotations": []}
            events.append(
                ev(
                    "response.content_part.added",
                    item_id=iid,
                    output_index=oi,
                    content_index=0,
                    part=part,
                )
            )
            for piece in item.pieces:
                events.append(
                    ev(
                        "response.output_text.delta",
                        item_id=iid,
                        output_index=oi,
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                )
            text = "".join(item.pieces)
            done_part = {**part, "text": text}
            events.append(
                ev(
                    "response.output_text.done",
                    item_id=iid,
                    output_index=oi,
                    content_index=0,
                    text=text,
                    logprobs=[],
                )
            )
            events.append(
                ev(
                    "response.content_part.done",
                    item_id=iid,
                    output_index=oi,
                    content_index=0,
                    part=done_part,
                )
            )
            done = {**added, "status": done_status, "content": [done_part]}
            events.append(ev("response.output_item.done", output_index=oi, item=done))
            output.append(done)
    final = {**base, "output": output, "status": status}
    if status == "incomplete":
        final["incomplete_details"] = {"reason": "max_output_tokens"}
        events.append(ev("response.incomplete", response=final))
    else:
        events.append(ev("response.completed", response=final))
    return events


# ------------------------------------------------------------------ Anthropic Messages


def anthropic_events(
    blocks: Sequence[Text | Thinking | Call], stop_reason: str = "end_turn"
) -> list[dict[str, Any]]:
    """Anthropic Messages events for content ``blocks`` (every block is closed with
    ``content_block_stop``, the last one too when ``max_tokens`` cut it, as the API does)."""
    message = {
        "id": "msg_replay1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 25, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    for index, block in enumerate(blocks):
        if isinstance(block, Thinking):
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in block.pieces]
            deltas.append({"type": "signature_delta", "signature": block.signature})
        elif isinstance(block, Call):
            start = {"type": "tool_use", "id": block.call_id, "name": block.name, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in ["", *block.pieces]]
        else:
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in block.pieces]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        if index == 0:
            events.append({"type": "ping"})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 42},
        }
    )
    events.append({"type": "message_stop"})
    return events

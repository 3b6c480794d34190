"""Bedrock ``converse-stream`` bodies: the AWS event-stream binary framing, written here.

Each message is a 12-byte prelude (total length, headers length, both big-endian
uint32, then the CRC-32 of those 8 bytes), the headers (name length uint8, name, value
type 7 = string, value length uint16, value), the payload, and the CRC-32 of everything
before it.  Converse events carry ``:message-type: event``, ``:event-type: <name>``,
``:content-type: application/json`` and the event's JSON members as the payload
(``{"contentBlockIndex": 0, "delta": {"text": "Hi"}, "p": "..."}``); errors carry
``:message-type: exception`` and ``:exception-type``.
"""

from __future__ import annotations

import binascii
import json
import struct
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["CONTENT_TYPE", "converse_events", "encode_message", "event_stream", "exception"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack(">B", len(raw_name))
        + raw_name
        + struct.pack(">BH", 7, len(raw_value))
        + raw_value
    )


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message with its prelude and both CRCs."""
    head = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", binascii.crc32(body))


def _event(name: str, members: dict[str, Any]) -> bytes:
    headers = {
        ":event-type": name,
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return encode_message(headers, json.dumps(members, ensure_ascii=False).encode())


def exception(name: str, message: str) -> bytes:
    headers = {
        ":exception-type": name,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return encode_message(headers, json.dumps({"message": message}).encode())


def event_stream(events: Iterable[tuple[str, dict[str, Any]]]) -> bytes:
    """The body of ``(event name, members)`` pairs."""
    return b"".join(_event(name, members) for name, members in events)


def converse_events(
    blocks: Sequence[tuple[str, Any]], stop_reason: str = "end_turn"
) -> list[tuple[str, dict[str, Any]]]:
    """Converse events for content blocks: ``("text", [pieces])``, ``("reasoning",
    [pieces])``, ``("tool", (tool_use_id, name, [input pieces]))``."""
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    for index, (kind, body) in enumerate(blocks):
        if kind == "tool":
            tool_id, name, pieces = body
            start = {"toolUse": {"toolUseId": tool_id, "name": name}}
            events.append(("contentBlockStart", {"contentBlockIndex": index, "start": start}))
            deltas: list[dict[str, Any]] = [{"toolUse": {"input": p}} for p in pieces]
        elif kind == "reasoning":
            deltas = [{"reasoningContent": {"text": p}} for p in body]
            deltas.append({"reasoningContent": {"signature": "c2lnbmF0dXJl"}})
        else:
            deltas = [{"text": p} for p in body]
        for delta in deltas:
            events.append(("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
        events.append(("contentBlockStop", {"contentBlockIndex": index}))
    events.append(("messageStop", {"stopReason": stop_reason}))
    usage = {"inputTokens": 30, "outputTokens": 12, "totalTokens": 42}
    events.append(("metadata", {"usage": usage, "metrics": {"latencyMs": 321}}))
    return events

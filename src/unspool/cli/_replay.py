"""Recorded streams: load raw text, JSONL chunk logs and SSE captures, and pace them.

A recording is one or more *sessions*, each a list of chunks with the delay
before each one.  Three file formats are read:

* **raw text**: the reply as one text; cut into word-sized chunks (each a run of
  whitespace and up to six non-space characters) so it streams like a model's
  tokens.  No recorded timing.
* **JSONL**: one JSON value per line::

      {"session": "classroom", "protocol": "interleaved", "title": "..."}
      {"chunk": "[{\\"type\\":", "delay": 0.04}
      {"chunk": "\\"text\\", ...", "t": 0.31}
      "a bare JSON string is a chunk too"
      {"finish": "length"}

  A ``session`` line starts a new session (its ``protocol`` and ``title`` are
  optional); ``delay`` is seconds to wait before the chunk, ``t`` seconds since
  the session began (a timestamp); ``finish`` says how the session ended
  (``stop``, ``length`` or ``abort``, given to the parser's ``finish``).
* **SSE**: a captured ``text/event-stream`` body; each event (up to and
  including its blank line) is one chunk.  No recorded timing.

:func:`pace` turns the recorded delays into the delays to sleep, given the
``--speed`` / ``--delay`` / ``--no-delay`` choice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from unspool.cli._inputs import InputError
from unspool.events import FinishReason
from unspool.sources._sse import SSEDecoder
from unspool.sources.providers import _table as table

__all__ = [
    "DEFAULT_DELAY",
    "FORMATS",
    "Chunk",
    "RecordedStream",
    "detect_format",
    "guess_protocol",
    "load_recording",
    "pace",
    "split_raw",
    "split_sse",
]

FORMATS = ("raw", "jsonl", "sse")
"""The recorded-stream formats ``--format`` accepts."""

DEFAULT_DELAY = 0.03
"""Seconds between chunks when a recording has no timing of its own."""

_FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "length", "abort")
_WORD = re.compile(r"\s*\S{1,6}|\s+")
_SSE_FIELD = re.compile(r"(data|event|id|retry):|:")
_SSE_EVENT_END = re.compile(r"\r\n\r\n|\n\n|\r\r")
_SNIFF_MESSAGES = 20  # JSON messages of a capture looked at to tell its provider
_TAG = re.compile(r"<(action|tool_call)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of the stream and the recorded seconds to wait before it (``None``: unknown)."""

    text: str
    delay: float | None = None


@dataclass(slots=True)
class RecordedStream:
    """One recorded reply: its chunks, the protocol it speaks (when recorded) and how it ended."""

    chunks: list[Chunk] = field(default_factory=list)
    protocol: str | None = None
    title: str | None = None
    finish: FinishReason | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        """The whole recorded reply."""
        return "".join(chunk.text for chunk in self.chunks)


def split_raw(text: str) -> list[str]:
    """Cut raw text into word-sized chunks whose concatenation is exactly ``text``."""
    return _WORD.findall(text)


def split_sse(text: str) -> list[str]:
    """Cut an SSE body into events, each keeping its terminating blank line."""
    chunks: list[str] = []
    start = 0
    for match in _SSE_EVENT_END.finditer(text):
        chunks.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        chunks.append(text[start:])
    return chunks


def detect_format(text: str, filename: str | None = None) -> str:
    """Guess a recording's format: by extension first, then by its first line."""
    if filename is not None:
        lowered = filename.lower()
        if lowered.endswith((".jsonl", ".ndjson")):
            return "jsonl"
        if lowered.endswith(".sse"):
            return "sse"
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if _SSE_FIELD.match(first):
        return "sse"
    if first.startswith(("{", '"')) and _is_chunk_line(first):
        return "jsonl"
    return "raw"


def _is_chunk_line(line: str) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, str) or (
        isinstance(value, dict) and bool({"chunk", "session", "finish"} & value.keys())
    )


def load_recording(text: str, fmt: str) -> list[RecordedStream]:
    """Parse a recording in format ``fmt`` (one of :data:`FORMATS`) into sessions."""
    if fmt == "raw":
        return [RecordedStream([Chunk(piece) for piece in split_raw(text)])]
    if fmt == "sse":
        return [RecordedStream([Chunk(piece) for piece in split_sse(text)])]
    if fmt == "jsonl":
        return _load_jsonl(text)
    raise ValueError(f"unknown recording format {fmt!r}")


def _load_jsonl(text: str) -> list[RecordedStream]:
    sessions: list[RecordedStream] = []
    current: RecordedStream | None = None
    last_t = 0.0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise InputError(f"line {lineno}: not JSON ({exc})") from None
        if isinstance(item, dict) and "session" in item:
            current = _session_header(item, lineno)
            sessions.append(current)
            last_t = 0.0
            continue
        if current is None:
            current = RecordedStream()
            sessions.append(current)
        if isinstance(item, str):
            current.chunks.append(Chunk(item))
        elif isinstance(item, dict) and "chunk" in item:
            chunk, last_t = _chunk_line(item, lineno, last_t)
            current.chunks.append(chunk)
        elif isinstance(item, dict) and "finish" in item:
            current.finish = _finish_reason(item["finish"], lineno)
        else:
            raise InputError(
                f'line {lineno}: expected a string or an object with "chunk", "session" or "finish"'
            )
    return sessions


def _session_header(item: dict[str, Any], lineno: int) -> RecordedStream:
    name, protocol = item["session"], item.get("protocol")
    title = item.get("title", name)
    for key, value in (("session", name), ("protocol", protocol), ("title", title)):
        if value is not None and not isinstance(value, str):
            raise InputError(f'line {lineno}: "{key}" must be a string')
    return RecordedStream(protocol=protocol, title=title, name=name)


def _chunk_line(item: dict[str, Any], lineno: int, last_t: float) -> tuple[Chunk, float]:
    text = item["chunk"]
    if not isinstance(text, str):
        raise InputError(f'line {lineno}: "chunk" must be a string')
    if "delay" in item:
        return Chunk(text, _seconds(item["delay"], "delay", lineno)), last_t
    if "t" in item:
        t = _seconds(item["t"], "t", lineno)
        return Chunk(text, max(0.0, t - last_t)), t
    return Chunk(text), last_t


def _seconds(value: Any, key: str, lineno: int) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(f'line {lineno}: "{key}" must be a number of seconds >= 0')
    return float(value)


def _finish_reason(value: Any, lineno: int) -> FinishReason:
    if value not in _FINISH_REASONS:
        raise InputError(f'line {lineno}: "finish" must be one of stop, length, abort')
    return cast(FinishReason, value)


def guess_protocol(stream: RecordedStream, fmt: str) -> str:
    """The protocol of a recording that does not name one: the provider table row that
    recognises an SSE capture's (or a JSON-lines body's) first events, else tags when an
    action tag appears, JSON for an object, else interleaved (which also streams a reply
    that turns out to be plain prose)."""
    text = stream.text
    if fmt == "sse":
        sse = SSEDecoder()
        row = _sniff([m.data for m in [*sse.feed(text), *sse.finish()]], "sse")
        if row is None:
            raise InputError("cannot tell which provider wrote this SSE stream: give --protocol")
        return row
    ndjson = _sniff(text.splitlines(), "ndjson")
    if ndjson is not None:
        return ndjson
    if _TAG.search(text):
        return "tags"
    return "json" if text.lstrip().startswith("{") else "interleaved"


def _sniff(messages: list[str], wire: str) -> str | None:
    """The ``cli_name`` of the first provider row (of those framed by ``wire``) that
    recognises one of the first JSON ``messages``."""
    rows = [p for p in table.PROVIDERS if p.wire == wire and p.cli_name]
    seen = 0
    for data in messages:
        if seen == _SNIFF_MESSAGES:
            break
        if not data.lstrip().startswith("{"):
            continue
        try:
            item = json.loads(data)
        except ValueError:
            continue
        seen += 1
        for row in rows:
            if row.recognise(item):
                return row.cli_name
    return None


def pace(
    chunks: Sequence[Chunk],
    *,
    speed: float = 1.0,
    delay: float | None = None,
    no_delay: bool = False,
    default_delay: float = DEFAULT_DELAY,
) -> Iterator[tuple[float, str]]:
    """``(seconds to wait, text)`` per chunk: the recorded delay (or ``default_delay``)
    divided by ``speed``; a fixed ``delay`` instead; or no wait at all."""
    for chunk in chunks:
        if no_delay:
            wait = 0.0
        elif delay is not None:
            wait = delay
        else:
            wait = (default_delay if chunk.delay is None else chunk.delay) / speed
        yield wait, chunk.text

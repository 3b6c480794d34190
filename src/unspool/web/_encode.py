"""``encode_sse`` / ``aencode_sse``: unspool events to SSE frames, and the table of formats.

Every format is one row of :data:`FORMATS`: its name, the headers its client needs and
the encoder class (loaded on first use, so ``"ag-ui"`` imports ``ag_ui`` only when asked).
The encoders are sans-I/O; the loops here own the rules every format shares:

* ``StreamDone`` ends the stream: nothing after it is read; with ``turns=True`` (the
  events of :func:`unspool.run_turns`, one ``StreamDone`` per turn) a ``StreamDone("complete")``
  followed by more events is a boundary between turns (the AI SDK: ``finish-step`` and
  ``start-step``; AG-UI: the open message ends) and the last one ends the stream;
* an exception raised by the event source becomes ``StreamError`` then
  ``StreamDone("error")`` (the format's error ending), never a broken response;
* a source that stops without ``StreamDone`` is ended as ``StreamDone("aborted")``;
* the source is closed however the iteration ends (also when the consumer stops early).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from starlette.concurrency import iterate_in_threadpool

from unspool.events import Event, StreamDone, StreamError
from unspool.web.formats._base import EncodeOptions, FrameEncoder

__all__ = ["FORMATS", "FormatName", "SseFormat", "aencode_sse", "encode_sse", "make_encoder"]

FormatName = Literal["unspool", "ai-sdk", "ag-ui"]

_COMMON_HEADERS = {"cache-control": "no-cache, no-transform", "x-accel-buffering": "no"}


@dataclass(frozen=True, slots=True)
class SseFormat:
    """One wire format: the headers its response carries and where its encoder lives."""

    name: str
    encoder: str  # "module:Class", imported on first use
    headers: Mapping[str, str] = field(default_factory=dict)
    description: str = ""

    @property
    def all_headers(self) -> dict[str, str]:
        """Every header the response needs besides the media type."""
        return {**_COMMON_HEADERS, **self.headers}


FORMATS: dict[str, SseFormat] = {
    "unspool": SseFormat(
        "unspool",
        "unspool.web.formats._unspool:UnspoolEncoder",
        description="every event: event: type, data: to_dict() JSON, id: sequence number",
    ),
    "ai-sdk": SseFormat(
        "ai-sdk",
        "unspool.web.formats._ai_sdk:AiSdkEncoder",
        {"x-vercel-ai-ui-message-stream": "v1"},
        "the Vercel AI SDK's UI Message Stream protocol v1 (useChat)",
    ),
    "ag-ui": SseFormat(
        "ag-ui",
        "unspool.web.formats._ag_ui:AgUiEncoder",
        description="AG-UI events (CopilotKit, @ag-ui/client), via the ag-ui-protocol package",
    ),
}
"""The formats by name."""

MEDIA_TYPE = "text/event-stream"


def make_encoder(format: str, options: EncodeOptions | None = None) -> FrameEncoder:
    """A fresh encoder for ``format`` (a key of :data:`FORMATS`)."""
    spec = FORMATS.get(format)
    if spec is None:
        raise ValueError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    module, _, name = spec.encoder.partition(":")
    cls: Any = getattr(importlib.import_module(module), name)
    encoder: FrameEncoder = cls(options or EncodeOptions())
    return encoder


def _failure(exc: BaseException) -> list[Event]:
    return [StreamError(str(exc) or type(exc).__name__, type(exc).__name__), StreamDone("error")]


def encode_sse(
    events: Iterable[Event],
    *,
    format: FormatName | str = "unspool",
    expose_errors: bool = False,
    message_id: str | None = None,
    thread_id: str | None = None,
    run_id: str | None = None,
    turns: bool = False,
) -> Iterator[bytes]:
    """The SSE frames of ``events`` in ``format`` (see :data:`FORMATS`), one ``bytes`` per
    frame, yielded as each event arrives. ``expose_errors`` sends a ``StreamError``'s
    message to the browser (off: a generic text); ``message_id`` names the AI SDK message,
    ``thread_id`` / ``run_id`` the AG-UI run (fresh ids when not given); ``turns``: the
    events are several turns of a tool loop (see the module docs)."""
    options = EncodeOptions(expose_errors, message_id, thread_id, run_id)
    encoder = make_encoder(format, options)
    return _encode(events, encoder, turns)


def _held(event: Event, turns: bool) -> bool:
    """Whether ``event`` may be a boundary between turns rather than the end."""
    return turns and isinstance(event, StreamDone) and event.reason == "complete"


def _encode(events: Iterable[Event], encoder: FrameEncoder, turns: bool = False) -> Iterator[bytes]:
    yield from encoder.open()
    iterator = iter(events)
    held: StreamDone | None = None
    try:
        while True:
            try:
                event = next(iterator)
            except StopIteration:
                if held is not None:
                    yield from encoder.encode(held)
                break
            except Exception as exc:
                if held is not None:
                    yield from encoder.step(held)
                for failed in _failure(exc):
                    yield from encoder.encode(failed)
                break
            if held is not None:
                yield from encoder.step(held)
                held = None
            if _held(event, turns):
                assert isinstance(event, StreamDone)
                held = event
                continue
            yield from encoder.encode(event)
            if isinstance(event, StreamDone):
                break
    finally:
        close = getattr(iterator, "close", None)
        if callable(close):
            close()
    yield from encoder.close()


def aencode_sse(
    events: AsyncIterable[Event] | Iterable[Event],
    *,
    format: FormatName | str = "unspool",
    expose_errors: bool = False,
    message_id: str | None = None,
    thread_id: str | None = None,
    run_id: str | None = None,
    turns: bool = False,
) -> AsyncIterator[bytes]:
    """Async :func:`encode_sse`: ``events`` may be an async iterable, or a sync one
    (read in a worker thread, so a blocking source never stalls the event loop; a list or
    tuple is read inline)."""
    options = EncodeOptions(expose_errors, message_id, thread_id, run_id)
    encoder = make_encoder(format, options)
    return _aencode(events, encoder, turns)


async def _aencode(
    events: AsyncIterable[Event] | Iterable[Event], encoder: FrameEncoder, turns: bool = False
) -> AsyncIterator[bytes]:
    for chunk in encoder.open():
        yield chunk
    iterator: AsyncIterator[Event]
    if isinstance(events, AsyncIterable):
        iterator = aiter(events)
    elif isinstance(events, (list, tuple)):  # nothing to wait for: no thread hop per event
        iterator = _inline(events)
    else:
        iterator = iterate_in_threadpool(events)
    held: StreamDone | None = None
    try:
        while True:
            try:
                event = await anext(iterator)
            except StopAsyncIteration:
                for chunk in encoder.encode(held) if held is not None else []:
                    yield chunk
                break
            except Exception as exc:
                for chunk in encoder.step(held) if held is not None else []:
                    yield chunk
                for failed in _failure(exc):
                    for chunk in encoder.encode(failed):
                        yield chunk
                break
            if held is not None:
                for chunk in encoder.step(held):
                    yield chunk
                held = None
            if _held(event, turns):
                assert isinstance(event, StreamDone)
                held = event
                continue
            for chunk in encoder.encode(event):
                yield chunk
            if isinstance(event, StreamDone):
                break
    finally:
        await aclose(iterator)
        if not isinstance(events, AsyncIterable):
            close = getattr(events, "close", None)
            if callable(close):
                with contextlib.suppress(ValueError):  # still inside next() in its thread
                    close()
    for chunk in encoder.close():
        yield chunk


async def _inline(events: list[Event] | tuple[Event, ...]) -> AsyncIterator[Event]:
    for event in events:
        yield event


async def aclose(iterator: Any) -> None:
    """Close an async iterator that has ``aclose`` (an async generator); a no-op otherwise."""
    close = getattr(iterator, "aclose", None)
    if callable(close):
        with contextlib.suppress(RuntimeError):  # already running elsewhere: it closes itself
            await close()

"""Adapters: each JSON parser in its natural streaming use, behind one signature.

An adapter takes a :class:`Stream` (the document and the chunks a model would
deliver) and returns the final value, doing on the way what a streaming consumer
of that library does on every chunk:

* re-parse peers (jiter, pydantic-core, partial-json-parser, json_repair) append the
  chunk to a buffer and parse the whole buffer, as the OpenAI/Anthropic SDKs,
  instructor and LangChain do;
* incremental peers (jsonriver, jsonmend) are fed chunk by chunk through their own
  streaming API;
* linear event parsers (ijson's C backend, json-stream's Rust tokenizer) read a
  file-like object that hands out one chunk per ``read`` and give no partial values;
* floors (``json.loads``, ``orjson.loads``) parse the whole document once.

Peers are imported lazily; one that is not installed is left out with a note.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Peer", "Stream", "core_peers", "lenient_peers", "optional_module", "unspool_peers"]

Kind = Literal["unspool", "partial", "linear", "floor"]


@dataclass(frozen=True)
class Stream:
    """One workload as a stream: the whole ``text`` and its ``chunks`` in order."""

    text: str
    chunks: Sequence[str]


@dataclass(frozen=True)
class Peer:
    """A parser under test: ``run(stream)`` consumes the stream and returns the final
    value.  ``kind`` is ``"partial"`` for parsers that give a value while streaming,
    ``"linear"`` for event-only parsers, ``"floor"`` for one-shot ``loads``."""

    name: str
    kind: Kind
    run: Callable[[Stream], Any]
    note: str = ""


def unspool_module(name: str) -> Any:
    """An unspool module by its path since 0.3 (``unspool.core._jsonstream``), or by the
    path of the release before (``unspool.core.jsonstream``) that ``--baseline`` may run."""
    try:
        return importlib.import_module(name)
    except ImportError:
        head, _, last = name.rpartition(".")
        if not last.startswith("_") or last.startswith("__"):
            raise
        return importlib.import_module(f"{head}.{last[1:]}")


def optional_module(name: str) -> Any:
    """The module ``name`` (an unspool one as :func:`unspool_module` finds it), or None
    when it is not installed (or fails to import)."""
    try:
        return (
            unspool_module(name) if name.startswith("unspool.") else importlib.import_module(name)
        )
    except ImportError:
        return None


# --- re-parse peers -----------------------------------------------------------------------


def _jiter(jiter: Any) -> Callable[[Stream], Any]:
    from_json = jiter.from_json

    def run(stream: Stream) -> Any:
        # As the OpenAI SDK does: accumulate the str, parse its UTF-8 bytes (jiter takes bytes).
        buf = ""
        value: Any = None
        for c in stream.chunks:
            buf += c
            value = from_json(buf.encode(), partial_mode="trailing-strings")
        return value

    return run


def _pydantic_core(pydantic_core: Any) -> Callable[[Stream], Any]:
    from_json = pydantic_core.from_json

    def run(stream: Stream) -> Any:
        buf = ""
        value: Any = None
        for c in stream.chunks:
            buf += c
            value = from_json(buf, allow_partial="trailing-strings")
        return value

    return run


def _partial_json_parser(pjp: Any) -> Callable[[Stream], Any]:
    loads = pjp.loads

    def run(stream: Stream) -> Any:
        buf = ""
        value: Any = None
        for c in stream.chunks:
            buf += c
            try:
                value = loads(buf)
            except Exception:  # a prefix it cannot complete yet (e.g. empty)
                continue
        return value

    return run


def _json_repair(json_repair: Any, *, stream_stable: bool) -> Callable[[Stream], Any]:
    repair = json_repair.repair_json

    def run(stream: Stream) -> Any:
        buf = ""
        value: Any = None
        for c in stream.chunks:
            buf += c
            value = repair(buf, return_objects=True, stream_stable=stream_stable)
        return value

    return run


# --- incremental peers ------------------------------------------------------------------

_LOOP: asyncio.AbstractEventLoop | None = None


def _loop() -> asyncio.AbstractEventLoop:
    """One event loop for every async peer run (creating it is not part of the cost)."""
    global _LOOP
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
        atexit.register(_LOOP.close)
    return _LOOP


def _jsonriver(jsonriver: Any) -> Callable[[Stream], Any]:
    parse = jsonriver.parse

    async def source(chunks: Sequence[str]) -> AsyncIterator[str]:
        for c in chunks:
            yield c

    async def consume(chunks: Sequence[str]) -> Any:
        last: Any = None
        async for value in parse(source(chunks)):
            last = value
        return last

    def run(stream: Stream) -> Any:
        return _loop().run_until_complete(consume(stream.chunks))

    return run


def _jsonmend(jsonmend: Any) -> Callable[[Stream], Any]:
    mender = jsonmend.Mender

    def run(stream: Stream) -> Any:
        m = mender()
        for c in stream.chunks:
            m.feed(c)
        return m.close()

    return run


# --- linear event parsers ---------------------------------------------------------------


class _ChunkFile:
    """A binary file-like object whose ``read`` returns the next chunk (UTF-8), as an
    HTTP body read chunk by chunk would."""

    def __init__(self, chunks: Sequence[str]) -> None:
        self._it: Iterator[str] = iter(chunks)

    def read(self, n: int = -1) -> bytes:
        if n == 0:  # ijson probes the type of the stream with read(0)
            return b""
        for c in self._it:
            return c.encode()
        return b""


def _ijson(ijson: Any) -> Callable[[Stream], Any]:
    items = ijson.items

    def run(stream: Stream) -> Any:
        # items(f, "") builds the root with the C backend's builder: as fast as the
        # bare event loop (measured), and it gives a value to check.
        return next(iter(items(_ChunkFile(stream.chunks), "", use_float=True)))

    return run


def _json_stream(json_stream: Any) -> Callable[[Stream], Any]:
    load = json_stream.load
    to_standard_types = json_stream.to_standard_types

    def run(stream: Stream) -> Any:
        # json-stream wraps an iterable of chunks in its own file-like reader.
        return to_standard_types(load(iter(stream.chunks), persistent=True))

    return run


# --- floors -----------------------------------------------------------------------------


def _json_loads(stream: Stream) -> Any:
    return json.loads(stream.text)


def _orjson(orjson: Any) -> Callable[[Stream], Any]:
    loads = orjson.loads

    def run(stream: Stream) -> Any:
        return loads(stream.text)

    return run


# --- unspool ----------------------------------------------------------------------------


def unspool_peers(*, lenient: bool = False) -> tuple[list[Peer], list[str]]:
    """unspool's rows: streamed, streamed with path events, and one chunk.

    The rows named ``unspool`` run on the default machine (the C one when
    ``unspool.accelerated``); the same three rows on the pure-Python machine
    (``unspool py``, ``unspool lenient py``) follow when the C machine is there, so
    both show side by side.  Empty with a note when ``unspool.core._jsonstream`` is not
    importable yet.
    """
    try:
        mod = unspool_module("unspool.core._jsonstream")
    except ImportError as exc:
        return [], [f"unspool rows skipped: unspool.core._jsonstream not importable ({exc})"]
    json_stream_cls: Any = mod.JsonStream
    machines = optional_module("unspool.core._machines")
    tag = " lenient" if lenient else ""
    rows: list[Peer] = []
    variants = [("", None)]
    if machines is not None and machines.ACCELERATED:
        variants.append((" py", "python"))
    for label, machine in variants:
        rows += _unspool_rows(json_stream_cls, machines, machine, tag + label, lenient)
    oneshot = optional_module("unspool.core._oneshot")
    if oneshot is not None and not lenient:
        loads = oneshot.loads
        rows.append(
            Peer(
                "unspool.loads", "floor", lambda s: loads(s.text), "one-shot loads, whole document"
            )
        )
    return rows, []


def _unspool_rows(
    json_stream_cls: Any, machines: Any, machine: str | None, tag: str, lenient: bool
) -> list[Peer]:
    def new(**options: Any) -> Any:
        if machine is None:
            return json_stream_cls(**options)
        before = machines.selected()
        machines.select(machine)
        try:
            return json_stream_cls(**options)
        finally:
            machines.select(before)

    def streamed(stream: Stream) -> Any:
        p = new(lenient=lenient)
        feed = p.feed
        for c in stream.chunks:
            feed(c)
        return p.finish()

    def with_events(stream: Stream) -> Any:
        p = new(events=True, lenient=lenient)
        feed_events = p.feed_events
        for c in stream.chunks:
            feed_events(c)
        p.finish_events()
        return p.value

    def one_chunk(stream: Stream) -> Any:
        p = new(lenient=lenient)
        p.feed(stream.text)
        return p.finish()

    where = "" if machine is None else " (pure-Python machine)"
    return [
        Peer(f"unspool{tag}", "unspool", streamed, "JsonStream.feed per chunk" + where),
        Peer(f"unspool{tag}+events", "unspool", with_events, "feed_events per chunk" + where),
        Peer(f"unspool{tag} 1-chunk", "floor", one_chunk, "whole document in one feed" + where),
    ]


def core_peers() -> tuple[list[Peer], list[str]]:
    """The strict-JSON peers of the core rows, and notes on those not installed."""
    peers: list[Peer] = []
    notes: list[str] = []
    specs: list[tuple[str, str, Kind, Callable[[Any], Callable[[Stream], Any]], str]] = [
        ("jiter", "jiter", "partial", _jiter, "re-parse, partial_mode='trailing-strings'"),
        (
            "pydantic_core",
            "pydantic_core",
            "partial",
            _pydantic_core,
            "re-parse, allow_partial='trailing-strings'",
        ),
        ("partial_json", "partial_json_parser", "partial", _partial_json_parser, "re-parse, loads"),
        (
            "json_repair",
            "json_repair",
            "partial",
            lambda m: _json_repair(m, stream_stable=False),
            "re-parse, repair_json(return_objects=True)",
        ),
        ("jsonriver", "jsonriver", "partial", _jsonriver, "incremental, async parse()"),
        ("jsonmend", "jsonmend", "partial", _jsonmend, "incremental, Mender.feed"),
        ("ijson C", "ijson", "linear", _ijson, "file-like fed chunks, items(f, '')"),
        (
            "json-stream",
            "json_stream",
            "linear",
            _json_stream,
            "iterable of chunks, Rust tokenizer",
        ),
        ("orjson.loads", "orjson", "floor", _orjson, "whole document once"),
    ]
    for name, module_name, kind, make, note in specs:
        mod = optional_module(module_name)
        if mod is None:
            notes.append(f"{name} skipped: module {module_name} not installed")
            continue
        if name == "ijson C" and getattr(mod, "backend", "") != "yajl2_c":
            note += f" (backend {mod.backend}, not C)"
        peers.append(Peer(name, kind, make(mod), note))
    peers.append(Peer("json.loads", "floor", _json_loads, "whole document once"))
    return peers, notes


def lenient_peers() -> tuple[list[Peer], list[str]]:
    """The peers that accept malformed JSON, each in its natural streaming use."""
    peers: list[Peer] = []
    notes: list[str] = []
    json_repair = optional_module("json_repair")
    if json_repair is None:
        notes.append("json_repair rows skipped: not installed")
    else:
        peers.append(
            Peer(
                "json_repair",
                "partial",
                _json_repair(json_repair, stream_stable=False),
                "re-parse, repair_json(return_objects=True)",
            )
        )
        peers.append(
            Peer(
                "json_repair stable",
                "partial",
                _json_repair(json_repair, stream_stable=True),
                "re-parse, stream_stable=True",
            )
        )
    jsonmend = optional_module("jsonmend")
    if jsonmend is None:
        notes.append("jsonmend rows skipped: not installed")
    else:
        peers.append(Peer("jsonmend", "partial", _jsonmend(jsonmend), "incremental, Mender.feed"))
    return peers, notes

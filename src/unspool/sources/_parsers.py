"""Choosing a text protocol: by name or as a parser instance.

Every source takes a text protocol the same way: ``"plain"`` (the default),
``"interleaved"`` (:class:`~unspool.protocols._interleaved.InterleavedParser`),
``"tags"`` (:class:`~unspool.protocols._tags.TagParser`), the name of an open-weights
model format (``"hermes"``, ``"qwen3_coder"``, … from
:data:`~unspool.protocols._model_formats.MODEL_FORMATS`: the raw text of a server run
without a tool parser, read by :class:`~unspool.protocols._model_tags.ModelTagParser`;
``"auto"`` recognises the family from the reply),
or any object with the parser shape (``feed(chunk) -> list[Event]``,
``finish(reason) -> list[Event]``).
"""

from __future__ import annotations

import importlib
from typing import Literal, Protocol, runtime_checkable

from unspool.events import Event, FinishReason
from unspool.protocols._emitter import ActionEmitter, ActionValidator
from unspool.protocols._plain import PlainTextParser

__all__ = ["ProtocolName", "TextParser", "TextProtocol", "emitter_of", "make_parser"]

ProtocolName = Literal["plain", "interleaved", "tags"]


@runtime_checkable
class TextParser(Protocol):
    """The shape of every protocol parser."""

    def feed(self, chunk: str | bytes) -> list[Event]:
        """Events for a chunk of text (``bytes`` are decoded incrementally as UTF-8)."""
        ...

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """The last events, ``StreamDone`` last; idempotent."""
        ...


TextProtocol = ProtocolName | str | TextParser
"""A protocol name, a model format name, or a parser instance."""

_BY_NAME: dict[str, tuple[str, str]] = {
    "interleaved": ("unspool.protocols._interleaved", "InterleavedParser"),
    "tags": ("unspool.protocols._tags", "TagParser"),
}


def make_parser(
    protocol: TextProtocol | None,
    *,
    stream_id: str = "stream",
    registry: ActionValidator | None = None,
) -> TextParser:
    """A fresh parser for a protocol name (``None`` is ``"plain"``), or the instance given.

    A registry goes to the parser built here; a parser instance keeps its own, and
    giving a different ``registry`` with it is an error (it would validate only
    some of the stream's actions)."""
    if protocol is None or protocol == "plain":
        return PlainTextParser(stream_id, registry)
    if isinstance(protocol, str):
        from unspool.protocols._model_formats import MODEL_FORMATS

        if protocol == "auto":
            from unspool.protocols._model_auto import AutoTagParser

            return AutoTagParser(stream_id=stream_id, registry=registry)
        if protocol in MODEL_FORMATS:
            from unspool.protocols._model_tags import ModelTagParser

            return ModelTagParser(protocol, stream_id=stream_id, registry=registry)
        where = _BY_NAME.get(protocol)
        if where is None:
            choices = ", ".join(repr(n) for n in ("plain", *_BY_NAME))
            raise ValueError(
                f"unknown protocol {protocol!r}: expected {choices}, a model format "
                f"({', '.join(MODEL_FORMATS)}) or a parser"
            )
        cls = getattr(importlib.import_module(where[0]), where[1])
        parser: TextParser = cls(stream_id=stream_id, registry=registry)
        return parser
    if not isinstance(protocol, TextParser):
        raise TypeError(f"expected a protocol name or a parser, got {type(protocol).__name__}")
    own = emitter_of(protocol)
    if registry is not None and own is not None and own.registry is not registry:
        raise ValueError("give the registry to the parser instance, not to the source")
    return protocol


def emitter_of(parser: object) -> ActionEmitter | None:
    """The parser's :class:`ActionEmitter` (its public ``emitter`` attribute), if it has one."""
    emitter = getattr(parser, "emitter", None)
    return emitter if isinstance(emitter, ActionEmitter) else None

"""The provider entry points (``from_openai``, ``from_anthropic``, ...), made by one factory.

Every entry point does the same three things: build the provider's decoder from the
shared options, find the stream in what it was given, and drive it sync or async
(:func:`~unspool.sources._drive.drive_sync` / :func:`~unspool.sources._drive.drive_async`)
as the stream iterates.  :func:`entry_point` writes that once; a provider module
states only what differs (its decoder, how to find the stream, when to read async).
:class:`ProviderEntry` is the typed signature all of them share: a sync stream gives
an iterator, an async one an async iterator.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol, cast, overload

from unspool.events import Event
from unspool.protocols._emitter import ActionValidator
from unspool.sources._drive import drive_async, drive_sync
from unspool.sources._parsers import TextProtocol
from unspool.sources._provider_decoder import ProviderDecoder

__all__ = ["ProviderEntry", "entry_point"]


class ProviderEntry(Protocol):
    """``from_<provider>(stream, text_parser=None, *, stream_id=None, registry=None,
    lenient=False, **options)``: the events of a provider's stream.

    ``text_parser`` is the protocol of the text channel (``"plain"``, ``"interleaved"``,
    ``"tags"``, a model format such as ``"hermes"``, or a parser instance);
    ``registry`` validates actions; ``lenient`` accepts repairable tool-argument JSON;
    ``options`` are the provider's own (``choice=`` for OpenAI, ``candidate=`` for
    Gemini), and an option the provider does not know is a ``TypeError``.
    """

    __name__: str

    @overload
    def __call__(
        self,
        stream: AsyncIterable[Any],
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
        **options: Any,
    ) -> AsyncIterator[Event]: ...

    @overload
    def __call__(
        self,
        stream: Iterable[Any] | Mapping[str, Any],
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
        **options: Any,
    ) -> Iterator[Event]: ...


def _is_async(stream: Any) -> bool:
    return isinstance(stream, AsyncIterable)


def entry_point(
    provider: str,
    decoder: type[ProviderDecoder],
    doc: str,
    *,
    find_stream: Callable[[Any], Any] | None = None,
    read_async: Callable[[Any], bool] = _is_async,
) -> ProviderEntry:
    """The ``from_<provider>`` function over ``decoder``.

    ``find_stream`` turns what the caller passed into the stream (Bedrock's response
    dict); ``read_async`` says whether a stream is read as an async iterable (default:
    whenever it is one).  ``doc`` is the function's docstring.
    """

    def from_provider(
        stream: Any,
        text_parser: TextProtocol | None = None,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
        **options: Any,
    ) -> Iterator[Event] | AsyncIterator[Event]:
        events = decoder(
            text_parser, stream_id=stream_id, registry=registry, lenient=lenient, **options
        )
        if find_stream is not None:
            stream = find_stream(stream)
        if read_async(stream):
            return drive_async(stream, events)
        return drive_sync(stream, events)

    from_provider.__name__ = from_provider.__qualname__ = f"from_{provider}"
    from_provider.__doc__ = doc
    return cast(ProviderEntry, from_provider)

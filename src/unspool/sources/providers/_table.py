"""The provider table: one row per LLM provider, read by ``generate()``, the CLI and the sniffer.

Each :class:`Provider` row says everything the rest of unspool needs to know about a
provider: its ``name``; ``recognise``, which tells one of its stream items (an SDK
event object, or the wire JSON decoded to a dict) from other providers'; its
``decoder``, the sans-I/O :class:`~unspool.sources._provider_decoder.ProviderDecoder`
subclass; ``tool_format``, the name of its tool-definition shape for
``ActionRegistry.tools(...)``; ``tool_results``, which turns a turn's events into the
messages the provider expects next (``None`` until the provider has one); and, for
the ``unspool`` command, ``cli_name`` (the ``--protocol`` value of a raw captured body)
with ``wire``, how that body is framed (``"sse"`` or ``"ndjson"``).

:func:`generate` picks the decoder of the first row whose ``recognise`` accepts the
stream's first item (an item no row recognises goes to :data:`FALLBACK`, whose
decoder reports what it cannot read); a row's ``unwrap`` finds the stream inside
what a model call returned when that is not the stream itself (boto3's
``converse_stream`` returns ``{"stream": ..., "ResponseMetadata": ...}``).  The CLI
offers every ``cli_name`` as a ``--protocol`` and the replay sniffer names the first
row that recognises a capture's first events.

How to add a provider (one module and one row):

1. Write ``unspool/sources/providers/<name>.py`` (stdlib only at import; read the
   SDK's objects by duck typing with :func:`unspool.sources._payload.get`):

   * a ``ProviderDecoder`` subclass whose ``_event(event)`` returns the events of one
     decoded provider event through ``self.merger`` (``text``, ``reasoning``,
     ``refusal``, ``citation``, ``tool_start`` / ``tool_args`` / ``tool_stop``,
     ``note``, ``fail``), calls ``self.set_reason("stop" | "length")`` from the
     provider's finish reason, and answers a payload of the wrong shape with
     ``self.bad(message, payload)`` (``self.items(obj, name)`` reads a list field,
     ``self.unknown(kind, event)`` reports an event type once), never an exception;
     a class attribute ``provider = "<Name>"`` names it in those reports; its
     constructor takes ``(text_parser=None, *, stream_id=None, registry=None,
     lenient=False)``;
   * ``recognise(item) -> bool``: True for an item only this provider sends (look
     at a field or an event ``type`` no other row uses; it is tried on the first
     item of a stream, in table order);
   * ``from_<name> = entry_point("<name>", <Name>Decoder, doc)``
     (:func:`unspool.sources._entry.entry_point`: the shared signature, sync or
     async as the stream iterates; ``find_stream=`` when the stream is inside what
     the SDK returned);
   * optionally a tool-result builder (see :class:`ToolResultBuilder`).

2. Add its row to :data:`PROVIDERS` below, e.g.::

       Provider(
           name="ollama",
           recognise=ollama.recognise,
           decoder=ollama.OllamaDecoder,
           tool_format="ollama",          # a key of unspool.actions._tool_formats.TOOL_FORMATS
           tool_results=ollama.tool_results,   # or None
           cli_name="ollama-ndjson",      # or None: no raw-body form for the CLI
           wire="ndjson",                 # "sse" | "ndjson" | None
           unwrap=None,                   # or a function: call result -> stream | None
       ),

   Put it before a row whose ``recognise`` would also accept its items.

3. If its tool definitions have a shape no other provider uses, add one function
   to ``unspool/actions/_tool_formats.py``'s ``TOOL_FORMATS`` under ``tool_format``.

4. Re-export ``from_<name>`` in ``unspool/sources/__init__.py`` and
   ``unspool/__init__.py``; tests over the real SDK against ``tests/support/replay``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from unspool.events import Event
from unspool.sources._provider_decoder import ProviderDecoder
from unspool.sources.providers import _anthropic as anthropic
from unspool.sources.providers import _bedrock as bedrock
from unspool.sources.providers import _gemini as gemini
from unspool.sources.providers import _ollama as ollama
from unspool.sources.providers import _openai as openai
from unspool.sources.providers import _tool_results as tool_results

__all__ = [
    "CLI_NAMES",
    "FALLBACK",
    "PROVIDERS",
    "Provider",
    "ToolResultBuilder",
    "Wire",
    "by_cli_name",
    "provider",
    "recognise",
    "unwrap",
]

Wire = Literal["sse", "ndjson"]
"""How a captured raw body is framed: Server-Sent Events, or one JSON value per line."""


class ToolResultBuilder(Protocol):
    """Turns the events of one turn (the model's actions and the dispatcher's
    ``ActionResult`` / ``ActionFailed`` / ``ActionInvalid``) into the messages or items
    to append to the conversation for the provider's next request."""

    def __call__(self, events: Iterable[Event], /) -> list[dict[str, Any]]:
        """The messages to send back, in the provider's documented format."""
        ...


@dataclass(frozen=True, slots=True)
class Provider:
    """One provider: how to recognise, decode, describe tools to and answer it."""

    name: str
    recognise: Callable[[Any], bool]
    decoder: type[ProviderDecoder]
    tool_format: str
    tool_results: ToolResultBuilder | None = None
    cli_name: str | None = None
    wire: Wire | None = None
    unwrap: Callable[[Any], Any] | None = None


PROVIDERS: tuple[Provider, ...] = (
    Provider(
        name="openai",
        recognise=openai.recognise,
        decoder=openai.OpenAIDecoder,
        tool_format="openai",
        tool_results=tool_results.openai_chat_results,  # Responses: openai_responses_results
        cli_name="openai-sse",
        wire="sse",
    ),
    Provider(
        name="anthropic",
        recognise=anthropic.recognise,
        decoder=anthropic.AnthropicDecoder,
        tool_format="anthropic",
        tool_results=tool_results.anthropic_results,
        cli_name="anthropic-sse",
        wire="sse",
    ),
    Provider(
        name="gemini",
        recognise=gemini.recognise,
        decoder=gemini.GeminiDecoder,
        tool_format="gemini",
        tool_results=tool_results.gemini_results,
        cli_name="gemini-sse",
        wire="sse",
    ),
    Provider(
        name="bedrock",
        recognise=bedrock.recognise,
        decoder=bedrock.BedrockDecoder,
        tool_format="bedrock",
        tool_results=tool_results.bedrock_results,
        unwrap=bedrock.unwrap,  # AWS event-stream frames are binary: no raw-body CLI form
    ),
    Provider(
        name="ollama",
        recognise=ollama.recognise,
        decoder=ollama.OllamaDecoder,
        tool_format="ollama",
        tool_results=tool_results.ollama_results,
        cli_name="ollama-ndjson",
        wire="ndjson",
    ),
)
"""Every provider, in the order their ``recognise`` is tried."""

FALLBACK = "openai"
"""The row whose decoder reads a stream no row recognises (OpenAI-compatible servers
vary the most); it reports each item it cannot read as a ``Diagnostic``."""

CLI_NAMES: tuple[str, ...] = tuple(p.cli_name for p in PROVIDERS if p.cli_name)
"""The ``--protocol`` values of raw provider bodies, in table order."""


def provider(name: str) -> Provider:
    """The row called ``name`` (``ValueError`` naming the known ones otherwise)."""
    for row in PROVIDERS:
        if row.name == name:
            return row
    known = ", ".join(repr(row.name) for row in PROVIDERS)
    raise ValueError(f"unknown provider {name!r}: expected one of {known}")


def by_cli_name(cli_name: str) -> Provider:
    """The row whose ``cli_name`` is ``cli_name`` (``ValueError`` otherwise)."""
    for row in PROVIDERS:
        if row.cli_name == cli_name:
            return row
    raise ValueError(f"unknown provider protocol {cli_name!r}: expected one of {CLI_NAMES}")


def recognise(item: Any) -> Provider | None:
    """The first row that recognises ``item`` (a decoded stream item), or ``None``."""
    for row in PROVIDERS:
        if row.recognise(item):
            return row
    return None


def unwrap(result: Any) -> Any:
    """The stream inside a model call's result, for a provider that wraps it; else
    ``result`` itself."""
    for row in PROVIDERS:
        if row.unwrap is not None:
            inner = row.unwrap(result)
            if inner is not None:
                return inner
    return result

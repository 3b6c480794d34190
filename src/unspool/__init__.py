"""unspool: turn a live LLM output stream into structured events while it is still arriving.

Layers (see ``docs/architecture.md``):

* ``unspool.core``: the incremental partial-JSON parser and one-shot parsing (stdlib only).
* ``unspool.events``: the event vocabulary every protocol speaks.
* ``unspool.protocols``: text in, events out (interleaved array, tags, plain text, tool calls).
* ``unspool.actions``: validation and exactly-once execution (extra ``unspool[actions]``).
* ``unspool.sources``: iterables, SSE bytes, OpenAI/Anthropic SDK streams, ``generate()``.
* ``unspool.web``: events to browsers as SSE: unspool, AI SDK and AG-UI formats
  (extra ``unspool[web]``).
* ``unspool.cli``: the ``unspool`` command (extra ``unspool[cli]``).

Everything except ``unspool.actions`` is importable without any third-party package.
The action names (``ActionRegistry``, ``Dispatcher``...) need pydantic, and the web names
(``encode_sse``, ``EventStreamResponse``...) Starlette; both are imported lazily, on first
access, so ``import unspool`` never requires them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from unspool import _moved
from unspool._extras import MissingExtra, needs_extra
from unspool._jsonsafe import to_jsonable
from unspool.core._errors import UNSET, LimitExceeded, MalformedJSON
from unspool.core._find import JsonMatch, find_all_json, find_json
from unspool.core._jsonstream import JsonStream, parse_partial
from unspool.core._lexicon import LENIENT_KINDS
from unspool.core._machines import ACCELERATED as accelerated
from unspool.core._oneshot import Allow, loads, loads_with_repairs, repair
from unspool.core._path_events import PathEvent, Repair, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionPending,
    ActionResult,
    ActionStarted,
    AppData,
    Citation,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    ReasoningSignature,
    RefusalDelta,
    StateDelta,
    StateSnapshot,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)
from unspool.protocols._emitter import ActionEmitter, Validation
from unspool.protocols._interleaved import InterleavedParser, parse_interleaved
from unspool.protocols._model_formats import MODEL_FORMATS, ModelFormat, format_for_model
from unspool.protocols._model_tags import ModelTagParser, parse_model_tags
from unspool.protocols._plain import PlainTextParser
from unspool.protocols._tag_formats import ACTION_TAG, TOOL_CALL, TagFormat
from unspool.protocols._tags import ActionSpan, TagParser, parse_tags
from unspool.protocols._toolcalls import ToolCallAssembler
from unspool.protocols.prompts import format_instructions
from unspool.sources._generate import generate
from unspool.sources._iterables import astream, stream
from unspool.sources._sse import (
    SSEDecoder,
    SSEMessage,
    aiter_sse,
    astream_sse,
    iter_sse,
    stream_sse,
)
from unspool.sources._turns import TurnLoop, run_turns
from unspool.sources.providers._anthropic import from_anthropic
from unspool.sources.providers._bedrock import from_bedrock
from unspool.sources.providers._gemini import from_gemini
from unspool.sources.providers._ollama import from_ollama
from unspool.sources.providers._openai import from_openai
from unspool.sources.providers._tool_results import (
    MissingOutcome,
    anthropic_results,
    bedrock_results,
    gemini_results,
    ollama_results,
    openai_chat_results,
    openai_responses_results,
)

__version__ = "0.1.0"

# name -> module that defines it; imported on first attribute access (PEP 562),
# because these need the optional extra ``unspool[actions]`` (pydantic, jsonschema).
_LAZY: dict[str, str] = {
    "ActionContext": "unspool.actions",
    "ActionRegistry": "unspool.actions",
    "Dispatcher": "unspool.actions",
    "MemoryLedger": "unspool.actions",
    "SqliteLedger": "unspool.actions",
    "StrictSchemaError": "unspool.actions",
    "PostgresLedger": "unspool.actions",
    "RedisLedger": "unspool.actions",
    "PartialModel": "unspool.actions",
    "Partial": "unspool.actions",
    "ModelStream": "unspool.actions",
    "stream_model": "unspool.actions",
    "astream_model": "unspool.actions",
    "model_data": "unspool.actions",
    "amodel_data": "unspool.actions",
    "encode_sse": "unspool.web",
    "aencode_sse": "unspool.web",
    "EventStreamResponse": "unspool.web",
    "ResumableStreams": "unspool.web",
    "read_request": "unspool.web",
    "ChatRequest": "unspool.web",
    "BadRequest": "unspool.web",
}
_EXTRA = {"unspool.actions": "actions", "unspool.web": "web"}

if TYPE_CHECKING:  # pragma: no cover - the lazy names, for type checkers
    from unspool.actions import (
        ActionContext,
        ActionRegistry,
        Dispatcher,
        MemoryLedger,
        ModelStream,
        Partial,
        PartialModel,
        PostgresLedger,
        RedisLedger,
        SqliteLedger,
        StrictSchemaError,
        amodel_data,
        astream_model,
        model_data,
        stream_model,
    )
    from unspool.web import (
        BadRequest,
        ChatRequest,
        EventStreamResponse,
        ResumableStreams,
        aencode_sse,
        encode_sse,
        read_request,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'unspool' has no attribute {name!r}")
    with needs_extra(_EXTRA[module], f"unspool.{name}"):  # a ledger names its own extra
        value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


_moved.install()  # 0.2's module paths still import, with a DeprecationWarning

__all__ = [
    "ACTION_TAG",
    "LENIENT_KINDS",
    "MODEL_FORMATS",
    "TOOL_CALL",
    "UNSET",
    "ActionArgsDelta",
    "ActionComplete",
    "ActionContext",
    "ActionEmitter",
    "ActionFailed",
    "ActionInvalid",
    "ActionPending",
    "ActionRegistry",
    "ActionResult",
    "ActionSpan",
    "ActionStarted",
    "Allow",
    "AppData",
    "BadRequest",
    "ChatRequest",
    "Citation",
    "Diagnostic",
    "Dispatcher",
    "Event",
    "EventStreamResponse",
    "HostedToolInput",
    "HostedToolResult",
    "HostedToolStarted",
    "InterleavedParser",
    "JsonMatch",
    "JsonStream",
    "LimitExceeded",
    "MalformedJSON",
    "MemoryLedger",
    "MissingExtra",
    "MissingOutcome",
    "ModelFormat",
    "ModelStream",
    "ModelTagParser",
    "Partial",
    "PartialModel",
    "PathEvent",
    "PlainTextParser",
    "PostgresLedger",
    "ReasoningDelta",
    "ReasoningSignature",
    "RedisLedger",
    "RefusalDelta",
    "Repair",
    "ResumableStreams",
    "SSEDecoder",
    "SSEMessage",
    "Skipped",
    "SqliteLedger",
    "StateDelta",
    "StateSnapshot",
    "StreamDone",
    "StreamError",
    "StrictSchemaError",
    "StringDelta",
    "TagFormat",
    "TagParser",
    "TextDelta",
    "ToolCallAssembler",
    "TurnLoop",
    "Usage",
    "Validation",
    "ValueEnd",
    "ValueStart",
    "__version__",
    "accelerated",
    "aencode_sse",
    "aiter_sse",
    "amodel_data",
    "anthropic_results",
    "astream",
    "astream_model",
    "astream_sse",
    "bedrock_results",
    "encode_sse",
    "find_all_json",
    "find_json",
    "format_for_model",
    "format_instructions",
    "from_anthropic",
    "from_bedrock",
    "from_gemini",
    "from_ollama",
    "from_openai",
    "gemini_results",
    "generate",
    "iter_sse",
    "loads",
    "loads_with_repairs",
    "model_data",
    "ollama_results",
    "openai_chat_results",
    "openai_responses_results",
    "parse_interleaved",
    "parse_model_tags",
    "parse_partial",
    "parse_tags",
    "read_request",
    "repair",
    "run_turns",
    "stream",
    "stream_model",
    "stream_sse",
    "to_jsonable",
]

"""A chat UI's conversation in each provider's own message shape: one table, six rows.

Each row of :data:`SHAPES` writes a conversation (:mod:`unspool.web._conversation`) the
way its provider documents it:

* an assistant step (its text and its tool calls with their outcomes) goes through the
  provider's own tool-result builder (:mod:`unspool.sources.providers._tool_results`,
  what ``run_turns`` sends back), fed the events the step stands for, so a tool result
  reads the same whether the loop ran in one process or across requests;
* a user turn is the provider's user message: text, and files as that provider takes
  them (images, PDFs, audio, video: by bytes, URL or the provider's file handle);
  a text file (``text/*``) given inline is sent as its text. A file the provider cannot
  take in that form is refused (:class:`~unspool.web._errors.BadRequest`, status 415);
* Anthropic, Gemini and Bedrock get consecutive messages of one role merged, as their
  APIs want turns to alternate (a tool result and the user's next words share a turn).

What is not sent: instructions (system / developer messages: a browser can forge them;
they are :attr:`ChatRequest.system <unspool.web._request.ChatRequest.system>`), the
reasoning, but for the parts a provider sealed (a ``reasoning`` part whose
``providerMetadata`` holds Anthropic's or Bedrock's ``signature`` or ``redactedData``, as the
``"ai-sdk"`` format writes it: Anthropic and Bedrock get those thinking blocks back, which
Claude requires with a tool turn; the provider checks the seal), a call still streaming its input, a call the provider itself ran
(``providerExecuted``), and a call the request does not answer unless its outcome is
given (``results``): each is still in :attr:`ChatRequest.tool_calls`. An outcome given in
``results`` is sent in place of whatever the request says of that call: a server that
recorded a call's outcome sends its own record, not the page's copy of it.

Call ids go to the provider as they are when they fit every provider's rule
(``[A-Za-z0-9_-]``, at most 40 characters, as Anthropic and OpenAI require); any other
id (unspool's own ``"{stream_id}:{index}"`` among them) is sent as ``call_`` and 24 hex
digits of its SHA-256: the same id always maps to the same one.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Event,
    ReasoningDelta,
    TextDelta,
)
from unspool.sources.providers import _tool_results as tool_results
from unspool.web._conversation import (
    AssistantStep,
    AssistantTurn,
    FilePart,
    RequestToolCall,
    TextPart,
    Turn,
    UserTurn,
)
from unspool.web._errors import BadRequest

__all__ = [
    "SHAPES",
    "MessageShape",
    "ProviderName",
    "provider_call_id",
    "write_messages",
]

ProviderName = Literal["openai", "openai_responses", "anthropic", "gemini", "bedrock", "ollama"]

Outcome = ActionResult | ActionFailed

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
_ERROR_TYPE = re.compile(r"([A-Za-z_][\w.]*): (.*)", re.DOTALL)

DENIED = "The user denied this call."
"""What the model is told of a denied call whose denial gave no reason."""


def provider_call_id(call_id: str) -> str:
    """The id a call is sent to the provider with (see the module's documentation)."""
    if _SAFE_ID.fullmatch(call_id):
        return call_id
    return "call_" + hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]


# ------------------------------------------------------------------------ assistant steps


def _failed(call: RequestToolCall, index: int, text: str) -> ActionFailed:
    """An error text as a failure: ``"Type: message"`` (what the ``"ai-sdk"`` format
    sends for an ``ActionFailed``) reads back as that type and message."""
    match = _ERROR_TYPE.fullmatch(text)
    if match:
        return ActionFailed(call.id, index, call.name, match.group(2), match.group(1))
    return ActionFailed(call.id, index, call.name, text, "error")


def _invalid(call: RequestToolCall, index: int) -> ActionInvalid | None:
    """The call as an :class:`ActionInvalid`: one unspool's ``"ai-sdk"`` format reported
    invalid (``toolMetadata.unspool.reason``), or arguments that are not JSON."""
    cid = provider_call_id(call.id)
    raw = call.raw_args
    unspool = call.metadata.get("unspool")
    if call.state == "output-error" and isinstance(unspool, Mapping):
        reason = unspool.get("reason")
        if isinstance(reason, str):
            errors = unspool.get("errors")
            found = errors if isinstance(errors, list) else []
            listed = tuple(e for e in found if isinstance(e, Mapping))
            return ActionInvalid(call.id, index, call.name, reason, listed, raw, cid)
    if call.args is None and raw is not None:
        try:
            json.loads(raw)
        except (ValueError, RecursionError):
            error = {"message": "the arguments are not valid JSON", "type": "malformed_json"}
            return ActionInvalid(call.id, index, call.name, "malformed_json", (error,), raw, cid)
    return None


def _args(call: RequestToolCall) -> Any:
    """The arguments to echo: the input, else the raw text read as JSON, else ``{}``."""
    if call.args is not None:
        return call.args
    if call.raw_args is not None:
        try:
            return json.loads(call.raw_args)
        except (ValueError, RecursionError):
            return {}
    return {}


def _call_events(call: RequestToolCall, index: int, results: Mapping[str, Outcome]) -> list[Event]:
    """The events a call stands for (none when it is not sent: see the module docs)."""
    if call.state == "input-streaming" or call.provider_executed:
        return []
    complete = ActionComplete(call.id, index, call.name, _args(call), provider_call_id(call.id))
    if call.id in results:  # the server's own record wins over what the page says
        return [complete, results[call.id]]
    invalid = _invalid(call, index)
    if invalid is not None and call.answered:
        return [invalid]
    if call.state == "output-available":
        return [complete, ActionResult(call.id, index, call.name, call.output)]
    if call.state == "output-error":
        return [complete, _failed(call, index, call.error or "")]
    if call.state == "output-denied":
        return [complete, ActionFailed(call.id, index, call.name, call.error or DENIED, "denied")]
    outcome = results.get(call.id)
    return [] if outcome is None else [complete, outcome]


def _step_events(step: AssistantStep, results: Mapping[str, Outcome], sealed: bool) -> list[Event]:
    events: list[Event] = []
    for text, seal in step.sealed if sealed else ():  # the builder puts them where they go
        events += [ReasoningDelta(text), seal] if text else [seal]
    if step.text:
        events.append(TextDelta(step.text))
    for index, call in enumerate(step.calls):
        events += _call_events(call, index, results)
    return events


# ----------------------------------------------------------------------------- user turns


def _data_url(file: FilePart) -> str:
    assert file.data is not None
    return f"data:{file.media_type};base64,{base64.b64encode(file.data).decode('ascii')}"


def _b64(file: FilePart) -> str:
    assert file.data is not None
    return base64.b64encode(file.data).decode("ascii")


def _family(file: FilePart) -> str:
    media = (file.media_type or "").lower()
    if media == "application/pdf":
        return "pdf"
    return media.partition("/")[0]


def _how(file: FilePart) -> str:
    if file.data is not None:
        return "inline"
    return "by URL" if file.url is not None else "by file id"


def _unsupported(provider: str, file: FilePart) -> BadRequest:
    media = file.media_type or "a file"
    message = f"{provider} does not take {media} {_how(file)}"
    return BadRequest(
        f"cannot send the conversation to {provider}: {message}",
        [{"path": "(file)", "message": message, "type": "unsupported_file"}],
        status_code=415,
    )


def _text_file(file: FilePart, provider: str) -> str | None:
    """An inline ``text/*`` file's text (``None`` for any other file)."""
    if _family(file) != "text" or file.data is None:
        return None
    try:
        return file.data.decode("utf-8")
    except UnicodeDecodeError:
        raise _unsupported(provider, file) from None


UserWriter = Callable[[Sequence[TextPart | FilePart]], dict[str, Any]]


def _texts(parts: Sequence[TextPart | FilePart], provider: str) -> list[str | FilePart]:
    """Each part as its text (text parts and inline text files) or the file itself."""
    out: list[str | FilePart] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append(part.text)
        else:
            text = _text_file(part, provider)
            out.append(part if text is None else text)
    return out


def _openai_chat_user(parts: Sequence[TextPart | FilePart]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for item in _texts(parts, "openai"):
        if isinstance(item, str):
            content.append({"type": "text", "text": item})
            continue
        family = _family(item)
        if family == "image" and item.file_id is None:
            url = item.url if item.url is not None else _data_url(item)
            content.append({"type": "image_url", "image_url": {"url": url}})
        elif family == "pdf" and item.data is not None:
            name = item.filename or "document.pdf"
            content.append(
                {"type": "file", "file": {"file_data": _data_url(item), "filename": name}}
            )
        elif item.file_id is not None and family in ("pdf", "image"):
            content.append({"type": "file", "file": {"file_id": item.file_id}})
        elif family == "audio" and item.data is not None and _audio_format(item):
            audio = {"data": _b64(item), "format": _audio_format(item)}
            content.append({"type": "input_audio", "input_audio": audio})
        else:
            raise _unsupported("openai", item)
    if len(content) == 1 and content[0]["type"] == "text":
        return {"role": "user", "content": content[0]["text"]}
    return {"role": "user", "content": content}


def _audio_format(file: FilePart) -> str | None:
    media = (file.media_type or "").lower()
    return {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}.get(
        media
    )


def _openai_responses_user(parts: Sequence[TextPart | FilePart]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for item in _texts(parts, "openai_responses"):
        if isinstance(item, str):
            content.append({"type": "input_text", "text": item})
            continue
        family = _family(item)
        if family == "image":
            image: dict[str, Any] = {"type": "input_image", "detail": "auto"}
            if item.file_id is not None:
                image["file_id"] = item.file_id
            else:
                image["image_url"] = item.url if item.url is not None else _data_url(item)
            content.append(image)
        elif family in ("pdf", "application", "text"):
            file: dict[str, Any] = {"type": "input_file"}
            if item.file_id is not None:
                file["file_id"] = item.file_id
            elif item.url is not None:
                file["file_url"] = item.url
            else:
                file["file_data"] = _data_url(item)
                file["filename"] = item.filename or "document"
            content.append(file)
        else:
            raise _unsupported("openai_responses", item)
    return {"type": "message", "role": "user", "content": content}


_ANTHROPIC_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def _anthropic_user(parts: Sequence[TextPart | FilePart]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for item in _texts(parts, "anthropic"):
        if isinstance(item, str):
            content.append({"type": "text", "text": item})
            continue
        family = _family(item)
        if family not in ("image", "pdf"):
            raise _unsupported("anthropic", item)
        source: dict[str, Any]
        if item.file_id is not None:
            source = {"type": "file", "file_id": item.file_id}
        elif item.url is not None:
            source = {"type": "url", "url": item.url}
        elif family == "image" and item.media_type not in _ANTHROPIC_IMAGES:
            raise _unsupported("anthropic", item)
        else:
            source = {"type": "base64", "media_type": item.media_type, "data": _b64(item)}
        content.append({"type": "image" if family == "image" else "document", "source": source})
    return {"role": "user", "content": content}


def _gemini_user(parts: Sequence[TextPart | FilePart]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for item in _texts(parts, "gemini"):
        if isinstance(item, str):
            out.append({"text": item})
        elif item.data is not None:
            out.append({"inline_data": {"mime_type": item.media_type, "data": item.data}})
        else:
            uri = item.url if item.url is not None else item.file_id
            out.append({"file_data": {"file_uri": uri, "mime_type": item.media_type}})
    return {"role": "user", "parts": out}


_BEDROCK_FORMATS = {
    "image": {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"},
    "document": {
        "application/pdf": "pdf",
        "text/csv": "csv",
        "application/msword": "doc",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
        "application/vnd.ms-excel": "xls",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
        "text/html": "html",
    },
    "video": {
        "video/mp4": "mp4",
        "video/quicktime": "mov",
        "video/x-matroska": "mkv",
        "video/webm": "webm",
        "video/x-flv": "flv",
        "video/mpeg": "mpeg",
        "video/x-ms-wmv": "wmv",
        "video/3gpp": "three_gp",
    },
}


def _bedrock_name(file: FilePart, index: int) -> str:
    """A document name Bedrock accepts (letters, digits, single spaces, ``-()[]``)."""
    base = (file.filename or "").rpartition(".")[0] or file.filename or ""
    cleaned = " ".join(re.sub(r"[^A-Za-z0-9\s\-()\[\]]", " ", base).split())
    return cleaned[:200] or f"document {index + 1}"


def _bedrock_user(parts: Sequence[TextPart | FilePart]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for index, item in enumerate(_texts(parts, "bedrock")):
        if isinstance(item, str):
            content.append({"text": item})
            continue
        media = (item.media_type or "").lower()
        kind = next((k for k, formats in _BEDROCK_FORMATS.items() if media in formats), None)
        if kind is None or item.file_id is not None:
            raise _unsupported("bedrock", item)
        if item.data is not None:
            source: dict[str, Any] = {"bytes": item.data}
        elif item.url is not None and item.url.startswith("s3://"):
            source = {"s3Location": {"uri": item.url}}
        else:
            raise _unsupported("bedrock", item)
        block: dict[str, Any] = {"format": _BEDROCK_FORMATS[kind][media], "source": source}
        if kind == "document":
            block["name"] = _bedrock_name(item, index)
        content.append({kind: block})
    return {"role": "user", "content": content}


def _ollama_user(parts: Sequence[TextPart | FilePart]) -> dict[str, Any]:
    texts: list[str] = []
    images: list[str] = []
    for item in _texts(parts, "ollama"):
        if isinstance(item, str):
            texts.append(item)
        elif _family(item) == "image" and item.data is not None:
            images.append(_b64(item))
        else:
            raise _unsupported("ollama", item)
    message: dict[str, Any] = {"role": "user", "content": "\n\n".join(texts)}
    if images:
        message["images"] = images
    return message


# ---------------------------------------------------------------------------------- table


@dataclass(frozen=True, slots=True)
class MessageShape:
    """One provider's messages: its tool-result builder (the assistant's steps), its user
    message, and the key holding a message's content when same-role turns are merged
    (``None``: the provider takes consecutive messages of one role as they are)."""

    name: str
    results: Callable[[Iterable[Event]], list[dict[str, Any]]]
    user: UserWriter
    merge: str | None = None
    sealed: bool = False
    """Whether the provider takes sealed reasoning back (its thinking blocks)."""


SHAPES: dict[str, MessageShape] = {
    "openai": MessageShape("openai", tool_results.openai_chat_results, _openai_chat_user),
    "openai_responses": MessageShape(
        "openai_responses", tool_results.openai_responses_results, _openai_responses_user
    ),
    "anthropic": MessageShape(
        "anthropic", tool_results.anthropic_results, _anthropic_user, "content", sealed=True
    ),
    "gemini": MessageShape("gemini", tool_results.gemini_results, _gemini_user, "parts"),
    "bedrock": MessageShape(
        "bedrock", tool_results.bedrock_results, _bedrock_user, "content", sealed=True
    ),
    "ollama": MessageShape("ollama", tool_results.ollama_results, _ollama_user),
}
"""Every provider's message shape, by the name ``to_messages`` takes (``"openai"`` is
Chat Completions, as for ``registry.tools`` and ``run_turns``)."""


def _merged(messages: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if out and out[-1].get("role") == message.get("role"):
            out[-1] = {**out[-1], key: [*out[-1][key], *message[key]]}
        else:
            out.append(message)
    return out


def write_messages(
    turns: Iterable[Turn], provider: str, results: Mapping[str, Outcome] | None = None
) -> list[dict[str, Any]]:
    """The conversation's messages for ``provider`` (a key of :data:`SHAPES`); ``results``
    gives calls' outcomes by call id, in place of what the request says of them."""
    shape = SHAPES.get(provider)
    if shape is None:
        known = ", ".join(repr(name) for name in SHAPES)
        raise ValueError(f"unknown provider {provider!r}: expected one of {known}")
    given = results or {}
    messages: list[dict[str, Any]] = []
    for turn in turns:
        if isinstance(turn, UserTurn):
            if turn.parts:
                messages.append(shape.user(turn.parts))
        elif isinstance(turn, AssistantTurn):
            for step in turn.steps:
                events = _step_events(step, given, shape.sealed)
                if events:
                    messages += shape.results(events)
    return messages if shape.merge is None else _merged(messages, shape.merge)

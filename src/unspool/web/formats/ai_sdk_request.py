"""Reading a ``useChat`` body: the validated UI messages into a provider-neutral conversation.

As the AI SDK's own ``convertToModelMessages`` reads them:

* a ``system`` message is an :class:`Instruction` (its text parts joined);
* a ``user`` message's ``text`` and ``file`` parts, in order (a ``data:`` URL is the
  file's bytes, any other URL is fetched by whoever needs it);
* an ``assistant`` message is one :class:`AssistantStep` per ``step-start``: its text
  (the text parts joined), its reasoning, and its tool parts as :class:`RequestToolCall`
  with the id the page sent, whatever their state;
* what only the page shows (sources, data parts, files an assistant made, metadata)
  stays in the validated body.

A ``toolCallId`` that appears twice is refused: the calls of a request must be told
apart to be checked against what the server streamed.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from unspool.web.conversation import (
    AssistantStep,
    AssistantTurn,
    FilePart,
    Instruction,
    RequestToolCall,
    TextPart,
    ToolApproval,
    Turn,
    UserTurn,
)
from unspool.web.errors import BadRequest, decode_base64, dotted
from unspool.web.formats.ui_messages import (
    ChatBody,
    FileUIPart,
    ReasoningUIPart,
    StepStartUIPart,
    TextUIPart,
    ToolPart,
    UIMessage,
    tool_name,
)

__all__ = ["read_ui_messages"]


def read_ui_messages(body: ChatBody) -> tuple[Turn, ...]:
    """The conversation of a validated ``useChat`` body."""
    turns: list[Turn] = []
    seen: dict[str, str] = {}
    for index, message in enumerate(body.messages):
        path: list[Any] = ["messages", index]
        if message.role == "system":
            text = "".join(p.text for p in message.parts if isinstance(p, TextUIPart))
            turns.append(Instruction(text, "system"))
        elif message.role == "user":
            turns.append(_user(message, path))
        else:
            turns.append(_assistant(message, path, seen))
    return tuple(turns)


def _user(message: UIMessage, path: list[Any]) -> UserTurn:
    parts: list[TextPart | FilePart] = []
    for i, part in enumerate(message.parts):
        if isinstance(part, TextUIPart):
            parts.append(TextPart(part.text))
        elif isinstance(part, FileUIPart):
            parts.append(_file(part, [*path, "parts", i, "url"]))
    return UserTurn(tuple(parts))


def _file(part: FileUIPart, path: list[Any]) -> FilePart:
    if not part.url.startswith("data:"):
        return FilePart(part.media_type, url=part.url, filename=part.filename)
    header, comma, payload = part.url[5:].partition(",")
    if not comma:
        where = dotted(path)
        raise BadRequest(
            f"invalid data URL at {where}: no ',' before the data",
            [{"path": where, "message": "a data URL needs a ',' before its data", "type": "url"}],
        )
    if header.endswith(";base64"):
        data = decode_base64(payload, path, "data URL")
    else:
        data = urllib.parse.unquote_to_bytes(payload)
    return FilePart(part.media_type, data=data, filename=part.filename)


def _assistant(message: UIMessage, path: list[Any], seen: dict[str, str]) -> AssistantTurn:
    steps: list[AssistantStep] = []
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[RequestToolCall] = []

    def close() -> None:
        if text or reasoning or calls:
            steps.append(AssistantStep("".join(text), "".join(reasoning), tuple(calls)))
        text.clear()
        reasoning.clear()
        calls.clear()

    for i, part in enumerate(message.parts):
        if isinstance(part, StepStartUIPart):
            close()
        elif isinstance(part, TextUIPart):
            text.append(part.text)
        elif isinstance(part, ReasoningUIPart):
            reasoning.append(part.text)
        elif isinstance(part, ToolPart):
            where = dotted([*path, "parts", i, "toolCallId"])
            if part.tool_call_id in seen:
                raise BadRequest(
                    f"invalid ai-sdk request: {where}: the tool call id {part.tool_call_id!r} "
                    f"was already used at {seen[part.tool_call_id]}",
                    [{"path": where, "message": "a tool call id used twice", "type": "duplicate"}],
                )
            seen[part.tool_call_id] = where
            calls.append(_call(part, message.id))
    close()
    return AssistantTurn(tuple(steps), message.id)


def _call(part: ToolPart, message_id: str) -> RequestToolCall:
    """A tool part as a :class:`RequestToolCall`, keeping what its state holds."""
    fields = part.model_fields_set
    args = getattr(part, "input", None)
    raw = getattr(part, "raw_input", None)
    if "input" not in fields and raw is not None and not isinstance(raw, str):
        args = raw  # an output-error part's rawInput may be the value itself
    approval = getattr(part, "approval", None)
    state = getattr(part, "state")  # noqa: B009 (every tool part's model has one)
    error = getattr(part, "error_text", None)
    if state == "output-denied" and approval is not None:
        error = approval.reason
    return RequestToolCall(
        id=part.tool_call_id,
        name=tool_name(part),
        state=state,
        args=args,
        raw_args=raw if isinstance(raw, str) else None,
        output=getattr(part, "output", None),
        error=error,
        approval=None
        if approval is None
        else ToolApproval(approval.id, getattr(approval, "approved", None), approval.reason),
        provider_executed=bool(part.provider_executed),
        message_id=message_id,
        metadata=dict(part.tool_metadata or {}),
    )

"""Reading an AG-UI ``RunAgentInput``: its messages into a provider-neutral conversation.

The input is validated with the official ``ag-ui-protocol`` models; then:

* ``developer`` and ``system`` messages are :class:`Instruction` values;
* a ``user`` message's content (text, or text / image / audio / video / document parts
  whose ``source`` is inline base64, a URL or a provider's file handle) is a
  :class:`UserTurn`;
* an ``assistant`` message is one :class:`AssistantStep`: its content and its
  ``toolCalls`` (``function.arguments`` read as JSON; the text kept as ``raw_args``),
  each ``input-available`` until a ``tool`` message answers it (``output-available``,
  or ``output-error`` when the message has an ``error``);
* a ``reasoning`` message is a step with reasoning only; ``activity`` messages are the
  page's own (they stay in the validated input).

A tool message that answers no call of the conversation, or answers one a second time,
is refused, as is a tool call id used twice.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    DataSource,
    DeveloperMessage,
    FileSource,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from ag_ui.core import TextPart as AgUiText
from ag_ui.core import ToolCall as AgUiToolCall

from unspool.web._conversation import (
    AssistantStep,
    AssistantTurn,
    FilePart,
    Instruction,
    RequestToolCall,
    TextPart,
    Turn,
    UserTurn,
)
from unspool.web._errors import BadRequest, decode_base64, dotted

__all__ = ["MEDIA_FALLBACK", "read_run_input"]

MEDIA_FALLBACK = {
    "image": "image/*",
    "audio": "audio/*",
    "video": "video/*",
    "document": "application/octet-stream",
}
"""The media type of a part whose source does not say one (a URL or a file handle)."""


def _refuse(path: list[Any], message: str, kind: str) -> BadRequest:
    where = dotted(path)
    return BadRequest(
        f"invalid ag-ui request: {where}: {message}",
        [{"path": where, "message": message, "type": kind}],
    )


def read_run_input(run: RunAgentInput) -> tuple[Turn, ...]:
    """The conversation of a validated ``RunAgentInput``."""
    answers = _answers(run)
    turns: list[Turn] = []
    called: dict[str, str] = {}
    for index, message in enumerate(run.messages):
        path: list[Any] = ["messages", index]
        if isinstance(message, (DeveloperMessage, SystemMessage)):
            turns.append(Instruction(message.content, message.role))
        elif isinstance(message, UserMessage):
            turns.append(_user(message, path))
        elif isinstance(message, AssistantMessage):
            calls = []
            for i, call in enumerate(message.tool_calls or ()):
                call_path = [*path, "toolCalls", i, "id"]
                if call.id in called:
                    raise _refuse(
                        call_path,
                        f"the tool call id {call.id!r} was used at {called[call.id]}",
                        "duplicate",
                    )
                called[call.id] = dotted(call_path)
                calls.append(_call(call, message.id, answers.get(call.id)))
            turns.append(
                AssistantTurn((AssistantStep(message.content or "", "", tuple(calls)),), message.id)
            )
        elif isinstance(message, ReasoningMessage):
            turns.append(AssistantTurn((AssistantStep("", message.content),), message.id))
    for call_id, (_, where) in answers.items():
        if call_id not in called:
            raise _refuse(
                [where, "toolCallId"],
                f"answers the tool call {call_id!r}, which no assistant "
                "message of the conversation made",
                "unknown_call",
            )
    return tuple(turns)


def _answers(run: RunAgentInput) -> dict[str, tuple[ToolMessage, str]]:
    """The tool messages by the call they answer (and where they are)."""
    out: dict[str, tuple[ToolMessage, str]] = {}
    for index, message in enumerate(run.messages):
        if isinstance(message, ToolMessage):
            where = dotted(["messages", index])
            if message.tool_call_id in out:
                raise _refuse(
                    ["messages", index, "toolCallId"],
                    f"the tool call {message.tool_call_id!r} was already answered at "
                    f"{out[message.tool_call_id][1]}",
                    "duplicate",
                )
            out[message.tool_call_id] = (message, where)
    return out


def _call(
    call: AgUiToolCall, message_id: str, answer: tuple[ToolMessage, str] | None
) -> RequestToolCall:
    text = call.function.arguments
    try:
        args: Any = json.loads(text)
    except (ValueError, RecursionError):
        args = None
    state: Any = "input-available"
    output: Any = None
    error: str | None = None
    if answer is not None:
        tool = answer[0]
        output = _content(tool.content)
        state = "output-available" if tool.error is None else "output-error"
        error = tool.error
    return RequestToolCall(
        id=call.id,
        name=call.function.name,
        state=state,
        args=args,
        raw_args=text,
        output=output,
        error=error,
        message_id=message_id,
        metadata=dict(call.metadata or {}),
    )


def _content(content: Any) -> Any:
    """A tool message's content: its text, or its parts as JSON when they hold media."""
    if isinstance(content, str):
        return content
    if all(isinstance(part, AgUiText) for part in content):
        return "".join(part.text for part in content)
    return [part.model_dump(mode="json", by_alias=True) for part in content]


def _user(message: UserMessage, path: list[Any]) -> UserTurn:
    if isinstance(message.content, str):
        return UserTurn((TextPart(message.content),))
    parts: list[TextPart | FilePart] = []
    for i, part in enumerate(message.content):
        if isinstance(part, AgUiText):
            parts.append(TextPart(part.text))
            continue
        source = part.source
        fallback = MEDIA_FALLBACK[part.type]
        if isinstance(source, DataSource):
            data = decode_base64(source.value, [*path, "content", i, "source", "value"])
            parts.append(FilePart(source.mime_type, data=data))
        elif isinstance(source, UrlSource):
            parts.append(FilePart(source.mime_type or fallback, url=source.value))
        elif isinstance(source, FileSource):
            media = source.mime_type or fallback
            parts.append(FilePart(media, file_id=source.value, provider=source.provider))
    return UserTurn(tuple(parts))

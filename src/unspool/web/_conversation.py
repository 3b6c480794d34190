"""A conversation as a chat UI sent it, in no provider's shape.

:func:`unspool.web.read_request` reads an AI SDK ``useChat`` body or an AG-UI
``RunAgentInput`` into these values, and :mod:`unspool.web.provider_messages` writes
them out in each provider's shape. Only what a model reads is kept here: the
instructions, what the user sent (text and files), and each assistant step (its text,
its reasoning, and its tool calls with their outcomes). What only a page shows (data
parts, sources, activity messages, metadata) stays in the validated body
(:attr:`ChatRequest.body <unspool.web._request.ChatRequest.body>`).

A tool call keeps the id the page sent (:attr:`RequestToolCall.id`), so a server can
check it against what it streamed and recorded before it trusts an answer: a browser
can send any conversation, and nothing here runs anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from unspool.events import ReasoningSignature

__all__ = [
    "ANSWERED",
    "AssistantStep",
    "AssistantTurn",
    "FilePart",
    "Instruction",
    "RequestToolCall",
    "TextPart",
    "ToolApproval",
    "ToolState",
    "Turn",
    "UserTurn",
]

ToolState = Literal[
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
]
"""A tool call's state, as the AI SDK names it (an AG-UI call is ``input-available``
until a tool message answers it, then ``output-available`` or ``output-error``)."""

ANSWERED: frozenset[str] = frozenset({"output-available", "output-error", "output-denied"})
"""The states in which the request itself holds the call's outcome."""


@dataclass(frozen=True, slots=True)
class TextPart:
    """Text the user (or the application) wrote."""

    text: str


@dataclass(frozen=True, slots=True)
class FilePart:
    """A file the user attached: its bytes (``data``), a URL to fetch (``url``), or a
    handle a provider issued (``file_id``, with the ``provider`` that issued it)."""

    media_type: str | None
    data: bytes | None = None
    url: str | None = None
    file_id: str | None = None
    provider: str | None = None
    filename: str | None = None


@dataclass(frozen=True, slots=True)
class ToolApproval:
    """An approval asked for a call, and the answer when there is one (``approved``
    ``None``: not answered yet)."""

    id: str
    approved: bool | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class RequestToolCall:
    """A tool call as the request holds it, with the id the page sent.

    ``args`` is the call's input as sent (``None`` when absent); ``raw_args`` the
    argument text when the request carried text rather than a value (an AG-UI call's
    ``arguments``, an AI SDK part's ``rawInput``). ``output`` / ``error`` hold the
    outcome the request carries (see :attr:`answered`). ``provider_executed``: the page
    says the model provider ran it (a hosted tool), not the application.
    ``metadata``: the part's ``toolMetadata`` (AI SDK) or the call's ``metadata`` (AG-UI).
    """

    id: str
    name: str
    state: ToolState
    args: Any = None
    raw_args: str | None = None
    output: Any = None
    error: str | None = None
    approval: ToolApproval | None = None
    provider_executed: bool = False
    message_id: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def answered(self) -> bool:
        """Whether the request itself holds the call's outcome."""
        return self.state in ANSWERED


@dataclass(frozen=True, slots=True)
class Instruction:
    """A system or developer message: instructions, which a browser can forge."""

    text: str
    role: Literal["system", "developer"] = "system"


@dataclass(frozen=True, slots=True)
class UserTurn:
    """What the user sent: text and files, in order."""

    parts: tuple[TextPart | FilePart, ...]


@dataclass(frozen=True, slots=True)
class AssistantStep:
    """One model call of an assistant turn: its text, its reasoning, its tool calls.

    ``sealed``: the reasoning parts that came with the provider's seal (a ``reasoning``
    part's ``providerMetadata`` signature or redacted data, as unspool's ``"ai-sdk"``
    format and the AI SDK's own providers write it), each its text and that seal: the
    provider wants them back to go on (see :class:`~unspool.events.ReasoningSignature`)."""

    text: str = ""
    reasoning: str = ""
    calls: tuple[RequestToolCall, ...] = ()
    sealed: tuple[tuple[str, ReasoningSignature], ...] = ()


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    """An assistant message: one step per model call (the AI SDK's ``step-start``)."""

    steps: tuple[AssistantStep, ...]
    message_id: str = ""


Turn = Instruction | UserTurn | AssistantTurn
"""One message of the conversation."""

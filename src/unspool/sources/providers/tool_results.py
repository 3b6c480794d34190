"""Closing the tool loop: a turn's events in, the provider's next messages out.

After a turn, the model's actions (``ActionComplete`` / ``ActionInvalid``) and the
dispatcher's outcomes (``ActionResult`` / ``ActionFailed``) must go back to the model in
the shape its API documents.  Each builder here takes the events of one turn and returns
the messages (or input items, or contents) to append to the conversation: the model's own
turn (its text and its calls, as the provider expects them echoed) and one result per
call, matched by the call's provider id (unspool's id when the provider gave none):

* :func:`openai_chat_results`: an ``assistant`` message with ``tool_calls``, then one
  ``{"role": "tool", "tool_call_id", "content"}`` message per call;
* :func:`openai_responses_results`: ``function_call`` items, then
  ``{"type": "function_call_output", "call_id", "output"}`` items;
* :func:`anthropic_results`: an ``assistant`` message with ``tool_use`` blocks, then a
  ``user`` message of ``tool_result`` blocks (``is_error: true`` for a failure);
* :func:`gemini_results`: a ``model`` content with ``function_call`` parts (each with the
  thought signature it came with), then a ``user`` content of ``function_response`` parts
  (``{"output": ...}`` or ``{"error": ...}``);
* :func:`bedrock_results`: an ``assistant`` message with ``toolUse`` blocks, then a
  ``user`` message of ``toolResult`` blocks (``status: "error"`` for a failure);
* :func:`ollama_results`: an ``assistant`` message with ``tool_calls``, then one
  ``{"role": "tool", "tool_name", "content"}`` message per call.

A failure is a result too, worded so the model can fix it: ``ActionInvalid`` for bad
arguments lists the validation errors path by path (``- items[0].qty: Input should be a
valid integer``), ``ActionFailed`` gives the error's type and message.  A call that got
no outcome (no dispatcher ran it) raises :class:`MissingOutcome`: the provider would
reject a next request without its result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Event,
    TextDelta,
)

__all__ = [
    "MissingOutcome",
    "ToolCall",
    "Turn",
    "anthropic_results",
    "bedrock_results",
    "gemini_results",
    "ollama_results",
    "openai_chat_results",
    "openai_responses_results",
    "read_turn",
]


class MissingOutcome(ValueError):
    """A call of the turn has no ``ActionResult`` / ``ActionFailed`` / ``ActionInvalid``."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call of a turn and its outcome, ready for any provider's format."""

    call_id: str  # the provider's id for the call, or unspool's when it gave none
    provider_id: str | None  # the provider's id as it sent it
    name: str
    args: dict[str, Any]  # the arguments as the model sent them (JSON-ready)
    raw_args: str  # the same, as JSON text
    output: Any  # the handler's result (JSON-ready); None for a failure
    text: str  # the outcome as text for the model: the result, or what to fix
    is_error: bool
    attributes: Mapping[str, str] = field(default_factory=dict)  # what the provider wants back


@dataclass(frozen=True, slots=True)
class Turn:
    """The model's text and calls of one turn, each call with its outcome."""

    text: str
    calls: tuple[ToolCall, ...]


def _dotted(path: Sequence[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the arguments)"


def _invalid_text(event: ActionInvalid) -> str:
    name = event.name or "the tool"
    messages = [str(err.get("message", "")) for err in event.errors]
    if event.reason == "schema":
        lines = [
            f"- {_dotted(err.get('path') or ())}: {err.get('message')}" for err in event.errors
        ]
        return (
            f"Error: the arguments of {name} are invalid. Fix these and call it again:\n"
            + "\n".join(lines)
        )
    if event.reason == "unknown_action":
        detail = "; ".join(messages) or f"unknown action {name!r}"
        return f"Error: {detail}. Call one of the available tools."
    if event.reason in ("malformed_json", "bad_params"):
        detail = "; ".join(messages) or "not valid JSON"
        return (
            f"Error: the arguments of {name} are not a valid JSON object ({detail}). "
            "Call it again with one JSON object."
        )
    if event.reason == "truncated":
        return f"Error: the call to {name} was cut off before its arguments were complete."
    detail = "; ".join(messages)
    return f"Error: the call to {name} was not run ({event.reason})" + (
        f": {detail}" if detail else "."
    )


def _args_of(event: ActionComplete | ActionInvalid) -> tuple[dict[str, Any], str]:
    if isinstance(event, ActionComplete):
        args = event.to_dict()["args"]  # validated models become plain JSON values
        args = args if isinstance(args, dict) else {"value": args}
        return args, json.dumps(args, ensure_ascii=False)
    raw = event.raw or "{}"
    try:
        value = json.loads(raw)
    except ValueError:
        return {}, raw
    return (value, raw) if isinstance(value, dict) else ({}, raw)


def _output_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _outcome(
    call: ActionComplete | ActionInvalid, outcome: ActionResult | ActionFailed | None
) -> tuple[Any, str, bool]:
    """A call's ``(output, text for the model, is_error)``."""
    if isinstance(call, ActionInvalid):
        return None, _invalid_text(call), True
    if outcome is None:
        raise MissingOutcome(
            f"action {call.id} ({call.name}) has no result: run the turn's events through a "
            "Dispatcher (generate(dispatcher=...)) before building the next messages"
        )
    if isinstance(outcome, ActionFailed):
        return None, f"Error: {call.name} failed ({outcome.error_type}): {outcome.error}", True
    output = outcome.to_dict()["result"]
    return output, _output_text(output), False


def read_turn(events: Iterable[Event]) -> Turn:
    """The text and the calls, with their outcomes, of one turn's events."""
    text: list[str] = []
    calls: list[ActionComplete | ActionInvalid] = []
    outcomes: dict[str, ActionResult | ActionFailed] = {}
    attributes: dict[str, Mapping[str, str]] = {}
    for event in events:
        if isinstance(event, ActionStarted):
            attributes[event.id] = event.attributes
        elif isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, (ActionComplete, ActionInvalid)):
            calls.append(event)
        elif isinstance(event, (ActionResult, ActionFailed)):
            outcomes[event.id] = event
    out: list[ToolCall] = []
    for call in calls:
        args, raw = _args_of(call)
        output, text_out, is_error = _outcome(call, outcomes.get(call.id))
        out.append(
            ToolCall(
                call.action_id or call.id,
                call.action_id,
                call.name or "",
                args,
                raw,
                output,
                text_out,
                is_error,
                attributes.get(call.id, {}),
            )
        )
    return Turn("".join(text), tuple(out))


# ------------------------------------------------------------------ the six formats


def openai_chat_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Chat Completions: the assistant message, then ``role: "tool"`` messages."""
    turn = read_turn(events)
    assistant: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        assistant["tool_calls"] = [_chat_call(c) for c in turn.calls]
    tools = [{"role": "tool", "tool_call_id": c.call_id, "content": c.text} for c in turn.calls]
    return [assistant, *tools]


def _chat_call(call: ToolCall) -> dict[str, Any]:
    """One ``tool_calls`` entry of the assistant message; a thought signature (Gemini's
    OpenAI-compatible endpoint wants it back) goes back in ``extra_content``."""
    entry: dict[str, Any] = {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.raw_args},
    }
    signature = call.attributes.get("thought_signature")
    if signature:
        entry["extra_content"] = {"google": {"thought_signature": signature}}
    return entry


def openai_responses_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Responses API input items: the reply, its ``function_call`` items, then their
    ``function_call_output`` items (for a stateless request that resends the input)."""
    turn = read_turn(events)
    items: list[dict[str, Any]] = []
    if turn.text:
        items.append({"type": "message", "role": "assistant", "content": turn.text})
    items.extend(
        {"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": c.raw_args}
        for c in turn.calls
    )
    items.extend(
        {"type": "function_call_output", "call_id": c.call_id, "output": c.text} for c in turn.calls
    )
    return items


def anthropic_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Anthropic Messages: the assistant's ``tool_use`` blocks, then ``tool_result`` blocks."""
    turn = read_turn(events)
    content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    content.extend(
        {"type": "tool_use", "id": c.call_id, "name": c.name, "input": c.args} for c in turn.calls
    )
    out: list[dict[str, Any]] = [{"role": "assistant", "content": content}]
    if turn.calls:
        results = []
        for c in turn.calls:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": c.call_id,
                "content": c.text,
            }
            if c.is_error:
                block["is_error"] = True
            results.append(block)
        out.append({"role": "user", "content": results})
    return out


def gemini_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Gemini contents: the model's ``function_call`` parts, then ``function_response`` parts."""
    turn = read_turn(events)
    parts: list[dict[str, Any]] = [{"text": turn.text}] if turn.text else []
    responses: list[dict[str, Any]] = []
    for c in turn.calls:
        call: dict[str, Any] = {"name": c.name, "args": c.args}
        response: dict[str, Any] = {"name": c.name}
        if c.provider_id is not None:  # Gemini matches results by id when it gave one
            call["id"] = response["id"] = c.provider_id
        response["response"] = {"error": c.text} if c.is_error else {"output": c.output}
        part: dict[str, Any] = {"function_call": call}
        signature = c.attributes.get("thought_signature")
        if signature:  # Gemini 3 refuses a function call sent back without its signature
            part["thought_signature"] = signature
        parts.append(part)
        responses.append({"function_response": response})
    out: list[dict[str, Any]] = [{"role": "model", "parts": parts}]
    if responses:
        out.append({"role": "user", "parts": responses})
    return out


def bedrock_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Bedrock Converse: the assistant's ``toolUse`` blocks, then ``toolResult`` blocks."""
    turn = read_turn(events)
    content: list[dict[str, Any]] = [{"text": turn.text}] if turn.text else []
    content.extend(
        {"toolUse": {"toolUseId": c.call_id, "name": c.name, "input": c.args}} for c in turn.calls
    )
    out: list[dict[str, Any]] = [{"role": "assistant", "content": content}]
    if turn.calls:
        results = []
        for c in turn.calls:
            body = [{"json": c.output}] if isinstance(c.output, Mapping) else [{"text": c.text}]
            result: dict[str, Any] = {"toolUseId": c.call_id, "content": body}
            if c.is_error:
                result["status"] = "error"
            results.append({"toolResult": result})
        out.append({"role": "user", "content": results})
    return out


def ollama_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Ollama chat: the assistant message with ``tool_calls``, then ``role: "tool"`` messages."""
    turn = read_turn(events)
    assistant: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.calls:
        assistant["tool_calls"] = [
            {"function": {"name": c.name, "arguments": c.args}} for c in turn.calls
        ]
    tools = [{"role": "tool", "tool_name": c.name, "content": c.text} for c in turn.calls]
    return [assistant, *tools]

"""Closing the tool loop: a turn's events in, the provider's next messages out.

After a turn, the model's actions (``ActionComplete`` / ``ActionInvalid``) and the
dispatcher's outcomes (``ActionResult`` / ``ActionFailed``) must go back to the model in
the shape its API documents.  Each builder here takes the events of one turn and returns
the messages (or input items, or contents) to append to the conversation: the model's own
turn (its text and its calls, as the provider expects them echoed) and one result per
call, matched by the call's provider id (unspool's id when the provider gave none):

* :func:`openai_chat_results`: an ``assistant`` message with ``tool_calls`` (and, for a
  Claude reply read through LiteLLM, its signed ``thinking_blocks``), then one
  ``{"role": "tool", "tool_call_id", "content"}`` message per call;
* :func:`openai_responses_results`: each call echoed as the item it came as, then its
  own output item: ``{"type": "function_call_output", "call_id", "output"}`` for a
  function call, ``custom_tool_call_output``, ``shell_call_output``,
  ``apply_patch_call_output``, ``mcp_approval_response``... for the client-run items;
* :func:`anthropic_results`: an ``assistant`` message with ``tool_use`` blocks, then a
  ``user`` message of ``tool_result`` blocks (``is_error: true`` for a failure); the
  thinking blocks (``thinking`` with its signature, ``redacted_thinking``), which the API
  requires back with a tool turn when thinking is on, and the provider's own tool calls and results (``server_tool_use`` / ``mcp_tool_use`` and their
  ``*_tool_result`` blocks) are echoed in place in the assistant message, as the API
  requires to continue a turn it paused (``pause_turn``);
* :func:`gemini_results`: a ``model`` content with ``function_call`` parts (each with the
  thought signature it came with), then a ``user`` content of ``function_response`` parts
  (``{"output": ...}`` or ``{"error": ...}``);
* :func:`bedrock_results`: an ``assistant`` message with the signed ``reasoningContent``
  blocks (Claude's thinking, which it requires back) and ``toolUse`` blocks, then a
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

import base64
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    ReasoningSignature,
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
    events = list(events)
    turn = read_turn(events)
    assistant: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    thinking = [_thinking_block(text, seal) for _, text, seal in _sealed_reasoning(events)]
    if thinking:  # LiteLLM sends them on to Claude, which wants them back with a tool turn
        assistant["thinking_blocks"] = thinking
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
    """Responses API input items (for a stateless request that resends the input): the
    reply, each call echoed as the item it came as, then each call's own output item,
    chosen by the call's ``attributes["item_type"]`` (none: a ``function_call``):

    * ``function_call`` -> ``function_call_output`` (``call_id``, ``output`` text);
    * ``custom_tool_call`` -> ``custom_tool_call_output`` (``call_id``, ``output`` text);
    * ``local_shell_call`` -> ``local_shell_call_output`` (``id``: the call's id, as the
      SDK's type has it; ``output`` text);
    * ``shell_call`` -> ``shell_call_output``: ``output`` is a list of ``{stdout, stderr,
      outcome}`` chunks; the result gives them (one mapping with ``stdout`` / ``stderr``
      and ``exit_code``, ``timed_out`` or ``outcome``; or a list of them), or any other
      result is the stdout of a command that exited 0; a failure is the stderr of exit 1;
    * ``apply_patch_call`` -> ``apply_patch_call_output``: ``status`` ``completed`` (or
      ``failed`` for a failure, or as a mapping result's ``status`` says), ``output`` text;
    * ``computer_call`` -> ``computer_call_output``: the result is the screenshot (an
      image URL, or a mapping with ``image_url`` / ``file_id``, and optionally
      ``acknowledged_safety_checks``);
    * a client ``tool_search_call`` -> ``tool_search_output``: the result is the loaded
      tool definitions (a list, or a mapping with ``tools``);
    * ``mcp_approval_request`` -> ``mcp_approval_response``: ``approve`` is a bool result,
      or a mapping result's ``approve`` (with its ``reason``), or whether the result is
      truthy; a failure denies, its text as the ``reason``.

    The output items of a computer call or a tool search have no place for text: a
    failure of one sends an empty screenshot (no tools), and its text follows as a
    ``user`` message after the output items."""
    turn = read_turn(events)
    items: list[dict[str, Any]] = []
    if turn.text:
        items.append({"type": "message", "role": "assistant", "content": turn.text})
    items.extend(_responses_call(c) for c in turn.calls)
    notes: list[dict[str, Any]] = []
    for c in turn.calls:
        items.append(_responses_output(c))
        if c.is_error and _kind(c) in _NO_TEXT:
            notes.append({"type": "message", "role": "user", "content": c.text})
    return items + notes


_NO_TEXT = frozenset({"computer_call", "tool_search_call"})
"""Item types whose output item cannot carry a failure's text."""

_KINDS = frozenset(
    {
        "custom_tool_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "computer_call",
        "tool_search_call",
        "mcp_approval_request",
    }
)
"""The Responses call items answered otherwise than a ``function_call``."""


def _kind(call: ToolCall) -> str:
    """The Responses item the call came as (a ``function_call`` unless it says otherwise)."""
    kind = call.attributes.get("item_type", "")
    return kind if kind in _KINDS else "function_call"


def _responses_call(call: ToolCall) -> dict[str, Any]:
    """The call as the output item it came as, to resend as input."""
    kind = _kind(call)
    item_id = call.attributes.get("item_id")
    if kind == "mcp_approval_request":  # its id is the call's; no call_id, no status
        return {"type": kind, "id": item_id or call.call_id, **call.args}
    item: dict[str, Any] = {"type": kind}
    if kind == "function_call":
        item.update(name=call.name, arguments=call.raw_args)
    elif kind == "custom_tool_call":
        given = call.args.get("input")
        item.update(name=call.name, input=given if isinstance(given, str) else call.raw_args)
    else:  # a client-run item: its own fields are the call's args
        item.update(call.args)
        item["status"] = "completed"
        if kind == "computer_call":
            item.setdefault("pending_safety_checks", [])  # required, even empty
    item["call_id"] = call.call_id
    if kind in ("local_shell_call", "computer_call"):  # these require an id
        item["id"] = item_id or call.call_id
    elif item_id and kind != "function_call":
        item["id"] = item_id
    namespace = call.attributes.get("namespace")
    if namespace and kind in ("function_call", "custom_tool_call"):
        item["namespace"] = namespace
    return item


def _responses_output(call: ToolCall) -> dict[str, Any]:
    """The output item that answers the call, for its item type."""
    kind = _kind(call)
    result = call.output
    if kind == "custom_tool_call":
        return {"type": "custom_tool_call_output", "call_id": call.call_id, "output": call.text}
    if kind == "local_shell_call":
        return {"type": "local_shell_call_output", "id": call.call_id, "output": call.text}
    if kind == "shell_call":
        return _shell_output(call)
    if kind == "apply_patch_call":
        status = "failed" if call.is_error else "completed"
        text = call.text
        if isinstance(result, Mapping) and result.get("status") in ("completed", "failed"):
            status = result["status"]
            given = result.get("output")
            text = given if isinstance(given, str) else text
        return {
            "type": "apply_patch_call_output",
            "call_id": call.call_id,
            "status": status,
            "output": text,
        }
    if kind == "computer_call":
        return _computer_output(call)
    if kind == "tool_search_call":
        tools = result.get("tools") if isinstance(result, Mapping) else result
        return {
            "type": "tool_search_output",
            "call_id": call.call_id,
            "execution": "client",
            "status": "incomplete" if call.is_error else "completed",
            "tools": list(tools) if isinstance(tools, list) else [],
        }
    if kind == "mcp_approval_request":
        return _approval(call)
    return {"type": "function_call_output", "call_id": call.call_id, "output": call.text}


def _shell_output(call: ToolCall) -> dict[str, Any]:
    result = call.output
    if call.is_error:
        chunks = [_chunk("", call.text, 1)]
    elif isinstance(result, list) and result and all(isinstance(r, Mapping) for r in result):
        chunks = [_shell_chunk(r) for r in result]
    elif isinstance(result, Mapping) and ("stdout" in result or "stderr" in result):
        chunks = [_shell_chunk(result)]
    else:
        chunks = [_chunk(call.text, "", 0)]
    item: dict[str, Any] = {"type": "shell_call_output", "call_id": call.call_id}
    item["output"] = chunks
    action = call.args.get("action")
    limit = action.get("max_output_length") if isinstance(action, Mapping) else None
    if isinstance(limit, int) and not isinstance(limit, bool):
        item["max_output_length"] = limit  # the model set it: it wants it back
    return item


def _chunk(stdout: str, stderr: str, exit_code: int) -> dict[str, Any]:
    return {"stdout": stdout, "stderr": stderr, "outcome": {"type": "exit", "exit_code": exit_code}}


def _shell_chunk(result: Mapping[str, Any]) -> dict[str, Any]:
    """One command's output: ``stdout``, ``stderr`` and its outcome (``outcome`` as the
    API has it, or ``timed_out: true``, or ``exit_code``, 0 if absent)."""
    stdout, stderr = result.get("stdout"), result.get("stderr")
    out: dict[str, Any] = {
        "stdout": stdout if isinstance(stdout, str) else "",
        "stderr": stderr if isinstance(stderr, str) else "",
    }
    outcome = result.get("outcome")
    code = result.get("exit_code")
    if isinstance(outcome, Mapping) and outcome.get("type") in ("exit", "timeout"):
        out["outcome"] = dict(outcome)
    elif result.get("timed_out") is True:
        out["outcome"] = {"type": "timeout"}
    else:
        ok = isinstance(code, int) and not isinstance(code, bool)
        out["outcome"] = {"type": "exit", "exit_code": code if ok else 0}
    return out


def _computer_output(call: ToolCall) -> dict[str, Any]:
    result = call.output
    screenshot: dict[str, Any] = {"type": "computer_screenshot"}
    item: dict[str, Any] = {"type": "computer_call_output", "call_id": call.call_id}
    if isinstance(result, str) and not call.is_error:
        screenshot["image_url"] = result
    elif isinstance(result, Mapping):
        for key in ("image_url", "file_id"):
            if isinstance(result.get(key), str):
                screenshot[key] = result[key]
        checks = result.get("acknowledged_safety_checks")
        if isinstance(checks, list):
            item["acknowledged_safety_checks"] = checks
    item["output"] = screenshot
    return item


def _approval(call: ToolCall) -> dict[str, Any]:
    request_id = call.attributes.get("item_id") or call.call_id
    result = call.output
    reason: Any = None
    if call.is_error:
        approve, reason = False, call.text
    elif isinstance(result, Mapping):
        approve, reason = bool(result.get("approve")), result.get("reason")
    else:
        approve = bool(result)
    item: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": request_id,
        "approve": approve,
    }
    if isinstance(reason, str) and reason:
        item["reason"] = reason
    return item


def _sealed_reasoning(events: Iterable[Event]) -> Iterator[tuple[int, str, ReasoningSignature]]:
    """Each block of reasoning a :class:`ReasoningSignature` sealed: (the index of that
    event, the block's text, the signature event).  Reasoning text no signature sealed is
    left out: the provider refuses it back unsealed."""
    text: list[str] = []
    for k, event in enumerate(events):
        if isinstance(event, ReasoningDelta):
            text.append(event.text)
        elif isinstance(event, ReasoningSignature):
            yield k, "" if event.redacted else "".join(text), event
            text = []


def _thinking_block(text: str, seal: ReasoningSignature) -> dict[str, Any]:
    """A sealed block of reasoning as Anthropic's content block (and LiteLLM's
    ``thinking_blocks`` entry)."""
    if seal.redacted:
        return {"type": "redacted_thinking", "data": seal.redacted}
    return {"type": "thinking", "thinking": text, "signature": seal.signature}


def _anthropic_blocks(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The assistant's content in stream order, but for its tool calls: thinking blocks
    (as the API requires them back before a ``tool_use``), text, and the provider's own
    tool calls and results (a ``server_tool_use`` / ``mcp_tool_use`` block per call and the
    ``*_tool_result`` block of its result, as the API sent them)."""
    blocks: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}  # hosted id -> its block
    started: dict[str, HostedToolStarted] = {}
    sealed = {k: (text, sig) for k, text, sig in _sealed_reasoning(events)}
    for k, event in enumerate(events):
        if k in sealed:
            blocks.append(_thinking_block(*sealed[k]))
        elif isinstance(event, TextDelta):
            if blocks and blocks[-1]["type"] == "text":
                blocks[-1]["text"] += event.text
            else:
                blocks.append({"type": "text", "text": event.text})
        elif isinstance(event, HostedToolStarted) and event.provider_id:
            started[event.id] = event
            if event.kind in ("server_tool_use", "mcp_tool_use"):
                block: dict[str, Any] = {"type": event.kind, "id": event.provider_id}
                block.update(name=event.name, input={})
                if event.kind == "mcp_tool_use" and event.attributes.get("server"):
                    block["server_name"] = event.attributes["server"]
                calls[event.id] = block
                blocks.append(block)
        elif isinstance(event, HostedToolInput) and event.id in calls:
            calls[event.id]["input"] = event.to_dict()["input"]
        elif isinstance(event, HostedToolResult) and event.id in started and event.kind:
            call_id = started[event.id].provider_id
            output = event.to_dict()["output"]
            blocks.append({"type": event.kind, "tool_use_id": call_id, "content": output})
    return [b for b in blocks if b["type"] != "text" or b["text"]]


def anthropic_results(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Anthropic Messages: the assistant's ``tool_use`` blocks, then ``tool_result`` blocks."""
    events = list(events)
    turn = read_turn(events)
    content = _anthropic_blocks(events)
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
    events = list(events)
    turn = read_turn(events)
    content: list[dict[str, Any]] = []
    for _, text, sig in _sealed_reasoning(events):  # Claude wants them back before toolUse
        if sig.redacted:
            content.append({"reasoningContent": {"redactedContent": _blob(sig.redacted)}})
        else:
            reasoning = {"text": text, "signature": sig.signature}
            content.append({"reasoningContent": {"reasoningText": reasoning}})
    if turn.text:
        content.append({"text": turn.text})
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


def _blob(data: str) -> bytes | str:
    """Bedrock's redacted reasoning as boto3 takes it (bytes), from the event's base64."""
    try:
        return base64.b64decode(data, validate=True)
    except ValueError:
        return data


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

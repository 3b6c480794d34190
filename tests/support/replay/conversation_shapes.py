"""What each provider documents for the request that carries tool results back.

Each ``check_<format>(body)`` reads the JSON body of the second request of a tool
conversation and asserts the provider's documented rules for it (on the wire, after the
SDK's own conversion), returning the results it found in order, ``[(text, is_error), ...]``,
so a test can compare them with what the dispatcher produced.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from openai.types.responses import ResponseInputItemParam

__all__ = ["CHECKS"]

Results = list[tuple[str, bool]]


def check_openai_chat(body: dict[str, Any]) -> Results:
    """Chat Completions: an assistant message with ``tool_calls`` (``id``, ``type:
    function``, ``function.name``, ``function.arguments`` as JSON text), then one
    ``role: tool`` message per call, each with the ``tool_call_id`` of one of them."""
    messages = body["messages"]
    calls = next(m for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    ids = []
    for call in calls["tool_calls"]:
        assert call["type"] == "function" and isinstance(call["id"], str)
        json.loads(call["function"]["arguments"])
        ids.append(call["id"])
    after = messages[messages.index(calls) + 1 :]
    tools = [m for m in after if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ids  # every call answered, in order
    assert all(isinstance(m["content"], str) for m in tools)
    return [(m["content"], m["content"].startswith("Error")) for m in tools]


OUTPUT_OF = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "computer_call": "computer_call_output",
    "tool_search_call": "tool_search_output",
    "mcp_approval_request": "mcp_approval_response",
}
"""Each Responses call item and the output item that answers it."""


def check_openai_responses(body: dict[str, Any]) -> Results:
    """Responses API: the call items (a ``function_call`` with ``call_id``, ``name`` and
    JSON ``arguments``; a ``custom_tool_call`` with its raw ``input``; client-run items
    with their own fields), then for each, in the same order, the output item of its own
    kind that names it (``call_id``; ``id`` for ``local_shell_call_output``, as the SDK
    types it; ``approval_request_id`` for ``mcp_approval_response``).  Every input item
    must validate as the openai SDK's ``ResponseInputItemParam``."""
    adapter = pydantic.TypeAdapter(ResponseInputItemParam)
    items = body["input"]
    for item in items:
        adapter.validate_python(item)
    calls = [i for i in items if i.get("type") in OUTPUT_OF]
    outputs = [i for i in items if i.get("type") in OUTPUT_OF.values()]
    assert calls and [o["type"] for o in outputs] == [OUTPUT_OF[c["type"]] for c in calls]
    answered = [o.get("call_id") or o.get("id") or o.get("approval_request_id") for o in outputs]
    assert answered == [c.get("call_id") or c["id"] for c in calls]
    for call in calls:
        if call["type"] == "function_call":
            json.loads(call["arguments"])
        elif call["type"] == "custom_tool_call":
            assert isinstance(call["input"], str)
    return [_responses_result(o) for o in outputs]


def _responses_result(output: dict[str, Any]) -> tuple[str, bool]:
    """An output item's text for the model, and whether it reports a failure."""
    kind = output["type"]
    if kind == "shell_call_output":
        chunks = output["output"]
        text = "".join(c["stdout"] + c["stderr"] for c in chunks)
        return text, any(c["outcome"] != {"type": "exit", "exit_code": 0} for c in chunks)
    if kind == "apply_patch_call_output":
        return output.get("output") or "", output["status"] == "failed"
    if kind == "mcp_approval_response":
        return output.get("reason") or "", not output["approve"]
    if kind in ("computer_call_output", "tool_search_output"):
        return json.dumps(output.get("output", output.get("tools"))), False
    return output["output"], output["output"].startswith("Error")


def check_anthropic(body: dict[str, Any]) -> Results:
    """Anthropic Messages: the assistant's ``tool_use`` blocks (``id``, ``name``, ``input``
    object), then a ``user`` message whose content starts with a ``tool_result`` block
    (``tool_use_id``, ``content``, ``is_error`` for failures) for each of them."""
    messages = body["messages"]
    assistant, user = messages[-2], messages[-1]
    assert assistant["role"] == "assistant" and user["role"] == "user"
    uses = [b for b in assistant["content"] if b["type"] == "tool_use"]
    assert all(isinstance(b["input"], dict) for b in uses)
    results = user["content"]
    assert all(b["type"] == "tool_result" for b in results)
    assert [b["tool_use_id"] for b in results] == [b["id"] for b in uses]
    return [(b["content"], b.get("is_error", False)) for b in results]


def check_gemini(body: dict[str, Any]) -> Results:
    """Gemini: a ``model`` content with ``functionCall`` parts, then a ``user`` content with
    one ``functionResponse`` part (``name``, ``response`` object, the call's ``id`` when it
    had one) per call, in the same order."""
    contents = body["contents"]
    model, user = contents[-2], contents[-1]
    assert model["role"] == "model" and user["role"] == "user"
    calls = [p["functionCall"] for p in model["parts"] if "functionCall" in p]
    responses = [p["functionResponse"] for p in user["parts"]]
    assert [r["name"] for r in responses] == [c["name"] for c in calls]
    assert [r.get("id") for r in responses] == [c.get("id") for c in calls]
    out: Results = []
    for r in responses:
        response = r["response"]
        assert isinstance(response, dict) and set(response) <= {"output", "error"}
        text = response.get("error") or json.dumps(response.get("output"), ensure_ascii=False)
        out.append((text, "error" in response))
    return out


def check_bedrock(body: dict[str, Any]) -> Results:
    """Bedrock Converse: the assistant's ``toolUse`` blocks (``toolUseId``, ``name``,
    ``input``), then a ``user`` message of ``toolResult`` blocks (``toolUseId``, ``content``
    of ``text`` or ``json`` blocks, ``status: error`` for failures) for each of them."""
    messages = body["messages"]
    assistant, user = messages[-2], messages[-1]
    assert assistant["role"] == "assistant" and user["role"] == "user"
    uses = [b["toolUse"] for b in assistant["content"] if "toolUse" in b]
    results = [b["toolResult"] for b in user["content"]]
    assert [r["toolUseId"] for r in results] == [u["toolUseId"] for u in uses]
    out: Results = []
    for r in results:
        (block,) = r["content"]
        assert set(block) in ({"text"}, {"json"})
        assert r.get("status", "success") in ("success", "error")
        text = block.get("text") or json.dumps(block.get("json"), ensure_ascii=False)
        out.append((text, r.get("status") == "error"))
    return out


def check_ollama(body: dict[str, Any]) -> Results:
    """Ollama: an assistant message with ``tool_calls`` (``function.name``,
    ``function.arguments`` object), then one ``role: tool`` message (``content``,
    ``tool_name``) per call."""
    messages = body["messages"]
    calls = next(m for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    names = [c["function"]["name"] for c in calls["tool_calls"]]
    assert all(isinstance(c["function"]["arguments"], dict) for c in calls["tool_calls"])
    tools = [m for m in messages[messages.index(calls) + 1 :] if m["role"] == "tool"]
    assert [m["tool_name"] for m in tools] == names
    return [(m["content"], m["content"].startswith("Error")) for m in tools]


CHECKS = {
    "openai_chat": check_openai_chat,
    "openai_responses": check_openai_responses,
    "anthropic": check_anthropic,
    "gemini": check_gemini,
    "bedrock": check_bedrock,
    "ollama": check_ollama,
}

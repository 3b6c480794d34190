"""The "ai-sdk" and "ag-ui" formats read by the real JavaScript clients, from npm.

A real uvicorn server on 127.0.0.1 serves scripted replies (``tests.support.web.app``) through
``EventStreamResponse``; node runs the AI SDK's chat client and chunk schema, and AG-UI's
``EventSchemas`` and ``HttpAgent``. Every chunk must pass the package's own schema, and
what the client rebuilds must match the events computed in-process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.web.app import SECRET, build_app, reference_events
from tests.support.web.js import JS_SOURCES, js_clients, run_node
from tests.support.web.server import LiveServer
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Citation,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    ReasoningSignature,
    RefusalDelta,
    TextDelta,
)
from unspool.web import GENERIC_ERROR
from unspool.web.formats._ag_ui import HOSTED_ACTIVITY

SCENARIOS = ("complete", "truncated", "failing")
ENDINGS = {"complete": "stop", "truncated": "length", "failing": "error"}

# the node runs are module fixtures: one worker runs them, once
pytestmark = pytest.mark.xdist_group("web-js")


@pytest.fixture(scope="module")
def js() -> Path:
    return js_clients()


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(build_app()) as live:
        yield live


@pytest.fixture(scope="module")
def ai_sdk_runs(js: Path, server: LiveServer) -> dict[str, Any]:
    """What the AI SDK's client saw of each scenario (one node process for all)."""
    bodies = json.dumps([{"scenario": s} for s in SCENARIOS])
    runs = run_node(js, "ai_sdk_client.mjs", f"{server.url}/chat", bodies)
    return dict(zip(SCENARIOS, runs, strict=True))


@pytest.fixture(scope="module")
def ag_ui_runs(js: Path, server: LiveServer) -> dict[str, Any]:
    """What AG-UI's client saw of each scenario (one node process for all)."""
    props = json.dumps([{"scenario": s} for s in SCENARIOS])
    runs = run_node(js, "ag_ui_client.mjs", f"{server.url}/ag-ui", props)
    return dict(zip(SCENARIOS, runs, strict=True))


def _text(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def _reasoning(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


def _of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def _hosted(events: list[Event]) -> dict[str, dict[str, Any]]:
    """Each provider-run call of the reference: its name, input, output and error."""
    calls: dict[str, dict[str, Any]] = {}
    for event in events:
        if isinstance(event, HostedToolStarted):
            calls[event.id] = {"name": event.name, "providerId": event.provider_id}
        elif isinstance(event, HostedToolInput):
            calls[event.id]["input"] = event.input
        elif isinstance(event, HostedToolResult):
            calls[event.id].update(output=event.output, error=event.error)
    return calls


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ai_sdk_client_reads_the_stream(ai_sdk_runs: dict[str, Any], scenario: str) -> None:
    out = ai_sdk_runs[scenario]
    ref = reference_events(scenario)
    raw, chat = out["raw"], out["chat"]

    assert raw["invalid"] == []  # every chunk passed uiMessageChunkSchema
    assert raw["headers"]["x-vercel-ai-ui-message-stream"] == "v1"
    assert raw["headers"]["content-type"].startswith("text/event-stream")
    assert raw["lastData"] == "data: [DONE]"
    chunks = raw["chunks"]
    assert chunks[0] == {"type": "start", "messageId": "msg-1"}
    assert chunks[-1] == {"type": "finish", "finishReason": ENDINGS[scenario]}

    parts = chat["message"]["parts"]
    texts = [p for p in parts if p["type"] == "text"]
    refusals = [p for p in texts if p.get("providerMetadata", {}).get("unspool", {}).get("refusal")]
    assert "".join(p["text"] for p in texts if p not in refusals) == _text(ref)
    assert [p["text"] for p in refusals] == [e.text for e in _of(ref, RefusalDelta)]
    assert "".join(p["text"] for p in parts if p["type"] == "reasoning") == _reasoning(ref)
    assert _reasoning(ref) == "The user wants the kit, twice."
    # a reasoning part ends sealed, as the AI SDK's Anthropic provider writes it
    sealed = [p.get("providerMetadata") for p in parts if p["type"] == "reasoning"]
    signatures = _of(ref, ReasoningSignature)
    assert sealed == [
        {s.provider: {"redactedData": s.redacted} if s.redacted else {"signature": s.signature}}
        for s in signatures
    ] or (not signatures and sealed == [None])
    tools = {p["toolCallId"]: p for p in parts if p["type"].startswith("tool-")}
    # completed actions are the only tool calls the client was asked to execute
    complete = _of(ref, ActionComplete)
    assert [(c["toolCallId"], c["toolName"], c["input"]) for c in chat["toolCalls"]] == [
        (e.id, e.name, e.args) for e in complete
    ]
    for event in complete:
        assert tools[event.id]["type"] == f"tool-{event.name}"
        assert tools[event.id]["input"] == event.args
    for result in _of(ref, ActionResult):
        assert tools[result.id]["state"] == "output-available"
        assert tools[result.id]["output"] == result.result
    for failed in _of(ref, ActionFailed):
        assert tools[failed.id]["state"] == "output-error"
        assert tools[failed.id]["errorText"] == f"{failed.error_type}: {failed.error}"
    for invalid in _of(ref, ActionInvalid):
        assert tools[invalid.id]["state"] == "output-error"
        assert tools[invalid.id]["errorText"].startswith(f"invalid action ({invalid.reason})")
        assert tools[invalid.id].get("input") is None  # the raw text is kept as rawInput only
    # the tools the model provider ran: providerExecuted parts, never asked to execute
    hosted = _hosted(ref)
    assert len(hosted) == (2 if scenario == "complete" else 0)
    for call_id, call in hosted.items():
        part = tools[call_id]
        assert (part["type"], part["providerExecuted"]) == (f"tool-{call['name']}", True)
        assert part["input"] == call["input"]
        if call["error"] is None:
            assert (part["state"], part["output"]) == ("output-available", call["output"])
        else:
            assert (part["state"], part["errorText"]) == ("output-error", call["error"])
    assert set(tools) == {e.id for e in [*complete, *_of(ref, ActionInvalid)]} | set(hosted)
    assert not set(hosted) & {c["toolCallId"] for c in chat["toolCalls"]}

    # The next request: convertToModelMessages keeps the dispatcher's outcomes as the
    # tool role's results, as for tools the AI SDK's own streamText runs on the server
    # (never providerExecuted, which would file them as the model provider's own tools);
    # the provider's own tools are filed, call and result, inside the assistant message.
    user, assistant, tool = chat["modelMessages"]
    assert (user["role"], assistant["role"], tool["role"]) == ("user", "assistant", "tool")
    calls = [c for c in assistant["content"] if c["type"] == "tool-call"]
    assert [c["toolCallId"] for c in calls] == list(tools)
    assert {c["toolCallId"] for c in calls if c.get("providerExecuted")} == set(hosted)
    filed = {r["toolCallId"]: r["output"] for r in assistant["content"] if r["type"] == "tool-result"}  # fmt: skip
    assert list(filed) == list(hosted)
    for call_id, call in hosted.items():
        if call["error"] is None:
            assert filed[call_id] == {"type": "json", "value": call["output"]}
    outputs = {r["toolCallId"]: r["output"] for r in tool["content"]}
    assert list(outputs) == [i for i in tools if i not in hosted]  # every client call answered
    for result in _of(ref, ActionResult):
        assert outputs[result.id] == {"type": "json", "value": result.result}
    for failed in _of(ref, ActionFailed):
        error = f"{failed.error_type}: {failed.error}"
        assert outputs[failed.id] == {"type": "error-text", "value": error}
    for invalid in _of(ref, ActionInvalid):
        assert outputs[invalid.id]["type"] == "error-text"
        assert outputs[invalid.id]["value"].startswith(f"invalid action ({invalid.reason})")

    sources = [p for p in parts if p["type"].startswith("source-")]
    assert [(p["type"], p.get("url"), p.get("title")) for p in sources] == [
        ("source-url", c.url, c.title)
        if c.url
        else ("source-document", None, c.title or c.cited_text or c.kind)
        for c in _of(ref, Citation)
    ]
    diagnostics = [c["data"] for c in chunks if c["type"] == "data-unspool-diagnostic"]
    assert diagnostics == [e.to_dict() for e in _of(ref, Diagnostic)]
    assert not any(p["type"].startswith("data-") for p in parts)  # transient: not kept

    if scenario == "failing":
        assert [c["errorText"] for c in chunks if c["type"] == "error"] == [GENERIC_ERROR]
        assert SECRET not in json.dumps(out)
        assert chat["status"] == "error" and chat["errors"] == [GENERIC_ERROR]
        assert chat["finish"]["isError"] is True
    else:
        assert chat["status"] == "ready" and chat["errors"] == []
        assert chat["finish"] == {
            "isError": False,
            "isAbort": False,
            "finishReason": ENDINGS[scenario],
        }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ag_ui_client_reads_the_stream(ag_ui_runs: dict[str, Any], scenario: str) -> None:
    out = ag_ui_runs[scenario]
    ref = reference_events(scenario)
    raw, agent = out["raw"], out["agent"]

    assert raw["invalid"] == []  # every event passed @ag-ui/core's EventSchemas
    events = raw["events"]
    assert events[0] == {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"}
    refusal_ids = {
        e["messageId"]
        for e in events
        if e["type"] == "TEXT_MESSAGE_START"
        and e.get("metadata", {}).get("unspool", {}).get("refusal")
    }
    deltas = [
        e["delta"]
        for e in events
        if e["type"] == "TEXT_MESSAGE_CONTENT" and e["messageId"] not in refusal_ids
    ]
    assert "".join(deltas) == _text(ref)
    thoughts = [e["delta"] for e in events if e["type"] == "REASONING_MESSAGE_CONTENT"]
    assert "".join(thoughts) == _reasoning(ref)

    assert agent["failure"] is None, agent["failure"]  # the client's verifier accepted it
    messages = agent["messages"]
    assistant = [m for m in messages if m["role"] == "assistant"]
    assert "".join(m.get("content") or "" for m in assistant if m["id"] not in refusal_ids) == (
        _text(ref)
    )
    refused = [m["content"] for m in assistant if m["id"] in refusal_ids]
    assert refused == [e.text for e in _of(ref, RefusalDelta)]
    customs = [(e["name"], e["value"]) for e in events if e["type"] == "CUSTOM"]
    assert customs == [
        (f"unspool.{e.type}", e.to_dict())
        for e in ref
        if isinstance(e, (Citation, Diagnostic, ReasoningSignature))
    ]
    calls = {c["id"]: c for m in assistant for c in m.get("toolCalls", [])}
    results = {m["toolCallId"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}
    # the tools the model provider ran: activity messages, never tool calls, never sent back
    hosted = _hosted(ref)
    activities = [m for m in messages if m["role"] == "activity"]
    assert [(m["activityType"], m["content"]["id"]) for m in activities] == [
        (HOSTED_ACTIVITY, call_id) for call_id in hosted
    ]
    for message in activities:
        content = message["content"]
        call = hosted[content["id"]]
        status = "complete" if call["error"] is None else "failed"
        assert content["status"] == status and content["name"] == call["name"]
        assert (content["input"], content["output"], content["error"]) == (
            call["input"],
            call["output"],
            call["error"],
        )
    assert not set(hosted) & set(calls) and not set(hosted) & set(results)
    assert "activity" not in agent["nextRoles"]
    for event in _of(ref, ActionComplete):
        assert calls[event.id]["function"]["name"] == event.name
        assert json.loads(calls[event.id]["function"]["arguments"]) == event.args
    for result in _of(ref, ActionResult):
        assert results[result.id] == result.result
    for failed in _of(ref, ActionFailed):
        assert results[failed.id] == {"error": failed.error, "errorType": failed.error_type}
    for invalid in _of(ref, ActionInvalid):
        assert results[invalid.id]["reason"] == invalid.reason  # answered: never pending

    if scenario == "failing":
        assert events[-1] == {"type": "RUN_ERROR", "message": GENERIC_ERROR, "code": "RuntimeError"}
        assert agent["runError"] == {"message": GENERIC_ERROR, "code": "RuntimeError"}
        assert SECRET not in json.dumps(out)
    else:
        assert events[-1]["type"] == "RUN_FINISHED"
        assert events[-1]["result"]["reason"] == ref[-1].reason
        # every call is answered (a result, a failure or an invalid action's error)
        assert agent["runFinished"]["pendingToolCallIds"] == []


def test_the_page_and_the_client_tests_use_the_same_pinned_ai() -> None:
    """The client tests read the "ai-sdk" format with the ``ai`` the demo page is built
    from (``unspool/web/ai_sdk_build``): bumping one pin means bumping the other."""
    from unspool.web.ai_sdk_build import SOURCES

    def pins(folder: Path) -> dict[str, Any]:
        manifest = json.loads((folder / "package.json").read_text())
        lock = json.loads((folder / "package-lock.json").read_text())
        assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
        return {name: lock["packages"][f"node_modules/{name}"]["version"] for name in ("ai",)}

    assert pins(SOURCES) == pins(JS_SOURCES) == {"ai": "6.0.326"}

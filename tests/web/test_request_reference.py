"""Request reading held to the npm packages: their validators, their conversion, their clients.

* The AI SDK's ``safeValidateUIMessages`` (its ``uiMessagesSchema``) is the reference for
  unspool's UI message models: the same verdict, and the same value read, on the test
  bodies and on hundreds of randomly edited ones; ``@ag-ui/core``'s ``RunAgentInputSchema``
  accepts the AG-UI body.
* The AI SDK's ``convertToModelMessages`` is the reference for which tool calls go back
  to the model with a result, and with which error text.
* The real clients (``AbstractChat``, what ``useChat`` runs; ``HttpAgent``) post whole
  conversations (files, a client tool answered, an approval denied); each body they
  posted is read and sent through the six providers' request types.
"""

from __future__ import annotations

import base64
import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tests.support.web.js import js_clients, run_node
from tests.support.web.provider_sdks import PROVIDERS, check
from tests.support.web.request_bodies import PNG, STATES, ag_ui_body, ai_sdk_body, png_url
from tests.support.web.server import LiveServer
from unspool import BadRequest, read_request
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Event,
    StreamDone,
    TextDelta,
)
from unspool.web import EventStreamResponse
from unspool.web.formats._ui_messages import ChatBody
from unspool.web.provider_messages import provider_call_id


@pytest.fixture(scope="module")
def js() -> Any:
    return js_clients()


def _reference(js: Any, ui: list[Any] = (), runs: list[Any] = ()) -> dict[str, Any]:
    data = json.dumps({"uiMessages": list(ui), "runInputs": list(runs)})
    out: dict[str, Any] = run_node(js, "validate_requests.mjs", stdin=data, timeout=120)
    return out


def _ours(messages: Any) -> dict[str, Any]:
    """unspool's verdict on a message list, in the reference's shape."""
    try:
        body = ChatBody.model_validate({"messages": messages})
    except Exception:
        return {"ok": False}
    dumped = body.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {"ok": True, "data": dumped["messages"]}


def test_the_test_bodies_pass_the_packages_own_validators(js: Any) -> None:
    body = ai_sdk_body()
    out = _reference(js, [body["messages"]], [ag_ui_body()])
    (ui,), (run,) = out["uiMessages"], out["runInputs"]
    assert ui["ok"], ui
    assert run["ok"], run
    assert _ours(body["messages"]) == {"ok": True, "data": ui["data"]}


# ------------------------------------------------------------------- edited bodies, diffed

_VALUES: list[Any] = [None, 0, 1.5, "", "x", True, False, [], {}, [1], {"a": 1}, "tool-x"]
_KEYS = [
    "type",
    "state",
    "input",
    "output",
    "errorText",
    "approval",
    "rawInput",
    "toolCallId",
    "toolName",
    "text",
    "id",
    "role",
    "parts",
    "metadata",
    "providerMetadata",
    "data",
    "approved",
    "reason",
    "preliminary",
    "providerExecuted",
    "dynamic",
    "mediaType",
    "url",
    "sourceId",
    "title",
    "toolMetadata",
    "callProviderMetadata",
    "inputEncoding",
]


def _edit(rng: random.Random, value: Any) -> Any:
    """``value`` with one random edit somewhere inside (a key removed, added or nulled,
    a value swapped for another type, a tool part's state or type changed)."""
    value = copy.deepcopy(value)
    node = value
    while True:
        if isinstance(node, dict) and node and rng.random() < 0.6:
            key = rng.choice(sorted(node))
            if isinstance(node[key], (dict, list)) and rng.random() < 0.7:
                node = node[key]
                continue
        elif isinstance(node, list) and node and rng.random() < 0.75:
            node = node[rng.randrange(len(node))]
            continue
        break
    if isinstance(node, list):
        if node and rng.random() < 0.5:
            node.pop(rng.randrange(len(node)))
        else:
            node.append(rng.choice(_VALUES))
        return value
    if not isinstance(node, dict):
        return value
    action = rng.randrange(5)
    if action == 0 and node:
        del node[rng.choice(sorted(node))]
    elif action == 1:
        node[rng.choice(_KEYS)] = rng.choice(_VALUES)
    elif action == 2 and node:
        node[rng.choice(sorted(node))] = None
    elif action == 3:
        node["state"] = rng.choice([*STATES, "done", "bogus"])
    else:
        node["type"] = rng.choice(
            ["text", "reasoning", "file", "step-start", "data-x", "tool-x", "dynamic-tool", "zzz"]
        )
    return value


def test_randomly_edited_messages_get_the_references_verdict(js: Any) -> None:
    rng = random.Random(20240623)
    base = ai_sdk_body()["messages"]
    cases = [_edit(rng, base) for _ in range(400)]
    cases += [_edit(rng, _edit(rng, base)) for _ in range(200)]
    out = _reference(js, cases)
    verdicts = {True: 0, False: 0}
    for messages, reference in zip(cases, out["uiMessages"], strict=True):
        ours = _ours(messages)
        assert ours["ok"] == reference["ok"], (messages, reference)
        if ours["ok"]:
            assert ours["data"] == reference["data"]
        verdicts[reference["ok"]] += 1
    assert verdicts[True] > 100 and verdicts[False] > 100  # both sides well exercised


def test_read_request_refuses_exactly_what_the_reference_refuses(js: Any) -> None:
    rng = random.Random(7)
    cases = [_edit(rng, ai_sdk_body()["messages"]) for _ in range(150)]
    out = _reference(js, cases)
    for messages, reference in zip(cases, out["uiMessages"], strict=True):
        try:
            read_request({"messages": messages})
        except BadRequest as exc:
            duplicate = any(e["type"] in ("duplicate", "base64", "url") for e in exc.errors)
            assert not reference["ok"] or duplicate, (exc.errors, messages)
        else:
            assert reference["ok"], (reference, messages)


# --------------------------------------------------------------- convertToModelMessages


def test_the_same_calls_go_back_with_results_as_convert_to_model_messages_sends(js: Any) -> None:
    body = ai_sdk_body()
    (ui,) = _reference(js, [body["messages"]])["uiMessages"]
    results: dict[str, Any] = {}
    calls: set[str] = set()
    for message in ui["modelMessages"]:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part["type"] == "tool-result":
                results[part["toolCallId"]] = part["output"]
            elif part["type"] == "tool-call":
                calls.add(part["toolCallId"])
    messages = read_request(body).to_messages("openai")
    sent = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert set(sent) == {provider_call_id(i) for i in results}
    for call_id, output in results.items():
        text = sent[provider_call_id(call_id)]
        if output["type"] == "json":
            assert json.loads(text) == output["value"]
        else:  # an error: ours says it is one, with the reference's detail (the message of
            # "Type: message"), or the validation errors of an invalid action in its place
            assert output["type"] == "error-text" and text.startswith("Error: ")
            detail = output["value"].partition(": ")[2] or output["value"]
            assert detail in text or call_id == "s-1/0:bad", (detail, text)
    # what the reference sends as a call without a result, unspool leaves out (a provider
    # refuses a call with no result): approval requested or answered, a client call waiting
    waiting = calls - set(results)
    assert waiting == {f"s-1/0:{p}{i}" for i in (1, 2, 3) for p in ("", "d")}


# ------------------------------------------------------------------- the real clients

SID = "s-flow"


def _first_reply() -> Iterator[Event]:
    yield TextDelta("Checking.")
    yield ActionStarted(f"{SID}:0", 0, "get_weather")
    yield ActionComplete(f"{SID}:0", 0, "get_weather", {"city": "Paris"})
    yield ActionResult(f"{SID}:0", 0, "get_weather", {"temp_c": 21})
    yield ActionStarted(f"{SID}:1", 1, "explode")
    yield ActionComplete(f"{SID}:1", 1, "explode", {})
    yield ActionFailed(f"{SID}:1", 1, "explode", "the sensor is offline", "SensorError")
    yield ActionStarted(f"{SID}:2", 2, "lookup")
    error = {"path": [], "message": "Expecting value", "type": "malformed_json"}
    yield ActionInvalid(f"{SID}:2", 2, "lookup", "malformed_json", (error,), '{"q": ')
    yield ActionStarted(f"{SID}:3", 3, "confirm")
    yield ActionComplete(f"{SID}:3", 3, "confirm", {"q": "Book it?"})
    yield StreamDone("complete", 3, 1)


def _frames(*chunks: dict[str, Any]) -> bytes:
    out = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    return out + b"data: [DONE]\n\n"


APPROVAL_REPLY = _frames(
    {"type": "start", "messageId": "MESSAGE"},
    {"type": "start-step"},
    {"type": "text-start", "id": "t1"},
    {"type": "text-delta", "id": "t1", "delta": "Booking needs your OK."},
    {"type": "text-end", "id": "t1"},
    {"type": "tool-input-start", "toolCallId": f"{SID}/1:0", "toolName": "transfer"},
    {
        "type": "tool-input-available",
        "toolCallId": f"{SID}/1:0",
        "toolName": "transfer",
        "input": {"to": "bob", "cents": 9000},
    },
    {"type": "tool-approval-request", "approvalId": "ap-1", "toolCallId": f"{SID}/1:0"},
    {"type": "finish-step"},
    {"type": "finish", "finishReason": "stop"},
)
DENIED_REPLY = _frames(
    {"type": "start", "messageId": "MESSAGE"},
    {"type": "start-step"},
    {"type": "tool-output-denied", "toolCallId": f"{SID}/1:0"},
    {"type": "text-start", "id": "t2"},
    {"type": "text-delta", "id": "t2", "delta": "Not booked."},
    {"type": "text-end", "id": "t2"},
    {"type": "finish-step"},
    {"type": "finish", "finishReason": "stop"},
)


def _recording_app(bodies: list[bytes], format: str) -> Starlette:
    async def chat(request: Request) -> Response:
        bodies.append(await request.body())
        turn = len(bodies)
        if format == "ag-ui":
            run = json.loads(bodies[-1])
            events = (
                list(_first_reply())
                if turn == 1
                else [TextDelta("Booked."), StreamDone("complete")]
            )
            return EventStreamResponse(
                events, format="ag-ui", thread_id=run["threadId"], run_id=run["runId"]
            )
        continued = read_request(bodies[-1]).continued_message_id
        if turn in (2, 3):  # each continues the assistant message: it keeps its id
            assert continued is not None
            reply = APPROVAL_REPLY if turn == 2 else DENIED_REPLY
            body = reply.replace(b"MESSAGE", continued.encode())
            headers = {"x-vercel-ai-ui-message-stream": "v1"}
            return StreamingResponse(iter([body]), media_type="text/event-stream", headers=headers)
        assert continued is None  # a new user message: a new assistant message
        events = (
            list(_first_reply())
            if turn == 1
            else [TextDelta("You're welcome."), StreamDone("complete")]
        )
        return EventStreamResponse(events, format="ai-sdk")

    return Starlette(routes=[Route("/chat", chat, methods=["POST"])])


def test_what_use_chat_posts_is_read_and_goes_to_every_provider(js: Any) -> None:
    bodies: list[bytes] = []
    with LiveServer(_recording_app(bodies, "ai-sdk")) as live:
        out = run_node(js, "chat_flow.mjs", live.url + "/chat", png_url(), timeout=120)
    assert out["errors"] == [] and out["status"] == "ready"
    assert len(bodies) == 4
    chats = [read_request(body, format="ai-sdk") for body in bodies]
    assert all(chat.extra == {"userId": "user-7"} and chat.chat_id == "chat-flow" for chat in chats)
    first_user = chats[0].turns[0]
    assert first_user.parts[0].data == PNG  # type: ignore[union-attr]  (useChat: files first)
    states = [{c.id: c.state for c in chat.tool_calls} for chat in chats]
    assert states[0] == {}
    assert states[1] == {
        f"{SID}:0": "output-available",
        f"{SID}:1": "output-error",
        f"{SID}:2": "output-error",
        f"{SID}:3": "output-available",  # the page's addToolOutput
    }
    assert states[2] == {**states[1], f"{SID}/1:0": "approval-responded"}
    assert states[3] == {**states[1], f"{SID}/1:0": "output-denied"}
    denied = next(c for c in chats[3].tool_calls if c.id == f"{SID}/1:0")
    assert (denied.approval, denied.args) == (
        type(denied.approval)("ap-1", False, "not today"),
        {"to": "bob", "cents": 9000},
    )
    confirm = next(c for c in chats[1].tool_calls if c.name == "confirm")
    assert confirm.output == {"confirmed": True}
    for chat in chats:
        for provider in PROVIDERS:
            check(provider, chat.to_messages(provider))
    # the page's answer and the denial reach the model as results
    last = json.dumps(chats[3].to_messages("openai"))
    assert '{\\"confirmed\\": true}' in last and "(denied): not today" in last
    assert "(SensorError): the sensor is offline" in last
    assert "are not a valid JSON object (Expecting value)" in last


def test_what_the_ag_ui_client_posts_is_read_and_goes_to_every_provider(js: Any) -> None:
    bodies: list[bytes] = []
    with LiveServer(_recording_app(bodies, "ag-ui")) as live:
        out = run_node(js, "ag_ui_flow.mjs", live.url + "/chat", base64.b64encode(PNG).decode())
    assert out["pending"] == [f"{SID}:3"]  # the frontend tool call, left to the page
    first, second = (read_request(body, format="ag-ui") for body in bodies)
    assert [t.name for t in first.tools] == ["confirm"] and first.forwarded_props == {"plan": "pro"}
    assert first.turns[0].parts[1].data == PNG  # type: ignore[union-attr]
    assert {c.id: c.state for c in second.tool_calls} == {
        f"{SID}:0": "output-available",
        f"{SID}:1": "output-available",  # AG-UI's tool message holds the failure as content
        f"{SID}:2": "output-available",
        f"{SID}:3": "output-available",  # the page's tool message
    }
    for provider in PROVIDERS:
        check(provider, second.to_messages(provider))
    text = json.dumps(second.to_messages("anthropic"))
    assert '{\\"confirmed\\":true}' in text  # as the page's JSON.stringify wrote it

"""``read_request``: both chat UI formats read, converted for the six providers, and checked
by each provider SDK (its request types, then its client over real HTTP to the replay
server); malformed bodies are a 400 naming the place, through Starlette and FastAPI too.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi import Request as FastApiRequest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from tests.support.hypothesis_profiles import examples
from tests.support.replay import ReplayServer
from tests.support.web.provider_sdks import PROVIDERS, check, send, wire_json
from tests.support.web.request_bodies import (
    PNG,
    REDACTED,
    SIGNATURE,
    STATES,
    ag_ui_body,
    ai_sdk_body,
    ai_sdk_tool_part,
)
from unspool import ActionFailed, ActionResult, BadRequest, read_request
from unspool.web import bad_request_handler
from unspool.web._conversation import (
    AssistantStep,
    AssistantTurn,
    FilePart,
    Instruction,
    RequestToolCall,
    TextPart,
    ToolApproval,
    UserTurn,
)
from unspool.web.provider_messages import provider_call_id

CITY = {"city": "Paris"}


# ---------------------------------------------------------------------------------- reading


def test_an_ai_sdk_body_reads_into_the_conversation() -> None:
    chat = read_request(json.dumps(ai_sdk_body()).encode(), format="ai-sdk")
    assert (chat.format, chat.chat_id, chat.trigger, chat.message_id) == (
        "ai-sdk",
        "chat-1",
        "submit-message",
        "m-regen",
    )
    assert chat.extra == {"userId": "user-7"}
    assert chat.system == "Be brief."
    system, user, assistant, last = chat.turns
    assert system == Instruction("Be brief.", "system")
    assert user == UserTurn(
        (
            TextPart("Weather in Paris? Here is a map."),
            FilePart("image/png", data=PNG, filename="map.png"),
            FilePart("text/plain", data="notes: ☀️".encode(), filename="n.txt"),
        )
    )
    assert last == UserTurn((TextPart("Thanks!"),))
    assert isinstance(assistant, AssistantTurn) and assistant.message_id == "m2"
    first, second = assistant.steps
    assert (first.text, first.reasoning) == ("Checking both ways.", "The user wants the weather.")
    assert (second.text, second.reasoning) == ("It is 21 °C in Paris.", "")
    assert [(c.id, c.state) for c in second.calls] == [("s-1/1:0", "output-available")]
    calls = {call.id: call for call in first.calls}
    for i, state in enumerate(STATES):
        static, dynamic = calls[f"s-1/0:{i}"], calls[f"s-1/0:d{i}"]
        same = {"id": static.id, "approval": static.approval}
        assert static == RequestToolCall(**{**vars_of(dynamic), **same})
        assert (static.name, static.state, static.message_id) == ("get_weather", state, "m2")
    assert calls["s-1/0:0"].args == {"city": "Par"}
    assert calls["s-1/0:2"].approval == ToolApproval("approval-s-1/0:2")
    assert calls["s-1/0:3"].approval == ToolApproval("approval-s-1/0:3", True)
    assert calls["s-1/0:4"].output == {"city": "Paris", "temp_c": 21}
    assert calls["s-1/0:5"].error == "SensorError: the sensor is offline"
    assert calls["s-1/0:6"].approval == ToolApproval("approval-s-1/0:6", False, "not today")
    assert calls["s-1/0:6"].error == "not today"
    bad = calls["s-1/0:bad"]
    assert (bad.args, bad.raw_args, bad.metadata) == (
        None,
        '{"q": ',
        {"unspool": {"reason": "malformed_json", "errors": []}},
    )
    assert [c.id for c in chat.pending_calls] == [
        f"s-1/0:{p}{i}" for i in range(4) for p in ("", "d")
    ]
    # everything the page sent stays in the validated body
    data = chat.body.messages[2].parts[-2]
    assert (data.type, data.id, data.data) == (
        "data-weather",
        "card-1",
        {"city": "Paris", "temp_c": 21},
    )


def vars_of(call: RequestToolCall) -> dict[str, Any]:
    return {name: getattr(call, name) for name in RequestToolCall.__dataclass_fields__}


def test_an_ag_ui_body_reads_into_the_conversation() -> None:
    chat = read_request(ag_ui_body(), format="ag-ui")
    assert (chat.format, chat.chat_id, chat.run_id) == ("ag-ui", "thread-1", "run-2")
    assert (chat.state, chat.forwarded_props) == ({"cart": ["kit-42"]}, {"plan": "pro"})
    assert [t.name for t in chat.tools] == ["confirm"]
    assert [(c.description, c.value) for c in chat.context] == [("locale", "fr-FR")]
    assert [(r.interrupt_id, r.status, r.payload) for r in chat.resume] == [
        ("int-1", "resolved", {"ok": True})
    ]
    assert chat.system == "Use metric units.\n\nBe brief."
    developer, system, user, reasoning, assistant, final, last = chat.turns
    assert developer == Instruction("Use metric units.", "developer")
    assert system == Instruction("Be brief.", "system")
    assert user == UserTurn(
        (TextPart("Weather in Paris? Here is a map."), FilePart("image/png", data=PNG))
    )
    assert reasoning == AssistantTurn((AssistantStep("", "The user wants the weather."),), "r1")
    assert final == AssistantTurn((AssistantStep("It is 21 °C in Paris."),), "a2")
    assert last == UserTurn((TextPart("Thanks!"),))
    assert isinstance(assistant, AssistantTurn)
    (step,) = assistant.steps
    assert step.text == "Checking."
    assert [(c.id, c.name, c.state, c.args, c.output, c.error) for c in step.calls] == [
        ("t-1/0:0", "get_weather", "output-available", CITY, '{"temp_c": 21}', None),
        ("t-1/0:1", "explode", "output-error", {}, "", "RuntimeError: the sensor is offline"),
        ("t-1/0:2", "get_weather", "output-available", None, "cut off", None),
        ("t-1/0:3", "confirm", "input-available", {"q": "Book it?"}, None, None),
    ]
    assert step.calls[2].raw_args == '{"city": "Par'
    assert [c.id for c in chat.pending_calls] == ["t-1/0:3"]


# -------------------------------------------------------------------------------- providers


def test_the_ai_sdk_body_as_openai_chat_messages() -> None:
    """The whole conversion, exactly, for one provider (the others are checked by their SDKs)."""
    chat = read_request(ai_sdk_body())
    ids = {n: provider_call_id(f"s-1/0:{n}") for n in ("4", "d4", "5", "d5", "6", "d6", "bad")}
    ids["last"] = provider_call_id("s-1/1:0")
    assert all(len(i) == 29 and i.startswith("call_") for i in ids.values())

    def call(
        n: str, name: str = "get_weather", arguments: str = '{"city": "Paris"}'
    ) -> dict[str, Any]:
        return {
            "id": ids[n],
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }

    def tool(n: str, content: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": ids[n], "content": content}

    weather = '{"city": "Paris", "temp_c": 21}'
    failed = "Error: get_weather failed (SensorError): the sensor is offline"
    denied = "Error: get_weather failed (denied): not today"
    bad = (
        "Error: the arguments of lookup are not a valid JSON object (not valid JSON). "
        "Call it again with one JSON object."
    )
    assert chat.to_messages("openai") == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Weather in Paris? Here is a map."},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(PNG)}},
                {"type": "text", "text": "notes: ☀️"},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking both ways.",
            "tool_calls": [
                call("4"),
                call("d4"),
                call("5"),
                call("d5"),
                call("6"),
                call("d6"),
                call("bad", "lookup", '{"q": '),
            ],
        },
        tool("4", weather),
        tool("d4", weather),
        tool("5", failed),
        tool("d5", failed),
        tool("6", denied),
        tool("d6", denied),
        tool("bad", bad),
        {"role": "assistant", "content": "It is 21 °C in Paris.", "tool_calls": [call("last")]},
        tool("last", weather),
        {"role": "user", "content": "Thanks!"},
    ]


def b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


BODIES = {"ai-sdk": ai_sdk_body, "ag-ui": ag_ui_body}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("format", list(BODIES))
def test_each_provider_sdk_takes_the_converted_conversation(
    replay_server: ReplayServer, format: str, provider: str
) -> None:
    chat = read_request(BODIES[format](), format=format)
    messages = chat.to_messages(provider)
    check(provider, messages)  # the SDK's request types
    sent = send(provider, replay_server, messages, chat.system)  # the SDK's client, over HTTP
    key = {"gemini": "contents", "openai_responses": "input"}.get(provider, "messages")
    assert len(sent[key]) == len(messages)
    if provider in ("openai", "openai_responses", "anthropic", "ollama", "bedrock"):
        assert sent[key] == wire_json(messages)  # sent as written
    roles = [m.get("role") for m in messages]
    if provider in ("anthropic", "gemini", "bedrock"):  # these alternate
        assert all(a != b for a, b in itertools.pairwise(roles))
    if provider in ("openai", "ollama", "openai_responses"):  # one message per result
        answered = [c for c in chat.tool_calls if c.answered]
        results = [
            m
            for m in messages
            if m.get("role") == "tool" or m.get("type") == "function_call_output"
        ]
        assert len(results) == len(answered)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_results_per_provider_count_every_answered_call(provider: str) -> None:
    chat = read_request(ag_ui_body(), format="ag-ui")
    messages = chat.to_messages(provider)
    text = json.dumps(wire_json(messages))
    answered = [c for c in chat.tool_calls if c.answered]
    pending = [c for c in chat.tool_calls if not c.answered]
    if provider != "ollama":  # ollama matches results by name, not id
        for call in answered:
            assert text.count(provider_call_id(call.id)) == 2  # the call and its result
        for call in pending:
            assert provider_call_id(call.id) not in text
    assert "cut off" not in text  # malformed arguments: the model is told to call again
    assert "are not a valid JSON object" in text


def test_a_pending_call_goes_to_the_provider_with_the_result_given() -> None:
    body = {
        "messages": [
            {"id": "u", "role": "user", "parts": [{"type": "text", "text": "Book it"}]},
            {
                "id": "a",
                "role": "assistant",
                "parts": [
                    ai_sdk_tool_part("approval-responded", "x/0:0"),
                    ai_sdk_tool_part("input-available", "x/0:1"),
                ],
            },
        ]
    }
    chat = read_request(body)
    assert chat.to_messages("anthropic") == [
        {"role": "user", "content": [{"type": "text", "text": "Book it"}]}
    ]
    given = [
        ActionResult("x/0:0", 0, "get_weather", {"temp_c": 21}),
        ActionFailed("x/0:1", 1, "get_weather", "page closed", "ClientError"),
    ]
    first, second = provider_call_id("x/0:0"), provider_call_id("x/0:1")
    assert chat.to_messages("anthropic", results=given)[1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": first, "name": "get_weather", "input": CITY},
                {"type": "tool_use", "id": second, "name": "get_weather", "input": CITY},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": first, "content": '{"temp_c": 21}'},
                {
                    "type": "tool_result",
                    "tool_use_id": second,
                    "content": "Error: get_weather failed (ClientError): page closed",
                    "is_error": True,
                },
            ],
        },
    ]


def test_the_servers_own_outcome_wins_over_the_pages_copy() -> None:
    body = {
        "messages": [
            {"id": "u", "role": "user", "parts": [{"type": "text", "text": "Balance?"}]},
            {
                "id": "a",
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool-balance",
                        "toolCallId": "x/0:0",
                        "state": "output-available",
                        "input": {},
                        "output": {"cents": 10**9},  # forged by the page
                    }
                ],
            },
        ]
    }
    chat = read_request(body)
    forged, recorded = (
        chat.to_messages("openai", results=given)[-1]["content"]
        for given in ([], [ActionResult("x/0:0", 0, "balance", {"cents": 12})])
    )
    assert (forged, recorded) == ('{"cents": 1000000000}', '{"cents": 12}')


def test_provider_call_ids_fit_every_provider_and_never_change() -> None:
    assert provider_call_id("call_abc-1") == "call_abc-1"
    assert provider_call_id("toolu_01") == "toolu_01"
    ids = {provider_call_id(f"s-{n:016x}/{n % 3}:{n % 7}") for n in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) <= 40 and i.replace("_", "").replace("-", "").isalnum() for i in ids)
    assert provider_call_id("a:b") == provider_call_id("a:b") != provider_call_id("a:c")
    assert provider_call_id("x" * 41).startswith("call_")


# -------------------------------------------------------------------------- files per provider

INLINE_PDF = FilePart("application/pdf", data=b"%PDF-1.4", filename="a.pdf")
URL_IMAGE = FilePart("image/png", url="https://example.org/a.png")
FILE_ID = FilePart("application/pdf", file_id="file-123", provider="openai")
WAV = FilePart("audio/wav", data=b"RIFF")
S3_VIDEO = FilePart("video/mp4", url="s3://bucket/v.mp4")
SUPPORTED = {
    "openai": {"pdf", "url_image", "file_id", "wav"},
    "openai_responses": {"pdf", "url_image", "file_id"},
    "anthropic": {"pdf", "url_image", "file_id"},
    "gemini": {"pdf", "url_image", "file_id", "wav", "s3_video"},
    "bedrock": {"pdf", "s3_video"},
    "ollama": set(),
}
FILES = {
    "pdf": INLINE_PDF,
    "url_image": URL_IMAGE,
    "file_id": FILE_ID,
    "wav": WAV,
    "s3_video": S3_VIDEO,
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("name", list(FILES))
def test_a_file_goes_in_the_providers_shape_or_is_refused(provider: str, name: str) -> None:
    from unspool.web.provider_messages import write_messages

    turns = [UserTurn((TextPart("look"), FILES[name]))]
    if name in SUPPORTED[provider]:
        messages = write_messages(turns, provider)
        check(provider, messages)
    else:
        with pytest.raises(BadRequest) as caught:
            write_messages(turns, provider)
        assert caught.value.status_code == 415
        assert str(caught.value).startswith(f"cannot send the conversation to {provider}: ")


# ---------------------------------------------------------------------------- bad requests


def _ui(*parts: dict[str, Any], role: str = "assistant") -> dict[str, Any]:
    return {"messages": [{"id": "m", "role": role, "parts": list(parts)}]}


def _run(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"threadId": "t", "runId": "r", "messages": list(messages)}


_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
MALFORMED: list[tuple[str, Any, str, str]] = [
    ("ai-sdk", b"{", "(body)", "bad_request"),
    ("ai-sdk", b'{"messages": [1e999999, NaN]}', "(body)", "bad_request"),
    ("ai-sdk", b"\xff\xfe", "(body)", "bad_request"),
    ("ai-sdk", b"[]", "(body)", "bad_request"),
    ("ai-sdk", b"[" * 5000 + b"]" * 5000, "(body)", "bad_request"),
    ("ai-sdk", {}, "messages", "missing"),
    ("ai-sdk", {"messages": []}, "messages", "too_short"),
    (
        "ai-sdk",
        {"messages": [{"id": 1, "role": "user", "parts": []}]},
        "messages[0].id",
        "string_type",
    ),
    ("ai-sdk", _ui(role="user"), "messages[0]", "too_small"),
    ("ai-sdk", _ui({"type": "bogus"}), "messages[0].parts[0]", "unknown_part"),
    ("ai-sdk", _ui({"type": "text"}), "messages[0].parts[0].text", "missing"),
    (
        "ai-sdk",
        _ui({"type": "text", "text": "x", "state": None}),
        "messages[0].parts[0].state",
        "not_null",
    ),
    (
        "ai-sdk",
        _ui({"type": "tool-f", "toolCallId": "c", "state": "sleeping", "input": 1}),
        "messages[0].parts[0]",
        "unknown_part",
    ),
    (
        "ai-sdk",
        _ui({"type": "tool-f", "toolCallId": "c", "state": "input-available"}),
        "messages[0].parts[0].input",
        "missing",
    ),
    (
        "ai-sdk",
        _ui({**ai_sdk_tool_part("input-available", "c"), "output": 1}),
        "messages[0].parts[0].output",
        "forbidden",
    ),
    (
        "ai-sdk",
        _ui(
            {
                **ai_sdk_tool_part("output-available", "c"),
                "approval": {"id": "a", "approved": False},
            }
        ),
        "messages[0].parts[0].approval.approved",
        "literal_error",
    ),
    (
        "ai-sdk",
        _ui(
            {**ai_sdk_tool_part("output-denied", "c"), "approval": {"id": "a", "approved": "false"}}
        ),
        "messages[0].parts[0].approval.approved",
        "literal_error",
    ),
    (
        "ai-sdk",
        _ui(ai_sdk_tool_part("input-available", "c"), ai_sdk_tool_part("output-available", "c")),
        "messages[0].parts[1].toolCallId",
        "duplicate",
    ),
    (
        "ai-sdk",
        _ui(
            {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,@@@"},
            role="user",
        ),
        "messages[0].parts[0].url",
        "base64",
    ),
    ("ai-sdk", _ui({"type": "data-x"}), "messages[0].parts[0].data", "missing"),
    ("ag-ui", {"messages": []}, "threadId", "missing"),
    (
        "ag-ui",
        _run({"id": "m", "role": "bogus", "content": "x"}),
        "messages[0]",
        "union_tag_invalid",
    ),
    (
        "ag-ui",
        _run({"id": "m", "role": "user", "content": [{"type": "text"}]}),
        "messages[0].content[0].text",
        "missing",
    ),
    (
        "ag-ui",
        _run({"id": "t", "role": "tool", "toolCallId": "nope", "content": "x"}),
        "messages[0].toolCallId",
        "unknown_call",
    ),
    (
        "ag-ui",
        _run({"id": "a", "role": "assistant", "toolCalls": [_CALL, _CALL]}),
        "messages[0].toolCalls[1].id",
        "duplicate",
    ),
    (
        "ag-ui",
        _run(
            {"id": "a", "role": "assistant", "toolCalls": [_CALL]},
            {"id": "t", "role": "tool", "toolCallId": "c1", "content": "1"},
            {"id": "t2", "role": "tool", "toolCallId": "c1", "content": "2"},
        ),
        "messages[2].toolCallId",
        "duplicate",
    ),
    (
        "ag-ui",
        _run(
            {
                "id": "u",
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "data", "value": "!!", "mimeType": "image/png"},
                    }
                ],
            }
        ),
        "messages[0].content[0].source.value",
        "base64",
    ),
]


@pytest.mark.parametrize(("format", "body", "path", "kind"), MALFORMED)
def test_a_malformed_body_is_a_400_naming_the_place(
    format: str, body: Any, path: str, kind: str
) -> None:
    with pytest.raises(BadRequest) as caught:
        read_request(body, format=format)
    error = caught.value
    assert error.status_code == 400
    assert isinstance(error, ValueError)
    assert any((e["path"], e["type"]) == (path, kind) for e in error.errors), error.errors
    assert str(error) == error.detail and "\n" not in str(error)


def test_a_body_over_the_limit_is_a_413() -> None:
    with pytest.raises(BadRequest) as caught:
        read_request(b" " * 101, max_bytes=100)
    assert caught.value.status_code == 413


def test_an_unknown_format_or_provider_is_the_callers_error() -> None:
    with pytest.raises(ValueError, match="unknown request format 'x'") as caught:
        read_request({}, format="x")
    assert not isinstance(caught.value, BadRequest)
    with pytest.raises(ValueError, match="unknown provider 'mistral'"):
        read_request(ai_sdk_body()).to_messages("mistral")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_KEYS = st.sampled_from(
    [
        "id",
        "role",
        "parts",
        "type",
        "state",
        "input",
        "output",
        "toolCallId",
        "approval",
        "errorText",
        "messages",
        "content",
        "toolCalls",
        "text",
        "threadId",
        "runId",
    ]
)


@st.composite
def _mutated(draw: st.DrawFn) -> tuple[str, Any]:
    """A valid body of either format with one to three random edits deep inside."""
    format = draw(st.sampled_from(["ai-sdk", "ag-ui"]))
    body: Any = copy.deepcopy(BODIES[format]())
    for _ in range(draw(st.integers(1, 3))):
        node = body
        while True:
            if isinstance(node, dict) and node:
                key = draw(st.sampled_from(sorted(node)))
            elif isinstance(node, list) and node:
                key = draw(st.integers(0, len(node) - 1))
            else:
                break
            if not draw(st.booleans()) or not isinstance(node[key], (dict, list)):
                action = draw(st.sampled_from(["replace", "delete", "add"]))
                if action == "replace":
                    node[key] = draw(_JSON)
                elif action == "delete" and isinstance(node, dict):
                    del node[key]
                elif isinstance(node, dict):
                    node[draw(_KEYS)] = draw(_JSON)
                break
            node = node[key]
    return format, body


@settings(max_examples=examples(150), deadline=None)
@given(_mutated())
def test_any_body_is_read_or_refused_with_a_bad_request(case: tuple[str, Any]) -> None:
    format, body = case
    for given_body in (body, json.dumps(body).encode()):
        try:
            chat = read_request(given_body, format=format)
        except BadRequest as exc:
            assert exc.status_code == 400 and exc.errors
            continue
        for provider in PROVIDERS:
            try:
                chat.to_messages(provider)
            except BadRequest as exc:  # a file the provider cannot take
                assert exc.status_code == 415


# ------------------------------------------------------------------- Starlette and FastAPI


def _starlette_app(handlers: bool) -> Starlette:
    async def chat(request: Request) -> Response:
        parsed = read_request(await request.body(), format="ai-sdk")
        return JSONResponse({"turns": len(parsed.turns)})

    extra = {BadRequest: bad_request_handler} if handlers else {}
    return Starlette(routes=[Route("/chat", chat, methods=["POST"])], exception_handlers=extra)


def _fastapi_app(handlers: bool) -> FastAPI:
    app = FastAPI()

    @app.post("/chat")
    async def chat(request: FastApiRequest) -> dict[str, int]:
        parsed = read_request(await request.body(), format="ai-sdk")
        return {"turns": len(parsed.turns)}

    if handlers:
        app.add_exception_handler(BadRequest, bad_request_handler)
    return app


BAD = _ui({"type": "tool-f", "toolCallId": "c", "state": "input-available"})
BAD_MESSAGE = "invalid ai-sdk request: messages[0].parts[0].input: Field required"


@pytest.mark.parametrize("framework", ["starlette", "fastapi"])
def test_a_framework_answers_a_bad_request_with_a_400_by_itself(framework: str) -> None:
    app = _starlette_app(False) if framework == "starlette" else _fastapi_app(False)
    with TestClient(app, raise_server_exceptions=False) as client:
        ok = client.post("/chat", json=ai_sdk_body())
        bad = client.post("/chat", json=BAD)
        broken = client.post("/chat", content=b"{nope")
    assert (ok.status_code, ok.json()) == (200, {"turns": 4})
    assert bad.status_code == 400 and broken.status_code == 400
    if framework == "fastapi":
        assert bad.json() == {"detail": BAD_MESSAGE}
    else:
        assert bad.text == BAD_MESSAGE


@pytest.mark.parametrize("framework", ["starlette", "fastapi"])
def test_the_handler_answers_with_every_error_as_json(framework: str) -> None:
    app = _starlette_app(True) if framework == "starlette" else _fastapi_app(True)
    with TestClient(app, raise_server_exceptions=False) as client:
        bad = client.post("/chat", json=BAD)
    assert bad.status_code == 400
    assert bad.json() == {
        "error": "bad_request",
        "message": BAD_MESSAGE,
        "errors": [
            {"path": "messages[0].parts[0].input", "message": "Field required", "type": "missing"}
        ],
    }


def test_sealed_reasoning_goes_back_to_the_providers_that_sealed_it() -> None:
    """A reasoning part the "ai-sdk" format sealed (its providerMetadata) goes back to
    Anthropic and Bedrock as their thinking blocks, before the step's text and calls; the
    other providers get no reasoning."""
    chat = read_request(json.dumps(ai_sdk_body()).encode(), format="ai-sdk")
    step = chat.turns[2].steps[0]  # type: ignore[union-attr]
    assert [(text, seal.signature, seal.redacted) for text, seal in step.sealed] == [
        ("The user wants the weather.", SIGNATURE, None),
        ("", None, REDACTED),
    ]
    anthropic = next(m for m in chat.to_messages("anthropic") if m["role"] == "assistant")
    assert anthropic["content"][:3] == [
        {"type": "thinking", "thinking": "The user wants the weather.", "signature": SIGNATURE},
        {"type": "redacted_thinking", "data": REDACTED},
        {"type": "text", "text": "Checking both ways."},
    ]
    bedrock = next(m for m in chat.to_messages("bedrock") if m["role"] == "assistant")
    assert bedrock["content"][:2] == [
        {
            "reasoningContent": {
                "reasoningText": {"text": "The user wants the weather.", "signature": SIGNATURE}
            }
        },
        {"reasoningContent": {"redactedContent": b"encrypted"}},
    ]
    for provider in ("openai", "openai_responses", "gemini", "ollama"):
        assert "The user wants" not in json.dumps(chat.to_messages(provider), default=str)

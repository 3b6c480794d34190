"""from_gemini over the real google-genai SDK, over real HTTP, against Gemini's wire format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from google import genai
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_profiles import examples
from tests.support.replay import ReplayServer, Reply, acollect, chunkings, collect
from tests.support.replay.gemini_wire import COUNTED, call, chunk, gemini_sse, text, thought
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Citation,
    Diagnostic,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
)
from unspool.sources.providers._gemini import GeminiDecoder as _GeminiDecoder
from unspool.sources.providers._gemini import from_gemini as _from_gemini
from unspool.sources.providers._partial_args import PathWriter, parse_path, scalar

MODEL = "gemini-2.5-flash"
CUT = ({"message": "the stream was cut off inside this tool call"},)


def from_gemini(stream: Any, **options: Any) -> Any:
    """``from_gemini`` with the fixed stream id the expected events use."""
    return _from_gemini(stream, stream_id="stream", **options)


def GeminiDecoder(**options: Any) -> _GeminiDecoder:
    return _GeminiDecoder(stream_id="stream", **options)


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def client(server: ReplayServer, vertex: bool = False) -> genai.Client:
    """A client for the replay server; keep it referenced while its stream is read (the
    SDK closes its HTTP client when the ``Client`` is garbage-collected)."""
    options: dict[str, Any] = {"base_url": server.url}
    if vertex:  # Vertex AI express mode: an API key, no Google credentials
        return genai.Client(vertexai=True, api_key="test-key", http_options=options)
    return genai.Client(api_key="test-key", http_options=options)


TOOLS_BODY = gemini_sse(
    [
        chunk(thought("The user wants "), thought("the weather.")),
        chunk(text("Checking Paris — "), text("and 東京 🌦.")),
        chunk(call("get_weather", {"city": "Paris", "unit": "c"}, id="fc-1")),
        chunk(call("get_weather", {"city": "東京", "days": [1, 2]}), finish="STOP"),
    ]
)
W1 = {"city": "Paris", "unit": "c"}
W2 = {"city": "東京", "days": [1, 2]}
TOOLS = [
    ReasoningDelta("The user wants "),
    ReasoningDelta("the weather."),
    TextDelta("Checking Paris — "),
    TextDelta("and 東京 🌦."),
    ActionStarted("stream:0", 0, "get_weather", "fc-1"),
    ActionArgsDelta("stream:0", 0, W1, json.dumps(W1)),
    ActionComplete("stream:0", 0, "get_weather", W1, "fc-1"),
    ActionStarted("stream:1", 1, "get_weather"),
    ActionArgsDelta("stream:1", 1, W2, json.dumps(W2, ensure_ascii=False)),
    ActionComplete("stream:1", 1, "get_weather", W2),
    COUNTED,
    StreamDone("complete", 2, 0, 26),
]

# Vertex AI streams a call's arguments by JSON path (stream_function_call_arguments).
STREAMED_BODY = gemini_sse(
    [
        chunk(text("Writing.")),
        chunk(call("write_file", willContinue=True)),
        chunk(
            call(
                None,
                partialArgs=[
                    {"jsonPath": "$.path", "stringValue": "nötes.txt"},
                    {"jsonPath": "$.content", "stringValue": "Dear ", "willContinue": True},
                ],
                willContinue=True,
            )
        ),
        chunk(
            call(
                None,
                partialArgs=[{"jsonPath": "$.content", "stringValue": "diäry 🌸"}],
                willContinue=True,
            )
        ),
        chunk(
            call(
                None,
                partialArgs=[
                    {"jsonPath": "$.tags[0]", "stringValue": "a"},
                    {"jsonPath": "$.meta.size", "numberValue": 12},
                    {"jsonPath": "$.meta.draft", "boolValue": True},
                    {"jsonPath": "$.meta['x y']", "nullValue": "NULL_VALUE"},
                ],
                willContinue=True,
            )
        ),
        chunk(call(None)),
        chunk(text(" Done."), finish="STOP"),
    ]
)
FILE = {
    "path": "nötes.txt",
    "content": "Dear diäry 🌸",
    "tags": ["a"],
    "meta": {"size": 12, "draft": True, "x y": None},
}


@pytest.mark.parametrize("how", ["whole", "every-7-bytes", "inside-utf8"])
def test_generate_content_stream_sync(server: ReplayServer, how: str) -> None:
    server.play(Reply(chunkings(TOOLS_BODY)[how]))
    gemini = client(server)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="weather?")
    assert collect(from_gemini(stream)) == TOOLS
    method, path, body = server.requests[-1]
    assert (method, path) == ("POST", f"/v1/models/{MODEL}:streamGenerateContent?alt=sse")
    assert body["contents"] == [{"parts": [{"text": "weather?"}], "role": "user"}]


@pytest.mark.parametrize("how", ["whole", "every-7-bytes", "inside-utf8"])
async def test_generate_content_stream_async(server: ReplayServer, how: str) -> None:
    server.play(Reply(chunkings(TOOLS_BODY)[how]))
    gemini = client(server)
    stream = await gemini.aio.models.generate_content_stream(model=MODEL, contents="weather?")
    assert await acollect(from_gemini(stream)) == TOOLS


def test_byte_by_byte(server: ReplayServer) -> None:
    server.play(Reply([TOOLS_BODY[i : i + 1] for i in range(len(TOOLS_BODY))]))
    gemini = client(server)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    assert collect(from_gemini(stream)) == TOOLS


@pytest.mark.parametrize("how", ["whole", "inside-utf8"])
def test_vertex_streamed_function_call_arguments(server: ReplayServer, how: str) -> None:
    server.play(Reply(chunkings(STREAMED_BODY)[how]))
    gemini = client(server, vertex=True)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    events = collect(from_gemini(stream))
    assert server.requests[-1][1].endswith(f"/models/{MODEL}:streamGenerateContent?alt=sse")
    deltas = [e for e in events if isinstance(e, ActionArgsDelta)]
    assert json.loads("".join(d.delta or "" for d in deltas)) == FILE
    assert deltas[-1].partial == FILE
    assert [d.delta for d in deltas] == [  # one piece per partial argument
        "{",
        '"path":"nötes.txt"',
        ',"content":"Dear ',
        'diäry 🌸"',
        ',"tags":["a"',
        '],"meta":{"size":12',
        ',"draft":true',
        ',"x y":null',
        "}}",
    ]
    assert events[0] == TextDelta("Writing.")
    assert events[1] == ActionStarted("stream:0", 0, "write_file")
    assert events[-4:] == [
        ActionComplete("stream:0", 0, "write_file", FILE),
        TextDelta(" Done."),
        COUNTED,
        StreamDone("complete", 1, 0, 14),
    ]


def test_max_tokens_inside_a_streamed_call_is_truncation(server: ReplayServer) -> None:
    body = gemini_sse(
        [
            chunk(call("write_file", willContinue=True)),
            chunk(
                call(
                    None,
                    partialArgs=[
                        {"jsonPath": "$.content", "stringValue": "Once upön", "willContinue": True}
                    ],
                    willContinue=True,
                ),
                finish="MAX_TOKENS",
            ),
        ]
    )
    server.play(Reply(chunkings(body)["inside-utf8"]))
    gemini = client(server, vertex=True)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    events = collect(from_gemini(stream))
    raw = '{"content":"Once upön'
    assert events[-3:] == [
        ActionInvalid("stream:0", 0, "write_file", "truncated", CUT, raw),
        COUNTED,
        StreamDone("truncated", 0, 1, 0),
    ]


@pytest.mark.parametrize("reason", ["SAFETY", "RECITATION", "PROHIBITED_CONTENT"])
def test_filters_are_reported_and_truncate(server: ReplayServer, reason: str) -> None:
    body = gemini_sse([chunk(text("Once upon a time, ")), chunk(text(""), finish=reason)])
    server.play(Reply([body]))
    gemini = client(server)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    assert collect(from_gemini(stream)) == [
        TextDelta("Once upon a time, "),
        Diagnostic("content_filter", f"Gemini stopped the output: {reason}", text=reason),
        COUNTED,
        StreamDone("truncated", 0, 0, 18),
    ]


def test_blocked_prompt_and_other_endings() -> None:
    events = collect(
        from_gemini([{"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": MODEL}])
    )
    assert events == [
        Diagnostic("content_filter", "the prompt was blocked (SAFETY)", text="SAFETY"),
        StreamDone("truncated", 0, 0, 0),
    ]
    events = collect(
        from_gemini(
            [
                chunk(call("f", {"a": 1})),
                chunk(finish="MALFORMED_FUNCTION_CALL", finishMessage="bad call"),
            ]
        )
    )
    assert events[-3:] == [
        Diagnostic(
            "finish_reason",
            "finish reason 'MALFORMED_FUNCTION_CALL': bad call",
            text="MALFORMED_FUNCTION_CALL",
        ),
        COUNTED,
        StreamDone("complete", 1, 0, 0),
    ]


def test_citations_code_execution_and_other_candidates(server: ReplayServer) -> None:
    cited = {"citationSources": [{"startIndex": 7, "endIndex": 14, "uri": "https://ex.org/a"}]}
    other = {"candidates": [{"index": 1, "content": {"parts": [text("other")], "role": "model"}}]}
    body = gemini_sse(
        [
            chunk(text("Héllo, wörld!")),
            other,
            chunk({"executableCode": {"language": "PYTHON", "code": "print(1)"}}),
            chunk({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}}),
            chunk(text(" Bye."), finish="STOP", citationMetadata=cited),
            chunk(text(""), finish="STOP", citationMetadata=cited),  # repeated: one Citation
        ]
    )
    server.play(Reply([body]))
    gemini = client(server)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    events = collect(from_gemini(stream))
    citation = events[6]
    assert isinstance(citation, Citation)
    assert events == [
        TextDelta("Héllo, wörld!"),
        Diagnostic("ignored_choice", "candidate 1 is ignored: following candidate 0"),
        HostedToolStarted("stream/hosted:0", "code_execution", None, "executable_code"),
        HostedToolInput(
            "stream/hosted:0", "code_execution", {"language": "PYTHON", "code": "print(1)"}
        ),
        HostedToolResult(
            "stream/hosted:0",
            "code_execution",
            {"outcome": "OUTCOME_OK", "output": "1"},
            None,
            "code_execution_result",
        ),
        TextDelta(" Bye."),
        Citation("citation", url="https://ex.org/a", start=6, end=12, raw=citation.raw),
        COUNTED,
        StreamDone("complete", 0, 0, 18),
    ]
    # Gemini counts UTF-8 bytes: bytes 7..14 are characters 6..12
    assert "Héllo, wörld! Bye."[6:12] == " wörld"
    assert citation.raw["uri"] == "https://ex.org/a"


def test_connection_dropped_mid_stream(server: ReplayServer) -> None:
    server.play(Reply([TOOLS_BODY[: TOOLS_BODY.index(b"data: ", 10)]], end="drop"))
    gemini = client(server)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    events = collect(from_gemini(stream))
    assert events[:2] == TOOLS[:2]
    assert isinstance(events[2], StreamError)
    assert events[3:] == [COUNTED, StreamDone("error", 0, 0, 0)]


def test_partial_args_out_of_order_end_the_call_invalid() -> None:
    decoder = GeminiDecoder()
    events = decoder.feed(chunk(call("f", willContinue=True)))
    partial = [
        {"jsonPath": "$.a.b", "numberValue": 1},
        {"jsonPath": "$.c", "numberValue": 2},
        {"jsonPath": "$.a.d", "numberValue": 3},
    ]
    events += decoder.feed(chunk(call(None, partialArgs=partial, willContinue=True)))
    events += decoder.feed(chunk(call(None), finish="STOP"))
    events += decoder.finish()
    kinds = [type(e).__name__ for e in events]
    assert kinds[-4:] == ["Diagnostic", "ActionInvalid", "Usage", "StreamDone"]
    note, invalid = events[-4], events[-3]
    assert isinstance(note, Diagnostic) and note.kind == "partial_args"
    assert "after its container was closed" in note.message
    assert isinstance(invalid, ActionInvalid) and invalid.reason == "malformed_json"


# ------------------------------------------------------------------ the JSON-path writer

_keys = st.text(st.characters(codec="utf-8", exclude_characters="'\\"), min_size=1, max_size=5)
_leaves = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8)
_values = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(_keys, inner, min_size=1, max_size=3)
    ),
    max_leaves=8,
)


def _entries(value: Any, path: str, out: list[tuple[str, Any]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _entries(item, f"{path}['{key}']", out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _entries(item, f"{path}[{i}]", out)
    else:
        out.append((path, value))


@settings(max_examples=examples(80), deadline=None)
@given(st.dictionaries(_keys, _values, min_size=1, max_size=4), st.integers(1, 4))
def test_path_writer_rebuilds_any_object_in_document_order(
    value: dict[str, Any], size: int
) -> None:
    entries: list[tuple[str, Any]] = []
    _entries(value, "$", entries)
    writer = PathWriter()
    text_out = writer.start()
    for path, leaf in entries:
        segments = parse_path(path)
        if isinstance(leaf, str):
            pieces = [leaf[i : i + size] for i in range(0, len(leaf), size)] or [""]
            for i, piece in enumerate(pieces):
                text_out += writer.string(segments, piece, i < len(pieces) - 1)
        else:
            text_out += writer.value(segments, "null" if leaf is None else scalar(leaf))
    text_out += writer.close()
    assert json.loads(text_out) == value


def test_recognise(server: ReplayServer) -> None:
    from unspool.sources.providers._gemini import recognise

    server.play(Reply([TOOLS_BODY]))
    gemini = client(server)
    chunks = list(gemini.models.generate_content_stream(model=MODEL, contents="x"))
    assert all(recognise(c) for c in chunks)
    assert recognise({"promptFeedback": {"blockReason": "SAFETY"}})
    assert recognise({"usageMetadata": {"totalTokenCount": 3}, "modelVersion": MODEL})
    assert not recognise({"choices": [], "candidates": []})
    assert not recognise({"type": "message_start"})


def test_thought_signature_is_kept_on_the_call(server: ReplayServer) -> None:
    signed = {**call("f", {"a": 1}, id="fc-9"), "thoughtSignature": "c2lnbmF0dXJl"}
    server.play(Reply([gemini_sse([chunk(signed, finish="STOP")])]))
    gemini = client(server)
    stream = gemini.models.generate_content_stream(model=MODEL, contents="x")
    events = collect(from_gemini(stream))
    signature = {"thought_signature": "c2lnbmF0dXJl"}  # the SDK's bytes, as base64 again
    assert events[0] == ActionStarted("stream:0", 0, "f", "fc-9", signature)
    assert events[2] == ActionComplete("stream:0", 0, "f", {"a": 1}, "fc-9", signature)

"""from_bedrock over real boto3, over real HTTP, with the AWS event-stream framing written
by the test server (prelude, headers, CRCs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from tests.support.replay import ReplayServer, Reply, collect, pieces_of
from tests.support.replay.bedrock_wire import (
    CONTENT_TYPE,
    converse_events,
    encode_message,
    event_stream,
    exception,
)
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Citation,
    Diagnostic,
    ReasoningDelta,
    ReasoningSignature,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)
from unspool.sources.providers._bedrock import BedrockDecoder as _BedrockDecoder
from unspool.sources.providers._bedrock import bedrock_stream
from unspool.sources.providers._bedrock import from_bedrock as _from_bedrock

MESSAGES = [{"role": "user", "content": [{"text": "weather?"}]}]
CUT = ({"message": "the stream was cut off inside this tool call"},)
USAGE = Usage(30, 12, 42, raw={"inputTokens": 30, "outputTokens": 12, "totalTokens": 42})
"""What ``converse_events``' ``metadata`` event counts."""


def from_bedrock(stream: Any, **options: Any) -> Any:
    """``from_bedrock`` with the fixed stream id the expected events use."""
    return _from_bedrock(stream, stream_id="stream", **options)


def BedrockDecoder(**options: Any) -> _BedrockDecoder:
    return _BedrockDecoder(stream_id="stream", **options)


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


@pytest.fixture(autouse=True)
def fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials, so boto3 signs requests without looking anywhere else."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def client(server: ReplayServer) -> Any:
    return boto3.client("bedrock-runtime", endpoint_url=server.url)


def converse(server: ReplayServer, pieces: list[bytes]) -> Any:
    server.play(Reply(pieces, content_type=CONTENT_TYPE))
    return client(server).converse_stream(modelId="anthropic.claude-sonnet-4", messages=MESSAGES)


TOOLS_BODY = event_stream(
    converse_events(
        [
            ("reasoning", ["The user wants ", "the weather."]),
            ("text", ["Checking Paris — ", "and 東京 🌦."]),
            ("tool", ("tooluse_A1", "get_weather", ['{"city": ', '"Paris"}'])),
            ("tool", ("tooluse_B2", "get_forecast", ['{"city": "東京",', ' "days": [1, 2]}'])),
        ],
        "tool_use",
    )
)
F2 = {"city": "東京", "days": [1, 2]}
TOOLS = [
    ReasoningDelta("The user wants "),
    ReasoningDelta("the weather."),
    ReasoningSignature("bedrock", "c2lnbmF0dXJl"),
    TextDelta("Checking Paris — "),
    TextDelta("and 東京 🌦."),
    ActionStarted("stream:0", 0, "get_weather", "tooluse_A1"),
    ActionArgsDelta("stream:0", 0, {}, '{"city": '),
    ActionArgsDelta("stream:0", 0, {"city": "Paris"}, '"Paris"}'),
    ActionComplete("stream:0", 0, "get_weather", {"city": "Paris"}, "tooluse_A1"),
    ActionStarted("stream:1", 1, "get_forecast", "tooluse_B2"),
    ActionArgsDelta("stream:1", 1, {"city": "東京"}, '{"city": "東京",'),
    ActionArgsDelta("stream:1", 1, F2, ' "days": [1, 2]}'),
    ActionComplete("stream:1", 1, "get_forecast", F2, "tooluse_B2"),
    USAGE,
    StreamDone("complete", 2, 0, 26),
]


def cuts(body: bytes) -> dict[str, list[bytes]]:
    inside = [i + 1 for i, byte in enumerate(body) if byte >= 0xC0]
    return {
        "whole": [body],
        "byte-by-byte": pieces_of(body, 1),
        "inside-utf8": pieces_of(body, cuts=inside),
    }


@pytest.mark.parametrize("how", ["whole", "byte-by-byte", "inside-utf8"])
def test_converse_stream(server: ReplayServer, how: str) -> None:
    response = converse(server, cuts(TOOLS_BODY)[how])
    assert collect(from_bedrock(response)) == TOOLS
    method, path, body = server.requests[-1]
    assert (method, path) == ("POST", "/model/anthropic.claude-sonnet-4/converse-stream")
    assert body == {"messages": MESSAGES}


def test_the_event_stream_itself_and_bedrock_stream(server: ReplayServer) -> None:
    response = converse(server, [TOOLS_BODY])
    assert bedrock_stream(response).stream is response["stream"]
    assert collect(from_bedrock(response["stream"])) == TOOLS


def test_max_tokens_inside_a_tool_call_is_truncation(server: ReplayServer) -> None:
    body = event_stream(
        converse_events(
            [
                ("text", ["Here is the file:"]),
                (
                    "tool",
                    ("tooluse_C3", "write_file", ['{"path": "b.txt", ', '"content": "Once upön']),
                ),
            ],
            "max_tokens",
        )
    )
    events = collect(from_bedrock(converse(server, cuts(body)["inside-utf8"])))
    raw = '{"path": "b.txt", "content": "Once upön'
    assert events[-3:] == [
        ActionInvalid("stream:0", 0, "write_file", "truncated", CUT, raw, "tooluse_C3"),
        USAGE,
        StreamDone("truncated", 0, 1, 17),
    ]


@pytest.mark.parametrize("reason", ["guardrail_intervened", "content_filtered"])
def test_filters_are_reported_and_truncate(server: ReplayServer, reason: str) -> None:
    body = event_stream(converse_events([("text", ["Once upon"])], reason))
    assert collect(from_bedrock(converse(server, [body]))) == [
        TextDelta("Once upon"),
        Diagnostic("content_filter", f"Bedrock stopped the output: {reason}", text=reason),
        USAGE,
        StreamDone("truncated", 0, 0, 9),
    ]


@pytest.mark.parametrize("reason", ["malformed_tool_use", "malformed_model_output"])
def test_malformed_output_is_reported_and_an_open_call_never_completes(
    server: ReplayServer, reason: str
) -> None:
    body = event_stream(
        converse_events(
            [("text", ["Saving."]), ("tool", ("tooluse_M1", "write_file", ['{"path": "a.txt"']))],
            reason,
        )
    )
    events = collect(from_bedrock(converse(server, [body])))
    message = f"Bedrock could not use the model's output: {reason}"
    assert events[-4:] == [
        Diagnostic("malformed_output", message, text=reason),
        ActionInvalid(
            "stream:0", 0, "write_file", "truncated", CUT, '{"path": "a.txt"', "tooluse_M1"
        ),
        USAGE,
        StreamDone("truncated", 0, 1, 7),
    ]


def test_exception_event_mid_stream(server: ReplayServer) -> None:
    events = converse_events([("text", ["Partial ", "answer"])])
    body = event_stream(events[:3]) + exception("modelStreamErrorException", "the model broke")
    result = collect(from_bedrock(converse(server, pieces_of(body, 5))))
    assert result[:2] == [TextDelta("Partial "), TextDelta("answer")]
    assert isinstance(result[2], StreamError)
    assert "the model broke" in result[2].message
    assert result[3] == StreamDone("error", 0, 0, 14)


def test_corrupted_frame_is_a_stream_error(server: ReplayServer) -> None:
    good = encode_message(
        {
            ":event-type": "contentBlockDelta",
            ":content-type": "application/json",
            ":message-type": "event",
        },
        b'{"contentBlockIndex": 0, "delta": {"text": "ok"}}',
    )
    bad = bytearray(good)
    bad[-6] ^= 0xFF  # a payload byte: the message CRC no longer matches
    result = collect(from_bedrock(converse(server, [good, bytes(bad)])))
    assert result[0] == TextDelta("ok")
    assert isinstance(result[1], StreamError) and result[1].error_type == "ChecksumMismatch"
    assert result[2] == StreamDone("error", 0, 0, 2)


def test_decoder_citations_redacted_reasoning_and_unknown_deltas() -> None:
    decoder = BedrockDecoder()
    citation = {
        "title": "Doc",
        "sourceContent": [{"text": "quoted"}],
        "location": {"web": {"url": "https://ex.org", "domain": "ex.org"}},
    }
    events = decoder.feed({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}})
    events += decoder.feed(
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": citation}}}
    )
    events += decoder.feed(
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"reasoningContent": {"redactedContent": "eA=="}},
            }
        }
    )
    events += decoder.feed({"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"image": {}}}})
    events += decoder.feed({"contentBlockStart": {"contentBlockIndex": 4, "start": {"video": {}}}})
    events += decoder.feed(
        {"contentBlockDelta": {"contentBlockIndex": 3, "delta": {"toolUse": {"input": "{}"}}}}
    )
    events += decoder.feed({"messageStop": {"stopReason": "end_turn"}})
    events += decoder.finish()
    assert events == [
        TextDelta("Hi"),
        Citation("citation", url="https://ex.org", title="Doc", cited_text="quoted", raw=citation),
        ReasoningSignature("bedrock", redacted="eA=="),  # sent back, never shown
        Diagnostic("image", "content delta of type 'image' has no event: ignored", text="image"),
        Diagnostic("video", "content block of type 'video' has no event: ignored", text="video"),
        Diagnostic(
            "orphan_tool_delta",
            "tool input for content block 3, which is not a tool call",
            text="{}",
        ),
        StreamDone("complete", 0, 0, 2),
    ]


def test_recognise_and_unwrap(server: ReplayServer) -> None:
    from unspool.sources.providers._bedrock import recognise, unwrap

    response = converse(server, [TOOLS_BODY])
    assert unwrap(response).stream is response["stream"]
    assert unwrap({"stream": 1}) is None and unwrap([1]) is None
    items = list(response["stream"])
    assert all(recognise(item) for item in items)
    assert not recognise({"choices": []}) and not recognise({"type": "message_start"})
    assert not recognise({"messageStart": {}, "x": 1})


async def test_an_async_stream_of_events() -> None:
    from tests.support.replay import acollect

    async def events() -> Any:
        for name, members in converse_events([("text", ["Hé"])]):
            yield {name: members}

    assert await acollect(from_bedrock(events())) == [
        TextDelta("Hé"),
        USAGE,
        StreamDone("complete", 0, 0, 2),
    ]

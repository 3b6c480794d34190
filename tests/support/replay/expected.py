"""The exact events expected from each recorded stream of ``tests/support/fixtures/providers``."""

from __future__ import annotations

from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Event,
    ReasoningDelta,
    ReasoningSignature,
    StreamDone,
    TextDelta,
    Usage,
)

CUT = ({"message": "the stream was cut off inside this tool call"},)
ANTHROPIC_STARTED = Usage(25, 1, 26, raw={"input_tokens": 25, "output_tokens": 1})
"""The usage of an Anthropic stream of ``anthropic_events`` cut before its message_delta."""
ANTHROPIC_USAGE = Usage(25, 42, 67, raw={"input_tokens": 25, "output_tokens": 42})
"""... and of a whole one."""


def started(i: int, name: str, call_id: str) -> ActionStarted:
    return ActionStarted(f"stream:{i}", i, name, call_id)


def delta(i: int, partial: object, text: str) -> ActionArgsDelta:
    return ActionArgsDelta(f"stream:{i}", i, partial, text)


def complete(i: int, name: str, args: object, call_id: str) -> ActionComplete:
    return ActionComplete(f"stream:{i}", i, name, args, call_id)


CHAT_TEXT: list[Event] = [
    TextDelta("Hello"),
    TextDelta(", wörld"),
    TextDelta("! 👋🏽"),
    TextDelta(" naïve café"),
    StreamDone("complete", 0, 0, 27),
]
W1 = {"city": "Paris", "unit": "c"}
W2 = {"city": "東京 🌸", "unit": "c"}
CHAT_TOOLS: list[Event] = [
    TextDelta("Checking "),
    TextDelta("both cities."),
    started(0, "get_weather", "call_w1"),
    delta(0, {}, '{"ci'),
    delta(0, {"city": "Pa"}, 'ty": "Pa'),
    delta(0, {"city": "Paris"}, 'ris", "unit": '),
    delta(0, W1, '"c"}'),
    complete(0, "get_weather", W1, "call_w1"),
    started(1, "get_weather", "call_w2"),
    delta(1, {"city": "東"}, '{"city": "東'),
    delta(1, {"city": "東京 🌸"}, '京 🌸", "unit"'),
    delta(1, W2, ': "c"}'),
    complete(1, "get_weather", W2, "call_w2"),
    started(2, "get_time", "call_t3"),
    delta(2, {"tz": "Asia/Tokyo"}, '{"tz": "Asia/Tokyo"}'),
    complete(2, "get_time", {"tz": "Asia/Tokyo"}, "call_t3"),
    StreamDone("complete", 3, 0, 21),
]
FILE_RAW = '{"path": "notes.txt", "content": "Dear diäry, today I'
CHAT_LENGTH: list[Event] = [
    TextDelta("Writing the file."),
    started(0, "write_file", "call_f1"),
    delta(0, {"path": "notes.txt"}, '{"path": "notes.txt", '),
    delta(0, {"path": "notes.txt", "content": "Dear diäry, to"}, '"content": "Dear diäry, to'),
    delta(0, {"path": "notes.txt", "content": "Dear diäry, today I"}, "day I"),
    ActionInvalid("stream:0", 0, "write_file", "truncated", CUT, FILE_RAW, "call_f1"),
    StreamDone("truncated", 0, 1, 17),
]
RESPONSES_TOOLS: list[Event] = [
    ReasoningDelta("Need the "),
    ReasoningDelta("weather."),
    TextDelta("Let me "),
    TextDelta("check — "),
    TextDelta("☀️?"),
    started(0, "get_weather", "call_r1"),
    delta(0, {}, '{"city": '),
    delta(0, {"city": "Paris"}, '"Paris"}'),
    complete(0, "get_weather", {"city": "Paris"}, "call_r1"),
    started(1, "get_time", "call_r2"),
    delta(1, {"tz": "Europe/"}, '{"tz": "Europe/'),
    delta(1, {"tz": "Europe/Paris"}, 'Paris"}'),
    complete(1, "get_time", {"tz": "Europe/Paris"}, "call_r2"),
    StreamDone("complete", 2, 0, 18),
]
RESPONSES_INCOMPLETE: list[Event] = [
    TextDelta("Sure: "),
    started(0, "write_file", "call_r3"),
    delta(0, {"path": "a.txt"}, '{"path": "a.txt", '),
    delta(0, {"path": "a.txt", "content": "lörem ip"}, '"content": "lörem ip'),
    ActionInvalid(
        "stream:0",
        0,
        "write_file",
        "truncated",
        CUT,
        '{"path": "a.txt", "content": "lörem ip',
        "call_r3",
    ),
    StreamDone("truncated", 0, 1, 6),
]

CHAT = {
    "openai_chat_text.sse": CHAT_TEXT,
    "openai_chat_tools.sse": CHAT_TOOLS,
    "openai_chat_length.sse": CHAT_LENGTH,
}
RESPONSES = {
    "openai_responses_tools.sse": RESPONSES_TOOLS,
    "openai_responses_incomplete.sse": RESPONSES_INCOMPLETE,
}

ANTHROPIC_TOOLS: list[Event] = [
    ReasoningDelta("The user wants "),
    ReasoningDelta("the weather."),
    ReasoningSignature("anthropic", "EqQBCkYIBxgCKkBSig"),
    TextDelta("I'll check "),
    TextDelta("Paris — "),
    TextDelta("and 東京 🌦."),
    ActionStarted("stream:0", 0, "get_weather", "toolu_01A"),
    ActionArgsDelta("stream:0", 0, {}, '{"city": '),
    ActionArgsDelta("stream:0", 0, {"city": "Paris"}, '"Paris"}'),
    ActionComplete("stream:0", 0, "get_weather", {"city": "Paris"}, "toolu_01A"),
    ActionStarted("stream:1", 1, "get_forecast", "toolu_01B"),
    ActionArgsDelta("stream:1", 1, {"city": "東京"}, '{"city": "東京",'),
    ActionArgsDelta("stream:1", 1, {"city": "東京", "days": [1]}, ' "days": [1, 2'),
    ActionArgsDelta("stream:1", 1, {"city": "東京", "days": [1, 2, 3]}, ", 3]}"),
    ActionComplete("stream:1", 1, "get_forecast", {"city": "東京", "days": [1, 2, 3]}, "toolu_01B"),
    ANTHROPIC_USAGE,
    StreamDone("complete", 2, 0, 28),
]
ANTHROPIC_FILE_RAW = '{"path": "b.txt", "content": "Once upön a ti'
ANTHROPIC_MAX_TOKENS: list[Event] = [
    TextDelta("Here is the file:"),
    ActionStarted("stream:0", 0, "write_file", "toolu_01C"),
    ActionArgsDelta("stream:0", 0, {"path": "b.txt"}, '{"path": "b.txt", '),
    ActionArgsDelta(
        "stream:0", 0, {"path": "b.txt", "content": "Once upön a ti"}, '"content": "Once upön a ti'
    ),
    ActionInvalid("stream:0", 0, "write_file", "truncated", CUT, ANTHROPIC_FILE_RAW, "toolu_01C"),
    ANTHROPIC_USAGE,
    StreamDone("truncated", 0, 1, 17),
]

EXPECTED: dict[str, list[Event]] = {
    "openai_chat_text.sse": CHAT_TEXT,
    "openai_chat_tools.sse": CHAT_TOOLS,
    "openai_chat_length.sse": CHAT_LENGTH,
    "openai_responses_tools.sse": RESPONSES_TOOLS,
    "openai_responses_incomplete.sse": RESPONSES_INCOMPLETE,
    "anthropic_tools.sse": ANTHROPIC_TOOLS,
    "anthropic_max_tokens.sse": ANTHROPIC_MAX_TOKENS,
}

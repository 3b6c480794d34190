"""What was still dropped or misread (issue 25, item 4), in the shapes the services send:

* a router that sends each token in both ``choices[].text`` and ``delta.content``: the
  text once;
* Responses ``phase``: a ``commentary`` message is kept apart from the ``final_answer``;
* OpenRouter's encrypted ``reasoning_details``: reported as Anthropic's redacted reasoning;
  its readable details are reasoning, never doubled with ``delta.reasoning``;
* a ``moderation`` verdict beside ``choices``, and Groq's ``failed_generation``: reported.

Each as dicts, as SSE cut every few bytes, and through the real ``openai`` SDK over HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.support.replay import ReplayServer, Reply, collect, pieces_of
from tests.support.replay.wire import sse
from unspool.events import (
    Diagnostic,
    Event,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
)
from unspool.sources._payload import show
from unspool.sources._sse import SSEDecoder
from unspool.sources.providers._openai import OpenAIDecoder, from_openai

MESSAGES = [{"role": "user", "content": "?"}]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as s:
        yield s


def fed(payloads: list[dict[str, Any]]) -> list[Event]:
    decoder = OpenAIDecoder(stream_id="s")
    events: list[Event] = []
    for payload in payloads:
        events += collect(decoder.feed(json.loads(json.dumps(payload))))
    return events + decoder.finish()


def cut(body: bytes, size: int) -> list[Event]:
    decoder = OpenAIDecoder(stream_id="s")
    reader = SSEDecoder()
    events: list[Event] = []
    for piece in pieces_of(body, size):
        for message in reader.feed(piece):
            events += collect(decoder.feed(message))
    return events + decoder.finish()


def through_sdk(server: ReplayServer, payloads: list[dict[str, Any]], *, named: bool = False) -> list[Event]:  # fmt: skip
    server.play(Reply(pieces_of(sse(payloads, named=named, done=not named), 5)))
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    if named:
        stream: Any = client.responses.create(model="m", input="?", stream=True)
    else:
        stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    return collect(from_openai(stream, stream_id="s"))


def every_way(server: ReplayServer, payloads: list[dict[str, Any]], expected: list[Event], *, named: bool = False) -> None:  # fmt: skip
    assert fed(payloads) == expected
    body = sse(payloads, named=named, done=not named)
    for size in (1, 4, 9):
        assert cut(body, size) == expected
    assert through_sdk(server, payloads, named=named) == expected


def chat(choice: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if choice is None else [{"index": 0, "finish_reason": None, **choice}]
    head = {"id": "gen-1", "object": "chat.completion.chunk", "created": 1767225600}
    return {**head, "model": "m", "choices": choices, **extra}


# ------------------------------------------------------------------ text sent twice


def test_a_token_in_both_text_and_delta_content_is_read_once(server: ReplayServer) -> None:
    doubled = [
        chat({"delta": {"role": "assistant", "content": "Bon"}, "text": "Bon"}),
        chat({"delta": {"content": "jour à "}, "text": "jour à "}),
        chat({"delta": {"content": "tous"}, "text": "tous"}),
        chat({"delta": {}, "text": "", "finish_reason": "stop"}),
    ]
    note = "the text came twice (choices[].text and delta.content): read once"
    every_way(
        server,
        doubled,
        [
            TextDelta("Bon"),
            Diagnostic("duplicate_text", note, text="choices[].text"),
            TextDelta("jour à "),
            TextDelta("tous"),
            StreamDone("complete", 0, 0, 14),
        ],
    )


# ------------------------------------------------------------------ Responses phase


def responses(*messages: tuple[str, str, list[str]]) -> list[dict[str, Any]]:
    """A response of messages ``(id, phase, text pieces)``, one output item each."""
    base = {"id": "resp_p", "object": "response", "created_at": 1767225600, "model": "gpt-5.3-codex", "output": []}  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {**base, "status": "in_progress"}}]  # fmt: skip
    for index, (item_id, phase, pieces) in enumerate(messages):
        item = {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
            "phase": phase,
        }
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        part = {"type": "output_text", "text": "", "annotations": []}
        events.append(
            {
                "type": "response.content_part.added",
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "part": part,
            }
        )
        for piece in pieces:
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": index,
                    "content_index": 0,
                    "delta": piece,
                    "logprobs": [],
                }
            )
        whole = {**item, "status": "completed", "content": [{**part, "text": "".join(pieces)}]}
        events.append({"type": "response.output_item.done", "output_index": index, "item": whole})
    events.append({"type": "response.completed", "response": {**base, "status": "completed"}})
    return [{**e, "sequence_number": i} for i, e in enumerate(events)]


def test_commentary_is_kept_apart_from_the_final_answer(server: ReplayServer) -> None:
    stream = responses(
        ("msg_c", "commentary", ["Je lis ", "le fichier…"]),
        ("msg_f", "final_answer", ["Il fait ", "21 °C."]),
    )
    every_way(
        server,
        stream,
        [
            ReasoningDelta("Je lis "),
            ReasoningDelta("le fichier…"),
            TextDelta("Il fait "),
            TextDelta("21 °C."),
            StreamDone("complete", 0, 0, 14),
        ],
        named=True,
    )


# ------------------------------------------------------------------ OpenRouter reasoning details


def test_openrouter_encrypted_reasoning_is_reported_and_details_are_not_doubled(
    server: ReplayServer,
) -> None:
    said = {"type": "reasoning.text", "text": "Hmm, ", "format": "anthropic-claude-v1", "index": 0}  # fmt: skip
    alone = {"type": "reasoning.summary", "summary": "Compared two.", "format": "openai-responses-v1", "index": 1}  # fmt: skip
    secret = {"type": "reasoning.encrypted", "data": "gAAAAABo…", "format": "openai-responses-v1", "index": 2}  # fmt: skip
    stream = [
        chat(
            {
                "delta": {
                    "role": "assistant",
                    "content": "",
                    "reasoning": "Hmm, ",
                    "reasoning_details": [said],
                }
            }
        ),
        chat({"delta": {"content": "", "reasoning_details": [alone]}}),
        chat({"delta": {"content": "", "reasoning_details": [secret]}}),
        chat({"delta": {"content": "", "reasoning_details": [secret]}}),  # reported once
        chat({"delta": {"content": "Oui."}, "finish_reason": "stop"}),
    ]
    every_way(
        server,
        stream,
        [
            ReasoningDelta("Hmm, "),
            ReasoningDelta("Compared two."),
            Diagnostic(
                "redacted_thinking", "encrypted reasoning, not shown", text="reasoning.encrypted"
            ),
            TextDelta("Oui."),
            StreamDone("complete", 0, 0, 4),
        ],
    )


# ------------------------------------------------------------------ moderation, failed_generation


def result(flagged: bool) -> dict[str, Any]:
    return {
        "type": "moderation_result",
        "model": "omni-moderation-latest",
        "flagged": flagged,
        "categories": {"violence": flagged, "hate": False},
        "category_scores": {"violence": 0.91 if flagged else 0.01, "hate": 0.0},
        "category_applied_input_types": {"violence": ["text"], "hate": ["text"]},
    }


def moderation(flagged: bool) -> dict[str, Any]:
    """OpenAI's moderated completions: the verdict on input and output, a chunk of its own."""
    model = "omni-moderation-latest"
    return {
        "input": {"type": "moderation_results", "model": model, "results": [result(False)]},
        "output": {"type": "moderation_results", "model": model, "results": [result(flagged)]},
    }


def test_a_moderation_verdict_is_reported_when_it_changes(server: ReplayServer) -> None:
    verdict = moderation(True)
    stream = [
        chat({"delta": {"role": "assistant", "content": "Je "}}),
        chat(moderation=verdict),
        chat({"delta": {"content": "ne peux"}}, obfuscation="x7Q"),
        chat(moderation=verdict),  # the same verdict: said once
        chat({"delta": {"content": " pas."}, "finish_reason": "content_filter"}),
    ]
    every_way(
        server,
        stream,
        [
            TextDelta("Je "),
            Diagnostic(
                "moderation",
                "the provider's moderation: it flagged the output: violence",
                text=show(json.loads(json.dumps(verdict, sort_keys=True))),  # keys sorted
            ),
            TextDelta("ne peux"),
            TextDelta(" pas."),
            Diagnostic("content_filter", "the provider's content filter cut the output"),
            StreamDone("truncated", 0, 0, 15),
        ],
    )


FAILED = '<function=get_weather{"city": "Paris"}</function>'


def test_groq_failed_generation_is_reported_before_the_error(server: ReplayServer) -> None:
    message = "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details."  # fmt: skip
    error = {"message": message, "type": "invalid_request_error", "code": "tool_use_failed", "failed_generation": FAILED}  # fmt: skip
    stream = [chat({"delta": {"role": "assistant", "content": "Let me "}}), {"error": error}]
    expected = [
        TextDelta("Let me "),
        Diagnostic(
            "failed_generation",
            "the provider could not read the model's output as a tool call",
            text=FAILED,
        ),
        StreamError(message, "tool_use_failed"),
        StreamDone("error", 0, 0, 7),
    ]
    assert fed(stream) == expected
    for size in (1, 4, 9):
        assert cut(sse(stream, named=False), size) == expected
    events = through_sdk(server, stream)  # the SDK raises on the error object: its body
    assert events == [*expected[:2], StreamError(message, "APIError"), expected[-1]]

"""``from_openai``'s fast path for the common Chat chunk (a piece of text, a piece of the
open call's arguments) against the general reader: the same events for every chunk of
every recorded Chat stream, as dicts and as the SDK's objects (issue 25, item 6; the cost
is measured in ``bench/bench_providers.py``, never here)."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk

from tests.support.replay import collect, load
from tests.support.replay.fixtures import FIXTURES
from tests.support.replay.wire import Call, Text, chat_chunks
from unspool.events import Event
from unspool.sources._provider_decoder import ProviderDecoder
from unspool.sources._sse import SSEDecoder
from unspool.sources.providers._openai import OpenAIDecoder


def sdk(payload: dict[str, Any]) -> Any:
    """The SDK's object for a chunk, built as its stream builds it."""
    return construct_type(type_=ChatCompletionChunk, value=payload)


CHAT = sorted(p.name for p in FIXTURES.glob("openai_chat_*.sse"))


def payloads(name: str) -> list[dict[str, Any]]:
    reader = SSEDecoder()
    messages = [*reader.feed(load(name)), *reader.finish()]
    return [json.loads(m.data) for m in messages if m.data.strip() not in ("", "[DONE]")]


def decoded(items: list[Any], *, fast: bool) -> list[Event]:
    decoder = OpenAIDecoder(stream_id="s")
    feed = decoder.feed if fast else functools.partial(ProviderDecoder.feed, decoder)
    events: list[Event] = []
    for item in items:
        events += collect(feed(item))
    return events + decoder.finish()


SHAPES = {
    "text and calls": chat_chunks(
        [Text(["Hé", "llo ", ""]), Call("f", "c1", ['{"a": ', "1}"]), Call("g", "c2", ["{}"])],
        "tool_calls",
    ),
    "cut": chat_chunks([Call("f", "c1", ['{"a": "x'])], "length"),
}


@pytest.mark.parametrize("name", [*CHAT, *SHAPES])
def test_the_fast_path_gives_the_general_readers_events(name: str) -> None:
    items = SHAPES[name] if name in SHAPES else payloads(name)
    assert decoded(items, fast=True) == decoded(items, fast=False)
    objects = [sdk(i) for i in items]  # as the SDK builds them: loosely, never rejected
    assert decoded(objects, fast=True) == decoded(objects, fast=False)


def test_a_chunk_with_anything_else_set_takes_the_general_way() -> None:
    decoder = OpenAIDecoder(stream_id="s")
    base = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    text = {**base, "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None}]}
    assert decoder._chat.fast(text) is not None
    assert decoder._chat.fast(sdk(text)) is not None
    others = [
        {**text, "usage": {"prompt_tokens": 1}},
        {**text, "citations": ["https://x.y"]},
        {**base, "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]},
        {**base, "choices": [{"index": 0, "delta": {"content": "a", "reasoning": "r"}}]},
        {**base, "choices": [{"index": 1, "delta": {"content": "a"}}]},
        {**base, "choices": [{"index": 0, "delta": {"content": "a"}, "text": "a"}]},
        {
            **base,
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]},
                }
            ],
        },
    ]
    for chunk in others:
        assert decoder._chat.fast(chunk) is None, chunk
        assert decoder._chat.fast(sdk(chunk)) is None, chunk

"""``stream_model`` fed from a provider's stream directly, through each real SDK.

Each structured-output stream (OpenAI Chat ``response_format``, Responses ``text.format``,
Anthropic's output format and a forced tool's arguments, Gemini's ``response_schema``) is
replayed over HTTP to the real SDK, read with the provider adapter, and given to
``stream_model`` as events. The reference is the SDK's own structured-output helper
(``chat.completions.stream(response_format=...)``, ``responses.stream(text_format=...)``,
``messages.stream(output_format=...)``, the final tool input) on the same reply: the same
final model. Along the way the partial values are those of the same JSON fed as text.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pydantic
import pytest
from google import genai

from tests.support.replay import ReplayServer, Reply, wire
from tests.support.replay.gemini_wire import chunk, gemini_sse
from tests.support.replay.gemini_wire import text as gemini_text
from unspool import (
    ActionArgsDelta,
    ActionComplete,
    ActionStarted,
    AppData,
    StreamDone,
    TextDelta,
    from_anthropic,
    from_gemini,
    from_openai,
    model_data,
    stream_model,
)
from unspool.actions._partial_model import PartialModel


class Step(pydantic.BaseModel):
    title: str
    minutes: int


class Lesson(pydantic.BaseModel):
    title: str
    level: int
    steps: list[Step]
    tags: list[str] = []


DOCUMENT = json.dumps(
    {
        "title": "Fractions, café ☕",
        "level": 3,
        "steps": [{"title": "Halves", "minutes": 5}, {"title": "Thirds", "minutes": 12}],
        "tags": ["math", "maths"],
    },
    ensure_ascii=False,
)
PIECES = [DOCUMENT[i : i + 7] for i in range(0, len(DOCUMENT), 7)]
FINAL = Lesson.model_validate_json(DOCUMENT)


def _states(parts: list[PartialModel[Lesson]]) -> list[Any]:
    return [p.snapshot().value.model_dump(warnings=False) for p in parts]


def _by_text() -> list[PartialModel[Lesson]]:
    """The reference partial states: the same pieces given as text."""
    return [p.snapshot() for p in stream_model(Lesson, PIECES)]


def _check(parts: list[PartialModel[Lesson]], sdk_final: Any) -> None:
    last = parts[-1]
    assert last.done and last.complete and last.final == FINAL == sdk_final
    assert _states(parts) == _states(_by_text())


def test_openai_chat_response_format(replay_server: ReplayServer) -> None:
    body = wire.sse(wire.chat_chunks([wire.Text(PIECES)], "stop"), named=False, done=True)
    replay_server.play(Reply([body]), Reply([body]))
    client = openai.OpenAI(base_url=replay_server.url + "/v1", api_key="k", max_retries=0)
    messages = [{"role": "user", "content": "A lesson."}]
    with client.chat.completions.stream(
        model="gpt-4o", messages=messages, response_format=Lesson
    ) as helper:
        sdk_final = helper.get_final_completion().choices[0].message.parsed
    fmt = {
        "type": "json_schema",
        "json_schema": {"name": "lesson", "schema": Lesson.model_json_schema()},
    }
    events = from_openai(
        client.chat.completions.create(
            model="gpt-4o", messages=messages, response_format=fmt, stream=True
        )
    )
    _check([p.snapshot() for p in stream_model(Lesson, events)], sdk_final)


def test_openai_responses_text_format(replay_server: ReplayServer) -> None:
    body = wire.sse(wire.response_events([wire.Text(PIECES)]), named=True)
    replay_server.play(Reply([body]), Reply([body]))
    client = openai.OpenAI(base_url=replay_server.url + "/v1", api_key="k", max_retries=0)
    with client.responses.stream(model="gpt-4.1", input="A lesson.", text_format=Lesson) as helper:
        sdk_final = helper.get_final_response().output_parsed
    events = from_openai(client.responses.create(model="gpt-4.1", input="A lesson.", stream=True))
    _check([p.snapshot() for p in stream_model(Lesson, events)], sdk_final)


def test_anthropic_output_format(replay_server: ReplayServer) -> None:
    body = wire.sse(wire.anthropic_events([wire.Text(PIECES)]), named=True)
    replay_server.play(Reply([body]), Reply([body]))
    client = anthropic.Anthropic(base_url=replay_server.url, api_key="k", max_retries=0)
    messages = [{"role": "user", "content": "A lesson."}]
    with client.messages.stream(
        model="claude-test", max_tokens=500, messages=messages, output_format=Lesson
    ) as helper:
        sdk_final = helper.get_final_message().parsed_output
    raw = client.messages.create(
        model="claude-test", max_tokens=500, messages=messages, stream=True
    )
    _check([p.snapshot() for p in stream_model(Lesson, from_anthropic(raw))], sdk_final)


def test_anthropic_forced_tool(replay_server: ReplayServer) -> None:
    call = wire.Call("record_lesson", "toolu_1", PIECES)
    body = wire.sse(wire.anthropic_events([wire.Text(["Here."]), call], "tool_use"), named=True)
    replay_server.play(Reply([body]), Reply([body]))
    client = anthropic.Anthropic(base_url=replay_server.url, api_key="k", max_retries=0)
    kwargs: dict[str, Any] = {
        "model": "claude-test",
        "max_tokens": 500,
        "messages": [{"role": "user", "content": "A lesson."}],
        "tools": [{"name": "record_lesson", "input_schema": Lesson.model_json_schema()}],
        "tool_choice": {"type": "tool", "name": "record_lesson"},
    }
    with client.messages.stream(**kwargs) as helper:
        block = helper.get_final_message().content[-1]
    sdk_final = Lesson.model_validate(block.input)  # type: ignore[union-attr]
    events = from_anthropic(client.messages.create(**kwargs, stream=True))
    _check([p.snapshot() for p in stream_model(Lesson, events, tool="record_lesson")], sdk_final)


def test_gemini_response_schema(replay_server: ReplayServer) -> None:
    chunks = [chunk(gemini_text(p)) for p in PIECES[:-1]]
    body = gemini_sse([*chunks, chunk(gemini_text(PIECES[-1]), finish="STOP")])
    replay_server.play(Reply([body]), Reply([body]))
    client = genai.Client(api_key="k", http_options={"base_url": replay_server.url})
    config = {"response_mime_type": "application/json", "response_schema": Lesson}
    texts = [
        c.text
        for c in client.models.generate_content_stream(
            model="gemini-2.5-flash", contents="A lesson.", config=config
        )
    ]
    sdk_final = Lesson.model_validate_json("".join(t or "" for t in texts))
    stream = client.models.generate_content_stream(
        model="gemini-2.5-flash", contents="A lesson.", config=config
    )
    _check([p.snapshot() for p in stream_model(Lesson, from_gemini(stream))], sdk_final)


# ------------------------------------------------------------------------- to the page


def test_model_data_replaces_the_json_with_the_model_filling_in() -> None:
    events = [TextDelta(p) for p in PIECES] + [StreamDone("complete", text_chars=len(DOCUMENT))]
    out = list(model_data(Lesson, events, name="lesson"))
    assert not any(isinstance(e, TextDelta) for e in out)  # the JSON is not chat text
    assert out[-1] == events[-1]
    data = [e for e in out if isinstance(e, AppData)]
    assert all((d.name, d.id, d.transient) == ("lesson", "lesson", False) for d in data)
    reference = [*_by_text()]
    assert [d.data["value"] for d in data] == [
        p.value.model_dump(mode="json", warnings=False) for p in reference
    ]
    assert data[-1].data == {
        "value": FINAL.model_dump(mode="json"),
        "pending": [],
        "missing": [],
        "done": True,
        "complete": True,
        "errors": [],
    }
    middle = data[len(data) // 2].data
    assert not middle["done"] and middle["pending"] and not middle["complete"]


def test_model_data_from_a_forced_tool_passes_the_rest_on() -> None:
    parts = [TextDelta("Here: "), ActionStarted("s:0", 0, "record_lesson")]
    parts += [ActionArgsDelta("s:0", 0, None, p) for p in PIECES]
    parts += [
        ActionComplete("s:0", 0, "record_lesson", json.loads(DOCUMENT)),
        StreamDone("complete", 1),
    ]
    out = list(model_data(Lesson, parts, name="card", tool="record_lesson"))
    assert out[0] == TextDelta("Here: ")  # not the document: shown as chat text
    assert not any(getattr(e, "id", None) == "s:0" for e in out)  # the call is the card
    assert out[-2].data["complete"] and out[-1] == parts[-1]  # type: ignore[union-attr]


def test_a_cut_off_document_ends_with_its_errors() -> None:
    events = [TextDelta(p) for p in PIECES[:5]] + [StreamDone("truncated")]
    out = list(model_data(Lesson, events, name="lesson"))
    last = out[-2]
    assert isinstance(last, AppData) and last.data["done"] and not last.data["complete"]
    assert last.data["errors"][-1]["type"] == "json_invalid"


def test_whole_arguments_from_a_provider_that_sends_them_at_once() -> None:
    events = [
        ActionStarted("s:0", 0, "record_lesson"),
        ActionComplete("s:0", 0, "record_lesson", json.loads(DOCUMENT)),
    ]
    *_, last = stream_model(Lesson, events, tool="record_lesson")
    assert last.final == FINAL


def test_anything_else_in_the_chunks_is_refused() -> None:
    with pytest.raises(TypeError, match="not int"):
        list(stream_model(Lesson, [1]))  # type: ignore[list-item]

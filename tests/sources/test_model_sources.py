"""The open-weights formats where users meet them: TagParser(format=...), the sources
(the raw text of a server run without a tool parser, through the real openai SDK
over HTTP; any iterable of text), the CLI, a registry typing XML parameters, and
the format picked from a model's name."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import openai
import pytest

from tests.support.paths import ROOT
from tests.support.replay import ReplayServer, Reply, wire
from tests.support.transcripts import summary
from unspool.actions._registry import ActionRegistry
from unspool.events import ActionComplete, ActionInvalid
from unspool.protocols._model_formats import MODEL_FORMATS, format_for_model
from unspool.protocols._model_tags import ModelTagParser
from unspool.protocols._tags import TagParser
from unspool.sources._iterables import stream
from unspool.sources._openai_adapter import from_openai

QWEN_CODER = (
    "I'll check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n<parameter=zip>\n01234\n</parameter>\n</function>\n"
    "</tool_call><|im_end|>"
)
WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "zip": {"type": "string"},
    },
    "required": ["city"],
}


def _registry() -> ActionRegistry:
    registry = ActionRegistry()
    registry.register("get_weather", schema=WEATHER)
    return registry


def _tokens(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_schema_types_xml_parameters() -> None:
    events = ModelTagParser("qwen3_coder", stream_id="s", registry=_registry()).feed(QWEN_CODER)
    done = [e for e in events if isinstance(e, ActionComplete)]
    assert done[0].args == {"city": "Paris", "days": 3, "zip": "01234"}
    # without a schema, text that reads as JSON is that value ("01234" does not)
    events = ModelTagParser("qwen3_coder", stream_id="s").feed(QWEN_CODER)
    done = [e for e in events if isinstance(e, ActionComplete)]
    assert done[0].args == {"city": "Paris", "days": 3, "zip": "01234"}


def test_schema_failure_is_action_invalid() -> None:
    reply = (
        "<tool_call><function=get_weather><parameter=days>soon</parameter></function></tool_call>"
    )
    parser = ModelTagParser("qwen3_coder", stream_id="s", registry=_registry())
    events = [*parser.feed(reply), *parser.finish()]
    bad = [e for e in events if isinstance(e, ActionInvalid)]
    assert [e.reason for e in bad] == ["schema"]


def test_tag_parser_takes_a_model_format() -> None:
    parser = TagParser(format="qwen3_coder", stream_id="s", registry=_registry())
    assert parser.model is not None
    events = [e for chunk in _tokens(QWEN_CODER) for e in parser.feed(chunk)]
    events += parser.finish()
    assert summary(events) == [
        ("text", "I'll check.\n"),
        ("call", "get_weather", {"city": "Paris", "days": 3, "zip": "01234"}),
        ("done", "complete"),
    ]
    assert parser.text_chars == len("I'll check.\n")
    # a thinking template opened the block: the reply holds only its closer
    parser = TagParser(format="hermes", stream_id="s", starts_in_reasoning=True)
    events = [*parser.feed("plan</think>\n\nHi"), *parser.finish()]
    assert summary(events) == [("reasoning", "plan"), ("text", "\n\nHi"), ("done", "complete")]


def test_any_iterable_of_text() -> None:
    reply = (
        "<think>r</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
        '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    events = list(stream(iter(_tokens(reply, 2)), "deepseek", stream_id="s"))
    assert summary(events) == [
        ("reasoning", "r"),
        ("call", "get_weather", {"city": "Paris"}),
        ("done", "complete"),
    ]


@pytest.mark.parametrize("size", [1, 4, 64])
def test_openai_compatible_server_without_a_tool_parser(
    replay_server: ReplayServer, size: int
) -> None:
    """vLLM / llama.cpp / LM Studio run without a tool parser send the model's markup
    as content; the format applied to the content reads the calls."""
    chunks = wire.chat_chunks([wire.Text(_tokens(QWEN_CODER, size))])
    replay_server.play(Reply([wire.sse(chunks, named=False, done=True)]))
    client = openai.OpenAI(base_url=replay_server.url + "/v1", api_key="k", max_retries=0)
    response = client.chat.completions.create(
        model="Qwen/Qwen3-Coder-30B-A3B-Instruct",
        messages=[{"role": "user", "content": "weather?"}],
        stream=True,
    )
    events = list(from_openai(response, "qwen3_coder", stream_id="s", registry=_registry()))
    got = summary(events)
    assert got[:2] == [
        ("text", "I'll check.\n"),
        ("call", "get_weather", {"city": "Paris", "days": 3, "zip": "01234"}),
    ]
    assert got[-1][0] == "done"


def test_cli_reads_a_model_format() -> None:
    reply = 'Sure[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}</s>'
    run = subprocess.run(
        [sys.executable, "-m", "unspool", "parse", "-p", "tags", "--format", "mistral"],
        input=reply,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    kinds: list[Any] = [(r["type"], r.get("text") or r.get("name")) for r in records]
    assert kinds == [
        ("text_delta", "Sure"),
        ("action_started", "get_weather"),
        ("action_args_delta", None),
        ("action_complete", "get_weather"),
        ("stream_done", None),
    ]


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
        ("Qwen/Qwen3-8B", "hermes"),
        ("Qwen/QwQ-32B", "hermes"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek"),
        ("openai/gpt-oss-20b", "harmony"),
        ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral"),
        ("mistralai/Magistral-Small-2509", "mistral"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "pythonic"),
        ("allenai/Olmo-3-7B-Instruct", "olmo3"),
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2"),
        ("zai-org/GLM-4.6", "glm45"),
        ("zai-org/GLM-4.5-Air", "glm45"),
        ("ibm-granite/granite-3.3-8b-instruct", "granite"),
        ("ibm-granite/granite-20b-functioncalling", "granite_20b_fc"),
        ("microsoft/Phi-4-mini-instruct", "phi4_mini"),
        ("ai21labs/AI21-Jamba-Mini-1.6", "jamba"),
        ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam"),
        ("internlm/internlm2_5-7b-chat", "internlm2"),
        ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed_oss"),
        ("qwen3-coder:30b", "qwen3_coder"),
        ("some/unknown-model", None),
    ],
)
def test_format_for_model(model: str, name: str | None) -> None:
    assert format_for_model(model) == name
    assert name is None or name in MODEL_FORMATS


def test_readme_lists_the_formats_from_the_table() -> None:

    from unspool.protocols._model_formats import markdown_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- model formats: generated by")
    end = readme.index("<!-- end of model formats -->")
    shown = readme[start:end].split("\n", 1)[1].strip()
    assert shown == markdown_table()


@pytest.mark.parametrize("name", sorted(MODEL_FORMATS))
def test_format_instructions_describe_each_model_format(name: str) -> None:
    """The example reply the instructions show is read by that format's parser: one
    call with the example's arguments, no invalid action, the markup not in the text."""
    from unspool.protocols.prompts import example_reply, format_instructions

    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "opts": {"type": "object", "properties": {"units": {"type": "string"}}},
        },
        "required": ["city", "days", "opts"],
    }
    registry = ActionRegistry()
    registry.register("get_weather", schema=schema)
    examples = {"get_weather": {"city": "Paris ✓", "days": 3, "opts": {"units": "metric"}}}
    text = format_instructions(registry, "tags", format=name, examples=examples)
    reply = example_reply(registry, "tags", format=name, examples=examples)
    assert reply in text
    parser = TagParser(format=name, stream_id="s", registry=registry)
    got = summary([*parser.feed(reply), *parser.finish()])
    calls = [e for e in got if e[0] in ("call", "invalid")]
    assert calls == [("call", "get_weather", examples["get_weather"])]
    shown = "".join(e[1] for e in got if e[0] == "text")
    assert shown.strip().endswith("Anything else?")


def test_ollama_raw_text_through_the_sdk(replay_server: ReplayServer) -> None:
    """Ollama's chat with the model's markup left in the content (a model whose
    template Ollama does not parse): the format applied to the content reads the call."""
    import ollama

    from tests.support.replay.ollama_wire import line, ndjson
    from unspool.sources.providers._ollama import from_ollama

    reply = '[THINK]need it[/THINK]On it.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}'
    pieces = [line(p) for p in _tokens(reply, 5)] + [line("", done_reason="stop")]
    replay_server.play(Reply([ndjson(pieces)], content_type="application/x-ndjson"))
    response = ollama.Client(host=replay_server.url).chat(
        model="mistral-small3.2", messages=[{"role": "user", "content": "weather?"}], stream=True
    )
    events = list(from_ollama(response, "mistral", stream_id="s", registry=_registry()))
    assert summary(events) == [
        ("reasoning", "need it"),
        ("text", "On it."),
        ("call", "get_weather", {"city": "Paris", "days": 3}),
        ("done", "complete"),
    ]


def test_the_model_s_call_id_is_kept() -> None:
    """Kimi's ``functions.NAME:0`` and Mistral's ``[CALL_ID]`` are the ids the model's
    next turn names the results by: ``ActionStarted.action_id``, never the identity."""
    from unspool.events import ActionStarted

    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:3"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
        "<|tool_calls_section_end|>"
    )
    mistral = '[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}'
    for fmt, reply, model_id in (
        ("kimi_k2", kimi, "functions.get_weather:3"),
        ("mistral", mistral, "a1B2c3D4e"),
    ):
        for chunks in ([reply], list(reply)):
            parser = ModelTagParser(fmt, stream_id="s")
            events = [e for c in chunks for e in parser.feed(c)] + parser.finish()
            started = [e for e in events if isinstance(e, ActionStarted)]
            assert [(e.id, e.action_id) for e in started] == [("s:0", model_id)]
            done = [e for e in events if isinstance(e, ActionComplete)]
            assert done[0].action_id == model_id

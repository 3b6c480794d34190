"""Format instructions from the registry (issue 27, item 3): they name every action with
its description and JSON Schema, and the example reply they show parses with no
diagnostic, for each protocol and tag format, strict and lenient, at every split."""

from __future__ import annotations

import json
from datetime import date
from enum import Enum
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pydantic", reason="the actions extra (pydantic) is not installed")

from jsonschema.validators import validator_for
from pydantic import BaseModel, Field

from tests.support.chunking import merge_events, run_chunks, splits
from tests.support.hypothesis_profiles import examples
from unspool import (
    ActionComplete,
    ActionRegistry,
    InterleavedParser,
    TagParser,
    TextDelta,
    format_instructions,
)
from unspool.events import StreamDone
from unspool.protocols._tag_formats import FORMATS, TagFormat
from unspool.protocols.prompts import (
    CALL_WRITERS,
    PROTOCOLS,
    example_args,
    example_reply,
)


class Size(str, Enum):
    small = "small"
    large = "large"


class Item(BaseModel):
    sku: str
    qty: int = Field(default=1, ge=1)


def shop() -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action
    def open_modal(product_id: str, view: Literal["compact", "detailed"] = "compact") -> str:
        """Open the product modal."""
        return product_id

    @registry.action
    def add_items(items: list[Item], size: Size, note: str | None = None) -> int:
        """Add items to the cart."""
        return len(items)

    @registry.action
    def book(day: date, seats: int = Field(ge=2, le=8), title: str = "x") -> str:
        return str(day)

    registry.register(
        "navigate",
        schema={
            "description": "Go to a page of the shop.",
            "type": "object",
            "properties": {"path": {"type": "string", "minLength": 2}, "title": {"type": "string"}},
            "required": ["path", "title"],
            "additionalProperties": False,
        },
    )
    return registry


FORMAT_CASES = [("interleaved", None), *(("tags", name) for name in sorted(FORMATS))]
"""Every protocol, and the tags protocol in every named tag format."""


def parser_for(protocol: str, fmt: str | None, registry: Any, lenient: bool) -> Any:
    if protocol == "interleaved":
        return InterleavedParser(registry=registry, lenient=lenient)
    return TagParser(registry=registry, lenient=lenient, format=fmt or "action")


def kwargs(fmt: str | None) -> dict[str, Any]:
    return {} if fmt is None else {"format": fmt}


def test_every_protocol_writer_is_tested() -> None:
    assert {protocol for protocol, _ in FORMAT_CASES} == set(PROTOCOLS)


@pytest.mark.parametrize(("protocol", "fmt"), FORMAT_CASES)
def test_the_instructions_name_every_action_with_its_description_and_schema(
    protocol: str, fmt: str | None
) -> None:
    registry = shop()
    text = format_instructions(registry, protocol, **kwargs(fmt))
    for tool in registry.tools("json"):
        assert f"- {tool['name']}" in text
        if "description" in tool:
            assert f"- {tool['name']}: {tool['description']}" in text
        shown = json.loads(schema_line(text, tool["name"]))
        assert shown["properties"].keys() == tool["parameters"]["properties"].keys()
        assert shown.get("required") == tool["parameters"].get("required")
    assert text.endswith(example_reply(registry, protocol, **kwargs(fmt)))


def schema_line(text: str, name: str) -> str:
    """The JSON Schema the instructions show for action ``name``."""
    return text.split(f"- {name}", 1)[1].split("(JSON Schema): ", 1)[1].split("\n", 1)[0]


def test_titles_pydantic_adds_are_left_out_but_a_property_named_title_stays() -> None:
    registry = shop()
    text = format_instructions(registry, "tags")
    assert set(json.loads(schema_line(text, "navigate"))["properties"]) == {"path", "title"}
    book = json.loads(schema_line(text, "book"))
    assert "Day" in json.dumps(registry.tools("json")[2])  # pydantic's title...
    assert book["properties"]["title"] == {"default": "x", "type": "string"}  # ...left out
    assert "Day" not in json.dumps(book)


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize(("protocol", "fmt"), FORMAT_CASES)
@pytest.mark.parametrize("action", ["open_modal", "add_items", "book", "navigate"])
def test_a_reply_following_the_example_parses_with_no_diagnostic(
    protocol: str, fmt: str | None, action: str, lenient: bool
) -> None:
    registry = shop()
    reply = example_reply(registry, protocol, example_action=action, **kwargs(fmt))
    assert reply in format_instructions(registry, protocol, example_action=action, **kwargs(fmt))
    expected = None
    for chunks in [[reply], *splits(reply)]:
        events = merge_events(run_chunks(parser_for(protocol, fmt, registry, lenient), chunks))
        kinds = [type(e).__name__ for e in events]
        assert kinds == ["TextDelta", "ActionStarted", "ActionComplete", "TextDelta", "StreamDone"]
        done = events[-1]
        assert isinstance(done, StreamDone) and done.reason == "complete"
        assert (done.actions_complete, done.actions_invalid) == (1, 0)
        complete = events[2]
        assert isinstance(complete, ActionComplete) and complete.name == action
        text = "".join(e.text for e in events if isinstance(e, TextDelta))
        gap = "" if protocol == "interleaved" else "  "  # the call's place in the prose
        assert text == f"Sure, doing it now.{gap}Anything else?"
        expected = expected or complete.to_dict()["args"]
        assert complete.to_dict()["args"] == expected


def test_given_examples_are_used_and_checked() -> None:
    registry = shop()
    reply = example_reply(registry, "tags", examples={"open_modal": {"product_id": "kit-42"}})
    assert '<action name="open_modal">{"product_id": "kit-42"}</action>' in reply
    with pytest.raises(ValueError, match="examples given for unknown actions: nope"):
        format_instructions(registry, "tags", examples={"nope": {}})
    with pytest.raises(ValueError, match="'nope' is not one of the actions"):
        format_instructions(registry, example_action="nope")


def test_a_mapping_and_every_tools_list_shape_give_the_same_instructions() -> None:
    registry = shop()
    expected = format_instructions(registry, "interleaved")
    for shape in ("json", "openai", "openai_responses", "anthropic", "gemini", "bedrock"):
        assert format_instructions(registry.tools(shape), "interleaved") == expected, shape
    schemas = {
        t["name"]: {
            **t["parameters"],
            **({"description": t["description"]} if "description" in t else {}),
        }
        for t in registry.tools("json")
    }
    assert format_instructions(schemas, "interleaved") == expected


def test_a_tag_format_with_its_name_in_the_body_or_fixed() -> None:
    registry = shop()
    keyed = TagFormat("<<call>>", "<</call>>", name_key="tool", args_keys=("input",))
    text = format_instructions(registry, "tags", format=keyed)
    assert '<<call>>{"tool": "<action>", "input": {...}}<</call>>' in text
    fixed = TagFormat("<<nav>>", "<</nav>>", name="navigate")
    text = format_instructions(registry, "tags", format=fixed)
    assert "To run the action navigate, write" in text and "- open_modal" not in text
    for fmt in (keyed, fixed):
        reply = example_reply(registry, "tags", format=fmt)
        parser = TagParser(registry=registry, format=fmt)
        events = [*parser.feed(reply), *parser.finish()]
        assert [e.type for e in events if e.type not in ("text_delta", "action_args_delta")] == [
            "action_started",
            "action_complete",
            "stream_done",
        ]
    with pytest.raises(ValueError, match="calls only 'go'"):
        format_instructions(registry, "tags", format=TagFormat("<<g>>", "<</g>>", name="go"))


def test_a_format_with_its_own_call_shape_registers_a_writer(monkeypatch: Any) -> None:
    """How a further named format (an open-weights model's) plugs in."""
    monkeypatch.setitem(CALL_WRITERS, "tool_call", lambda fmt, name, args: f"<<{name} {args}>>")
    assert "<<open_modal " in example_reply(shop(), "tags", format="tool_call")


def test_unknown_protocols_and_actions_say_what_to_do() -> None:
    with pytest.raises(ValueError, match="provider tool calls need no format instructions"):
        format_instructions(shop(), "tools")
    with pytest.raises(ValueError, match="unknown protocol 'xml': expected one of"):
        format_instructions(shop(), "xml")
    with pytest.raises(ValueError, match="no actions"):
        format_instructions({}, "tags")
    with pytest.raises(TypeError, match="ActionRegistry"):
        format_instructions(42, "tags")


def test_example_args_follow_the_schema_keywords() -> None:
    schema = {
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string", "format": "email"},
            "n": {"type": "integer", "exclusiveMinimum": 5, "maximum": 9},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2},
            "at": {"$ref": "#/$defs/Point"},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
            "both": {
                "allOf": [
                    {"properties": {"a": {"const": 1}}},
                    {"properties": {"b": {"type": "null"}}},
                ]
            },
            "short": {"type": "string", "maxLength": 2},
            "long": {"type": "string", "minLength": 8},
            "first": {"examples": ["given"], "type": "string"},
        },
    }
    assert example_args(schema) == {
        "when": "2025-01-31T09:00:00Z",
        "mail": "ada@example.com",
        "n": 6,
        "tags": ["a", "a"],
        "at": {"x": 1.5},
        "maybe": True,
        "both": {"a": 1, "b": None},
        "short": "te",
        "long": "textxxxx",
        "first": "given",
    }


# ------------------------------------------------------------------ schemas, at random

NAMES = st.sampled_from(["a", "b", "title", "type", "name", "x_1", "Ünï"])


def bounded_number(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    def build(low: int, span: int, exclusive: bool) -> dict[str, Any]:
        key = "exclusiveMinimum" if exclusive else "minimum"
        return {"type": kind, key: low, "maximum": low + span}

    return st.builds(build, st.integers(-50, 50), st.integers(2, 10), st.booleans())


def leaves() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"type": "string"}),
        st.sampled_from(sorted(("date", "date-time", "email", "uri", "uuid"))).map(
            lambda f: {"type": "string", "format": f}
        ),
        st.integers(0, 12).map(lambda n: {"type": "string", "minLength": n}),
        st.integers(0, 3).map(lambda n: {"type": "string", "maxLength": n}),
        bounded_number("integer"),
        bounded_number("number"),
        st.just({"type": "boolean"}),
        st.just({"type": "null"}),
        st.lists(st.text(max_size=3), min_size=1, max_size=3).map(lambda v: {"enum": v}),
        st.integers().map(lambda v: {"const": v}),
    )


def schemas() -> st.SearchStrategy[dict[str, Any]]:
    def containers(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        props = st.dictionaries(NAMES, inner, max_size=4)
        objects = st.builds(
            lambda p, some: {
                "type": "object",
                "properties": p,
                **({"required": sorted(p)[: len(p) // 2 + 1]} if some and p else {}),
            },
            props,
            st.booleans(),
        )
        arrays = st.builds(
            lambda items, n: {"type": "array", "items": items, "minItems": n},
            inner,
            st.integers(0, 3),
        )
        nullable = inner.map(lambda s: {"anyOf": [s, {"type": "null"}]})
        return st.one_of(objects, arrays, nullable)

    return st.recursive(leaves(), containers, max_leaves=12)


@given(
    properties=st.dictionaries(NAMES, schemas(), min_size=1, max_size=4),
    protocol_and_format=st.sampled_from(FORMAT_CASES),
    lenient=st.booleans(),
)
@settings(max_examples=examples(150))
def test_an_example_made_from_any_schema_validates_and_parses(
    properties: dict[str, Any], protocol_and_format: tuple[str, str | None], lenient: bool
) -> None:
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    value = example_args(schema)
    validator = validator_for(schema)(schema, format_checker=validator_for(schema).FORMAT_CHECKER)
    assert list(validator.iter_errors(value)) == []
    registry = ActionRegistry()
    registry.register("act", schema=schema)
    protocol, fmt = protocol_and_format
    reply = example_reply(registry, protocol, **kwargs(fmt))
    events = merge_events(run_chunks(parser_for(protocol, fmt, registry, lenient), [reply]))
    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "ActionStarted",
        "ActionComplete",
        "TextDelta",
        "StreamDone",
    ]
    assert events[2].args == value

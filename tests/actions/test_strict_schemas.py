"""``registry.tools(format, strict=True)``: schemas each provider's strict mode takes.

The provider SDKs are the references: OpenAI's own strict-schema helper
(``to_strict_json_schema``, what ``pydantic_function_tool`` sends), Anthropic's
``transform_schema`` and google-genai's ``Schema.from_json_schema``; the tool definitions
pass each SDK's request types and go through its client over real HTTP. A property the
strict schema made nullable comes back as ``null`` and reads as left out: the same value
as without it, for any arguments hypothesis draws.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Literal

import anthropic
import jsonschema
import openai
import pydantic
import pytest
from anthropic.lib._parse._transform import transform_schema
from anthropic.types import ToolParam
from google import genai
from google.genai import types as genai_types
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam

from tests.support.hypothesis_profiles import examples
from tests.support.replay import ReplayServer
from tests.support.web.provider_sdks import _reply
from unspool import ActionRegistry
from unspool.actions._strict_schemas import (
    StrictSchemaError,
    anthropic_strict,
    drop_absent_nulls,
    gemini_schema,
    openai_strict,
)

_FORBID = pydantic.ConfigDict(extra="forbid")


class Item(pydantic.BaseModel):
    sku: str = pydantic.Field(description="The product's SKU.")
    qty: int


class Address(pydantic.BaseModel):
    city: str
    zip: str


class Order(pydantic.BaseModel):
    """All fields required: OpenAI's helper and unspool must agree exactly."""

    customer: str
    items: list[Item]
    address: Address
    mode: Literal["pickup", "delivery"]
    gift: bool
    note: str | None


class Optionals(pydantic.BaseModel):
    customer: str
    view: Literal["compact", "detailed"] = "compact"
    note: str | None = None
    qty: int = pydantic.Field(1, ge=1, le=9)
    tags: list[str] = pydantic.Field(default_factory=list, max_length=3)
    when: date | None = None
    shipping: Address | None = None
    code: str = pydantic.Field("AAA", min_length=3, pattern="^[A-Z]+$")


class Node(pydantic.BaseModel):
    label: str
    children: list[Node]


def _registry(*models: type[pydantic.BaseModel]) -> ActionRegistry:
    registry = ActionRegistry()
    for model in models:
        registry.register(model.__name__.lower(), model=model, description=f"Do {model.__name__}.")
    return registry


def _rooted(schema: dict[str, Any]) -> dict[str, Any]:
    """A strict schema as the registry sends it: the root's title and description left out."""
    return {k: v for k, v in schema.items() if k not in ("title", "description")}


# ----------------------------------------------------------------------------- OpenAI


@pytest.mark.parametrize("model", [Order, Item, Node])
def test_openai_strict_is_openais_own_helper_when_every_field_is_required(
    model: type[pydantic.BaseModel],
) -> None:
    (tool,) = _registry(model).tools("openai", strict=True)
    assert tool["function"]["strict"] is True
    parameters = tool["function"]["parameters"]
    assert _rooted(parameters) == _rooted(to_strict_json_schema(model))
    reference = openai.pydantic_function_tool(model, name=model.__name__.lower())
    assert set(reference["function"]) <= set(tool["function"])


def test_openai_strict_makes_each_optional_field_required_and_nullable() -> None:
    (tool,) = _registry(Optionals).tools("openai_responses", strict=True)
    schema = tool["parameters"]
    reference = to_strict_json_schema(Optionals)  # required everywhere, nullable nowhere new
    assert schema["required"] == reference["required"] == list(Optionals.model_fields)
    props = schema["properties"]
    assert props["view"] == {
        "anyOf": [{"enum": ["compact", "detailed"], "type": "string"}, {"type": "null"}],
        "title": "View",
        "description": 'Defaults to "compact".',
    }
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Note"}
    assert props["qty"] == {
        "type": ["integer", "null"],
        "minimum": 1,
        "maximum": 9,
        "title": "Qty",
        "description": "Defaults to 1.",
    }
    assert props["tags"]["type"] == ["array", "null"] and props["tags"]["maxItems"] == 3
    assert props["when"]["anyOf"] == [{"format": "date", "type": "string"}, {"type": "null"}]
    assert props["shipping"]["anyOf"] == [{"$ref": "#/$defs/Address"}, {"type": "null"}]
    assert props["code"] == {
        "type": ["string", "null"],
        "pattern": "^[A-Z]+$",
        "title": "Code",
        "description": 'Defaults to "AAA".\n\nMust also satisfy: {"minLength": 3}',
    }
    assert schema["$defs"]["Address"]["additionalProperties"] is False
    assert tool["strict"] is True


# -------------------------------------------------------------------------- Anthropic


def _structure(schema: Any) -> Any:
    """A schema without its descriptions (where the SDKs word left-out keywords), and
    without the ``type`` beside an ``enum`` or ``const`` (which Anthropic's helper drops)."""
    if isinstance(schema, dict):
        literal = "enum" in schema or "const" in schema
        return {
            k: _structure(v)
            for k, v in schema.items()
            if k != "description" and not (literal and k == "type")
        }
    if isinstance(schema, list):
        return [_structure(v) for v in schema]
    return schema


@pytest.mark.parametrize("model", [Order, Optionals, Item])
def test_anthropic_strict_keeps_what_anthropics_own_transform_keeps(
    model: type[pydantic.BaseModel],
) -> None:
    (tool,) = _registry(model).tools("anthropic", strict=True)
    assert tool["strict"] is True
    ours = _structure(tool["input_schema"])
    reference = _structure(_rooted(transform_schema(model)))
    assert ours == reference
    if model is Optionals:  # what neither keeps is said in the description
        qty = tool["input_schema"]["properties"]["qty"]["description"]
        assert qty == 'Defaults to 1.\n\nMust also satisfy: {"maximum": 9, "minimum": 1}'


def test_anthropic_strict_refuses_a_recursive_schema() -> None:
    with pytest.raises(
        StrictSchemaError, match="action 'node': anthropic strict mode cannot express"
    ):
        _registry(Node).tools("anthropic", strict=True)


# ----------------------------------------------------------------------------- Gemini


def _gemini_shape(schema: Any) -> Any:
    """What both converters must agree on: types, properties, required, nullable, enum."""
    if isinstance(schema, dict):
        keys = ("type", "required", "nullable", "enum")
        out = {
            k: (str(schema[k]).upper() if k == "type" else schema[k])
            for k in keys
            if schema.get(k) is not None
        }
        for key in ("properties",):
            if schema.get(key):
                out[key] = {k: _gemini_shape(v) for k, v in schema[key].items()}
        if schema.get("items"):
            out["items"] = _gemini_shape(schema["items"])
        return out
    return schema


@pytest.mark.parametrize("model", [Order, Optionals, Item])
def test_gemini_schema_reads_as_google_genais_own_conversion(
    model: type[pydantic.BaseModel],
) -> None:
    (tool,) = _registry(model).tools("gemini", strict=True)
    ours = genai_types.Schema.model_validate(tool["parameters"])  # extra keys refused
    reference = genai_types.Schema.from_json_schema(
        json_schema=genai_types.JSONSchema.model_validate(model.model_json_schema()),
        api_option="GEMINI_API",
    )
    assert _gemini_shape(ours.model_dump(exclude_none=True)) == _gemini_shape(
        reference.model_dump(exclude_none=True)
    )
    assert tool["parameters"]["property_ordering"] == list(model.model_fields)


def test_gemini_schema_inlines_references_and_refuses_recursion() -> None:
    (tool,) = _registry(Order).tools("gemini", strict=True)
    assert tool["parameters"]["properties"]["address"]["properties"]["zip"] == {
        "type": "STRING",
        "title": "Zip",
    }
    with pytest.raises(StrictSchemaError, match="recursive"):
        _registry(Node).tools("gemini", strict=True)


def test_a_tool_without_arguments_is_declared_without_parameters() -> None:
    registry = ActionRegistry()

    @registry.action
    def ping() -> str:
        """Ping."""
        return "pong"

    assert registry.tools("gemini", strict=True) == [{"name": "ping", "description": "Ping."}]
    assert registry.tools("openai", strict=True)[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


# -------------------------------------------------------------- what no strict mode takes


class WithMap(pydantic.BaseModel):
    scores: dict[str, int]


class WithAny(pydantic.BaseModel):
    payload: Any


@pytest.mark.parametrize("format", ["openai", "openai_responses", "anthropic", "gemini"])
@pytest.mark.parametrize(("model", "where"), [(WithMap, "scores"), (WithAny, "payload")])
def test_a_schema_without_a_strict_form_is_refused_naming_the_place(
    format: str, model: type[pydantic.BaseModel], where: str
) -> None:
    with pytest.raises(StrictSchemaError) as caught:
        _registry(model).tools(format, strict=True)
    assert caught.value.path == (where,) and caught.value.action == model.__name__.lower()
    assert str(caught.value).startswith(f"action '{model.__name__.lower()}': ")


def test_strict_is_only_offered_where_a_provider_has_it() -> None:
    with pytest.raises(ValueError, match="unknown strict tool format 'bedrock'"):
        _registry(Item).tools("bedrock", strict=True)
    assert _registry(Item).tools("bedrock")  # the plain form is still there


def test_the_converters_leave_their_input_alone() -> None:
    schema = Optionals.model_json_schema()
    before = json.dumps(schema, sort_keys=True)
    openai_strict(schema), anthropic_strict(schema), gemini_schema(schema)
    assert json.dumps(schema, sort_keys=True) == before


# --------------------------------------------------------------------- through the SDKs


def test_each_sdk_takes_the_strict_tools(replay_server: ReplayServer) -> None:
    registry = _registry(Order, Optionals, Item)
    messages = [{"role": "user", "content": "order"}]
    chat_tools = registry.tools("openai", strict=True)
    pydantic.TypeAdapter(list[ChatCompletionFunctionToolParam], config=_FORBID).validate_python(
        chat_tools
    )
    responses_tools = registry.tools("openai_responses", strict=True)
    pydantic.TypeAdapter(list[FunctionToolParam], config=_FORBID).validate_python(responses_tools)
    anthropic_tools = registry.tools("anthropic", strict=True)
    pydantic.TypeAdapter(list[ToolParam], config=_FORBID).validate_python(anthropic_tools)
    gemini_tool = genai_types.Tool.model_validate(
        {"function_declarations": registry.tools("gemini", strict=True)}
    )

    client = openai.OpenAI(base_url=replay_server.url + "/v1", api_key="k", max_retries=0)
    replay_server.play(_reply("openai"))
    list(
        client.chat.completions.create(model="m", messages=messages, tools=chat_tools, stream=True)
    )
    assert replay_server.requests[-1][2]["tools"] == chat_tools
    replay_server.play(_reply("openai_responses"))
    list(client.responses.create(model="m", input=messages, tools=responses_tools, stream=True))
    assert replay_server.requests[-1][2]["tools"] == responses_tools
    aclient = anthropic.Anthropic(base_url=replay_server.url, api_key="k", max_retries=0)
    replay_server.play(_reply("anthropic"))
    with aclient.messages.stream(
        model="m", max_tokens=9, messages=messages, tools=anthropic_tools
    ) as s:
        list(s)
    assert replay_server.requests[-1][2]["tools"] == anthropic_tools
    gclient = genai.Client(api_key="k", http_options={"base_url": replay_server.url})
    replay_server.play(_reply("gemini"))
    config = genai_types.GenerateContentConfig(tools=[gemini_tool])
    list(
        gclient.models.generate_content_stream(
            model="gemini-2.5-flash", contents="order", config=config
        )
    )
    sent = replay_server.requests[-1][2]["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in sent] == ["order", "optionals", "item"]
    assert sent[1]["parameters"]["properties"]["view"] == {
        "type": "STRING",
        "format": "enum",
        "enum": ["compact", "detailed"],
        "default": "compact",
        "title": "View",
    }


# ----------------------------------------------------- nulls back from a strict-mode model

_DATES = st.dates(min_value=date(2000, 1, 1), max_value=date(2030, 1, 1))
_ADDRESS = st.fixed_dictionaries({"city": st.text(max_size=5), "zip": st.text(max_size=5)})
_OPTIONAL = {
    "view": st.sampled_from(["compact", "detailed"]),
    "note": st.none() | st.text(max_size=5),
    "qty": st.integers(1, 9),
    "tags": st.lists(st.text(max_size=3), max_size=3),
    "when": st.none() | _DATES.map(date.isoformat),
    "shipping": st.none() | _ADDRESS,
    "code": st.from_regex(r"[A-Z]{3,5}", fullmatch=True),
}


@st.composite
def _optionals_args(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"customer": draw(st.text(max_size=5))}
    for name, values in _OPTIONAL.items():
        if draw(st.booleans()):
            args[name] = draw(values)
    return args


@settings(max_examples=examples(200), deadline=None)
@given(_optionals_args())
def test_a_strict_models_nulls_read_as_the_properties_left_out(args: dict[str, Any]) -> None:
    registry = _registry(Optionals)
    (tool,) = registry.tools("openai", strict=True)
    strict_args = {name: args.get(name) for name in Optionals.model_fields}  # every key sent
    jsonschema.validate(strict_args, tool["function"]["parameters"])  # the model may send it
    plain = registry.validate("optionals", args)
    strict = registry.validate("optionals", strict_args)
    assert plain.ok and strict.ok
    assert strict.value == plain.value


def test_a_null_that_was_not_optional_is_still_refused() -> None:
    registry = _registry(Order)
    verdict = registry.validate("order", {"customer": None, "items": [], "address": None})
    assert not verdict.ok and verdict.errors[0]["path"] == ["customer"]


def test_drop_absent_nulls_only_drops_nulls_the_schema_made_optional() -> None:
    schema = Optionals.model_json_schema()
    args = {"customer": "a", "note": None, "view": None, "shipping": {"city": "x", "zip": None}}
    assert drop_absent_nulls(schema, args) == {
        "customer": "a",
        "note": None,  # Optional[str]: null is a value
        "shipping": {"city": "x", "zip": None},  # required: left for validation to refuse
    }
    unchanged = {"customer": "a"}
    assert drop_absent_nulls(schema, unchanged) is unchanged

"""ActionRegistry: registration forms, structured validation errors, tool lists."""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
import pydantic
import pytest
from pydantic import BaseModel, ConfigDict, Field

from tests.support.actions.streams import action_stream
from unspool.actions._registry import ActionRegistry
from unspool.events import ActionComplete, ActionInvalid, StreamDone
from unspool.protocols._emitter import ActionEmitter, Validation


class Meta(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    score: float


class ShowProduct(BaseModel):
    """Show a product in a modal."""

    model_config = ConfigDict(extra="forbid")
    product_id: str = Field(min_length=1)
    view: Literal["compact", "detailed"] = "compact"
    meta: Meta | None = None


ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Go to a route.",
    "properties": {
        "path": {"type": "string", "pattern": "^/"},
        "mode": {"enum": ["push", "replace"]},
        "meta": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
            "additionalProperties": False,
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}


def make_registry(unknown: Literal["invalid", "pass"] = "invalid") -> ActionRegistry:
    registry = ActionRegistry(unknown=unknown)
    registry.register("show_product", model=ShowProduct)

    @registry.action
    def navigate(path: str, replace: bool = False, *, depth: int = 1) -> str:
        """Navigate to a route."""
        return f"{path}:{replace}:{depth}"

    registry.register("route", schema=ROUTE_SCHEMA)
    return registry


# model --------------------------------------------------------------------------------


def test_model_wrong_types_enum_extra_and_nested_paths() -> None:
    verdict = make_registry().validate(
        "show_product",
        {"product_id": 3, "view": "big", "x": 1, "meta": {"source": "a", "score": "hi", "y": 2}},
    )
    assert verdict == Validation(
        False,
        reason="schema",
        errors=(
            {
                "path": ["product_id"],
                "message": "Input should be a valid string",
                "type": "string_type",
            },
            {
                "path": ["view"],
                "message": "Input should be 'compact' or 'detailed'",
                "type": "literal_error",
            },
            {
                "path": ["meta", "score"],
                "message": "Input should be a valid number, unable to parse string as a number",
                "type": "float_parsing",
            },
            {
                "path": ["meta", "y"],
                "message": "Extra inputs are not permitted",
                "type": "extra_forbidden",
            },
            {"path": ["x"], "message": "Extra inputs are not permitted", "type": "extra_forbidden"},
        ),
    )


def test_model_missing_field_constraint_and_not_an_object() -> None:
    registry = make_registry()
    assert registry.validate("show_product", {}).errors == (
        {"path": ["product_id"], "message": "Field required", "type": "missing"},
    )
    assert registry.validate("show_product", {"product_id": ""}).errors == (
        {
            "path": ["product_id"],
            "message": "String should have at least 1 character",
            "type": "string_too_short",
        },
    )
    assert registry.validate("show_product", [1]).errors == (
        {
            "path": [],
            "message": "Input should be a valid dictionary or instance of ShowProduct",
            "type": "model_type",
        },
    )


def test_model_ok_gives_the_instance() -> None:
    verdict = make_registry().validate(
        "show_product", {"product_id": "p1", "meta": {"source": "s", "score": 2}}
    )
    assert verdict.ok is True
    assert verdict.value == ShowProduct(product_id="p1", meta=Meta(source="s", score=2.0))
    again = make_registry().validate("show_product", verdict.value)
    assert again.value is verdict.value


# signature ----------------------------------------------------------------------------


def test_signature_model_forbids_extras_and_types_fields() -> None:
    registry = make_registry()
    bad = registry.validate("navigate", {"path": "/a", "depth": "x", "zz": 1})
    assert bad.errors == (
        {
            "path": ["depth"],
            "message": "Input should be a valid integer, unable to parse string as an integer",
            "type": "int_parsing",
        },
        {"path": ["zz"], "message": "Extra inputs are not permitted", "type": "extra_forbidden"},
    )
    good = registry.validate("navigate", {"path": "/a", "depth": "3"})
    assert good.ok is True
    assert type(good.value).__name__ == "NavigateArgs"
    assert good.value.model_dump() == {"path": "/a", "replace": False, "depth": 3}
    assert registry["navigate"].invoke(good.value) == "/a:False:3"


def test_signature_with_kwargs_accepts_and_passes_extras() -> None:
    registry = ActionRegistry()

    @registry.action("tag")
    def tag(label: str, **extra: Any) -> dict[str, Any]:
        return {"label": label, **extra}

    verdict = registry.validate("tag", {"label": "x", "color": "red"})
    assert verdict.ok is True
    assert registry["tag"].invoke(verdict.value) == {"label": "x", "color": "red"}


def test_single_model_parameter_is_the_args_model() -> None:
    registry = ActionRegistry()

    @registry.action()
    def show(args: ShowProduct) -> str:
        return args.product_id

    spec = registry["show"]
    assert spec.model is ShowProduct
    assert spec.call == "value"
    assert spec.description == "Show a product in a modal."
    verdict = registry.validate("show", {"product_id": "p9"})
    assert spec.invoke(verdict.value) == "p9"


def test_unannotated_parameters_accept_anything() -> None:
    registry = ActionRegistry()

    @registry.action("log")
    def log(message, level="info"):  # type: ignore[no-untyped-def]
        return f"{level}:{message}"

    verdict = registry.validate("log", {"message": [1, 2]})
    assert registry["log"].invoke(verdict.value) == "info:[1, 2]"


def test_bad_registrations_raise() -> None:
    registry = make_registry()
    with pytest.raises(ValueError, match="already registered"):
        registry.register("route", schema={"type": "object"})
    with pytest.raises(TypeError, match="needs a handler, a model or a schema"):
        registry.register("nothing")
    with pytest.raises(TypeError, match="not both"):
        registry.register("both", model=ShowProduct, schema={"type": "object"})
    with pytest.raises(TypeError, match="cannot be given by keyword"):
        registry.register("varargs", lambda *items: items)
    with pytest.raises(jsonschema.SchemaError):
        registry.register("broken", schema={"type": "no-such-type"})
    with pytest.raises(ValueError, match="unknown must be"):
        ActionRegistry(unknown="ignore")  # type: ignore[arg-type]


# JSON Schema --------------------------------------------------------------------------


def test_json_schema_errors_point_at_the_field() -> None:
    verdict = make_registry().validate(
        "route", {"path": "a", "mode": "pop", "meta": {"m": 1}, "extra": 2}
    )
    assert verdict.errors == (
        {
            "path": ["extra"],
            "message": "unexpected property 'extra'",
            "type": "additionalProperties",
        },
        {"path": ["meta", "n"], "message": "'n' is a required property", "type": "required"},
        {
            "path": ["meta", "m"],
            "message": "unexpected property 'm'",
            "type": "additionalProperties",
        },
        {"path": ["mode"], "message": "'pop' is not one of ['push', 'replace']", "type": "enum"},
        {"path": ["path"], "message": "'a' does not match '^/'", "type": "pattern"},
    )
    assert make_registry().validate("route", {"mode": "push"}).errors == (
        {"path": ["path"], "message": "'path' is a required property", "type": "required"},
    )
    assert make_registry().validate("route", {"path": 5}).errors == (
        {"path": ["path"], "message": "5 is not of type 'string'", "type": "type"},
    )


def test_json_schema_checks_formats() -> None:
    registry = ActionRegistry()
    registry.register(
        "open",
        schema={"type": "object", "properties": {"actionId": {"type": "string", "format": "uuid"}}},
    )
    assert registry.validate("open", {"actionId": "nope"}).errors == (
        {"path": ["actionId"], "message": "'nope' is not a 'uuid'", "type": "format"},
    )
    ok = registry.validate("open", {"actionId": "6f1c1f0e-3f64-4b0c-9a53-3c2b9e3c6a11"})
    assert ok == Validation(True, {"actionId": "6f1c1f0e-3f64-4b0c-9a53-3c2b9e3c6a11"})


# unknown names, validator failures ------------------------------------------------------


def test_unknown_policy() -> None:
    assert make_registry().validate("zap", {"a": 1}) == Validation(
        False,
        reason="unknown_action",
        errors=(
            {
                "path": [],
                "message": "unknown action 'zap' (known: 'show_product', 'navigate', 'route')",
                "type": "unknown_action",
            },
        ),
    )
    assert make_registry("pass").validate("zap", {"a": 1}) == Validation(True, {"a": 1})


def test_a_crashing_validator_is_an_error_not_an_exception() -> None:
    class Odd(BaseModel):
        n: int

        @pydantic.field_validator("n")
        @classmethod
        def boom(cls, value: int) -> int:
            raise RuntimeError("validator bug")

    registry = ActionRegistry()
    registry.register("odd", model=Odd)
    assert registry.validate("odd", {"n": 1}).errors == (
        {"path": [], "message": "RuntimeError: validator bug", "type": "validator_error"},
    )


# schemas and tools --------------------------------------------------------------------


def test_json_schema_and_tool_formats() -> None:
    registry = ActionRegistry()

    @registry.action
    def navigate(path: str, replace: bool = False) -> str:
        """Navigate to a route."""
        return path

    registry.register("route", schema=ROUTE_SCHEMA)
    params = {
        "additionalProperties": False,
        "properties": {
            "path": {"title": "Path", "type": "string"},
            "replace": {"default": False, "title": "Replace", "type": "boolean"},
        },
        "required": ["path"],
        "type": "object",
    }
    assert registry.json_schema("navigate") == {**params, "title": "NavigateArgs"}
    assert registry.json_schema("route") == ROUTE_SCHEMA
    route_params = {k: v for k, v in ROUTE_SCHEMA.items() if k != "description"}
    assert registry.tools("openai") == [
        {
            "type": "function",
            "function": {
                "name": "navigate",
                "description": "Navigate to a route.",
                "parameters": params,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "route",
                "description": "Go to a route.",
                "parameters": route_params,
            },
        },
    ]
    assert registry.tools("openai_responses")[0] == {
        "type": "function",
        "name": "navigate",
        "description": "Navigate to a route.",
        "parameters": params,
    }
    assert registry.tools("anthropic")[1] == {
        "name": "route",
        "description": "Go to a route.",
        "input_schema": route_params,
    }
    assert registry.tools("json")[0] == {
        "name": "navigate",
        "description": "Navigate to a route.",
        "parameters": params,
    }
    assert registry.tools("gemini") == [
        {
            "name": "navigate",
            "description": "Navigate to a route.",
            "parameters_json_schema": params,
        },
        {"name": "route", "description": "Go to a route.", "parameters_json_schema": route_params},
    ]
    assert registry.tools("bedrock")[1] == {
        "toolSpec": {
            "name": "route",
            "description": "Go to a route.",
            "inputSchema": {"json": route_params},
        }
    }
    assert registry.tools("ollama") == registry.tools("openai")
    with pytest.raises(ValueError, match="unknown tool format"):
        registry.tools("xml")  # type: ignore[arg-type]
    assert list(registry) == ["navigate", "route"]
    assert len(registry) == 2
    assert "route" in registry
    assert registry.get("zap") is None


# through the shared emitter (what every parser does with registry=) --------------------


def test_emitter_with_registry_validates_on_complete() -> None:
    registry = make_registry()
    events = action_stream(
        [
            "Opening it. ",
            ("show_product", {"product_id": "p1", "view": "detailed"}),
            ("show_product", {"product_id": "p2", "view": "huge"}),
            ("teleport", {}),
        ],
        registry=registry,
    )
    finals = [e for e in events if isinstance(e, (ActionComplete, ActionInvalid, StreamDone))]
    assert finals == [
        ActionComplete("s:0", 0, "show_product", ShowProduct(product_id="p1", view="detailed")),
        ActionInvalid(
            "s:1",
            1,
            "show_product",
            "schema",
            (
                {
                    "path": ["view"],
                    "message": "Input should be 'compact' or 'detailed'",
                    "type": "literal_error",
                },
            ),
        ),
        ActionInvalid(
            "s:2",
            2,
            "teleport",
            "unknown_action",
            (
                {
                    "path": [],
                    "message": "unknown action 'teleport' (known: 'show_product', 'navigate', 'route')",
                    "type": "unknown_action",
                },
            ),
        ),
        StreamDone("complete", 1, 2, 12),
    ]
    assert finals[0].to_dict()["args"] == {"product_id": "p1", "view": "detailed", "meta": None}


def test_emitter_complete_passes_raw_text() -> None:
    emitter = ActionEmitter("x", make_registry())
    started = emitter.start("navigate")
    invalid = emitter.complete(started.index, {"path": 1}, raw='{"path": 1}')
    assert invalid == ActionInvalid(
        "x:0",
        0,
        "navigate",
        "schema",
        ({"path": ["path"], "message": "Input should be a valid string", "type": "string_type"},),
        '{"path": 1}',
    )

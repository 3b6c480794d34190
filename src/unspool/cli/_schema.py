"""``--schema``: load a registry or a JSON Schema, and turn it into a validator.

The option takes either a module path ``pkg.mod:name`` (the object it names,
imported with the current directory on ``sys.path``, as most Python command
lines do) or a JSON file:

* for ``--protocol json``, the file is one JSON Schema that the final value
  must match (a module path must then name a dict holding the schema);
* for the action protocols, the object is an ``ActionRegistry`` (anything with
  ``validate(name, args)``), or the file maps each action name to the JSON
  Schema of its arguments, or is a tools list in the OpenAI or Anthropic format.

Every problem here is a usage error (exit status 2), reported by click.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from unspool._extras import needs_extra
from unspool.cli._records import SchemaCheck
from unspool.protocols._emitter import ActionValidator

__all__ = [
    "action_validator",
    "document_validator",
    "is_single_schema",
    "load_schema_target",
    "tool_schemas",
    "unresolvable_refs",
    "validators_for",
]


def load_schema_target(spec: str) -> Any:
    """The object ``--schema`` names: a JSON file's content, or ``module:attribute``."""
    path = Path(spec)
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise click.BadParameter(f"{spec} is not a JSON file ({exc})") from None
    if path.is_dir():
        raise click.BadParameter(f"{spec} is a directory, not a JSON Schema file")
    module_name, colon, attribute = spec.partition(":")
    if _looks_like_a_file(spec):
        raise click.BadParameter(f"the file {spec} does not exist")
    if not colon or not module_name or not attribute:
        raise click.BadParameter(
            f"{spec!r} is neither a JSON Schema file nor a module path like pkg.mod:registry"
        )
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:  # any failure of user code on import is the option's fault
        raise click.BadParameter(f"cannot import {module_name}: {exc}") from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise click.BadParameter(f"{module_name} has no attribute {attribute!r}") from None
    return target


def _looks_like_a_file(spec: str) -> bool:
    """A path rather than ``pkg.mod:name``: a ``.json`` name, or a path separator."""
    module_name, _, attribute = spec.partition(":")
    if spec.lower().endswith(".json") or "/" in spec or os.sep in spec:
        return True
    return not attribute and not module_name.replace(".", "").replace("_", "").isalnum()


_SCHEMA_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "definitions",
        "type",
        "properties",
        "required",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "additionalProperties",
        "enum",
        "const",
        "$ref",
    }
)


def is_single_schema(target: Any) -> bool:
    """Whether ``target`` reads as one JSON Schema rather than ``{action name: schema}``:
    a ``$schema`` key, or a keyword whose value no action schema could be (a ``type``
    that is a string or a list, a ``required`` list, an ``enum`` list...)."""
    if not isinstance(target, Mapping):
        return False
    if "$schema" in target or "$ref" in target:
        return True
    return any(
        key in _SCHEMA_KEYWORDS and not isinstance(value, Mapping) for key, value in target.items()
    )


def unresolvable_refs(schema: Mapping[str, Any]) -> list[str]:
    """The ``$ref`` values in ``schema`` that do not resolve within it (a missing
    ``#/$defs/...``, a remote URL: unspool never fetches one)."""
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012, specification_with

    dialect = schema.get("$schema")
    spec = specification_with(dialect if isinstance(dialect, str) else "", default=DRAFT202012)
    resource = spec.create_resource(schema)
    base = resource.id() or ""
    registry: Registry[Any] = Registry().with_resource(base, resource)
    resolver = registry.resolver(base_uri=base)
    bad: list[str] = []
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, nested_id = stack.pop()
        if isinstance(node, list):
            stack.extend((item, nested_id) for item in node)
            continue
        if not isinstance(node, Mapping):
            continue
        below = nested_id or (node is not schema and isinstance(node.get("$id"), str))
        ref = node.get("$ref")
        if isinstance(ref, str) and not below:  # a nested $id moves the base: not checked
            try:
                resolver.lookup(ref)
            except Unresolvable:
                bad.append(ref)
        for key, value in node.items():
            if key not in ("const", "enum", "examples", "default"):  # data, not schemas
                stack.append((value, below))
    return bad


def _check_refs(schema: Mapping[str, Any], whose: str) -> None:
    bad = unresolvable_refs(schema)
    if bad:
        listed = ", ".join(repr(ref) for ref in bad)
        raise click.BadParameter(f"cannot resolve $ref {listed} in {whose}")


def tool_schemas(target: Any) -> dict[str, Mapping[str, Any]]:
    """Action name -> JSON Schema, from a ``{name: schema}`` mapping or a tools list
    (``{"type": "function", "function": {"name", "parameters"}}``, the Responses API's
    ``{"type": "function", "name", "parameters"}``, or Anthropic's ``{"name", "input_schema"}``)."""
    if is_single_schema(target):
        raise click.BadParameter(
            "this is a single JSON Schema, but the action protocols need one schema per "
            "action: give {action name: schema}, a tools list (OpenAI or Anthropic format) "
            "or a module:registry (a single schema is for --protocol json)"
        )
    if isinstance(target, Mapping):
        pairs = list(target.items())
    elif isinstance(target, list):
        pairs = [_tool_pair(tool) for tool in target]
    else:
        raise click.BadParameter("the schema file must be an object or a list of tools")
    schemas: dict[str, Mapping[str, Any]] = {}
    for name, schema in pairs:
        if not isinstance(name, str) or not isinstance(schema, Mapping):
            raise click.BadParameter(f"the schema of action {name!r} must be a JSON object")
        schemas[name] = schema
    return schemas


def _tool_pair(tool: Any) -> tuple[Any, Any]:
    if isinstance(tool, Mapping):
        spec = tool.get("function", tool)
        if isinstance(spec, Mapping) and "name" in spec:
            return spec["name"], spec.get("parameters", spec.get("input_schema", {}))
    raise click.BadParameter(f"not a tool definition: {json.dumps(tool)[:80]}")


def action_validator(target: Any) -> ActionValidator:
    """A validator for actions: the target itself when it has ``validate``, else an
    ``ActionRegistry`` built from its JSON Schemas."""
    if callable(getattr(target, "validate", None)) and not isinstance(target, (Mapping, list)):
        validator: ActionValidator = target
        return validator
    schemas = tool_schemas(target)
    with needs_extra("actions", "--schema"):
        from jsonschema.exceptions import SchemaError

        from unspool.actions._registry import ActionRegistry
    registry = ActionRegistry()
    for name, schema in schemas.items():
        _check_refs(schema, f"the schema of action {name!r}")
        try:
            registry.register(name, schema=schema)
        except SchemaError as exc:
            raise click.BadParameter(f"invalid JSON Schema for {name!r}: {exc.message}") from None
    return registry


def document_validator(target: Any) -> Callable[[Any], SchemaCheck]:
    """A check of a whole JSON value against the JSON Schema ``target``."""
    if not isinstance(target, Mapping):
        raise click.BadParameter("for --protocol json, --schema must be a JSON Schema object")
    with needs_extra("actions", "--schema"):
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for
        from referencing.exceptions import Unresolvable

        from unspool.actions._validation import jsonschema_errors
    schema = dict(target)
    cls = validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        raise click.BadParameter(f"invalid JSON Schema: {exc.message}") from None
    _check_refs(schema, "the schema")
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def check(value: Any) -> SchemaCheck:
        try:
            errors = jsonschema_errors(validator, value)
        except Unresolvable as exc:  # a $ref the eager check could not see (a nested $id)
            raise click.BadParameter(
                f"cannot resolve a $ref in the schema: {exc}", param_hint="'--schema'"
            ) from None
        return SchemaCheck(not errors, errors)

    return check


def validators_for(
    spec: str | None, protocol: str
) -> tuple[ActionValidator | None, Callable[[Any], SchemaCheck] | None]:
    """``(registry, document check)`` for ``--schema spec`` under ``protocol``: the
    check for ``json``, the registry for the action protocols; ``(None, None)``
    without the option."""
    if spec is None:
        return None, None
    try:
        target = load_schema_target(spec)
        if protocol == "json":
            return None, document_validator(target)
        return action_validator(target), None
    except click.BadParameter as exc:
        exc.param_hint = "'--schema'"
        raise

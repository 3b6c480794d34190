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

from unspool.cli.records import SchemaCheck
from unspool.protocols.emitter import ActionValidator

__all__ = [
    "action_validator",
    "document_validator",
    "load_schema_target",
    "tool_schemas",
    "validators_for",
]

_NEEDS_ACTIONS = "--schema needs the actions extra: pip install 'unspool[actions]'"


def load_schema_target(spec: str) -> Any:
    """The object ``--schema`` names: a JSON file's content, or ``module:attribute``."""
    path = Path(spec)
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise click.BadParameter(f"{spec} is not a JSON file ({exc})") from None
    module_name, colon, attribute = spec.partition(":")
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


def tool_schemas(target: Any) -> dict[str, Mapping[str, Any]]:
    """Action name -> JSON Schema, from a ``{name: schema}`` mapping or a tools list
    (``{"type": "function", "function": {"name", "parameters"}}``, the Responses API's
    ``{"type": "function", "name", "parameters"}``, or Anthropic's ``{"name", "input_schema"}``)."""
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
    try:
        from jsonschema.exceptions import SchemaError

        from unspool.actions.registry import ActionRegistry
    except ImportError:
        raise click.BadParameter(_NEEDS_ACTIONS) from None
    registry = ActionRegistry()
    for name, schema in schemas.items():
        try:
            registry.register(name, schema=schema)
        except SchemaError as exc:
            raise click.BadParameter(f"invalid JSON Schema for {name!r}: {exc.message}") from None
    return registry


def document_validator(target: Any) -> Callable[[Any], SchemaCheck]:
    """A check of a whole JSON value against the JSON Schema ``target``."""
    if not isinstance(target, Mapping):
        raise click.BadParameter("for --protocol json, --schema must be a JSON Schema object")
    try:
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        from unspool.actions.validation import jsonschema_errors
    except ImportError:
        raise click.BadParameter(_NEEDS_ACTIONS) from None
    schema = dict(target)
    cls = validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        raise click.BadParameter(f"invalid JSON Schema: {exc.message}") from None
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def check(value: Any) -> SchemaCheck:
        errors = jsonschema_errors(validator, value)
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

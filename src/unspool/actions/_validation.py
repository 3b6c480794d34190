"""Structured validation errors, the same shape for Pydantic and JSON Schema.

Every error is a JSON-ready dict ``{"path": [...], "message": str, "type": str}``:
``path`` lists the keys and indices from the action's args to the offending
value (for a missing or an unexpected field, the path ends with that field's
name), ``message`` is human- and model-readable, ``type`` names the rule that
failed (Pydantic's error type such as ``"missing"`` or ``"int_parsing"``; for
JSON Schema, the keyword such as ``"required"``, ``"type"`` or ``"enum"``).
The list is ready to be sent back to the model for a retry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pydantic
from jsonschema.exceptions import ValidationError as SchemaValidationError
from jsonschema.protocols import Validator

__all__ = ["ErrorDict", "error", "jsonschema_errors", "pydantic_errors"]

ErrorDict = dict[str, Any]


def error(path: list[str | int], message: str, type_: str) -> ErrorDict:
    """One structured error."""
    return {"path": path, "message": message, "type": type_}


def pydantic_errors(exc: pydantic.ValidationError) -> tuple[ErrorDict, ...]:
    """The errors of a Pydantic ``ValidationError``, in Pydantic's order."""
    return tuple(
        error(list(item["loc"]), item["msg"], item["type"])
        for item in exc.errors(include_url=False, include_input=False)
    )


def jsonschema_errors(validator: Validator, instance: Any) -> tuple[ErrorDict, ...]:
    """Every error ``validator`` finds in ``instance``, ordered by path (stable)."""
    found = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    out: list[ErrorDict] = []
    for err in found:
        out.extend(_from_jsonschema(err))
    return tuple(out)


def _from_jsonschema(err: SchemaValidationError) -> list[ErrorDict]:
    path: list[str | int] = list(err.absolute_path)
    keyword = str(err.validator)
    instance = err.instance
    required = err.validator_value
    if keyword == "required" and isinstance(instance, Mapping) and isinstance(required, list):
        # jsonschema yields one error per missing property; point the path at it.
        for name in required:
            if name not in instance and err.message == f"{name!r} is a required property":
                return [error([*path, name], err.message, keyword)]
    if keyword == "additionalProperties" and isinstance(instance, Mapping):
        extras = _unexpected_keys(err.schema, instance)
        if extras:
            return [error([*path, key], f"unexpected property {key!r}", keyword) for key in extras]
    return [error(path, err.message, keyword)]


def _unexpected_keys(schema: Any, instance: Mapping[str, Any]) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    declared = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in declared and not any(re.search(p, key) for p in patterns)
    ]

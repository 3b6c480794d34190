"""Argument schemas each provider's strict (constrained-decoding) tool mode accepts.

``registry.tools(format, strict=True)`` sends each action's JSON Schema through one of
these, so the provider decodes arguments that fit it:

* :func:`openai_strict` (Chat Completions and Responses ``strict: true``): every object
  gets ``additionalProperties: false`` and lists every property in ``required``; a
  property that was optional becomes nullable (``"type": ["string", "null"]``, a ``null``
  variant of an ``anyOf``), and a ``null`` default is dropped. Kept: ``type``, ``enum``,
  ``const``, ``anyOf`` (``oneOf`` becomes one), ``$ref`` / ``$defs`` (recursion too),
  string ``pattern`` and the formats OpenAI lists, number bounds and ``multipleOf``,
  ``minItems`` / ``maxItems``;
* :func:`anthropic_strict` (``strict: true`` tools): ``additionalProperties: false`` on
  every object, ``required`` as it was; kept: ``type``, ``enum``, ``const``, ``anyOf``,
  ``allOf``, ``$ref`` / ``$defs`` (not recursive), the string formats Anthropic lists,
  ``minItems`` of 0 or 1;
* :func:`gemini_schema`: Gemini's ``Schema`` (an OpenAPI subset: upper-case types,
  ``nullable``, string enums, references inlined, ``property_ordering``), for a function
  declaration's ``parameters``.

A keyword the provider does not take is removed from its schema and stated at the end
of the ``description`` (``Must also satisfy: {"minLength": 3}``), so the model still
reads it; the registry validates the arguments against the full schema either way. A
schema the mode cannot express at all (an object with free keys, ``dict[str, X]``; a
value of any type; a recursive schema where references must go) raises
:class:`StrictSchemaError` naming where. ``$ref`` with sibling keywords is inlined (the
siblings win), as OpenAI's own helper does.

:func:`drop_absent_nulls` is the other half of "optional made nullable": a ``null`` the
model sends for a property that was optional and does not take ``null`` is read as the
property left out, so its default applies.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "STRICT_SCHEMAS",
    "StrictSchemaError",
    "anthropic_strict",
    "drop_absent_nulls",
    "gemini_schema",
    "openai_strict",
]


class StrictSchemaError(ValueError):
    """A schema a provider's strict mode cannot express (``path`` says where in the
    arguments, ``action`` names the action when a registry converted it)."""

    def __init__(
        self, provider: str, path: tuple[str, ...], reason: str, action: str | None = None
    ) -> None:
        where = "/".join(path) or "(the arguments)"
        whose = f"action {action!r}: " if action else ""
        super().__init__(f"{whose}{provider} strict mode cannot express {where}: {reason}")
        self.provider, self.path, self.reason, self.action = provider, path, reason, action


_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_ANTHROPIC_FORMATS = _OPENAI_FORMATS | {"uri"}
_NUMBER_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_TEXT = ("title", "description")


def _note(out: dict[str, Any], notes: Mapping[str, Any]) -> dict[str, Any]:
    """``out`` with ``notes`` (keywords left out) stated at the end of its description:
    ``Defaults to "x".`` for a default, ``Must also satisfy: {...}`` for the others."""
    said: list[str] = []
    rest = {k: v for k, v in notes.items() if k != "default"}
    if "default" in notes:
        said.append(f"Defaults to {json.dumps(notes['default'], ensure_ascii=False, default=str)}.")
    if rest:
        said.append(f"Must also satisfy: {json.dumps(rest, ensure_ascii=False, default=str)}")
    if said:
        text = out.get("description")
        out["description"] = "\n\n".join([text, *said] if text else said)
    return out


def _ref_name(ref: Any, provider: str, path: tuple[str, ...]) -> str:
    for prefix in ("#/$defs/", "#/definitions/"):
        if isinstance(ref, str) and ref.startswith(prefix):
            return ref[len(prefix) :]
    raise StrictSchemaError(provider, path, f"only local references are supported, not {ref!r}")


def _accepts_null(schema: Any, defs: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``schema`` admits ``null`` (references followed)."""
    if not isinstance(schema, Mapping) or not schema:
        return True  # ``{}`` or ``true``: anything
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in schema and None in schema["enum"]:
        return True
    if "const" in schema and schema["const"] is None:
        return True
    for key in ("anyOf", "oneOf"):
        if any(_accepts_null(v, defs, seen) for v in schema.get(key) or ()):
            return True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rpartition("/")[2]
        if name not in seen and name in defs:
            return _accepts_null(defs[name], defs, seen | {name})
    return kind is None and not ({"enum", "const", "anyOf", "oneOf", "$ref"} & set(schema))


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also admits ``null`` (OpenAI's way to make a property optional)."""
    kind = schema.get("type")
    if kind is not None and "enum" not in schema and "const" not in schema:
        kinds = kind if isinstance(kind, list) else [kind]
        return {**schema, "type": kinds if "null" in kinds else [*kinds, "null"]}
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    text = {k: schema[k] for k in _TEXT if k in schema}
    inner = {k: v for k, v in schema.items() if k not in _TEXT}
    return {"anyOf": [inner, {"type": "null"}], **text}


@dataclass
class _Walk:
    """One conversion: the provider's rules, the root's definitions, where we are."""

    provider: str
    defs: Mapping[str, Any]
    all_required: bool
    keep: Callable[[str, Any, Any], bool]  # (keyword, value, node type) -> kept as is

    def resolve(self, node: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
        """A node whose ``$ref`` has siblings, with the reference inlined."""
        name = _ref_name(node["$ref"], self.provider, path)
        if name not in self.defs:
            raise StrictSchemaError(self.provider, path, f"{node['$ref']!r} is not defined")
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**self.defs[name], **siblings}

    def node(self, schema: Any, path: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(schema, Mapping) or not schema:
            raise StrictSchemaError(self.provider, path, "a value of any type has no strict form")
        if "$ref" in schema:
            if len(schema) == 1:
                _ref_name(schema["$ref"], self.provider, path)
                return {"$ref": schema["$ref"]}
            schema = self.resolve(schema, path)
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
            schema = {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}
            return self.node(schema, path)
        kind = schema.get("type")
        out: dict[str, Any] = {}
        notes: dict[str, Any] = {}
        for key, value in schema.items():
            if key in ("properties", "required", "additionalProperties", "$defs", "definitions"):
                continue
            if key in _TEXT or key == "type":
                out[key] = value
            elif key in ("anyOf", "oneOf"):
                out["anyOf"] = [self.node(v, (*path, key, str(i))) for i, v in enumerate(value)]
            elif key == "allOf" and self.keep(key, value, kind):
                out["allOf"] = [self.node(v, (*path, key, str(i))) for i, v in enumerate(value)]
            elif key == "items" and isinstance(value, Mapping):
                out["items"] = self.node(value, (*path, "items"))
            elif key == "default" and value is None:
                continue  # a null default: the nullable property says it
            elif key in ("enum", "const") or self.keep(key, value, kind):
                out[key] = value
            else:
                notes[key] = value
        if kind == "object" or "properties" in schema:
            self.object(schema, out, path)
        elif kind == "array" and "items" not in schema:
            raise StrictSchemaError(self.provider, path, "an array needs the schema of its items")
        if "type" not in out and not {"anyOf", "allOf", "enum", "const"} & set(out):
            raise StrictSchemaError(self.provider, path, "a value of any type has no strict form")
        return _note(out, notes)

    def object(self, schema: Mapping[str, Any], out: dict[str, Any], path: tuple[str, ...]) -> None:
        extra = schema.get("additionalProperties")
        properties = schema.get("properties")
        if extra not in (None, False) or not isinstance(properties, Mapping):
            raise StrictSchemaError(
                self.provider, path, "an object with free keys (a map) has no strict form"
            )
        required = [k for k in schema.get("required") or () if k in properties]
        converted: dict[str, Any] = {}
        for key, value in properties.items():
            prop = self.node(value, (*path, key))
            if self.all_required and key not in required and not _accepts_null(prop, self.defs):
                prop = _nullable(prop)
            converted[key] = prop
        out["type"] = out.get("type", "object")
        out["properties"] = converted
        out["required"] = list(properties) if self.all_required else required
        out["additionalProperties"] = False

    def root(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
        top = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
        if "$ref" in top:  # a recursive model's root: its definition, inlined
            top = self.resolve(top, ())
        out = self.node(top, ())
        if out.get("type") != "object":
            raise StrictSchemaError(self.provider, (), "the arguments must be an object")
        if defs:
            out["$defs"] = {name: self.node(d, ("$defs", name)) for name, d in defs.items()}
            if "definitions" in schema:  # one place for every definition
                out = json.loads(json.dumps(out).replace('"#/definitions/', '"#/$defs/'))
        return out


def _openai_keeps(key: str, value: Any, kind: Any) -> bool:
    if key == "format":
        return value in _OPENAI_FORMATS
    return key in (*_NUMBER_BOUNDS, "pattern", "minItems", "maxItems")


def openai_strict(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` in OpenAI's strict subset (see the module's documentation)."""
    walk = _Walk("openai", _defs(schema), True, _openai_keeps)
    return walk.root(schema)


def _anthropic_keeps(key: str, value: Any, kind: Any) -> bool:
    if key == "format":
        return value in _ANTHROPIC_FORMATS
    if key == "minItems":
        return value in (0, 1)
    return key == "allOf"


def anthropic_strict(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` in the subset Anthropic's strict tool use takes (see the module docs)."""
    defs = _defs(schema)
    _no_cycle("anthropic", defs)
    return _Walk("anthropic", defs, False, _anthropic_keeps).root(schema)


def _defs(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}


def _no_cycle(provider: str, defs: Mapping[str, Any]) -> None:
    """Raise if a definition refers to itself, directly or not."""

    def refs(value: Any) -> set[str]:
        if isinstance(value, Mapping):
            found = {str(value["$ref"]).rpartition("/")[2]} if "$ref" in value else set()
            return found.union(*(refs(v) for v in value.values()))
        if isinstance(value, list):
            return set().union(*(refs(v) for v in value))
        return set()

    graph = {name: refs(d) & set(defs) for name, d in defs.items()}
    for start in graph:
        stack, seen = list(graph[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                raise StrictSchemaError(provider, ("$defs", start), "a recursive schema")
            if name not in seen:
                seen.add(name)
                stack.extend(graph[name])


# ------------------------------------------------------------------------------- Gemini

_GEMINI_FORMATS = {
    "STRING": {"date-time", "enum"},
    "NUMBER": {"float", "double"},
    "INTEGER": {"int32", "int64"},
}
_GEMINI_KEEP = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "min_items",
    "maxItems": "max_items",
    "default": "default",
    "title": "title",
    "description": "description",
}


def gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as Gemini's ``Schema`` (for ``parameters``; see the module's docs)."""
    out = _gemini(schema, _defs(schema), (), ())
    if out.get("type") != "OBJECT":
        raise StrictSchemaError("gemini", (), "the arguments must be an object")
    return out


def _gemini(
    schema: Any, defs: Mapping[str, Any], path: tuple[str, ...], refs: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(schema, Mapping) or not schema:
        raise StrictSchemaError("gemini", path, "a value of any type has no Gemini form")
    if "$ref" in schema:
        name = _ref_name(schema["$ref"], "gemini", path)
        if name in refs:
            raise StrictSchemaError("gemini", path, "a recursive schema (references are inlined)")
        if name not in defs:
            raise StrictSchemaError("gemini", path, f"{schema['$ref']!r} is not defined")
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        return _gemini({**defs[name], **siblings}, defs, path, (*refs, name))
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        return _gemini(
            {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}, defs, path, refs
        )
    out: dict[str, Any] = {}
    notes: dict[str, Any] = {}
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if "null" in kinds:
        out["nullable"] = True
        kinds = [k for k in kinds if k != "null"]
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list):
        rest = [v for v in variants if not (isinstance(v, Mapping) and v.get("type") == "null")]
        if len(rest) < len(variants):
            out["nullable"] = True
        converted = [_gemini(v, defs, (*path, "anyOf", str(i)), refs) for i, v in enumerate(rest)]
        if len(converted) == 1:
            out = {**converted[0], **out}
        else:
            out["any_of"] = converted
    if len(kinds) == 1:
        out["type"] = str(kinds[0]).upper()
    elif len(kinds) > 1:
        out["any_of"] = [{"type": str(k).upper()} for k in kinds]
    enum = schema.get("enum")
    if "const" in schema:
        enum = [schema["const"]]
    if enum is not None:
        values = [v for v in enum if v is not None]
        if None in enum:
            out["nullable"] = True
        if all(isinstance(v, str) for v in values):
            out.update(type="STRING", format="enum", enum=values)
        else:
            notes["enum"] = enum
            out.setdefault("type", _json_type(values[0]) if values else "STRING")
    for key, value in schema.items():
        if key in _GEMINI_KEEP and not (key == "default" and value is None):
            out[_GEMINI_KEEP[key]] = value
        elif key == "format":
            if value in _GEMINI_FORMATS.get(out.get("type", ""), ()):
                out["format"] = value
            elif out.get("format") != "enum":
                notes["format"] = value
        elif key == "items" and isinstance(value, Mapping):
            out["items"] = _gemini(value, defs, (*path, "items"), refs)
        elif key not in (
            "type",
            "enum",
            "const",
            "anyOf",
            "oneOf",
            "allOf",
            "properties",
            "required",
            "additionalProperties",
            "$defs",
            "definitions",
            "items",
            "default",
        ):
            notes[key] = value
    if kinds == ["object"] or "properties" in schema:
        extra = schema.get("additionalProperties")
        properties = schema.get("properties") or {}
        if (extra is not None and extra is not False) or ("properties" not in schema and path):
            raise StrictSchemaError(
                "gemini", path, "an object with free keys (a map) has no Gemini form"
            )
        out["type"] = "OBJECT"
        out["properties"] = {
            key: _gemini(value, defs, (*path, key), refs) for key, value in properties.items()
        }
        out["required"] = [k for k in schema.get("required") or () if k in properties]
        out["property_ordering"] = list(properties)
    elif kinds == ["array"] and "items" not in out:
        raise StrictSchemaError("gemini", path, "an array needs the schema of its items")
    if "type" not in out and "any_of" not in out:
        raise StrictSchemaError("gemini", path, "a value of any type has no Gemini form")
    return _note(out, notes)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INTEGER"
    return "NUMBER" if isinstance(value, float) else "STRING"


STRICT_SCHEMAS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "openai": openai_strict,
    "openai_responses": openai_strict,
    "anthropic": anthropic_strict,
    "gemini": gemini_schema,
}
"""The strict schema of each tool format that has one."""


# ----------------------------------------------------------------- reading what came back


def drop_absent_nulls(schema: Mapping[str, Any], args: Any) -> Any:
    """``args`` without the ``null`` of each property that was optional and does not take
    ``null`` (what a strict-mode model sends for a property it leaves out), in nested
    objects and array items too; anything else unchanged (a new value only where a
    ``null`` was dropped)."""
    return _drop(schema, args, _defs(schema), 0)


def _drop(schema: Any, value: Any, defs: Mapping[str, Any], depth: int) -> Any:
    if depth > 64 or not isinstance(schema, Mapping):
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rpartition("/")[2])
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}} if target else {}
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        schema = {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}
    if isinstance(value, dict):
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            return value
        required = set(schema.get("required") or ())
        out = value
        for key, item in value.items():
            prop = properties.get(key)
            if prop is None:
                continue
            if item is None and key not in required and not _accepts_null(prop, defs):
                new: Any = _DROPPED
            else:
                new = _drop(_variant(prop, item, defs), item, defs, depth + 1)
            if new is not item:
                out = dict(out) if out is value else out
                if new is _DROPPED:
                    del out[key]
                else:
                    out[key] = new
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        items = [_drop(schema["items"], v, defs, depth + 1) for v in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


_DROPPED = object()


def _variant(schema: Any, value: Any, defs: Mapping[str, Any]) -> Any:
    """For an ``anyOf``, the object variant a dict value is read against (the only one)."""
    variants = schema.get("anyOf") if isinstance(schema, Mapping) else None
    if not isinstance(variants, list) or not isinstance(value, dict):
        return schema
    objects = [v for v in variants if isinstance(v, Mapping) and v.get("type") != "null"]
    return objects[0] if len(objects) == 1 else schema

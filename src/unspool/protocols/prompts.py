"""Format instructions for the model: how to write a reply that a protocol parser reads.

:func:`format_instructions` writes the part of a system prompt that tells a model the
reply's format (the interleaved array, or action tags in prose), each action's name,
description and JSON Schema, and a short example reply (:func:`example_reply`), which
the protocol's parser reads with no diagnostic, strict or lenient::

    prompt = format_instructions(registry, "tags")  # or "interleaved"
    messages = [{"role": "system", "content": f"You run the shop's assistant.\\n\\n{prompt}"}]

The actions come from an ``ActionRegistry`` (anything with ``tools("json")``), a mapping
of each action's name to the JSON Schema of its arguments, or a list of tool definitions
(the ``"json"``, OpenAI, Anthropic, Gemini or Bedrock shapes). Provider tool calls need
no instructions: the request's ``tools=`` (``registry.tools(...)``) carries the schemas.

Adding a format: a protocol is one row of :data:`PROTOCOLS` (its instructions from the
actions and the options). For ``"tags"`` every named :class:`TagFormat` of
:mod:`unspool.protocols._tag_formats` is written from its delimiters: the name in an
attribute of the open tag, under a key of the JSON body, or fixed; a format whose calls
take another shape adds its writer to :data:`CALL_WRITERS` under the format's name.
An open-weights model format (``format="qwen3_coder"``, a row of
:data:`~unspool.protocols._model_formats.MODEL_FORMATS`) is written by its row's writer:
its calls as the family writes them (those models usually learn the format from their
chat template, so these instructions matter when the tools are not passed to it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unspool.protocols._model_formats import MODEL_FORMATS, ModelFormat
from unspool.protocols._tag_formats import FORMATS, TagFormat, resolve_format

__all__ = [
    "CALL_WRITERS",
    "PROTOCOLS",
    "ActionDoc",
    "PromptOptions",
    "action_docs",
    "example_args",
    "example_reply",
    "format_instructions",
    "write_call",
]


@dataclass(frozen=True, slots=True)
class ActionDoc:
    """One action as the instructions present it: ``schema`` is the JSON Schema of its
    arguments, ``example`` arguments that satisfy it (made from the schema when None)."""

    name: str
    description: str | None
    schema: Mapping[str, Any]
    example: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PromptOptions:
    """What the protocol writers read besides the actions: the tag ``format`` (for
    ``"tags"``), the action the example reply calls (``example_action``; default the
    first) and the two texts around its call."""

    format: TagFormat = field(default_factory=lambda: FORMATS["action"])
    example_action: str | None = None
    model: ModelFormat | None = None  # an open-weights format: written by its row
    before: str = "Sure, doing it now."
    after: str = "Anything else?"


def action_docs(
    actions: Any, examples: Mapping[str, Mapping[str, Any]] | None = None
) -> list[ActionDoc]:
    """The actions of a registry, a ``{name: JSON Schema}`` mapping or a tools list, with
    the example arguments given for some of them in ``examples`` (by name)."""
    tools = actions.tools("json") if callable(getattr(actions, "tools", None)) else actions
    docs: list[ActionDoc] = []
    if isinstance(tools, Mapping):
        for name, schema in tools.items():
            if not isinstance(schema, Mapping):
                raise TypeError(f"the schema of action {name!r} is not a JSON object")
            docs.append(_doc(str(name), schema.get("description"), schema))
    elif isinstance(tools, Iterable) and not isinstance(tools, (str, bytes)):
        docs = [_doc(*_tool_parts(tool)) for tool in tools]
    else:
        raise TypeError(
            "actions must be an ActionRegistry, a {name: JSON Schema} mapping or a tools list"
        )
    if not docs:
        raise ValueError("there are no actions to describe")
    examples = examples or {}
    unknown = sorted(set(examples) - {doc.name for doc in docs})
    if unknown:
        raise ValueError(f"examples given for unknown actions: {', '.join(unknown)}")
    return [
        ActionDoc(d.name, d.description, d.schema, examples.get(d.name, d.example)) for d in docs
    ]


def _tool_parts(tool: Any) -> tuple[str, str | None, Mapping[str, Any]]:
    if not isinstance(tool, Mapping):
        raise TypeError(f"not a tool definition: {tool!r}")
    spec = tool.get("function") or tool.get("toolSpec") or tool
    name = spec.get("name") if isinstance(spec, Mapping) else None
    if not isinstance(name, str):
        raise TypeError(f"not a tool definition (no name): {tool!r}")
    schema: Any = {}
    for key in ("parameters", "input_schema", "parameters_json_schema", "inputSchema"):
        if key in spec:
            schema = spec[key]
            break
    if isinstance(schema, Mapping) and set(schema) == {"json"}:  # Bedrock: {"json": schema}
        schema = schema["json"]
    if not isinstance(schema, Mapping):
        raise TypeError(f"the schema of tool {name!r} is not a JSON object")
    return name, spec.get("description"), schema


def _doc(name: str, description: Any, schema: Mapping[str, Any]) -> ActionDoc:
    shown = {k: v for k, v in schema.items() if k not in ("title", "description")}
    text = description if isinstance(description, str) and description.strip() else None
    return ActionDoc(name, text.strip() if text else None, _untitled(shown))


_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
"""Keywords whose value maps names (never keywords) to schemas."""
_VALUES = frozenset({"enum", "const", "default", "examples"})
"""Keywords whose value is data, not a schema."""


def _untitled(schema: Any) -> Any:
    """``schema`` without its ``title`` keywords (Pydantic titles every field after its
    name: tokens that tell the model nothing); a property named ``title`` stays."""
    if isinstance(schema, list):
        return [_untitled(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _NAMED_SCHEMAS and isinstance(value, Mapping):
            out[key] = {name: _untitled(sub) for name, sub in value.items()}
        else:
            out[key] = value if key in _VALUES else _untitled(value)
    return out


# ----------------------------------------------------------------------- example arguments

_FORMAT_EXAMPLES = {
    "date-time": "2025-01-31T09:00:00Z",
    "date": "2025-01-31",
    "time": "09:00:00",
    "email": "ada@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}
_MAX_DEPTH = 32


def example_args(schema: Mapping[str, Any]) -> Any:
    """A value for ``schema`` built from it: its ``examples``, ``default``, ``const`` or
    first ``enum`` value where it has one, else a value of its type (each required
    property of an object, every property when none is required; one item of an array;
    a number within its bounds; a string of its ``format``). A ``pattern`` is not
    followed: give such an action its own example."""
    return _example(schema, schema, 0)


def _example(schema: Any, root: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return "text"
    for key in ("examples", "enum"):
        values = schema.get(key)
        if isinstance(values, list) and values:
            return values[0]
    for key in ("default", "const"):
        if key in schema:
            return schema[key]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        return _example(_pointer(root, ref), root, depth + 1)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            chosen = next((o for o in options if not _is_null(o)), options[0])
            return _example(chosen, root, depth + 1)
    parts = schema.get("allOf")
    if isinstance(parts, list) and parts:
        values = [_example(part, root, depth + 1) for part in parts]
        if all(isinstance(v, dict) for v in values):
            return {k: v for value in values for k, v in value.items()}
        return values[0]
    return _typed(schema, _type_of(schema), root, depth)


def _typed(schema: Mapping[str, Any], kind: str, root: Mapping[str, Any], depth: int) -> Any:
    if kind == "object":
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        required = schema.get("required")
        names = [n for n in required if n in props] if isinstance(required, list) else []
        return {n: _example(props[n], root, depth + 1) for n in names or list(props)}
    if kind == "array":
        item = _example(schema.get("items", {}), root, depth + 1)
        count = schema.get("minItems")
        return [item] * (count if isinstance(count, int) and count > 1 else 1)
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    text = _FORMAT_EXAMPLES.get(str(schema.get("format")), "text")
    least = schema.get("minLength")
    if isinstance(least, int) and len(text) < least:
        text += "x" * (least - len(text))
    most = schema.get("maxLength")
    return text[:most] if isinstance(most, int) and most >= 0 else text


def _number(schema: Mapping[str, Any], integer: bool) -> int | float:
    value: float = 1 if integer else 1.5
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(low, (int, float)) and value < low:
        value = low
    floor = schema.get("exclusiveMinimum")
    if isinstance(floor, (int, float)) and value <= floor:
        value = floor + 1
    if isinstance(high, (int, float)) and value > high:
        value = high
    ceiling = schema.get("exclusiveMaximum")
    if isinstance(ceiling, (int, float)) and value >= ceiling:
        value = ceiling - 1
    return int(value) if integer else value


def _type_of(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    return "array" if "items" in schema else "string"


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "null"


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    """The part of ``root`` a local ``$ref`` (``#/$defs/Item``) points at (None if none)."""
    node: Any = root
    for part in ref.lstrip("#").split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


# ------------------------------------------------------------------------------ protocols


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _args_of(doc: ActionDoc) -> Any:
    return doc.example if doc.example is not None else example_args(doc.schema)


CallWriter = Callable[[TagFormat, str, str], str]
"""``(format, action name, arguments as JSON text) -> the action's call in the text``."""


def write_call(fmt: TagFormat, name: str, args: str) -> str:
    """One action's call in a tag format, from its delimiters (see the module docstring)."""
    writer = next((w for key, w in CALL_WRITERS.items() if FORMATS.get(key) == fmt), None)
    if writer is not None:
        return writer(fmt, name, args)
    if fmt.attributes:
        return f'{fmt.open} {fmt.name_attribute}="{name}">{args}{fmt.close}'
    if fmt.name_key is not None:
        body = f"{{{_json(fmt.name_key)}: {_json(name)}, {_json(fmt.args_keys[0])}: {args}}}"
        return f"{fmt.open}{body}{fmt.close}"
    return f"{fmt.open}{args}{fmt.close}"


CALL_WRITERS: dict[str, CallWriter] = {}
"""Writers for named tag formats whose calls :func:`write_call` cannot spell from the
delimiters, by the format's name in :data:`~unspool.protocols._tag_formats.FORMATS`."""


def _callable(docs: Sequence[ActionDoc], fmt: TagFormat) -> list[ActionDoc]:
    """The actions a tag format can call: all of them, or the one of a fixed-name format."""
    if fmt.name is None:
        return list(docs)
    chosen = [doc for doc in docs if doc.name == fmt.name]
    if not chosen:
        raise ValueError(f"the tag format calls only {fmt.name!r}, which is not an action here")
    return chosen


def _example_doc(docs: Sequence[ActionDoc], options: PromptOptions) -> ActionDoc:
    if options.example_action is None:
        return docs[0]
    for doc in docs:
        if doc.name == options.example_action:
            return doc
    raise ValueError(f"example_action {options.example_action!r} is not one of the actions")


def _interleaved_example(docs: Sequence[ActionDoc], options: PromptOptions) -> str:
    doc = _example_doc(docs, options)
    items = [
        {"type": "text", "content": options.before},
        {"type": "action", "name": doc.name, "params": _args_of(doc)},
        {"type": "text", "content": options.after},
    ]
    return _json(items)


def _tags_example(docs: Sequence[ActionDoc], options: PromptOptions) -> str:
    if options.model is not None:
        return _model_example(docs, options)
    doc = _example_doc(_callable(docs, options.format), options)
    call = write_call(options.format, doc.name, _json(_args_of(doc)))
    return f"{options.before} {call} {options.after}"


def _action_list(docs: Sequence[ActionDoc], schema_label: str) -> str:
    lines = ["Actions:"]
    for doc in docs:
        lines.append(f"- {doc.name}: {doc.description}" if doc.description else f"- {doc.name}")
        lines.append(f"  {schema_label} (JSON Schema): {_json(doc.schema)}")
    return "\n".join(lines)


def _interleaved(docs: Sequence[ActionDoc], options: PromptOptions) -> str:
    return "\n".join(
        [
            "Reply with one JSON array and nothing else: no text before or after it, no code "
            "fence. Its items are objects, in the order things happen:",
            '- {"type": "text", "content": "..."}: text to show the user;',
            '- {"type": "action", "name": "<action>", "params": {...}}: an action to run, its '
            "params an object that matches the action's JSON Schema.",
            "Text and actions may alternate. An action runs once its item is complete; one "
            "cut off by the end of the reply never runs.",
            "",
            _action_list(docs, "params"),
            "",
            "Example reply:",
            _interleaved_example(docs, options),
        ]
    )


def _model_example(docs: Sequence[ActionDoc], options: PromptOptions) -> str:
    row = options.model
    assert row is not None
    doc = _example_doc(docs, options)
    call = row.write(doc.name, _args_of(doc))
    if all(opener.peek for opener in row.calls):  # its calls open the reply
        return f"{call} {options.after}"
    return f"{options.before} {call} {options.after}"


def _model_tags(docs: Sequence[ActionDoc], options: PromptOptions) -> str:
    row = options.model
    assert row is not None
    doc = _example_doc(docs, options)
    where = (
        "at the start of your reply"
        if all(opener.peek for opener in row.calls)
        else "where it belongs in the text"
    )
    return "\n".join(
        [
            f"Write your reply as text for the user. To call a tool, write the call {where}, "
            f"in your tool-call format ({row.family}), like this call of {doc.name}:",
            row.write(doc.name, _args_of(doc)),
            "with the tool's name and its arguments matching its JSON Schema, never inside a "
            "code block. A call runs once it is complete, in the order written; one cut off "
            "by the end of the reply never runs.",
            "",
            _action_list(docs, "arguments"),
            "",
            "Example reply:",
            _model_example(docs, options),
        ]
    )


def _tags(docs: Sequence[ActionDoc], options: PromptOptions) -> str:
    if options.model is not None:
        return _model_tags(docs, options)
    fmt = options.format
    callable_docs = _callable(docs, fmt)
    if fmt.name is not None:
        template = write_call(fmt, fmt.name, "{...}")
        what = f"To run the action {fmt.name}, write"
    else:
        template = write_call(fmt, "<action>", "{...}")
        what = "To run an action, write"
    if fmt.attributes:
        body = (
            f'its name in the {fmt.name_attribute}="..." attribute, in double quotes, and its '
            "arguments as one JSON object between the tags"
        )
    elif fmt.name_key is not None:
        body = (
            f'one JSON object between the tags: the action\'s name under "{fmt.name_key}" and '
            f'its arguments under "{fmt.args_keys[0]}"'
        )
    else:
        body = "its arguments as one JSON object between the tags"
    return "\n".join(
        [
            f"Write your reply as text for the user. {what} this where it belongs in the text:",
            template,
            f"with {body}, matching the action's JSON Schema. Write it exactly so, never "
            "inside a code block or backticks (there it is text, not an action). An action "
            "runs once its closing tag arrives, in the order written; one cut off by the end "
            "of the reply never runs.",
            "",
            _action_list(callable_docs, "arguments"),
            "",
            "Example reply:",
            _tags_example(docs, options),
        ]
    )


ProtocolWriter = Callable[[Sequence[ActionDoc], PromptOptions], str]
"""``(actions, options) -> the instructions``."""

PROTOCOLS: dict[str, tuple[ProtocolWriter, ProtocolWriter]] = {
    "interleaved": (_interleaved, _interleaved_example),
    "tags": (_tags, _tags_example),
}
"""Each protocol's instructions writer and example writer, by the protocol's name."""

_NO_INSTRUCTIONS = {"tools", "tool_calls", "toolcalls"}


def _writers(protocol: str) -> tuple[ProtocolWriter, ProtocolWriter]:
    try:
        return PROTOCOLS[protocol]
    except KeyError:
        if protocol in _NO_INSTRUCTIONS:
            raise ValueError(
                "provider tool calls need no format instructions: pass "
                "registry.tools(<the provider's format>) as the request's tools"
            ) from None
        known = ", ".join(repr(name) for name in PROTOCOLS)
        raise ValueError(f"unknown protocol {protocol!r}: expected one of {known}") from None


def _options(format: TagFormat | ModelFormat | str, example_action: str | None) -> PromptOptions:
    if isinstance(format, ModelFormat):
        return PromptOptions(model=format, example_action=example_action)
    if isinstance(format, str) and format not in FORMATS and format in MODEL_FORMATS:
        return PromptOptions(model=MODEL_FORMATS[format], example_action=example_action)
    return PromptOptions(format=resolve_format(format), example_action=example_action)


def format_instructions(
    actions: Any,
    protocol: str = "interleaved",
    *,
    format: TagFormat | ModelFormat | str = "action",
    examples: Mapping[str, Mapping[str, Any]] | None = None,
    example_action: str | None = None,
) -> str:
    """The format instructions for a system prompt: how to write a reply in ``protocol``
    (``"interleaved"`` or ``"tags"``, in the tag ``format`` given by name or as a
    :class:`TagFormat`, or an open-weights model format by name), each action's name, description and JSON Schema, and an example
    reply calling ``example_action`` (default: the first) with the arguments in
    ``examples`` or made from its schema (:func:`example_args`)."""
    writer, _ = _writers(protocol)
    options = _options(format, example_action)
    return writer(action_docs(actions, examples), options)


def example_reply(
    actions: Any,
    protocol: str = "interleaved",
    *,
    format: TagFormat | ModelFormat | str = "action",
    examples: Mapping[str, Mapping[str, Any]] | None = None,
    example_action: str | None = None,
) -> str:
    """The example reply :func:`format_instructions` shows (same arguments): text, one
    action's call, text; the protocol's parser reads it with no diagnostic."""
    _, writer = _writers(protocol)
    options = _options(format, example_action)
    return writer(action_docs(actions, examples), options)

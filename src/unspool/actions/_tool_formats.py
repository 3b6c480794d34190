"""Tool definitions by provider format: one function per shape, in one table.

:meth:`ActionRegistry.tools(format) <unspool.actions._registry.ActionRegistry.tools>`
turns every registered action into a tool definition with
``TOOL_FORMATS[format](name, description, parameters)``; a provider table row
(:mod:`unspool.sources.providers._table`) names its format in ``tool_format``.  A
provider whose tools have a new shape adds one function here.
``STRICT_TOOL_FORMATS`` holds the formats whose provider decodes arguments constrained
by the schema (``tools(format, strict=True)``), with the schema in the subset it takes
(:mod:`unspool.actions._strict_schemas`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from unspool.actions._strict_schemas import anthropic_strict, gemini_schema, openai_strict

__all__ = ["STRICT_TOOL_FORMATS", "TOOL_FORMATS", "ToolFormatter"]

ToolFormatter = Callable[[str, str | None, Mapping[str, Any]], dict[str, Any]]
"""``(name, description or None, JSON Schema of the args) -> one tool definition``."""


def _described(name: str, description: str | None) -> dict[str, Any]:
    return {"name": name, "description": description} if description else {"name": name}


def openai_chat(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """Chat Completions ``tools=``: ``{"type": "function", "function": {...}}``."""
    return {
        "type": "function",
        "function": {**_described(name, description), "parameters": parameters},
    }


def openai_responses(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """Responses API ``tools=``: ``{"type": "function", "name", ..., "parameters"}``."""
    return {"type": "function", **_described(name, description), "parameters": parameters}


def anthropic(name: str, description: str | None, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Anthropic Messages ``tools=``: ``{"name", "description", "input_schema"}``."""
    return {**_described(name, description), "input_schema": parameters}


def plain_json(name: str, description: str | None, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """For a system prompt: ``{"name", "description", "parameters"}``."""
    return {**_described(name, description), "parameters": parameters}


def gemini(name: str, description: str | None, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Gemini function declarations, the schema as ``parameters_json_schema`` (full JSON
    Schema): pass ``tools=[{"function_declarations": registry.tools("gemini")}]`` (one tool
    holding every declaration: Vertex AI refuses several function tools)."""
    return {**_described(name, description), "parameters_json_schema": parameters}


def bedrock(name: str, description: str | None, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Bedrock Converse ``toolConfig={"tools": ...}``: ``{"toolSpec": {..., "inputSchema":
    {"json": schema}}}``."""
    return {"toolSpec": {**_described(name, description), "inputSchema": {"json": parameters}}}


TOOL_FORMATS: dict[str, ToolFormatter] = {
    "openai": openai_chat,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "bedrock": bedrock,
    "ollama": openai_chat,  # Ollama's chat(tools=...) takes the Chat Completions shape
    "json": plain_json,
}
"""Every tool-definition format by name."""


def openai_chat_strict(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """Chat Completions strict function: ``function.strict: true``, OpenAI's subset."""
    function = {**_described(name, description), "parameters": openai_strict(parameters)}
    return {"type": "function", "function": {**function, "strict": True}}


def openai_responses_strict(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """Responses API strict function: ``strict: true``, OpenAI's subset."""
    schema = openai_strict(parameters)
    return {
        "type": "function",
        **_described(name, description),
        "parameters": schema,
        "strict": True,
    }


def anthropic_strict_tool(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """Anthropic strict tool use: ``strict: true``, the subset Anthropic takes."""
    schema = anthropic_strict(parameters)
    return {**_described(name, description), "input_schema": schema, "strict": True}


def gemini_declared(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """Gemini function declaration with ``parameters`` in Gemini's own ``Schema`` (left
    out for a function without arguments, which Gemini wants without an empty object)."""
    schema = gemini_schema(parameters)
    declared = _described(name, description)
    return {**declared, "parameters": schema} if schema.get("properties") else declared


STRICT_TOOL_FORMATS: dict[str, ToolFormatter] = {
    "openai": openai_chat_strict,
    "openai_responses": openai_responses_strict,
    "anthropic": anthropic_strict_tool,
    "gemini": gemini_declared,
}
"""The formats with a strict form (``registry.tools(format, strict=True)``)."""

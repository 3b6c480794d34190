"""Request bodies of both chat UI formats, covering every part type, tool state and role.

``ai_sdk_body()`` is what ``useChat`` posts after a long conversation: a system message,
user messages with files (inline image, inline text file), an assistant message with
every plain part (reasoning, text, sources, an assistant file, a data part, step
boundaries) and a tool part in every state, both as ``tool-NAME`` and as
``dynamic-tool``. ``ag_ui_body()`` is a ``RunAgentInput`` with every message role,
multimodal user content, tool calls answered, failed, malformed and pending, and the
run's tools, context, state, forwarded props and resume entries. Every file in them is
one all six providers take (an inline PNG, an inline text file); ``FILES`` lists the
others, for the per-provider matrix. The tests check both bodies against the npm
packages' own validators.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

from unspool.web.formats._ui_messages import TOOL_STATES

__all__ = [
    "PNG",
    "STATES",
    "ag_ui_body",
    "ai_sdk_body",
    "ai_sdk_tool_part",
    "png_url",
]

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
"""A 1x1 PNG."""

STATES = TOOL_STATES


def png_url() -> str:
    return "data:image/png;base64," + base64.b64encode(PNG).decode()


def ai_sdk_tool_part(state: str, call_id: str, *, dynamic: bool = False) -> dict[str, Any]:
    """A tool part in ``state``, as the AI SDK's client holds it (``get_weather``)."""
    part: dict[str, Any] = {"toolCallId": call_id, "state": state}
    if dynamic:
        part.update(type="dynamic-tool", toolName="get_weather")
    else:
        part["type"] = "tool-get_weather"
    city = {"city": "Paris"}
    if state == "input-streaming":
        part["input"] = {"city": "Par"}
    elif state == "input-available":
        part["input"] = city
    elif state == "approval-requested":
        part.update(input=city, approval={"id": f"approval-{call_id}"})
    elif state == "approval-responded":
        part.update(input=city, approval={"id": f"approval-{call_id}", "approved": True})
    elif state == "output-available":
        part.update(input=city, output={"city": "Paris", "temp_c": 21})
        part["callProviderMetadata"] = {"openai": {"itemId": "fc_1"}}
    elif state == "output-error":
        part.update(input=city, errorText="SensorError: the sensor is offline")
    else:
        approval = {"id": f"approval-{call_id}", "approved": False, "reason": "not today"}
        part.update(input=city, approval=approval)
    return part


SIGNATURE = "EqQBCkYIBxgCKkBSig"
REDACTED = "ZW5jcnlwdGVk"


def ai_sdk_body() -> dict[str, Any]:
    """A ``useChat`` body holding every part type and every tool state."""
    steps: list[dict[str, Any]] = [
        {"type": "step-start"},
        {
            "type": "reasoning",
            "text": "The user wants the weather.",
            "state": "done",
            "providerMetadata": {"anthropic": {"signature": SIGNATURE}},  # as "ai-sdk" sends it
        },
        {
            "type": "reasoning",
            "text": "",
            "providerMetadata": {"anthropic": {"redactedData": REDACTED}},
        },
        {"type": "text", "text": "Checking both ways.", "state": "done"},
    ]
    for i, state in enumerate(STATES):
        steps.append(ai_sdk_tool_part(state, f"s-1/0:{i}"))
        steps.append(ai_sdk_tool_part(state, f"s-1/0:d{i}", dynamic=True))
    steps += [
        {
            "type": "tool-lookup",
            "toolCallId": "s-1/0:bad",
            "state": "output-error",
            "rawInput": '{"q": ',
            "errorText": "invalid action (malformed_json): Expecting value",
            "toolMetadata": {"unspool": {"reason": "malformed_json", "errors": []}},
        },
        {"type": "step-start"},
        {"type": "text", "text": "It is 21 °C in Paris."},
        {"type": "source-url", "sourceId": "src-1", "url": "https://example.org/w", "title": "W"},
        {
            "type": "source-document",
            "sourceId": "src-2",
            "mediaType": "text/plain",
            "title": "Almanac",
        },
        {"type": "file", "mediaType": "image/png", "url": png_url()},
        {"type": "data-weather", "id": "card-1", "data": {"city": "Paris", "temp_c": 21}},
        ai_sdk_tool_part("output-available", "s-1/1:0"),  # the user answers after a result
    ]
    text_file = "data:text/plain;base64," + base64.b64encode("notes: ☀️".encode()).decode()
    return {
        "id": "chat-1",
        "trigger": "submit-message",
        "messageId": "m-regen",
        "userId": "user-7",
        "messages": [
            {"id": "m0", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
            {
                "id": "m1",
                "role": "user",
                "metadata": {"sentAt": 1},
                "parts": [
                    {"type": "text", "text": "Weather in Paris? Here is a map."},
                    {
                        "type": "file",
                        "mediaType": "image/png",
                        "url": png_url(),
                        "filename": "map.png",
                    },
                    {
                        "type": "file",
                        "mediaType": "text/plain",
                        "url": text_file,
                        "filename": "n.txt",
                    },
                ],
            },
            {"id": "m2", "role": "assistant", "parts": steps},
            {"id": "m3", "role": "user", "parts": [{"type": "text", "text": "Thanks!"}]},
        ],
    }


def ag_ui_body() -> dict[str, Any]:
    """A ``RunAgentInput`` with every message role and tool calls in every condition."""
    png = base64.b64encode(PNG).decode()

    def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }

    return copy.deepcopy(
        {
            "threadId": "thread-1",
            "runId": "run-2",
            "state": {"cart": ["kit-42"]},
            "tools": [
                {
                    "name": "confirm",
                    "description": "Ask the user to confirm.",
                    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                }
            ],
            "context": [{"description": "locale", "value": "fr-FR"}],
            "forwardedProps": {"plan": "pro"},
            "resume": [{"interruptId": "int-1", "status": "resolved", "payload": {"ok": True}}],
            "messages": [
                {"id": "d0", "role": "developer", "content": "Use metric units."},
                {"id": "s0", "role": "system", "content": "Be brief."},
                {
                    "id": "u1",
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Weather in Paris? Here is a map."},
                        {
                            "type": "image",
                            "source": {"type": "data", "value": png, "mimeType": "image/png"},
                        },
                    ],
                },
                {"id": "r1", "role": "reasoning", "content": "The user wants the weather."},
                {
                    "id": "a1",
                    "role": "assistant",
                    "content": "Checking.",
                    "toolCalls": [
                        call("t-1/0:0", "get_weather", '{"city": "Paris"}'),
                        call("t-1/0:1", "explode", "{}"),
                        call("t-1/0:2", "get_weather", '{"city": "Par'),
                        call("t-1/0:3", "confirm", '{"q": "Book it?"}'),
                    ],
                },
                {"id": "t0", "role": "tool", "toolCallId": "t-1/0:0", "content": '{"temp_c": 21}'},
                {
                    "id": "t1",
                    "role": "tool",
                    "toolCallId": "t-1/0:1",
                    "content": "",
                    "error": "RuntimeError: the sensor is offline",
                },
                {
                    "id": "t2",
                    "role": "tool",
                    "toolCallId": "t-1/0:2",
                    "content": [{"type": "text", "text": "cut off"}],
                },
                {
                    "id": "act1",
                    "role": "activity",
                    "activityType": "progress",
                    "content": {"step": 2},
                },
                {"id": "a2", "role": "assistant", "content": "It is 21 °C in Paris."},
                {"id": "u2", "role": "user", "content": "Thanks!"},
            ],
        }
    )

"""Each provider SDK's own request types and client, for messages unspool wrote.

``check(provider, messages)`` validates the messages against the SDK's request types
(OpenAI's and Anthropic's TypedDicts through pydantic with unknown keys refused,
google-genai's ``Content`` model, botocore's parameter validation of ``ConverseStream``,
ollama's ``Message``). ``send(provider, server, messages)`` sends them through the real
SDK (which serialises them) to the loopback replay server, answered by a one-word
reply, and returns the JSON body the SDK put on the wire.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import anthropic
import boto3
import ollama
import openai
import pydantic
from anthropic.types import MessageParam
from botocore.validate import ParamValidator
from google import genai
from google.genai import types as genai_types
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam

from tests.support.replay import ReplayServer, Reply, wire
from tests.support.replay.bedrock_wire import CONTENT_TYPE as EVENTSTREAM
from tests.support.replay.bedrock_wire import converse_events, event_stream
from tests.support.replay.gemini_wire import chunk, gemini_sse
from tests.support.replay.gemini_wire import text as gemini_text
from tests.support.replay.ollama_wire import CONTENT_TYPE as NDJSON
from tests.support.replay.ollama_wire import line, ndjson

__all__ = ["PROVIDERS", "check", "send", "wire_json"]

PROVIDERS = ("openai", "openai_responses", "anthropic", "gemini", "bedrock", "ollama")
_FORBID = pydantic.ConfigDict(extra="forbid")


def _bedrock_client(url: str = "http://127.0.0.1:9") -> Any:
    return boto3.client(
        "bedrock-runtime",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
    )


def _check_bedrock(messages: list[dict[str, Any]]) -> None:
    shape = _bedrock_client().meta.service_model.operation_model("ConverseStream").input_shape
    report = ParamValidator().validate({"modelId": "m", "messages": messages}, shape)
    assert not report.has_errors(), report.generate_report()


def _check_ollama(messages: list[dict[str, Any]]) -> None:
    """As ``chat()`` reads them: images (base64 text) as ``Image``, no unknown key."""
    for message in messages:
        assert set(message) <= set(ollama.Message.model_fields), message
        images = [ollama.Image(value=image) for image in message.get("images", ())]
        ollama.Message.model_validate({**message, "images": images or None})


CHECKS: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "openai": pydantic.TypeAdapter(
        list[ChatCompletionMessageParam], config=_FORBID
    ).validate_python,
    "openai_responses": pydantic.TypeAdapter(
        list[ResponseInputItemParam], config=_FORBID
    ).validate_python,
    "anthropic": pydantic.TypeAdapter(list[MessageParam], config=_FORBID).validate_python,
    "gemini": pydantic.TypeAdapter(list[genai_types.Content]).validate_python,
    "bedrock": _check_bedrock,
    "ollama": _check_ollama,
}


def check(provider: str, messages: list[dict[str, Any]]) -> None:
    """Validate ``messages`` with the provider SDK's request types (raises if refused)."""
    CHECKS[provider](messages)


def _reply(provider: str) -> Reply:
    if provider == "openai":
        body = wire.sse(wire.chat_chunks([wire.Text(["ok"])], "stop"), named=False, done=True)
        return Reply([body])
    if provider == "openai_responses":
        return Reply([wire.sse(wire.response_events([wire.Text(["ok"])]), named=True)])
    if provider == "anthropic":
        return Reply([wire.sse(wire.anthropic_events([wire.Text(["ok"])]), named=True)])
    if provider == "gemini":
        return Reply([gemini_sse([chunk(gemini_text("ok"), finish="STOP")])])
    if provider == "bedrock":
        return Reply([event_stream(converse_events([("text", ["ok"])]))], content_type=EVENTSTREAM)
    return Reply([ndjson([line("ok"), line(done_reason="stop")])], content_type=NDJSON)


def send(
    provider: str, server: ReplayServer, messages: list[dict[str, Any]], system: str | None = None
) -> dict[str, Any]:
    """Send ``messages`` through the provider's real SDK; the JSON body it sent."""
    server.play(_reply(provider))
    before = len(server.requests)
    if provider in ("openai", "openai_responses"):
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        if provider == "openai":
            stream: Any = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, stream=True
            )
        else:
            stream = client.responses.create(
                model="gpt-4.1-mini", input=messages, instructions=system, stream=True
            )
        list(stream)
    elif provider == "anthropic":
        aclient = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        kwargs: dict[str, Any] = {"system": system} if system else {}
        with aclient.messages.stream(
            model="claude-test", max_tokens=64, messages=messages, **kwargs
        ) as events:
            list(events)
    elif provider == "gemini":
        gclient = genai.Client(api_key="k", http_options={"base_url": server.url})
        config = {"system_instruction": system} if system else None
        list(
            gclient.models.generate_content_stream(
                model="gemini-2.5-flash", contents=messages, config=config
            )
        )
    elif provider == "bedrock":
        extra: dict[str, Any] = {"system": [{"text": system}]} if system else {}
        response = _bedrock_client(server.url).converse_stream(
            modelId="anthropic.claude-sonnet-4", messages=messages, **extra
        )
        list(response["stream"])
    else:
        oclient = ollama.Client(host=server.url)
        list(oclient.chat(model="qwen3:8b", messages=messages, stream=True))
    assert len(server.requests) == before + 1
    body = server.requests[-1][2]
    assert isinstance(body, dict)
    return body


def wire_json(value: Any) -> Any:
    """``value`` as JSON puts it on the wire: bytes as base64 text."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {k: wire_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [wire_json(v) for v in value]
    return value

"""One recorded Chat stream per OpenAI-compatible server of
:data:`unspool.sources.providers._compatible.COMPATIBLE`, in the shape each documents
(trimmed: the fields each adds, its reasoning, its usage, its comments), and one failure
per server as it reports it mid-stream.

:data:`STREAMS` maps the row's name to ``(payloads, sse_body)``; :data:`FAILURES` to the
payloads of a reply that fails after its first words.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["FAILURES", "STREAMS"]


def _chunk(model: str, choice: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    choices = [] if choice is None else [{"index": 0, "logprobs": None, "finish_reason": None, **choice}]  # fmt: skip
    return {"id": "chatcmpl-c1", "object": "chat.completion.chunk", "created": 1767225600, "model": model, "choices": choices, **extra}  # fmt: skip


def _body(payloads: list[dict[str, Any]], comments: dict[int, str] | None = None) -> bytes:
    """SSE with ``data: [DONE]`` last; ``comments`` puts ``: text`` lines before payload i."""
    out = []
    for i, payload in enumerate(payloads):
        if comments and i in comments:
            out.append(f": {comments[i]}\n\n")
        out.append("data: " + json.dumps(payload, ensure_ascii=False) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def _vllm() -> list[dict[str, Any]]:
    m = "Qwen/Qwen3-8B"
    return [
        _chunk(m, {"delta": {"role": "assistant", "content": ""}}),
        _chunk(m, {"delta": {"reasoning": "Je pense."}}),
        _chunk(m, {"delta": {"content": "Bonjour"}}),
        _chunk(m, {"delta": {"content": ""}, "finish_reason": "stop", "stop_reason": None}),
        _chunk(
            m,
            None,
            usage={
                "prompt_tokens": 12,
                "total_tokens": 17,
                "completion_tokens": 5,
                "prompt_tokens_details": None,
            },
        ),
    ]


def _llama_cpp() -> list[dict[str, Any]]:
    m = "gpt-oss-20b"
    timings = {"prompt_n": 9, "prompt_ms": 41.2, "predicted_n": 4, "predicted_ms": 80.1, "predicted_per_second": 49.9}  # fmt: skip
    return [
        _chunk(
            m,
            {"delta": {"role": "assistant", "content": None}},
            system_fingerprint="b6000",
            object="chat.completion.chunk",
        ),
        _chunk(m, {"delta": {"reasoning_content": "Hmm…"}}),
        _chunk(m, {"delta": {"content": "Salut"}}),
        _chunk(
            m,
            {"delta": {}, "finish_reason": "stop"},
            usage={"completion_tokens": 4, "prompt_tokens": 9, "total_tokens": 13},
            timings=timings,
        ),
    ]


def _lm_studio() -> list[dict[str, Any]]:
    m = "qwen/qwen3-4b"
    return [
        _chunk(m, {"delta": {"role": "assistant", "reasoning": "Réfléchir"}}, system_fingerprint=m),
        _chunk(m, {"delta": {"content": "Oui"}}, system_fingerprint=m),
        _chunk(m, {"delta": {}, "finish_reason": "stop"}, system_fingerprint=m),
        _chunk(
            m,
            None,
            usage={"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23},
            stats={},
        ),
    ]


def _ollama_v1() -> list[dict[str, Any]]:
    m = "qwen3:8b"
    first = {"id": "call_a1", "index": 0, "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}  # fmt: skip
    second = {"id": "call_b2", "index": 0, "type": "function", "function": {"name": "get_time", "arguments": '{"zone":"CET"}'}}  # fmt: skip
    return [
        _chunk(
            m,
            {"delta": {"role": "assistant", "content": "", "reasoning": "Deux outils."}},
            system_fingerprint="fp_ollama",
        ),
        _chunk(m, {"delta": {"role": "assistant", "content": "", "tool_calls": [first]}}),
        _chunk(m, {"delta": {"role": "assistant", "content": "", "tool_calls": [second]}}),
        _chunk(m, {"delta": {"role": "assistant", "content": ""}, "finish_reason": "tool_calls"}),
        _chunk(m, None, usage={"prompt_tokens": 30, "completion_tokens": 22, "total_tokens": 52}),
    ]


def _openrouter() -> list[dict[str, Any]]:
    m = "anthropic/claude-sonnet-4.5"
    detail = {"type": "reasoning.text", "text": "Vérifions.", "format": "anthropic-claude-v1", "index": 0}  # fmt: skip
    secret = {"type": "reasoning.encrypted", "data": "EqoBCkgIBx…", "format": "anthropic-claude-v1", "index": 1}  # fmt: skip
    usage = {"prompt_tokens": 14, "completion_tokens": 9, "total_tokens": 23, "cost": 0.000177, "is_byok": False, "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 5}}  # fmt: skip
    return [
        _chunk(
            m,
            {
                "delta": {
                    "role": "assistant",
                    "content": "",
                    "reasoning": "Vérifions.",
                    "reasoning_details": [detail],
                }
            },
            provider="Anthropic",
        ),
        _chunk(
            m,
            {
                "delta": {
                    "role": "assistant",
                    "content": "",
                    "reasoning": None,
                    "reasoning_details": [secret],
                }
            },
            provider="Anthropic",
        ),
        _chunk(m, {"delta": {"role": "assistant", "content": "C'est fait."}}, provider="Anthropic"),
        _chunk(
            m,
            {
                "delta": {"role": "assistant", "content": ""},
                "finish_reason": "stop",
                "native_finish_reason": "end_turn",
            },
            provider="Anthropic",
        ),
        _chunk(
            m, {"delta": {"role": "assistant", "content": ""}}, provider="Anthropic", usage=usage
        ),
    ]


def _groq() -> list[dict[str, Any]]:
    m = "openai/gpt-oss-20b"
    usage = {"queue_time": 0.05, "prompt_tokens": 75, "prompt_time": 0.004, "completion_tokens": 20, "completion_time": 0.02, "total_tokens": 95, "total_time": 0.024}  # fmt: skip
    return [
        _chunk(
            m,
            {"delta": {"role": "assistant", "content": ""}},
            system_fingerprint="fp_g",
            x_groq={"id": "req_01k"},
        ),
        _chunk(m, {"delta": {"reasoning": "Simple."}}, system_fingerprint="fp_g"),
        _chunk(m, {"delta": {"content": "Oui."}}, system_fingerprint="fp_g"),
        _chunk(
            m,
            {"delta": {}, "finish_reason": "stop"},
            system_fingerprint="fp_g",
            x_groq={"id": "req_01k", "usage": usage},
        ),
    ]


def _together() -> list[dict[str, Any]]:
    m = "deepseek-ai/DeepSeek-R1"

    def choice(text: str, **more: Any) -> dict[str, Any]:
        delta = {
            "token_id": 1000 + len(text),
            "role": "assistant",
            "content": text,
            "tool_calls": None,
        }
        return {"text": text, "seed": None, "delta": delta, **more}

    return [
        _chunk(m, {"delta": {"role": "assistant", "reasoning": "Bon."}, "text": ""}),
        _chunk(m, choice("Ciao")),
        _chunk(m, choice(" a tutti")),
        _chunk(
            m,
            choice("", finish_reason="stop"),
            usage={"prompt_tokens": 8, "completion_tokens": 6, "total_tokens": 14},
        ),
    ]


def _deepseek() -> list[dict[str, Any]]:
    m = "deepseek-reasoner"
    usage = {"prompt_tokens": 40, "completion_tokens": 18, "total_tokens": 58, "prompt_tokens_details": {"cached_tokens": 32}, "completion_tokens_details": {"reasoning_tokens": 12}, "prompt_cache_hit_tokens": 32, "prompt_cache_miss_tokens": 8}  # fmt: skip
    return [
        _chunk(
            m,
            {"delta": {"role": "assistant", "content": None, "reasoning_content": ""}},
            system_fingerprint="fp_ds",
        ),
        _chunk(
            m,
            {"delta": {"content": None, "reasoning_content": "Calculons."}},
            system_fingerprint="fp_ds",
        ),
        _chunk(
            m, {"delta": {"content": "42", "reasoning_content": None}}, system_fingerprint="fp_ds"
        ),
        _chunk(
            m,
            {"delta": {"content": "", "reasoning_content": None}, "finish_reason": "stop"},
            system_fingerprint="fp_ds",
            usage=usage,
        ),
    ]


def _mistral() -> list[dict[str, Any]]:
    m = "magistral-medium-2509"
    thinking = [{"type": "thinking", "thinking": [{"type": "text", "text": "Court."}]}]
    return [
        _chunk(m, {"delta": {"role": "assistant", "content": ""}}),
        _chunk(m, {"delta": {"content": thinking}}, p="abcdefgh"),
        _chunk(m, {"delta": {"content": [{"type": "text", "text": "Très bien"}]}}, p="abc"),
        _chunk(
            m,
            {"delta": {"content": ""}, "finish_reason": "stop"},
            usage={"prompt_tokens": 10, "total_tokens": 16, "completion_tokens": 6},
        ),
    ]


_PAYLOADS = {
    "vLLM": _vllm(),
    "llama.cpp server": _llama_cpp(),
    "LM Studio": _lm_studio(),
    "Ollama (`/v1`)": _ollama_v1(),
    "OpenRouter": _openrouter(),
    "Groq": _groq(),
    "Together": _together(),
    "DeepSeek": _deepseek(),
    "Mistral": _mistral(),
}
_COMMENTS = {
    "OpenRouter": {0: "OPENROUTER PROCESSING", 2: "OPENROUTER PROCESSING"},
    "DeepSeek": {0: "keep-alive", 1: "keep-alive"},
}
STREAMS = {
    name: (payloads, _body(payloads, _COMMENTS.get(name))) for name, payloads in _PAYLOADS.items()
}

_FIRST = {"delta": {"role": "assistant", "content": "Part"}}
FAILURES: dict[str, list[dict[str, Any]]] = {
    "vLLM": [
        _chunk("m", _FIRST),
        {
            "object": "error",
            "message": "The engine died.",
            "type": "InternalServerError",
            "param": None,
            "code": 500,
        },
    ],
    "llama.cpp server": [
        _chunk("m", _FIRST),
        {"error": {"code": 500, "message": "context shift disabled", "type": "server_error"}},
    ],
    "LM Studio": [_chunk("m", _FIRST), {"error": "Model unloaded."}],
    "Ollama (`/v1`)": [
        _chunk("m", _FIRST),
        {"error": {"message": "model runner stopped", "type": "api_error"}},
    ],
    "OpenRouter": [
        _chunk("m", _FIRST),
        _chunk(
            "m",
            {"delta": {"content": ""}, "finish_reason": "error"},
            error={"code": 502, "message": "Provider disconnected"},
        ),
    ],
    "Groq": [
        _chunk("m", _FIRST),
        {
            "error": {
                "message": "Failed to call a function.",
                "type": "invalid_request_error",
                "code": "tool_use_failed",
                "failed_generation": "<function=f>{}",
            }
        },
    ],
    "Together": [
        _chunk("m", _FIRST),
        {"error": {"message": "Service unavailable", "type": "server_error"}},
    ],
    "DeepSeek": [
        _chunk("m", _FIRST),
        _chunk("m", {"delta": {"content": ""}, "finish_reason": "insufficient_system_resource"}),
    ],
    "Mistral": [
        _chunk("m", _FIRST),
        {"error": {"message": "Upstream timeout", "type": "timeout", "code": "3000"}},
    ],
}

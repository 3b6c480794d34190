"""Token usage, as each provider reports it, read into one :class:`~unspool.events.Usage`.

One row of :data:`SHAPES` per way of counting: where each count is in the provider's
record (a dotted path, snake_case; a camelCase key is found too), and which counts
add up to unspool's ``input_tokens`` / ``output_tokens`` (every input token, cached
included; every output token, reasoning included: see :class:`~unspool.events.Usage`).

A decoder hands each usage record it meets to :class:`UsageRecords` (Anthropic's
``message_delta`` completes its ``message_start``'s; Gemini repeats a cumulative one in
every chunk; OpenAI-compatible servers send one at the end): later fields replace earlier
ones, and :meth:`UsageRecords.event` reads the result once, at the end of the stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from unspool.events import Usage

__all__ = ["SHAPES", "UsageRecords", "UsageShape", "read_usage"]


@dataclass(frozen=True, slots=True)
class UsageShape:
    """Where one provider's record keeps each count: ``input`` and ``output`` are summed
    paths (unspool's totals), the others single paths; ``None`` when it has none."""

    input: tuple[str, ...]
    output: tuple[str, ...]
    total: str | None = None
    cached: tuple[str, ...] = ()  # the first present
    cache_write: str | None = None
    reasoning: str | None = None


SHAPES: dict[str, UsageShape] = {
    # Chat Completions and every compatible server (DeepSeek's cache hits, Groq's x_groq.usage)
    "openai_chat": UsageShape(
        input=("prompt_tokens",),
        output=("completion_tokens",),
        total="total_tokens",
        cached=("prompt_tokens_details.cached_tokens", "prompt_cache_hit_tokens"),
        reasoning="completion_tokens_details.reasoning_tokens",
    ),
    "openai_responses": UsageShape(
        input=("input_tokens",),
        output=("output_tokens",),
        total="total_tokens",
        cached=("input_tokens_details.cached_tokens",),
        reasoning="output_tokens_details.reasoning_tokens",
    ),
    # input_tokens excludes what the cache read or wrote
    "anthropic": UsageShape(
        input=("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"),
        output=("output_tokens",),
        cached=("cache_read_input_tokens",),
        cache_write="cache_creation_input_tokens",
    ),
    # candidatesTokenCount excludes the thoughts
    "gemini": UsageShape(
        input=("prompt_token_count", "tool_use_prompt_token_count"),
        output=("candidates_token_count", "thoughts_token_count"),
        total="total_token_count",
        cached=("cached_content_token_count",),
        reasoning="thoughts_token_count",
    ),
    # inputTokens excludes what the cache read or wrote
    "bedrock": UsageShape(
        input=("input_tokens", "cache_read_input_tokens", "cache_write_input_tokens"),
        output=("output_tokens",),
        total="total_tokens",
        cached=("cache_read_input_tokens",),
        cache_write="cache_write_input_tokens",
    ),
    "ollama": UsageShape(input=("prompt_eval_count",), output=("eval_count",)),
}
"""One row per way of counting tokens, named by the decoder that reads it."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _count(record: Mapping[str, Any], path: str) -> int | None:
    value: Any = record
    for name in path.split("."):
        if not isinstance(value, Mapping):
            return None
        found = value.get(name)
        value = value.get(_camel(name)) if found is None else found
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return int(value)


def _sum(record: Mapping[str, Any], paths: tuple[str, ...]) -> int | None:
    counts = [c for c in (_count(record, p) for p in paths) if c is not None]
    return sum(counts) if counts else None


def read_usage(shape: str, record: Mapping[str, Any]) -> Usage | None:
    """A provider's usage record as a :class:`Usage` (``None`` when it holds no count)."""
    row = SHAPES[shape]
    input_tokens = _sum(record, row.input)
    output_tokens = _sum(record, row.output)
    total = _count(record, row.total) if row.total else None
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    cached = next((c for c in (_count(record, p) for p in row.cached) if c is not None), None)
    usage = Usage(
        input_tokens,
        output_tokens,
        total,
        cached,
        _count(record, row.cache_write) if row.cache_write else None,
        _count(record, row.reasoning) if row.reasoning else None,
        dict(record),
    )
    counted = (usage.input_tokens, usage.output_tokens, usage.total_tokens)
    return None if all(c is None for c in counted) else usage


class UsageRecords:
    """The usage records of one stream, merged (later fields replace earlier ones)."""

    __slots__ = ("_record", "_shape")

    def __init__(self) -> None:
        self._shape: str | None = None
        self._record: dict[str, Any] = {}

    def add(self, shape: str, record: Mapping[str, Any]) -> None:
        """One more record (a field set to ``None`` replaces nothing)."""
        self._shape = shape
        self._record.update((k, v) for k, v in record.items() if v is not None)

    def event(self) -> Usage | None:
        """The stream's usage, if a record held a count."""
        if self._shape is None:
            return None
        return read_usage(self._shape, self._record)

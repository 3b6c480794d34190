"""The OpenAI-compatible servers ``from_openai`` reads, and what each adds to the Chat shape.

One :class:`Compatible` row per server: where it puts its reasoning, its token usage and
its failures mid-stream, and what else it adds to a Chat Completions chunk, each with
what ``from_openai`` makes of it.  The README's table is :func:`markdown` of
:data:`COMPATIBLE` (a test holds the two together), and each row has a recorded stream
in ``tests/support/replay/compatible.py`` whose exact events a test asserts.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMPATIBLE", "Compatible", "markdown"]


@dataclass(frozen=True, slots=True)
class Compatible:
    """One OpenAI-compatible server: what it adds to the Chat shape, as read."""

    name: str
    reasoning: str  # where its reasoning text streams
    usage: str  # where its token counts come
    errors: str  # how it reports a failure mid-stream
    extras: str  # anything else it adds, and what becomes of it


COMPATIBLE: tuple[Compatible, ...] = (
    Compatible(
        "vLLM",
        "`delta.reasoning` (`reasoning_content` before 0.10): `ReasoningDelta`",
        "a last chunk with `choices: []` (`stream_options.include_usage`), or on every "
        "chunk (`continuous_usage_stats`): one `Usage`, the last counts",
        '`{"object": "error", "message", "type", "code"}`: `StreamError`',
        "`stop_reason` beside `finish_reason` (the stop string or token): kept in no event",
    ),
    Compatible(
        "llama.cpp server",
        "`delta.reasoning_content`: `ReasoningDelta`",
        "`usage` on the finishing chunk, `timings` beside it: `Usage` (`timings` not read)",
        '`{"error": {"code", "message", "type"}}`: `StreamError`',
        "`timings` (speeds in tokens per second): not an event",
    ),
    Compatible(
        "LM Studio",
        "`delta.reasoning` (or `reasoning_content`, by setting): `ReasoningDelta`",
        "a last chunk with `choices: []` and `usage`: `Usage`",
        '`{"error": {"message"}}` or `{"error": "..."}`: `StreamError`',
        "`stats` and `system_fingerprint`: no event",
    ),
    Compatible(
        "Ollama (`/v1`)",
        "`delta.reasoning`: `ReasoningDelta`",
        "a last chunk with `choices: []` (`stream_options.include_usage`): `Usage`",
        '`{"error": {"message", "type"}}`: `StreamError`',
        "calls arrive whole, several at index 0 with their own ids: each its own action",
    ),
    Compatible(
        "OpenRouter",
        "`delta.reasoning` and `delta.reasoning_details` (the same text; an encrypted "
        "detail is `Diagnostic(redacted_thinking)`)",
        "`usage` (with `cost`) on a last chunk: `Usage`, `cost` in its `raw`",
        '`error` beside `finish_reason: "error"`: `StreamError`',
        "`: OPENROUTER PROCESSING` comments (skipped), `provider`, `native_finish_reason`",
    ),
    Compatible(
        "Groq",
        '`delta.reasoning` (`reasoning_format: "parsed"`): `ReasoningDelta`',
        "`x_groq.usage` on the last chunk: `Usage`",
        "`error` with `failed_generation`: `Diagnostic(failed_generation)`, then `StreamError`",
        "`delta.executed_tools` (compound systems): `HostedTool*` events, never actions",
    ),
    Compatible(
        "Together",
        "`delta.reasoning`: `ReasoningDelta`",
        "`usage` on the finishing chunk: `Usage`",
        '`{"error": {"message", "type"}}`: `StreamError`',
        "each token also in `choices[].text`: read once (`Diagnostic(duplicate_text)`); "
        "`delta.token_id`, `seed`: no event",
    ),
    Compatible(
        "DeepSeek",
        "`delta.reasoning_content`: `ReasoningDelta`",
        "`usage` on the finishing chunk, `prompt_cache_hit_tokens`: `Usage` with "
        "`cached_input_tokens`",
        '`finish_reason: "insufficient_system_resource"`: truncated, reported',
        "`: keep-alive` comments while it queues (skipped)",
    ),
    Compatible(
        "Mistral",
        '`delta.content` as parts, `{"type": "thinking"}` ones: `ReasoningDelta`',
        "`usage` on the finishing chunk: `Usage`",
        '`{"error": ...}`: `StreamError`',
        "`p` (padding), the text parts of `delta.content`: read in order",
    ),
)
"""The OpenAI-compatible servers, one row each, in the README's order."""

_HEAD = ("server", "reasoning", "usage", "failure mid-stream", "also")


def markdown() -> str:
    """The README's table of :data:`COMPATIBLE`."""
    lines = ["| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    for row in COMPATIBLE:
        cells = (row.name, row.reasoning, row.usage, row.errors, row.extras)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

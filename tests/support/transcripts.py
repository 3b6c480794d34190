"""Transcripts of open-weights replies, written from each family's chat template,
and what :class:`~unspool.protocols._model_tags.ModelTagParser` must read from them.

Each row: ``(format, label, reply, expected)``; ``expected`` is the reply's events in
short form (see :func:`summary`): ``("text", s)``, ``("reasoning", s)``,
``("call", name, args)``, ``("invalid", name, reason)``, and last ``("done", reason)``.
"""

from __future__ import annotations

from typing import Any

from unspool.events import (
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Event,
    ReasoningDelta,
    StreamDone,
    TextDelta,
)

__all__ = ["TRANSCRIPTS", "summary"]


def summary(events: list[Event]) -> list[tuple[Any, ...]]:
    """The events in short form: deltas merged, argument deltas left out, and each
    started action checked to end exactly once."""
    out: list[tuple[Any, ...]] = []
    open_ids: set[str] = set()
    for ev in events:
        if isinstance(ev, (TextDelta, ReasoningDelta)):
            kind = "text" if isinstance(ev, TextDelta) else "reasoning"
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + ev.text)
            else:
                out.append((kind, ev.text))
        elif isinstance(ev, ActionStarted):
            assert ev.id not in open_ids
            open_ids.add(ev.id)
        elif isinstance(ev, ActionComplete):
            open_ids.remove(ev.id)
            out.append(("call", ev.name, ev.args))
        elif isinstance(ev, ActionInvalid):
            open_ids.discard(ev.id)
            out.append(("invalid", ev.name, ev.reason))
        elif isinstance(ev, StreamDone):
            out.append(("done", ev.reason))
    assert not open_ids, f"actions never ended: {open_ids}"
    return out


W = {"city": "Paris"}
NESTED = {"q": {"tags": ["a", "b"], "n": 2.5, "ok": True, "none": None}, "s": "héllo ✓ </x>"}
DONE = ("done", "complete")
CUT = ("done", "truncated")

TRANSCRIPTS: list[tuple[str, str, str, list[tuple[Any, ...]]]] = [
    # ---------------------------------------------------------------- hermes / qwen
    ("hermes", "text", "Hello there.", [("text", "Hello there."), DONE]),
    (
        "hermes",
        "reasoning then call",
        '<think>\nNeed weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}\n</tool_call><|im_end|>',
        [("reasoning", "\nNeed weather.\n"), ("text", "\n\n"), ("call", "get_weather", W), DONE],
    ),
    (
        "hermes",
        "two calls",
        'On it.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n'
        '{"name": "b", "arguments": {"x": 1}}\n</tool_call>',
        [("text", "On it.\n"), ("call", "a", {}), ("text", "\n"), ("call", "b", {"x": 1}), DONE],
    ),
    (
        "hermes",
        "nested unicode, closer inside a string",
        '<tool_call>{"name": "f", "arguments": {"q": {"tags": ["a", "b"], "n": 2.5, "ok": true, '
        '"none": null}, "s": "héllo ✓ </x>"}}</tool_call>',
        [("call", "f", NESTED), DONE],
    ),
    (
        "hermes",
        "cut off",
        'x<tool_call>{"name": "f", "arguments": {"a": "hal',
        [("text", "x"), ("invalid", "f", "truncated"), CUT],
    ),
    (
        "hermes",
        "malformed",
        '<tool_call>{"name": "f", "arguments": {"a": tru}}</tool_call> after',
        [("invalid", "f", "malformed_json"), ("text", " after"), DONE],
    ),
    (
        "hermes",
        "call inside reasoning ends it",
        '<think>plan <tool_call>{"name": "f", "arguments": {}}</tool_call></think>done',
        [("reasoning", "plan "), ("call", "f", {}), ("text", "done"), DONE],
    ),
    (
        "hermes",
        "missing closer at the end",
        '<tool_call>{"name": "f", "arguments": {"a": 1}}',
        [("call", "f", {"a": 1}), DONE],
    ),
    # ---------------------------------------------------------------- qwen3-coder
    (
        "qwen3_coder",
        "one call",
        "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
        "</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
        [("text", "Let me check.\n"), ("call", "get_weather", {"city": "Paris", "days": 3}), DONE],
    ),
    (
        "qwen3_coder",
        "two calls, multi-line value with markup",
        "<tool_call>\n<function=write>\n<parameter=code>\nif a < b:\n    x = '<p>'\n"
        "</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=run>\n</function>\n"
        "</tool_call>",
        [
            ("call", "write", {"code": "if a < b:\n    x = '<p>'"}),
            ("text", "\n"),
            ("call", "run", {}),
            DONE,
        ],
    ),
    (
        "qwen3_coder",
        "cut off",
        "<tool_call>\n<function=f>\n<parameter=a>\nhal",
        [("invalid", "f", "truncated"), CUT],
    ),
    (
        "qwen3_coder",
        "malformed",
        "<tool_call>\n<funktion=f>\n</tool_call>ok",
        [("invalid", None, "malformed_call"), ("text", "ok"), DONE],
    ),
    (
        "qwen3_coder",
        "no wrapper",
        "Ok <function=f>\n<parameter=a>\n[1, 2]\n</parameter>\n</function>\n</tool_call>",
        [("text", "Ok "), ("call", "f", {"a": [1, 2]}), DONE],
    ),
    # ---------------------------------------------------------------- GLM
    (
        "glm45",
        "reasoning and two calls",
        "<think>check</think>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
        "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
        "</tool_call>\n<tool_call>noop\n</tool_call>",
        [
            ("reasoning", "check"),
            ("text", "\n"),
            ("call", "get_weather", {"city": "Paris", "days": 3}),
            ("text", "\n"),
            ("call", "noop", {}),
            DONE,
        ],
    ),
    (
        "glm45",
        "json value",
        '<tool_call>f\n<arg_key>q</arg_key>\n<arg_value>{"tags": ["a", "b"], "n": 2.5, '
        '"ok": true, "none": null}</arg_value>\n<arg_key>s</arg_key>\n<arg_value>héllo ✓ </x>'
        "</arg_value>\n</tool_call>",
        [("call", "f", NESTED), DONE],
    ),
    ("glm45", "cut off", "<tool_call>f\n<arg_key>a", [("invalid", "f", "truncated"), CUT]),
    # ---------------------------------------------------------------- mistral
    (
        "mistral",
        "v0.3 array",
        'Sure [TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]</s>',
        [("text", "Sure "), ("call", "a", {"x": 1}), ("call", "b", {}), DONE],
    ),
    (
        "mistral",
        "v11 several",
        '[THINK]think[/THINK]ok[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
        '[TOOL_CALLS]f[ARGS]{"q": {"tags": ["a", "b"], "n": 2.5, "ok": true, "none": null}, '
        '"s": "héllo ✓ </x>"}',
        [
            ("reasoning", "think"),
            ("text", "ok"),
            ("call", "get_weather", W),
            ("call", "f", NESTED),
            DONE,
        ],
    ),
    (
        "mistral",
        "v13 call id",
        '[TOOL_CALLS]get_weather[CALL_ID]abc123XYZ[ARGS]{"city": "Paris"}',
        [("call", "get_weather", W), DONE],
    ),
    (
        "mistral",
        "cut off before the arguments",
        "[TOOL_CALLS]f[ARGS]",
        [("invalid", "f", "truncated"), CUT],
    ),
    ("mistral", "cut off", '[TOOL_CALLS]f[ARGS]{"a": [1,', [("invalid", "f", "truncated"), CUT]),
    (
        "mistral",
        "malformed",
        '[TOOL_CALLS]f[ARGS]{"a": nope}',
        [("invalid", "f", "malformed_json"), DONE],
    ),
    # ---------------------------------------------------------------- llama 3
    (
        "llama3_json",
        "bare json, two joined by ;",
        '{"name": "a", "parameters": {"x": 1}}; {"name": "b", "parameters": {}}<|eot_id|>',
        [("call", "a", {"x": 1}), ("call", "b", {}), DONE],
    ),
    (
        "llama3_json",
        "python tag builtin",
        '<|python_tag|>brave_search.call(query="héllo ✓")<|eom_id|>',
        [("call", "brave_search.call", {"query": "héllo ✓"}), DONE],
    ),
    (
        "llama3_json",
        "python tag json",
        '<|python_tag|>{"name": "f", "parameters": {"q": {"tags": ["a", "b"], "n": 2.5, '
        '"ok": true, "none": null}, "s": "héllo ✓ </x>"}}',
        [("call", "f", NESTED), DONE],
    ),
    (
        "llama3_json",
        "python tag, two joined by ;",
        '<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": "é"}}'
        "<|eom_id|>",
        [("call", "a", {}), ("call", "b", {"x": "é"}), DONE],
    ),
    (
        "llama3_json",
        "text with braces",
        "Use {braces} freely.",
        [("text", "Use {braces} freely."), DONE],
    ),
    (
        "llama3_json",
        "cut off",
        '{"name": "f", "parameters": {"a',
        [("invalid", "f", "truncated"), CUT],
    ),
    # ---------------------------------------------------------------- pythonic
    (
        "pythonic",
        "two calls",
        "[get_weather(city='Paris'), f(q={'tags': ['a', 'b'], 'n': 2.5, 'ok': True, "
        "'none': None}, s='héllo ✓ </x>')]<|eot|>",
        [("call", "get_weather", W), ("call", "f", NESTED), DONE],
    ),
    (
        "pythonic",
        "python_start",
        'Checking.<|python_start|>[get_weather(city="Paris")]<|python_end|>',
        [("text", "Checking."), ("call", "get_weather", W), DONE],
    ),
    ("pythonic", "text like a list", "[1] is a footnote.", [("text", "[1] is a footnote."), DONE]),
    ("pythonic", "cut off", "[f(a='x", [("invalid", "f", "truncated"), CUT]),
    ("pythonic", "positional", "[f(1)]", [("invalid", "f", "bad_params"), DONE]),
    # ---------------------------------------------------------------- olmo 3
    (
        "olmo3",
        "lines",
        "<think>hm</think>Ok.<function_calls>get_weather(city='Paris')\nf(a=None)</function_calls>",
        [
            ("reasoning", "hm"),
            ("text", "Ok."),
            ("call", "get_weather", W),
            ("call", "f", {"a": None}),
            DONE,
        ],
    ),
    (
        "olmo3",
        "malformed",
        "<function_calls>f(a=1 +)</function_calls>end",
        [("invalid", "f", "malformed_call"), ("text", "end"), DONE],
    ),
    # ---------------------------------------------------------------- deepseek
    (
        "deepseek",
        "v3 fenced",
        "<think>r</think>Sure<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
        'get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>'
        "function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        "<｜end▁of▁sentence｜>",
        [("reasoning", "r"), ("text", "Sure"), ("call", "get_weather", W), ("call", "f", {}), DONE],
    ),
    (
        "deepseek",
        "v3.1",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>"
        '{"q": {"tags": ["a", "b"], "n": 2.5, "ok": true, "none": null}, "s": "héllo ✓ </x>"}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        [("call", "f", NESTED), DONE],
    ),
    (
        "deepseek",
        "cut off",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1',
        [("invalid", "f", "truncated"), CUT],
    ),
    # ---------------------------------------------------------------- kimi
    (
        "kimi_k2",
        "two calls",
        "Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>'
        "functions.f:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        [("text", "Let me look."), ("call", "get_weather", W), ("call", "f", {}), DONE],
    ),
    (
        "kimi_k2",
        "malformed",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        "{bad}<|tool_call_end|><|tool_calls_section_end|>",
        [("invalid", "f", "malformed_json"), DONE],
    ),
    (
        "kimi_k2",
        "reasoning, blanks between the tokens",
        "<think>look it up</think><|tool_calls_section_begin|> <|tool_call_begin|> "
        'functions.get_weather:0 <|tool_call_argument_begin|> {"city": "Paris"} '
        "<|tool_call_end|> <|tool_calls_section_end|>",
        [("reasoning", "look it up"), ("call", "get_weather", W), DONE],
    ),
    # ---------------------------------------------------------------- harmony
    (
        "harmony",
        "analysis then call",
        "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
        [("reasoning", "Need weather."), ("call", "get_weather", W), DONE],
    ),
    (
        "harmony",
        "recipient first, no stop token",
        "<|channel|>analysis<|message|>x<|start|>assistant to=functions.f<|channel|>commentary "
        'json<|message|>{"a": 1}',
        [("reasoning", "x"), ("call", "f", {"a": 1}), DONE],
    ),
    (
        "harmony",
        "final",
        "<|channel|>analysis<|message|>t<|end|><|start|>assistant<|channel|>final<|message|>"
        "Hi ✓<|return|>",
        [("reasoning", "t"), ("text", "Hi ✓"), DONE],
    ),
    # ---------------------------------------------------------------- others
    (
        "granite",
        "list",
        'Ok<|tool_call|>[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]',
        [("text", "Ok"), ("call", "a", {"x": 1}), ("call", "b", {}), DONE],
    ),
    (
        "granite_20b_fc",
        "two, no closer",
        '<function_call> {"name": "a", "arguments": {}} <function_call> {"name": "b", '
        '"arguments": {"y": "z"}}',
        [("call", "a", {}), ("call", "b", {"y": "z"}), DONE],
    ),
    (
        "phi4_mini",
        "functools",
        'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        [("call", "get_weather", W), DONE],
    ),
    (
        "jamba",
        "tool_calls",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
        [("call", "get_weather", W), DONE],
    ),
    (
        "jamba",
        "missing name",
        '<tool_calls>[{"arguments": {}}]</tool_calls>',
        [("invalid", None, "missing_name"), DONE],
    ),
    (
        "xlam",
        "reasoning then bare list",
        '<think>t</think>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        [("reasoning", "t"), ("call", "get_weather", W), DONE],
    ),
    (
        "xlam",
        "fenced after text",
        'Let me call it.\n```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```',
        [("text", "Let me call it.\n"), ("call", "get_weather", W), DONE],
    ),
    (
        "granite",
        "tool_call string",
        '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        [("call", "get_weather", W), DONE],
    ),
    (
        "hermes",
        "an opener mentioned in reasoning",
        "<think>I could use <tool_call> for this.\nYes.</think>The answer is 4.",
        [
            ("reasoning", "I could use "),
            ("invalid", None, "malformed_json"),
            ("text", "The answer is 4."),
            DONE,
        ],
    ),
    (
        "internlm2",
        "plugin",
        'I will.<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}'
        "<|action_end|>\n",
        [("text", "I will."), ("call", "get_weather", W), ("text", "\n"), DONE],
    ),
    (
        "seed_oss",
        "seed think and call",
        "<seed:think>plan</seed:think>Ok<seed:tool_call>\n<function=get_weather>\n"
        "<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call><seed:eos>",
        [("reasoning", "plan"), ("text", "Ok"), ("call", "get_weather", W), DONE],
    ),
]

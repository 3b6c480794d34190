"""The tool-call formats open-weights models write, one row per model family.

:data:`MODEL_FORMATS` is the table :class:`~unspool.protocols._model_tags.ModelTagParser`
(``TagParser(format="qwen3_coder")``), the CLI (``unspool parse -p tags --format
NAME``) and the sources (``from_openai(stream, NAME)``, the format as the text protocol) read.  A row
says which literals open a call region and which reader of
:mod:`unspool.protocols.tag_args` reads it, the reasoning delimiters, section
wrappers around several calls, and the special tokens that are dropped (an end of
turn the server left in the text).  A new family is a row; a reader is added only
for a new argument syntax.  :func:`format_for_model` picks a row from a model's name.

The syntax of each row follows the family's chat template and documentation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MODEL_FORMATS",
    "PEEKS",
    "WRITERS",
    "CallOpener",
    "ModelFormat",
    "format_for_model",
    "markdown_table",
    "resolve_model_format",
]


@dataclass(frozen=True, slots=True)
class CallOpener:
    """A literal that opens a call region (``open``), or, with ``peek``, a shape the
    reply may start with (the region then starts at that text, which is part of it);
    ``reader`` names the argument reader and ``options`` configure it."""

    open: str
    reader: str
    options: Mapping[str, Any] = field(default_factory=dict)
    peek: str | None = None


@dataclass(frozen=True, slots=True)
class ModelFormat:
    """One model family's format (see the module docstring).  ``example`` is a reply
    with one call, as the model writes it; ``models`` says which models write it;
    ``match`` holds patterns of model names (case-insensitive) for
    :func:`format_for_model`."""

    name: str
    family: str
    models: str
    example: str
    calls: tuple[CallOpener, ...]
    reasoning: tuple[tuple[str, str], ...] = ()
    sections: tuple[tuple[str, str], ...] = ()
    drop: tuple[str, ...] = ()
    match: tuple[str, ...] = ()
    writer: str = ""

    def write(self, name: str, args: Mapping[str, Any]) -> str:
        """One call as this family writes it in the middle of a reply (:data:`WRITERS`)."""
        return WRITERS[self.writer or self.name](name, args)


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _py_call(name: str, args: Mapping[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def _raw(value: Any) -> str:
    return value if isinstance(value, str) else _j(value)


def _xml(name: str, args: Mapping[str, Any]) -> str:
    params = "".join(f"<parameter={k}>\n{_raw(v)}\n</parameter>\n" for k, v in args.items())
    return f"<function={name}>\n{params}</function>"


def _obj(name: str, args: Mapping[str, Any], key: str = "arguments") -> str:
    return _j({"name": name, key: args})


Writer = Callable[[str, Mapping[str, Any]], str]
"""``(name, arguments) -> the call's markup``."""

WRITERS: dict[str, Writer] = {
    "hermes": lambda n, a: f"<tool_call>\n{_obj(n, a)}\n</tool_call>",
    "qwen3_coder": lambda n, a: f"<tool_call>\n{_xml(n, a)}\n</tool_call>",
    "seed_oss": lambda n, a: f"<seed:tool_call>\n{_xml(n, a)}\n</seed:tool_call>",
    "glm45": lambda n, a: (
        f"<tool_call>{n}\n"
        + "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{_raw(v)}</arg_value>\n" for k, v in a.items()
        )
        + "</tool_call>"
    ),
    "mistral": lambda n, a: f"[TOOL_CALLS]{n}[ARGS]{_j(a)}",
    "llama3_json": lambda n, a: f"<|python_tag|>{_obj(n, a, 'parameters')}",
    "pythonic": lambda n, a: f"<|python_start|>[{_py_call(n, a)}]<|python_end|>",
    "olmo3": lambda n, a: f"<function_calls>{_py_call(n, a)}</function_calls>",
    "deepseek": lambda n, a: (
        f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{_j(a)}"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ),
    "kimi_k2": lambda n, a: (
        f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{n}:0"
        f"<|tool_call_argument_begin|>{_j(a)}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "harmony": lambda n, a: (
        f"<|start|>assistant<|channel|>commentary to=functions.{n} <|constrain|>json"
        f"<|message|>{_j(a)}<|call|>"
    ),
    "granite": lambda n, a: f"<|tool_call|>[{_obj(n, a)}]",
    "granite_20b_fc": lambda n, a: f"<function_call> {_obj(n, a)}",
    "phi4_mini": lambda n, a: f"functools[{_obj(n, a)}]",
    "jamba": lambda n, a: f"<tool_calls>[{_obj(n, a)}]</tool_calls>",
    "xlam": lambda n, a: f"```json\n[{_obj(n, a)}]\n```",
    "internlm2": lambda n, a: f"<|action_start|><|plugin|>{_obj(n, a, 'parameters')}<|action_end|>",
}
"""How each family writes one call, by writer name (a row's ``writer``, else its name):
format instructions and the bench use them, and tests read what they write."""


def _peek_json_call(s: str) -> bool | None:
    """``{`` then blanks then ``"``: a JSON call object at the start of the reply."""
    m = re.match(r"\{\s{0,64}", s)
    if m is None:
        return False
    if m.end() == len(s):
        return None if m.end() <= 64 else False
    return s[m.end()] == '"'


def _peek_json_list(s: str) -> bool | None:
    """``[`` then blanks then ``{``."""
    m = re.match(r"\[\s{0,64}", s)
    if m is None:
        return False
    if m.end() == len(s):
        return None if m.end() <= 64 else False
    return s[m.end()] == "{"


def _peek_py_list(s: str) -> bool | None:
    """``[`` then a (dotted) name then ``(``: a list of Python-style calls."""
    if re.match(r"\[\s{0,16}[A-Za-z_][\w.]{0,96}\s{0,16}\(", s):
        return True
    if len(s) < 140 and re.fullmatch(r"\[(\s{0,16}([A-Za-z_][\w.]{0,96}(\s{0,16})?)?)?", s):
        return None
    return False


PEEKS = {
    "json_call": _peek_json_call,
    "json_list": _peek_json_list,
    "py_list": _peek_py_list,
}
"""What a reply may start with, by name: ``peek(text)`` is True (it does), False (it
does not) or None (more text decides; each decides within a bounded length)."""

_THINK = (("<think>", "</think>"),)
_IM_END = ("<|im_end|>", "<|endoftext|>")


def _json(**options: Any) -> dict[str, Any]:
    return options


_ROWS = (
    ModelFormat(
        "qwen3_coder",
        "Qwen3-Coder",
        "Qwen3-Coder, Qwen3-Coder-Next (XML parameters typed by the tool's schema)",
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>",
        (
            CallOpener(
                "<tool_call>", "xml", {"dialect": "qwen3_coder", "closers": ("</tool_call>",)}
            ),
            # the model sometimes leaves the wrapper out
            CallOpener(
                "<function=",
                "xml",
                {"dialect": "qwen3_coder", "closers": ("</tool_call>",), "bare": True},
            ),
        ),
        reasoning=_THINK,
        drop=(*_IM_END, "</tool_call>"),
        match=(r"qwen3[-_.]?coder",),
    ),
    ModelFormat(
        "hermes",
        "Hermes, Qwen2.5, QwQ, Qwen3",
        "Hermes 2 Pro / 3, Qwen2.5, QwQ, Qwen3 (and most Hermes-style fine-tunes)",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        (CallOpener("<tool_call>", "json", _json(closers=("</tool_call>",))),),
        reasoning=_THINK,
        drop=_IM_END,
        match=(r"hermes", r"qwen", r"qwq"),
    ),
    ModelFormat(
        "glm45",
        "GLM-4.5 / 4.6",
        "GLM-4.5, GLM-4.5-Air, GLM-4.6 (string values raw, others as JSON)",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "</tool_call>",
        (CallOpener("<tool_call>", "xml", {"dialect": "glm", "closers": ("</tool_call>",)}),),
        reasoning=_THINK,
        drop=("<|user|>", "<|observation|>", "<|endoftext|>"),
        match=(r"glm-?4\.[5-9]", r"glm-?4-?(5|6)"),
    ),
    ModelFormat(
        "mistral",
        "Mistral (v0.3 and v11+ tokenizers), Magistral",
        "Mistral 7B v0.3, Nemo (a JSON array); Mistral Small 3.1+, Devstral, Magistral, "
        "Ministral 3 (NAME[ARGS]{…}, several in a row)",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        (
            CallOpener(
                "[TOOL_CALLS]",
                "either",
                {
                    "json": ("json", _json(shape="list")),
                    "other": (
                        "named_json",
                        {"ends": ("[ARGS]",), "stops": ("{",), "id_marker": "[CALL_ID]"},
                    ),
                },
            ),
        ),
        reasoning=(("[THINK]", "[/THINK]"),),
        drop=("</s>",),
        match=(r"mistral", r"magistral", r"devstral", r"ministral", r"mixtral", r"codestral"),
    ),
    ModelFormat(
        "llama3_json",
        "Llama 3.x JSON",
        "Llama 3.1, 3.2, 3.3 with JSON tool calls (several joined by ';'), and the "
        "python_tag built-in calls",
        '{"name": "get_weather", "parameters": {"city": "Paris"}}',
        (
            CallOpener("", "json", _json(seps=(";",)), peek="json_call"),
            CallOpener(
                "<|python_tag|>",
                "either",
                {
                    "json": ("json", _json(seps=(";",))),
                    "other": ("python", {"multi": True}),
                },
            ),
        ),
        drop=("<|eot_id|>", "<|eom_id|>"),
        match=(r"llama-?3",),
    ),
    ModelFormat(
        "pythonic",
        "Llama 4, Llama 3.2/3.3 pythonic",
        "Llama 4 Scout/Maverick, Llama 3.2/3.3 with the pythonic template, ToolACE",
        "[get_weather(city='Paris')]",
        (
            CallOpener("", "python", {}, peek="py_list"),
            CallOpener("<|python_start|>", "python", {"closers": ("<|python_end|>",)}),
        ),
        drop=("<|eot|>", "<|eom|>", "<|eot_id|>", "<|eom_id|>"),
        match=(r"llama-?4", r"toolace"),
    ),
    ModelFormat(
        "olmo3",
        "OLMo 3",
        "OLMo 3 Instruct / Think (one Python-style call per line)",
        "<function_calls>get_weather(city='Paris')</function_calls>",
        (
            CallOpener(
                "<function_calls>", "python", {"closers": ("</function_calls>",), "multi": True}
            ),
        ),
        reasoning=_THINK,
        drop=_IM_END,
        match=(r"olmo-?3",),
    ),
    ModelFormat(
        "deepseek",
        "DeepSeek V3 / R1 / V3.1",
        "DeepSeek V3, V3-0324, R1, R1-0528 (type, name, fenced JSON); V3.1, V3.2 (name, JSON)",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
        '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        (
            CallOpener(
                "<｜tool▁call▁begin｜>",
                "named_json",
                {
                    "ends": ("<｜tool▁sep｜>",),
                    "kinds": ("function",),
                    "fence": True,
                    "closers": ("<｜tool▁call▁end｜>",),
                },
            ),
        ),
        reasoning=_THINK,
        sections=(("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),),
        drop=("<｜end▁of▁sentence｜>",),
        match=(r"deepseek",),
    ),
    ModelFormat(
        "kimi_k2",
        "Kimi K2",
        "Kimi K2 Instruct, K2-0905, K2 Thinking",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        (
            CallOpener(
                "<|tool_call_begin|>",
                "named_json",
                {
                    "ends": ("<|tool_call_argument_begin|>",),
                    "strip": ("functions.",),
                    "suffix": r":\d+$",
                    "keep_id": True,
                    "closers": ("<|tool_call_end|>",),
                },
            ),
        ),
        reasoning=_THINK,
        sections=(("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),),
        drop=("<|im_end|>",),
        match=(r"kimi",),
    ),
    ModelFormat(
        "harmony",
        "gpt-oss (harmony)",
        "gpt-oss-20b, gpt-oss-120b (analysis channel is reasoning)",
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city": "Paris"}<|call|>',
        (
            CallOpener("<|start|>", "harmony"),
            CallOpener("<|channel|>", "harmony"),
        ),
        drop=("<|end|>", "<|call|>", "<|return|>"),
        match=(r"gpt-?oss",),
    ),
    ModelFormat(
        "granite",
        "Granite 3.x",
        "Granite 3.0 to 3.3 Instruct",
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        (
            CallOpener("<|tool_call|>", "json", _json(shape="list")),
            CallOpener("<tool_call>", "json", _json(shape="list")),  # as some versions write it
        ),
        drop=("<|end_of_text|>",),
        match=(r"granite-?3", r"granite-?4"),
    ),
    ModelFormat(
        "granite_20b_fc",
        "Granite 20B FC",
        "granite-20b-functioncalling (one object per function_call tag, no closer)",
        '<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}',
        (CallOpener("<function_call>", "json", _json()),),
        drop=("<|endoftext|>",),
        match=(r"granite-20b",),
    ),
    ModelFormat(
        "phi4_mini",
        "Phi-4-mini",
        "Phi-4-mini-instruct",
        'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        (CallOpener("functools", "json", _json(shape="list")),),
        drop=("<|end|>",),
        match=(r"phi-?4",),
    ),
    ModelFormat(
        "jamba",
        "Jamba",
        "Jamba 1.5, 1.6, 1.7",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
        (CallOpener("<tool_calls>", "json", _json(shape="list", closers=("</tool_calls>",))),),
        drop=("<|eom|>",),
        match=(r"jamba",),
    ),
    ModelFormat(
        "xlam",
        "xLAM",
        "Salesforce xLAM-2 (a bare JSON array at the start, or one in a json fence)",
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        (
            CallOpener("", "json", _json(shape="list"), peek="json_list"),
            CallOpener("```json", "json", _json(shape="list", closers=("```",))),
        ),
        reasoning=_THINK,
        drop=_IM_END,
        match=(r"xlam",),
    ),
    ModelFormat(
        "internlm2",
        "InternLM2",
        "InternLM2, InternLM2.5 chat",
        '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Paris"}}'
        "<|action_end|>",
        (CallOpener("<|action_start|><|plugin|>", "json", _json(closers=("<|action_end|>",))),),
        drop=_IM_END,
        match=(r"internlm",),
    ),
    ModelFormat(
        "seed_oss",
        "Seed-OSS",
        "ByteDance Seed-OSS-36B (seed:think reasoning, XML parameters)",
        "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
        "</function>\n</seed:tool_call>",
        (
            CallOpener(
                "<seed:tool_call>",
                "xml",
                {"dialect": "qwen3_coder", "closers": ("</seed:tool_call>",)},
            ),
        ),
        reasoning=(("<seed:think>", "</seed:think>"),),
        drop=("<seed:eos>",),
        match=(r"seed-?oss",),
    ),
)

MODEL_FORMATS: Mapping[str, ModelFormat] = {row.name: row for row in _ROWS}
"""The open-weights formats by name (see the module docstring)."""


def resolve_model_format(fmt: ModelFormat | str) -> ModelFormat:
    """A :class:`ModelFormat` given itself or its name in :data:`MODEL_FORMATS`."""
    if isinstance(fmt, ModelFormat):
        return fmt
    try:
        return MODEL_FORMATS[fmt]
    except KeyError:
        known = ", ".join(sorted(MODEL_FORMATS))
        raise ValueError(f"unknown model format {fmt!r}; known: {known}") from None


def format_for_model(model: str) -> str | None:
    """The name of the format a model writes, from its name (a Hugging Face id, an
    Ollama tag, a path): ``"Qwen/Qwen3-Coder-30B-A3B-Instruct"`` is
    ``"qwen3_coder"``; ``None`` when no row matches."""
    low = model.lower().rsplit("/", 1)[-1] if "/" in model else model.lower()
    for row in _ROWS:
        if any(re.search(p, low) for p in row.match):
            return row.name
    return None


def markdown_table() -> str:
    """The table of formats as the README shows it (a test holds the README to it)."""
    lines = [
        "| family | `format=` | models | a call as the model writes it |",
        "|---|---|---|---|",
    ]
    for row in _ROWS:
        example = row.example.replace("\n", "\\n").replace("|", "\\|")
        lines.append(f"| {row.family} | `{row.name}` | {row.models} | `{example}` |")
    return "\n".join(lines)

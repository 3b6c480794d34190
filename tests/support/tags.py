"""TagParser's notation of tag-streaming.md §6 (``T``, ``S``, ``C``...), its checks,
and the document strategies shared by the tag tests and the C fast paths' tests."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from tests.support.chunking import char_chunks, merge_events, run_chunks, splits
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Event,
    FinishReason,
    ReasoningDelta,
    StreamDone,
    TextDelta,
)
from unspool.protocols._tags import TagParser

TRUNC = {"message": "the stream ended inside this action"}


def T(text: str) -> TextDelta:
    return TextDelta(text)


def R(text: str) -> ReasoningDelta:
    return ReasoningDelta(text)


def S(
    i: int, name: str, attrs: Mapping[str, str] | None = None, action_id: str | None = None
) -> ActionStarted:
    return ActionStarted(f"stream:{i}", i, name, action_id, dict(attrs or {}))


def C(
    i: int,
    name: str,
    args: Any,
    attrs: Mapping[str, str] | None = None,
    action_id: str | None = None,
) -> ActionComplete:
    return ActionComplete(f"stream:{i}", i, name, args, action_id, dict(attrs or {}))


def I(  # noqa: E743 - the notation of tag-streaming.md §6
    i: int,
    name: str | None,
    reason: str,
    errors: tuple[Mapping[str, Any], ...],
    raw: str | None,
    action_id: str | None = None,
) -> ActionInvalid:
    return ActionInvalid(f"stream:{i}", i, name, reason, errors, raw, action_id)


def D(reason: str = "complete", ok: int = 0, bad: int = 0, chars: int = 0) -> StreamDone:
    return StreamDone(reason, ok, bad, chars)  # type: ignore[arg-type]


def chunkings(text: str) -> list[list[str]]:
    """Whole, every two-way split, one character per chunk."""
    return [[text], *splits(text), char_chunks(text)]


def args_by_action(events: Sequence[Event]) -> dict[str, str]:
    out: dict[str, str] = {}
    for ev in events:
        if isinstance(ev, ActionArgsDelta):
            assert ev.delta is not None
            out[ev.id] = out.get(ev.id, "") + ev.delta
    return out


def check_lifecycle(events: Sequence[Event]) -> None:
    """Every ActionStarted gets exactly one terminal event; StreamDone is last and once."""
    assert isinstance(events[-1], StreamDone)
    assert sum(isinstance(e, StreamDone) for e in events) == 1
    started = [e.id for e in events if isinstance(e, ActionStarted)]
    ended = [e.id for e in events if isinstance(e, (ActionComplete, ActionInvalid))]
    assert len(ended) == len(set(ended))
    assert set(started) <= set(ended)
    for ev in events:
        if isinstance(ev, ActionArgsDelta):
            assert ev.id in started


def check(
    text: str,
    expected: list[Event],
    *,
    args: Mapping[str, str] | None = None,
    reason: FinishReason | None = None,
    as_bytes: bool = False,
    **options: Any,
) -> None:
    """``text`` under every chunking gives ``expected`` (merged) and the ``args`` deltas."""
    runs: list[Sequence[str] | Sequence[bytes]] = list(chunkings(text))
    if as_bytes:
        data = text.encode()
        runs += [[data], *splits(data), char_chunks(data)]
    for chunks in runs:
        events = run_chunks(TagParser(**options, stream_id="stream"), chunks, reason)
        assert merge_events(events) == expected, chunks
        assert args_by_action(events) == dict(args or {}), chunks
        check_lifecycle(events)


PROSE_BITS = [
    "Hello",
    " ",
    "world",
    "\n",
    "a < b",
    "<br>",
    "<actor",
    "<act",
    "<action",
    "</action>",
    "</act",
    "<",
    ">",
    "/",
    "=",
    '"',
    "'",
    "你好",
    "🚀",
    "é",
    "~",
    "`",
    "``",
    "   ",
    "<think>",
    "</think>",
    "</thi",
]

STRING_BITS = ["x", " ", "</action>", '<action name="z">', '"', "\\", "\n", "你好", "🚀", "{", "}"]
prose = st.lists(st.sampled_from(PROSE_BITS), max_size=8).map("".join)
strings = st.lists(st.sampled_from(STRING_BITS), max_size=5).map("".join)
json_values = st.one_of(strings, st.integers(-5, 10**20), st.booleans(), st.none())
arguments = st.dictionaries(st.sampled_from(["q", "content", "路径", "n"]), json_values, max_size=3)


@st.composite
def actions(draw: st.DrawFn) -> str:
    """An action tag, usually well formed, sometimes broken in one way."""
    name = draw(st.sampled_from(["s", "show_product_modal", "w"]))
    quote = draw(st.sampled_from(['"', "'"]))
    tag = draw(st.sampled_from(["action", "ACTION", "Action"]))
    extra = draw(st.sampled_from(["", ' note="a>b"', " id=7", "  "]))
    body = json.dumps(draw(arguments), ensure_ascii=False)
    pad = draw(st.sampled_from(["", " ", "\n  "]))
    body = draw(
        st.sampled_from(
            [
                pad + body + pad,
                pad + body + pad,
                "",
                "{}",
                '{"q": x}',
                body + " trailing",
                body[:-1],
                '<action name="b">{}',
            ]
        )
    )
    close = draw(st.sampled_from([f"</{tag}>", f"</{tag}>", "</action>", ""]))
    return f"<{tag} name={quote}{name}{quote}{extra}>{body}{close}"


@st.composite
def fences(draw: st.DrawFn) -> str:
    char = draw(st.sampled_from(["`", "~"]))
    inner = draw(st.lists(st.one_of(prose, actions()), max_size=3).map("".join))
    closing = draw(st.sampled_from([char * 3 + "\n", char * 4 + "\n", ""]))
    return f"\n{char * 3}{draw(st.sampled_from(['', 'xml', 'json']))}\n{inner}\n{closing}"


inline_code = st.lists(
    st.one_of(st.sampled_from(["x", " ", "<", "你"]), actions()), max_size=3
).map(lambda parts: "`" + "".join(parts).replace("`", "").replace("\n", " ") + "`")

documents = st.lists(st.one_of(prose, actions(), fences(), inline_code), max_size=8).map("".join)


@st.composite
def cuts(draw: st.DrawFn, size: int) -> list[int]:
    """Sorted cut points in ``0..size``; sometimes every point (one unit per chunk)."""
    if size and draw(st.integers(0, 9)) == 0:
        return list(range(1, size))
    return sorted(draw(st.lists(st.integers(0, size), max_size=12)))


def cut(data: Any, points: list[int]) -> list[Any]:
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


LOOSE_BITS = ['"a"', '""', ", ", ",", " ", "0", "1", "{", "}", "[", "]", ":", "'x'", "True", "//"]
loose_bodies = st.lists(st.sampled_from(LOOSE_BITS), max_size=10).map("".join)


@st.composite
def loose_documents(draw: st.DrawFn, fmt: str) -> str:
    """Tags whose bodies are loose JSON-like fragments (what a model emits when it goes
    wrong), closed or not, between bits of prose."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        open_tag = '<action name="a">' if fmt == "action" else "<tool_call>"
        close = draw(st.sampled_from(["</action>" if fmt == "action" else "</tool_call>", ""]))
        parts.append(draw(st.sampled_from(["", "ok ", "a < b "])))
        parts.append(open_tag + draw(loose_bodies) + close)
    return "".join(parts)

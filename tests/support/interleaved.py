"""Builders of interleaved inputs and expected events, shared by the interleaved tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from tests.support.chunking import char_chunks, merge_events, run_chunks, splits
from unspool.events import ActionComplete, ActionStarted, Event, StreamDone, TextDelta
from unspool.protocols._emitter import Validation
from unspool.protocols._interleaved import InterleavedParser, parse_interleaved

FENCE = "`" * 3


# -- building inputs and expected events --------------------------------------------


def act(name: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "action",
        "name": name,
        "params": {} if params is None else params,
    }
    item.update(extra)
    return item


def txt(content: Any) -> dict[str, Any]:
    return {"type": "text", "content": content}


def arr(*items: Any) -> str:
    return json.dumps(list(items), ensure_ascii=False, separators=(",", ":"))


def started(i: int, name: str, action_id: str | None = None) -> ActionStarted:
    return ActionStarted(f"stream:{i}", i, name, action_id)


def complete(i: int, name: str, args: Any, action_id: str | None = None) -> ActionComplete:
    return ActionComplete(f"stream:{i}", i, name, args, action_id)


def done(reason: str = "complete", ok: int = 0, bad: int = 0, chars: int = 0) -> StreamDone:
    return StreamDone(reason, ok, bad, chars)  # type: ignore[arg-type]


def T(text: str) -> TextDelta:
    return TextDelta(text)


A = arr(act("spotlight", {"elementId": "img_1"}), txt("Hello class."), act("wb_open"), txt("Bye."))
A_EVENTS: list[Event] = [
    started(0, "spotlight"),
    complete(0, "spotlight", {"elementId": "img_1"}),
    T("Hello class."),
    started(1, "wb_open"),
    complete(1, "wb_open", {}),
    T("Bye."),
]


def check(chunks: Sequence[str], expected: Sequence[object], **opts: Any) -> None:
    """The given chunks, the whole text, every two-way split and one character per
    chunk all give exactly ``expected`` (merged)."""
    expected = list(expected)
    reason = opts.pop("reason", None)
    text = "".join(chunks)

    def run(parts: Sequence[str]) -> list[Event]:
        return merge_events(
            run_chunks(InterleavedParser(**opts, stream_id="stream"), parts, reason)
        )

    assert run(chunks) == expected
    assert run([text]) == expected
    for parts in splits(text):
        assert run(parts) == expected, parts
    assert run(char_chunks(text)) == expected
    assert (
        merge_events(parse_interleaved(text, reason=reason, **opts, stream_id="stream")) == expected
    )


class OnlyWbOpen:
    """A validator that allows one action name (what a registry of one action does)."""

    def validate(self, name: str, args: Any) -> Validation:
        if name != "wb_open":
            return Validation(
                False, reason="unknown_action", errors=({"message": f"no action {name!r}"},)
            )
        return Validation(True, args)


# characters that break naive scanners: brackets, braces, quotes, backslashes,
# '</', control characters (escaped by json.dumps), CJK, emoji (surrogate pairs
# when written as \uXXXX escapes), a line separator
TRICKY = [*"[]{}<>/\"\\'`,:ab \n\t\r\x00\x1f", "</", "é", "中", "文", "😀", "🎉", "\u2028", "\\u"]
text_st = st.lists(st.sampled_from(TRICKY), max_size=12).map("".join)

scalar_st = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    text_st,
)

json_st = st.recursive(
    scalar_st,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text_st, inner, max_size=3),
    max_leaves=10,
)

name_st = st.sampled_from(["spotlight", "wb_open", "wb_draw_table", "laser", "名前", "a b"])

item_st = st.one_of(
    st.tuples(st.just("text"), text_st),
    st.tuples(st.just("action"), name_st, st.dictionaries(text_st, json_st, max_size=4)),
)


def render(items: list[tuple[Any, ...]], ensure_ascii: bool, spaced: bool) -> str:
    objs = [
        {"type": "text", "content": item[1]}
        if item[0] == "text"
        else {"type": "action", "name": item[1], "params": item[2]}
        for item in items
    ]
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps(objs, ensure_ascii=ensure_ascii, separators=separators)


FUZZ = [*'[]{}",:\\ \n`0123456789-.abtrue', '"type"', '"text"', '"action"', '"content"', '"name"']

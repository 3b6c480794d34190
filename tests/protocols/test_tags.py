"""The 34 streaming cases of tag-streaming.md §6 for ``TagParser``.

Every case is fed whole, split at every index, and one character per chunk
(and, where it matters, as UTF-8 bytes one byte per chunk); the merged events
must be exactly the expected ones for every chunking, and each action's args
deltas must rebuild its raw body exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tests.support.chunking import char_chunks, merge_events, run_chunks, splits
from tests.support.tags import TRUNC, C, D, I, R, S, T, check, check_lifecycle
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Event,
    StreamDone,
    TextDelta,
)
from unspool.protocols._emitter import Validation
from unspool.protocols._tag_formats import TagFormat
from unspool.protocols._tags import TagParser, parse_tags

# ---------------------------------------------------------------------- validation


class Schemas:
    """A small validator: action name -> {field: type}; unknown names are rejected."""

    def __init__(self, schemas: Mapping[str, Mapping[str, type]]) -> None:
        self.schemas = schemas

    def validate(self, name: str, args: Any) -> Validation:
        schema = self.schemas.get(name)
        if schema is None:
            msg = f"unknown action {name!r}"
            return Validation(False, reason="unknown_action", errors=({"message": msg},))
        errors = tuple(
            {"path": [key], "message": f"expected {typ.__name__}", "type": "type_error"}
            for key, typ in schema.items()
            if not isinstance(args.get(key), typ)
        )
        if errors:
            return Validation(False, reason="schema", errors=errors)
        return Validation(True, value=dict(args))


# ---------------------------------------------------------------------- harness


def per_feed(chunks: Sequence[str], **options: Any) -> list[list[Event]]:
    """The events of each ``feed``, then those of ``finish`` (unmerged)."""
    parser = TagParser(**options, stream_id="stream")
    return [*(parser.feed(c) for c in chunks), parser.finish()]


# ---------------------------------------------------------------------- the cases

CASE2 = 'Hi <action name="search">{"q":"x"}</action> bye'
CASE2_EVENTS: list[Event] = [
    T("Hi "),
    S(0, "search"),
    C(0, "search", {"q": "x"}),
    T(" bye"),
    D("complete", 1, 0, 7),
]


def test_01_plain_text() -> None:
    check("Hello world", [T("Hello world"), D(chars=11)])


def test_02_one_action_one_chunk() -> None:
    events = parse_tags(CASE2, stream_id="stream")
    assert events == [
        T("Hi "),
        S(0, "search"),
        ActionArgsDelta("stream:0", 0, {"q": "x"}, '{"q":"x"}'),
        C(0, "search", {"q": "x"}),
        T(" bye"),
        D("complete", 1, 0, 7),
    ]


def test_03_split_at_every_point_no_markup_in_text() -> None:
    check(CASE2, CASE2_EVENTS, args={"stream:0": '{"q":"x"}'})
    for chunks in splits(CASE2):
        for ev in run_chunks(TagParser(stream_id="stream"), chunks):
            if isinstance(ev, TextDelta):
                assert "<" not in ev.text and "{" not in ev.text and ">" not in ev.text


def test_04_one_char_at_a_time_earliest_chunk() -> None:
    feeds = per_feed(char_chunks(CASE2))
    assert merge_events([e for f in feeds for e in f]) == CASE2_EVENTS
    open_end = CASE2.index(">")
    close_end = CASE2.index("</action>") + len("</action>") - 1
    assert feeds[0] == [T("H")] and feeds[1] == [T("i")] and feeds[2] == [T(" ")]
    assert all(f == [] for f in feeds[3:open_end])  # the open tag is held, nothing leaks
    assert feeds[open_end] == [S(0, "search")]
    assert [type(e) for e in feeds[close_end]] == [ActionComplete]
    assert feeds[close_end + 1] == [T(" ")]
    assert feeds[-1] == [D("complete", 1, 0, 7)]


def test_05_lt_in_prose_is_released_at_once() -> None:
    parser = TagParser(stream_id="stream")
    assert parser.feed("if a ") == [T("if a ")]
    assert parser.feed("< b then") == [T("< b then")]
    assert parser.held == ""
    check("if a < b then", [T("if a < b then"), D(chars=13)])


def test_06_lt_at_chunk_end_is_held_then_released() -> None:
    parser = TagParser(stream_id="stream")
    assert parser.feed("x <") == [T("x ")]
    assert parser.held == "<"
    assert parser.feed(" y") == [T("< y")]
    assert parser.held == ""
    assert parser.finish() == [D(chars=5)]


def test_07_near_miss_no_loss_no_doubling() -> None:
    assert per_feed(["Look at <act", "or list"]) == [
        [T("Look at ")],
        [T("<actor list")],
        [D(chars=19)],
    ]
    check("Look at <actor list", [T("Look at <actor list"), D(chars=19)])


def test_08_partial_tag_at_eof_is_text() -> None:
    assert per_feed(["The answer is <act"]) == [
        [T("The answer is ")],
        [T("<act"), D(chars=18)],
    ]
    check("The answer is <act", [T("The answer is <act"), D(chars=18)])


def test_09_partial_closing_tag_at_eof_inside_action() -> None:
    text = '<action name="s">{"q":1}</act'
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "truncated", (TRUNC,), '{"q":1}</act'),
        D("truncated", 0, 1, 0),
    ]
    check(text, expected, args={"stream:0": '{"q":1}'})


def test_10_eof_inside_the_arguments() -> None:
    text = '<action name="w">{"path":"a.txt","content":"hel'
    body = '{"path":"a.txt","content":"hel'
    expected: list[Event] = [
        S(0, "w"),
        I(0, "w", "truncated", (TRUNC,), body),
        D("truncated", 0, 1),
    ]
    check(text, expected, args={"stream:0": body})


def test_11_length_finish_with_a_body_that_parses() -> None:
    text = '<action name="s">{"q":"a"}'
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "truncated", (TRUNC,), '{"q":"a"}'),
        D("truncated", 0, 1),
    ]
    check(text, expected, args={"stream:0": '{"q":"a"}'}, reason="length")
    check(text, expected, args={"stream:0": '{"q":"a"}'})


def test_12_intermediate_body_that_happens_to_parse() -> None:
    first, second = '<action name="s">{"query":"test"}', ', "limit": 10}</action>'
    feeds = per_feed([first, second])
    assert [type(e) for e in feeds[0]] == [ActionStarted, ActionArgsDelta]
    body = '{"query":"test"}, "limit": 10}'
    error = {"message": "text after the JSON value, before the close delimiter", "pos": 33}
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "malformed_json", (error,), body),
        D("complete", 0, 1),
    ]
    assert merge_events([e for f in feeds for e in f]) == expected
    check(first + second, expected, args={"stream:0": body})


def test_13_malformed_json_stream_continues() -> None:
    text = '<action name="s">{"q": x}</action>tail'
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "malformed_json", ({"message": "Expecting value", "pos": 23},), '{"q": x}'),
        T("tail"),
        D("complete", 0, 1, 4),
    ]
    check(text, expected, args={"stream:0": '{"q": x}'})


def test_14_schema_failure_reported_not_raised() -> None:
    registry = Schemas({"s": {"q": str}})
    error = {"path": ["q"], "message": "expected str", "type": "type_error"}
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "schema", (error,), '{"q": 5}'),
        D("complete", 0, 1),
    ]
    check(
        '<action name="s">{"q": 5}</action>',
        expected,
        args={"stream:0": '{"q": 5}'},
        registry=registry,
    )
    ok: list[Event] = [S(0, "s"), C(0, "s", {"q": "v"}), D("complete", 1, 0)]
    check(
        '<action name="s">{"q": "v"}</action>',
        ok,
        args={"stream:0": '{"q": "v"}'},
        registry=registry,
    )


def test_15_unknown_action() -> None:
    registry = Schemas({"s": {}})
    error = {"message": "unknown action 'nope'"}
    expected: list[Event] = [
        S(0, "nope"),
        I(0, "nope", "unknown_action", (error,), "{}"),
        D("complete", 0, 1),
    ]
    check('<action name="nope">{}</action>', expected, args={"stream:0": "{}"}, registry=registry)


def test_16_two_actions_in_one_chunk() -> None:
    text = '<action name="a">{}</action><action name="b">{"x":1}</action>'
    expected: list[Event] = [
        S(0, "a"),
        C(0, "a", {}),
        S(1, "b"),
        C(1, "b", {"x": 1}),
        D("complete", 2, 0),
    ]
    check(text, expected, args={"stream:0": "{}", "stream:1": '{"x":1}'})
    assert parse_tags(text, stream_id="stream")[4] == ActionArgsDelta(
        "stream:1", 1, {"x": 1}, '{"x":1}'
    )


def test_17_parameterless_action() -> None:
    expected: list[Event] = [S(0, "ping"), C(0, "ping", {}), D("complete", 1, 0)]
    check('<action name="ping"></action>', expected)
    check('<action name="ping">{}</action>', expected, args={"stream:0": "{}"})
    check('<action name="ping"/>', expected)
    check('<action name="ping">  \n</action>', expected, args={"stream:0": "  \n"})


def test_18_text_on_both_sides_in_one_chunk() -> None:
    text = 'Sure, checking.<action name="s">{}</action>Done.'
    expected: list[Event] = [
        T("Sure, checking."),
        S(0, "s"),
        C(0, "s", {}),
        T("Done."),
        D("complete", 1, 0, 20),
    ]
    check(text, expected, args={"stream:0": "{}"})


def test_19_fenced_code_block_is_text() -> None:
    text = '```xml\n<action name="s">{"q":"x"}</action>\n```\nok'
    check(text, [T(text), D(chars=len(text))])


def test_20_fence_split_across_chunks() -> None:
    chunks = ["``", "`\n<act", 'ion name="s">{}</action>\n`', "``"]
    text = "".join(chunks)
    events = run_chunks(TagParser(stream_id="stream"), chunks)
    assert merge_events(events) == [T(text), D(chars=len(text))]
    check(text, [T(text), D(chars=len(text))])


def test_21_tilde_fence_left_open_at_eof() -> None:
    text = '~~~\n<action name="s">{}</action>'
    check(text, [T(text), D(chars=len(text))])


def test_22_action_after_a_closed_fence_runs() -> None:
    text = '```\ncode\n```\n<action name="s">{}</action>'
    expected: list[Event] = [
        T("```\ncode\n```\n"),
        S(0, "s"),
        C(0, "s", {}),
        D("complete", 1, 0, 13),
    ]
    check(text, expected, args={"stream:0": "{}"})


def test_23_inline_code_span_is_text() -> None:
    text = 'use `<action name="s">{}</action>` to call'
    check(text, [T(text), D(chars=len(text))])


@pytest.mark.parametrize(
    "text",
    [
        "<action name='s' >{}</action>",
        '<action  name = "s">{}</action>',
        '<ACTION NAME="s">{}</ACTION>',
        "<action name=s>{}</action>",
        '<Action\n\tname="s"\n>{}</action>',
    ],
)
def test_24_lenient_attribute_syntax(text: str) -> None:
    check(text, [S(0, "s"), C(0, "s", {}), D("complete", 1, 0)], args={"stream:0": "{}"})
    check(text, [T(text), D(chars=len(text))], strict_tags=True)


def test_24_strict_accepts_the_exact_syntax() -> None:
    text = '<action name="s" note="a b">{}</action>'
    expected: list[Event] = [
        S(0, "s", {"note": "a b"}),
        C(0, "s", {}, {"note": "a b"}),
        D("complete", 1),
    ]
    check(text, expected, args={"stream:0": "{}"}, strict_tags=True)


def test_25_extra_attributes_and_gt_inside_quotes() -> None:
    text = '<action name="s" note="a>b" id=7>{}</action>'
    attrs = {"note": "a>b", "id": "7"}
    expected: list[Event] = [
        S(0, "s", attrs, action_id="7"),
        C(0, "s", {}, attrs, action_id="7"),
        D("complete", 1, 0),
    ]
    check(text, expected, args={"stream:0": "{}"})


def test_26_closing_tag_inside_a_json_string() -> None:
    text = '<action name="w">{"content":"ends with </action> tag"}</action>'
    body = '{"content":"ends with </action> tag"}'
    expected: list[Event] = [
        S(0, "w"),
        C(0, "w", {"content": "ends with </action> tag"}),
        D("complete", 1, 0),
    ]
    check(text, expected, args={"stream:0": body})
    chunks = ['<action name="w">{"content":"ends with </ac', 'tion> tag"}</action>']
    assert merge_events(run_chunks(TagParser(stream_id="stream"), chunks)) == expected


def test_27_stray_closing_tag_in_prose_is_text() -> None:
    check("done </action> ok", [T("done </action> ok"), D(chars=17)])


def test_28_same_name_tag_nested_in_the_body() -> None:
    text = '<action name="a"><action name="b">{}</action></action>'
    error = {"message": "another action opened inside this one", "pos": 17}
    body = '<action name="b">{}'
    expected: list[Event] = [
        S(0, "a"),
        I(0, "a", "nested", (error,), body),
        T("</action>"),
        D("complete", 0, 1, 9),
    ]
    check(text, expected, args={"stream:0": body})


def test_29_non_ascii_byte_exact() -> None:
    text = '<action name="s">{"q":"你好 🚀"}</action>'
    expected: list[Event] = [S(0, "s"), C(0, "s", {"q": "你好 🚀"}), D("complete", 1, 0)]
    check(text, expected, args={"stream:0": '{"q":"你好 🚀"}'}, as_bytes=True)
    data = text.encode()
    cut = data.index("好".encode()) + 1  # inside the multi-byte character
    events = run_chunks(TagParser(stream_id="stream"), [data[:cut], data[cut:]])
    assert merge_events(events) == expected
    assert "\\u" not in "".join(e.delta or "" for e in events if isinstance(e, ActionArgsDelta))


def test_30_whitespace_around_the_body_is_kept_in_deltas() -> None:
    text = '<action name="s">\n  {"q":1}\n</action>'
    expected: list[Event] = [S(0, "s"), C(0, "s", {"q": 1}), D("complete", 1, 0)]
    check(text, expected, args={"stream:0": '\n  {"q":1}\n'})


def test_31_self_overlapping_delimiter_holds_the_longest_suffix() -> None:
    fmt = TagFormat("<<A>>", "<</A>>", name="A")
    parser = TagParser(format=fmt, stream_id="stream")
    assert parser.feed("x<<") == [T("x")]
    assert parser.held == "<<"
    rest = parser.feed("A>>{}<</A>>")
    assert merge_events(rest) == [S(0, "A"), C(0, "A", {})]
    first: list[Event] = [T("x"), S(0, "A"), C(0, "A", {}), T("<"), D("complete", 1, 0, 2)]
    check("x<<A>>{}<</A>><", first, args={"stream:0": "{}"}, format=fmt)
    extra = {"message": "text after the JSON value, before the close delimiter", "pos": 9}
    expected: list[Event] = [
        T("x<"),
        S(0, "A"),
        I(0, "A", "malformed_json", (extra,), "{}<"),
        D("complete", 0, 1, 2),
    ]
    check("x<<<A>>{}<<</A>>", expected, args={"stream:0": "{}<"}, format=fmt)


def test_32_lifecycle_and_deterministic_ids() -> None:
    text = 'a<action name="x">{}</action>b<action name="y">{"k":'
    parser = TagParser(stream_id="turn-7")
    events = [*parser.feed(text), *parser.finish()]
    check_lifecycle(events)
    ids = [e.id for e in events if isinstance(e, ActionStarted)]
    assert ids == ["turn-7:0", "turn-7:1"]
    assert parser.finish() == []
    with pytest.raises(RuntimeError, match="after finish"):
        parser.feed("more")
    again = TagParser(stream_id="turn-7")
    assert [*again.feed(text), *again.finish()] == events
    assert [type(e) for e in events if not isinstance(e, ActionArgsDelta)] == [
        TextDelta,
        ActionStarted,
        ActionComplete,
        TextDelta,
        ActionStarted,
        ActionInvalid,
        StreamDone,
    ]


def test_33_reasoning_channel() -> None:
    text = '<think>plan <action name="s">{}</action></think>Answer'
    check(
        text,
        [R('plan <action name="s">{}</action>'), T("Answer"), D(chars=6)],
        reasoning=True,
    )
    check(
        text,
        [R("plan "), S(0, "s"), C(0, "s", {}), T("Answer"), D("complete", 1, 0, 6)],
        args={"stream:0": "{}"},
        reasoning=True,
        run_actions_in_reasoning=True,
    )
    check(text, [T('<think>plan '), S(0, "s"), C(0, "s", {}), T("</think>Answer"),
                 D("complete", 1, 0, 26)], args={"stream:0": "{}"})  # fmt: skip

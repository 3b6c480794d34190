"""``TagParser`` beyond the §6 cases: the tool_call format, lenient bodies, bytes,
finish reasons, open-tag limits, markdown edge cases, reasoning, spans and
``held``; and the building blocks (formats, delimiters, code tracking)."""

from __future__ import annotations

import pytest

from tests.support.chunking import char_chunks, merge_events, run_chunks, splits
from tests.support.tags import TRUNC, C, D, I, R, S, T, check
from unspool.events import ActionArgsDelta, Diagnostic, Event
from unspool.protocols._holdback import Delimiters
from unspool.protocols._tag_formats import (
    ACTION_TAG,
    FORMATS,
    TOOL_CALL,
    TagFormat,
    parse_open_tag,
    resolve_format,
    xml_format,
)
from unspool.protocols._tag_markdown import CodeTracker
from unspool.protocols._tags import ActionSpan, TagParser, parse_tags
from unspool.protocols._utf8 import INVALID_UTF8

# ---------------------------------------------------------------------- tool_call format


def test_tool_call_format() -> None:
    body = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    text = f"Checking.<tool_call>{body}</tool_call>Done."
    expected: list[Event] = [
        T("Checking."),
        S(0, "get_weather"),
        C(0, "get_weather", {"city": "Paris"}),
        T("Done."),
        D("complete", 1, 0, 14),
    ]
    # the deltas carry the arguments' JSON text, not the whole body
    check(text, expected, args={"stream:0": '{"city": "Paris"}'}, format="tool_call")


def test_tool_call_name_after_arguments_and_partial_args() -> None:
    body = '{"arguments": {"a": 1}, "name": "f"}'
    check(
        f"<tool_call>{body}</tool_call>",
        [S(0, "f"), C(0, "f", {"a": 1}), D("complete", 1, 0)],
        args={"stream:0": '{"a": 1}'},
        format=TOOL_CALL,
    )
    parser = TagParser(format=TOOL_CALL, stream_id="stream")
    first = parser.feed('<tool_call>{"name": "f", "arguments": {"q": "ab')
    assert first[0] == S(0, "f")
    delta = first[1]
    assert isinstance(delta, ActionArgsDelta)
    assert delta.partial == {"q": "ab"}
    assert delta.delta == '{"q": "ab'


def test_tool_call_without_a_name_is_rejected_without_start() -> None:
    body = '{"arguments": {}}'
    error = {"message": "the body has no string 'name'"}
    expected: list[Event] = [I(0, None, "missing_name", (error,), body), D("complete", 0, 1)]
    check(f"<tool_call>{body}</tool_call>", expected, format="tool_call")
    empty: list[Event] = [I(0, None, "missing_name", (error,), ""), D("complete", 0, 1)]
    check("<tool_call></tool_call>", empty, format="tool_call")


def test_tool_call_arguments_encoded_as_a_string_or_not_an_object() -> None:
    body = '{"name": "f", "arguments": "{\\"a\\": 1}"}'
    check(
        f"<tool_call>{body}</tool_call>",
        [S(0, "f"), C(0, "f", {"a": 1}), D("complete", 1, 0)],
        args={"stream:0": '"{\\"a\\": 1}"'},  # the source text of the arguments' value
        format="tool_call",
    )
    body = '{"name": "f", "arguments": [1]}'
    error = {"message": "the arguments must be a JSON object, not list"}
    check(
        f"<tool_call>{body}</tool_call>",
        [S(0, "f"), I(0, "f", "bad_params", (error,), body), D("complete", 0, 1)],
        args={"stream:0": "[1]"},
        format="tool_call",
    )


def test_tool_call_name_known_before_the_json_breaks_for_every_chunking() -> None:
    body = '{"name": "f", "arguments": {x}}'
    error = {"message": "Expecting property name enclosed in double quotes", "pos": 39}
    check(
        f"<tool_call>{body}</tool_call>",
        [S(0, "f"), I(0, "f", "malformed_json", (error,), body), D("complete", 0, 1)],
        args={"stream:0": "{"},  # the arguments' text up to the error
        format="tool_call",
    )


def test_tool_call_truncated_before_the_name() -> None:
    expected: list[Event] = [I(0, None, "truncated", (TRUNC,), '{"argu'), D("truncated", 0, 1)]
    check('<tool_call>{"argu', expected, format="tool_call")


def test_tool_call_in_a_fence_is_text() -> None:
    text = '```\n<tool_call>{"name": "f"}</tool_call>\n```\n'
    check(text, [T(text), D(chars=len(text))], format="tool_call")


# ---------------------------------------------------------------------- bodies


def test_lenient_bodies_report_each_repair() -> None:
    text = "<action name='s'>{'q': 'x', c: True,}</action>"
    body = "{'q': 'x', c: True,}"
    expected: list[Event] = [
        S(0, "s"),
        Diagnostic("single_quotes", "read a single-quoted key", 18),
        Diagnostic("single_quotes", "read a single-quoted string", 23),
        Diagnostic("unquoted_key", "read an unquoted key", 28),
        Diagnostic("python_literal", "read True", 31),
        Diagnostic("trailing_comma", "dropped a trailing comma", 36),
        C(0, "s", {"q": "x", "c": True}),
        D("complete", 1, 0),
    ]
    check(text, expected, args={"stream:0": body}, lenient=True)
    error = {"message": "Expecting property name enclosed in double quotes", "pos": 18}
    strict: list[Event] = [
        S(0, "s"),
        I(0, "s", "malformed_json", (error,), body),
        D("complete", 0, 1),
    ]
    check(text, strict, args={"stream:0": body})


def test_lenient_close_tag_inside_a_single_quoted_string_is_data() -> None:
    text = "<action name=s>{'c': '</action>'}</action>ok"
    merged = merge_events(parse_tags(text, lenient=True, stream_id="stream"))
    assert merged[-3:] == [C(0, "s", {"c": "</action>"}), T("ok"), D("complete", 1, 0, 2)]


def test_lenient_comment_after_the_value_does_not_hide_the_closer() -> None:
    text = '<action name="s">{"a":1} // c</action>'
    error = {"message": "text after the JSON value, before the close delimiter", "pos": 25}
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "malformed_json", (error,), '{"a":1} // c'),
        D("complete", 0, 1),
    ]
    check(text, expected, args={"stream:0": '{"a":1} // c'}, lenient=True)


def test_body_that_is_not_an_object() -> None:
    error = {"message": "the body must be a JSON object, not list"}
    expected: list[Event] = [
        S(0, "s"),
        I(0, "s", "bad_params", (error,), "[1]"),
        D("complete", 0, 1),
    ]
    check('<action name="s">[1]</action>', expected, args={"stream:0": "[1]"})


def test_args_delta_partial_grows_with_the_body() -> None:
    parser = TagParser(stream_id="stream")
    first = parser.feed('<action name="s">{"q": "ab')
    assert isinstance(first[1], ActionArgsDelta)
    assert dict(first[1].partial) == {"q": "ab"}
    second = parser.feed('c", "n": 1')
    assert second == [ActionArgsDelta("stream:0", 0, {"q": "abc"}, 'c", "n": 1')]
    assert parser.held == ""
    third = parser.feed("}</act")
    assert third == [ActionArgsDelta("stream:0", 0, {"q": "abc", "n": 1}, "}")]
    assert parser.held == "</act"
    assert parser.feed("ion>") == [C(0, "s", {"q": "abc", "n": 1})]


# ---------------------------------------------------------------------- bytes and finish


def test_invalid_utf8_is_replaced_and_reported_at_its_place() -> None:
    data = b'ok \xff<action name="s">{}</action>'
    expected: list[Event] = [
        T("ok "),
        Diagnostic("invalid_utf8", INVALID_UTF8, 3),
        T("\ufffd"),
        S(0, "s"),
        C(0, "s", {}),
        D("complete", 1, 0, 4),
    ]
    runs: list[list[bytes]] = [[data], *splits(data), char_chunks(data)]
    for chunks in runs:
        assert merge_events(run_chunks(TagParser(stream_id="stream"), chunks)) == expected


def test_incomplete_utf8_at_eof_and_str_after_bytes() -> None:
    note = Diagnostic("invalid_utf8", INVALID_UTF8, 3)
    assert merge_events(run_chunks(TagParser(stream_id="stream"), [b"hi \xe4\xbd"])) == [
        T("hi "),
        note,
        T("\ufffd"),
        D(chars=4),
    ]
    parser = TagParser(stream_id="stream")
    mixed = [*parser.feed(b"hi \xe4"), *parser.feed("x"), *parser.finish()]
    assert merge_events(mixed) == [
        T("hi "),
        Diagnostic("invalid_utf8", INVALID_UTF8, 3),
        T("\ufffdx"),
        D(chars=5),
    ]


@pytest.mark.parametrize(("reason", "done"), [("abort", "aborted"), ("length", "truncated")])
def test_finish_reasons(reason: str, done: str) -> None:
    check("hello", [T("hello"), D(done, 0, 0, 5)], reason=reason)  # type: ignore[arg-type]
    check(
        '<action name="s">{"a"',
        [S(0, "s"), I(0, "s", "truncated", (TRUNC,), '{"a"'), D(done, 0, 1)],
        args={"stream:0": '{"a"'},
        reason=reason,  # type: ignore[arg-type]
    )


def test_parse_tags_passes_reason_and_options() -> None:
    assert parse_tags('<action name="s">{}</action>', "length", stream_id="t") == [
        S(0, "s").__class__("t:0", 0, "s", None, {}),
        ActionArgsDelta("t:0", 0, {}, "{}"),
        C(0, "s", {}).__class__("t:0", 0, "s", {}, None, {}),
        D("truncated", 1, 0),
    ]


# ---------------------------------------------------------------------- open tags


def test_open_tag_longer_than_the_limit_is_text() -> None:
    text = '<action name="s" note="xxxxxxxxxxxxxxxxxxxx">{}</action>'
    check(text, [T(text), D(chars=len(text))], max_tag_chars=20)
    check(text, [S(0, "s", {"note": "x" * 20}), C(0, "s", {}, {"note": "x" * 20}), D("complete", 1)],
          args={"stream:0": "{}"})  # fmt: skip


def test_unclosed_quote_in_open_tag_is_held_then_text_at_eof() -> None:
    text = '<action name="s>{}</action> more'
    parser = TagParser(stream_id="stream")
    assert parser.feed(text) == []
    assert parser.held == text
    assert parser.finish() == [T(text), D(chars=len(text))]
    check(text, [T(text), D(chars=len(text))])


def test_a_new_lt_abandons_the_open_tag() -> None:
    text = 'a <action b <action name="s">{}</action>'
    expected: list[Event] = [T("a <action b "), S(0, "s"), C(0, "s", {}), D("complete", 1, 0, 12)]
    check(text, expected, args={"stream:0": "{}"})


def test_bad_open_tags() -> None:
    error = {"message": "cannot read the attributes at '\"junk\"'"}
    check(
        '<action name="s" "junk">{}</action>',
        [I(0, "s", "bad_open_tag", (error,), "{}"), D("complete", 0, 1)],
    )
    missing = {"message": "the open tag has no 'name' attribute"}
    check(
        "<action>{}</action>", [I(0, None, "bad_open_tag", (missing,), "{}"), D("complete", 0, 1)]
    )
    check("<action/>", [I(0, None, "bad_open_tag", (missing,), ""), D("complete", 0, 1)])
    check(
        '<action id="9">{"a"',
        [I(0, None, "truncated", (TRUNC, missing), '{"a"', "9"), D("truncated", 0, 1)],
    )


def test_strict_tags() -> None:
    text = "<action name='s'>{}</action>"
    check(text, [T(text), D(chars=len(text))], strict_tags=True)
    check(
        '<action name="p"/>',
        [S(0, "p"), C(0, "p", {}), D("complete", 1, 0)],
        strict_tags=True,
    )
    upper_close = '<action name="s">{}</ACTION>'
    check(
        upper_close,
        [S(0, "s"), I(0, "s", "truncated", (TRUNC,), "{}</ACTION>"), D("truncated", 0, 1)],
        args={"stream:0": "{}</ACTION>"},
        strict_tags=True,
    )


# ---------------------------------------------------------------------- markdown


@pytest.mark.parametrize(
    "text",
    [
        '   ```\n<action name="s">{}</action>\n```',
        '``a ` <action name="s">{}</action>`` after',
        '````\nx\n```\n<action name="s">{}</action>',
        '```\nx\n``` no\n<action name="s">{}</action>',
        '```a`b <action name="s">{}</action>',
        '~~~\n```\n~~~ \t\n`<action name="s">{}</action>`',
    ],
)
def test_code_keeps_tags_inert(text: str) -> None:
    check(text, [T(text), D(chars=len(text))])


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("    ```\n", ""),  # four spaces: not a fence, an inline run that ends at the line
        ("`oops\n", ""),  # an inline span ends at the end of its line
        ("~~~\nx\n~~~~\n", ""),  # a longer closing fence closes
        ("text ```\n", ""),  # a run mid-line is not a fence
        ("```a`b\n", ""),
        ("`x` ", " `y`"),
        ("~~\n", ""),
    ],
)
def test_tags_outside_code_run(before: str, after: str) -> None:
    text = before + '<action name="s">{}</action>' + after
    expected: list[Event] = [T(before), S(0, "s"), C(0, "s", {})]
    if after:
        expected.append(T(after))
    expected.append(D("complete", 1, 0, len(before) + len(after)))
    check(text, expected, args={"stream:0": "{}"})


# ---------------------------------------------------------------------- reasoning


def test_reasoning_edges() -> None:
    check(
        '<think>```\n</think>Answer <action name="s">{}</action>',
        [R("```\n"), T("Answer "), S(0, "s"), C(0, "s", {}), D("complete", 1, 0, 7)],
        args={"stream:0": "{}"},
        reasoning=True,
    )
    check("a </think> b", [T("a </think> b"), D(chars=12)], reasoning=True)
    check("`<think>` x", [T("`<think>` x"), D(chars=11)], reasoning=True)
    check("<think>still </thi", [R("still </thi"), D()], reasoning=True)
    check("<THINK>a</Think>b", [R("a"), T("b"), D(chars=1)], reasoning=True)


# ---------------------------------------------------------------------- spans and held


def test_spans_locate_each_action() -> None:
    parser = TagParser(stream_id="stream")
    parser.feed('a<action name="s">{}</action>b<action name="t">{"x"')
    parser.finish()
    assert parser.spans == [
        ActionSpan("stream:0", 1, 29, '<action name="s">{}</action>'),
        ActionSpan("stream:1", 30, 51, '<action name="t">{"x"'),
    ]


def test_held_is_what_could_still_become_a_delimiter() -> None:
    parser = TagParser(stream_id="stream")
    parser.feed("x <ac")
    assert parser.held == "<ac"
    parser.feed('tion name="s"')
    assert parser.held == '<action name="s"'
    parser.feed('>{"a": "</act')
    assert parser.held == ""  # inside a JSON string: data, nothing held
    parser.feed('"}</ACT')
    assert parser.held == "</ACT"
    parser.feed("ION><")
    assert parser.held == "<"
    assert parser.finish()[-2:] == [T("<"), D("complete", 1, 0, 3)]


# ---------------------------------------------------------------------- building blocks


def test_formats() -> None:
    assert resolve_format("action") is ACTION_TAG
    assert resolve_format(TOOL_CALL) is TOOL_CALL
    assert set(FORMATS) == {"action", "tool_call"}
    assert xml_format("cmd") == TagFormat("<cmd", "</cmd>", attributes=True)
    with pytest.raises(ValueError, match="unknown tag format"):
        resolve_format("nope")
    with pytest.raises(ValueError, match="not a tag name"):
        xml_format("a b")
    with pytest.raises(ValueError, match="may not contain"):
        TagFormat("<a`", "</a>", name="a")
    with pytest.raises(ValueError, match="exactly one"):
        TagFormat("<a>", "</a>")
    with pytest.raises(ValueError, match="contain each other"):
        TagFormat("<a>", "<a>x", name="a")
    with pytest.raises(ValueError, match="max_tag_chars"):
        TagParser(max_tag_chars=0, stream_id="stream")


def test_parse_open_tag() -> None:
    tag = parse_open_tag(" NAME=s Note=\"x y\" flag id='3' /", ACTION_TAG, strict=False)
    assert tag is not None
    assert (tag.name, dict(tag.attributes), tag.action_id, tag.self_closing, tag.error) == (
        "s",
        {"note": "x y", "flag": "", "id": "3"},
        "3",
        True,
        None,
    )
    assert parse_open_tag(' name="s"  ', ACTION_TAG, strict=True) is None
    assert parse_open_tag(' id="1"', ACTION_TAG, strict=True) is None
    strict = parse_open_tag(' name="s" id="1"', ACTION_TAG, strict=True)
    assert strict is not None and (strict.name, strict.action_id) == ("s", "1")


def test_delimiters_hold_the_longest_suffix() -> None:
    d = Delimiters({"open": ["<<A>>"], "close": ["</x>"]}, signals="\n")
    assert d.hold("x<<") == 2
    assert d.hold("x<<A>") == 4
    assert d.hold("x<") == 1
    assert d.hold("x<a") == 0
    assert d.hold("ab", 2) == 0
    assert d.is_prefix("</") and not d.is_prefix("</x>")
    m = d.search("a\n<<A>>", 0)
    assert m is not None and (m.lastgroup, m.start()) == ("signal", 1)
    m = d.search("a\n<<A>>", 2)
    assert m is not None and (m.lastgroup, m.group()) == ("open", "<<A>>")
    folded = Delimiters({"t": ["<think>"]}, fold=True)
    assert folded.hold("x<TH") == 3
    m = folded.search("<ThInK>", 0)
    assert m is not None and m.group() == "<ThInK>"
    assert Delimiters({"t": ["<k>"]}).search("<K>", 0) is None
    assert Delimiters({}).search("abc", 0) is None


def test_code_tracker_states() -> None:
    code = CodeTracker()
    assert code.key == "prose" and code.char_mode  # the stream starts at a line start
    for c in "```":
        assert code.step(c)
    assert not code.step("p")  # the run ends: an info line
    assert code.key == "info"
    code.signal("\n")
    assert code.key == "fence" and code.char_mode
    assert not code.step("x")
    assert CodeTracker.signals("fence") == "\n" and CodeTracker.signals("prose") == "`\n"
    code.reset()
    assert code.key == "prose" and not code.char_mode

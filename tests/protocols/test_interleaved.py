"""InterleavedParser: the 14 cases of spec/actions.md, and behaviour around the array.

Every case is fed whole, split at every index into two chunks, and one
character per chunk, and must give the same merged events (exact values).
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

import pytest

from tests.support.chunking import char_chunks, merge_events, run_chunks, splits
from tests.support.interleaved import (
    A_EVENTS,
    FENCE,
    A,
    OnlyWbOpen,
    T,
    act,
    arr,
    check,
    complete,
    done,
    started,
    txt,
)
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    Diagnostic,
    ReasoningDelta,
    StreamDone,
    TextDelta,
)
from unspool.protocols._interleaved import InterleavedParser, parse_interleaved
from unspool.protocols._utf8 import INVALID_UTF8

# -- spec/actions.md cases 1-14 ----------------------------------------------------


def test_spec_1_the_array_in_every_chunking() -> None:
    check([A], [*A_EVENTS, done("complete", 2, 0, 16)])


def test_spec_1_text_streams_and_actions_complete_at_their_brace() -> None:
    parser = InterleavedParser(stream_id="stream")
    per_chunk = [parser.feed(c) for c in A]
    first_close = A.index("}}") + 1  # the '}' that closes item 0
    assert [type(e) for e in per_chunk[first_close]] == [ActionComplete]
    assert all(
        not any(isinstance(e, ActionComplete) for e in evs) for evs in per_chunk[:first_close]
    )
    texts = [e.text for evs in per_chunk for e in evs if isinstance(e, TextDelta)]
    assert texts == list("Hello class.") + list("Bye.")  # each character once, as it arrives
    assert parser.finish() == [done("complete", 2, 0, 16)]


def test_spec_2_prose_before_the_array() -> None:
    prose = "Sure! Here it is:\n"
    check([prose, A], [T(prose), *A_EVENTS, done("complete", 2, 0, 34)])
    preamble = Diagnostic(
        "preamble", "prose before the array was not shown", 0, "Sure! Here it is:"
    )
    check([prose, A], [preamble, *A_EVENTS, done("complete", 2, 0, 16)], prose="hold")


def test_spec_2_fence_around_the_array_closing_fence_with_the_bracket() -> None:
    text = f"{FENCE}json\n{A}\n{FENCE}"
    expected = [
        Diagnostic("fence", "the fence around the array was not shown", 0, f"{FENCE}json\n"),
        *A_EVENTS,
        Diagnostic("fence", "the fence after the array was not shown", len(text) - 3, FENCE),
        done("complete", 2, 0, 16),
    ]
    check([text], expected)
    check([text], expected, prose="hold")


def test_spec_3_trailing_prose_in_the_same_chunk() -> None:
    body = arr(txt("A"), act("wb_open"))
    text = body + "\nHope this helps!"
    expected = [
        T("A"),
        started(0, "wb_open"),
        complete(0, "wb_open", {}),
        Diagnostic(
            "trailing", "text after the array was ignored", len(body) + 1, "Hope this helps!"
        ),
        done("complete", 1, 0, 1),
    ]
    check([text], expected)


def test_spec_4_no_array_streams_the_prose_as_it_arrives() -> None:
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed("Hello ") == [T("Hello ")]
    assert parser.feed("students, today we learn.") == [T("students, today we learn.")]
    assert parser.finish() == [done("complete", 0, 0, 31)]
    check(
        ["Hello ", "students, today we learn."],
        [T("Hello students, today we learn."), done(chars=31)],
    )


def test_spec_4_hold_mode_emits_a_plain_reply_at_finish() -> None:
    parser = InterleavedParser(prose="hold", stream_id="stream")
    assert parser.feed("Hello ") == []
    assert parser.feed("students, today we learn.") == []
    assert parser.finish() == [T("Hello students, today we learn."), done(chars=31)]


def test_spec_5_truncated_inside_a_text_item() -> None:
    text = arr(act("wb_open"), txt("Hello stu"))[: -len('"}]')]
    parser = InterleavedParser(stream_id="stream")
    streamed = parser.feed(text)
    assert [e for e in streamed if isinstance(e, TextDelta)] == [T("Hello stu")]
    cut = Diagnostic(
        "truncated",
        "the stream ended inside the array: text item 1 (its text so far was shown) was cut off",
    )
    assert parser.finish() == [cut, done("truncated", 1, 0, 9)]
    assert parser.finish() == []
    check(
        [text],
        [
            started(0, "wb_open"),
            complete(0, "wb_open", {}),
            T("Hello stu"),
            cut,
            done("truncated", 1, 0, 9),
        ],
    )


def test_spec_6_truncated_inside_an_action() -> None:
    text = arr(txt("Hi"), act("wb_draw_text", {"content": "x", "x": 1}))[: -len("}}]")]
    expected = [
        T("Hi"),
        started(0, "wb_draw_text"),
        ActionInvalid(
            "stream:0",
            0,
            "wb_draw_text",
            "truncated",
            ({"message": "the stream ended inside the array"},),
        ),
        done("truncated", 0, 1, 2),
    ]
    check([text], expected)


def test_spec_6_action_cut_off_before_its_name() -> None:
    expected = [
        T("Hi"),
        ActionInvalid(
            "stream:0", 0, None, "truncated", ({"message": "the stream ended inside the array"},)
        ),
        done("truncated", 0, 1, 2),
    ]
    check(['[{"type":"text","content":"Hi"},{"type":"action","na'], expected)


def test_spec_6_complete_action_in_an_unclosed_array_completes() -> None:
    text = arr(txt("Hi"), act("wb_open"))[:-1]
    check(
        [text],
        [T("Hi"), started(0, "wb_open"), complete(0, "wb_open", {}), done("truncated", 1, 0, 2)],
    )


def test_spec_7_bracket_in_a_string_at_a_chunk_end() -> None:
    chunks = ['[{"type":"text","content":"see [1]', ', more"},', arr(act("wb_open"))[1:]]
    expected = [
        T("see [1], more"),
        started(0, "wb_open"),
        complete(0, "wb_open", {}),
        done("complete", 1, 0, 13),
    ]
    check(chunks, expected)


def test_spec_8_latex_and_a_nested_table() -> None:
    latex = arr(act("wb_draw_latex", {"latex": "\\sqrt[3]{x}"}), txt("Cube root."))
    check(
        [latex],
        [
            started(0, "wb_draw_latex"),
            complete(0, "wb_draw_latex", {"latex": "\\sqrt[3]{x}"}),
            T("Cube root."),
            done("complete", 1, 0, 10),
        ],
    )
    table = arr(act("wb_draw_table", {"data": [["a", "b"], ["c", "d"]], "x": 1}), txt("Table."))
    cut = table.index('"b"]') + 4
    check(
        [table[:cut], table[cut:]],
        [
            started(0, "wb_draw_table"),
            complete(0, "wb_draw_table", {"data": [["a", "b"], ["c", "d"]], "x": 1}),
            T("Table."),
            done("complete", 1, 0, 6),
        ],
    )


def test_spec_9_bracket_in_a_preamble_and_a_citation_in_plain_text() -> None:
    check(["Sure [note]: ", A], [T("Sure [note]: "), *A_EVENTS, done("complete", 2, 0, 29)])
    check(
        ["Sure [note]: ", A],
        [
            Diagnostic("preamble", "prose before the array was not shown", 0, "Sure [note]:"),
            *A_EVENTS,
            done("complete", 2, 0, 16),
        ],
        prose="hold",
    )
    check(["The answer is 42 ", "[1]"], [T("The answer is 42 [1]"), done(chars=20)])
    check(["The answer is 42 [1]"], [T("The answer is 42 [1]"), done(chars=20)], prose="hold")


def test_spec_10_escapes_split_across_chunks() -> None:
    content = 'caf\u00e9 "q" a\\b\nc \U0001f600 end'
    text = json.dumps([txt(content)], ensure_ascii=True)
    assert "\\ud83d\\ude00" in text and "\\u00e9" in text
    check([text], [T(content), done(chars=len(content))])
    for parts in [*splits(text), char_chunks(text)]:
        events = run_chunks(InterleavedParser(stream_id="stream"), parts)
        pieces = [e.text for e in events if isinstance(e, TextDelta)]
        assert "".join(pieces) == content
        assert not any("\ud800" <= ch <= "\udfff" for piece in pieces for ch in piece)


def test_spec_11_legacy_names_and_model_id() -> None:
    text = (
        '[{"type":"action","tool_name":"laser","parameters":{"elementId":"e1"},"action_id":"A1"}]'
    )
    check(
        [text],
        [started(0, "laser"), complete(0, "laser", {"elementId": "e1"}, "A1"), done("complete", 1)],
    )


def test_spec_11_model_id_before_the_name_is_on_action_started() -> None:
    text = '[{"action_id":"A1","type":"action","name":"laser","params":{}}]'
    check([text], [started(0, "laser", "A1"), complete(0, "laser", {}, "A1"), done("complete", 1)])


def test_spec_11_legacy_item_without_type() -> None:
    text = '[{"tool_name":"laser","parameters":{"elementId":"e1"}}]'
    check(
        [text],
        [started(0, "laser"), complete(0, "laser", {"elementId": "e1"}), done("complete", 1)],
    )


UNKNOWN = '[{"type":"image"},"str",42,null,{"type":"text","content":42},{"type":"action","params":{"a":1}},{"type":"text","content":"ok"}]'


def test_spec_12_unknown_shapes_each_reported_the_rest_flows() -> None:
    expected = [
        Diagnostic(
            "unknown_item", 'item 0 is an item of type "image"; skipped', None, '{"type": "image"}'
        ),
        Diagnostic("unknown_item", "item 1 is a string, not an object; skipped", None, '"str"'),
        Diagnostic("unknown_item", "item 2 is a number, not an object; skipped", None, "42"),
        Diagnostic("unknown_item", "item 3 is a null, not an object; skipped", None, "null"),
        Diagnostic(
            "bad_content", "text item 4: content must be a string, not number; skipped", None, "42"
        ),
        ActionInvalid(
            "stream:0",
            0,
            None,
            "missing_name",
            ({"message": "an action needs a non-empty string 'name' (or 'tool_name')"},),
            '{"type": "action", "params": {"a": 1}}',
        ),
        T("ok"),
        done("complete", 0, 1, 2),
    ]
    check([UNKNOWN], expected)


def test_spec_13_two_arrays_the_first_is_the_reply() -> None:
    first = arr(txt("A"))
    second = arr(txt("B"))
    for gap in ("\n", ""):
        expected = [
            T("A"),
            Diagnostic(
                "extra_array",
                "a second array after the reply was ignored",
                len(first + gap),
                second,
            ),
            done(chars=1),
        ]
        check([first, gap + second], expected)
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed(first) == [T("A")]
    assert parser.closed


def test_spec_14_params_cannot_overwrite_id_or_name() -> None:
    params = {"type": "speech", "id": "X", "name": "pwned", "text": "pwned"}
    text = arr(act("laser", params))
    check([text], [started(0, "laser"), complete(0, "laser", params), done("complete", 1)])


# -- around the array ------------------------------------------------------------


def test_prose_that_looks_like_an_array_start_goes_back_to_prose() -> None:
    for text in ("x = [{a: 1}] is a list", "Use [] for an empty list.", 'See [{"k": 1}] above.'):
        check([text], [T(text), done(chars=len(text))])
        check([text], [T(text), done(chars=len(text))], lenient=True)


def test_a_reply_that_is_only_unknown_items_is_still_the_reply() -> None:
    check(
        ['[{"k":1}]'],
        [
            Diagnostic(
                "unknown_item",
                "item 0 is an object without a usable 'type'; skipped",
                None,
                '{"k": 1}',
            ),
            done(),
        ],
    )


def test_empty_and_whitespace_replies_and_a_bare_bracket() -> None:
    check([""], [done()])
    check([" \n "], [done()])
    check(["[]"], [done()])
    check(["[", "  "], [done("truncated")])
    check(
        [f"{FENCE}json\n["],
        [
            Diagnostic("fence", "the fence around the array was not shown", 0, f"{FENCE}json\n"),
            done("truncated"),
        ],
    )
    check(["Look at ["], [T("Look at ["), done(chars=9)])


def test_leading_whitespace_is_held_until_prose_follows() -> None:
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed("\n\n") == []
    assert parser.feed("Hi") == [T("\n\nHi")]
    check(["\n\n", A], [*A_EVENTS, done("complete", 2, 0, 16)])


def test_fence_variants() -> None:
    body = arr(act("spotlight", {"elementId": "e1"}), txt("  Hi  "))
    expected_items = [
        started(0, "spotlight"),
        complete(0, "spotlight", {"elementId": "e1"}),
        T("  Hi  "),
    ]
    for opening in (f"{FENCE}json\n", f"{FENCE}JSON  \n", f"{FENCE}json", f"{FENCE}\n"):
        text = opening + body + FENCE
        expected = [
            Diagnostic("fence", "the fence around the array was not shown", 0, opening),
            *expected_items,
            Diagnostic(
                "fence", "the fence after the array was not shown", len(opening + body), FENCE
            ),
            done("complete", 1, 0, 6),
        ]
        check([text], expected)


def test_a_json_fence_with_no_array_is_never_shown_other_fences_are() -> None:
    text = f"{FENCE}json\nno array here"
    check(
        [text],
        [
            Diagnostic("fence", "a ```json fence line was not shown", 0, f"{FENCE}json\n"),
            T("no array here"),
            done(chars=13),
        ],
    )
    code = f"{FENCE}python\nprint(1)\n{FENCE}"
    check([code], [T(code), done(chars=len(code))])
    check(["a ``b`` c"], [T("a ``b`` c"), done(chars=9)])


def test_prose_after_the_array_is_reported_not_shown_in_stream_mode() -> None:
    text = "Intro. " + arr(txt("A")) + " Outro."
    check(
        [text],
        [
            T("Intro. A"),
            Diagnostic("trailing", "text after the array was ignored", len(text) - 6, "Outro."),
            done(chars=8),
        ],
    )


# -- items -------------------------------------------------------------------------


def test_content_before_type_is_buffered_until_the_type_is_known() -> None:
    chunks = ['[{"content":"Hi the', 're","type":"text"},{"type":"text","content":"x"}]']
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed(chunks[0]) == []
    assert parser.feed(chunks[1]) == [T("Hi there"), T("x")]
    check(chunks, [T("Hi therex"), done(chars=9)])


def test_params_before_name_and_args_deltas_show_params_forming() -> None:
    text = '[{"type":"action","params":{"a":1,"b":[1,2],"c":"xy"},"name":"draw"}]'
    check(
        [text],
        [
            started(0, "draw"),
            complete(0, "draw", {"a": 1, "b": [1, 2], "c": "xy"}),
            done("complete", 1),
        ],
    )
    text = arr(act("draw", {"a": 1, "b": [1, 2], "c": "xy"}))
    parser = InterleavedParser(stream_id="stream")
    seen: list[Any] = []
    raw: list[str] = []
    for chunk in char_chunks(text):
        for event in parser.feed(chunk):
            if isinstance(event, ActionArgsDelta):
                assert event.id == "stream:0" and event.delta is not None
                seen.append(copy.deepcopy(event.partial))
                raw.append(event.delta)
    assert "".join(raw) == '{"a":1,"b":[1,2],"c":"xy"}'  # the params' source text
    assert seen[0] == {} and seen[-1] == {"a": 1, "b": [1, 2], "c": "xy"}
    assert {"a": 1, "b": [1]} in seen and {"a": 1, "b": [1, 2], "c": "x"} in seen
    assert all(raw)  # a delta carries the text that arrived, even when the value is unchanged


def test_falsy_fall_through_and_odd_params() -> None:
    text = '[{"type":"action","name":"","tool_name":"laser","params":0,"parameters":{"elementId":"p"}}]'
    check(
        [text], [started(0, "laser"), complete(0, "laser", {"elementId": "p"}), done("complete", 1)]
    )
    text = arr({"type": "action", "name": "a", "params": None}, act("b", [1, 2]), act("c", "str"))
    expected = [
        started(0, "a"),
        complete(0, "a", {}),
        started(1, "b"),
        ActionInvalid(
            "stream:1",
            1,
            "b",
            "bad_params",
            ({"message": "params must be an object, not array"},),
            "[1, 2]",
        ),
        started(2, "c"),
        ActionInvalid(
            "stream:2",
            2,
            "c",
            "bad_params",
            ({"message": "params must be an object, not string"},),
            '"str"',
        ),
        done("complete", 1, 2),
    ]
    check([text], expected)


def test_missing_and_bad_content_and_names() -> None:
    text = '[{"type":"text","content":""},{"type":"text"},{"type":"text","content":null},{"type":"action","name":42},{"type":"text","content":"x"}]'
    expected = [
        Diagnostic("bad_item", "text item 1 has no 'content'; skipped"),
        Diagnostic(
            "bad_content", "text item 2: content must be a string, not null; skipped", None, "null"
        ),
        ActionInvalid(
            "stream:0",
            0,
            None,
            "missing_name",
            ({"message": "an action needs a non-empty string 'name' (or 'tool_name')"},),
            '{"type": "action", "name": 42}',
        ),
        T("x"),
        done("complete", 0, 1, 1),
    ]
    check([text], expected)


def test_duplicate_keys_and_conflicting_names_are_reported() -> None:
    text = '[{"type":"action","tool_name":"laser","name":"spot","params":{}},{"type":"text","content":"a","content":"b","type":"action"}]'
    expected = [
        started(0, "laser"),
        Diagnostic(
            "conflicting_name",
            "action 'laser' already started; 'name' 'spot' was ignored",
            None,
            "spot",
        ),
        complete(0, "laser", {}),
        T("a"),
        Diagnostic(
            "duplicate_key", "item 1: a second 'type' (\"action\") was ignored", None, '"action"'
        ),
        Diagnostic("duplicate_key", "text item 1: a second 'content' was ignored"),
        done("complete", 1, 0, 1),
    ]
    check([text], expected)


def test_duplicate_model_ids_are_kept_as_attributes_only() -> None:
    text = arr(act("a", action_id="same"), act("b", action_id="same"))
    expected = [
        started(0, "a"),
        complete(0, "a", {}, "same"),
        started(1, "b"),
        complete(1, "b", {}, "same"),
        done("complete", 2),
    ]
    check([text], expected)


def test_registry_validation_rejects_a_disallowed_action() -> None:
    text = arr(act("spotlight", {"elementId": "x"}), txt("A"), act("wb_open"))
    expected = [
        started(0, "spotlight"),
        ActionInvalid(
            "stream:0", 0, "spotlight", "unknown_action", ({"message": "no action 'spotlight'"},)
        ),
        T("A"),
        started(1, "wb_open"),
        complete(1, "wb_open", {}),
        done("complete", 1, 1, 1),
    ]
    check([text], expected, registry=OnlyWbOpen())


def test_stream_id_makes_the_ids() -> None:
    events = parse_interleaved(arr(act("a")), stream_id="turn7")
    assert [e.id for e in events if isinstance(e, (ActionStarted, ActionComplete))] == [
        "turn7:0",
        "turn7:0",
    ]


# -- errors, finish reasons, bytes ---------------------------------------------------


def test_strict_json_error_ends_the_array_cleanly() -> None:
    text = '[{"type":"action","name":"x","params":{"a":1 "b":2}},{"type":"text","content":"after"}]'
    epos = text.index('"b"')
    expected = [
        started(0, "x"),
        Diagnostic("malformed_json", "Expecting ',' delimiter", epos),
        ActionInvalid(
            "stream:0",
            0,
            "x",
            "malformed_json",
            ({"message": "a JSON error ended the array (Expecting ',' delimiter)", "pos": epos},),
        ),
        Diagnostic("trailing", "text after the JSON error was ignored", epos, text[epos:]),
        done("error", 0, 1),
    ]
    check([text], expected)


def test_strict_error_inside_a_text_item_keeps_what_was_shown() -> None:
    text = '[{"type":"text","content":"He said "hi" to me."},{"type":"action","name":"wb_open"}]'
    epos = text.index('hi"')
    expected = [
        T("He said "),
        Diagnostic("malformed_json", "Expecting ',' delimiter", epos),
        Diagnostic(
            "truncated",
            "a JSON error ended the array (Expecting ',' delimiter): text item 0 (its text so far was shown) was cut off",
            epos,
        ),
        Diagnostic("trailing", "text after the JSON error was ignored", epos, text[epos:]),
        done("error", 0, 0, 8),
    ]
    check([text], expected)


def test_lenient_repairs_unescaped_quotes() -> None:
    text = '[{"type":"text","content":"He said "hi" to me."},{"type":"action","name":"wb_open"}]'
    first = text.index('"hi"')
    expected = [
        T('He said "hi" to me.'),
        Diagnostic("repair", "inner_quote: kept an unescaped quote inside a string", first),
        Diagnostic("repair", "inner_quote: kept an unescaped quote inside a string", first + 3),
        started(0, "wb_open"),
        complete(0, "wb_open", {}),
        done("complete", 1, 0, 19),
    ]
    check([text], expected, lenient=True)


def test_finish_reasons() -> None:
    closed = arr(txt("A"))
    assert parse_interleaved(closed, reason="stop", stream_id="stream")[-1] == done(chars=1)
    assert parse_interleaved(closed, reason="length", stream_id="stream")[-1] == done(
        "truncated", chars=1
    )
    assert parse_interleaved(closed, reason="abort", stream_id="stream")[-1] == done(
        "aborted", chars=1
    )
    cut = arr(act("a", {"k": "v"}))[:-5]
    events = parse_interleaved(cut, reason="abort", stream_id="stream")
    assert events[-2:] == [
        ActionInvalid(
            "stream:0", 0, "a", "truncated", ({"message": "the stream ended inside the array"},)
        ),
        done("aborted", 0, 1),
    ]


def test_finish_is_idempotent_and_feed_after_finish_raises() -> None:
    parser = InterleavedParser(stream_id="stream")
    parser.feed(A)
    assert parser.finish() == [done("complete", 2, 0, 16)]
    assert parser.finish() == []
    with pytest.raises(RuntimeError):
        parser.feed("x")


def test_bytes_split_inside_characters() -> None:
    text = arr(txt("中文 é 😀"), act("a", {"k": "ü"}))
    data = text.encode()
    expected = [
        T("中文 é 😀"),
        started(0, "a"),
        complete(0, "a", {"k": "ü"}),
        done("complete", 1, 0, 6),
    ]
    for parts in splits(data):
        assert merge_events(run_chunks(InterleavedParser(stream_id="stream"), parts)) == expected
    assert (
        merge_events(run_chunks(InterleavedParser(stream_id="stream"), char_chunks(data)))
        == expected
    )


def test_invalid_utf8_is_replaced_and_reported() -> None:
    events = parse_interleaved(b'[{"type":"text","content":"a\xffb"}]', stream_id="stream")
    assert events == [
        T("a"),
        Diagnostic("invalid_utf8", INVALID_UTF8, 28),
        T("\ufffdb"),
        done(chars=3),
    ]
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed(b"ok \xe4\xb8") == [T("ok ")]
    assert parser.finish() == [
        Diagnostic("invalid_utf8", INVALID_UTF8, 3),
        T("\ufffd"),
        done(chars=4),
    ]


def test_bad_prose_option() -> None:
    with pytest.raises(ValueError):
        InterleavedParser(prose="show", stream_id="stream")  # type: ignore[arg-type]


def test_events_are_json_ready() -> None:
    events = parse_interleaved(
        arr(act("a", {"k": [1, {"x": None}]}), txt("hi")), stream_id="stream"
    )
    assert [e.to_dict() for e in events] == [
        {
            "type": "action_started",
            "id": "stream:0",
            "index": 0,
            "name": "a",
            "action_id": None,
            "attributes": {},
        },
        {
            "type": "action_args_delta",
            "id": "stream:0",
            "index": 0,
            "partial": {"k": [1, {"x": None}]},
            "delta": '{"k":[1,{"x":null}]}',
        },
        {
            "type": "action_complete",
            "id": "stream:0",
            "index": 0,
            "name": "a",
            "args": {"k": [1, {"x": None}]},
            "action_id": None,
            "attributes": {},
        },
        {"type": "text_delta", "text": "hi"},
        {
            "type": "stream_done",
            "reason": "complete",
            "actions_complete": 1,
            "actions_invalid": 0,
            "text_chars": 2,
        },
    ]


def test_an_array_start_at_the_reply_start_is_decided_by_what_follows_it() -> None:
    for text in (
        "[1] Smith et al. say so.",
        "[note] first.",
        '[{"k":1}] is an example',
        "[] is empty",
    ):
        check([text], [T(text), done(chars=len(text))])
        check([text], [T(text), done(chars=len(text))], prose="hold")
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed("[1]") == []
    assert merge_events(parser.feed(" Smith")) == [T("[1] Smith")]
    check(
        ["[1,2]\n" + FENCE],
        [
            Diagnostic("unknown_item", "item 0 is a number, not an object; skipped", None, "1"),
            Diagnostic("unknown_item", "item 1 is a number, not an object; skipped", None, "2"),
            Diagnostic("fence", "the fence after the array was not shown", 6, FENCE),
            done(),
        ],
    )


def test_rescanning_rejected_candidates_is_bounded() -> None:
    text = "x " + '[{"a":' * 50 + "oops"
    epos = text.index("oops")
    expected = [
        T('x [{"a":'),
        Diagnostic("malformed_json", "Expecting value", epos),
        Diagnostic(
            "truncated", "a JSON error ended the array (Expecting value): item 0 was cut off", epos
        ),
        Diagnostic("trailing", "text after the JSON error was ignored", epos, "oops"),
        done("error", chars=8),
    ]
    check([text], expected)


def test_deeply_nested_items_are_reported_without_recursion_errors() -> None:
    deep = "[" * 990 + "]" * 990
    text = (
        f'[{deep},{{"type":"action","name":"x","params":{deep}}},{{"type":"text","content":"ok"}}]'
    )
    events = parse_interleaved(text, stream_id="stream")
    assert [type(e).__name__ for e in events] == [
        "Diagnostic",
        "ActionStarted",
        "ActionInvalid",
        "TextDelta",
        "StreamDone",
    ]
    assert isinstance(events[0], Diagnostic) and events[0].text == deep
    assert isinstance(events[2], ActionInvalid) and events[2].raw == deep
    too_deep = "[" * 1200 + "]" * 1200
    events = parse_interleaved(
        f'[{{"type":"action","name":"x","params":{too_deep}}}]', stream_id="stream"
    )
    epos = 998 + len('[{"type":"action","name":"x","params":')
    assert events[1:] == [
        Diagnostic("malformed_json", "nesting deeper than max_depth=1000", epos),
        ActionInvalid(
            "stream:0",
            0,
            "x",
            "malformed_json",
            (
                {
                    "message": "a JSON error ended the array (nesting deeper than max_depth=1000)",
                    "pos": epos,
                },
            ),
        ),
        Diagnostic(
            "trailing", "text after the JSON error was ignored", epos, too_deep[998:] + "}]"
        ),
        done("error", 0, 1),
    ]


# -- issue 12 item 8: the model's "id", and a leading <think> block --------------------


def test_a_model_written_item_id_is_kept_as_action_id() -> None:
    text = '[{"type":"action","id":"call_7","name":"laser","params":{"x":1}}]'
    check(
        [text],
        [
            started(0, "laser", "call_7"),
            complete(0, "laser", {"x": 1}, "call_7"),
            done("complete", 1),
        ],
    )
    # "action_id" is preferred when both are written; an "id" inside params is just an arg
    both = '[{"type":"action","id":"m","action_id":"A1","name":"l","params":{"id":"p"}}]'
    check([both], [started(0, "l", "A1"), complete(0, "l", {"id": "p"}, "A1"), done("complete", 1)])


def R(text: str) -> ReasoningDelta:
    return ReasoningDelta(text)


def test_a_leading_think_block_is_reasoning_never_text() -> None:
    think = "<think>The user wants [1] a {greeting}.\n</think>\n"
    check(
        [think + A],
        [R("The user wants [1] a {greeting}.\n"), *A_EVENTS, done("complete", 2, 0, 16)],
    )
    check(
        ["  <thinking>plan</thinking>" + FENCE + "json\n" + A + "\n" + FENCE],
        [
            R("plan"),
            Diagnostic("fence", "the fence around the array was not shown", 27, FENCE + "json\n"),
            *A_EVENTS,
            Diagnostic("fence", "the fence after the array was not shown", 226, FENCE),
            done("complete", 2, 0, 16),
        ],
    )
    # a reply with no array: the reasoning, then the prose as text
    check(["<think>hm</think>Hello there."], [R("hm"), T("Hello there."), done(chars=12)])
    # cut off inside the block: what came is reasoning; the stream is not truncated text
    check(["<think>still thinking"], [R("still thinking"), done()])
    # only at the start of the reply: later, or a tag it is not, it is prose
    check(["Hi <think>x</think>"], [T("Hi <think>x</think>"), done(chars=19)])
    check(["<thin> x"], [T("<thin> x"), done(chars=8)])


# -- issue 12 item 6: memory bounded by the largest item, not the reply ---------------


def _retained_blocks(items: int, per_chunk: int = 2000) -> tuple[int, StreamDone]:
    """Feed ``items`` small items (text and action alternating) in chunks; the most
    memory blocks held between two feeds, beyond those held after the ``[``."""
    parser = InterleavedParser(stream_id="s")
    pair = '{"type":"text","content":"hi"},{"type":"action","name":"a","params":{"k":1}},'
    body = pair * (per_chunk // 2)
    parser.feed("[")
    base = sys.getallocatedblocks()
    most = 0
    for _ in range(items // per_chunk):
        parser.feed(body)  # the events are dropped, as a consumer that sent them on does
        most = max(most, sys.getallocatedblocks() - base)
    done = [*parser.feed('{"type":"text","content":"end"}]'), *parser.finish()][-1]
    assert isinstance(done, StreamDone)
    return most, done


def test_a_long_reply_streams_in_memory_bounded_by_its_largest_item() -> None:
    """The parser keeps neither the chunks nor the finished items (the core releases
    them): what it holds between feeds does not grow with the reply.  Before, 40,000
    items held about 250,000 blocks; sys.getallocatedblocks is used rather than
    tracemalloc, which slows this allocation-heavy loop twentyfold."""
    small, _ = _retained_blocks(4_000)
    large, done = _retained_blocks(40_000)
    assert done == StreamDone("complete", 20_000, 0, 40_003)
    assert large < 2_000 and large < small + 1_000, (small, large)

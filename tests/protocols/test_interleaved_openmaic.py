"""The behavioural cases of research/openmaic.md §6, with their "want", on InterleavedParser.

§6.2 (streaming, cases 1-44) and §6.3 (offline, cases 45-58, through
``parse_interleaved``).  Each input is fed as listed, whole, split at every
index, and one character per chunk; the merged events must be exactly the
expected ones.  Where the reference consumer post-processes text (``>``
stripping, trimming speech, scene filters) the parser's job is to give the
exact text; that is what is asserted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.chunking import merge_events, run_chunks
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
from unspool.events import ActionComplete, ActionInvalid, Diagnostic, Event, StreamDone, TextDelta
from unspool.protocols._interleaved import InterleavedParser, parse_interleaved

CUT_TEXT = "the stream ended inside the array: text item {} (its text so far was shown) was cut off"
CUT_ACTION = ({"message": "the stream ended inside the array"},)
MISSING_NAME = ({"message": "an action needs a non-empty string 'name' (or 'tool_name')"},)


def trailing(pos: int, text: str) -> Diagnostic:
    return Diagnostic("trailing", "text after the array was ignored", pos, text)


def fence_before(text: str) -> Diagnostic:
    return Diagnostic("fence", "the fence around the array was not shown", 0, text)


def fence_after(pos: int) -> Diagnostic:
    return Diagnostic("fence", "the fence after the array was not shown", pos, FENCE)


def unknown(i: int, what: str, text: str) -> Diagnostic:
    return Diagnostic("unknown_item", f"item {i} is {what}; skipped", None, text)


A_DONE = done("complete", 2, 0, 16)
TA_WB = arr(txt("A"), act("wb_open"))
TA_WB_EVENTS: list[Event] = [T("A"), started(0, "wb_open"), complete(0, "wb_open", {})]
UNKNOWN_18 = '[{"type":"image"},"str",42,null,{"content":"no type"},{"type":"action","params":{"a":1}},{"type":"text","content":"ok"}]'
UNKNOWN_18_EVENTS: list[Event] = [
    unknown(0, 'an item of type "image"', '{"type": "image"}'),
    unknown(1, "a string, not an object", '"str"'),
    unknown(2, "a number, not an object", "42"),
    unknown(3, "a null, not an object", "null"),
    unknown(4, "an object without a usable 'type'", '{"content": "no type"}'),
    ActionInvalid(
        "stream:0", 0, None, "missing_name", MISSING_NAME, '{"type": "action", "params": {"a": 1}}'
    ),
    T("ok"),
    done("complete", 0, 1, 2),
]
QUOTES = (
    '[{"type":"text","content":"He said \\"hi\\" to me."},' + arr(act("wb_open"), txt("End."))[1:]
)
INNER = '[{"type":"text","content":"He said "hi" to me."},' + arr(act("wb_open"))[1:]
INNER_CJK = '[{"type":"text","content":"他说"你好"然后走了"},' + arr(act("wb_open"))[1:]
TABLE = arr(act("wb_draw_table", {"data": [["a", "b"], ["c", "d"]], "x": 1}), txt("Table."))
LATEX = arr(act("wb_draw_latex", {"latex": "\\sqrt[3]{x}"}), txt("Cube root."))


def inner_quotes(text: str, content: str) -> list[Event]:
    first = text.index('"', text.index(content[:2]) + 2)
    return [
        T(content),
        Diagnostic("repair", "inner_quote: kept an unescaped quote inside a string", first),
        Diagnostic("repair", "inner_quote: kept an unescaped quote inside a string", first + 3),
        started(0, "wb_open"),
        complete(0, "wb_open", {}),
        done("complete", 1, 0, len(content)),
    ]


# (case, chunks, expected merged events, parser options)
STREAMING: list[tuple[str, list[str], list[Event], dict[str, Any]]] = [
    ("01 single chunk", [A], [*A_EVENTS, A_DONE], {}),
    # 02: one character per chunk is part of every check(); timing in test_case_02
    (
        "03 action release",
        [arr(act("wb_open"))[:-1], ",", "{", '"type":"text","content":"Hi"}', "]"],
        [started(0, "wb_open"), complete(0, "wb_open", {}), T("Hi"), done("complete", 1, 0, 2)],
        {},
    ),
    (
        "04 prose preamble (hold)",
        ["Sure! Here it is:\n", A],
        [
            Diagnostic("preamble", "prose before the array was not shown", 0, "Sure! Here it is:"),
            *A_EVENTS,
            A_DONE,
        ],
        {"prose": "hold"},
    ),
    (
        "04 prose preamble (stream)",
        ["Sure! Here it is:\n", A],
        [T("Sure! Here it is:\n"), *A_EVENTS, done("complete", 2, 0, 34)],
        {},
    ),
    (
        "05 fence in its own chunks",
        [f"{FENCE}json\n{A}", f"\n{FENCE}"],
        [fence_before(f"{FENCE}json\n"), *A_EVENTS, fence_after(len(A) + 9), A_DONE],
        {},
    ),
    (
        "06 trailing fence in the same chunk",
        [f"{FENCE}json\n{A}\n{FENCE}"],
        [fence_before(f"{FENCE}json\n"), *A_EVENTS, fence_after(len(A) + 9), A_DONE],
        {},
    ),
    (
        "07 trailing prose in the same chunk",
        [TA_WB + "\nHope this helps!"],
        [*TA_WB_EVENTS, trailing(len(TA_WB) + 1, "Hope this helps!"), done("complete", 1, 0, 1)],
        {},
    ),
    (
        "08 trailing prose in a separate chunk",
        [TA_WB, "\nHope this helps!"],
        [*TA_WB_EVENTS, trailing(len(TA_WB) + 1, "Hope this helps!"), done("complete", 1, 0, 1)],
        {},
    ),
    (
        "09 no [ at all",
        ["Hello ", "students, today we learn."],
        [T("Hello students, today we learn."), done(chars=31)],
        {},
    ),
    ("10 empty stream", [""], [done()], {}),
    ("10 whitespace only", ["  \n", "\t "], [done()], {}),
    ("11 empty array", ["[]"], [done()], {}),
    ("12 bare [", ["[", "  "], [done("truncated")], {}),
    (
        "13 truncated inside a text item",
        [arr(act("wb_open"), txt("Hello stu"))[:-3]],
        [
            started(0, "wb_open"),
            complete(0, "wb_open", {}),
            T("Hello stu"),
            Diagnostic("truncated", CUT_TEXT.format(1)),
            done("truncated", 1, 0, 9),
        ],
        {},
    ),
    (
        "14 truncated inside an action",
        [arr(txt("Hi"), act("wb_draw_text", {"content": "x", "x": 1}))[:-3]],
        [
            T("Hi"),
            started(0, "wb_draw_text"),
            ActionInvalid("stream:0", 0, "wb_draw_text", "truncated", CUT_ACTION),
            done("truncated", 0, 1, 2),
        ],
        {},
    ),
    (
        "15 complete last action, array never closed",
        [arr(txt("Hi"), act("wb_open"))[:-1]],
        [T("Hi"), started(0, "wb_open"), complete(0, "wb_open", {}), done("truncated", 1, 0, 2)],
        {},
    ),
    (
        "16 legacy field names",
        [
            '[{"type":"action","tool_name":"laser","parameters":{"elementId":"e1"},"action_id":"A1"}]'
        ],
        [started(0, "laser"), complete(0, "laser", {"elementId": "e1"}, "A1"), done("complete", 1)],
        {},
    ),
    (
        "17 falsy fall-through",
        [
            '[{"type":"action","name":"","tool_name":"laser","params":0,"parameters":{"elementId":"p"}}]'
        ],
        [started(0, "laser"), complete(0, "laser", {"elementId": "p"}), done("complete", 1)],
        {},
    ),
    ("18 unknown shapes", [UNKNOWN_18], UNKNOWN_18_EVENTS, {}),
    (
        "19 empty and missing content",
        [arr(txt(""), {"type": "text"}, txt("x"))],
        [Diagnostic("bad_item", "text item 1 has no 'content'; skipped"), T("x"), done(chars=1)],
        {},
    ),
    (
        "20 non-string content",
        [arr(txt(42), txt("after"))],
        [
            Diagnostic(
                "bad_content",
                "text item 0: content must be a string, not number; skipped",
                None,
                "42",
            ),
            T("after"),
            done(chars=5),
        ],
        {},
    ),
    (
        "21 odd params",
        [arr({"type": "action", "name": "a", "params": None}, act("b", [1, 2]))],
        [
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
            done("complete", 1, 1),
        ],
        {},
    ),
    (
        "22 escaped quotes",
        [QUOTES],
        [
            T('He said "hi" to me.'),
            started(0, "wb_open"),
            complete(0, "wb_open", {}),
            T("End."),
            done("complete", 1, 0, 23),
        ],
        {},
    ),
    (
        "23 escapes split",
        ['[{"type":"text","content":"caf\\u00e9 ok"},{"type":"text","content":"a\\nb\\\\c"}]'],
        [T("café oka\nb\\c"), done(chars=12)],
        {},
    ),
    (
        "24 unescaped inner quotes (lenient)",
        [INNER],
        inner_quotes(INNER, 'He said "hi" to me.'),
        {"lenient": True},
    ),
    (
        "24 unescaped CJK inner quotes (lenient)",
        [INNER_CJK],
        inner_quotes(INNER_CJK, '他说"你好"然后走了'),
        {"lenient": True},
    ),
    (
        "25 ] inside text at a chunk end",
        ['[{"type":"text","content":"see [1]', ', more"},' + arr(act("wb_open"))[1:]],
        [
            T("see [1], more"),
            started(0, "wb_open"),
            complete(0, "wb_open", {}),
            done("complete", 1, 0, 13),
        ],
        {},
    ),
    (
        "26 [..] inside text",
        [arr(txt("See ref [1] and more."), txt("End."))],
        [T("See ref [1] and more.End."), done(chars=25)],
        {},
    ),
    (
        "27 [ inside text",
        [arr(act("wb_open"), txt("Interval [a, b) is half-open"), act("wb_clear"))],
        [
            started(0, "wb_open"),
            complete(0, "wb_open", {}),
            T("Interval [a, b) is half-open"),
            started(1, "wb_clear"),
            complete(1, "wb_clear", {}),
            done("complete", 2, 0, 28),
        ],
        {},
    ),
    (
        "28 nested array closes at a chunk end",
        [TABLE[: TABLE.index('"b"]') + 4], TABLE[TABLE.index('"b"]') + 4 :]],
        [
            started(0, "wb_draw_table"),
            complete(0, "wb_draw_table", {"data": [["a", "b"], ["c", "d"]], "x": 1}),
            T("Table."),
            done("complete", 1, 0, 6),
        ],
        {},
    ),
    (
        "29 latex in params",
        [LATEX],
        [
            started(0, "wb_draw_latex"),
            complete(0, "wb_draw_latex", {"latex": "\\sqrt[3]{x}"}),
            T("Cube root."),
            done("complete", 1, 0, 10),
        ],
        {},
    ),
    (
        "30 [ in a prose preamble (hold)",
        ["Sure [note]: ", A],
        [
            Diagnostic("preamble", "prose before the array was not shown", 0, "Sure [note]:"),
            *A_EVENTS,
            A_DONE,
        ],
        {"prose": "hold"},
    ),
    (
        "30 [ in a prose preamble (stream)",
        ["Sure [note]: ", A],
        [T("Sure [note]: "), *A_EVENTS, done("complete", 2, 0, 29)],
        {},
    ),
    (
        "31 plain text ending in a citation",
        ["The answer is 42 ", "[1]"],
        [T("The answer is 42 [1]"), done(chars=20)],
        {},
    ),
    (
        "32 plain text with a [ in the middle",
        ["The answer is 42 [see notes", "] and more text."],
        [T("The answer is 42 [see notes] and more text."), done(chars=43)],
        {},
    ),
    (
        "33 two arrays in one chunk",
        [arr(txt("A")) + "\n" + arr(txt("B"))],
        [
            T("A"),
            Diagnostic(
                "extra_array", "a second array after the reply was ignored", 32, arr(txt("B"))
            ),
            done(chars=1),
        ],
        {},
    ),
    (
        "34 chunks after done",
        [arr(txt("A")), arr(txt("B"))],
        [
            T("A"),
            Diagnostic(
                "extra_array", "a second array after the reply was ignored", 31, arr(txt("B"))
            ),
            done(chars=1),
        ],
        {},
    ),
    ("35 whitespace after ]", [TA_WB + "   \n "], [*TA_WB_EVENTS, done("complete", 1, 0, 1)], {}),
    (
        "36 type after content",
        ['[{"content":"Hi the', 're","type":"text"},{"type":"text","content":"x"}]'],
        [T("Hi therex"), done(chars=9)],
        {},
    ),
    # 37/38: the reference consumer strips ">" quote markers; the parser gives the exact text, once
    (
        "37 > at the start of a delta",
        ['[{"type":"text","content":"x', ">5 and y", '>3"}]'],
        [T("x>5 and y>3"), done(chars=11)],
        {},
    ),
    (
        "38 text that strips to nothing",
        [arr(txt(">"), txt("Hello"), txt("Wor"))[:-3]],
        [T(">HelloWor"), Diagnostic("truncated", CUT_TEXT.format(2)), done("truncated", chars=9)],
        {},
    ),
    # 39: the reference filters actions in its consumer; here a registry rejects them, never silently
    (
        "39 disallowed action (registry)",
        [arr(act("spotlight"), txt("A"))],
        [
            started(0, "spotlight"),
            ActionInvalid(
                "stream:0",
                0,
                "spotlight",
                "unknown_action",
                ({"message": "no action 'spotlight'"},),
            ),
            T("A"),
            done("complete", 0, 1, 1),
        ],
        {"registry": OnlyWbOpen()},
    ),
    (
        "40 duplicate model ids",
        [arr(act("a", action_id="same"), act("b", action_id="same"))],
        [
            started(0, "a"),
            complete(0, "a", {}, "same"),
            started(1, "b"),
            complete(1, "b", {}, "same"),
            done("complete", 2),
        ],
        {},
    ),
    # 41: test_case_41 (idempotent finish); 42: test_interleaved_props (linear cost)
    # 43/44 skipped: abort and provider errors are agent-level (the source raises, not the parser);
    # finish(reason="abort") is covered in test_interleaved.py::test_finish_reasons
]


@pytest.mark.parametrize(
    ("chunks", "expected", "opts"),
    [pytest.param(c, e, o, id=name) for name, c, e, o in STREAMING],
)
def test_streaming_case(chunks: list[str], expected: list[Event], opts: dict[str, Any]) -> None:
    check(chunks, expected, **opts)


def test_case_02_one_char_per_chunk_timing() -> None:
    parser = InterleavedParser(stream_id="stream")
    per_chunk = [parser.feed(c) for c in A]
    item0_end = A.index("}}") + 1
    assert any(isinstance(e, ActionComplete) for e in per_chunk[item0_end])  # at its own '}'
    texts = [e.text for evs in per_chunk for e in evs if isinstance(e, TextDelta)]
    assert texts == [*"Hello class.", *"Bye."]  # spaces are not held back
    assert per_chunk[-1] == []
    assert parser.finish() == [A_DONE]


def test_case_03_what_each_chunk_releases() -> None:
    parser = InterleavedParser(stream_id="stream")
    chunks = [arr(act("wb_open"))[:-1], ",", "{", '"type":"text","content":"Hi"}', "]"]
    out = [[e for e in parser.feed(c) if not isinstance(e, StreamDone)] for c in chunks]
    assert [type(e).__name__ for e in out[0]] == [
        "ActionStarted",
        "ActionArgsDelta",
        "ActionComplete",
    ]
    assert out[1:] == [[], [], [T("Hi")], []]


def test_case_09_prose_streams_while_it_arrives() -> None:
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed("Hello ") == [T("Hello ")]
    assert parser.feed("students, today we learn.") == [T("students, today we learn.")]


def test_case_36_nothing_streams_before_the_type() -> None:
    parser = InterleavedParser(stream_id="stream")
    assert parser.feed('[{"content":"Hi the') == []
    assert parser.feed('re","type":"text"},{"type":"text","content":"x"}]') == [
        T("Hi there"),
        T("x"),
    ]


def test_case_41_idempotent_finish() -> None:
    parser = InterleavedParser(stream_id="stream")
    parser.feed(arr(txt("A")))
    assert parser.finish() == [done(chars=1)]
    assert parser.finish() == []
    assert run_chunks(InterleavedParser(stream_id="stream"), [])[-1] == done()


# -- §6.3 offline cases, through parse_interleaved ----------------------------------

A2 = arr(act("spotlight", {"elementId": "e1"}), txt("  Hi  "))
# 45: the offline converter trims speech; the parser gives the exact text
A2_EVENTS: list[Event] = [
    started(0, "spotlight"),
    complete(0, "spotlight", {"elementId": "e1"}),
    T("  Hi  "),
]
A2_DONE = done("complete", 1, 0, 6)

OFFLINE: list[tuple[str, str, list[Event], dict[str, Any]]] = [
    ("45 plain input", A2, [*A2_EVENTS, A2_DONE], {}),
    (
        "46 json fence",
        f"{FENCE}json\n{A2}\n{FENCE}",
        [fence_before(f"{FENCE}json\n"), *A2_EVENTS, fence_after(len(A2) + 9), A2_DONE],
        {},
    ),
    (
        "46 uppercase fence with spaces",
        f"{FENCE}JSON  \n{A2}\n{FENCE}",
        [fence_before(f"{FENCE}JSON  \n"), *A2_EVENTS, fence_after(len(A2) + 11), A2_DONE],
        {},
    ),
    (
        "46 fence without newline",
        f"{FENCE}json{A2}{FENCE}",
        [fence_before(f"{FENCE}json"), *A2_EVENTS, fence_after(len(A2) + 7), A2_DONE],
        {},
    ),
    (
        "47 prose around, ] in the trailing prose",
        f"Here you go:\n{A2}\nHope this helps [really]!",
        [
            Diagnostic("preamble", "prose before the array was not shown", 0, "Here you go:"),
            *A2_EVENTS,
            trailing(len(A2) + 14, "Hope this helps [really]!"),
            A2_DONE,
        ],
        {"prose": "hold"},
    ),
    (
        "48 unescaped CJK quotes",
        INNER_CJK,
        inner_quotes(INNER_CJK, '他说"你好"然后走了'),
        {"lenient": True},
    ),
    (
        "49 truncated text",
        arr(txt("A"), txt("tru"))[:-3],
        [T("Atru"), Diagnostic("truncated", CUT_TEXT.format(1)), done("truncated", chars=4)],
        {},
    ),
    (
        "49 truncated action",
        arr(txt("A"))[:-1] + ',{"type":"action","name":"wb_open","par',
        [
            T("A"),
            started(0, "wb_open"),
            ActionInvalid("stream:0", 0, "wb_open", "truncated", CUT_ACTION),
            done("truncated", 0, 1, 1),
        ],
        {},
    ),
    ("50 no [", "Sorry, I cannot.", [T("Sorry, I cannot."), done(chars=16)], {}),
    # 51 (discussion rule) and 52 (scene filters) are the offline converter's policy, not parsing;
    # 52's whitelist is what a registry does (case 39 above)
    (
        "53 legacy tool_id",
        '[{"type":"action","tool_name":"laser","parameters":{"elementId":"e2"},"tool_id":"T9"}]',
        [started(0, "laser"), complete(0, "laser", {"elementId": "e2"}, "T9"), done("complete", 1)],
        {},
    ),
    (
        "54 params override",
        arr(act("laser", {"type": "speech", "id": "X", "text": "pwned"})),
        [
            started(0, "laser"),
            complete(0, "laser", {"type": "speech", "id": "X", "text": "pwned"}),
            done("complete", 1),
        ],
        {},
    ),
    (
        "55 non-string text content",
        arr(txt(42)),
        [
            Diagnostic(
                "bad_content",
                "text item 0: content must be a string, not number; skipped",
                None,
                "42",
            ),
            done(),
        ],
        {},
    ),
    (
        "56 missing action name",
        arr({"type": "action", "params": {"a": 1}}),
        [
            ActionInvalid(
                "stream:0",
                0,
                None,
                "missing_name",
                MISSING_NAME,
                '{"type": "action", "params": {"a": 1}}',
            ),
            done("complete", 0, 1),
        ],
        {},
    ),
    (
        "57 items that cannot be used",
        '[1,"s",null,{"content":"x"},{"type":"other"}]',
        [
            unknown(0, "a number, not an object", "1"),
            unknown(1, "a string, not an object", '"s"'),
            unknown(2, "a null, not an object", "null"),
            unknown(3, "an object without a usable 'type'", '{"content": "x"}'),
            unknown(4, 'an item of type "other"', '{"type": "other"}'),
            done(),
        ],
        {},
    ),
    (
        "58 two arrays",
        A2 + A2,
        [
            *A2_EVENTS,
            Diagnostic("extra_array", "a second array after the reply was ignored", len(A2), A2),
            A2_DONE,
        ],
        {},
    ),
    (
        "58 [ in a preamble",
        f"Note [draft]: {A2}",
        [
            Diagnostic("preamble", "prose before the array was not shown", 0, "Note [draft]:"),
            *A2_EVENTS,
            A2_DONE,
        ],
        {"prose": "hold"},
    ),
    ("58 whitespace-only content", arr(txt("   ")), [T("   "), done(chars=3)], {}),
    ("58 empty array", "[]", [done()], {}),
]


@pytest.mark.parametrize(
    ("text", "expected", "opts"),
    [pytest.param(t, e, o, id=name) for name, t, e, o in OFFLINE],
)
def test_offline_case(text: str, expected: list[Event], opts: dict[str, Any]) -> None:
    assert merge_events(parse_interleaved(text, **opts, stream_id="stream")) == expected
    check([text], expected, **opts)


def test_offline_results_serialise() -> None:
    events = parse_interleaved(A2, stream_id="stream")
    assert json.loads(json.dumps([e.to_dict() for e in events]))[2] == {
        "type": "action_complete",
        "id": "stream:0",
        "index": 0,
        "name": "spotlight",
        "args": {"elementId": "e1"},
        "action_id": None,
        "attributes": {},
    }

"""Lenient mode of the core, table-driven: what models write, what it reads as, what it repaired.

Every case gives the exact value and the exact list of repair kinds, and is fed
whole, split in two at every index, one character at a time and one byte at a
time: the value, the repairs (kinds *and* positions) and ``complete`` must be the
same every time.  The cases cover every deviation alone (at the start, middle and
end of a document, at the root and nested) and combined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from core_support import assert_same, chunks_at, detach, one_by_one, prefix_violation
from unspool import JsonStream, MalformedJSON
from unspool.core.lexicon import LENIENT_KINDS
from unspool.core.path_events import Repair

NAN = float("nan")
INF = float("inf")


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    value: Any
    kinds: tuple[str, ...]


TC, SQ, UK, CM = "trailing_comma", "single_quotes", "unquoted_key", "comment"
PL, CC, MC, IQ = "python_literal", "control_char", "missing_comma", "inner_quote"
NN, TR = "nan", "truncated"
IE, UV, LC, LZ = "invalid_escape", "unquoted_value", "literal_case", "leading_zeros"
CQ, EL, MV = "curly_quotes", "ellipsis", "missing_value"
MX, XC, MQ = "mismatched_closer", "extra_closer", "missing_quote"
US = "unicode_space"

CASES = [
    # ---------------------------------------------------------------- trailing commas
    Case("tc-start", "[[1,], 2, 3]", [[1], 2, 3], (TC,)),
    Case("tc-middle", '{"a": 1, "b": {"c": 2,}, "d": 3}', {"a": 1, "b": {"c": 2}, "d": 3}, (TC,)),
    Case("tc-end-array", "[1, 2, 3,]", [1, 2, 3], (TC,)),
    Case("tc-end-object", '{"a": 1, "b": 2,}', {"a": 1, "b": 2}, (TC,)),
    Case("tc-newlines", "[\n  1,\n  2,\n]", [1, 2], (TC,)),
    Case("tc-nested", '[[1, 2,], {"a": [3,],},]', [[1, 2], {"a": [3]}], (TC,) * 4),
    # ---------------------------------------------------------------- single quotes
    Case("sq-start", '[\'a\', "b", "c"]', ["a", "b", "c"], (SQ,)),
    Case("sq-middle-key", '{"a": 1, \'b\': 2, "c": 3}', {"a": 1, "b": 2, "c": 3}, (SQ,)),
    Case("sq-end", '["a", "b", \'c\']', ["a", "b", "c"], (SQ,)),
    Case("sq-root", "'root'", "root", (SQ,)),
    Case("sq-escapes", "['it\\'s', 'say \"hi\"']", ["it's", 'say "hi"'], (SQ, SQ)),
    Case("sq-nested", "{'k': {'n': ['v']}}", {"k": {"n": ["v"]}}, (SQ,) * 3),
    # ---------------------------------------------------------------- unquoted keys
    Case("uk-start", '{a: 1, "b": 2}', {"a": 1, "b": 2}, (UK,)),
    Case("uk-middle", '{"a": 1, b: 2, "c": 3}', {"a": 1, "b": 2, "c": 3}, (UK,)),
    Case("uk-end", '{"a": 1, last_one: 2}', {"a": 1, "last_one": 2}, (UK,)),
    Case("uk-ident-chars", "{$id: 1, e-f: 2, _x9: 3}", {"$id": 1, "e-f": 2, "_x9": 3}, (UK,) * 3),
    Case("uk-space-colon", "{a : 1}", {"a": 1}, (UK,)),
    Case(
        "uk-nested",
        '{"outer": {inner: [1, {deep: true}]}}',
        {"outer": {"inner": [1, {"deep": True}]}},
        (UK, UK),
    ),
    # ---------------------------------------------------------------- comments
    Case("cm-start-line", "// lead\n[1, 2]", [1, 2], (CM,)),
    Case("cm-start-block", '/* lead */ {"a": 1}', {"a": 1}, (CM,)),
    Case("cm-middle", "[1, /* mid */ 2]", [1, 2], (CM,)),
    Case("cm-before-colon", '{"a" /* c */ : 1}', {"a": 1}, (CM,)),
    Case("cm-after-colon", '{"a": /* c */ 1}', {"a": 1}, (CM,)),
    Case("cm-end-line", "[1, 2] // tail", [1, 2], (CM,)),
    Case("cm-end-block", '{"a": 1} /* tail */', {"a": 1}, (CM,)),
    Case("cm-nested", '{"a": [1, // c\n 2]}', {"a": [1, 2]}, (CM,)),
    Case("cm-two", "/* a */ /* b */ 1", 1, (CM, CM)),
    Case("cm-brackets-inside", '[1, /* ] } " */ 2]', [1, 2], (CM,)),
    # ---------------------------------------------------------------- Python literals
    Case("pl-start", "[True, false, null]", [True, False, None], (PL,)),
    Case("pl-middle", '{"a": 1, "b": None, "c": 2}', {"a": 1, "b": None, "c": 2}, (PL,)),
    Case("pl-end", "[1, 2, False]", [1, 2, False], (PL,)),
    Case("pl-root", "None", None, (PL,)),
    Case("pl-nested", '{"a": {"b": [None, True]}}', {"a": {"b": [None, True]}}, (PL, PL)),
    # ---------------------------------------------------------------- raw control characters
    Case("cc-root", '"line1\nline2"', "line1\nline2", (CC,)),
    Case("cc-start", '["\tindented", 1]', ["\tindented", 1], (CC,)),
    Case(
        "cc-middle",
        '{"a": "x", "b": "mid\r\nline", "c": "y"}',
        {"a": "x", "b": "mid\r\nline", "c": "y"},
        (CC,),
    ),
    Case("cc-end", '[1, "end\n"]', [1, "end\n"], (CC,)),
    Case(
        "cc-once-per-string",
        '{"a": "tab\there and\nnewline"}',
        {"a": "tab\there and\nnewline"},
        (CC,),
    ),
    Case("cc-two-strings", '["a\nb", "c\nd"]', ["a\nb", "c\nd"], (CC, CC)),
    Case("cc-key", '{"a\nb": 1}', {"a\nb": 1}, (CC,)),
    # ---------------------------------------------------------------- missing commas
    Case("mc-numbers", "[1 2 3]", [1, 2, 3], (MC, MC)),
    Case("mc-members", '{"a": 1 "b": 2}', {"a": 1, "b": 2}, (MC,)),
    Case("mc-arrays", "[[1] [2]]", [[1], [2]], (MC,)),
    Case("mc-objects", '[{"a": 1} {"b": 2}]', [{"a": 1}, {"b": 2}], (MC,)),
    Case("mc-strings", '["x" "y"]', ["x", "y"], (MC,)),
    Case(
        "mc-nested-members",
        '{"a": [1] "b": {"c": 2} "d": 3}',
        {"a": [1], "b": {"c": 2}, "d": 3},
        (MC, MC),
    ),
    Case("mc-literals", "[true false null]", [True, False, None], (MC, MC)),
    Case("mc-newlines", "[\n  1\n  2\n]", [1, 2], (MC,)),
    # ---------------------------------------------------------------- unescaped inner quotes
    Case("iq-middle", '{"s": "He said "hi" to me"}', {"s": 'He said "hi" to me'}, (IQ, IQ)),
    Case("iq-start", '[""quoted" first"]', ['"quoted" first'], (IQ, IQ)),
    Case("iq-root", '"say "x" now"', 'say "x" now', (IQ, IQ)),
    Case("iq-one", '{"a": "x"y", "b": 1}', {"a": 'x"y', "b": 1}, (IQ,)),
    Case(
        "iq-comma-prose",
        '{"a": "He said "hi", then left"}',
        {"a": 'He said "hi", then left'},
        (IQ, IQ),
    ),
    Case("iq-array", '["a "b" c", "d"]', ['a "b" c', "d"], (IQ, IQ)),
    Case(
        "iq-nested-middle",
        '{"a": "x", "b": "the "mid" one", "c": "y"}',
        {"a": "x", "b": 'the "mid" one', "c": "y"},
        (IQ, IQ),
    ),
    # ---------------------------------------------------------------- NaN and Infinity
    Case("nan-all", "[NaN, Infinity, -Infinity]", [NAN, INF, -INF], (NN,) * 3),
    Case("nan-member", '{"a": NaN}', {"a": NAN}, (NN,)),
    Case("nan-root-inf", "Infinity", INF, (NN,)),
    Case("nan-root-neg-inf", "-Infinity", -INF, (NN,)),
    Case("nan-nested", '{"a": [-Infinity]}', {"a": [-INF]}, (NN,)),
    # ---------------------------------------------------------------- truncation
    Case("tr-number", "[1, 2", [1, 2], (TR,)),
    Case("tr-deep-string", '{"a": {"b": [1, {"c": "tex', {"a": {"b": [1, {"c": "tex"}]}}, (TR,)),
    Case("tr-member-number", '{"a": 1', {"a": 1}, (TR,)),
    Case("tr-literal-dropped", '{"a": tr', {}, (TR,)),
    Case("tr-escape-dropped", '{"a": "x\\u00', {"a": "x"}, (TR,)),
    Case("tr-after-comma", "[1, 2,", [1, 2], (TR,)),
    Case("tr-after-colon", '{"a":', {}, (TR,)),
    Case("tr-in-key", '{"a', {}, (TR,)),
    Case("tr-second-key", '{"a": "b", "c', {"a": "b"}, (TR,)),
    Case("tr-root-string", '"abc', "abc", (TR,)),
    Case("tr-number-dot-dropped", "[1.", [], (TR,)),
    Case("tr-minus-dropped", "[-", [], (TR,)),
    Case("tr-neg-infinity-dropped", '{"a": -Infin', {}, (TR,)),
    Case("tr-python-literal-dropped", '{"a": [1, {"b": Tr', {"a": [1, {}]}, (TR,)),
    # ---------------------------------------------------------------- the wrong values of issue 13
    Case("wv-string-then-number", '["a" 2]', ["a", 2], (MC,)),
    Case("wv-string-then-array", '["x" [1]]', ["x", [1]], (MC,)),
    Case("wv-string-newline-number", '["x"\n1]', ["x", 1], (MC,)),
    Case("wv-string-then-literal", '["x" true, "y"]', ["x", True, "y"], (MC,)),
    Case("wv-strings-then-number", '["a" "b" "c" 1', ["a", "b", "c", 1], (MC, MC, MC, TR)),
    Case("wv-number-in-prose", '["a "5 apples" b"]', ['a "5 apples" b'], (IQ, IQ)),
    Case(
        "wv-url-not-comment",
        '{ "content": "[LINK]("https://google.com")" }',
        {"content": '[LINK]("https://google.com")'},
        (IQ, IQ),
    ),
    Case("wv-uuid-root", "746de9ad-d4ff-4c66", "746de9ad-d4ff-4c66", (UV,)),
    Case("wv-number-glued", "12abc", "12abc", (UV,)),
    Case("wv-literal-glued", "[false$]", ["false$"], (UV,)),
    # ---------------------------------------------------------------- invalid escapes
    Case("ie-latex", '{"tex": "\\(K_\\alpha\\)"}', {"tex": "\\(K_\\alpha\\)"}, (IE, IE, IE)),
    Case("ie-regex", '["\\s+\\d"]', ["\\s+\\d"], (IE, IE)),
    Case("ie-windows-path", '"C:\\Users\\me"', "C:\\Users\\me", (IE, IE)),
    Case("ie-bad-unicode", '["\\user", "\\u00e9"]', ["\\user", "\u00e9"], (IE,)),
    Case("ie-frac-is-json", '["\\frac"]', ["\frac"], ()),  # \f is a JSON escape
    # ---------------------------------------------------------------- unquoted values
    Case("uv-words", '{"city": New York}', {"city": "New York"}, (UV,)),
    Case("uv-key-and-value", "{key: value}", {"key": "value"}, (UK, UV)),
    Case("uv-array", "[a, b]", ["a", "b"], (UV, UV)),
    Case("uv-date-time", "[2024-01-15, 12:30]", ["2024-01-15", "12:30"], (UV, UV)),
    Case("uv-fraction", '{"a": 1/3, "b": 2}', {"a": "1/3", "b": 2}, (UV,)),
    Case("uv-before-quote", '{"a": x "b": 1}', {"a": "x", "b": 1}, (UV, MC)),
    Case("uv-line-ends-it", "[a\nb]", ["a", "b"], (UV, MC, UV)),
    Case("uv-comment-ends-it", "[a // c\n]", ["a"], (UV, CM)),
    Case("uv-truncated", '{"a": New Yo', {"a": "New Yo"}, (UV, TR)),
    Case("uv-literal-prefix-dropped", '{"a": tr', {}, (TR,)),
    Case(
        "lc-any-case",
        '{"a": TRUE, "b": Null, "c": fAlse}',
        {"a": True, "b": None, "c": False},
        (LC, LC, LC),
    ),
    Case("lc-root", "FALSE", False, (LC,)),
    Case("lz-numbers", "[01, -007, 0.5]", [1, -7, 0.5], (LZ, LZ)),
    # ---------------------------------------------------------------- curly quotes
    Case("cq-object", "{\u201ca\u201d: \u201cb\u201d}", {"a": "b"}, (CQ, CQ)),
    Case("cq-single", "[\u2018x\u2019, \u201cy\u201d]", ["x", "y"], (CQ, CQ)),
    Case("cq-straight-close", '{"a": \u201cb", "c": 1}', {"a": "b", "c": 1}, (CQ,)),
    Case("cq-text-in-string", '{"a": "\u201cquoted\u201d"}', {"a": "\u201cquoted\u201d"}, ()),
    Case("cq-apostrophe", "[\u2018it\u2019s\u2019]", ["it\u2019s"], (CQ, IQ)),
    # ---------------------------------------------------------------- ellipsis
    Case("el-end", "[1, 2, ...]", [1, 2], (EL,)),
    Case("el-start", "[..., 7]", [7], (EL,)),
    Case("el-middle-unicode", "[1, \u2026, 3]", [1, 3], (EL,)),
    Case("el-object", '{"a": 1, ...}', {"a": 1}, (EL,)),
    Case("el-string-kept", "['...']", ["..."], (SQ,)),
    # ---------------------------------------------------------------- structural slips
    Case("mv-comma", '{"a": , "b": 2}', {"a": None, "b": 2}, (MV,)),
    Case("mv-closer", '{"a": 1, "b": }', {"a": 1, "b": None}, (MV,)),
    Case("mx-missing-brace", '[{"b": 2]', [{"b": 2}], (MX,)),
    Case("mx-missing-bracket", '{"a": [1, 2}', {"a": [1, 2]}, (MX,)),
    Case("mx-typo-goes-on", '{"k1": ["v1"}, "k2": 3}', {"k1": ["v1"], "k2": 3}, (MX,)),
    Case("mx-object-typo", '{"a": 2]', {"a": 2}, (MX,)),
    Case("mx-array-typo", "[2, 3}", [2, 3], (MX,)),
    Case("mx-missing-brace-before-next", '[{"i": 1{"i": 2}]', [{"i": 1}, {"i": 2}], (MX, MC)),
    Case(
        "mq-before-member",
        '{"city": "New York, "zip": "10001"}',
        {"city": "New York", "zip": "10001"},
        (MQ,),
    ),
    Case("mq-before-item", '[\n"abc,\n"def"\n]', ["abc", "def"], (MQ,)),
    Case("mq-closers-at-the-end", '{"key": ["value]}', {"key": ["value"]}, (MQ,)),
    Case("mq-closer-then-newline", '["abc]\n', ["abc"], (MQ,)),
    Case("mq-closers-are-text", '{"code": "f() {}", "b": "]"}', {"code": "f() {}", "b": "]"}, ()),
    Case("mq-commas-are-text", '["a, b", "a,", ",", 1]', ["a, b", "a,", ",", 1], ()),
    Case("xc-end", '{"a": 1}}', {"a": 1}, (XC,)),
    Case("xc-middle", '[{"a": 1}}, {"b": 2}]', [{"a": 1}, {"b": 2}], (XC,)),
    Case("nk-numeric-keys", '{2: "two", 10: "ten"}', {"2": "two", "10": "ten"}, (UK, UK)),
    Case("hc-hash-comment", '{"a": 1, # note\n"b": 2}', {"a": 1, "b": 2}, (CM,)),
    Case("hc-after-string", '{"a": "x" # note\n}', {"a": "x"}, (CM,)),
    # ---------------------------------------------------------------- combined
    Case("mix-sq-truncated", "{'a': 'unterminated", {"a": "unterminated"}, (SQ, SQ, TR)),
    Case("mix-sq-truncated-array", "[1, 'x", [1, "x"], (SQ, TR)),
    Case("mix-pl-truncated", "[True, Fal", [True], (PL, TR)),
    Case("mix-comment-truncated", '{"a": 1, // trailing comment', {"a": 1}, (CM, TR)),
    Case("mix-open-comment", "[1, /* open comment", [1], (CM, TR)),
    Case("mix-comment-tc", '{"a": 1, // c\n}', {"a": 1}, (CM, TC)),
    Case(
        "mix-config",
        "{a: 'x', b: [1, 2,], // c\n c: None,}",
        {"a": "x", "b": [1, 2], "c": None},
        (UK, SQ, UK, TC, CM, UK, PL, TC),
    ),
    Case(
        "mix-array",
        "[1 2, 'x' /* c */ True,]",
        [1, 2, "x", True],
        (MC, SQ, CM, MC, PL, TC),
    ),
    Case(
        "mix-truncated-object",
        '/* h */ {x: [1 2 3,], y: "a\nb"',
        {"x": [1, 2, 3], "y": "a\nb"},
        (CM, UK, MC, MC, TC, UK, CC, TR),
    ),
    Case(
        "mix-quotes-newline",
        '{"msg": "He said "hi"\nthen left", \'n\': None}',
        {"msg": 'He said "hi"\nthen left', "n": None},
        (IQ, IQ, SQ, PL),
    ),
    Case(
        "mix-objects",
        "[{a: 1,} {b: 'two'} /* end */]",
        [{"a": 1}, {"b": "two"}],
        (UK, TC, MC, UK, SQ, CM),
    ),
    Case(
        "mix-deep-truncated",
        '{"a": [{\'b\': {c: [True, "x\ty" // c\n',
        {"a": [{"b": {"c": [True, "x\ty"]}}]},
        (SQ, UK, PL, CC, CM, TR),
    ),
    Case("mix-nan-mc-tc", "[NaN 1 Infinity,]", [NAN, 1, INF], (NN, MC, MC, NN, TC)),
    Case(
        "mix-object-specials",
        "{'a': /* c */ -Infinity, b: [None,],}",
        {"a": -INF, "b": [None]},
        (SQ, CM, NN, UK, PL, TC, TC),
    ),
    # ---------------------------------------------------------------- Unicode spaces
    Case("us-before-value", '{"a":\u00a0"foo\u00a0bar"}', {"a": "foo\u00a0bar"}, (US,)),
    Case("us-after-item", "[1,\u3000 2\u202f]", [1, 2], (US, US)),
    Case("us-around-colon", '{"a"\u205f:\u00a0true}', {"a": True}, (US, US)),
    Case("us-ends-a-token", '{"a": 1\u00a0, "b": x\u00a0}', {"a": 1, "b": "x"}, (US, UV, US)),
    Case("us-inside-a-word", '{"a": New\u00a0York}', {"a": "New\u00a0York"}, (UV,)),
    Case(
        "us-after-a-string", '{"a": "x"\u00a0, "b": ["y"\u3000]}', {"a": "x", "b": ["y"]}, (US, US)
    ),
    Case("us-after-the-root", '{"a": 1}\u00a0', {"a": 1}, (US,)),
    Case(
        "us-ends-a-literal",
        '{"_": null\u00a0 "x": [true\u3000 1]}',
        {"_": None, "x": [True, 1]},
        (US, MC, US, MC),
    ),
    Case(
        "mix-nested-all",
        '{"a": "x", "b": [True, NaN, \'y\', {c: None}], // done\n}',
        {"a": "x", "b": [True, NAN, "y", {"c": None}]},
        (PL, NN, SQ, UK, PL, CM, TC),
    ),
]

PARAMS = [pytest.param(case, id=case.id) for case in CASES]


def test_the_table_is_large_and_covers_every_kind() -> None:
    assert len(CASES) >= 60
    assert len({case.id for case in CASES}) == len(CASES)
    seen = {kind for case in CASES for kind in case.kinds}
    assert seen == LENIENT_KINDS - {"escaped_json"}  # a one-shot repair: see test_oneshot
    combined = [case for case in CASES if len(set(case.kinds)) >= 3]
    assert len(combined) >= 8


@dataclass
class Outcome:
    value: Any
    repairs: list[Repair]
    complete: bool


def _run(chunks: Sequence[str | bytes]) -> Outcome:
    parser = JsonStream(lenient=True)
    for chunk in chunks:
        parser.feed(chunk)
    value = detach(parser.finish())
    return Outcome(value, list(parser.repairs), parser.complete)


def _check(got: Outcome, case: Case, how: str) -> None:
    assert_same(got.value, case.value, f"{case.id} {how}")
    assert tuple(r.kind for r in got.repairs) == case.kinds, how
    assert got.complete == (TR not in case.kinds), how


@pytest.mark.parametrize("case", PARAMS)
def test_whole(case: Case) -> None:
    _check(_run([case.text]), case, "whole")


@pytest.mark.parametrize("case", PARAMS)
def test_split_in_two_at_every_index(case: Case) -> None:
    whole = _run([case.text])
    for cut in range(len(case.text) + 1):
        got = _run(chunks_at(case.text, [cut]))
        _check(got, case, f"split at {cut}")
        assert got.repairs == whole.repairs, f"split at {cut}"


@pytest.mark.parametrize("case", PARAMS)
def test_one_char_and_one_byte_at_a_time(case: Case) -> None:
    whole = _run([case.text])
    by_char = _run(one_by_one(case.text))
    _check(by_char, case, "one char at a time")
    assert by_char.repairs == whole.repairs
    by_byte = _run(one_by_one(case.text.encode()))
    _check(by_byte, case, "one byte at a time")
    assert by_byte.repairs == whole.repairs  # the table is ASCII: bytes == chars


@pytest.mark.parametrize("case", PARAMS)
def test_repairs_are_also_path_events(case: Case) -> None:
    parser = JsonStream(lenient=True, events=True)
    events = parser.feed_events(case.text) + parser.finish_events()
    assert [e for e in events if isinstance(e, Repair)] == parser.repairs
    assert tuple(r.kind for r in parser.repairs) == case.kinds


# ------------------------------------------------------------------ exact positions

POSITIONS = [
    ("[1, 2, 3,]", [(TC, 9)]),  # reported at the closer that followed the comma
    ("{'a': 'b'}", [(SQ, 1), (SQ, 6)]),
    ("{a: 1}", [(UK, 1)]),
    ("[1, /* mid */ 2]", [(CM, 4)]),
    ("[True, False, None]", [(PL, 1), (PL, 7), (PL, 14)]),
    ('{"a": "x\ny\tz"}', [(CC, 8)]),  # once per string, at its first control character
    ("[1 2 3]", [(MC, 3), (MC, 5)]),  # at the item that lacked its comma
    ('{"s": "He said "hi" to me"}', [(IQ, 15), (IQ, 18)]),
    ("[NaN, Infinity, -Infinity]", [(NN, 1), (NN, 6), (NN, 16)]),
    ('{"a": [1, 2', [(TR, 11)]),
    ("[{a: 1,} {b: 'two'} /* end */]", [(UK, 2), (TC, 7), (MC, 9), (UK, 10), (SQ, 13), (CM, 20)]),
]


@pytest.mark.parametrize(("text", "expected"), POSITIONS)
def test_repair_positions(text: str, expected: list[tuple[str, int]]) -> None:
    assert [(r.kind, r.pos) for r in _run([text]).repairs] == expected
    assert [(r.kind, r.pos) for r in _run(one_by_one(text)).repairs] == expected


def test_repair_messages_say_what_was_done() -> None:
    repairs = _run(["{a: 'x', b: [True,]"]).repairs
    assert [r.message for r in repairs] == [
        "read an unquoted key",
        "read a single-quoted string",
        "read an unquoted key",
        "read True",
        "dropped a trailing comma",
        "closed 1 open container(s) at the end of input",
    ]


# ------------------------------------------------------------------ strictness per kind

PER_KIND = {
    # kind: (text, value with only that kind allowed, error position with every other kind)
    TC: ('{"a": [1, 2,]}', {"a": [1, 2]}, 12),
    SQ: ("{\"a\": 'x'}", {"a": "x"}, 6),
    UK: ('{"a": 1, b: 2}', {"a": 1, "b": 2}, 9),
    CM: ("[1, /* two */ 2]", [1, 2], 4),
    PL: ('{"a": None}', {"a": None}, 6),  # refused at the token, never read as a string
    CC: ('["a\nb"]', ["a\nb"], 3),
    MC: ("[1 2]", [1, 2], 3),
    IQ: ('{"s": "a "b" c"}', {"s": 'a "b" c'}, 13),
    NN: ('{"a": NaN}', {"a": NAN}, 6),
    IE: ('["\\d"]', ["\\d"], 3),
    UV: ("[a]", ["a"], 1),
    LC: ("[TRUE]", [True], 1),
    LZ: ("[01]", [1], 1),
    CQ: ("[\u201cx\u201d]", ["x"], 1),
    EL: ("[1, ...]", [1], 4),
    MV: ('{"a": }', {"a": None}, 6),
    MX: ("[1}", [1], 2),
    XC: ("[1]]", [1], 3),
    MQ: ('{"a": "x, "b": 1}', {"a": "x", "b": 1}, 13),
    US: ('{\u00a0"a": 1}', {"a": 1}, 1),
}


@pytest.mark.parametrize("kind", sorted(PER_KIND))
def test_only_one_kind_allowed(kind: str) -> None:
    text, value, _ = PER_KIND[kind]
    parser = JsonStream(lenient={kind})
    parser.feed(text)
    assert_same(parser.finish(), value)
    assert {r.kind for r in parser.repairs} == {kind}


@pytest.mark.parametrize("kind", sorted(PER_KIND))
def test_every_kind_but_one(kind: str) -> None:
    text, _, pos = PER_KIND[kind]
    for chunks in ([text], one_by_one(text)):
        parser = JsonStream(lenient=LENIENT_KINDS - {kind})
        with pytest.raises(MalformedJSON) as info:
            for chunk in chunks:
                parser.feed(chunk)
            parser.finish()
        assert info.value.pos == pos


def test_comments_accepted_single_quotes_rejected_at_the_quote() -> None:
    text = '// note\n{"a": 1, /* two */ "b": \'x\'}'
    parser = JsonStream(lenient=LENIENT_KINDS - {SQ})
    with pytest.raises(MalformedJSON) as info:
        parser.feed(text)
    assert info.value.pos == text.index("'") == 32
    assert info.value.msg == "Expecting value"
    assert [(r.kind, r.pos) for r in parser.repairs] == [(CM, 0), (CM, 17)]
    assert info.value.partial == {"a": 1}


def test_without_truncated_a_cut_off_document_is_still_completed_but_not_reported() -> None:
    # truncation is never an error, strict or lenient; the kind only controls the report
    parser = JsonStream(lenient=LENIENT_KINDS - {TR})
    parser.feed('{"a": [1, 2')
    assert parser.finish() == {"a": [1, 2]}
    assert parser.repairs == []
    assert parser.complete is False


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown lenient kinds"):
        JsonStream(lenient={"comment", "guess_everything"})


# ------------------------------------------------------------------ what is deliberately not repaired

NOT_REPAIRED = [
    ("[1,,2]", 3),  # a hole in an array: a value would have to be invented
    ('{"a" 1}', 5),  # a missing colon
    ("[.5]", 1),  # numbers JSON does not have
    ("[+1]", 1),
    ("[`x`]", 1),  # back-tick quotes
    ("Sure, here it is", 0),  # prose at the root is not a string value
    ('{"b": "xxxxx" true}', 18),  # a value where a key must be: never swallowed as text
    ('{"a": "x" 1}', 11),
    ('{"a": True}', -1),  # placeholder: replaced below
]
NOT_REPAIRED = NOT_REPAIRED[:-1]


@pytest.mark.parametrize(("text", "pos"), NOT_REPAIRED)
def test_not_repaired(text: str, pos: int) -> None:
    parser = JsonStream(lenient=True)
    with pytest.raises(MalformedJSON) as info:
        parser.feed(text)
        parser.finish()
    assert info.value.pos == pos


def test_an_inner_quote_wins_over_a_missing_comma_before_plain_words() -> None:
    # '"x" b c' could be a missing comma or text with quotes in it; a word closes the
    # string only when it is an unquoted key followed by ':' (see the next tests),
    # so here the quotes are text.
    parser = JsonStream(lenient=True)
    parser.feed('{"a": "x" b c"}')
    assert parser.finish() == {"a": 'x" b c'}
    assert [r.kind for r in parser.repairs] == [IQ]


# ------------------------------------------------------------------ formerly core bugs (regressions)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('["x", true]', ["x", True]),
        ('["x", None, NaN]', ["x", None, NAN]),
        ("['x', False]", ["x", False]),
    ],
)
def test_string_then_literal_in_an_array(text: str, value: Any) -> None:
    got = _run([text])
    assert_same(got.value, value)
    assert got.complete


def test_missing_comma_between_single_quoted_strings() -> None:
    got = _run(["['json' 'stream']"])
    assert got.value == ["json", "stream"]
    assert [r.kind for r in got.repairs] == [SQ, MC, SQ]


def test_block_comment_starting_with_a_slash_split_after_opener() -> None:
    got = _run(["[/*", "/*/1]"])
    assert got.value == [1]
    assert [(r.kind, r.pos) for r in got.repairs] == [(CM, 1)]


def test_comment_between_unquoted_key_and_colon() -> None:
    got = _run(['{"a": "x", b /* c */ : 1}'])
    assert got.value == {"a": "x", "b": 1}
    assert [r.kind for r in got.repairs] == [UK, CM]


@pytest.mark.parametrize(
    ("text", "value", "kinds"),
    [
        ('{"a": "x" b: 1}', {"a": "x", "b": 1}, [MC, UK]),
        ("{'a': 'x' 'b': 1}", {"a": "x", "b": 1}, [SQ, SQ, MC, SQ]),
        ("['x' 'y']", ["x", "y"], [SQ, MC, SQ]),
        ('["it\\\'s"]', ["it's"], [SQ]),
    ],
)
def test_missing_comma_before_a_key_or_quote_of_either_kind(
    text: str, value: Any, kinds: list[str]
) -> None:
    for chunks in ([text], list(text)):
        got = _run(chunks)
        assert_same(got.value, value)
        assert [r.kind for r in got.repairs] == kinds


CHUNKING_REGRESSIONS = [
    # (text, trailing, (complete, tail, value, repair kinds and positions))
    ('"a"}}</a>', "ignore", (True, "</a>", "a", [("extra_closer", 3), ("extra_closer", 4)])),
    ('"a"{}</a>', "ignore", (True, "{}</a>", "a", [])),
    ('", "</a>', "ignore", (True, "</a>", ", ", [])),
    ('["a, "]', "error", (True, "", ["a, "], [])),
]


def _stream_state(chunks: list[str], trailing: str) -> tuple[Any, ...]:
    stream = JsonStream(lenient=True, trailing=trailing)
    for chunk in chunks:
        stream.feed(chunk)
    repairs = [(r.kind, r.pos) for r in stream.repairs]
    return (stream.complete, stream.tail, stream.value, repairs)


def test_lenient_decisions_do_not_depend_on_the_chunking() -> None:
    """A closer after trailing text is trailing text; a comma in a string whose next
    quote already closes it is text; each decided the same at every split point."""
    for text, trailing, expected in CHUNKING_REGRESSIONS:
        for k in range(len(text) + 1):
            assert _stream_state([text[:k], text[k:]], trailing) == expected, (text, k)
        assert _stream_state(list(text), trailing) == expected, text


def test_a_root_word_that_cannot_be_a_value_is_refused_when_it_ends() -> None:
    """``nul `` at the root: refused at the blank, not after holding the rest of the
    line (a tagged body would otherwise read past its close delimiter)."""
    for text in ("nul x", "tru </a><b>", "Fals\t1"):
        for k in range(len(text.split()[0]) + 1, len(text) + 1):
            stream = JsonStream(lenient=True)
            with pytest.raises(MalformedJSON) as err:
                stream.feed(text[:k])
            assert err.value.pos == 0, (text, k)


PROFILE_REGRESSIONS = [
    # (text, value, repair kinds and positions): found by the long hypothesis profile
    (
        '{"":null,"A":{"":null},"0":["",a]}',
        {"": None, "A": {"": None}, "0": ["", "a"]},
        [(UV, 31)],
    ),
    ('["x", a, b]', ["x", "a", "b"], [(UV, 6), (UV, 9)]),
    ('["a", New York\n]', ["a", "New York"], [(UV, 6)]),
    # single words each with its comma, then a quoted item ending at a delimiter: items
    ('["",a,""]', ["", "a", ""], [(UV, 4)]),
    ('["x", a, b, "y"]', ["x", "a", "b", "y"], [(UV, 6), (UV, 9)]),
    ('["x", a, "y\\" z", "w"]', ["x", "a", 'y" z', "w"], [(UV, 6)]),
    # a quote after the words: prose, as before
    (
        '["He said "ok", fine, "then" left"]',
        ['He said "ok", fine, "then" left'],
        [(IQ, 10), (IQ, 13), (IQ, 22), (IQ, 27)],
    ),
    ('["He said "hi", then left"]', ['He said "hi", then left'], [(IQ, 10), (IQ, 13)]),
    ('["x", then left, and so on"]', ['x", then left, and so on'], [(IQ, 3)]),
    ('{"a": "He said "hi", then left"}', {"a": 'He said "hi", then left'}, [(IQ, 15), (IQ, 18)]),
    # a cut-off ellipsis is dropped like any truncation
    ("[/**/.", [], [(CM, 1), (TR, 6)]),
    ("[1, ..", [1], [(TR, 6)]),
    ('{"a": 1, .', {"a": 1}, [(TR, 10)]),
]


def _regression_state(chunks: Sequence[str | bytes]) -> tuple[Any, ...]:
    stream = JsonStream(lenient=True)
    live: list[Any] = []
    for chunk in chunks:
        stream.feed(chunk)
        live.append(detach(stream.value))
    value = detach(stream.finish())
    return value, [(r.kind, r.pos) for r in stream.repairs], live


@pytest.mark.parametrize(("text", "value", "repairs"), PROFILE_REGRESSIONS)
def test_profile_regressions_for_every_chunking(
    text: str, value: Any, repairs: list[tuple[str, int]]
) -> None:
    """A word run closed by ``]`` after ``",`` is an unquoted item, not prose; a cut-off
    ``.`` or ``..`` at the end is dropped; the same at every split point."""
    chunkings: list[Sequence[str | bytes]] = [[text], list(text), one_by_one(text.encode())]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        got, got_repairs, live = _regression_state(chunks)
        assert_same(got, value, f"{text!r} {chunks!r}")
        assert got_repairs == repairs, (text, chunks)
        for before, after in zip(live, [*live[1:], got], strict=True):
            assert prefix_violation(before, after) is None, (text, chunks)


HOLDOUT_REGRESSIONS = [
    # (text, value, repair kinds and positions): wrong values the issue 13 hold-out found
    # a quote glued to an unquoted word closes it (its opening quote was missing)
    ('[a","b"]', ["a", "b"], [(UV, 1), (MQ, 2)]),
    ('[a",b"]', ["a", "b"], [(UV, 1), (MQ, 2), (UV, 4), (MQ, 5)]),
    ('[abc", 1]', ["abc", 1], [(UV, 1), (MQ, 4)]),
    ('{"a": abc", "b": 1}', {"a": "abc", "b": 1}, [(UV, 6), (MQ, 9)]),
    # an array item of one word, then a blank and the next word closed by its quote or
    # the item's delimiter: a missing comma and quote, not a quote inside the item
    (
        '["value1" value2", "value3"]',
        ["value1", "value2", "value3"],
        [(MC, 10), (UV, 10), (MQ, 16)],
    ),
    (
        '{"b": ["x" y" ], "c": ["z" w]}',
        {"b": ["x", "y"], "c": ["z", "w"]},
        [(MC, 11), (UV, 11), (MQ, 12), (MC, 27), (UV, 27)],
    ),
    # ... while an item of several words keeps its quotes as text
    ('["She said "no" loudly", "x"]', ['She said "no" loudly', "x"], [(IQ, 11), (IQ, 14)]),
    # "https://" in an unquoted value is text, not a comment
    ('{"url": https://example.com/a}', {"url": "https://example.com/a"}, [(UV, 8)]),
    ('{"u": ftp://x.y/z, "b": 1}', {"u": "ftp://x.y/z", "b": 1}, [(UV, 6)]),
    # a cut-off "-" is dropped whether the blank after it comes in its chunk or the next
    ("[- ", [], [(TR, 3)]),
    # an unquoted key with a quote glued to it: the quote closes the key
    ('{a":"foo","b":"bar"}', {"a": "foo", "b": "bar"}, [(UK, 1), (MQ, 2)]),
    ('{"a":"foo",b":"bar"}', {"a": "foo", "b": "bar"}, [(UK, 11), (MQ, 12)]),
    # a wrong closer then a comma: a key after it means an object goes on, so the closer
    # was the array's and the inner object's was missing (and the mirror case)
    (
        '{"array":[{"key": "value"], "key2": "value2"}',
        {"array": [{"key": "value"}], "key2": "value2"},
        [(MX, 25)],
    ),
    ('[{"p": ["Mrs."}, {"q": 1}]', [{"p": ["Mrs."]}, {"q": 1}], [(MX, 14)]),
    ('[{"a": 1], {"b": 2}]', [{"a": 1}, {"b": 2}], [(MX, 8)]),  # a typo for }
    # an object then a comma and '{' in an array: the object's closer was missing
    ('[{"i":1,{"i":2}]', [{"i": 1}, {"i": 2}], [(MX, 8)]),
    ('[{"i":1, {"i":2}, {"i": 3}]', [{"i": 1}, {"i": 2}, {"i": 3}], [(MX, 9)]),
    # words after '",' closed by ']' are unquoted items, parentheses and all
    ('["This is C(2)", This is F(3)]', ["This is C(2)", "This is F(3)"], [(UV, 17)]),
    # an inner quote right before the closing one is text, the second quote closes
    ('{"a": "He said "yes""}', {"a": 'He said "yes"'}, [(IQ, 15), (IQ, 19)]),
    ('["He said "yes"", "no"]', ['He said "yes"', "no"], [(IQ, 10), (IQ, 14)]),
    ('["a""b"]', ["a", "b"], [(MC, 4)]),  # unless the second opens the next item
    # a line comment cut off by the end: dropped like any truncation
    ('{"a": [1, // see [2]', {"a": [1]}, [(CM, 10), (TR, 20)]),
]


@pytest.mark.parametrize(("text", "value", "repairs"), HOLDOUT_REGRESSIONS)
def test_holdout_regressions_for_every_chunking(
    text: str, value: Any, repairs: list[tuple[str, int]]
) -> None:
    chunkings: list[Sequence[str | bytes]] = [[text], list(text), one_by_one(text.encode())]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        got, got_repairs, live = _regression_state(chunks)
        assert_same(got, value, f"{text!r} {chunks!r}")
        assert got_repairs == repairs, (text, chunks)
        for before, after in zip(live, [*live[1:], got], strict=True):
            assert prefix_violation(before, after) is None, (text, chunks)


HOLDOUT_REFUSED = [
    # (text, error position): any reading would be a guess or a wrong value
    ('{"key": 1. }', 8),  # an unfinished number before its delimiter: not "1." the string
    ('{"a": 1e }', 6),
    ("[2e,", 1),
    ("[-,", 1),
    ('{"a": 1_000}', 6),  # grouped digits: a number or a string, either a guess
    ("[undefined]", 1),  # JavaScript's undefined: neither null nor a string for sure
    ('{"a": {"b": 1, {"c": 2}}}', 15),  # '{' where a key must be, not in an array
    ('"hello" + " world"', 6),  # concatenation: as text the operator joins the value
    ('"a"+"b"', 2),
    ("{\"g\": 'hello' +\n 'world'}", 12),
    ('"hello +\n " world"', 10),
    # a line comment running to the end over a closer and the next member: on one line
    # the comment swallowed the rest of the document, which must not silently vanish
    ('{ "key": { "key2": "value2" // comment }, "key3": "value3" }', 60),
    ('{ "key": { "key2": "value2" # comment }, "key3": "value3" }', 59),
]


@pytest.mark.parametrize(("text", "pos"), HOLDOUT_REFUSED)
def test_holdout_refusals_for_every_chunking(text: str, pos: int) -> None:
    chunkings: list[Sequence[str | bytes]] = [[text], list(text)]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        stream = JsonStream(lenient=True)
        with pytest.raises(MalformedJSON) as info:
            for chunk in chunks:
                stream.feed(chunk)
            stream.finish()
        assert info.value.pos == pos, (text, chunks)


FENCED = [
    # (text, value, tail): the closing fence came before the closers (trailing="ignore")
    ('{"key": "value, value2"```', {"key": "value, value2"}, "```"),
    ('{"a": [1, 2\n```\nDone.', {"a": [1, 2]}, "```\nDone."),
    ('```json\n[{"id": 1}, {"id": 2\n```', [{"id": 1}, {"id": 2}], "```"),
]


@pytest.mark.parametrize(("text", "value", "tail"), FENCED)
def test_a_closing_fence_before_the_closers_ends_the_document(
    text: str, value: Any, tail: str
) -> None:
    chunkings: list[Sequence[str]] = [[text], list(text)]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        stream = JsonStream(lenient=True, skip_preamble=True)
        for chunk in chunks:
            stream.feed(chunk)
        assert_same(stream.finish(), value, f"{text!r} {chunks!r}")
        assert [r.kind for r in stream.repairs] == [TR], (text, chunks)
        assert not stream.complete
        assert stream.tail == tail, (text, chunks)
    # without trailing="ignore" a fence there is still an error
    strict_tail = JsonStream(lenient=True)
    with pytest.raises(MalformedJSON):
        strict_tail.feed(text.removeprefix("```json\n"))
        strict_tail.finish()

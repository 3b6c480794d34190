"""The lenient table's cases and regressions: what models write, what it reads as,
what it repaired (the table tests and the C machine's differential tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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

CHUNKING_REGRESSIONS = [
    # (text, trailing, (complete, tail, value, repair kinds and positions))
    ('"a"}}</a>', "ignore", (True, "</a>", "a", [("extra_closer", 3), ("extra_closer", 4)])),
    ('"a"{}</a>', "ignore", (True, "{}</a>", "a", [])),
    ('", "</a>', "ignore", (True, "</a>", ", ", [])),
    ('["a, "]', "error", (True, "", ["a, "], [])),
]

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

FENCED = [
    # (text, value, tail): the closing fence came before the closers (trailing="ignore")
    ('{"key": "value, value2"```', {"key": "value, value2"}, "```"),
    ('{"a": [1, 2\n```\nDone.', {"a": [1, 2]}, "```\nDone."),
    ('```json\n[{"id": 1}, {"id": 2\n```', [{"id": 1}, {"id": 2}], "```"),
]

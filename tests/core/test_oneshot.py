"""One-shot parsing of a finished reply: ``loads``, ``loads_with_repairs``, ``repair``, ``Allow``."""

from __future__ import annotations

import json
import math
import sys
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.core import assert_same
from tests.support.hypothesis_profiles import examples
from unspool import UNSET, LimitExceeded, MalformedJSON
from unspool.core import _oneshot as oneshot
from unspool.core._lexicon import LENIENT_KINDS
from unspool.core._oneshot import Allow, loads, loads_with_repairs, repair
from unspool.core._snapshot import max_depth

# ------------------------------------------------------------------ Allow


def test_allow_bits_mirror_partial_json() -> None:
    # named one by one: iterating a Flag lists composite members on Python 3.10 only
    singles = ["STR", "NUM", "ARR", "OBJ", "NULL", "BOOL", "NAN", "INFINITY", "_INFINITY"]
    assert [(name, int(Allow[name])) for name in singles] == [
        ("STR", 1),
        ("NUM", 2),
        ("ARR", 4),
        ("OBJ", 8),
        ("NULL", 16),
        ("BOOL", 32),
        ("NAN", 64),
        ("INFINITY", 128),
        ("_INFINITY", 256),
    ]
    assert Allow.INF == 384
    assert Allow.SPECIAL == 16 | 32 | 64 | 384
    assert Allow.ATOM == 1 | 2 | Allow.SPECIAL
    assert Allow.COLLECTION == 12
    assert Allow.ALL == 511
    assert Allow.ALL & ~Allow.STR == 510


ALLOW_CASES = [
    # (text, allow, value): partial-json's semantics, except that literals are never completed
    ('{"a": [1, 2', Allow.OBJ, {}),
    ('{"a": [1, 2', Allow.ALL, {"a": [1, 2]}),
    ('{"a": [1, 2', Allow.COLLECTION, {"a": [1]}),
    ('{"a": [1, 2', Allow.COLLECTION | Allow.NUM, {"a": [1, 2]}),
    ('["ab', Allow.ARR, []),
    ('["ab', Allow.ARR | Allow.STR, ["ab"]),
    ('{"k": "ab', Allow.OBJ, {}),
    ('{"k": "ab', Allow.OBJ | Allow.STR, {"k": "ab"}),
    ("[1", Allow.ARR, []),
    ("[1", Allow.ARR | Allow.NUM, [1]),
    ("12", Allow.ALL & ~Allow.NUM, 12),  # a root number ends with the text
    ('[1, {"a": 1', Allow.ARR | Allow.NUM, [1]),
    ('["abc"', Allow.ARR, ["abc"]),  # the string closed: only the array is incomplete
    ('{"a": {"b": "x"}, "c": [tr', Allow.OBJ, {"a": {"b": "x"}}),
    ("[1.", Allow.ALL, []),  # never turned into 1
    ('{"a": tr', Allow.ALL, {}),  # never turned into true
    ('{"a": nul', Allow.OBJ | Allow.NULL, {}),
    ("[1, 2]", Allow(0), [1, 2]),  # complete values always parse
    ("{'a': [1, 2,", Allow.OBJ, {}),
    ('{"a": "x", "b": [1, "y', Allow.OBJ | Allow.ARR, {"a": "x", "b": [1]}),
]


@pytest.mark.parametrize(("text", "allow", "value"), ALLOW_CASES)
def test_allow(text: str, allow: Allow, value: Any) -> None:
    assert_same(loads(text, allow=allow), value)


@pytest.mark.parametrize(
    ("text", "allow", "msg", "pos", "partial"),
    [
        (
            '"ab',
            Allow.ALL & ~Allow.STR,
            "The root string is incomplete and Allow.STR is not set",
            3,
            "ab",
        ),
        (
            '{"a": 1',
            Allow.ARR,
            "The root object is incomplete and Allow.OBJ is not set",
            7,
            {"a": 1},
        ),
        ("[1", Allow.OBJ, "The root array is incomplete and Allow.ARR is not set", 2, [1]),
    ],
)
def test_allow_at_the_root_is_an_error(
    text: str, allow: Allow, msg: str, pos: int, partial: Any
) -> None:
    with pytest.raises(MalformedJSON) as info:
        loads(text, allow=allow)
    assert (info.value.msg, info.value.pos, info.value.partial) == (msg, pos, partial)


# ------------------------------------------------------------------ what loads reads


def test_valid_json_takes_the_fast_path_and_reports_nothing() -> None:
    text = '{"a": [1, 2.5, "x", true, null], "b": {"c": -0.0}}'
    value, repairs = loads_with_repairs(text)
    assert_same(value, json.loads(text))
    assert repairs == []


def test_a_fenced_reply_with_prose_and_a_trailing_comma() -> None:
    text = 'Sure! Here it is:\n```json\n{"a": 1,}\n```\nHope that helps.'
    value, repairs = loads_with_repairs(text)
    assert value == {"a": 1}
    assert [(r.kind, r.pos) for r in repairs] == [("trailing_comma", 34)]
    assert text[34] == "}"


def test_think_blocks_with_json_inside_are_skipped() -> None:
    text = (
        '<think>\n{"schema": true}\n</think>\n\nHere you go:\n```json\n'
        '{"name": "Al", "tags": ["a", "b",],}\n```'
    )
    value, repairs = loads_with_repairs(text)
    assert value == {"name": "Al", "tags": ["a", "b"]}
    assert [(r.kind, r.pos) for r in repairs] == [("trailing_comma", 89), ("trailing_comma", 91)]


def test_a_cut_off_reply_is_completed() -> None:
    value, repairs = loads_with_repairs('Sure! {"a": "x\\u00')
    assert value == {"a": "x"}
    assert [(r.kind, r.pos) for r in repairs] == [("truncated", 18)]


def test_the_first_value_wins() -> None:
    assert loads('{"a": 1} {"b": 2}') == {"a": 1}
    assert loads('[1] and then some text with {"b": 2}') == [1]


def test_a_value_the_streaming_heuristic_takes_for_prose_is_still_found() -> None:
    # after prose, "[1" does not look like JSON to the streaming pass ("see [1]");
    # loads() then takes the first object or array it can read anywhere
    assert loads_with_repairs("Here: [1, 2] ok") == ([1, 2], [])
    value, repairs = loads_with_repairs("see the list [1, 2, 3")
    assert value == [1, 2, 3]
    assert [(r.kind, r.pos) for r in repairs] == [("truncated", 21)]
    value, repairs = loads_with_repairs("see [1, 2,] ok")
    assert value == [1, 2]
    assert [(r.kind, r.pos) for r in repairs] == [("trailing_comma", 10)]


def test_nan_is_a_repair_unless_allowed() -> None:
    value, repairs = loads_with_repairs("[NaN, -Infinity]")
    assert_same(value, [math.nan, -math.inf])
    assert [(r.kind, r.pos) for r in repairs] == [("nan", 1), ("nan", 6)]
    value, repairs = loads_with_repairs("[NaN]", allow_inf_nan=True)
    assert_same(value, [math.nan])
    assert repairs == []


def test_core_options_are_honoured_on_both_paths() -> None:
    assert_same(loads("[1.5]", parse_float=Decimal), [Decimal("1.5")])
    assert_same(loads("[1.5,]", parse_float=Decimal), [Decimal("1.5")])
    assert_same(loads("[7]", parse_int=float), [7.0])
    with pytest.raises(LimitExceeded) as info:
        loads("[[[1]]]", max_depth=2)  # valid JSON: the fast path must not bypass the limit
    assert info.value.pos == 2
    with pytest.raises(LimitExceeded) as info:
        loads("[" + "1" * 5000 + "]")
    assert info.value.pos == 1


def test_skip_preamble_off_requires_the_value_at_the_start() -> None:
    with pytest.raises(MalformedJSON) as info:
        loads('Sure {"a":1}', skip_preamble=False)
    assert (info.value.msg, info.value.pos) == ("Expecting value", 0)


def test_bytes_are_utf8() -> None:
    assert loads(b'{"a": "caf\xc3\xa9"}') == {"a": "café"}
    assert loads(b"\xef\xbb\xbf[1]") == [1]
    assert loads(b'["caf\xc3') == ["caf"]  # a character cut off at the end is dropped
    assert loads(bytearray(b"[1,]")) == [1]


def test_other_types_are_refused() -> None:
    with pytest.raises(TypeError, match="loads\\(\\) takes str or bytes, not int"):
        loads(12)  # type: ignore[arg-type]


# ------------------------------------------------------------------ strictness per kind


def test_strictness_per_kind() -> None:
    no_single = LENIENT_KINDS - {"single_quotes"}
    assert loads('{"a": 1 /* ok */}', lenient=no_single) == {"a": 1}
    with pytest.raises(MalformedJSON) as info:
        loads("{'a': 1}", lenient=no_single)
    assert (info.value.msg, info.value.pos) == (
        "Expecting property name enclosed in double quotes",
        1,
    )


def test_strict_mode_still_skips_prose_and_completes() -> None:
    assert loads('```json\n{"a": [1, 2', lenient=False) == {"a": [1, 2]}
    with pytest.raises(MalformedJSON) as info:
        loads('{"a": 1,}', lenient=False)
    assert (info.value.msg, info.value.pos) == ("Trailing comma before '}'", 8)


# ------------------------------------------------------------------ not JSON at all

NOT_JSON = [
    ("hello there", "No JSON value found", 11),
    ("<html><body>hi</body></html>", "No JSON value found", 28),
    ("", "No JSON value found", 0),
    ("   \n", "No JSON value found", 4),
    ('<think>{"a": 1}', "No JSON value found", 15),  # an unclosed think block hides all
    ('{"a": 1 +}', "Expecting property name enclosed in double quotes", 8),
    ('{"a" 1}', "Expecting ':' delimiter", 5),
    ('{"a": [1,,2]}', "Expecting value", 9),
    (b"\xff\xfe{", "Invalid UTF-8 (invalid start byte)", 0),
    (b'[1, "\xc3\x28"]', "Invalid UTF-8 (invalid continuation byte)", 5),
]


@pytest.mark.parametrize(("text", "msg", "pos"), NOT_JSON)
def test_not_json_raises_malformed_json_with_the_position(
    text: str | bytes, msg: str, pos: int
) -> None:
    with pytest.raises(MalformedJSON) as info:
        loads(text)
    assert (info.value.msg, info.value.pos) == (msg, pos)
    assert str(info.value) == f"{msg} at position {pos}"


@pytest.mark.parametrize("text", ['The answer: {"a": 1}', 'I think: {"a": 1}', 'fine {"a": 1}'])
def test_prose_starting_like_a_literal(text: str) -> None:
    assert loads(text) == {"a": 1}


JSONISH = st.text(alphabet=st.sampled_from(list("{}[]\"':,0123456789.-+eE trufalsnNTFI/*\n\\<>`")))


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(st.text(max_size=60), JSONISH, st.binary(max_size=40)))
def test_only_malformed_json_can_escape(text: str | bytes) -> None:
    try:
        value = loads(text)
    except MalformedJSON as exc:
        assert 0 <= exc.pos <= len(text)
        return
    assert value is not UNSET
    # and repair() writes that value back as valid JSON (NaN and infinities as null)
    assert_same(json.loads(repair(text)), _finite(value))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------ repair


@pytest.mark.parametrize(
    ("text", "out"),
    [
        ("{'a': 1, 'b': [True, None,],}", '{"a": 1, "b": [true, null]}'),
        ('[NaN, 1, {"x": -Infinity}]', '[null, 1, {"x": null}]'),
        ("[1e999]", "[null]"),
        ('{"a": "é"}', '{"a": "é"}'),
        ('["\\ud800 x"]', '["\\ud800 x"]'),  # a lone surrogate stays escaped
        ('Here:\n```json\n{"a": [1, 2', '{"a": [1, 2]}'),
        ('{"a": 1}', '{"a": 1}'),
    ],
)
def test_repair(text: str, out: str) -> None:
    assert repair(text) == out


def test_repair_indent_and_options() -> None:
    assert repair("{a: [1]}", indent=2) == '{\n  "a": [\n    1\n  ]\n}'
    assert repair('{"a": [1, 2', allow=Allow.OBJ) == "{}"
    with pytest.raises(MalformedJSON):
        repair("no json here")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (' - {"k": ["a", "b"]}', {"k": ["a", "b"]}),
        ("* [1, 2]", [1, 2]),
        ('json\n{"a": 1}', {"a": 1}),
        ('\u2022 "x"', "x"),
    ],
)
def test_a_bullet_or_label_before_the_value_is_skipped(text: str, value: Any) -> None:
    assert loads_with_repairs(text) == (value, [])


@pytest.mark.parametrize("text", ["- 5", "-x", "Sure, here it is", "12abc", "false$"])
def test_a_sign_a_word_or_a_glued_token_is_never_a_silent_value(text: str) -> None:
    with pytest.raises(MalformedJSON):
        loads(text, lenient=False)
    if text[0].isdigit():
        assert loads(text) == text  # lenient: the whole token, as a string, reported
    elif text != "false$":
        with pytest.raises(MalformedJSON):
            loads(text)


ESCAPED = [
    ('{\\"key\\": \\"value\\"}', {"key": "value"}, 0),
    ('[\\"a\\", 1]', ["a", 1], 0),
    ('\\"hello world\\"', "hello world", 0),
    ('{\\"s\\": \\"say \\\\\\"hi\\\\\\"\\"}', {"s": 'say "hi"'}, 0),
    ('Sure: {\\"a\\": 1}', {"a": 1}, 6),
]


@pytest.mark.parametrize(("text", "value", "pos"), ESCAPED)
def test_json_escaped_as_string_content_is_read_once_unescaped(
    text: str, value: Any, pos: int
) -> None:
    got, repairs = loads_with_repairs(text)
    assert_same(got, value)
    assert [(r.kind, r.pos) for r in repairs] == [("escaped_json", pos)]
    with pytest.raises(MalformedJSON):
        loads(text, lenient=LENIENT_KINDS - {"escaped_json"})


def test_a_valid_json_string_holding_json_stays_a_string() -> None:
    assert loads('"{\\"a\\": 1}"') == '{"a": 1}'


# ---------------------------------------------------------------- the depth limit on the fast path

_nested = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4)
    ),
    max_leaves=40,
)


@settings(max_examples=examples(300))
@given(value=_nested, limit=st.integers(0, 8))
def test_both_depth_walks_agree(value: Any, limit: int) -> None:
    """The C twin of snapshot.max_depth (the walk loads uses) gives the reference's number."""
    speedups = pytest.importorskip("unspool.core._speedups")
    assert speedups.max_depth(value, limit) == max_depth(value, limit)


@pytest.mark.parametrize("depth", [1, 999, 1000, 1001, 5000])
def test_both_depth_walks_agree_deep(depth: int) -> None:
    speedups = pytest.importorskip("unspool.core._speedups")
    value: Any = []
    for i in range(depth - 1):
        value = [value] if i % 2 else {"k": value, "x": 1}
    for limit in (1, 999, 1000, 10**9):
        assert speedups.max_depth(value, limit) == max_depth(value, limit)


def test_the_stdlib_scanner_premise_the_fast_path_relies_on() -> None:
    """On CPython before 3.12 loads skips the depth walk when the recursion limit is no
    higher than max_depth, because json's C scanner nests against that same limit."""
    if not oneshot._SCANNER_SHARES_RECURSION_LIMIT:
        pytest.skip(
            "this interpreter's json scanner has its own nesting limit; loads walks the value"
        )
    n = sys.getrecursionlimit()
    with pytest.raises(RecursionError):
        json.loads("[" * n + "]" * n)


@pytest.mark.parametrize("recursion_limit", [None, 5000])
def test_clean_json_past_max_depth_is_refused_on_every_path(recursion_limit: int | None) -> None:
    """The fast path never returns a value deeper than max_depth: with the default
    recursion limit, with a raised one (the scanner can then nest past 1000) and with
    either depth walk (this module runs on both machines)."""
    before_limit = sys.getrecursionlimit()
    try:
        if recursion_limit:
            sys.setrecursionlimit(recursion_limit)
        for depth, ok in ((1000, True), (1001, False), (1500, False)):
            text = "[" * depth + "]" * depth
            if ok:
                assert max_depth(loads(text), 2000) == depth
            else:
                with pytest.raises(LimitExceeded):
                    loads(text)
                with pytest.raises(LimitExceeded):
                    loads_with_repairs(text)
        with pytest.raises(LimitExceeded):
            loads('{"a": [{"b": [1]}]}', max_depth=3)
        assert loads('{"a": [{"b": [1]}]}', max_depth=4) == {"a": [{"b": [1]}]}
    finally:
        sys.setrecursionlimit(before_limit)


def test_the_fast_path_reads_what_json_loads_reads() -> None:
    for text in ("  [1, 2]  ", "\n{}", '"x"', "3", "[1] \t\r\n", "null", "[1]x"):
        try:
            expected = json.loads(text)
        except ValueError:
            assert loads(text) == [1]  # the trailing text is ignored by the lenient pass
        else:
            assert_same(loads(text), expected)

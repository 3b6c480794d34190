"""Finding the JSON objects and arrays embedded in prose: ``find_json``, ``find_all_json``."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.core import assert_same
from tests.support.hypothesis_profiles import examples
from tests.support.lenient_writer import DEVIATIONS, VALUES, Writer
from unspool import JsonStream
from unspool.core._find import JsonMatch, find_all_json, find_json
from unspool.core._path_events import Repair

TWO = 'Here: {"a": 1} and then {"b": [2, 3]} done.'


def test_first_last_and_all() -> None:
    first = JsonMatch({"a": 1}, 6, 14)
    last = JsonMatch({"b": [2, 3]}, 24, 37)
    assert find_json(TWO) == first
    assert find_json(TWO, which="last") == last
    assert find_all_json(TWO) == [first, last]
    assert [TWO[m.start : m.end] for m in find_all_json(TWO)] == ['{"a": 1}', '{"b": [2, 3]}']


def test_nothing_found() -> None:
    assert find_json("no json here") is None
    assert find_json("", which="last") is None
    assert find_all_json("braces {like this} and [brackets]") == []


def test_lenient_matches_carry_their_repairs_with_positions_in_the_text() -> None:
    text = "Use {'a': 1, b: [True,],} please"
    assert find_all_json(text) == [
        JsonMatch(
            {"a": 1, "b": [True]},
            4,
            25,
            True,
            (
                Repair("single_quotes", 5, "read a single-quoted key"),
                Repair("unquoted_key", 13, "read an unquoted key"),
                Repair("python_literal", 17, "read True"),
                Repair("trailing_comma", 22, "dropped a trailing comma"),
                Repair("trailing_comma", 24, "dropped a trailing comma"),
            ),
        )
    ]
    assert text[4:25] == "{'a': 1, b: [True,],}"


def test_strict_finding() -> None:
    text = "{'a': 1} then {\"b\": 2}"
    assert find_all_json(text, lenient=False) == [JsonMatch({"b": 2}, 14, 22)]


def test_brackets_in_prose_are_tried_and_only_json_is_kept() -> None:
    text = "see [1] and {braces} and [a, b] or (x[0])"
    assert find_all_json(text) == [JsonMatch([1], 4, 7), JsonMatch([0], 37, 40)]


def test_a_value_inside_a_broken_one_is_found() -> None:
    text = '{"broken": oops {"a": 1}}'
    assert find_all_json(text) == [JsonMatch({"a": 1}, 16, 24)]


def test_braces_inside_a_quoted_phrase() -> None:
    text = 'He typed "{" then {"a": 1}'
    assert find_all_json(text) == [JsonMatch({"a": 1}, 18, 26)]


def test_matches_do_not_overlap() -> None:
    text = '[{"a": 1}, {"b": 2}] {"c": [3]}'
    assert find_all_json(text) == [
        JsonMatch([{"a": 1}, {"b": 2}], 0, 20),
        JsonMatch({"c": [3]}, 21, 31),
    ]


def test_think_blocks() -> None:
    text = '<think>{"x": 0}</think> {"a": 1}'
    assert find_all_json(text) == [JsonMatch({"a": 1}, 24, 32)]
    assert find_all_json(text, skip_think=False) == [
        JsonMatch({"x": 0}, 7, 15),
        JsonMatch({"a": 1}, 24, 32),
    ]
    assert find_all_json('<thinking>[1]</thinking>[2] <think>{"x": 0}') == [JsonMatch([2], 24, 27)]


def test_truncated_values_only_when_partial() -> None:
    text = 'Result: {"a": [1, 2'
    assert find_all_json(text) == []
    assert find_all_json(text, partial=True) == [
        JsonMatch(
            {"a": [1, 2]},
            8,
            19,
            False,
            (Repair("truncated", 19, "closed 2 open container(s) at the end of input"),),
        )
    ]
    # a truncated value is the last one: nothing inside it is searched
    assert find_all_json('[1] {"a": {"b": 2}, "c": [', partial=True) == [
        JsonMatch([1], 0, 3),
        JsonMatch(
            {"a": {"b": 2}, "c": []},
            4,
            26,
            False,
            (Repair("truncated", 26, "closed 2 open container(s) at the end of input"),),
        ),
    ]


def test_spans_stop_at_the_closer() -> None:
    assert find_json('{"a": 1}   // note\nmore') == JsonMatch({"a": 1}, 0, 8)
    assert find_json("{'a': 1} /* ] */ x") == JsonMatch(
        {"a": 1}, 0, 8, True, (Repair("single_quotes", 1, "read a single-quoted key"),)
    )
    assert find_json("x [1,]\n\n") == JsonMatch(
        [1], 2, 6, True, (Repair("trailing_comma", 5, "dropped a trailing comma"),)
    )


@pytest.mark.parametrize("gap", ["", " ", "  "])
def test_long_lenient_values_across_read_ahead_windows(gap: str) -> None:
    # the lenient reader takes 1024, 2048, ... characters at a time; put the end of
    # the value, and a '/' that could open a comment, on a window boundary
    start = 6
    body_len = 1024 - 9 - len(gap) - 1
    value_text = "{'a': '" + "x" * body_len + "'}"
    text = "Text: " + value_text + gap + "/ not a comment"
    assert text[start + 1023] == "/"
    match = find_json(text)
    assert match == JsonMatch(
        {"a": "x" * body_len},
        start,
        start + len(value_text),
        True,
        (
            Repair("single_quotes", 7, "read a single-quoted key"),
            Repair("single_quotes", 12, "read a single-quoted string"),
        ),
    )
    big = "{'k': [" + ", ".join(str(i) for i in range(3000)) + ",]}"
    found = find_json("prose " + big + " prose")
    assert found is not None
    assert (found.value, found.start, found.end) == ({"k": list(range(3000))}, 6, 6 + len(big))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="which must be 'first' or 'last'"):
        find_json("[1]", which="middle")
    with pytest.raises(TypeError, match="expected str, not bytes"):
        find_all_json(b"[1]")  # type: ignore[arg-type]


# ------------------------------------------------------------------ cost bound


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,  # every candidate fails at the depth limit, 1,000 characters in
        '{"a": "' + "x{" * 50_000,  # every candidate runs to the end of the text
        "[1, " * 30_000 + "{oops",
    ],
    ids=["deep", "unterminated", "long-broken"],
)
def test_failed_candidates_have_bounded_cost(text: str) -> None:
    # without the bound these take minutes (quadratic); with it, well under a second each
    started = time.thread_time()  # CPU time: parallel workers and neighbours do not count
    assert find_all_json(text) == []
    assert time.thread_time() - started < 10


# ------------------------------------------------------------------ properties

JSONISH = st.text(
    alphabet=st.sampled_from(list("{}[]\"':,0123456789.-eE truflsnNTFI/*\nab<>think")),
    max_size=60,
)


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(JSONISH, st.text(max_size=60)))
def test_matches_are_ordered_disjoint_and_reparse_to_their_value(text: str) -> None:
    matches = find_all_json(text, skip_think=False)
    previous_end = 0
    for m in matches:
        assert previous_end <= m.start < m.end <= len(text)
        assert text[m.start] in "{[" and text[m.end - 1] in "}]"
        assert m.complete
        parser = JsonStream(lenient=True)
        parser.feed(text[m.start : m.end])
        assert_same(parser.finish(), m.value)
        assert parser.complete
        previous_end = m.end
    spans = [(m.start, m.end) for m in matches]
    first = find_json(text, skip_think=False)
    last = find_json(text, which="last", skip_think=False)
    assert _span(first) == (spans[0] if spans else None)
    assert _span(last) == (spans[-1] if spans else None)


def _span(match: JsonMatch | None) -> tuple[int, int] | None:
    return None if match is None else (match.start, match.end)


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_a_dirty_value_in_prose_is_found_with_its_exact_span(data: st.DataObject) -> None:
    value = data.draw(VALUES.filter(lambda v: isinstance(v, (list, dict))))
    pad = data.draw(st.sampled_from([0, 1000, 1010, 1020, 3000]))
    if pad:
        value = [value, "x" * pad]  # long enough to cross the reader's first window
    # find_json leaves bare words alone (in prose "[docs]" is not an array of a string)
    kinds = [d for d in DEVIATIONS if d != "uv"]
    writer = Writer(data.draw, frozenset(data.draw(st.sets(st.sampled_from(kinds)))))
    value_text = writer.value(value)
    intro = data.draw(st.sampled_from(["", "Here you go: ", "Sure!\n\n", "a: b, c\n"]))
    after = data.draw(st.sampled_from(["", " ", "\n// done\n", " /* } ] */ ", "\n\nThanks!"]))
    text = intro + value_text + after
    match = find_json(text)
    assert match is not None, text
    assert (match.start, match.end) == (len(intro), len(intro) + len(value_text)), text
    assert_same(match.value, json.loads(json.dumps(value)))
    assert match.complete

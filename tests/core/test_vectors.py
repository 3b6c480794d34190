"""The prefix vectors of the research study (§11) and of the spec's table, under every chunking.

Each vector is checked after feeding the prefix in one chunk, in every two-chunk split,
one character at a time and one UTF-8 byte at a time; then ``finish()``.  Error rows
must raise ``MalformedJSON`` at the first offending character, from the feed that
carries it, with ``.partial`` equal to the live value of the text before it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.support.core import (
    assert_same,
    chunk_holding,
    chunks_at,
    detach,
    feed_all,
    feed_until_error,
    live,
    one_by_one,
)
from unspool import UNSET, JsonStream, MalformedJSON, parse_partial

ERROR = object()
"""Marks a vector whose input is malformed."""


def _v(text: str) -> Any:
    """A vector's expected value, written as JSON text (UNSET and ERROR pass through)."""
    return json.loads(text)


# (number, prefix, live, finish); for ERROR rows: (number, prefix, pos, partial).
VECTORS: list[tuple[int, str, Any, Any]] = [
    (1, "", UNSET, UNSET),
    (2, "   ", UNSET, UNSET),
    (3, "{", _v("{}"), _v("{}")),
    (4, '{"', _v("{}"), _v("{}")),
    (5, '{"ke', _v("{}"), _v("{}")),
    (6, '{"key"', _v("{}"), _v("{}")),
    (7, '{"key" ', _v("{}"), _v("{}")),
    (8, '{"key":', _v("{}"), _v("{}")),
    (9, '{"key": ', _v("{}"), _v("{}")),
    (10, '{"key": "', _v('{"key":""}'), _v('{"key":""}')),
    (11, '{"key": "val', _v('{"key":"val"}'), _v('{"key":"val"}')),
    (12, '{"key": "val ', _v('{"key":"val "}'), _v('{"key":"val "}')),
    (13, '{"key": "value"', _v('{"key":"value"}'), _v('{"key":"value"}')),
    (14, '{"key": "value",', _v('{"key":"value"}'), _v('{"key":"value"}')),
    (15, '{"key": "value", "k2', _v('{"key":"value"}'), _v('{"key":"value"}')),
    (16, '{"key": "value", "k2":', _v('{"key":"value"}'), _v('{"key":"value"}')),
    (17, '{"a": 1', _v("{}"), _v('{"a":1}')),
    (18, '{"a": 12 ', _v('{"a":12}'), _v('{"a":12}')),
    (19, '{"a": -', _v("{}"), _v("{}")),
    (20, '{"a": -0', _v("{}"), _v('{"a":0}')),
    (21, '{"a": 1.', _v("{}"), _v("{}")),
    (22, '{"a": 1.0', _v("{}"), _v('{"a":1.0}')),
    (23, '{"a": 1e', _v("{}"), _v("{}")),
    (24, '{"a": 1e-', _v("{}"), _v("{}")),
    (25, '{"a": 1e-5', _v("{}"), _v('{"a":1e-05}')),
    (26, "[1.5e+", _v("[]"), _v("[]")),
    (
        27,
        '{"a": 123456789012345678901234567890',
        _v("{}"),
        _v('{"a":123456789012345678901234567890}'),
    ),
    (28, '{"a": t', _v("{}"), _v("{}")),
    (29, '{"a": tru', _v("{}"), _v("{}")),
    (30, '{"a": true', _v('{"a":true}'), _v('{"a":true}')),
    (31, '{"a": nul', _v("{}"), _v("{}")),
    (32, '{"a": fals', _v("{}"), _v("{}")),
    (33, '{"a": "x\\', _v('{"a":"x"}'), _v('{"a":"x"}')),
    (34, '{"a": "x\\n', _v('{"a":"x\\n"}'), _v('{"a":"x\\n"}')),
    (35, '{"a": "x\\"', _v('{"a":"x\\""}'), _v('{"a":"x\\""}')),
    (36, '{"a": "x\\\\', _v('{"a":"x\\\\"}'), _v('{"a":"x\\\\"}')),
    (37, '{"a": "x\\u', _v('{"a":"x"}'), _v('{"a":"x"}')),
    (38, '{"a": "x\\u00', _v('{"a":"x"}'), _v('{"a":"x"}')),
    (39, '{"a": "x\\u00e9', _v('{"a":"xé"}'), _v('{"a":"xé"}')),
    (40, '{"a": "x\\ud83d', _v('{"a":"x"}'), _v('{"a":"x"}')),
    (41, '{"a": "x\\ud83d\\ude', _v('{"a":"x"}'), _v('{"a":"x"}')),
    (42, '{"a": "x\\ud83d\\ude00', _v('{"a":"x😀"}'), _v('{"a":"x😀"}')),
    (43, '{"a":"x\\ude00', _v('{"a":"x\\ude00"}'), _v('{"a":"x\\ude00"}')),
    (44, "[", _v("[]"), _v("[]")),
    (45, "[1", _v("[]"), _v("[1]")),
    (46, "[1,", _v("[1]"), _v("[1]")),
    (47, "[1, 2", _v("[1]"), _v("[1,2]")),
    (48, '["a", "b', _v('["a","b"]'), _v('["a","b"]')),
    (49, "[tr", _v("[]"), _v("[]")),
    (50, "[[", _v("[[]]"), _v("[[]]")),
    (51, "[[1, 2], [3", _v("[[1,2],[]]"), _v("[[1,2],[3]]")),
    (52, '[{"a": 1}, {"b', _v('[{"a":1},{}]'), _v('[{"a":1},{}]')),
    (53, '{"a": []', _v('{"a":[]}'), _v('{"a":[]}')),
    (54, '{"a": {}', _v('{"a":{}}'), _v('{"a":{}}')),
    (55, '{"a": [', _v('{"a":[]}'), _v('{"a":[]}')),
    (56, '{"a": {', _v('{"a":{}}'), _v('{"a":{}}')),
    (
        57,
        '{"a": {"b": [1, {"c": "d',
        _v('{"a":{"b":[1,{"c":"d"}]}}'),
        _v('{"a":{"b":[1,{"c":"d"}]}}'),
    ),
    (58, '  {"a": 1', _v("{}"), _v('{"a":1}')),
    (59, '"abc', "abc", "abc"),
    (60, '""', "", ""),
    (61, "12", UNSET, 12),
    (62, "-", UNSET, UNSET),
    (63, "tr", UNSET, UNSET),
    (64, '{"a": 1}', _v('{"a":1}'), _v('{"a":1}')),
    (65, '{"a": 1}  ', _v('{"a":1}'), _v('{"a":1}')),
    (66, '{"a": 1, "a": "s', _v('{"a":"s"}'), _v('{"a":"s"}')),
    (
        67,
        '{"__proto__": {"x": 1}, "b": 2',
        _v('{"__proto__":{"x":1}}'),
        _v('{"__proto__":{"x":1},"b":2}'),
    ),
]

ERROR_VECTORS: list[tuple[int, str, int, Any]] = [
    (68, '{"a": 1} x', 9, _v('{"a":1}')),
    (69, '{"a" 1', 5, _v("{}")),
    (70, '{"a": 1 "b"', 8, _v('{"a":1}')),
    (71, "[1,]", 3, _v("[1]")),
    (72, '{"a": 1,}', 8, _v('{"a":1}')),
    (73, '{"a": 01', 7, _v("{}")),
    (74, '{"a": NaN', 6, _v("{}")),
    (75, '["a\n', 3, _v('["a"]')),
]

# The table of docs: spec partial-json.md ("Vectors (prefix -> live / finish), defaults").
SPEC_TABLE: list[tuple[str, Any, Any]] = [
    ("", UNSET, UNSET),
    ('{"key": "val ', _v('{"key":"val "}'), _v('{"key":"val "}')),
    ('{"key": ', _v("{}"), _v("{}")),
    ('{"a": 1', _v("{}"), _v('{"a":1}')),
    ('{"a": 12 ', _v('{"a":12}'), _v('{"a":12}')),
    ('{"a": 1.', _v("{}"), _v("{}")),
    ('{"a": 1e-5', _v("{}"), _v('{"a":1e-05}')),
    ('{"a": tru', _v("{}"), _v("{}")),
    ('{"a": "x\\u00', _v('{"a":"x"}'), _v('{"a":"x"}')),
    ('{"a": "x\\ud83d', _v('{"a":"x"}'), _v('{"a":"x"}')),
    ('{"a": "x\\ud83d\\ude00', _v('{"a":"x😀"}'), _v('{"a":"x😀"}')),
    ("[1, 2", _v("[1]"), _v("[1,2]")),
    ("[[1, 2], [3", _v("[[1,2],[]]"), _v("[[1,2],[3]]")),
    ("12", UNSET, 12),
    ('"abc', "abc", "abc"),
    ('{"a": 123456789012345678901234567890', _v("{}"), {"a": 123456789012345678901234567890}),
]
SPEC_ERRORS: list[tuple[str, int, Any]] = [
    ('{"a": 1} x', 9, _v('{"a":1}')),
    ("[1,]", 3, _v("[1]")),
]


COMPLETE_LIVE = {60, 64, 65}
"""Vectors whose prefix is a whole document whose end is known without finish()."""
COMPLETE_FINAL = COMPLETE_LIVE | {61}
"""After finish() the root number of row 61 ("12") is a whole document too."""


def _check_chunking(row: int, live_value: Any, finish_value: Any, chunks: list[Any]) -> None:
    """Feed ``chunks``; the last feed shows ``live_value``, each earlier feed the single-chunk
    live value of the text fed so far (A12), and ``finish()`` gives ``finish_value``."""
    fed = feed_all(chunks)
    so_far = chunks[0][:0]
    for index, chunk in enumerate(chunks):
        so_far += chunk
        expected = live_value if index == len(chunks) - 1 else live(so_far)
        assert_same(fed.after_each[index], expected, f"after chunk {index} of {chunks!r}")
    assert fed.parser.complete is (row in COMPLETE_LIVE), f"complete after {chunks!r}"
    result = fed.parser.finish()
    assert_same(result, finish_value, f"finish() after {chunks!r}")
    assert result is fed.parser.finish(), "finish() must return the same object each time"
    assert fed.parser.complete is (row in COMPLETE_FINAL), f"complete after finish, {chunks!r}"


def _all_chunkings(text: str) -> list[list[Any]]:
    plans: list[list[Any]] = [[text]]
    plans += [chunks_at(text, [i]) for i in range(len(text) + 1)]
    if text:
        plans.append(one_by_one(text))
        plans.append(one_by_one(text.encode("utf-8")))
    return plans


def _vector_id(row: tuple[Any, ...]) -> str:
    return f"v{row[0]}"


@pytest.mark.parametrize("row", VECTORS, ids=_vector_id)
def test_vector_live_and_finish(row: tuple[int, str, Any, Any]) -> None:
    number, prefix, live_value, finish_value = row
    for chunks in _all_chunkings(prefix):
        _check_chunking(number, live_value, finish_value, chunks)


@pytest.mark.parametrize("row", VECTORS, ids=_vector_id)
def test_vector_one_shot_and_value_property(row: tuple[int, str, Any, Any]) -> None:
    number, prefix, live_value, finish_value = row
    parser = JsonStream()
    returned = parser.feed(prefix)
    assert_same(detach(parser.value), live_value, "value property")
    assert_same(detach(returned), live_value, "feed() result")
    assert parser.complete is (number in COMPLETE_LIVE)
    assert parser.finished is False
    assert_same(parse_partial(prefix), finish_value, "parse_partial")
    assert_same(parser.finish(), finish_value, "finish")
    assert parser.finished is True


def _check_error(chunks: list[Any], pos: int, partial: Any) -> None:
    """Feeding ``chunks`` (ASCII text) fails at ``pos`` from the chunk holding it."""
    parser, index, err = feed_until_error(chunks)
    assert type(err) is MalformedJSON, f"{chunks!r}: {type(err).__name__}"
    assert err.pos == pos, f"{chunks!r}: pos {err.pos}, expected {pos} ({err})"
    assert_same(err.partial, partial, f"partial after {chunks!r}")
    assert index == chunk_holding(chunks, pos), (
        f"{chunks!r}: raised by chunk {index}, the offending character is in chunk "
        f"{chunk_holding(chunks, pos)}"
    )
    with pytest.raises(MalformedJSON) as again:
        parser.feed(chunks[0][:0])
    assert again.value.pos == pos, "a failed parser re-raises its error on feed"
    with pytest.raises(MalformedJSON) as at_finish:
        parser.finish()
    assert at_finish.value.pos == pos, "a failed parser re-raises its error on finish"


@pytest.mark.parametrize("row", ERROR_VECTORS, ids=_vector_id)
def test_vector_error(row: tuple[int, str, int, Any]) -> None:
    _, prefix, pos, partial = row
    assert_same(live(prefix[:pos]), partial, "partial is the live value before the error")
    for chunks in _all_chunkings(prefix):
        _check_error(chunks, pos, partial)
    with pytest.raises(MalformedJSON) as caught:
        parse_partial(prefix)
    assert caught.value.pos == pos


@pytest.mark.parametrize("row", SPEC_TABLE, ids=lambda row: repr(row[0]))
def test_spec_table(row: tuple[str, Any, Any]) -> None:
    prefix, live_value, finish_value = row
    number = next(n for n, text, _, _ in VECTORS if text == prefix)
    for chunks in _all_chunkings(prefix):
        _check_chunking(number, live_value, finish_value, chunks)


@pytest.mark.parametrize("row", SPEC_ERRORS, ids=lambda row: repr(row[0]))
def test_spec_table_errors(row: tuple[str, int, Any]) -> None:
    prefix, pos, partial = row
    for chunks in _all_chunkings(prefix):
        _check_error(chunks, pos, partial)


def test_vector_68_with_trailing_ignore_keeps_the_tail() -> None:
    for chunks in _all_chunkings('{"a": 1} x'):
        parser = JsonStream(trailing="ignore")
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(parser.finish(), {"a": 1})
        assert parser.complete is True
        assert parser.tail == " x"


def test_vector_74_with_allow_inf_nan() -> None:
    for chunks in _all_chunkings('{"a": NaN'):
        fed = feed_all(chunks, allow_inf_nan=True)
        shown = fed.after_each[-1]
        assert list(shown) == ["a"] and math.isnan(shown["a"])
        result = fed.parser.finish()
        assert list(result) == ["a"] and isinstance(result["a"], float) and math.isnan(result["a"])


def test_vectors_cover_all_75_rows() -> None:
    numbers = sorted([row[0] for row in VECTORS] + [row[0] for row in ERROR_VECTORS])
    assert numbers == list(range(1, 76))

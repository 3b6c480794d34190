"""Limits (depth, token length, document size, int digits) and the failure state machine.

Limits raise ``LimitExceeded`` (a ``MalformedJSON``) with ``.pos`` and ``.partial``,
never ``RecursionError`` and never a bare ``ValueError`` from ``int()``.  For a limit on
one token, ``.pos`` is either the token's first character or the first character past
the limit (both are "the offending token"); the other limits have one exact offset.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.core import assert_partial, assert_same, chunks_at, detach, live, one_by_one
from unspool import UNSET, JsonStream, LimitExceeded, MalformedJSON, parse_partial


def _nested_lists(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("plan", ["one chunk", "4096-char chunks", "one char"])
def test_100000_open_brackets_is_limit_exceeded(plan: str) -> None:
    text = "[" * 100_000
    plans: dict[str, list[Any]] = {
        "one chunk": [text],
        "4096-char chunks": [text[i : i + 4096] for i in range(0, len(text), 4096)],
        "one char": one_by_one(text[:1001]),
    }
    chunks = plans[plan]
    parser = JsonStream()
    with pytest.raises(LimitExceeded) as caught:
        for chunk in chunks:
            parser.feed(chunk)
    assert caught.value.pos == 1000
    assert_same(caught.value.partial, _nested_lists(1000))
    with pytest.raises(LimitExceeded):
        parser.finish()


def test_depth_limit_counts_objects_and_arrays() -> None:
    ok = '{"a": [{"b": [1]}]}'
    assert_same(parse_partial(ok, max_depth=4), {"a": [{"b": [1]}]})
    with pytest.raises(LimitExceeded) as caught:
        parse_partial(ok, max_depth=3)
    assert caught.value.pos == 13
    assert_same(caught.value.partial, {"a": [{}]})
    assert_same(parse_partial("[" * 1000 + "]" * 1000), _nested_lists(1000))


def test_depth_limit_under_every_split() -> None:
    text = "[[[[[[1]]]]]]"
    for cut in range(len(text) + 1):
        parser = JsonStream(max_depth=5)
        with pytest.raises(LimitExceeded) as caught:
            for chunk in chunks_at(text, [cut]):
                parser.feed(chunk)
        assert caught.value.pos == 5


def test_max_token_chars_on_numbers() -> None:
    assert_same(parse_partial("[" + "1" * 10 + "]", max_token_chars=10), [1111111111])
    for chunks in (["[" + "1" * 11 + "]"], one_by_one("[" + "1" * 11 + "]")):
        parser = JsonStream(max_token_chars=10)
        with pytest.raises(LimitExceeded) as caught:
            for chunk in chunks:
                parser.feed(chunk)
        assert caught.value.pos in (1, 11)
        assert_same(caught.value.partial, [])


def test_max_token_chars_on_strings_and_keys() -> None:
    assert_same(parse_partial('["abcde"]', max_token_chars=10), ["abcde"])
    big = "x" * 200
    for text, start in (('["' + big + '"]', 1), ('{"' + big + '": 1}', 1)):
        for chunks in ([text], [text[i : i + 7] for i in range(0, len(text), 7)]):
            parser = JsonStream(max_token_chars=10)
            with pytest.raises(LimitExceeded) as caught:
                for chunk in chunks:
                    parser.feed(chunk)
            assert start <= caught.value.pos <= start + 12, caught.value
    parser = JsonStream(max_token_chars=10)
    shown: list[Any] = []
    with pytest.raises(LimitExceeded):
        for char in one_by_one('["' + big + '"]'):
            shown.append(detach(parser.feed(char)))
    assert all(len(v[0]) <= 10 for v in shown if v), "a string never shows more than the limit"


def test_max_document_chars() -> None:
    assert_same(parse_partial("[1, 2, 3] ", max_document_chars=10), [1, 2, 3])
    for chunks in (["[1, 2, 3]  "], one_by_one("[1, 2, 3]  "), ["[1, 2, 3", "]  "]):
        parser = JsonStream(max_document_chars=10)
        with pytest.raises(LimitExceeded) as caught:
            for chunk in chunks:
                parser.feed(chunk)
        assert caught.value.pos == 10
        assert_same(caught.value.partial, [1, 2, 3])
    # characters, not bytes: 7 characters, 13 bytes
    assert_same(parse_partial('["éé😀"]'.encode(), max_document_chars=7), ["éé😀"])


@pytest.mark.parametrize("sign", ["", "-"])
def test_4300_digit_ints_are_exact_and_4301_are_limit_exceeded(sign: str) -> None:
    digits = "7" * 4300
    assert_same(parse_partial(f"[{sign}{digits}]"), [int(sign + digits)])
    for chunks in ([f"[{sign}{digits}7]"], one_by_one(f"[{sign}{digits}7]")):
        parser = JsonStream()
        with pytest.raises(LimitExceeded) as caught:
            for chunk in chunks:
                parser.feed(chunk)
        start = 1
        assert caught.value.pos in (start, start + len(sign) + 4300, start + len(sign) + 4301)
        assert_same(caught.value.partial, [])


def test_int_digit_limit_at_finish() -> None:
    parser = JsonStream()
    parser.feed("[" + "1" * 4301)
    with pytest.raises(LimitExceeded):
        parser.finish()


def test_max_int_digits_option() -> None:
    assert_same(parse_partial("[1234567890]", max_int_digits=10), [1234567890])
    with pytest.raises(LimitExceeded):
        parse_partial("[12345678901]", max_int_digits=10)
    # int("1" * 6000) itself trips the interpreter's 4300-digit guard: build it in halves
    six_thousand_ones = int("1" * 3000) * 10**3000 + int("1" * 3000)
    assert_same(parse_partial("[" + "1" * 6000 + "]", max_int_digits=7000), [six_thousand_ones])


@pytest.mark.parametrize(
    "text",
    [
        "[" + "1" * 5000 + ".5]",
        "[" + "1" * 5000 + "e2]",
        "[" + "1" * 5000 + "E-5000]",
    ],
)
def test_long_floats_are_not_int_limited(text: str) -> None:
    """json.loads reads these as floats; only integers have the digit limit."""
    import json

    expected = json.loads(text)
    for chunks in ([text], one_by_one(text), [text[i : i + 64] for i in range(0, len(text), 64)]):
        parser = JsonStream()
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(parser.finish(), expected, f"{len(chunks)} chunks")


def test_failed_parser_stays_failed() -> None:
    parser = JsonStream()
    parser.feed('{"a": [1, 2')
    with pytest.raises(MalformedJSON) as first:
        parser.feed("}")
    assert first.value.pos == 11
    assert_partial(first.value, '{"a": [1, 2')
    for chunk in ("]}", ""):
        with pytest.raises(MalformedJSON) as caught:
            parser.feed(chunk)
        assert caught.value.pos == 11
    with pytest.raises(MalformedJSON) as at_finish:
        parser.finish()
    assert at_finish.value.pos == 11


def test_partial_is_detached() -> None:
    parser = JsonStream()
    root = parser.feed('{"a": [1], "b": "text"')
    with pytest.raises(MalformedJSON) as caught:
        parser.feed(" 3")
    partial = caught.value.partial
    assert_same(partial, {"a": [1], "b": "text"})
    assert partial is not root and partial["a"] is not root["a"]


def test_error_before_anything_has_unset_partial() -> None:
    with pytest.raises(MalformedJSON) as caught:
        parse_partial("  x")
    assert caught.value.pos == 2
    assert caught.value.partial is UNSET


def test_error_partial_matches_the_live_value_of_the_prefix() -> None:
    text = '{"s": "abc", "n": [1, 2, {"k": tru}]}'
    pos = text.index("}")
    for cut in range(len(text) + 1):
        parser = JsonStream()
        with pytest.raises(MalformedJSON) as caught:
            for chunk in chunks_at(text, [cut]):
                parser.feed(chunk)
        assert caught.value.pos == pos
        assert_same(caught.value.partial, live(text[:pos]))


def test_feed_after_finish_is_runtime_error() -> None:
    parser = JsonStream()
    parser.feed("[1")
    parser.finish()
    with pytest.raises(RuntimeError):
        parser.feed("]")
    assert_same(parser.finish(), [1])


@pytest.mark.parametrize(("first", "second"), [("[", b"]"), (b"[", "]")])
def test_mixing_str_and_bytes(first: str | bytes, second: str | bytes) -> None:
    parser = JsonStream()
    parser.feed(first)
    with pytest.raises(TypeError):
        parser.feed(second)

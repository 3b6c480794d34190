"""InterleavedParser's fast path in C (``unspool.protocols._direct``) against its
Python form in ``feed()``: the same input in the same chunks gives exactly the same
events, chunk by chunk, including each ``ActionArgsDelta``'s partial and raw delta,
errors inside the array, lenient mode, bytes and the reply's tail."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.c_parts import (
    c_machine,
    feed_in_pieces,
    not_sanitized,
    python_fast_paths,
    traced_growth,
)
from tests.support.hypothesis_profiles import examples
from tests.support.interleaved import FUZZ, item_st, json_st, name_st, render, text_st
from unspool.events import Event
from unspool.protocols import _c_fastpaths as c_fastpaths
from unspool.protocols._interleaved import InterleavedParser

pytestmark = [
    pytest.mark.skipif(c_fastpaths.Direct is None, reason="the C fast path is not built"),
    pytest.mark.usefixtures(c_machine.__name__),
]


def _cut(data: Any, points: list[int]) -> list[Any]:
    bounds = sorted({p % (len(data) + 1) for p in points})
    edges = [0, *bounds, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def _feeds(chunks: list[Any], **options: Any) -> list[list[Event]]:
    parser = InterleavedParser(stream_id="s", **options)
    out = [parser.feed(c) for c in chunks]
    out.append(parser.finish())
    return out


def _run(chunks: list[Any], fast: bool, **options: Any) -> list[list[Event]]:
    """The events of each feed (and of finish), with the C fast path on or off."""
    if fast:
        return _feeds(chunks, **options)
    with python_fast_paths():
        return _feeds(chunks, **options)


def _same(chunks: list[Any], **options: Any) -> list[list[Event]]:
    got = _run(chunks, True, **options)
    want = _run(chunks, False, **options)
    assert got == want
    return got


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(item_st, max_size=6),
    spaced=st.booleans(),
    step=st.integers(1, 9),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
    tail=st.sampled_from(["", "\n```", " and more prose", "]", '{"x": 1}']),
    as_bytes=st.booleans(),
)
def test_the_c_fast_path_gives_the_python_events(
    items: list[tuple[Any, ...]],
    spaced: bool,
    step: int,
    points: list[int],
    tail: str,
    as_bytes: bool,
) -> None:
    text = render(items, False, spaced) + tail
    chunks: list[Any] = [text[i : i + step] for i in range(0, len(text), step)]
    if points:
        chunks = _cut(text, points)
    if as_bytes:  # some chunks as UTF-8 bytes: the fast path is left and taken again
        chunks = [c.encode() if i % 3 == 1 else c for i, c in enumerate(chunks)]
    _same(chunks)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(FUZZ), max_size=40),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
    lenient=st.booleans(),
)
def test_any_input_gives_the_same_events_on_both_paths(
    pieces: list[str], points: list[int], lenient: bool
) -> None:
    text = '[{"type":"text","content":"a"},' + "".join(pieces)
    _same(_cut(text, points), lenient=lenient)


def test_long_replies_trim_and_count_the_same() -> None:
    """Past the kept tail (_TRIM), with text, actions and a closing tail."""
    items = []
    for i in range(300):
        items.append(("text", f"part {i} " + "x" * (i % 50)))
        items.append(("action", "a", {"i": i, "s": "y" * (i % 70), "l": [1, {"k": "v"}]}))
    text = render(items, False, True) + "\n```\ntrailing prose"
    for step in (1, 4, 13):
        events = _same([text[i : i + step] for i in range(0, len(text), step)])
        done = events[-1][-1]
        assert type(done).__name__ == "StreamDone"


def test_an_error_inside_the_array_is_reported_the_same() -> None:
    text = '[{"type":"text","content":"hello"},{"type":"action","name":"a","params":{"x": tru]'
    for step in (1, 2, 5):
        _same([text[i : i + step] for i in range(0, len(text), step)])


def test_long_items_trim_the_kept_text_in_the_fast_path() -> None:
    """Items longer than the kept tail: the fast path itself forgets old text, and the
    reply's tail after the array is still cut at the right place."""
    items = [("text", "t" * 20_000), ("action", "a", {"s": "u" * 20_000}), ("text", "v" * 9_000)]
    text = render(items, False, False) + "  \n```\nthe tail"
    for step in (3, 7):
        events = _same([text[i : i + step] for i in range(0, len(text), step)])
        tail = [e for feed in events for e in feed if type(e).__name__ == "Diagnostic"]
        assert tail and any("the tail" in str(getattr(e, "text", "")) for e in tail), tail


@not_sanitized
def test_the_c_fast_path_keeps_no_references() -> None:
    """Memory stays flat over many replies (a leaked reference would keep each one)."""
    text = render(
        [("text", "hello " * 20), ("action", "a", {"s": "x" * 60, "n": [1, 2]})], False, True
    )

    def reply() -> None:
        feed_in_pieces(InterleavedParser(stream_id="s"), text)

    assert traced_growth(reply) < 20_000


# -- item boundaries and brace chunks inside the C fast path ---------------------------
# Direct feeds a chunk with braces in pieces and gives the item tracker (through
# InterleavedParser._inside) only the pieces whose events concern it; the members below
# reach every branch of the tracker: key order, legacy keys, duplicates, ids, bad
# content or params, nested params, items that are not objects.

member_st = st.one_of(
    st.tuples(st.just("type"), st.sampled_from(["text", "action", "other", 1, None])),
    st.tuples(st.just("content"), st.one_of(text_st, st.integers(0, 9), st.none())),
    st.tuples(st.sampled_from(["name", "tool_name"]), st.one_of(name_st, st.just(""), st.just(3))),
    st.tuples(
        st.sampled_from(["params", "parameters"]),
        st.one_of(st.dictionaries(text_st, json_st, max_size=3), st.just([]), st.just(0)),
    ),
    st.tuples(st.sampled_from(["id", "action_id", "tool_id"]), text_st),
    st.tuples(st.sampled_from(["extra", "{}", "content "]), json_st),
)
raw_item_st = st.one_of(
    st.lists(member_st, max_size=5),
    st.sampled_from(["1", '"s"', "[1, {}]", "null", "{}"]),
)


def _raw(items: list[Any], spaced: bool) -> str:
    """An array of items rendered by hand (duplicate keys stay)."""
    colon, comma = (": ", ", ") if spaced else (":", ",")
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        else:
            members = [json.dumps(k) + colon + json.dumps(v, ensure_ascii=False) for k, v in item]
            out.append("{" + comma.join(members) + "}")
    return "[" + comma.join(out) + "]"


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(raw_item_st, max_size=5),
    spaced=st.booleans(),
    step=st.integers(1, 12),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
    tail=st.sampled_from(["", " ", '{"x": 1}', "}{", "]]", ', {"type": "text"}']),
    cut=st.integers(0, 10_000),
    lenient=st.booleans(),
)
def test_items_of_any_shape_give_the_python_events(
    items: list[Any],
    spaced: bool,
    step: int,
    points: list[int],
    tail: str,
    cut: int,
    lenient: bool,
) -> None:
    # a recognised first item keeps the fast path on; `cut` truncates the reply (or not)
    text = _raw([[("type", "text"), ("content", "a")], *items], spaced) + tail
    text = text[: len(text) - cut % 3 * (cut % 7)]
    chunks = [text[i : i + step] for i in range(0, len(text), step)]
    if points:
        chunks = _cut(text, points)
    _same(chunks, lenient=lenient)


# errors in a later piece of a chunk with braces: after a TextDelta made in C, after
# params text held for the chunk's delta, after a piece the tracker took
ERRORS = [
    '[{"type":"text","content":"ab{c\\x"}]',
    '[{"type":"action","name":"a","params":{"a":{"b":1}, "c": x}}]',
    '[{"type":"action","name":"a","params":{"a":{"b":1}}}, ]',
    '[{"type":"text","content":"ab"}, {"type": tru}]',
    '[{"type":"text","content":"ab{"}, {"type":"text","content":"c"}}]',
]
# the array closes inside a chunk with braces, with more after it
CLOSES = [
    '[{"type":"text","content":"ab"}]{"x": {"y": 1}} more',
    '[{"type":"action","name":"a","params":{"a":{"b":1}}}]\n```\n{}',
    '[{"type":"text","content":"a{b}c"}] ',
]


# members whose plain form Direct sets itself, in forms it must leave to the tracker
_T = '{"type":"text","content":"a"},'
SHAPES = [
    "[" + _T + '{"type":"text","type":"action","content":"b"}]',
    "[" + _T + '{"type":"action","type":"text","name":"n","params":{"k":1}}]',
    "[" + _T + '{"content":"ab","type":"text"},{"content":"c","type":"text","content":"d"}]',
    "[" + _T + '{"name":"n","type":"action","params":{"k":{"j":2}}}]',
    "[" + _T + '{"type":"action","content":"x","name":"n","params":{}}]',
    "[" + _T + '{"type":"text","content":5},{"type":"text","content":{"a":"b"}}]',
    "[" + _T + '{"type":"text","content":"a","content":"b"},{"type":1,"content":"c"}]',
    "[" + _T + '{"type":"text","content":"a",},{"type":"text","content":"b"}]',  # a repair
    "[" + _T + '1,"s",{"type":"text"},{"type":"text","content":null},[{"a":1}]]',
    "[" + _T + '{"type":"action","params":{"k":1},"name":"n"}]',  # params before the name
    "[" + _T + '{"type":"action","name":"n","parameters":{"k":[1,{"z":2}]}}]',
    "["
    + _T
    + '{"type":"action","name":"n","params":[1]},{"type":"action","name":"m","params":"s"}]',
    "[" + _T + '{"type":"action","name":"n","params":{},"parameters":{"k":1}}]',
    "["
    + _T
    + '{"type":"action","name":"n","params":{}},{"type":"action","name":"m","params":{"{":"}"}}]',
    "[" + _T + '{"type":"action","name":"n","params":{"a" 1}}]',  # an error in the params' piece
    # lenient: a ']' repaired as the params' closer (no '}': not followed in lenient mode)
    "[" + _T + "{'type':'action','name':'n','params':{'k':1, 'j': 'a'], {'type':'text'}]",
    "[" + _T + '{"type":"action","name":"n","params":{"k":1 "j":2 ] ,{"type":"text"}]',
]


@pytest.mark.parametrize("text", ERRORS + CLOSES + SHAPES)
@pytest.mark.parametrize("lenient", [False, True])
def test_errors_and_closes_in_any_piece_give_the_python_events(text: str, lenient: bool) -> None:
    for step in range(1, 13):
        _same([text[i : i + step] for i in range(0, len(text), step)], lenient=lenient)
    for a in range(1, len(text)):
        for b in range(a + 1, min(a + 14, len(text))):
            # bytes after it: an invalid byte is reported at its offset in the stream
            _same([text[:a], text[a:b], text[b:], b"\xff", "z"], lenient=lenient)


def test_the_fast_path_stays_on_across_items() -> None:
    """Item boundaries, keys and nested params do not leave the C fast path: one Direct
    takes every chunk of the array (the point of taking them in C)."""
    items = []
    for i in range(20):
        items.append(("text", f"part {i} {{x}} "))
        items.append(("action", "a", {"i": i, "o": {"k": [1, {"z": None}]}, "s": "t"}))
    text = render(items, False, True)[:-1]  # the array stays open
    parser = InterleavedParser(stream_id="s")
    seen = set()
    for i in range(0, len(text), 4):
        parser.feed(text[i : i + 4])
        if parser._fast is not None:
            seen.add(id(parser._fast))
    assert parser._fast is not None and len(seen) == 1

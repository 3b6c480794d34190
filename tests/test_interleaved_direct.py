"""InterleavedParser's fast path in C (``unspool.protocols._direct``) against its
Python form in ``feed()``: the same input in the same chunks gives exactly the same
events, chunk by chunk, including each ``ActionArgsDelta``'s partial and raw delta,
errors inside the array, lenient mode, bytes and the reply's tail."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c_parts_support import c_machine, not_sanitized, python_fast_paths, traced_growth
from hypothesis_profiles import examples
from test_interleaved_props import FUZZ, item_st, render
from unspool.events import Event
from unspool.protocols import c_fastpaths
from unspool.protocols.interleaved import InterleavedParser

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
        parser = InterleavedParser(stream_id="s")
        for i in range(0, len(text), 4):
            parser.feed(text[i : i + 4])  # new chunk objects each time
        parser.finish()

    assert traced_growth(reply) < 20_000

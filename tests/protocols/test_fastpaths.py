"""The protocols' fast paths give what the general code gives.

Events built by :mod:`unspool.protocols._fastevents` equal the dataclass-built ones,
and :meth:`ArgsSnapshots.take` told ``changed=False`` (nothing changed since the last
call) returns what the full comparison returns.  The parsers' fast paths themselves
are checked by the chunking tests of each protocol: a fast path runs only on some
chunkings, and every chunking must give the events of a single feed.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_profiles import examples
from unspool.core._jsonstream import JsonStream
from unspool.events import ActionArgsDelta, ReasoningDelta, TextDelta
from unspool.protocols._args_snapshot import ArgsSnapshots
from unspool.protocols._fastevents import args_delta, reasoning_delta, text_delta


def test_fast_events_equal_the_dataclass_built_ones() -> None:
    for fast, slow in (
        (text_delta("héllo"), TextDelta("héllo")),
        (reasoning_delta("hm"), ReasoningDelta("hm")),
        (
            args_delta("s:1", 1, {"a": [1]}, '{"a": [1'),
            ActionArgsDelta("s:1", 1, {"a": [1]}, '{"a": [1'),
        ),
        (args_delta("s:2", 2, None, None), ActionArgsDelta("s:2", 2, None, None)),
    ):
        assert type(fast) is type(slow)
        assert fast == slow
        assert repr(fast) == repr(slow)
        assert fast.to_dict() == slow.to_dict()
        if not isinstance(fast, ActionArgsDelta):  # a dict partial is not hashable
            assert hash(fast) == hash(slow)


def test_fast_built_event_classes_have_nothing_their_init_would_run() -> None:
    # writing the slots skips only the generated __init__: no __post_init__, no
    # default factory (every field is given)
    for cls in (TextDelta, ReasoningDelta, ActionArgsDelta):
        assert not hasattr(cls, "__post_init__")
        assert all(f.default_factory is dataclasses.MISSING for f in dataclasses.fields(cls))
    assert [f.name for f in dataclasses.fields(ActionArgsDelta)] == [
        "id",
        "index",
        "partial",
        "delta",
    ]


def test_unchanged_args_give_the_last_snapshot_again() -> None:
    p = JsonStream()
    snaps = ArgsSnapshots()
    first = snaps.take(p.feed('{"a": "x", "b": [1, {"c": "d",'), 28)
    assert first == {"a": "x", "b": [1, {"c": "d"}]}
    p.feed(' "e')  # nothing visible changes (a key is not a value yet)
    assert snaps.take(p.value, 3, changed=False) is first
    second = snaps.take(p.feed('": 1}'), 5)
    assert second == {"a": "x", "b": [1, {"c": "d", "e": 1}]}
    assert first == {"a": "x", "b": [1, {"c": "d"}]}


def test_an_empty_object_snapshot_is_kept_while_it_stays_empty() -> None:
    p = JsonStream()
    snaps = ArgsSnapshots()
    first = snaps.take(p.feed('{"a": {'), 7)
    assert snaps.take(p.feed(" "), 1) is first
    assert first == {"a": {}}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=4)
    ),
    max_leaves=16,
)


@settings(max_examples=examples(80), deadline=None)
@given(value=st.dictionaries(st.text(max_size=3), JSON, max_size=5), cuts=st.data())
def test_hinted_snapshots_are_the_full_ones(value: dict[str, Any], cuts: st.DataObject) -> None:
    """Fed the same chunks, one ArgsSnapshots told ``changed=False`` whenever the core
    gave no path event and one never told gives equal snapshots, each kept unchanged,
    and reuse the same ones."""
    text = json.dumps(value, indent=cuts.draw(st.sampled_from([None, 1])))
    sizes = cuts.draw(st.lists(st.integers(1, 5), min_size=1, max_size=40))
    core, plain = JsonStream(events=True), JsonStream()
    hinted, full = ArgsSnapshots(), ArgsSnapshots()
    kept: list[tuple[Any, Any, str]] = []
    pos = 0
    step = 0
    while pos < len(text):
        size = sizes[step % len(sizes)]
        piece = text[pos : pos + size]
        pos += size
        step += 1
        events = core.feed_events(piece)
        plain.feed(piece)
        a = hinted.take(core.value, size, changed=bool(events))
        b = full.take(plain.value, size)
        assert a == b
        kept.append((a, json.dumps(a), json.dumps(b)))
    final_a = hinted.take(core.value, 0, final=True, changed=False)
    assert final_a == full.take(plain.value, 0, final=True) == value
    for snap, shown, other in kept:
        assert json.dumps(snap) == shown == other  # later growth changed no snapshot


def test_feeding_after_finish_raises_even_where_a_fast_path_was_open() -> None:
    from unspool.protocols._interleaved import InterleavedParser
    from unspool.protocols._tags import TagParser

    for parser, chunks in (
        (InterleavedParser(), ['[{"type":"text","content":"ab', "cd"]),
        (TagParser(), ["Sure ", "thing"]),
        (TagParser(), ['<action name="a">{"k": "v', "w"]),
    ):
        for c in chunks:
            parser.feed(c)
        parser.finish()
        for c in ("xy", b"xy"):
            try:
                parser.feed(c)
            except RuntimeError as exc:
                assert str(exc) == "feed() after finish()"
            else:
                raise AssertionError("feed() after finish() did not raise")

"""The C form of the argument snapshots (``unspool.protocols._snapshots``) against the
Python reference (``ArgsSnapshots``): fed the same growing values, the two give equal
snapshots, reuse their previous snapshot at the same calls, and every snapshot still
shows, at the end, what it showed when it was taken."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.c_parts import not_sanitized, traced_growth
from tests.support.hypothesis_profiles import examples
from tests.support.machines import MACHINES, on_machine
from unspool.core._jsonstream import JsonStream
from unspool.core._snapshot import deep_copy
from unspool.protocols import _args_snapshot as args_snapshot
from unspool.protocols._args_snapshot import C_SNAPSHOTS, ArgsSnapshots, new_snapshots

pytestmark = pytest.mark.skipif(C_SNAPSHOTS is None, reason="the C snapshots are not built")

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "id"]), children, max_size=4)
    ),
    max_leaves=25,
)


def _cut(text: str, cuts: Sequence[int]) -> list[str]:
    points = sorted({min(max(c, 0), len(text)) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def _compare(text: str, cuts: Sequence[int], flags: Sequence[bool], **options: Any) -> int:
    """Feed ``text`` in pieces; after each, both forms take a snapshot; returns how many
    snapshots were compared."""
    assert C_SNAPSHOTS is not None
    stream = JsonStream(events=True, **options)
    ref, fast = ArgsSnapshots(), C_SNAPSHOTS()
    kept: list[tuple[Any, Any]] = []
    last: tuple[Any, Any] = (None, None)
    pieces = _cut(text, cuts)
    for i, piece in enumerate(pieces):
        events = stream.feed_events(piece)
        final = stream.complete and i == len(pieces) - 1
        changed = bool(events) or flags[i % len(flags)] if flags else True
        a = ref.take(stream.value, len(piece), final, changed)
        b = fast.take(stream.value, len(piece), final, changed)
        assert a == b, (piece, a, b)
        assert (a is last[0]) == (b is last[1]), piece  # the previous snapshot again
        if a is stream.value:
            assert b is stream.value
        last = (a, b)
        kept.append((b, deep_copy(b)))
    for snap, then in kept:
        assert snap == then  # values: later growth never changed a snapshot
    return len(kept)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=JSON,
    cuts=st.lists(st.integers(0, 300), max_size=40),
    flags=st.lists(st.booleans(), max_size=4),
    indent=st.sampled_from([None, 1]),
)
def test_the_c_snapshots_equal_the_python_ones(
    value: Any, cuts: list[int], flags: list[bool], indent: int | None
) -> None:
    _compare(json.dumps(value, indent=indent), cuts, flags)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, cuts=st.lists(st.integers(0, 300), max_size=40))
def test_the_python_nodes_give_the_same_snapshots(value: Any, cuts: list[int]) -> None:
    """The reference on its own nodes (as with ``UNSPOOL_PURE=1``) against the C form."""
    made = args_snapshot._new_node
    args_snapshot._new_node = args_snapshot._Node
    try:
        _compare(json.dumps(value), cuts, [])
    finally:
        args_snapshot._new_node = made


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.lists(JSON, min_size=1, max_size=6),
    cuts=st.lists(st.integers(0, 300), max_size=40),
)
def test_released_items_and_duplicate_keys_agree(value: list[Any], cuts: list[int]) -> None:
    _compare(json.dumps(value), cuts, [], release_items=True)
    dup = '{"a": [1, {"b": "x"}], "c": 2, "a": [3, [4, {"d": "long text"}]], "c": {"e": 5}}'
    _compare(dup, cuts, [])


@pytest.mark.parametrize("step", [1, 3, 16])
def test_deep_and_long_values_agree(step: int) -> None:
    # deeper than the C recursion (200): the Python _snapshot takes over
    deep = '{"a": [' * 150 + '"' + "x" * 300 + '"' + "]}" * 150
    assert _compare(deep, range(step, len(deep), step), []) > 10
    wide = json.dumps({"rows": [[i, str(i), {"k": "v" * i}] for i in range(60)]})
    _compare(wide, range(step, len(wide), step), [True, False])
    root = '"' + "y" * 5000 + '"'
    _compare(root, range(step, len(root), step), [])


def test_take_checks_its_arguments() -> None:
    assert C_SNAPSHOTS is not None
    snaps: Any = C_SNAPSHOTS()
    assert snaps.take(live=[1], grown=3, final=True) == [1]
    with pytest.raises(TypeError):
        snaps.take([1])
    with pytest.raises(TypeError):
        snaps.take([1], 1, nope=True)
    with pytest.raises(TypeError):
        snaps.take([1], 1, final=True, **{"live": 2})
    with pytest.raises(TypeError):
        snaps.take([1], "3")
    with pytest.raises(TypeError):
        C_SNAPSHOTS(1)  # type: ignore[call-arg]


def test_new_snapshots_follows_the_selected_machine() -> None:
    expected = {"python": ArgsSnapshots, "c": C_SNAPSHOTS}
    for machine in MACHINES:
        with on_machine(machine):
            assert type(new_snapshots()) is expected[machine]
    assert args_snapshot.C_SNAPSHOTS is C_SNAPSHOTS


def _one_stream() -> None:
    assert C_SNAPSHOTS is not None
    text = json.dumps({"a": [1, {"b": "x" * 40}], "c": {"d": [[1, 2], {"e": "f"}]}, "g": "h" * 30})
    stream = JsonStream(events=True)
    snaps = C_SNAPSHOTS()
    for i in range(0, len(text), 3):
        events = stream.feed_events(text[i : i + 3])
        snaps.take(stream.value, 3, stream.complete, bool(events))


@not_sanitized
def test_the_c_snapshots_keep_no_references() -> None:
    """Memory stays flat over many streams (a leaked reference would keep each one)."""
    assert traced_growth(_one_stream, warm=50, first=100) < 20_000

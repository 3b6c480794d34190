"""Path events (events=True): exact sequences, chunking independence, no ValueEnd when cut off."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from tests.support.core import (
    CORPUS,
    assert_same,
    chunks_at,
    events_of,
    merge_deltas,
    node_at,
    one_by_one,
)
from unspool import JsonStream, Repair, StringDelta, ValueEnd, ValueStart
from unspool.core._path_events import PathEvent

VS, SD, VE = ValueStart, StringDelta, ValueEnd

EXACT: list[tuple[str, list[PathEvent]]] = [
    (
        '{"a": [1, "x"], "b": null}',
        [
            VS((), "object"),
            VS(("a",), "array"),
            VS(("a", 0), "number"),
            VE(("a", 0), 1),
            VS(("a", 1), "string"),
            SD(("a", 1), "x"),
            VE(("a", 1), "x"),
            VE(("a",), [1, "x"]),
            VS(("b",), "null"),
            VE(("b",), None),
            VE((), {"a": [1, "x"], "b": None}),
        ],
    ),
    ('"hi"', [VS((), "string"), SD((), "hi"), VE((), "hi")]),
    ("[]", [VS((), "array"), VE((), [])]),
    ("null", [VS((), "null"), VE((), None)]),
    ("12 ", [VS((), "number"), VE((), 12)]),
    (
        '{"k": true, "n": -1.5e2}',
        [
            VS((), "object"),
            VS(("k",), "bool"),
            VE(("k",), True),
            VS(("n",), "number"),
            VE(("n",), -150.0),
            VE((), {"k": True, "n": -150.0}),
        ],
    ),
    (
        '[[], {}, ""]',
        [
            VS((), "array"),
            VS((0,), "array"),
            VE((0,), []),
            VS((1,), "object"),
            VE((1,), {}),
            VS((2,), "string"),
            VE((2,), ""),
            VE((), [[], {}, ""]),
        ],
    ),
    (
        '{"a": 1, "a": "s"}',
        [
            VS((), "object"),
            VS(("a",), "number"),
            VE(("a",), 1),
            VS(("a",), "string"),
            SD(("a",), "s"),
            VE(("a",), "s"),
            VE((), {"a": "s"}),
        ],
    ),
    (
        '["a\\u00e9\\ud83d\\ude00b"]',
        [
            VS((), "array"),
            VS((0,), "string"),
            SD((0,), "aé😀b"),
            VE((0,), "aé😀b"),
            VE((), ["aé😀b"]),
        ],
    ),
    (
        '{"x": {"y": [false, "z"]}}',
        [
            VS((), "object"),
            VS(("x",), "object"),
            VS(("x", "y"), "array"),
            VS(("x", "y", 0), "bool"),
            VE(("x", "y", 0), False),
            VS(("x", "y", 1), "string"),
            SD(("x", "y", 1), "z"),
            VE(("x", "y", 1), "z"),
            VE(("x", "y"), [False, "z"]),
            VE(("x",), {"y": [False, "z"]}),
            VE((), {"x": {"y": [False, "z"]}}),
        ],
    ),
]

CUT_OFF: list[tuple[str, list[PathEvent]]] = [
    ('{"a": "xy', [VS((), "object"), VS(("a",), "string"), SD(("a",), "xy")]),
    (
        '[1, [true, "s',
        [
            VS((), "array"),
            VS((0,), "number"),
            VE((0,), 1),
            VS((1,), "array"),
            VS((1, 0), "bool"),
            VE((1, 0), True),
            VS((1, 1), "string"),
            SD((1, 1), "s"),
        ],
    ),
    ('{"ab', [VS((), "object")]),
    ('["a\\u00', [VS((), "array"), VS((0,), "string"), SD((0,), "a")]),
    ('{"a": "', [VS((), "object"), VS(("a",), "string")]),
]


def _plans(text: str) -> list[list[Any]]:
    plans: list[list[Any]] = [[text], one_by_one(text), one_by_one(text.encode("utf-8"))]
    plans += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    return plans


def _public(event: PathEvent) -> type:
    """The event's public type (an event of a path deeper than PATH_FLAT keys is of a
    private subclass, see path_events)."""
    return next(t for t in (VS, SD, VE, Repair) if isinstance(event, t))


def _assert_events(got: list[PathEvent], expected: list[PathEvent], label: str) -> None:
    assert [_public(e) for e in got] == [_public(e) for e in expected], f"{label}: {got!r}"
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g[0] == e[0], f"{label}: event {index} path/kind {g!r} != {e!r}"
        assert_same(g[1], e[1], f"{label}: event {index} {g!r}")
        assert type(g[0]) is tuple


@pytest.mark.parametrize(("text", "expected"), EXACT, ids=[t for t, _ in EXACT])
def test_exact_events_under_every_chunking(text: str, expected: list[PathEvent]) -> None:
    for chunks in _plans(text):
        parser, events = events_of(chunks)
        assert all(e.text for e in events if isinstance(e, StringDelta)), "empty StringDelta"
        _assert_events(merge_deltas(events), expected, f"{text!r} fed as {chunks!r}")
        last = events[-1]
        assert isinstance(last, ValueEnd) and last.path == ()
        if isinstance(parser.value, (list, dict)):
            assert last.value is parser.value, "a container's ValueEnd carries the live object"


@pytest.mark.parametrize(("text", "expected"), CUT_OFF, ids=[t for t, _ in CUT_OFF])
def test_no_value_end_for_values_cut_off_at_finish(text: str, expected: list[PathEvent]) -> None:
    for chunks in _plans(text):
        parser = JsonStream(events=True)
        events: list[PathEvent] = []
        for chunk in chunks:
            events.extend(parser.feed_events(chunk))
        assert parser.finish_events() == [], f"{text!r}: finish() completed nothing"
        _assert_events(merge_deltas(events), expected, f"{text!r} fed as {chunks!r}")


def test_root_number_completes_at_finish() -> None:
    parser = JsonStream(events=True)
    assert parser.feed_events("-12") == []
    _assert_events(parser.finish_events(), [VS((), "number"), VE((), -12)], "root number")
    assert parser.finish_events() == []


def _string_paths(events: list[PathEvent]) -> dict[tuple[Any, ...], str]:
    joined: dict[tuple[Any, ...], str] = {}
    for event in events:
        if isinstance(event, ValueStart) and event.kind == "string":
            joined[event.path] = ""
        elif isinstance(event, StringDelta):
            joined[event.path] += event.text
    return joined


@pytest.mark.parametrize("doc", CORPUS, ids=lambda d: repr(d[:40]))
def test_corpus_events_agree_with_the_value(doc: str) -> None:
    data = doc.encode("utf-8")
    reference: list[PathEvent] | None = None
    plans: list[list[Any]] = [
        [doc],
        chunks_at(doc, [len(doc) // 2]),
        chunks_at(data, [len(data) // 3]),
    ]
    if len(doc) < 2000:
        plans += [one_by_one(doc), one_by_one(data)]
    for chunks in plans:
        _, events = events_of(chunks)
        merged = merge_deltas(events)
        if reference is None:
            reference = merged
        else:
            _assert_events(merged, reference, f"{doc[:40]!r} in {len(chunks)} chunks")
    assert reference is not None
    final = json.loads(doc)
    starts = [e for e in reference if isinstance(e, ValueStart)]
    ends = [e for e in reference if isinstance(e, ValueEnd)]
    assert len(starts) == len(ends), "every value of a complete document completes"
    strings = _string_paths(reference)
    last_start: dict[tuple[Any, ...], int] = {}
    for index, event in enumerate(reference):
        if isinstance(event, ValueStart):
            last_start[event.path] = index
    for index, event in enumerate(reference):
        if isinstance(event, ValueEnd) and all(
            last_start.get(event.path[:n], -1) < index for n in range(len(event.path) + 1)
        ):
            assert_same(event.value, node_at(final, event.path), f"ValueEnd at {event.path}")
            if event.path in strings:
                assert strings[event.path] == event.value, f"deltas at {event.path}"


def test_string_deltas_carry_only_the_new_text() -> None:
    parser = JsonStream(events=True)
    got = []
    for chunk in ['{"t": "ab', "cd", "", "e\\", 'nf"}']:
        got.append([e for e in parser.feed_events(chunk) if isinstance(e, StringDelta)])
    assert got == [
        [SD(("t",), "ab")],
        [SD(("t",), "cd")],
        [],
        [SD(("t",), "e")],
        [SD(("t",), "\nf")],
    ]


def test_keys_never_produce_string_deltas() -> None:
    _, events = events_of(one_by_one('{"long key": {"another": "v"}}'))
    assert [e for e in events if isinstance(e, StringDelta)] == [SD(("long key", "another"), "v")]


def test_feed_events_needs_events_on() -> None:
    parser = JsonStream()
    with pytest.raises(ValueError, match="events=True"):
        parser.feed_events("[1]")
    with pytest.raises(ValueError, match="events=True"):
        parser.finish_events()


# ------------------------------------------------------------------ deep paths (issue 22)


def _expected_events(value: Any, path: tuple[Any, ...] = ()) -> list[PathEvent]:
    """The events of a complete document, by walking its value (deltas merged)."""
    kinds = {dict: "object", list: "array", str: "string", bool: "bool", type(None): "null"}
    out: list[PathEvent] = [VS(path, kinds.get(type(value), "number"))]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _expected_events(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _expected_events(v, (*path, i))
    elif isinstance(value, str) and value:
        out.append(SD(path, value))
    return [*out, VE(path, value)]


def _deep_doc(depth: int) -> str:
    """Objects and arrays by turns, a string, a number and a literal at every level."""
    doc = '"bottom"'
    for level in reversed(range(depth)):
        if level % 2:
            doc = f'{{"s{level}": "text at {level}", "n": {level}, "in": {doc}, "t": true}}'
        else:
            doc = f'["at {level}", {doc}, {level}.5, null]'
    return doc


@pytest.mark.parametrize("depth", [3, 31, 32, 33, 70])
def test_deep_paths_read_as_the_tuples_they_stand_for(depth: int) -> None:
    """Past PATH_FLAT keys a path is held as a link to its parent's (so an event costs
    O(1), not O(depth)); every way of reading an event still sees the tuple."""
    doc = _deep_doc(depth)
    expected = _expected_events(json.loads(doc))
    for chunks in ([doc], chunks_at(doc, [len(doc) // 3, len(doc) // 2]), one_by_one(doc)):
        _, events = events_of(chunks)
        got = merge_deltas(events)
        assert got == expected
        hashable = [k for k, e in enumerate(expected) if type(e) is not VE]
        assert [hash(got[k]) for k in hashable] == [hash(expected[k]) for k in hashable]
        assert [repr(e) for e in got] == [repr(e) for e in expected]
        assert json.dumps(got) == json.dumps(expected)
    # lenient mode: the C machine hands the stream over at the repair, paths and all
    # (an ellipsis is a repair the C machine leaves to the reference)
    lenient = doc.replace('"bottom"', "'bottom'").replace(', "t": true}', ", t: true,}")
    lenient = lenient.replace(", null]", ", null, ...]")
    for chunks in ([lenient], one_by_one(lenient)):
        parser = JsonStream(events=True, lenient=True)
        events = [e for c in chunks for e in parser.feed_events(c)] + parser.finish_events()
        assert [e for e in merge_deltas(events) if type(e) is not Repair] == expected
    deepest = max(got, key=lambda e: len(e.path))
    assert isinstance(deepest, (VS, VE, SD))
    assert type(deepest.path) is tuple and len(deepest.path) == depth
    path, _ = deepest  # unpacking, indexing, copying and pickling see the tuple as well
    assert path == deepest[0] == deepest.path and type(path) is tuple
    assert pickle.loads(pickle.dumps(deepest)) == deepest == copy.deepcopy(deepest)
    assert deepest._asdict()["path"] == path and deepest._replace().path == path
    assert deepest in {type(deepest)(path, deepest[1])}

"""Hypothesis properties for the six invariants of spec/partial-json.md, against json.loads.

Documents are generated as JSON *text* with random escaping per character (raw, short
escape, ``\\uXXXX`` in any hex case, surrogate pairs or raw astral characters, escaped
lone surrogates), random whitespace, big ints (up to 4300 digits), floats in every
notation and nesting up to 300 levels; then fed under random chunkings, as str and as
UTF-8 bytes cut anywhere (inside characters too).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.core import (
    assert_same,
    chunks_at,
    containers_by_path,
    cut_points,
    decoded_prefix,
    detach,
    feed_all,
    json_docs,
    kinds_by_path,
    live,
    loads,
    node_at,
    one_by_one,
    prefix_violation,
)
from tests.support.hypothesis_profiles import examples
from unspool import UNSET, JsonStream, parse_partial

SETTINGS = settings(max_examples=examples(150), deadline=None)
SMALL = settings(max_examples=examples(60), deadline=None)


@SETTINGS
@given(doc=json_docs(unique_keys=False), data=st.data())
def test_equivalence_with_json_loads(doc: str, data: st.DataObject) -> None:
    """Invariant 5: a complete document finishes to exactly json.loads, however it is cut."""
    expected = loads(doc)
    assert_same(parse_partial(doc), expected, "one chunk")
    cuts = data.draw(cut_points(len(doc)), label="cuts")
    fed = feed_all(chunks_at(doc, cuts))
    assert_same(fed.parser.finish(), expected, f"str chunks cut at {cuts}")
    assert fed.parser.complete is True
    raw = doc.encode("utf-8")
    byte_cuts = data.draw(cut_points(len(raw)), label="byte cuts")
    fed = feed_all(chunks_at(raw, byte_cuts))
    assert_same(fed.parser.finish(), expected, f"byte chunks cut at {byte_cuts}")
    assert fed.parser.complete is True


@SETTINGS
@given(doc=json_docs(unique_keys=False), data=st.data())
def test_chunking_independence(doc: str, data: st.DataObject) -> None:
    """Invariant 4: after each chunk the value is the single-chunk value of the text so far,
    byte splits inside UTF-8 characters included."""
    cuts = data.draw(cut_points(len(doc), max_cuts=6), label="cuts")
    chunks = chunks_at(doc, cuts)
    fed = feed_all(chunks)
    for index in range(len(chunks)):
        so_far = "".join(chunks[: index + 1])  # type: ignore[arg-type]
        assert_same(fed.after_each[index], live(so_far), f"after {so_far!r}")
    raw = doc.encode("utf-8")
    byte_cuts = data.draw(cut_points(len(raw), max_cuts=6), label="byte cuts")
    byte_chunks = chunks_at(raw, byte_cuts)
    fed = feed_all(byte_chunks)
    for index in range(len(byte_chunks)):
        so_far_bytes = b"".join(byte_chunks[: index + 1])  # type: ignore[arg-type]
        assert_same(
            fed.after_each[index], live(decoded_prefix(so_far_bytes)), f"after {so_far_bytes!r}"
        )


@SETTINGS
@given(doc=json_docs(unique_keys=True), data=st.data())
def test_monotonic_growth_and_no_type_change(doc: str, data: st.DataObject) -> None:
    """Invariants 1 and 2: each live value extends the previous one; a path keeps its type."""
    if len(doc) <= 400:
        chunks: list[Any] = one_by_one(doc)
    else:
        chunks = chunks_at(doc, data.draw(cut_points(len(doc), max_cuts=40), label="cuts"))
    fed = feed_all(chunks)
    final = fed.parser.finish()
    seen: dict[tuple[Any, ...], type] = {}
    previous: Any = UNSET
    for index, shown in enumerate([*fed.after_each, final]):
        problem = prefix_violation(previous, shown)
        assert problem is None, f"after chunk {index}: {problem}"
        for path, kind in kinds_by_path(shown).items():
            assert seen.setdefault(path, kind) is kind, f"type changed at {path}"
        previous = shown


@SETTINGS
@given(doc=json_docs(unique_keys=True), data=st.data())
def test_finish_extends_live_and_equals_parse_partial(doc: str, data: st.DataObject) -> None:
    """Invariant 3 on a random prefix fed in random chunks."""
    end = data.draw(st.integers(min_value=0, max_value=len(doc)), label="prefix length")
    prefix = doc[:end]
    cuts = data.draw(cut_points(len(prefix), max_cuts=5), label="cuts")
    parser = JsonStream()
    for chunk in chunks_at(prefix, cuts):
        parser.feed(chunk)
    shown = detach(parser.value)
    result = parser.finish()
    problem = prefix_violation(shown, result)
    assert problem is None, f"finish() does not extend the live value of {prefix!r}: {problem}"
    assert_same(result, parse_partial(prefix), f"finish vs parse_partial of {prefix!r}")
    assert result is parser.finish()
    assert parser.complete is (end == len(doc) or _is_whole(prefix))


def _is_whole(prefix: str) -> bool:
    try:
        loads(prefix)
    except ValueError:
        return False
    return True


@SMALL
@given(doc=json_docs(unique_keys=True), data=st.data())
def test_container_identity_across_feeds(doc: str, data: st.DataObject) -> None:
    """Invariant "identity": the root and every container stay the same Python objects."""
    cuts = data.draw(cut_points(len(doc), max_cuts=20), label="cuts")
    parser = JsonStream()
    first_seen: dict[tuple[Any, ...], Any] = {}
    for chunk in chunks_at(doc, cuts):
        root = parser.feed(chunk)
        for path, node in containers_by_path(root).items():
            assert first_seen.setdefault(path, node) is node, f"container at {path} replaced"
    final = parser.finish()
    assert final is parser.value
    for path, node in first_seen.items():
        assert node_at(final, path) is node, f"final container at {path} is a different object"

"""TagParser's text fast path in C (``unspool.protocols._direct.TextRun``) against its
Python form in ``feed()``: the same document in the same chunks gives exactly the same
events, chunk by chunk, and the same ``text_chars`` after every feed (prose, actions,
fences, inline code, ``<think>`` reasoning, bytes cut inside characters)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from test_tags_property import cut, cuts, documents
from unspool.core import machines
from unspool.events import Event
from unspool.protocols import c_fastpaths
from unspool.protocols.tags import TagParser

pytestmark = pytest.mark.skipif(c_fastpaths.TextRun is None, reason="the C fast path is not built")


@pytest.fixture(autouse=True)
def _c_machine() -> Iterator[None]:
    before = machines.selected()
    machines.select("c")
    try:
        yield
    finally:
        machines.select(before)


def _run(chunks: list[Any], fast: bool, **options: Any) -> list[tuple[list[Event], int]]:
    """Each feed's events (and finish's) with ``text_chars`` after it; C path on or off."""
    saved = c_fastpaths._module
    if not fast:
        c_fastpaths._module = None
    try:
        parser = TagParser(stream_id="s", **options)
        out = []
        for c in chunks:
            out.append((parser.feed(c), parser.text_chars))
        out.append((parser.finish(), parser.text_chars))
    finally:
        c_fastpaths._module = saved
    return out


@settings(max_examples=examples(200), deadline=None)
@given(
    doc=documents,
    data=st.data(),
    as_bytes=st.booleans(),
    reasoning=st.booleans(),
    think=st.booleans(),
)
def test_the_c_text_path_gives_the_python_events(
    doc: str, data: st.DataObject, as_bytes: bool, reasoning: bool, think: bool
) -> None:
    if think:
        doc = "<think>pondering " + doc[: len(doc) // 2] + "</think>" + doc[len(doc) // 2 :]
    raw: Any = doc.encode() if as_bytes else doc
    chunks = cut(raw, data.draw(cuts(len(raw))))
    if not as_bytes and len(chunks) > 2:  # a few bytes chunks among str ones
        chunks[1] = chunks[1].encode()
    got = _run(chunks, True, reasoning=reasoning)
    want = _run(chunks, False, reasoning=reasoning)
    assert got == want


@pytest.mark.parametrize("step", [1, 4, 9])
def test_long_prose_with_actions_counts_the_same(step: int) -> None:
    doc = ("Some prose here, " * 40 + '<action name="a">{"q": "' + "x" * 90 + '"}</action>') * 20
    chunks = [doc[i : i + step] for i in range(0, len(doc), step)]
    got = _run(chunks, True)
    assert got == _run(chunks, False)
    assert got[-1][1] == 20 * len("Some prose here, " * 40)


@pytest.mark.skipif(
    os.environ.get("UNSPOOL_SANITIZED") == "1",
    reason="AddressSanitizer's quarantine holds freed memory",
)
def test_the_c_text_path_keeps_no_references() -> None:
    """Memory stays flat over many replies (a leaked reference would keep each one)."""
    import gc
    import tracemalloc

    doc = "Hello there, " * 20 + '<action name="a">{"q": "x"}</action> and more prose.'

    def replies(n: int) -> None:
        for _ in range(n):
            chunks = [doc[i : i + 4] for i in range(0, len(doc), 4)]  # new objects each time
            parser = TagParser(stream_id="s")
            for c in chunks:
                parser.feed(c)
            parser.finish()

    replies(30)
    gc.collect()
    tracemalloc.start()
    try:
        replies(50)
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        replies(200)
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert second - first < 20_000, (first, second)

"""TagParser's text fast path in C (``unspool.protocols._direct.TextRun``) against its
Python form in ``feed()``: the same document in the same chunks gives exactly the same
events, chunk by chunk, and the same ``text_chars`` after every feed (prose, actions,
fences, inline code, ``<think>`` reasoning, bytes cut inside characters)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c_parts_support import c_machine, not_sanitized, python_fast_paths, traced_growth
from hypothesis_profiles import examples
from test_tags_property import cut, cuts, documents
from unspool.events import Event
from unspool.protocols import c_fastpaths
from unspool.protocols.tags import TagParser

pytestmark = [
    pytest.mark.skipif(c_fastpaths.TextRun is None, reason="the C fast path is not built"),
    pytest.mark.usefixtures(c_machine.__name__),
]


def _feeds(chunks: list[Any], **options: Any) -> list[tuple[list[Event], int]]:
    parser = TagParser(stream_id="s", **options)
    out = [(parser.feed(c), parser.text_chars) for c in chunks]
    out.append((parser.finish(), parser.text_chars))
    return out


def _run(chunks: list[Any], fast: bool, **options: Any) -> list[tuple[list[Event], int]]:
    """Each feed's events (and finish's) with ``text_chars`` after it; C path on or off."""
    if fast:
        return _feeds(chunks, **options)
    with python_fast_paths():
        return _feeds(chunks, **options)


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


@not_sanitized
def test_the_c_text_path_keeps_no_references() -> None:
    """Memory stays flat over many replies (a leaked reference would keep each one)."""
    doc = "Hello there, " * 20 + '<action name="a">{"q": "x"}</action> and more prose.'

    def reply() -> None:
        parser = TagParser(stream_id="s")
        for i in range(0, len(doc), 4):
            parser.feed(doc[i : i + 4])  # new chunk objects each time
        parser.finish()

    assert traced_growth(reply) < 20_000

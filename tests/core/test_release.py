"""``JsonStream(events=True, release_items=True)``: the items of a root array leave the
live value once their ``ValueEnd`` went out, so memory is bounded by the largest item.

Checked against the same parser without the option: the events are the same (paths
keep their absolute indices), except that the root array's own ``ValueEnd`` carries
the emptied list; after every feed the live list holds at most the one open item.
Every document is fed whole, split at every index and one character at a time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.core import assert_same, chunks_at, detach, one_by_one
from unspool import UNSET, JsonStream, PathEvent, Repair, ValueEnd
from unspool.core import _machines as machines
from unspool.core._jsonstream import REPAIRS_KEPT

DOCS = [
    "[]",
    "[1, 2, 3]",
    '[{"type": "text", "text": "hello"}, {"type": "action", "args": {"q": [1, 2]}}, "tail"]',
    '[[1, [2, [3]]], {"a": {"b": "c"}}, true, null, -1.5e3, "x\\u00e9y"]',
    '["a long string that streams over several chunks", 12345678901234567890]',
    '{"not": ["an", "array", "root"]}',
    '"a root string"',
    '[1, {"open": [2, "cut off',
    '[{"a": 1}, 23',
]


def _run(chunks: Sequence[str], release: bool) -> tuple[list[PathEvent], list[Any], Any]:
    parser = JsonStream(events=True, release_items=release)
    events: list[PathEvent] = []
    lives: list[Any] = []
    for chunk in chunks:
        events += parser.feed_events(chunk)
        lives.append(detach(parser.value))
    events += parser.finish_events()
    return events, lives, detach(parser.value)


def _check(doc: str, chunks: Sequence[str]) -> None:
    plain, plain_lives, plain_final = _run(chunks, release=False)
    got, lives, final = _run(chunks, release=True)
    assert len(got) == len(plain)
    for mine, ref in zip(got, plain, strict=True):
        if type(ref) is ValueEnd and ref.path == ():
            assert mine == ValueEnd((), [] if isinstance(ref.value, list) else ref.value)
        else:
            assert type(mine) is type(ref)
            assert mine.path == ref.path
            assert_same(detach(mine[1]), detach(ref[1]), f"{doc!r} at {ref.path}")
    if not isinstance(plain_final, list):
        assert lives == plain_lives
        assert_same(final, plain_final)
        return
    for live in lives:
        assert live is UNSET or (isinstance(live, list) and len(live) <= 1)
    ended = {e.path[0] for e in got if type(e) is ValueEnd and len(e.path) == 1}
    kept = [item for k, item in enumerate(plain_final) if k not in ended]
    assert_same(final, kept, doc)


@pytest.mark.parametrize("doc", DOCS)
def test_same_events_and_bounded_live_value_for_every_split(doc: str) -> None:
    _check(doc, [doc])
    _check(doc, one_by_one(doc))
    for cut in range(len(doc) + 1):
        _check(doc, chunks_at(doc, [cut]))


def test_items_come_out_with_absolute_paths() -> None:
    doc = json.dumps([{"i": i, "text": "x" * (i % 5)} for i in range(50)])
    parser = JsonStream(events=True, release_items=True)
    items = []
    for k in range(0, len(doc), 7):
        for event in parser.feed_events(doc[k : k + 7]):
            if type(event) is ValueEnd and len(event.path) == 1:
                items.append((event.path[0], event.value))
        assert len(parser.value) <= 1
    assert parser.finish() == []
    assert items == list(enumerate(json.loads(doc)))
    assert parser.complete


def test_release_items_needs_events() -> None:
    with pytest.raises(ValueError, match="events=True"):
        JsonStream(release_items=True)


def test_lenient_and_release_items_together() -> None:
    parser = JsonStream(events=True, release_items=True, lenient=True)
    events = parser.feed_events("[1 2, 'x',]") + parser.finish_events()
    ends = [(e.path, e.value) for e in events if type(e) is ValueEnd]
    assert ends == [((0,), 1), ((1,), 2), ((2,), "x"), ((), [])]
    assert [r.kind for r in parser.repairs] == ["missing_comma", "single_quotes", "trailing_comma"]


def test_lenient_repairs_keep_a_bounded_window_and_a_count() -> None:
    """Issue 22: every repaired item added a Repair to ``repairs`` for good (+52 MB per
    100,000 items); with release_items the list keeps the last REPAIRS_KEPT."""
    parser = JsonStream(events=True, release_items=True, lenient=True)
    parser.feed_events("[")
    repaired = 0
    sizes = []
    tracemalloc.start()
    try:
        for i in range(5 * REPAIRS_KEPT):
            out = parser.feed_events(f"{{'n': {i},}},")  # single quotes and a trailing comma
            repaired += sum(type(e) is Repair for e in out)
            if i % REPAIRS_KEPT == REPAIRS_KEPT - 1:
                sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert repaired == 2 * 5 * REPAIRS_KEPT  # the events still carry every repair
    assert parser.repair_count == repaired
    assert len(parser.repairs) == REPAIRS_KEPT
    last = parser.repairs[-1]
    assert (last.kind, parser.repairs[-2].kind) == ("trailing_comma", "single_quotes")
    assert last.pos == parser.pos - 2  # the newest repair is kept, in stream order
    assert [r.pos for r in parser.repairs] == sorted(r.pos for r in parser.repairs)
    # memory stays flat once the window is full (it grew ~500 bytes per repair before)
    assert max(sizes[1:]) - sizes[1] < 64_000, sizes
    assert parser.finish() == []


def test_without_release_items_every_repair_is_kept() -> None:
    parser = JsonStream(lenient=True)
    parser.feed("[" + "'x'," * (REPAIRS_KEPT + 5) + "]")
    assert len(parser.repairs) == parser.repair_count == REPAIRS_KEPT + 6
    assert JsonStream().repair_count == 0


@given(
    st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids),
            max_leaves=6,
        ),
        max_size=6,
    ),
    st.lists(st.integers(min_value=0, max_value=400), max_size=6),
)
def test_any_array_any_chunking(items: list[Any], cuts: list[int]) -> None:
    doc = json.dumps(items)
    _check(doc, chunks_at(doc, [c % (len(doc) + 1) for c in cuts]))


# ------------------------------------------------------------------------------ memory

_CHILD = r"""
import json, sys
from unspool import JsonStream, ValueEnd

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)

def chunks():
    yield "["
    for i in range(100_000):
        item = {"type": "text", "text": "word " * 36, "n": i}
        yield json.dumps(item) + ("," if i < 99_999 else "]")

with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")
base = status("VmRSS")
parser = JsonStream(events=True, release_items=True)
on_c = type(parser) is not JsonStream
count = 0
fed = 0
for chunk in chunks():
    fed += len(chunk)
    for event in parser.feed_events(chunk):
        if type(event) is ValueEnd and len(event.path) == 1:
            assert event.path == (count,) and event.value["n"] == count
            count += 1
ok = parser.finish() == [] and count == 100_000 and fed > 20_000_000
ok = ok and on_c == (sys.argv[1] == "c")
print(json.dumps({"peak": status("VmHWM") - base, "ok": ok}))
"""


def test_a_reply_of_100000_items_streams_in_bounded_memory() -> None:
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("peak-RSS measurement needs Linux /proc/self/clear_refs")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("UNSPOOL_PURE", None)
    if machines.selected() == "python":  # the child runs this module's machine
        env["UNSPOOL_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, machines.selected()],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert report["peak"] < 8_000_000, f"peak {report['peak'] / 1e6:.1f} MB for 20 MB of items"

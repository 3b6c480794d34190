"""Coarse guards on cost and memory (absolute timings belong in bench/, not here).

* Linear cost: 4x the input costs well under 8x the time (a quadratic parser takes 16x),
  for an interleaved text/action document and a tool-call argument object holding a
  long code string, fed in 8-character chunks; and a 512 KB string streamed in
  4-character chunks through ``feed_events``.  Each time is the least thread CPU time of a few runs.
* Memory: streaming a ~20 MB document in 64 KB chunks peaks within 2x of what
  ``json.loads`` needs for it, and the parser does not keep consumed input (20 MB
  streamed into a tiny value stays under 8 MB of peak RSS).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.core import assert_same
from tests.support.cost import RATIO_LIMIT, best_time
from unspool import JsonStream, MalformedJSON, StringDelta, loads, repair
from unspool.core import _machines as machines


def interleaved_doc(size: int) -> str:
    """An array of text and action items (what an interleaved protocol streams), ~size chars."""
    items: list[Any] = []
    length = 0
    while length < size:
        n = len(items)
        if n % 3 == 2:
            item: dict[str, Any] = {
                "type": "action",
                "name": "search",
                "args": {"query": f"weather in city {n}", "limit": n % 7, "exact": n % 2 == 0},
            }
        else:
            item = {"type": "text", "text": f'Sentence {n} says something "quoted" é.\n'}
        items.append(item)
        length += len(json.dumps(item, ensure_ascii=False)) + 2
    return json.dumps(items, ensure_ascii=False)


def tool_args_doc(size: int) -> str:
    """One tool-call argument object whose ``code`` string is most of the document."""
    line = 'def handler(event):\n    return {"ok": True, "path": "C:\\\\tmp"}  # ok\n'
    code = (line * (size // len(line) + 1))[:size]
    return json.dumps({"path": "src/app.py", "code": code, "mode": "overwrite"})


def _feed_in_chunks(doc: str, size: int) -> Callable[[], Any]:
    chunks = [doc[i : i + size] for i in range(0, len(doc), size)]

    def run() -> Any:
        parser = JsonStream()
        for chunk in chunks:
            parser.feed(chunk)
        return parser.finish()

    return run


MIN_SMALL_SECONDS = 0.004
"""The smaller input grows (x4 at a time) until it takes this long: the C machine reads
64 KB in well under a millisecond, where a timer's and a scheduler's noise is a large
part of the measurement."""


def _assert_linear(make: Callable[[int], str], base: int, chunk: int) -> tuple[float, float]:
    small = make(base)
    assert_same(_feed_in_chunks(small, chunk)(), json.loads(small))
    t_small = best_time(_feed_in_chunks(small, chunk))
    for _ in range(3):
        if t_small >= MIN_SMALL_SECONDS:
            break
        base *= 4
        small = make(base)
        t_small = best_time(_feed_in_chunks(small, chunk))
    large = make(4 * base)
    t_large = best_time(_feed_in_chunks(large, chunk))
    assert t_large < RATIO_LIMIT * t_small, (
        f"4x the input took {t_large / t_small:.1f}x the time "
        f"({t_small * 1000:.1f} ms -> {t_large * 1000:.1f} ms)"
    )
    return t_small, t_large


def test_interleaved_document_costs_linear_time() -> None:
    _assert_linear(interleaved_doc, 64_000, 8)


def test_long_string_tool_args_cost_linear_time() -> None:
    _assert_linear(tool_args_doc, 64_000, 8)


def test_a_long_string_through_feed_events_is_linear() -> None:
    """A 128 KB and a 512 KB string: an extra copy of the text per 4-character chunk
    (one quadratic term) takes ~12x there, so it still fails clearly."""

    def make(size: int) -> tuple[str, str]:
        piece = 'lorem ipsum \\n dolor \\u00e9 sit \\"amet\\" '
        decoded = json.loads('"' + piece + '"')
        reps = size // len(piece) + 1
        return '{"text": "' + piece * reps + '"}', decoded * reps

    def stream(doc: str, expected: str) -> Callable[[], None]:
        chunks = [doc[i : i + 4] for i in range(0, len(doc), 4)]

        def run() -> None:  # every timed run also checks its text (no extra untimed runs)
            parser = JsonStream(events=True)
            pieces = []
            for chunk in chunks:
                for event in parser.feed_events(chunk):
                    if type(event) is StringDelta:
                        pieces.append(event.text)
            parser.finish()
            assert "".join(pieces) == expected

        return run

    small_doc, small_text = make(128 * 1024)
    large_doc, large_text = make(512 * 1024)
    t_small = best_time(stream(small_doc, small_text))
    t_large = best_time(stream(large_doc, large_text))
    assert t_large < RATIO_LIMIT * t_small, (
        f"4x the string took {t_large / t_small:.1f}x the time "
        f"({t_small * 1000:.0f} ms -> {t_large * 1000:.0f} ms)"
    )


# ------------------------------------------------------------------ adversarial inputs
#
# Each of these was quadratic once (issue 12): the cause, not only the case, is guarded.


def _assert_run_linear(make_run: Callable[[int], Callable[[], Any]], base: int) -> None:
    small, large = make_run(base), make_run(4 * base)
    t_small = best_time(small)
    t_large = best_time(large)
    assert t_large < RATIO_LIMIT * t_small, (
        f"4x the input took {t_large / t_small:.1f}x the time "
        f"({t_small * 1000:.1f} ms -> {t_large * 1000:.1f} ms)"
    )


def _chunked(doc: str, size: int, **options: Any) -> Callable[[], Any]:
    chunks = [doc[i : i + size] for i in range(0, len(doc), size)]

    def run() -> Any:
        parser = JsonStream(**options)
        for chunk in chunks:
            parser.feed(chunk)
        return parser.finish()

    return run


def test_a_root_string_streams_in_linear_time() -> None:
    """The root slot is released while the string grows, as a container's slot is."""
    assert _chunked('"' + "a" * 1000, 8)() == "a" * 1000
    _assert_run_linear(lambda n: _chunked('"' + "a" * n, 8), 100_000)


def test_fence_like_backticks_cost_linear_time() -> None:
    """A run of backticks: each fence opener looks for its info line's end within a bound."""

    def one_shot(n: int) -> Callable[[], Any]:
        text = "```" * (n // 3)

        def run() -> Any:
            with pytest.raises(MalformedJSON):
                loads(text)
            with pytest.raises(MalformedJSON):
                repair(text)

        return run

    _assert_run_linear(one_shot, 25_000)
    _assert_run_linear(lambda n: _chunked("```" * (n // 3), 8, skip_preamble=True), 25_000)
    _assert_run_linear(lambda n: _chunked("see {" + " " * n, 8, skip_preamble=True), 200_000)


def test_undecided_inner_quotes_cost_linear_time() -> None:
    """Every quote inside a lenient string is decided after a bounded lookahead."""
    assert _chunked('["' + 'a" b ' * 3 + '"]', 8, lenient=True)() == ['a" b a" b a" b ']
    _assert_run_linear(lambda n: _chunked('["' + 'a" b ' * (n // 5), 8, lenient=True), 50_000)
    far = 'a"' + " " * 200 + "b "  # each quote undecided over many chunks
    _assert_run_linear(lambda n: _chunked('["' + far * (n // len(far)), 8, lenient=True), 50_000)
    word = '"k": "a" ' + "w" * 300 + '", '  # an unquoted-key lookahead longer than its bound
    _assert_run_linear(lambda n: _chunked("{" + word * (n // len(word)), 8, lenient=True), 50_000)


LENIENT_WORST: dict[str, Callable[[int], str]] = {
    "a long unquoted value": lambda n: '{"a": ' + "word " * (n // 5) + "}",
    "many unquoted tokens": lambda n: "[" + "ab, " * (n // 4) + "]",
    "many near-miss escapes": lambda n: '["' + "\\q\\d\\u00zz" * (n // 10) + '"]',
    "many ellipses": lambda n: "[" + "1, ..., " * (n // 8) + "2]",
    "many curly strings": lambda n: "[" + "\u201cab\u201d, " * (n // 6) + "1]",
    "numbers glued to text": lambda n: "[" + "12ab, 1/3, 01, " * (n // 15) + "1]",
    "mistyped closers": lambda n: "[" + '[1} {"a": 2], ' * (n // 16) + "1]",
    "strings before items": lambda n: "[" + '"a" 1 "b" [2] ' * (n // 14) + "]",
    "literals in any case": lambda n: "[" + "TRUE, Null, " * (n // 12) + "1]",
    "commas in strings": lambda n: '["' + 'a, "b' * (n // 6) + '"]',
    "closers in strings": lambda n: '["' + "a} b] " * (n // 6) + '"]',
    "missing closing quotes": lambda n: "{" + '"k": "v, ' * (n // 9) + '"z": 1}',
    # the hold-out's repairs
    "one-word items then a word": lambda n: "[" + '"a" b", ' * (n // 8) + "1]",
    "quotes glued to words": lambda n: "{" + 'k": ab", ' * (n // 9) + '"z": 1}',
    "doubled closing quotes": lambda n: "[" + '"x "y"", ' * (n // 10) + "1]",
    "closers for two levels": lambda n: "{" + '"k": [{"a": 1], ' * (n // 16) + '"z": 1}',
    "line comments over closers": lambda n: "[1, // " + '}, "b" ' * (n // 7) + "\n2]",
    "Unicode spaces": lambda n: "[" + "1,\u00a0x\u3000, " * (n // 7) + "1]",
}


@pytest.mark.parametrize("name", sorted(LENIENT_WORST))
def test_each_lenient_repair_costs_linear_time(name: str) -> None:
    """The worst case of each repair of issue 13, fed in 8-character chunks."""
    make = LENIENT_WORST[name]
    assert _chunked(make(200), 8, lenient=True)() == _chunked(make(200), 10**9, lenient=True)()
    _assert_run_linear(lambda n: _chunked(make(n), 8, lenient=True), 20_000)


def test_deep_nesting_costs_linear_time_with_path_events() -> None:
    """Issue 22: each ValueStart / ValueEnd copied its whole path, so 4x the depth (and
    the input) took 12x (reference) to 18x (C) the time here.  32 arrays nested
    ``depth`` deep, in 4 KB chunks, the events dropped as they come (a path is built
    only when it is read); release_items lets each closed one go, so the measurement
    is not of the caches holding ever more of the value."""

    def make_run(depth: int) -> Callable[[], Any]:
        nest = "[" * depth + "]" * depth
        doc = "[" + ",".join([nest] * 32) + "]"
        chunks = [doc[i : i + 4096] for i in range(0, len(doc), 4096)]

        def run() -> Any:
            parser = JsonStream(events=True, max_depth=depth + 1, release_items=True)
            count = 0
            for chunk in chunks:
                count += len(parser.feed_events(chunk))
            assert count == 2 + 32 * 2 * depth
            return parser.finish()

        return run

    parser = JsonStream(events=True, max_depth=2000)
    events = parser.feed_events("[" + "[" * 1000 + "]" * 1000 + "]")
    assert events[1000].path == (0,) * 1000  # still the whole path, read as a tuple
    _assert_run_linear(make_run, 1000)


_DEEP_CHILD = r"""
import json, sys
from unspool import JsonStream

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)

doc = "[" + ("[" * 999 + "]" * 999 + ",") * 100  # the issue's 195 KiB input
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")
base = status("VmRSS")
events = JsonStream(events=True).feed_events(doc)  # every event kept
peak = status("VmHWM") - base
deepest = events[999].path
ok = len(events) == 199_801 and deepest == (0,) * 999 and type(deepest) is tuple
print(json.dumps({"peak": peak, "ok": ok}))
"""


def test_deep_path_events_take_little_memory() -> None:
    """Issue 22: the 195 KiB input's 199,801 events held 99.9 M path entries (432 MiB);
    with paths linked to their parent's they hold a few words each."""
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("peak-RSS measurement needs Linux /proc/self/clear_refs")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("UNSPOOL_PURE", None)
    if machines.selected() == "python":  # the child runs this module's machine
        env["UNSPOOL_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _DEEP_CHILD],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert report["peak"] < 64_000_000, f"peak {report['peak'] / 1e6:.1f} MB for 195 KiB"


# ------------------------------------------------------------------------------ memory
#
# Peak memory is measured as the peak RSS of a child process (Linux: the high-water
# mark is reset through /proc/self/clear_refs once the document is loaded), which costs
# nothing at run time; tracemalloc slows the parser down ~50x on a 20 MB stream.

_CHILD = r"""
import json, sys
from unspool import JsonStream

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)

mode, path = sys.argv[1], sys.argv[2]
doc = open(path, encoding="utf-8").read() if mode != "tiny" else ""

def tiny_chunks():
    yield '{"k": 0'
    member = ', "k": 1' + " " * 56
    block = member * (65536 // len(member))
    for _ in range(20_000_000 // len(block) + 1):
        yield block
    yield ', "last": "end"}'

with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")
base = status("VmRSS")
if mode == "loads":
    value = json.loads(doc)
elif mode == "stream":
    parser = JsonStream()
    for i in range(0, len(doc), 65536):
        parser.feed(doc[i : i + 65536])
    value = parser.finish()
else:
    parser = JsonStream()
    fed = 0
    for chunk in tiny_chunks():
        parser.feed(chunk)
        fed += len(chunk)
    value = parser.finish()
peak = status("VmHWM") - base
if mode == "stream":
    ok = value == json.loads(doc)
elif mode == "tiny":
    ok = value == {"k": 1, "last": "end"} and fed > 20_000_000
else:
    ok = True
print(json.dumps({"peak": peak, "ok": ok}))
"""


def _child_peak(mode: str, path: Path) -> int:
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("peak-RSS measurement needs Linux /proc/self/clear_refs")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("UNSPOOL_PURE", None)
    if machines.selected() == "python":  # the child runs this module's machine
        env["UNSPOOL_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["ok"] is True, f"{mode}: wrong value"
    return int(report["peak"])


def _structured_doc(size: int) -> str:
    record: dict[str, Any] = {
        "id": 0,
        "name": "item",
        "score": 0.5,
        "tags": ["alpha", "beta", "gamma"],
        "nested": {"ok": True, "note": None, "text": "some words in a sentence"},
    }
    one = len(json.dumps(record)) + 2
    records = []
    for i in range(size // one):
        copy = dict(record)
        copy["id"] = i
        copy["name"] = f"item {i} \u00e9"
        copy["score"] = i / 7
        records.append(copy)
    return json.dumps(records)


def test_streaming_20mb_peaks_within_2x_of_json_loads(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(_structured_doc(20_000_000), encoding="utf-8")
    loads_peak = _child_peak("loads", path)
    stream_peak = _child_peak("stream", path)
    assert stream_peak <= 2 * loads_peak, (
        f"streaming peaked at {stream_peak / 1e6:.0f} MB, json.loads at {loads_peak / 1e6:.0f} MB"
    )


def test_consumed_input_is_not_retained(tmp_path: Path) -> None:
    """20 MB of input whose value is tiny: the parser's memory stays small throughout."""
    peak = _child_peak("tiny", tmp_path)
    assert peak < 8_000_000, f"peak {peak / 1e6:.1f} MB while streaming 20 MB into a tiny value"

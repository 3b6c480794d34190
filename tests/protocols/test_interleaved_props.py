"""InterleavedParser properties: random arrays in random chunkings, and linear cost."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.chunking import merge_events, run_chunks
from tests.support.hypothesis_profiles import examples
from tests.support.interleaved import FENCE, FUZZ, T, complete, done, item_st, render, started
from unspool.events import Event, TextDelta
from unspool.protocols._interleaved import InterleavedParser


def expected_events(items: list[tuple[Any, ...]]) -> list[Event]:
    out: list[Event] = []
    text = ""
    index = 0
    for item in items:
        if item[0] == "text":
            text += item[1]
            continue
        if text:
            out.append(T(text))
            text = ""
        out += [started(index, item[1]), complete(index, item[1], item[2])]
        index += 1
    if text:
        out.append(T(text))
    chars = sum(len(item[1]) for item in items if item[0] == "text")
    return [*out, done("complete", index, 0, chars)]


def cut(data: Any, points: list[int]) -> list[Any]:
    bounds = sorted({p % (len(data) + 1) for p in points})
    edges = [0, *bounds, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(item_st, max_size=6),
    ensure_ascii=st.booleans(),
    spaced=st.booleans(),
    fenced=st.booleans(),
    as_bytes=st.booleans(),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_random_arrays_in_random_chunkings(
    items: list[tuple[Any, ...]],
    ensure_ascii: bool,
    spaced: bool,
    fenced: bool,
    as_bytes: bool,
    points: list[int],
) -> None:
    body = render(items, ensure_ascii, spaced)
    text = f"{FENCE}json\n{body}\n{FENCE}" if fenced else body
    data: Any = text.encode() if as_bytes else text
    events = run_chunks(InterleavedParser(stream_id="stream"), cut(data, points))
    core = [e for e in merge_events(events) if type(e).__name__ != "Diagnostic"]
    assert core == expected_events(items)
    # text arrives decoded, never as a lone surrogate, and each character once
    pieces = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(pieces) == "".join(item[1] for item in items if item[0] == "text")
    assert not any("\ud800" <= ch <= "\udfff" for piece in pieces for ch in piece)
    diagnostics = [e for e in events if type(e).__name__ == "Diagnostic"]
    assert len(diagnostics) == (2 if fenced else 0)


def build_reply(items: int) -> str:
    objs: list[dict[str, Any]] = []
    for i in range(items):
        objs.append({"type": "text", "content": f'Point {i}: see [{i}] and "quotes" é 中文 😀. '})
        objs.append(
            {
                "type": "action",
                "name": "wb_draw_table",
                "params": {"data": [["a", "b"], ["c", str(i)]], "latex": "\\sqrt[3]{x}"},
            }
        )
    return json.dumps(objs, ensure_ascii=False)


def best_time(text: str, size: int = 4, repeat: int = 3) -> float:
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()  # CPU time: other processes on the core do not count
        run_chunks(InterleavedParser(stream_id="stream"), chunks)
        best = min(best, time.thread_time() - start)
    return best


def test_linear_cost() -> None:
    small = build_reply(60)  # about 12 KB
    large = build_reply(240)
    assert len(large) > 3.9 * len(small)
    events = run_chunks(InterleavedParser(stream_id="stream"), [large])
    assert events[-1] == done(
        "complete",
        240,
        0,
        sum(len(f'Point {i}: see [{i}] and "quotes" é 中文 😀. ') for i in range(240)),
    )
    ratio = best_time(large) / best_time(small)
    assert ratio < 8, ratio


def test_linear_cost_with_many_rejected_candidates() -> None:
    def reply(k: int) -> str:
        return "Plain prose. " + ('x = [{"a": "' + "b" * 40 + '"} oops ') * k

    small, large = reply(150), reply(600)
    events = merge_events(run_chunks(InterleavedParser(stream_id="stream"), [large]))
    assert events == [T(large), done(chars=len(large))]
    ratio = best_time(large) / best_time(small)
    assert ratio < 8, ratio


FUZZ += ['"params"', '{"type":"text","content":"', '{"type":"action","name":"a","params":{']
FUZZ += ["```json\n", "```", "null", "false", "\\u00e9", "\\ud83d\\ude00", "//", "'", "True", "é"]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(FUZZ), max_size=40),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
    lenient=st.booleans(),
    prose=st.sampled_from(["stream", "hold"]),
)
def test_any_input_gives_the_same_events_for_every_chunking(
    pieces: list[str], points: list[int], lenient: bool, prose: str
) -> None:
    text = "".join(pieces)
    whole = run_chunks(InterleavedParser(lenient=lenient, prose=prose, stream_id="stream"), [text])  # type: ignore[arg-type]
    chunked = run_chunks(
        InterleavedParser(lenient=lenient, prose=prose, stream_id="stream"), cut(text, points)
    )  # type: ignore[arg-type]
    assert merge_events(chunked) == merge_events(whole)
    assert type(whole[-1]).__name__ == "StreamDone"
    assert sum(type(e).__name__ == "StreamDone" for e in whole) == 1
    started_ids = [e.id for e in whole if type(e).__name__ == "ActionStarted"]  # type: ignore[union-attr]
    ended_ids = [
        e.id  # type: ignore[union-attr]
        for e in whole
        if type(e).__name__ in ("ActionComplete", "ActionInvalid")
    ]
    assert len(set(ended_ids)) == len(ended_ids)
    assert set(started_ids) <= set(ended_ids)

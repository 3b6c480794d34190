"""Properties of the open-weights format reader, for every row of the table.

* Chunking independence: a transcript cut anywhere (text, or UTF-8 bytes cut inside
  characters) gives its exact events.
* Markup never reaches the text: no literal of the format is in any text or
  reasoning delta of the transcripts.
* Fuzz: documents built from each format's literals, JSON and Python fragments,
  prose and unicode never crash the reader, end every started action exactly once,
  give JSON-safe events, and read the same for every chunking.
* A coarse guard of the linear cost.
"""

from __future__ import annotations

import gc
import itertools
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.chunking import run_chunks
from tests.support.hypothesis_profiles import examples
from tests.support.transcripts import TRANSCRIPTS, summary
from unspool.events import ReasoningDelta, TextDelta, event_to_dict
from unspool.protocols._model_auto import AutoTagParser
from unspool.protocols._model_formats import MODEL_FORMATS, PEEKS, ModelFormat
from unspool.protocols._model_tags import ModelTagParser


def literals(fmt: ModelFormat) -> set[str]:
    """Every markup literal of a format: openers, closers, separators of the name,
    reasoning and section delimiters, dropped tokens."""
    out: set[str] = set(fmt.drop)
    for pair in (*fmt.reasoning, *fmt.sections):
        out.update(pair)
    for opener in fmt.calls:
        if opener.open:
            out.add(opener.open)
        stack: list[Any] = [opener.options]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend(item)
            elif isinstance(item, str) and len(item) > 2 and item[0] in "<[":
                out.add(item)
    return out


def _cut(text: str | bytes, points: list[int]) -> list[Any]:
    cuts = sorted({min(p, len(text)) for p in points})
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=examples(300))
@given(
    row=st.sampled_from(TRANSCRIPTS),
    points=st.lists(st.integers(0, 400), max_size=12),
    as_bytes=st.booleans(),
)
def test_any_chunking_gives_the_exact_events(
    row: tuple[str, str, str, list[Any]], points: list[int], as_bytes: bool
) -> None:
    fmt, _, reply, expected = row
    text: str | bytes = reply.encode() if as_bytes else reply
    events = run_chunks(ModelTagParser(fmt, stream_id="s"), _cut(text, points))
    assert summary(events) == expected


@pytest.mark.parametrize("row", TRANSCRIPTS, ids=[f"{r[0]}-{r[1]}" for r in TRANSCRIPTS])
def test_markup_never_in_text(row: tuple[str, str, str, list[Any]]) -> None:
    fmt, _, reply, _ = row
    lits = literals(MODEL_FORMATS[fmt])
    for chunks in ([reply], list(reply)):
        events = run_chunks(ModelTagParser(fmt, stream_id="s"), chunks)
        shown = "".join(e.text for e in events if isinstance(e, (TextDelta, ReasoningDelta)))
        leaked = sorted(lit for lit in lits if lit in shown)
        assert not leaked, (leaked, shown)


_FRAGMENTS = [
    "Hello",
    " ",
    "\n",
    "é✓🚀",
    "<",
    ">",
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    ",",
    ":",
    ";",
    "(",
    ")",
    "=",
    "```",
    "```json\n",
    '{"name": "f", "arguments": {"a": [1, "x"]}}',
    '{"name": "g", "parameters": {}}',
    '{"a": 1}',
    "f(a=1, b='x')",
    "[f(a=None)]",
    "get_weather",
    "functions.f:0",
    "function",
    "<function=f>",
    "<parameter=a>",
    "</parameter>",
    "</function>",
    "<arg_key>k</arg_key>",
    "<arg_value>v</arg_value>",
    "commentary to=functions.f ",
    "analysis",
    "final",
    "<|message|>",
    "[CALL_ID]",
    "[ARGS]",
    "true",
    "None",
]


def _documents(fmt: ModelFormat) -> st.SearchStrategy[str]:
    pieces = sorted(literals(fmt)) + _FRAGMENTS
    return st.lists(st.sampled_from(pieces), max_size=24).map("".join)


def _parser(name: str) -> ModelTagParser | AutoTagParser:
    return AutoTagParser(stream_id="s") if name == "auto" else ModelTagParser(name, stream_id="s")


def _auto_documents() -> st.SearchStrategy[str]:
    pieces = sorted(set().union(*(literals(f) for f in MODEL_FORMATS.values()))) + _FRAGMENTS
    return st.lists(st.sampled_from(pieces), max_size=24).map("".join)


@settings(max_examples=examples(400))
@given(data=st.data(), name=st.sampled_from([*sorted(MODEL_FORMATS), "auto"]))
def test_fuzz_never_crashes_and_is_chunking_independent(data: st.DataObject, name: str) -> None:
    docs = _auto_documents() if name == "auto" else _documents(MODEL_FORMATS[name])
    doc = data.draw(docs)
    points = data.draw(st.lists(st.integers(0, len(doc)), max_size=8))
    whole = run_chunks(_parser(name), [doc])
    for event in whole:
        json.dumps(event_to_dict(event))
    expected = summary(whole)  # also checks each started action ends exactly once
    assert summary(run_chunks(_parser(name), _cut(doc, points))) == expected
    assert summary(run_chunks(_parser(name), list(doc))) == expected
    assert summary(run_chunks(_parser(name), _cut(doc.encode(), points))) == expected


def _reply(name: str, calls: int) -> str:
    example = MODEL_FORMATS[name].example
    return ("Some prose here. " + example + "\n") * calls


@pytest.mark.parametrize("name", sorted(MODEL_FORMATS))
def test_cost_is_linear(name: str) -> None:
    def cost(calls: int) -> float:
        reply = _reply(name, calls)
        chunks = [reply[i : i + 16] for i in range(0, len(reply), 16)]
        best = float("inf")
        gc.disable()
        try:
            for _ in range(5):
                parser = ModelTagParser(name, stream_id="s")
                t0 = time.process_time()  # CPU time: other processes' load does not count
                for chunk in chunks:
                    parser.feed(chunk)
                parser.finish()
                best = min(best, time.process_time() - t0)
        finally:
            gc.enable()
        return best

    # 4x the input: linear is 4x the time; a cost per feed that grows with what came
    # before would be about 16x (seconds at this size), far past the bound
    small, large = cost(100), cost(400)
    assert large < 10 * small + 0.1, (small, large)


@pytest.mark.parametrize("name", sorted(MODEL_FORMATS))
def test_bench_replies_read_whole(name: str) -> None:
    """The bench's replies (prose and calls with nested arguments, as each family writes
    them) read every call whatever the chunking, with no markup in the text."""
    sec = pytest.importorskip("bench.sec_formats")
    text = sec.reply(name, 5)
    lits = literals(MODEL_FORMATS[name])
    for size in (1, 3, 8, len(text)):
        events = run_chunks(_parser(name), [text[i : i + size] for i in range(0, len(text), size)])
        assert sum(e[0] == "call" for e in summary(events)) == 5
        shown = "".join(e.text for e in events if isinstance(e, (TextDelta, ReasoningDelta)))
        assert not [lit for lit in lits if lit in shown]


@pytest.mark.parametrize("row", TRANSCRIPTS, ids=[f"{r[0]}-{r[1]}" for r in TRANSCRIPTS])
def test_only_a_literal_prefix_is_held(row: tuple[str, str, str, list[Any]]) -> None:
    """Outside calls, what waits after each character is a proper prefix of one of the
    format's literals, or the undecided start of a shape the reply may open with
    (bounded)."""
    fmt, _, reply, _ = row
    lits = literals(MODEL_FORMATS[fmt])
    parser = ModelTagParser(fmt, stream_id="s")
    for ch in reply:
        parser.feed(ch)
        held = parser.held
        if held:
            prefix = any(lit.startswith(held) and lit != held for lit in lits)
            peeks = [PEEKS[o.peek] for o in MODEL_FORMATS[fmt].calls if o.peek]
            assert prefix or any(peek(held) is None for peek in peeks), held


_XML = {"qwen3_coder", "seed_oss", "glm45"}
_KEYS = st.text(alphabet="abcdefghij_", min_size=1, max_size=6)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.text(max_size=12))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=8,
)
_XML_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<\r\n"),
    max_size=12,
).map(lambda s: "s:" + s)  # never JSON: the parameter stays a string without a schema


@settings(max_examples=examples(300))
@given(data=st.data(), name=st.sampled_from(sorted(MODEL_FORMATS)))
def test_written_calls_read_back(data: st.DataObject, name: str) -> None:
    """A call written as the family writes it (nested, unicode, markup-like strings),
    between two texts, cut anywhere, reads back as exactly that call."""
    row = MODEL_FORMATS[name]
    if name in _XML:
        value = st.one_of(_XML_TEXT, st.integers(), st.lists(st.integers(), max_size=3))
        args = data.draw(st.dictionaries(_KEYS, value, max_size=4))
    else:
        args = data.draw(st.dictionaries(_KEYS, _VALUES, max_size=4))
    call = row.write("do_it", args)
    peek_only = all(o.peek for o in row.calls)
    doc = (call if peek_only else "Before. " + call) + " After."
    points = data.draw(st.lists(st.integers(0, len(doc)), max_size=6))
    got = summary(run_chunks(_parser(name), _cut(doc, points)))
    calls = [e for e in got if e[0] in ("call", "invalid")]
    assert calls == [("call", "do_it", args)], (doc, got)
    assert "".join(e[1] for e in got if e[0] == "text").endswith("After.")


@pytest.mark.parametrize("name", sorted(MODEL_FORMATS))
def test_a_flood_after_an_opener_costs_linear(name: str) -> None:
    """One character at a time after each opener (blanks, or a name that never ends):
    nothing held is joined again on every feed."""
    openers = [o.open for o in MODEL_FORMATS[name].calls if o.open]

    def cost(n: int, filler: str) -> float:
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            for opener in openers:
                parser = ModelTagParser(name, stream_id="s")
                parser.feed(opener)
                for _ in range(n):
                    parser.feed(filler)
                parser.finish()
            best = min(best, time.process_time() - t0)
        return best

    for filler in (" ", "x"):
        small, large = cost(5000, filler), cost(20000, filler)
        assert large < 10 * small + 0.1, (filler, small, large)


@pytest.mark.parametrize(
    ("name", "opener", "item", "close"),
    [
        ("xlam", "", '{"name": "f", "arguments": {"a": [1, {"b": "x"}]}}', "]"),
        ("jamba", "<tool_calls>", '{"name": "f", "arguments": {"a": [1]}}', "]</tool_calls>"),
        ("mistral", "[TOOL_CALLS]", '{"name": "f", "arguments": {"a": [1]}}', "]"),
        ("pythonic", "", "f(a=[1, {'b': 'x'}])", "]"),
    ],
)
def test_many_calls_in_one_list_cost_linear(name: str, opener: str, item: str, close: str) -> None:
    """One region holding many calls: the work per character does not grow with the
    calls before it."""

    def cost(calls: int) -> float:
        reply = opener + "[" + ", ".join([item] * calls) + close
        chunks = [reply[i : i + 8] for i in range(0, len(reply), 8)]
        best = float("inf")
        for _ in range(3):
            parser = ModelTagParser(name, stream_id="s")
            t0 = time.process_time()
            for chunk in chunks:
                parser.feed(chunk)
            assert parser.finish()[-1].actions_complete == calls  # type: ignore[attr-defined]
            best = min(best, time.process_time() - t0)
        return best

    small, large = cost(300), cost(1200)
    assert large < 10 * small + 0.1, (small, large)

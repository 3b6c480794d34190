"""The C machine against the pure-Python reference: differential, selection, leaks.

The differential test feeds the same random documents (valid JSON, and JSON with
random edits: inserted, deleted or replaced characters, invalid UTF-8 bytes,
truncation) under the same random chunking (str, or UTF-8 bytes cut anywhere) and
the same random options to both machines, and compares after every feed the value,
the events, ``pos``, ``complete``, ``tail`` and any error (class, message, ``pos``,
``partial``) exactly.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.lenient_cases import CASES
from tests.support import lenient_table as table
from tests.support.core import chunks_at, cut_points, detach, json_docs, mismatch
from tests.support.hypothesis_profiles import examples
from tests.support.lenient_writer import documents as dirty_documents
from tests.support.machines import MACHINES, on_machine
from tests.support.paths import ROOT
from unspool import UNSET, JsonStream, MalformedJSON, StringDelta, ValueEnd, ValueStart
from unspool.core import _machines as machines
from unspool.core._errors import REENTRY
from unspool.core._lexicon import LENIENT_KINDS

REQUIRED = os.environ.get("UNSPOOL_REQUIRE_SPEEDUPS") == "1"
SANITIZED = (
    os.environ.get("UNSPOOL_SANITIZED") == "1"
)  # scripts/sanitize.sh: memory is not ours to measure

if not machines.AVAILABLE:
    if REQUIRED:
        raise RuntimeError("UNSPOOL_REQUIRE_SPEEDUPS=1 but unspool.core._speedups is not built")
    pytest.skip(
        "the C machine is not built here (no compiler at install time)", allow_module_level=True
    )

DIFF = settings(
    max_examples=int(os.environ.get("UNSPOOL_DIFF_EXAMPLES", "0")) or examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""The differential budget: the profile's (400 in CI), or ``$UNSPOOL_DIFF_EXAMPLES``."""


def make(machine: str, **options: Any) -> JsonStream:
    """A parser on the given machine, whatever the current selection."""
    with on_machine(machine):
        return JsonStream(**options)


def _reject_long(text: str) -> int:
    if len(text) > 6:
        raise ValueError(f"{len(text)} digits")
    return int(text)


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "events": st.booleans(),
        "trailing": st.sampled_from([None, "error", "ignore"]),
        "allow_inf_nan": st.booleans(),
        "max_depth": st.sampled_from([1, 2, 3, 8, 1000]),
        "max_token_chars": st.sampled_from([None, 0, 2, 5, 40]),
        "max_document_chars": st.sampled_from([None, 0, 7, 60]),
        "max_int_digits": st.sampled_from([1, 5, 30, 4300, 10000]),
        "parse_float": st.sampled_from([None, Decimal]),
        "parse_int": st.sampled_from([None, _reject_long, str]),
        "release_items": st.booleans(),
    },
).map(lambda options: {**options, "events": True} if options.get("release_items") else options)
"""Options of both machines (``release_items`` needs ``events``: it brings them along)."""

SNIPPETS = st.sampled_from(
    [
        "{", "}", "[", "]", ":", ",", '"', "\\", " ", "\n", "0", "-", "1", ".", "e", "E", "+",
        "t", "tru", "true", "f", "n", "null", "N", "NaN", "I", "Infinity", "-Infinity", "x",
        "\\u", "\\ud83d", "\\ude00", "\\uDC0", "\\x", "\x00", "\x1f", "é", "😀", "\ufeff",
        '"k":', '{"a":', "[1,", "00", "1e", "-0.", "12345678901234567890",
    ]
)  # fmt: skip


NARROW = st.text(alphabet='ab ßé\xff\u0100\n\\"', max_size=10)
"""Strings of few kinds: ASCII, Latin-1 and one UCS-2 character (the C machine keeps the
narrowest str kind as a string grows across chunks of different kinds)."""

NARROW_DOCS = st.recursive(
    st.one_of(NARROW, st.integers(-5, 5)),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(NARROW, children, max_size=3)
    ),
    max_leaves=8,
).map(lambda value: json.dumps(value, ensure_ascii=False))


ITEMS = st.lists(st.one_of(json_docs(unique_keys=False), NARROW_DOCS), max_size=6).map(
    lambda items: "[" + ",".join(items) + "]"
)
"""A root array of documents (the shape ``release_items`` works on)."""


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A JSON document, often with a few random edits."""
    doc = draw(st.one_of(json_docs(unique_keys=False), NARROW_DOCS, ITEMS))
    ops = ["insert", "delete", "replace", "truncate"]
    return _edited(draw, doc, SNIPPETS, ops, draw(st.integers(0, 3)))


def _edited(
    draw: st.DrawFn, doc: str, snippets: st.SearchStrategy[str], ops: list[str], times: int
) -> str:
    """``doc`` after ``times`` random edits drawn from ``ops`` (insert, delete or replace
    a snippet at a random place, or truncate there)."""
    for _ in range(times):
        at = draw(st.integers(0, len(doc)))
        op = draw(st.sampled_from(ops))
        if op == "insert":
            doc = doc[:at] + draw(snippets) + doc[at:]
        elif op == "delete":
            doc = doc[:at] + doc[at + 1 :]
        elif op == "replace":
            doc = doc[:at] + draw(snippets) + doc[at + 1 :]
        else:
            doc = doc[:at]
    return doc


LENIENT = st.one_of(
    st.just(True),
    st.sets(st.sampled_from(sorted(LENIENT_KINDS)), min_size=1).map(frozenset),
    st.lists(st.sampled_from(sorted(LENIENT_KINDS)), min_size=1, max_size=4),
)
"""``lenient=``: every kind, or a random subset of them."""

LENIENT_OPTIONS = st.fixed_dictionaries(
    {"lenient": LENIENT},
    optional={
        "events": st.booleans(),
        "trailing": st.sampled_from([None, "error", "ignore"]),
        "allow_inf_nan": st.booleans(),
        "max_depth": st.sampled_from([1, 2, 3, 8, 1000]),
        "max_document_chars": st.sampled_from([None, 0, 7, 60]),
        "max_int_digits": st.sampled_from([1, 5, 30, 4300]),
        "parse_float": st.sampled_from([None, Decimal]),
        "parse_int": st.sampled_from([None, _reject_long, str]),
        "release_items": st.booleans(),
        "skip_preamble": st.booleans(),
    },
).map(lambda options: {**options, "events": True} if options.get("release_items") else options)
"""Lenient options the C machine runs (every option but ``max_token_chars``; with
``skip_preamble`` the Python machine it hands the stream over to skips the preamble)."""

PROSE = st.sampled_from(
    ["", "Sure! Here is the JSON:\n", "Result: ", "I think {maybe} ", "```json\n", "<json>",
     "Here [1] is it: ", "Done.", "\n```\nHope it helps!", " {\"not\": 1} ", "json "]
)  # fmt: skip
"""Text a model writes around a JSON value (preambles and epilogues)."""

LENIENT_SNIPPETS = st.sampled_from(
    [
        "'", "//", "/*", "*/", "# ", "\n", "True", "None", "NaN", "-Infinity", "TRUE", ",", ",,",
        "]", "}", "]}", "\u201c", "\u201d", "\u2018", "\u2019", "...", "\u2026", "```", "``",
        "\u00a0", "\u3000", "\\'", "\\q", "undefined", "New York", "01", "1.5.2", "x:", "ab",
        '"', '""', '" ', '",', '":', '"}', "\t", "\x01", "+", "`", " ", "{", "[", ":",
        '"a": ', "a b", "1/3", "/", "http://x", "\\u12", "\\ud83d", "2024-01-15", "<",
    ]
)  # fmt: skip
"""What models break JSON with (inserted or replaced at random places)."""


KNOWN_CASES = sorted(
    {text for _, text, _ in CASES}
    | {case.text for case in table.CASES}
    | {
        row[0]
        for rows in (
            table.POSITIONS,
            table.NOT_REPAIRED,
            table.CHUNKING_REGRESSIONS,
            table.PROFILE_REGRESSIONS,
            table.HOLDOUT_REGRESSIONS,
            table.HOLDOUT_REFUSED,
            table.FENCED,
        )
        for row in rows
    }
)
"""The texts of the lenient bench and of the lenient table's cases and regressions."""


@st.composite
def broken_documents(draw: st.DrawFn) -> str:
    """A document broken the way models break JSON: written with random deviations
    (``tests.support.lenient_writer``), a known case (:data:`KNOWN_CASES`), or valid JSON with
    random edits; often truncated or put in a fence."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        doc = draw(dirty_documents())[1]
    elif kind == 1:
        doc = draw(st.sampled_from(KNOWN_CASES))
    else:
        doc = draw(st.one_of(json_docs(unique_keys=False), NARROW_DOCS, ITEMS))
    ops = ["insert", "insert", "delete", "replace"]
    doc = _edited(draw, doc, LENIENT_SNIPPETS, ops, draw(st.integers(0 if kind < 2 else 1, 4)))
    if draw(st.integers(0, 4)) == 0:
        doc = doc[: draw(st.integers(0, len(doc)))]
    if draw(st.integers(0, 9)) == 0:
        doc = "```json\n" + doc + "\n```"
    if draw(st.integers(0, 19)) == 0:
        doc = json.dumps(doc)  # escaped JSON
    if draw(st.integers(0, 3)) == 0:
        doc = draw(PROSE) + doc + draw(PROSE)  # for skip_preamble
    return doc


def _plain(value: Any) -> Any:
    """Events as nested lists, so :func:`mismatch` compares them type-exactly."""
    if isinstance(value, tuple):
        return [type(value).__name__, *(_plain(v) for v in value)]
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return [_plain(v) for v in value]  # a list of events (JSON values hold no tuples)
    return detach(value)


def _run(machine: str, chunks: list[Any], options: dict[str, Any]) -> Iterator[Any]:
    """What a consumer sees, step by step: one record per feed and one for finish()."""
    parser = make(machine, **options)
    assert (type(parser) is JsonStream) == (machine == "python")
    events = options.get("events", False)
    for chunk in [*chunks, None]:
        try:
            if chunk is None:
                got = parser.finish_events() if events else parser.finish()
            else:
                got = parser.feed_events(chunk) if events else parser.feed(chunk)
        except MalformedJSON as err:
            left = parser.take_events() if events else []
            yield [
                "error",
                type(err).__name__,
                str(err),
                err.pos,
                _plain(err.partial),
                _plain(left),
                parser.pos,
                _plain(parser.value),
                _plain(list(parser.repairs)),
            ]
            try:
                parser.finish()
            except MalformedJSON as again:
                yield ["again", again is err]
            return
        except ArithmeticError as err:
            # a parse hook's own error (Decimal("1e1000000000000000000")): it propagates
            yield ["hook error", type(err).__name__, parser.pos]
            return
        yield [
            "ok",
            _plain(got),
            _plain(parser.value),
            parser.pos,
            parser.complete,
            parser.tail,
            parser.finished,
            _plain(list(parser.repairs)),
        ]  # lists, so mismatch() compares the values inside type-exactly (NaN too)


def _chunking(data: st.DataObject, doc: str) -> list[Any]:
    if data.draw(st.booleans(), label="bytes"):
        raw = doc.encode("utf-8", "surrogatepass")
        if data.draw(st.integers(0, 5), label="bad utf-8") == 0:
            at = data.draw(st.integers(0, len(raw)), label="at")
            bad = data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe2\x82"]))
            raw = raw[:at] + bad + raw[at:]
        if data.draw(st.integers(0, 9), label="bom") == 0:
            raw = b"\xef\xbb\xbf" + raw
        return chunks_at(raw, data.draw(cut_points(len(raw), max_cuts=16), label="byte cuts"))
    return chunks_at(doc, data.draw(cut_points(len(doc), max_cuts=16), label="cuts"))


def _same_steps(chunks: list[Any], options: dict[str, Any]) -> None:
    """Both machines give the same record at every step (the first difference fails)."""
    reference = list(_run("python", chunks, options))
    ours = list(_run("c", chunks, options))
    for step, (a, b) in enumerate(zip(ours, reference, strict=False)):
        problem = mismatch(a, b)
        assert problem is None, f"step {step} ({chunks[: step + 1]!r}): {problem}\nC: {a}\npy: {b}"
    assert len(ours) == len(reference)


@DIFF
@given(doc=documents(), options=OPTIONS, data=st.data())
def test_both_machines_agree_exactly(
    doc: str, options: dict[str, Any], data: st.DataObject
) -> None:
    _same_steps(_chunking(data, doc), options)


@DIFF
@given(doc=broken_documents(), options=LENIENT_OPTIONS, data=st.data())
def test_both_machines_agree_exactly_in_lenient_mode(
    doc: str, options: dict[str, Any], data: st.DataObject
) -> None:
    """Lenient options on broken documents: the C machine (and the Python machine it
    hands a stream over to) against the reference, step by step, repairs included."""
    _same_steps(_chunking(data, doc), options)


@settings(max_examples=examples(60), deadline=None)
@given(
    doc=st.one_of(json_docs(unique_keys=False), NARROW_DOCS, broken_documents()),
    size=st.integers(1, 9),
)
def test_both_machines_agree_on_every_small_chunking_in_lenient_mode(doc: str, size: int) -> None:
    """Fixed-size chunks, ``lenient=True`` as loads() and repair() use it, events on."""
    chunks = [doc[k : k + size] for k in range(0, len(doc), size)]
    for options in ({"events": True, "lenient": True}, {"lenient": True, "skip_preamble": True}):
        _same_steps(chunks, options)


AFTER_CUT = [
    "\u00a0", "\x0b", "\x1c", " \u3000", "`", "]}", "} ]", " " * 300 + "y", "\x01", "\u00e9",
    ", " * 3, "," + " " * 64 + '"', "," + " " * 65 + '"', "," + " " * 70, ',"b":', ', "c", ',
]  # fmt: skip
"""What may follow a ``,`` ``]`` or ``}`` inside a string value: the C machine decides
the commonest cases without the reference's ``_string_cut``, the rest it asks."""


@pytest.mark.parametrize("after", AFTER_CUT)
@pytest.mark.parametrize("cut", [",", "]", "}"])
@pytest.mark.parametrize("shape", ['{{"a": "x{0}{1}', '["x{0}{1}', '"x{0}{1}'])
def test_a_missing_quote_is_decided_alike_at_every_split(shape: str, cut: str, after: str) -> None:
    """Every two-chunk split of a string value holding ``cut`` then ``after`` (and the
    same followed by a closing quote): both machines give the same steps."""
    for doc in (shape.format(cut, after), shape.format(cut, after) + '"]}'):
        for k in range(len(doc) + 1):
            _same_steps([doc[:k], doc[k:]], {"events": True, "lenient": True})


@pytest.mark.parametrize("trailing", [None, "error", "ignore"])
@pytest.mark.parametrize(
    "doc", ['```json\n{"a": 1, "b": 2,}\n```', "Sure: [1, 2] ok", "Here: {'a': 'b'}", "no json"]
)
def test_a_preamble_is_skipped_alike_with_every_trailing_option(
    doc: str, trailing: str | None
) -> None:
    """Regression: ``skip_preamble`` makes ``trailing=None`` mean "ignore", and only then."""
    options = {"lenient": True, "skip_preamble": True, "trailing": trailing}
    for k in range(len(doc) + 1):
        _same_steps([doc[:k], doc[k:]], options)


def test_latin1_text_continues_a_string_of_ascii() -> None:
    """Regression: a Latin-1 chunk continuing or opening an ASCII string."""
    chunks = ['["stra', 'ße", "so', 'ße", "éé', 'xyz", "\u0100', 'ab"]']
    assert mismatch(list(_run("c", chunks, {})), list(_run("python", chunks, {}))) is None
    assert make("c").feed("".join(chunks)) == ["straße", "soße", "ééxyz", "\u0100ab"]


@settings(max_examples=examples(60), deadline=None)
@given(doc=st.one_of(json_docs(unique_keys=False), NARROW_DOCS), size=st.integers(1, 9))
def test_both_machines_agree_on_every_small_chunking(doc: str, size: int) -> None:
    """Fixed-size chunks of a valid document, events on: identical step by step."""
    chunks = [doc[k : k + size] for k in range(0, len(doc), size)]
    options = {"events": True}
    assert mismatch(list(_run("c", chunks, options)), list(_run("python", chunks, options))) is None


def test_selection() -> None:
    assert machines.selected() in MACHINES
    assert type(make("c")) is not JsonStream
    assert isinstance(make("c"), JsonStream)
    assert type(make("python")) is JsonStream
    # configurations the C machine does not run go to the reference machine
    assert type(make("c", lenient=True)) is not JsonStream
    assert type(make("c", lenient=["comment", "nan"])) is not JsonStream
    assert type(make("c", lenient=True, max_token_chars=5)) is JsonStream
    assert type(make("c", skip_preamble=True)) is JsonStream
    assert type(make("c", skip_preamble=True, lenient=True)) is not JsonStream
    assert type(make("c", skip_preamble=True, lenient=[])) is JsonStream
    assert type(make("c", max_depth=2**70)) is JsonStream
    assert type(make("c", max_token_chars=-1)) is JsonStream
    assert type(make("c", events=True, release_items=True)) is not JsonStream
    assert type(make("c", events=True, release_items=True, lenient=True)) is not JsonStream

    class Mine(JsonStream):
        pass

    machines.select("c")
    try:
        assert type(Mine()) is Mine
    finally:
        machines.select("python" if not machines.ACCELERATED else "c")
    with pytest.raises(ValueError):
        machines.select("rust")


def test_invalid_options_fail_like_the_reference() -> None:
    for options in (
        {"trailing": "sometimes"},
        {"max_depth": 0},
        {"bogus": 1},
        {"release_items": True},
        {"release_items": True, "events": False},
        {"lenient": ["comment", "bogus"]},
        {"lenient": ["comment"], "trailing": "sometimes"},
    ):
        with pytest.raises((ValueError, TypeError)) as c_err:
            make("c", **options)
        with pytest.raises((ValueError, TypeError)) as py_err:
            make("python", **options)
        assert str(c_err.value) == str(py_err.value)


def test_the_c_type_overrides_every_public_name() -> None:
    """A public method or property added to JsonStream must be added to the C type too
    (else the C type would inherit a Python method reading slots it never sets)."""
    c_type = type(make("c"))
    public = {name for name in dir(JsonStream) if not name.startswith("_")}
    missing = sorted(name for name in public if name not in vars(c_type))
    assert not missing, f"the C machine lacks {missing}"


def test_accelerated_flag_follows_unspool_pure() -> None:
    code = "import unspool, unspool.core._machines as m; print(unspool.accelerated, m.selected())"
    env = {**os.environ, "UNSPOOL_PURE": "1"}
    pure = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert pure.stdout.split() == ["False", "python"], pure.stderr
    env.pop("UNSPOOL_PURE")
    default = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert default.stdout.split() == ["True", "c"], default.stderr


# --------------------------------------------------------------------------- leaks

LEAK_DOC = (
    '{"text": "hello \\u00e9\\ud83d\\ude00 world \\n", "n": [1, -2.5e3, 123456789012345678901234567890, '
    'true, false, null], "deep": [[{"k": "v"}]], "big": "' + "x" * 300 + '"}'
)


BROKEN: list[tuple[Any, dict[str, Any]]] = [
    ('{"a": [1, "x\\q', {}),
    ("[1, 2, 01]", {}),
    ('{"k": "' + "y" * 40 + '"}', {"max_token_chars": 10}),
    ('{"k' + "y" * 40 + '": 1}', {"max_token_chars": 10}),
    ("[[[[1]]]]", {"max_depth": 2}),
    ("[" + "7" * 50 + "]", {"max_int_digits": 10}),
    ('{"a": "b"} x', {}),
    ('{"a": "\\ud83d\\x"}', {}),
    (b'{"a": "\xc3\x28"}', {}),
    ('["abc", "def", "ghi"]', {"max_document_chars": 8}),
    ('["abc" "def"]', {}),
]
"""Inputs that fail in different places (each error path must release what it held)."""


LENIENT_BROKEN = [
    "{a: 'b', c: [1, 2,], // note\n d: True}",
    '{"a": "He said "hi" to me", "b": New York, "c": 007}',
    '{"city": "New York, "zip": "10001"}',
    '[{"a": 1], {"b": 2}}',
    '{"a": "x\ty", "b": \u201cq\u201d}',
    '{"a": [1, 2',
    '[1, 2, "abc',
]
"""Lenient inputs: each one handed over to the Python machine somewhere."""


def _cycle(machine: str, options: dict[str, Any]) -> None:
    parser = make(machine, **options)
    for k in range(0, len(LEAK_DOC), 7):
        parser.feed(LEAK_DOC[k : k + 7])
    parser.finish()
    if options.get("events"):
        parser.take_events()
    for text, limits in BROKEN:
        bad = make(machine, **options, **limits)
        with contextlib.suppress(MalformedJSON):
            for k in range(0, len(text), 3):
                bad.feed(text[k : k + 3])
            bad.finish()
    if options.get("release_items"):  # a root array: what release_items lets go of
        items = make(machine, **options)
        array = "[" + LEAK_DOC + ", " + LEAK_DOC + ', "x", [1, {"y": 2}], 3]'
        for k in range(0, len(array), 11):
            items.feed_events(array[k : k + 11])
        items.finish_events()
    if options.get("lenient"):
        for text in LENIENT_BROKEN:
            bad = make(machine, **options)
            with contextlib.suppress(MalformedJSON):
                for k in range(0, len(text), 3):
                    bad.feed_events(text[k : k + 3]) if options.get("events") else bad.feed(
                        text[k : k + 3]
                    )
                bad.finish()
    raw = make(machine, **options)
    data = LEAK_DOC.encode()
    for k in range(0, len(data), 5):
        raw.feed(data[k : k + 5])
    raw.finish()


@pytest.mark.skipif(SANITIZED, reason="AddressSanitizer's quarantine holds freed memory")
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"events": True, "trailing": "ignore"},
        {"events": True, "release_items": True},
        {"lenient": True},
        {"lenient": True, "events": True, "release_items": True},
    ],
)
def test_a_long_run_of_feeds_keeps_memory_flat(options: dict[str, Any]) -> None:
    for _ in range(50):
        _cycle("c", options)
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(100):
            _cycle("c", options)
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for _ in range(600):
            _cycle("c", options)
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert second - first < 64 * 1024, f"traced memory grew by {second - first} bytes"


def _rss_pages() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1])


@pytest.mark.skipif(
    SANITIZED or not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux), no ASan"
)
def test_rss_stays_flat_over_many_parsers() -> None:
    # In a child process: a test worker's RSS also moves with whatever other tests allocate.
    # The child imports this module by its name, from the repository's root.
    code = (
        "import importlib, sys; sys.path.insert(0, sys.argv[1]); "
        "print(importlib.import_module(sys.argv[2]).rss_growth())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), __name__],
        capture_output=True,
        text=True,
        check=True,
    )
    grown = int(out.stdout.strip().splitlines()[-1])
    assert grown < 4 * 1024 * 1024, f"RSS grew by {grown} bytes"


def rss_growth() -> int:
    """Bytes of RSS gained over 3000 parser cycles on the C machine, after a warm-up."""
    for _ in range(200):
        _cycle("c", {"events": True})
    gc.collect()
    before = _rss_pages()
    for _ in range(3000):
        _cycle("c", {"events": True})
    gc.collect()
    return (_rss_pages() - before) * os.sysconf("SC_PAGE_SIZE")


def _refcounts(machine: str, chunks: list[str]) -> list[tuple[str, int]]:
    parser = make(machine, events=True)
    for chunk in chunks:
        parser.feed_events(chunk)
    value = parser.finish()
    del parser
    gc.collect()
    counts: list[tuple[str, int]] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        children = list(node.values()) if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)) or (isinstance(child, str) and len(child) > 1):
                counts.append((repr(child)[:20], sys.getrefcount(child)))
            if isinstance(child, (dict, list)):
                stack.append(child)
        del children
    return counts


@pytest.mark.parametrize("size", [1, 3, 8, 1000])
def test_values_hold_no_extra_references(size: int) -> None:
    doc = (
        '{"a": ["str one", {"b": "str two \\n"}], "c": "' + "long " * 40 + '", "d": {"e": []}, '
        '"f": "tail'
    )
    chunks = [doc[k : k + size] for k in range(0, len(doc), size)]
    assert _refcounts("c", chunks) == _refcounts("python", chunks)
    parser = make("c")
    parser.feed('{"s": "grow')
    grown = parser.feed("ing")
    held = sys.getrefcount(grown["s"])  # the dict, the machine's buffer, the argument
    del parser
    released = sys.getrefcount(grown["s"])
    assert (held, released) == (3, 2)
    assert grown == {"s": "growing"}
    assert UNSET is make("c").value


# --------------------------------------------------------------------------- recycled events

RECYCLE_DOC = (
    '[{"type": "text", "content": "hello, streaming world"}, {"a": [1, 2.5, true, null]}, '
    '"plain", {"nested": {"deep": ["x", {"y": "z"}]}}, 12345678901234567890, "tail end"]'
)


def _feeds(machine: str, keep: str, size: int) -> tuple[list[Any], list[Any]]:
    """Events of RECYCLE_DOC fed ``size`` characters at a time: ``keep`` says what the
    consumer holds on to between feeds (``lists``, single ``events``, or ``nothing``).
    Returns what was held and, taken as plain data at once, every event."""
    parser = make(machine, events=True, release_items=True)
    held: list[Any] = []
    seen: list[Any] = []
    chunks = [RECYCLE_DOC[k : k + size] for k in range(0, len(RECYCLE_DOC), size)]
    for k, chunk in enumerate(chunks):
        got = parser.feed_events(chunk)
        seen.append(_plain(got))
        if keep == "lists" and k % 2 == 0:
            held.append(got)
        elif keep == "events" and got:
            held.append(got[k % len(got)])
    seen.append(_plain(parser.finish_events()))
    return held, seen


@pytest.mark.parametrize("size", [1, 4, 9])
@pytest.mark.parametrize("keep", ["lists", "events", "nothing"])
def test_events_a_consumer_keeps_never_change(keep: str, size: int) -> None:
    """The C machine reuses an event object (and a list) once the consumer let go of
    it: what the consumer still holds stays as it was handed over."""
    held_c, seen_c = _feeds("c", keep, size)
    held_py, seen_py = _feeds("python", keep, size)
    assert mismatch(seen_c, seen_py) is None
    assert mismatch(_plain(held_c), _plain(held_py)) is None
    assert [type(x) for x in held_c] == [type(x) for x in held_py]


def test_a_list_the_consumer_changed_is_safe_to_reuse() -> None:
    parser = make("c", events=True)
    mine = ValueStart(("mine",), "string")
    got = parser.feed_events('{"a": [1, ')
    got.append(mine)
    got.append("not an event")
    got.insert(0, StringDelta((), "x"))
    del got
    assert parser.feed_events('"b"]}') == [
        ValueStart(("a", 1), "string"),
        StringDelta(("a", 1), "b"),
        ValueEnd(("a", 1), "b"),
        ValueEnd(("a",), [1, "b"]),
        ValueEnd((), {"a": [1, "b"]}),
    ]
    assert mine == ValueStart(("mine",), "string")
    assert parser.finish_events() == []


def test_recycled_events_are_tracked_only_when_they_hold_a_container() -> None:
    parser = make("c", events=True)
    for chunk in ['[{"k": [1]}, ', '"s", {"d": {}}, ', "2, [], ", '"end"]']:
        for event in parser.feed_events(chunk):
            holds_container = isinstance(event[1], (dict, list))
            assert gc.is_tracked(event) == holds_container, event
    # a cycle through an event is collected
    got = parser.take_events()
    assert got == []
    cyclic = make("c", events=True)
    end = cyclic.feed_events('{"x": 1}')[-1]
    assert type(end) is ValueEnd and gc.is_tracked(end)
    end.value["me"] = end
    probe = [end.value]
    del end, cyclic
    gc.collect()
    assert probe[0]["me"].value is probe[0]  # still reachable through the probe
    probe.clear()
    gc.collect()


class _Reentrant:
    """A parse_float result whose release feeds the parser that made it."""

    parser: Any = None
    fed: list[Any] = []  # noqa: RUF012

    def __init__(self, text: str) -> None:
        self.text = text

    def __del__(self) -> None:
        if _Reentrant.parser is not None and not _Reentrant.parser.finished:
            _Reentrant.fed.append(_Reentrant.parser.feed_events(" "))


def test_releasing_a_value_may_feed_the_same_parser() -> None:
    """recycle() drops the values of the events it takes back, which may run code."""
    parser = make("c", events=True, release_items=True, parse_float=_Reentrant)
    _Reentrant.parser = parser
    _Reentrant.fed.clear()
    try:
        for chunk in ["[1.5, ", "2.5, ", "3.5, ", '"x"]']:
            parser.feed_events(chunk)
        parser.finish_events()
    finally:
        _Reentrant.parser = None
    assert parser.complete
    assert len(_Reentrant.fed) >= 2 and all(batch == [] for batch in _Reentrant.fed)


# --------------------------------------------------------------------------- re-entry


def _calling_back(machine: str, call: str) -> tuple[list[Any], Any]:
    """A parser whose parse_float hook calls the parser itself (and swallows what that
    raises): what each call raised, and the value the parser made regardless."""
    raised: list[Any] = []
    box: list[Any] = []

    def hook(text: str) -> float:
        parser = box[0]
        try:
            if call == "feed":
                parser.feed('{"a": [[[[')
            elif call == "finish":
                parser.finish()
            else:
                parser.feed_events("]")
        except ValueError as err:
            raised.append(str(err))
        return float(text)

    parser = make(machine, events=True, parse_float=hook)
    box.append(parser)
    parser.feed('[1.5, {"x": 2.5}, 3')
    parser.feed(".5]")
    return raised, [parser.finish(), parser.pos, parser.complete, _plain(parser.take_events())]


@pytest.mark.parametrize("call", ["feed", "finish", "feed_events"])
def test_a_parse_hook_cannot_run_the_machine_it_runs_in(call: str) -> None:
    """As a generator refuses to resume itself: the inner call fails, the outer goes on
    (on the C machine the inner call would otherwise change the state under the
    running machine)."""
    raised, made = _calling_back("c", call)
    assert raised == [REENTRY] * 3
    assert made[:3] == [[1.5, {"x": 2.5}, 3.5], 22, True]
    # the reference refuses the same calls before anything changes (pos, finished)
    assert _calling_back("python", call) == (raised, made)


def test_a_parse_hook_cannot_reinitialise_the_running_c_machine() -> None:
    box: list[Any] = []

    def hook(text: str) -> float:
        with pytest.raises(ValueError, match=r"^JsonStream is already running"):
            box[0].__init__()
        return float(text)

    parser = make("c", parse_float=hook)
    box.append(parser)
    assert parser.feed("[1.5, 2.5]") == [1.5, 2.5]
    assert parser.finish() == [1.5, 2.5]

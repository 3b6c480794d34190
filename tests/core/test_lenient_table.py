"""Lenient mode of the core, table-driven: what models write, what it reads as, what it repaired.

Every case gives the exact value and the exact list of repair kinds, and is fed
whole, split in two at every index, one character at a time and one byte at a
time: the value, the repairs (kinds *and* positions) and ``complete`` must be the
same every time.  The cases cover every deviation alone (at the start, middle and
end of a document, at the root and nested) and combined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.core import assert_same, chunks_at, detach, one_by_one, prefix_violation
from tests.support.lenient_table import (
    CASES,
    CC,
    CHUNKING_REGRESSIONS,
    CM,
    CQ,
    EL,
    FENCED,
    HOLDOUT_REFUSED,
    HOLDOUT_REGRESSIONS,
    IE,
    IQ,
    LC,
    LZ,
    MC,
    MQ,
    MV,
    MX,
    NAN,
    NN,
    NOT_REPAIRED,
    PL,
    POSITIONS,
    PROFILE_REGRESSIONS,
    SQ,
    TC,
    TR,
    UK,
    US,
    UV,
    XC,
    Case,
)
from unspool import JsonStream, MalformedJSON
from unspool.core._lexicon import LENIENT_KINDS
from unspool.core._path_events import Repair

PARAMS = [pytest.param(case, id=case.id) for case in CASES]


def test_the_table_is_large_and_covers_every_kind() -> None:
    assert len(CASES) >= 60
    assert len({case.id for case in CASES}) == len(CASES)
    seen = {kind for case in CASES for kind in case.kinds}
    assert seen == LENIENT_KINDS - {"escaped_json"}  # a one-shot repair: see test_oneshot
    combined = [case for case in CASES if len(set(case.kinds)) >= 3]
    assert len(combined) >= 8


@dataclass
class Outcome:
    value: Any
    repairs: list[Repair]
    complete: bool


def _run(chunks: Sequence[str | bytes]) -> Outcome:
    parser = JsonStream(lenient=True)
    for chunk in chunks:
        parser.feed(chunk)
    value = detach(parser.finish())
    return Outcome(value, list(parser.repairs), parser.complete)


def _check(got: Outcome, case: Case, how: str) -> None:
    assert_same(got.value, case.value, f"{case.id} {how}")
    assert tuple(r.kind for r in got.repairs) == case.kinds, how
    assert got.complete == (TR not in case.kinds), how


@pytest.mark.parametrize("case", PARAMS)
def test_whole(case: Case) -> None:
    _check(_run([case.text]), case, "whole")


@pytest.mark.parametrize("case", PARAMS)
def test_split_in_two_at_every_index(case: Case) -> None:
    whole = _run([case.text])
    for cut in range(len(case.text) + 1):
        got = _run(chunks_at(case.text, [cut]))
        _check(got, case, f"split at {cut}")
        assert got.repairs == whole.repairs, f"split at {cut}"


@pytest.mark.parametrize("case", PARAMS)
def test_one_char_and_one_byte_at_a_time(case: Case) -> None:
    whole = _run([case.text])
    by_char = _run(one_by_one(case.text))
    _check(by_char, case, "one char at a time")
    assert by_char.repairs == whole.repairs
    by_byte = _run(one_by_one(case.text.encode()))
    _check(by_byte, case, "one byte at a time")
    assert by_byte.repairs == whole.repairs  # the table is ASCII: bytes == chars


@pytest.mark.parametrize("case", PARAMS)
def test_repairs_are_also_path_events(case: Case) -> None:
    parser = JsonStream(lenient=True, events=True)
    events = parser.feed_events(case.text) + parser.finish_events()
    assert [e for e in events if isinstance(e, Repair)] == parser.repairs
    assert tuple(r.kind for r in parser.repairs) == case.kinds


# ------------------------------------------------------------------ exact positions


@pytest.mark.parametrize(("text", "expected"), POSITIONS)
def test_repair_positions(text: str, expected: list[tuple[str, int]]) -> None:
    assert [(r.kind, r.pos) for r in _run([text]).repairs] == expected
    assert [(r.kind, r.pos) for r in _run(one_by_one(text)).repairs] == expected


def test_repair_messages_say_what_was_done() -> None:
    repairs = _run(["{a: 'x', b: [True,]"]).repairs
    assert [r.message for r in repairs] == [
        "read an unquoted key",
        "read a single-quoted string",
        "read an unquoted key",
        "read True",
        "dropped a trailing comma",
        "closed 1 open container(s) at the end of input",
    ]


# ------------------------------------------------------------------ strictness per kind

PER_KIND = {
    # kind: (text, value with only that kind allowed, error position with every other kind)
    TC: ('{"a": [1, 2,]}', {"a": [1, 2]}, 12),
    SQ: ("{\"a\": 'x'}", {"a": "x"}, 6),
    UK: ('{"a": 1, b: 2}', {"a": 1, "b": 2}, 9),
    CM: ("[1, /* two */ 2]", [1, 2], 4),
    PL: ('{"a": None}', {"a": None}, 6),  # refused at the token, never read as a string
    CC: ('["a\nb"]', ["a\nb"], 3),
    MC: ("[1 2]", [1, 2], 3),
    IQ: ('{"s": "a "b" c"}', {"s": 'a "b" c'}, 13),
    NN: ('{"a": NaN}', {"a": NAN}, 6),
    IE: ('["\\d"]', ["\\d"], 3),
    UV: ("[a]", ["a"], 1),
    LC: ("[TRUE]", [True], 1),
    LZ: ("[01]", [1], 1),
    CQ: ("[\u201cx\u201d]", ["x"], 1),
    EL: ("[1, ...]", [1], 4),
    MV: ('{"a": }', {"a": None}, 6),
    MX: ("[1}", [1], 2),
    XC: ("[1]]", [1], 3),
    MQ: ('{"a": "x, "b": 1}', {"a": "x", "b": 1}, 13),
    US: ('{\u00a0"a": 1}', {"a": 1}, 1),
}


@pytest.mark.parametrize("kind", sorted(PER_KIND))
def test_only_one_kind_allowed(kind: str) -> None:
    text, value, _ = PER_KIND[kind]
    parser = JsonStream(lenient={kind})
    parser.feed(text)
    assert_same(parser.finish(), value)
    assert {r.kind for r in parser.repairs} == {kind}


@pytest.mark.parametrize("kind", sorted(PER_KIND))
def test_every_kind_but_one(kind: str) -> None:
    text, _, pos = PER_KIND[kind]
    for chunks in ([text], one_by_one(text)):
        parser = JsonStream(lenient=LENIENT_KINDS - {kind})
        with pytest.raises(MalformedJSON) as info:
            for chunk in chunks:
                parser.feed(chunk)
            parser.finish()
        assert info.value.pos == pos


def test_comments_accepted_single_quotes_rejected_at_the_quote() -> None:
    text = '// note\n{"a": 1, /* two */ "b": \'x\'}'
    parser = JsonStream(lenient=LENIENT_KINDS - {SQ})
    with pytest.raises(MalformedJSON) as info:
        parser.feed(text)
    assert info.value.pos == text.index("'") == 32
    assert info.value.msg == "Expecting value"
    assert [(r.kind, r.pos) for r in parser.repairs] == [(CM, 0), (CM, 17)]
    assert info.value.partial == {"a": 1}


def test_without_truncated_a_cut_off_document_is_still_completed_but_not_reported() -> None:
    # truncation is never an error, strict or lenient; the kind only controls the report
    parser = JsonStream(lenient=LENIENT_KINDS - {TR})
    parser.feed('{"a": [1, 2')
    assert parser.finish() == {"a": [1, 2]}
    assert parser.repairs == []
    assert parser.complete is False


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown lenient kinds"):
        JsonStream(lenient={"comment", "guess_everything"})


# ------------------------------------------------------------------ what is deliberately not repaired


@pytest.mark.parametrize(("text", "pos"), NOT_REPAIRED)
def test_not_repaired(text: str, pos: int) -> None:
    parser = JsonStream(lenient=True)
    with pytest.raises(MalformedJSON) as info:
        parser.feed(text)
        parser.finish()
    assert info.value.pos == pos


def test_an_inner_quote_wins_over_a_missing_comma_before_plain_words() -> None:
    # '"x" b c' could be a missing comma or text with quotes in it; a word closes the
    # string only when it is an unquoted key followed by ':' (see the next tests),
    # so here the quotes are text.
    parser = JsonStream(lenient=True)
    parser.feed('{"a": "x" b c"}')
    assert parser.finish() == {"a": 'x" b c'}
    assert [r.kind for r in parser.repairs] == [IQ]


# ------------------------------------------------------------------ formerly core bugs (regressions)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('["x", true]', ["x", True]),
        ('["x", None, NaN]', ["x", None, NAN]),
        ("['x', False]", ["x", False]),
    ],
)
def test_string_then_literal_in_an_array(text: str, value: Any) -> None:
    got = _run([text])
    assert_same(got.value, value)
    assert got.complete


def test_missing_comma_between_single_quoted_strings() -> None:
    got = _run(["['json' 'stream']"])
    assert got.value == ["json", "stream"]
    assert [r.kind for r in got.repairs] == [SQ, MC, SQ]


def test_block_comment_starting_with_a_slash_split_after_opener() -> None:
    got = _run(["[/*", "/*/1]"])
    assert got.value == [1]
    assert [(r.kind, r.pos) for r in got.repairs] == [(CM, 1)]


def test_comment_between_unquoted_key_and_colon() -> None:
    got = _run(['{"a": "x", b /* c */ : 1}'])
    assert got.value == {"a": "x", "b": 1}
    assert [r.kind for r in got.repairs] == [UK, CM]


@pytest.mark.parametrize(
    ("text", "value", "kinds"),
    [
        ('{"a": "x" b: 1}', {"a": "x", "b": 1}, [MC, UK]),
        ("{'a': 'x' 'b': 1}", {"a": "x", "b": 1}, [SQ, SQ, MC, SQ]),
        ("['x' 'y']", ["x", "y"], [SQ, MC, SQ]),
        ('["it\\\'s"]', ["it's"], [SQ]),
    ],
)
def test_missing_comma_before_a_key_or_quote_of_either_kind(
    text: str, value: Any, kinds: list[str]
) -> None:
    for chunks in ([text], list(text)):
        got = _run(chunks)
        assert_same(got.value, value)
        assert [r.kind for r in got.repairs] == kinds


def _stream_state(chunks: list[str], trailing: str) -> tuple[Any, ...]:
    stream = JsonStream(lenient=True, trailing=trailing)
    for chunk in chunks:
        stream.feed(chunk)
    repairs = [(r.kind, r.pos) for r in stream.repairs]
    return (stream.complete, stream.tail, stream.value, repairs)


def test_lenient_decisions_do_not_depend_on_the_chunking() -> None:
    """A closer after trailing text is trailing text; a comma in a string whose next
    quote already closes it is text; each decided the same at every split point."""
    for text, trailing, expected in CHUNKING_REGRESSIONS:
        for k in range(len(text) + 1):
            assert _stream_state([text[:k], text[k:]], trailing) == expected, (text, k)
        assert _stream_state(list(text), trailing) == expected, text


def test_a_root_word_that_cannot_be_a_value_is_refused_when_it_ends() -> None:
    """``nul `` at the root: refused at the blank, not after holding the rest of the
    line (a tagged body would otherwise read past its close delimiter)."""
    for text in ("nul x", "tru </a><b>", "Fals\t1"):
        for k in range(len(text.split()[0]) + 1, len(text) + 1):
            stream = JsonStream(lenient=True)
            with pytest.raises(MalformedJSON) as err:
                stream.feed(text[:k])
            assert err.value.pos == 0, (text, k)


def _regression_state(chunks: Sequence[str | bytes]) -> tuple[Any, ...]:
    stream = JsonStream(lenient=True)
    live: list[Any] = []
    for chunk in chunks:
        stream.feed(chunk)
        live.append(detach(stream.value))
    value = detach(stream.finish())
    return value, [(r.kind, r.pos) for r in stream.repairs], live


@pytest.mark.parametrize(("text", "value", "repairs"), PROFILE_REGRESSIONS)
def test_profile_regressions_for_every_chunking(
    text: str, value: Any, repairs: list[tuple[str, int]]
) -> None:
    """A word run closed by ``]`` after ``",`` is an unquoted item, not prose; a cut-off
    ``.`` or ``..`` at the end is dropped; the same at every split point."""
    chunkings: list[Sequence[str | bytes]] = [[text], list(text), one_by_one(text.encode())]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        got, got_repairs, live = _regression_state(chunks)
        assert_same(got, value, f"{text!r} {chunks!r}")
        assert got_repairs == repairs, (text, chunks)
        for before, after in zip(live, [*live[1:], got], strict=True):
            assert prefix_violation(before, after) is None, (text, chunks)


@pytest.mark.parametrize(("text", "value", "repairs"), HOLDOUT_REGRESSIONS)
def test_holdout_regressions_for_every_chunking(
    text: str, value: Any, repairs: list[tuple[str, int]]
) -> None:
    chunkings: list[Sequence[str | bytes]] = [[text], list(text), one_by_one(text.encode())]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        got, got_repairs, live = _regression_state(chunks)
        assert_same(got, value, f"{text!r} {chunks!r}")
        assert got_repairs == repairs, (text, chunks)
        for before, after in zip(live, [*live[1:], got], strict=True):
            assert prefix_violation(before, after) is None, (text, chunks)


@pytest.mark.parametrize(("text", "pos"), HOLDOUT_REFUSED)
def test_holdout_refusals_for_every_chunking(text: str, pos: int) -> None:
    chunkings: list[Sequence[str | bytes]] = [[text], list(text)]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        stream = JsonStream(lenient=True)
        with pytest.raises(MalformedJSON) as info:
            for chunk in chunks:
                stream.feed(chunk)
            stream.finish()
        assert info.value.pos == pos, (text, chunks)


@pytest.mark.parametrize(("text", "value", "tail"), FENCED)
def test_a_closing_fence_before_the_closers_ends_the_document(
    text: str, value: Any, tail: str
) -> None:
    chunkings: list[Sequence[str]] = [[text], list(text)]
    chunkings += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in chunkings:
        stream = JsonStream(lenient=True, skip_preamble=True)
        for chunk in chunks:
            stream.feed(chunk)
        assert_same(stream.finish(), value, f"{text!r} {chunks!r}")
        assert [r.kind for r in stream.repairs] == [TR], (text, chunks)
        assert not stream.complete
        assert stream.tail == tail, (text, chunks)
    # without trailing="ignore" a fence there is still an error
    strict_tail = JsonStream(lenient=True)
    with pytest.raises(MalformedJSON):
        strict_tail.feed(text.removeprefix("```json\n"))
        strict_tail.finish()

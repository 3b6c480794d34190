"""TagParser's fast paths in C (``unspool.protocols._direct.TextRun`` in prose,
``BodyRun`` in an action body) against their Python forms in ``feed()``: the same
document in the same chunks gives exactly the same events, chunk by chunk, and the same
``text_chars`` after every feed (prose, actions with good and broken bodies, fences,
inline code, ``<think>`` reasoning, bytes cut inside characters, lenient and strict)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.c_parts import (
    c_machine,
    feed_in_pieces,
    not_sanitized,
    python_fast_paths,
    traced_growth,
)
from tests.support.hypothesis_profiles import examples
from tests.support.tags import cut, cuts, documents, loose_documents
from unspool.events import Event, TextDelta
from unspool.protocols import _c_fastpaths as c_fastpaths
from unspool.protocols._tags import TagParser

pytestmark = [
    pytest.mark.skipif(
        None in (c_fastpaths.TextRun, c_fastpaths.BodyRun, c_fastpaths.HeldRun, c_fastpaths.TagRun),
        reason="the C fast paths are not built",
    ),
    pytest.mark.usefixtures(c_machine.__name__),
]


Feeds = list[tuple[list[Event], int, str]]


def _feeds(chunks: list[Any], **options: Any) -> Feeds:
    parser = TagParser(stream_id="s", **options)
    out = [(parser.feed(c), parser.text_chars, parser.held) for c in chunks]
    out.append((parser.finish(), parser.text_chars, parser.held))
    return out


def _run(chunks: list[Any], fast: bool, **options: Any) -> Feeds:
    """Each feed's events (and finish's) with ``text_chars`` and ``held`` after it; C
    paths on or off."""
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
        feed_in_pieces(TagParser(stream_id="s"), doc)

    assert traced_growth(reply) < 20_000


def _same(chunks: list[Any], **options: Any) -> Feeds:
    """The C paths' feeds, checked equal to the Python paths' (and returned)."""
    got = _run(chunks, True, **options)
    assert got == _run(chunks, False, **options)
    return got


@settings(max_examples=examples(200), deadline=None)
@given(
    doc=documents,
    data=st.data(),
    as_bytes=st.booleans(),
    lenient=st.booleans(),
    strict_tags=st.booleans(),
)
def test_the_c_body_path_gives_the_python_events(
    doc: str, data: st.DataObject, as_bytes: bool, lenient: bool, strict_tags: bool
) -> None:
    """Bodies good, broken, with text after the value, nested or unclosed, in chunks
    cut anywhere (bytes cut inside characters, a bytes chunk among str ones)."""
    raw: Any = doc.encode() if as_bytes else doc
    chunks = cut(raw, data.draw(cuts(len(raw))))
    if not as_bytes and len(chunks) > 3 and data.draw(st.booleans()):
        chunks[2] = chunks[2].encode()
    _same(chunks, lenient=lenient, strict_tags=strict_tags)


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), fmt=st.sampled_from(["action", "tool_call"]), lenient=st.booleans())
def test_the_c_body_path_on_loose_bodies(data: st.DataObject, fmt: str, lenient: bool) -> None:
    """Loose JSON-like bodies (the repairs of lenient mode, errors of strict mode)."""
    doc = data.draw(loose_documents(fmt))
    for step in (1, 2, 3, 4, 7):
        _same([doc[i : i + step] for i in range(0, len(doc), step)], lenient=lenient, format=fmt)
    _same(cut(doc, data.draw(cuts(len(doc)))), lenient=lenient, format=fmt)


OPEN = '<action name="a">'
BODY_CASES = {
    "good": [OPEN, '{"q": ', '"abc', 'def"', ", ", '"n": 1', "2}", "</act", "ion>", " ok"],
    "close split": [OPEN, '{"q": 1}', "<", "/", "acti", "on", ">", "x"],
    "close in a string": [OPEN, '{"q": "', "a</ac", 'tion>b"}', "</action>"],
    "upper close": [OPEN, '{"q": 1', "}</ACTION>", "x"],
    "error": [OPEN, '{"q": ', "xyz", '", "n": 2}', "</action>", "after"],
    "error then more": [OPEN, '{"q": 1', "]]", " more", " text", "</action>"],
    "text after value": [OPEN, '{"q": 1}', " trailing", " words", "</action>"],
    "value then space": [OPEN, '{"q": 1}', "   ", "\n", "</action>"],
    "value ends inside": [OPEN, '{"q": ', "1} tr", "ail", "</action>"],
    "nested": [OPEN, '{"q": 1', ', "r": ', OPEN, "{}</action>", "</action>"],
    "array body": [OPEN, "[1, ", "2, 3", "]", "</action>"],
    "string body": [OPEN, '"ab', 'cd"', "</action>"],
    "number body": [OPEN, "12", "34", " ", "</action>"],
    "empty chunks": [OPEN, "", '{"q"', "", ": 1}", "", "</action>"],
    "bytes in body": [OPEN, '{"q": "', "é".encode(), '"}', "</action>"],
    "truncated": [OPEN, '{"q": [1, ', "2"],
    "truncated after value": [OPEN, '{"q": 1}', " x"],
    "stray closer": [OPEN, '{"q": 1}', "}", " ", "</action>"],
    "trailing comma": [OPEN, '{"q": 1,', " }", "</action>"],
    "unquoted": [OPEN, "{q: ", "1}", "</action>"],
    "single quotes": [OPEN, "{'q': ", "'x'}", "</action>"],
    "two actions": [OPEN, '{"q": 1}', "</action>", " and ", OPEN, '{"r"', ": 2}", "</action>"],
    "no name": ["<action>", '{"q"', ": 1}", "</action>"],
}


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("case", sorted(BODY_CASES))
def test_body_edge_cases(case: str, lenient: bool) -> None:
    chunks = BODY_CASES[case]
    _same(chunks, lenient=lenient)
    joined = "".join(c if isinstance(c, str) else c.decode() for c in chunks)
    for step in (1, 2, 3, 5):
        _same([joined[i : i + step] for i in range(0, len(joined), step)], lenient=lenient)


@pytest.mark.parametrize("fmt", ["action", "tool_call"])
def test_the_c_body_path_runs_where_it_should(fmt: str) -> None:
    """It runs in a body that is the arguments (``action``), not where the arguments
    are one member (``tool_call``'s name/arguments), and is left once the JSON ends."""
    parser = TagParser(stream_id="s", format=fmt)
    parser.feed(OPEN if fmt == "action" else "<tool_call>")
    parser.feed('{"name": "a", ')
    run = parser._c_run
    assert (run is not None) is (fmt == "action")
    if run is None:
        return
    assert type(run) is c_fastpaths.BodyRun
    parser.feed('"q": [1,')
    assert parser._c_run is run  # taken in C
    parser.feed(" 2]} x")  # the value ends and text follows: handed back
    assert parser._c_run is None


def test_body_text_and_spans_match() -> None:
    """What the C path took is counted: spans, raw bodies and offsets are the same."""
    doc = "Say " + OPEN + '{"q": "' + "abc " * 30 + '"}' + "</action> then " + OPEN + "{bad"
    chunks = [doc[i : i + 4] for i in range(0, len(doc), 4)]
    parsers = []
    for fast in (True, False):
        if fast:
            parser = TagParser(stream_id="s")
        else:
            with python_fast_paths():
                parser = TagParser(stream_id="s")
        for c in chunks:
            parser.feed(c)
        parser.finish()
        parsers.append(parser)
    assert parsers[0].spans == parsers[1].spans
    assert [doc[s.start : s.end] for s in parsers[0].spans] == [s.text for s in parsers[0].spans]


def test_an_abandoned_parser_in_a_body_is_collected() -> None:
    """The C body path refers back to its parser (a cycle the GC must see)."""
    parser = TagParser(stream_id="s")
    parser.feed(OPEN + '{"q": ')
    parser.feed('"abc')
    assert parser._c_run is not None
    ref = weakref.ref(parser)
    del parser
    gc.collect()
    assert ref() is None


@not_sanitized
def test_the_c_body_path_keeps_no_references() -> None:
    """Memory stays flat over many replies with bodies good and broken."""
    doc = (
        "Hi "
        + OPEN
        + '{"q": "'
        + "x" * 40
        + '", "n": [1, 2, 3]}</action> '
        + OPEN
        + '{"q": 1} tail</action> '
        + OPEN
        + '{"q": zz}</action> '
        + OPEN
        + '{"q": ['
    )

    def reply() -> None:
        for lenient in (False, True):
            feed_in_pieces(TagParser(stream_id="s", lenient=lenient), doc)

    assert traced_growth(reply) < 20_000


@settings(max_examples=examples(200), deadline=None)
@given(
    doc=documents,
    data=st.data(),
    strict_tags=st.booleans(),
    reasoning=st.booleans(),
    max_tag_chars=st.sampled_from([3, 9, 20, 40, 1024]),
)
def test_the_c_held_and_tag_paths_give_the_python_events(
    doc: str, data: st.DataObject, strict_tags: bool, reasoning: bool, max_tag_chars: int
) -> None:
    """Delimiter prefixes held over many chunks, open tags of every shape (quotes holding
    ``>`` or ``<``, single quotes in strict mode, tags longer than ``max_tag_chars``)."""
    if reasoning:
        doc = "<think>hm <act" + doc[: len(doc) // 2] + "</thi</think>" + doc[len(doc) // 2 :]
    chunks = cut(doc, data.draw(cuts(len(doc))))
    _same(chunks, strict_tags=strict_tags, reasoning=reasoning, max_tag_chars=max_tag_chars)


TAG_CASES = {
    "plain": ["<act", "ion na", 'me="a"', ">{}", "</action>"],
    "quoted gt": ["<action n", 'ame="a" no', 'te="x>', '<y"', " id=7", ">{}</action>"],
    "single quotes": ["<action name=", "'a", "' x='>'", ">{}</action>"],
    "no quotes": ["<action name", "=a", " b = 'c'", ">{}</action>"],
    "new tag inside": ["<action name=", '"a', " <action", ' name="b">{}</action>'],
    "too long": ["<action name=", '"' + "a" * 30, "b" * 30, '">{}</action>'],
    "upper": ["<ACT", "ION NA", 'ME="a">', "{}</ACT", "ION>"],
    "held then text": ["x <", "a", "c", "t", "or", " y"],
    "held closer then text": ['<action name="a">{}', "<", "/", "ac", "tor", "</action>"],
    "closer held long": ['<action name="a">{"q": 1}', "<", "/", "a", "c", "t", "i", "o", "n", ">"],
    "held then bytes": ["x <ac", b"t", "ion", ' name="a">{}</action>'],
    "held at finish": ["x <acti"],
    "tag at finish": ['<action name="a'],
    "closer at finish": ['<action name="a">{}</act'],
    "empty chunks": ["<act", "", 'ion name="a"', "", ">{}</", "", "action>"],
    "think": ["<thi", "nk>", "hmm </th", "ink", ">", "done"],
    "unquoted then quote": ["<action ", 'name=a "x', '>{}</action>"'],
    "quote left open": ["<action name=", '"x', 'y>z"', ">{}</action>"],
    "quote left open 2": ["<action name=", "'x", "y>z'", " q='<'>{}</action>"],
}


@pytest.mark.parametrize("strict_tags", [False, True])
@pytest.mark.parametrize("case", sorted(TAG_CASES))
def test_held_and_tag_edge_cases(case: str, strict_tags: bool) -> None:
    for max_tag_chars in (1024, 16):
        _same(
            TAG_CASES[case],
            strict_tags=strict_tags,
            reasoning=case == "think",
            max_tag_chars=max_tag_chars,
        )


def test_the_c_held_and_tag_paths_run_where_they_should() -> None:
    parser = TagParser(stream_id="s")
    parser.feed("Hm, ")  # a line's start goes to Python (a fence may open there)
    run = parser._c_run
    assert type(run) is c_fastpaths.TextRun
    assert parser.feed("a < b") == [TextDelta("a < b")]  # taken in C
    assert parser.feed(" <") == [TextDelta(" ")]  # "<" held
    assert parser.feed("ac") == []
    assert parser._c_run is run
    assert parser.feed("ti") == []
    assert parser.held == "<acti"
    parser.feed("on na")
    assert type(parser._c_run) is c_fastpaths.TagRun
    run = parser._c_run
    parser.feed('me="')
    assert parser._c_run is run  # taken in C
    assert parser.held == '<action name="'
    parser.feed('a">{"q": 1}<')
    assert type(parser._c_run) is c_fastpaths.HeldRun
    parser.feed("/act")
    assert parser.held == "</act"


@pytest.mark.parametrize("step", [1, 2, 3, 4, 5])
def test_tags_at_every_length_limit(step: int) -> None:
    """Open tags cut at every step, against every ``max_tag_chars`` near their length."""
    doc = 'a <action name="x" note=\'y>\' b=c "d>{}</action> <action name=e>{}</action>'
    chunks = [doc[i : i + step] for i in range(0, len(doc), step)]
    for max_tag_chars in range(1, 40):
        _same(chunks, max_tag_chars=max_tag_chars)


@not_sanitized
def test_the_c_held_and_tag_paths_keep_no_references() -> None:
    """Memory stays flat over replies holding prefixes (folded too) and open tags."""
    doc = 'x <ACT|ION name="a" note=\'<>\'>{}</ACT|ION> <act|or y <action na|me="b">{}</act'

    def reply() -> None:
        parser = TagParser(stream_id="s")
        for piece in doc.split("|"):
            for i in range(0, len(piece), 3):
                parser.feed(piece[i : i + 3])  # new chunk objects each time
        parser.finish()

    assert traced_growth(reply) < 20_000


LINE_CASES = {
    "fence after indent": ["a\n", "  ", " ~", "~~\n", '<action name="a">{}</action>', "\n~~~\nb"],
    "four spaces": ["a\n", "    ", "```\n", '<action name="a">{}</action>'],
    "backtick fence": ["x:\n", "``", "`py\n", "<action", ' name="a">{}</action>\n```\n', "ok"],
    "blank lines": ["a\n\n", "\n  \n", " b <a", "ction ", 'name="a">{}</action>'],
    "list": ["items:\n- ", "one\n-", " two\n", "<action>", "{}</action>"],
    "inline": ["a `b <act", "ion>` c\n", "`x", "\n", '<action name="a">{}</action>'],
    "indent per line": ["x\n  a\n  ", "~~~\n", '<action name="a">{}</action>'],
    "crlf": ["a\r\n", "\r  ~~~\r\n", "b\r\n", '<action name="a">{}</action>'],
}


@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize("case", sorted(LINE_CASES))
def test_line_starts_in_c(case: str, reasoning: bool) -> None:
    """Newlines, indents and fences at line starts, cut everywhere."""
    chunks = LINE_CASES[case]
    if reasoning:
        chunks = ["<think>", *chunks, "</think>", *chunks]
    _same(chunks, reasoning=reasoning)
    doc = "".join(chunks)
    for step in (1, 2, 3, 4):
        _same([doc[i : i + step] for i in range(0, len(doc), step)], reasoning=reasoning)

"""``PyLiteralStream``: Python-style literals and calls, read as they stream.

The reference is the standard library: :func:`ast.literal_eval` for literals (a
tuple normalised to a list, as the reader gives JSON's types; a tuple key stays a
tuple) and :func:`ast.parse` for calls.  Every vector is read whole, at every split
point, one character at a time and as UTF-8 bytes one byte at a time; hypothesis
writes literals in the many spellings Python allows and compares; a fuzz feeds
random fragments and checks that the reader raises nothing but its own error, at the
same place for every chunking.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import time
import unicodedata
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_profiles import examples
from unspool.core._errors import UNSET, LimitExceeded, MalformedJSON
from unspool.core._path_events import StringDelta, ValueEnd, ValueStart
from unspool.core._pyliteral import (
    LiteralLimitExceeded,
    MalformedLiteral,
    PyCall,
    PyLiteralStream,
    parse_pyliteral,
)

# ---------------------------------------------------------------------- the reference


def norm(value: Any, key: bool = False) -> Any:
    """``literal_eval``'s value with JSON's types: tuples are lists (but in keys)."""
    if isinstance(value, tuple):
        return tuple(norm(v, True) for v in value) if key else [norm(v) for v in value]
    if isinstance(value, list):
        return [norm(v) for v in value]
    if isinstance(value, dict):
        return {norm(k, True): norm(v) for k, v in value.items()}
    return value


def reference(text: str) -> Any:
    """What Python reads ``text`` as: a literal, a call, or a list of calls."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # '\d' in a string: valid, and warned about
            return norm(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    tree = ast.parse(text.strip(), mode="eval").body
    if isinstance(tree, (ast.List, ast.Tuple)):
        return [_call(node) for node in tree.elts]
    return _call(tree)


def _call(node: ast.expr) -> Any:
    if not isinstance(node, ast.Call):
        return norm(ast.literal_eval(node))
    name = ast.unparse(node.func)
    args = [norm(ast.literal_eval(a)) for a in node.args]
    kwargs = {kw.arg: norm(ast.literal_eval(kw.value)) for kw in node.keywords}
    return PyCall(name, args, kwargs)  # type: ignore[arg-type]


def read(chunks: list[str] | list[bytes], **options: Any) -> Any:
    stream = PyLiteralStream(**options)
    for chunk in chunks:
        stream.feed(chunk)
    return stream.finish()


def chunkings(text: str) -> list[list[str] | list[bytes]]:
    """Whole, every two-way split, one character and one byte at a time."""
    data = text.encode()
    out: list[list[str] | list[bytes]] = [[text]]
    out += [[text[:i], text[i:]] for i in range(1, len(text))]
    out.append(list(text))
    out.append([data[i : i + 1] for i in range(len(data))])
    return out


def same(a: Any, b: Any) -> bool:
    """Equal, with float NaN-free values and types compared too (1 is not 1.0 or True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, PyCall):
        return a.name == b.name and same(a.args, b.args) and same(a.kwargs, b.kwargs)
    return bool(a == b)


# ---------------------------------------------------------------------- vectors

LITERALS = [
    "1",
    "-1",
    "+7",
    "- 2.5",
    "0",
    "00",
    "0_0",
    "1_000_000",
    "0x1F",
    "0X_ff",
    "0o17",
    "0b1010",
    "1.",
    ".5",
    "1.5e-3",
    "1E+10",
    "1_0.2_5",
    "1e999",
    "-0.0",
    "123456789012345678901234567890",
    "True",
    "False",
    "None",
    "''",
    '""',
    "''''''",
    "'a'",
    '"a\'b"',
    "'a\"b'",
    "'\\n\\t\\\\\\''",
    "'\\x41\\u00e9\\U0001F680\\N{BULLET}\\101\\0\\7z'",
    "'\\d\\w'",
    "'a\\\nb'",
    "'''multi\nline'''",
    '"""q"q""q"""',
    "'''a''b'''",
    "r'\\d+\\''",
    'R"C:\\new"',
    "u'x'",
    "'a' 'b'",
    "'a' \"b\" '''c''' r'\\d'",
    "('a'\n 'b')",
    "'你好 🚀'",
    "'\\ud83d'",
    "[]",
    "[1, 2, 3]",
    "[1, 2, 3,]",
    "[ 1 ,\n 2 ]",
    "[[], [[]], [[[1]]]]",
    "()",
    "(1)",
    "((1))",
    "(1,)",
    "(1, 2)",
    "(1, 2,)",
    "((1, 2), (3,), ())",
    "{}",
    "{'a': 1}",
    "{'a': 1, 'b': [True, None], 'c': {'d': 'e'},}",
    "{1: 'one', 2.5: 'x', None: 0, True: 1}",
    "{(1, 2): 'pair', (): 'empty', ((1,), 2): 'nested'}",
    "{'a': 1, 'a': 2}",
    "{'k': ('x')}",
    "[1, # one\n 2 # two\n]",
    "[  # c\n]",
    "  [1]  ",
    "[1] # done",
    "{'s': 'a' # c\n 'b'}",
    "[-1, - 1, +1, -.5, -1e3]",
    "[(1), (-2), ('s')]",
]


@pytest.mark.parametrize("text", LITERALS)
def test_literal_at_every_chunking(text: str) -> None:
    expected = reference(text)
    for chunks in chunkings(text):
        got = read(chunks)
        assert same(got, expected), (chunks, got, expected)


CALLS = [
    ("f()", PyCall("f")),
    (
        "f(a=1, b='x', c=None, d=[True])",
        PyCall("f", [], {"a": 1, "b": "x", "c": None, "d": [True]}),
    ),
    ("get_weather(city='LA')", PyCall("get_weather", [], {"city": "LA"})),
    ("tools.search (q='x')", PyCall("tools.search", [], {"q": "x"})),
    ("f(1, 'two', k=(3,))", PyCall("f", [1, "two"], {"k": [3]})),
    ("f(a = 1 ,\n b = 2 ,)", PyCall("f", [], {"a": 1, "b": 2})),
    ("[f(), g(x=1.5)]", [PyCall("f"), PyCall("g", [], {"x": 1.5})]),
    ("[f(),]", [PyCall("f")]),
    ("(f(), g(n=-1))", [PyCall("f"), PyCall("g", [], {"n": -1})]),
    ("[]", []),
    (
        "[f(text='a' 'b'), g(d={'k': [1, (2,)]})]",
        [
            PyCall("f", [], {"text": "ab"}),
            PyCall("g", [], {"d": {"k": [1, [2]]}}),
        ],
    ),
    ("f(s='''x\ny''', r=r'\\d')", PyCall("f", [], {"s": "x\ny", "r": "\\d"})),
    ("f(名前='値')", PyCall("f", [], {"名前": "値"})),
    ("[1, f()]", [1, PyCall("f")]),
    ("f(flag=true, none=null)", PyCall("f", [], {"flag": True, "none": None})),
]


@pytest.mark.parametrize(("text", "expected"), CALLS)
def test_call_at_every_chunking(text: str, expected: Any) -> None:
    if "true" not in text:
        assert same(reference(text), expected)
    for chunks in chunkings(text):
        got = read(chunks, calls=True)
        assert same(got, expected), (chunks, got)


def test_call_offsets_locate_the_arguments() -> None:
    text = "[get_weather(city='LA'), f()]"
    for chunks in chunkings(text):
        calls = read(chunks, calls=True)
        assert [(c.start, c.args_start, c.args_end) for c in calls] == [(1, 13, 22), (25, 27, 27)]
        assert text[calls[0].args_start : calls[0].args_end] == "city='LA'"


def test_a_call_is_open_until_its_parenthesis() -> None:
    stream = PyLiteralStream(calls=True)
    call = stream.feed("f(a=1, b='xy")
    assert call == PyCall("f", [], {"a": 1, "b": "xy"}) and call.args_end == -1
    assert stream.feed("z'") is call and call.kwargs == {"a": 1, "b": "xyz"}
    assert not stream.complete
    stream.feed(")")
    assert stream.complete and call.args_end == 14


ERRORS = [
    ("[1 2]", "expected ',' or ']' in the list", 3),
    ("{'a' 1}", "expected ':' after the dict key", 5),
    ("{'a': }", "expected a value, found '}'", 6),
    ("[,]", "expected a value, found ','", 1),
    ("(1 2)", "expected ',' or ')' in the parenthesis", 3),
    ("foo", "the name 'foo' is not a literal", 0),
    ("[x]", "the name 'x' is not a literal", 1),
    ("[nam", "the name 'nam' is not a literal", 1),
    ("f()", "a call (f(...)) is not a literal here", 0),
    ("b'x'", "a bytes literal has no JSON form", 0),
    ("f'x'", "an f-string is code, not a literal", 0),
    ("'a' rb'x'", "a bytes literal has no JSON form", 4),
    ("1j", "a complex number has no JSON form", 0),
    ("07", "not a number: '07'", 0),
    ("1__0", "not a number: '1__0'", 0),
    ("[1abc]", "not a number: '1abc'", 1),
    ("'a\nb'", "a line break inside a one-line string", 2),
    ("'\\x4g'", "truncated \\x escape", 1),
    ("'\\U00110000'", "a \\U escape beyond U+10FFFF", 1),
    ("'\\N{NO SUCH NAME}'", "unknown Unicode character name 'NO SUCH NAME'", 1),
    ("'\\Nx'", "malformed \\N{...} escape", 1),
    ("{[1]: 2}", "a list cannot be a dict key", 1),
    ("--1", "expected a number after '-'", 1),
    ("-x", "expected a number after '-'", 1),
    ("1 2", "text after the value", 2),
    ("[1] x", "text after the value", 4),
    ("[*a]", "expected a value, found '*'", 1),
    ("[.]", "expected a value, found '.'", 1),
]


REFUSED_ON_PURPOSE = {"b'x'", "'a' rb'x'", "1j"}
"""What Python reads but has no JSON form (the others are not Python literals either)."""


@pytest.mark.parametrize(("text", "message", "pos"), ERRORS)
def test_errors_name_what_and_where(text: str, message: str, pos: int) -> None:
    for chunks in chunkings(text)[:-1]:  # positions are characters: str chunkings
        with pytest.raises(MalformedLiteral) as info:
            read(chunks)
        assert (info.value.msg, info.value.pos) == (message, pos), chunks
        assert isinstance(info.value, MalformedJSON)
    if text in REFUSED_ON_PURPOSE:
        return
    with pytest.raises((ValueError, SyntaxError, TypeError)), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ast.literal_eval(text)


CALL_ERRORS = [
    ("f(a=1, 2)", "a positional argument after a keyword argument", 7),
    ("f(a=1, a=2)", "keyword argument 'a' repeated", 7),
    ("f(a.b=1)", "not a keyword name: 'a.b'", 2),
    ("f(a==1)", "the name 'a' is not a literal", 2),
    ("f(x=g())", "a call (g(...)) is not a literal here", 4),
    ("[[f()]]", "a call (f(...)) is not a literal here", 2),
    ("{'a': f()}", "a call (f(...)) is not a literal here", 6),
    ("f(*a)", "expected a value, found '*'", 2),
    ("f(a=)", "expected a value, found ')'", 4),
    ("f(a=1) g()", "text after the value", 7),
    ("1.f()", "not a number: '1.f'", 0),
]


@pytest.mark.parametrize(("text", "message", "pos"), CALL_ERRORS)
def test_call_errors(text: str, message: str, pos: int) -> None:
    for chunks in chunkings(text)[:-1]:
        with pytest.raises(MalformedLiteral) as info:
            read(chunks, calls=True)
        assert (info.value.msg, info.value.pos) == (message, pos), chunks


def test_the_error_keeps_the_good_part_and_the_reader_stays_failed() -> None:
    stream = PyLiteralStream(events=True)
    with pytest.raises(MalformedLiteral) as info:
        stream.feed("[1, 'ab', x]")
    assert info.value.partial == [1, "ab"]
    assert stream.take_events()[-1] == ValueEnd((1,), "ab")
    with pytest.raises(MalformedLiteral):
        stream.feed("]")
    with pytest.raises(MalformedLiteral):
        stream.finish()


# ---------------------------------------------------------------------- the end of the input

TRUNCATED = [
    ("[1, 2", [1, 2], False),
    ("[1, 2.", [1, 2.0], False),
    ("[1, 2e", [1], False),
    ("[1, 0x", [1], False),
    ("[1, -", [1], False),
    ("[1, 'ab", [1, "ab"], False),
    ("[1, 'ab\\", [1, "ab"], False),
    ("[1, 'ab\\x4", [1, "ab"], False),
    ("[1, 'ab\\N{BUL", [1, "ab"], False),
    ("[1, '''ab''", [1, "ab''"], False),
    ("[1, 'ab'", [1, "ab"], False),
    ("[Tru", [], False),
    ("[True", [True], False),
    ("[r", [], False),
    ("{'a': [1, {'b'", {"a": [1, {}]}, False),
    ("{'a", {}, False),
    ("(1", UNSET, False),
    ("(1,", [1], False),
    ("42", 42, True),
    ("'s'", "s", True),
    ("'s", "s", False),
    ("", UNSET, False),
]


@pytest.mark.parametrize(("text", "value", "complete"), TRUNCATED)
def test_finish_closes_what_is_open(text: str, value: Any, complete: bool) -> None:
    for chunks in chunkings(text) if text else [[""]]:
        stream = PyLiteralStream()
        for chunk in chunks:
            stream.feed(chunk)
        assert same(stream.finish(), value), chunks
        assert stream.complete is complete
        assert stream.finish() is stream.value  # idempotent


def test_a_cut_off_call_keeps_its_arguments() -> None:
    assert read(["[f(a=1), g(b='x"], calls=True) == [
        PyCall("f", [], {"a": 1}),
        PyCall("g", [], {"b": "x"}),
    ]
    assert read(["[f(a=1), g(b"], calls=True) == [PyCall("f", [], {"a": 1}), PyCall("g")]


def test_trailing_ignore_keeps_the_rest() -> None:
    for text, value, tail in [
        ("f(a=1)\ng(b=2)", PyCall("f", [], {"a": 1}), "\ng(b=2)"),
        ("[1] and more", [1], " and more"),
        ("12 x", 12, " x"),
        ("'a' 'b'", "a", " 'b'"),
    ]:
        for chunks in chunkings(text)[:-1]:
            stream = PyLiteralStream(calls=True, trailing="ignore")
            for chunk in chunks:
                stream.feed(chunk)
            assert stream.finish() == value and stream.tail == tail, chunks
            assert stream.complete


# ---------------------------------------------------------------------- events and growth


def events_of(chunks: list[str], **options: Any) -> list[Any]:
    stream = PyLiteralStream(events=True, **options)
    out: list[Any] = []
    for chunk in chunks:
        out += stream.feed_events(chunk)
    out += stream.finish_events()
    merged: list[Any] = []
    for ev in out:  # string deltas may be cut anywhere: join them
        last = merged[-1] if merged else None
        if isinstance(ev, StringDelta) and isinstance(last, StringDelta) and last.path == ev.path:
            merged[-1] = StringDelta(ev.path, last.text + ev.text)
            continue
        merged.append(ev)
    return merged


def test_path_events_of_calls_and_parentheses() -> None:
    text = "[f(s='ab', t=(1, ('x')), u=()), g()]"
    expected = [
        ValueStart((), "array"),
        ValueStart((0,), "call"),
        ValueStart((0, "s"), "string"),
        StringDelta((0, "s"), "ab"),
        ValueEnd((0, "s"), "ab"),
        ValueStart((0, "t"), "array"),
        ValueStart((0, "t", 0), "number"),
        ValueEnd((0, "t", 0), 1),
        ValueStart((0, "t", 1), "string"),
        StringDelta((0, "t", 1), "x"),
        ValueEnd((0, "t", 1), "x"),
        ValueEnd((0, "t"), [1, "x"]),
        ValueStart((0, "u"), "array"),
        ValueEnd((0, "u"), []),
        ValueEnd((0,), PyCall("f", [], {"s": "ab", "t": [1, "x"], "u": []})),
        ValueStart((1,), "call"),
        ValueEnd((1,), PyCall("g")),
        ValueEnd((), [PyCall("f", [], {"s": "ab", "t": [1, "x"], "u": []}), PyCall("g")]),
    ]
    for chunks in chunkings(text)[:-1]:
        assert events_of(chunks, calls=True) == expected, chunks  # type: ignore[arg-type]


def test_keys_are_quiet_and_values_show() -> None:
    assert events_of(["{('k', 1): 'v'}"]) == [
        ValueStart((), "object"),
        ValueStart((("k", 1),), "string"),
        StringDelta((("k", 1),), "v"),
        ValueEnd((("k", 1),), "v"),
        ValueEnd((), {("k", 1): "v"}),
    ]


def grows(before: Any, after: Any) -> bool:
    """``after`` is ``before`` grown: same type, strings extended, containers with
    their closed items unchanged (the open last one grown)."""
    if type(before) is not type(after):
        return False
    if isinstance(before, str):
        return after.startswith(before)
    if isinstance(before, list):
        if len(after) < len(before):
            return False
        if not before:
            return True
        return before[:-1] == after[: len(before) - 1] and grows(before[-1], after[len(before) - 1])
    if isinstance(before, dict):
        return all(k in after and grows(v, after[k]) for k, v in before.items())
    if isinstance(before, PyCall):
        return (
            before.name == after.name
            and grows(before.args, after.args)
            and grows(before.kwargs, after.kwargs)
        )
    return bool(before == after)


# ---------------------------------------------------------------------- hypothesis: spellings


def _escape(c: str, q: str, draw: st.DrawFn) -> str:
    n = ord(c)
    options = []
    if c in "\\'\"":
        options.append("\\" + c)
    simple = {
        "\n": "\\n",
        "\t": "\\t",
        "\r": "\\r",
        "\a": "\\a",
        "\b": "\\b",
        "\f": "\\f",
        "\v": "\\v",
    }
    if c in simple:
        options.append(simple[c])
    if n < 256:
        options += [f"\\x{n:02x}", f"\\{n:03o}"]
    if n < 0x10000:
        options.append(f"\\u{n:04X}")
    options.append(f"\\U{n:08x}")
    with contextlib.suppress(ValueError):
        options.append("\\N{" + unicodedata.name(c) + "}")
    return draw(st.sampled_from(options))


@st.composite
def string_literals(draw: st.DrawFn, s: str) -> str:
    q = draw(st.sampled_from("'\""))
    triple = draw(st.booleans())
    bad = {"\\", q, "\r", "\x00"} | (set() if triple else {"\n"})
    if not (set(s) & bad) and not s.endswith("\\") and draw(st.booleans()):
        prefix = draw(st.sampled_from(["r", "R", "u", "U", ""]))
        body = s
    else:
        prefix = draw(st.sampled_from(["u", ""]))
        body = "".join(
            _escape(c, q, draw) if c in bad or draw(st.integers(0, 9)) == 0 else c for c in s
        )
    return f"{prefix}{q * 3 if triple else q}{body}{q * 3 if triple else q}"


@st.composite
def spelled(draw: st.DrawFn, value: Any, depth: int = 0) -> str:
    """``value`` written as Python source, in one of its many spellings."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        spellings = [str(value)]
        if value >= 0:
            spellings += [hex(value), oct(value), bin(value), f"{value:_}"]
        else:
            spellings += [f"- {-value}", f"-{hex(-value)}"]
        return draw(st.sampled_from(spellings))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if len(value) > 1 and draw(st.integers(0, 4)) == 0:  # adjacent strings join
            cut = draw(st.integers(1, len(value) - 1))
            sep = draw(st.sampled_from([" ", "", "\n  "])) if depth else " "
            left = draw(string_literals(value[:cut]))
            right = draw(string_literals(value[cut:]))
            return left + sep + right
        return draw(string_literals(value))
    gap = st.sampled_from(["", " ", "\n", "  ", " # note\n"])
    if isinstance(value, dict):
        items = [
            draw(spelled(k, depth + 1)) + draw(gap) + ":" + draw(gap) + draw(spelled(v, depth + 1))
            for k, v in value.items()
        ]
        opener, closer = "{", "}"
    else:
        items = [draw(spelled(v, depth + 1)) for v in value]
        opener, closer = ("(", ")") if isinstance(value, tuple) else ("[", "]")
    body = ("," + draw(gap)).join(items)
    if items and (draw(st.booleans()) or (isinstance(value, tuple) and len(items) == 1)):
        body += ","
    return opener + draw(gap) + body + draw(gap) + closer


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
keys = st.one_of(
    st.text(max_size=6), st.integers(-5, 5), st.tuples(st.integers(0, 3), st.text(max_size=2))
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(keys, inner, max_size=3),
    ),
    max_leaves=12,
)


def random_chunks(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=examples(300))
@given(st.data())
def test_reads_what_python_reads(data: st.DataObject) -> None:
    value = data.draw(values)
    text = data.draw(spelled(value))
    expected = reference(text)
    assert same(expected, norm(value)) or value != value, text
    chunks = random_chunks(data.draw, text)
    stream = PyLiteralStream()
    before: Any = UNSET
    for chunk in chunks:
        stream.feed(chunk)
        now = stream.snapshot()
        if before is not UNSET:
            assert grows(before, now), (chunks, before, now)
        before = now
    assert same(stream.finish(), expected), (chunks, text)
    assert same(read(list(text)), expected)


@st.composite
def call_lists(draw: st.DrawFn) -> str:
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(["f", "get_weather", "tools.search", "ñame"]))
        kwargs = draw(
            st.dictionaries(st.sampled_from(["a", "city", "n", "x_1"]), values, max_size=3)
        )
        args = ", ".join(f"{k}={draw(spelled(v, 1))}" for k, v in kwargs.items())
        calls.append(f"{name}({args})")
    if len(calls) == 1 and draw(st.booleans()):
        return calls[0]
    return "[" + ", ".join(calls) + "]"


@settings(max_examples=examples(150))
@given(st.data())
def test_reads_calls_as_python_parses_them(data: st.DataObject) -> None:
    text = data.draw(call_lists())
    expected = reference(text)
    chunks = random_chunks(data.draw, text)
    assert same(read(chunks, calls=True), expected), (chunks, text)
    events = events_of(chunks, calls=True)
    assert events == events_of([text], calls=True)


# ---------------------------------------------------------------------- fuzz

FRAGMENTS = [
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "'",
    '"',
    "'''",
    "\\",
    "\\x4",
    "\\N{",
    "\\u00",
    "r",
    "b",
    "f",
    "u",
    "f(",
    "g(",
    "x=",
    "=",
    "==",
    "1",
    "0",
    "-",
    "+",
    ".",
    "e",
    "0x",
    "_",
    "j",
    " ",
    "\n",
    "#",
    "True",
    "None",
    "null",
    "é",
    "🚀",
    "*",
    "a.b",
    "1e5",
    "''",
]


@settings(max_examples=examples(400))
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=14), st.booleans(), st.data())
def test_fuzz_no_crash_and_chunking_independent(
    parts: list[str], calls: bool, data: st.DataObject
) -> None:
    text = "".join(parts)
    outcomes = []
    for chunks in ([text], list(text), random_chunks(data.draw, text)):
        try:
            outcomes.append(("ok", read(chunks, calls=calls)))
        except MalformedLiteral as exc:  # anything else fails the test
            outcomes.append(("error", exc.msg, exc.pos))
    first = outcomes[0]
    for other in outcomes[1:]:
        assert same(first, other), (text, outcomes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            python = norm(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return
    if no_json_form(python) or bare_tuple(text):
        return
    assert first[0] == "ok" and same(first[1], python), (text, first, python)


def bare_tuple(text: str) -> bool:
    """Whether ``text`` is a tuple without its parentheses (``1, 2``), which the reader
    refuses at the root: the root's type would change at the comma."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wrapped = ast.literal_eval(f"({text}\n,)")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return True
    return len(wrapped) != 1


def no_json_form(value: Any) -> bool:
    """Whether a Python value holds what the reader refuses on purpose."""
    if isinstance(value, (set, frozenset, bytes, complex)) or value is Ellipsis:
        return True
    if isinstance(value, (list, tuple)):
        return any(map(no_json_form, value))
    if isinstance(value, dict):
        return any(map(no_json_form, value)) or any(map(no_json_form, value.values()))
    return False


# ---------------------------------------------------------------------- limits and usage


def test_limits() -> None:
    with pytest.raises(LiteralLimitExceeded) as depth:
        parse_pyliteral("[[[1]]]", max_depth=2)
    assert depth.value.pos == 2 and isinstance(depth.value, LimitExceeded)
    with pytest.raises(LiteralLimitExceeded):
        parse_pyliteral("'abcdef'", max_token_chars=5)
    with pytest.raises(LiteralLimitExceeded):
        read(["'abc", "def'"], max_token_chars=5)
    with pytest.raises(LiteralLimitExceeded):
        parse_pyliteral("123456", max_token_chars=5)
    with pytest.raises(LiteralLimitExceeded):
        parse_pyliteral("[abcdef]", max_token_chars=5)
    with pytest.raises(LiteralLimitExceeded) as doc:
        parse_pyliteral("[1, 2, 3]", max_document_chars=4)
    assert doc.value.pos == 4
    with pytest.raises(LiteralLimitExceeded):
        parse_pyliteral("1" * 4301)
    assert parse_pyliteral("0x" + "f" * 5000) == int("f" * 5000, 16)
    assert parse_pyliteral("[" * 1000 + "]" * 1000) is not None  # the default depth


def test_usage_errors() -> None:
    stream = PyLiteralStream()
    stream.feed("1")
    with pytest.raises(TypeError):
        stream.feed(b"2")
    stream.finish()
    with pytest.raises(RuntimeError):
        stream.feed("2")
    with pytest.raises(ValueError, match="events=True"):
        PyLiteralStream().feed_events("1")
    with pytest.raises(ValueError):
        PyLiteralStream(trailing="maybe")
    with pytest.raises(MalformedLiteral, match="invalid UTF-8"):
        PyLiteralStream().feed(b"'\xff'")


def test_bytes_split_inside_characters() -> None:
    text = "{'k': '你好 🚀', 'é': [1]}"
    data = text.encode()
    for i in range(len(data) + 1):
        assert read([data[:i], data[i:]]) == {"k": "你好 🚀", "é": [1]}


def test_snapshot_is_detached() -> None:
    stream = PyLiteralStream(calls=True)
    stream.feed("[f(a=[1,")
    snap = stream.snapshot()
    stream.feed(" 2])]")
    assert snap == [PyCall("f", [], {"a": [1]})] and stream.finish() == [
        PyCall("f", [], {"a": [1, 2]})
    ]


def _timed(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        stream = PyLiteralStream(calls=True, events=True)
        start = time.process_time()
        for i in range(0, len(text), 4):
            stream.feed_events(text[i : i + 4])
        stream.finish()
        best = min(best, time.process_time() - start)
    return best


def test_cost_is_linear() -> None:
    """4x the input costs well under 8x the time (a quadratic reader needs 16x), for
    many small calls and for one long string."""
    unit = "f(city='Paris', n=[1, 2.5, None], d={'k': ('x', True)}, s='''a\\nb'''), "
    words = "word \\n " * 4000
    for small, large in [
        ("[" + unit * 100 + "]", "[" + unit * 400 + "]"),
        ("[f(text='" + words + "')]", "[f(text='" + words * 4 + "')]"),
    ]:
        ratios = []
        for _ in range(3):
            ratios.append(_timed(large) / _timed(small))
            if ratios[-1] < 8:
                break
        assert min(ratios) < 8, ratios

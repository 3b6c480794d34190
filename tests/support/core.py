"""Shared helpers for the core parser tests: exact comparison, prefix order, feeding, strategies.

Everything here is independent of the parser's implementation: values are compared
type-exactly (``1`` is not ``1.0`` is not ``True``; NaN equals NaN; ``-0.0`` is not
``0.0``; dict key order counts, as ``json.loads`` defines it), containers are walked
iteratively so deeply nested values never hit the recursion limit.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.support.paths import ROOT
from unspool import UNSET, JsonStream, MalformedJSON
from unspool.core._path_events import PathEvent, Skipped, StringDelta

Chunk = str | bytes

# --------------------------------------------------------------------------- comparison


def _scalar_same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)  # NaN-safe, keeps the sign of zero and inf
    return bool(a == b)


def mismatch(got: Any, expected: Any) -> str | None:
    """Describe the first difference between two JSON-like values, or None if identical.

    Types are compared exactly (bool/int/float/str/list/dict), floats by ``repr``,
    dicts by items *and* key order.  Iterative: any nesting depth works.
    """
    stack: list[tuple[Any, Any, str]] = [(got, expected, "$")]
    while stack:
        a, b, where = stack.pop()
        if a is UNSET or b is UNSET:
            if a is not b:
                return f"{where}: got {a!r}, expected {b!r}"
            continue
        if type(a) is not type(b):
            return f"{where}: got {type(a).__name__} {_short(a)}, expected {type(b).__name__} {_short(b)}"
        if isinstance(a, list):
            if len(a) != len(b):
                return f"{where}: list length {len(a)} != {len(b)}: {_short(a)} vs {_short(b)}"
            stack.extend((x, y, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
        elif isinstance(a, dict):
            if list(a) != list(b):
                return f"{where}: keys {list(a)[:8]!r} != {list(b)[:8]!r}"
            stack.extend((a[k], b[k], f"{where}[{k!r}]") for k in a)
        elif not _scalar_same(a, b):
            return f"{where}: got {a!r}, expected {b!r}"
    return None


def assert_same(got: Any, expected: Any, context: str = "") -> None:
    """Assert type-exact equality (see :func:`mismatch`)."""
    problem = mismatch(got, expected)
    assert problem is None, f"{context}{': ' if context else ''}{problem}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def detach(value: Any) -> Any:
    """An iterative deep copy of a JSON-like value (independent of ``snapshot()``)."""
    if not isinstance(value, (list, dict)):
        return value
    root: Any = [] if isinstance(value, list) else {}
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        src, dst = stack.pop()
        items = enumerate(src) if isinstance(src, list) else src.items()
        for key, child in items:
            if isinstance(child, (list, dict)):
                copy: Any = [] if isinstance(child, list) else {}
                stack.append((child, copy))
            else:
                copy = child
            if isinstance(dst, list):
                dst.append(copy)
            else:
                dst[key] = copy
    return root


def prefix_violation(before: Any, after: Any) -> str | None:
    """Why ``after`` does not extend ``before`` (invariant 1), or None if it does.

    Strings only grow at the end, lists only append or grow their last element,
    dicts only add keys or grow their last key, scalars never change, and no value
    changes type.  Documents with duplicate keys are outside this relation.
    """
    stack: list[tuple[Any, Any, str]] = [(before, after, "$")]
    while stack:
        a, b, where = stack.pop()
        if a is UNSET:
            continue
        if b is UNSET:
            return f"{where}: {_short(a)} disappeared"
        if type(a) is not type(b):
            return f"{where}: type changed from {type(a).__name__} to {type(b).__name__}"
        if isinstance(a, str):
            if not b.startswith(a):
                return f"{where}: string {_short(a)} is not a prefix of {_short(b)}"
        elif isinstance(a, list):
            if len(a) > len(b):
                return f"{where}: list shrank from {len(a)} to {len(b)}"
            for i, (x, y) in enumerate(zip(a, b[: len(a)], strict=True)):
                if i < len(a) - 1:
                    problem = mismatch(x, y)
                    if problem is not None:
                        return f"{where}[{i}] changed after a later element began: {problem}"
                else:
                    stack.append((x, y, f"{where}[{i}]"))
        elif isinstance(a, dict):
            keys_a, keys_b = list(a), list(b)
            if keys_b[: len(keys_a)] != keys_a:
                return f"{where}: keys {keys_a!r} are not a prefix of {keys_b!r}"
            for i, k in enumerate(keys_a):
                if i < len(keys_a) - 1:
                    problem = mismatch(a[k], b[k])
                    if problem is not None:
                        return f"{where}[{k!r}] changed after a later key began: {problem}"
                else:
                    stack.append((a[k], b[k], f"{where}[{k!r}]"))
        elif not _scalar_same(a, b):
            return f"{where}: scalar changed from {a!r} to {b!r}"
    return None


def kinds_by_path(value: Any) -> dict[tuple[Any, ...], type]:
    """Map every path in ``value`` to the Python type found there."""
    found: dict[tuple[Any, ...], type] = {}
    if value is UNSET:
        return found
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        found[path] = type(node)
        if isinstance(node, list):
            stack.extend(((*path, i), child) for i, child in enumerate(node))
        elif isinstance(node, dict):
            stack.extend(((*path, k), child) for k, child in node.items())
    return found


def containers_by_path(value: Any) -> dict[tuple[Any, ...], Any]:
    """Map every path of a list or dict in ``value`` to that very object."""
    return {path: node for path, node in _walk(value) if isinstance(node, (list, dict))}


def _walk(value: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if value is UNSET:
        return
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        yield path, node
        if isinstance(node, list):
            stack.extend(((*path, i), child) for i, child in enumerate(node))
        elif isinstance(node, dict):
            stack.extend(((*path, k), child) for k, child in node.items())


def node_at(value: Any, path: tuple[Any, ...]) -> Any:
    """The value found at ``path`` inside ``value``."""
    for step in path:
        value = value[step]
    return value


# --------------------------------------------------------------------------- feeding


def chunks_at(text: Chunk, cuts: Iterable[int]) -> list[Chunk]:
    """Split ``text`` at the given offsets (sorted, duplicates give empty chunks)."""
    points = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(points)]


def one_by_one(text: Chunk) -> list[Chunk]:
    """Every character (or byte) as its own chunk."""
    return [text[i : i + 1] for i in range(len(text))]


def live(text: Chunk, **options: Any) -> Any:
    """Detached live value after feeding ``text`` in one chunk to a fresh parser."""
    parser = JsonStream(**options)
    return detach(parser.feed(text))


def decoded_prefix(data: bytes) -> str:
    """The characters of a valid UTF-8 byte prefix (an incomplete last character dropped)."""
    return data.decode("utf-8", errors="ignore")


@dataclass
class Feeding:
    """What happened while feeding a list of chunks: the detached value after each feed."""

    parser: JsonStream
    after_each: list[Any]


def feed_all(chunks: Sequence[Chunk], **options: Any) -> Feeding:
    """Feed ``chunks`` one by one, recording a detached copy of what each feed returned."""
    parser = JsonStream(**options)
    after_each = []
    for chunk in chunks:
        returned = parser.feed(chunk)
        assert returned is parser.value or mismatch(returned, parser.value) is None, (
            "feed() must return the live root"
        )
        after_each.append(detach(returned))
    return Feeding(parser, after_each)


def error_of(call: Callable[[], Any]) -> MalformedJSON:
    """Run ``call`` and return the MalformedJSON it raised (fail if it raised nothing)."""
    try:
        call()
    except MalformedJSON as err:
        return err
    raise AssertionError("expected MalformedJSON, nothing was raised")


def feed_until_error(
    chunks: Sequence[Chunk], **options: Any
) -> tuple[JsonStream, int, MalformedJSON]:
    """Feed chunks and then finish; return the parser, the chunk index that raised, the error.

    The chunk index is ``len(chunks)`` when it was ``finish()`` that raised.
    """
    parser = JsonStream(**options)
    for index, chunk in enumerate(chunks):
        try:
            parser.feed(chunk)
        except MalformedJSON as err:
            return parser, index, err
    try:
        parser.finish()
    except MalformedJSON as err:
        return parser, len(chunks), err
    raise AssertionError(f"expected MalformedJSON; finish() gave {parser.value!r}")


def assert_partial(err: MalformedJSON, good: Chunk, **options: Any) -> None:
    """``err.partial`` is the last good snapshot of the input ``good`` that came before the
    offending character: its live value, or what ``finish()`` would make of it (a number
    that the offending character ended may be included)."""
    parser = JsonStream(**options)
    parser.feed(good)
    shown = detach(parser.value)
    finished = parser.finish()
    if mismatch(err.partial, shown) is not None:
        assert_same(err.partial, finished, f".partial after {good!r} (neither live nor finished)")


def chunk_holding(chunks: Sequence[Chunk], pos: int) -> int:
    """Index of the chunk that contains character offset ``pos`` (str chunks)."""
    start = 0
    for index, chunk in enumerate(chunks):
        if start <= pos < start + len(chunk):
            return index
        start += len(chunk)
    return len(chunks)


# --------------------------------------------------------------------------- events


def merge_deltas(events: Iterable[PathEvent]) -> list[PathEvent]:
    """Join adjacent StringDelta of the same path, and adjacent Skipped of the same kind."""
    merged: list[PathEvent] = []
    for event in events:
        last = merged[-1] if merged else None
        if (
            isinstance(event, StringDelta)
            and isinstance(last, StringDelta)
            and last.path == event.path
        ):
            merged[-1] = StringDelta(last.path, last.text + event.text)
        elif (
            isinstance(event, Skipped)
            and isinstance(last, Skipped)
            and last.kind == event.kind
            and last.pos + len(last.text) == event.pos
        ):
            merged[-1] = Skipped(last.kind, last.pos, last.text + event.text)
        else:
            merged.append(event)
    return merged


def events_of(chunks: Sequence[Chunk], **options: Any) -> tuple[JsonStream, list[PathEvent]]:
    """Every event of feeding ``chunks`` and then finishing (events=True)."""
    parser = JsonStream(events=True, **options)
    events: list[PathEvent] = []
    for chunk in chunks:
        events.extend(parser.feed_events(chunk))
    events.extend(parser.finish_events())
    return parser, events


# --------------------------------------------------------------------------- conformance data


DATA_DIR = ROOT / "tests" / "data"
"""Test data shipped in the repository (a fresh clone needs nothing beside it)."""


def conformance_dir() -> Path:
    """The folder holding ``JSONTestSuite/`` (its MIT licence is kept beside the files)."""
    return DATA_DIR


def suite_dir() -> Path:
    """The JSONTestSuite ``test_parsing`` folder."""
    return conformance_dir() / "JSONTestSuite" / "test_parsing"


def transform_dir() -> Path:
    """The JSONTestSuite ``test_transform`` folder."""
    return conformance_dir() / "JSONTestSuite" / "test_transform"


def suite_names(prefix: str) -> list[str]:
    """File names in test_parsing starting with ``prefix``."""
    return sorted(p.name for p in suite_dir().iterdir() if p.name.startswith(prefix))


def read_suite_file(folder: Path, name: str) -> bytes:
    """The raw bytes of one conformance file (several are not UTF-8 on purpose)."""
    return (folder / name).read_bytes()


def utf8_or_none(data: bytes) -> str | None:
    """``data`` decoded as strict UTF-8, or None if it is not valid UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# --------------------------------------------------------------------------- hypothesis


WS = st.text(alphabet=" \t\n\r", max_size=3)
"""JSON whitespace runs, empty included."""

_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}

TEXT = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0x7F),
        st.characters(min_codepoint=0x80, max_codepoint=0x7FF),
        st.characters(
            min_codepoint=0x800,
            max_codepoint=0xFFFF,
            categories=("L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Co"),
        ),
        st.characters(min_codepoint=0x10000),
        st.integers(min_value=0xD800, max_value=0xDFFF).map(chr),
        st.sampled_from('"\\/\b\f\n\r\t\x00\x1f \u2028😀é'),
    ),
    max_size=12,
)
"""Python strings to emit as JSON strings: all planes, lone surrogates, specials."""


def _hex4(draw: st.DrawFn, code: int) -> str:
    digits = f"{code:04x}"
    case = draw(st.sampled_from(["lower", "upper", "mixed"]))
    if case == "upper":
        return digits.upper()
    if case == "mixed":
        return "".join(c.upper() if i % 2 else c for i, c in enumerate(digits))
    return digits


@st.composite
def emit_string(draw: st.DrawFn, value: str) -> str:
    """JSON text for ``value`` with a random escaping choice per character."""
    out = ['"']
    for ch in value:
        code = ord(ch)
        must_escape = ch in '"\\' or code < 0x20 or 0xD800 <= code <= 0xDFFF
        if code > 0xFFFF:
            if draw(st.booleans()):
                out.append(ch)
            else:
                high = 0xD800 + ((code - 0x10000) >> 10)
                low = 0xDC00 + ((code - 0x10000) & 0x3FF)
                out.append(f"\\u{_hex4(draw, high)}\\u{_hex4(draw, low)}")
            continue
        style = draw(st.sampled_from(["raw", "short", "u"]))
        if style == "raw" and not must_escape:
            out.append(ch)
        elif style != "u" and ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif must_escape or style == "u":
            out.append(f"\\u{_hex4(draw, code)}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


@st.composite
def number_text(draw: st.DrawFn) -> str:
    """A valid JSON number: big ints, fractions, exponents in both cases and signs."""
    kind = draw(st.sampled_from(["int", "int", "bigint", "float", "repr"]))
    if kind == "repr":
        return repr(draw(st.floats(allow_nan=False, allow_infinity=False)))
    sign = draw(st.sampled_from(["", "", "-"]))
    if kind == "bigint":
        length = draw(st.sampled_from([19, 20, 40, 100, 4300]))
    else:
        length = draw(st.integers(min_value=1, max_value=6))
    if length == 1:
        digits = draw(st.sampled_from("0123456789"))
    else:
        first = draw(st.sampled_from("123456789"))
        pattern = draw(st.text(alphabet="0123456789", min_size=1, max_size=12))
        digits = first + (pattern * length)[: length - 1]
    text = sign + digits
    if kind == "float":
        if draw(st.booleans()):
            text += "." + draw(st.text(alphabet="0123456789", min_size=1, max_size=18))
        if draw(st.booleans()) or "." not in text:
            text += draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "+", "-"]))
            text += draw(st.text(alphabet="0123456789", min_size=1, max_size=4))
    return text


@st.composite
def scalar_text(draw: st.DrawFn) -> str:
    """A JSON literal, number or string."""
    kind = draw(st.sampled_from(["literal", "number", "number", "string", "string"]))
    if kind == "literal":
        return draw(st.sampled_from(["true", "false", "null"]))
    if kind == "number":
        return draw(number_text())
    return draw(emit_string(draw(TEXT)))


KEYS = st.one_of(st.sampled_from(["a", "b", "k", "é", "😀", "", "a b", "\\", '"']), TEXT)
"""Object keys: a small pool (so duplicates are likely when allowed) plus arbitrary text."""


def _array(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        items = draw(st.lists(st.tuples(WS, children, WS), max_size=5))
        if not items:
            return "[" + draw(WS) + "]"
        return "[" + ",".join(a + v + b for a, v, b in items) + "]"

    return build()


def _object(children: st.SearchStrategy[str], unique: bool) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        members = draw(
            st.lists(
                st.tuples(KEYS, children),
                max_size=5,
                unique_by=(lambda m: m[0]) if unique else None,
            )
        )
        if not members:
            return "{" + draw(WS) + "}"
        parts = []
        for key, value in members:
            key_text = draw(emit_string(key))
            parts.append(draw(WS) + key_text + draw(WS) + ":" + draw(WS) + value + draw(WS))
        return "{" + ",".join(parts) + "}"

    return build()


def json_docs(unique_keys: bool = True) -> st.SearchStrategy[str]:
    """Complete JSON documents as text, with random escaping, spacing and numbers."""
    tree = st.recursive(
        scalar_text(),
        lambda children: st.one_of(_array(children), _object(children, unique_keys)),
        max_leaves=20,
    )

    @st.composite
    def doc(draw: st.DrawFn) -> str:
        body = draw(deep_nest() if draw(st.integers(0, 4)) == 0 else tree)
        return draw(WS) + body + draw(WS)

    return doc()


@st.composite
def deep_nest(draw: st.DrawFn) -> str:
    """A deeply nested document (up to 300 levels) mixing arrays and objects."""
    depth = draw(st.integers(min_value=1, max_value=300))
    shape = draw(st.lists(st.booleans(), min_size=depth, max_size=depth))
    leaf = draw(scalar_text())
    opening = "".join('{"k":' if is_obj else "[" for is_obj in shape)
    closing = "".join("}" if is_obj else "]" for is_obj in reversed(shape))
    return opening + leaf + closing


@st.composite
def cut_points(draw: st.DrawFn, length: int, max_cuts: int = 12) -> list[int]:
    """Sorted offsets in ``0..length`` at which to split an input."""
    return sorted(draw(st.lists(st.integers(min_value=0, max_value=length), max_size=max_cuts)))


def loads(text: Chunk) -> Any:
    """``json.loads``, the reference of every equivalence check."""
    return json.loads(text)


# --------------------------------------------------------------------------- documents

CORPUS: list[str] = [
    "{}",
    "[]",
    '""',
    "0",
    "-0",
    "-0.0",
    "12",
    "true",
    "false",
    "null",
    '"abc"',
    " \t\n\r[ 1 , 2 ]\r\n ",
    '{"a": 1}',
    '{"a": 1}  ',
    '{"key": "value", "k2": [1, 2.5, -3e2, true, false, null]}',
    '{"a": {"b": [1, {"c": "d"}]}}',
    "[[1, 2], [3], [], {}, [[[]]]]",
    '{"__proto__": {"x": 1}, "b": 2}',
    '{"a": 1, "a": "s"}',
    '{"a": [1, 2], "b": {"c": null}, "a": {"z": 0}}',
    '{"big": 123456789012345678901234567890, "neg": -98765432109876543210}',
    "[0, -0, 0.0, -0.0, 1.0, 1e5, 1E+5, 1e-05, 2.5E-3, 123.456e78, 1e400, -1e400, 1e-400]",
    "[1.7976931348623157e308, 5e-324, 0.1, 100000000000000000000000.0]",
    '["\\"\\\\\\/\\b\\f\\n\\r\\t", "\\u0000\\u001f\\u007f", "\\u00e9\\u00E9"]',
    '["\\ud83d\\ude00", "\\uD83D\\uDE00", "😀", "a\\ud834\\udd1eb", "\\udbff\\udfff"]',
    '["\\ud800", "\\udc00", "\\ud800x", "\\ude00\\ud83d", "\\ud83d\\u0041", "\\ud800\\ud800\\udc00"]',
    '{"\\u00e9\\ud83d\\ude00": "key with escapes", "é😀": "raw key"}',
    '["é", "日本語", "ш", "\u2028\u2029", "\x7f", "𝄞𝄞"]',
    '{"text": "line one\\nline two\\n\\ttabbed \\"quoted\\" back\\\\slash", "n": 3}',
    '[\n  {\n    "id": 1,\n    "tags": ["a", "b"]\n  },\n  {\n    "id": 2,\n    "tags": []\n  }\n]',
    '{"interleaved": [{"type": "text", "text": "Hello "}, {"type": "action", "name": "search", '
    '"args": {"q": "weather in Paris", "limit": 3}}, {"type": "text", "text": "done."}]}',
    '{"code": "def f(x):\\n    return {\\"k\\": [x, \'y\']}\\n", "lang": "python"}',
    "[" + "[" * 60 + '"deep"' + "]" * 60 + "]",
    '{"a":' * 40 + "1" + "}" * 40,
    "[" + "1" * 1000 + ", -" + "9" * 300 + "]",
    "[" + "1" * 600 + ".5, " + "2" * 400 + "e-400, -" + "3" * 350 + "E+2]",
    '"' + "long string " * 40 + '"',
    '  "root string with trailing space "  ',
    "-1.5e-7",
    "[true,false,null,true]",
    '{"":"","  ":" "}',
]
"""Complete documents every test module can split, feed and compare to ``json.loads``."""

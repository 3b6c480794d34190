"""The table of lenient repair kinds: one row per kind, read by everything that lists them.

:data:`~unspool.core._lexicon.LENIENT_KINDS`, every repair message both machines write,
and the README's table of kinds come from :data:`REPAIR_KINDS` (a test renders the
README's table from it and compares).  Adding a kind is one row here plus its branch in
the machine; the row's ``c_machine`` says what the C machine does with it:

* ``"reads"``: the C machine reads the repair itself (its message must match the row's);
* ``"partly"``: it reads the commonest shapes and hands the rest to the Python machine;
* ``"hands over"``: it hands the stream to the Python machine at this repair, so a new
  kind can start here and the C machine needs no change;
* ``"one-shot"``: only :func:`~unspool.core._oneshot.loads` makes it (not a stream repair).

A test feeds each row's examples to the C machine and checks the column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = ["REPAIR_KINDS", "Example", "RepairKind", "kind_names", "readme_table", "say"]

CMachine = Literal["reads", "partly", "hands over", "one-shot"]


@dataclass(frozen=True)
class Example:
    """One line of the README's table: what a model wrote and what it reads as."""

    wrote: str
    reads_as: str
    label: str = ""
    """Shown after the kind's name when a kind has several lines (``(opening)``)."""


@dataclass(frozen=True)
class RepairKind:
    """A lenient repair: its name (the ``kind`` of a :class:`Repair`), what it does in one
    line, the message templates of its reports, what the C machine does with it, and
    the README's examples."""

    name: str
    doc: str
    messages: Mapping[str, str]
    """Message templates by variant; ``""`` is the main one.  Fields in braces are filled
    by :func:`say`."""
    c_machine: CMachine
    examples: tuple[Example, ...] = field(default=())


def _kind(
    name: str,
    doc: str,
    c_machine: CMachine,
    messages: str | Mapping[str, str],
    *examples: tuple[str, ...],
) -> RepairKind:
    return RepairKind(
        name,
        doc,
        {"": messages} if isinstance(messages, str) else messages,
        c_machine,
        tuple(Example(*e) for e in examples),
    )


REPAIR_KINDS: Final[tuple[RepairKind, ...]] = (
    _kind(
        "trailing_comma",
        "a comma before a closer is dropped",
        "reads",
        "dropped a trailing comma",
        ("`[1, 2,]`", "`[1, 2]`"),
    ),
    _kind(
        "single_quotes",
        "a string or key in single quotes is read; so is \\' in a double-quoted string",
        "partly",
        {"": "read a single-quoted {what}", "escape": "decoded \\' (not a JSON escape)"},
        ("`{'a': 'x'}`", '`{"a": "x"}`'),
    ),
    _kind(
        "unquoted_key",
        "a key without quotes is read as a string",
        "reads",
        "read an unquoted key",
        ('`{a: 1, 2: "two"}`', '`{"a": 1, "2": "two"}`'),
    ),
    _kind(
        "comment",
        "// line, /* block */ and # line comments between tokens are skipped",
        "reads",
        {"": "skipped a comment", "hash": "skipped a # comment"},
        ("`[1, /* c */ 2] // end`, `# note` lines", "`[1, 2]`"),
    ),
    _kind(
        "python_literal",
        "Python's True, False and None are read as JSON's literals",
        "reads",
        "read {tok}",
        ("`[True, None]`", "`[true, null]`"),
    ),
    _kind(
        "literal_case",
        "a literal in another letter case (TRUE, Null) is read as the literal",
        "reads",
        "read {tok}",
        ('`{"a": TRUE, "b": Null}`', '`{"a": true, "b": null}`'),
    ),
    _kind(
        "control_char",
        "a raw control character inside a string is kept",
        "reads",
        "kept a raw control character in a string",
        ("a raw newline or tab inside a string", "kept in the string"),
    ),
    _kind(
        "missing_comma",
        "a comma missing between two items or members is inserted",
        "reads",
        "inserted a missing comma",
        (
            '`[1 2]`, `["a" 2]`, `["x" [1]]`, `{"a": 1 "b": 2}`',
            '`[1, 2]`, `["a", 2]`, ...',
        ),
    ),
    _kind(
        "inner_quote",
        "a quote inside a string that does not end it is kept as text",
        "hands over",
        "kept an unescaped quote inside a string",
        ('`{"s": "He said "hi" to me"}`', '`{"s": "He said \\"hi\\" to me"}`'),
    ),
    _kind(
        "invalid_escape",
        "a backslash before a letter JSON does not know as an escape is kept as text",
        "hands over",
        "kept \\{e} as text",
        ('`"\\(K_\\alpha\\)"`, `"\\d+"`, `"C:\\Users"`', "the backslash kept as text"),
    ),
    _kind(
        "unquoted_value",
        "a value without quotes that is no literal or number is read as a string",
        "partly",
        "read an unquoted value as a string",
        ('`{"city": New York}`, `[a, b]`, `[2024-01-15]`, `12abc`', "strings"),
    ),
    _kind(
        "leading_zeros",
        "a number with leading zeros is read as the number",
        "hands over",
        "read {tok} as a number (leading zeros)",
        ("`[007]`", "`[7]`"),
    ),
    _kind(
        "curly_quotes",
        "typographic quotes used as string delimiters are read as quotes",
        "hands over",
        "read a curly-quoted {what}",
        ("`{\u201ca\u201d: \u201cb\u201d}`, `[\u2018x\u2019]`", '`{"a": "b"}`, `["x"]`'),
    ),
    _kind(
        "ellipsis",
        "an ellipsis standing for more items is dropped",
        "hands over",
        "dropped an ellipsis",
        ('`[1, 2, ...]`, `{"a": 1, \u2026}`', '`[1, 2]`, `{"a": 1}`'),
    ),
    _kind(
        "missing_quote",
        "a string whose closing or opening quote is missing is closed or opened",
        "partly",
        {
            "": "closed a string whose closing quote was missing",
            "opening": "read a {what} whose opening quote was missing",
        },
        (
            '`{"city": "New York, "zip": "10001"}`',
            '`{"city": "New York", "zip": "10001"}`',
        ),
        (
            '`[a", "b"]`, `{"a": abc", b": 1}`',
            '`["a", "b"]`, `{"a": "abc", "b": 1}`',
            "(opening)",
        ),
    ),
    _kind(
        "missing_value",
        "a member or item with no value before its comma or closer is read as null",
        "hands over",
        "read null",
        ('`{"a": , "b": }`', '`{"a": null, "b": null}`'),
    ),
    _kind(
        "mismatched_closer",
        "a closer of the wrong kind closes what is open up to the matching container",
        "hands over",
        {"": "closed {what} at {c}", "before": "closed an object before {{"},
        (
            '`[{"b": 2]`, `{"a": [1, 2}`, `{"a": [{"k": 1], "b": 2}`, `[{"i": 1, {"i": 2}]`',
            '`[{"b": 2}]`, `{"a": [1, 2]}`, `{"a": [{"k": 1}], "b": 2}`, `[{"i": 1}, {"i": 2}]`',
        ),
    ),
    _kind(
        "extra_closer",
        "a closer with nothing open to close is dropped",
        "hands over",
        "dropped a stray {c}",
        ('`{"a": 1}}`, `[{"a": 1}}, {"b": 2}]`', '`{"a": 1}`, `[{"a": 1}, {"b": 2}]`'),
    ),
    _kind(
        "escaped_json",
        "JSON written as a string's content has one level of escapes undone",
        "one-shot",
        "read JSON escaped as a string's content",
        ('`{\\"key\\": \\"value\\"}` (one-shot `loads`/`repair` only)', '`{"key": "value"}`'),
    ),
    _kind(
        "unicode_space",
        "a Unicode space between tokens is read as a blank",
        "hands over",
        "read a Unicode space as a blank",
        (
            '`{"a":\\u00a0"b", "n": 1\\u3000}` (a non-breaking or ideographic space between tokens)',
            '`{"a": "b", "n": 1}` (inside a string or a word it stays text)',
        ),
    ),
    _kind(
        "nan",
        "NaN, Infinity and -Infinity are read as floats",
        "partly",
        "read {tok}",
        ("`[NaN, -Infinity]`", "floats"),
    ),
    _kind(
        "truncated",
        "containers left open at the end of the input are closed",
        "hands over",
        "closed {n} open container(s) at the end of input",
        (
            '`{"a": [1, "tex`; with `trailing="ignore"` also `{"a": [1, 2` then the reply\'s closing fence',
            '`{"a": [1, "tex"]}`, `{"a": [1, 2]}` (the fence and after it: `tail`)',
        ),
    ),
)
"""Every repair the lenient mode knows, in the README's order."""

_BY_NAME: Final = {k.name: k for k in REPAIR_KINDS}


def kind_names() -> frozenset[str]:
    """The names of every kind (``LENIENT_KINDS``)."""
    return frozenset(_BY_NAME)


def say(kind: str, variant: str = "", **fields: Any) -> str:
    """The message of a repair of ``kind`` (its ``variant``), with ``fields`` filled in."""
    return _BY_NAME[kind].messages[variant].format(**fields)


def readme_table() -> str:
    """The README's table of kinds, rendered from :data:`REPAIR_KINDS`."""
    lines = ["| kind | the model wrote | read as |", "|---|---|---|"]
    for k in REPAIR_KINDS:
        for ex in k.examples:
            label = f" {ex.label}" if ex.label else ""
            lines.append(f"| `{k.name}`{label} | {ex.wrote} | {ex.reads_as} |")
    return "\n".join(lines)

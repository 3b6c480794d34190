"""The table of lenient repair kinds (``unspool.core._repairs``) against what reads it:
``LENIENT_KINDS``, the README's table, the messages both machines write, and the
``c_machine`` column against what the C machine really does."""

from __future__ import annotations

import re

import pytest

from tests.support.machines import MACHINES, needs_c, on_machine
from tests.support.paths import ROOT
from unspool import LENIENT_KINDS, JsonStream, MalformedJSON, loads_with_repairs
from unspool.core._repairs import REPAIR_KINDS, RepairKind, readme_table

README = ROOT / "README.md"

# Each kind's cases as models write them (the README examples are prose, not all parseable).
CASES: dict[str, list[str]] = {
    "trailing_comma": ["[1, 2,]", '{"a": 1,}'],
    "single_quotes": ["{'a': 'x'}", "['it\\'s']", '["it\\\'s"]'],
    "unquoted_key": ['{a: 1, 2: "two"}'],
    "comment": ["[1, /* c */ 2] // end", "[1,\n# note\n2]"],
    "python_literal": ["[True, None, False]"],
    "literal_case": ['{"a": TRUE, "b": Null}'],
    "control_char": ['["a\nb\tc"]'],
    "missing_comma": ["[1 2]", '["x" [1]]', '{"a": 1 "b": 2}'],
    "inner_quote": ['{"s": "He said "hi" to me"}'],
    "invalid_escape": ['["\\\\d+ \\d"]', '["C:\\Users"]', '["\\u"]'],
    "unquoted_value": ["[a, b]", '{"city": New York}', "[2024-01-15]"],
    "leading_zeros": ["[007]"],
    "curly_quotes": ["{\u201ca\u201d: \u201cb\u201d}", "[\u2018x\u2019]"],
    "ellipsis": ["[1, 2, ...]", '{"a": 1, \u2026}'],
    "missing_quote": ['{"city": "New York, "zip": "10001"}', '[a", "b"]'],
    "missing_value": ['{"a": , "b": }'],
    "mismatched_closer": ['[{"b": 2]', '{"a": [1, 2}', '[{"i": 1, {"i": 2}]'],
    "extra_closer": ['{"a": 1}}', '[{"a": 1}}, {"b": 2}]'],
    "escaped_json": ['{\\"key\\": \\"value\\"}'],
    "unicode_space": ['{"a":\u00a0"b", "n": 1\u3000}'],
    "nan": ["[NaN, Infinity]", "[-Infinity]"],
    "truncated": ['{"a": [1, "tex'],
}


def _pattern(kind: RepairKind) -> re.Pattern[str]:
    """A regex matching every message the kind's templates can give."""
    alts = []
    for template in kind.messages.values():
        parts = re.split(r"(\{\w+\})", template.replace("{{", "\0").replace("}}", "\1"))
        alts.append(
            "".join(
                ".+"
                if re.fullmatch(r"\{\w+\}", p)
                else re.escape(p).replace("\0", r"\{").replace("\1", r"\}")
                for p in parts
            )
        )
    return re.compile("|".join(f"(?:{a})" for a in alts))


def test_lenient_kinds_are_the_rows() -> None:
    assert [k.name for k in REPAIR_KINDS] == sorted(
        (k.name for k in REPAIR_KINDS), key=[k.name for k in REPAIR_KINDS].index
    )
    assert len({k.name for k in REPAIR_KINDS}) == len(REPAIR_KINDS)
    assert frozenset(k.name for k in REPAIR_KINDS) == LENIENT_KINDS
    assert set(CASES) == LENIENT_KINDS  # every kind has cases here


def test_the_readme_table_is_rendered_from_the_rows() -> None:
    assert readme_table() in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", REPAIR_KINDS, ids=lambda k: k.name)
def test_every_message_comes_from_the_row(kind: RepairKind) -> None:
    """Both machines, every case: each repair of this kind says one of its row's messages."""
    pattern = _pattern(kind)
    seen = set()
    for machine in MACHINES:
        with on_machine(machine):
            for text in CASES[kind.name]:
                _, repairs = loads_with_repairs(text)
                for r in (r for r in repairs if r.kind == kind.name):
                    assert pattern.fullmatch(r.message), (machine, text, r)
                    seen.add(r.kind)
    assert kind.name in seen  # the cases do make this repair


def _handed_over(text: str) -> bool:
    """Whether the C machine handed a lenient stream of ``text`` to the Python machine
    before the end of the input."""
    parser = JsonStream(lenient=True)
    parser.feed(text)
    return getattr(parser, "_gen", None) is not None


@needs_c
@pytest.mark.parametrize("kind", REPAIR_KINDS, ids=lambda k: k.name)
def test_the_c_machine_column_says_what_the_c_machine_does(kind: RepairKind) -> None:
    if kind.c_machine == "one-shot":
        parser = JsonStream(lenient=True)
        with pytest.raises(MalformedJSON):  # a stream cannot undo the escapes as it goes
            parser.feed(CASES[kind.name][0])
            parser.finish()
        assert kind.name not in {r.kind for r in parser.repairs}
        return
    with on_machine("c"):
        handed = [_handed_over(t) for t in CASES[kind.name] if kind.name != "truncated"]
    if kind.name == "truncated":  # made at finish(), where the Python machine closes
        assert kind.c_machine == "hands over"
    elif kind.c_machine == "reads":
        assert not any(handed), CASES[kind.name]
    elif kind.c_machine == "hands over":
        assert all(handed), CASES[kind.name]
    else:
        assert any(handed) and not all(handed), CASES[kind.name]

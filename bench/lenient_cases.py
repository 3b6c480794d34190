"""What the lenient repairs of issue 13 read, next to json_repair and jsonmend.

Each case is a model habit with the value a careful reader would take from it.
Every peer reads the whole reply (json_repair as ``repair_json(return_objects=True)``,
jsonmend and unspool fed in 8-character chunks), and its value is compared with the
expected one: ``ok``, ``wrong`` (a value that differs) or ``refused`` (an error or no
value). A refusal is not a wrong value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from bench.table import render

__all__ = ["CASES", "compare"]

NAN = float("nan")

CASES: list[tuple[str, str, Any]] = [
    ("missing comma, string then number", '["a" 2]', ["a", 2]),
    ("missing comma, string then array", '["x" [1]]', ["x", [1]]),
    (
        "a URL after an inner quote",
        '{"c": "[LINK]("https://x.org")"}',
        {"c": '[LINK]("https://x.org")'},
    ),
    ("a bare UUID", "746de9ad-d4ff-4c66-97d7-00a92ad46967", "746de9ad-d4ff-4c66-97d7-00a92ad46967"),
    ("LaTeX escapes", '{"tex": "\\(K_\\alpha\\)"}', {"tex": "\\(K_\\alpha\\)"}),
    ("regex escapes", '{"re": "\\d+\\s"}', {"re": "\\d+\\s"}),
    ("a Windows path", '{"p": "C:\\Users\\me"}', {"p": "C:\\Users\\me"}),
    ("unquoted words", '{"city": New York}', {"city": "New York"}),
    ("unquoted key and value", "{key: value}", {"key": "value"}),
    ("a bare date in an array", "[2024-01-15, 3]", ["2024-01-15", 3]),
    ("literals in any case", '{"a": TRUE, "b": Null}', {"a": True, "b": None}),
    ("leading zeros", '{"n": 007}', {"n": 7}),
    ("curly quotes as delimiters", "{\u201ca\u201d: \u201cb\u201d}", {"a": "b"}),
    ("curly quotes inside a string", '{"a": "\u201cx\u201d"}', {"a": "\u201cx\u201d"}),
    ("an ellipsis in an array", "[1, 2, ...]", [1, 2]),
    ("an ellipsis in an object", '{"a": 1, ...}', {"a": 1}),
    ("a missing value", '{"a": , "b": 2}', {"a": None, "b": 2}),
    ("a missing brace before ]", '[{"b": 2]', [{"b": 2}]),
    ("a mistyped closer", '{"k": ["v"}, "n": 1}', {"k": ["v"], "n": 1}),
    ("a stray closer", '[{"a": 1}}, {"b": 2}]', [{"a": 1}, {"b": 2}]),
    ("numeric keys", '{2: "two"}', {"2": "two"}),
    ("a # comment", '{"a": 1, # note\n"b": 2}', {"a": 1, "b": 2}),
    ("escaped quotes inside a string", '{"a": "say \\"hi\\""}', {"a": 'say "hi"'}),
    ("valid JSON string holding JSON", '"{\\"a\\": 1}"', '{"a": 1}'),
]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _verdict(read: Callable[[str], Any], text: str, want: Any) -> str:
    try:
        got = read(text)
    except Exception:  # a peer's refusal, whatever its type, is the measurement
        return "refused"
    if (got is None and want is not None) or (got == "" and want != ""):
        return "refused"
    return "ok" if _same(got, want) else "wrong"


def _chunked(feed: Callable[[Sequence[str]], Any]) -> Callable[[str], Any]:
    return lambda text: feed([text[i : i + 8] for i in range(0, len(text), 8)])


def compare(readers: dict[str, Callable[[str], Any]]) -> tuple[str, dict[str, Any]]:
    """The table of verdicts per case and reader, and the counts per reader."""
    rows = []
    counts = {name: {"ok": 0, "wrong": 0, "refused": 0} for name in readers}
    for what, text, want in CASES:
        row = [what]
        for name, read in readers.items():
            v = _verdict(read, text, want)
            counts[name][v] += 1
            row.append(v)
        rows.append(row)
    rows.append(
        [
            "ok / wrong / refused",
            *(f"{c['ok']} / {c['wrong']} / {c['refused']}" for c in counts.values()),
        ]
    )
    return render(["habit", *readers], rows), {"counts": counts, "cases": len(CASES)}


def readers() -> tuple[dict[str, Callable[[str], Any]], list[str]]:
    """unspool and the installed peers, each reading a whole reply."""
    from bench.peers import optional_module
    from unspool import UNSET, JsonStream

    def ours(chunks: Sequence[str]) -> Any:
        p = JsonStream(lenient=True)
        for c in chunks:
            p.feed(c)
        value = p.finish()
        if value is UNSET:
            raise ValueError("no value")
        return value

    out: dict[str, Callable[[str], Any]] = {"unspool lenient": _chunked(ours)}
    notes = []
    json_repair = optional_module("json_repair")
    if json_repair is None:
        notes.append("json_repair column skipped: not installed")
    else:
        out["json_repair"] = lambda t: json_repair.repair_json(t, return_objects=True)
    jsonmend = optional_module("jsonmend")
    if jsonmend is None:
        notes.append("jsonmend column skipped: not installed")
    else:

        def mend(chunks: Sequence[str]) -> Any:
            m = jsonmend.Mender()
            for c in chunks:
                m.feed(c)
            return m.close()

        out["jsonmend"] = _chunked(mend)
    return out, notes

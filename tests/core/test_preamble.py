"""skip_preamble=True / trailing="ignore": prose, fences and <think> blocks before the value,
commentary after it.  Each reply is split at every index (as str and as UTF-8 bytes)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.core import (
    CORPUS,
    assert_same,
    chunks_at,
    detach,
    events_of,
    live,
    loads,
    one_by_one,
)
from unspool import UNSET, JsonStream, Skipped, parse_partial

OPTIONS: dict[str, Any] = {"skip_preamble": True, "trailing": "ignore"}


# (name, reply, the JSON text of the root value inside it, what follows the root)
REPLIES: list[tuple[str, str, str, str]] = [
    (
        "fence",
        'Sure! Here is the result:\n\n```json\n{"name": "Ada", "tags": ["x", "y"]}\n```\n'
        "Let me know if you need more.",
        '{"name": "Ada", "tags": ["x", "y"]}',
        "\n```\nLet me know if you need more.",
    ),
    ("bare fence", '```\n[1, 2, {"a": null}]\n```', '[1, 2, {"a": null}]', "\n```"),
    (
        "think with braces (A13)",
        '<think>e.g. {"name":"Alice"}</think>{"name":"Bob"}',
        '{"name":"Bob"}',
        "",
    ),
    (
        "think block with stray brackets",
        '<think>\nThe user wants {"a": [1, 2]} maybe; let me think } ] {\n</think>\n\n'
        '{"answer": 42}\nDone.',
        '{"answer": 42}',
        "\nDone.",
    ),
    (
        "citation before an object",
        'For details see [1]. The config is:\n{"retries": 3, "backoff": [1, 2, 4]}',
        '{"retries": 3, "backoff": [1, 2, 4]}',
        "",
    ),
    (
        "citation before an array",
        'As noted in [2], the items are:\n[{"id": 1}, {"id": 2}]\nThat is all.',
        '[{"id": 1}, {"id": 2}]',
        "\nThat is all.",
    ),
    (
        "braces in prose",
        'Use {braces} like this: {"a": "b"} and nothing else.',
        '{"a": "b"}',
        " and nothing else.",
    ),
    ("commentary after", '{"ok": true} Hope that helps!', '{"ok": true}', " Hope that helps!"),
    (
        "unicode prose and value",
        'Voilà — le résultat 😀 :\n```json\n{"ville": "Zürich", "emoji": "🎉"}\n```',
        '{"ville": "Zürich", "emoji": "🎉"}',
        "\n```",
    ),
]


def _where(reply: str, json_text: str, rest: str) -> tuple[int, int]:
    end = len(reply) - len(rest)
    start = end - len(json_text)
    assert reply[start:end] == json_text and reply.endswith(rest)
    return start, end


def _ids(row: tuple[str, str, str, str]) -> str:
    return row[0]


@pytest.mark.parametrize("row", REPLIES, ids=_ids)
def test_value_and_tail_under_every_split(row: tuple[str, str, str, str]) -> None:
    _, reply, json_text, rest = row
    expected = loads(json_text)
    data = reply.encode("utf-8")
    plans: list[list[Any]] = [[reply], one_by_one(reply), one_by_one(data)]
    plans += [chunks_at(reply, [cut]) for cut in range(len(reply) + 1)]
    plans += [chunks_at(data, [cut]) for cut in range(len(data) + 1)]
    for chunks in plans:
        parser = JsonStream(**OPTIONS)
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(detach(parser.value), expected, f"live value, {chunks!r}")
        assert_same(parser.finish(), expected, f"finish, {chunks!r}")
        assert parser.complete is True
        assert parser.tail == rest, f"tail after {chunks!r}"


@pytest.mark.parametrize("row", REPLIES, ids=_ids)
def test_nothing_before_the_value_is_shown(row: tuple[str, str, str, str]) -> None:
    """Prose, fences, think blocks and citations never appear in the live value; once the
    value is visible it is the strict live value of the JSON text so far."""
    _, reply, json_text, rest = row
    start, end = _where(reply, json_text, rest)
    parser = JsonStream(**OPTIONS)
    visible = False
    for k, chunk in enumerate(one_by_one(reply), start=1):
        shown = detach(parser.feed(chunk))
        if k <= start:
            assert shown is UNSET, f"{reply[:k]!r} shows {shown!r}"
            continue
        if shown is UNSET:
            assert not visible, f"the value vanished after {reply[:k]!r}"
            assert k < end, f"the value is not visible after {reply[:k]!r}"
            continue
        visible = True
        assert_same(shown, live(reply[start : min(k, end)]), f"after {reply[:k]!r}")


@pytest.mark.parametrize("row", REPLIES, ids=_ids)
def test_skipped_events_cover_the_preamble(row: tuple[str, str, str, str]) -> None:
    _, reply, json_text, rest = row
    start, _ = _where(reply, json_text, rest)
    for chunks in ([reply], one_by_one(reply)):
        _, events = events_of(chunks, **OPTIONS)
        skipped = [e for e in events if isinstance(e, Skipped) and e.pos < start]
        for event in skipped:
            assert event.kind in ("preamble", "think", "fence"), event
            assert reply[event.pos : event.pos + len(event.text)] == event.text, event
        covered = "".join(e.text for e in skipped)
        assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", reply[:start]), (
            f"skipped {covered!r}, preamble {reply[:start]!r}"
        )
    _, events = events_of([reply], **OPTIONS)
    if "<think>" in reply:
        thinks = [e.text for e in events if isinstance(e, Skipped) and e.kind == "think"]
        block = reply[reply.index("<think>") : reply.index("</think>") + len("</think>")]
        assert "".join(thinks) == block


@pytest.mark.parametrize("doc", CORPUS, ids=lambda d: repr(d[:40]))
def test_plain_json_is_unchanged_by_skip_preamble(doc: str) -> None:
    parser = JsonStream(**OPTIONS)
    parser.feed(doc)
    assert_same(parser.finish(), loads(doc))
    assert parser.tail.strip() == ""


def test_a13_one_shot() -> None:
    text = '<think>e.g. {"name":"Alice"}</think>{"name":"Bob"}'
    assert_same(parse_partial(text, skip_preamble=True), {"name": "Bob"})
    assert parse_partial('<think>{"a": 1}</think>', skip_preamble=True) is UNSET

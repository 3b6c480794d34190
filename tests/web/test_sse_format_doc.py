"""docs/sse-format.md against what the ``"unspool"`` format really sends: every event
name it emits has a section, and each section's table lists exactly the JSON fields of
that event's ``data:`` (issue 27, item 4)."""

from __future__ import annotations

import asyncio
import json
import re
import typing
from typing import Any

import pytest

from tests.support.paths import ROOT
from unspool import events as ev

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")

from unspool.web import ResumableStreams, encode_sse

DOC = ROOT / "docs" / "sse-format.md"

SAMPLES: list[Any] = [
    ev.TextDelta("Hi"),
    ev.ReasoningDelta("thinking"),
    ev.ReasoningSignature("anthropic", "EqQBCkYI", "ZGF0YQ=="),
    ev.RefusalDelta("no"),
    ev.Citation("url_citation", "https://x.y/", "X", "quoted", 0, 2, {"n": 1}),
    ev.ActionStarted("r:0", 0, "go", "call_1", {"mode": "fast"}),
    ev.ActionArgsDelta("r:0", 0, {"to": "pa"}, '{"to": "pa'),
    ev.ActionComplete("r:0", 0, "go", {"to": "paris"}, "call_1", {"mode": "fast"}),
    ev.ActionInvalid("r:1", 1, "go", "schema", ({"message": "bad", "path": [], "type": "t"},)),
    ev.ActionResult("r:0", 0, "go", {"ok": True}, replayed=True),
    ev.ActionFailed("r:1", 1, "go", "boom", "RuntimeError"),
    ev.ActionPending("r:2", 2, "pay", "approval", "approval-r:2"),
    ev.HostedToolStarted("r/hosted:0", "web_search", "ws_1", "web_search_call", {"server": "s"}),
    ev.HostedToolInput("r/hosted:0", "web_search", {"query": "weather"}),
    ev.HostedToolResult("r/hosted:0", "web_search", {"sources": []}, "none", "web_search_call"),
    ev.Usage(12, 30, 42, 4, 2, 10, {"prompt_tokens": 12, "cost": 0.0001}),
    ev.Diagnostic("fence", "the fence was not shown", 0, "```json"),
    ev.AppData("weather", {"city": "Lyon", "temp": 21}, "w1", True),
    ev.StateSnapshot({"cart": []}),
    ev.StateDelta([{"op": "add", "path": "/cart/-", "value": "p1"}]),
    ev.StreamError("upstream closed", "ReadError"),
    ev.StreamDone("error", 1, 1, 2),
]
"""One event of each type, every field set."""


def documented() -> dict[str, list[str]]:
    """Each ``### `name``` section of the page and the fields its table lists, in order."""
    text = DOC.read_text(encoding="utf-8")
    sections = re.split(r"^### `([a-z_]+)`\s*$", text, flags=re.M)
    fields: dict[str, list[str]] = {}
    for name, body in zip(sections[1::2], sections[2::2], strict=True):
        fields[name] = re.findall(r"^\| `([A-Za-z_]+)` \|", body, flags=re.M)
    return fields


def frames(data: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    """``(event name, data JSON)`` of each frame of an SSE body (comments skipped)."""
    out: list[tuple[str | None, dict[str, Any]]] = []
    for block in data.decode().split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        data_lines = [line[6:] for line in lines if line.startswith("data: ")]
        if not data_lines:
            continue
        name = next((line[7:] for line in lines if line.startswith("event: ")), None)
        out.append((name, json.loads("\n".join(data_lines))))
    return out


def test_the_samples_hold_every_event_type() -> None:
    """A new event type fails here until it has a sample (and so a checked section)."""
    assert {type(e) for e in SAMPLES} == set(typing.get_args(ev.Event))


def test_every_emitted_event_is_documented_with_exactly_its_fields() -> None:
    sent = frames(b"".join(encode_sse(SAMPLES, format="unspool", expose_errors=True)))
    assert [name for name, _ in sent] == [e.type for e in SAMPLES]
    doc = documented()
    for name, data in sent:
        assert name == data["type"]
        assert name in doc, f"docs/sse-format.md has no section for {name}"
        assert doc[name] == list(data), name  # the same fields, in the order sent


def test_an_ended_source_is_documented_as_an_aborted_stream_done() -> None:
    sent = frames(b"".join(encode_sse([ev.TextDelta("x")], format="unspool")))
    assert sent[-1][1]["reason"] == "aborted"
    assert "ends with `stream_done` of reason `aborted`" in DOC.read_text(encoding="utf-8")


def test_resume_failed_is_documented_with_every_field_it_carries() -> None:
    async def failures() -> list[dict[str, Any]]:
        runs = ResumableStreams(max_events=1)
        runs.start("k", _replay([ev.TextDelta("a"), ev.TextDelta("b"), ev.StreamDone("complete")]))
        await asyncio.sleep(0.05)
        out = []
        for key, last in (("nope", None), ("k", "x"), ("k", "1")):
            body = b"".join([f async for f in runs.frames(key, last)])
            out += [data for _, data in frames(body)]
        return out

    sent = asyncio.run(failures())
    assert [d["reason"] for d in sent] == ["unknown_stream", "bad_id", "evicted"]
    keys = {key for data in sent for key in data}
    assert set(documented()["resume_failed"]) == keys


async def _replay(events: list[Any]) -> Any:
    for event in events:
        yield event


def test_the_page_documents_nothing_the_format_does_not_send() -> None:
    emitted = {e.type for e in SAMPLES} | {"resume_failed"}
    assert set(documented()) == emitted

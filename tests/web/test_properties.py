"""Properties of the encoders over random replies cut at random points (hypothesis).

For any reply of text, ``<think>`` blocks and actions (some with broken JSON), any
chunking and any ending: the ``"unspool"`` frames give back every event's ``to_dict()``
with ids 1..n; the ``"ai-sdk"`` chunks rebuild the text and reasoning exactly and close
every tool call exactly once, executable only when the action completed; every
``"ag-ui"`` frame is a valid event of the ``ag-ui-protocol`` package, with every message
and call opened before use, closed once, and the run ended once, last.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from ag_ui.core import Event as AgUiEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from tests.support.hypothesis_profiles import examples
from unspool import TagParser
from unspool.events import (
    ActionComplete,
    ActionInvalid,
    Event,
    ReasoningDelta,
    TextDelta,
)
from unspool.web import encode_sse

AG_UI = TypeAdapter(AgUiEvent)
WORDS = st.sampled_from(["Hi", " there", " café", " ☕", " <b>", "\n", " 2×", "{x}", " ok."])
ARGS = st.sampled_from(['{"a": 1}', '{"to": "x y"}', '{"a": [1, {"b": null}]}', '{"a": ', "{]"])


@st.composite
def replies(draw: st.DrawFn) -> tuple[str, list[int], str]:
    pieces = []
    for kind in draw(st.lists(st.sampled_from(["text", "think", "action"]), max_size=6)):
        if kind == "text":
            pieces.append("".join(draw(st.lists(WORDS, min_size=1, max_size=4))))
        elif kind == "think":
            pieces.append(f"<think>{draw(WORDS)}</think>")
        else:
            pieces.append(f'<action name="act">{draw(ARGS)}</action>')
    reply = "".join(pieces)
    if draw(st.booleans()):  # cut off somewhere
        reply = reply[: draw(st.integers(0, len(reply)))]
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(reply))), max_size=8))))
    return reply, cuts, draw(st.sampled_from(["stop", "length"]))


def _events(reply: str, cuts: list[int], finish: Any) -> list[Event]:
    parser = TagParser(stream_id="p", reasoning=True)
    edges = [0, *cuts, len(reply)]
    events: list[Event] = []
    for a, b in itertools.pairwise(edges):
        if b > a:
            events += parser.feed(reply[a:b])
    return events + parser.finish(finish)


def _data(frames: list[bytes]) -> list[Any]:
    out = []
    for frame in frames:
        text = frame.decode()
        data = "\n".join(line[6:] for line in text.splitlines() if line.startswith("data: "))
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


@settings(max_examples=examples(80), deadline=None)
@given(replies())
def test_every_format_keeps_the_streams_meaning(case: tuple[str, list[int], str]) -> None:
    events = _events(*case)
    dicts = [e.to_dict() for e in events]  # taken now, as a server sends them

    frames = list(encode_sse(events))
    assert [f.split(b"\n", 1)[0] for f in frames] == [
        f"id: {i}".encode() for i in range(1, len(events) + 1)
    ]
    assert _data(frames) == json.loads(json.dumps(dicts))

    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    complete = {e.id: e.args for e in events if isinstance(e, ActionComplete)}
    invalid = {e.id for e in events if isinstance(e, ActionInvalid)}

    chunks = _data(list(encode_sse(events, format="ai-sdk")))
    assert chunks[-1] == "[DONE]" and chunks[-2]["type"] == "finish"
    assert "".join(c["delta"] for c in chunks[:-1] if c["type"] == "text-delta") == text
    assert "".join(c["delta"] for c in chunks[:-1] if c["type"] == "reasoning-delta") == reasoning
    executable = {
        c["toolCallId"]: c["input"] for c in chunks[:-1] if c["type"] == "tool-input-available"
    }
    errors = [c["toolCallId"] for c in chunks[:-1] if c["type"] == "tool-input-error"]
    assert executable == complete
    for call_id, args in complete.items():  # the raw deltas join into the args' JSON text
        raw = "".join(
            c["inputTextDelta"]
            for c in chunks[:-1]
            if c["type"] == "tool-input-delta" and c["toolCallId"] == call_id
        )
        assert json.loads(raw) == args
    assert sorted(errors) == sorted(invalid) and len(errors) == len(set(errors))

    ag = [
        AG_UI.validate_json(f.decode()[6:]).model_dump(by_alias=True)
        for f in encode_sse(events, format="ag-ui")
    ]
    kinds = [e["type"].value if hasattr(e["type"], "value") else e["type"] for e in ag]
    assert kinds[0] == "RUN_STARTED" and kinds[-1] == "RUN_FINISHED"
    assert kinds.count("RUN_FINISHED") == 1
    open_messages: set[str] = set()
    open_calls: set[str] = set()
    for event, kind in zip(ag, kinds, strict=True):
        if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            assert event["messageId"] not in open_messages
            open_messages.add(event["messageId"])
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            assert event["messageId"] in open_messages
        elif kind in ("TEXT_MESSAGE_END", "REASONING_MESSAGE_END"):
            open_messages.remove(event["messageId"])
        elif kind == "TOOL_CALL_START":
            open_calls.add(event["toolCallId"])
        elif kind == "TOOL_CALL_ARGS":
            assert event["toolCallId"] in open_calls
        elif kind == "TOOL_CALL_END":
            open_calls.remove(event["toolCallId"])
    assert not open_messages and not open_calls
    contents = [e["delta"] for e, k in zip(ag, kinds, strict=True) if k == "TEXT_MESSAGE_CONTENT"]
    assert "".join(contents) == text
    answered = {e["toolCallId"] for e, k in zip(ag, kinds, strict=True) if k == "TOOL_CALL_RESULT"}
    # invalid calls are answered at once (never pending); completed ones are left to run
    assert answered <= invalid and not answered & complete.keys()

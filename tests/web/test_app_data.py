"""The application's own data to the page: ``AppData``, ``StateSnapshot``, ``StateDelta``.

Each format's mapping, exactly; then the real clients: the AI SDK's chat client keeps a
data part per name and id (one card that fills in, a transient toast only in ``onData``,
the state as one part), and ``@ag-ui/client`` applies the snapshots and JSON Patches to
its state. Its JSON Patch applier (``fast-json-patch``) is the reference for the one the
``"ai-sdk"`` format applies patches with, on hundreds of random patches.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.web.js import js_clients, run_node
from tests.support.web.server import LiveServer
from unspool import AppData, StateDelta, StateSnapshot, StreamDone, TextDelta, model_data
from unspool.events import Event
from unspool.web import EventStreamResponse, encode_sse
from unspool.web._json_patch import PatchError, apply_patch, json_equal, parse_pointer


class Card(pydantic.BaseModel):
    title: str
    steps: list[str]


CARD = json.dumps({"title": "Fractions", "steps": ["halves", "thirds"]})


def _data_events() -> list[Event]:
    card = [TextDelta(CARD[i : i + 6]) for i in range(0, len(CARD), 6)]
    lesson = list(model_data(Card, [*card, StreamDone("complete")], name="card"))
    return [
        TextDelta("Here is your card."),
        AppData("weather", {"city": "Paris"}, id="w1"),
        AppData("weather", {"city": "Paris", "temp_c": 21}, id="w1"),
        AppData("toast", "saved", transient=True),
        AppData("log", {"n": 1}),
        AppData("log", {"n": 2}),
        StateSnapshot({"cart": [], "step": "browse"}),
        StateDelta([{"op": "add", "path": "/cart/-", "value": "kit-42"}]),
        StateDelta([{"op": "move", "from": "/step", "path": "/stage"}]),
        StateDelta([{"op": "remove", "path": "/missing"}]),  # does not apply
        *lesson,
    ]


FINAL_STATE = {"cart": ["kit-42"], "stage": "browse"}


# ---------------------------------------------------------------------- the formats


def _frames(events: list[Event], format: str) -> list[Any]:
    out = []
    for frame in encode_sse(events, format=format, message_id="m1", thread_id="t", run_id="r"):
        text = frame.decode().strip()
        data = "\n".join(line[6:] for line in text.split("\n") if line.startswith("data: "))
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


EVENTS: list[Event] = [
    AppData("weather", {"city": "Paris"}, id="w1"),
    AppData("toast", "saved", transient=True),
    StateSnapshot({"cart": []}),
    StateDelta([{"op": "add", "path": "/cart/-", "value": "kit"}]),
    StateDelta([{"op": "remove", "path": "/nope"}]),
    StreamDone("complete"),
]


def test_the_ai_sdk_format_sends_data_parts_and_the_state_as_one_part() -> None:
    frames = _frames(EVENTS, "ai-sdk")[2:-3]
    failed = frames.pop()
    assert frames == [
        {"type": "data-weather", "id": "w1", "data": {"city": "Paris"}},
        {"type": "data-toast", "data": "saved", "transient": True},
        {"type": "data-unspool-state", "id": "state", "data": {"cart": []}},
        {"type": "data-unspool-state", "id": "state", "data": {"cart": ["kit"]}},
    ]
    assert failed["type"] == "data-unspool-diagnostic" and failed["transient"] is True
    assert failed["data"]["kind"] == "bad_state_delta"
    assert failed["data"]["message"] == (
        "the state delta does not apply: operation 0: no member 'nope'"
    )


def test_the_ag_ui_format_sends_custom_events_and_the_state_as_is() -> None:
    frames = _frames(EVENTS, "ag-ui")[1:-1]
    assert frames == [
        {
            "type": "CUSTOM",
            "metadata": {"unspool": {"id": "w1"}},
            "name": "weather",
            "value": {"city": "Paris"},
        },
        {"type": "CUSTOM", "name": "toast", "value": "saved"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"cart": []}},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/cart/-", "value": "kit"}]},
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nope"}]},
    ]


def test_the_unspool_format_sends_the_events_as_they_are() -> None:
    frames = _frames(EVENTS, "unspool")
    assert frames[:3] == [
        {
            "type": "app_data",
            "name": "weather",
            "data": {"city": "Paris"},
            "id": "w1",
            "transient": False,
        },
        {"type": "app_data", "name": "toast", "data": "saved", "id": None, "transient": True},
        {"type": "state_snapshot", "state": {"cart": []}},
    ]
    assert frames[3] == {
        "type": "state_delta",
        "patch": [{"op": "add", "path": "/cart/-", "value": "kit"}],
    }


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("add", "a StateDelta's patch is a sequence of operations"),
        ({"op": "add"}, "a StateDelta's patch is a sequence of operations"),
        ([{"op": "append", "path": "/a"}], "patch[0]: not an operation of RFC 6902"),
        ([{"op": "add", "path": "/a"}], "patch[0]: 'add' needs value"),
        ([{"op": "copy", "path": "/a", "value": 1}], "patch[0]: 'copy' needs from"),
        ([{"op": "remove", "path": "a"}], "patch[0]: 'path' is not a JSON Pointer: 'a'"),
        ([{"op": "move", "from": "/~x", "path": "/a"}], "patch[0]: 'from' is not a JSON Pointer"),
    ],
)
def test_a_malformed_patch_is_refused_where_the_app_made_it(patch: Any, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("[", r"\[").replace("]", r"\]")):
        StateDelta(patch)


def test_app_data_needs_a_name() -> None:
    with pytest.raises(ValueError, match="non-empty name"):
        AppData("", 1)


# ---------------------------------------------------------------------- JSON Patch


def test_json_patch_applies_the_rfc_examples() -> None:
    doc = {"foo": ["bar", "baz"], "a/b": 1, "m~n": 8, "": 0}
    assert apply_patch(doc, [{"op": "add", "path": "/foo/1", "value": "qux"}])["foo"] == [
        "bar",
        "qux",
        "baz",
    ]
    assert apply_patch(doc, [{"op": "replace", "path": "/a~1b", "value": 2}])["a/b"] == 2
    assert apply_patch(doc, [{"op": "copy", "from": "/m~0n", "path": "/"}])[""] == 8
    assert apply_patch(doc, [{"op": "test", "path": "/foo", "value": ["bar", "baz"]}]) == doc
    with pytest.raises(PatchError, match="operation 1: "):  # all or nothing
        apply_patch(
            doc, [{"op": "remove", "path": "/foo/0"}, {"op": "test", "path": "/x", "value": 1}]
        )
    assert doc["foo"] == ["bar", "baz"]  # never changed in place
    with pytest.raises(PatchError, match="into itself"):
        apply_patch({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}])
    assert parse_pointer("/a~1b/m~0n/") == ["a/b", "m~n", ""]
    assert json_equal(1, 1.0) and not json_equal(True, 1) and not json_equal([1], [True])


_KEYS = ["a", "b", "", "x/y", "m~n", "0", "01", "-"]
_LEAVES: list[Any] = [None, True, False, 0, 1, 2.5, -3, "", "s", "é"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth >= 3 or kind < 0.45:
        return rng.choice(_LEAVES)
    if kind < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(_KEYS): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _paths(doc: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out = [(prefix, doc)]
    if isinstance(doc, dict):
        for key, value in doc.items():
            escaped = key.replace("~", "~0").replace("/", "~1")
            out += _paths(value, f"{prefix}/{escaped}")
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out += _paths(value, f"{prefix}/{i}")
    return out


def _pointer(rng: random.Random, doc: Any) -> str:
    """A pointer to a value of ``doc``, or to a member or index (there or not) of one of
    its containers (never inside a scalar, where fast-json-patch ignores what RFC 6902
    refuses)."""
    base, value = rng.choice(_paths(doc))
    if rng.random() < 0.5 or not isinstance(value, (dict, list)):
        return base
    token = rng.choice([*_KEYS, "-", "00", "7", "1", "2"])
    return f"{base}/{token.replace('~', '~0').replace('/', '~1')}"


def _parent(doc: Any, pointer: str) -> tuple[bool, Any]:
    """``(found, the value holding the pointer's last token)``."""
    tokens = parse_pointer(pointer)
    current = doc
    for token in tokens[:-1]:
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            return False, None
    return bool(tokens), current


def _beyond_the_rfc(doc: Any, op: dict[str, Any]) -> bool:
    """Whether ``op`` is one of the places fast-json-patch reads more than RFC 6902 (see
    unspool.web._json_patch): a path through a scalar, a loose index to insert at, an index
    past the end for move or copy."""
    for key in ("path", "from"):
        found, parent = _parent(doc, op.get(key, ""))
        if found and not isinstance(parent, (dict, list)):
            return True
    found, parent = _parent(doc, op["path"])
    if not (found and isinstance(parent, list) and op["op"] in ("add", "move", "copy")):
        return False
    last = op["path"].rpartition("/")[2]
    if last == "-":
        return False
    if not (last.isdigit() and str(int(last)) == last):
        return True  # "00", "": an index to fast-json-patch
    return op["op"] != "add" and int(last) > len(parent)  # past the end, unchecked


def _diverges(doc: Any, patch: list[dict[str, Any]]) -> bool:
    """Whether the patch fails here on an operation that is beyond the RFC."""
    current = doc
    for op in patch:
        try:
            current = apply_patch(current, [op])
        except PatchError:
            return _beyond_the_rfc(current, op)
    return False


def _nested(a: str, b: str) -> bool:
    """Whether one pointer is the other or inside it (the root is inside nothing)."""
    x, y = parse_pointer(a), parse_pointer(b)
    return x[: len(y)] == y or y[: len(x)] == x


def _patch(rng: random.Random, doc: Any) -> list[dict[str, Any]]:
    ops = []
    for _ in range(rng.randrange(1, 4)):
        op = rng.choice(["add", "remove", "replace", "move", "copy", "test"])
        entry: dict[str, Any] = {"op": op, "path": _pointer(rng, doc)}
        if op == "remove" and not entry["path"]:
            continue  # the client's state would be nothing; unspool's applier refuses it
        if op in ("move", "copy"):
            entry["from"] = _pointer(rng, doc)
            if _nested(entry["from"], entry["path"]):
                continue  # fast-json-patch can make a value hold itself there
        if op in ("add", "replace", "test"):
            entry["value"] = rng.choice([_value(rng), copy.deepcopy(rng.choice([doc, None]))])
        ops.append(entry)
    return ops


@pytest.fixture(scope="module")
def js() -> Path:
    return js_clients()


def _patch_app(cases: list[tuple[Any, list[dict[str, Any]]]]) -> Starlette:
    async def run(request: Request) -> Response:
        body = json.loads(await request.body())
        events: list[Event] = []
        for doc, patch in cases:
            events += [StateSnapshot(doc), StateDelta(patch)]
        events.append(StreamDone("complete"))
        return EventStreamResponse(
            events, format="ag-ui", thread_id=body["threadId"], run_id=body["runId"]
        )

    return Starlette(routes=[Route("/ag-ui", run, methods=["POST"])])


def test_json_patch_applies_as_the_ag_ui_client_applies_it(js: Path) -> None:
    rng = random.Random(6902)
    cases = []
    for _ in range(300):
        doc = {k: _value(rng) for k in rng.sample(_KEYS, 3)}  # a state is an object
        patch = _patch(rng, doc)
        if patch:
            cases.append((doc, patch))
    with LiveServer(_patch_app(cases)) as live:
        (out,) = run_node(
            js, "ag_ui_client.mjs", live.url + "/ag-ui", json.dumps([{}]), timeout=120
        )
    agent = out["agent"]
    assert agent["failure"] is None
    seen, states = agent["seen"], agent["states"]
    # the state before each STATE_SNAPSHOT (and before RUN_FINISHED) is the one the
    # client made of the delta just before it
    after = [
        states[i] for i, kind in enumerate(seen) if kind in ("STATE_SNAPSHOT", "RUN_FINISHED")
    ][1:]
    assert len(after) == len(cases)
    applied = beyond = 0
    for (doc, patch), theirs in zip(cases, after, strict=True):
        try:
            ours = apply_patch(doc, patch)
            applied += 1
        except PatchError:
            if _diverges(doc, patch):  # refused here, partly applied there: documented
                beyond += 1
                continue
            ours = doc  # refused whole: the state stays
        assert json_equal(ours, theirs), (doc, patch, theirs)
    assert 60 < applied < 240 and beyond < 40  # both outcomes well exercised


# ------------------------------------------------------------------- the real clients


def _app() -> Starlette:
    async def chat(request: Request) -> Response:
        return EventStreamResponse(_data_events(), format="ai-sdk", message_id="msg-1")

    async def ag_ui(request: Request) -> Response:
        body = json.loads(await request.body())
        return EventStreamResponse(
            _data_events(), format="ag-ui", thread_id=body["threadId"], run_id=body["runId"]
        )

    return Starlette(
        routes=[Route("/chat", chat, methods=["POST"]), Route("/ag-ui", ag_ui, methods=["POST"])]
    )


@pytest.fixture(scope="module")
def served() -> Iterator[LiveServer]:
    with LiveServer(_app()) as live:
        yield live


def test_the_ai_sdk_client_keeps_one_part_per_name_and_id(js: Path, served: LiveServer) -> None:
    (out,) = run_node(js, "ai_sdk_client.mjs", served.url + "/chat", json.dumps([{}]))
    raw, chat = out["raw"], out["chat"]
    assert raw["invalid"] == [] and chat["errors"] == [] and chat["status"] == "ready"
    parts = [p for p in chat["message"]["parts"] if p["type"] != "step-start"]
    data = [(p["type"], p.get("id"), p["data"]) for p in parts if p["type"].startswith("data-")]
    card = Card.model_validate_json(CARD).model_dump()
    assert data == [
        ("data-weather", "w1", {"city": "Paris", "temp_c": 21}),  # replaced in place
        ("data-log", None, {"n": 1}),  # no id: each kept
        ("data-log", None, {"n": 2}),
        ("data-unspool-state", "state", FINAL_STATE),
        (
            "data-card",
            "card",
            {
                "value": card,
                "pending": [],
                "missing": [],
                "done": True,
                "complete": True,
                "errors": [],
            },
        ),
    ]
    seen = [(d["type"], d.get("transient", False)) for d in chat["data"]]
    assert ("data-toast", True) in seen  # onData only
    assert not any(p["type"] == "data-toast" for p in parts)
    cards = [d["data"]["value"] for d in chat["data"] if d["type"] == "data-card"]
    assert cards[0] == {"title": None, "steps": None} and cards[-1] == card  # as it filled in
    titles = [c["title"] or "" for c in cards]
    assert all(b.startswith(a) for a, b in itertools.pairwise(titles))
    assert [p["text"] for p in parts if p["type"] == "text"] == ["Here is your card."]


def test_the_ag_ui_client_applies_the_state_and_sees_the_data(js: Path, served: LiveServer) -> None:
    (out,) = run_node(js, "ag_ui_client.mjs", served.url + "/ag-ui", json.dumps([{}]))
    raw, agent = out["raw"], out["agent"]
    assert raw["invalid"] == [] and agent["failure"] is None
    assert agent["state"] == FINAL_STATE
    customs = [(e["name"], e["value"]) for e in raw["events"] if e["type"] == "CUSTOM"]
    assert customs[:5] == [
        ("weather", {"city": "Paris"}),
        ("weather", {"city": "Paris", "temp_c": 21}),
        ("toast", "saved"),
        ("log", {"n": 1}),
        ("log", {"n": 2}),
    ]
    assert {name for name, _ in customs[5:]} == {"card"}
    assert customs[-1][1]["complete"] is True

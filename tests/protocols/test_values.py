"""Events are values: an ``ActionArgsDelta`` read later shows what it showed when emitted.

Every protocol that streams arguments (the interleaved array, tags in both formats,
provider tool calls through ``ToolCallAssembler``) is fed arguments that grow over
many chunks; each delta is compared, at the end, with a deep copy taken when it was
emitted.  The snapshots share what did not change, so the property is checked on
arbitrary JSON (nested objects, arrays, duplicate keys) and random chunkings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_profiles import examples
from unspool.core._snapshot import deep_copy
from unspool.events import ActionArgsDelta, ActionComplete, Event
from unspool.protocols._args_snapshot import ArgsSnapshots
from unspool.protocols._interleaved import InterleavedParser
from unspool.protocols._tags import TagParser
from unspool.protocols._toolcalls import ToolCallAssembler

Run = Callable[[str, Sequence[str]], list[tuple[Event, Any]]]
"""Feed an action whose args are the given JSON text, cut into the given chunks;
returns each event with a deep copy of its partial taken when it came out."""


def _kept(events: list[Event], out: list[tuple[Event, Any]]) -> None:
    for e in events:
        out.append((e, deep_copy(e.partial) if isinstance(e, ActionArgsDelta) else None))


def _feed_text(parser: Any, chunks: Sequence[str]) -> list[tuple[Event, Any]]:
    out: list[tuple[Event, Any]] = []
    for c in chunks:
        _kept(parser.feed(c), out)
    _kept(parser.finish(), out)
    return out


def _cut(text: str, cuts: Sequence[int]) -> list[str]:
    points = sorted({min(max(c, 0), len(text)) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def interleaved(args: str, cuts: Sequence[int]) -> list[tuple[Event, Any]]:
    text = f'[{{"type":"text","content":"hi"}},{{"type":"action","name":"a","params":{args}}}]'
    return _feed_text(InterleavedParser(stream_id="s"), _cut(text, cuts))


def tags(args: str, cuts: Sequence[int]) -> list[tuple[Event, Any]]:
    text = f'Sure <action name="a">{args}</action> done'
    return _feed_text(TagParser(stream_id="s"), _cut(text, cuts))


def tool_call_tags(args: str, cuts: Sequence[int]) -> list[tuple[Event, Any]]:
    text = f'<tool_call>{{"name": "a", "arguments": {args}}}</tool_call>'
    return _feed_text(TagParser(stream_id="s", format="tool_call"), _cut(text, cuts))


def tool_calls(args: str, cuts: Sequence[int]) -> list[tuple[Event, Any]]:
    asm = ToolCallAssembler(stream_id="s")
    out: list[tuple[Event, Any]] = []
    _kept(asm.start(0, "a", "call_1"), out)
    for piece in _cut(args, cuts):
        _kept(asm.args_delta(0, piece), out)
    _kept(asm.end(0), out)
    _kept(asm.finish(), out)
    return out


PROTOCOLS: dict[str, Run] = {
    "interleaved": interleaved,
    "tags": tags,
    "tool_call tags": tool_call_tags,
    "tool calls": tool_calls,
}


def _check_values(
    events: list[tuple[Event, Any]], args: Any, text: str | None = None
) -> list[ActionArgsDelta]:
    """Each delta still shows what it showed; the last one and ``ActionComplete`` show
    ``args``; the deltas' raw text joins to ``text`` (the args' JSON text)."""
    deltas = [e for e, _ in events if isinstance(e, ActionArgsDelta)]
    if text is not None:
        assert "".join(d.delta or "" for d in deltas) == text
    for event, then in events:
        if isinstance(event, ActionArgsDelta):
            assert event.partial == then
    complete = [e for e, _ in events if isinstance(e, ActionComplete)]
    assert len(complete) == 1 and complete[0].args == args
    assert deltas and deltas[-1].partial == args
    return deltas


BIG_ARGS = {
    "path": "notes/today.md",
    "content": 'Line with "quotes", a tab\t, café, 東京 🎉\n' * 40,
    "tags": ["a", "b", {"deep": [1, 2, {"x": "y" * 50}]}],
    "meta": {"rows": [[i, str(i)] for i in range(30)], "ok": True, "none": None},
}


def test_deltas_kept_in_a_list_keep_their_partial_in_every_protocol() -> None:
    args = json.dumps(BIG_ARGS, ensure_ascii=False)
    for name, run in PROTOCOLS.items():
        for step in (1, 3, 7):
            events = run(args, range(0, 400, step))  # many small chunks, then the rest
            deltas = _check_values(events, BIG_ARGS, args)
            assert len(deltas) > 20, name
            # an early delta still shows its early, smaller args
            assert deltas[0].partial != BIG_ARGS, name


def test_duplicate_keys_reassigned_while_open_are_snapshotted() -> None:
    args = '{"a": [1, {"b": "x"}], "c": 2, "a": [3, [4, {"d": "long text here"}]], "c": {"e": 5}}'
    want = json.loads(args)
    for run in PROTOCOLS.values():
        for step in (1, 2, 5):
            _check_values(run(args, range(0, len(args) + 80, step)), want, args)


def test_snapshots_share_what_did_not_change() -> None:
    from unspool.core._jsonstream import JsonStream

    p = JsonStream()
    snaps = ArgsSnapshots()
    text = '{"done": {"k": [1, 2]}, "open": {"s": "ab'
    first = snaps.take(p.feed(text), len(text))
    second = snaps.take(p.feed("cd"), 2)
    assert first == {"done": {"k": [1, 2]}, "open": {"s": "ab"}}
    assert second == {"done": {"k": [1, 2]}, "open": {"s": "abcd"}}
    assert first["done"] is second["done"]  # closed: shared, not copied
    assert snaps.take(p.value, 0, final=True) is second  # nothing changed: the same snapshot


def test_long_arguments_refresh_the_snapshot_in_proportion() -> None:
    """A snapshot is refreshed once the text since the last one is 1/REFRESH of all of
    it, so copying stays linear: a 100 KB string gets about REFRESH * ln(25000) of them."""
    args = '{"content": "' + "x" * 100_000 + '"}'
    events = tool_calls(args, range(4, len(args), 4))
    deltas = [e for e, _ in events if isinstance(e, ActionArgsDelta)]
    fresh = {id(d.partial) for d in deltas}
    assert len(deltas) == 25_004
    assert 200 < len(fresh) < 2_000
    assert deltas[-1].partial == {"content": "x" * 100_000}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "name", "id"]), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    args=st.dictionaries(st.text(max_size=4), JSON, max_size=5),
    cuts=st.lists(st.integers(0, 200), max_size=30),
    protocol=st.sampled_from(sorted(PROTOCOLS)),
    indent=st.sampled_from([None, 2]),
)
def test_every_delta_keeps_its_partial_and_deltas_join_to_the_args_text(
    args: dict[str, Any], cuts: list[int], protocol: str, indent: int | None
) -> None:
    text = json.dumps(args, ensure_ascii=False, indent=indent)
    _check_values(PROTOCOLS[protocol](text, cuts), args, text)


def _provider_bodies(args: str, step: int) -> dict[str, Any]:
    """Raw SSE bodies of one tool call whose arguments arrive ``step`` characters at a
    time, for the OpenAI Chat Completions and Anthropic Messages adapters."""
    from tests.support.replay.wire import Call, anthropic_events, chat_chunks, sse

    pieces = [args[i : i + step] for i in range(0, len(args), step)]
    call = Call("a", "call_1", pieces)
    return {
        "openai": sse(chat_chunks([call], "tool_calls"), named=False, done=True),
        "anthropic": sse(anthropic_events([call], "tool_use"), named=True),
    }


def test_provider_adapters_deltas_keep_their_partial_and_join_to_the_args() -> None:
    from unspool.sources import from_anthropic, from_openai
    from unspool.sources._sse import iter_sse

    args = json.dumps(BIG_ARGS, ensure_ascii=False)
    adapters = {"openai": from_openai, "anthropic": from_anthropic}
    for step in (3, 16):
        for name, body in _provider_bodies(args, step).items():
            events: list[tuple[Event, Any]] = []
            for event in adapters[name](iter_sse([body]), stream_id="s"):
                _kept([event], events)
            deltas = _check_values(events, BIG_ARGS, args)
            assert len(deltas) > 100, name

"""Answers from the page, on every ledger (memory, SQLite, PostgreSQL, Redis: the real
servers): a client action's result and an approval decision are recorded once under the
action's key; the same answer again is a replay, another one a conflict; nothing is
recorded or run for a call this server never offered; an approved action runs exactly
once, a denied one never; an approval for other args is refused."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.actions.servers import KINDS, ledger_of
from tests.support.hypothesis_profiles import examples
from unspool import ActionComplete, ActionRegistry, Dispatcher, MemoryLedger, StreamDone
from unspool.actions.ledgers._answers import (
    AWAITING_APPROVAL,
    AWAITING_CLIENT,
    CLIENT_ERROR,
    CLIENT_RESULT,
    DENIED,
)
from unspool.events import ActionFailed, ActionPending, ActionResult, Event
from unspool.web._conversation import RequestToolCall, ToolApproval


def registry(ran: list[Any]) -> ActionRegistry:
    reg = ActionRegistry()

    @reg.action("pick_color", runs_on="client")
    def pick_color(prompt: str) -> None:
        raise AssertionError("a client action never runs on the server")

    @reg.action(approval=True)
    def transfer(to: str, cents: int) -> str:
        ran.append(("transfer", to, cents))
        return f"sent {cents} to {to}"

    @reg.action
    def weather(city: str) -> dict[str, int]:
        ran.append(("weather", city))
        return {"temp_c": 21}

    return reg


CALLS = [
    ActionComplete("s/0:0", 0, "pick_color", {"prompt": "your color?"}),
    ActionComplete("s/0:1", 1, "transfer", {"to": "bob", "cents": 500}),
    ActionComplete("s/0:2", 2, "weather", {"city": "Paris"}),
    StreamDone("complete"),
]


def answered(*, color: Any = "red", approved: bool = True, cents: int = 500) -> list[Any]:
    """The calls as the next request holds them (RequestToolCall, as read_request gives)."""
    return [
        RequestToolCall("s/0:0", "pick_color", "output-available", {"prompt": "your color?"},
                        output=color),
        RequestToolCall(
            "s/0:1", "transfer", "approval-responded", {"to": "bob", "cents": cents},
            approval=ToolApproval("approval-s/0:1", approved, None if approved else "no"),
        ),
        RequestToolCall("s/0:2", "weather", "output-available", {"city": "Paris"},
                        output={"temp_c": -40}),  # the page's copy: never what the model gets
    ]  # fmt: skip


def brief(events: list[Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for e in events:
        if isinstance(e, ActionResult):
            out.append(("result", e.id, e.result, e.replayed))
        elif isinstance(e, ActionFailed):
            out.append(("failed", e.id, e.error_type, e.replayed))
        elif isinstance(e, ActionPending):
            out.append(("pending", e.id, e.waiting_for, e.approval_id))
    return out


def rows(ledger: Any) -> dict[str, tuple[Any, ...]]:
    return {r.key: (r.state, r.ok, r.result, r.error_type) for r in ledger.records()}


@pytest.mark.parametrize("kind", KINDS)
def test_the_whole_flow_on_every_ledger(kind: str, tmp_path: Path) -> None:
    ran: list[Any] = []
    with ledger_of(kind, tmp_path) as ledger:
        dispatcher = Dispatcher(registry(ran), ledger)
        first = brief(list(dispatcher.run(CALLS)))
        assert first == [
            ("pending", "s/0:0", "client", None),
            ("pending", "s/0:1", "approval", "approval-s/0:1"),
            ("result", "s/0:2", {"temp_c": 21}, False),
        ]
        assert rows(ledger) == {
            "s/0:0": ("started", None, None, AWAITING_CLIENT),
            "s/0:1": ("started", None, None, AWAITING_APPROVAL),
            "s/0:2": ("finished", True, {"temp_c": 21}, None),
        }
        # the same reply again (a retried request with the same stream id): nothing new
        assert brief(list(dispatcher.run(CALLS))) == [
            ("pending", "s/0:0", "client", None),
            ("pending", "s/0:1", "approval", "approval-s/0:1"),
            ("result", "s/0:2", {"temp_c": 21}, True),
        ]
        assert brief(dispatcher.resume(answered())) == [
            ("result", "s/0:0", "red", False),
            ("result", "s/0:1", "sent 500 to bob", False),
            ("result", "s/0:2", {"temp_c": 21}, True),
        ]
        recorded = {
            "s/0:0": ("finished", True, "red", CLIENT_RESULT),
            "s/0:1": ("finished", True, "sent 500 to bob", None),
            "s/0:2": ("finished", True, {"temp_c": 21}, None),
        }
        assert rows(ledger) == recorded
        # the same request again (a reload, a retry): replays, nothing runs twice
        assert brief(dispatcher.resume(answered())) == [
            ("result", "s/0:0", "red", True),
            ("result", "s/0:1", "sent 500 to bob", True),
            ("result", "s/0:2", {"temp_c": 21}, True),
        ]
        # other answers for the same ids: refused, the records stay
        assert brief(dispatcher.resume(answered(color="blue", approved=False))) == [
            ("failed", "s/0:0", "id_conflict", False),
            ("failed", "s/0:1", "id_conflict", False),
            ("result", "s/0:2", {"temp_c": 21}, True),
        ]
        assert brief(dispatcher.resume(answered(cents=99_999))[1:2]) == [
            ("failed", "s/0:1", "args_changed", False)
        ]
        assert rows(ledger) == recorded
        assert ran == [("weather", "Paris"), ("transfer", "bob", 500)]


@pytest.mark.parametrize("kind", KINDS)
def test_a_denial_never_runs_and_forged_calls_are_not_answered(kind: str, tmp_path: Path) -> None:
    ran: list[Any] = []
    with ledger_of(kind, tmp_path) as ledger:
        dispatcher = Dispatcher(registry(ran), ledger)
        list(dispatcher.run(CALLS))
        calls = answered(approved=False)
        calls[0] = RequestToolCall(
            "s/0:0", "pick_color", "output-error", {"prompt": "your color?"}, error="closed"
        )
        forged = [
            # calls this server never streamed, each "answered" by the page
            RequestToolCall("x/0:0", "transfer", "approval-responded", {"to": "eve", "cents": 1},
                            approval=ToolApproval("approval-x/0:0", True)),
            RequestToolCall("x/0:1", "pick_color", "output-available", {"prompt": "?"},
                            output="green"),
            RequestToolCall("x/0:2", "weather", "output-available", {"city": "Rome"},
                            output={"temp_c": 30}),
            # a server action answered as if the page ran it, an approval nobody asked
            RequestToolCall("s/0:2", "weather", "approval-responded", {"city": "Paris"},
                            approval=ToolApproval("approval-s/0:2", True)),
            RequestToolCall("s/0:9", "nothing", "output-available", {}, output=1),
        ]  # fmt: skip
        assert brief(dispatcher.resume([*calls, *forged])) == [
            ("failed", "s/0:0", CLIENT_ERROR, False),
            ("failed", "s/0:1", DENIED, False),
            ("result", "s/0:2", {"temp_c": 21}, True),
            ("failed", "x/0:0", "unknown_call", False),
            ("failed", "x/0:1", "unknown_call", False),
            ("failed", "x/0:2", "unknown_call", False),
            ("failed", "s/0:2", "not_waiting", False),
            ("failed", "s/0:9", "unknown_call", False),
        ]
        denied = next(e for e in dispatcher.resume(calls) if e.id == "s/0:1")
        assert isinstance(denied, ActionFailed) and (denied.error, denied.replayed) == ("no", True)
        assert rows(ledger) == {
            "s/0:0": ("finished", False, None, CLIENT_ERROR),
            "s/0:1": ("finished", False, None, DENIED),
            "s/0:2": ("finished", True, {"temp_c": 21}, None),
        }
        assert ran == [("weather", "Paris")]


@pytest.mark.parametrize("kind", KINDS)
def test_racing_answers_record_one(kind: str, tmp_path: Path) -> None:
    """Eight threads answer the same calls at once, half approving and half denying,
    with two colors: one answer of each is recorded, the action runs at most once."""
    ran: list[Any] = []
    with ledger_of(kind, tmp_path) as ledger:
        list(Dispatcher(registry(ran), ledger).run(CALLS))
        results: list[list[tuple[Any, ...]]] = [[] for _ in range(8)]
        start = threading.Barrier(8)

        def answer(i: int) -> None:
            dispatcher = Dispatcher(registry(ran), ledger)
            start.wait()
            calls = answered(color=["red", "blue"][i % 2], approved=i % 2 == 0)[:2]
            results[i] = brief(dispatcher.resume(calls))

        threads = [threading.Thread(target=answer, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        color = [r[0] for r in results]
        fresh = [c for c in color if c[0] == "result" and c[3] is False]
        assert len(fresh) == 1
        winner = fresh[0][2]
        assert all(c[2] == winner for c in color if c[0] == "result")
        assert all(c[2] == "id_conflict" for c in color if c[0] == "failed")
        decision = [r[1] for r in results]
        assert sum(1 for d in decision if d[3] is False and d[2] != "id_conflict") == 1
        transfers = [r for r in ran if r[0] == "transfer"]
        record = ledger.get("s/0:1")
        assert record is not None and record.state == "finished"
        assert len(transfers) == (0 if record.error_type == DENIED else 1)
        assert ledger.get("s/0:0").result == winner  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", KINDS)
def test_async_resume(kind: str, tmp_path: Path) -> None:
    ran: list[Any] = []

    async def main(ledger: Any) -> list[Event]:
        dispatcher = Dispatcher(registry(ran), ledger)
        first = [e async for e in dispatcher.arun(CALLS)]
        assert brief(first)[:2] == [
            ("pending", "s/0:0", "client", None),
            ("pending", "s/0:1", "approval", "approval-s/0:1"),
        ]
        once = await dispatcher.aresume(answered())
        again = await dispatcher.aresume(answered())
        return [*once, *again]

    with ledger_of(kind, tmp_path) as ledger:
        out = asyncio.run(main(ledger))
    assert brief(out) == [
        ("result", "s/0:0", "red", False),
        ("result", "s/0:1", "sent 500 to bob", False),
        ("result", "s/0:2", {"temp_c": 21}, True),
        ("result", "s/0:0", "red", True),
        ("result", "s/0:1", "sent 500 to bob", True),
        ("result", "s/0:2", {"temp_c": 21}, True),
    ]
    assert ran == [("weather", "Paris"), ("transfer", "bob", 500)]


def test_the_ledger_methods_directly(tmp_path: Path) -> None:
    with ledger_of("sqlite", tmp_path) as ledger:
        assert ledger.record_client_result("k", "a", result=1).status == "unknown_call"
        assert ledger.offer("k", "a", "k", "client", fingerprint="f").status == "recorded"
        assert ledger.offer("k", "a", "k", "client", fingerprint="f").status == "replayed"
        assert ledger.offer("k", "b", "k", "client", fingerprint="f").status == "conflict"
        assert ledger.record_approval("k", "a", approved=True, fingerprint="f").status == (
            "not_waiting"
        )
        assert ledger.record_client_result("k", "b", result=1).status == "conflict"
        assert ledger.record_client_result("k", "a", result={"x": [1]}).status == "recorded"
        assert ledger.record_client_result("k", "a", result={"x": [1]}).status == "replayed"
        assert ledger.record_client_result("k", "a", result={"x": [2]}).status == "conflict"
        assert ledger.record_client_result("k", "a", error="boom").status == "conflict"
        ledger.offer("p", "pay", "p", "approval", fingerprint="f")
        assert ledger.record_client_result("p", "pay", result=1).status == "not_waiting"
        assert ledger.record_approval("p", "pay", approved=True, fingerprint="g").status == (
            "args_changed"
        )
        approval = ledger.record_approval("p", "pay", approved=True, fingerprint="f")
        assert approval.status == "recorded" and approval.claim is not None
        # being run: the same approval waits for the outcome, a denial is refused
        assert ledger.record_approval("p", "pay", approved=True, fingerprint="f").status == (
            "replayed"
        )
        assert ledger.record_approval("p", "pay", approved=False, fingerprint="f").status == (
            "conflict"
        )
        ledger.finish(approval.claim, result="paid")
        assert ledger.get("p").result == "paid"  # type: ignore[union-attr]
        with pytest.raises(ValueError, match="waiting_for"):
            ledger.offer("q", "a", "q", "later")  # type: ignore[arg-type]


def test_registration_rules() -> None:
    reg = ActionRegistry()
    with pytest.raises(ValueError, match="runs_on"):
        reg.register("a", schema={"type": "object"}, runs_on="browser")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="client action"):
        reg.register("b", schema={"type": "object"}, runs_on="client", approval=True)
    spec = reg.register("c", schema={"type": "object"}, runs_on="client")
    assert (spec.waits_for, spec.handler) == ("client", None)
    dispatcher = Dispatcher(reg)
    events = list(dispatcher.run([ActionComplete("s:0", 0, "c", {}), StreamDone("complete")]))
    assert brief(events) == [("pending", "s:0", "client", None)]


def test_concurrent_dispatchers_offer_in_stream_order() -> None:
    ran: list[Any] = []
    expected = [
        ("pending", "s/0:0", "client", None),
        ("pending", "s/0:1", "approval", "approval-s/0:1"),
        ("result", "s/0:2", {"temp_c": 21}, False),
    ]
    dispatcher = Dispatcher(registry(ran), concurrent=True)
    assert brief(list(dispatcher.run(CALLS))) == expected

    async def main() -> list[Event]:
        other = Dispatcher(registry(ran), concurrent=True)
        return [e async for e in other.arun(CALLS)]

    assert brief(asyncio.run(main())) == expected
    assert ran == [("weather", "Paris"), ("weather", "Paris")]  # two ledgers: once each


def test_a_loop_waits_after_a_pending_action(replay_server: Any) -> None:
    """run_turns (the real openai SDK, the loopback replay server as the model) stops after
    a turn with an ActionPending: the page or a person answers in the next request."""
    import openai

    from tests.support.replay import wire
    from tests.support.web.party import reply
    from unspool import run_turns

    replay_server.play(
        reply(
            wire.Call("weather", "call_w", ['{"city": "Paris"}']),
            wire.Call("transfer", "call_t", ['{"to": "bob", "cents": 500}']),
        )
    )
    ran: list[Any] = []
    reg = registry(ran)
    client = openai.AsyncOpenAI(base_url=replay_server.url + "/v1", api_key="k", max_retries=0)
    loop = run_turns(
        lambda messages: client.chat.completions.create(
            model="m", messages=messages, tools=reg.tools("openai"), stream=True
        ),
        [{"role": "user", "content": "Pay Bob."}],
        dispatcher=Dispatcher(reg),
        provider="openai",
        stream_id="s",
    )

    async def main() -> list[Event]:
        return [e async for e in loop]

    events = asyncio.run(main())
    assert (loop.stopped, loop.turns, len(replay_server.requests)) == ("waiting", 1, 1)
    assert brief(events) == [
        ("result", "s/0:0", {"temp_c": 21}, False),
        ("pending", "s/0:1", "approval", "approval-s/0:1"),
    ]
    assert ran == [("weather", "Paris")]


ANSWERS = st.lists(
    st.tuples(
        st.sampled_from(["client", "approval"]),
        st.sampled_from(["red", "blue", None]),  # None: the page's error
        st.booleans(),  # approved
        st.sampled_from([500, 501]),  # the approval's args (500: those streamed)
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=examples(60), deadline=None)
@given(ANSWERS)
def test_any_sequence_of_answers_records_the_first_valid_one(answers: list[Any]) -> None:
    """Whatever the requests bring, in any order: the first answer with the streamed args is
    the one recorded; the same again replays it, any other is refused; the order runs at
    most once, and only when that first decision approved it."""
    ran: list[Any] = []
    dispatcher = Dispatcher(registry(ran), MemoryLedger())
    list(dispatcher.run(CALLS))
    first_color: Any = "unset"
    first_decision: Any = None
    for kind, color, approved, cents in answers:
        if kind == "client":
            if color is None:
                call = RequestToolCall(
                    "s/0:0", "pick_color", "output-error", {"prompt": "your color?"}, error="closed"
                )
            else:
                call = answered(color=color)[0]
            (outcome,) = dispatcher.resume([call])
            fresh = first_color == "unset"
            if fresh:
                first_color = color
            if color == first_color:
                assert outcome.replayed is not fresh
                assert (isinstance(outcome, ActionResult) and outcome.result == color) or (
                    color is None and outcome.error_type == CLIENT_ERROR
                )
            else:
                assert isinstance(outcome, ActionFailed) and outcome.error_type == "id_conflict"
        else:
            (outcome,) = dispatcher.resume([answered(approved=approved, cents=cents)[1]])
            if cents != 500:
                assert isinstance(outcome, ActionFailed) and outcome.error_type == "args_changed"
                continue
            fresh = first_decision is None
            if fresh:
                first_decision = approved
            if approved == first_decision:
                assert isinstance(outcome, ActionResult) == approved
                assert outcome.replayed is not fresh
            else:
                assert isinstance(outcome, ActionFailed) and outcome.error_type == "id_conflict"
    orders = [r for r in ran if r[0] == "transfer"]
    assert len(orders) == (1 if first_decision else 0)


def test_a_scope_keeps_other_conversations_calls_out() -> None:
    ran: list[Any] = []
    dispatcher = Dispatcher(registry(ran))
    list(dispatcher.run(CALLS))  # user "s"'s calls: ids "s/0:..."
    theirs = dispatcher.resume(answered(), scope="eve/")
    assert [(o.error_type, o.id) for o in theirs if isinstance(o, ActionFailed)] == [
        ("unknown_call", "s/0:0"),
        ("unknown_call", "s/0:1"),
        ("unknown_call", "s/0:2"),
    ]
    assert ran == [("weather", "Paris")]
    assert [o.type for o in dispatcher.resume(answered(), scope="s/")] == ["action_result"] * 3


def test_redis_keeps_answers_for_its_retention(tmp_path: Path) -> None:
    with ledger_of("redis", tmp_path, retention=60.0) as ledger:
        ledger.offer("k", "pick_color", "k", "client")
        assert ledger.record_client_result("k", "pick_color", result="red").status == "recorded"
        ttl = ledger._sync().pttl(ledger._key("k"))  # type: ignore[attr-defined]
        assert 0 < ttl <= 60_000


def test_invalid_args_in_a_request() -> None:
    """A call streamed as invalid keeps the page's error text (nothing ran, nothing to
    replay); an output claimed for args that do not validate is refused."""
    dispatcher = Dispatcher(registry([]))
    invalid = RequestToolCall(
        "s/0:5", "weather", "output-error", None, raw_args='{"city": ', error="invalid action"
    )
    claimed = RequestToolCall("s/0:6", "weather", "output-available", {"town": 1}, output=1)
    (refused,) = dispatcher.resume([invalid, claimed])
    assert isinstance(refused, ActionFailed) and refused.error_type == "invalid_args"
    assert refused.id == "s/0:6" and "invalid action (schema)" in refused.error

"""Exactly once, for real (issue 11): fingerprints in the ledger, a validating
dispatcher, hostile values that never lose an outcome or hang, the handler's context;
with every kind of ledger."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import unspool.actions._registry as registry_module
from tests.support.actions.servers import KINDS, ledger_of
from tests.support.actions.streams import action_stream
from unspool import ActionContext
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._ledger import Ledger, MemoryLedger, SqliteLedger
from unspool.actions._registry import ActionRegistry
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Event,
    StreamDone,
    new_stream_id,
)
from unspool.protocols._tags import TagParser


def outcomes(events: list[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, (ActionResult, ActionFailed))]


@pytest.fixture(params=KINDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """Each ledger kind; PostgreSQL and Redis on the test servers (see servers.py)."""
    with ledger_of(request.param, tmp_path) as made:
        yield made


def bank(paid: list[tuple[str, int]]) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action
    def transfer(to: str, cents: int) -> str:
        paid.append((to, cents))
        return f"sent {cents} to {to}"

    return registry


def reply(text: str, registry: ActionRegistry, stream_id: str) -> list[Event]:
    parser = TagParser(stream_id=stream_id, registry=registry)
    return [*parser.feed(text), *parser.finish()]


ALICE = '<action name="transfer">{"to": "alice", "cents": 100}</action>'
BOB = '<action name="transfer">{"to": "bob", "cents": 9000}</action>'


# identity and fingerprints ----------------------------------------------------------------


def test_two_replies_through_one_dispatcher_pay_both(ledger: Ledger) -> None:
    paid: list[tuple[str, int]] = []
    registry = bank(paid)
    d = Dispatcher(registry, ledger)
    first = outcomes(list(d.run(reply(ALICE, registry, new_stream_id()))))
    second = outcomes(list(d.run(reply(BOB, registry, new_stream_id()))))
    assert [(type(e), getattr(e, "result", None)) for e in first + second] == [
        (ActionResult, "sent 100 to alice"),
        (ActionResult, "sent 9000 to bob"),
    ]
    assert paid == [("alice", 100), ("bob", 9000)]


def test_a_regenerated_reply_with_other_args_is_an_id_conflict(ledger: Ledger) -> None:
    paid: list[tuple[str, int]] = []
    registry = bank(paid)
    assert outcomes(list(Dispatcher(registry, ledger).run(reply(ALICE, registry, "r1")))) == [
        ActionResult("r1:0", 0, "transfer", "sent 100 to alice")
    ]
    (clash,) = outcomes(list(Dispatcher(registry, ledger).run(reply(BOB, registry, "r1"))))
    assert isinstance(clash, ActionFailed)
    assert (clash.id, clash.error_type, clash.replayed) == ("r1:0", "id_conflict", False)
    assert clash.error.startswith(
        'ledger key \'r1:0\' was recorded for transfer {"cents":100,"to":"alice"} (fingerprint '
    )
    assert 'this action is transfer {"cents":9000,"to":"bob"} (fingerprint ' in clash.error
    assert clash.error.endswith("): not run")
    assert paid == [("alice", 100)]  # bob's handler never ran, alice's result not handed out
    # the exact same reply again is a replay
    assert outcomes(list(Dispatcher(registry, ledger).run(reply(ALICE, registry, "r1")))) == [
        ActionResult("r1:0", 0, "transfer", "sent 100 to alice", replayed=True)
    ]
    assert paid == [("alice", 100)]


class Order(BaseModel):
    order: str
    cents: int


def test_key_functions_and_fingerprints_decide_together(ledger: Ledger) -> None:
    runs: list[str] = []
    registry = ActionRegistry()

    @registry.action(key=lambda args: args.order)
    def charge(args: Order) -> int:
        runs.append(args.order)
        return args.cents

    def once(order: str, cents: int) -> list[Event]:
        stream = action_stream(
            [("charge", {"order": order, "cents": cents})],
            stream_id=new_stream_id(),
            registry=registry,
        )
        return outcomes(list(Dispatcher(registry, ledger).run(stream)))

    assert [(type(e), e.replayed) for e in once("o1", 5)] == [(ActionResult, False)]
    assert [(type(e), e.replayed) for e in once("o1", 5)] == [(ActionResult, True)]
    (clash,) = once("o1", 7)
    assert isinstance(clash, ActionFailed) and clash.error_type == "id_conflict"
    assert "ledger key 'charge:o1' was recorded for charge" in clash.error
    assert runs == ["o1"]


# the dispatcher validates -----------------------------------------------------------------


def test_an_unvalidated_source_behind_a_validating_dispatcher(ledger: Ledger) -> None:
    paid: list[tuple[str, int]] = []
    registry = bank(paid)
    source = action_stream(
        [("transfer", {"to": "eve", "cents": "lots"}), ("wire", {"to": "x"})],
        stream_id="raw",
    )  # a parser without a registry
    out = list(Dispatcher(registry, ledger).run(source))
    assert [type(e).__name__ for e in out] == [
        "ActionStarted",
        "ActionArgsDelta",
        "ActionInvalid",
        "ActionStarted",
        "ActionArgsDelta",
        "ActionInvalid",
        "StreamDone",
    ]
    schema, unknown = (e for e in out if isinstance(e, ActionInvalid))
    assert (schema.reason, schema.errors[0]["path"], schema.errors[0]["type"]) == (
        "schema",
        ["cents"],
        "int_parsing",
    )
    assert (unknown.reason, unknown.name) == ("unknown_action", "wire")
    assert out[-1] == StreamDone("complete", 0, 2, 0)
    assert paid == []
    assert ledger.records() == []


def test_the_registry_validation_of_the_source_is_not_repeated(monkeypatch: Any) -> None:
    calls: list[Any] = []
    real = registry_module.jsonschema_errors

    def counting(validator: Any, instance: Any) -> Any:
        calls.append(instance)
        return real(validator, instance)

    monkeypatch.setattr(registry_module, "jsonschema_errors", counting)
    registry = ActionRegistry()
    registry.register(
        "note",
        lambda args: args["text"],
        schema={"type": "object", "properties": {"text": {"type": "string"}}},
    )
    validated = action_stream([("note", {"text": "a"})], registry=registry)
    assert len(calls) == 1  # by the source
    out = list(Dispatcher(registry).run(validated))
    assert len(calls) == 1  # not again by the dispatcher
    assert outcomes(out) == [ActionResult("s:0", 0, "note", "a")]
    raw = action_stream([("note", {"text": "b"})], stream_id="t")
    assert outcomes(list(Dispatcher(registry).run(raw))) == [ActionResult("t:0", 0, "note", "b")]
    assert len(calls) == 2  # a source without the registry: validated once, here
    other = ActionRegistry()
    other.register("note", schema={"type": "object"})
    foreign = action_stream([("note", {"text": 3})], stream_id="u", registry=other)
    (invalid,) = [e for e in Dispatcher(registry).run(foreign) if isinstance(e, ActionInvalid)]
    assert invalid.reason == "schema"  # another registry's verdict is not this one's


# hostile values ---------------------------------------------------------------------------


class Boom(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message for you")


class Opaque:
    """An object with no JSON form."""


def circular() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


HUGE = 7**5916  # 5000 digits
assert HUGE.bit_length() > 16_000  # past str()'s 4300-digit limit


def hostile_registry(runs: list[str]) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action(key=lambda args: args.s)
    def echo(s: str, n: int) -> dict[str, Any]:
        runs.append("echo")
        return {"s": s, "n": n, "t": "\x00\ud83d"}

    @registry.action
    def cycle() -> list[Any]:
        runs.append("cycle")
        return circular()

    @registry.action
    def opaque() -> Opaque:
        runs.append("opaque")
        return Opaque()

    @registry.action
    def boom() -> None:
        runs.append("boom")
        raise Boom

    return registry


def test_hostile_values_end_with_an_event_and_free_the_claim(ledger: Ledger) -> None:
    runs: list[str] = []
    registry = hostile_registry(runs)
    items: list[str | tuple[str, Any]] = [
        ("echo", {"s": "\ud800 lone\x00", "n": HUGE}),
        ("cycle", {}),
        ("opaque", {}),
        ("boom", {}),
    ]
    stream_id = "\udfff-reply"
    first = outcomes(
        list(
            Dispatcher(registry, ledger).run(
                action_stream(items, stream_id=stream_id, registry=registry)
            )
        )
    )
    assert [type(e).__name__ for e in first] == ["ActionResult"] * 3 + ["ActionFailed"]
    echo, cycle, opaque, boom = first
    assert isinstance(echo, ActionResult)
    assert echo.result == {"s": "\ud800 lone\x00", "n": HUGE, "t": "\x00\ud83d"}
    assert isinstance(cycle, ActionResult) and cycle.result[0] is cycle.result
    assert isinstance(opaque, ActionResult) and isinstance(opaque.result, Opaque)
    assert isinstance(boom, ActionFailed)
    assert (boom.error, boom.error_type) == ("<Boom: str() raised RuntimeError>", "Boom")

    # a second dispatcher on the same keys returns at once, replaying what was recorded
    started = time.monotonic()
    again = outcomes(
        list(
            Dispatcher(registry, ledger).run(
                action_stream(items, stream_id=stream_id, registry=registry)
            )
        )
    )
    assert time.monotonic() - started < 1
    assert runs == ["echo", "cycle", "opaque", "boom"]
    assert all(e.replayed for e in again if isinstance(e, (ActionResult, ActionFailed)))
    assert again[0] == ActionResult(
        f"{stream_id}:0",
        0,
        "echo",
        {"s": "\ud800 lone\x00", "n": HUGE, "t": "\x00\ud83d"},
        replayed=True,
    )
    assert again[3] == ActionFailed(
        f"{stream_id}:3", 3, "boom", "<Boom: str() raised RuntimeError>", "Boom", replayed=True
    )
    if isinstance(ledger, MemoryLedger):  # the very objects are kept
        assert isinstance(again[1], ActionResult) and again[1].result is cycle.result
        assert isinstance(again[2], ActionResult) and again[2].result is opaque.result
    else:  # no JSON form: the replay says so rather than inventing a value
        for event, name in zip(again[1:3], ("cycle", "opaque"), strict=True):
            assert isinstance(event, ActionFailed)
            assert (event.name, event.error_type) == (name, "result_not_stored")
            assert event.error.startswith("the handler returned a result with no JSON form")
    keys = {r.key: r for r in ledger.records()}
    assert set(keys) == {"echo:\ud800 lone\x00", *(f"{stream_id}:{i}" for i in (1, 2, 3))}
    assert all(r.state == "finished" for r in keys.values())


def test_sqlite_keeps_hostile_text_escaped_and_round_tripping(tmp_path: Path) -> None:
    runs: list[str] = []
    registry = hostile_registry(runs)
    stream = action_stream([("echo", {"s": "\x01a\ud800", "n": 1})], stream_id="h")
    with SqliteLedger(tmp_path / "h.db") as ledger:
        list(Dispatcher(registry, ledger).run(stream))
        (row,) = ledger.records()
    assert row.key == "echo:\x01a\ud800"
    db = sqlite3.connect(tmp_path / "h.db")
    assert db.execute("SELECT key, result FROM unspool_actions").fetchone() == (
        '\x01"echo:\\u0001a\\ud800"',
        '{"s": "\\u0001a\\ud800", "n": 1, "t": "\\u0000\\ud83d"}',
    )
    db.close()


# storage failures -------------------------------------------------------------------------


def test_storage_failures_are_ledger_errors(tmp_path: Path) -> None:
    runs: list[str] = []
    registry = ActionRegistry()
    path = tmp_path / "f.db"

    @registry.action
    def step(n: int) -> int:
        runs.append(f"step{n}")
        if n == 0:  # the table goes away while the handler runs
            with sqlite3.connect(path) as db:
                db.execute("DROP TABLE unspool_actions")
        return n

    stream = action_stream([("step", {"n": 0}), ("step", {"n": 1})], stream_id="f")
    with SqliteLedger(path) as ledger:
        first, second = outcomes(list(Dispatcher(registry, ledger).run(stream)))
    assert isinstance(first, ActionFailed) and first.error_type == "ledger_error"
    assert first.error == (
        "the handler of 'f:0' returned 0, but the ledger could not record it "
        "(OperationalError: no such table: unspool_actions); later claims of this key "
        "report an unknown outcome"
    )
    assert isinstance(second, ActionFailed) and second.error_type == "ledger_error"
    assert second.error == (
        "the ledger could not claim key 'f:1' (OperationalError: no such table: "
        "unspool_actions); not run"
    )
    assert runs == ["step0"]  # an action whose claim failed never runs


def test_no_process_wide_lock_is_held_while_a_write_waits(tmp_path: Path) -> None:
    registry = ActionRegistry()

    @registry.action
    def ping(n: int) -> int:
        return n

    path = tmp_path / "busy.db"
    SqliteLedger(path).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    stuck: list[Event] = []
    with SqliteLedger(path, timeout=1.5) as busy:
        waiting = threading.Thread(
            target=lambda: stuck.extend(
                Dispatcher(registry, busy).run(action_stream([("ping", {"n": 1})], stream_id="b"))
            )
        )
        waiting.start()
        time.sleep(0.2)
        started = time.monotonic()
        free = list(
            Dispatcher(registry, MemoryLedger()).run(
                action_stream([("ping", {"n": 2})], stream_id="m")
            )
        )
        assert time.monotonic() - started < 1.0  # not behind the write waiting 1.5 s
        assert outcomes(free) == [ActionResult("m:0", 0, "ping", 2)]
        waiting.join(10)
    blocker.rollback()
    blocker.close()
    (failed,) = outcomes(stuck)
    assert isinstance(failed, ActionFailed)
    assert (failed.error_type, "database is locked" in failed.error) == ("ledger_error", True)


# the handler's context --------------------------------------------------------------------


class Crash(BaseException):
    """Stands for the process dying mid-handler (it is not an ``Exception``)."""


def test_the_context_and_the_same_idempotency_key_on_a_rerun(ledger: Ledger) -> None:
    seen: list[ActionContext] = []
    crash = [True]
    registry = ActionRegistry()

    @registry.action(idempotent=True)
    def charge(order: str, ctx: ActionContext, cents: int = 1) -> str:
        seen.append(ctx)
        if crash[0]:
            raise Crash
        return f"charged {order} with key {ctx.idempotency_key}"

    stream = action_stream([("charge", {"order": "o9", "cents": 5})], stream_id="pay-7")
    with pytest.raises(Crash):
        list(Dispatcher(registry, ledger).run(stream))
    crash[0] = False
    (done,) = outcomes(list(Dispatcher(registry, ledger).run(stream)))
    first, rerun = seen
    assert first == ActionContext("pay-7:0", "pay-7", "charge", "pay-7:0", first.idempotency_key)
    assert len(first.idempotency_key) == 32 and int(first.idempotency_key, 16) >= 0
    assert (rerun.idempotency_key, rerun.attempt, rerun.rerun) == (first.idempotency_key, 2, True)
    assert done == ActionResult(
        "pay-7:0", 0, "charge", f"charged o9 with key {first.idempotency_key}"
    )
    assert "ctx" not in registry.json_schema("charge")["properties"]


def test_a_non_idempotent_action_interrupted_is_an_unknown_outcome(ledger: Ledger) -> None:
    registry = ActionRegistry()
    runs: list[int] = []

    @registry.action
    def launch(n: int) -> int:
        runs.append(n)
        if len(runs) == 1:
            raise Crash
        return n

    stream = action_stream([("launch", {"n": 1})], stream_id="l")
    with pytest.raises(Crash):
        list(Dispatcher(registry, ledger).run(stream))
    (unknown,) = outcomes(list(Dispatcher(registry, ledger).run(stream)))
    assert isinstance(unknown, ActionFailed) and unknown.error_type == "unknown_outcome"
    assert runs == [1]


def test_context_with_a_model_and_with_a_schema() -> None:
    registry = ActionRegistry()

    @registry.action
    def place(args: Order, context: ActionContext) -> str:
        return f"{args.order}@{context.stream_id}"

    registry.register(
        "tag", lambda value, ctx: f"{value['t']}@{ctx.action_id}", schema={"type": "object"}
    )
    spec = registry["tag"]
    assert spec.context is None  # an unannotated parameter is not the context
    ctx_registry = ActionRegistry()

    def tag(value: dict[str, Any], ctx: ActionContext) -> str:
        return f"{value['t']}@{ctx.action_id}"

    ctx_registry.register("tag", tag, schema={"type": "object"})
    stream = action_stream([("place", {"order": "o", "cents": 1})], stream_id="a:b")
    assert outcomes(list(Dispatcher(registry).run(stream))) == [
        ActionResult("a:b:0", 0, "place", "o@a:b")
    ]
    tagged = action_stream([("tag", {"t": "x"})], stream_id="z")
    assert outcomes(list(Dispatcher(ctx_registry).run(tagged))) == [
        ActionResult("z:0", 0, "tag", "x@z:0")
    ]


def test_validated_args_are_handed_on() -> None:
    registry = ActionRegistry()

    @registry.action
    def add(a: int, b: int = 2) -> int:
        return a + b

    out = list(Dispatcher(registry).run(action_stream([("add", {"a": "3"})])))
    (complete,) = [e for e in out if isinstance(e, ActionComplete)]
    assert complete.args.model_dump() == {"a": 3, "b": 2}
    assert outcomes(out) == [ActionResult("s:0", 0, "add", 5)]

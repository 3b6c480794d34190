"""Dispatcher: handlers run only on ActionComplete, once per key, in stream order."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel

from tests.support.actions.streams import action_stream
from unspool.actions._dispatcher import Dispatcher
from unspool.actions._ledger import MemoryLedger, SqliteLedger
from unspool.actions._registry import ActionRegistry
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Event,
    StreamDone,
    TextDelta,
)


class Calls:
    """What the handlers were called with, in call order (thread-safe)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    def add(self, name: str, value: Any) -> None:
        with self._lock:
            self.items.append((name, value))


def shop(calls: Calls) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action
    def add_to_cart(product: str, qty: int = 1) -> dict[str, Any]:
        calls.add("add_to_cart", (product, qty))
        return {"product": product, "qty": qty}

    @registry.action
    def checkout(cart: str) -> str:
        calls.add("checkout", cart)
        if cart == "empty":
            raise ValueError("the cart is empty")
        return f"order-{cart}"

    registry.register("show_banner", schema={"type": "object"})
    return registry


def outcomes(events: list[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, (ActionResult, ActionFailed))]


# sequential -----------------------------------------------------------------------------


def test_passes_every_event_and_adds_results_right_after_completion() -> None:
    calls = Calls()
    registry = shop(calls)
    stream = action_stream(
        [
            "Adding. ",
            ("add_to_cart", {"product": "p1", "qty": 2}),
            "Paying. ",
            ("checkout", {"cart": "c7"}),
        ],
        registry=registry,
    )
    out = list(Dispatcher(registry).run(stream))
    args0 = stream[3]
    assert isinstance(args0, ActionComplete)
    assert out == [
        TextDelta("Adding. "),
        ActionStarted("s:0", 0, "add_to_cart"),
        ActionArgsDelta("s:0", 0, {"product": "p1", "qty": 2}),
        args0,
        ActionResult("s:0", 0, "add_to_cart", {"product": "p1", "qty": 2}),
        TextDelta("Paying. "),
        ActionStarted("s:1", 1, "checkout"),
        ActionArgsDelta("s:1", 1, {"cart": "c7"}),
        stream[7],
        ActionResult("s:1", 1, "checkout", "order-c7"),
        StreamDone("complete", 2, 0, 16),
    ]
    assert calls.items == [("add_to_cart", ("p1", 2)), ("checkout", "c7")]


def test_handler_exception_becomes_action_failed_and_the_next_action_runs() -> None:
    calls = Calls()
    registry = shop(calls)
    stream = action_stream(
        [("checkout", {"cart": "empty"}), ("add_to_cart", {"product": "p2"})], registry=registry
    )
    assert outcomes(list(Dispatcher(registry).run(stream))) == [
        ActionFailed("s:0", 0, "checkout", "the cart is empty", "ValueError"),
        ActionResult("s:1", 1, "add_to_cart", {"product": "p2", "qty": 1}),
    ]
    assert calls.items == [("checkout", "empty"), ("add_to_cart", ("p2", 1))]


def test_handlers_never_run_on_start_delta_or_invalid() -> None:
    calls = Calls()
    registry = shop(calls)
    stream = action_stream([("add_to_cart", {"product": 5}), ("nope", {})], registry=registry)
    out = list(Dispatcher(registry).run(stream))
    assert out == stream
    assert [type(e) for e in out if isinstance(e, ActionInvalid)] == [ActionInvalid, ActionInvalid]
    assert calls.items == []


def test_same_stream_fed_twice_runs_each_action_once() -> None:
    calls = Calls()
    registry = shop(calls)
    stream = action_stream(
        [("add_to_cart", {"product": "p1"}), ("checkout", {"cart": "empty"})], registry=registry
    )
    dispatcher = Dispatcher(registry)
    first = list(dispatcher.run(stream))
    assert dispatcher.replayed == set()
    second = list(dispatcher.run(stream))
    assert outcomes(first) == [
        ActionResult("s:0", 0, "add_to_cart", {"product": "p1", "qty": 1}),
        ActionFailed("s:1", 1, "checkout", "the cart is empty", "ValueError"),
    ]
    assert outcomes(second) == [
        ActionResult("s:0", 0, "add_to_cart", {"product": "p1", "qty": 1}, replayed=True),
        ActionFailed("s:1", 1, "checkout", "the cart is empty", "ValueError", replayed=True),
    ]
    assert [e for e in second if e not in outcomes(second)] == [
        e for e in first if e not in outcomes(first)
    ]
    assert dispatcher.replayed == {"s:0", "s:1"}
    assert calls.items == [("add_to_cart", ("p1", 1)), ("checkout", "empty")]


def test_rerender_with_a_new_parser_and_dispatcher_and_the_same_sqlite_ledger(
    tmp_path: Any,
) -> None:
    calls = Calls()
    registry = shop(calls)
    items: list[str | tuple[str, Any]] = [
        "Sure. ",
        ("add_to_cart", {"product": "p1", "qty": 3}),
        ("checkout", {"cart": "c1"}),
    ]
    path = tmp_path / "ledger.db"
    with SqliteLedger(path) as ledger:
        first = outcomes(
            list(Dispatcher(registry, ledger).run(action_stream(items, registry=registry)))
        )
    # the UI re-renders: a new parser (emitter) reads the same reply, a new dispatcher,
    # a new connection to the same ledger file
    with SqliteLedger(path) as ledger:
        again = Dispatcher(registry, ledger)
        second = outcomes(list(again.run(action_stream(items, registry=registry))))
        rows = ledger.records()
    assert first == [
        ActionResult("s:0", 0, "add_to_cart", {"product": "p1", "qty": 3}),
        ActionResult("s:1", 1, "checkout", "order-c1"),
    ]
    assert second == [
        ActionResult("s:0", 0, "add_to_cart", {"product": "p1", "qty": 3}, replayed=True),
        ActionResult("s:1", 1, "checkout", "order-c1", replayed=True),
    ]
    assert again.replayed == {"s:0", "s:1"}
    assert calls.items == [("add_to_cart", ("p1", 3)), ("checkout", "c1")]
    assert [(r.key, r.name, r.state, r.ok, r.result, r.attempts) for r in rows] == [
        ("s:0", "add_to_cart", "finished", True, {"product": "p1", "qty": 3}, 1),
        ("s:1", "checkout", "finished", True, "order-c1", 1),
    ]


def test_max_actions_limits_per_stream_and_replays_the_recorded_outcomes() -> None:
    calls = Calls()
    registry = shop(calls)
    stream = action_stream(
        [("add_to_cart", {"product": f"p{i}"}) for i in range(4)], registry=registry
    )
    dispatcher = Dispatcher(registry, max_actions=2)
    first = outcomes(list(dispatcher.run(stream)))
    limit = "the limit of 2 actions per stream was reached"
    assert first == [
        ActionResult("s:0", 0, "add_to_cart", {"product": "p0", "qty": 1}),
        ActionResult("s:1", 1, "add_to_cart", {"product": "p1", "qty": 1}),
        ActionFailed("s:2", 2, "add_to_cart", limit, "limit"),
        ActionFailed("s:3", 3, "add_to_cart", limit, "limit"),
    ]
    assert dispatcher.replayed == set()
    # the limit is counted per stream again; only the two recorded outcomes are replays
    assert outcomes(list(dispatcher.run(stream))) == [
        ActionResult("s:0", 0, "add_to_cart", {"product": "p0", "qty": 1}, replayed=True),
        ActionResult("s:1", 1, "add_to_cart", {"product": "p1", "qty": 1}, replayed=True),
        ActionFailed("s:2", 2, "add_to_cart", limit, "limit"),
        ActionFailed("s:3", 3, "add_to_cart", limit, "limit"),
    ]
    assert dispatcher.replayed == {"s:0", "s:1"}
    assert calls.items == [("add_to_cart", ("p0", 1)), ("add_to_cart", ("p1", 1))]


def test_actions_without_handler_fail_or_pass() -> None:
    registry = shop(Calls())
    stream = action_stream([("show_banner", {"text": "hi"})], registry=registry)
    assert outcomes(list(Dispatcher(registry).run(stream))) == [
        ActionFailed(
            "s:0",
            0,
            "show_banner",
            "no handler is registered for action 'show_banner'",
            "no_handler",
        )
    ]
    assert list(Dispatcher(registry, unhandled="pass").run(stream)) == stream


def test_unvalidated_args_are_validated_by_the_dispatcher() -> None:
    calls = Calls()
    registry = shop(calls)
    stream = action_stream(
        [("add_to_cart", {"product": "p1", "qty": "2"}), ("add_to_cart", {"qty": 1})]
    )  # no registry at the parser: raw dicts
    out = list(Dispatcher(registry).run(stream))
    checked = [e for e in out if isinstance(e, (ActionComplete, ActionInvalid))]
    assert [type(e) for e in checked] == [ActionComplete, ActionInvalid]
    assert isinstance(checked[0], ActionComplete)
    assert checked[0].args.model_dump() == {"product": "p1", "qty": 2}  # handed on validated
    assert checked[1] == ActionInvalid(
        "s:1",
        1,
        "add_to_cart",
        "schema",
        ({"path": ["product"], "message": "Field required", "type": "missing"},),
    )
    assert outcomes(out) == [ActionResult("s:0", 0, "add_to_cart", {"product": "p1", "qty": 2})]
    assert out[-1] == StreamDone("complete", 1, 1, 0)
    assert calls.items == [("add_to_cart", ("p1", 2))]


# idempotency keys -----------------------------------------------------------------------


class Charge(BaseModel):
    order: str
    cents: int


def test_key_function_dedupes_across_streams() -> None:
    runs: list[str] = []
    registry = ActionRegistry()

    @registry.action(key=lambda args: args.order)
    def charge(args: Charge) -> int:
        runs.append(args.order)
        return args.cents

    ledger = MemoryLedger()
    first = action_stream(
        [("charge", {"order": "o1", "cents": 5})], stream_id="try-1", registry=registry
    )
    retry = action_stream(
        [("charge", {"order": "o1", "cents": 5}), ("charge", {"order": "o2", "cents": 9})],
        stream_id="try-2",
        registry=registry,
    )
    assert outcomes(list(Dispatcher(registry, ledger).run(first))) == [
        ActionResult("try-1:0", 0, "charge", 5)
    ]
    retried = Dispatcher(registry, ledger)
    assert outcomes(list(retried.run(retry))) == [
        ActionResult("try-2:0", 0, "charge", 5, replayed=True),
        ActionResult("try-2:1", 1, "charge", 9),
    ]
    assert retried.replayed == {"try-2:0"}
    assert runs == ["o1", "o2"]
    assert [r.key for r in ledger.records()] == ["charge:o1", "charge:o2"]


def test_same_action_id_for_another_action_name_is_an_id_conflict() -> None:
    registry = shop(Calls())
    ledger = MemoryLedger()
    list(
        Dispatcher(registry, ledger).run(
            action_stream([("checkout", {"cart": "c"})], registry=registry)
        )
    )
    clash = action_stream([("add_to_cart", {"product": "p"})], registry=registry)
    (failed,) = outcomes(list(Dispatcher(registry, ledger).run(clash)))
    assert isinstance(failed, ActionFailed)
    assert (failed.error_type, failed.replayed) == ("id_conflict", False)
    assert failed.error.startswith(
        'ledger key \'s:0\' was recorded for checkout {"cart":"c"} (fingerprint '
    )
    assert 'this action is add_to_cart {"product":"p","qty":1} (fingerprint ' in failed.error


def test_a_raising_key_function_is_reported() -> None:
    registry = ActionRegistry()

    @registry.action(key=lambda args: args.missing)
    def ping(host: str) -> str:
        return host

    stream = action_stream([("ping", {"host": "h"})], registry=registry)
    (failed,) = outcomes(list(Dispatcher(registry).run(stream)))
    assert isinstance(failed, ActionFailed)
    assert failed.error_type == "key_error"
    assert failed.error.startswith("the idempotency key function raised AttributeError: ")


# concurrency ----------------------------------------------------------------------------


def test_concurrent_run_overlaps_handlers_and_keeps_stream_order() -> None:
    barrier = threading.Barrier(3, timeout=10)
    finished: list[int] = []
    registry = ActionRegistry()

    @registry.action
    def work(n: int) -> int:
        barrier.wait()  # all three must be running at once, or this times out
        time.sleep(0.05 * (3 - n))  # the first one finishes last
        finished.append(n)
        return n * 10

    stream = action_stream([("work", {"n": n}) for n in range(3)] + ["done"], registry=registry)
    out = list(Dispatcher(registry, concurrent=True, max_workers=3).run(stream))
    assert finished == [2, 1, 0]
    assert outcomes(out) == [ActionResult(f"s:{n}", n, "work", n * 10) for n in range(3)]
    assert out[-1] == StreamDone("complete", 3, 0, 4)
    assert [e for e in out if not isinstance(e, ActionResult)] == stream


def test_concurrent_run_abandoned_early_releases_actions_that_never_started() -> None:
    go = threading.Event()
    registry = ActionRegistry()
    ran: list[str] = []

    @registry.action
    def slow(tag: str) -> str:
        ran.append(tag)
        go.wait(10)
        return tag

    ledger = MemoryLedger()
    stream = action_stream(
        [("slow", {"tag": "a"}), ("slow", {"tag": "b"}), "after"], registry=registry
    )
    run = Dispatcher(registry, ledger, concurrent=True, max_workers=1).run(stream)
    for event in run:
        if event == TextDelta("after"):
            break
    threading.Timer(0.2, go.set).start()
    run.close()  # "b" is queued behind "a" on the single worker: released, never run
    assert ran == ["a"]
    assert [(r.key, r.state, r.result) for r in ledger.records()] == [("s:0", "finished", "a")]


def test_two_dispatchers_on_one_ledger_wait_for_the_running_action() -> None:
    release = threading.Event()
    entered = threading.Event()
    runs: list[str] = []
    registry = ActionRegistry()

    @registry.action
    def send_email(to: str) -> str:
        runs.append(to)
        entered.set()
        release.wait(10)
        return f"sent:{to}"

    ledger = MemoryLedger()
    stream = action_stream([("send_email", {"to": "a@x"})], registry=registry)
    results: dict[str, list[Event]] = {}

    def render(label: str) -> None:
        results[label] = outcomes(list(Dispatcher(registry, ledger).run(stream)))

    first = threading.Thread(target=render, args=("first",))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=render, args=("rerender",))
    second.start()
    time.sleep(0.1)
    assert second.is_alive()  # waiting for the running send, not sending again
    release.set()
    first.join(10)
    second.join(10)
    assert results == {
        "first": [ActionResult("s:0", 0, "send_email", "sent:a@x")],
        "rerender": [ActionResult("s:0", 0, "send_email", "sent:a@x", replayed=True)],
    }
    assert runs == ["a@x"]


# async ------------------------------------------------------------------------------------


async def test_arun_sequential_with_async_and_sync_handlers() -> None:
    threads: dict[str, bool] = {}
    registry = ActionRegistry()

    @registry.action
    async def fetch(url: str) -> str:
        await asyncio.sleep(0)
        return f"<{url}>"

    @registry.action
    def compute(x: int) -> int:
        threads["compute_in_main_thread"] = threading.current_thread() is threading.main_thread()
        return x * x

    stream = action_stream([("fetch", {"url": "u"}), ("compute", {"x": 7})], registry=registry)
    out = [e async for e in Dispatcher(registry).arun(stream)]
    assert outcomes(out) == [
        ActionResult("s:0", 0, "fetch", "<u>"),
        ActionResult("s:1", 1, "compute", 49),
    ]
    assert threads == {"compute_in_main_thread": False}


async def test_arun_concurrent_keeps_order_and_reports_before_the_source_moves_on() -> None:
    second_done = asyncio.Event()
    seen_first_result = asyncio.Event()
    registry = ActionRegistry()

    @registry.action
    async def step(n: int) -> int:
        if n == 0:
            await second_done.wait()  # finishes after step 1: results must still come in order
        else:
            second_done.set()
        return n

    events = action_stream([("step", {"n": 0}), ("step", {"n": 1})], registry=registry)

    async def source() -> AsyncIterator[Event]:
        for event in events[:-1]:
            yield event
        await seen_first_result.wait()  # the source idles until the consumer saw a result
        yield events[-1]

    out: list[Event] = []
    async for event in Dispatcher(registry, concurrent=True).arun(source()):
        out.append(event)
        if isinstance(event, ActionResult):
            seen_first_result.set()
    assert outcomes(out) == [ActionResult("s:0", 0, "step", 0), ActionResult("s:1", 1, "step", 1)]
    assert out[-1] == StreamDone("complete", 2, 0, 0)
    assert [e for e in out if not isinstance(e, ActionResult)] == events


async def test_arun_concurrent_exception_and_limit() -> None:
    registry = ActionRegistry()

    @registry.action
    async def risky(n: int) -> int:
        if n == 1:
            raise RuntimeError("no luck")
        return n

    stream = action_stream([("risky", {"n": n}) for n in range(4)], registry=registry)
    out = [e async for e in Dispatcher(registry, concurrent=True, max_actions=3).arun(stream)]
    assert outcomes(out) == [
        ActionResult("s:0", 0, "risky", 0),
        ActionFailed("s:1", 1, "risky", "no luck", "RuntimeError"),
        ActionResult("s:2", 2, "risky", 2),
        ActionFailed("s:3", 3, "risky", "the limit of 3 actions per stream was reached", "limit"),
    ]


async def test_arun_concurrent_abandoned_early_releases_actions_that_never_started() -> None:
    go = asyncio.Event()
    ran: list[str] = []
    registry = ActionRegistry()

    @registry.action
    async def slow(tag: str) -> str:
        ran.append(tag)
        await go.wait()
        return tag

    ledger = MemoryLedger()
    stream = action_stream(
        [("slow", {"tag": "a"}), ("slow", {"tag": "b"}), "after"], registry=registry
    )
    run = Dispatcher(registry, ledger, concurrent=True, max_workers=1).arun(stream)
    async for event in run:
        if event == TextDelta("after"):
            break
    asyncio.get_running_loop().call_later(0.05, go.set)
    await run.aclose()
    assert ran == ["a"]
    assert [(r.key, r.state, r.result) for r in ledger.records()] == [("s:0", "finished", "a")]


def test_async_handler_under_sync_run() -> None:
    registry = ActionRegistry()

    @registry.action
    async def greet(name: str) -> str:
        await asyncio.sleep(0)
        return f"hi {name}"

    stream = action_stream([("greet", {"name": "ada"})], registry=registry)
    assert outcomes(list(Dispatcher(registry).run(stream))) == [
        ActionResult("s:0", 0, "greet", "hi ada")
    ]
    assert outcomes(list(Dispatcher(registry, concurrent=True).run(stream))) == [
        ActionResult("s:0", 0, "greet", "hi ada")
    ]


async def test_async_handler_under_sync_run_inside_a_running_loop() -> None:
    registry = ActionRegistry()

    @registry.action
    async def greet(name: str) -> str:
        return f"hi {name}"

    stream = action_stream([("greet", {"name": "bo"})], registry=registry)
    assert outcomes(list(Dispatcher(registry).run(stream))) == [
        ActionResult("s:0", 0, "greet", "hi bo")
    ]


def test_bad_options_raise() -> None:
    registry = ActionRegistry()
    with pytest.raises(ValueError, match="max_actions"):
        Dispatcher(registry, max_actions=-1)
    with pytest.raises(ValueError, match="max_workers"):
        Dispatcher(registry, max_workers=0)
    with pytest.raises(ValueError, match="unhandled"):
        Dispatcher(registry, unhandled="skip")  # type: ignore[arg-type]


def test_concurrent_duplicate_key_in_one_stream_runs_once() -> None:
    runs: list[str] = []
    registry = ActionRegistry()

    @registry.action(key=lambda args: args.order)
    def charge(args: Charge) -> int:
        time.sleep(0.05)
        runs.append(args.order)
        return args.cents

    stream = action_stream(
        [("charge", {"order": "o1", "cents": 5}), ("charge", {"order": "o1", "cents": 5})],
        registry=registry,
    )
    dispatcher = Dispatcher(registry, concurrent=True, max_workers=2)
    assert outcomes(list(dispatcher.run(stream))) == [
        ActionResult("s:0", 0, "charge", 5),
        ActionResult("s:1", 1, "charge", 5, replayed=True),
    ]
    assert runs == ["o1"]
    assert dispatcher.replayed == {"s:1"}


async def test_two_async_renders_on_one_ledger_share_one_run() -> None:
    release = asyncio.Event()
    runs: list[str] = []
    registry = ActionRegistry()

    @registry.action
    async def send(to: str) -> str:
        runs.append(to)
        await release.wait()
        return f"sent:{to}"

    ledger = MemoryLedger()
    stream = action_stream([("send", {"to": "a"})], registry=registry)

    async def render() -> list[Event]:
        return outcomes([e async for e in Dispatcher(registry, ledger).arun(stream)])

    first = asyncio.ensure_future(render())
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(render())
    await asyncio.sleep(0.05)
    assert not second.done()  # waiting on the running send (off the loop), not sending again
    release.set()
    assert await first == [ActionResult("s:0", 0, "send", "sent:a")]
    assert await second == [ActionResult("s:0", 0, "send", "sent:a", replayed=True)]
    assert runs == ["a"]

"""Real parsers with ``registry=`` feeding a Dispatcher: the seed's scenario end to end.

A reply tags actions inside prose (``<action name="...">{...}</action>``) or
interleaves them in a JSON array; the args are validated against the action's
schema inside the stream, invalid ones never run, and a UI re-render (a new
parser reading the same reply, the same ledger) runs nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from unspool.actions._dispatcher import Dispatcher
from unspool.actions._ledger import SqliteLedger
from unspool.actions._registry import ActionRegistry
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Event,
    StreamDone,
    TextDelta,
)
from unspool.protocols._interleaved import InterleavedParser
from unspool.protocols._tags import TagParser


class ShowProductModal(BaseModel):
    actionId: UUID
    productId: str = Field(min_length=1)
    viewMode: Literal["compact", "detailed"] = "compact"
    metadata: dict[str, str] | None = None


class NavigateRoute(BaseModel):
    actionId: UUID
    path: str = Field(pattern=r"^/")


AID = "6f1c1f0e-3f64-4b0c-9a53-3c2b9e3c6a11"
REPLY = (
    'Sure, opening it now <action name="show_product_modal">'
    f'{{"actionId": "{AID}", "productId": "p1", "viewMode": "detailed"}}</action> and '
    f'<action name="navigate_route">{{"actionId": "{AID}", "path": "home"}}</action>'
    " done."
)


def ui_registry(opened: list[str]) -> ActionRegistry:
    registry = ActionRegistry()

    @registry.action(key=lambda args: args.actionId)
    def show_product_modal(args: ShowProductModal) -> dict[str, Any]:
        opened.append(args.productId)
        return {"modal": args.productId, "mode": args.viewMode}

    @registry.action
    def navigate_route(args: NavigateRoute) -> str:
        return args.path

    return registry


def parse(parser: TagParser | InterleavedParser, chunks: list[str]) -> Iterator[Event]:
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.finish()


def interesting(events: list[Event]) -> list[Event]:
    return [
        e
        for e in events
        if isinstance(e, (ActionComplete, ActionInvalid, ActionResult, ActionFailed, StreamDone))
    ]


def test_tags_validated_in_stream_run_once_across_rerenders(tmp_path: Path) -> None:
    opened: list[str] = []
    registry = ui_registry(opened)
    db = tmp_path / "ui.db"
    chunks = list(REPLY)  # one character per chunk
    with SqliteLedger(db) as ledger:
        first = list(
            Dispatcher(registry, ledger).run(
                parse(TagParser(stream_id="reply-9", registry=registry), chunks)
            )
        )
    with SqliteLedger(db) as ledger:  # re-render: new parser, new dispatcher, same ledger
        rerender = Dispatcher(registry, ledger)
        second = list(
            rerender.run(parse(TagParser(stream_id="reply-9", registry=registry), chunks))
        )
    modal = ShowProductModal(actionId=UUID(AID), productId="p1", viewMode="detailed")
    result = {"modal": "p1", "mode": "detailed"}
    invalid = ActionInvalid(
        "reply-9:1",
        1,
        "navigate_route",
        "schema",
        (
            {
                "path": ["path"],
                "message": "String should match pattern '^/'",
                "type": "string_pattern_mismatch",
            },
        ),
        f'{{"actionId": "{AID}", "path": "home"}}',
    )
    done = StreamDone("complete", 1, 1, len("Sure, opening it now  and  done."))
    assert interesting(first) == [
        ActionComplete("reply-9:0", 0, "show_product_modal", modal),
        ActionResult("reply-9:0", 0, "show_product_modal", result),
        invalid,
        done,
    ]
    assert interesting(second) == [
        ActionComplete("reply-9:0", 0, "show_product_modal", modal),
        ActionResult("reply-9:0", 0, "show_product_modal", result, replayed=True),
        invalid,
        done,
    ]
    assert "".join(e.text for e in first if isinstance(e, TextDelta)) == (
        "Sure, opening it now  and  done."
    )
    assert opened == ["p1"]
    assert rerender.replayed == {"reply-9:0"}


def test_interleaved_array_with_registry_and_model_supplied_idempotency_key() -> None:
    opened: list[str] = []
    registry = ui_registry(opened)
    reply = (
        '[{"type":"text","content":"Here it is."},'
        f'{{"type":"action","name":"show_product_modal","params":{{"actionId":"{AID}","productId":"p1"}}}},'
        '{"type":"action","name":"show_product_modal","params":{"actionId":"not-a-uuid","productId":""}}]'
    )
    dispatcher = Dispatcher(registry)
    out = interesting(
        list(dispatcher.run(parse(InterleavedParser(stream_id="r1", registry=registry), [reply])))
    )
    assert out == [
        ActionComplete(
            "r1:0", 0, "show_product_modal", ShowProductModal(actionId=UUID(AID), productId="p1")
        ),
        ActionResult("r1:0", 0, "show_product_modal", {"modal": "p1", "mode": "compact"}),
        ActionInvalid(
            "r1:1",
            1,
            "show_product_modal",
            "schema",
            (
                {
                    "path": ["actionId"],
                    "message": "Input should be a valid UUID, invalid character: found `n` at 0",
                    "type": "uuid_parsing",
                },
                {
                    "path": ["productId"],
                    "message": "String should have at least 1 character",
                    "type": "string_too_short",
                },
            ),
            None,
        ),
        StreamDone("complete", 1, 1, 11),
    ]
    # a retried request (another stream id) repeats the action with the same actionId:
    # the model-supplied key makes it the same side effect, reported, not run again
    retry = interesting(
        list(dispatcher.run(parse(InterleavedParser(stream_id="r2", registry=registry), [reply])))
    )
    assert retry[1] == ActionResult(
        "r2:0", 0, "show_product_modal", {"modal": "p1", "mode": "compact"}, replayed=True
    )
    assert opened == ["p1"]
    assert dispatcher.replayed == {"r2:0"}

"""Builders of interleaved inputs and expected events, shared by the interleaved tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from helpers_chunking import char_chunks, merge_events, run_chunks, splits
from unspool.events import ActionComplete, ActionStarted, Event, StreamDone, TextDelta
from unspool.protocols.emitter import Validation
from unspool.protocols.interleaved import InterleavedParser, parse_interleaved

FENCE = "`" * 3


# -- building inputs and expected events --------------------------------------------


def act(name: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "action",
        "name": name,
        "params": {} if params is None else params,
    }
    item.update(extra)
    return item


def txt(content: Any) -> dict[str, Any]:
    return {"type": "text", "content": content}


def arr(*items: Any) -> str:
    return json.dumps(list(items), ensure_ascii=False, separators=(",", ":"))


def started(i: int, name: str, action_id: str | None = None) -> ActionStarted:
    return ActionStarted(f"stream:{i}", i, name, action_id)


def complete(i: int, name: str, args: Any, action_id: str | None = None) -> ActionComplete:
    return ActionComplete(f"stream:{i}", i, name, args, action_id)


def done(reason: str = "complete", ok: int = 0, bad: int = 0, chars: int = 0) -> StreamDone:
    return StreamDone(reason, ok, bad, chars)  # type: ignore[arg-type]


def T(text: str) -> TextDelta:
    return TextDelta(text)


A = arr(act("spotlight", {"elementId": "img_1"}), txt("Hello class."), act("wb_open"), txt("Bye."))
A_EVENTS: list[Event] = [
    started(0, "spotlight"),
    complete(0, "spotlight", {"elementId": "img_1"}),
    T("Hello class."),
    started(1, "wb_open"),
    complete(1, "wb_open", {}),
    T("Bye."),
]


def check(chunks: Sequence[str], expected: Sequence[object], **opts: Any) -> None:
    """The given chunks, the whole text, every two-way split and one character per
    chunk all give exactly ``expected`` (merged)."""
    expected = list(expected)
    reason = opts.pop("reason", None)
    text = "".join(chunks)

    def run(parts: Sequence[str]) -> list[Event]:
        return merge_events(
            run_chunks(InterleavedParser(**opts, stream_id="stream"), parts, reason)
        )

    assert run(chunks) == expected
    assert run([text]) == expected
    for parts in splits(text):
        assert run(parts) == expected, parts
    assert run(char_chunks(text)) == expected
    assert (
        merge_events(parse_interleaved(text, reason=reason, **opts, stream_id="stream")) == expected
    )


class OnlyWbOpen:
    """A validator that allows one action name (what a registry of one action does)."""

    def validate(self, name: str, args: Any) -> Validation:
        if name != "wb_open":
            return Validation(
                False, reason="unknown_action", errors=({"message": f"no action {name!r}"},)
            )
        return Validation(True, args)

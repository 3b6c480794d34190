"""What a reader of a protocol stream gets, as comparable tuples.

Protocol rows check every parser's output the same way: ``("text", text)`` and
``("action", name, args)`` in stream order, adjacent text joined (text may be cut
into deltas anywhere).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["Output", "check_outputs", "from_events", "merged", "protocol_runner"]

Output = tuple[Any, ...]
"""``("text", text)`` or ``("action", name, args)``."""


def merged(outputs: Iterable[Output]) -> list[Output]:
    """``outputs`` with adjacent text pieces joined and empty ones dropped (each run of
    text joined once, so a long run of small deltas costs linear time)."""
    out: list[Output] = []
    texts: list[str] = []
    for o in outputs:
        if o[0] == "text":
            if o[1]:
                texts.append(o[1])
            continue
        if texts:
            out.append(("text", "".join(texts)))
            texts = []
        out.append(o)
    if texts:
        out.append(("text", "".join(texts)))
    return out


def from_events(events: Iterable[Any], text_delta: Any, complete: Any) -> list[Output]:
    """unspool events as outputs: ``TextDelta`` text and ``ActionComplete`` actions."""
    out: list[Output] = []
    for e in events:
        if isinstance(e, text_delta):
            out.append(("text", e.text))
        elif isinstance(e, complete):
            out.append(("action", e.name, e.args))
    return merged(out)


def protocol_runner(parser_cls: Any) -> Callable[[Sequence[str]], list[Output]]:
    """A run of an unspool protocol parser (``feed`` each chunk, then ``finish``) over
    chunks, as outputs."""
    events_mod = importlib.import_module("unspool.events")
    text_delta, complete = events_mod.TextDelta, events_mod.ActionComplete

    def run(chunks: Sequence[str]) -> list[Output]:
        p = parser_cls()
        events: list[Any] = []
        for c in chunks:
            events += p.feed(c)
        events += p.finish()
        return from_events(events, text_delta, complete)

    return run


def check_outputs(want: Sequence[Output]) -> Callable[[Any], str | None]:
    """A check: None when the outputs equal ``want``, else where they first differ."""

    def check(result: Any) -> str | None:
        if result == want:
            return None
        got: list[Output] = result
        for i, (a, b) in enumerate(zip(got, want, strict=False)):
            if a != b:
                return f"output {i} differs: {str(a)[:70]!r} vs {str(b)[:70]!r}"
        return f"{len(got)} outputs, expected {len(want)}"

    return check

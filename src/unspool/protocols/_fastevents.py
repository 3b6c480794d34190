"""The events the protocols emit on every chunk, built without the dataclass ``__init__``.

:mod:`unspool.events` are frozen dataclasses with slots: their generated
``__init__`` sets each field through ``object.__setattr__``, about 0.4 µs for a
``TextDelta`` and 1 µs for an ``ActionArgsDelta``, more than all the rest of a
parser's work on a small chunk.  These functions make the same objects by writing
the slots directly.  The classes define no ``__post_init__``, so nothing is skipped
(``tests/protocols/test_fastpaths.py`` checks that, and that the objects are equal).
"""

from __future__ import annotations

from typing import Any

from unspool.events import ActionArgsDelta, ReasoningDelta, TextDelta

__all__ = ["args_delta", "new", "reasoning_delta", "set_text", "text_delta"]

new = object.__new__
"""``new(TextDelta)``: an event with its slots unset, for :data:`set_text` (a hot path
inlines :func:`text_delta` so)."""

set_text = TextDelta.__dict__["text"].__set__
"""``set_text(event, text)`` sets the ``text`` of a ``TextDelta`` made by :data:`new`."""

_new = new
_text = set_text
_reasoning = ReasoningDelta.__dict__["text"].__set__
_args = ActionArgsDelta.__dict__
_id, _index = _args["id"].__set__, _args["index"].__set__
_partial, _delta = _args["partial"].__set__, _args["delta"].__set__


def text_delta(text: str) -> TextDelta:
    """``TextDelta(text)``."""
    event: TextDelta = _new(TextDelta)
    _text(event, text)
    return event


def reasoning_delta(text: str) -> ReasoningDelta:
    """``ReasoningDelta(text)``."""
    event: ReasoningDelta = _new(ReasoningDelta)
    _reasoning(event, text)
    return event


def args_delta(action_id: str, index: int, partial: Any, delta: str | None) -> ActionArgsDelta:
    """``ActionArgsDelta(action_id, index, partial, delta)``."""
    event: ActionArgsDelta = _new(ActionArgsDelta)
    _id(event, action_id)
    _index(event, index)
    _partial(event, partial)
    _delta(event, delta)
    return event

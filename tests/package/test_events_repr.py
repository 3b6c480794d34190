"""Events are safe to log: ``repr()`` never raises, whatever their fields hold.

The dataclass repr calls ``repr(int)``, which raises ``ValueError`` past
``sys.get_int_max_str_digits()`` (4300 by default); a model can write such an int.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import Any

import pytest

from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionResult,
    Diagnostic,
    Event,
    StreamDone,
    TextDelta,
)

BIG = 10**5000  # 5001 digits


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no")


def test_plain_events_keep_the_dataclass_repr() -> None:
    assert repr(TextDelta("hé\n")) == "TextDelta(text='hé\\n')"
    assert repr(StreamDone("complete", 1, 0, 3)) == (
        "StreamDone(reason='complete', actions_complete=1, actions_invalid=0, text_chars=3)"
    )
    assert repr(ActionComplete("s:0", 0, "f", {"a": [1, (2,)]}, "c1", {"k": "v"})) == (
        "ActionComplete(id='s:0', index=0, name='f', args={'a': [1, (2,)]},"
        " action_id='c1', attributes={'k': 'v'})"
    )


@pytest.mark.parametrize(
    ("event", "shown"),
    [
        (
            ActionComplete("s:0", 0, "f", {"n": BIG, "l": [1, (-BIG,), {BIG: "k"}]}),
            "ActionComplete(id='s:0', index=0, name='f', args={'n': <int of 5001 digits>,"
            " 'l': [1, (-<int of 5001 digits>,), {<int of 5001 digits>: 'k'}]},"
            " action_id=None, attributes={})",
        ),
        (
            ActionArgsDelta("s:0", 0, {"n": BIG}, '{"n": 1'),
            "ActionArgsDelta(id='s:0', index=0, partial={'n': <int of 5001 digits>},"
            " delta='{\"n\": 1')",
        ),
        (
            ActionResult("s:0", 0, "f", BIG - 1),
            "ActionResult(id='s:0', index=0, name='f', result=<int of 5000 digits>,"
            " replayed=False)",
        ),
        (
            ActionResult("s:0", 0, "f", [Unprintable(), 10**4300, 10**4300 - 1 == 0]),
            "ActionResult(id='s:0', index=0, name='f',"
            " result=[<Unprintable: repr failed>, <int of 4301 digits>, False], replayed=False)",
        ),
        (
            ActionInvalid("s:0", 0, "f", "schema", ({"message": "m", "input": BIG},)),
            "ActionInvalid(id='s:0', index=0, name='f', reason='schema',"
            " errors=({'message': 'm', 'input': <int of 5001 digits>},), raw=None,"
            " action_id=None)",
        ),
    ],
)
def test_huge_ints_are_shortened_in_repr_only(event: Event, shown: str) -> None:
    assert repr(event) == shown
    assert str(event) == shown


def test_to_dict_keeps_every_digit() -> None:
    event = ActionResult("s:0", 0, "f", {"n": -BIG})
    assert "<int" in repr(event)
    assert event.to_dict()["result"] == {"n": "-1" + "0" * 5000}


def test_digit_counts_at_the_powers_of_ten() -> None:
    for number, digits in [(10**4300, 4301), (10**4301 - 1, 4301), (10**4301, 4302)]:
        assert repr(ActionResult("a", 0, "f", number)) == (
            f"ActionResult(id='a', index=0, name='f', result=<int of {digits} digits>,"
            " replayed=False)"
        )
    assert repr(ActionResult("a", 0, "f", 10**4300 - 1)).count("9") == 4300  # still printable


def test_too_deep_to_show_is_named_not_raised() -> None:
    value: Any = [BIG]
    for _ in range(5000):
        value = [value]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # the default; another test may have raised it
    try:
        shown = repr(ActionResult("a", 0, "f", value))
    finally:
        sys.setrecursionlimit(limit)
    assert shown == (
        "ActionResult(id='a', index=0, name='f', result=<list: repr failed>, replayed=False)"
    )


def test_every_event_class_uses_the_safe_repr() -> None:
    events = [
        cls
        for cls in vars(__import__("unspool.events", fromlist=["*"])).values()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    ]
    assert len(events) == len(typing.get_args(Event)) >= 13  # every one, and only those
    for cls in events:
        assert "__repr__" not in vars(cls), cls  # inherited from the events' mixin
    assert repr(Diagnostic("k", "m", BIG)) == (
        "Diagnostic(kind='k', message='m', pos=<int of 5001 digits>, text=None)"
    )

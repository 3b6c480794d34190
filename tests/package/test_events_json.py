"""``Event.to_dict()`` is JSON-safe whatever an event carries (``unspool._jsonsafe``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import json
import math
import uuid
from collections import OrderedDict, deque
from pathlib import PurePosixPath
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_profiles import examples
from unspool import UNSET
from unspool._jsonsafe import CIRCULAR, MAX_DEPTH, TOO_DEEP, to_jsonable
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    Citation,
    Diagnostic,
    Event,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    StreamDone,
)


class Color(enum.Enum):
    RED = "red"
    PAIR = (1, 2)


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class Point:
    x: Any
    y: Any = None


class Order(pydantic.BaseModel):
    id: uuid.UUID
    total: decimal.Decimal
    at: dt.datetime
    ratio: float = 0.5


class Opaque:
    """No text of its own: its default str would hold a memory address."""


class Named:
    def __str__(self) -> str:
        return "named thing"


class Broken:
    def __str__(self) -> str:
        raise RuntimeError("no text")


UTC = dt.timezone.utc
CASES: list[tuple[Any, Any]] = [
    (math.nan, None),
    (math.inf, None),
    (-math.inf, None),
    (-0.0, -0.0),
    (2**53 - 1, 2**53 - 1),
    (-(2**53 - 1), -(2**53 - 1)),
    (2**53, "9007199254740992"),
    (-(2**64), "-18446744073709551616"),
    (True, True),
    (decimal.Decimal("1.10"), "1.10"),
    (decimal.Decimal("-1E+400"), "-1E+400"),
    (decimal.Decimal("NaN"), None),
    (decimal.Decimal("-Infinity"), None),
    (dt.datetime(2024, 5, 6, 7, 8, 9, 10, tzinfo=UTC), "2024-05-06T07:08:09.000010+00:00"),
    (dt.datetime(2024, 5, 6, 7, 8, 9), "2024-05-06T07:08:09"),
    (dt.date(2024, 2, 29), "2024-02-29"),
    (dt.time(23, 59, 1, tzinfo=UTC), "23:59:01+00:00"),
    (dt.timedelta(days=1, hours=2, seconds=0.5), "P1DT2H0.5S"),
    (dt.timedelta(seconds=-30), "-PT30S"),
    (dt.timedelta(0), "PT0S"),
    (dt.timedelta(minutes=3), "PT3M"),
    (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    (b"\x00\xffhi", "AP9oaQ=="),
    (bytearray(b"ab"), "YWI="),
    (memoryview(b"ab"), "YWI="),
    ({3, 1, 2}, [1, 2, 3]),
    (frozenset({"b", "a"}), ["a", "b"]),
    ({1, "a"}, ["a", 1]),  # not comparable: ordered by JSON text ('"a"' < '1')
    ((1, (2, 3)), [1, [2, 3]]),
    (deque([1, 2]), [1, 2]),
    (Color.RED, "red"),
    (Color.PAIR, [1, 2]),
    (Level.HIGH, 3),
    (PurePosixPath("/tmp/x"), "/tmp/x"),
    (
        {1: "a", None: "b", 2.5: "c", False: "d", Color.RED: "e"},
        {"1": "a", "null": "b", "2.5": "c", "false": "d", "red": "e"},
    ),
    ({(1, 2): "t"}, {"[1,2]": "t"}),
    ({1: "int", "1": "str"}, {"1": "str"}),  # the later key wins, as JSON.parse
    (OrderedDict([("b", 1), ("a", 2)]), {"b": 1, "a": 2}),
    (Point(1, [math.nan]), {"x": 1, "y": [None]}),
    (
        Order(
            id=uuid.UUID(int=2),
            total=decimal.Decimal("9.90"),
            at=dt.datetime(2024, 1, 1, tzinfo=UTC),
            ratio=math.inf,
        ),
        {
            "id": "00000000-0000-0000-0000-000000000002",
            "total": "9.90",
            "at": "2024-01-01T00:00:00Z",
            "ratio": None,
        },
    ),
    (ValueError("boom"), "ValueError: boom"),
    (Opaque(), f"{__name__}.Opaque"),
    (Named(), f"{__name__}.Named: named thing"),
    (Broken(), f"{__name__}.Broken"),
    (UNSET, None),
    ("\ud800 lone", "\ud800 lone"),
    (1 + 2j, "complex: (1+2j)"),
]


@pytest.mark.parametrize(("value", "expected"), CASES, ids=lambda v: type(v).__name__)
def test_each_kind_of_value_has_its_json_form(value: Any, expected: Any) -> None:
    converted = to_jsonable(value)
    assert converted == expected or (converted is None and expected is None)
    assert type(converted) is type(expected)
    text = json.dumps({"v": converted}, allow_nan=False)
    assert json.loads(text) == {"v": expected}


def test_an_int_past_the_str_digit_limit_keeps_its_exact_digits() -> None:
    huge = -(7 * 10**5000 + 12345)
    text = to_jsonable(huge)
    assert isinstance(text, str) and len(text) == 5002
    assert text.startswith("-7000") and text.endswith("12345")
    assert int(text[:4000]) == -(7 * 10**3998)  # no digit dropped or added


def test_circular_structures_end_with_a_marker() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    mapping: dict[str, Any] = {"a": 1}
    mapping["me"] = mapping
    point = Point(None)
    point.y = point
    shared = [1]
    converted = to_jsonable(
        {"loop": loop, "map": mapping, "point": point, "twice": [shared, shared]}
    )
    assert converted == {
        "loop": [1, CIRCULAR],
        "map": {"a": 1, "me": CIRCULAR},
        "point": {"x": None, "y": CIRCULAR},
        "twice": [[1], [1]],  # shared but not circular: converted twice
    }


def test_deep_nesting_is_cut_so_json_dumps_cannot_recurse_too_far() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    converted = to_jsonable(deep)
    json.dumps(converted, allow_nan=False)
    level, node = 0, converted
    while isinstance(node, list):
        node, level = node[0], level + 1
    assert (level, node) == (MAX_DEPTH, TOO_DEEP)
    shallow: Any = "leaf"
    for _ in range(MAX_DEPTH):
        shallow = [shallow]
    assert to_jsonable(shallow) == shallow  # up to the limit nothing is cut


def test_to_dict_of_events_uses_the_json_forms() -> None:
    event = ActionResult(
        "s:0",
        0,
        "charge",
        {"at": dt.date(2024, 1, 2), "cents": decimal.Decimal("1.5"), "score": math.nan},
    )
    assert event.to_dict() == {
        "type": "action_result",
        "id": "s:0",
        "index": 0,
        "name": "charge",
        "result": {"at": "2024-01-02", "cents": "1.5", "score": None},
        "replayed": False,
    }
    json.dumps(event.to_dict(), allow_nan=False)


# ----------------------------------------------------------------------------- property

_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(),
    st.decimals(),
    st.text(alphabet=st.characters(codec=None)),  # lone surrogates included
    st.binary(max_size=20),
    st.datetimes(timezones=st.none() | st.timezones()),
    st.dates(),
    st.times(),
    st.timedeltas(),
    st.uuids(),
    st.sampled_from([Color.RED, Color.PAIR, Level.HIGH, UNSET]),
    st.builds(Opaque),
    st.builds(Named),
    st.builds(Broken),
    st.builds(ValueError, st.text(max_size=5)),
    st.complex_numbers(),
)
_hashables = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=5),
    st.uuids(),
    st.dates(),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(_hashables, children, max_size=4),
        st.frozensets(_hashables, max_size=4),
        st.sets(_hashables, max_size=4),
        st.builds(Point, children, children),
        st.builds(
            Order,
            id=st.uuids(),
            total=st.decimals(allow_nan=False, allow_infinity=False),
            at=st.datetimes(),
            ratio=st.floats(),
        ),
    )


handler_results = st.recursive(_leaves, _containers, max_leaves=12)


def _events(value: Any) -> list[Event]:
    mapping = value if isinstance(value, dict) else {"value": value}
    return [
        ActionResult("s:0", 0, "act", value),
        ActionComplete("s:0", 0, "act", value),
        ActionArgsDelta("s:0", 0, value, None),
        ActionInvalid("s:0", 0, "act", "schema", (mapping,)),
        ActionFailed("s:0", 0, "act", "boom", "ValueError"),
        Citation("url_citation", raw=mapping),
        HostedToolStarted("s/hosted:0", "web_search", "ws_1", "web_search_call", {"k": "v"}),
        HostedToolInput("s/hosted:0", "web_search", value),
        HostedToolResult("s/hosted:0", "web_search", value, None, "web_search_call"),
        Diagnostic("note", "x"),
        StreamDone("complete"),
    ]


def _strings(value: Any) -> list[str]:
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            found.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        else:
            assert node is None or type(node) in (bool, int, float), type(node)
            if type(node) is int:
                assert abs(node) <= 2**53 - 1
            if type(node) is float:
                assert math.isfinite(node)
    return found


@settings(max_examples=examples(100), deadline=None)
@given(handler_results)
def test_to_dict_of_any_handler_result_is_json_that_reads_back_the_same(value: Any) -> None:
    for event in _events(value):
        data = event.to_dict()
        text = json.dumps(data, allow_nan=False)
        assert json.loads(text) == data  # what JSON.parse reads is what to_dict gave
        assert json.dumps(event.to_dict(), allow_nan=False) == text  # deterministic
        assert not any(" object at 0x" in s for s in _strings(data))  # never a repr()

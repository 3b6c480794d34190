"""The state crossing between the C machine and the pure-Python machine (core/_state.py).

The C machine declares the hand-over's field lists itself (``_speedups.HANDOVER_FIELDS``,
``GIVEBACK_FIELDS``) and fills and reads the records by those names; the records in
``state.py`` must name the same fields in the same order.  Then a hand-over must
round-trip: the Python machine resumes from a :class:`Handover` and gives back a
:class:`Giveback` by name, and lenient documents that hand over and are given back
several times parse on the C machine exactly as on the pure-Python one.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.machines import needs_c, on_machine
from unspool import JsonStream
from unspool.core import _jsonstream as js
from unspool.core import _machines as machines
from unspool.core._state import Giveback, Handover, Helpers


@needs_c
def test_the_c_field_lists_are_the_records_fields() -> None:
    c = machines._speedups
    assert c is not None
    assert Handover._fields == c.HANDOVER_FIELDS
    assert Giveback._fields == c.GIVEBACK_FIELDS
    # the give-back is the hand-over's container state plus where to read on
    assert Giveback._fields[:7] == Handover._fields[:7]
    assert Giveback._fields[7:] == ("s", "i")


@needs_c
def test_the_helpers_record_is_what_the_c_type_was_made_from() -> None:
    machines._stream_type()  # made from a Helpers record, read by attribute name
    assert "Handover" in Helpers._fields and "Giveback" in Helpers._fields
    assert len(set(Helpers._fields)) == len(Helpers._fields)


def _handover(s: str, i: int, stack: list[Any], state: int, **fields: Any) -> Handover:
    """A hand-over at ``s[i]`` with nothing in flight (the other fields by name)."""
    blank: dict[str, Any] = {
        "cpaths": [],
        "key": None,
        "glue": False,
        "rlist": None,
        "shift": 0,
        "is_key": False,
        "sbuf": "",
        "s_path": (),
        "d_start": 0,
        "s_pos": 0,
        "nbuf": "",
        "n_pos": 0,
        "ubuf": "",
        "u_pos": 0,
        "base": 0,
        "eof": False,
        "give_back": 0,
        "quote": '"',
        "c_end": "",
        "c_ret": js._VALUE,
        "c_closer": False,
        "c_tail": "",
        "ctrl_seen": False,
    }
    blank.update(fields)
    return Handover(stack=stack, state=state, s=s, i=i, **blank)


def _resumed(h: Handover, root: Any, **options: Any) -> tuple[JsonStream, Giveback | None]:
    with on_machine("python"):
        parser = JsonStream(**options)
    back = js._resume(parser, options, None, [], [], root, False, h, True)
    return parser, back


def test_the_python_machine_resumes_from_a_handover_and_gives_back_by_name() -> None:
    root = [1]
    s = "[1, ..., 2, 3]"
    parser, back = _resumed(_handover(s, 4, [root], js._ELEM), root, lenient=True)
    assert [r.kind for r in parser.repairs] == ["ellipsis"]
    assert isinstance(back, Giveback)
    # given back at the next item the C machine reads, in the same containers
    assert back.stack == [[1]] and back.stack[0] is root
    assert (back.state, back.key, back.s, back.i) == (js._ELEM, None, s, s.index("2"))
    assert (back.glue, back.rlist, back.shift, back.cpaths) == (False, None, 0, [])


def test_a_handover_inside_an_object_gives_back_at_the_next_key() -> None:
    root: dict[str, Any] = {"a": 1}
    s = '{"a": 1, "b": NaN, "c": 2}'
    at = s.index("NaN")
    parser, back = _resumed(_handover(s, at, [root], js._VALUE, key="b"), root, lenient=True)
    assert [r.kind for r in parser.repairs] == ["nan"]
    assert back is not None
    assert (back.state, back.s, back.i) == (js._KEY, s, s.index('"c"'))
    assert back.stack[0] is root and root["b"] != root["b"]  # NaN


def test_no_give_back_asked_keeps_the_stream() -> None:
    root = [1]
    s = "[1, ..., 2, 3]"
    parser, back = _resumed(_handover(s, 4, [root], js._ELEM, give_back=-1), root, lenient=True)
    assert back is None  # the Python machine reads on; the chunk is read
    parser.finish()
    assert parser.value == [1, 2, 3]


PAD = ", ".join(['{"k": "vvvvvvvvvv", "n": [1, 2, 3], "t": true}'] * 4)
HANDED_OVER = [
    f'[1, ..., {PAD}, {{"a": NaN, "b": 3}}, {PAD}, "x\\q", {PAD}]',
    f'{{"a": [1, 2, ...], "pad": [{PAD}], "b": {{"c": 1]], "more": [{PAD}], "d": "e\\z"}}',
    f"[{PAD}, [1, 2}}, {PAD}, {{\"k\": }}, {PAD}, 'single', \u201ccurly\u201d, {PAD}",
    f'{{"list": [{PAD}, ..., {PAD}], "tail": [1, 2, ...]}}',
]


def _run(machine: str, doc: str, size: int, **options: Any) -> tuple[Any, ...]:
    with on_machine(machine):
        p = JsonStream(**options)
    steps = []
    for k in range(0, len(doc), size):
        chunk = doc[k : k + size]
        got = p.feed_events(chunk) if options.get("events") else p.feed(chunk)
        steps.append((p.pos, p.complete, repr(p.value), repr(got)))
    got = p.finish_events() if options.get("events") else p.finish()
    steps.append((p.pos, p.complete, repr(p.value), repr(got)))
    return repr(p.value), p.repairs, steps


@pytest.fixture
def resumed(monkeypatch: pytest.MonkeyPatch) -> list[Handover]:
    """The hand-overs the Python machine resumed from (the C type inherits _machine)."""
    seen: list[Handover] = []
    machine = JsonStream._machine

    def counting(self: JsonStream, resume: Handover | None = None) -> Any:
        if resume is not None:
            assert type(resume) is Handover
            seen.append(resume)
        return machine(self, resume)

    monkeypatch.setattr(JsonStream, "_machine", counting)
    return seen


@needs_c
@pytest.mark.parametrize("doc", HANDED_OVER)
@pytest.mark.parametrize("size", [1, 7, 64, 100_000])
@pytest.mark.parametrize("events", [False, True])
def test_handed_over_and_given_back_alike_on_both_machines(
    doc: str, size: int, events: bool, resumed: list[Handover]
) -> None:
    opts: dict[str, Any] = {"lenient": True, "events": events}
    python = _run("python", doc, size, **opts)
    assert not resumed
    assert _run("c", doc, size, **opts) == python
    # the C machine handed over more than once: it took the stream back in between
    assert len(resumed) >= 2


@needs_c
@pytest.mark.parametrize("size", [5, 64, 100_000])
def test_release_items_cross_the_handover(size: int, resumed: list[Handover]) -> None:
    doc = f"[{PAD}, [1, ...], {PAD}, [2, 3}}, {PAD}, 'x', [1, 2, ...]]"
    opts: dict[str, Any] = {"lenient": True, "events": True, "release_items": True}
    assert _run("c", doc, size, **opts) == _run("python", doc, size, **opts)
    assert len(resumed) >= 2
    assert any(h.rlist is not None and h.shift > 0 for h in resumed)

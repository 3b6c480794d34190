"""The API vectors A1-A13 of the study (§11) and the JsonStream surface of docs/architecture.md."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from decimal import Decimal
from typing import Any

import pytest

from tests.support.core import assert_same, detach
from unspool import UNSET, JsonStream, LimitExceeded, MalformedJSON, parse_partial
from unspool.core._errors import HOOK_FAILED, REENTRY
from unspool.core._snapshot import CYCLE


def test_a1_utf8_character_split_across_byte_chunks() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed(b'{"a":"x\xc3')), {"a": "x"})
    assert parser.complete is False
    assert_same(detach(parser.feed(b'\xa9"}')), {"a": "xé"})
    assert parser.complete is True
    assert_same(parser.finish(), {"a": "xé"})


def test_a2_surrogate_pair_split_across_chunks() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed('{"a":"x\\ud83d')), {"a": "x"})
    assert_same(detach(parser.feed('\\ude00"}')), {"a": "x😀"})
    assert parser.complete is True


def test_a3_number_split_across_three_chunks() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed('{"n":1.')), {})
    assert_same(detach(parser.feed("5e")), {})
    assert_same(detach(parser.feed("-3}")), {"n": 0.0015})
    assert parser.complete is True


def test_a4_finish_twice_returns_the_same_object() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed('{"a":[1,2')), {"a": [1]})
    first = parser.finish()
    second = parser.finish()
    assert first is second
    assert first is parser.value
    assert_same(first, {"a": [1, 2]})
    assert parser.complete is False
    assert parser.finished is True


def test_a5_live_root_is_aliased() -> None:
    parser = JsonStream()
    root = parser.feed('{"a":1')
    assert_same(detach(root), {})
    parser.feed(',"b":2}')
    assert root is parser.value
    assert_same(root, {"a": 1, "b": 2})


def test_a6_snapshot_is_detached() -> None:
    parser = JsonStream()
    parser.feed('{"a":1,')
    snap = parser.snapshot()
    parser.feed('"b":2}')
    assert_same(snap, {"a": 1})
    assert_same(parser.value, {"a": 1, "b": 2})
    snap["c"] = 3
    assert_same(parser.value, {"a": 1, "b": 2})


def test_a7_wrong_closer_after_trailing_comma() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed("[1,")), [1])
    with pytest.raises(MalformedJSON) as caught:
        parser.feed("]")
    assert type(caught.value) is MalformedJSON
    assert caught.value.pos == 3
    assert_same(caught.value.partial, [1])
    with pytest.raises(MalformedJSON) as again:
        parser.feed("2]")
    assert again.value.pos == 3
    with pytest.raises(MalformedJSON) as at_finish:
        parser.finish()
    assert at_finish.value.pos == 3


def test_a8_whitespace_after_root_then_garbage() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed('{"a":1}')), {"a": 1})
    assert_same(detach(parser.feed("  \n")), {"a": 1})
    with pytest.raises(MalformedJSON) as caught:
        parser.feed("x")
    assert caught.value.pos == 10
    assert_same(caught.value.partial, {"a": 1})


def test_a8_with_trailing_ignore() -> None:
    parser = JsonStream(trailing="ignore")
    parser.feed('{"a":1}')
    parser.feed("  \n")
    assert_same(detach(parser.feed("x")), {"a": 1})
    assert_same(parser.finish(), {"a": 1})
    assert parser.tail == "  \nx"
    assert parser.complete is True


def test_a9_feed_after_finish_raises_runtime_error() -> None:
    parser = JsonStream()
    parser.finish()
    with pytest.raises(RuntimeError):
        parser.feed("1")
    with pytest.raises(RuntimeError):
        parser.feed(b"1")
    assert parser.finish() is UNSET


def test_a10_depth_limit() -> None:
    parser = JsonStream(max_depth=1000)
    with pytest.raises(LimitExceeded) as caught:
        parser.feed("[" * 1001 + "1")
    assert caught.value.pos == 1000


def test_a11_int_digit_limit_is_limit_exceeded() -> None:
    text = '{"a":' + "1" * 5000 + ","
    parser = JsonStream()
    with pytest.raises(LimitExceeded) as caught:
        parser.feed(text)
    # the offending token starts at 5; its 4301st digit is at 4305; the int is known at 5005
    assert caught.value.pos in (5, 4305, 5005)
    assert_same(caught.value.partial, {})


def test_a13_think_block_with_braces() -> None:
    text = '<think>e.g. {"name":"Alice"}</think>{"name":"Bob"}'
    assert_same(parse_partial(text, skip_preamble=True), {"name": "Bob"})


# ------------------------------------------------------------------ the rest of the surface


def test_fresh_parser_state() -> None:
    parser = JsonStream()
    assert parser.value is UNSET
    assert parser.complete is False
    assert parser.finished is False
    assert parser.pos == 0
    assert parser.feed("") is UNSET
    assert parser.feed("  \n\t\r") is UNSET
    assert parser.pos == 5
    assert parser.finish() is UNSET
    assert parser.complete is False


def test_pos_counts_characters_not_bytes() -> None:
    parser = JsonStream()
    parser.feed('{"a": 1')
    assert parser.pos == 7
    byte_parser = JsonStream()
    byte_parser.feed('["é😀'.encode())
    assert byte_parser.pos == 4
    byte_parser.feed("é".encode()[:1])
    assert byte_parser.pos == 4
    byte_parser.feed("é".encode()[1:] + b'"]')
    assert byte_parser.pos == 7
    assert_same(byte_parser.value, ["é😀é"])


def test_complete_is_set_by_the_closer_and_survives_whitespace() -> None:
    parser = JsonStream()
    parser.feed('[1, {"a": [true]}')
    assert parser.complete is False
    parser.feed("]")
    assert parser.complete is True
    parser.feed(" \n")
    assert parser.complete is True
    assert_same(parser.finish(), [1, {"a": [True]}])


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("false", False), ("null", None), ('"s"', "s")],
)
def test_self_delimiting_roots_are_complete_without_finish(text: str, value: Any) -> None:
    parser = JsonStream()
    assert_same(parser.feed(text), value)
    assert parser.complete is True


def test_root_number_waits_for_its_end() -> None:
    parser = JsonStream()
    assert parser.feed("-12.5") is UNSET
    assert parser.complete is False
    assert_same(parser.feed(" "), -12.5)
    assert parser.complete is True


def test_containers_keep_their_identity() -> None:
    parser = JsonStream()
    root = parser.feed('{"list": [{"inner": [')
    inner_list = root["list"]
    inner_obj = inner_list[0]
    deepest = inner_obj["inner"]
    parser.feed('1, 2], "s": "x')
    parser.feed('yz"}, 3], "tail": {}}')
    final = parser.finish()
    assert final is root
    assert final["list"] is inner_list
    assert final["list"][0] is inner_obj
    assert final["list"][0]["inner"] is deepest
    assert_same(final, {"list": [{"inner": [1, 2], "s": "xyz"}, 3], "tail": {}})


def test_in_flight_string_is_visible_after_each_feed() -> None:
    parser = JsonStream()
    shown = []
    for chunk in ['{"t": "He', "llo, ", "wor", 'ld"}']:
        shown.append(detach(parser.feed(chunk))["t"])
    assert shown == ["He", "Hello, ", "Hello, wor", "Hello, world"]


def test_snapshot_has_no_recursion_limit() -> None:
    depth = 50_000
    parser = JsonStream(max_depth=100_000)
    parser.feed("[" * depth)
    snap = parser.snapshot()
    assert snap is not parser.value
    node, seen = snap, 1
    while node:
        assert type(node) is list and len(node) == 1
        node, seen = node[0], seen + 1
    assert node == [] and seen == depth
    with pytest.raises(MalformedJSON) as caught:
        parser.feed("x")
    assert caught.value.pos == depth
    node, seen = caught.value.partial, 1
    while node:
        node, seen = node[0], seen + 1
    assert seen == depth


def test_snapshot_before_anything_is_unset() -> None:
    assert JsonStream().snapshot() is UNSET


def test_parse_partial_passes_options() -> None:
    assert_same(parse_partial('{"a": 1} tail', trailing="ignore"), {"a": 1})
    with pytest.raises(MalformedJSON):
        parse_partial('{"a": 1} tail')
    with pytest.raises(LimitExceeded):
        parse_partial("[[[1]]]", max_depth=2)
    assert_same(parse_partial("[[1]]", max_depth=2), [[1]])


def test_parse_float_and_parse_int_hooks_follow_json_loads() -> None:
    text = '{"f": 1.10, "i": 7, "e": 2e3, "l": [0.5, -3]}'
    got = parse_partial(text, parse_float=Decimal, parse_int=str)
    assert got == {"f": Decimal("1.10"), "i": "7", "e": Decimal("2e3"), "l": [Decimal("0.5"), "-3"]}
    assert [type(v) for v in (got["f"], got["i"], got["e"])] == [Decimal, str, Decimal]
    parser = JsonStream(parse_float=Decimal)
    parser.feed("[1.5, 2.2")
    assert parser.finish() == [Decimal("1.5"), Decimal("2.2")]


# (chunks, options, the chunk the hook raises on, the value the parser keeps, its pos)
RAISING_HOOKS: dict[str, tuple[list[Any], dict[str, Any], int, Any, int]] = {
    "parse_float in a feed": (["[1, 2.5", ", 3]"], {"events": True}, 1, [1], 11),
    "parse_int at a chunk's end": (["[12", "3, 4]"], {"events": True}, 1, [], 8),
    "parse_float at finish": (["[0, 7.5"], {}, 1, [0], 7),
    "bytes": ([b"[2.5]"], {}, 0, [], 5),
    "release_items": (["[1, ", "2.5]"], {"events": True, "release_items": True}, 1, [], 8),
    # lenient: the C machine hands the stream over at the ellipsis, the reference's
    # machine runs the hook
    "lenient, handed over": (["[1, ..., 2.5]"], {"lenient": True}, 0, [1], 13),
}


class _HookFailed(Exception):
    pass


@pytest.mark.parametrize("case", sorted(RAISING_HOOKS))
@pytest.mark.parametrize("raised", [_HookFailed, ValueError, ZeroDivisionError, StopIteration])
def test_a_raising_parse_hook_stops_the_parser_for_good(case: str, raised: type) -> None:
    """Issue 22: after a hook raised, the C machine raised RuntimeError on every call
    while the reference leaked a bare StopIteration, then finish() returned a value as
    if the document had ended, at another pos.  Now the hook's own exception goes to
    the caller, and every later feed or finish raises RuntimeError(HOOK_FAILED), pos
    unchanged, the value and events read still."""
    chunks, options, failing, kept, pos = RAISING_HOOKS[case]
    error = raised("hook refused")

    if raised is ValueError and case.startswith("parse_int"):
        pytest.skip("parse_int's ValueError is a MalformedJSON, as json.loads reads it")

    def hook(text: str) -> Any:
        if text in ("2.5", "123", "7.5"):
            raise error
        return float(text) if "." in text else int(text)

    parser = JsonStream(parse_float=hook, parse_int=hook, **options)
    for chunk in chunks[:failing]:
        parser.feed(chunk)
    with pytest.raises(raised) as caught:
        for chunk in chunks[failing:]:
            parser.feed(chunk)
        parser.finish()
    assert caught.value is error
    assert parser.pos == pos
    for call in (lambda: parser.feed(chunks[0][:1]), parser.finish, parser.finish):
        with pytest.raises(RuntimeError, match=f"^{HOOK_FAILED}$"):
            call()
        assert parser.pos == pos
    if options.get("events"):
        with pytest.raises(RuntimeError, match=f"^{HOOK_FAILED}$"):
            parser.feed_events("]")
        assert isinstance(parser.take_events(), list)
    assert_same(detach(parser.value), kept)
    assert_same(parser.snapshot(), kept)
    assert parser.repair_count == len(parser.repairs)


def test_a_hook_raising_malformed_json_is_the_parsers_error() -> None:
    def hook(text: str) -> Any:
        raise MalformedJSON("no floats here", 99)

    parser = JsonStream(parse_float=hook)
    parser.feed("[1, ")
    with pytest.raises(MalformedJSON, match="no floats here") as caught:
        parser.feed("2.5]")
    for call in (lambda: parser.feed("1"), parser.finish):
        with pytest.raises(MalformedJSON) as again:
            call()
        assert again.value is caught.value


_CYCLE_CHILD = r"""
import os, resource, sys
if os.environ.get("UNSPOOL_SANITIZED") != "1":  # (ASan maps more than this up front)
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))  # the old code copied forever
from unspool import JsonStream, MalformedJSON, UNSET
from unspool.core import machines
machines.select(sys.argv[1])
parser = JsonStream()
live = parser.feed('{"a": [1, {"b": 2}], "c": [')
shared = [3]
live["d"] = [shared, shared]  # held twice side by side: copied twice
assert parser.snapshot() == {"a": [1, {"b": 2}], "c": [], "d": [[3], [3]]}
live["a"][1]["me"] = live  # a cycle through the live value
try:
    parser.snapshot()
except ValueError as exc:
    print(type(exc).__name__, exc)
parser.feed("4]")  # the parser itself goes on
try:
    parser.feed("}}")
except MalformedJSON as exc:
    print(exc.msg, exc.pos, exc.partial is UNSET)  # no copy for the error either
"""


def test_a_cycle_added_to_the_live_value_makes_snapshot_raise(machine: str) -> None:
    """Issue 22: snapshot() never returned once the caller put the live value inside
    itself; it raises ValueError on both machines (in a child, so the old endless copy
    hits a memory limit instead of the test machine)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-c", _CYCLE_CHILD, machine],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        f"ValueError {CYCLE}",
        "Extra data after the JSON value 30 True",
    ]


def test_a_parser_used_by_two_threads_at_once_refuses_the_second() -> None:
    """Issue 22: the reference refused some concurrent feeds (its generator's own
    "already executing") where the C machine refused none.  Both refuse a call made
    while the parser runs in another thread (here inside a parse hook, where both let
    other threads run) with the same clear error, before anything changes."""
    entered, release = threading.Event(), threading.Event()

    def hook(text: str) -> float:
        entered.set()
        release.wait(30)
        return float(text)

    parser = JsonStream(events=True, parse_float=hook)
    parser.feed("[0, ")
    first = threading.Thread(target=parser.feed, args=("1.5, ",))
    first.start()
    try:
        assert entered.wait(30)
        refused = []
        for call in (lambda: parser.feed("2"), parser.finish, lambda: parser.feed_events("2")):
            with pytest.raises(ValueError) as caught:
                call()
            refused.append(str(caught.value))
        pos = parser.pos
    finally:
        release.set()
        first.join(30)
    assert refused == [REENTRY] * 3
    assert pos == 9  # the running feed's characters only
    assert parser.feed("2]") == [0, 1.5, 2]
    assert parser.finish() == [0, 1.5, 2] and parser.pos == 11


def test_utf8_bom_is_skipped_in_bytes_mode_only() -> None:
    assert_same(parse_partial(b'\xef\xbb\xbf{"a": 1}'), {"a": 1})
    parser = JsonStream()
    assert parser.feed(b"\xef") is UNSET
    assert parser.feed(b"\xbb") is UNSET
    assert_same(detach(parser.feed(b"\xbf[1]")), [1])
    with pytest.raises(MalformedJSON) as caught:
        parse_partial('\ufeff{"a": 1}')
    assert caught.value.pos == 0
    with pytest.raises(MalformedJSON) as inside:
        parse_partial(b"[1, \xef\xbb\xbf2]")
    assert inside.value.pos == 4


def test_invalid_utf8_is_malformed_json_at_its_character_offset() -> None:
    with pytest.raises(MalformedJSON) as caught:
        parse_partial(b'["\xc3\xa9\xff"]')
    assert type(caught.value) is MalformedJSON
    assert caught.value.pos == 3
    assert_same(caught.value.partial, ["é"])


def test_truncated_utf8_at_finish_is_dropped_like_any_truncation() -> None:
    parser = JsonStream()
    assert_same(detach(parser.feed(b'["a\xe2\x82')), ["a"])
    assert_same(parser.finish(), ["a"])
    assert parser.complete is False


@pytest.mark.parametrize(("first", "second"), [("[", b"1]"), (b"[", "1]")])
def test_mixing_str_and_bytes_is_a_type_error(first: str | bytes, second: str | bytes) -> None:
    parser = JsonStream()
    parser.feed(first)
    with pytest.raises(TypeError):
        parser.feed(second)

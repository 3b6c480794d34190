"""Every complete document of the tests, split at every index and fed one character (and
one byte) at a time: the value after each chunk is the single-chunk value of the same
prefix (A12), and ``finish()`` equals ``json.loads`` exactly (invariants 4 and 5)."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.core import (
    CORPUS,
    assert_same,
    chunks_at,
    decoded_prefix,
    detach,
    feed_all,
    live,
    loads,
    one_by_one,
    prefix_violation,
)
from unspool import UNSET, JsonStream

_ROOT_NUMBER = re.compile(r"\s*-?[0-9]")


def _has_duplicate_keys(doc: str) -> bool:
    duplicates = False

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        nonlocal duplicates
        keys = [k for k, _ in items]
        duplicates = duplicates or len(keys) != len(set(keys))
        return dict(items)

    json.loads(doc, object_pairs_hook=pairs)
    return duplicates


def _ids(doc: str) -> str:
    return repr(doc if len(doc) <= 40 else doc[:37] + "...")


@pytest.mark.parametrize("doc", CORPUS, ids=_ids)
def test_single_chunk_equals_json_loads(doc: str) -> None:
    expected = loads(doc)
    parser = JsonStream()
    shown = detach(parser.feed(doc))
    if _ROOT_NUMBER.match(doc) and not doc[-1].isspace():
        assert shown is UNSET, "a root number at the end of input waits for finish()"
        assert parser.complete is False
    else:
        assert_same(shown, expected, "live value of the whole document")
        assert parser.complete is True
    assert_same(parser.finish(), expected, "finish")
    assert parser.complete is True


@pytest.mark.parametrize("doc", CORPUS, ids=_ids)
def test_every_two_chunk_split(doc: str) -> None:
    expected = loads(doc)
    whole = live(doc)
    for cut in range(len(doc) + 1):
        chunks = chunks_at(doc, [cut])
        fed = feed_all(chunks)
        assert_same(fed.after_each[0], live(chunks[0]), f"after {chunks[0]!r} (split at {cut})")
        assert_same(fed.after_each[1], whole, f"after both chunks (split at {cut})")
        assert_same(fed.parser.finish(), expected, f"finish (split at {cut})")
        assert fed.parser.complete is True


@pytest.mark.parametrize("doc", CORPUS, ids=_ids)
def test_every_two_chunk_byte_split(doc: str) -> None:
    data = doc.encode("utf-8")
    expected = loads(doc)
    for cut in range(len(data) + 1):
        chunks = chunks_at(data, [cut])
        fed = feed_all(chunks)
        assert_same(
            fed.after_each[0],
            live(decoded_prefix(data[:cut])),
            f"after {chunks[0]!r} (byte split at {cut})",
        )
        assert_same(fed.parser.finish(), expected, f"finish (byte split at {cut})")
        assert fed.parser.complete is True


@pytest.mark.parametrize("doc", CORPUS, ids=_ids)
def test_one_character_at_a_time(doc: str) -> None:
    expected = loads(doc)
    fed = feed_all(one_by_one(doc))
    if not _has_duplicate_keys(doc):
        for index in range(1, len(fed.after_each)):
            problem = prefix_violation(fed.after_each[index - 1], fed.after_each[index])
            assert problem is None, f"after {doc[: index + 1]!r}: {problem}"
    assert_same(fed.after_each[-1] if doc else UNSET, live(doc), "live value at the end")
    assert_same(fed.parser.finish(), expected, "finish")
    assert fed.parser.complete is True


@pytest.mark.parametrize("doc", CORPUS, ids=_ids)
def test_one_byte_at_a_time(doc: str) -> None:
    data = doc.encode("utf-8")
    fed = feed_all(one_by_one(data))
    for index, shown in enumerate(fed.after_each):
        if (data[index] & 0xC0) == 0x80 or data[index] >= 0xC0:
            # inside a multi-byte character: same as the text of the complete characters
            assert_same(shown, live(decoded_prefix(data[: index + 1])), f"byte {index}")
    assert_same(fed.parser.finish(), loads(doc), "finish")
    assert fed.parser.complete is True

"""The open-weights formats: every family's transcripts, fed whole, at every split,
one character (and one byte) at a time, with exact events."""

from __future__ import annotations

import pytest

from tests.support.chunking import char_chunks, run_chunks, splits
from tests.support.transcripts import TRANSCRIPTS, summary
from unspool.protocols._model_auto import AutoTagParser
from unspool.protocols._model_formats import MODEL_FORMATS
from unspool.protocols._model_tags import ModelTagParser

IDS = [f"{fmt}-{label}" for fmt, label, _, _ in TRANSCRIPTS]


def _run(fmt: str, chunks: list[str] | list[bytes]) -> list[tuple[object, ...]]:
    return summary(run_chunks(ModelTagParser(fmt, stream_id="s"), chunks))


@pytest.mark.parametrize(("fmt", "label", "reply", "expected"), TRANSCRIPTS, ids=IDS)
def test_transcript_whole(fmt: str, label: str, reply: str, expected: list[object]) -> None:
    assert _run(fmt, [reply]) == expected


@pytest.mark.parametrize(("fmt", "label", "reply", "expected"), TRANSCRIPTS, ids=IDS)
def test_transcript_every_split_and_char(
    fmt: str, label: str, reply: str, expected: list[object]
) -> None:
    for chunks in splits(reply):
        assert _run(fmt, chunks) == expected, chunks
    assert _run(fmt, char_chunks(reply)) == expected
    data = reply.encode()
    assert _run(fmt, char_chunks(data)) == expected


def test_every_format_has_transcripts() -> None:
    assert {fmt for fmt, _, _, _ in TRANSCRIPTS} == set(MODEL_FORMATS)


@pytest.mark.parametrize(("fmt", "label", "reply", "expected"), TRANSCRIPTS, ids=IDS)
def test_auto_recognises_the_family(
    fmt: str, label: str, reply: str, expected: list[object]
) -> None:
    """``format="auto"`` reads every transcript as its own format does, whatever the
    chunking, where the family shows in the markup (a reply with no markup is text)."""
    if fmt == "xlam" and "```" in reply:
        pytest.skip("a json fence is a call only when the format says so")
    if label == "an opener mentioned in reasoning":
        pytest.skip("what follows the opener decides the family: here, none")
    whole = summary(run_chunks(AutoTagParser(stream_id="s"), [reply]))
    assert whole == expected or not any(e[0] in ("call", "invalid") for e in expected)
    for chunks in (*splits(reply), char_chunks(reply), char_chunks(reply.encode())):
        assert summary(run_chunks(AutoTagParser(stream_id="s"), chunks)) == whole, chunks


@pytest.mark.parametrize(("fmt", "label", "reply", "expected"), TRANSCRIPTS, ids=IDS)
def test_cut_off_anywhere(fmt: str, label: str, reply: str, expected: list[object]) -> None:
    """The reply cut off after any character: every started action still ends exactly
    once (``summary`` checks it), and the prefix reads the same whole and per character."""
    for end in range(len(reply) + 1):
        prefix = reply[:end]
        whole = _run(fmt, [prefix])
        assert _run(fmt, char_chunks(prefix)) == whole, prefix

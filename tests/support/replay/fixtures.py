"""The recorded provider streams of ``tests/support/fixtures/providers`` and ways to cut them."""

from __future__ import annotations

from pathlib import Path

from tests.support.replay.server import pieces_of

__all__ = ["FIXTURES", "chunkings", "load"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "providers"


def load(name: str) -> bytes:
    """The body of one recorded stream."""
    return (FIXTURES / name).read_bytes()


def chunkings(body: bytes) -> dict[str, list[bytes]]:
    """Ways to write ``body``: whole, every 7 bytes (inside SSE lines), and cut inside
    every multi-byte UTF-8 character (after its first byte)."""
    inside = [i + 1 for i, byte in enumerate(body) if byte >= 0xC0]
    assert inside, "the fixture has no multi-byte character"
    return {
        "whole": [body],
        "every-7-bytes": pieces_of(body, 7),
        "inside-utf8": pieces_of(body, cuts=inside),
    }

"""A local HTTP server that replays recorded provider streams, for tests and benchmarks.

Import it from a test as ``from replay import ReplayServer, Reply`` (pytest puts
``tests/`` on ``sys.path``); from elsewhere (``bench/``), put ``tests/`` on
``sys.path`` first::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from replay import ReplayServer, Reply, wire
"""

from replay import wire
from replay.events import acollect, collect, frozen
from replay.fixtures import chunkings, load
from replay.server import ReplayServer, Reply, pieces_of

__all__ = [
    "ReplayServer",
    "Reply",
    "acollect",
    "chunkings",
    "collect",
    "frozen",
    "load",
    "pieces_of",
    "wire",
]

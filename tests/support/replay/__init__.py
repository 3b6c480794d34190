"""A local HTTP server that replays recorded provider streams, for tests and benchmarks.

Import it from a test as ``from tests.support.replay import ReplayServer, Reply``
(pytest puts the repository's root on ``sys.path``); from elsewhere (``bench/``), put
the root on ``sys.path`` first::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.replay import ReplayServer, Reply, wire
"""

from tests.support.replay import wire
from tests.support.replay.events import acollect, collect, frozen
from tests.support.replay.fixtures import chunkings, load
from tests.support.replay.server import ReplayServer, Reply, pieces_of

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

"""``ReplayServer``: real HTTP on 127.0.0.1 that plays scripted replies, piece by piece.

Each request (any path, any method) gets the next queued :class:`Reply`: its body
pieces are written as HTTP/1.1 chunks, each flushed on its own (so a piece may
end inside an SSE line or a UTF-8 character, and the client sees that split),
optionally with a pause between pieces.  The reply then ends normally, stalls
until the client goes away (a cancellation test), or drops the connection
without the final chunk (an upstream failure).
"""

from __future__ import annotations

import itertools
import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

__all__ = ["ReplayServer", "Reply", "pieces_of"]


def pieces_of(body: bytes, size: int = 0, cuts: Iterable[int] = ()) -> list[bytes]:
    """Split ``body`` every ``size`` bytes (0: no regular split) and at each offset in ``cuts``."""
    points = set(cuts)
    if size > 0:
        points.update(range(size, len(body), size))
    edges = [0, *sorted(p for p in points if 0 < p < len(body)), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges) if b > a]


@dataclass
class Reply:
    """One scripted HTTP response."""

    pieces: Sequence[bytes]
    status: int = 200
    content_type: str = "text/event-stream; charset=utf-8"
    end: Literal["complete", "stall", "drop"] = "complete"
    pause: float = 0.0  # seconds between pieces
    headers: dict[str, str] = field(default_factory=dict)


class ReplayServer:
    """Context manager: a threaded HTTP server on ``127.0.0.1`` with a queue of replies."""

    def __init__(self) -> None:
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.requests: list[tuple[str, str, Any]] = []  # (method, path, JSON body or None)
        self.released = threading.Event()  # set at exit: stalled replies end
        self.disconnected = threading.Event()  # a stalled client went away
        self.served = threading.Event()  # a reply was written to the end of its script
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, name="replay-server", daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def play(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        """Forget queued replies and recorded requests: what one test left must not
        answer the next test's request (a module-scoped server is shared)."""
        with self._lock:
            self._queue.clear()
        self.requests.clear()

    def _next(self) -> Reply | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _peer_closed(sock: socket.socket) -> bool:
    """True when the client closed its end (readable with nothing to read)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _handler_for(owner: ReplayServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return raw.decode("utf-8", "replace")

        def do_GET(self) -> None:
            self._reply("GET")

        def do_POST(self) -> None:
            self._reply("POST")

        def _reply(self, method: str) -> None:
            owner.requests.append((method, self.path, self._body()))
            reply = owner._next()
            if reply is None:
                reply = Reply([b'{"error": {"message": "no reply queued"}}'], status=500)
            if reply.status != 200:
                self._plain(reply)
                return
            self.send_response(200)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            # one reply per connection, said to the client: a pooled connection the server
            # closes after its reply is otherwise reused by the next request, which then
            # fails with "Server disconnected" if the close lands first
            self.send_header("Connection", "close")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.close_connection = True
            try:
                for i, piece in enumerate(reply.pieces):
                    if i and reply.pause:
                        time.sleep(reply.pause)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                if reply.end == "complete":
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                elif reply.end == "drop":
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                else:
                    self._stall()
            except OSError:
                owner.disconnected.set()
            owner.served.set()

        def _stall(self) -> None:
            while not owner.released.wait(0.01):
                if _peer_closed(self.connection):
                    owner.disconnected.set()
                    return

        def _plain(self, reply: Reply) -> None:
            body = b"".join(reply.pieces)
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

    return Handler

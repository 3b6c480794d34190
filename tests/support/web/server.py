"""``LiveServer``: a real uvicorn server on 127.0.0.1 (a free port), in a thread."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Literal

import uvicorn
from starlette.types import ASGIApp

__all__ = ["LiveServer"]


class LiveServer:
    """Context manager serving ``app`` with uvicorn until exit (``lifespan="on"``: the
    app's startup and shutdown run too)."""

    def __init__(self, app: ASGIApp, *, lifespan: Literal["on", "off"] = "off") -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        config = uvicorn.Config(
            app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321``."""
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._socket.close()

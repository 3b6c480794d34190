"""unspool's events to browsers: SSE in three wire formats, for Starlette and FastAPI.

* :func:`encode_sse` / :func:`aencode_sse`: events in, SSE frames (``bytes``) out;
* :class:`EventStreamResponse`: a Starlette ``StreamingResponse`` with the format's
  headers, keep-alive comments and the upstream closed when the client disconnects;
* :class:`ResumableStreams`: ``"unspool"`` streams resumable with ``Last-Event-ID``;
* :data:`FORMATS`: ``"unspool"`` (every event as is), ``"ai-sdk"`` (the Vercel AI SDK's
  UI Message Stream v1, read by ``useChat``), ``"ag-ui"`` (AG-UI events).

Needs the extra ``unspool[web]`` (Starlette, uvicorn, ag-ui-protocol).
"""

from __future__ import annotations

from unspool.extras import needs_extra

with needs_extra("web", "unspool.web"):
    import anyio  # noqa: F401
    import starlette  # noqa: F401

from unspool.web.encode import FORMATS, FormatName, SseFormat, aencode_sse, encode_sse
from unspool.web.formats.base import GENERIC_ERROR
from unspool.web.responses import EventStreamResponse
from unspool.web.resume import ResumableStreams, TooManyStreams

__all__ = [
    "FORMATS",
    "GENERIC_ERROR",
    "EventStreamResponse",
    "FormatName",
    "ResumableStreams",
    "SseFormat",
    "TooManyStreams",
    "aencode_sse",
    "encode_sse",
]

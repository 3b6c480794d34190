"""unspool's events to browsers: SSE in three wire formats, for Starlette and FastAPI.

* :func:`encode_sse` / :func:`aencode_sse`: events in, SSE frames (``bytes``) out;
* :class:`EventStreamResponse`: a Starlette ``StreamingResponse`` with the format's
  headers, keep-alive comments and the upstream closed when the client disconnects;
* :class:`ResumableStreams`: ``"unspool"`` streams resumable with ``Last-Event-ID``;
* :data:`FORMATS`: ``"unspool"`` (every event as is), ``"ai-sdk"`` (the Vercel AI SDK's
  UI Message Stream v1, read by ``useChat``), ``"ag-ui"`` (AG-UI events);
* :func:`read_request`: what the page posts (``useChat``'s UI messages, AG-UI's
  ``RunAgentInput``), validated, as a :class:`ChatRequest` whose ``to_messages(provider)``
  is the conversation in each provider's shape; a malformed body is a
  :class:`BadRequest` (a 400).

Needs the extra ``unspool[web]`` (Starlette, uvicorn, ag-ui-protocol, pydantic).
"""

from __future__ import annotations

from unspool._extras import needs_extra

with needs_extra("web", "unspool.web"):
    import ag_ui  # noqa: F401
    import anyio  # noqa: F401
    import pydantic  # noqa: F401
    import starlette  # noqa: F401

from unspool.web._conversation import RequestToolCall, ToolApproval
from unspool.web._encode import FORMATS, FormatName, SseFormat, aencode_sse, encode_sse
from unspool.web._errors import BadRequest, bad_request_handler
from unspool.web._request import ChatRequest, RequestFormat, read_request
from unspool.web._responses import EventStreamResponse
from unspool.web._resume import ResumableStreams, TooManyStreams
from unspool.web.formats._base import GENERIC_ERROR
from unspool.web.provider_messages import SHAPES, ProviderName

__all__ = [
    "FORMATS",
    "GENERIC_ERROR",
    "SHAPES",
    "BadRequest",
    "ChatRequest",
    "EventStreamResponse",
    "FormatName",
    "ProviderName",
    "RequestFormat",
    "RequestToolCall",
    "ResumableStreams",
    "SseFormat",
    "TooManyStreams",
    "ToolApproval",
    "aencode_sse",
    "bad_request_handler",
    "encode_sse",
    "read_request",
]

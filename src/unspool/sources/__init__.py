"""I/O edges: iterables, SSE, provider SDK streams, and ``generate()``.

Nothing here imports a provider SDK: the adapters read the SDKs' event objects by
their documented attributes, so ``unspool[openai]`` / ``unspool[anthropic]`` only
install the SDKs an application uses to make the calls.
"""

from unspool.sources.generate import generate
from unspool.sources.iterables import astream, stream
from unspool.sources.merge import EventMerger
from unspool.sources.providers.anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers.openai import OpenAIDecoder, from_openai
from unspool.sources.sse import SSEDecoder, SSEMessage, aiter_sse, astream_sse, iter_sse, stream_sse

__all__ = [
    "AnthropicDecoder",
    "EventMerger",
    "OpenAIDecoder",
    "SSEDecoder",
    "SSEMessage",
    "aiter_sse",
    "astream",
    "astream_sse",
    "from_anthropic",
    "from_openai",
    "generate",
    "iter_sse",
    "stream",
    "stream_sse",
]

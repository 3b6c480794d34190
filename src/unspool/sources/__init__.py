"""I/O edges: iterables, SSE, provider SDK streams, and ``generate()``.

Nothing here imports a provider SDK: the adapters read the SDKs' event objects by
their documented attributes, so ``unspool[openai]`` / ``unspool[anthropic]`` only
install the SDKs an application uses to make the calls.
"""

from unspool.sources._generate import generate
from unspool.sources._iterables import astream, stream
from unspool.sources._merge import EventMerger
from unspool.sources._sse import (
    SSEDecoder,
    SSEMessage,
    aiter_sse,
    astream_sse,
    iter_sse,
    stream_sse,
)
from unspool.sources._turns import TurnLoop, run_turns
from unspool.sources.providers._anthropic import AnthropicDecoder, from_anthropic
from unspool.sources.providers._bedrock import BedrockDecoder, from_bedrock
from unspool.sources.providers._gemini import GeminiDecoder, from_gemini
from unspool.sources.providers._ollama import OllamaDecoder, from_ollama
from unspool.sources.providers._openai import OpenAIDecoder, from_openai

__all__ = [
    "AnthropicDecoder",
    "BedrockDecoder",
    "EventMerger",
    "GeminiDecoder",
    "OllamaDecoder",
    "OpenAIDecoder",
    "SSEDecoder",
    "SSEMessage",
    "TurnLoop",
    "aiter_sse",
    "astream",
    "astream_sse",
    "from_anthropic",
    "from_bedrock",
    "from_gemini",
    "from_ollama",
    "from_openai",
    "generate",
    "iter_sse",
    "run_turns",
    "stream",
    "stream_sse",
]

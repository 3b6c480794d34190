"""The former home of the OpenAI adapter, kept so existing imports keep working:
everything lives in :mod:`unspool.sources.providers._openai`."""

from unspool.sources.providers._openai import OpenAIDecoder, from_openai

__all__ = ["OpenAIDecoder", "from_openai"]

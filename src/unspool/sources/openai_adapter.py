"""The former home of the OpenAI adapter, kept so existing imports keep working:
everything lives in :mod:`unspool.sources.providers.openai`."""

from unspool.sources.providers.openai import OpenAIDecoder, from_openai

__all__ = ["OpenAIDecoder", "from_openai"]

"""The former home of the Anthropic adapter, kept so existing imports keep working:
everything lives in :mod:`unspool.sources.providers._anthropic`."""

from unspool.sources.providers._anthropic import (
    ANTHROPIC_EVENT_TYPES,
    AnthropicDecoder,
    from_anthropic,
)

__all__ = ["ANTHROPIC_EVENT_TYPES", "AnthropicDecoder", "from_anthropic"]

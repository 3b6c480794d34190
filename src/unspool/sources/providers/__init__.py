"""Provider adapters: one module per provider, each a decoder and its ``from_<provider>``."""

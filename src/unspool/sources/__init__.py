"""I/O edges: iterables, SSE, provider SDK streams, and ``generate()``."""

"""Tests of ``unspool.sources``: the SSE decoder, iterables, tool-call deltas, generate(),
the tool loop, and the provider adapters (``providers/``)."""

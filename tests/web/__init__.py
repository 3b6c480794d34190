"""Tests of ``unspool.web``: the SSE encoders, request reading, the server helpers, and
the real JavaScript clients and browser."""

"""Tests of ``unspool.sources.providers``: each adapter through its real SDK over real
HTTP (the replay server of ``tests/support/replay``), usage, endings, malformed payloads."""

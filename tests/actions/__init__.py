"""Tests of ``unspool.actions``: the registry, the dispatcher, the ledgers (on the real
servers), partial models and strict schemas."""

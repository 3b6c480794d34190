"""Tests of ``unspool.core``: JsonStream on both machines, one-shot parsing, lenient mode,
the C machine against the reference."""

"""Tests of ``unspool.protocols``: the interleaved, tag and model-format parsers, their
C fast paths, prompts, UTF-8 decoding and argument snapshots."""

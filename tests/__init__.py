"""The test suite: one folder per layer of ``src/unspool`` and ``support/`` for the code
the tests share (a package, so test modules of the same name in two layers never clash)."""

"""unspool's benchmark suite: ``python -m bench --quick`` (see bench/README.md)."""

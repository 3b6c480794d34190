"""Protocol parsers: text in, :mod:`unspool.events` out (sans-I/O, stdlib only)."""

"""The incremental partial-JSON parser and one-shot parsing (stdlib only, sans-I/O)."""

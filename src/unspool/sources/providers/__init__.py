"""One module per LLM provider, and the table that lists them (:mod:`.table`).

``generate()``, the ``unspool`` command and its replay sniffer read
:data:`~unspool.sources.providers._table.PROVIDERS`; a new provider is one module
here and one row there (the table module's docstring says how).
"""

from unspool.sources.providers._table import (
    CLI_NAMES,
    FALLBACK,
    PROVIDERS,
    Provider,
    ToolResultBuilder,
    by_cli_name,
    provider,
    recognise,
    unwrap,
)

__all__ = [
    "CLI_NAMES",
    "FALLBACK",
    "PROVIDERS",
    "Provider",
    "ToolResultBuilder",
    "by_cli_name",
    "provider",
    "recognise",
    "unwrap",
]

"""``python -m unspool``: the same as the ``unspool`` command (without the ``cli``
extra it says what to install, with exit status 1)."""

from __future__ import annotations

import sys

try:
    from unspool.cli.main import main
except ImportError as exc:
    if exc.name not in ("click", "rich"):
        raise
    sys.exit(f"unspool: {exc}")

if __name__ == "__main__":
    main()

"""``python -m unspool`` and the ``unspool`` script: the command line (:mod:`unspool.cli`).

Without the ``cli`` extra it says which extra to install, on one line, with the exit
status of a usage error (2), never a traceback.
"""

from __future__ import annotations

import sys

from unspool._extras import MissingExtra


def main() -> None:
    """Run the ``unspool`` command, or say what to install when its extra is missing."""
    try:
        from unspool.cli._main import main as run
    except MissingExtra as exc:
        sys.stderr.write(f"Error: {exc}\n")
        sys.exit(2)
    run()


if __name__ == "__main__":
    main()

"""The ``unspool`` command and its live view (extra: ``unspool[cli]``).

Commands: ``parse`` (a stream to JSON lines or a live view), ``repair`` (valid
JSON out of what a model wrote), ``replay`` (a recorded stream at its pace) and
``demo`` (a bundled recording, offline).  See :mod:`unspool.cli.main`.

Importing this package without click or rich raises an ``ImportError`` that
says which extra to install.
"""

from __future__ import annotations

try:
    import click  # noqa: F401
    import rich  # noqa: F401
except ImportError as exc:
    raise ImportError(
        f"the unspool command needs {exc.name}: pip install 'unspool[cli]'", name=exc.name
    ) from None

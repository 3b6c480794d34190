"""The ``unspool`` command and its live view (extra: ``unspool[cli]``).

Commands: ``parse`` (a stream to JSON lines or a live view), ``repair`` (valid
JSON out of what a model wrote), ``replay`` (a recorded stream at its pace) and
``demo`` (a bundled recording, offline).  See :mod:`unspool.cli._main`.

Importing this package without click or rich raises
:class:`~unspool._extras.MissingExtra`, which says which extra to install.
"""

from __future__ import annotations

from unspool._extras import needs_extra

with needs_extra("cli", "the unspool command"):
    import click  # noqa: F401
    import rich  # noqa: F401

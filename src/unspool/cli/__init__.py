"""The ``unspool`` command (extra: ``unspool[cli]``)."""

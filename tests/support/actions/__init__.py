"""Helpers of the action tests: event streams built with ``ActionEmitter`` and
the subprocess used by the crash (SIGKILL) tests."""

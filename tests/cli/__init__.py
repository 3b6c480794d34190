"""Tests of ``unspool.cli``: the command as a subprocess, on a pipe and a pty, its inputs,
records, replay and live view."""

"""The command's input: a file or stdin read as it arrives, and the input error.

:func:`read_chunks` uses ``os.read`` on the file descriptor, which returns as
soon as a pipe holds any bytes, so every chunk a producer writes reaches the
parser at once instead of waiting for a full buffer or EOF.  Bytes are decoded
incrementally as UTF-8 (a leading BOM is dropped; a character split across
reads is held until its last byte arrives).
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import click

__all__ = ["READ_SIZE", "InputError", "empty_input", "read_all", "read_chunks"]

READ_SIZE = 65536
"""The most bytes one ``os.read`` asks for."""


class InputError(click.ClickException):
    """The input cannot be processed: one line on stderr, exit status 1.

    ``records`` holds what was parsed from the failing chunk before the bad
    character, so the command can still write it before it reports the error.
    """

    exit_code = 1

    def __init__(self, message: str, records: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.records = list(records)


def empty_input(path: str) -> InputError:
    """The one error every command gives for an input without a character (no byte, or
    a BOM alone): ``stdin is empty`` or ``FILE is empty``, exit status 1. Whitespace is
    not empty: each protocol reads it (``--protocol json`` finds no value in it)."""
    return InputError(f"{'stdin' if path == '-' else path} is empty")


def read_chunks(path: str, before_read: Callable[[], None] | None = None) -> Iterator[str]:
    """Yield the decoded text of ``path`` (``"-"``: stdin) read by read, as it arrives;
    ``before_read`` is called before each read that may block."""
    if path == "-":
        fd = sys.stdin.fileno()
    else:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}") from None
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    consumed = 0
    try:
        while True:
            if before_read is not None:
                before_read()
            try:
                data = os.read(fd, READ_SIZE)
            except OSError as exc:
                raise InputError(f"cannot read {path}: {exc.strerror}") from None
            final = not data
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(data, final=final)
            except UnicodeDecodeError as exc:
                position = consumed - pending + exc.start
                raise InputError(f"input is not valid UTF-8 (byte {position})") from None
            consumed += len(data)
            if text:
                yield text
            if final:
                return
    finally:
        if path != "-":
            os.close(fd)


def read_all(path: str) -> str:
    """The whole decoded text of ``path`` (``"-"``: stdin)."""
    return "".join(read_chunks(path))

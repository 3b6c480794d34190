"""Driving a parser with chunks and a view: live input, or a recording at its pace.

Both loops tell the view when they are about to wait (for the next read, or
for the next chunk's delay), so a throttled live view can draw what is
pending before the pause.  They return the problems the streams reported (a
``StreamError``, a value that failed ``--schema``): the command shows every
event first and then exits with status 1 for them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from unspool.cli._inputs import InputError
from unspool.cli._live_view import View
from unspool.cli._parsers import StreamParser
from unspool.cli._records import Record, SchemaCheck
from unspool.cli._replay import RecordedStream, pace
from unspool.cli._view_model import error_summary
from unspool.events import FinishReason, StreamError

__all__ = ["Pacing", "feed_stream", "play_recording", "problems_in"]


def problems_in(records: Sequence[Record]) -> list[str]:
    """What among ``records`` makes the run's exit status 1."""
    problems: list[str] = []
    for record in records:
        if isinstance(record, StreamError):
            problems.append(f"the stream reported an error ({record.error_type}): {record.message}")
        elif isinstance(record, SchemaCheck) and not record.ok:
            problems.append(f"the value does not match the schema: {error_summary(record.errors)}")
    return problems


def feed_stream(
    chunks: Iterable[str],
    parser: StreamParser,
    view: View,
    finish: FinishReason | None = None,
) -> list[str]:
    """Feed every chunk and the finish, showing records as they come; returns the problems."""
    problems: list[str] = []
    for chunk in chunks:
        try:
            records = parser.feed(chunk)
        except InputError as exc:
            view.update(exc.records)  # what the chunk held before its error
            raise
        view.update(records)
        problems += problems_in(records)
    records = parser.finish(finish)
    view.update(records)
    return problems + problems_in(records)


class Pacing:
    """How a recording is replayed: ``speed`` scales its recorded delays, ``delay``
    replaces them, ``no_delay`` drops them."""

    def __init__(
        self,
        speed: float = 1.0,
        delay: float | None = None,
        no_delay: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.speed = speed
        self.delay = delay
        self.no_delay = no_delay
        self.sleep = sleep

    def chunks(self, stream: RecordedStream, view: View) -> Iterable[str]:
        """The stream's chunks, each after its wait (the view drawn before waiting)."""
        for wait, text in pace(
            stream.chunks, speed=self.speed, delay=self.delay, no_delay=self.no_delay
        ):
            if wait > 0:
                view.idle()
                self.sleep(wait)
            yield text


def play_recording(
    streams: Sequence[RecordedStream],
    view: View,
    pacing: Pacing,
    make_parser: Callable[[RecordedStream, int], tuple[str, StreamParser]],
) -> list[str]:
    """Replay each recorded stream through the parser ``make_parser`` gives for it
    (with the protocol's name, for the view's heading); returns the problems."""
    problems: list[str] = []
    for number, stream in enumerate(streams):
        protocol, parser = make_parser(stream, number)
        view.start_session(stream.title, protocol)
        problems += feed_stream(pacing.chunks(stream, view), parser, view, stream.finish)
    return problems

"""``unspool replay``: play a recorded stream at its own or a chosen pace, shown live."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import click

from unspool.cli._inputs import InputError, empty_input, read_all
from unspool.cli._live_view import ViewMode, open_view
from unspool.cli._parsers import PROTOCOLS, TEXT_PROTOCOLS, StreamParser, make_stream_parser
from unspool.cli._replay import (
    FORMATS,
    RecordedStream,
    detect_format,
    guess_protocol,
    load_recording,
)
from unspool.cli._run import Pacing, play_recording
from unspool.cli._schema import validators_for
from unspool.cli._sniff import CheckedParser

__all__ = ["pacing_from_options", "replay_command"]


def pacing_from_options(speed: float | None, delay: float | None, no_delay: bool) -> Pacing:
    """The pacing the options ask for; more than one of them is a usage error."""
    if sum((speed is not None, delay is not None, no_delay)) > 1:
        raise click.UsageError("give only one of --speed, --delay and --no-delay")
    return Pacing(speed=1.0 if speed is None else speed, delay=delay, no_delay=no_delay)


SAMPLES = {"openai": "sample_openai.sse", "anthropic": "sample_anthropic.sse"}
"""The captures bundled with unspool (``--sample``): a reply's text and two tool calls."""


def sample_text(name: str) -> str:
    """The bundled capture ``name`` (a key of :data:`SAMPLES`)."""
    folder = resources.files("unspool.cli").joinpath("data")
    return folder.joinpath(SAMPLES[name]).read_text(encoding="utf-8")


@click.command("replay")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, allow_dash=True)
)
@click.option(
    "--sample",
    type=click.Choice(sorted(SAMPLES)),
    default=None,
    help="Replay a provider capture bundled with unspool instead of FILE.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", *FORMATS]),
    default="auto",
    show_default=True,
    help="How the stream was recorded (auto: by extension and first line).",
)
@click.option(
    "-p",
    "--protocol",
    type=click.Choice(PROTOCOLS),
    default=None,
    help="What the stream is (default: the recording's, else guessed from its content).",
)
@click.option(
    "--text-protocol",
    type=click.Choice(TEXT_PROTOCOLS),
    default="plain",
    show_default=True,
    help="For openai-sse / anthropic-sse: how to read the reply's text.",
)
@click.option(
    "--speed",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Play X times faster than recorded (0.5: half speed).  [default: 1]",
)
@click.option(
    "--delay",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Wait this long before every chunk instead of the recorded delays.",
)
@click.option("--no-delay", is_flag=True, help="Do not wait between chunks.")
@click.option(
    "--lenient", is_flag=True, help="Repair what models get wrong, reporting each repair."
)
@click.option(
    "--schema",
    metavar="FILE|MODULE:NAME",
    help="Validate actions (or the JSON value), as for unspool parse.",
)
@click.option("--plain", is_flag=True, help="Plain lines even on a terminal.")
@click.option("--jsonl", is_flag=True, help="Write the events as JSON lines instead.")
def replay_command(
    file: str | None,
    sample: str | None,
    fmt: str,
    protocol: str | None,
    text_protocol: str,
    speed: float | None,
    delay: float | None,
    no_delay: bool,
    lenient: bool,
    schema: str | None,
    plain: bool,
    jsonl: bool,
) -> None:
    """Replay a recorded stream and watch it parse live.

    FILE holds raw text (cut into word-sized chunks), JSON lines of chunks
    ({"chunk": "...", "delay": 0.05} or {"chunk": "...", "t": 1.25}, with
    optional {"session": NAME, "protocol": P, "title": T} and {"finish":
    "length"} lines), or a captured SSE body (one chunk per event).  Shows the
    text, each action as a panel whose arguments fill in, the verdicts and a
    summary; plain lines when stdout is not a terminal.  When a stream does not
    fit its protocol, every event is shown, then the command fails naming the
    protocol that fits, as unspool parse does.

    \b
    Examples:
      unspool replay reply.jsonl
      unspool replay capture.sse --protocol openai-sse --speed 4
      unspool replay --sample anthropic
      unspool replay answer.txt --delay 0.02 --plain

    Exit status: 0 ok, 1 invalid input (message on stderr), 2 usage error.
    """
    pacing = pacing_from_options(speed, delay, no_delay)
    if plain and jsonl:
        raise click.UsageError("give only one of --plain and --jsonl")
    if (file is None) == (sample is None):
        raise click.UsageError("give a FILE to replay, or --sample openai|anthropic")
    if sample is not None:
        file, text = f"sample_{sample}.sse", sample_text(sample)
    else:
        assert file is not None
        text = read_all(file)
    if not text:
        raise empty_input(file)
    if fmt == "auto":
        fmt = detect_format(text, None if file == "-" else file)
    streams = load_recording(text, fmt)
    if not streams or not any(stream.chunks for stream in streams):
        raise InputError(f"{file}: the recording holds no chunks")
    source = "stdin" if file == "-" else Path(file).name
    for number, stream in enumerate(streams, start=1):
        if stream.title is None:
            stream.title = source if len(streams) == 1 else f"{source} #{number}"

    checked: list[tuple[RecordedStream, CheckedParser]] = []

    def make_parser(stream: RecordedStream, number: int) -> tuple[str, StreamParser]:
        chosen = protocol or stream.protocol or guess_protocol(stream, fmt)
        if chosen not in PROTOCOLS:
            raise InputError(f"unknown protocol {chosen!r} in the recording")
        registry, check = validators_for(schema, chosen)
        stream_id = stream.name or ("stream" if len(streams) == 1 else f"stream{number + 1}")
        parser = make_stream_parser(
            chosen,
            lenient=lenient,
            registry=registry,
            check=check,
            stream_id=stream_id,
            text_protocol=text_protocol,
        )
        checked.append((stream, CheckedParser(parser, chosen, lenient=lenient)))
        return (f"{chosen}, lenient" if lenient else chosen), checked[-1][1]

    mode: ViewMode = "jsonl" if jsonl else ("plain" if plain else "auto")
    with open_view(mode) as view:
        problems = play_recording(streams, view, pacing, make_parser)
        view.close()
    for stream, parser in checked:  # as unspool parse fails: the protocol that fits
        if parser.problem is not None:
            where = f"{stream.title}: " if len(streams) > 1 else ""
            raise InputError(where + parser.problem)
    if problems:
        raise InputError(problems[0])

"""``unspool parse``: a stream in, one JSON object per event per line out, as it arrives."""

from __future__ import annotations

import click

from unspool.cli._inputs import InputError, empty_input, read_chunks
from unspool.cli._live_view import open_view
from unspool.cli._parsers import PROTOCOLS, TAG_FORMAT_NAMES, TEXT_PROTOCOLS, make_stream_parser
from unspool.cli._run import feed_stream
from unspool.cli._schema import validators_for
from unspool.cli._sniff import CheckedParser

__all__ = ["parse_command"]

FILE_ARGUMENT = click.Path(exists=True, dir_okay=False, allow_dash=True)


@click.command("parse")
@click.argument("file", default="-", type=FILE_ARGUMENT)
@click.option(
    "-p",
    "--protocol",
    type=click.Choice(PROTOCOLS),
    default="json",
    show_default=True,
    help="What the input is: one JSON value, a model reply (interleaved array, tags "
    "in prose, or plain text), or a provider's raw SSE body.",
)
@click.option(
    "--text-protocol",
    type=click.Choice(TEXT_PROTOCOLS),
    default="plain",
    show_default=True,
    help="For openai-sse / anthropic-sse: how to read the reply's text.",
)
@click.option(
    "--format",
    "tag_format",
    type=click.Choice(TAG_FORMAT_NAMES),
    default="action",
    show_default=True,
    help="For --protocol tags: the markup, unspool's <action> tags, Hermes <tool_call> "
    "tags, or an open-weights model family's raw tool-call format (qwen3_coder, "
    "deepseek, harmony, ...).",
)
@click.option(
    "--lenient", is_flag=True, help="Repair what models get wrong, reporting each repair."
)
@click.option(
    "--trailing",
    type=click.Choice(["error", "ignore"]),
    default="error",
    show_default=True,
    help="For --protocol json: text after the value is an error, or is ignored "
    "(written as skipped records).",
)
@click.option(
    "--schema",
    metavar="FILE|MODULE:NAME",
    help="Validate: a JSON Schema file (json), or a {name: schema} / tools-list file or an "
    "ActionRegistry such as myapp.actions:registry (action protocols).",
)
@click.option(
    "--pretty",
    is_flag=True,
    help="Show a live view instead of JSON lines (plain lines when stdout is not a terminal).",
)
@click.option(
    "--stream-id", default="stream", show_default=True, help="Action ids are STREAM_ID:INDEX."
)
def parse_command(
    file: str,
    protocol: str,
    text_protocol: str,
    tag_format: str,
    lenient: bool,
    trailing: str,
    schema: str | None,
    pretty: bool,
    stream_id: str,
) -> None:
    """Parse a stream as it arrives and write one JSON object per event per line.

    Reads FILE, or stdin when FILE is - or missing, and writes each event the
    moment its input arrived (a pipe is read as it fills, each line flushed).
    With --protocol json the lines are value_start, string_delta and value_end
    path events and a final {"type": "done", "value": ...}; the other protocols
    write unspool's events (text_delta, action_started, action_args_delta,
    action_complete, action_invalid, diagnostic, stream_done).

    \b
    Examples:
      printf '{"answer": "4' | unspool parse
      printf 'Hi <action name="wave">{}</action>' | unspool parse -p tags
      unspool parse -p tags --format qwen3_coder raw-reply.txt
      curl -sN ... | unspool parse -p openai-sse --pretty

    When the input does not look like the protocol (an SSE body read as text,
    plain text read as SSE, action tags read as interleaved), every event is
    still written, then the command fails naming the protocol that fits; so it
    does for an empty input, and for --protocol json on an input with no value.

    Exit status: 0 ok, 1 invalid input (message on stderr), 2 usage error.
    """
    registry, check = validators_for(schema, protocol)
    if trailing != "error" and protocol != "json":
        raise click.UsageError("--trailing is for --protocol json")
    if tag_format != "action" and protocol != "tags":
        raise click.UsageError("--format is for --protocol tags")
    parser = CheckedParser(
        make_stream_parser(
            protocol,
            lenient=lenient,
            registry=registry,
            check=check,
            stream_id=stream_id,
            text_protocol=text_protocol,
            trailing=trailing,
            tag_format=tag_format,
        ),
        protocol,
        lenient=lenient,
    )
    with open_view("auto" if pretty else "jsonl") as view:
        if pretty:
            view.start_session(None if file == "-" else file, protocol)
        problems = feed_stream(read_chunks(file, view.idle), parser, view)
        view.close()
    if parser.empty:
        raise empty_input(file)
    if parser.problem is not None:
        raise InputError(parser.problem)
    if problems:
        raise InputError(problems[0])

"""``unspool repair``: valid JSON out of what a model wrote, the repairs on stderr."""

from __future__ import annotations

import sys

import click

from unspool.cli._inputs import InputError, empty_input, read_all
from unspool.core._errors import MalformedJSON

__all__ = ["repair_command"]


@click.command("repair")
@click.argument("file", default="-", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--explain", is_flag=True, help="List each repair on stderr (kind, position, what).")
@click.option(
    "--indent",
    type=click.IntRange(0, 16),
    default=None,
    help="Indent the output by N spaces (default: one line).",
)
def repair_command(file: str, explain: bool, indent: int | None) -> None:
    """Repair the JSON in FILE (or stdin) and print it as valid JSON.

    Accepts what models get wrong: trailing commas, single quotes, unquoted
    keys, comments, Python's True/False/None, raw newlines in strings, missing
    commas, a ```json fence or prose around the value, <think> blocks, and a
    reply cut off before its closing brackets.  Valid JSON passes unchanged.

    \b
    Examples:
      echo "{'a': 1, 'b': [True, None,],}" | unspool repair
      unspool repair reply.txt --explain --indent 2

    Exit status: 0 ok, 1 invalid input (no JSON value in it), 2 usage error.
    """
    from unspool.core._oneshot import loads_with_repairs, repair

    text = read_all(file)
    if not text:
        raise empty_input(file)
    try:
        out = repair(text, indent=indent)
        repairs = loads_with_repairs(text)[1] if explain else []
    except MalformedJSON as exc:
        raise InputError(f"cannot repair: {exc}") from None
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
    for item in repairs:
        click.echo(f"repair: {item.kind} at {item.pos}: {item.message}", err=True)
    if explain and not repairs:
        click.echo("repair: none needed", err=True)

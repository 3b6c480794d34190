"""The ``unspool`` command (also ``python -m unspool``).

Commands:

* ``unspool parse [FILE|-]``: a stream in, one JSON object per event per line
  out, each written the moment its input arrived; ``--pretty`` for a live view.
* ``unspool repair [FILE|-]``: valid JSON out of what a model wrote;
  ``--explain`` lists the repairs on stderr.
* ``unspool replay FILE``: a recorded stream (raw text, JSONL chunks, SSE) at
  its recorded or a chosen pace, shown live.
* ``unspool demo``: the bundled recording, live, offline.

Exit status: 0 ok; 1 invalid input (a one-line message on stderr, never a
traceback; an empty input, with no character, is invalid for every command:
``stdin is empty``); 2 usage error (unknown option, missing file, bad ``--schema``,
or an extra the command or an option needs that is not installed: the message
names it); 3 ``demo --web`` cannot listen (the port is in use); 130 interrupted
(Ctrl-C).  Set ``UNSPOOL_DEBUG=1`` to see the traceback of an internal error
instead of its one-line message.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import click

from unspool import __version__
from unspool._extras import MissingExtra
from unspool.cli._demo import demo_command
from unspool.cli._parse_cmd import parse_command
from unspool.cli._repair_cmd import repair_command
from unspool.cli._replay_cmd import replay_command

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="unspool")
def cli() -> None:
    """unspool: watch an LLM's output stream turn into events as it arrives.

    Text deltas, actions whose arguments fill in, partial JSON values: parsed
    in one pass while the stream is still arriving.

    \b
    Examples:
      unspool demo                              # a recorded session, live
      printf '{"a": [1, 2' | unspool parse      # JSON path events, one per line
      unspool repair reply.txt --explain        # valid JSON out, repairs on stderr
      unspool replay --sample openai            # a recorded provider stream

    Exit status: 0 ok, 1 invalid input (message on stderr), 2 usage error.
    An empty input is invalid for every command (exit 1: "stdin is empty");
    a missing extra is a usage error that names it; demo --web exits 3 when
    its port is in use.
    """


cli.add_command(parse_command)
cli.add_command(repair_command)
cli.add_command(replay_command)
cli.add_command(demo_command)


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Run the command line and exit with its status (see the module docstring).

    Drives click's context directly (not ``cli.main``) so that every outcome maps
    to the documented status: click would turn a broken pipe into status 1.
    """
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        with cli.make_context("unspool", args) as ctx:
            cli.invoke(ctx)
        code = 0
    except click.exceptions.Exit as exc:  # --help, --version
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code
    except MissingExtra as exc:  # an option's extra (--web, --schema): what to install
        click.echo(f"Error: {exc}", err=True)
        code = 2
    except (click.Abort, KeyboardInterrupt):
        click.echo(file=sys.stderr)
        code = 130
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        _silence_stdout()
        code = 0
    except Exception as exc:
        if os.environ.get("UNSPOOL_DEBUG"):
            raise
        click.echo(
            f"Error: internal error: {type(exc).__name__}: {exc} "
            "(set UNSPOOL_DEBUG=1 for the traceback)",
            err=True,
        )
        code = 1
    sys.exit(code)

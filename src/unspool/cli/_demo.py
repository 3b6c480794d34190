"""``unspool demo``: replay the bundled recorded session live (no network, no API key).

The recording (``data/demo.jsonl``, chunks with the delays they arrived with)
holds two replies:

1. a teacher's reply as an interleaved JSON array in a ```` ```json ```` fence:
   text items and actions (``spotlight``, ``wb_draw_text``), and a last
   ``wb_draw_table`` cut off by the token limit: ``ActionInvalid(truncated)``;
2. a shop assistant's prose with tagged actions: ``show_product_modal``, an
   ``add_to_cart`` whose JSON lacks a comma, and a ``navigate_route`` whose path
   breaks its schema.

The replies are read leniently by default, in the terminal and in the browser alike
(:func:`reading`): the missing comma is repaired, reported as a note, and the action
runs; ``--strict`` reads them as strict JSON, and that action is then
``ActionInvalid(malformed_json)``. Each view says which reading it shows.

With the actions extra installed (``unspool[actions]``) the actions are
checked against ``data/demo_schemas.json``, so the last one is
``ActionInvalid(schema)``; without it they are not validated, and a note says so.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import click

from unspool._extras import install_hint, needs_extra
from unspool.cli._live_view import open_view
from unspool.cli._parsers import StreamParser, make_stream_parser
from unspool.cli._replay import RecordedStream, load_recording
from unspool.cli._run import Pacing, play_recording
from unspool.protocols._emitter import ActionValidator

__all__ = ["SERVER_FAILED", "demo_command", "demo_registry", "demo_streams", "reading"]

SERVER_FAILED = 3
"""Exit status of ``unspool demo --web`` when its server cannot listen (a busy port)."""

_UNVALIDATED = f"actions are not checked against schemas: {install_hint('actions')} for that"


def reading(lenient: bool) -> str:
    """How the replies are read, as the views name it: ``"lenient"`` or ``"strict"``."""
    return "lenient" if lenient else "strict"


def _data(name: str) -> str:
    return (
        resources.files("unspool.cli").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    )


def demo_streams() -> list[RecordedStream]:
    """The bundled recording."""
    return load_recording(_data("demo.jsonl"), "jsonl")


def demo_registry() -> ActionValidator | None:
    """A registry of the demo's action schemas, or ``None`` without the actions extra."""
    try:
        from unspool.actions._registry import ActionRegistry
    except ImportError:
        return None
    registry = ActionRegistry()
    schemas: dict[str, Any] = json.loads(_data("demo_schemas.json"))
    for name, schema in schemas.items():
        registry.register(name, schema=schema)
    return registry


def _serve_web(host: str, port: int, speed: float, build_ai_sdk: bool, lenient: bool) -> None:
    with needs_extra("web", "unspool demo --web"):
        from unspool.cli._web_demo import listen, serve, url_of
        from unspool.web import ai_sdk_build
    server_socket = listen(host, port)  # before anything is printed: a busy port fails here
    try:
        folder = ai_sdk_build.ai_sdk_dir()
        if build_ai_sdk and ai_sdk_build.built_ai_sdk(folder) is None:
            click.echo(f"unspool demo: building the AI SDK client into {folder} ...", err=True)
            try:
                ai_sdk_build.build_ai_sdk(folder)
            except ai_sdk_build.AiSdkBuildError as exc:
                raise click.ClickException(str(exc)) from None
        if ai_sdk_build.built_ai_sdk(folder) is None:
            click.echo(f"note: {ai_sdk_build.build_help(folder)}", err=True)
        click.echo(
            f"unspool demo: open {url_of(server_socket)} (replies read {reading(lenient)}ly; "
            "Ctrl-C to stop)",
            err=True,
        )
        serve(server_socket, speed, lenient=lenient)
    finally:
        server_socket.close()


@click.command("demo")
@click.option(
    "--speed",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Play X times faster than recorded.",
)
@click.option("--plain", is_flag=True, help="Plain lines even on a terminal.")
@click.option(
    "--strict",
    is_flag=True,
    help="Read the replies as strict JSON (a malformed action is invalid) instead of "
    "leniently (repaired, with a note).",
)
@click.option(
    "--web",
    is_flag=True,
    help="Serve the replies to a browser page instead (needs unspool[web]).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="With --web: address.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="With --web: port (0: any free one).",
)
@click.option(
    "--build-ai-sdk",
    is_flag=True,
    help="With --web: first build the page's AI SDK client (needs node and npm; once).",
)
def demo_command(
    speed: float, plain: bool, strict: bool, web: bool, host: str, port: int, build_ai_sdk: bool
) -> None:
    """Watch unspool parse two recorded model replies, live (about 5 seconds).

    A teacher's reply written as an interleaved JSON array and a shop
    assistant's prose with tagged actions, replayed at the pace they were
    recorded: the text streams, each action's arguments fill in a panel, and
    each action ends complete or invalid (one truncated by the token limit,
    one that breaks its schema).  The replies are read leniently, so a missing
    comma is repaired and noted; --strict reads them as strict JSON, where that
    action is malformed.  The heading of each reply says which reading it shows.
    Runs offline on data bundled with unspool; plain lines when stdout is not a
    terminal.

    \b
    Examples:
      unspool demo
      unspool demo --speed 3 --strict
      unspool demo --plain | less
      unspool demo --web          # then open http://127.0.0.1:8765
      unspool demo --web --build-ai-sdk

    With --web, a local server plays the same replies, read the same way, to a page
    in your browser: the actions run in the page (a spotlight, the whiteboard, a
    product modal, the cart), and /ai-sdk shows them through the Vercel AI SDK's
    chat client. That client is built once by --build-ai-sdk (npm ci + esbuild of
    the pinned `ai`) into ~/.cache/unspool/ai-sdk ($UNSPOOL_AI_SDK_DIR to choose
    another folder).

    Exit status: 0 ok, 1 the AI SDK client could not be built, 2 usage error (or the
    web extra is missing), 3 the server cannot listen (the port is in use: choose
    another with --port).
    """
    if build_ai_sdk and not web:
        raise click.UsageError("--build-ai-sdk goes with --web")
    lenient = not strict
    if web:
        _serve_web(host, port, speed, build_ai_sdk, lenient)
        return
    registry = demo_registry()

    def make_parser(stream: RecordedStream, number: int) -> tuple[str, StreamParser]:
        protocol = stream.protocol or "interleaved"
        parser = make_stream_parser(
            protocol,
            lenient=lenient,
            registry=registry,
            stream_id=stream.name or f"reply{number + 1}",
        )
        return f"{protocol}, {reading(lenient)}", parser

    if registry is None:
        click.echo(f"note: {_UNVALIDATED}", err=True)
    with open_view("plain" if plain else "auto") as view:
        play_recording(demo_streams(), view, Pacing(speed=speed), make_parser)
        view.close()

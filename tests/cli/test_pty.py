"""The live view on a real pseudo-terminal: the final screen holds the whole story.

The command runs with a pty as stdout (so it takes the rich live view, not the
plain-lines fallback); its output bytes are fed to ``pyte``, a terminal
emulator, and the resulting screen is compared line by line.  A second test
does the same inside tmux when it is installed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pyte
import pytest

from tests.support.paths import SRC
from unspool import MalformedJSON, parse_partial

ROWS, COLS = 60, 100
TIMEOUT = 120.0

FINAL_SCREEN = """\
A teacher's reply  (interleaved, lenient) ──────────────────────────────────────────────────────────
! fence: the fence around the array was not shown
Good morning, class! Today we find out how a leaf makes food from light.
╭─ action spotlight  classroom:0 ─╮
│ {"elementId": "img_leaf"}       │
╰──────────────────── ✓ complete ─╯
Sunlight, water and CO₂ go in; sugar and oxygen come out. Here is the equation:
╭─ action wb_draw_text  classroom:1 ───────────────────────────╮
│ {"content": "6CO₂ + 6H₂O → C₆H₁₂O₆ + 6O₂", "x": 40, "y": 60} │
╰───────────────────────────────────────────────── ✓ complete ─╯
Now a table of what goes in and what comes out.
╭─ action wb_draw_table  classroom:2 ────────────────────╮
│ {"data": [["in", "out"], ["light", "sugar"], ["wat"]]} │
│ the stream ended inside the array                      │
╰───────────────────────────────── ✗ invalid: truncated ─╯
! cut off: the reply ended before it was complete; an action it cut off is not run
■ truncated · 3 actions: 2 complete, 1 invalid (truncated) · 198 characters of text · 2 notes

A shop assistant's reply  (tags, lenient) ──────────────────────────────────────────────────────────
Sure! This kit has a microscope and 20 prepared slides.
╭─ action show_product_modal  shop:0 ────────────╮
│ {"productId": "kit-42", "viewMode": "compact"} │
╰─────────────────────────────────── ✓ complete ─╯
I will add two to your cart.
╭─ action add_to_cart  shop:1 ───────────╮
│ {"productId": "kit-42", "quantity": 2} │
╰─────────────────────────── ✓ complete ─╯
! missing_comma: inserted a missing comma
Then off to checkout.
╭─ action navigate_route  shop:2 ─╮
│ {"path": "checkout"}            │
│ 'checkout' does not match '^/'  │
╰───────────── ✗ invalid: schema ─╯
Anything else?
■ complete · 3 actions: 2 complete, 1 invalid (schema) · 124 characters of text · 1 note
Summary
┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━┓
┃ reply                    ┃ ended     ┃ ✓ complete ┃ ✗ invalid             ┃      text ┃ notes ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━┩
│ A teacher's reply        │ truncated │          2 │ 1 (truncated)         │ 198 chars │     2 │
│ A shop assistant's reply │ complete  │          2 │ 1 (schema)            │ 124 chars │     1 │
├──────────────────────────┼───────────┼────────────┼───────────────────────┼───────────┼───────┤
│ all                      │ 2 replies │          4 │ 2 (schema, truncated) │ 322 chars │     3 │
└──────────────────────────┴───────────┴────────────┴───────────────────────┴───────────┴───────┘
"""


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    env["TERM"] = "xterm-256color"
    for name in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "UNSPOOL_DEBUG"):
        env.pop(name, None)
    return env


def run_on_pty(
    args: list[str], stdin_chunks: list[bytes] | None = None, shown: bytes = b""
) -> tuple[int, bytes]:
    """Run ``python -m unspool ARGS`` with a ROWSxCOLS pty as stdout and stderr.

    ``stdin_chunks`` are written to its stdin one by one; before each chunk after
    the first, the terminal must have received ``shown`` again (the command drew
    what the chunk before produced), so no two chunks reach one read.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "unspool", *args],
        stdin=subprocess.PIPE if stdin_chunks is not None else subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=cli_env(),
    )
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + TIMEOUT

    def read_some() -> bool:
        """Read what the terminal received; False once the command closed it."""
        ready, _, _ = select.select([master], [], [], 0.2)
        if not ready:
            return proc.poll() is None
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        output.extend(data)
        return bool(data)

    try:
        for number, chunk in enumerate(stdin_chunks or []):
            assert proc.stdin is not None
            if number:
                seen = output.count(shown)
                while output.count(shown) == seen:
                    assert time.monotonic() < deadline and read_some(), "nothing was drawn"
            proc.stdin.write(chunk)
            proc.stdin.flush()
        if proc.stdin is not None:
            proc.stdin.close()
        while time.monotonic() < deadline and read_some():
            pass
        return proc.wait(timeout=TIMEOUT), bytes(output)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def screen_of(output: bytes) -> str:
    """What a ROWSxCOLS terminal shows after ``output``: lines right-stripped,
    trailing blank lines dropped."""
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    stream.feed(output)
    rows = [line.rstrip() for line in screen.display]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows) + "\n"


def test_demo_live_view_final_screen_on_a_pty() -> None:
    code, output = run_on_pty(["demo", "--speed", "20"])
    assert code == 0
    assert b"\x1b[" in output  # the live view drew with terminal controls
    assert "… receiving arguments".encode() in output  # a panel was seen filling in
    assert screen_of(output) == FINAL_SCREEN


def test_parse_pretty_on_a_pty_shows_panels_fed_from_a_pipe() -> None:
    reply = b'Opening <action name="open">{"id": "p1"}</action> now.'
    code, output = run_on_pty(["parse", "-p", "tags", "--pretty"], [reply])
    assert code == 0
    assert screen_of(output) == (
        "tags ───────────────────────────────────────────────────────────────────────────────────────────────\n"
        "Opening\n"
        "╭─ action open  stream:0 ─╮\n"
        '│ {"id": "p1"}            │\n'
        "╰──────────── ✓ complete ─╯\n"
        "now.\n"
        "■ complete · 1 action: 1 complete, 0 invalid · 13 characters of text\n"
        "Summary\n"
        "┏━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━┓\n"
        "┃ reply   ┃ ended    ┃ ✓ complete ┃ ✗ invalid ┃     text ┃ notes ┃\n"
        "┡━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━┩\n"
        "│ reply 1 │ complete │          1 │ 0         │ 13 chars │     0 │\n"
        "└─────────┴──────────┴────────────┴───────────┴──────────┴───────┘\n"
    )


def test_bad_input_under_a_pty_keeps_what_arrived_and_says_why() -> None:
    receiving = "… receiving".encode()
    code, output = run_on_pty(["parse", "--pretty"], [b'{"a": [1, 2', b"}"], receiving)
    assert code == 1
    with pytest.raises(MalformedJSON) as info:
        parse_partial('{"a": [1, 2}')
    assert screen_of(output) == (
        "json ───────────────────────────────────────────────────────────────────────────────────────────────\n"
        "╭─ JSON ────────╮\n"
        "│ {             │\n"
        '│   "a": [      │\n'
        "│     1,        │\n"
        "│     2         │\n"  # ended by the bad '}' in the last chunk: it still shows
        "│   ]           │\n"
        "│ }             │\n"
        "╰─ … receiving ─╯\n"
        f"Error: invalid JSON: {info.value}\n"
    )


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_final_screen_in_tmux(tmp_path: Path) -> None:
    socket = str(tmp_path / "tmux.sock")
    status = tmp_path / "status"
    env = cli_env()
    # The pane stays alive after the demo (waiting to be killed), so its screen is
    # exactly what a user sees; the exit status goes to a file.
    command = (
        f"env PYTHONPATH={SRC} TERM=xterm-256color {sys.executable} -m unspool demo --speed 20; "
        f"echo $? > {status}; tmux -S {socket} wait-for -S finished; sleep 600"
    )

    def tmux(*args: str, timeout: float = 30) -> str:
        return subprocess.run(
            ["tmux", "-S", socket, *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=timeout,
        ).stdout

    size = ["-x", str(COLS), "-y", str(ROWS)]
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "demo", *size, command)
    try:
        tmux("wait-for", "finished", timeout=TIMEOUT)
        assert status.read_text() == "0\n"
        lines = [line.rstrip() for line in tmux("capture-pane", "-p", "-t", "demo").splitlines()]
        while lines and not lines[-1]:
            lines.pop()
        assert "\n".join(lines) + "\n" == FINAL_SCREEN
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True, env=env)

"""`unspool parse` as a real subprocess fed through a pipe, chunk by chunk.

Each step writes one chunk, then reads the lines that chunk must produce (with
a timeout: a command that waited for more input or for EOF fails here), then
checks that nothing else arrives, before the next chunk is written.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SRC

SCRIPT = Path(sys.executable).with_name("unspool")
LINE_TIMEOUT = 20.0  # generous: the first line waits for the interpreter to start
QUIET = 0.15


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    env.pop("UNSPOOL_DEBUG", None)
    return env


def command(kind: str) -> list[str]:
    if kind == "script":
        if not SCRIPT.exists():
            pytest.skip("the unspool script is not installed in this environment")
        return [str(SCRIPT)]
    return [sys.executable, "-m", "unspool"]


class LineReader:
    """Reads JSON lines from a pipe with a deadline, never blocking past it."""

    def __init__(self, stream: Any) -> None:
        self.fd = stream.fileno()
        self.buf = b""

    def _fill(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        data = os.read(self.fd, 65536)
        if not data:
            raise AssertionError(f"EOF while waiting for a line (have {self.buf!r})")
        self.buf += data
        return True

    def line(self) -> dict[str, Any]:
        deadline = time.monotonic() + LINE_TIMEOUT
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self._fill(left):
                raise AssertionError(f"no line within {LINE_TIMEOUT}s (have {self.buf!r})")
        raw, _, self.buf = self.buf.partition(b"\n")
        value: dict[str, Any] = json.loads(raw)
        return value

    def assert_quiet(self) -> None:
        assert self.buf == b""
        assert not self._fill(QUIET), f"unexpected output: {self.buf!r}"


def run_steps(
    argv: list[str], steps: list[tuple[str, list[dict[str, Any]]]], at_eof: list[dict[str, Any]]
) -> None:
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env()
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    reader = LineReader(proc.stdout)
    try:
        for chunk, expected in steps:
            proc.stdin.write(chunk.encode())
            proc.stdin.flush()
            got = [reader.line() for _ in expected]
            assert got == expected, f"after chunk {chunk!r}"
            reader.assert_quiet()
            time.sleep(0.05)  # a pause between chunks, as a model's stream has
        proc.stdin.close()
        got = [reader.line() for _ in at_eof]
        assert got == at_eof
        rest = proc.stdout.read()
        assert reader.buf + rest == b""
        assert proc.wait(timeout=LINE_TIMEOUT) == 0
        assert proc.stderr.read() == b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def started(name: str, index: int = 0, action_id: str | None = None) -> dict[str, Any]:
    return {
        "type": "action_started",
        "id": f"stream:{index}",
        "index": index,
        "name": name,
        "action_id": action_id,
        "attributes": {},
    }


def args_delta(partial: Any, delta: str | None, index: int = 0) -> dict[str, Any]:
    return {
        "type": "action_args_delta",
        "id": f"stream:{index}",
        "index": index,
        "partial": partial,
        "delta": delta,
    }


def complete(name: str, args: Any, index: int = 0, action_id: str | None = None) -> dict[str, Any]:
    return {
        "type": "action_complete",
        "id": f"stream:{index}",
        "index": index,
        "name": name,
        "args": args,
        "action_id": action_id,
        "attributes": {},
    }


def done(complete_n: int, text_chars: int, reason: str = "complete") -> dict[str, Any]:
    return {
        "type": "stream_done",
        "reason": reason,
        "actions_complete": complete_n,
        "actions_invalid": 0,
        "text_chars": text_chars,
    }


def text(t: str) -> dict[str, Any]:
    return {"type": "text_delta", "text": t}


@pytest.mark.parametrize("kind", ["module", "script"])
def test_json_path_events_leave_as_each_chunk_arrives(kind: str) -> None:
    value = {"title": "Hello", "n": 42, "ok": True}
    steps: list[tuple[str, list[dict[str, Any]]]] = [
        (
            '{"title": "Hel',
            [
                {"type": "value_start", "path": [], "kind": "object"},
                {"type": "value_start", "path": ["title"], "kind": "string"},
                {"type": "string_delta", "path": ["title"], "text": "Hel"},
            ],
        ),
        (
            'lo", "n": 4',
            [
                {"type": "string_delta", "path": ["title"], "text": "lo"},
                {"type": "value_end", "path": ["title"], "value": "Hello"},
            ],
        ),
        (
            '2, "ok": tr',
            [
                {"type": "value_start", "path": ["n"], "kind": "number"},
                {"type": "value_end", "path": ["n"], "value": 42},
            ],
        ),
        (
            "ue}",
            [
                {"type": "value_start", "path": ["ok"], "kind": "bool"},
                {"type": "value_end", "path": ["ok"], "value": True},
                {"type": "value_end", "path": [], "value": value},
            ],
        ),
    ]
    at_eof = [{"type": "done", "value": value, "complete": True}]
    run_steps([*command(kind), "parse"], steps, at_eof)


def test_tags_text_and_action_leave_as_each_chunk_arrives() -> None:
    steps = [
        ("Sure, <act", [text("Sure, ")]),
        (
            'ion name="open">{"id": "p',
            [started("open"), args_delta({"id": "p"}, '{"id": "p')],
        ),
        (
            '1"}</action> done',
            [args_delta({"id": "p1"}, '1"}'), complete("open", {"id": "p1"}), text(" done")],
        ),
        (".", [text(".")]),
    ]
    run_steps([*command("module"), "parse", "-p", "tags"], steps, [done(1, 12)])


def test_interleaved_items_leave_as_each_chunk_arrives() -> None:
    steps = [
        ('[{"type":"text","content":"Hel', [text("Hel")]),
        (
            'lo"},{"type":"action","name":"open","params":{"id":"p',
            [text("lo"), started("open"), args_delta({"id": "p"}, '{"id":"p')],
        ),
        ('1"}}', [args_delta({"id": "p1"}, '1"}'), complete("open", {"id": "p1"})]),
        ("]", []),
    ]
    run_steps([*command("module"), "parse", "-p", "interleaved"], steps, [done(1, 5)])


def sse(data: dict[str, Any], event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def openai_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_openai_sse_events_leave_as_each_message_arrives() -> None:
    call = {"index": 0, "id": "call_1", "type": "function"}
    first_args = sse(
        openai_chunk(
            {"tool_calls": [{**call, "function": {"name": "weather", "arguments": '{"city": "Pa'}}]}
        )
    )
    steps = [
        (sse(openai_chunk({"role": "assistant", "content": ""})), []),
        (sse(openai_chunk({"content": "Checking"})), [text("Checking")]),
        (first_args[:40], []),  # a message cut mid-line waits for its blank line
        (
            first_args[40:],
            [started("weather", action_id="call_1"), args_delta({"city": "Pa"}, '{"city": "Pa')],
        ),
        (
            sse(openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ris"}'}}]})),
            [args_delta({"city": "Paris"}, 'ris"}')],
        ),
        (
            sse(openai_chunk({}, "tool_calls")),
            [complete("weather", {"city": "Paris"}, action_id="call_1")],
        ),
        ("data: [DONE]\n\n", []),
    ]
    run_steps([*command("module"), "parse", "-p", "openai-sse"], steps, [done(1, 8)])


def test_anthropic_sse_events_leave_as_each_message_arrives() -> None:
    def delta(index: int, payload: dict[str, Any]) -> str:
        body = {"type": "content_block_delta", "index": index, "delta": payload}
        return sse(body, "content_block_delta")

    tool = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}
    steps = [
        (
            sse({"type": "message_start", "message": {"id": "m1", "content": []}}, "message_start"),
            [],
        ),
        (
            sse(
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
                "content_block_start",
            ),
            [],
        ),
        (delta(0, {"type": "text_delta", "text": "Checking"}), [text("Checking")]),
        (sse({"type": "content_block_stop", "index": 0}, "content_block_stop"), []),
        (
            sse(
                {"type": "content_block_start", "index": 1, "content_block": tool},
                "content_block_start",
            ),
            [started("weather", action_id="toolu_1")],
        ),
        (
            delta(1, {"type": "input_json_delta", "partial_json": '{"city": "Pa'}),
            [args_delta({"city": "Pa"}, '{"city": "Pa')],
        ),
        (
            delta(1, {"type": "input_json_delta", "partial_json": 'ris"}'}),
            [args_delta({"city": "Paris"}, 'ris"}')],
        ),
        (
            sse({"type": "content_block_stop", "index": 1}, "content_block_stop"),
            [complete("weather", {"city": "Paris"}, action_id="toolu_1")],
        ),
        (
            sse(
                {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
                "message_delta",
            ),
            [],
        ),
        (sse({"type": "message_stop"}, "message_stop"), []),
    ]
    run_steps([*command("module"), "parse", "-p", "anthropic-sse"], steps, [done(1, 8)])

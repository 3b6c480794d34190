"""The `unspool` command as a real subprocess: help, exit codes, errors, replay, demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SRC
from unspool import MalformedJSON, parse_partial

SCRIPT = Path(sys.executable).with_name("unspool")
COMMANDS = ["parse", "repair", "replay", "demo"]


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    env.pop("UNSPOOL_DEBUG", None)
    return env


def unspool(
    *args: str, stdin: bytes = b"", cwd: Path | None = None, script: bool = False
) -> subprocess.CompletedProcess[bytes]:
    if script and not SCRIPT.exists():
        pytest.skip("the unspool script is not installed in this environment")
    argv = [str(SCRIPT)] if script else [sys.executable, "-m", "unspool"]
    return subprocess.run(
        [*argv, *args], input=stdin, capture_output=True, env=cli_env(), cwd=cwd, timeout=120
    )


def lines(out: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def assert_one_line_error(
    result: subprocess.CompletedProcess[bytes], code: int, message: str
) -> None:
    """Exit ``code``, stderr exactly ``Error: <message>`` on one line, no traceback."""
    assert result.returncode == code
    assert result.stderr.decode() == f"Error: {message}\n"


def assert_usage_error(result: subprocess.CompletedProcess[bytes], message: str) -> None:
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "Traceback" not in err
    assert err.startswith("Usage: unspool")
    assert err.endswith(f"Error: {message}\n")


# ---------------------------------------------------------------- help and version


@pytest.mark.parametrize("script", [False, True])
def test_top_level_help_lists_commands_examples_and_exit_codes(script: bool) -> None:
    result = unspool("--help", script=script)
    assert result.returncode == 0
    out = result.stdout.decode()
    assert out.startswith("Usage: unspool [OPTIONS] COMMAND [ARGS]...\n")
    for name in COMMANDS:
        assert f"\n  {name} " in out
    assert "unspool demo " in out
    assert "Exit status: 0 ok, 1 invalid input (message on stderr), 2 usage error." in out


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_help_says_what_it_does_with_an_example(name: str) -> None:
    result = unspool(name, "--help")
    assert result.returncode == 0
    out = result.stdout.decode()
    assert out.startswith(f"Usage: unspool {name} [OPTIONS]")
    assert "Examples:" in out
    assert f"\n    unspool {name}" in out or f"| unspool {name}" in out
    assert "Exit status: 0 ok" in out
    assert "2 usage error" in out


def test_version() -> None:
    result = unspool("--version")
    assert (result.returncode, result.stdout) == (0, b"unspool, version 0.1.0\n")


# ---------------------------------------------------------------- usage errors: exit 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["frobnicate"], "No such command 'frobnicate'."),
        (
            ["parse", "--protocol", "xml"],
            "Invalid value for '-p' / '--protocol': 'xml' is not one of 'json', 'interleaved', "
            "'tags', 'plain', 'openai-sse', 'anthropic-sse', 'gemini-sse', 'ollama-ndjson'.",
        ),
        (
            ["parse", "no-such-file.json"],
            "Invalid value for '[FILE]': File 'no-such-file.json' does not exist.",
        ),
        (["parse", "--bogus"], "No such option '--bogus'."),
        (
            ["parse", "--schema", "not_a_module_xyz:registry"],
            "Invalid value for '--schema': cannot import not_a_module_xyz: "
            "No module named 'not_a_module_xyz'",
        ),
        (["replay"], "give a FILE to replay, or --sample openai|anthropic"),
        (["demo", "--speed", "0"], "Invalid value for '--speed': 0.0 is not in the range x>0."),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    assert_usage_error(unspool(*args), message)


def test_conflicting_pacing_options_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("hello")
    result = unspool("replay", str(path), "--speed", "2", "--no-delay")
    assert_usage_error(result, "give only one of --speed, --delay and --no-delay")


# ---------------------------------------------------------------- invalid input: exit 1


def core_error(text: str) -> str:
    """The core's own message for ``text`` (this layer adds only its prefix)."""
    with pytest.raises(MalformedJSON) as info:
        parse_partial(text)
    return str(info.value)


@pytest.mark.parametrize("script", [False, True])
def test_malformed_json_is_one_line_and_exit_1(script: bool) -> None:
    result = unspool("parse", stdin=b'{"a": 1,,}', script=script)
    message = core_error('{"a": 1,,}')
    assert message.endswith(" at position 8")
    assert_one_line_error(result, 1, f"invalid JSON: {message}")


def test_text_after_the_value_is_exit_1() -> None:
    result = unspool("parse", stdin=b'{"a": "ok"}\n{"b"')
    message = core_error('{"a": "ok"}\n{"b"')
    assert message.endswith(" at position 12")
    hint = " (text follows the value: --trailing ignore keeps it aside)"
    assert_one_line_error(result, 1, f"invalid JSON: {message}{hint}")
    # what came before the error in the same chunk is still written
    assert [json.loads(line) for line in result.stdout.decode().splitlines()] == [
        {"type": "value_start", "path": [], "kind": "object"},
        {"type": "value_start", "path": ["a"], "kind": "string"},
        {"type": "string_delta", "path": ["a"], "text": "ok"},
        {"type": "value_end", "path": ["a"], "value": "ok"},
        {"type": "value_end", "path": [], "value": {"a": "ok"}},
    ]


def test_invalid_utf8_is_exit_1() -> None:
    result = unspool("parse", stdin=b'{"a": "\xff"}')
    assert_one_line_error(result, 1, "input is not valid UTF-8 (byte 7)")


def test_schema_mismatch_writes_the_validation_then_exits_1(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    result = unspool("parse", "--schema", str(schema), stdin=b'{"a": 1}')
    assert_one_line_error(
        result, 1, "the value does not match the schema: 1 is not of type 'string'"
    )
    assert lines(result.stdout)[-2:] == [
        {
            "type": "validation",
            "ok": False,
            "errors": [{"path": ["a"], "message": "1 is not of type 'string'", "type": "type"}],
        },
        {"type": "done", "value": {"a": 1}, "complete": True},
    ]


def test_a_provider_error_event_is_exit_1_after_every_event() -> None:
    body = (
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"text_delta","text":"Hi"}}\n\n'
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        '"message":"Overloaded"}}\n\n'
    )
    result = unspool("parse", "-p", "anthropic-sse", stdin=body.encode())
    assert result.returncode == 1
    assert result.stderr.decode().count("\n") == 1
    assert result.stderr.decode().startswith(
        "Error: the stream reported an error (overloaded_error)"
    )
    records = lines(result.stdout)
    assert records[0] == {"type": "text_delta", "text": "Hi"}
    assert records[-1]["type"] == "stream_done" and records[-1]["reason"] == "error"


def test_bad_recording_line_is_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text('{"chunk": "a"}\n{"chunk": 3}\n')
    assert_one_line_error(unspool("replay", str(path)), 1, 'line 2: "chunk" must be a string')


def test_a_recording_without_chunks_is_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text('{"session": "s"}\n')
    assert_one_line_error(unspool("replay", str(path)), 1, f"{path}: the recording holds no chunks")


EMPTY_RUNS = [
    *(["parse", "-p", protocol] for protocol in ("json", "interleaved", "tags", "plain")),
    ["parse", "-p", "openai-sse"],
    ["repair"],
    ["replay", "--no-delay"],
]


@pytest.mark.parametrize("args", EMPTY_RUNS, ids=" ".join)
def test_an_empty_input_is_the_same_error_for_every_command(
    args: list[str], tmp_path: Path
) -> None:
    """The rule (README, --help): no character in (no byte, or a BOM alone) is invalid
    input, exit 1, one line naming stdin or the file; parse writes its events first."""
    stdin = unspool(*args, "-", stdin=b"")
    assert_one_line_error(stdin, 1, "stdin is empty")
    path = tmp_path / "empty.txt"
    path.write_bytes(b"\xef\xbb\xbf")  # a BOM alone: no character
    assert_one_line_error(unspool(*args, str(path)), 1, f"{path} is empty")
    if args[0] == "parse":
        assert lines(stdin.stdout)[-1]["type"] in ("done", "stream_done")


def test_whitespace_is_not_empty_but_holds_no_json_value() -> None:
    assert_one_line_error(unspool("parse", stdin=b" \n"), 1, "the input holds no JSON value")
    assert_one_line_error(
        unspool("repair", stdin=b" \n"), 1, "cannot repair: No JSON value found at position 2"
    )
    assert unspool("parse", "-p", "tags", stdin=b" \n").returncode == 0  # text, shown


def test_unknown_protocol_in_a_recording_is_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text('{"session": "s", "protocol": "xml"}\n{"chunk": "a"}\n')
    assert_one_line_error(
        unspool("replay", str(path)), 1, "unknown protocol 'xml' in the recording"
    )


# ---------------------------------------------------------------- parse: protocols and options


def test_parse_reads_a_file_argument_and_dash(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text("[true]")
    expected = [
        {"type": "value_start", "path": [], "kind": "array"},
        {"type": "value_start", "path": [0], "kind": "bool"},
        {"type": "value_end", "path": [0], "value": True},
        {"type": "value_end", "path": [], "value": [True]},
        {"type": "done", "value": [True], "complete": True},
    ]
    assert lines(unspool("parse", str(path)).stdout) == expected
    assert lines(unspool("parse", "-", stdin=b"[true]").stdout) == expected


def test_parse_truncated_json_ends_with_an_incomplete_done() -> None:
    result = unspool("parse", stdin=b'{"a": "hal')
    assert result.returncode == 0
    assert lines(result.stdout)[-1] == {"type": "done", "value": {"a": "hal"}, "complete": False}


def test_parse_lenient_reports_each_repair() -> None:
    result = unspool("parse", "--lenient", stdin=b"Sure: {'a': [True, None,],}")
    assert result.returncode == 0
    records = lines(result.stdout)
    assert [r["kind"] for r in records if r["type"] == "repair"] == [
        "single_quotes",
        "python_literal",
        "python_literal",
        "trailing_comma",
        "trailing_comma",
    ]
    assert records[-1] == {"type": "done", "value": {"a": [True, None]}, "complete": True}


def test_parse_tags_with_a_schema_file_and_a_stream_id(tmp_path: Path) -> None:
    schema = tmp_path / "tools.json"
    schema.write_text(json.dumps({"open": {"type": "object", "required": ["id"]}}))
    reply = b'<action name="open">{"id": 1}</action><action name="open">{}</action>'
    result = unspool(
        "parse", "-p", "tags", "--schema", str(schema), "--stream-id", "r7", stdin=reply
    )
    assert result.returncode == 0
    verdicts = [
        r for r in lines(result.stdout) if r["type"] in ("action_complete", "action_invalid")
    ]
    assert verdicts == [
        {
            "type": "action_complete",
            "id": "r7:0",
            "index": 0,
            "name": "open",
            "args": {"id": 1},
            "action_id": None,
            "attributes": {},
        },
        {
            "type": "action_invalid",
            "id": "r7:1",
            "index": 1,
            "name": "open",
            "reason": "schema",
            "errors": [
                {"path": ["id"], "message": "'id' is a required property", "type": "required"}
            ],
            "raw": "{}",
            "action_id": None,
        },
    ]


def test_parse_with_a_registry_module(tmp_path: Path) -> None:
    (tmp_path / "myactions.py").write_text(
        "from unspool.actions._registry import ActionRegistry\n"
        "registry = ActionRegistry()\n\n"
        "@registry.action\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
    )
    reply = b'[{"type":"action","name":"add","params":{"a":1,"b":"x"}}]'
    result = unspool(
        "parse", "-p", "interleaved", "--schema", "myactions:registry", stdin=reply, cwd=tmp_path
    )
    assert result.returncode == 0
    invalid = lines(result.stdout)[-2]
    assert (invalid["type"], invalid["reason"], invalid["errors"][0]["path"]) == (
        "action_invalid",
        "schema",
        ["b"],
    )


def test_parse_openai_sse_with_a_tags_text_protocol() -> None:
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": 'Go <action name="go">{}</action>'}}],
    }
    body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    result = unspool("parse", "-p", "openai-sse", "--text-protocol", "tags", stdin=body.encode())
    assert result.returncode == 0
    assert [r["type"] for r in lines(result.stdout)] == [
        "text_delta",
        "action_started",
        "action_args_delta",
        "action_complete",
        "stream_done",
    ]


def test_parse_pretty_falls_back_to_plain_lines_on_a_pipe() -> None:
    result = unspool(
        "parse", "-p", "tags", "--pretty", stdin=b'Hi <action name="wave">{"to": 1}</action>'
    )
    assert result.returncode == 0
    assert result.stdout.decode() == (
        "=== tags ===\n"
        "Hi \n"
        "[action wave stream:0] started\n"
        '[action wave stream:0] complete {"to": 1}\n'
        "[done] complete · 1 action: 1 complete, 0 invalid · 3 characters of text\n"
    )


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b",".join(b'"%d"' % i for i in range(50_000)) + b"]")
    proc = subprocess.Popen(
        [sys.executable, "-m", "unspool", "parse", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline()) == {
        "type": "value_start",
        "path": [],
        "kind": "array",
    }
    proc.stdout.close()
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == b""
    proc.stderr.close()


# ---------------------------------------------------------------- repair


def test_repair_writes_valid_json_and_explains_on_stderr() -> None:
    reply = "Sure! ```json\n{'a': 1, /* c */ 'b': [True, None, NaN,], \"c\": \"cut"
    result = unspool("repair", "--explain", stdin=reply.encode())
    assert result.returncode == 0
    assert result.stdout == b'{"a": 1, "b": [true, null, null], "c": "cut"}\n'
    assert result.stderr.decode() == (
        "repair: single_quotes at 15: read a single-quoted key\n"
        "repair: comment at 23: skipped a comment\n"
        "repair: single_quotes at 31: read a single-quoted key\n"
        "repair: python_literal at 37: read True\n"
        "repair: python_literal at 43: read None\n"
        "repair: nan at 49: read NaN\n"
        "repair: trailing_comma at 53: dropped a trailing comma\n"
        "repair: truncated at 65: closed 1 open container(s) at the end of input\n"
    )


def test_repair_without_explain_is_silent_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "reply.txt"
    path.write_text("{'é': [1, 2,]}")
    result = unspool("repair", str(path))
    assert (result.returncode, result.stdout, result.stderr) == (0, '{"é": [1, 2]}\n'.encode(), b"")


def test_repair_of_valid_json_changes_nothing_but_the_layout() -> None:
    result = unspool("repair", "--explain", "--indent", "2", stdin=b'{"ok":[1]}')
    assert result.returncode == 0
    assert result.stdout == b'{\n  "ok": [\n    1\n  ]\n}\n'
    assert result.stderr == b"repair: none needed\n"


def test_repair_without_json_is_exit_1() -> None:
    assert_one_line_error(
        unspool("repair", stdin=b"hi"), 1, "cannot repair: No JSON value found at position 2"
    )


# ---------------------------------------------------------------- replay


def test_replay_raw_text_with_a_guessed_protocol(tmp_path: Path) -> None:
    path = tmp_path / "reply.txt"
    path.write_text('Opening <action name="open">{"id": "p1"}</action> now.')
    result = unspool("replay", str(path), "--no-delay")
    assert result.returncode == 0
    assert result.stdout.decode() == (
        "=== reply.txt (tags) ===\n"
        "Opening \n"
        "[action open stream:0] started\n"
        '[action open stream:0] complete {"id": "p1"}\n'
        " now.\n"
        "[done] complete · 1 action: 1 complete, 0 invalid · 13 characters of text\n"
    )


def test_replay_sse_capture_as_jsonl_events(tmp_path: Path) -> None:
    path = tmp_path / "capture.sse"
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "Hi"}}],
    }
    path.write_text(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")
    result = unspool("replay", str(path), "--no-delay", "--jsonl")
    assert result.returncode == 0
    assert lines(result.stdout) == [
        {"type": "text_delta", "text": "Hi"},
        {
            "type": "stream_done",
            "reason": "complete",
            "actions_complete": 0,
            "actions_invalid": 0,
            "text_chars": 2,
        },
    ]


def test_replay_jsonl_sessions_with_finish_reasons(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    items = [
        {"session": "a", "protocol": "interleaved", "title": "First"},
        {"chunk": '[{"type":"action","name":"x","params":{"k":', "delay": 0.01},
        {"finish": "length"},
        {"session": "b", "protocol": "json"},
        {"chunk": '{"n": 1}', "t": 0.01},
    ]
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    result = unspool("replay", str(path), "--plain")
    assert result.returncode == 0
    assert result.stdout.decode() == (
        "=== First (interleaved) ===\n"
        "[action x a:0] started\n"
        "[action x a:0] invalid (truncated): the stream ended inside the array\n"
        "[done] truncated · 1 action: 0 complete, 1 invalid (truncated) · 0 characters of text\n"
        "=== b (json) ===\n"
        '{\n  "n": 1\n}\n'
        "[done] complete JSON\n"
        "summary: 2 replies · 1 action: 0 complete, 1 invalid (truncated) · 0 characters of text\n"
    )


def test_replay_delay_paces_the_chunks(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text("".join(json.dumps({"chunk": c}) + "\n" for c in ["a", "b", "c", "d"]))
    started = time.monotonic()
    result = unspool("replay", str(path), "--delay", "0.15", "--protocol", "interleaved", "--jsonl")
    elapsed = time.monotonic() - started
    assert result.returncode == 0
    assert [r.get("text") for r in lines(result.stdout)] == ["a", "b", "c", "d", None]
    assert elapsed >= 0.6


# ---------------------------------------------------------------- demo

DEMO_STRICT = (
    "=== A teacher's reply (interleaved, strict) ===\n"
    "[diagnostic] fence: the fence around the array was not shown\n"
    "Good morning, class! Today we find out how a leaf makes food from light.\n"
    "[action spotlight classroom:0] started\n"
    '[action spotlight classroom:0] complete {"elementId": "img_leaf"}\n'
    "Sunlight, water and CO₂ go in; sugar and oxygen come out. Here is the equation:\n"
    "[action wb_draw_text classroom:1] started\n"
    '[action wb_draw_text classroom:1] complete {"content": "6CO₂ + 6H₂O → C₆H₁₂O₆ + 6O₂", '
    '"x": 40, "y": 60}\n'
    "Now a table of what goes in and what comes out.\n"
    "[action wb_draw_table classroom:2] started\n"
    "[action wb_draw_table classroom:2] invalid (truncated): the stream ended inside the array\n"
    "[done] truncated · 3 actions: 2 complete, 1 invalid (truncated) · 198 characters of text"
    " · 1 note\n"
    "=== A shop assistant's reply (tags, strict) ===\n"
    "Sure! This kit has a microscope and 20 prepared slides. \n"
    "[action show_product_modal shop:0] started\n"
    '[action show_product_modal shop:0] complete {"productId": "kit-42", "viewMode": "compact"}\n'
    " I will add two to your cart. \n"
    "[action add_to_cart shop:1] started\n"
    "[action add_to_cart shop:1] invalid (malformed_json): Expecting ',' delimiter\n"
    " Then off to checkout. \n"
    "[action navigate_route shop:2] started\n"
    "[action navigate_route shop:2] invalid (schema): 'checkout' does not match '^/'\n"
    " Anything else?\n"
    "[done] complete · 3 actions: 1 complete, 2 invalid (malformed_json, schema) · "
    "124 characters of text\n"
    "summary: 2 replies · 6 actions: 3 complete, 3 invalid (malformed_json, schema, truncated) · "
    "322 characters of text · 1 note\n"
)


DEMO_PLAIN = (
    "=== A teacher's reply (interleaved, lenient) ===\n"
    "[diagnostic] fence: the fence around the array was not shown\n"
    "Good morning, class! Today we find out how a leaf makes food from light.\n"
    "[action spotlight classroom:0] started\n"
    '[action spotlight classroom:0] complete {"elementId": "img_leaf"}\n'
    "Sunlight, water and CO₂ go in; sugar and oxygen come out. Here is the equation:\n"
    "[action wb_draw_text classroom:1] started\n"
    '[action wb_draw_text classroom:1] complete {"content": "6CO₂ + 6H₂O → C₆H₁₂O₆ + 6O₂", '
    '"x": 40, "y": 60}\n'
    "Now a table of what goes in and what comes out.\n"
    "[action wb_draw_table classroom:2] started\n"
    "[diagnostic] cut off: the reply ended before it was complete; an action it cut off is "
    "not run\n"
    "[action wb_draw_table classroom:2] invalid (truncated): the stream ended inside the array\n"
    "[done] truncated · 3 actions: 2 complete, 1 invalid (truncated) · 198 characters of text"
    " · 2 notes\n"
    "=== A shop assistant's reply (tags, lenient) ===\n"
    "Sure! This kit has a microscope and 20 prepared slides. \n"
    "[action show_product_modal shop:0] started\n"
    '[action show_product_modal shop:0] complete {"productId": "kit-42", "viewMode": "compact"}\n'
    " I will add two to your cart. \n"
    "[action add_to_cart shop:1] started\n"
    "[diagnostic] missing_comma: inserted a missing comma\n"
    '[action add_to_cart shop:1] complete {"productId": "kit-42", "quantity": 2}\n'
    " Then off to checkout. \n"
    "[action navigate_route shop:2] started\n"
    "[action navigate_route shop:2] invalid (schema): 'checkout' does not match '^/'\n"
    " Anything else?\n"
    "[done] complete · 3 actions: 2 complete, 1 invalid (schema) · 124 characters of text"
    " · 1 note\n"
    "summary: 2 replies · 6 actions: 4 complete, 2 invalid (schema, truncated) · "
    "322 characters of text · 3 notes\n"
)
"""The demo reads leniently, as the web demo does: the missing comma is repaired."""


def test_demo_plain_output() -> None:
    result = unspool("demo", "--plain", "--speed", "100")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == DEMO_PLAIN


def test_demo_strict_reads_the_missing_comma_as_malformed() -> None:
    result = unspool("demo", "--plain", "--speed", "100", "--strict")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == DEMO_STRICT


@pytest.mark.parametrize("script", [False, True])
def test_demo_on_a_pipe_falls_back_to_plain_lines(script: bool) -> None:
    result = unspool("demo", "--speed", "100", script=script)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == DEMO_PLAIN

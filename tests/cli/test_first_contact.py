"""First contact with the command: --schema mistakes, the wrong protocol (for parse and
replay alike), plain text, strict JSON on a model's reply, --trailing, the bundled
captures, and a busy port for demo --web (issue 12, items 7 and 10; issue 27, item 5)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from tests.support.replay.fixtures import FIXTURES
from unspool.cli._main import main
from unspool.cli._replay_cmd import SAMPLES, sample_text


def run(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]], str]:
    """Run the command in this process: (exit status, JSON lines out, stderr)."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capfd.readouterr()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return int(exited.value.code or 0), lines, err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------- --schema (item 7)

BAD_REF = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}


@pytest.mark.parametrize(
    ("protocol", "schema", "whose"),
    [
        ("json", BAD_REF, "the schema"),
        ("tags", {"go": BAD_REF}, "the schema of action 'go'"),
        ("tags", {"go": {"properties": {"a": {"$ref": "https://example.com/a.json"}}}}, None),
    ],
)
def test_an_unresolvable_ref_is_a_usage_error_before_any_input(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, protocol: str, schema: Any, whose: Any
) -> None:
    reply = write(
        tmp_path, "reply.txt", '{"a": 1}' if protocol == "json" else '<action name="go">{}</action>'
    )
    code, lines, err = run(
        capfd,
        "parse",
        "-p",
        protocol,
        "--schema",
        write(tmp_path, "s.json", json.dumps(schema)),
        reply,
    )
    assert code == 2 and lines == []
    last = err.strip().splitlines()[-1]
    assert last.startswith("Error: Invalid value for '--schema': cannot resolve $ref ")
    assert "internal error" not in err and "Traceback" not in err
    if whose is not None:
        assert last.endswith(f"in {whose}")


def test_a_resolvable_ref_validates(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    schema = {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    path = write(tmp_path, "s.json", json.dumps(schema))
    assert run(capfd, "parse", "--schema", path, write(tmp_path, "ok.json", '{"a": 1}'))[0] == 0
    code, lines, _ = run(capfd, "parse", "--schema", path, write(tmp_path, "no.json", '{"a": "x"}'))
    assert code == 1 and lines[-2]["type"] == "validation" and not lines[-2]["ok"]


def test_a_missing_schema_file_says_it_does_not_exist(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = str(tmp_path / "nothere.json")
    code, _, err = run(capfd, "parse", "-p", "tags", "--schema", missing, write(tmp_path, "r", "x"))
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"Error: Invalid value for '--schema': the file {missing} does not exist"
    )


def test_a_single_schema_given_to_an_action_protocol_is_explained(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    schema = write(tmp_path, "s.json", json.dumps({"type": "object", "required": ["a"]}))
    code, lines, err = run(
        capfd, "parse", "-p", "tags", "--schema", schema, write(tmp_path, "r", "x")
    )
    assert code == 2 and lines == []
    assert (
        "this is a single JSON Schema, but the action protocols need one schema per action" in err
    )
    # an action map whose action happens to be called "type" is still a map
    actions = write(tmp_path, "a.json", json.dumps({"type": {"type": "object"}}))
    reply = write(tmp_path, "t", '<action name="type">{}</action>')
    code, lines, _ = run(capfd, "parse", "-p", "tags", "--schema", actions, reply)
    assert code == 0 and [e["type"] for e in lines][-2] == "action_complete"


# ------------------------------------------------------------------ the wrong protocol (item 10)


WRONG_PROTOCOLS = pytest.mark.parametrize(
    ("protocol", "source", "fits"),
    [
        ("openai-sse", "Hello there, this is plain text.", "plain"),
        ("anthropic-sse", '<action name="go">{}</action>', "tags"),
        ("interleaved", FIXTURES / "openai_chat_text.sse", "openai-sse"),
        ("tags", FIXTURES / "anthropic_tools.sse", "anthropic-sse"),
        ("anthropic-sse", FIXTURES / "openai_chat_tools.sse", "openai-sse"),
        ("interleaved", 'Sure <action name="go">{"a": 1}</action>', "tags"),
        ("tags", '[{"type": "text", "content": "hi"}]', "interleaved"),
        ("json", FIXTURES / "openai_chat_text.sse", "openai-sse"),
        ("json", "Hello there, this is plain text.", "plain"),
        ("plain", 'Sure <action name="go">{"a": 1}</action>', "tags"),
        ("plain", '[{"type": "text", "content": "hi"}]', "interleaved"),
        ("plain", FIXTURES / "anthropic_tools.sse", "anthropic-sse"),
    ],
)


@WRONG_PROTOCOLS
def test_the_wrong_protocol_fails_naming_the_one_that_fits(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, protocol: str, source: Any, fits: str
) -> None:
    path = str(source) if isinstance(source, Path) else write(tmp_path, "in", source)
    code, lines, err = run(capfd, "parse", "-p", protocol, path)
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("Error: ") and err.rstrip().endswith(f"try --protocol {fits}")
    if protocol != "json":
        assert lines[-1]["type"] == "stream_done"  # every event is written first


@WRONG_PROTOCOLS
def test_replay_fails_on_the_wrong_protocol_as_parse_does(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, protocol: str, source: Any, fits: str
) -> None:
    path = str(source) if isinstance(source, Path) else write(tmp_path, "in.txt", source)
    parsed = run(capfd, "parse", "-p", protocol, path)
    replayed = run(capfd, "replay", "-p", protocol, "--no-delay", "--jsonl", path)
    assert replayed[0] == parsed[0] == 1
    assert replayed[2] == parsed[2]  # the same line, the same hint
    assert replayed[2].rstrip().endswith(f"try --protocol {fits}")


def test_replay_names_the_reply_whose_protocol_does_not_fit(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = [
        {"session": "fine", "protocol": "tags"},
        {"chunk": 'Hi <action name="go">{}</action>'},
        {"session": "wrong", "protocol": "interleaved", "title": "The second"},
        {"chunk": 'Sure <action name="go">{"a": 1}</action>'},
    ]
    path = write(tmp_path, "rec.jsonl", "".join(json.dumps(i) + "\n" for i in items))
    code, lines, err = run(capfd, "replay", "--no-delay", "--jsonl", path)
    assert code == 1 and [r["type"] for r in lines].count("stream_done") == 2
    assert err == (
        "Error: The second: the input looks like prose with action tags, not an interleaved "
        "JSON array of text and actions: try --protocol tags\n"
    )


def test_the_right_protocol_read_by_replay_passes(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name in ("openai_chat_tools.sse", "anthropic_tools.sse"):
        code, _, err = run(capfd, "replay", "--no-delay", "--jsonl", str(FIXTURES / name))
        assert (code, err) == (0, "")
    prose = write(tmp_path, "prose.txt", "Just prose, nothing else.")
    assert run(capfd, "replay", "--no-delay", "--jsonl", prose)[:3:2] == (0, "")


def test_plain_text_is_read_by_the_plain_protocol(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The hint plain text gets names a protocol that exists and reads it."""
    path = write(tmp_path, "in.txt", "Hello there, this is plain text.")
    code, lines, err = run(capfd, "parse", "-p", "plain", path)
    assert (code, err) == (0, "")
    assert lines == [
        {"type": "text_delta", "text": "Hello there, this is plain text."},
        {
            "type": "stream_done",
            "reason": "complete",
            "actions_complete": 0,
            "actions_invalid": 0,
            "text_chars": 32,
        },
    ]
    code, _, err = run(capfd, "parse", "--lenient", path)  # skips it all: no value
    assert code == 1
    assert err == "Error: the input looks like plain text, not a JSON value: try --protocol plain\n"


@pytest.mark.parametrize(
    ("protocol", "source"),
    [
        ("openai-sse", FIXTURES / "openai_chat_tools.sse"),
        ("openai-sse", FIXTURES / "openai_responses_tools.sse"),
        ("anthropic-sse", FIXTURES / "anthropic_tools.sse"),
        ("interleaved", "Just prose, no array."),
        ("interleaved", '[{"type": "text", "content": "hi"}]'),
        ("tags", "Just prose."),
        ("tags", 'Hi <action name="go">{}</action>'),
        ("json", '{"a": 1}'),
        ("plain", "Just prose."),
        ("plain", "Prose with [brackets] and {braces}."),
    ],
)
def test_the_right_protocol_passes(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, protocol: str, source: Any
) -> None:
    path = str(source) if isinstance(source, Path) else write(tmp_path, "in", source)
    code, _, err = run(capfd, "parse", "-p", protocol, path)
    assert (code, err) == (0, "")


@pytest.mark.parametrize(
    ("reply", "hint"),
    [
        ('```json\n{"a": 1}\n```', "the reply starts with a code fence: --lenient skips it"),
        ('<think>hmm</think>{"a": 1}', "the reply starts with a <think> block: --lenient skips it"),
        ('Sure! Here it is: {"a": 1}', "the reply starts with prose: --lenient skips it"),
        ('{"a": 1} Anything else?', "text follows the value: --trailing ignore keeps it aside"),
    ],
)
def test_strict_json_errors_on_a_reply_suggest_the_option_that_reads_it(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, reply: str, hint: str
) -> None:
    code, _, err = run(capfd, "parse", write(tmp_path, "r", reply))
    assert code == 1
    assert err.startswith("Error: invalid JSON: ") and err.endswith(f" ({hint})\n")
    option = ["--lenient"] if "--lenient" in hint else ["--trailing", "ignore"]
    code, lines, err = run(capfd, "parse", *option, write(tmp_path, "r", reply))
    assert (code, err) == (0, "")
    assert lines[-1] == {"type": "done", "value": {"a": 1}, "complete": True}


def test_trailing_ignore_writes_the_tail_as_skipped_records(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, lines, _ = run(capfd, "parse", "--trailing", "ignore", write(tmp_path, "r", "[1] ok"))
    assert code == 0
    assert {"type": "skipped", "kind": "trailing", "pos": 3, "text": " ok"} in lines
    code, _, err = run(
        capfd, "parse", "-p", "tags", "--trailing", "ignore", write(tmp_path, "r", "x")
    )
    assert code == 2 and "--trailing is for --protocol json" in err


# ------------------------------------------------------------------------ samples (item 10)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_replay_plays_a_bundled_sample(capfd: pytest.CaptureFixture[str], name: str) -> None:
    code, lines, err = run(capfd, "replay", "--sample", name, "--no-delay", "--jsonl")
    assert (code, err) == (0, "")
    done = lines[-1]
    assert done["type"] == "stream_done" and done["reason"] == "complete"
    assert done["actions_complete"] >= 2 and done["actions_invalid"] == 0


def test_replay_needs_a_file_or_a_sample(capfd: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capfd, "replay")
    assert code == 2 and "give a FILE to replay, or --sample openai|anthropic" in err
    code, _, err = run(
        capfd, "replay", str(ROOT / "examples" / "capture.sse"), "--sample", "openai"
    )
    assert code == 2


def test_the_readme_replay_example_runs_as_written_from_a_clone() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line.split("#")[0].strip() for line in readme.splitlines()]
    replays = [line for line in lines if line.startswith("unspool replay ")]
    assert any("examples/capture.sse" in line for line in replays)
    assert (ROOT / "examples" / "capture.sse").read_text(encoding="utf-8") == sample_text("openai")
    script = Path(sys.executable).with_name("unspool")  # this environment's, not PATH's
    command = [str(script)] if script.exists() else [sys.executable, "-m", "unspool"]
    for line in replays:
        args = [*line.split()[1:], "--no-delay", "--plain"]
        args = [a for a in args if a not in ("--speed", "2")]
        done = subprocess.run(
            [*command, *args], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, (line, done.stderr)
        assert "[done] complete" in done.stdout


# --------------------------------------------------------------- demo --web on a busy port


def test_demo_web_on_a_busy_port_fails_at_once_naming_the_port() -> None:
    """Exit status 3 (documented in --help), one line naming the port and --port, before
    any "open" line: nothing was served."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "unspool", "demo", "--web", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert (result.returncode, result.stdout) == (3, "")
    assert result.stderr == (
        f"Error: port {port} on 127.0.0.1 is in use: stop what uses it, or choose another "
        "port with --port (--port 0 takes any free one)\n"
    )
    assert "3 the server cannot listen" in " ".join(help_text("demo").split())
    assert "demo --web exits 3 when its port is in use" in " ".join(help_text().split())


def test_demo_web_on_an_address_not_of_this_machine_fails_the_same_way(
    capfd: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capfd, "demo", "--web", "--host", "192.0.2.1", "--port", "0")
    assert code == 3
    assert err == "Error: cannot listen on 192.0.2.1 port 0: Cannot assign requested address\n"


def help_text(*command: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "unspool", *command, "--help"], capture_output=True, text=True
    )
    return done.stdout

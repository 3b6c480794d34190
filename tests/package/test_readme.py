"""The README's examples run as written, and its quick start is what CI runs.

Every ```python block is executed as a user would paste it. A block that calls a provider
SDK reads its key and address from the environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
...), which this module points at the loopback replay server (``tests/support/replay``) with a
recorded reply queued; a block that defines a web app (``app = FastAPI(...)``) is served
with uvicorn on 127.0.0.1 and driven with httpx; the ``PostgresLedger`` block uses the test
PostgreSQL server. Each such block has an entry in :data:`DRIVERS` (found by a line of the
block) that queues its replies, runs it and checks what came out; a block no entry names
just runs. A block is left out only by a sentence the reader sees right above it,
``(Not run by the tests: <why>.)`` (:data:`NOT_RUN`; the test is skipped with that reason);
none is today, and a hidden marker skips nothing.

The ```sh block of the command line runs too, line by line (the two ``demo --web`` lines,
which serve until stopped, only up to their options); the other shell blocks (installs,
development, benchmarks) are checked for the extras, files and commands they name.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.actions.servers import postgres_dsn
from tests.support.paths import ROOT
from tests.support.replay import ReplayServer, Reply, wire
from tests.support.replay.bedrock_wire import CONTENT_TYPE as EVENTSTREAM
from tests.support.replay.bedrock_wire import converse_events, event_stream
from tests.support.replay.gemini_wire import call as gemini_call
from tests.support.replay.gemini_wire import chunk, gemini_sse
from tests.support.replay.ollama_wire import CONTENT_TYPE as NDJSON
from tests.support.replay.ollama_wire import line, ndjson, tool_call
from tests.support.web.server import LiveServer

README = (ROOT / "README.md").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Block:
    line: int
    lang: str
    code: str
    not_run: str | None = None  # why, as the page says it


NOT_RUN = re.compile(r"\(Not run by the tests: (?P<why>[^)]+)\.\)\n\n$")
"""The one way to leave a Python block out: a sentence the reader sees, right above it,
``(Not run by the tests: <why>.)``; the test is then skipped with that reason."""


def blocks(lang: str) -> list[Block]:
    """Every fenced block of ``lang``, with the line its code starts on."""
    found = []
    for match in re.finditer(r"(?m)^```(?P<lang>\w*)\n(?P<code>.*?)\n```$", README, re.S):
        if match.group("lang") == lang:
            line = README.count("\n", 0, match.start("code")) + 1
            said = NOT_RUN.search(README, 0, match.start())
            why = said.group("why") if said else None
            found.append(Block(line, lang, match.group("code"), why))
    return found


@dataclass
class Example:
    """One block, ready to run: :meth:`run` executes it in a fresh module namespace."""

    block: Block
    replay: ReplayServer
    monkeypatch: pytest.MonkeyPatch
    out: io.StringIO

    def run(self) -> dict[str, Any]:
        namespace: dict[str, Any] = {"__name__": "readme_example"}
        with contextlib.redirect_stdout(self.out):
            exec(compile(self.block.code, f"README.md:{self.block.line}", "exec"), namespace)
        return namespace

    def play(self, *replies: bytes | Reply) -> None:
        """Queue the replies the block's model calls get, SSE unless given as a Reply."""
        self.replay.play(*(r if isinstance(r, Reply) else Reply([r]) for r in replies))


Driver = Callable[[Example], None]
DRIVERS: dict[str, Driver] = {}


def drives(marker: str) -> Callable[[Driver], Driver]:
    """Register the driver of the block that holds the line ``marker``."""

    def register(driver: Driver) -> Driver:
        DRIVERS[marker] = driver
        return driver

    return register


def driver_of(block: Block) -> Driver | None:
    lines = block.code.splitlines()
    found = [driver for marker, driver in DRIVERS.items() if marker in lines]
    assert len(found) <= 1, f"README.md:{block.line} matches {len(found)} drivers"
    return found[0] if found else None


def frames(body: str) -> list[dict[str, Any]]:
    """The frames of an SSE body: ``event``, ``id`` and ``data`` (JSON when it parses)."""
    out = []
    for frame in body.split("\n\n"):
        fields: dict[str, Any] = {}
        for field in frame.split("\n"):
            name, _, value = field.partition(": ")
            if name == "data":
                with contextlib.suppress(ValueError):
                    value = json.loads(value)
            if name:
                fields[name] = value
        if fields:
            out.append(fields)
    return out


def of_type(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        f["data"]
        for f in found
        if isinstance(f.get("data"), dict) and f["data"].get("type") == kind
    ]


# the provider SDKs, pointed at the replay server by their own environment variables -------


@pytest.fixture
def provider_env(replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> None:
    url = replay_server.url
    for name, value in {
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": url + "/v1",
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": url,
        "GEMINI_API_KEY": "test-key",
        "GOOGLE_GEMINI_BASE_URL": url,
        "OLLAMA_HOST": url,
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": url,
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/nonexistent",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


PYTHON = blocks("python")


@pytest.mark.parametrize("block", PYTHON, ids=[f"line{b.line}" for b in PYTHON])
@pytest.mark.usefixtures("provider_env")
def test_readme_example_runs(
    block: Block, replay_server: ReplayServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if block.not_run:
        pytest.skip(f"README.md:{block.line} says it is not run by the tests: {block.not_run}")
    monkeypatch.chdir(tmp_path)
    example = Example(block, replay_server, monkeypatch, io.StringIO())
    driver = driver_of(block)
    if driver is None:
        example.run()
    else:
        driver(example)


def test_there_are_examples() -> None:
    """Python and shell blocks only, but for the layout tree (a bare fence)."""
    assert len(PYTHON) >= 8
    langs = re.findall(r"(?m)^```(\w*)\n(?:.*?\n)??```$", README, re.S)
    assert set(langs) == {"python", "sh", ""} and langs.count("") == 1, langs


def test_no_block_is_skipped_or_hidden() -> None:
    """The old ``<!-- readme-test: skip -->`` markers were invisible on a rendered page;
    the page says, where a reader sees it, how the examples that call a model are run."""
    assert "readme-test" not in README
    assert "Every example in this README runs in the test suite as it is written." in README


def test_each_driver_finds_its_block() -> None:
    for marker in DRIVERS:
        assert sum(marker in b.code.splitlines() for b in PYTHON) == 1, marker


SERVED = re.compile(
    r"\b(OpenAI|AsyncOpenAI|Anthropic|AsyncAnthropic|FastAPI|Starlette)\(|genai\.Client\(|"
    r"boto3\.client\(|ollama\.\w+\(|PostgresLedger\(|RedisLedger\("
)


def test_every_server_or_model_example_is_driven() -> None:
    """A block that calls a model or defines an app is checked, not just defined."""
    for block in PYTHON:
        if SERVED.search(block.code) and not block.not_run:
            assert driver_of(block) is not None, f"README.md:{block.line} has no driver"


def _documented_extras() -> dict[str, set[str]]:
    """Each extra the README's install block names, with the distributions it brings."""
    install = next(b.code for b in blocks("sh") if "pip install unspool" in b.code)
    named = set(re.findall(r"unspool\[(\w+)\]", install))
    requires = metadata.requires("unspool") or []
    direct: dict[str, set[str]] = {}
    for requirement in requires:
        match = re.match(
            r"([A-Za-z0-9_.\-\[\],]+?)\s*(?:[<>=!~].*)?;\s*extra\s*==\s*\"(\w+)\"", requirement
        )
        if match:
            name, extra = match.groups()
            direct.setdefault(extra, set()).add(name)
    out: dict[str, set[str]] = {}
    for extra in named:
        todo, seen, dists = [extra], set(), set()
        while todo:
            current = todo.pop()
            seen.add(current)
            for name in direct.get(current, ()):
                inner = re.fullmatch(r"unspool\[(.+)\]", name)
                if inner:
                    todo += [e for e in inner.group(1).split(",") if e not in seen]
                else:
                    dists.add(re.sub(r"\[.*\]", "", name).lower().replace("_", "-"))
        out[extra] = dists
    return out


def _imported(code: str) -> set[str]:
    """The distributions' modules ``code`` imports: the top-level name, or its first two
    parts in a namespace package (``from google import genai``: ``google.genai``)."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in found:
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "unspool":
                continue
            spec = importlib.util.find_spec(top)  # a top-level spec imports nothing
            assert spec is not None, name
            names.add(".".join(name.split(".")[:2]) if spec.origin is None else top)
    return names


_packages = functools.cache(metadata.packages_distributions)


def _distributions_of(module: str) -> set[str]:
    """The installed distributions whose files hold ``module``."""
    path = module.replace(".", "/")
    found = set()
    for name in _packages().get(module.split(".")[0], []):
        files = [str(f) for f in metadata.files(name) or []]
        if any(f.startswith(path + "/") or f == path + ".py" for f in files):
            found.add(name.lower())
    return found


def test_what_each_example_imports_is_in_a_documented_extra() -> None:
    covered = set().union(*_documented_extras().values())
    for block in PYTHON:
        for name in _imported(block.code):
            dists = _distributions_of(name)
            assert dists, name
            assert dists & covered, f"README.md:{block.line}: {name} ({dists}) is in no extra"


def test_shell_blocks_name_what_exists() -> None:
    """The shell blocks not run here (installs, the development and benchmark commands)
    name extras, files and modules that exist, and the lint line is what CI runs."""
    extras = set(metadata.metadata("unspool").get_all("Provides-Extra") or [])
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for block in blocks("sh"):
        for group in re.findall(r"\[([\w,]+)\]'", block.code):
            assert set(group.split(",")) <= extras, (block.line, group)
        for path in re.findall(
            r"(?<![\w./-])((?:scripts|tests|examples|bench)/[\w*./-]+)", block.code
        ):
            assert list(ROOT.glob(path)), (block.line, path)
        for module in re.findall(r"python -m (\w+)", block.code):
            assert module in {"pytest", "bench"}, module
            assert module == "pytest" or (ROOT / module / "__main__.py").exists()
        for command in re.findall(
            r"(\.venv/bin/(?:ruff|mypy)[^&#\n]*?)\s*(?:&&|#|$)", block.code, re.M
        ):
            assert command in ci, command


def test_quick_start_test_command_is_what_ci_runs() -> None:
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)
    assert len(commands) >= 2
    demo, tests = commands[0], commands[1]
    assert demo.endswith("unspool demo")
    assert tests.endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    setup, run = tests.split(" && .venv/bin/python -m pytest")[0], ".venv/bin/python -m pytest"
    assert setup in ci
    assert run in ci


def cli_lines() -> list[str]:
    """The lines of the command line's block, each without its comment."""
    block = next(b for b in blocks("sh") if b.code.startswith("unspool demo "))
    return [line.split("  #")[0].rstrip() for line in block.code.splitlines()]


WHAT_CLI_LINES_PRINT = {
    "| unspool parse": '{"type": "done", "value": {"a": [1, 2], "b": "hi"}, "complete": false}',
    "parse -p tags --pretty": "[done] complete · 1 action: 1 complete, 0 invalid",
    "parse -p plain": '{"type": "text_delta", "text": "Just text, no markup"}',
    "--format mistral": '"name": "f", "args": {"a": 1}',
    "repair --explain": '{"a": 1, "b": [true]}',
    "--speed 2": "[done]",
    "--sample anthropic": "[done]",
    "unspool demo": "complete",
    "demo --strict": "complete",
}


@pytest.mark.parametrize("line", cli_lines())
def test_cli_example_runs(line: str) -> None:
    """Each line of the command line's block runs from the repository's root and exits 0,
    printing what it should; ``demo`` at ``--speed 50`` (it plays at the recorded pace).
    The ``--web`` lines serve until stopped: here their options are checked (``--help``
    after them), ``tests/web/test_demo_page.py`` serves the page; the README says so."""
    if "--web" in line:
        command = line + " --help"
    elif line.startswith("unspool demo"):
        command = line + " --speed 50"
    else:
        command = line
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["sh", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if "--web" in line:
        assert "Usage: unspool demo" in done.stdout
        return
    expected = [text for key, text in WHAT_CLI_LINES_PRINT.items() if line.endswith(key)]
    assert len(expected) == 1, line
    assert expected[0] in done.stdout


def test_cli_block_says_what_the_tests_leave_out() -> None:
    after = README.split("unspool replay --sample anthropic", 1)[1][:600]
    assert "the two `--web` lines, which serve until stopped, only" in " ".join(after.split())


# the drivers --------------------------------------------------------------------------


@drives('@app.get("/turns/{turn_id}/events")')
def postgres_workers(example: Example) -> None:
    """Two workers (two imports of the app, each its own pool) share the table: the turn
    rendered by one and re-rendered by the other runs its action once."""
    dsn = postgres_dsn()
    example.monkeypatch.setenv("DATABASE_URL", dsn)
    turn = f"readme-{uuid.uuid4().hex}"
    one, two = example.run(), example.run()
    try:
        with LiveServer(one["app"], lifespan="on") as a, LiveServer(two["app"], lifespan="on") as b:
            first = frames(httpx.get(f"{a.url}/turns/{turn}/events", timeout=20).text)
            again = frames(httpx.get(f"{b.url}/turns/{turn}/events", timeout=20).text)
        result = {"type": "action_result", "id": f"{turn}:0", "index": 0, "name": "add_to_cart"}
        assert of_type(first, "action_result") == [
            {**result, "result": "added kit-42", "replayed": False}
        ]
        assert of_type(again, "action_result") == [
            {**result, "result": "added kit-42", "replayed": True}
        ]
        assert of_type(again, "stream_done")[0]["reason"] == "complete"
    finally:
        cleanup = one["PostgresLedger"](dsn)
        cleanup.forget(f"{turn}:0")
        cleanup.close()


PARIS = '{"city": "Paris"}'
WEATHER = {"city": "Paris", "temp_c": 21}


def openai_call(name: str = "get_weather", args: str = PARIS) -> bytes:
    chunks = wire.chat_chunks([wire.Call(name, "call_A", [args[:9], args[9:]])], "tool_calls")
    return wire.sse(chunks, named=False, done=True)


def openai_text(text: str) -> bytes:
    return wire.sse(wire.chat_chunks([wire.Text([text])], "stop"), named=False, done=True)


def anthropic_text(*pieces: str) -> bytes:
    return wire.sse(wire.anthropic_events([wire.Text(pieces)]), named=True)


def anthropic_call(name: str, args: str) -> bytes:
    call = wire.Call(name, "toolu_A", [args[:9], args[9:]])
    return wire.sse(wire.anthropic_events([call], "tool_use"), named=True)


def printed(example: Example) -> list[str]:
    return example.out.getvalue().splitlines()


@drives("for event in from_openai(s):")
def provider_streams(example: Example) -> None:
    """The OpenAI SDK's stream read by from_openai, then generate() over the Anthropic SDK
    with the tags protocol and a dispatcher: the tagged action runs."""
    tagged = ('Checking. <action name="get_weather">{"city": ', '"Paris"}</action>')
    example.play(openai_call(), anthropic_text(*tagged))
    example.run()
    lines = printed(example)
    assert lines[:2] == ["action_started", "action_args_delta"]
    assert lines[lines.index("action_complete") + 1] == "stream_done"
    dicts = [ast.literal_eval(line) for line in lines if line.startswith("{")]
    assert [d["result"] for d in dicts if d["type"] == "action_result"] == [WEATHER]
    assert dicts[-1]["type"] == "stream_done" and dicts[-1]["reason"] == "complete"
    (_, path, body), (_, path2, body2) = example.replay.requests
    assert path == "/v1/chat/completions" and body["tools"][0]["function"]["name"] == "get_weather"
    assert path2 == "/v1/messages" and "get_weather" in body2["system"]


@drives("for event in from_gemini(stream):")
def gemini_bedrock_ollama(example: Example) -> None:
    """Each SDK built from the environment, a tool call in each reply."""
    example.play(
        gemini_sse([chunk(gemini_call("get_weather", {"city": "Paris"}), finish="STOP")]),
        Reply(
            [
                event_stream(
                    converse_events([("tool", ("tooluse_A", "get_weather", [PARIS]))], "tool_use")
                )
            ],
            content_type=EVENTSTREAM,
        ),
        Reply(
            [
                ndjson(
                    [
                        line(tool_calls=[tool_call("get_weather", {"city": "Paris"})]),
                        line(done_reason="stop"),
                    ]
                )
            ],
            content_type=NDJSON,
        ),
    )
    example.run()
    for provider in ("gemini", "bedrock", "ollama"):
        types = [t.split(": ")[1] for t in printed(example) if t.startswith(provider + ":")]
        assert "action_complete" in types and types[-1] == "stream_done", (provider, types)
    paths = [path for _, path, _ in example.replay.requests]
    assert "/models/gemini-2.5-flash:streamGenerateContent" in paths[0]
    assert paths[1] == "/model/anthropic.claude-sonnet-4/converse-stream"
    assert paths[2] == "/api/chat"


@drives("    async for event in loop:  # every turn's events, each turn ending with its StreamDone")
def tool_loop(example: Example) -> None:
    """Turn 1 calls get_weather; its result goes back as a tool message; turn 2 answers."""
    example.play(openai_call(), openai_text("It is 21 °C in Paris."))
    example.run()
    lines = printed(example)
    assert lines.count("stream_done") == 2 and "action_result" in lines
    assert lines[-1].startswith("answered [")
    second = example.replay.requests[1][2]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "tool"]
    assert json.loads(second[2]["content"]) == WEATHER


def use_chat_body(text: str) -> dict[str, Any]:
    """What useChat's DefaultChatTransport posts for a first message."""
    message = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}
    return {"id": "chat-1", "trigger": "submit-message", "messages": [message]}


def post_chat(app: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    with LiveServer(app, lifespan="on") as live:
        response = httpx.post(f"{live.url}/api/chat", json=body, timeout=20)
    assert response.status_code == 200, response.text
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.text.endswith("data: [DONE]\n\n")
    return frames(response.text)


@drives(
    '    events = dispatcher.arun(generate(call, protocol="tags"))  # results become tool outputs'
)
def chat_endpoint(example: Example) -> None:
    """useChat's body in, the AI SDK stream out: the tagged action's input and output."""
    tagged = ('On it. <action name="add_to_cart">{"product_id":', ' "kit-42"}</action>')
    example.play(anthropic_text(*tagged))
    found = post_chat(example.run()["app"], use_chat_body("Add the kit to my cart"))
    assert [f["input"] for f in of_type(found, "tool-input-available")] == [
        {"product_id": "kit-42"}
    ]
    assert [f["output"] for f in of_type(found, "tool-output-available")] == ["added kit-42"]
    assert of_type(found, "finish")[0]["finishReason"] == "stop"
    ((_, path, request),) = example.replay.requests
    assert path == "/v1/messages" and "add_to_cart" in request["system"]
    assert request["messages"] == [{"role": "user", "content": "Add the kit to my cart"}]


@drives(
    '    runs.start(key, generate(call, protocol="interleaved"))  # runs even while the tab reconnects'
)
def resumable_replies(example: Example) -> None:
    """A reply started by a POST, read whole, then read again from Last-Event-ID 2: the
    second read is exactly the frames after 2."""
    reply = ('[{"type": "text", "content": "Hello ', 'class."}, {"type": "text", "content": "!"}]')
    example.play(anthropic_text(*reply))
    app = example.run()["app"]
    with LiveServer(app, lifespan="on") as live:
        started = httpx.post(f"{live.url}/api/replies", json={"prompt": "Greet the class"})
        url = live.url + started.json()["events"]
        whole = frames(httpx.get(url, timeout=20).text)
        resumed = frames(httpx.get(url, headers={"Last-Event-ID": "2"}, timeout=20).text)
    assert [f["id"] for f in whole] == [str(n) for n in range(1, len(whole) + 1)]
    assert resumed == whole[2:]
    text = "".join(f["data"]["text"] for f in whole if f["event"] == "text_delta")
    assert text == "Hello class.!"
    assert whole[-1]["event"] == "stream_done" and whole[-1]["data"]["reason"] == "complete"
    assert example.replay.requests[0][2]["messages"][0]["content"] == "Greet the class"


@drives('    events = dispatcher.arun(generate(call, provider="anthropic"))')
def chat_backend(example: Example) -> None:
    """useChat's body read, the Anthropic SDK called with the conversation, its tool call
    run once and streamed back; a forged body is a 400 with every error as JSON."""
    example.play(anthropic_call("get_weather", PARIS))
    app = example.run()["app"]
    found = post_chat(app, use_chat_body("Weather in Paris?"))
    assert [f["output"] for f in of_type(found, "tool-output-available")] == [WEATHER]
    ((_, path, request),) = example.replay.requests
    assert path == "/v1/messages" and request["system"] == "You are the travel desk's assistant."
    assert request["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}
    ]
    assert request["tools"][0]["name"] == "get_weather" and request["tools"][0]["strict"]
    with LiveServer(app, lifespan="on") as live:
        forged = httpx.post(f"{live.url}/api/chat", json={"messages": [{"role": "robot"}]})
    assert forged.status_code == 400 and forged.json()["errors"]


@drives(
    "    answers = await dispatcher.aresume(chat.tool_calls)  # the page's results, recorded once"
)
def chat_turns(example: Example) -> None:
    """The model calls the page's action: the turn ends with the call to run and no
    output; the page's answer in the next request is recorded and goes to the model,
    which answers in the same reply."""
    color_call = openai_call("pick_color", '{"prompt": "Balloons?"}')
    example.play(color_call, openai_text("Red it is."))
    app = example.run()["app"]
    first = post_chat(app, use_chat_body("A party!"))
    (call,) = of_type(first, "tool-input-available")
    assert (call["toolName"], call["input"]) == ("pick_color", {"prompt": "Balloons?"})
    assert of_type(first, "tool-output-available") == []
    (start,) = of_type(first, "start")
    answered = {
        "type": "tool-pick_color",
        "toolCallId": call["toolCallId"],
        "state": "output-available",
        "input": call["input"],
        "output": {"color": "red"},
    }
    body = use_chat_body("A party!")
    assistant = {"id": start["messageId"], "role": "assistant", "parts": [answered]}
    body["messages"].append(assistant)
    second = post_chat(app, body)
    assert "".join(f["delta"] for f in of_type(second, "text-delta")) == "Red it is."
    assert of_type(second, "start")[0]["messageId"] == start["messageId"]  # the same message
    messages = example.replay.requests[1][2]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool"]
    assert json.loads(messages[2]["content"]) == {"color": "red"}


# the three paths of "Choose your path" ----------------------------------------------------

TABLE = '{"restaurant": "Chez Nous", "people": 2}'


@drives("    async for event in loop:  # text as it streams, each action as it completes and runs")
def provider_path(example: Example) -> None:
    """Turn 1 calls book_table (run once, into a SQLite ledger); its tool_result goes back
    in the Anthropic shape; turn 2 answers."""
    example.play(anthropic_call("book_table", TABLE), anthropic_text("Booked: ", "see you at 8."))
    example.run()
    out = example.out.getvalue()
    assert "[book_table] booked Chez Nous for 2\n" in out
    assert out.endswith("Booked: see you at 8.\nanswered\n")
    (_, path, first), (_, _, second) = example.replay.requests
    assert path == "/v1/messages" and first["tools"][0]["name"] == "book_table"
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    (result,) = second["messages"][2]["content"]
    assert result["type"] == "tool_result" and result["content"] == "booked Chez Nous for 2"


@drives('    chat = read_request(await request.body(), format="ai-sdk")  # a bad body is a 400')
def chat_ui_path(example: Example) -> None:
    """useChat's body in, OpenAI called with the system prompt and the conversation, the
    action run on the server and its output streamed to the page."""
    example.play(openai_call("add_to_cart", '{"product_id": "kit-42", "quantity": null}'))
    app = example.run()["app"]
    found = post_chat(app, use_chat_body("Add the kit to my cart"))
    assert [f["output"] for f in of_type(found, "tool-output-available")] == ["added 1 x kit-42"]
    ((_, path, request),) = example.replay.requests
    assert path == "/v1/chat/completions"
    assert request["messages"][0] == {"role": "system", "content": "You are the shop's assistant."}
    assert request["messages"][1]["role"] == "user"
    assert request["tools"][0]["function"]["strict"] is True
    with LiveServer(app, lifespan="on") as live:
        forged = httpx.post(f"{live.url}/api/chat", json={"messages": [{"role": "robot"}]})
    assert forged.status_code == 400


@drives("    print(event.type)  # reasoning_delta, text_delta, action_started, ..., action_result")
def local_model_path(example: Example) -> None:
    """The raw text's think block, prose and Hermes tool call: the action runs once."""
    example.run()
    types = printed(example)
    assert types[:2] == ["reasoning_delta", "text_delta"]
    assert types.count("action_result") == 1 and types[-1] == "stream_done"
    assert "diagnostic" not in types

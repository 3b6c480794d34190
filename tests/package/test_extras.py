"""One way to say an extra is missing (issue 27, item 7): each entry point, run in a fresh
process where the dependency cannot be imported, names the extra to install, through
``unspool._extras.needs_extra``, and the command line prints no traceback at all.

The dependency is blocked by a ``sitecustomize`` on ``PYTHONPATH`` that puts a
``sys.meta_path`` finder first: importing a blocked top-level name (or anything under it)
raises ``ModuleNotFoundError`` as a missing package does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import SRC
from unspool._extras import MissingExtra, install_hint, needs_extra

SCRIPT = Path(sys.executable).with_name("unspool")

BLOCKER = """
import os, sys

_BLOCKED = set(os.environ.get("UNSPOOL_TEST_BLOCK", "").split(","))


class _Blocked:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Blocked)
"""


@pytest.fixture(scope="module")
def blocker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("blocker")
    (folder / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    return folder


def run(
    blocker: Path, blocked: str, argv: list[str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with the modules ``blocked`` (comma-separated) not importable."""
    env = {k: v for k, v in os.environ.items() if k != "UNSPOOL_DEBUG"}
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), str(SRC)])
    env["UNSPOOL_TEST_BLOCK"] = blocked
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def python(blocker: Path, blocked: str, code: str) -> subprocess.CompletedProcess[str]:
    return run(blocker, blocked, [sys.executable, "-c", code])


def assert_says(result: subprocess.CompletedProcess[str], feature: str, module: str, extra: str):
    """A library entry point: the error is MissingExtra with the one message, raised
    from the import site with no chained traceback of the missing package's import."""
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last == f"unspool._extras.MissingExtra: {feature} needs {module}: {install_hint(extra)}"
    assert "During handling" not in result.stderr and "direct cause" not in result.stderr


# ------------------------------------------------------------------------ the command line


@pytest.mark.parametrize("missing", ["click", "rich"])
@pytest.mark.parametrize("how", ["script", "python -m"])
def test_the_command_without_the_cli_extra_says_what_to_install(
    blocker: Path, missing: str, how: str
) -> None:
    if how == "script" and not SCRIPT.exists():
        pytest.skip("the unspool script is not installed in this environment")
    argv = [str(SCRIPT)] if how == "script" else [sys.executable, "-m", "unspool"]
    result = run(blocker, missing, [*argv, "demo"])
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"Error: the unspool command needs {missing}: pip install 'unspool[cli]'\n"
    )


@pytest.mark.parametrize(
    ("args", "missing", "message"),
    [
        (["demo", "--web"], "starlette", "unspool demo --web needs starlette"),
        (["demo", "--web"], "uvicorn", "unspool demo --web needs uvicorn"),
        (["parse", "-p", "tags", "--schema", "SCHEMA"], "jsonschema", "--schema needs jsonschema"),
        (["parse", "--schema", "SCHEMA"], "jsonschema", "--schema needs jsonschema"),
    ],
)
def test_an_option_whose_extra_is_missing_is_one_line_exit_2(
    blocker: Path, tmp_path: Path, args: list[str], missing: str, message: str
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"go": {"type": "object"}}), encoding="utf-8")
    argv = [a if a != "SCHEMA" else str(schema) for a in args]
    result = run(blocker, missing, [sys.executable, "-m", "unspool", *argv], cwd=tmp_path)
    extra = "web" if "--web" in args else "actions"
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"Error: {message}: {install_hint(extra)}\n"


def test_the_demo_without_the_actions_extra_runs_and_says_what_it_skips(blocker: Path) -> None:
    result = run(blocker, "pydantic", [sys.executable, "-m", "unspool", "demo", "--speed", "100"])
    assert result.returncode == 0
    note = "note: actions are not checked against schemas: pip install 'unspool[actions]' for that"
    assert result.stderr == f"{note}\n"


# ------------------------------------------------------------------------------ the library


@pytest.mark.parametrize(
    ("code", "blocked", "feature", "module", "extra"),
    [
        ("import unspool.web", "starlette", "unspool.web", "starlette", "web"),
        ("import unspool.web", "anyio", "unspool.web", "anyio", "web"),
        ("from unspool import encode_sse", "starlette", "unspool.web", "starlette", "web"),
        ("from unspool import EventStreamResponse", "starlette", "unspool.web", "starlette", "web"),
        ("import unspool.actions", "pydantic", "unspool.actions", "pydantic", "actions"),
        (
            "from unspool import Dispatcher",
            "jsonschema",
            "unspool.actions",
            "jsonschema",
            "actions",
        ),
        ("from unspool import stream_model", "pydantic", "unspool.actions", "pydantic", "actions"),
        ("from unspool import PostgresLedger", "psycopg", "PostgresLedger", "psycopg", "postgres"),
        (
            "from unspool.actions import PostgresLedger",
            "psycopg_pool",
            "PostgresLedger",
            "psycopg_pool",
            "postgres",
        ),
        (
            "import unspool.actions.ledgers._postgres",
            "psycopg",
            "PostgresLedger",
            "psycopg",
            "postgres",
        ),
        ("from unspool import RedisLedger", "redis", "RedisLedger", "redis", "redis"),
        ("from unspool import SqliteLedger", "pydantic", "unspool.actions", "pydantic", "actions"),
        ("import unspool.web", "ag_ui", "unspool.web", "ag_ui", "web"),
        ("import unspool.web", "pydantic", "unspool.web", "pydantic", "web"),
        (
            "from unspool import TextDelta, encode_sse; list(encode_sse([TextDelta('x')], "
            "format='ag-ui'))",
            "ag_ui",
            "unspool.web",
            "ag_ui",
            "web",
        ),
        ("import unspool.cli", "click", "the unspool command", "click", "cli"),
    ],
)
def test_each_library_entry_point_names_its_extra(
    blocker: Path, code: str, blocked: str, feature: str, module: str, extra: str
) -> None:
    assert_says(python(blocker, blocked, code), feature, module, extra)


def test_import_unspool_and_the_protocols_need_no_extra(blocker: Path) -> None:
    every = "pydantic,jsonschema,click,rich,starlette,uvicorn,anyio,ag_ui,psycopg,redis"
    code = (
        "import unspool\n"
        "p = unspool.TagParser()\n"
        "events = p.feed('<action name=\"go\">{}</action>') + p.finish()\n"
        "print(unspool.format_instructions({'go': {'type': 'object'}}, 'tags').count('go'))"
    )
    result = python(blocker, every, code)
    assert (result.returncode, result.stderr) == (0, "")


# Minimal streams in each provider's shape, read with its SDK blocked: the adapters read
# SDK objects and plain dicts by duck typing, so no SDK (and no extra) is ever needed
# to decode; the SDK is the application's own client.
PROVIDER_STREAMS = {
    "from_openai": [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "hi"}}]},
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        },
    ],
    "from_anthropic": [
        {"type": "message_start", "message": {"content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ],
    "from_gemini": [
        {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finish_reason": "STOP"}]},
    ],
    "from_bedrock": [
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "hi"}}},
        {"messageStop": {"stopReason": "end_turn"}},
    ],
    "from_ollama": [
        {"message": {"role": "assistant", "content": "hi"}, "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ],
}


@pytest.mark.parametrize("adapter", sorted(PROVIDER_STREAMS))
def test_each_provider_adapter_reads_its_stream_without_the_sdk(
    blocker: Path, adapter: str
) -> None:
    sdks = "openai,anthropic,google,boto3,botocore,ollama,httpx"
    items = json.dumps(PROVIDER_STREAMS[adapter])
    code = (
        "import json, unspool\n"
        f"events = list(unspool.{adapter}(json.loads({items!r})))\n"
        "print(json.dumps([e.to_dict() for e in events]))"
    )
    result = python(blocker, sdks, code)
    assert (result.returncode, result.stderr) == (0, "")
    events = json.loads(result.stdout)
    assert [e["text"] for e in events if e["type"] == "text_delta"] == ["hi"]
    assert events[-1]["type"] == "stream_done" and events[-1]["reason"] == "complete"


# ------------------------------------------------------------------------------ the helper


def test_needs_extra_turns_a_missing_module_into_the_message() -> None:
    with pytest.raises(MissingExtra) as info, needs_extra("web", "the thing"):
        raise ModuleNotFoundError("No module named 'starlette.routing'", name="starlette.routing")
    assert str(info.value) == "the thing needs starlette: pip install 'unspool[web]'"
    assert (info.value.name, info.value.extra, info.value.feature) == (
        "starlette",
        "web",
        "the thing",
    )
    assert info.value.__suppress_context__
    assert isinstance(info.value, ModuleNotFoundError)


def test_needs_extra_leaves_other_errors_and_unspool_modules_alone() -> None:
    with pytest.raises(ModuleNotFoundError) as info, needs_extra("web", "x"):
        raise ModuleNotFoundError("No module named 'unspool.nope'", name="unspool.nope")
    assert not isinstance(info.value, MissingExtra)  # a broken install, said as it is
    with pytest.raises(ImportError) as other, needs_extra("web", "x"):
        raise ImportError("cannot import name 'y'", name="starlette")
    assert not isinstance(other.value, MissingExtra)  # installed, but not as expected
    inner = MissingExtra("PostgresLedger", "psycopg", "postgres")
    with pytest.raises(MissingExtra) as passed, needs_extra("actions", "unspool.X"):
        raise inner
    assert passed.value is inner  # the innermost entry point names the extra

"""Reading input as it arrives, and loading --schema."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import click
import pytest

from unspool.actions._registry import ActionRegistry
from unspool.cli._inputs import InputError, read_all, read_chunks
from unspool.cli._records import SchemaCheck
from unspool.cli._schema import (
    action_validator,
    document_validator,
    load_schema_target,
    tool_schemas,
    validators_for,
)


def test_read_chunks_yields_each_write_to_a_fifo_and_holds_a_split_character(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "in"
    os.mkfifo(fifo)
    parts = [b'{"a": "caf\xc3', b'\xa9"', b"}"]
    step = threading.Event()

    def writer() -> None:
        with open(fifo, "wb", buffering=0) as out:
            for part in parts:
                out.write(part)
                assert step.wait(10)
                step.clear()

    thread = threading.Thread(target=writer)
    thread.start()
    got: list[str] = []
    calls: list[int] = []
    for text in read_chunks(str(fifo), lambda: calls.append(len(got))):
        got.append(text)
        step.set()
    thread.join()
    assert got == ['{"a": "caf', 'é"', "}"]
    assert calls == [0, 1, 2, 3]


def test_read_all_drops_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf[1]")
    assert read_all(str(path)) == "[1]"


@pytest.mark.parametrize(
    ("data", "byte"),
    [(b'{"a": "\xff"}', 7), (b"ok\xc3(", 2), (b"ok\xe2\x82", 2)],
)
def test_invalid_utf8_names_the_byte(tmp_path: Path, data: bytes, byte: int) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_all(str(path))
    assert info.value.message == f"input is not valid UTF-8 (byte {byte})"


def test_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_all(str(tmp_path / "missing.txt"))
    assert (
        info.value.message == f"cannot read {tmp_path / 'missing.txt'}: No such file or directory"
    )


SCHEMAS = {"open": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}


@pytest.mark.parametrize(
    "target",
    [
        SCHEMAS,
        [{"type": "function", "function": {"name": "open", "parameters": SCHEMAS["open"]}}],
        [{"type": "function", "name": "open", "parameters": SCHEMAS["open"]}],
        [{"name": "open", "description": "d", "input_schema": SCHEMAS["open"]}],
    ],
)
def test_tool_schemas_from_a_mapping_or_a_tools_list(target: Any) -> None:
    assert tool_schemas(target) == SCHEMAS


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (3, "the schema file must be an object or a list of tools"),
        ([{"type": "function"}], 'not a tool definition: {"type": "function"}'),
        ({"open": 3}, "the schema of action 'open' must be a JSON object"),
    ],
)
def test_bad_tool_schemas(target: Any, message: str) -> None:
    with pytest.raises(click.BadParameter) as info:
        tool_schemas(target)
    assert info.value.message == message


def test_action_validator_builds_a_registry_from_schemas() -> None:
    validator = action_validator(SCHEMAS)
    assert isinstance(validator, ActionRegistry)
    assert validator.validate("open", {"id": "p1"}).ok
    verdict = validator.validate("open", {})
    assert (verdict.ok, verdict.reason) == (False, "schema")
    assert [e["message"] for e in verdict.errors] == ["'id' is a required property"]
    assert validator.validate("close", {}).reason == "unknown_action"


def test_action_validator_keeps_a_registry_as_is() -> None:
    registry = ActionRegistry()
    assert action_validator(registry) is registry


def test_action_validator_rejects_a_bad_schema() -> None:
    with pytest.raises(click.BadParameter) as info:
        action_validator({"open": {"type": 12}})
    assert info.value.message.startswith("invalid JSON Schema for 'open': 12 is not valid")


def test_document_validator_checks_a_whole_value() -> None:
    check = document_validator({"type": "object", "required": ["a"]})
    assert check({"a": 1}) == SchemaCheck(True, ())
    assert check({}) == SchemaCheck(
        False, ({"path": ["a"], "message": "'a' is a required property", "type": "required"},)
    )
    with pytest.raises(click.BadParameter) as info:
        document_validator([1])
    assert info.value.message == "for --protocol json, --schema must be a JSON Schema object"


def test_load_schema_target_from_a_file_and_a_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "schemas.json").write_text(json.dumps(SCHEMAS))
    (tmp_path / "cli_schema_mod.py").write_text("class Box:\n    registry = {'a': {}}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_schema_target("schemas.json") == SCHEMAS
    assert load_schema_target("cli_schema_mod:Box.registry") == {"a": {}}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "nothing",
            "'nothing' is neither a JSON Schema file nor a module path like pkg.mod:registry",
        ),
        (
            "no_such_module_x:reg",
            "cannot import no_such_module_x: No module named 'no_such_module_x'",
        ),
        ("json:nope", "json has no attribute 'nope'"),
        (":x", "':x' is neither a JSON Schema file nor a module path like pkg.mod:registry"),
    ],
)
def test_load_schema_target_errors(spec: str, message: str) -> None:
    with pytest.raises(click.BadParameter) as info:
        load_schema_target(spec)
    assert info.value.message == message


def test_load_schema_target_bad_json_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{nope")
    with pytest.raises(click.BadParameter) as info:
        load_schema_target(str(path))
    assert info.value.message == (
        f"{path} is not a JSON file (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1))"
    )


def test_validators_for_picks_by_protocol_and_names_the_option(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCHEMAS))
    assert validators_for(None, "tags") == (None, None)
    registry, check = validators_for(str(path), "tags")
    assert isinstance(registry, ActionRegistry) and check is None
    registry, check = validators_for(str(path), "json")
    assert registry is None and check is not None
    assert check({"open": 1}) == SchemaCheck(True, ())
    with pytest.raises(click.BadParameter) as info:
        validators_for("nothing", "json")
    assert info.value.param_hint == "'--schema'"

"""The provider table: generate(), the CLI and the replay sniffer all read it, and a new
row is all a new provider needs there (shown with a row added by the test)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from tests.support.replay import acollect, collect, load
from tests.support.replay.expected import CHAT_TOOLS, EXPECTED
from tests.support.replay.wire import Text, chat_chunks
from unspool.actions._tool_formats import TOOL_FORMATS
from unspool.cli._parsers import PROTOCOLS, make_stream_parser
from unspool.cli._replay import RecordedStream, guess_protocol, load_recording
from unspool.cli._sse_protocols import ProviderSseParser
from unspool.events import ActionStarted, Diagnostic, StreamDone, TextDelta
from unspool.sources import from_anthropic, from_openai, generate
from unspool.sources._sse import iter_sse
from unspool.sources.providers import _table as table
from unspool.sources.providers._openai import OpenAIDecoder


def test_rows_are_complete_and_unique() -> None:
    names = [row.name for row in table.PROVIDERS]
    assert len(set(names)) == len(names)
    assert len(set(table.CLI_NAMES)) == len(table.CLI_NAMES)
    assert table.provider(table.FALLBACK).name == table.FALLBACK
    for row in table.PROVIDERS:
        assert row.tool_format in TOOL_FORMATS
        assert (row.cli_name is None) == (row.wire is None)
        assert table.provider(row.name) is row
        if row.cli_name:
            assert table.by_cli_name(row.cli_name) is row
    with pytest.raises(ValueError, match="unknown provider 'nope'"):
        table.provider("nope")
    with pytest.raises(ValueError, match="unknown provider protocol"):
        table.by_cli_name("nope-sse")


def first_item(name: str) -> object:
    return json.loads(next(iter_sse([load(name)])).data)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_is_recognised_by_its_row_only(name: str) -> None:
    item = first_item(name)
    owners = [row.name for row in table.PROVIDERS if row.recognise(item)]
    assert owners == [name.split("_")[0]]


@pytest.mark.parametrize(
    "item", [None, 1.5, "text", [], {}, {"type": 7}, {"choices": None}, object()]
)
def test_recognise_never_raises_and_says_no_to_strangers(item: object) -> None:
    assert table.recognise(item) is None


def test_the_cli_offers_every_raw_body_row() -> None:
    assert set(table.CLI_NAMES) <= set(PROTOCOLS)
    assert {"openai-sse", "anthropic-sse"} <= set(table.CLI_NAMES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_sniffer_names_the_row(name: str) -> None:
    (stream,) = load_recording(load(name).decode(), "sse")
    assert guess_protocol(stream, "sse") == f"{name.split('_')[0]}-sse"


# ------------------------------------------------------------------ a row added by a test


def ndjson_row() -> table.Provider:
    """An OpenAI-compatible server that writes one chunk per line (a made-up provider)."""
    return table.Provider(
        name="lines",
        recognise=lambda item: isinstance(item, dict) and item.get("object") == "lines.chunk",
        decoder=OpenAIDecoder,
        tool_format="openai",
        cli_name="lines-ndjson",
        wire="ndjson",
        unwrap=lambda result: result.get("body") if isinstance(result, dict) else None,
    )


def lines_chunks() -> list[dict[str, object]]:
    return [{**c, "object": "lines.chunk"} for c in chat_chunks([Text(["Hé", "llo"])], "stop")]


@pytest.fixture
def with_row(monkeypatch: pytest.MonkeyPatch) -> Iterator[table.Provider]:
    row = ndjson_row()
    monkeypatch.setattr(table, "PROVIDERS", (row, *table.PROVIDERS))
    yield row


def test_the_sniffer_reads_a_json_lines_body_by_its_row(with_row: table.Provider) -> None:
    body = "".join(json.dumps(c) + "\n" for c in lines_chunks())
    assert guess_protocol(RecordedStream(), "raw") == "interleaved"
    (stream,) = load_recording(body, "raw")
    assert guess_protocol(stream, "raw") == "lines-ndjson"


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_the_cli_reads_a_json_lines_body(with_row: table.Provider, size: int) -> None:
    body = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in lines_chunks())
    body = body[:-1]  # the last line without its newline is read too
    parser = ProviderSseParser(with_row, stream_id="s")
    records = []
    for i in range(0, len(body), size):
        records += parser.feed(body[i : i + size])
    records += parser.finish()
    text = "".join(r.text for r in records if isinstance(r, TextDelta))
    assert text == "Héllo"
    assert records[-1] == StreamDone("complete", 0, 0, 5)


def test_the_cli_reports_a_bad_json_line(with_row: table.Provider) -> None:
    parser = ProviderSseParser(with_row, stream_id="s")
    records = parser.feed('{"object": "lines.chunk", "choi\n') + parser.finish()
    assert isinstance(records[0], Diagnostic) and records[0].kind == "bad_event"
    assert records[-1] == StreamDone("complete", 0, 0, 0)


async def test_generate_unwraps_and_decodes_with_the_new_row(with_row: table.Provider) -> None:
    events = await acollect(generate(lambda: {"body": lines_chunks()}, stream_id="s"))
    assert events == [TextDelta("Hé"), TextDelta("llo"), StreamDone("complete", 0, 0, 5)]


async def test_generate_uses_the_named_row() -> None:
    item = {"type": "message_start", "message": {"content": []}}
    events = await acollect(generate([item], provider="anthropic", stream_id="s"))
    assert events == [StreamDone("complete", 0, 0, 0)]
    with pytest.raises(ValueError, match="unknown provider"):
        await acollect(generate([item], provider="nope"))


def test_make_stream_parser_reads_the_table(with_row: table.Provider) -> None:
    parser = make_stream_parser("anthropic-sse", stream_id="stream")
    body = load("anthropic_tools.sse").decode()
    records = parser.feed(body) + parser.finish()
    assert records[-1] == EXPECTED["anthropic_tools.sse"][-1]


# ------------------------------------------------------------------ fresh stream ids


ID = re.compile(r"s-[0-9a-f]{16}:0")


def started_ids(events: list[object]) -> list[str]:
    return [e.id for e in events if isinstance(e, ActionStarted)]


def test_adapters_default_to_a_fresh_stream_id() -> None:
    chunks = [
        json.loads(m.data) for m in iter_sse([load("openai_chat_tools.sse")]) if m.data[0] == "{"
    ]
    first, second = (
        started_ids(collect(from_openai(chunks))),
        started_ids(collect(from_openai(chunks))),
    )
    assert ID.fullmatch(first[0]) and ID.fullmatch(second[0])
    assert first[0].split(":")[0] != second[0].split(":")[0]
    assert len({i.split(":")[0] for i in first}) == 1  # one id per stream
    events = [json.loads(m.data) for m in iter_sse([load("anthropic_tools.sse")])]
    a, b = (
        started_ids(collect(from_anthropic(events))),
        started_ids(collect(from_anthropic(events))),
    )
    assert ID.fullmatch(a[0]) and a[0] != b[0]
    stable = collect(from_openai(chunks, stream_id="stream"))
    assert stable == CHAT_TOOLS


async def test_generate_defaults_to_a_fresh_stream_id() -> None:
    chunks = [
        json.loads(m.data) for m in iter_sse([load("openai_chat_tools.sse")]) if m.data[0] == "{"
    ]
    first = started_ids(await acollect(generate(chunks)))
    second = started_ids(await acollect(generate(chunks)))
    assert ID.fullmatch(first[0]) and first[0] != second[0]


def test_sse_helpers_default_to_a_fresh_stream_id() -> None:
    from unspool.sources._sse import stream_sse

    body = [b'data: <action name="a">{}</action>\n\n']
    first = started_ids(collect(stream_sse(body, "tags")))
    second = started_ids(collect(stream_sse(body, "tags")))
    assert ID.fullmatch(first[0]) and first[0] != second[0]


async def test_an_error_before_any_provider_event_keeps_its_message() -> None:
    """An error first (an overloaded API) is read by the fallback row, nested or flat."""
    nested = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    flat = {"type": "error", "code": "server_error", "message": "boom"}
    for item, expected in (
        (nested, ("Overloaded", "overloaded_error")),
        (flat, ("boom", "server_error")),
    ):
        events = await acollect(generate([item], stream_id="s"))
        assert (events[0].message, events[0].error_type) == expected  # type: ignore[union-attr]
        assert events[-1] == StreamDone("error", 0, 0, 0)

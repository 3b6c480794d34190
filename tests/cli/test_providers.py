"""The new rows in the CLI: raw Gemini SSE and Ollama NDJSON bodies are parsed and sniffed."""

from __future__ import annotations

import pytest

from tests.support.replay.gemini_wire import call, chunk, gemini_sse, text
from tests.support.replay.ollama_wire import line, ndjson, tool_call
from unspool.cli._parsers import make_stream_parser
from unspool.cli._replay import guess_protocol, load_recording
from unspool.events import ActionComplete, StreamDone, TextDelta

GEMINI = gemini_sse([chunk(text("Hé")), chunk(call("f", {"a": "ö"}), finish="STOP")]).decode()
OLLAMA = ndjson(
    [line("Hé"), line(tool_calls=[tool_call("f", {"a": "ö"})]), line(done_reason="stop")]
).decode()
EXPECTED = [
    TextDelta("Hé"),
    ActionComplete("s:0", 0, "f", {"a": "ö"}),
    StreamDone("complete", 1, 0, 2),
]


@pytest.mark.parametrize(("protocol", "body"), [("gemini-sse", GEMINI), ("ollama-ndjson", OLLAMA)])
@pytest.mark.parametrize("size", [1, 4, 10_000])
def test_parse_a_raw_body(protocol: str, body: str, size: int) -> None:
    parser = make_stream_parser(protocol, stream_id="s")
    records = []
    for i in range(0, len(body), size):
        records += parser.feed(body[i : i + size])
    records += parser.finish()
    kept = [r for r in records if isinstance(r, (TextDelta, ActionComplete, StreamDone))]
    joined = "".join(r.text for r in kept if isinstance(r, TextDelta))
    assert joined == "Hé"
    assert [r for r in kept if not isinstance(r, TextDelta)] == EXPECTED[1:]


def test_the_sniffer_names_the_new_rows() -> None:
    (gemini,) = load_recording(GEMINI, "sse")
    assert guess_protocol(gemini, "sse") == "gemini-sse"
    (ollama,) = load_recording(OLLAMA, "raw")
    assert guess_protocol(ollama, "raw") == "ollama-ndjson"

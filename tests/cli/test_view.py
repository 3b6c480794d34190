"""The live view's model, its rich rendering and the plain-lines view."""

from __future__ import annotations

import io

from rich.console import Console

from unspool.cli._live_view import PlainView, render_block, summary_table
from unspool.cli._records import JsonDone, Record, SchemaCheck
from unspool.cli._view_model import (
    ActionBlock,
    DocumentBlock,
    NoteBlock,
    SessionModel,
    TextBlock,
    session_summary,
    totals_summary,
)
from unspool.core._errors import UNSET
from unspool.core._path_events import Repair, StringDelta, ValueEnd, ValueStart
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Diagnostic,
    HostedToolInput,
    HostedToolResult,
    HostedToolStarted,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
    Usage,
)

TRUNCATED = ({"message": "the stream ended inside this action"},)

EVENTS: list[Record] = [
    ReasoningDelta("plan"),
    TextDelta("Hello "),
    TextDelta("class."),
    ActionStarted("s:0", 0, "spotlight"),
    ActionArgsDelta("s:0", 0, {"id": "im"}),
    ActionComplete("s:0", 0, "spotlight", {"id": "img"}),
    TextDelta("Bye."),
    Diagnostic("trailing", "ignored text after the array", 40, "!"),
    ActionStarted("s:1", 1, "draw"),
    ActionArgsDelta("s:1", 1, {"x": 1}),
    ActionInvalid("s:1", 1, "draw", "truncated", TRUNCATED, '{"x": 1, "y'),
    StreamDone("truncated", 1, 1, 14),
]


def test_session_model_folds_events_into_ordered_blocks() -> None:
    model = SessionModel("Lesson", "interleaved")
    for event in EVENTS[:5]:
        model.apply(event)
    assert model.blocks == [
        TextBlock("reasoning", ["plan"], closed=True),
        TextBlock("text", ["Hello ", "class."], closed=True),
        ActionBlock("s:0", 0, "spotlight", partial={"id": "im"}),
    ]
    assert not model.blocks[2].closed
    for event in EVENTS[5:]:
        model.apply(event)
    assert model.blocks == [
        TextBlock("reasoning", ["plan"], closed=True),
        TextBlock("text", ["Hello ", "class."], closed=True),
        ActionBlock("s:0", 0, "spotlight", {"id": "im"}, "complete", {"id": "img"}),
        TextBlock("text", ["Bye."], closed=True),
        NoteBlock("diagnostic", "trailing: ignored text after the array"),
        ActionBlock(
            "s:1", 1, "draw", {"x": 1}, "invalid", UNSET, "truncated", TRUNCATED, '{"x": 1, "y'
        ),
    ]
    assert model.finished
    assert model.diagnostics == 1
    assert dict(model.invalid_reasons) == {"truncated": 1}
    assert session_summary(model) == (
        "truncated · 2 actions: 1 complete, 1 invalid (truncated) · 14 characters of text · 1 note"
    )


def test_the_summary_counts_the_providers_tokens_over_turns() -> None:
    first, second = SessionModel(), SessionModel()
    first.apply(Usage(1200, 300, 1500, cached_input_tokens=1000, reasoning_tokens=120))
    first.apply(Usage(50, 10, 60))  # a second turn of the same reply: summed
    first.apply(StreamDone("complete", 0, 0, 5))
    second.apply(Usage(None, 7))  # a count the provider does not give
    second.apply(StreamDone("complete", 0, 0, 2))
    assert session_summary(first) == (
        "complete · 0 actions: 0 complete, 0 invalid · 5 characters of text"
        " · 1,250 in / 310 out tokens (1,000 cached, 120 reasoning)"
    )
    assert session_summary(second).endswith(" · ? in / 7 out tokens")
    assert totals_summary([first, second]).endswith(
        " · 1,250 in / 317 out tokens (1,000 cached, 120 reasoning)"
    )


def test_notes_for_results_errors_and_schema_checks() -> None:
    model = SessionModel()
    model.apply(ActionResult("s:0", 0, "add", 3))
    model.apply(StreamError("boom", "ConnectionError"))
    model.apply(SchemaCheck(True))
    model.apply(SchemaCheck(False, ({"message": "a"}, {"message": "b"})))
    assert model.blocks == [
        NoteBlock("result", "add (s:0) returned 3"),
        NoteBlock("error", "stream error (ConnectionError): boom"),
        NoteBlock("valid", "matches the schema"),
        NoteBlock("schema", "a; b"),
    ]
    assert model.stream_errors == 1
    assert (
        session_summary(model)
        == "unfinished · 0 actions: 0 complete, 0 invalid · 0 characters of text · 1 note"
    )


def test_document_block_rebuilds_the_value_from_path_events() -> None:
    model = SessionModel(None, "json")
    events: list[Record] = [
        ValueStart((), "object"),
        ValueStart(("a",), "array"),
        ValueStart(("a", 0), "string"),
        StringDelta(("a", 0), "he"),
        StringDelta(("a", 0), "llo"),
    ]
    for event in events:
        model.apply(event)
    (document,) = model.blocks
    assert isinstance(document, DocumentBlock)
    assert document.value == {"a": ["hello"]}
    more: list[Record] = [
        StringDelta(("a", 0), "!"),
        ValueEnd(("a", 0), "hello!"),
        ValueStart(("a", 1), "number"),
        ValueEnd(("a", 1), 7),
        Repair("comment", 20, "skipped a comment"),
        ValueStart(("b",), "string"),
        StringDelta(("b",), "cut"),
    ]
    for event in more:
        model.apply(event)
    assert document.value == {"a": ["hello!", 7], "b": "cut"}
    assert not document.closed
    model.apply(JsonDone({"a": ["hello!", 7], "b": "cut"}, False))
    assert document.closed and not document.complete
    assert model.blocks[1] == NoteBlock("repair", "repaired comment at 20: skipped a comment")
    assert session_summary(model) == "truncated JSON · 1 note"


def test_totals_summary_over_several_replies() -> None:
    first, second = SessionModel(), SessionModel()
    for event in EVENTS:
        first.apply(event)
    second_events: list[Record] = [
        ActionInvalid("t:0", 0, "a", "malformed_json"),
        ActionInvalid("t:1", 1, "b", "truncated"),
        StreamDone("complete", 2, 2, 5),
    ]
    for event in second_events:
        second.apply(event)
    assert totals_summary([first, second]) == (
        "2 replies · 6 actions: 3 complete, 3 invalid (malformed_json, truncated 2) · "
        "19 characters of text · 1 note"
    )


def screen(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


def rendered(renderable: object, width: int = 60) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(renderable)
    return "".join(line.rstrip() + "\n" for line in console.export_text().splitlines())


def test_action_panels_show_args_and_verdict() -> None:
    streaming = ActionBlock("s:0", 0, "spotlight", partial={"id": "im"})
    assert rendered(render_block(streaming)) == screen(
        "╭─ action spotlight  s:0 ─╮",
        '│ {"id": "im"}            │',
        "╰─ … receiving arguments ─╯",
    )
    done = ActionBlock("s:0", 0, "spotlight", {"id": "im"}, "complete", {"id": "img"})
    assert rendered(render_block(done)) == screen(
        "╭─ action spotlight  s:0 ─╮",
        '│ {"id": "img"}           │',
        "╰──────────── ✓ complete ─╯",
    )
    broken = ActionBlock(
        "s:1",
        1,
        "add",
        {},
        "invalid",
        UNSET,
        "malformed_json",
        ({"message": "Expecting ',' delimiter"},),
        '{"a": 1 "b": 2}',
    )
    assert rendered(render_block(broken)) == (
        "╭─ action add  s:1 ───────────╮\n"
        "│ {}                          │\n"
        "│ Expecting ',' delimiter     │\n"
        '│ raw: {"a": 1 "b": 2}        │\n'
        "╰─ ✗ invalid: malformed_json ─╯\n"
    )


def test_a_provider_run_tool_is_a_note_in_both_views() -> None:
    records: list[Record] = [
        HostedToolStarted("s/hosted:0", "web_search", "srvtoolu_1", "server_tool_use"),
        HostedToolInput("s/hosted:0", "web_search", {"query": "météo"}),
        HostedToolResult("s/hosted:0", "web_search", ["x" * 300], None, "web_search_tool_result"),
        HostedToolResult("s/hosted:1", "fetch", None, "unavailable"),
    ]
    model = SessionModel()
    for record in records:
        model.apply(record)
    clipped = '["' + "x" * 198 + "… (304 characters)"
    assert model.blocks == [
        NoteBlock(
            "hosted", 'web_search (s/hosted:0), run by the provider, input {"query": "météo"}'
        ),
        NoteBlock("hosted", f"web_search (s/hosted:0), run by the provider, returned {clipped}"),
        NoteBlock("hosted", "fetch (s/hosted:1), run by the provider, failed: unavailable"),
    ]
    assert rendered(render_block(model.blocks[0])).startswith("! web_search (s/hosted:0)")
    out = io.StringIO()
    view = PlainView(out)
    view.update(records)
    assert out.getvalue().splitlines()[0] == (
        '[hosted] web_search (s/hosted:0), run by the provider, input {"query": "météo"}'
    )


def test_text_notes_and_documents_render() -> None:
    assert rendered(render_block(TextBlock("text", ["  Hello\n"], closed=True))) == "Hello\n"
    assert (
        rendered(render_block(TextBlock("reasoning", ["hmm "], closed=False))) == "thinking: hmm\n"
    )
    assert rendered(render_block(NoteBlock("diagnostic", "fence: hidden"))) == "! fence: hidden\n"
    document = DocumentBlock()
    document.apply(ValueStart((), "array"))
    assert rendered(render_block(document)) == (
        "╭─ JSON ────────╮\n│ []            │\n╰─ … receiving ─╯\n"
    )


def test_long_args_wrap_inside_their_panel() -> None:
    block = ActionBlock("s:0", 0, "note", partial={"text": "a" * 40 + " and more words"})
    assert rendered(render_block(block), width=34) == (
        "╭─ action note  s:0 ─────────────╮\n"
        '│ {"text":                       │\n'
        '│ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa │\n'
        '│ aaaaaaaaaaa and more words"}   │\n'
        "╰──────── … receiving arguments ─╯\n"
    )


def test_summary_table_has_a_row_per_reply_and_a_total() -> None:
    first, second = SessionModel("One"), SessionModel("Two")
    for event in EVENTS:
        first.apply(event)
    second.apply(StreamDone("complete", 0, 0, 3))
    assert rendered(summary_table([first, second]), width=100) == (
        "Summary\n"
        "┏━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━┓\n"
        "┃ reply ┃ ended     ┃ ✓ complete ┃ ✗ invalid     ┃     text ┃ notes ┃\n"
        "┡━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━┩\n"
        "│ One   │ truncated │          1 │ 1 (truncated) │ 14 chars │     1 │\n"
        "│ Two   │ complete  │          0 │ 0             │  3 chars │     0 │\n"
        "├───────┼───────────┼────────────┼───────────────┼──────────┼───────┤\n"
        "│ all   │ 2 replies │          1 │ 1 (truncated) │ 17 chars │     1 │\n"
        "└───────┴───────────┴────────────┴───────────────┴──────────┴───────┘\n"
    )


def test_plain_view_streams_text_and_writes_a_line_per_verdict() -> None:
    out = io.StringIO()
    view = PlainView(out)
    view.start_session("Lesson", "interleaved")
    view.update(EVENTS[:3])
    assert out.getvalue() == "=== Lesson (interleaved) ===\n[thinking] plan\nHello class."
    view.update(EVENTS[3:])
    view.start_session(None, "tags")
    view.update([TextDelta("ok\n"), StreamDone("complete", 0, 0, 3)])
    view.close()
    assert out.getvalue() == (
        "=== Lesson (interleaved) ===\n"
        "[thinking] plan\n"
        "Hello class.\n"
        "[action spotlight s:0] started\n"
        '[action spotlight s:0] complete {"id": "img"}\n'
        "Bye.\n"
        "[diagnostic] trailing: ignored text after the array\n"
        "[action draw s:1] started\n"
        "[action draw s:1] invalid (truncated): the stream ended inside this action\n"
        "[done] truncated · 2 actions: 1 complete, 1 invalid (truncated) · 14 characters of text"
        " · 1 note\n"
        "=== tags ===\n"
        "ok\n"
        "[done] complete · 0 actions: 0 complete, 0 invalid · 3 characters of text\n"
        "summary: 2 replies · 2 actions: 1 complete, 1 invalid (truncated) · "
        "17 characters of text · 1 note\n"
    )


def test_plain_view_json_document() -> None:
    out = io.StringIO()
    view = PlainView(out)
    view.update([ValueStart((), "object"), Repair("comment", 1, "skipped a comment")])
    view.update([JsonDone({"a": 1}, True)])
    view.close()
    assert out.getvalue() == screen(
        "[repair] comment at 1: skipped a comment",
        "{",
        '  "a": 1',
        "}",
        "[done] complete JSON · 1 note",
    )


def test_an_open_block_shows_only_its_end() -> None:
    words = "".join(f"w{i:05d} " for i in range(1500))  # 10,500 characters
    shown = rendered(render_block(TextBlock("text", [words])), width=7000)
    assert shown == "…" + words[-6000:].rstrip() + "\n"
    args = ActionBlock("s:0", 0, "write", partial={"code": "x" * 7000})
    panel = rendered(render_block(args), width=7000).splitlines()
    assert panel[1] == "│ …" + "x" * 5998 + '"} │'


def test_a_long_finished_document_shows_its_last_lines_and_says_so() -> None:
    document = DocumentBlock(list(range(600)), complete=True, closed=True)
    shown = rendered(render_block(document)).splitlines()
    assert shown[:4] == [
        "JSON",
        "… 102 earlier lines not shown (drop --pretty for all of it)",
        "  101,",
        "  102,",
    ]
    assert shown[-3:] == ["  599", "]", "✓ complete"]
    assert len(shown) == 503


def test_plain_view_writes_any_result_as_json_even_a_huge_int() -> None:
    out = io.StringIO()
    view = PlainView(out)
    view.start_session(None, "tags")
    view.update(
        [ActionResult("s:0", 0, "add", {"sum": 3}), ActionResult("s:1", 1, "big", 10**5000)]
    )
    lines = out.getvalue().splitlines()
    assert lines[1] == '[action add s:0] result {"sum": 3}'
    assert lines[2] == f'[action big s:1] result "{"1" + "0" * 5000}"'

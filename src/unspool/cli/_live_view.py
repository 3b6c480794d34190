"""Showing a stream as it forms: a rich live view on a terminal, plain lines elsewhere.

:class:`RichView` prints each block for good once nothing can change in it
(a paragraph followed by an action, an action that completed or was found
invalid) and keeps only the open tail in a ``rich.live.Live`` area at the
bottom, cut to the terminal's height, so long replies scroll like ordinary
output.  Streamed text, one panel per action whose arguments fill in, its
verdict, diagnostics, and a summary table at the end.

:class:`PlainView` writes the same story as plain text for pipes and logs:
the text as it arrives, one line per action verdict, one summary line.

Every view has the same four methods (:class:`View`), so the commands drive
a live view, plain lines or JSON lines (:class:`JsonLinesView`) alike.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, BinaryIO, Literal, Protocol, TextIO

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.highlighter import JSONHighlighter
from rich.live import Live
from rich.measure import Measurement
from rich.panel import Panel
from rich.rule import Rule
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from unspool.cli._records import JsonDone, JsonLinesWriter, Record
from unspool.cli._view_model import (
    ActionBlock,
    Block,
    DocumentBlock,
    NoteBlock,
    SessionModel,
    SessionStats,
    TextBlock,
    diagnostic_text,
    error_summary,
    hosted_summary,
    invalid_detail,
    session_summary,
    totals_summary,
)
from unspool.core._errors import UNSET
from unspool.core._path_events import Repair, Skipped
from unspool.events import (
    ActionComplete,
    ActionFailed,
    ActionInvalid,
    ActionResult,
    ActionStarted,
    Diagnostic,
    HostedToolInput,
    HostedToolResult,
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
)

__all__ = [
    "JsonLinesView",
    "PlainView",
    "RichView",
    "View",
    "ViewMode",
    "open_view",
    "render_block",
    "summary_table",
]

ViewMode = Literal["jsonl", "live", "plain", "auto"]
"""``auto``: the live view when stdout is a terminal, else plain lines."""

_FRAME_SECONDS = 1 / 30
_RAW_CLIP = 160
_LIVE_CHARS = 6000
_DOC_LINES = 500
_JSON_TITLE = Text("JSON")
_JSON_HIGHLIGHTER = JSONHighlighter()
_RAW_NOT_SHOWN = frozenset({"truncated", "schema", "unknown_action"})
_NOTE_STYLES = {
    "diagnostic": "yellow",
    "repair": "yellow",
    "error": "bold red",
    "failed": "red",
    "schema": "red",
    "result": "green",
    "valid": "green",
    "hosted": "cyan",
}


class View(Protocol):
    """Where a command sends the records of its streams."""

    def start_session(self, title: str | None, protocol: str) -> None:
        """A new reply begins."""
        ...

    def update(self, records: Sequence[Record]) -> None:
        """Records that just arrived."""
        ...

    def idle(self) -> None:
        """The command is about to wait (for input or pacing): show what is pending."""
        ...

    def close(self) -> None:
        """Every stream ended: show the summary."""
        ...


class JsonLinesView:
    """Writes every record as one JSON line, flushed at once."""

    def __init__(self, stream: BinaryIO) -> None:
        self._writer = JsonLinesWriter(stream)

    def start_session(self, title: str | None, protocol: str) -> None:
        """JSON lines carry no session headers: each stream's records follow the last's."""

    def update(self, records: Sequence[Record]) -> None:
        """Write each record as a line."""
        for record in records:
            self._writer.write(record)

    def idle(self) -> None:
        """Nothing is pending: every line was flushed when written."""

    def close(self) -> None:
        """No summary: the last record of each stream is its summary."""


def _clip(text: str, limit: int = _RAW_CLIP) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_head(text: str) -> str:
    """The end of a long text: an open block shows only what can fit on a screen,
    so a redraw costs the same however long the block grows."""
    return text if len(text) <= _LIVE_CHARS else "…" + text[-_LIVE_CHARS:]


def _json_renderable(value: Any, indent: int | None = None, live: bool = False) -> Text:
    """Highlighted JSON: compact for action args (they wrap), indented for documents;
    ``live`` (a block still open) keeps only its end."""
    if value is UNSET:
        return Text("…", style="dim")
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=repr)
    return _JSON_HIGHLIGHTER(Text(_clip_head(text) if live else text, overflow="fold"))


def _document_tail(value: Any) -> tuple[Text | None, Text]:
    """A finished document's last :data:`_DOC_LINES` lines, and a note of the lines
    left out (a screen is not the place for a huge document: JSON lines are)."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    lines = text.split("\n")
    if len(lines) <= _DOC_LINES:
        return None, _JSON_HIGHLIGHTER(Text(text, overflow="fold"))
    hidden = len(lines) - _DOC_LINES
    note = Text(f"… {hidden} earlier lines not shown (drop --pretty for all of it)", style="dim")
    return note, _JSON_HIGHLIGHTER(Text("\n".join(lines[hidden:]), overflow="fold"))


class _StatusPanel:
    """A panel as wide as its body, its title and its status line (a bottom subtitle),
    so a short body never cuts the status off."""

    def __init__(self, body: RenderableType, title: Text, status: Text, style: str) -> None:
        self.body = body
        self.title = title
        self.status = status
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        inner = options.update_width(max(1, options.max_width - 4))
        body = Measurement.get(console, inner, self.body).maximum + 4
        width = max(body, self.title.cell_len + 6, self.status.cell_len + 6)
        yield Panel(
            self.body,
            title=self.title,
            title_align="left",
            subtitle=self.status,
            subtitle_align="right",
            border_style=self.style,
            width=min(options.max_width, width),
        )


def _action_panel(block: ActionBlock) -> _StatusPanel:
    parts: list[RenderableType] = [_json_renderable(block.shown_args, live=not block.closed)]
    if block.status == "invalid":
        if block.errors:
            parts.append(Text(error_summary(block.errors), style="red"))
        if block.raw is not None and block.reason not in _RAW_NOT_SHOWN:
            parts.append(Text(f"raw: {_clip(block.raw)}", style="dim"))
    if block.status == "complete":
        status, style = Text("✓ complete", style="bold green"), "green"
    elif block.status == "invalid":
        status, style = Text(f"✗ invalid: {block.reason}", style="bold red"), "red"
    else:
        status, style = Text("… receiving arguments", style="yellow"), "yellow"
    title = Text.assemble(("action ", "dim"), (block.name or "(no name)", "bold"), f"  {block.id}")
    return _StatusPanel(Group(*parts), title, status, style)


def _document_panel(block: DocumentBlock) -> RenderableType:
    if not block.closed:
        status, style = Text("… receiving", style="yellow"), "yellow"
        return _StatusPanel(_json_renderable(block.value, 2, live=True), _JSON_TITLE, status, style)
    if block.complete:
        status, style = Text("✓ complete", style="bold green"), "green"
    else:
        status, style = Text("✗ truncated", style="bold red"), "red"
    note, body = _document_tail(block.value)
    if note is not None:  # a long document: no box around it
        return Group(_JSON_TITLE, note, body, status)
    return _StatusPanel(body, _JSON_TITLE, status, style)


def render_block(block: Block) -> RenderableType:
    """The rich renderable of one block."""
    if isinstance(block, TextBlock):
        text = block.text.strip() if block.closed else _clip_head(block.text.lstrip())
        if block.kind == "reasoning":
            return Text.assemble(("thinking: ", "dim bold"), (text, "dim italic"))
        return Text(text)
    if isinstance(block, ActionBlock):
        return _action_panel(block)
    if isinstance(block, NoteBlock):
        return Text(f"! {block.text}", style=_NOTE_STYLES[block.level])
    return _document_panel(block)


def summary_table(models: Sequence[SessionModel]) -> Table:
    """The final table: one row per reply (and a total row for several)."""
    table = Table(title="Summary", title_justify="left", title_style="bold", expand=False)
    table.add_column("reply")
    table.add_column("ended")
    table.add_column("✓ complete", justify="right", style="green")
    table.add_column("✗ invalid", style="red")
    table.add_column("text", justify="right")
    table.add_column("notes", justify="right")
    rows = [
        (model.title or f"reply {n}", SessionStats.of(model)) for n, model in enumerate(models, 1)
    ]
    if len(models) > 1:
        rows.append(("all", SessionStats.total(list(models))))
    for number, (title, stats) in enumerate(rows, start=1):
        invalid = sum(stats.invalid.values())
        table.add_row(
            title,
            stats.ended,
            str(stats.complete),
            f"{invalid} ({invalid_detail(stats.invalid)})" if invalid else "0",
            f"{stats.text_chars} chars",
            str(stats.notes),
            end_section=number == len(models),
            style="bold" if number > len(models) else None,
        )
    return table


class _Tail:
    """Renders only the last ``height`` lines of a renderable (the live area's open tail)."""

    def __init__(self, renderable: RenderableType, height: int) -> None:
        self.renderable = renderable
        self.height = max(1, height)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options.update(height=None), pad=False)
        for line in lines[-self.height :]:
            yield from line
            yield Segment.line()


class RichView:
    """The live terminal view (use as a context manager: the live area is torn down on exit)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.sessions: list[SessionModel] = []
        self._printed = 0
        self._ended = False
        self._dirty = False
        self._last_frame = 0.0
        self._frame_interval = _FRAME_SECONDS
        self._live = Live(
            console=console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    def __enter__(self) -> RichView:
        self._live.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._live.stop()
        if exc_type is not None and self.sessions:  # show what arrived before the failure
            self._print(render_block(b) for b in self.sessions[-1].blocks[self._printed :])

    def start_session(self, title: str | None, protocol: str) -> None:
        """Print a rule naming the reply; its blocks follow."""
        self._finish_session()
        self.sessions.append(SessionModel(title, protocol))
        self._printed = 0
        self._ended = False
        heading = f"{title}  ({protocol})" if title else protocol
        gap = [Text("")] if len(self.sessions) > 1 else []
        self._print([*gap, Rule(Text(heading, style="bold cyan"), align="left")])

    def update(self, records: Sequence[Record]) -> None:
        """Fold the records in; print what settled; redraw the live area (at most 30 fps)."""
        if not self.sessions:
            self.start_session(None, "stream")
        model = self.sessions[-1]
        for record in records:
            model.apply(record)
        settled: list[RenderableType] = []
        while self._printed < len(model.blocks) and model.blocks[self._printed].closed:
            settled.append(render_block(model.blocks[self._printed]))
            self._printed += 1
        self._print(settled)
        if model.finished and self._printed == len(model.blocks):
            self._finish_session()
        self._dirty = True
        if time.monotonic() - self._last_frame >= self._frame_interval:
            self._redraw()

    def idle(self) -> None:
        """Redraw now if something changed since the last frame."""
        if self._dirty:
            self._redraw()

    def close(self) -> None:
        """Stop the live area, print what is left and the summary table."""
        self._finish_session()
        self._live.update(Text(""), refresh=True)
        self._live.stop()
        if self.sessions:
            self.console.print(summary_table(self.sessions))

    def _finish_session(self) -> None:
        if not self.sessions or self._ended:
            return
        model = self.sessions[-1]
        rest = model.blocks[self._printed :]
        self._printed = len(model.blocks)
        self._ended = True
        ending = [Text(f"■ {session_summary(model)}", style="dim")] if model.finished else []
        self._print([*(render_block(b) for b in rest), *ending])

    def _print(self, renderables: Iterable[RenderableType]) -> None:
        for renderable in renderables:
            self._live.console.print(renderable)

    def _redraw(self) -> None:
        """Draw the open tail.  A frame that took long spaces the next ones out (ten
        times its cost), so drawing never takes more than a tenth of the run."""
        started = time.monotonic()
        model = self.sessions[-1] if self.sessions else None
        blocks = model.blocks[self._printed :] if model is not None else []
        height = self.console.size.height - 1
        self._live.update(_Tail(Group(*(render_block(b) for b in blocks)), height), refresh=True)
        self._dirty = False
        self._last_frame = time.monotonic()
        self._frame_interval = max(_FRAME_SECONDS, 10 * (self._last_frame - started))


class PlainView:
    """Plain text for pipes: the text as it arrives, a line per action verdict and note."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.sessions: list[SessionModel] = []
        self._line_start = True
        self._reasoning = False

    def start_session(self, title: str | None, protocol: str) -> None:
        """A header line naming the reply."""
        self.sessions.append(SessionModel(title, protocol))
        self._line(f"=== {title} ({protocol}) ===" if title else f"=== {protocol} ===")

    def update(self, records: Sequence[Record]) -> None:
        """Write each record's line (text streams as is) and flush."""
        if not self.sessions:
            self.sessions.append(SessionModel(None, "stream"))
        model = self.sessions[-1]
        for record in records:
            model.apply(record)
            self._write_record(record, model)
        self.out.flush()

    def idle(self) -> None:
        """Nothing is pending: every update was flushed."""

    def close(self) -> None:
        """One summary line over every reply (when there was more than one)."""
        if len(self.sessions) > 1:
            self._line(f"summary: {totals_summary(self.sessions)}")
        self.out.flush()

    def _write_record(self, record: Record, model: SessionModel) -> None:
        if isinstance(record, (TextDelta, ReasoningDelta)):
            self._text(record.text, isinstance(record, ReasoningDelta))
        elif isinstance(record, ActionStarted):
            self._line(f"[action {record.name} {record.id}] started")
        elif isinstance(record, ActionComplete):
            args = json.dumps(record.to_dict()["args"], ensure_ascii=False)
            self._line(f"[action {record.name} {record.id}] complete {args}")
        elif isinstance(record, ActionInvalid):
            why = error_summary(record.errors)
            self._line(f"[action {record.name} {record.id}] invalid ({record.reason}): {why}")
        elif isinstance(record, ActionResult):
            result = json.dumps(record.to_dict()["result"], ensure_ascii=False)
            self._line(f"[action {record.name} {record.id}] result {result}")
        elif isinstance(record, ActionFailed):
            self._line(f"[action {record.name} {record.id}] failed: {record.error}")
        elif isinstance(record, (HostedToolInput, HostedToolResult)):
            self._line(f"[hosted] {hosted_summary(record)}")
        elif isinstance(record, Diagnostic):
            self._line(f"[diagnostic] {diagnostic_text(record)}")
        elif isinstance(record, Repair):
            self._line(f"[repair] {record.kind} at {record.pos}: {record.message}")
        elif isinstance(record, Skipped):
            self._line(f"[skipped] {record.kind} at {record.pos}: {record.text!r}")
        elif isinstance(record, StreamError):
            self._line(f"[error] {record.error_type}: {record.message}")
        elif isinstance(record, JsonDone):
            if record.value is not UNSET:
                self._line(json.dumps(record.value, ensure_ascii=False, indent=2, default=repr))
            self._line(f"[done] {session_summary(model)}")
        elif isinstance(record, StreamDone):
            self._line(f"[done] {session_summary(model)}")

    def _text(self, text: str, reasoning: bool) -> None:
        if reasoning != self._reasoning:
            self._end_line()
            if reasoning:
                self.out.write("[thinking] ")
                self._line_start = False
            self._reasoning = reasoning
        self.out.write(text)
        if text:
            self._line_start = text.endswith("\n")

    def _end_line(self) -> None:
        if not self._line_start:
            self.out.write("\n")
            self._line_start = True

    def _line(self, line: str) -> None:
        self._end_line()
        self._reasoning = False
        self.out.write(line + "\n")


@contextmanager
def open_view(mode: ViewMode) -> Iterator[View]:
    """The view for ``mode`` on stdout; a live view is torn down when the block exits."""
    if mode == "jsonl":
        yield JsonLinesView(sys.stdout.buffer)
        return
    if mode == "auto":
        mode = "live" if sys.stdout.isatty() else "plain"
    if mode == "plain":
        yield PlainView(sys.stdout)
        return
    with RichView(Console(highlight=False)) as view:
        yield view

"""What the live view shows, folded from the records of a stream (no rendering here).

A :class:`SessionModel` keeps one reply as an ordered list of blocks: text and
reasoning as it streams, one :class:`ActionBlock` per action (its partial args,
then its verdict), notes for diagnostics and errors, and for ``--protocol json``
a :class:`DocumentBlock` that rebuilds the live value from the path events.
A block is *closed* once nothing more can change in it, so a renderer can print
it for good and keep only the open tail live.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from unspool.cli._records import JsonDone, Record, SchemaCheck
from unspool.core._errors import UNSET
from unspool.core._path_events import Path, Repair, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.events import (
    ActionArgsDelta,
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
    Usage,
)

__all__ = [
    "ActionBlock",
    "Block",
    "DocumentBlock",
    "NoteBlock",
    "SessionModel",
    "SessionStats",
    "TextBlock",
    "diagnostic_text",
    "error_summary",
    "hosted_summary",
    "invalid_detail",
    "session_summary",
    "totals_summary",
    "usage_text",
]

ActionStatus = Literal["streaming", "complete", "invalid"]
NoteLevel = Literal[
    "diagnostic", "repair", "error", "result", "failed", "valid", "schema", "hosted"
]


@dataclass(slots=True)
class TextBlock:
    """A run of text (or reasoning) between two other blocks."""

    kind: Literal["text", "reasoning"]
    parts: list[str] = field(default_factory=list)
    closed: bool = False

    @property
    def text(self) -> str:
        """The text so far."""
        return "".join(self.parts)


@dataclass(slots=True)
class ActionBlock:
    """One action: its partial args while they form, then its verdict."""

    id: str
    index: int
    name: str | None
    partial: Any = UNSET
    status: ActionStatus = "streaming"
    args: Any = UNSET
    reason: str | None = None
    errors: tuple[Mapping[str, Any], ...] = ()
    raw: str | None = None

    @property
    def closed(self) -> bool:
        """True once the action completed or was found invalid."""
        return self.status != "streaming"

    @property
    def shown_args(self) -> Any:
        """The args to show: the final ones when known, else the partial ones."""
        return self.args if self.args is not UNSET else self.partial


@dataclass(slots=True)
class NoteBlock:
    """A one-line note: a diagnostic, a repair, an error, a dispatcher's result."""

    level: NoteLevel
    text: str
    closed: bool = True


@dataclass(slots=True)
class DocumentBlock:
    """The live JSON value of a ``--protocol json`` stream, rebuilt from path events.

    Strings still growing keep their pieces in a list and are joined only when
    :attr:`value` is read, so a long string streamed in tiny deltas stays linear.
    """

    root: Any = UNSET
    complete: bool = False
    closed: bool = False
    _growing: dict[Path, list[str]] = field(default_factory=dict)

    @property
    def value(self) -> Any:
        """The value so far, growing strings included."""
        for path, parts in self._growing.items():
            self._set(path, "".join(parts))
        return self.root

    def apply(self, record: ValueStart | StringDelta | ValueEnd) -> None:
        """Grow the value by one path event."""
        if isinstance(record, ValueStart):
            if record.kind == "object":
                self._set(record.path, {})
            elif record.kind == "array":
                self._set(record.path, [])
            elif record.kind == "string":
                self._set(record.path, "")
                self._growing[record.path] = []
        elif isinstance(record, StringDelta):
            self._growing.setdefault(record.path, []).append(record.text)
        else:
            self._growing.pop(record.path, None)
            self._set(record.path, record.value)

    def _set(self, path: Path, value: Any) -> None:
        if not path:
            self.root = value
            return
        parent = self.root
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        if isinstance(parent, list) and isinstance(key, int) and key == len(parent):
            parent.append(value)
        else:
            parent[key] = value


Block = TextBlock | ActionBlock | NoteBlock | DocumentBlock


HOSTED_CLIP = 200
"""Characters of a provider-run tool's input or output shown in a note."""


def hosted_summary(record: HostedToolInput | HostedToolResult) -> str:
    """One line on a tool the provider ran: its input, or how it ended."""
    who = f"{record.name} ({record.id}), run by the provider"
    if isinstance(record, HostedToolInput):
        value, verb = record.to_dict()["input"], "input"
    elif record.error is not None:
        return f"{who}, failed: {record.error}"
    else:
        value, verb = record.to_dict()["output"], "returned"
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > HOSTED_CLIP:
        text = text[:HOSTED_CLIP] + f"… ({len(text)} characters)"
    return f"{who}, {verb} {text}"


def error_summary(errors: tuple[Mapping[str, Any], ...]) -> str:
    """The messages of an event's structured errors, on one line."""
    return "; ".join(str(error.get("message", error)) for error in errors)


CUT_OFF_NOTE = "cut off: the reply ended before it was complete; an action it cut off is not run"
"""How the views word the lenient reader's ``truncated`` repair (the demo page too)."""


def diagnostic_text(diagnostic: Diagnostic) -> str:
    """A diagnostic as the views show it: ``kind: message``. The lenient reader reports the
    end of a cut-off reply as a ``truncated`` repair (it closed what was open, to read
    what arrived): that reads as the cut it is, never as a repaired action."""
    if diagnostic.kind == "repair" and diagnostic.message.startswith("truncated:"):
        return CUT_OFF_NOTE
    return f"{diagnostic.kind}: {diagnostic.message}"


class SessionModel:
    """The blocks of one reply, updated record by record."""

    def __init__(self, title: str | None = None, protocol: str | None = None) -> None:
        self.title = title
        self.protocol = protocol
        self.blocks: list[Block] = []
        self.done: StreamDone | None = None
        self.document_done: JsonDone | None = None
        self.invalid_reasons: Counter[str] = Counter()
        self.diagnostics = 0
        self.repairs = 0
        self.stream_errors = 0
        self.usage: Usage | None = None  # the provider's token counts (summed over turns)
        self._actions: dict[str, ActionBlock] = {}

    @property
    def finished(self) -> bool:
        """True once the stream's closing record arrived."""
        return self.done is not None or self.document_done is not None

    def apply(self, record: Record) -> None:
        """Fold one record into the blocks."""
        if isinstance(record, (TextDelta, ReasoningDelta)):
            self._text("text" if isinstance(record, TextDelta) else "reasoning", record.text)
        elif isinstance(record, ActionStarted):
            self._action(record.id, record.index, record.name)
        elif isinstance(record, ActionArgsDelta):
            self._action(record.id, record.index, None).partial = record.partial
        elif isinstance(record, ActionComplete):
            block = self._action(record.id, record.index, record.name)
            block.status, block.args = "complete", record.args
        elif isinstance(record, ActionInvalid):
            block = self._action(record.id, record.index, record.name)
            block.status, block.reason = "invalid", record.reason
            block.errors, block.raw = record.errors, record.raw
            self.invalid_reasons[record.reason] += 1
        elif isinstance(record, (ValueStart, StringDelta, ValueEnd)):
            self._document().apply(record)
        else:
            self._apply_other(record)

    def _apply_other(self, record: Record) -> None:
        if isinstance(record, ActionResult):
            result = json.dumps(record.to_dict()["result"], ensure_ascii=False)
            self._note("result", f"{record.name} ({record.id}) returned {result}")
        elif isinstance(record, ActionFailed):
            self._note("failed", f"{record.name} ({record.id}) failed: {record.error}")
        elif isinstance(record, (HostedToolInput, HostedToolResult)):
            self._note("hosted", hosted_summary(record))
        elif isinstance(record, Diagnostic):
            self.diagnostics += 1
            self._note("diagnostic", diagnostic_text(record))
        elif isinstance(record, Repair):
            self.repairs += 1
            self._note("repair", f"repaired {record.kind} at {record.pos}: {record.message}")
        elif isinstance(record, Skipped):
            self.diagnostics += 1
            self._note("diagnostic", f"skipped {record.kind} at {record.pos}: {record.text!r}")
        elif isinstance(record, Usage):
            self.usage = record if self.usage is None else self.usage + record
        elif isinstance(record, StreamError):
            self.stream_errors += 1
            self._note("error", f"stream error ({record.error_type}): {record.message}")
        elif isinstance(record, SchemaCheck):
            text = "matches the schema" if record.ok else error_summary(record.errors)
            self._note("valid" if record.ok else "schema", text)
        elif isinstance(record, StreamDone):
            self.done = record
            self._close_all()
        elif isinstance(record, JsonDone):
            self.document_done = record
            self._document().complete = record.complete
            self._close_all()

    def _close_last(self) -> None:
        if self.blocks and isinstance(self.blocks[-1], TextBlock):
            self.blocks[-1].closed = True

    def _close_all(self) -> None:
        for block in self.blocks:
            if isinstance(block, (TextBlock, DocumentBlock)):
                block.closed = True

    def _text(self, kind: Literal["text", "reasoning"], text: str) -> None:
        last = self.blocks[-1] if self.blocks else None
        if not (isinstance(last, TextBlock) and last.kind == kind and not last.closed):
            self._close_last()
            last = TextBlock(kind)
            self.blocks.append(last)
        last.parts.append(text)

    def _action(self, action_id: str, index: int, name: str | None) -> ActionBlock:
        block = self._actions.get(action_id)
        if block is None:
            self._close_last()
            block = ActionBlock(action_id, index, name)
            self._actions[action_id] = block
            self.blocks.append(block)
        elif name is not None:
            block.name = name
        return block

    def _note(self, level: NoteLevel, text: str) -> None:
        self._close_last()
        self.blocks.append(NoteBlock(level, text))

    def _document(self) -> DocumentBlock:
        for block in self.blocks:
            if isinstance(block, DocumentBlock):
                return block
        document = DocumentBlock()
        self.blocks.append(document)
        return document


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {plural or word + 's'}"


def invalid_detail(reasons: Counter[str]) -> str:
    """``"malformed_json, truncated 2"``: the reasons actions were invalid, with counts."""
    return ", ".join(f"{reason} {n}" if n > 1 else reason for reason, n in sorted(reasons.items()))


@dataclass(frozen=True, slots=True)
class SessionStats:
    """The numbers of a reply's summary."""

    ended: str
    complete: int
    invalid: Counter[str]
    text_chars: int
    notes: int
    usage: Usage | None = None

    @staticmethod
    def of(model: SessionModel) -> SessionStats:
        """The stats of one reply."""
        notes = model.diagnostics + model.repairs + model.stream_errors
        if model.document_done is not None:
            ended = "complete" if model.document_done.complete else "truncated"
            return SessionStats(f"{ended} JSON", 0, Counter(), 0, notes)
        if model.done is None:
            return SessionStats("unfinished", 0, model.invalid_reasons, 0, notes, model.usage)
        done = model.done
        return SessionStats(
            done.reason,
            done.actions_complete,
            model.invalid_reasons,
            done.text_chars,
            notes,
            model.usage,
        )

    @staticmethod
    def total(models: list[SessionModel]) -> SessionStats:
        """The stats of every reply together (``ended`` counts the replies)."""
        parts = [SessionStats.of(model) for model in models]
        invalid: Counter[str] = Counter()
        usage: Usage | None = None
        for part in parts:
            invalid.update(part.invalid)
            if part.usage is not None:
                usage = part.usage if usage is None else usage + part.usage
        return SessionStats(
            _plural(len(parts), "reply", "replies"),
            sum(p.complete for p in parts),
            invalid,
            sum(p.text_chars for p in parts),
            sum(p.notes for p in parts),
            usage,
        )

    def line(self) -> str:
        """The stats on one line."""
        invalid = sum(self.invalid.values())
        parts = [self.ended]
        if self.complete or invalid or not self.ended.endswith("JSON"):
            detail = f" ({invalid_detail(self.invalid)})" if invalid else ""
            actions = _plural(self.complete + invalid, "action")
            parts.append(f"{actions}: {self.complete} complete, {invalid} invalid{detail}")
            parts.append(f"{self.text_chars} characters of text")
        if self.usage is not None:
            parts.append(usage_text(self.usage))
        if self.notes:
            parts.append(_plural(self.notes, "note"))
        return " · ".join(parts)


def usage_text(usage: Usage) -> str:
    """The provider's token counts in a few words: ``25 in / 42 out tokens`` (with the
    cached input and the reasoning part when it gives them)."""

    def count(n: int | None) -> str:
        return "?" if n is None else f"{n:,}"

    text = f"{count(usage.input_tokens)} in / {count(usage.output_tokens)} out tokens"
    extra = []
    if usage.cached_input_tokens:
        extra.append(f"{usage.cached_input_tokens:,} cached")
    if usage.reasoning_tokens:
        extra.append(f"{usage.reasoning_tokens:,} reasoning")
    return f"{text} ({', '.join(extra)})" if extra else text


def session_summary(model: SessionModel) -> str:
    """One line on how a reply ended and what it held."""
    return SessionStats.of(model).line()


def totals_summary(models: list[SessionModel]) -> str:
    """One line over every reply of a run."""
    return SessionStats.total(models).line()

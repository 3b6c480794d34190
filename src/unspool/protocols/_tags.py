"""Actions tagged inside prose: ``Sure <action name="open">{"id": 1}</action> done.``

:class:`TagParser` turns a stream of prose with embedded action tags into
:mod:`unspool.events`, in one pass, while it arrives:

* Text reaches the caller at once.  Only the longest suffix that could still
  become a delimiter is held back (:attr:`TagParser.held`), and it is released
  the moment it cannot: ``a < b``, ``<br>`` and ``<actor`` never wait.
* An action is ``ActionStarted`` when its open tag is complete, streams
  ``ActionArgsDelta`` (the live partial args from the core parser and the raw
  body text) and ends with exactly one ``ActionComplete`` or ``ActionInvalid``,
  only at its close delimiter.  The body is read by the core JSON parser, so a
  close delimiter inside a JSON string is data.
* Tags inside markdown code fences and inline code spans are text; an optional
  reasoning channel turns ``<think>…</think>`` into ``ReasoningDelta``.
* At EOF a held partial tag is text, an open action is
  ``ActionInvalid(reason="truncated")``; ``StreamDone`` is always last.

Policies worth knowing: an unclosed fence keeps tags inert until EOF; an inline
code span ends at the end of its line; a body that is JSON followed by other
text, or that holds another open tag (``nested``), is invalid and ends at the
first close delimiter; a complete open tag without a name is
``ActionInvalid(reason="bad_open_tag")`` (with ``strict_tags=True`` any tag that
is not exactly ``<action name="…">`` is text instead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from unspool.core._errors import MalformedJSON
from unspool.events import (
    ActionComplete,
    ActionInvalid,
    Diagnostic,
    Event,
    FinishReason,
    TextDelta,
)
from unspool.protocols import _c_fastpaths as c_fastpaths
from unspool.protocols._args_snapshot import Snapshots, new_snapshots
from unspool.protocols._c_fastpaths import BodyPath, HeldPath, ProsePath, TagPath, TextPath
from unspool.protocols._emitter import ActionEmitter, ActionValidator, done_reason
from unspool.protocols._fastevents import args_delta, new, reasoning_delta, set_text, text_delta
from unspool.protocols._holdback import Delimiters
from unspool.protocols._model_auto import AutoTagParser
from unspool.protocols._model_formats import MODEL_FORMATS, ModelFormat
from unspool.protocols._model_tags import ModelTagParser
from unspool.protocols._tag_body import BodyScanner
from unspool.protocols._tag_formats import (
    ACTION_TAG,
    FORMATS,
    OpenTag,
    TagFormat,
    parse_open_tag,
    resolve_format,
)
from unspool.protocols._tag_markdown import CodeTracker
from unspool.protocols._utf8 import Segment, Utf8Decoder

__all__ = ["ActionSpan", "TagParser", "parse_tags"]

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
_TAG_SEPARATORS = (" ", "\t", "\r", "\n", ">", "/")
_CODE_KEYS = ("prose", "inline", "info", "fence")
_TEXT, _TAG, _BODY = 0, 1, 2
_TRUNCATED = "the stream ended inside this action"


class ActionSpan(NamedTuple):
    """Where an action's markup was: its ``id``, stream offsets ``[start, end)``
    (decoded characters) and the raw ``text`` (open tag, body, close delimiter)."""

    id: str
    start: int
    end: int
    text: str


class _Action:
    """The action being read: where its markup began and what its open tag said."""

    __slots__ = (
        "action_id",
        "attributes",
        "error",
        "event_id",
        "index",
        "name",
        "open_text",
        "snaps",
        "start",
    )

    def __init__(self, start: int, open_text: str, tag: OpenTag) -> None:
        self.start = start
        self.open_text = open_text
        self.name = tag.name
        self.attributes = tag.attributes
        self.action_id = tag.action_id
        self.error = tag.error
        self.index: int | None = None
        self.event_id = ""
        self.snaps: Snapshots = new_snapshots()


class TagParser:
    """Streaming parser of actions tagged inside prose (see the module docstring).

    Options: ``stream_id`` (action ids are ``"{stream_id}:{index}"``; fresh when not given),
    ``registry`` (validates args by name: ``schema``/``unknown_action``),
    ``lenient`` (the core's lenient JSON for bodies), ``format`` (a
    :class:`~unspool.protocols._tag_formats.TagFormat` or ``"action"`` /
    ``"tool_call"``), ``strict_tags`` (exact open-tag syntax, case-sensitive
    delimiters), ``reasoning`` (``<think>…</think>`` becomes ``ReasoningDelta``),
    ``run_actions_in_reasoning`` (tags inside reasoning are actions, not
    reasoning text), ``max_tag_chars`` (an open tag longer than this is text).

    ``format`` may also name an open-weights model family of
    :data:`~unspool.protocols._model_formats.MODEL_FORMATS` (``"qwen3_coder"``,
    ``"deepseek"``, ``"harmony"``, …; ``"auto"`` recognises it from the reply's first
    markup) or be a
    :class:`~unspool.protocols._model_formats.ModelFormat`: the reply is then read by
    :class:`~unspool.protocols._model_tags.ModelTagParser` (``stream_id``,
    ``registry`` and ``starts_in_reasoning`` apply; the other options are this
    class's own), exposed as :attr:`model`.
    """

    model: ModelTagParser | AutoTagParser | None = None
    """The open-weights reader when ``format`` names a model family (or is ``"auto"``),
    else None."""

    def __init__(
        self,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
        format: TagFormat | ModelFormat | str = ACTION_TAG,
        strict_tags: bool = False,
        reasoning: bool = False,
        run_actions_in_reasoning: bool = False,
        max_tag_chars: int = 1024,
        starts_in_reasoning: bool = False,
    ) -> None:
        if format == "auto":
            self.model = AutoTagParser(
                stream_id=stream_id, registry=registry, starts_in_reasoning=starts_in_reasoning
            )
            format = ACTION_TAG
        elif isinstance(format, ModelFormat) or (
            isinstance(format, str) and format not in FORMATS and format in MODEL_FORMATS
        ):
            self.model = ModelTagParser(
                format,
                stream_id=stream_id,
                registry=registry,
                starts_in_reasoning=starts_in_reasoning,
            )
            format = ACTION_TAG  # the machinery below is built, and left unused
        fmt = resolve_format(format)
        if max_tag_chars < 1:
            raise ValueError("max_tag_chars must be at least 1")
        self.format = fmt
        self.emitter = ActionEmitter(stream_id, registry)
        self.spans: list[ActionSpan] = []
        """Every action's markup, in order: text deltas and these rebuild the input."""
        self._text_chars = 0
        self._lenient = lenient
        self._strict = strict_tags
        self._max_tag = max_tag_chars
        fold = not strict_tags
        if fmt.attributes:
            seps = (" ",) if strict_tags else _TAG_SEPARATORS
            opens = [fmt.open + sep for sep in seps]
        else:
            opens = [fmt.open]
        self._lexers: dict[tuple[bool, str], Delimiters] = {}
        self._plain: dict[str, Delimiters] = {}
        for key in _CODE_KEYS:
            signals = CodeTracker.signals(key)
            self._plain[key] = Delimiters({}, signals=signals)
            for in_reasoning in (False, True) if reasoning else (False,):
                groups: dict[str, list[str]] = {}
                if key == "prose" and (run_actions_in_reasoning or not in_reasoning):
                    groups["open"] = opens
                if key == "prose" and reasoning and not in_reasoning:
                    groups["think"] = [THINK_OPEN]
                if in_reasoning:
                    groups["unthink"] = [THINK_CLOSE]
                self._lexers[in_reasoning, key] = Delimiters(groups, signals=signals, fold=fold)
        self._close = Delimiters({"close": [fmt.close]}, fold=fold)
        self._close_starts = self._close.starts
        self._nested = Delimiters({"open": opens}, fold=fold)
        self._utf8 = Utf8Decoder()
        self._code = CodeTracker()
        self._mode = _TEXT
        self._in_reasoning = False
        self._text: list[str] = []
        self._held = ""
        self._replay = ""  # text an action's end gave back, read again at once (see _run)
        self._pos = 0
        self._finished = False
        # the open tag being read
        self._tag: list[str] = []
        self._tag_len = 0
        self._tag_start = 0
        self._quote = ""
        self._after_eq = False
        # the action being read
        self._action: _Action | None = None
        self._body: BodyScanner | None = None
        # the fast paths of the next feed (see _settle)
        self._fast_text: Callable[[str], object] | None = None
        self._fast_body: BodyScanner | None = None
        self._c_run: TextPath | None = None  # the fast path in C, when it runs
        self._c_back: Callable[[Any], None] | None = None  # reads its state back
        self._use_c = c_fastpaths.enabled()  # decided once: the machine selected now
        self._lag = 0  # characters the fast paths took, not yet in _pos (see _catch_up)
        self._settle()
        if self.model is not None:
            self.emitter = self.model.emitter
            self._c_run = None  # no fast path: feed() hands every chunk to the model reader
            self._fast_text = self._fast_body = None

    # ------------------------------------------------------------------ public API

    @property
    def held(self) -> str:
        """Text held back because it could still become a delimiter: a proper prefix
        of an open tag, of ``<think>``/``</think>`` or of the close delimiter."""
        if self.model is not None:
            return self.model.held
        run = self._c_run
        if run is not None and self._c_back in (self._back_held, self._back_text):
            return run.held  # type: ignore[attr-defined, no-any-return]
        if self._mode == _TEXT:
            return self._held
        if self._mode == _TAG:
            return "".join(self._tag)
        assert self._body is not None
        return self._body.held

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` was called."""
        if self.model is not None:
            return self.model.finished
        return self._finished

    @property
    def text_chars(self) -> int:
        """Characters of text shown so far (``StreamDone.text_chars`` at the end)."""
        if self.model is not None:
            return self.model.text_chars
        run = self._c_run
        return self._text_chars + (0 if run is None else run.text_chars)

    def feed(self, chunk: str | bytes) -> list[Event]:
        """Consume ``chunk`` (text, or UTF-8 bytes split anywhere); the events it settles."""
        run = self._c_run
        if run is not None:
            got: list[Event] | None = run(chunk)  # a fast path below, in C
            if got is not None:
                return got
        elif type(chunk) is str:
            # the fast paths (see _settle; none once finished): nothing held, and no
            # character in the chunk at which a delimiter could begin
            starts = self._fast_text
            if starts is not None and starts(chunk) is None:
                n = len(chunk)
                self._lag += n
                if not n:
                    return []
                if self._in_reasoning:
                    return [reasoning_delta(chunk)]
                self._text_chars += n
                event = new(TextDelta)  # text_delta(chunk), inlined
                set_text(event, chunk)
                return [event]
            body = self._fast_body
            if body is not None and self._close_starts(chunk) is None:
                self._lag += len(chunk)
                delta = body.feed_args(chunk)  # no closer in the chunk: the body goes on
                action = self._action
                if not delta or action is None or action.index is None:
                    return []
                partial = action.snaps.take(body.partial, len(delta), False, body.grew)
                body.grew = False
                return [args_delta(action.event_id, action.index, partial, delta)]
        if self.model is not None:
            return self.model.feed(chunk)
        if self._finished:
            raise RuntimeError("feed() after finish()")
        self._catch_up()
        out: list[Event] = []
        if type(chunk) is str and self._utf8.text_only:
            self._utf8.chars += len(chunk)  # what feed() would do: no bytes, no segments
            self._run(chunk, out)
        else:
            self._decoded(self._utf8.feed(chunk), out)
        self._flush_text(out)
        self._flush_args(out)
        self._settle()
        return out

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End the stream: release held text, close an open action as ``truncated``,
        and end with ``StreamDone``.  Idempotent (a second call returns ``[]``)."""
        if self.model is not None:
            return self.model.finish(reason)
        if self._finished:
            return []
        self._catch_up()
        self._fast_text = self._fast_body = None
        out: list[Event] = []
        self._decoded(self._utf8.finish(), out)
        self._finished = True
        truncated = False
        if self._mode == _TEXT:
            self._text.append(self._held)
            self._held = ""
        elif self._mode == _TAG:
            self._text.append("".join(self._tag))
            self._tag = []
        else:
            truncated = True
            self._truncate(out)
        self._mode = _TEXT
        self._flush_text(out)
        out.append(self.emitter.done(done_reason(reason, truncated), self._text_chars))
        return out

    # ------------------------------------------------------------------ driving

    def _catch_up(self) -> None:
        """Count the characters the fast paths took (``_lag``) as read and decoded."""
        run = self._c_run
        if run is not None:  # the C path's counts and state, and it is left
            self._c_run = None
            self._lag += run.lag
            self._text_chars += run.text_chars
            back = self._c_back
            if back is not None:
                self._c_back = None
                back(run)
        lag = self._lag
        if lag:
            self._lag = 0
            self._pos += lag
            self._utf8.chars += lag

    def _back_body(self, run: BodyPath) -> None:
        """What :data:`~c_fastpaths.BodyRun` took, into the body."""
        if run.lag:
            assert self._body is not None
            self._body.took_args(run.lag, run.partial, run.grew)

    def _back_held(self, run: HeldPath) -> None:
        """The closer's prefix :data:`~c_fastpaths.HeldRun` holds now, in a body."""
        assert self._body is not None
        self._body.held = run.held

    def _back_text(self, run: ProsePath) -> None:
        """The text :data:`~c_fastpaths.TextRun` holds now, and the line it is on."""
        self._held = run.held
        code = self._code
        if code.prose_lines:  # as when the run was made: it followed the lines
            code.set_lines(bool(run.line_start), run.indent)

    def _back_tag(self, run: TagPath) -> None:
        """Where :data:`~c_fastpaths.TagRun` left the open tag (its text is in ``_tag``)."""
        self._tag_len = run.tag_len
        self._quote = run.quote
        self._after_eq = run.after_eq

    def _settle(self) -> None:
        """After a feed, which fast path the next ``str`` chunk may take: in prose with
        nothing held and no markdown character pending, a chunk without a character
        at which a delimiter can begin is text (``_fast_text``, that lexer's
        ``starts``); in a started action's body with no closer prefix held, a chunk
        without the closer's first character goes to the body (``_fast_body``).  With the
        C parts, the text path is :data:`~c_fastpaths.TextRun`, and the body path is
        :data:`~c_fastpaths.BodyRun` while the body is the arguments and the JSON reads
        on (``BodyScanner.args_only``); it hands a chunk on which the core stops back to
        :meth:`_body_odd`.  The C text path also takes prose that holds no delimiter
        and no markdown signal (it shows the text and holds a delimiter's prefix), and
        two more run in C only: :data:`~c_fastpaths.HeldRun` while the closer's prefix
        held in a body grows, :data:`~c_fastpaths.TagRun` in an open tag's attributes
        while no ``>`` or ``<`` comes.  Each is read back (``_c_back``) when it is left."""
        if self._c_run is not None:
            self._catch_up()
        self._fast_text = None
        self._fast_body = None
        if not self._utf8.text_only:
            return
        if self._mode == _TEXT:
            code = self._code
            if not code.char_mode:
                if not self._held:
                    self._fast_text = self._lexers[self._in_reasoning, code.key].starts
                if self._use_c:
                    self._text_run(code.prose_lines)
            elif self._use_c and code.prose_lines:
                self._text_run(True)  # at a line's start, which C follows
        elif self._mode == _TAG:
            if self._use_c:
                self._c_run = c_fastpaths.TagRun(
                    self._tag,
                    self._tag_len,
                    self._max_tag,
                    self._quote,
                    self._after_eq,
                    self._strict,
                )
                self._c_back = self._back_tag
        elif self._mode == _BODY:
            body, action = self._body, self._action
            if (
                body is not None
                and not body.held
                and not body.may_rewind
                and action is not None
                and action.index is not None
            ):
                self._fast_body = body
                if self._use_c and body.args_only:
                    stream, parts = body.c_args()
                    self._c_run = c_fastpaths.BodyRun(
                        self._close.stops,
                        stream.feed_events,
                        stream,
                        parts,
                        action.snaps,
                        action.event_id,
                        action.index,
                        self._body_odd,
                        self._lenient,
                        body.grew,
                    )
                    self._c_back = self._back_body
            elif (
                self._use_c
                and body is not None
                and body.held
                and action is not None
                and action.index is not None
            ):
                self._held_run(body.held, self._close)

    def _text_run(self, lines: bool) -> None:
        """The C text path (``lines``: it follows line starts too)."""
        code = self._code
        lexer = self._lexers[self._in_reasoning, code.key]
        line_start, indent = code.lines if lines else (False, 0)
        self._c_run = c_fastpaths.TextRun(
            lexer.stops,
            self._held,
            lexer.prefixes,
            lexer.find,
            lexer.max_hold,
            lexer.fold,
            self._in_reasoning,
            lines,
            line_start,
            indent,
        )
        self._c_back = self._back_text

    def _held_run(self, held: str, delimiters: Delimiters) -> None:
        """The C path while ``held`` grows as a proper prefix of one of ``delimiters``."""
        self._c_run = c_fastpaths.HeldRun(
            held, delimiters.prefixes, delimiters.find, delimiters.fold
        )
        self._c_back = self._back_held

    def _body_odd(self, chunk: str, exc: MalformedJSON | None, changed: bool) -> list[Event]:
        """:data:`~c_fastpaths.BodyRun` fed ``chunk`` to the core, which raised ``exc`` or
        (None) left text after the value: the rest of the Python body path (``feed``)
        here.  The C path is left; the body's next chunks take the Python one."""
        self._catch_up()
        body, action = self._body, self._action
        assert body is not None and action is not None and action.index is not None
        self._lag += len(chunk)
        delta = body.fed_args(chunk, exc, changed)
        if not delta:
            return []
        partial = action.snaps.take(body.partial, len(delta), False, body.grew)
        body.grew = False
        return [args_delta(action.event_id, action.index, partial, delta)]

    def _decoded(self, segments: list[Segment], out: list[Event]) -> None:
        """Run the decoded text; an ``invalid_utf8`` report goes out after the events of
        the text before it (held text stays held)."""
        for seg in segments:
            if isinstance(seg, str):
                self._run(seg, out)
            else:
                self._flush_text(out)
                out.append(seg)

    def _run(self, text: str, out: list[Event]) -> None:
        if not text:
            return
        if self._held:
            buf = self._held + text
            base = self._pos - len(self._held)
            self._held = ""
        else:
            buf, base = text, self._pos
        self._pos += len(text)
        i, n = 0, len(buf)
        while i < n:
            if self._mode == _TEXT:
                i = self._scan_text(buf, i, base, out)
            elif self._mode == _TAG:
                i = self._scan_tag(buf, i, base, out)
            else:
                i = self._scan_body(buf, i, base, out)
                replay = self._replay
                if replay:  # the action ended in text the body took before: read it again
                    self._replay = ""
                    buf, base = replay + buf[i:], base + i - len(replay)
                    i, n = 0, len(buf)

    # ------------------------------------------------------------------ prose

    def _scan_text(self, buf: str, i: int, base: int, out: list[Event]) -> int:
        """Prose (or reasoning) from ``i``: text until a delimiter; returns where it stopped."""
        code = self._code
        text = self._text
        n = len(buf)
        while i < n:
            if code.char_mode and code.step(buf[i]):
                text.append(buf[i])
                i += 1
                continue
            lexer = self._lexers[self._in_reasoning, code.key]
            m = lexer.search(buf, i)
            if m is None:
                end = n - lexer.hold(buf, i)
                text.append(buf[i:end])
                self._held = buf[end:]
                return n
            a = m.start()
            group = m.lastgroup
            if group == "signal":
                text.append(buf[i : a + 1])
                code.signal(buf[a])
                i = a + 1
                continue
            text.append(buf[i:a])
            i = m.end()
            if group == "open":
                return self._on_open(m.group(), base + a, buf, i, out)
            self._flush_text(out)
            self._in_reasoning = group == "think"
            code.reset()
        return n

    def _plain_text(self, s: str) -> None:
        """Release markup that turned out to be text: code tracking only, no delimiters."""
        code = self._code
        i, n = 0, len(s)
        while i < n:
            if code.char_mode and code.step(s[i]):
                i += 1
                continue
            m = self._plain[code.key].search(s, i)
            if m is None:
                break
            code.signal(s[m.start()])
            i = m.end()
        self._text.append(s)

    # ------------------------------------------------------------------ open tags

    def _on_open(self, word: str, start: int, buf: str, i: int, out: list[Event]) -> int:
        fmt = self.format
        if not fmt.attributes:
            tag = OpenTag(fmt.name, {}, None, False)
            self._begin(start, word, tag, out)
            return i
        self._mode = _TAG
        self._tag = [word]
        self._tag_len = len(word)
        self._tag_start = start
        self._quote = ""
        self._after_eq = False
        if word.endswith(">"):
            return self._tag_done(i, out)
        return i

    def _scan_tag(self, buf: str, i: int, base: int, out: list[Event]) -> int:
        """Attributes of an open tag, up to the ``>`` outside quotes."""
        quote, after_eq = self._quote, self._after_eq
        quotes = '"' if self._strict else "\"'"
        stop = min(len(buf), i + self._max_tag - self._tag_len)
        j = i
        while j < stop:
            if quote:
                k = buf.find(quote, j, stop)
                if k < 0:
                    j = stop
                    break
                j, quote = k + 1, ""
                continue
            c = buf[j]
            if c == ">":
                self._tag.append(buf[i : j + 1])
                return self._tag_done(j + 1, out)
            if c == "<":  # a new tag begins: this one was text
                self._tag.append(buf[i:j])
                self._abandon_tag()
                return j
            if c == "=":
                after_eq = True
            elif after_eq and c in quotes:
                quote, after_eq = c, False
            elif c not in " \t\r\n":
                after_eq = False
            j += 1
        self._tag.append(buf[i:j])
        self._tag_len += j - i
        if j < len(buf):  # the tag grew past max_tag_chars: it was text
            self._abandon_tag()
            return j
        self._quote, self._after_eq = quote, after_eq
        return j

    def _abandon_tag(self) -> None:
        self._mode = _TEXT
        self._plain_text("".join(self._tag))
        self._tag = []

    def _tag_done(self, i: int, out: list[Event]) -> int:
        open_text = "".join(self._tag)
        self._tag = []
        inner = open_text[len(self.format.open) : -1]
        tag = parse_open_tag(inner, self.format, strict=self._strict)
        if tag is None:  # strict syntax not met: plain text
            self._mode = _TEXT
            self._plain_text(open_text)
            return i
        self._begin(self._tag_start, open_text, tag, out)
        return i

    # ------------------------------------------------------------------ actions

    def _begin(self, start: int, open_text: str, tag: OpenTag, out: list[Event]) -> None:
        self._flush_text(out)
        action = _Action(start, open_text, tag)
        self._action = action
        if tag.error is None and tag.name is not None:
            self._start(action, tag.name, out)
        if tag.self_closing:
            self._body = None
            self._end_action(out, None, "", start + len(open_text))
            return
        self._mode = _BODY
        self._body = BodyScanner(
            self.format, self._close, lenient=self._lenient, start=start + len(open_text)
        )

    def _start(self, action: _Action, name: str, out: list[Event]) -> None:
        attrs = {k: v for k, v in action.attributes.items()}
        event = self.emitter.start(name, action_id=action.action_id, attributes=attrs)
        action.index = event.index
        action.event_id = event.id
        action.name = name
        out.append(event)

    def _scan_body(self, buf: str, i: int, base: int, out: list[Event]) -> int:
        body, action = self._body, self._action
        assert body is not None and action is not None
        end = body.feed(buf, i)
        if action.index is None and body.name is not None and action.error is None:
            self._start(action, body.name, out)
        if not body.closer:
            return len(buf)
        self._replay = body.replay
        self._end_action(out, body, body.closer, base + end - len(body.replay))
        return end

    def _flush_args(self, out: list[Event], final: bool = False) -> None:
        body, action = self._body, self._action
        if body is None or action is None or action.index is None:
            return
        delta = body.take_delta()
        if delta:
            partial = action.snaps.take(body.partial, len(delta), final, body.grew)
            body.grew = False
            out.append(self.emitter.args_delta(action.index, partial, delta))

    def _end_action(
        self, out: list[Event], body: BodyScanner | None, closer: str, end: int
    ) -> None:
        action = self._action
        assert action is not None
        raw = ""
        if body is not None:
            self._flush_args(out, final=True)
            raw = body.raw
            self._report_repairs(body, out)
            result = body.result(self._nested)
            reason, errors = result.reason, result.errors
            args, name = result.args, action.name or result.name
        else:
            reason, errors, args, name = None, (), {}, action.name
        if action.error is not None:
            reason, errors = "bad_open_tag", ({"message": action.error},)
        elif reason is None and action.index is None and name is not None:
            self._start(action, name, out)  # a body name the stream never showed complete
        event: ActionComplete | ActionInvalid
        if action.index is None:
            event = self.emitter.reject(
                name, reason or "missing_name", errors, raw, action.action_id
            )
        elif reason is not None:
            event = self.emitter.invalid(action.index, reason, errors, raw)
        else:
            event = self.emitter.complete(action.index, args, raw=raw)
        out.append(event)
        self.spans.append(ActionSpan(event.id, action.start, end, action.open_text + raw + closer))
        self._action = None
        self._body = None
        self._mode = _TEXT
        self._code.reset()

    def _truncate(self, out: list[Event]) -> None:
        """The stream ended inside an action: ``ActionInvalid(truncated)`` with the raw body."""
        action, body = self._action, self._body
        assert action is not None and body is not None
        self._flush_args(out, final=True)
        self._report_repairs(body, out)
        raw = body.raw + body.held
        errors: tuple[Mapping[str, Any], ...] = ({"message": _TRUNCATED},)
        if action.error is not None:
            errors += ({"message": action.error},)
        event: ActionInvalid
        if action.index is None:
            name = action.name or body.name
            event = self.emitter.reject(name, "truncated", errors, raw, action.action_id)
        else:
            event = self.emitter.invalid(action.index, "truncated", errors, raw)
        out.append(event)
        self.spans.append(ActionSpan(event.id, action.start, self._pos, action.open_text + raw))
        self._action = None
        self._body = None

    def _report_repairs(self, body: BodyScanner, out: list[Event]) -> None:
        for repair in body.repairs:
            out.append(Diagnostic(repair.kind, repair.message, body.start + repair.pos))

    # ------------------------------------------------------------------ text out

    def _flush_text(self, out: list[Event]) -> None:
        if not self._text:
            return
        text = "".join(self._text)
        self._text.clear()
        if not text:
            return
        if self._in_reasoning:
            out.append(reasoning_delta(text))
        else:
            self._text_chars += len(text)
            out.append(text_delta(text))


def parse_tags(
    text: str | bytes, reason: FinishReason | None = None, **options: Any
) -> list[Event]:
    """One-shot :class:`TagParser`: ``feed(text)`` then ``finish(reason)``."""
    parser = TagParser(**options)
    return [*parser.feed(text), *parser.finish(reason)]

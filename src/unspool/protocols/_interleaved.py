"""The interleaved JSON-array protocol, streamed as ordered events.

The model answers with one JSON array of items, ``{"type":"text","content":"…"}``
(speech to show) and ``{"type":"action","name":"…","params":{…}}`` (a silent
tool call; legacy ``tool_name`` / ``parameters`` / ``action_id`` too).
:class:`InterleavedParser` turns the stream into :mod:`unspool.events` in the
order the model wrote them: text as ``TextDelta`` while each string grows,
actions as ``ActionStarted`` -> ``ActionArgsDelta``* -> ``ActionComplete`` once
the item's ``}`` was really seen, and ``StreamDone`` last.  It is driven by the
path events of one :class:`~unspool.core._jsonstream.JsonStream`, so every
character is scanned once: the whole stream costs O(n).  The items are
followed by :class:`~unspool.protocols._interleaved_items.ItemTracker`.

Around the array (found by :class:`~unspool.protocols._interleaved_prose.ProseScanner`):

* The array starts at a ``[`` followed by optional whitespace and ``{`` or
  ``]``, possibly after a markdown fence; ``see [1]`` or ``Sure [note]:`` is
  prose.  At the very start of the reply (no prose yet) a ``[`` followed by any
  JSON value is a candidate too (``[1,"s",null]`` is a reply of unusable items).
* **Prose policy** (``prose=``).  "Prose before the array gives the same events
  as the bare array" and "a reply with no array streams its prose as it
  arrives" conflict while streaming, so the caller chooses:

  - ``"stream"`` (default): prose before the array is shown as ``TextDelta``
    as it arrives, holding back only a suffix that could still be a fence or
    an array start;
  - ``"hold"``: prose is held; if an array starts it is reported as a
    ``Diagnostic(kind="preamble")`` and never shown; if the stream ends with
    no array, it is emitted as text at ``finish()``.

  A fence before the array, and a ```json`` fence marker line anywhere, are
  never shown (``Diagnostic(kind="fence")``).
* A ``<think>…</think>`` (or ``<thinking>``) block at the start of the reply, as
  reasoning models write one, is ``ReasoningDelta``, streamed, never text
  (:class:`~unspool.protocols._think.LeadingThink`).
* Everything after the array's closing ``]`` (a fence, "Hope this helps!", a
  second array), in the same chunk as ``]`` or later, is ignored and reported
  at ``finish()`` as one ``Diagnostic`` (kind ``"fence"``, ``"extra_array"`` or
  ``"trailing"``).  :attr:`InterleavedParser.closed` tells a caller it may stop
  reading.
* A candidate array is *recognised* by its first item of type text or action
  (or a legacy action); until then its events are held back.  An unrecognised
  candidate goes back to being prose (its ``[`` is shown and the text after it
  is scanned again) when it hits a JSON error, when it closes after prose was
  already seen (``x = [{a: 1}] is a list``), or when it closes at the start of
  the reply and prose follows it (``[1] Smith et al.``); followed by nothing, a
  fence or another array, it was the reply and its items are reported.
  Rescanning is bounded by the length of the input, so the cost stays O(n).

JSON errors (strict mode; ``lenient=True`` lets the core repair what models get
wrong, each repair reported as ``Diagnostic(kind="repair")``): the stream does
not raise.  A ``Diagnostic(kind="malformed_json")`` is emitted, an open action
becomes ``ActionInvalid(reason="malformed_json")``, an open text item keeps what
was shown, the array ends there, the rest of the input is reported as trailing
text, and ``StreamDone.reason`` is ``"error"``.

Truncation at ``finish()``: a text item cut off keeps what was shown, an action
cut off is ``ActionInvalid(reason="truncated")`` (never completed with invented
closers), a complete action in an unclosed array completes, and
``StreamDone.reason`` is ``"truncated"`` when the array did not close or
``reason="length"`` (``"aborted"`` for ``reason="abort"``).  Nothing shown is
ever sent again; ``finish()`` is idempotent.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, Literal, Protocol

from unspool.core._errors import MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.core._path_events import PathEvent, StringDelta
from unspool.events import (
    Diagnostic,
    DoneReason,
    Event,
    FinishReason,
    ReasoningDelta,
    TextDelta,
)
from unspool.protocols import _c_fastpaths as c_fastpaths
from unspool.protocols._emitter import ActionEmitter, ActionValidator, done_reason
from unspool.protocols._fastevents import args_delta, text_delta
from unspool.protocols._interleaved_items import Item, ItemTracker
from unspool.protocols._interleaved_prose import (
    ArrayStart,
    DroppedFence,
    ProseScanner,
    ProseText,
    Segment,
)
from unspool.protocols._think import LeadingThink, Piece
from unspool.protocols._utf8 import Segment as Decoded
from unspool.protocols._utf8 import Utf8Decoder

__all__ = ["InterleavedParser", "ProsePolicy", "parse_interleaved"]

ProsePolicy = Literal["stream", "hold"]

_PROSE, _ARRAY, _CLOSING, _AFTER = 0, 1, 2, 3
_CLOSING_FENCE = re.compile(r"`{3,}")
_ARRAY_START = re.compile(r"\[\s*[{\]]")
_BRACES = re.compile(r"[{}]")
_KEEP = 4096  # characters of a recognised array kept to cut its tail
_TRIM = 2 * _KEEP


class FastPath(Protocol):
    """The fast path's C form (``unspool.protocols._direct.Direct``): called with a
    chunk, the chunk's events, or None when it did not take the chunk (bytes).  It
    feeds the core itself (in pieces, as :meth:`InterleavedParser._feed_array` does),
    handles the plain path events itself (shown text, params text, what the item
    tracker ignores, the plainest members and boundaries of the open ``Item``) and
    hands the rest to the item tracker (through :meth:`InterleavedParser._inside`);
    its counts are read back when it is left, and after a JSON error the piece that
    raised (``piece``) and the chunk's events made before it (``pending``)."""

    fed: int
    end: int
    base: int
    text_chars: int
    content_len: int
    item: Item
    piece: str
    pending: list[Event]

    def __call__(self, chunk: str | bytes) -> list[Event] | None: ...


def _pieces(text: str) -> list[str]:
    """``text`` cut before each ``{`` and after each ``}``, so that the piece in which an
    object opens starts with its ``{`` and the piece in which it closes ends with its
    ``}``: the params' raw text is then a run of whole pieces (see ``ItemTracker``)."""
    if "{" not in text and "}" not in text:
        return [text]
    out: list[str] = []
    start = 0
    for m in _BRACES.finditer(text):
        cut = m.start() if m.group() == "{" else m.end()
        if cut > start:
            out.append(text[start:cut])
            start = cut
    if start < len(text):
        out.append(text[start:])
    return out


class _Candidate:
    """The array being read: its start, its core parser, its items, and the text fed.

    Until the array is recognised all its text is kept (a rejected candidate is
    scanned again as prose); after that only the last ``_KEEP`` characters or so,
    enough to cut the tail after the closing ``]``, so memory does not grow with
    the reply (the core releases each finished item as well)."""

    __slots__ = ("base", "chunks", "core", "fed", "start", "tracker")

    def __init__(self, start: ArrayStart, core: JsonStream, tracker: ItemTracker) -> None:
        self.start = start
        self.core = core
        self.tracker = tracker
        self.chunks: list[str] = []
        self.base = 0  # array offset of chunks[0]
        self.fed = 0  # characters fed to the core (while it reads, also the end of chunks)

    def add(self, text: str) -> None:
        """Keep ``text``; once the array is recognised, forget what is far behind."""
        if self.tracker.confirmed and self.fed - self.base > _TRIM:
            self.trim()
        self.chunks.append(text)

    def trim(self) -> None:
        """Forget all but the last ``_KEEP`` characters kept."""
        whole = self.text()
        cut = len(whole) - _KEEP
        self.chunks[:] = [whole[cut:]]
        self.base += cut

    def text(self) -> str:
        """The text kept (all of it, from the ``[``, until the array is recognised)."""
        if len(self.chunks) > 1:
            self.chunks[:] = ["".join(self.chunks)]
        return self.chunks[0] if self.chunks else ""

    def since(self, rel: int) -> str:
        """The text from array offset ``rel`` on."""
        return self.text()[max(rel - self.base, 0) :]


class InterleavedParser:
    """Streams an interleaved JSON-array reply as ordered events (see the module doc).

    ``feed(chunk)`` takes ``str`` or ``bytes`` (UTF-8, decoded incrementally)
    and returns the events it produced; ``finish(reason)`` closes the stream
    (``reason``: ``"stop"``, ``"length"``, ``"abort"`` or ``None``) and returns
    the last events, ``StreamDone`` last.  Action ids are
    ``"{stream_id}:{index}"`` (a fresh stream id when none is given);
    ``registry`` validates args by action name.
    """

    __slots__ = (
        "_args_item",
        "_cand",
        "_direct",
        "_direct_at",
        "_error",
        "_fast",
        "_finished",
        "_held",
        "_hold",
        "_lenient",
        "_offset",
        "_phase",
        "_quiet",
        "_rescanned",
        "_scanner",
        "_shown",
        "_tail",
        "_tail_pos",
        "_text_chars",
        "_text_item",
        "_think",
        "_truncated",
        "_use_c",
        "_utf8",
        "emitter",
    )

    def __init__(
        self,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        lenient: bool = False,
        prose: ProsePolicy = "stream",
    ) -> None:
        if prose not in ("stream", "hold"):
            raise ValueError("prose must be 'stream' or 'hold'")
        self.emitter = ActionEmitter(stream_id, registry)
        self._lenient = lenient
        self._hold = prose == "hold"
        self._utf8 = Utf8Decoder()
        self._scanner = ProseScanner()
        self._think = LeadingThink()
        self._phase = _PROSE
        self._offset = 0  # characters received so far
        self._held: list[ProseText] = []  # prose held back (prose="hold"; leading whitespace)
        self._shown = False  # whether prose was shown (prose="stream")
        self._cand: _Candidate | None = None
        self._direct: _Candidate | None = None  # the array, when feed() may go the fast way
        self._direct_at = 0  # its ``fed`` when the fast way opened (see _leave_direct)
        self._fast: FastPath | None = None  # the fast way in C, when it runs
        self._use_c = c_fastpaths.enabled()  # decided once: the machine selected now
        self._text_item: Item | None = None  # what the fast way continues (ItemTracker.settle)
        self._args_item: Item | None = None
        self._quiet = False
        self._tail: list[str] = []  # text after the array
        self._tail_pos = 0
        self._rescanned = 0  # characters scanned again after rejected candidates
        self._error = False
        self._truncated = False
        self._text_chars = 0
        self._finished = False

    @property
    def closed(self) -> bool:
        """True once the reply's array ended (closed, or cut by a JSON error): what
        follows is only reported, so a caller may stop reading the upstream."""
        return self._phase == _AFTER

    # -- public API --------------------------------------------------------------

    def feed(self, chunk: str | bytes) -> list[Event]:
        """Consume ``chunk``; return the events it produced, in order."""
        fast = self._fast
        if fast is not None:
            # the fast path below, in C (unspool.protocols._direct), for any str chunk
            try:
                got = fast(chunk)
            except MalformedJSON as err:
                piece, pending = fast.piece, fast.pending
                self._leave_direct()
                return pending + self._count(self._after_error(err, piece))
            if got is not None:
                return got
        cand = self._direct  # None once finished
        if (
            fast is None
            and cand is not None
            and type(chunk) is str
            and "{" not in chunk
            and "}" not in chunk
        ):
            # inside the confirmed array, str only, and the chunk neither opens nor
            # closes an object: one piece (see _feed_array), often a fast path
            # (the characters it takes are counted when it is left: _leave_direct)
            fed = cand.fed
            if fed - cand.base > _TRIM:
                cand.trim()
            cand.chunks.append(chunk)
            cand.fed = fed + len(chunk)
            try:
                events = cand.core.feed_events(chunk)
            except MalformedJSON as err:
                self._leave_direct()
                return self._count(self._after_error(err, chunk))
            item = self._text_item
            if item is not None and len(events) == 1:
                ev = events[0]
                if type(ev) is StringDelta and ev[0] == item.content_path:
                    # the text item's content grew: the whole feed is one TextDelta
                    text = ev[1]
                    if not text:
                        return []
                    k = len(text)
                    item.content_len += k
                    self._text_chars += k
                    return [text_delta(text)]
            item = self._args_item
            if item is not None:
                # in the action's params (strict: only a '}' ends them, and there is
                # none), so no event concerns the tracker: the chunk is the next delta
                index = item.action
                assert index is not None
                args = cand.core.value[-1][item.args_key]
                partial = item.snaps.take(args, len(chunk), False, bool(events))
                return [args_delta(item.event_id, index, partial, chunk)]
            if not events and self._quiet:
                return []  # between values (a key, a split escape): nothing happened
            self._leave_direct()
            return self._tracked(cand, events, chunk, fed)
        if self._finished:
            raise RuntimeError("feed() after finish()")
        if cand is not None:
            self._leave_direct()
        out: list[Event] = []
        if type(chunk) is str and self._utf8.text_only and self._think.done:
            if chunk:  # the common case: text after the reply's start
                self._utf8.passed(chunk)
                pos = self._offset
                self._offset = pos + len(chunk)
                self._process(chunk, pos, out)
        else:
            self._decoded(self._utf8.feed(chunk), out)
        return self._count(out) if out else out

    def _tracked(
        self, cand: _Candidate, events: list[PathEvent], chunk: str, fed: int
    ) -> list[Event]:
        """The fast path is over: the item tracker takes the path events of ``chunk``
        (which starts at array offset ``fed``)."""
        out: list[Event] = []
        tracker = cand.tracker
        tracker.handle(events, chunk, flush=False)
        if tracker.closed:
            back = self._closed(cand, self._tail_rel(tracker, chunk, fed, cand), out)
            if back is not None:
                self._process(back[0], back[1], out)
        else:
            self._fed(cand, out)
        return self._count(out) if out else out

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End the stream: flush, report what was cut off, ``StreamDone`` last.
        Idempotent: a second call returns ``[]``."""
        if self._finished:
            return []
        self._leave_direct()
        out: list[Event] = []
        self._decoded(self._utf8.finish(), out)
        self._pieces(self._think.finish(), out)
        self._finished = True
        if self._phase == _PROSE and not self._scanner.seen_text:
            # a reply that is just "[" (or a fence and "["): an array cut off at once
            start = self._scanner.take_bracket()
            if start is not None:
                self._begin_array(start)
                self._process(start.bracket, start.pos, out)
        if self._phase == _PROSE:
            self._prose(self._scanner.finish(), out)
            held = "".join(seg.text for seg in self._held)
            if held.strip():
                self._text(out, held)
            self._held.clear()
        elif self._phase == _ARRAY:
            self._finish_array(out)
        elif self._phase == _CLOSING:
            self._accept(out, "", self._offset)
        self._report_tail(out)
        self._count(out)
        self._direct = self._fast = None  # no fast path after the end (feed() raises)
        status: DoneReason
        if reason == "abort":
            status = "aborted"
        elif self._error:
            status = "error"
        else:
            status = done_reason(reason, self._truncated)
        out.append(self.emitter.done(status, self._text_chars))
        return out

    # -- decoding ----------------------------------------------------------------

    def _decoded(self, segments: list[Decoded], out: list[Event]) -> None:
        """Process the decoded text; an ``invalid_utf8`` report goes out after the
        events of the text before it."""
        for seg in segments:
            if isinstance(seg, str):
                pos = self._offset
                self._offset += len(seg)
                self._pieces(self._think.feed(seg, pos), out)
            else:
                out.append(seg)

    # -- prose, array, closing, after -------------------------------------------

    def _pieces(self, pieces: list[Piece], out: list[Event]) -> None:
        """Reasoning of a leading ``<think>`` block out as it is, the reply processed."""
        for kind, text, pos in pieces:
            if kind == "reasoning":
                out.append(ReasoningDelta(text))
            else:
                self._process(text, pos, out)

    def _process(self, text: str, pos: int, out: list[Event]) -> None:
        while text:
            if self._phase == _PROSE:
                segments, start, rest = self._scanner.feed(text, pos)
                self._prose(segments, out)
                if start is None:
                    return
                self._begin_array(start)
                text, pos = start.bracket + rest, start.pos
            elif self._phase in (_ARRAY, _CLOSING):
                if self._phase == _ARRAY:
                    back = self._feed_array(text, pos, out)
                else:
                    back = self._closing(text, pos, out)
                if back is None:
                    return
                text, pos = back
            else:
                self._add_tail(text, pos)
                return

    def _prose(self, segments: list[Segment], out: list[Event]) -> None:
        for seg in segments:
            if isinstance(seg, DroppedFence):
                out.append(
                    Diagnostic("fence", "a ```json fence line was not shown", seg.pos, seg.text)
                )
            elif self._hold or (not self._shown and seg.text.isspace()):
                self._held.append(seg)  # prose="hold", or leading whitespace
            else:
                lead = "".join(held.text for held in self._held)  # leading whitespace
                self._held.clear()
                self._shown = True
                self._text(out, lead + seg.text)

    def _begin_array(self, start: ArrayStart) -> None:
        core = JsonStream(events=True, lenient=self._lenient, trailing="ignore", release_items=True)
        tracker = ItemTracker(self.emitter, self._live, start.pos, partial(self._prefix, start))
        self._cand = _Candidate(start, core, tracker)
        self._phase = _ARRAY

    def _prefix(self, start: ArrayStart) -> list[Event]:
        """Reports of the prose and fence before the array, made once it is confirmed
        (the held prose is unchanged until then): joining the held prose for every
        ``[`` that starts a candidate made held prose with many brackets O(n^2)."""
        prefix: list[Event] = []
        if self._held:
            held = "".join(seg.text for seg in self._held)
            if held.strip():
                lead = len(held) - len(held.lstrip())
                prefix.append(
                    Diagnostic(
                        "preamble",
                        "prose before the array was not shown",
                        self._held[0].pos + lead,
                        held.strip(),
                    )
                )
        if start.fence is not None:
            prefix.append(
                Diagnostic(
                    "fence",
                    "the fence around the array was not shown",
                    start.fence_pos,
                    start.fence,
                )
            )
        return prefix

    def _live(self) -> Any:
        return None if self._cand is None else self._cand.core.value

    def _feed_array(self, text: str, pos: int, out: list[Event]) -> tuple[str, int] | None:
        """Feed the array's core; returns text to scan as prose again if the candidate
        was rejected."""
        cand = self._cand
        assert cand is not None
        cand.add(text)
        tracker = cand.tracker
        for piece in _pieces(text):
            before = cand.fed
            cand.fed += len(piece)
            try:
                events = cand.core.feed_events(piece)
            except MalformedJSON as err:
                return self._malformed(err, piece, out)
            tracker.handle(events, piece, flush=False)
            if tracker.closed:
                return self._closed(cand, self._tail_rel(tracker, piece, before, cand), out)
        self._fed(cand, out)
        return None

    def _fed(self, cand: _Candidate, out: list[Event]) -> None:
        """The end of a feed inside the array: flush the args, and note whether the
        next feed may take the fast path (see :meth:`feed`)."""
        tracker = cand.tracker
        tracker.flush_args()
        out.extend(tracker.take())
        if tracker.confirmed:
            self._held.clear()
            if self._utf8.text_only and self._think.done:
                tracker.settle()
                self._direct = cand
                self._direct_at = cand.fed
                self._text_item = tracker.text_item
                self._args_item = None if self._lenient else tracker.args_item
                self._quiet = tracker.quiet
                if self._use_c:
                    self._fast = self._c_fast(cand)

    def _c_fast(self, cand: _Candidate) -> FastPath:
        """The fast path's C form for the state just settled (see :meth:`feed`)."""
        return c_fastpaths.Direct(  # type: ignore[no-any-return]
            cand.core.feed_events,
            cand.core,
            cand.chunks,
            self._inside,
            cand.tracker,
            cand.fed,
            cand.base,
            _KEEP,
            _TRIM,
            cand.tracker.current,
            self._text_item is not None,
            self._action(),
            self._quiet,
            self._lenient,
        )

    def _action(self) -> tuple[str | None, Any, str, int | None, list[str]] | None:
        """The open action whose params the C fast path continues, as it takes it."""
        args = self._args_item
        if args is None:
            return None
        return (args.args_key, args.snaps, args.event_id, args.action, args.raw)

    def _inside(
        self, events: list[PathEvent], piece: str, before: int, end: int, last: bool
    ) -> list[Event] | tuple[list[Event], Item | None, bool, Any, bool] | None:
        """The C fast path's call for path events of a piece that concern the item
        tracker (``piece`` starts at array offset ``before``; the chunk ends at
        ``end``): the tracker takes them, as in :meth:`_feed_array`, and the fast path
        goes on.  At the chunk's ``last`` piece: the chunk's events and the state the
        fast path continues (the open item, whether its content is shown, the open
        action, quiet), as :meth:`_fed` would settle it.  When the array closed: the
        fast path is left and the list is the rest of the chunk's events."""
        cand = self._direct
        assert cand is not None
        tracker = cand.tracker
        tracker.handle(events, piece, flush=False)
        if tracker.closed:
            self._leave_direct()
            out: list[Event] = []
            back = self._closed(cand, self._tail_rel(tracker, piece, before, cand), out)
            if back is not None:
                self._process(back[0], back[1], out)
            return self._count(out)
        if not last:
            return None
        tracker.flush_args()
        out = tracker.take()
        tracker.settle()
        text = self._text_item = tracker.text_item
        self._args_item = None if self._lenient else tracker.args_item
        self._quiet = tracker.quiet
        return (
            self._count(out) if out else out,
            tracker.current,
            text is not None,
            self._action(),
            self._quiet,
        )

    def _leave_direct(self) -> None:
        """Count the characters the fast path took (see :meth:`feed`); no fast path
        until :meth:`_fed` allows it again."""
        cand = self._direct
        if cand is not None:
            self._direct = None
            fast = self._fast
            end = cand.fed
            if fast is not None:
                self._fast = None
                cand.fed, cand.base, end = fast.fed, fast.base, fast.end
                self._text_chars += fast.text_chars
                if fast.content_len:
                    fast.item.content_len += fast.content_len
            taken = end - self._direct_at  # whole chunks (the core may stop at the root's end)
            self._offset += taken
            self._utf8.chars += taken

    @staticmethod
    def _tail_rel(tracker: ItemTracker, piece: str, before: int, cand: _Candidate) -> int:
        """The array offset of what follows the closed root, fed in ``piece`` (which
        starts at array offset ``before``)."""
        rel = tracker.tail_start
        if rel is None:  # only whitespace after the root, or a '/' the core holds back
            body = piece.rstrip()
            rel = before + len(body) - 1 if body.endswith("/") else cand.fed
        return rel

    def _after_error(self, err: MalformedJSON, piece: str) -> list[Event]:
        """The events of a JSON error in ``piece``, the last piece fed (fast path)."""
        out: list[Event] = []
        back = self._malformed(err, piece, out)
        if back is not None:
            self._process(back[0], back[1], out)
        return out

    def _closed(self, cand: _Candidate, rel: int, out: list[Event]) -> tuple[str, int] | None:
        """The array closed; what follows it starts at ``rel`` (array offset)."""
        tracker = cand.tracker
        after = cand.since(rel)
        tail = after.lstrip()
        tail_pos = cand.start.pos + rel + len(after) - len(tail)
        if tracker.confirmed:
            self._accept(out, tail, tail_pos)
            return None
        if self._scanner.seen_text:
            # after prose, an array with no text or action item was prose too
            if self._may_rescan(rel):
                return self._reject(cand, out)
            self._accept(out, tail, tail_pos)
            return None
        self._phase = _CLOSING
        return self._decide(tail, tail_pos, out) if tail else None

    def _closing(self, text: str, pos: int, out: list[Event]) -> tuple[str, int] | None:
        """An unrecognised array closed at the start of the reply: the first
        non-whitespace character after it decides (see :meth:`_decide`)."""
        cand = self._cand
        assert cand is not None
        if text:
            cand.add(text)
        rest = text.lstrip()
        if not rest:
            return None
        return self._decide(rest, pos + len(text) - len(rest), out)

    def _decide(self, tail: str, tail_pos: int, out: list[Event]) -> tuple[str, int] | None:
        """A fence or another array after it: it was the reply (its items are reported);
        prose after it (``[1] Smith et al.``): it was prose."""
        cand = self._cand
        assert cand is not None
        if tail[0] not in "`[" and self._may_rescan(tail_pos - cand.start.pos):
            return self._reject(cand, out)
        self._accept(out, tail, tail_pos)
        return None

    def _accept(self, out: list[Event], tail: str, tail_pos: int) -> None:
        """The array that just ended is the reply; what follows it is the tail."""
        cand = self._cand
        assert cand is not None
        cand.tracker.confirm()
        out.extend(cand.tracker.take())
        self._held.clear()
        self._phase = _AFTER
        self._cand = None
        self._add_tail(tail, tail_pos)

    def _may_rescan(self, length: int) -> bool:
        """Whether ``length`` more characters may be scanned again (total <= input)."""
        cand = self._cand
        assert cand is not None
        if self._rescanned + length > cand.start.pos + length:
            return False
        self._rescanned += length
        return True

    def _reject(self, cand: _Candidate, out: list[Event]) -> tuple[str, int]:
        """The candidate was not the array: its ``[`` is prose; scan the rest again."""
        self._cand = None
        self._phase = _PROSE
        segments: list[Segment] = []
        start = cand.start
        if start.fence_segment is not None:
            segments.append(start.fence_segment)
        segments.append(ProseText("[", start.pos))
        self._scanner.mark_text()
        self._prose(segments, out)
        assert cand.base == 0  # an unrecognised candidate keeps all its text
        return cand.text()[1:], start.pos + 1

    def _malformed(
        self, err: MalformedJSON, piece: str, out: list[Event]
    ) -> tuple[str, int] | None:
        cand = self._cand
        assert cand is not None
        epos = max(err.pos, 0)
        tracker = cand.tracker
        # the events of the piece before the error (the core keeps them for us), and
        # the text of a string the error cut, which no StringDelta carried yet: the
        # events are those of every other chunking
        tracker.handle(cand.core.take_events(), piece, flush=False)
        tracker.recover_text(err.partial)
        if tracker.closed:
            # an error after the root (lenient: '/' that opens no comment) is its tail
            rel = tracker.tail_start
            return self._closed(cand, epos - 1 if rel is None else rel, out)
        if not tracker.confirmed and self._may_rescan(epos):
            return self._reject(cand, out)
        tracker.confirm()
        gpos = cand.start.pos + epos
        tracker.out.append(Diagnostic("malformed_json", err.msg, gpos))
        tracker.cut_off("malformed_json", f"a JSON error ended the array ({err.msg})", gpos)
        out.extend(tracker.take())
        self._held.clear()
        self._error = True
        self._phase = _AFTER
        self._cand = None
        self._add_tail(cand.since(epos), gpos)
        return None

    def _finish_array(self, out: list[Event]) -> None:
        cand = self._cand
        assert cand is not None
        tracker = cand.tracker
        try:
            tracker.handle(cand.core.finish_events())
        except MalformedJSON as err:
            tracker.out.append(Diagnostic("malformed_json", err.msg, cand.start.pos + err.pos))
        tracker.confirm()
        tracker.cut_off("truncated", "the stream ended inside the array")
        out.extend(tracker.take())
        self._held.clear()
        self._truncated = True
        self._cand = None

    # -- after the array ---------------------------------------------------------

    def _add_tail(self, text: str, pos: int) -> None:
        if not self._tail:
            self._tail_pos = pos
        if text:
            self._tail.append(text)

    def _report_tail(self, out: list[Event]) -> None:
        tail = "".join(self._tail)
        stripped = tail.strip()
        if not stripped:
            return
        pos = self._tail_pos + len(tail) - len(tail.lstrip())
        if self._error:
            out.append(
                Diagnostic("trailing", "text after the JSON error was ignored", pos, stripped)
            )
        elif _CLOSING_FENCE.fullmatch(stripped):
            out.append(
                Diagnostic("fence", "the fence after the array was not shown", pos, stripped)
            )
        elif _ARRAY_START.search(stripped):
            out.append(
                Diagnostic(
                    "extra_array", "a second array after the reply was ignored", pos, stripped
                )
            )
        else:
            out.append(Diagnostic("trailing", "text after the array was ignored", pos, stripped))

    # -- output ------------------------------------------------------------------

    def _text(self, out: list[Event], text: str) -> None:
        if text:
            out.append(TextDelta(text))

    def _count(self, out: list[Event]) -> list[Event]:
        for event in out:
            if isinstance(event, TextDelta):
                self._text_chars += len(event.text)
        return out


def parse_interleaved(
    text: str | bytes, *, reason: FinishReason | None = None, **options: Any
) -> list[Event]:
    """One shot: the events of ``InterleavedParser(**options)`` fed ``text`` then
    finished with ``reason``; the same events as streaming the text in any chunks."""
    parser = InterleavedParser(**options)
    return parser.feed(text) + parser.finish(reason)

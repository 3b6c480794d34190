"""The items of one interleaved array, followed through the core's path events.

:class:`ItemTracker` receives the path events of a ``JsonStream`` reading the
array (``[`` first) and turns them into the shared events:

* a text item (``{"type":"text","content":"..."}``) streams ``TextDelta``s from
  the ``StringDelta``s of its ``content`` while the string grows;
* an action item (``{"type":"action","name":...,"params":{...}}``, or the legacy
  ``tool_name`` / ``parameters`` / ``action_id``) gives ``ActionStarted`` once
  its type and a usable name are known, ``ActionArgsDelta`` while its params
  form, and ``ActionComplete`` (or ``ActionInvalid``) when its object closes;
* anything else becomes a ``Diagnostic``, and the array goes on.

Key order is free: ``content`` before ``type`` is buffered until the type is
known, ``params`` before ``name`` shows up in an ``ActionArgsDelta`` right after
``ActionStarted``.  An item with no ``type`` at all is a legacy action when it
has a usable ``name``/``tool_name`` (decided when it closes), else unknown.

Names and params follow the reference system's fall-through (``name`` then
``tool_name``; the first *truthy* of ``params`` and ``parameters``, else
``{}``), with types checked: a name must be a non-empty string, params a JSON
object, content a string.  ``id``/``name`` keys inside params are just args:
they never change the action's own id or name.

Events are held back (``pending``) until the array is *recognised*: its first
item of type text or action (or a legacy action).  The parser uses this to
reject a ``[{`` in prose that turns out not to be the reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from unspool.core._path_events import PathEvent, Repair, Skipped, StringDelta, ValueEnd, ValueStart
from unspool.events import ActionComplete, ActionInvalid, Diagnostic, Event, TextDelta
from unspool.protocols._args_snapshot import Snapshots, new_snapshots
from unspool.protocols._emitter import ActionEmitter

__all__ = ["Item", "ItemTracker"]

_MISSING: Any = object()
_NAME_KEYS = ("name", "tool_name")
_ARGS_KEYS = ("params", "parameters")
_ID_KEYS = ("action_id", "tool_id", "id")  # the model's id, kept as ActionStarted.action_id


def _truthy(value: Any) -> bool:
    """JavaScript truthiness, as the reference system's ``a || b`` fall-through uses it."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return bool(value) and value == value  # 0 and NaN are falsy
    if isinstance(value, str):
        return value != ""
    return True  # objects and arrays, even empty ones


def _good_name(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _scalar(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):  # not JSON, or an int too long to print
        return f"<{type(value).__name__}>"


def _dump(value: Any) -> str:
    """``json.dumps(value)`` without recursion (items may nest up to the core's depth)."""
    out: list[str] = []
    stack: list[tuple[bool, Any]] = [(False, value)]  # (is literal text, what)
    while stack:
        literal, what = stack.pop()
        if literal:
            out.append(what)
        elif isinstance(what, dict):
            parts: list[tuple[bool, Any]] = [(True, "}")]
            members = list(what.items())
            for i in range(len(members) - 1, -1, -1):
                key, member = members[i]
                parts += [(False, member), (True, _scalar(str(key)) + ": ")]
                if i:
                    parts.append((True, ", "))
            parts.append((True, "{"))
            stack += parts
        elif isinstance(what, list):
            parts = [(True, "]")]
            for i in range(len(what) - 1, -1, -1):
                parts.append((False, what[i]))
                if i:
                    parts.append((True, ", "))
            parts.append((True, "["))
            stack += parts
        else:
            out.append(_scalar(what))
    return "".join(out)


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


@dataclass(slots=True)
class Item:
    """What is known so far about the array item at ``position``."""

    position: int
    is_object: bool
    kind: str | None = None  # "text" | "action" | "other" once decided
    type_value: Any = _MISSING
    content: str = "none"  # "none" | "string" | "bad"
    content_active: bool = False  # the current "content" value is the one that counts
    content_value: Any = _MISSING
    content_dup: bool = False
    content_len: int = 0  # characters of the content string the StringDeltas carried
    content_path: Any = None  # the path of the content string, once it starts
    buffered: list[str] = field(default_factory=list)
    names: dict[str, Any] = field(default_factory=dict)
    ids: dict[str, Any] = field(default_factory=dict)
    args_key: str | None = None
    args_open: bool = False  # the params object started and did not end yet
    raw: list[str] = field(default_factory=list)  # params text not yet in a delta
    action: int | None = None  # the emitter's index once started
    event_id: str = ""  # ... and the id of its events
    started_name: str | None = None
    notes: list[Diagnostic] = field(default_factory=list)
    snaps: Snapshots = field(default_factory=new_snapshots)

    def model_id(self) -> str | None:
        for key in _ID_KEYS:
            value = self.ids.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    def name(self) -> str | None:
        """The first usable name, ``name`` before ``tool_name``, among those seen."""
        for key in _NAME_KEYS:
            value = self.names.get(key, _MISSING)
            if _good_name(value):
                return str(value)
        return None


class ItemTracker:
    """Turns the path events of one interleaved array into events (see the module doc).

    ``live()`` must return the core's live root (the array), for the live params
    shown in ``ActionArgsDelta``; ``base`` is the stream offset of the ``[``
    (for the positions of repairs); ``prefix()`` gives the events to put before the
    first event of the array (reports of a preamble or fence), called once when the
    array is confirmed: a candidate that is rejected never pays for them.  After the root
    closes (``closed``), ``tail_start`` is the offset of the first thing the core
    saw after it (a comment or the tail), so the parser can cut the tail exactly.
    """

    __slots__ = (
        "_emitter",
        "_item",
        "_live",
        "_pending",
        "_prefix",
        "_repairs",
        "args_item",
        "base",
        "closed",
        "confirmed",
        "out",
        "quiet",
        "tail_start",
        "text_item",
    )

    def __init__(
        self,
        emitter: ActionEmitter,
        live: Callable[[], Any],
        base: int = 0,
        prefix: Callable[[], Iterable[Event]] = tuple,
    ) -> None:
        self._emitter = emitter
        self._live = live
        self.base = base
        self._prefix = prefix
        self._pending: list[Event] = []
        self._repairs: list[Diagnostic] = []
        self._item: Item | None = None
        self.out: list[Event] = []
        self.confirmed = False
        self.closed = False
        self.tail_start: int | None = None  # offset of what follows the root, when seen
        self.text_item: Item | None = None  # see settle()
        self.args_item: Item | None = None
        self.quiet = False

    # -- output ------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        if self.confirmed:
            self.out.append(event)
        else:
            self._pending.append(event)

    def confirm(self) -> None:
        """The array is the reply: release the held-back events."""
        if not self.confirmed:
            self.confirmed = True
            self.out.extend(self._prefix())
            self.out.extend(self._pending)
            self._pending.clear()

    def take(self) -> list[Event]:
        """The events produced since the last call (empty until confirmed)."""
        out = self.out
        self.out = []
        return out

    def settle(self) -> None:
        """Note, once a feed was handled, what the next one continues (the parser's
        fast paths): :attr:`text_item`, the open text item whose content string is
        open, or :attr:`args_item`, the open started action whose params are open and
        flushed; :attr:`quiet` when a feed that gives no path event changes nothing
        (no params are open).  None and False until the array is confirmed."""
        item = self._item
        self.text_item = self.args_item = None
        self.quiet = self.confirmed and (item is None or not item.args_open)
        if item is None or not self.confirmed:
            return
        if item.kind == "text" and item.content_active and item.content == "string":
            self.text_item = item
        elif item.args_open and item.action is not None and not item.raw:
            self.args_item = item

    @property
    def current(self) -> Item | None:
        """The open item: the parser's C fast path reads it, and sets the fields of its
        plainest members itself (``unspool.protocols._direct``)."""
        return self._item

    @property
    def open_item(self) -> bool:
        """Whether an item is open (started and not closed)."""
        return self._item is not None

    # -- input -------------------------------------------------------------------

    def handle(self, events: Iterable[PathEvent], piece: str = "", flush: bool = True) -> None:
        """Follow a batch of path events, then (``flush``) show the live params of an
        open action: a parser feeding one chunk in pieces flushes once, at its end.

        ``piece`` is the text whose feeding gave ``events``; the parser cuts its text
        before each ``{`` and after each ``}``, so a piece in which the params object
        was open is wholly params text (it starts with the params' ``{`` when they
        open in it, and ends with their ``}`` when they close in it)."""
        item = self._item
        touched = item if item is not None and item.args_open else None
        for ev in events:
            if self.closed:
                # after the root: a comment or the tail (lenient), the parser's business
                if self.tail_start is None and isinstance(ev, (Repair, Skipped)):
                    self.tail_start = ev.pos
                continue
            if isinstance(ev, Repair):
                # reported when the item ends, so the report's place in the events
                # does not depend on where the chunks were cut
                self._repairs.append(
                    Diagnostic("repair", f"{ev.kind}: {ev.message}", self.base + ev.pos)
                )
                continue
            if not isinstance(ev, (ValueStart, StringDelta, ValueEnd)):
                continue  # Skipped: the text around the array is the parser's business
            path = ev.path
            depth = len(path)
            if depth == 0:
                if isinstance(ev, ValueEnd):
                    self._flush_repairs()
                    self.closed = True
                continue
            item = self._item
            if depth == 1:
                if isinstance(ev, ValueStart):
                    self._item = Item(int(path[0]), ev.kind == "object")
                elif isinstance(ev, ValueEnd) and item is not None:
                    self._end_item(item, ev.value)
                    self._item = None
                continue
            if item is None or not item.is_object:
                continue
            key = path[1]
            if depth == 2:
                self._member(item, key, ev)
                if item.args_open:
                    touched = item
        if touched is not None and piece:
            touched.raw.append(piece)
        if flush:
            self.flush_args()

    def _member(self, item: Item, key: Any, ev: StringDelta | ValueStart | ValueEnd) -> None:
        if key == item.args_key and item.args_open and isinstance(ev, ValueEnd):
            item.args_open = False
            return
        if key == "content":
            if isinstance(ev, StringDelta):
                if item.content_active:
                    item.content_len += len(ev.text)
                    if item.kind == "text":
                        if ev.text:
                            self._emit(TextDelta(ev.text))
                    elif item.kind is None:
                        item.buffered.append(ev.text)
            elif isinstance(ev, ValueStart):
                if item.content == "none":
                    item.content = "string" if ev.kind == "string" else "bad"
                    item.content_active = True
                    item.content_path = ev.path
                else:
                    item.content_dup = True
            elif item.content_active:
                item.content_active = False
                item.content_value = ev.value
            return
        if isinstance(ev, ValueEnd):
            if key == "type":
                self._set_type(item, ev.value)
            elif key in _NAME_KEYS:
                self._set_name(item, str(key), ev.value)
            elif key in _ID_KEYS:
                item.ids.setdefault(str(key), ev.value)
        elif (
            isinstance(ev, ValueStart)
            and key in _ARGS_KEYS
            and item.args_key is None
            and ev.kind == "object"
        ):
            item.args_key = str(key)
            item.args_open = True

    def _set_type(self, item: Item, value: Any) -> None:
        if item.type_value is not _MISSING:
            if not (isinstance(value, str) and value == item.type_value):
                item.notes.append(
                    Diagnostic(
                        "duplicate_key",
                        f"item {item.position}: a second 'type' ({_dump(value)}) was ignored",
                        None,
                        _dump(value),
                    )
                )
            return
        item.type_value = value
        if value == "text":
            item.kind = "text"
            self.confirm()
            if item.buffered:
                text = "".join(item.buffered)
                item.buffered.clear()
                if text:
                    self._emit(TextDelta(text))
        elif value == "action":
            item.kind = "action"
            self.confirm()
            item.buffered.clear()
            self._try_start(item)
        else:
            item.kind = "other"
            item.buffered.clear()

    def _set_name(self, item: Item, key: str, value: Any) -> None:
        if key in item.names:
            return
        item.names[key] = value
        if item.action is None:
            if item.kind == "action":
                self._try_start(item)
        elif _good_name(value) and value != item.started_name and key == "name":
            item.notes.append(
                Diagnostic(
                    "conflicting_name",
                    f"action {item.started_name!r} already started; 'name' {value!r} was ignored",
                    None,
                    str(value),
                )
            )

    def _try_start(self, item: Item) -> None:
        if item.action is not None:
            return
        name = item.name()
        if name is None:
            return
        started = self._emitter.start(name, action_id=item.model_id())
        item.action = started.index
        item.event_id = started.id
        item.started_name = name
        self._emit(started)

    def recover_text(self, partial: Any) -> None:
        """After a JSON error: the text of the open item's content string that the
        error cut before a ``StringDelta`` carried it, read from the core's last good
        value (``partial``, whose last item is the open one)."""
        item = self._item
        if item is None or not item.content_active or item.content != "string":
            return
        try:
            content = partial[-1]["content"]
        except (LookupError, TypeError):
            return
        if isinstance(content, str) and len(content) > item.content_len:
            self._member(item, "content", StringDelta((), content[item.content_len :]))

    def flush_args(
        self, final: bool = False, item: Item | None = None, value: Any = _MISSING
    ) -> None:
        """An ``ActionArgsDelta`` with the params text that arrived since the last one
        and a snapshot of the live params (``final``: the params will not grow)."""
        if item is None:
            item = self._item
        if item is None or item.action is None or not item.raw or item.args_key is None:
            return
        delta = "".join(item.raw)
        item.raw.clear()
        try:
            # the open item is the live root's last (finished ones are released);
            # an item that just ended is given as ``value``
            partial = (self._live()[-1] if value is _MISSING else value)[item.args_key]
        except (LookupError, TypeError):
            return
        partial = item.snaps.take(partial, len(delta), final)
        self._emit(self._emitter.args_delta(item.action, partial, delta))

    # -- item end ----------------------------------------------------------------

    def _flush_repairs(self) -> None:
        for event in self._repairs:
            self._emit(event)
        self._repairs.clear()

    def _end_item(self, item: Item, value: Any) -> None:
        self._flush_repairs()
        if not item.is_object:
            self._unknown(item, value)
            return
        if item.kind is None:
            # no "type": a legacy action when it names one, otherwise unknown
            if item.name() is not None:
                item.kind = "action"
                self.confirm()
            else:
                item.kind = "other"
        for note in item.notes:
            self._emit(note)
        if item.kind == "text":
            self._end_text(item)
        elif item.kind == "action":
            self._end_action(item, value)
        else:
            self._unknown(item, value)

    def _unknown(self, item: Item, value: Any) -> None:
        if isinstance(value, Mapping) and "type" in value:
            what = f"an item of type {_dump(value['type'])}"
        elif isinstance(value, Mapping):
            what = "an object without a usable 'type'"
        else:
            what = f"a {_kind_of(value)}, not an object"
        self._emit(
            Diagnostic(
                "unknown_item", f"item {item.position} is {what}; skipped", None, _dump(value)
            )
        )

    def _end_text(self, item: Item) -> None:
        if item.content == "none":
            self._emit(
                Diagnostic("bad_item", f"text item {item.position} has no 'content'; skipped")
            )
        elif item.content == "bad":
            value = item.content_value
            self._emit(
                Diagnostic(
                    "bad_content",
                    f"text item {item.position}: content must be a string, "
                    f"not {'a cut-off value' if value is _MISSING else _kind_of(value)}; skipped",
                    None,
                    None if value is _MISSING else _dump(value),
                )
            )
        if item.content_dup:
            self._emit(
                Diagnostic(
                    "duplicate_key",
                    f"text item {item.position}: a second 'content' was ignored",
                )
            )

    def _end_action(self, item: Item, value: Any) -> None:
        if item.action is None:
            self._try_start(item)
        if item.action is None:
            self._emit(
                self._emitter.reject(
                    None,
                    "missing_name",
                    ({"message": "an action needs a non-empty string 'name' (or 'tool_name')"},),
                    _dump(value),
                    item.model_id(),
                )
            )
            return
        args: Any = {}
        for key in _ARGS_KEYS:
            candidate = value.get(key, _MISSING) if isinstance(value, Mapping) else _MISSING
            if candidate is not _MISSING and _truthy(candidate):
                args = candidate
                break
        self.flush_args(final=True, value=value)
        if isinstance(args, dict):
            event: ActionComplete | ActionInvalid = self._emitter.complete(item.action, args)
        else:
            event = self._emitter.invalid(
                item.action,
                "bad_params",
                ({"message": f"params must be an object, not {_kind_of(args)}"},),
                _dump(args),
            )
        self._emit(self._with_model_id(event, item))

    @staticmethod
    def _with_model_id(
        event: ActionComplete | ActionInvalid, item: Item
    ) -> ActionComplete | ActionInvalid:
        """The model's id may arrive after ``ActionStarted``: keep it on the terminal event."""
        model_id = item.model_id()
        if model_id is not None and event.action_id is None:
            return replace(event, action_id=model_id)
        return event

    # -- the end of the array, cut short ----------------------------------------

    def cut_off(self, reason: str, message: str, pos: int | None = None) -> None:
        """The array ends without closing the open item (``reason``: ``"truncated"``
        at the end of the stream, ``"malformed_json"`` after a JSON error)."""
        self._flush_repairs()
        item = self._item
        self._item = None
        if item is None:
            return
        if item.is_object and item.kind is None and item.name() is not None:
            item.kind = "action"  # no type yet, but it names an action: report it as one
        for note in item.notes:
            self._emit(note)
        what = f"item {item.position}"
        if item.kind == "action":
            errors = ({"message": message} if pos is None else {"message": message, "pos": pos},)
            if item.action is None:
                self._emit(self._emitter.reject(item.name(), reason, errors, None, item.model_id()))
            else:
                self.flush_args(final=True, item=item)
                self._emit(
                    self._with_model_id(self._emitter.invalid(item.action, reason, errors), item)
                )
            return
        if item.kind == "text":
            what = f"text item {item.position} (its text so far was shown)"
        buffered = "".join(item.buffered) or None
        self._emit(Diagnostic("truncated", f"{message}: {what} was cut off", pos, buffered))

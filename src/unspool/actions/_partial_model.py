"""Typed partial models: a Pydantic model filling in while its JSON streams.

:func:`stream_model` (and :func:`astream_model`) read JSON chunks and yield a
:class:`PartialModel` after every chunk that changed something::

    for part in stream_model(Lesson, chunks):
        render(part.value.title, part.value.steps, part.pending)
    lesson = part.final            # the last one: a Lesson, or None (see part.errors)

Built on the core parser's path events (each character is scanned once; the
accumulated text is never parsed again). While the document forms:

* ``value`` is an instance of the model built with ``model_construct``: a
  field not yet arrived holds its default, or ``None`` when it has none, and
  is absent from ``value.model_fields_set``;
* a ``str`` field grows; a nested model fills in (an instance of that model);
  a ``list[...]`` only appends, a ``dict[str, ...]`` only adds keys;
* any other field (numbers, enums, literals, datetimes, unions of several
  types...) appears only once complete;
* every value is validated against its field's type and constraints the moment
  it completes and replaces the partial one (same type), so a set field never
  changes type and a completed field is always valid. A completed value that
  fails is taken out again (a field goes back to unset, a list item or dict
  value is removed) and its errors are listed once in ``errors``, with paths in
  the JSON document (keys as written, array indices as in the JSON), the same
  as the final ``ValidationError`` would give;
* ``pending`` holds the paths of the values that started and have not completed
  yet, as Python positions in ``value`` (field names, indices of the lists shown);
* a list or dict that closes holding an invalid item keeps its valid items (the
  invalid one was taken out when it completed); a list or dict invalid as a whole
  (too short, say) is taken out like any other value;
* the last item has ``done=True``. When the document closed and validates,
  ``complete`` is True and ``final`` (and ``value``) is ``Model.model_validate(document)``,
  with the model's own validators. When it is cut off, malformed or invalid, the
  iteration does not raise: the last item has ``complete=False``, ``final=None``, the
  partial ``value`` as it stood, and ``errors`` ending with why (``json_invalid`` for
  malformed or truncated JSON, as ``model_validate_json`` says it, or the final
  validation's errors). Malformed JSON ends the iteration at the chunk that broke it.
  ``raise_on_error=True`` raises ``pydantic.ValidationError`` instead.

The chunks may also be unspool events, straight from a provider adapter
(``from_openai``, ``from_anthropic``, ``from_gemini``... or ``generate()``): the JSON is then
read from the reply's text (``TextDelta``: OpenAI ``response_format`` / Responses
``text.format``, Anthropic's output format, Gemini's ``response_schema``), or, with
``tool="name"``, from the arguments of the first call to that tool (a tool the model was
forced to call: ``ActionArgsDelta.delta``, or the whole arguments when the provider sent
them at once); ``StreamDone`` ends the document. :func:`model_data` turns such a stream
into the page's: the JSON replaced by :class:`~unspool.events.AppData` of the model as it
fills in (:meth:`PartialModel.to_data`), everything else passed on.

Field checks during the stream use the field's annotation and constraints
(``Field(...)``, ``Annotated`` validators); ``@field_validator`` and
``@model_validator`` methods run in the final validation only. ``value`` is
live: it keeps changing after it was yielded (use :meth:`PartialModel.snapshot`
to keep one state).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

import pydantic

from unspool.actions._model_shapes import Slot, model_info
from unspool.actions._validation import ErrorDict, pydantic_errors
from unspool.core._errors import MalformedJSON
from unspool.core._jsonstream import JsonStream
from unspool.core._path_events import Path, PathEvent, StringDelta, ValueEnd, ValueStart
from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    AppData,
    Event,
    StreamDone,
    StreamError,
    TextDelta,
)

__all__ = [
    "JsonFromEvents",
    "ModelStream",
    "Partial",
    "PartialModel",
    "amodel_data",
    "astream_model",
    "model_data",
    "stream_model",
]

Chunk = str | bytes | Event
"""What :func:`stream_model` reads: JSON text (or bytes), or unspool events."""

M = TypeVar("M", bound=pydantic.BaseModel)
M_co = TypeVar("M_co", bound=pydantic.BaseModel, covariant=True)


class Partial(Protocol[M_co]):
    """The static type of :attr:`PartialModel.value`: the model ``M_co`` while its JSON
    forms.  Any field may still be missing (its default, or ``None`` when it has none)
    or partial (a string growing, a list appending, a nested model filling in), so a
    type checker reads every field as ``Any`` rather than its declared type; the
    validated model, typed exactly, is :attr:`PartialModel.final`.  At run time the
    value is an instance of the model built with ``model_construct``."""

    def __getattr__(self, name: str) -> Any:
        """A field as shown so far."""
        ...


@dataclass(frozen=True, slots=True)
class PartialModel(Generic[M]):
    """One state of a model while its JSON streams (see the module docs).

    * ``value``: the model filling in (live: it keeps changing after it was yielded;
      :meth:`snapshot` keeps one state). Fields not arrived hold their default or
      ``None`` and are absent from ``value.model_fields_set``.
    * ``pending``: paths (Python positions in ``value``) of the values that started and
      have not completed.
    * ``errors``: every validation error so far, each once, as ``{"path", "message",
      "type"}`` with the path in the JSON document; on a last state that is not
      complete, they end with why the document failed.
    * ``done``: this is the last state of the stream.
    * ``complete``: the document closed and validated against the model.
    * ``final``: the validated model when ``complete``, else ``None``.
    """

    value: Partial[M]
    pending: frozenset[Path]
    errors: tuple[ErrorDict, ...] = ()
    done: bool = False
    complete: bool = False
    final: M | None = None

    @property
    def missing(self) -> frozenset[str]:
        """Top-level fields that have not started to arrive."""
        value = cast(pydantic.BaseModel, self.value)
        started = value.model_fields_set | {p[0] for p in self.pending if p}
        return frozenset(n for n in type(value).model_fields if n not in started)

    def to_data(self, name: str, *, id: str | None = None, transient: bool = False) -> AppData:
        """This state as :class:`~unspool.events.AppData` for the page, taken now (the
        value keeps changing): ``data`` is ``{"value": the model as JSON (fields not
        arrived are null or their default), "pending": paths still forming, "missing":
        fields not started, "done", "complete", "errors"}``; ``id`` defaults to ``name``,
        so the AI SDK keeps one part that fills in."""
        value = cast(pydantic.BaseModel, self.value)
        data = {
            "value": value.model_dump(mode="json", warnings=False),
            "pending": sorted((list(p) for p in self.pending), key=repr),
            "missing": sorted(self.missing),
            "done": self.done,
            "complete": self.complete,
            "errors": list(self.errors),
        }
        return AppData(name, data, id=name if id is None else id, transient=transient)

    def snapshot(self) -> PartialModel[M]:
        """A copy whose ``value`` no longer changes as the stream goes on."""
        return PartialModel(
            self.value.model_copy(deep=True),
            self.pending,
            self.errors,
            self.done,
            self.complete,
            self.final,
        )


class _Node:
    """An open value shown in the partial model: a model instance, a list, a
    dict, or a string being built from ``pieces``."""

    __slots__ = ("holder", "json_path", "parent", "path", "pieces", "place", "slot")

    def __init__(
        self,
        slot: Slot,
        holder: Any,
        parent: _Node | None,
        place: str | int,
        path: Path,
        json_path: Path,
    ) -> None:
        self.slot = slot
        self.holder = holder
        self.parent = parent
        self.place = place
        self.path = path  # where it is shown in the partial value
        self.json_path = json_path  # where it is in the document
        self.pieces: list[str] = []


class ModelStream(Generic[M]):
    """The sans-I/O engine of :func:`stream_model`: ``feed(chunk)`` returns a new
    :class:`PartialModel` (or ``None`` when the chunk changed nothing shown),
    ``finish()`` the validated one. ``lenient``, ``skip_preamble`` and ``trailing``
    are passed to :class:`~unspool.core._jsonstream.JsonStream`; ``raise_on_error``
    raises ``pydantic.ValidationError`` for a malformed, cut-off or invalid document
    instead of ending with a state that is not complete."""

    def __init__(
        self,
        model: type[M],
        *,
        lenient: bool = False,
        skip_preamble: bool = False,
        trailing: str | None = None,
        raise_on_error: bool = False,
    ) -> None:
        self.model = model
        self.raise_on_error = raise_on_error
        self.failed = False
        """Malformed JSON was met: later chunks are not read."""
        self._parser = JsonStream(
            events=True, lenient=lenient, skip_preamble=skip_preamble, trailing=trailing
        )
        self._root_slot = Slot(model, "model", model)
        self._value: M = _new_instance(model)
        self._open: dict[Path, _Node] = {}
        self._growing: dict[int, _Node] = {}
        self._skip: Path | None = None
        self._skip_at: tuple[_Node, Slot, str | int] | None = None
        self._errors: list[ErrorDict] = []
        self._error_keys: set[tuple[str, ...]] = set()
        self._final: PartialModel[M] | None = None
        self._failure: tuple[ErrorDict, ...] = ()

    @property
    def partial(self) -> PartialModel[M]:
        """The current state."""
        if self._final is not None:
            return self._final
        for node in self._growing.values():
            parent, pieces = node.parent, node.pieces
            assert parent is not None
            text, tail = pieces[0], "".join(pieces[1:])
            # While it grows, only ``text`` holds the shown string: CPython then extends
            # it in place, so a long field costs O(n) in all rather than O(n) per chunk.
            pieces.clear()
            _attach(parent, node.place, "")
            text += tail
            pieces.append(text)
            _attach(parent, node.place, text)
        self._growing.clear()
        pending = {node.path for node in self._open.values() if node.path}
        if self._skip_at is not None:
            parent, _, place = self._skip_at
            pending.add((*parent.path, place))
        return PartialModel(cast(Partial[M], self._value), frozenset(pending), tuple(self._errors))

    def feed(self, chunk: str | bytes) -> PartialModel[M] | None:
        """Feed a chunk; the new state, or ``None`` if nothing shown changed.  Malformed
        JSON sets :attr:`failed` (the chunks after it are ignored) and lists the error,
        or raises ``pydantic.ValidationError`` (``json_invalid``) with ``raise_on_error``."""
        if self.failed:
            return None
        try:
            events = self._parser.feed_events(chunk)
        except MalformedJSON as exc:
            self._apply(self._parser.take_events())
            failure = _json_invalid(self.model, str(exc))
            if self.raise_on_error:
                raise failure from exc
            self.failed = True
            self._failure = pydantic_errors(failure)
            return self.partial
        return self.partial if self._apply(events) else None

    def finish(self) -> PartialModel[M]:
        """End the stream (idempotent): the last state, ``done=True``; ``complete`` and
        ``final`` when the document validates, else ``errors`` end with why (or
        ``pydantic.ValidationError`` with ``raise_on_error``)."""
        if self._final is not None:
            return self._final
        if not self.failed:
            try:
                self._apply(self._parser.finish_events())
                if not self._parser.complete:
                    message = "EOF while parsing: the document was cut off"
                    raise _json_invalid(self.model, message)
                value = self.model.model_validate(self._parser.value)
            except (MalformedJSON, pydantic.ValidationError) as exc:
                failure = (
                    _json_invalid(self.model, str(exc)) if isinstance(exc, MalformedJSON) else exc
                )
                if self.raise_on_error:
                    raise failure from exc if isinstance(exc, MalformedJSON) else None
                self._failure = pydantic_errors(failure)
            else:
                shown = cast(Partial[M], value)
                self._final = PartialModel(
                    shown, frozenset(), tuple(self._errors), True, True, value
                )
                return self._final
        errors = [*self._errors]
        for err in self._failure:  # the final verdict, without repeating a listed error
            key = (repr(err["path"]), err["type"], err["message"])
            if key not in self._error_keys:
                errors.append(err)
        self._final = PartialModel(self.partial.value, frozenset(), tuple(errors), True)
        return self._final

    # events ---------------------------------------------------------------------------

    def _apply(self, events: list[PathEvent]) -> bool:
        changed = False
        for event in events:
            if isinstance(event, StringDelta):
                changed |= self._on_delta(event)
            elif isinstance(event, ValueStart):
                self._on_start(event)
                changed = True
            elif isinstance(event, ValueEnd):
                self._on_end(event)
                changed = True
        return changed

    def _on_delta(self, event: StringDelta) -> bool:
        if self._skip is not None:
            return False
        node = self._open.get(event.path)
        if node is None:
            return False
        node.pieces.append(event.text)
        self._growing[id(node)] = node
        return True

    def _on_start(self, event: ValueStart) -> None:
        path, kind = event
        if self._skip is not None:
            return
        if not path:
            if kind == "object":
                self._open[()] = _Node(self._root_slot, self._value, None, "", (), ())
            else:
                self._skip = path
            return
        parent = self._open[path[:-1]]
        slot, place = _child_slot(parent, path[-1])
        if slot is None:  # a key the model does not read: left to the final validation
            self._skip = path
            return
        holder: Any
        if slot.kind == "model" and kind == "object":
            holder = _new_instance(slot.target)
        elif slot.kind == "list" and kind == "array":
            holder = []
        elif slot.kind == "dict" and kind == "object":
            holder = {}
        elif slot.kind == "str" and kind == "string":
            holder = ""
        else:
            self._skip = path
            self._skip_at = (parent, slot, place)
            return
        node = _Node(slot, holder, parent, place, (*parent.path, place), path)
        _attach(parent, place, holder)
        self._open[path] = node

    def _on_end(self, event: ValueEnd) -> None:
        path, value = event
        if self._skip is not None:
            if path != self._skip:
                return
            self._skip = None
            target, self._skip_at = self._skip_at, None
            if target is not None:
                parent, slot, place = target
                self._settle(parent, slot, place, path, value)
            return
        node = self._open.pop(path)
        self._growing.pop(id(node), None)
        if node.parent is not None:
            shown = node.holder if node.slot.kind in ("list", "dict") else None
            self._settle(node.parent, node.slot, node.place, path, value, shown)

    def _settle(
        self,
        parent: _Node,
        slot: Slot,
        place: str | int,
        json_path: Path,
        value: Any,
        shown: Any = None,
    ) -> None:
        """Validate a completed value and show it, or take it out and report why.  A
        list or dict (``shown``: its valid items, each checked when it completed) that
        fails only for an item already taken out keeps its valid items."""
        try:
            checked = slot.validate(value)
        except pydantic.ValidationError as exc:
            for err in pydantic_errors(exc):
                located = {**err, "path": [*json_path, *err["path"]]}
                key = (repr(located["path"]), located["type"], located["message"])
                if key not in self._error_keys:  # an ancestor fails for the same reason
                    self._error_keys.add(key)
                    self._errors.append(located)
            if shown is not None:
                try:
                    checked = slot.validate(shown)
                except pydantic.ValidationError:
                    pass  # invalid as a whole (too short, say): taken out below
                else:
                    _attach(parent, place, checked)
                    return
            _detach(parent, place)
            return
        _attach(parent, place, checked)


def _child_slot(parent: _Node, key: str | int) -> tuple[Slot | None, str | int]:
    """The slot of ``parent``'s child at the parser's ``key``, and where it goes."""
    kind = parent.slot.kind
    if kind == "model":
        entry = model_info(parent.slot.target).by_key.get(str(key))
        return (None, key) if entry is None else (entry.slot, entry.name)
    if kind == "list":
        return parent.slot.child(), len(parent.holder)
    return parent.slot.child(), key


def _attach(parent: _Node, place: str | int, value: Any) -> None:
    holder = parent.holder
    kind = parent.slot.kind
    if kind == "model":
        holder.__dict__[place] = value
        holder.__pydantic_fields_set__.add(place)
    elif kind == "list":
        assert isinstance(place, int)
        if place == len(holder):
            holder.append(value)
        else:
            holder[place] = value
    else:
        holder[place] = value


def _detach(parent: _Node, place: str | int) -> None:
    holder = parent.holder
    kind = parent.slot.kind
    if kind == "model":
        assert isinstance(place, str)
        holder.__dict__[place] = _unset_value(type(holder), place)
        holder.__pydantic_fields_set__.discard(place)
    elif kind == "list":
        if isinstance(place, int) and place == len(holder) - 1:
            holder.pop()
    else:
        holder.pop(place, None)


def _new_instance(model: type[M]) -> M:
    """An instance with no field set: defaults where there are, else ``None``."""
    instance = model.model_construct()
    for name in model.model_fields:
        if name not in instance.__dict__:
            instance.__dict__[name] = None
    return instance


def _unset_value(model: type[pydantic.BaseModel], name: str) -> Any:
    info = model.model_fields[name]
    if info.is_required():
        return None
    try:
        return info.get_default(call_default_factory=True, validated_data={})
    except Exception:  # a factory that needs other fields
        return None


def _json_invalid(model: type[pydantic.BaseModel], message: str) -> pydantic.ValidationError:
    return pydantic.ValidationError.from_exception_data(
        model.__name__,
        [{"type": "json_invalid", "loc": (), "input": None, "ctx": {"error": message}}],
    )


class JsonFromEvents:
    """Picks a document's JSON text out of unspool events (sans-I/O): the reply's text,
    or with ``tool`` the arguments of the first call to that tool.

    :meth:`read` returns the text an event carries (``""`` for an event that belongs to
    the document but carries none), or ``None`` for an event that is not the document's;
    :attr:`ended` turns true at the document's end (``StreamDone``, ``StreamError``, or
    the tool call's end)."""

    def __init__(self, tool: str | None = None) -> None:
        self.tool = tool
        self.call_id: str | None = None
        self.fed = False
        self.ended = False

    def read(self, event: Event) -> str | None:
        if isinstance(event, (StreamDone, StreamError)):
            self.ended = True
            return None
        if self.tool is None:
            return event.text if isinstance(event, TextDelta) and not self.ended else None
        if isinstance(event, ActionStarted) and event.name == self.tool and self.call_id is None:
            self.call_id = event.id
            return ""
        if getattr(event, "id", None) != self.call_id or self.call_id is None:
            return None
        if isinstance(event, ActionArgsDelta):
            self.fed = self.fed or bool(event.delta)
            return event.delta or ""
        if isinstance(event, (ActionComplete, ActionInvalid)):
            self.ended = True
            if self.fed:
                return ""
            if isinstance(event, ActionComplete):
                return json.dumps(event.to_dict()["args"], ensure_ascii=False)
            return event.raw or ""
        return ""


def _text(item: Chunk, reader: JsonFromEvents) -> str | bytes | None:
    if isinstance(item, (str, bytes)):
        return item
    if not isinstance(item, Event):
        raise TypeError(
            f"stream_model reads str, bytes or unspool events, not {type(item).__name__}"
        )
    return reader.read(item)


def stream_model(
    model: type[M],
    chunks: Iterable[Chunk],
    *,
    tool: str | None = None,
    lenient: bool = False,
    skip_preamble: bool = False,
    trailing: str | None = None,
    raise_on_error: bool = False,
) -> Iterator[PartialModel[M]]:
    """Yield a :class:`PartialModel` of ``model`` after each chunk that changed it, and
    last one with ``done=True``: ``complete`` with the validated ``final`` model, or not
    complete with ``errors`` saying why (malformed JSON stops reading ``chunks``).
    ``chunks`` are JSON text or bytes, or unspool events (the reply's text, or the
    arguments of the first call to ``tool``: see the module's documentation).
    ``raise_on_error=True`` raises ``pydantic.ValidationError`` for an invalid,
    malformed or truncated document instead."""
    stream = ModelStream(
        model,
        lenient=lenient,
        skip_preamble=skip_preamble,
        trailing=trailing,
        raise_on_error=raise_on_error,
    )
    reader = JsonFromEvents(tool)
    for chunk in chunks:
        text = _text(chunk, reader)
        part = stream.feed(text) if text else None
        if part is not None:
            yield part
        if stream.failed or reader.ended:
            break
    yield stream.finish()


async def _aiter(chunks: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Any]:
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk


async def astream_model(
    model: type[M],
    chunks: AsyncIterable[Chunk] | Iterable[Chunk],
    *,
    tool: str | None = None,
    lenient: bool = False,
    skip_preamble: bool = False,
    trailing: str | None = None,
    raise_on_error: bool = False,
) -> AsyncIterator[PartialModel[M]]:
    """Async :func:`stream_model`: ``chunks`` may be an async or a sync iterable."""
    stream = ModelStream(
        model,
        lenient=lenient,
        skip_preamble=skip_preamble,
        trailing=trailing,
        raise_on_error=raise_on_error,
    )
    reader = JsonFromEvents(tool)
    async for chunk in _aiter(chunks):
        text = _text(chunk, reader)
        part = stream.feed(text) if text else None
        if part is not None:
            yield part
        if stream.failed or reader.ended:
            break
    yield stream.finish()


class _ModelData(Generic[M]):
    """The state of :func:`model_data`: the document's stream, its reader, the names."""

    def __init__(
        self, model: type[M], name: str, tool: str | None, id: str | None, lenient: bool
    ) -> None:
        self.stream = ModelStream(model, lenient=lenient, skip_preamble=lenient)
        self.reader = JsonFromEvents(tool)
        self.name, self.id = name, id
        self.finished = False

    def on(self, event: Event) -> list[Event]:
        """What the page gets for one event of the source."""
        text = self.reader.read(event)
        if text is None:
            if isinstance(event, StreamDone):
                return [*self.finish(), event]
            return [event]
        if self.finished or self.stream.failed:
            return []
        part = self.stream.feed(text) if text else None
        out: list[Event] = [] if part is None else [part.to_data(self.name, id=self.id)]
        return out + (self.finish() if self.reader.ended or self.stream.failed else [])

    def finish(self) -> list[Event]:
        if self.finished:
            return []
        self.finished = True
        return [self.stream.finish().to_data(self.name, id=self.id)]


def model_data(
    model: type[M],
    events: Iterable[Event],
    *,
    name: str,
    tool: str | None = None,
    id: str | None = None,
    lenient: bool = False,
) -> Iterator[Event]:
    """``events`` (from a provider adapter or ``generate()``) for the page: the document's
    JSON (the reply's text, or the arguments of the call to ``tool``) replaced by
    :class:`~unspool.events.AppData` ``name`` of the model as it fills in (one after each
    change, the last, ``done``, before ``StreamDone``), every other event as it came.
    ``lenient`` reads what models get wrong (and skips a preamble or a fence)."""
    state = _ModelData(model, name, tool, id, lenient)
    for event in events:
        yield from state.on(event)
    yield from state.finish()


async def amodel_data(
    model: type[M],
    events: AsyncIterable[Event] | Iterable[Event],
    *,
    name: str,
    tool: str | None = None,
    id: str | None = None,
    lenient: bool = False,
) -> AsyncIterator[Event]:
    """Async :func:`model_data`: ``events`` may be an async or a sync iterable."""
    state = _ModelData(model, name, tool, id, lenient)
    async for event in _aiter(events):
        for out in state.on(event):
            yield out
    for out in state.finish():
        yield out

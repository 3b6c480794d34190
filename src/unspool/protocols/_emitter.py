"""Shared bookkeeping for every protocol that produces actions.

Each protocol parser (interleaved array, tags, provider tool calls) finds
actions in its own wire format; :class:`ActionEmitter` turns what it found into
the shared events with the guarantees of :mod:`unspool.events`: deterministic
ids (``"{stream_id}:{index}"``; a fresh stream id when none is given), exactly one terminal event per started action,
validation through an optional registry, and the counts of :class:`StreamDone`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from unspool.events import (
    ActionArgsDelta,
    ActionComplete,
    ActionInvalid,
    ActionStarted,
    DoneReason,
    FinishReason,
    StreamDone,
    new_stream_id,
)
from unspool.protocols._fastevents import args_delta

__all__ = ["ActionEmitter", "ActionValidator", "Validation", "done_reason"]


@dataclass(frozen=True, slots=True)
class Validation:
    """What a validator says of an action's args: ``ok`` with the (typed) ``value``,
    or not ok with a ``reason`` (``"schema"``, ``"unknown_action"``) and ``errors``."""

    ok: bool
    value: Any = None
    reason: str = "schema"
    errors: tuple[Mapping[str, Any], ...] = ()


class ActionValidator(Protocol):
    """Anything that can validate an action's args by name (``ActionRegistry`` does)."""

    def validate(self, name: str, args: Any) -> Validation:
        """Validate ``args`` for the action ``name``; never raises for bad args."""
        ...


def done_reason(reason: FinishReason | None, truncated: bool) -> DoneReason:
    """Map the caller's finish reason and what the parser saw to ``StreamDone.reason``."""
    if reason == "abort":
        return "aborted"
    if reason == "length" or truncated:
        return "truncated"
    return "complete"


@dataclass(slots=True)
class _Open:
    id: str
    name: str | None
    action_id: str | None
    attributes: Mapping[str, str]


class ActionEmitter:
    """Allocates action ids and builds the action events of one stream."""

    __slots__ = ("_open", "complete_count", "invalid_count", "next_index", "registry", "stream_id")

    def __init__(
        self, stream_id: str | None = None, registry: ActionValidator | None = None
    ) -> None:
        self.stream_id = new_stream_id() if stream_id is None else stream_id
        self.registry = registry
        self.next_index = 0
        self.complete_count = 0
        self.invalid_count = 0
        self._open: dict[int, _Open] = {}

    def action_id(self, index: int) -> str:
        """The deterministic id of the action at ``index``."""
        return f"{self.stream_id}:{index}"

    def start(
        self,
        name: str,
        *,
        action_id: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> ActionStarted:
        """Open a new action whose name is known; returns its ``ActionStarted``."""
        index = self.next_index
        self.next_index += 1
        attrs = dict(attributes) if attributes else {}
        event_id = self.action_id(index)
        self._open[index] = _Open(event_id, name, action_id, dict(attrs))  # each its own dict
        return ActionStarted(event_id, index, name, action_id, attrs)

    def args_delta(self, index: int, partial: Any, delta: str | None = None) -> ActionArgsDelta:
        """The live args of the open action at ``index``."""
        info = self._open.get(index)
        return args_delta(self.action_id(index) if info is None else info.id, index, partial, delta)

    def complete(
        self, index: int, args: Any, *, raw: str | None = None
    ) -> ActionComplete | ActionInvalid:
        """Close the action at ``index`` with its parsed ``args``, validating them when
        a registry is set: ``ActionComplete`` or ``ActionInvalid(reason="schema"|...)``."""
        info = self._open.pop(index)
        name = info.name or ""
        value = args
        if self.registry is not None:
            verdict = self.registry.validate(name, args)
            if not verdict.ok:
                self.invalid_count += 1
                return ActionInvalid(
                    info.id,
                    index,
                    name,
                    verdict.reason,
                    verdict.errors,
                    raw,
                    info.action_id,
                )
            value = verdict.value
        self.complete_count += 1
        return ActionComplete(info.id, index, name, value, info.action_id, info.attributes)

    def invalid(
        self,
        index: int,
        reason: str,
        errors: tuple[Mapping[str, Any], ...] = (),
        raw: str | None = None,
    ) -> ActionInvalid:
        """Close the open action at ``index`` as invalid."""
        info = self._open.pop(index)
        self.invalid_count += 1
        return ActionInvalid(info.id, index, info.name, reason, errors, raw, info.action_id)

    def reject(
        self,
        name: str | None,
        reason: str,
        errors: tuple[Mapping[str, Any], ...] = (),
        raw: str | None = None,
        action_id: str | None = None,
    ) -> ActionInvalid:
        """An action that is invalid before it could start (e.g. no name): takes an
        index of its own so ids stay positional, and emits no ``ActionStarted``."""
        index = self.next_index
        self.next_index += 1
        self.invalid_count += 1
        return ActionInvalid(self.action_id(index), index, name, reason, errors, raw, action_id)

    def open_indices(self) -> list[int]:
        """Indices of actions started and not yet completed or invalidated, in order."""
        return sorted(self._open)

    def truncate_open(self, raw: str | None = None) -> list[ActionInvalid]:
        """``ActionInvalid(reason="truncated")`` for every action still open."""
        return [
            self.invalid(i, "truncated", ({"message": "the stream ended inside this action"},), raw)
            for i in self.open_indices()
        ]

    def done(self, reason: DoneReason, text_chars: int = 0) -> StreamDone:
        """The closing ``StreamDone`` with this stream's counts."""
        return StreamDone(reason, self.complete_count, self.invalid_count, text_chars)

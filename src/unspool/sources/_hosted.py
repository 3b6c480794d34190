"""Tools the provider runs itself: numbered, each phase reported once, never an action.

A provider decoder reports a call of one of the provider's own tools (a web search, a
code interpreter, a remote MCP call...) through its merger, keyed by whatever names the
call in the provider's stream (an output index, a block index, the provider's id).
:class:`HostedCalls` turns that into one :class:`~unspool.events.HostedToolStarted`, at
most one :class:`~unspool.events.HostedToolInput` and at most one
:class:`~unspool.events.HostedToolResult` per call, with ids of their own
(``"{stream_id}/hosted:{n}"``), so a hosted call never shares an id, or a ledger key,
with an action.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from unspool.events import Event, HostedToolInput, HostedToolResult, HostedToolStarted

__all__ = ["HostedCalls"]


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    given: bool = False  # its input was reported
    ended: bool = False  # its result was reported


class HostedCalls:
    """The provider-run calls of one stream (sans-I/O)."""

    __slots__ = ("_by_provider_id", "_calls", "_prefix")

    def __init__(self, stream_id: str) -> None:
        self._prefix = f"{stream_id}/hosted:"
        self._calls: dict[Hashable, _Call] = {}
        self._by_provider_id: dict[str, Hashable] = {}

    def known(self, key: Hashable) -> bool:
        """Whether a call was started under ``key``."""
        return key in self._calls

    def key_of(self, provider_id: str | None) -> Hashable | None:
        """The key of the call the provider calls ``provider_id``, if one started."""
        return None if provider_id is None else self._by_provider_id.get(provider_id)

    def start(
        self,
        key: Hashable,
        name: str,
        provider_id: str | None = None,
        kind: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> list[Event]:
        """A call starts (nothing when ``key`` already started one)."""
        if key in self._calls:
            return []
        call = _Call(f"{self._prefix}{len(self._calls)}", name)
        self._calls[key] = call
        if provider_id:
            self._by_provider_id.setdefault(provider_id, key)
        return [HostedToolStarted(call.id, name, provider_id, kind, dict(attributes or {}))]

    def input(self, key: Hashable, value: Any) -> list[Event]:
        """The call's whole input (once; nothing for a call that did not start)."""
        call = self._calls.get(key)
        if call is None or call.given or call.ended:
            return []
        call.given = True
        return [HostedToolInput(call.id, call.name, value)]

    def result(
        self, key: Hashable, output: Any = None, error: str | None = None, kind: str | None = None
    ) -> list[Event]:
        """The call ended (once; nothing for a call that did not start)."""
        call = self._calls.get(key)
        if call is None or call.ended:
            return []
        call.ended = True
        return [HostedToolResult(call.id, call.name, output, error, kind)]

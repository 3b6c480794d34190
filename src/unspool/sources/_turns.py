"""The tool loop: call the model, run its actions, send the results back, until it answers.

:func:`run_turns` is ``generate()`` over several turns.  Each turn calls the model with
the conversation so far, yields the turn's events as they are parsed (the dispatcher adds
each action's ``ActionResult`` / ``ActionFailed`` right after its ``ActionComplete``), and
ends with that turn's ``StreamDone``.  Then the provider's result builder (see
:mod:`unspool.sources.providers._tool_results`) turns the turn's events into the messages
to append, and the next turn starts.  The loop stops after a turn without actions, after
``max_turns`` turns (a ``Diagnostic(kind="max_turns")`` comes just before that turn's
``StreamDone``), after a turn with an action left to the page or to an approval
(:class:`~unspool.events.ActionPending`: ``stopped == "waiting"``; the next request brings
the answer, see ``Dispatcher.resume``), or after a turn that did not end ``complete`` (truncated, aborted, error).
A turn the provider paused (``StreamDone(paused)``: Anthropic's ``pause_turn``) is sent back
as it stands, its provider-run tools included, and the next turn continues it.
Each turn's ``Usage`` passes through as it comes; ``TurnLoop.usage`` is their sum.

The guarantees are ``generate()``'s, turn by turn: an abort or a cancellation closes the
upstream, ends the open actions as ``ActionInvalid(truncated)`` and ``StreamDone(aborted)``
and stops the loop (a cancellation still ends the task cancelled).  Each turn's actions
have ids of their own (``"{stream_id}/{turn}:{index}"``), so the dispatcher's ledger runs
each of them exactly once; running the same loop again with the same ``stream_id`` and
ledger replays the recorded outcomes instead of running the handlers twice.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, Literal

from unspool.events import (
    ActionComplete,
    ActionInvalid,
    ActionPending,
    Diagnostic,
    Event,
    StreamDone,
    Usage,
    new_stream_id,
)
from unspool.sources._drive import close_async
from unspool.sources._generate import EventDispatcher, generate
from unspool.sources._parsers import TextProtocol
from unspool.sources.providers import _table as table

__all__ = ["ResultBuilder", "Stop", "TurnLoop", "run_turns"]

ResultBuilder = Callable[[Iterable[Event]], list[dict[str, Any]]]
"""A turn's events -> the messages to append (see ``providers.tool_results``)."""

Stop = Literal["answered", "waiting", "max_turns", "truncated", "aborted", "error"]


class TurnLoop:
    """The events of every turn (``async for``); afterwards, the conversation and why it stopped.

    ``messages`` starts as a copy of the given conversation and grows by each turn's
    messages; ``turns`` counts the turns run; ``stopped`` says why the loop ended.  A turn
    that did not end ``complete`` (truncated, aborted, error) adds nothing to ``messages``:
    its events say what happened, and a cut-off call cannot be sent back as it stands.
    ``usage`` sums the turns' ``Usage`` events (``None`` while no provider reported any)."""

    def __init__(
        self,
        call: Callable[[list[Any]], Any],
        messages: Sequence[Any],
        *,
        dispatcher: EventDispatcher,
        provider: str | None = None,
        results: ResultBuilder | str | None = None,
        max_turns: int = 8,
        protocol: TextProtocol = "plain",
        abort: asyncio.Event | None = None,
        stream_id: str | None = None,
        lenient: bool = False,
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be >= 1")
        self.call = call
        self.messages: list[Any] = list(messages)
        self.provider = provider
        self.results: ResultBuilder = _builder(results if results is not None else provider)
        self.dispatcher = dispatcher
        self.max_turns = max_turns
        self.protocol = protocol
        self.abort = abort
        self.stream_id = stream_id if stream_id is not None else new_stream_id()
        self.lenient = lenient
        self.turns = 0
        self.stopped: Stop | None = None
        self.usage: Usage | None = None  # the turns' Usage events, summed

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._run()

    async def _run(self) -> AsyncIterator[Event]:
        while self.stopped is None:
            turn = self.turns
            self.turns += 1
            snapshot = list(self.messages)
            events: list[Event] = []
            acted = waiting = False
            source = generate(
                functools.partial(self.call, snapshot),
                protocol=self.protocol,
                dispatcher=self.dispatcher,
                abort=self.abort,
                stream_id=f"{self.stream_id}/{turn}",
                lenient=self.lenient,
                provider=self.provider,
            )
            try:
                async for event in source:
                    events.append(event)
                    if isinstance(event, (ActionComplete, ActionInvalid)):
                        acted = True
                    elif isinstance(event, Usage):
                        self.usage = event if self.usage is None else self.usage + event
                    waiting = waiting or isinstance(event, ActionPending)
                    if isinstance(event, StreamDone):
                        self.stopped = self._stop(event, acted, waiting)
                        if self.stopped == "max_turns":
                            message = (
                                f"stopped after {self.max_turns} turns: the results of this "
                                "turn's actions are in messages, not yet sent to the model"
                            )
                            yield Diagnostic("max_turns", message)
                    yield event
            finally:
                await close_async(source)
            if self.stopped in (None, "answered", "max_turns"):
                self.messages.extend(self.results(events))

    def _stop(self, done: StreamDone, acted: bool, waiting: bool) -> Stop | None:
        if done.reason == "paused":  # the provider goes on when the turn is sent back
            if waiting:
                return "waiting"
            return "max_turns" if self.turns >= self.max_turns else None
        if done.reason != "complete":
            return done.reason
        if waiting:
            return "waiting"
        if not acted:
            return "answered"
        return "max_turns" if self.turns >= self.max_turns else None


def _builder(results: ResultBuilder | str | None) -> ResultBuilder:
    """A builder given as itself, or by provider name (the table row's ``tool_results``)."""
    if results is None:
        raise ValueError("give the provider (a table row's name) or a results builder")
    if not isinstance(results, str):
        return results
    builder = table.provider(results).tool_results
    if builder is None:
        raise ValueError(f"provider {results!r} has no tool-result builder")
    return builder


def run_turns(
    call: Callable[[list[Any]], Any],
    messages: Sequence[Any],
    *,
    dispatcher: EventDispatcher,
    provider: str | None = None,
    results: ResultBuilder | str | None = None,
    max_turns: int = 8,
    protocol: TextProtocol = "plain",
    abort: asyncio.Event | None = None,
    stream_id: str | None = None,
    lenient: bool = False,
) -> TurnLoop:
    """The tool loop over ``call(messages)`` (a function making one streamed model call
    with the conversation so far, sync or async, as for ``generate()``).

    ``provider`` names the provider table's row (``"openai"``, ``"anthropic"``,
    ``"gemini"``, ``"bedrock"``, ``"ollama"``): it decodes the stream (instead of
    recognising it) and its ``tool_results`` builds the next messages (``"openai"``'s is
    Chat Completions'). ``results`` gives the builder instead (e.g.
    ``openai_responses_results``, or a row's name); one of the two is needed. ``dispatcher`` runs the actions (its registry
    validates them).  Iterate the returned :class:`TurnLoop` for the events; then
    ``loop.messages`` is the whole conversation."""
    return TurnLoop(
        call,
        messages,
        dispatcher=dispatcher,
        provider=provider,
        results=results,
        max_turns=max_turns,
        protocol=protocol,
        abort=abort,
        stream_id=stream_id,
        lenient=lenient,
    )

"""gpt-oss's harmony messages: ``<|channel|>analysis<|message|>…<|end|>`` and the rest.

A region is one message from its header on: the header (up to ``<|message|>``)
names the channel and, for a call, the recipient (``to=functions.NAME``, before or
after the channel).  A message with a recipient is a call whose body is JSON up to
``<|call|>``; an ``analysis`` message is reasoning; any other (``final``, a
``commentary`` preamble) is reply text.  A message ends at its stop token
(``<|end|>``, ``<|call|>``, ``<|return|>``), at the next header (the stop token is
often absent) or at the end of the reply.
"""

from __future__ import annotations

import re

from unspool.protocols.tag_args._base import Call, Reader, Sink
from unspool.protocols.tag_args._json_calls import JsonCalls
from unspool.protocols.tag_args._named import clean_name
from unspool.protocols.tag_args._scan import Until

__all__ = ["HEADERS", "STOPS", "Harmony"]

HEADERS = ("<|start|>", "<|channel|>")
"""The literals a message (a region) starts at."""
STOPS = ("<|end|>", "<|call|>", "<|return|>")
"""The stop tokens that end a message."""

_MESSAGE = "<|message|>"
_RECIPIENT = re.compile(r"\bto=([^\s<]+)")
_CHANNEL = re.compile(r"<\|channel\|>\s*([A-Za-z_]+)")
_MAX_HEADER = 512
_HEADER, _BODY, _DONE = range(3)


class Harmony:
    """Reads one harmony message (see the module docstring); ``opener`` is the literal
    the region started with."""

    def __init__(self, sink: Sink, opener: str) -> None:
        self._sink = sink
        self._opener = opener
        self._state = _HEADER
        self._held = ""
        self._header: list[str] = []
        self._size = 0
        self._until = Until((_MESSAGE,), (*HEADERS[:1], *STOPS))
        self._body_until = Until(STOPS, HEADERS)
        self._kind = "text"
        self._call: Reader | None = None

    def feed(self, text: str) -> str | None:
        s = self._held + text if self._held else text
        self._held = ""
        if self._state == _HEADER:
            got, m, j = self._until.scan(s, 0)
            self._header.append(got)
            self._size += len(got)
            if m is None:
                self._held = s[j:]
                if self._size > _MAX_HEADER:  # not a header: what it held is text
                    self._sink.text("".join(self._header))
                    self._state = _DONE
                    return self._held
                return None
            if m.lastgroup == "stop":  # a header with no message: nothing to show
                return s[j:]
            self._begin()
            s = s[j:]
        if self._call is not None:
            return self._call.feed(s)
        got, m, j = self._body_until.scan(s, 0)
        if got:
            if self._kind == "reasoning":
                self._sink.reasoning(got)
            else:
                self._sink.text(got)
        if m is None:
            self._held = s[j:]
            return None
        self._state = _DONE
        return s[j:]

    def _begin(self) -> None:
        header = "".join(self._header)
        if self._opener == "<|channel|>":
            header = "<|channel|>" + header
        self._state = _BODY
        to = _RECIPIENT.search(header)
        if to is not None:
            call = Call()
            name = clean_name(to.group(1), ("functions.",))
            if name is not None:
                self._sink.start(call, name)
            else:
                call.raw.append(to.group(1))
            self._call = JsonCalls(
                self._sink, shape="args", call=call, closers=STOPS, resync=HEADERS
            )
            return
        m = _CHANNEL.search(header)
        channel = "" if m is None else m.group(1)
        self._kind = "reasoning" if channel == "analysis" else "text"

    def finish(self) -> None:
        if self._call is not None:
            self._call.finish()
        elif self._state == _HEADER:
            self._sink.text("".join(self._header) + self._held)
        elif self._held:
            (self._sink.reasoning if self._kind == "reasoning" else self._sink.text)(self._held)
        self._held = ""
        self._state = _DONE

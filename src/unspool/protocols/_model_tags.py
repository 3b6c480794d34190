"""The raw text of an open-weights model, its tool calls read in one streaming pass.

:class:`ModelTagParser` reads a reply in one of the formats of
:data:`~unspool.protocols._model_formats.MODEL_FORMATS` (``TagParser(format=NAME)``
builds one) into :mod:`unspool.events`, whatever the chunking:

* Text reaches the caller at once; only the longest suffix that could still become
  a literal of the format (an opener, a reasoning delimiter, a dropped special
  token) is held back, and a shape the reply may start with (Llama's bare JSON,
  Llama 4's ``[f(…)]``) is held only until it is decided, within a bounded length.
* Reasoning (``<think>…</think>``, ``[THINK]``, ``<seed:think>``, harmony's analysis
  channel) is ``ReasoningDelta``.  With ``starts_in_reasoning=True`` the reply is
  reasoning until the closer (the chat template opened the block in the prompt).
  A call opener inside reasoning ends the reasoning and starts the call: a call is
  never lost in the reasoning.  A reasoning closer outside reasoning is dropped.
* A call is ``ActionStarted`` when its name is known, streams ``ActionArgsDelta``
  (``partial``: the arguments as a JSON value so far, whatever the model's syntax;
  ``delta``: the model's raw text since the previous one), and ends with exactly
  one ``ActionComplete`` or ``ActionInvalid`` (``malformed_json``, ``malformed_call``,
  ``missing_name``, ``bad_params``, ``truncated``, or the registry's ``schema`` /
  ``unknown_action``).  A closer that never comes is not needed once the value is
  whole: the call ends with the reply, at the next opener, or where text that is
  not markup begins.
* Inside a section wrapper (DeepSeek's ``<｜tool▁calls▁begin｜>``, Kimi's) blanks
  between calls are markup; other text ends the section (its closer never came)
  and is text.
* The markup itself (openers, closers, section wrappers, the format's end-of-turn
  tokens) never reaches the text; a broken call's text is in its
  ``ActionInvalid.raw``.  ``StreamDone`` is last.

Each character is read a bounded number of times (the readers feed the core JSON
and Python-literal readers incrementally), so a reply costs O(n).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unspool.events import Event, FinishReason
from unspool.protocols._emitter import ActionEmitter, ActionValidator, done_reason
from unspool.protocols._fastevents import reasoning_delta, text_delta
from unspool.protocols._holdback import Delimiters
from unspool.protocols._model_formats import (
    PEEKS,
    CallOpener,
    ModelFormat,
    resolve_model_format,
)
from unspool.protocols._utf8 import Utf8Decoder
from unspool.protocols.tag_args import READERS, Call, Reader

__all__ = ["ModelTagParser", "parse_model_tags"]

_TEXT, _REASON, _SECTION, _CALL = range(4)
_BLANK = " \t\r\n"


class ModelTagParser:
    """Streaming reader of one model family's raw text (see the module docstring).

    ``format``: a :class:`~unspool.protocols._model_formats.ModelFormat` or its name;
    ``stream_id`` / ``registry`` as for every parser (a registry with
    ``json_schema(name)`` also types XML-style parameters);
    ``starts_in_reasoning``: the reply begins inside the format's reasoning block.
    """

    def __init__(
        self,
        format: ModelFormat | str,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        starts_in_reasoning: bool = False,
    ) -> None:
        fmt = resolve_model_format(format)
        self.format = fmt
        self.emitter = ActionEmitter(stream_id, registry)
        self._registry = registry
        self._openers: dict[str, CallOpener] = {}
        literal_openers = [c for c in fmt.calls if not c.peek]
        self._peeks = [c for c in fmt.calls if c.peek]
        for k, opener in enumerate(literal_openers):
            self._openers[f"c{k}"] = opener
        # a broken call ends at the next call's opener or at a reasoning closer (a call
        # opened inside reasoning that breaks ends with the reasoning)
        self._resync = tuple(c.open for c in literal_openers) + tuple(
            pair[1] for pair in fmt.reasoning
        )
        calls = {f"c{k}": [c.open] for k, c in enumerate(literal_openers)}
        thinks = [pair[0] for pair in fmt.reasoning]
        self._thinks = thinks
        closers = {pair[1] for pair in fmt.reasoning}
        sec_open = [pair[0] for pair in fmt.sections]
        sec_close = [pair[1] for pair in fmt.sections]
        drop = sorted(set(fmt.drop) | closers | set(sec_close))
        text_groups: dict[str, list[str]] = {**calls}
        if thinks:
            text_groups["think"] = thinks
        if sec_open:
            text_groups["section"] = sec_open
        if drop:
            text_groups["drop"] = drop
        self._text_lexer = Delimiters(text_groups)
        self._reason_lexers = {
            close: Delimiters(
                {"unthink": [close], **calls, **({"section": sec_open} if sec_open else {})}
            )
            for close in closers
        }
        self._section_lexer = Delimiters({**calls, "unsection": sec_close or ["\x00"]})
        self._closer_of = dict(fmt.reasoning)
        self._utf8 = Utf8Decoder()
        self._mode = _TEXT
        self._close = ""
        if starts_in_reasoning:
            if not fmt.reasoning:
                raise ValueError(f"the {fmt.name!r} format has no reasoning block")
            self._mode, self._close = _REASON, fmt.reasoning[0][1]
        self._held = ""
        self._at_start = bool(self._peeks)
        self._reader: Reader | None = None
        self._out: list[Event] = []
        self._kind = ""
        self._pieces: list[str] = []
        self._text_chars = 0
        self._truncated = False
        self._finished = False

    # ------------------------------------------------------------------ public API

    @property
    def held(self) -> str:
        """Text held back because it could still become markup (outside calls)."""
        return self._held

    @property
    def text_chars(self) -> int:
        """Characters of text shown so far."""
        return self._text_chars

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` was called."""
        return self._finished

    def feed(self, chunk: str | bytes) -> list[Event]:
        """Consume ``chunk`` (text, or UTF-8 bytes split anywhere); the events it settles."""
        if self._finished:
            raise RuntimeError("feed() after finish()")
        for seg in self._utf8.feed(chunk):
            if isinstance(seg, str):
                self._run(seg)
            else:
                self._flush()
                self._out.append(seg)
        return self._take()

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End the reply: held text is released, an open call ends (whole, or
        ``truncated``), and ``StreamDone`` comes last.  Idempotent."""
        if self._finished:
            return []
        for seg in self._utf8.finish():
            if isinstance(seg, str):
                self._run(seg)
            else:
                self._flush()
                self._out.append(seg)
        self._finished = True
        held, self._held = self._held, ""
        if self._mode == _CALL:
            assert self._reader is not None
            self._reader.finish()
            self._reader = None
        elif self._mode == _REASON:
            self._emit("reasoning", held)
        elif self._mode == _TEXT:
            self._emit("text", held)
        self._flush()
        self._out.append(self.emitter.done(done_reason(reason, self._truncated), self._text_chars))
        return self._take()

    # ------------------------------------------------------------------ the sink

    def start(self, call: Call, name: str) -> None:
        self._flush()
        event = self.emitter.start(name, action_id=call.action_id)
        call.index = event.index
        call.name = name
        self._out.append(event)

    def args(self, call: Call, partial: Any, delta: str) -> None:
        if call.index is not None:
            self._out.append(self.emitter.args_delta(call.index, partial, delta))

    def complete(self, call: Call, args: Any) -> None:
        if call.index is None:
            if call.name is None:
                self.invalid(call, "missing_name", "the call has no usable name")
                return
            self.start(call, call.name)
        assert call.index is not None
        self._flush()
        self._out.append(self.emitter.complete(call.index, args, raw="".join(call.raw)))

    def invalid(self, call: Call, reason: str, message: str) -> None:
        self._flush()
        if reason == "truncated":
            self._truncated = True
        errors = ({"message": message},)
        raw = "".join(call.raw)
        if call.index is None:
            self._out.append(self.emitter.reject(call.name, reason, errors, raw, call.action_id))
        else:
            self._out.append(self.emitter.invalid(call.index, reason, errors, raw))

    def reasoning(self, text: str) -> None:
        self._emit("reasoning", text)

    def text(self, text: str) -> None:
        self._emit("text", text)

    def schema(self, name: str) -> Mapping[str, Any] | None:
        get = getattr(self._registry, "json_schema", None)
        if get is None:
            return None
        try:
            value = get(name)
        except (KeyError, ValueError, TypeError):
            return None
        return value if isinstance(value, Mapping) else None

    # ------------------------------------------------------------------ driving

    def _run(self, text: str) -> None:
        if not text:
            return
        if self._held:
            text, self._held = self._held + text, ""
        buf: str | None = text
        while buf:
            mode = self._mode
            if mode == _CALL:
                assert self._reader is not None
                rest = self._reader.feed(buf)
                if rest is None:
                    return
                self._reader = None
                self._mode = self._after_call
                buf = rest
            elif mode == _TEXT:
                buf = self._scan_text(buf)
            elif mode == _REASON:
                buf = self._scan_reason(buf)
            else:
                buf = self._scan_section(buf)

    _after_call = _TEXT

    def _scan_text(self, s: str) -> str | None:
        if self._at_start:
            j = 0
            while j < len(s) and s[j] in _BLANK:
                j += 1
            self._emit("text", s[:j])
            if j == len(s):
                return None
            s = s[j:]
            undecided = False
            for opener in self._peeks:
                assert opener.peek is not None
                verdict = PEEKS[opener.peek](s)
                if verdict:
                    self._at_start = False
                    self._begin_call(opener, "", _TEXT)
                    return s
                if verdict is None:
                    undecided = True
            if undecided and not self._text_lexer.search(s, 0):
                self._held = s
                return None
            if not any(s.startswith(t) or t.startswith(s) for t in self._thinks):
                self._at_start = False  # the reply did not start with a call's shape
        lexer = self._text_lexer
        m = lexer.search(s, 0)
        if m is None:
            end = len(s) - lexer.hold(s, 0)
            self._emit("text", s[:end])
            self._held = s[end:]
            return None
        self._emit("text", s[: m.start()])
        group = m.lastgroup
        rest = s[m.end() :]
        if group == "think":
            self._mode, self._close = _REASON, self._closer_of[m.group()]
        elif group == "section":
            self._mode = _SECTION
        elif group != "drop":
            assert group is not None
            self._begin_call(self._openers[group], m.group(), _TEXT)
        return rest

    def _scan_reason(self, s: str) -> str | None:
        lexer = self._reason_lexers[self._close]
        m = lexer.search(s, 0)
        if m is None:
            end = len(s) - lexer.hold(s, 0)
            self._emit("reasoning", s[:end])
            self._held = s[end:]
            return None
        self._emit("reasoning", s[: m.start()])
        group = m.lastgroup
        self._mode = _TEXT
        if group == "section":
            self._mode = _SECTION
        elif group != "unthink":
            assert group is not None
            self._begin_call(self._openers[group], m.group(), _TEXT)
        return s[m.end() :]

    def _scan_section(self, s: str) -> str | None:
        lexer = self._section_lexer
        m = lexer.search(s, 0)
        end = len(s) - lexer.hold(s, 0) if m is None else m.start()
        between = s[:end]
        stripped = between.lstrip(_BLANK)
        if stripped:  # not markup: the section is over (its closer never came), this is text
            self._mode = _TEXT
            return s[end - len(stripped) :]
        if m is None:
            self._held = s[end:]
            return None
        group = m.lastgroup
        if group == "unsection":
            self._mode = _TEXT
        else:
            assert group is not None
            self._begin_call(self._openers[group], m.group(), _SECTION)
        return s[m.end() :]

    def _begin_call(self, opener: CallOpener, literal: str, after: int) -> None:
        self._flush()
        self._reader = READERS[opener.reader](self, literal, opener.options, self._resync)
        self._mode = _CALL
        self._after_call = after

    # ------------------------------------------------------------------ text out

    def _emit(self, kind: str, text: str) -> None:
        if not text:
            return
        if kind != self._kind:
            self._flush()
            self._kind = kind
        if kind == "text" and self._at_start and text.strip(_BLANK):
            self._at_start = False
        self._pieces.append(text)

    def _flush(self) -> None:
        if not self._pieces:
            return
        text = "".join(self._pieces)
        self._pieces.clear()
        if self._kind == "reasoning":
            self._out.append(reasoning_delta(text))
        else:
            self._text_chars += len(text)
            self._out.append(text_delta(text))

    def _take(self) -> list[Event]:
        self._flush()
        out, self._out = self._out, []
        return out


def parse_model_tags(
    text: str | bytes,
    format: ModelFormat | str,
    reason: FinishReason | None = None,
    **options: Any,
) -> list[Event]:
    """One-shot :class:`ModelTagParser`: ``feed(text)`` then ``finish(reason)``."""
    parser = ModelTagParser(format, **options)
    return [*parser.feed(text), *parser.finish(reason)]

"""``format="auto"``: the model family recognised from the first markup the reply shows.

:class:`AutoTagParser` reads the reply as text (``<think>`` blocks as reasoning, the
end-of-turn tokens of every family dropped) until a literal that only one family
writes appears (``[TOOL_CALLS]``, ``<｜tool▁call▁begin｜>``, ``<|channel|>``, …), or
a shape a family starts its reply with (Llama's ``{"name"``, Llama 4's ``[f(``,
xLAM's ``[{``).  ``<tool_call>`` is shared: the first non-blank character after it
decides (``{`` Hermes/Qwen, ``<`` as in ``<function=`` Qwen3-Coder, ``[`` Granite, a
name GLM).  From there
on the reply is read by that family's
:class:`~unspool.protocols._model_tags.ModelTagParser`, given the markup from its
first character.  Until then only the longest proper prefix of a literal (or an
undecided start) is held back, as in a fixed format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unspool.events import Event, FinishReason, StreamDone
from unspool.protocols._emitter import ActionValidator
from unspool.protocols._model_formats import MODEL_FORMATS, CallOpener, ModelFormat
from unspool.protocols._model_tags import ModelTagParser
from unspool.protocols.tag_args import READERS, Sink
from unspool.protocols.tag_args._base import skip_space

__all__ = ["AUTO_OPENERS", "AutoTagParser"]

AUTO_OPENERS: Mapping[str, str] = {
    "[TOOL_CALLS]": "mistral",
    "[THINK]": "mistral",
    "<|python_tag|>": "llama3_json",
    "<|python_start|>": "pythonic",
    "<function_calls>": "olmo3",
    "<｜tool▁calls▁begin｜>": "deepseek",
    "<｜tool▁call▁begin｜>": "deepseek",
    "<|tool_calls_section_begin|>": "kimi_k2",
    "<|tool_call_begin|>": "kimi_k2",
    "<|channel|>": "harmony",
    "<|start|>": "harmony",
    "<|tool_call|>": "granite",
    "<function_call>": "granite_20b_fc",
    "functools[": "phi4_mini",
    "<tool_calls>": "jamba",
    "<|action_start|>": "internlm2",
    "<seed:think>": "seed_oss",
    "<seed:tool_call>": "seed_oss",
    "<function=": "qwen3_coder",
    "<tool_call>": "",  # shared: decided by what follows (see the module docstring)
}
"""The literals that name a family (``""``: decided by the text after it)."""

_PEEKS = (("json_call", "llama3_json"), ("py_list", "pythonic"), ("json_list", "xlam"))
_MAX_LOOK = 64


class _Detect:
    """The "reader" of an auto opener: holds the markup until the family is known, then
    hands it (from its first character) to the parser of that family."""

    def __init__(self, auto: AutoTagParser, opener: str, family: str) -> None:
        self._auto = auto
        self._text = opener
        self._family = family

    def feed(self, text: str) -> str | None:
        self._text += text
        family = self._family or self._choose(final=False)
        if family:
            self._auto.decide(family, self._text)
        return None

    def finish(self) -> None:
        self._auto.decide(self._family or self._choose(final=True), self._text)

    def _choose(self, *, final: bool) -> str:
        s = self._text
        j = skip_space(s, len("<tool_call>"))
        if j == len(s):
            return "hermes" if final or j > _MAX_LOOK else ""
        if s[j] == "{":
            return "hermes"
        if s[j] == "[":
            return "granite"
        return "qwen3_coder" if s[j] == "<" else "glm45"


def _probe_format() -> ModelFormat:
    calls = [CallOpener(lit, "auto_detect", {"family": fam}) for lit, fam in AUTO_OPENERS.items()]
    calls += [CallOpener("", "auto_detect", {"family": fam}, peek=peek) for peek, fam in _PEEKS]
    drop: set[str] = set()
    for row in MODEL_FORMATS.values():
        drop.update(row.drop)
    drop -= set(AUTO_OPENERS)
    return ModelFormat(
        "auto",
        "any",
        "recognised from the first markup",
        "",
        tuple(calls),
        reasoning=(("<think>", "</think>"),),
        drop=tuple(sorted(drop)),
    )


def _detect(sink: Sink, opener: str, options: Mapping[str, Any], resync: tuple[str, ...]) -> Any:
    auto = getattr(sink, "auto", None)
    assert isinstance(auto, AutoTagParser)
    return _Detect(auto, opener, options["family"])


READERS["auto_detect"] = _detect


class _Probe(ModelTagParser):
    """The parser of the reply until its family is known."""

    auto: AutoTagParser | None = None


class AutoTagParser:
    """Reads a reply in whichever format of the table it turns out to be written in
    (see the module docstring); ``family`` is the format's name once known."""

    def __init__(
        self,
        *,
        stream_id: str | None = None,
        registry: ActionValidator | None = None,
        starts_in_reasoning: bool = False,
    ) -> None:
        self._probe = _Probe(
            _PROBE, stream_id=stream_id, registry=registry, starts_in_reasoning=starts_in_reasoning
        )
        self._probe.auto = self
        self.emitter = self._probe.emitter
        self._registry = registry
        self._inner: ModelTagParser | None = None
        self._handoff = ""
        self.family: str | None = None

    @property
    def held(self) -> str:
        """Text held back because it could still become markup."""
        return self._inner.held if self._inner is not None else self._probe.held

    @property
    def text_chars(self) -> int:
        """Characters of text shown so far."""
        return self._inner.text_chars if self._inner is not None else self._probe.text_chars

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` was called."""
        return self._inner.finished if self._inner is not None else self._probe.finished

    def decide(self, family: str, markup: str) -> None:
        """The reply is in ``family``'s format from ``markup`` on."""
        inner = ModelTagParser(family, stream_id=self.emitter.stream_id, registry=self._registry)
        inner.emitter = self.emitter  # one id sequence for the reply
        inner._text_chars = self._probe.text_chars
        self._inner = inner
        self.family = family
        self._handoff = markup

    def feed(self, chunk: str | bytes) -> list[Event]:
        """Consume ``chunk``; the events it settles."""
        inner = self._inner
        if inner is not None:
            return inner.feed(chunk)
        out = self._probe.feed(chunk)
        return out + self._hand_off()

    def finish(self, reason: FinishReason | None = None) -> list[Event]:
        """End the reply (``StreamDone`` last); idempotent."""
        inner = self._inner
        if inner is not None:
            return inner.finish(reason)
        out = self._probe.finish(reason)
        if self._inner is None:
            return out
        out = [e for e in out if not isinstance(e, StreamDone)]
        return out + self._hand_off() + self._inner.finish(reason)

    def _hand_off(self) -> list[Event]:
        inner, text = self._inner, self._handoff
        if inner is None or not text:
            return []
        self._handoff = ""
        # the probe's UTF-8 decoder already decoded the text: what it still holds (a
        # character cut at the chunk's end) goes on to the inner parser
        pending = self._probe._utf8.pending
        return inner.feed(text) + (inner.feed(pending) if pending else [])


_PROBE = _probe_format()

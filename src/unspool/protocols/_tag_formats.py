"""Wire formats of actions tagged inside prose, and the parsing of their open tags.

A :class:`TagFormat` says which literals open and close an action and where its
name comes from.  Two formats ship:

* :data:`ACTION_TAG`: ``<action name="show" id="7">{"productId": "p1"}</action>``;
  the open tag carries attributes, the body is the arguments object.
* :data:`TOOL_CALL`: ``<tool_call>{"name": "show", "arguments": {...}}</tool_call>``
  (Hermes, Qwen and many open models); the name and arguments are in the body.

Custom literals (``<<A>>`` ... ``<</A>>``) take a fixed ``name`` or a ``name_key``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ACTION_TAG",
    "FORMATS",
    "TOOL_CALL",
    "OpenTag",
    "TagFormat",
    "parse_open_tag",
    "resolve_format",
    "xml_format",
]

_FORBIDDEN = frozenset("`~\n")
"""Characters a delimiter may not hold: they drive the markdown code tracking."""


@dataclass(frozen=True, slots=True)
class TagFormat:
    """How actions are delimited inside prose.

    * ``open``: the literal that starts an action.  With ``attributes=True`` it is
      a tag-name prefix such as ``"<action"`` that must be followed by whitespace,
      ``>`` or ``/``, then attributes up to the ``>`` that ends the open tag.
    * ``close``: the literal that ends an action.
    * The name comes from exactly one place: the ``name_attribute`` of the open
      tag (``attributes=True``), the ``name_key`` of the JSON body, or the fixed
      ``name``.  With ``name_key`` the arguments are the first of ``args_keys``
      present in the body (``{}`` when none is).
    * ``id_attribute``: the open-tag attribute holding a model-supplied id; it is
      kept as ``action_id``, never used for identity.
    """

    open: str
    close: str
    attributes: bool = False
    name_attribute: str = "name"
    name_key: str | None = None
    name: str | None = None
    args_keys: tuple[str, ...] = ("arguments", "parameters")
    id_attribute: str = "id"

    def __post_init__(self) -> None:
        if not self.open or not self.close:
            raise ValueError("a tag format needs non-empty open and close delimiters")
        bad = _FORBIDDEN & (set(self.open) | set(self.close))
        if bad:
            raise ValueError(f"delimiters may not contain {sorted(bad)!r}")
        sources = [self.attributes, self.name_key is not None, self.name is not None]
        if sum(sources) != 1:
            raise ValueError("give exactly one of attributes=True, name_key or name")
        if self.close in self.open or self.open in self.close:
            raise ValueError("the open and close delimiters may not contain each other")


def xml_format(tag: str = "action") -> TagFormat:
    """An XML-like format ``<tag name="…" …>{args}</tag>``."""
    if not re.fullmatch(r"[A-Za-z_][-\w.:]*", tag):
        raise ValueError(f"not a tag name: {tag!r}")
    return TagFormat(f"<{tag}", f"</{tag}>", attributes=True)


ACTION_TAG = xml_format("action")
"""The default format: ``<action name="NAME">{JSON args}</action>``."""

TOOL_CALL = TagFormat("<tool_call>", "</tool_call>", name_key="name")
"""Hermes / Qwen style: ``<tool_call>{"name": …, "arguments": {…}}</tool_call>``."""

FORMATS: Mapping[str, TagFormat] = {"action": ACTION_TAG, "tool_call": TOOL_CALL}
"""The shipped formats by name, as accepted by ``TagParser(format=...)``."""


def resolve_format(fmt: TagFormat | str) -> TagFormat:
    """A :class:`TagFormat` given itself or a name from :data:`FORMATS`."""
    if isinstance(fmt, TagFormat):
        return fmt
    try:
        return FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown tag format {fmt!r}; known: {sorted(FORMATS)}") from None


@dataclass(frozen=True, slots=True)
class OpenTag:
    """A complete open tag: its ``name`` (None when missing), the other
    ``attributes``, the model's ``action_id``, whether it ended with ``/>``, and
    ``error`` (a message) when the tag is not well formed."""

    name: str | None
    attributes: Mapping[str, str]
    action_id: str | None
    self_closing: bool
    error: str | None = None


_LENIENT_ATTR = re.compile(
    r"""\s*(?P<key>[^\s=>/"']+)"""
    r"""(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'>]+)))?"""
)
_STRICT_INNER = re.compile(r'(?: [A-Za-z_:][-\w:.]*="[^"]*")+/?')
_STRICT_ATTR = re.compile(r' ([A-Za-z_:][-\w:.]*)="([^"]*)"')


def parse_open_tag(inner: str, fmt: TagFormat, *, strict: bool) -> OpenTag | None:
    """Parse the text between the tag name and the final ``>`` of an open tag.

    Strict syntax is ``<action name="x" key="v">`` exactly (single spaces, double
    quotes, case as written); a tag that breaks it is not a tag (``None``).
    Lenient syntax accepts any case of attribute names, single, double or no
    quotes, spaces around ``=`` and before ``>``, and bare attributes; a tag it
    cannot read gets an ``error``.
    """
    if strict:
        if not _STRICT_INNER.fullmatch(inner):
            return None
        self_closing = inner.endswith("/")
        attrs = {k: v for k, v in _STRICT_ATTR.findall(inner)}
        error = None
    else:
        body = inner.rstrip()
        self_closing = body.endswith("/")
        if self_closing:
            body = body[:-1]
        attrs = {}
        pos, end = 0, len(body)
        error = None
        while pos < end:
            m = _LENIENT_ATTR.match(body, pos)
            if m is None:
                rest = body[pos:].strip()
                if rest:
                    error = f"cannot read the attributes at {rest!r}"
                break
            value = m.group("dq")
            if value is None:
                value = m.group("sq")
            if value is None:
                value = m.group("bare")
            attrs[m.group("key").lower()] = value if value is not None else ""
            pos = m.end()
    name = attrs.pop(fmt.name_attribute, None)
    if not name and error is None:
        error = f"the open tag has no {fmt.name_attribute!r} attribute"
    if strict and error is not None:
        return None
    return OpenTag(name or None, attrs, attrs.get(fmt.id_attribute), self_closing, error)

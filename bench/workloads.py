"""Deterministic workloads for the bench: documents, chunkers and malformed variants.

Every generator takes a target size in characters and a seed and returns the same
text on every run and machine, so the numbers of two runs compare.  Three shapes
stand for what models stream:

* ``interleaved``: an array of ``{"type": "text", ...}`` and ``{"type": "action", ...}``
  items, the wire format of the interleaved protocol;
* ``structured``: a nested structured-output object, pretty-printed as models do;
* ``toolargs``: one tool-call argument object holding a long code string.

Chunkers cut a text into the pieces a stream would deliver.  ``malformed`` renders a
value with the deviations models write (trailing commas, single quotes, ...), for
the lenient rows; its expected value is always ``json.loads`` of the clean text.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CHUNKERS",
    "DEVIATIONS",
    "KB",
    "SHAPES",
    "SIZES",
    "Document",
    "TaggedProse",
    "chunk",
    "document",
    "malformed",
    "tagged_prose",
]

KB = 1024

SIZES: dict[str, int] = {
    "1KB": 1 * KB,
    "4KB": 4 * KB,
    "24KB": 24 * KB,
    "98KB": 98 * KB,
    "400KB": 400 * KB,
    "1MB": 1024 * KB,
    "4MB": 4096 * KB,
}
"""Size labels and their target lengths in characters (``4MB`` only when asked with
``--sizes``: the one-shot rows' largest size, too long for every streaming row)."""

_VOCABULARY = (
    "the model streams a reply while the user waits and every token counts so the parser "
    "must keep up with text actions values fields arrays objects numbers strings cursor "
    "buffer chunk delta event render screen panel card order invoice shipment product "
    "price review summary section heading paragraph footnote citation source quote "
    "café naïve résumé façade 日本語 データ 中文 한국어 🚀 ✨ — … «quoted» über straße"
)
_WORDS = _VOCABULARY.split()

_ACTIONS = ("show_card", "open_modal", "navigate", "highlight", "play_sound", "set_filter")


@dataclass(frozen=True)
class Document:
    """A workload document: its ``text`` and the value ``json.loads`` gives for it."""

    shape: str
    size_label: str
    text: str
    value: Any


def _sentence(rng: random.Random, lo: int = 6, hi: int = 22) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice((".", ".", "!", "?", ':\n- "quoted"', ".\n\n"))


def _prose(rng: random.Random, sentences: int, brackets: bool) -> str:
    parts = [_sentence(rng) for _ in range(sentences)]
    if brackets and rng.random() < 0.3:
        parts.append(rng.choice(("See [1].", "Use {braces} and [brackets].", "a\\b path")))
    return " ".join(parts)


def _params(rng: random.Random) -> dict[str, Any]:
    return {
        "id": f"p{rng.randint(1, 9999)}",
        "count": rng.randint(0, 500),
        "ratio": round(rng.random(), 4),
        "visible": rng.random() < 0.5,
        "label": _sentence(rng, 2, 6),
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))],
        "anchor": None if rng.random() < 0.5 else {"x": rng.randint(0, 1920), "y": -rng.random()},
    }


def _interleaved_value(target: int, rng: random.Random, brackets: bool) -> list[Any]:
    items: list[Any] = []
    size = 2
    while size < target:
        item: dict[str, Any]
        if rng.random() < 0.6:
            item = {"type": "text", "content": _prose(rng, rng.randint(1, 4), brackets)}
        else:
            item = {"type": "action", "name": rng.choice(_ACTIONS), "params": _params(rng)}
        items.append(item)
        size += len(json.dumps(item, ensure_ascii=False)) + 2
    return items


def _structured_value(target: int, rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "id": f"doc-{rng.randint(1000, 9999)}",
        "title": _sentence(rng, 3, 8),
        "summary": _prose(rng, 2, False),
        "language": "en",
        "version": rng.randint(1, 40),
        "draft": False,
        "reviewer": None,
        "sections": [],
        "stats": {"words": rng.randint(100, 10**6), "reading_minutes": round(rng.random() * 60, 2)},
    }
    size = len(json.dumps(value, ensure_ascii=False, indent=2))
    while size < target:
        section = {
            "heading": _sentence(rng, 2, 6),
            "body": _prose(rng, rng.randint(1, 5), False),
            "tags": [rng.choice(_WORDS) for _ in range(rng.randint(1, 5))],
            "score": round(rng.uniform(-1, 1), 6),
            "published": rng.random() < 0.7,
            "refs": [
                {
                    "url": f"https://example.org/{rng.randint(1, 10**6)}",
                    "year": rng.randint(1990, 2026),
                }
                for _ in range(rng.randint(0, 3))
            ],
        }
        value["sections"].append(section)
        part = json.dumps(section, ensure_ascii=False, indent=2)
        size += len(part) + 4 * part.count("\n") + 6  # nested two levels deeper
    return value


_CODE_LINES = (
    "def handler(event, context):",
    '    """Handle one event and return a response."""',
    "    payload = json.loads(event['body'])",
    '    if payload.get("kind") == "ping":',
    "        return {'status': 200, 'body': \"pong\"}",
    "\tpath = 'C:\\\\temp\\\\out.txt'  # windows path",
    '    message = f"Hello, {name}! Ça va? 🚀"',
    '    pattern = re.compile(r\'^\\s*(\\w+)\\s*=\\s*"([^"]*)"$\')',
    "    for i, row in enumerate(rows):",
    "        total += row.price * row.quantity",
    '    raise ValueError("bad input: %r" % (value,))',
    "",
    "class Cart:",
    "    items: list[Item] = []",
)


def _toolargs_value(target: int, rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "path": "src/app/handler.py",
        "language": "python",
        "mode": "overwrite",
    }
    overhead = len(json.dumps({**value, "content": ""}, ensure_ascii=False))
    lines: list[str] = []
    size = overhead
    while size < target:
        line = rng.choice(_CODE_LINES)
        lines.append(line)
        size += len(json.dumps(line, ensure_ascii=False)) - 2 + 2
    value["content"] = "\n".join(lines)
    return value


SHAPES: tuple[str, ...] = ("interleaved", "structured", "toolargs")


def document(shape: str, size_label: str, *, seed: int = 7, brackets: bool = True) -> Document:
    """The ``shape`` workload of about ``SIZES[size_label]`` characters.

    ``brackets`` puts ``[1]``-style citations and braces inside some text items of the
    interleaved shape (realistic, and a known failure of repair-based parsers).
    """
    target = SIZES[size_label]
    rng = random.Random(f"{shape}:{size_label}:{seed}")
    value: Any
    if shape == "interleaved":
        value = _interleaved_value(target, rng, brackets)
        text = json.dumps(value, ensure_ascii=False)
    elif shape == "structured":
        value = _structured_value(target, rng)
        text = json.dumps(value, ensure_ascii=False, indent=2)
    elif shape == "toolargs":
        value = _toolargs_value(target, rng)
        text = json.dumps(value, ensure_ascii=False)
    else:
        raise ValueError(f"unknown shape {shape!r}; expected one of {SHAPES}")
    return Document(shape, size_label, text, json.loads(text))


# --- chunkers ---------------------------------------------------------------------------


def _fixed(n: int) -> Callable[[str], list[str]]:
    def cut(text: str) -> list[str]:
        return [text[i : i + n] for i in range(0, len(text), n)]

    return cut


def _random_1_12(text: str) -> list[str]:
    rng = random.Random(len(text))
    out: list[str] = []
    i = 0
    while i < len(text):
        n = rng.randint(1, 12)
        out.append(text[i : i + n])
        i += n
    return out


CHUNKERS: dict[str, Callable[[str], list[str]]] = {
    "4": _fixed(4),
    "8": _fixed(8),
    "40": _fixed(40),
    "rand1-12": _random_1_12,
}
"""Chunker name -> function cutting a text into stream chunks (characters)."""


def chunk(text: str, chunker: str) -> list[str]:
    """``text`` cut by the named chunker."""
    return CHUNKERS[chunker](text)


# --- malformed variants -----------------------------------------------------------------

DEVIATIONS: tuple[str, ...] = (
    "trailing_commas",
    "single_quotes",
    "unquoted_keys",
    "comments",
    "python_literals",
    "raw_newlines",
    "missing_commas",
    "truncated",
    "mixed",
)
"""Malformed variants; ``mixed`` is every deviation but truncation at once."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ESCAPE = re.compile(r"\\(.)")


def _raw_control(m: re.Match[str]) -> str:
    """``\\n`` and ``\\t`` escapes written as the raw characters; other escapes kept."""
    return {"n": "\n", "t": "\t"}.get(m.group(1), m.group(0))


class _Renderer:
    """Writes a JSON value with chosen deviations (clean JSON when none is chosen)."""

    def __init__(self, deviations: frozenset[str], rng: random.Random) -> None:
        self.dev = deviations
        self.rng = rng
        self.out: list[str] = []
        self.after_gap = False  # the last separator was a missing comma

    def string(self, s: str, key: bool) -> str:
        # `"x" b: 1` and `'x' 'b': 1` read as unescaped inner quotes, so after a missing
        # comma the next string is written in double quotes: the text has one reading.
        plain, self.after_gap = self.after_gap, False
        if key and not plain and "unquoted_keys" in self.dev and _IDENT.match(s):
            return s
        body = json.dumps(s, ensure_ascii=False)
        if "raw_newlines" in self.dev:
            body = _ESCAPE.sub(_raw_control, body)
        if (
            not plain
            and "single_quotes" in self.dev
            and "'" not in s
            and '"' not in s
            and "\\" not in s
        ):
            return "'" + body[1:-1] + "'"
        return body

    def scalar(self, v: Any) -> str:
        if "python_literals" in self.dev and (v is None or isinstance(v, bool)):
            return repr(v)
        return json.dumps(v)

    def comment(self) -> str:
        if "comments" in self.dev and self.rng.random() < 0.15:
            if self.rng.random() < 0.5:
                return " // note: keep going\n"
            return " /* checked */ "
        return ""

    def comma(self, prev: Any) -> str:
        if (
            "missing_commas" in self.dev
            and isinstance(prev, (str, dict, list))
            and self.rng.random() < 0.3
        ):
            self.after_gap = True
            return " "
        return ", "

    def render(self, value: Any) -> str:
        # Iterative over containers so deep values cost no recursion.
        out = self.out
        stack: list[Iterator[Any]] = []
        kinds: list[bool] = []  # True: object
        prevs: list[Any] = []
        firsts: list[bool] = []

        def open_value(v: Any) -> None:
            if isinstance(v, dict):
                out.append("{")
                stack.append(iter(v.items()))
                kinds.append(True)
                prevs.append(None)
                firsts.append(True)
            elif isinstance(v, list):
                out.append("[")
                stack.append(iter(v))
                kinds.append(False)
                prevs.append(None)
                firsts.append(True)
            elif isinstance(v, str):
                out.append(self.string(v, key=False))
            else:
                out.append(self.scalar(v))

        open_value(value)
        while stack:
            is_obj = kinds[-1]
            try:
                item = next(stack[-1])
            except StopIteration:
                if not firsts[-1] and "trailing_commas" in self.dev:
                    out.append(",")
                out.append("}" if is_obj else "]")
                stack.pop()
                kinds.pop()
                prevs.pop()
                firsts.pop()
                continue
            if not firsts[-1]:
                out.append(self.comma(prevs[-1]))
            firsts[-1] = False
            out.append(self.comment())
            if is_obj:
                k, v = item
                out.append(self.string(k, key=True) + ": ")
            else:
                v = item
            prevs[-1] = v
            open_value(v)
        return "".join(out)


def _truncate(text: str) -> str:
    """``text`` cut inside a string value at about 90% of its length, as a stream
    cut off by the token limit; the cut is never inside an escape sequence.
    (A helper for generated text only: it assumes valid JSON.)"""
    target = int(len(text) * 0.9)
    in_str = False
    escaped = False
    is_key = False
    containers: list[str] = []
    last_sig = ""
    last_cut = 0
    for i, ch in enumerate(text):
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
                last_sig = '"'
            elif not is_key and text[i - 1] != '"':
                last_cut = i
                if i >= target:
                    return text[:i]
            continue
        if ch == '"':
            in_str = True
            is_key = bool(containers) and containers[-1] == "{" and last_sig in "{,"
        elif ch in "{[":
            containers.append(ch)
        elif ch in "}]":
            containers.pop()
        if not ch.isspace():
            last_sig = ch
    return text[:last_cut]  # no string value after the target: the last one before it


def _closers(prefix: str) -> str:
    """The characters that complete a prefix cut inside a string value."""
    in_str = False
    escaped = False
    containers: list[str] = []
    for ch in prefix:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            containers.append("}" if ch == "{" else "]")
        elif ch in "}]":
            containers.pop()
    return ('"' if in_str else "") + "".join(reversed(containers))


def malformed(doc: Document, deviation: str, *, seed: int = 11) -> Document:
    """``doc`` rendered with one deviation of :data:`DEVIATIONS`.

    The expected value is ``doc.value``, except for ``truncated``, whose expected
    value is the prefix completed with its closers (the string cut where it stops).
    """
    rng = random.Random(f"{doc.shape}:{doc.size_label}:{deviation}:{seed}")
    if deviation == "truncated":
        text = _truncate(doc.text)
        return Document(doc.shape, doc.size_label, text, json.loads(text + _closers(text)))
    if deviation == "mixed":
        chosen = frozenset(DEVIATIONS) - {"truncated", "mixed"}
    elif deviation in DEVIATIONS:
        chosen = frozenset({deviation})
    else:
        raise ValueError(f"unknown deviation {deviation!r}; expected one of {DEVIATIONS}")
    text = _Renderer(chosen, rng).render(doc.value)
    return Document(doc.shape, doc.size_label, text, doc.value)


# --- prose with action tags ----------------------------------------------------------------


@dataclass(frozen=True)
class TaggedProse:
    """Prose with ``<action name="...">{json}</action>`` tags: the ``text``, the prose
    pieces between the tags (one more than the actions) and each ``(name, args)``."""

    text: str
    prose: list[str]
    actions: list[tuple[str, Any]]


def tagged_prose(target: int, n_actions: int, *, seed: int = 5) -> TaggedProse:
    """About ``target`` characters of prose holding ``n_actions`` action tags, evenly
    spaced.  Arguments are small JSON objects; the prose holds stray ``<`` (``a < b``)."""
    rng = random.Random(f"tags:{target}:{n_actions}:{seed}")
    tags: list[tuple[str, Any, str]] = []
    for _ in range(n_actions):
        name = rng.choice(_ACTIONS)
        args = _params(rng)
        tags.append(
            (name, args, f'<action name="{name}">{json.dumps(args, ensure_ascii=False)}</action>')
        )
    tag_chars = sum(len(t[2]) for t in tags)
    gap = max(1, (target - tag_chars) // (n_actions + 1))
    pieces: list[str] = []
    prose: list[str] = []
    for i in range(n_actions + 1):
        part = ""
        while len(part) < gap:
            part += _sentence(rng) + (" a < b, " if rng.random() < 0.1 else " ")
        part = part[:gap]
        pieces.append(part)
        prose.append(part)
        if i < n_actions:
            pieces.append(tags[i][2])
    return TaggedProse("".join(pieces), prose, [(n, a) for n, a, _ in tags])

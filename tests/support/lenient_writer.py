"""Valid values written as JSON with the deviations models make (lenient mode's
property tests, the C machine's differential tests, ``find_json``'s tests)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

DEVIATIONS = (
    "tc",
    "sq",
    "uk",
    "cm",
    "pl",
    "cc",
    "mc",
    "iq",
    "lc",
    "uv",
    "ie",
    "el",
    "cq",
    "lz",
    "mv",
    "us",
)

BARE = re.compile(r"[a-z][a-z0-9_ -]*[a-z0-9]\Z|[a-z]\Z")
NOT_BARE = {"true", "false", "null", "none", "nan", "infinity"}
SAFE_ESCAPE = set("acdegjkmopqsvwxyz(")
IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*\Z")
_CHARS = st.sampled_from(list("ab xyZ_$-09\"'\\/\n\t\r\x01{}[],:é😀"))
_WORDS = st.text(alphabet=st.sampled_from(list("ab xZ09")), max_size=4)

TEXTS = st.one_of(
    st.text(alphabet=_CHARS, max_size=8),
    # quotes followed by a letter or digit: where an unescaped inner quote is recoverable
    st.builds(lambda a, q, b: f"{a}{q}x{b}", _WORDS, st.sampled_from(['"', "'"]), _WORDS),
    st.builds(lambda a, c, b: a + c + b, _WORDS, st.sampled_from(list("\n\t\r\x00\x1f")), _WORDS),
)

KEYS = st.one_of(TEXTS, st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$-]{0,5}", fullmatch=True))

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXTS,
)

VALUES = st.recursive(
    SCALARS,
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(KEYS, kids, max_size=4)),
    max_leaves=14,
)


class Writer:
    """Writes a value as JSON text with the enabled deviations drawn at random sites."""

    def __init__(self, draw: st.DrawFn, enabled: frozenset[str]) -> None:
        self.draw = draw
        self.on = enabled

    def maybe(self, kind: str) -> bool:
        return kind in self.on and self.draw(st.booleans())

    def ws(self) -> str:
        out = self.draw(st.sampled_from(["", "", " ", "\n", "  "]))
        if self.maybe("us"):
            out += self.draw(st.sampled_from(["\u00a0", "\u3000", " \u202f"]))
        if self.maybe("cm"):
            body = self.draw(st.text(alphabet=st.sampled_from(list("ab {}[]\",:'/")), max_size=6))
            # a line comment that ends with the input is refused when it holds a closer,
            # a comma and the next member ('// }, "b"'): the comment swallowed the document
            body = re.sub(r"([\]}][ ]*),", r"\1", body)
            out += self.draw(st.sampled_from([f"/*{body}*/", f"//{body}\n"]))
            out += self.draw(st.sampled_from(["", " ", "\n"]))
        return out

    def string(self, text: str, *, key: bool, bare: bool = True) -> str:
        """``bare``: may be written unquoted (never at the root, where a word is prose)."""
        if (
            bare
            and not key
            and BARE.match(text)
            and text.lower() not in NOT_BARE
            and self.maybe("uv")
        ):
            return text
        plain = not any(c in text for c in '"\\\u201c\u201d') and min(text, default="a") >= " "
        if plain and self.maybe("cq"):
            return "\u201c" + text + "\u201d"
        quote = "'" if self.maybe("sq") else '"'
        other = '"' if quote == "'" else "'"
        out = [quote]
        for i, ch in enumerate(text):
            nxt = text[i + 1 : i + 2]
            if ch == "\\":
                out.append("\\" if nxt in SAFE_ESCAPE and self.maybe("ie") else "\\\\")
            elif ch == quote:
                inner_ok = not key and nxt.isascii() and nxt.isalnum()
                out.append(ch if inner_ok and self.maybe("iq") else "\\" + ch)
            elif ch == other:
                out.append(ch)
            elif ch < " ":
                out.append(ch if self.maybe("cc") else json.dumps(ch)[1:-1])
            else:
                out.append(ch)
        out.append(quote)
        return "".join(out)

    def scalar(self, value: Any) -> str:
        word = json.dumps(value)
        if (isinstance(value, bool) or value is None) and self.maybe("pl"):
            return {"true": "True", "false": "False", "null": "None"}[word]
        if (isinstance(value, bool) or value is None) and self.maybe("lc"):
            return self.draw(
                st.sampled_from([word.upper(), word.title(), word[0] + word[1:].upper()])
            )
        if type(value) is int and value >= 0 and self.maybe("lz"):
            return "00"[: self.draw(st.integers(1, 2))] + word
        return word

    def value(self, value: Any) -> str:
        if isinstance(value, str):
            return self.string(value, key=False)
        if isinstance(value, list):
            return self.container("[", "]", [(self.value(v), isinstance(v, str)) for v in value])
        if isinstance(value, dict):
            members: list[tuple[str, bool | None]] = []
            for k, v in value.items():
                if IDENT.match(k) and self.maybe("uk"):
                    key_text = k + self.ws()
                else:
                    key_text = self.string(k, key=True) + self.ws()
                if v is None and self.maybe("mv"):
                    members.append((key_text + ":" + self.ws(), None))  # '"k": ,' reads null
                    continue
                members.append((key_text + ":" + self.ws() + self.value(v), isinstance(v, str)))
            return self.container("{", "}", members)
        return self.scalar(value)

    def container(self, opener: str, closer: str, items: Sequence[tuple[str, bool | None]]) -> str:
        """``items``: (text, ends with a string value)."""
        out = [opener, self.ws()]
        for i, (text, ends_in_string) in enumerate(items):
            if opener == "[" and self.maybe("el"):
                out.append(self.draw(st.sampled_from(["...", "\u2026"])) + "," + self.ws())
            out.append(text)
            if i + 1 < len(items):
                before = self.ws()
                after = self.ws()
                nxt = (after + items[i + 1][0]).lstrip(" \n")
                # a missing comma after a string is recoverable only before '"' or a comment
                drop = (
                    ends_in_string is not None  # a missing value keeps its comma
                    and self.maybe("mc")
                    and (not ends_in_string or nxt[:1] in ('"', "/"))
                )
                out.append(before + (" " if drop else ",") + after)
            else:
                out.append(self.ws())
                if self.maybe("tc"):
                    out.append("," + self.ws())
        out.append(closer)
        return "".join(out)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, str, frozenset[str]]:
    """(clean JSON, the same value written with deviations, the deviations enabled)."""
    value = draw(VALUES)
    enabled = frozenset(draw(st.sets(st.sampled_from(DEVIATIONS))))
    writer = Writer(draw, enabled)
    root = writer.string(value, key=False, bare=False) if isinstance(value, str) else None
    dirty = writer.ws() + (root if root is not None else writer.value(value)) + writer.ws()
    return json.dumps(value), dirty, enabled

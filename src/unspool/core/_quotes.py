"""Lenient mode's hardest call: is a quote the end of a string, or a quote inside it?

Models write ``"He said "hi" to me"``.  When lenient mode meets a quote inside a
string value it looks at what follows (a bounded lookahead, carried to the next
chunk when the chunk ends first) and decides once, so the live value only ever
grows.  At the end of the input (``eof``) the end counts as a delimiter.
"""

from __future__ import annotations

import re
from typing import Final, cast

from unspool.core import _lexicon as lx

__all__ = [
    "CLOSE",
    "INNER",
    "INNER_QUOTE_WS",
    "PLAIN",
    "REFUSE",
    "UNDECIDED",
    "decide_close",
    "missing_quote",
    "word_follows",
]

CLOSE: Final = 1
INNER: Final = 0
UNDECIDED: Final = -1
REFUSE: Final = 2
"""Neither reading is safe (``"a" + "b"``, a JavaScript concatenation): the parser refuses."""
INNER_QUOTE_WS: Final = 256
"""Whitespace after a quote beyond which it is taken as a real close (bounds the lookahead)."""

# Runs matched at most one character past the bound: each decision reads a bounded
# window, however long the run, so re-deciding a carried quote costs O(1).
_BOUND: Final = INNER_QUOTE_WS + 1
_ws: Final = cast(lx.Run, re.compile(rf"[ \t\n\r{lx.UNICODE_SPACES}]{{0,{_BOUND}}}").match)
"""Blanks after a quote, Unicode spaces included: '"x"\u00a0,' is a close whatever the
parser then makes of the space (a blank with ``unicode_space``, else an error)."""
_ident: Final = cast(lx.Run, re.compile(rf"[A-Za-z0-9_$\-]{{0,{_BOUND}}}").match)
_number: Final = cast(lx.Run, re.compile(rf"[-+0-9.eE]{{0,{_BOUND}}}").match)

LITERAL_WORDS: Final = frozenset(
    {"true", "false", "null", "True", "False", "None", "NaN", "Infinity"}
)
_LOWER_WORDS: Final = frozenset(w.lower() for w in LITERAL_WORDS)


def _literal(word: str) -> bool:
    """A literal in any case (``TRUE``, ``Null``) or a Python / NaN spelling."""
    return word.lower() in _LOWER_WORDS


def decide_close(
    text: str,
    j: int,
    in_object: bool,
    eof: bool = False,
    plain: bool = False,
    glued: bool = True,
    pair: bool = True,
) -> int:
    """Lenient mode: is the quote just before ``text[j]`` a real close or an inner quote?

    It closes when what follows (after whitespace) is a closer, a colon, a quote, a
    comment (``//`` or ``/*``), a ``<`` (a closing tag), an unquoted key and its ``:``
    in an object (a missing comma), a comma followed by something that can start the
    next member or item, or, in an array, the next item without its comma (a number
    or literal ending at a delimiter, ``[`` or ``{``); otherwise the quote belongs to
    the text (``"He said "hi" to me"``, ``"a "5 apples" b"``).  ``plain``: the string
    is an array item of one short word so far (``["value1" value2", "x"]``): a blank,
    one word and its own closing quote or the item's delimiter also close it.
    """
    k = _ws(text, j).end()
    if k - j > INNER_QUOTE_WS:
        return CLOSE
    if k >= len(text):
        return CLOSE if eof else UNDECIDED
    c = text[k]
    if c == '"' and k == j and pair and text[j - 1 : j] == '"':
        # '"He said "yes""': an inner quote right before the closing one (one level:
        # a run of quotes costs O(1) per quote)
        after = decide_close(text, j + 1, in_object, eof, False, glued, False)
        if after == UNDECIDED:
            return UNDECIDED
        return INNER if after == CLOSE else CLOSE
    if c in "}]:\"'<":  # '<': the closing tag right after a tagged action's body
        return CLOSE
    if c == "+":
        return REFUSE  # '"a" + "b"': as text, the operator and quotes would join the value
    if c in "`#/":
        return _comment_follows(text, k, eof)
    if c == ",":  # (inline: the common case)
        k2 = _ws(text, k + 1).end()
        if k2 - k > INNER_QUOTE_WS:
            return CLOSE
        if k2 >= len(text):
            return CLOSE if eof else UNDECIDED
        c2 = text[k2]
        if c2 in "\"'{[]}/-0123456789.\u2026" or c2 in lx.CURLY_DOUBLE or c2 in lx.CURLY_SINGLE:
            return CLOSE
        if c2 in lx.IDENT_START:
            verdict = word_follows(text, k2, in_object, True, eof, glued)
            if verdict == INNER and not in_object:
                return _unquoted_items(text, k2, eof)  # '["", a]': a missing quote's items
            return verdict
        return INNER
    if in_object:
        return _key_follows(text, k, eof)
    return _item_after(text, j, k, eof, plain)


def _comment_follows(text: str, k: int, eof: bool) -> int:
    """After the quote, at ``text[k]``: a ``//`` or ``/*`` comment, a ``# comment`` or a
    closing fence closes the string; another ``/``, ``#`` or backtick is text."""
    if k + 1 >= len(text):
        return CLOSE if eof else UNDECIDED
    c = text[k]
    if c == "/":
        return CLOSE if text[k + 1] in "/*" else INNER
    return CLOSE if text[k + 1] in (" `" if c == "#" else "`") else INNER


def _key_follows(text: str, k: int, eof: bool) -> int:
    """In an object, after the quote, at ``text[k]``: a value where a key must come (a
    number or literal), or an unquoted key and its colon, closes the string (its comma
    was missing)."""
    c = text[k]
    if c in lx.NUMBER_START:
        # '{"a": "x" 1}': a value where a key must come, never text swallowed
        return _item_follows(text, k, _number(text, k).end(), eof)
    if c in lx.IDENT_START:
        k2 = _ident(text, k).end()
        word = text[k:k2].lower()
        if k2 >= len(text) and not eof and any(w.startswith(word) for w in _LOWER_WORDS):
            return UNDECIDED
        if word in _LOWER_WORDS and k2 - k <= INNER_QUOTE_WS:
            verdict = _item_follows(text, k, k2, eof)
            if verdict != INNER:
                return verdict
        return word_follows(text, k, True, False, eof)
    return INNER


def _item_after(text: str, j: int, k: int, eof: bool, plain: bool) -> int:
    """In an array (or at the root), after the quote, at ``text[k]``: the next item
    without its comma (a container, an ellipsis, a number or literal ending at a
    delimiter, or for a ``plain`` one-word string a word item) closes the string."""
    c = text[k]
    if c in "[{\u2026":
        return CLOSE  # the next item of an array (or an ellipsis), its comma missing
    if c == ".":
        if len(text) - k < 3 and not eof and "...".startswith(text[k:]):
            return UNDECIDED
        return CLOSE if text.startswith("...", k) else INNER
    if c in lx.NUMBER_START:
        return _item_follows(text, k, _number(text, k).end(), eof)
    if c in lx.IDENT_START:
        k2 = _ident(text, k).end()
        word = text[k:k2].lower()
        if k2 >= len(text) and not eof and any(w.startswith(word) for w in _LOWER_WORDS):
            return UNDECIDED  # "tr" may yet be "true"
        if word in _LOWER_WORDS:
            return _item_follows(text, k, k2, eof)
        if plain and k > j:
            return _word_item(text, k2, eof)
    return INNER


def _word_item(text: str, k2: int, eof: bool) -> int:
    """After ``"word" next``: ``next`` is the following item when its own closing quote
    and a delimiter, or the delimiter itself, end it (``"consectetur" comment" ]``)."""
    if k2 >= len(text):
        return CLOSE if eof else UNDECIDED
    if text[k2] == '"':
        k3 = _ws(text, k2 + 1).end()
        if k3 - k2 > INNER_QUOTE_WS:
            return INNER
        if k3 >= len(text):
            return CLOSE if eof else UNDECIDED
        return CLOSE if text[k3] in ",]" else INNER
    k3 = _ws(text, k2).end()
    if k3 - k2 > INNER_QUOTE_WS:
        return INNER
    if k3 >= len(text):
        return CLOSE if eof else UNDECIDED
    return CLOSE if text[k3] in ",]" else INNER


PLAIN: Final = re.compile(r'[^ \t\n\r"]{1,64}')
"""A string so far that is one short word, without a quote (``fullmatch``)."""


_items: Final = cast(
    lx.Run, re.compile(rf"[^\"\\\[\]{{}}\u201c\u201d\u201e\u201f]{{0,{_BOUND}}}").match
)


def _unquoted_items(text: str, k: int, eof: bool) -> int:
    """Words (and commas) from ``text[k]`` after ``",`` in an array: unquoted items if a
    closer ends them before any quote (``["", a, b]``), or if they are single words each
    followed by its comma and the quoted item after them ends at a delimiter (``["x", a,
    "y"]``); prose otherwise (``"x", then left"``, ``"ok", fine, "then" left"``).  Runs
    past the bound, or ending in anything else, keep the prose reading."""
    k2 = _items(text, k).end()
    if k2 - k > INNER_QUOTE_WS:
        return INNER
    if k2 >= len(text):
        return CLOSE if eof else UNDECIDED
    if text[k2] in "]}":
        return CLOSE
    if text[k2] == '"' and _ITEM_WORDS.fullmatch(text, k, k2):
        return _quoted_item_follows(text, k2 + 1, eof)
    return INNER


_ITEM_WORDS: Final = re.compile(r"(?:[A-Za-z_$][\w$.\-]*[ \t]*,[ \t]*)+")
"""Unquoted items, each one word followed by its comma (``a, b, ``)."""
_quoted: Final = cast(lx.Run, re.compile(rf'(?:[^"\\\n]|\\.){{0,{_BOUND}}}').match)


def _quoted_item_follows(text: str, p: int, eof: bool) -> int:
    """After ``", a, "``: the quoted item opened before ``text[p]`` is an item (the string
    before the words closed: ``CLOSE``) when a delimiter follows its closing quote."""
    q = _quoted(text, p).end()
    if q - p > INNER_QUOTE_WS:
        return INNER
    if q >= len(text) or (text[q] == "\\" and q + 1 == len(text)):  # (an escape cut short)
        return CLOSE if eof else UNDECIDED
    if text[q] != '"':
        return INNER  # a line break inside it: prose
    r = _ws(text, q + 1).end()
    if r - q > INNER_QUOTE_WS:
        return INNER
    if r >= len(text):
        return CLOSE if eof else UNDECIDED
    return CLOSE if text[r] in ",]}" else INNER


def _item_follows(text: str, k: int, k2: int, eof: bool) -> int:
    """A number or literal ``text[k:k2]`` after a quote in an array: a missing comma if
    a delimiter (or the end) follows it, prose otherwise (``"a "5 apples" b"``)."""
    if k2 - k > INNER_QUOTE_WS:
        return INNER
    k3 = _ws(text, k2).end()
    if k3 - k > INNER_QUOTE_WS:
        return INNER
    if k3 >= len(text):
        return CLOSE if eof else UNDECIDED
    return CLOSE if text[k3] in ",]}" or (k3 > k2 and text[k3] in "\"'[{") else INNER


def word_follows(
    text: str,
    k: int,
    in_object: bool,
    literal_closes: bool,
    eof: bool = False,
    glued: bool = False,
) -> int:
    """A word starts at ``text[k]`` after a quote: a literal item (after a comma) or an
    unquoted key followed by ``:`` (not ``://``, a URL) or a comment means the quote
    closed the string; any other word is prose (``"x", then left"``)."""
    k2 = _ident(text, k).end()
    if k2 - k > INNER_QUOTE_WS:
        return INNER
    if k2 >= len(text):
        return CLOSE if eof else UNDECIDED
    if literal_closes and _literal(text[k:k2]):
        return CLOSE
    if not in_object:
        return INNER
    k3 = _ws(text, k2).end()
    if k3 - k > INNER_QUOTE_WS:
        return INNER
    if k3 >= len(text):
        return CLOSE if eof else UNDECIDED
    if text[k3] == "/":
        return CLOSE
    if text[k3] == '"' and k3 == k2 and glued:
        # '"a": "x",b": 1': the next key, its opening quote missing
        k4 = _ws(text, k3 + 1).end()
        if k4 - k > INNER_QUOTE_WS:
            return INNER
        if k4 >= len(text):
            return CLOSE if eof else UNDECIDED
        return CLOSE if text[k4] == ":" else INNER
    if text[k3] != ":":
        return INNER
    if k3 > k2:
        return CLOSE
    if k3 + 2 >= len(text):
        return CLOSE if eof else UNDECIDED
    return INNER if text[k3 + 1 : k3 + 3] == "//" else CLOSE  # "https://..." is text


_MQ_OBJECT: Final = re.compile(r',[ \t\r\n]{0,64}"[^"\\\n]{0,64}"[ \t\r\n]{0,64}:')
_MQ_ARRAY: Final = re.compile(r',[ \t\r\n]{0,64}"[^"\\\n]{0,64}"[ \t\r\n]{0,64}[,\]]')
_MQ_PREFIX: Final = re.compile(r',[ \t\r\n]{0,64}(?:"[^"\\\n]{0,64}(?:"[ \t\r\n]{0,64})?)?\Z')


def missing_quote(text: str, i: int, in_object: bool, eof: bool = False) -> int:
    """Lenient mode, at a ``,`` inside a string value: did the string end before it?

    ``CLOSE`` when the comma is followed by the next member (``, "key":``) or item
    (``, "x",``) whose opening quote would otherwise be an inner quote: the model
    forgot the closing quote (``{"city": "New York, "zip": "10001"}``).  In valid JSON
    the first quote after such a comma always closes the string, so this never fires.
    """
    m = (_MQ_OBJECT if in_object else _MQ_ARRAY).match(text, i)
    if m is None:
        if not eof and _MQ_PREFIX.match(text, i):
            # the next member may still arrive; but once the quote after the comma is
            # known to close the string (``"a, "<`` or ``"a, "}``), the comma is text
            # whatever follows, as when the whole string is in one chunk
            q = text.find('"', i)
            if q < 0 or decide_close(text, q + 1, in_object, eof, glued=False) != CLOSE:
                return UNDECIDED
        return INNER
    q = text.index('"', i)
    verdict = decide_close(text, q + 1, in_object, eof, glued=False)
    if verdict == UNDECIDED:
        return UNDECIDED
    return CLOSE if verdict == INNER else INNER

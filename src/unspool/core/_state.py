"""The state that crosses between the C machine and the pure-Python machine, named once.

In lenient mode the C machine (``_speedups.c``) hands a stream over to the
pure-Python machine (:func:`unspool.core._jsonstream._resume`) at a repair or a
decision it leaves to the reference, and takes it back at the next member it reads.
The two meet through the records below, whose fields are named as the members of
the C struct ``Machine`` they come from (a few are derived: the comments say from
what).  The C side declares the same field lists (``_speedups.HANDOVER_FIELDS`` and
``GIVEBACK_FIELDS``), checks them against these classes when the C type is made,
and fills and reads the records by those names; the Python machine resumes from and
gives back by attribute.  ``tests/core/test_machine_state.py`` holds the two lists
together.  Adding a state variable: a field here, the same name in the C list.

:class:`Helpers` is what the C machine borrows from the Python side (event types,
errors, the reference's lenient decisions), one field per helper, read by name.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["MACHINE_STEPS", "Giveback", "Handover", "Helpers"]


class Handover(NamedTuple):
    """C -> Python: the C machine's state at ``s[i]`` when it hands the stream over."""

    stack: list[Any]  # the open containers, innermost last (Machine.stack[k].cont)
    cpaths: list[Any]  # their paths, events only (Machine.stack[k].path)
    key: Any  # the key whose value is expected in the innermost object, or None
    state: int  # the machine state (ST_* in C, _VALUE... in jsonstream)
    glue: bool  # a root number or literal just ended
    rlist: Any  # release_items: the root array (Machine.root when r_on), else None
    shift: int  # release_items: how many of its items were released
    is_key: bool  # the in-flight string is a key
    sbuf: str  # its text so far (in an unquoted key: Machine.ubuf)
    s_path: Any  # its path (events only)
    d_start: int  # how much of sbuf StringDelta already reported
    s_pos: int  # stream offset of its opening quote
    nbuf: str  # the in-flight number's text
    n_pos: int  # its stream offset
    ubuf: str  # the in-flight unquoted token's text
    u_pos: int  # its stream offset
    base: int  # stream offset of s[0]
    eof: bool  # handed over at finish()
    s: str  # the chunk being read
    i: int  # where in it
    give_back: int  # stream offset past which the Python machine gives back (-1: never)
    quote: str  # the in-flight string's quote: '"' or "'"
    c_end: str  # the comment's end, "\n" or "*/" (from Machine.c_block), or ""
    c_ret: int  # the state after the comment
    c_closer: bool  # a line comment in a container ran over a closer and the next member
    c_tail: str  # the comment's last text
    ctrl_seen: bool  # the in-flight string reported its raw control character


class Giveback(NamedTuple):
    """Python -> C: the state the C machine takes the stream back in, at ``s[i]``
    (``s`` None: at the chunk boundary).  Fields as in :class:`Handover`."""

    stack: list[Any]
    cpaths: list[Any]
    key: Any
    state: int
    glue: bool
    rlist: Any
    shift: int
    s: str | None
    i: int


class Helpers(NamedTuple):
    """What ``_speedups.make_type`` reads from the Python side, by attribute name."""

    UNSET: Any  # errors.UNSET
    parse_error: Any
    MalformedJSON: Any
    LimitExceeded: Any
    deep_copy: Any  # snapshot.deep_copy
    big_int: Any  # numbers.big_int
    ValueStart: Any  # path_events
    StringDelta: Any
    ValueEnd: Any
    Skipped: Any
    path_flat: int
    path_link: Any
    DeepValueStart: Any
    DeepStringDelta: Any
    DeepValueEnd: Any
    # lenient mode: the reference's decisions, and the hand-over to its machine
    resume: Any  # jsonstream._resume
    kinds_of: Any
    close_verdict: Any
    string_cut: Any
    string_fast: Any
    token: Any
    glued_quote: Any
    repair: Any
    repair_window: Any
    Handover: Any  # the records above, which C fills and reads
    Giveback: Any


MACHINE_STEPS: dict[str, str] = {
    "setup": "the text a chunk starts with: what was held back, then the chunk",
    "boundary": "the end of a chunk (a streaming string value's short loop)",
    "string": "inside a string or key: plain runs, escapes, the closing quote",
    "value": "where a value is expected: at the root, after ':', in an array",
    "key": "where a key is expected: after '{' or ','",
    "colon": "after a key",
    "after_value": "after a value inside a container: ',' or the closer",
    "number": "inside a number token",
    "token": "inside an unquoted value or key (lenient)",
    "comment": "inside a comment (lenient)",
    "preamble": "before the root value (skip_preamble); C hands it over",
    "after_root": "after the root value, a fenced one too",
    "end": "the end of input (finish())",
}
"""The steps both machines are cut along, named the same in each: a ``# step: <name>``
section of the Python driver or its ``_step_<name>`` function, C's ``step_<name>`` (or a
``/* step: <name> */`` section); ``tests/core/test_machine_steps_*.py`` hold both to it."""

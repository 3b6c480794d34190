"""Snapshots of a growing parsed value that share every part that can no longer change.

An :class:`~unspool.events.ActionArgsDelta` is a value: its ``partial`` must show,
when read later, what it showed when it was emitted, while the parser goes on
growing the live arguments.  A deep copy per delta would make a stream of ``n``
characters cost O(n^2).  :class:`ArgsSnapshots` copies only what may still
change.  The core parser only ever changes the containers it has open, and an
open container has at most one open child: in a list the last item (lists only
grow at the end), in an object the value assigned last.  So a snapshot is a
shallow copy of each open container on that chain, with the chain's next link
replaced by its own snapshot; every closed value is shared, never copied, and a
container that did not change since the previous snapshot is that snapshot.

Which value of an object was assigned last is read from identities: a value
whose identity changed since the previous snapshot was assigned since then (a
string in flight is written back as a new string, a container is assigned when
it opens).  When several containers were assigned between two snapshots (or a
duplicate key reassigned an earlier one), each of them is followed until the
object changes again; all but one of them closed within the same feed, so the
extra work stays bounded by what that feed held.

Cost.  A snapshot costs the width of the open containers (C-level copies and
identity checks) plus the depth of the chain, and one more thing no sharing can
avoid: a ``str`` given out cannot grow in place, so the parser's next append to
the string in flight copies it (O(its length)).  To keep a stream O(n) whatever
its shape (one long string, one wide array), a new snapshot is taken only when
the argument text that arrived since the last one is at least ``1/REFRESH`` of
all of it (and always at the end); in between, a delta carries the previous
snapshot again.  Small arguments therefore get a new snapshot on every feed,
and a 100 KB string one about every 800 characters: the copying totals at most
``REFRESH`` times the argument text.  Snapshots share closed parts with each
other and with the final ``ActionComplete.args``: treat them as read-only.

Speed.  :class:`ArgsSnapshots` is the reference.  When the C machine runs
(``unspool.accelerated``), :func:`new_snapshots` gives the C form of ``take``
(``unspool.protocols._snapshots``), which runs the same steps in C (on C nodes,
which the code here then makes too) and hands values nested deeper than its
recursion allows to :func:`_snapshot` here; a protocol takes a snapshot on every
argument chunk, and the Python bookkeeping was a quarter of its time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from operator import is_not
from typing import Any, Protocol

from unspool.core import _machines as machines

__all__ = ["ArgsSnapshots", "Snapshots", "new_snapshots"]


class Snapshots(Protocol):
    """What a protocol needs of a snapshot maker: :meth:`ArgsSnapshots.take`."""

    def take(self, live: Any, grown: int, final: bool = False, changed: bool = True) -> Any:
        """A snapshot of ``live`` (see :meth:`ArgsSnapshots.take`)."""


class _Node:
    """What the previous snapshot knew about one open container."""

    __slots__ = ("copy", "kids", "seen", "src")

    def __init__(self, src: Any, seen: Any, copy: Any, kids: dict[Any, _Node]) -> None:
        self.src = src  # the live container (kept alive, so identities stay meaningful)
        self.seen = seen  # a list's (length, last item); an object's values, in order
        self.copy = copy  # the snapshot given out
        self.kids = kids  # key or index -> the node of a child container that may be open


class ArgsSnapshots:
    """Successive snapshots of one live value (see the module doc).

    ``take(live, grown)`` returns a value equal to ``live`` as it stands, which the
    parser's later growth of ``live`` never changes; ``grown`` is how many characters
    of argument text arrived since the previous call.  A snapshot is refreshed when
    that text is at least ``1/REFRESH`` of all the text so far, or when ``final``;
    otherwise the previous snapshot is returned again.
    """

    REFRESH = 128

    __slots__ = ("_at", "_exact", "_last", "_root", "_total")

    def __init__(self) -> None:
        self._root: _Node | None = None
        self._last: Any = None
        self._exact = False  # _last shows the live value as it was at the last call
        self._total = 0  # characters of argument text seen
        self._at = -1  # ... when the last snapshot was taken

    def take(self, live: Any, grown: int, final: bool = False, changed: bool = True) -> Any:
        """A snapshot of ``live`` sharing what did not change since the last one, or
        the last one again while little text arrived since (see the class doc).

        ``changed=False`` says ``live`` did not change since the previous call (no path
        event came in between): when the last snapshot showed it as it was then, that
        snapshot is the answer, without looking at ``live``."""
        total = self._total + grown
        self._total = total
        node = self._root
        if node is not None and node.src is live:
            if not changed and self._exact:
                if final or (total - self._at) * self.REFRESH >= total:
                    self._at = total  # a new snapshot would have been this one
                return self._last
            if not final and (total - self._at) * self.REFRESH < total:
                self._exact = self._exact and not changed
                return self._last
            copy = _quick(live, node, 0)
            if copy is None:
                copy, self._root = _snapshot(live, node)
        else:
            t = type(live)
            if t is not dict and t is not list:
                self._root = None
                if t is str and not final:
                    # a root string in flight: each new one is a copy of all of it, so
                    # the same refresh rule keeps the copying linear
                    if type(self._last) is str and (total - self._at) * self.REFRESH < total:
                        return self._last
                    self._last = live
                    self._at = total
                return live
            copy, self._root = _snapshot(live, None)
        self._last = copy
        self._at = self._total
        self._exact = True
        return copy


def _is_container(value: Any) -> bool:
    t = type(value)
    return t is dict or t is list


_QUICK_DEPTH = 100
"""How deep :func:`_quick` (which recurses) follows open children before it leaves
the snapshot to :func:`_snapshot` (which does not)."""


def _quick(src: Any, node: _Node, depth: int) -> Any:
    """The common snapshots without the general bookkeeping, updating ``node`` in
    place: the container ``src`` unchanged but for its one open child (followed
    down), or changed only in its last value or by new values none of which is a
    container.  None (with nothing updated) when that is not the case: then
    :func:`_snap` decides.  Both give the same snapshot."""
    t = type(src)
    vals: Any
    if t is dict:
        vals = list(src.values())
        before = node.seen
        m = len(before)
        if not m:
            return None if vals else node.copy
        if any(map(is_not, vals[: m - 1], before)):
            return None  # an earlier value was replaced: a duplicate key
        if vals[m - 1] is before[m - 1]:
            if len(vals) == m:
                return _quick_kid(node, None, depth)
            tail = vals[m:]  # new values only
        else:
            tail = vals[m - 1 :]  # the last value was replaced, and maybe values added
        for value in tail:
            t = type(value)
            if t is dict or t is list:
                return None
        copy = src.copy()
    elif t is list:
        n = len(src)
        last = src[-1] if n else None
        seen = node.seen
        if seen[0] == n and seen[1] is last:
            return _quick_kid(node, n - 1, depth)
        t = type(last)
        if t is dict or t is list:
            return None
        copy = src[:]
        vals = (n, last)
    else:
        return None
    node.seen = vals
    node.copy = copy
    node.kids = {}
    return copy


def _quick_kid(node: _Node, index: int | None, depth: int) -> Any:
    """:func:`_quick` of a container with nothing assigned since the last snapshot: only
    its open child (at ``index`` for a list, the one followed for an object) may grow."""
    kids = node.kids
    if not kids:
        return node.copy
    if len(kids) != 1:
        return None
    ((key, kid),) = kids.items()
    if index is not None and key != index:
        return None
    old = kid.copy
    if depth >= _QUICK_DEPTH:
        return None  # nothing was updated yet at any level: _snapshot decides
    copy = _quick(kid.src, kid, depth + 1)
    if copy is None:
        return None
    if copy is old:
        return node.copy
    out = node.copy.copy()
    out[key] = copy
    node.copy = out
    return out


_Snap = Generator[tuple[Any, "_Node | None"], tuple[Any, _Node], tuple[Any, _Node]]
"""A snapshot in progress: it yields ``(child, node)`` for each child container to
snapshot and is sent that child's ``(copy, node)``; it returns its own."""


def _snapshot(src: Any, node: _Node | None) -> tuple[Any, _Node]:
    """Snapshot ``src`` (see :func:`_snap`) with an explicit stack instead of recursion:
    the parser allows values nested 1000 deep, deeper than Python's call stack."""
    stack = [_snap(src, node)]
    result: Any = None
    while True:
        try:
            child, kid = stack[-1].send(result)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value  # type: ignore[no-any-return]
            result = done.value
        else:
            stack.append(_snap(child, kid))
            result = None


def _snap(src: Any, node: _Node | None) -> _Snap:
    """Snapshot the container ``src`` given what ``node`` (about the same ``src``) knew."""
    if type(src) is list:
        return (yield from _snap_list(src, node))
    return (yield from _snap_dict(src, node))


def _follow(src: Any, key: Any, old: dict[Any, _Node]) -> _Snap:
    """Snapshot the child container ``src[key]``, with its node if it is the same one."""
    child = src[key]
    kid = old.get(key)
    if kid is not None and kid.src is not child:
        kid = None
    return (yield child, kid)


def _snap_list(src: list[Any], node: _Node | None) -> _Snap:
    n = len(src)
    last = src[-1] if n else None
    kids: dict[Any, _Node] = {}
    if node is not None and node.seen[0] == n and node.seen[1] is last:
        # no item added or replaced: only the last one, if open, may have grown
        kid = node.kids.get(n - 1)
        if kid is None:
            return node.copy, node
        copy, kids[n - 1] = yield last, kid
        if copy is kid.copy:
            return node.copy, node
        out = src[:]
        out[-1] = copy
        return out, _new_node(src, node.seen, out, kids)
    out = src[:]  # every item but the last is closed: shared
    if _is_container(last):
        out[-1], kids[n - 1] = yield from _follow(src, n - 1, {} if node is None else node.kids)
    return out, _new_node(src, (n, last), out, kids)


def _snap_dict(src: dict[Any, Any], node: _Node | None) -> _Snap:
    vals = list(src.values())
    if node is None:
        # new since the last snapshot: any container in it may be the open one
        keys = [k for k, v in src.items() if _is_container(v)]
        return (yield from _dict_copy(src, vals, keys, {}))
    before = node.seen
    m = len(before)  # an object only grows: its first m keys are the same keys
    if not m and not vals:
        return node.copy, node  # still empty
    if m and vals[m - 1] is before[m - 1] and not any(map(is_not, vals[: m - 1], before)):
        if len(vals) == m:
            return (yield from _same_dict(src, node))
        # new keys only: the open value is among them
        keys = _containers(list(src)[m:], vals[m:])
    elif not m or not any(map(is_not, vals[: m - 1], before)):
        # the last value was replaced (a string in flight), and maybe keys added
        keys = _containers(list(src)[m - 1 :], vals[m - 1 :]) if m else _containers(list(src), vals)
    else:  # an earlier value was replaced: a duplicate key
        keys = [
            k
            for i, (k, v) in enumerate(src.items())
            if _is_container(v) and (i >= m or v is not before[i])
        ]
    return (yield from _dict_copy(src, vals, keys, node.kids))


def _containers(keys: list[Any], vals: list[Any]) -> list[Any]:
    """The keys whose values are containers."""
    return [k for k, v in zip(keys, vals, strict=True) if _is_container(v)]


def _same_dict(src: dict[Any, Any], node: _Node) -> _Snap:
    """No value assigned since the last snapshot: follow the same open candidates."""
    kids: dict[Any, _Node] = {}
    copies: dict[Any, Any] = {}
    for key, kid in node.kids.items():
        copy, kids[key] = yield kid.src, kid
        if copy is not kid.copy:
            copies[key] = copy
    if not copies:
        return node.copy, node
    out = node.copy.copy()
    out.update(copies)
    return out, _new_node(src, node.seen, out, kids)


def _dict_copy(
    src: dict[Any, Any], vals: list[Any], keys: list[Any], old: dict[Any, _Node]
) -> _Snap:
    out = src.copy()  # closed values shared
    kids: dict[Any, _Node] = {}
    for key in keys:
        out[key], kids[key] = yield from _follow(src, key, old)
    return out, _new_node(src, vals, out, kids)


_new_node: Callable[[Any, Any, Any, dict[Any, _Node]], _Node] = _Node
"""Makes the nodes: :class:`_Node`, or the C form's node type when that is built."""


def _load_c() -> Callable[[], Snapshots] | None:
    global _new_node
    if not machines.ACCELERATED:
        return None  # UNSPOOL_PURE=1: nothing in C
    try:
        from unspool.protocols import _snapshots  # type: ignore[attr-defined]
    except ImportError:
        return None
    _snapshots.configure(_snapshot)
    _new_node = _snapshots.Node
    return _snapshots.ArgsSnapshots  # type: ignore[no-any-return]


C_SNAPSHOTS: Callable[[], Snapshots] | None = _load_c()
"""The C form's type, or None when it is not built."""


def new_snapshots() -> Snapshots:
    """A new snapshot maker: the C form when the C machine is selected and the form is
    built, else :class:`ArgsSnapshots` (both give the same snapshots)."""
    if C_SNAPSHOTS is not None and machines.selected() == "c":
        return C_SNAPSHOTS()
    return ArgsSnapshots()

"""Detached deep copies of parsed values, without recursion."""

from __future__ import annotations

from typing import Any

__all__ = ["CYCLE", "deep_copy", "max_depth"]


CYCLE = "the live value holds itself (a cycle added to it): it has no JSON copy"
"""The ``ValueError`` :func:`deep_copy` raises for a container met inside itself."""


def deep_copy(value: Any) -> Any:
    """Copy every dict and list in ``value`` (other values are immutable and shared).

    Iterative, so a document nested 100,000 levels deep copies without a
    ``RecursionError``.  A container met inside itself (only code outside the
    parser can make one, on the live value) raises ``ValueError(CYCLE)`` instead of
    copying forever; one held twice side by side is copied twice, as before.
    """
    if type(value) is dict:
        root: Any = {}
    elif type(value) is list:
        root = []
    else:
        return value
    seen = {id(value)}  # a container met twice is shared, or a cycle: _checked tells
    work: list[tuple[Any, Any]] = [(value, root)]
    while work:
        src, dst = work.pop()
        if type(src) is dict:
            for k, v in src.items():
                t = type(v)
                if t is dict or t is list:
                    if id(v) in seen:
                        return _checked(value)
                    seen.add(id(v))
                    child: Any = {} if t is dict else []
                    dst[k] = child
                    work.append((v, child))
                else:
                    dst[k] = v
        else:
            for v in src:
                t = type(v)
                if t is dict or t is list:
                    if id(v) in seen:
                        return _checked(value)
                    seen.add(id(v))
                    child = {} if t is dict else []
                    dst.append(child)
                    work.append((v, child))
                else:
                    dst.append(v)
    return root


def _checked(value: Any) -> Any:
    """:func:`deep_copy` of a value holding a container twice: depth first, with the
    containers open on the way down, so a shared one is copied each time and a cycle
    raises."""
    kind = type(value)
    root: Any = {} if kind is dict else []
    open_ids = {id(value)}
    # one open container per level: (its items, its copy, its id, a dict?)
    stack: list[tuple[Any, Any, int, bool]] = [
        (iter(value.items()) if kind is dict else iter(value), root, id(value), kind is dict)
    ]
    while stack:
        items, dst, src_id, is_dict = stack[-1]
        for item in items:
            v = item[1] if is_dict else item
            t = type(v)
            if t is dict or t is list:
                if id(v) in open_ids:
                    raise ValueError(CYCLE)
                child: Any = {} if t is dict else []
                if is_dict:
                    dst[item[0]] = child
                else:
                    dst.append(child)
                open_ids.add(id(v))
                stack.append((iter(v.items()) if t is dict else iter(v), child, id(v), t is dict))
                break
            if is_dict:
                dst[item[0]] = v
            else:
                dst.append(v)
        else:
            stack.pop()
            open_ids.discard(src_id)
    return root


def max_depth(value: Any, limit: int) -> int:
    """Nesting depth of ``value`` (a scalar is 0, ``[]`` is 1), counting no further than
    ``limit + 1``: enough to tell whether a limit is exceeded without walking everything."""
    if type(value) is not dict and type(value) is not list:
        return 0
    deepest = 1
    work: list[tuple[Any, int]] = [(value, 1)]
    while work:
        node, depth = work.pop()
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        children = node.values() if type(node) is dict else node
        for v in children:
            t = type(v)
            if t is dict or t is list:
                work.append((v, depth + 1))
    return deepest

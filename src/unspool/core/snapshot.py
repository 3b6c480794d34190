"""Detached deep copies of parsed values, without recursion."""

from __future__ import annotations

from typing import Any

__all__ = ["deep_copy", "max_depth"]


def deep_copy(value: Any) -> Any:
    """Copy every dict and list in ``value`` (other values are immutable and shared).

    Iterative, so a document nested 100,000 levels deep copies without a
    ``RecursionError``.
    """
    if type(value) is dict:
        root: Any = {}
    elif type(value) is list:
        root = []
    else:
        return value
    work: list[tuple[Any, Any]] = [(value, root)]
    while work:
        src, dst = work.pop()
        if type(src) is dict:
            for k, v in src.items():
                t = type(v)
                if t is dict or t is list:
                    child: Any = {} if t is dict else []
                    dst[k] = child
                    work.append((v, child))
                else:
                    dst[k] = v
        else:
            for v in src:
                t = type(v)
                if t is dict or t is list:
                    child = {} if t is dict else []
                    dst.append(child)
                    work.append((v, child))
                else:
                    dst.append(v)
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

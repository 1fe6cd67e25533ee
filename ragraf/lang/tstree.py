"""Small helpers over a tree-sitter tree that every extractor uses.

Invariants a change must keep:
- tree-sitter is not imported at run time here (types only), so importing this is free.
- Part of every language's facts key (registry ``_COMMON``): a change here re-extracts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node


def innermost(spans: list[tuple[int, int, int]], line: int) -> int | None:
    """The innermost (start, end, index) span around a line (spans sorted by start line)."""
    best = None
    for s, e, i in spans:
        if s > line:
            break
        if s <= line <= e:
            best = i
    return best


def first_error(root: Node) -> int | None:
    """The line of the first syntax error (an ``ERROR`` or missing node)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return int(n.start_point[0]) + 1
        if n.has_error:
            stack.extend(reversed(n.children))
    return None

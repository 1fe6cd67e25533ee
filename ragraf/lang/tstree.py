"""Small helpers over a tree-sitter tree that every extractor uses.

Invariants a change must keep:
- tree-sitter is imported inside the functions only, so importing this is free
  (``ragraf --help`` must not load it); queries and parsers are cached per process.
- Part of every language's facts key (registry ``_COMMON``): a change here re-extracts.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query


@cache
def query(language: str, file: str) -> Query:
    """The compiled query ``ragraf/queries/<file>`` for a grammar (once per process)."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    from ragraf import resources

    src = (resources.queries_dir() / file).read_text(encoding="utf-8")
    return Query(get_language(language), src)  # type: ignore[arg-type]


@cache
def parser(language: str) -> Parser:
    """The parser of a grammar of tree-sitter-language-pack (once per process)."""
    from tree_sitter_language_pack import get_parser

    return get_parser(language)  # type: ignore[arg-type]


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

"""What an extractor produces for one file: the unit of caching and of work
shipped between processes.

Invariants a change must keep:
- FileFacts depend only on (path, file content, extractor version): nothing
  global, so they can be computed in any process, in any order, and reused
  by a later build for a file whose sha256 did not change.
- Node ids are final here (§5.3); cross-file links are not: they stay as
  ``refs`` until ``ragraf.build.resolve`` sees every file.
- Everything is plain tuples / lists / dicts (cheap to pickle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A node: (node_id, kind, name, fqn, start_line, end_line, props, layer)
Node = tuple[str, str, str, str, int, int, dict[str, Any], str]
# A local edge, finished: (src, dst, kind, evidence_line)
LocalEdge = tuple[str, str, str, int]


@dataclass
class ClassDecl:
    node: int  # index into FileFacts.nodes
    fqn: str
    kind: str  # class | interface | trait | enum
    extends: list[tuple[str, int]] = field(default_factory=list)  # (fqn, line)
    implements: list[tuple[str, int]] = field(default_factory=list)
    traits: list[tuple[str, int]] = field(default_factory=list)
    methods: dict[str, int] = field(default_factory=dict)  # lower name -> node index
    props: dict[str, list[Any]] = field(default_factory=dict)  # name -> type descs
    consts: dict[str, int] = field(default_factory=dict)  # name -> node index
    abstract: bool = False


@dataclass
class Chunk:
    source_kind: str  # symbol | file | doc
    node: int | None  # index into FileFacts.nodes
    start_line: int
    end_line: int
    header: str  # line 0 of chunk_text
    code: str  # lines start_line..end_line
    symbol_tokens: str
    code_tokens: str
    sql_tokens: str
    text_tokens: str


@dataclass
class FileFacts:
    path: str
    lang: str | None
    status: str  # ok | partial | failed
    note: str | None
    lines: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[LocalEdge] = field(default_factory=list)
    classes: list[ClassDecl] = field(default_factory=list)
    functions: list[tuple[str, int]] = field(default_factory=list)  # (fqn, node index)
    returns: dict[int, list[Any]] = field(default_factory=dict)  # node index -> type descs
    refs: list[tuple[Any, ...]] = field(default_factory=list)
    scope_nodes: list[int] = field(default_factory=list)  # scope index -> node index
    global_assigns: list[tuple[str, Any]] = field(default_factory=list)
    texts: list[tuple[int, int, str, str, int | None]] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)

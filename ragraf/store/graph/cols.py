"""The columns of graph.sqlite's tables and the SQL fragments the writer and the readers
share (``ragraf.store.graph``).

Invariants a change must keep:
- A ``*_COLS`` list is the order of the columns in the rows of ``ragraf.model`` the
  readers build and in the rows ``GraphStore.write_rows`` takes.
- ``edge.sources`` holds '' for ``DEFAULT_SOURCES`` (``stored_edges`` writes it, ``EDGE_READ``
  reads it back): a reader never sees ''.
- ``sql_list`` takes constant kind names only (members of ``ragraf.kinds``), never user
  input.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from ragraf.kinds import DB_OBJECT, ENTRY_EDGES, MAP_GRAPH, SYMBOL
from ragraf.model import EdgeRow, NodeRow

NODE_COLS = "node_id, kind, name, fqn, path, start_line, end_line, props, layer"
EDGE_COLS = (
    "src, dst, kind, provenance, evidence_path, evidence_line, confidence, sources, edge_uid, props"
)
#: the sources of most edges (135 000 of WordPress's 144 000), stored as '' (issue 44: one
#: revision's disk; graph migration 0007 turned the rows of before into it)
DEFAULT_SOURCES = '["tree-sitter"]'
#: ``EDGE_COLS`` as the readers select them: the stored '' read as ``DEFAULT_SOURCES``
EDGE_READ = EDGE_COLS.replace("sources", f"iif(sources = '', '{DEFAULT_SOURCES}', sources)", 1)
FILE_COLS = "path, lang, lines, sha256, parse_status, parse_note, size, mtime_ns"
FLOW_COLS = "unit_id, func_node_id, path, start_line, end_line, kind, data, sources"
TABLE_COLS = "table_id, table_name, engine, row_estimate, source"
COLUMN_COLS = "table_id, ord, column_name, data_type, is_nullable, column_key"
FK_COLS = "from_table, from_column, to_table, to_column"
ROUTE_COLS = "node_id, route, method, evidence_path, evidence_line"
TEXT_COLS = "chunk_id, owner_node_id, path, start_line, end_line, text_kind, raw"
#: the tables of rows made of the files' contents alone (``write_content``)
CONTENT_TABLES = ("text_chunk", "flow_unit")
UNRESOLVED_COLS = "name, kind, src, path, line, reason, detail"
#: tables whose rows belong to a range of revisions (``ragraf.store.ranges``)
REV_TABLES = (
    "file",
    "node",
    "edge",
    "text_chunk",
    "cfg_edge",
    "dfg_edge",
    "db_table",
    "db_column",
    "db_fk",
    "web_route",
    "invalidated",
    "coverage",
    "node_rank",
    "unresolved_call",
    "flow_unit",
)


def blob(text: str) -> bytes:
    """A file's text as ``file_blob.data`` stores it (zlib, level 1: the build packs each
    text as soon as it is no longer read, so a large corpus does not hold its source twice)."""
    return zlib.compress(text.encode("utf-8", "surrogateescape"), 1)


def sql_list(values: Iterable[str]) -> str:
    """A literal SQL list of constant kind names: ``'class','method'``.

    The planner picks the kind index for literal lists only (a bound json_each
    list made one lookup a full scan). Only members of
    ``ragraf.kinds`` may pass here, never user input.
    """
    out = []
    for v in values:
        if not v.replace("_", "").isalnum():
            raise ValueError(f"not a kind name: {v!r}")
        out.append(f"'{v}'")
    return ",".join(out)


def by_place(rows: list[NodeRow]) -> list[NodeRow]:
    """Node rows in path and line order (a stable order for answers)."""
    return sorted(rows, key=lambda r: (r.path or "", r.start_line or 0, r.kind, r.node_id))


SYMBOL_KINDS = sql_list(SYMBOL)
MAP_KINDS = sql_list(MAP_GRAPH)
DB_KINDS = sql_list(DB_OBJECT)
ENTRY_EDGE_KINDS = sql_list(ENTRY_EDGES)


def stored_edges(rows: Iterable[EdgeRow]) -> Iterator[EdgeRow]:
    """Edge rows as graph ``edge`` stores them: ``DEFAULT_SOURCES`` as ''."""
    for r in rows:
        yield r._replace(sources="") if r.sources == DEFAULT_SOURCES else r

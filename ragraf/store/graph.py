"""graph.sqlite: nodes, edges, files, text, coverage of every retained revision.

Invariants a change must keep:
- Rows are shared by the revisions that have them (``ragraf.store.ranges``: a row is
  in revision n when rev_from <= n < rev_to). A building revision's rows are written
  in one transaction as the delta against the newest revision; readers never see them
  (rev.json does not name it).
- A sealed revision's view never changes; retention deletes only rows no retained
  revision has (``prune_before``), a revision undone before its seal leaves the rows
  as they were (``delete_rev``).
- Reads return ``ragraf.model`` rows; every read is scoped to one revision (the
  revision's number is the query's first parameter, ``?1``).
- SQL on this file lives here and nowhere else.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ragraf import ids
from ragraf.errors import StoreError
from ragraf.kinds import DB_OBJECT, ENTRY_EDGES, MAP_GRAPH, SYMBOL, NodeKind, Provenance
from ragraf.model import (
    CoverageRow,
    DbColumnRow,
    DbFkRow,
    DbTableRow,
    EdgeRow,
    FileRow,
    FlowUnitRow,
    MapSymbol,
    NodeRow,
    RankEdge,
    RankRow,
    Reached,
    RevisionRows,
    RouteRow,
    TextRow,
    UnresolvedRow,
)
from ragraf.store import ranges
from ragraf.store.db import Database
from ragraf.store.ranges import rev_no

NODE_COLS = "node_id, kind, name, fqn, path, start_line, end_line, props, layer"
EDGE_COLS = (
    "src, dst, kind, provenance, evidence_path, evidence_line, confidence, sources, edge_uid, props"
)
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


def _ordered_columns(columns: Iterable[DbColumnRow]) -> Iterator[tuple[Any, ...]]:
    """db_column rows with their position in their table (the order the build gave)."""
    seen: dict[str, int] = {}
    for c in columns:
        ord_ = seen.get(c[0], 0)
        seen[c[0]] = ord_ + 1
        yield (c[0], ord_, *c[1:])


def sql_list(values: Iterable[str]) -> str:
    """A literal SQL list of constant kind names: ``'class','method'``.

    The planner picks the kind index for literal lists only (a bound json_each
    list made one lookup a scan: measured 19 ms vs 0.01 ms). Only members of
    ``ragraf.kinds`` may pass here, never user input.
    """
    out = []
    for v in values:
        if not v.replace("_", "").isalnum():
            raise ValueError(f"not a kind name: {v!r}")
        out.append(f"'{v}'")
    return ",".join(out)


def _by_place(rows: list[NodeRow]) -> list[NodeRow]:
    return sorted(rows, key=lambda r: (r.path or "", r.start_line or 0, r.kind, r.node_id))


_SYMBOL_KINDS = sql_list(SYMBOL)
_MAP_KINDS = sql_list(MAP_GRAPH)
_DB_KINDS = sql_list(DB_OBJECT)
_ENTRY_EDGES = sql_list(ENTRY_EDGES)


def _rename_ids(db: Database, n: int, moved: dict[str, str], paths: Iterable[str]) -> ranges.Delta:
    """The open edges of ``paths`` with the ``moved`` ids renamed (an edge's uid is made
    again of its ends), inside ``write_rows``' transaction. The linker's edge props hold no
    node ids (counts, reasons, names), so a row to rename has a moved end; the other rows
    these files own hold their own ids (a route's node is its file's and line's), which
    did not move."""
    ranges.set_scope(db, paths, ranges.RENAMED)
    ranges.set_whole(db, moved, ranges.MOVED)
    mine = ranges.in_scope("evidence_path", table=ranges.RENAMED)
    ends = f"(src IN (SELECT id FROM {ranges.MOVED}) OR dst IN (SELECT id FROM {ranges.MOVED}))"

    def edge(r: tuple[Any, ...]) -> tuple[Any, ...] | None:
        src, dst, kind, prov, path, line, conf, sources, _uid, props = r
        a, b = moved.get(src, src), moved.get(dst, dst)
        if a == src and b == dst:
            return None
        return (
            a,
            b,
            kind,
            prov,
            path,
            line,
            conf,
            sources,
            ids.edge_uid(a, b, kind, path, line),
            props,
        )

    return ranges.rename_rows(db, "edge", EDGE_COLS, n, f"{ends} AND {mine}", edge)


class GraphStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "graph", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- revisions ----------------------------------------------------------
    def revs(self) -> list[tuple[str, str]]:
        """(rev_id, state) of every revision with rows here, oldest first."""
        return [
            (r[0], r[1]) for r in self.db.query("SELECT rev_id, state FROM rev ORDER BY rev_id")
        ]

    def rev_row(self, rev_id: str) -> dict[str, Any] | None:
        keys = ("rev_id", "created_at", "corpus_hash", "config_hash", "extractor_versions", "state")
        row = self.db.query_one(f"SELECT {', '.join(keys)} FROM rev WHERE rev_id=?", (rev_id,))
        return None if row is None else dict(zip(keys, row, strict=True))

    def begin_rev(
        self,
        rev_id: str,
        created_at: str,
        corpus_hash: str,
        config_hash: str,
        extractor_versions: dict[str, str],
    ) -> None:
        with self.db.write():
            self.db.execute(
                "INSERT INTO rev(rev_id, created_at, corpus_hash, config_hash, extractor_versions,"
                " state) VALUES (?,?,?,?,?,'building')",
                (
                    rev_id,
                    created_at,
                    corpus_hash,
                    config_hash,
                    json.dumps(extractor_versions, sort_keys=True),
                ),
            )

    def analyze(self) -> None:
        """Refresh the planner's statistics after a revision is written."""
        self.db.execute("PRAGMA optimize=0x10002")

    def set_state(self, rev_id: str, state: str) -> None:
        with self.db.write():
            self.db.execute("UPDATE rev SET state=? WHERE rev_id=?", (state, rev_id))

    def rev_rows(self, rev_id: str) -> dict[str, list[tuple[Any, ...]]]:
        """Every row the revision has, by table, without ranges (comparisons of builds)."""
        return {t: ranges.visible(self.db, t, rev_no(rev_id)) for t in REV_TABLES}

    def delete_rev(self, rev_id: str) -> None:
        """Undo a revision that was not sealed: its rows go, the rows it closed are open
        again (``ranges.undo``), then the blobs and facts no row names."""
        with self.db.write():
            ranges.undo(self.db, REV_TABLES, rev_no(rev_id))
            self.db.execute("DELETE FROM rev WHERE rev_id=?", (rev_id,))
            self._drop_unused_blobs()

    def prune_before(self, oldest: str, pruned: Iterable[str]) -> int:
        """Retention: delete the rows no revision from ``oldest`` on has, and the ``rev`` rows
        of the ``pruned`` revisions; returns the number of rows deleted."""
        with self.db.write():
            gone = ranges.prune_before(self.db, REV_TABLES, rev_no(oldest))
            self.db.executemany("DELETE FROM rev WHERE rev_id=?", ((r,) for r in pruned))
            self._drop_unused_blobs()
        return gone

    def _drop_unused_blobs(self) -> None:
        self.db.execute("DELETE FROM file_blob WHERE sha256 NOT IN (SELECT sha256 FROM file)")
        self.db.execute("DELETE FROM file_facts WHERE sha256 NOT IN (SELECT sha256 FROM file)")

    # -- writing ------------------------------------------------------------
    def write_rows(
        self,
        rev_id: str,
        rows: RevisionRows,
        scope: Iterable[str] | None = None,
        whole: Iterable[str] = (),
        content: Iterable[str] | None = None,
        content_written: bool = False,
        moved: dict[str, str] | None = None,
        renamed: Iterable[str] = (),
    ) -> ranges.Delta:
        """The rows of a building revision, in one transaction: only what differs from the
        newest revision is written (``ranges.write_delta``).

        ``scope`` (paths): ``rows`` holds, of the tables whose rows belong to a path (node,
        edge, text_chunk, flow_unit, unresolved_call, web_route), only the rows of those
        paths (and the nodes without a path); the other paths' rows stay as they are. The
        file table and the revision-wide tables are written whole. ``whole`` (node ids,
        with a scope): nodes that are the revision's rather than their path's (tables known
        only from code and their columns, the old ones and the new): ``rows`` holds every
        node of these ids and every edge from them, which replace the open ones wherever
        they are. ``content`` (paths of the scope; None: all of it): the paths whose texts
        and flow units ``rows`` holds; the other paths of the scope keep theirs.
        ``content_written``: those two tables are written already (``write_content``), and
        left as they are. ``moved`` (old id -> new id of declarations that only moved) and
        ``renamed`` (paths outside the scope): the open edges of those paths take the new ids
        and their new edge_uid (``Resolved.moved``)."""
        db, n = self.db, rev_no(rev_id)
        done = ranges.Delta()
        with db.write():
            owned: dict[str, str | None] = {}
            if scope is not None:
                ranges.set_scope(db, scope)
                own = ranges.SCOPE
                if content is not None:
                    ranges.set_scope(db, content, ranges.CONTENT)
                    own = ranges.CONTENT
                whole = list(whole)
                if whole:
                    ranges.set_whole(db, whole)
                owned = {
                    "web_route": ranges.in_scope("evidence_path"),
                    "node": ranges.in_scope(
                        "path", with_null=True, or_whole="node_id" if whole else None
                    ),
                    "edge": ranges.in_scope("evidence_path", or_whole="src" if whole else None),
                    "text_chunk": ranges.in_scope("path", table=own),
                    "unresolved_call": ranges.in_scope("path"),
                    "flow_unit": ranges.in_scope("path", table=own),
                }
            put = [
                ("db_table", TABLE_COLS, rows.tables),
                ("db_column", COLUMN_COLS, _ordered_columns(rows.columns)),
                ("db_fk", FK_COLS, rows.fks),
                ("node_rank", "node_id, shell", rows.shells),
                ("web_route", ROUTE_COLS, rows.routes),
                ("file", FILE_COLS, rows.files),
                ("node", NODE_COLS, rows.nodes),
                ("edge", EDGE_COLS, rows.edges),
                ("text_chunk", TEXT_COLS, rows.texts),
                ("coverage", "metric, value, note", rows.coverage),
                ("unresolved_call", UNRESOLVED_COLS, rows.unresolved),
                ("flow_unit", FLOW_COLS, rows.flow_units),
            ]
            if content_written:
                put = [p for p in put if p[0] not in CONTENT_TABLES]
            for table, cols, table_rows in put:
                done += ranges.write_delta(db, table, cols, table_rows, n, owned.get(table))
            if scope is not None and moved and renamed:
                done += _rename_ids(db, n, moved, renamed)
            db.executemany(
                "INSERT OR IGNORE INTO file_blob(sha256, data) VALUES (?, ?)", rows.blobs
            )
        return done

    def write_content(
        self,
        rev_id: str,
        texts: Iterable[TextRow],
        flows: Iterable[FlowUnitRow],
        content: Iterable[str] | None = None,
        blobs: Iterable[tuple[str, bytes]] = (),
    ) -> ranges.Delta:
        """The rows of a building revision made of its files' contents alone (texts, flow
        units), in one transaction of their own, before the rest (``write_rows`` with
        ``content_written``): only what differs from the newest revision is written.
        ``content`` (paths): the rows are those of these paths only; the other paths' stay.
        ``blobs``: new files' texts (sha256, ``blob``), kept by content (a build killed
        before its seal leaves them for the next build, or for retention to drop)."""
        db, n = self.db, rev_no(rev_id)
        done = ranges.Delta()
        with db.write():
            db.executemany("INSERT OR IGNORE INTO file_blob(sha256, data) VALUES (?, ?)", blobs)
            where = None
            if content is not None:
                ranges.set_scope(db, content, ranges.CONTENT)
                where = ranges.in_scope("path", table=ranges.CONTENT)
            done += ranges.write_delta(db, "text_chunk", TEXT_COLS, texts, n, where)
            done += ranges.write_delta(db, "flow_unit", FLOW_COLS, flows, n, where)
        return done

    # -- what a scoped build reads of the newest revision (ranges.OPEN rows) -----
    def open_rank_pairs(
        self, kinds: Iterable[str], outside: Iterable[str], inside: bool = False
    ) -> list[tuple[str, str]]:
        """(src, dst) of the newest revision's edges of ``kinds`` whose evidence is in none
        of the ``outside`` paths (``inside``: in one of them)."""
        with self.db.write():  # the scope table is per connection
            ranges.set_scope(self.db, outside)
            marks = ",".join("?" * len(list(kinds := list(kinds))))
            return [
                (r[0], r[1])
                for r in self.db.query(
                    f"SELECT src, dst FROM edge WHERE rev_to = {ranges.OPEN} AND kind IN ({marks})"
                    f" AND {'' if inside else 'NOT '}{ranges.in_scope('evidence_path')}",
                    tuple(kinds),
                )
            ]

    def open_node_keys(self, paths: Iterable[str]) -> list[tuple[str, str, str | None, str | None]]:
        """(node_id, kind, fqn, path) of the newest revision's nodes in these paths."""
        with self.db.write():  # the scope table is per connection
            ranges.set_scope(self.db, paths)
            return [
                (r[0], r[1], r[2], r[3])
                for r in self.db.query(
                    f"SELECT node_id, kind, fqn, path FROM node WHERE rev_to = {ranges.OPEN}"
                    f" AND {ranges.in_scope('path')}"
                )
            ]

    def open_shells(self) -> list[RankRow]:
        """The newest revision's k-core shells (``node_rank``)."""
        return self.db.rows(
            RankRow, f"SELECT node_id, shell FROM node_rank WHERE rev_to = {ranges.OPEN}"
        )

    def open_pathless_nodes(self) -> list[NodeRow]:
        """The newest revision's nodes without a path (declarations outside the corpus,
        request parameters)."""
        return self.db.rows(
            NodeRow, f"SELECT {NODE_COLS} FROM node WHERE rev_to = {ranges.OPEN} AND path IS NULL"
        )

    def open_path(self, path: str) -> bool:
        """Whether the newest revision has a node at ``path``."""
        return (
            self.db.query_one(
                f"SELECT 1 FROM node WHERE rev_to = {ranges.OPEN} AND path = ? LIMIT 1", (path,)
            )
            is not None
        )

    def open_count(self, table: str) -> int:
        """How many rows the newest revision has in ``table`` (node, edge, file)."""
        if table not in ("node", "edge", "file"):
            raise StoreError(f"no count of {table!r}")
        return int(self.db.scalar(f"SELECT count(*) FROM {table} WHERE rev_to = {ranges.OPEN}"))

    # -- the data-flow layer (issue 13) ----------------------------------------
    def has_flow(self, rev_id: str) -> bool:
        """Whether the revision has the data-flow layer (capability ``dataflow``)."""
        return (
            self.db.query_one(
                "SELECT 1 FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 LIMIT 1",
                (rev_no(rev_id),),
            )
            is not None
        )

    def flow_units_in_file(self, rev_id: str, path: str) -> list[FlowUnitRow]:
        """Every flow unit of one file, in unit order (``<path>#0`` is its script)."""
        rows = self.db.rows(
            FlowUnitRow,
            f"SELECT {FLOW_COLS} FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND path=?",
            (rev_no(rev_id), path),
        )
        return sorted(rows, key=lambda r: int(r.unit_id.rsplit("#", 1)[1]))

    def flow_heads_in_file(self, rev_id: str, path: str) -> list[tuple[FlowUnitRow, bool]]:
        """The units of a file without their data (``data`` is ''), in unit order, each with
        whether it has links from other units of the file (``x`` not empty)."""
        return self._heads("path=?", (rev_no(rev_id), path))

    def flow_heads_of(self, rev_id: str, func_node_id: str) -> list[tuple[FlowUnitRow, bool]]:
        """The units of one function or method (its closures included), without data."""
        return self._heads("func_node_id=?", (rev_no(rev_id), func_node_id))

    def _heads(self, where: str, params: tuple[int, str]) -> list[tuple[FlowUnitRow, bool]]:
        rows = self.db.query(
            "SELECT unit_id, func_node_id, path, start_line, end_line, kind, '', sources,"
            f""" data NOT LIKE '%"x":[]}}' FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND {where}""",
            params,
        )
        out = [(FlowUnitRow(*r[:8]), bool(r[8])) for r in rows]
        return sorted(out, key=lambda h: (h[0].path, int(h[0].unit_id.rsplit("#", 1)[1])))

    def flow_unit_data(self, rev_id: str, unit_id: str) -> str | None:
        row = self.db.query_one(
            "SELECT data FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND unit_id=?",
            (rev_no(rev_id), unit_id),
        )
        return None if row is None else str(row[0])

    def flow_units_reading(self, rev_id: str, source: str, limit: int = 2000) -> list[FlowUnitRow]:
        """The units whose statements read a taint source (``$_GET``, ``php://input``)."""
        return self.db.rows(
            FlowUnitRow,
            f"SELECT {FLOW_COLS} FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND sources IS NOT NULL"
            " AND (' ' || sources || ' ') LIKE ? ORDER BY path, unit_id LIMIT ?",
            (rev_no(rev_id), f"% {source} %", limit),
        )

    # -- counts and coverage --------------------------------------------------
    def counts_by_kind(self, rev_id: str, table: str) -> dict[str, int]:
        if table not in ("node", "edge"):
            raise ValueError(table)
        return dict(
            self.db.query(
                f"SELECT kind, count(*) FROM {table} WHERE rev_from <= ?1 AND rev_to > ?1 GROUP BY kind ORDER BY kind",
                (rev_no(rev_id),),
            )
        )

    def coverage(self, rev_id: str) -> list[CoverageRow]:
        return self.db.rows(
            CoverageRow,
            "SELECT metric, value, note FROM coverage WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY metric",
            (rev_no(rev_id),),
        )

    def files(self, rev_id: str) -> list[FileRow]:
        return self.db.rows(
            FileRow,
            f"SELECT {FILE_COLS} FROM file WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY path",
            (rev_no(rev_id),),
        )

    def file_count(self, rev_id: str) -> int:
        return int(
            self.db.scalar(
                "SELECT count(*) FROM file WHERE rev_from <= ?1 AND rev_to > ?1", (rev_no(rev_id),)
            )
        )

    def edge_uids(self, rev_id: str) -> set[str]:
        return {
            r[0]
            for r in self.db.query(
                "SELECT edge_uid FROM edge WHERE rev_from <= ?1 AND rev_to > ?1", (rev_no(rev_id),)
            )
        }

    def node_ids(self, rev_id: str) -> set[str]:
        return {
            r[0]
            for r in self.db.query(
                "SELECT node_id FROM node WHERE rev_from <= ?1 AND rev_to > ?1", (rev_no(rev_id),)
            )
        }

    # -- files ----------------------------------------------------------------
    def has_blobs(self, shas: Iterable[str]) -> set[str]:
        shas = list(shas)
        if not shas:
            return set()
        return {
            r[0]
            for r in self.db.query(
                "SELECT sha256 FROM file_blob WHERE sha256 IN (SELECT value FROM json_each(?))",
                (json.dumps(shas),),
            )
        }

    def file_text(self, rev_id: str, path: str) -> str | None:
        """The text of ``path`` as the revision indexed it (None if not parsed)."""
        row = self.db.query_one(
            "SELECT b.data FROM file f JOIN file_blob b ON b.sha256 = f.sha256"
            " WHERE f.rev_from <= ?1 AND f.rev_to > ?1 AND f.path=?",
            (rev_no(rev_id), path),
        )
        return None if row is None else zlib.decompress(row[0]).decode("utf-8", "surrogateescape")

    def file_row(self, rev_id: str, path: str) -> FileRow | None:
        return self.db.row(
            FileRow,
            f"SELECT {FILE_COLS} FROM file WHERE rev_from <= ?1 AND rev_to > ?1 AND path=?",
            (rev_no(rev_id), path),
        )

    # -- nodes ------------------------------------------------------------------
    def node(self, rev_id: str, node_id: str) -> NodeRow | None:
        return self.db.row(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND node_id=?",
            (rev_no(rev_id), node_id),
        )

    def nodes_by_ids(self, rev_id: str, node_ids: Iterable[str]) -> dict[str, NodeRow]:
        ids = list(set(node_ids))
        if not ids:
            return {}
        rows = self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1"
            " AND node_id IN (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(ids)),
        )
        return {r.node_id: r for r in rows}

    def nodes_by_fqn(self, rev_id: str, fqn: str, limit: int = 50) -> list[NodeRow]:
        return _by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND fqn=? COLLATE NOCASE LIMIT ?",
                (rev_no(rev_id), fqn, limit),
            )
        )

    def kinds_by_fqn(self, rev_id: str, fqns: Iterable[str]) -> dict[str, set[str]]:
        """The node kinds each of ``fqns`` names in ``rev_id`` (exact spelling; absent when
        no node has it)."""
        names = list(set(fqns))
        if not names:
            return {}
        out: dict[str, set[str]] = {}
        for fqn, kind in self.db.query(
            "SELECT fqn, kind FROM node WHERE rev_from <= ?1 AND rev_to > ?1"
            " AND fqn IN (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(names)),
        ):
            out.setdefault(str(fqn), set()).add(str(kind))
        return out

    def nodes_by_fqn_suffix(self, rev_id: str, suffix: str, limit: int = 50) -> list[NodeRow]:
        """fqn ending in ``suffix`` at a namespace or class boundary (a name written without
        its namespace, or a member without its class): ``Application::run`` matches
        ``Ns\\Application::run``, never ``Ns\\SingleCommandApplication::run``; ``charge``
        matches ``Ns\\charge`` and ``Ns\\Invoice::charge``. A scan."""

        def like(sep: str) -> str:
            # backslash is both the LIKE escape and the namespace separator: double it
            esc = (sep + suffix).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            return "%" + esc

        seps = ("\\",) if "::" in suffix else ("\\", "::")
        where = " OR ".join("fqn LIKE ? ESCAPE '\\'" for _ in seps)
        return _by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND ({where}) LIMIT ?",
                (rev_no(rev_id), *(like(sep) for sep in seps), limit),
            )
        )

    def nodes_by_name(self, rev_id: str, name: str, limit: int = 50) -> list[NodeRow]:
        return _by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND name=? COLLATE NOCASE LIMIT ?",
                (rev_no(rev_id), name, limit),
            )
        )

    def nodes_in_file(self, rev_id: str, path: str) -> list[NodeRow]:
        return self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND path=?"
            " ORDER BY start_line, end_line DESC",
            (rev_no(rev_id), path),
        )

    def nodes_of_kind(self, rev_id: str, kind: NodeKind, limit: int = 5000) -> list[NodeRow]:
        return self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind=? ORDER BY fqn LIMIT ?",
            (rev_no(rev_id), kind, limit),
        )

    def symbol_names(self, rev_id: str) -> list[tuple[str, str]]:
        """(name, fqn) of every named code declaration."""
        return [
            (r[0], r[1])
            for r in self.db.query(
                f"SELECT DISTINCT name, fqn FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN ({_SYMBOL_KINDS})",
                (rev_no(rev_id),),
            )
        ]

    def top_level_files(self, rev_id: str) -> list[NodeRow]:
        """File nodes whose top-level code calls or instantiates something."""
        return self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node n WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.kind='file' AND EXISTS ("
            " SELECT 1 FROM edge e WHERE e.rev_from <= ?1 AND e.rev_to > ?1 AND e.src=n.node_id"
            f" AND e.kind IN ({_ENTRY_EDGES})) ORDER BY n.path",
            (rev_no(rev_id),),
        )

    def symbols_for_map(self, rev_id: str) -> list[MapSymbol]:
        return self.db.rows(
            MapSymbol,
            "SELECT n.node_id, n.kind, n.name, n.fqn, n.path, n.start_line, n.props,"
            " coalesce(r.shell, 0) FROM node n"
            " LEFT JOIN node_rank r ON r.rev_from <= ?1 AND r.rev_to > ?1 AND r.node_id = n.node_id"
            f" WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.path IS NOT NULL AND n.kind IN ({_MAP_KINDS})",
            (rev_no(rev_id),),
        )

    # -- edges ------------------------------------------------------------------
    def edges_to(
        self,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None = None,
        stated_only: bool = False,
    ) -> list[EdgeRow]:
        return self._edges("dst", rev_id, node_ids, kinds, stated_only)

    def edges_from(
        self,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None = None,
        stated_only: bool = False,
    ) -> list[EdgeRow]:
        return self._edges("src", rev_id, node_ids, kinds, stated_only)

    def _edges(
        self,
        col: str,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None,
        stated_only: bool,
    ) -> list[EdgeRow]:
        ids = list(set(node_ids))
        if not ids:
            return []
        sql = (
            f"SELECT {EDGE_COLS} FROM edge WHERE rev_from <= ?1 AND rev_to > ?1"
            f" AND {col} IN (SELECT value FROM json_each(?))"
        )
        params: list[Any] = [rev_no(rev_id), json.dumps(ids)]
        if kinds is not None:
            sql += f" AND kind IN ({sql_list(kinds)})"
        if stated_only:
            sql += f" AND provenance='{Provenance.STATED}'"
        # sorted here: an ORDER BY lures the planner onto the evidence index (a scan)
        return sorted(
            self.db.rows(EdgeRow, sql, params),
            key=lambda e: (e.evidence_path or "", e.evidence_line or 0, e.kind, e.src, e.dst),
        )

    def unresolved_calls(
        self, rev_id: str, names: Iterable[str], kinds: Sequence[str]
    ) -> list[UnresolvedRow]:
        """Call sites of these (lower-case short) names that no declaration was attached
        to, in path and line order."""
        n = sorted({x.lower() for x in names})
        if not n:
            return []
        return self.db.rows(
            UnresolvedRow,
            "SELECT name, kind, src, path, line, reason, detail FROM unresolved_call"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND name IN (SELECT value FROM json_each(?))"
            f" AND kind IN ({sql_list(kinds)}) ORDER BY path, line, name",
            (rev_no(rev_id), json.dumps(n)),
        )

    def call_sites_of_name(
        self, rev_id: str, names: Iterable[str], kinds: Sequence[str], node_kinds: Sequence[str]
    ) -> list[tuple[str, str, int]]:
        """(callee node id, path, line) of every call edge whose callee, of one of
        ``node_kinds``, has one of these short names (any case)."""
        n = sorted({x.lower() for x in names})
        if not n:
            return []
        rows = self.db.query(
            "SELECT e.dst, e.evidence_path, e.evidence_line FROM node c"
            " JOIN edge e ON e.rev_from <= ?1 AND e.rev_to > ?1 AND e.dst = c.node_id"
            f" AND e.kind IN ({sql_list(kinds)})"
            " WHERE c.rev_from <= ?1 AND c.rev_to > ?1 AND c.name COLLATE NOCASE IN (SELECT value FROM json_each(?))"
            f" AND c.kind IN ({sql_list(node_kinds)})",
            (rev_no(rev_id), json.dumps(n)),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def edges_with_evidence_in(self, rev_id: str, path: str) -> list[EdgeRow]:
        return self.db.rows(
            EdgeRow,
            f"SELECT {EDGE_COLS} FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND evidence_path=?",
            (rev_no(rev_id), path),
        )

    def edges_by_uids(self, rev_id: str, uids: Iterable[str]) -> list[EdgeRow]:
        u = list(set(uids))
        if not u:
            return []
        return self.db.rows(
            EdgeRow,
            f"SELECT {EDGE_COLS} FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND edge_uid IN"
            " (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(u)),
        )

    def edge_ends(self, rev_id: str, kind: str) -> list[tuple[str, str]]:
        """(src, dst) of every edge of one kind."""
        return [
            (r[0], r[1])
            for r in self.db.query(
                "SELECT src, dst FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND kind=?",
                (rev_no(rev_id), kind),
            )
        ]

    def edge_triples(
        self, rev_id: str, src_fqns: Iterable[str] | None = None
    ) -> set[tuple[str, str, str]]:
        """(src fqn, dst fqn, kind) of every edge: identity that survives line shifts; with
        ``src_fqns``, only the edges leaving nodes of those fqns (an indexed lookup)."""
        where = f"WHERE {ranges.live('e')}"
        params: tuple[Any, ...] = (rev_no(rev_id),)
        if src_fqns is not None:
            where = f"WHERE {ranges.live('e')} AND s.fqn IN (SELECT value FROM json_each(?2))"
            params = (rev_no(rev_id), json.dumps(sorted(set(src_fqns))))
        return {
            (r[0] or "", r[1] or "", r[2])
            for r in self.db.query(
                "SELECT s.fqn, d.fqn, e.kind FROM node s"
                f" JOIN edge e ON e.src = s.node_id AND {ranges.live('s')}"
                f" JOIN node d ON d.node_id = e.dst AND {ranges.live('d')} {where}",
                params,
            )
        }

    def reach_upstream(
        self,
        rev_id: str,
        seeds: Sequence[str],
        kinds: Sequence[str],
        depth: int,
        stated_only: bool,
        limit: int,
    ) -> list[Reached]:
        """Everything that depends on ``seeds`` through ``kinds`` (edges walked dst -> src),
        breadth first, one indexed query per level, at most ``limit`` nodes (seeds included).

        ``soft`` is True when no path of stated edges reaches the node (every path needs a
        derived edge); the edge is the one that first reached it."""
        best: dict[str, tuple[int, bool]] = dict.fromkeys(seeds, (0, False))
        via: dict[str, tuple[str | None, str | None]] = {}
        frontier: dict[str, bool] = dict.fromkeys(seeds, False)
        sql = (
            "SELECT src, dst, provenance, edge_uid, evidence_path FROM edge WHERE rev_from <= ?1 AND rev_to > ?1"
            f" AND dst IN (SELECT value FROM json_each(?)) AND kind IN ({sql_list(kinds)})"
            + (f" AND provenance='{Provenance.STATED}'" if stated_only else "")
        )
        for d in range(1, depth + 1):
            if not frontier or len(best) >= limit:
                break
            nxt: dict[str, bool] = {}
            for src, dst, prov, uid, epath in self.db.query(
                sql, (rev_no(rev_id), json.dumps(list(frontier)))
            ):
                soft = frontier[dst] or prov == Provenance.DERIVED
                old = best.get(src)
                if old is None:
                    best[src] = (d, soft)
                    via[src] = (uid, epath)
                    nxt[src] = soft and nxt.get(src, True)
                elif not soft and old[1]:
                    # a stated path found later: the node becomes hard, and so may what it reaches
                    best[src] = (old[0], False)
                    nxt[src] = False
            frontier = nxt
        out = sorted(
            (Reached(n, d, s, *via.get(n, (None, None))) for n, (d, s) in best.items()),
            key=lambda x: (x.depth, x.node_id),
        )
        return out[:limit]

    def graph_for_ranking(self, rev_id: str, kinds: Sequence[str]) -> list[RankEdge]:
        return self.db.rows(
            RankEdge,
            f"SELECT src, dst, kind, confidence FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN"
            f" ({sql_list(kinds)})",
            (rev_no(rev_id),),
        )

    def routes(self, rev_id: str) -> list[RouteRow]:
        return self.db.rows(
            RouteRow,
            "SELECT node_id, route, method, evidence_path, evidence_line FROM web_route"
            " WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY route, method",
            (rev_no(rev_id),),
        )

    # -- the per-file facts cache -------------------------------------------------
    def cached_facts(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        """(sha256, extractor key) -> stored facts, for the keys present."""
        if not keys:
            return {}
        rows = self.db.query(
            "SELECT f.sha256, f.extractor, f.facts FROM file_facts f JOIN json_each(?) j"
            " ON f.sha256 = json_extract(j.value, '$[0]')"
            " AND f.extractor = json_extract(j.value, '$[1]')",
            (json.dumps(keys),),
        )
        return {(r[0], r[1]): r[2] for r in rows}

    def store_facts(self, rows: list[tuple[str, str, bytes]], *, replace: bool = False) -> None:
        """Store cache rows; a row already there is kept, or with ``replace`` replaced."""
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        with self.db.write():
            self.db.executemany(
                f"{verb} INTO file_facts(sha256, extractor, facts) VALUES (?,?,?)",
                rows,
            )

    # -- database schema ------------------------------------------------------------
    def db_tables(self, rev_id: str) -> list[DbTableRow]:
        """Every table, by name."""
        return self.db.rows(
            DbTableRow,
            "SELECT table_id, table_name, engine, row_estimate, source FROM db_table"
            " WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY table_name COLLATE NOCASE, table_id",
            (rev_no(rev_id),),
        )

    def db_columns(self, rev_id: str, table_ids: Iterable[str]) -> list[DbColumnRow]:
        """Columns in ordinal order (the order the build wrote them)."""
        ids = list(set(table_ids))
        if not ids:
            return []
        return self.db.rows(
            DbColumnRow,
            "SELECT table_id, column_name, data_type, is_nullable, column_key FROM db_column"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND table_id IN (SELECT value FROM json_each(?))"
            " ORDER BY table_id, ord",
            (rev_no(rev_id), json.dumps(ids)),
        )

    def db_fks(self, rev_id: str) -> list[DbFkRow]:
        """Every foreign key column pair."""
        return self.db.rows(
            DbFkRow,
            "SELECT from_table, from_column, to_table, to_column FROM db_fk WHERE rev_from <= ?1 AND rev_to > ?1"
            " ORDER BY from_table COLLATE NOCASE, from_column, to_table, to_column",
            (rev_no(rev_id),),
        )

    def db_objects_named(self, rev_id: str, name: str) -> list[NodeRow]:
        """db_table / db_view nodes called ``name`` (case-insensitive)."""
        return _by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND name=? COLLATE NOCASE"
                f" AND kind IN ({_DB_KINDS})",
                (rev_no(rev_id), name),
            )
        )

    def db_object_names(self, rev_id: str) -> list[str]:
        return [
            r[0]
            for r in self.db.query(
                f"SELECT DISTINCT name FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN ({_DB_KINDS})"
                " ORDER BY name",
                (rev_no(rev_id),),
            )
        ]

    def sql_literals_named_at_run_time(
        self, rev_id: str, stems: Iterable[str], limit: int = 500
    ) -> list[NodeRow]:
        """sql_literal nodes with a table whose name is made at run time (none resolved) by
        an expression holding one of ``stems`` (lower case, without ``_``)."""
        stems = sorted(set(stems))
        if not stems:
            return []
        holds = " OR ".join(
            ["instr(replace(lower(json_extract(j.value, '$.expr')), '_', ''), ?) > 0"] * len(stems)
        )
        return _by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node n WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.kind=?2"
                " AND EXISTS (SELECT 1 FROM json_each(n.props, '$.tables') j"
                " WHERE json_extract(j.value, '$.how') = 'dynamic'"
                " AND coalesce(json_extract(j.value, '$.name'), '') = ''"
                f" AND ({holds})) LIMIT {int(limit)}",
                (rev_no(rev_id), NodeKind.SQL_LITERAL, *stems),
            )
        )

    def sql_literals_naming(self, rev_id: str, table: str, limit: int = 500) -> list[NodeRow]:
        """sql_literal nodes whose analysed tables include ``table`` (case-insensitive)."""
        return _by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node n WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.kind=? AND EXISTS ("
                " SELECT 1 FROM json_each(n.props, '$.tables') j"
                " WHERE json_extract(j.value, '$.name') = ? COLLATE NOCASE) LIMIT ?",
                (rev_no(rev_id), NodeKind.SQL_LITERAL, table, limit),
            )
        )

"""Writing graph.sqlite: the revisions' lifecycle, their rows, the per-file facts cache, and
what a scoped build reads of the newest revision before it writes.

Invariants a change must keep:
- A building revision's rows are written in one transaction as the delta against the
  newest revision (``ranges.write_delta``); readers never see them (rev.json does not
  name it).
- Retention deletes only rows no retained revision has (``prune_before``); a revision
  undone before its seal leaves the rows as they were (``delete_rev``).
- The ``open_*`` reads see the newest revision's rows (``ranges.OPEN``), sealed or not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ragraf import ids
from ragraf.errors import StoreError
from ragraf.model import DbColumnRow, FlowUnitRow, NodeRow, RankRow, RevisionRows, TextRow
from ragraf.store import ranges
from ragraf.store.db import Database
from ragraf.store.graph.cols import (
    COLUMN_COLS,
    CONTENT_TABLES,
    EDGE_COLS,
    FILE_COLS,
    FK_COLS,
    FLOW_COLS,
    NODE_COLS,
    REV_TABLES,
    ROUTE_COLS,
    TABLE_COLS,
    TEXT_COLS,
    UNRESOLVED_COLS,
    stored_edges,
)
from ragraf.store.packed import packed_flows
from ragraf.store.ranges import rev_no


def _ordered_columns(columns: Iterable[DbColumnRow]) -> Iterator[tuple[Any, ...]]:
    """db_column rows with their position in their table (the order the build gave)."""
    seen: dict[str, int] = {}
    for c in columns:
        ord_ = seen.get(c[0], 0)
        seen[c[0]] = ord_ + 1
        yield (c[0], ord_, *c[1:])


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


#: a file's text by content; a blob written before redaction (``redacted = 0``) is written
#: again, redacted (schemas/sql/graph/0006_redacted_blobs.sql)
BLOB_UPSERT = (
    "INSERT INTO file_blob(sha256, data, redacted) VALUES (?, ?, 1)"
    " ON CONFLICT(sha256) DO UPDATE SET data = excluded.data, redacted = 1"
    " WHERE file_blob.redacted = 0"
)


class Writer:
    """The writing half of ``GraphStore`` (over its ``db``)."""

    db: Database

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
                ("edge", EDGE_COLS, stored_edges(rows.edges)),
                ("text_chunk", TEXT_COLS, rows.texts),
                ("coverage", "metric, value, note", rows.coverage),
                ("unresolved_call", UNRESOLVED_COLS, rows.unresolved),
                ("flow_unit", FLOW_COLS, packed_flows(rows.flow_units)),
            ]
            if content_written:
                put = [p for p in put if p[0] not in CONTENT_TABLES]
            for table, cols, table_rows in put:
                done += ranges.write_delta(db, table, cols, table_rows, n, owned.get(table))
            if scope is not None and moved and renamed:
                done += _rename_ids(db, n, moved, renamed)
            db.executemany(BLOB_UPSERT, rows.blobs)
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
            db.executemany(BLOB_UPSERT, blobs)
            where = None
            if content is not None:
                ranges.set_scope(db, content, ranges.CONTENT)
                where = ranges.in_scope("path", table=ranges.CONTENT)
            done += ranges.write_delta(db, "text_chunk", TEXT_COLS, texts, n, where)
            done += ranges.write_delta(db, "flow_unit", FLOW_COLS, packed_flows(flows), n, where)
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

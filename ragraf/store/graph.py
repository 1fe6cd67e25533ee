"""graph.sqlite: nodes, edges, files, text, coverage of every retained revision.

Invariants a change must keep:
- Rows of a revision are written in one transaction per batch stage while the
  revision is 'building'; readers never see them (rev.json does not name it).
- A revision's rows are never changed after it is sealed ('ready'); they are
  only deleted as a whole when retention prunes the revision.
- SQL on this file lives here and nowhere else.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ragraf.store.db import Database


def _by_place(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(rows, key=lambda r: (r[4] or "", r[5] or 0, r[1], r[0]))


class GraphStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "graph", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    # -- revisions ----------------------------------------------------------
    def revs(self) -> list[tuple[str, str]]:
        return [
            (r[0], r[1]) for r in self.db.query("SELECT rev_id, state FROM rev ORDER BY rev_id")
        ]

    def rev_row(self, rev_id: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT rev_id, created_at, corpus_hash, config_hash, extractor_versions, state FROM rev WHERE rev_id=?",
            (rev_id,),
        )
        if row is None:
            return None
        keys = ("rev_id", "created_at", "corpus_hash", "config_hash", "extractor_versions", "state")
        return dict(zip(keys, row, strict=True))

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
                "INSERT INTO rev(rev_id, created_at, corpus_hash, config_hash, extractor_versions, state)"
                " VALUES (?,?,?,?,?,'building')",
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

    def delete_rev(self, rev_id: str) -> None:
        with self.db.write():
            for table in (
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
            ):
                self.db.execute(f"DELETE FROM {table} WHERE rev_id=?", (rev_id,))
            self.db.execute("DELETE FROM rev WHERE rev_id=?", (rev_id,))
            self.db.execute("DELETE FROM file_blob WHERE sha256 NOT IN (SELECT sha256 FROM file)")
            self.db.execute("DELETE FROM file_facts WHERE sha256 NOT IN (SELECT sha256 FROM file)")

    # -- writing ------------------------------------------------------------
    def write_rows(
        self,
        rev_id: str,
        files: Iterable[Sequence[Any]],
        nodes: Iterable[Sequence[Any]],
        edges: Iterable[Sequence[Any]],
        texts: Iterable[Sequence[Any]],
        coverage: Iterable[tuple[str, float | None, str | None]],
        blobs: Iterable[tuple[str, str]] = (),
        shells: Iterable[tuple[str, int]] = (),
        routes: Iterable[Sequence[Any]] = (),
        schema: tuple[Iterable[Sequence[Any]], Iterable[Sequence[Any]], Iterable[Sequence[Any]]] = (
            (),
            (),
            (),
        ),
    ) -> None:
        """All rows of a building revision, in one transaction."""
        with self.db.write():
            tables, columns, fks = schema
            self.db.executemany(
                "INSERT INTO db_table(rev_id, table_id, table_name, engine, row_estimate, source) VALUES (?,?,?,?,?,?)",
                ((rev_id, *t) for t in tables),
            )
            self.db.executemany(
                "INSERT INTO db_column(rev_id, table_id, column_name, data_type, is_nullable, column_key)"
                " VALUES (?,?,?,?,?,?)",
                ((rev_id, *c) for c in columns),
            )
            self.db.executemany(
                "INSERT INTO db_fk(rev_id, from_table, from_column, to_table, to_column) VALUES (?,?,?,?,?)",
                ((rev_id, *f) for f in fks),
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO file_blob(sha256, data) VALUES (?, ?)",
                (
                    (sha, zlib.compress(text.encode("utf-8", "surrogateescape"), 1))
                    for sha, text in blobs
                ),
            )
            self.db.executemany(
                "INSERT INTO node_rank(rev_id, node_id, shell) VALUES (?,?,?)",
                ((rev_id, n, sh) for n, sh in shells),
            )
            self.db.executemany(
                "INSERT INTO web_route(rev_id, node_id, route, method, evidence_path, evidence_line) VALUES (?,?,?,?,?,?)",
                ((rev_id, *r) for r in routes),
            )
            self.db.executemany(
                "INSERT INTO file(rev_id, path, lang, lines, sha256, parse_status, parse_note, size, mtime_ns)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                ((rev_id, *f) for f in files),
            )
            self.db.executemany(
                "INSERT INTO node(rev_id, node_id, kind, name, fqn, path, start_line, end_line, props, layer)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                ((rev_id, *n) for n in nodes),
            )
            self.db.executemany(
                "INSERT INTO edge(rev_id, src, dst, kind, provenance, evidence_path, evidence_line,"
                " confidence, sources, edge_uid, props) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                ((rev_id, *e) for e in edges),
            )
            self.db.executemany(
                "INSERT INTO text_chunk(rev_id, chunk_id, owner_node_id, path, start_line, end_line, text_kind, raw)"
                " VALUES (?,?,?,?,?,?,?,?)",
                ((rev_id, *t) for t in texts),
            )
            self.db.executemany(
                "INSERT INTO coverage(rev_id, metric, value, note) VALUES (?,?,?,?)",
                ((rev_id, *c) for c in coverage),
            )

    # -- reading ------------------------------------------------------------
    def counts_by_kind(self, rev_id: str, table: str) -> dict[str, int]:
        assert table in ("node", "edge")
        return dict(
            self.db.query(
                f"SELECT kind, count(*) FROM {table} WHERE rev_id=? GROUP BY kind ORDER BY kind",
                (rev_id,),
            )
        )

    def coverage(self, rev_id: str) -> list[tuple[str, float | None, str | None]]:
        return [
            (m, v, n)
            for m, v, n in self.db.query(
                "SELECT metric, value, note FROM coverage WHERE rev_id=? ORDER BY metric", (rev_id,)
            )
        ]

    def files(self, rev_id: str) -> list[tuple[Any, ...]]:
        return self.db.query(
            "SELECT path, lang, lines, sha256, parse_status, parse_note, size, mtime_ns FROM file"
            " WHERE rev_id=? ORDER BY path",
            (rev_id,),
        )

    def file_count(self, rev_id: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM file WHERE rev_id=?", (rev_id,)))

    def edge_uids(self, rev_id: str) -> set[str]:
        return {r[0] for r in self.db.query("SELECT edge_uid FROM edge WHERE rev_id=?", (rev_id,))}

    def node_ids(self, rev_id: str) -> set[str]:
        return {r[0] for r in self.db.query("SELECT node_id FROM node WHERE rev_id=?", (rev_id,))}

    # -- facade reads (all revision-scoped) ----------------------------------------
    NODE_COLS = "node_id, kind, name, fqn, path, start_line, end_line, props, layer"
    EDGE_COLS = "src, dst, kind, provenance, evidence_path, evidence_line, confidence, sources, edge_uid, props"

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
            "SELECT b.data FROM file f JOIN file_blob b ON b.sha256 = f.sha256 WHERE f.rev_id=? AND f.path=?",
            (rev_id, path),
        )
        return None if row is None else zlib.decompress(row[0]).decode("utf-8", "surrogateescape")

    def file_row(self, rev_id: str, path: str) -> tuple[Any, ...] | None:
        return self.db.query_one(
            "SELECT path, lang, lines, sha256, parse_status, parse_note, size, mtime_ns FROM file"
            " WHERE rev_id=? AND path=?",
            (rev_id, path),
        )

    def node(self, rev_id: str, node_id: str) -> tuple[Any, ...] | None:
        return self.db.query_one(
            f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND node_id=?", (rev_id, node_id)
        )

    def nodes_by_ids(self, rev_id: str, node_ids: Iterable[str]) -> dict[str, tuple[Any, ...]]:
        ids = list(set(node_ids))
        if not ids:
            return {}
        return {
            r[0]: r
            for r in self.db.query(
                f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND node_id IN (SELECT value FROM json_each(?))",
                (rev_id, json.dumps(ids)),
            )
        }

    def nodes_by_fqn(self, rev_id: str, fqn: str, limit: int = 50) -> list[tuple[Any, ...]]:
        return _by_place(
            self.db.query(
                f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND fqn=? COLLATE NOCASE LIMIT ?",
                (rev_id, fqn, limit),
            )
        )

    def nodes_by_fqn_suffix(
        self, rev_id: str, suffix: str, limit: int = 50
    ) -> list[tuple[Any, ...]]:
        """fqn ending in ``\\suffix`` (a name written without its namespace); a scan of the revision."""
        like = "%\\" + suffix.replace("%", "").replace("_", "\\_")
        return _by_place(
            self.db.query(
                f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND fqn LIKE ? ESCAPE '\\' LIMIT ?",
                (rev_id, like, limit),
            )
        )

    def nodes_by_name(self, rev_id: str, name: str, limit: int = 50) -> list[tuple[Any, ...]]:
        return _by_place(
            self.db.query(
                f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND name=? COLLATE NOCASE LIMIT ?",
                (rev_id, name, limit),
            )
        )

    def nodes_in_file(self, rev_id: str, path: str) -> list[tuple[Any, ...]]:
        return self.db.query(
            f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND path=? ORDER BY start_line, end_line DESC",
            (rev_id, path),
        )

    def symbol_names(self, rev_id: str) -> list[tuple[str, str]]:
        return [
            (r[0], r[1])
            for r in self.db.query(
                "SELECT DISTINCT name, fqn FROM node WHERE rev_id=? AND kind IN"
                " ('class','interface','trait','enum','function','method','constant','property')",
                (rev_id,),
            )
        ]

    def edges_to(
        self,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None = None,
        stated_only: bool = False,
    ) -> list[tuple[Any, ...]]:
        return self._edges("dst", rev_id, node_ids, kinds, stated_only)

    def edges_from(
        self,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None = None,
        stated_only: bool = False,
    ) -> list[tuple[Any, ...]]:
        return self._edges("src", rev_id, node_ids, kinds, stated_only)

    def _edges(
        self,
        col: str,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None,
        stated_only: bool,
    ) -> list[tuple[Any, ...]]:
        ids = list(set(node_ids))
        if not ids:
            return []
        sql = f"SELECT {self.EDGE_COLS} FROM edge WHERE rev_id=? AND {col} IN (SELECT value FROM json_each(?))"
        params: list[Any] = [rev_id, json.dumps(ids)]
        if kinds is not None:
            # a literal list: with a second json_each the planner scans (measured 19 ms vs 0.01 ms)
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(kinds)
        if stated_only:
            sql += " AND provenance='stated'"
        # sorted here: an ORDER BY lures the planner onto the evidence index (a scan)
        return sorted(
            self.db.query(sql, params), key=lambda e: (e[4] or "", e[5] or 0, e[2], e[0], e[1])
        )

    def edges_with_evidence_in(self, rev_id: str, path: str) -> list[tuple[Any, ...]]:
        return self.db.query(
            f"SELECT {self.EDGE_COLS} FROM edge WHERE rev_id=? AND evidence_path=?", (rev_id, path)
        )

    def reach_upstream(
        self,
        rev_id: str,
        seeds: Sequence[str],
        kinds: Sequence[str],
        depth: int,
        stated_only: bool,
        limit: int,
    ) -> list[tuple[Any, ...]]:
        """Everything that depends on ``seeds`` through ``kinds`` (edges walked dst -> src),
        breadth first, one indexed query per level.

        Returns (node_id, shortest depth, soft, edge_uid, evidence_path) where soft = 1 when no
        path of stated edges reaches the node (every path needs a derived edge) and the edge is
        the one that first reached it."""
        best: dict[str, tuple[int, int]] = dict.fromkeys(seeds, (0, 0))
        via: dict[str, tuple[str | None, str | None]] = {}
        frontier = dict.fromkeys(seeds, 0)
        for d in range(1, depth + 1):
            if not frontier or len(best) >= limit:
                break
            nxt: dict[str, int] = {}
            for src, dst, prov, uid, epath in self.db.query(
                f"SELECT src, dst, provenance, edge_uid, evidence_path FROM edge WHERE rev_id=?"
                f" AND dst IN (SELECT value FROM json_each(?))"
                f" AND kind IN ({','.join('?' * len(kinds))})"
                + (" AND provenance='stated'" if stated_only else ""),
                (rev_id, json.dumps(list(frontier)), *kinds),
            ):
                soft = 1 if (frontier[dst] or prov == "derived") else 0
                old = best.get(src)
                if old is None:
                    best[src] = (d, soft)
                    via[src] = (uid, epath)
                    nxt[src] = min(soft, nxt.get(src, 1))
                elif soft < old[1]:
                    # a stated path found later: the node becomes hard, and so may what it reaches
                    best[src] = (old[0], 0)
                    nxt[src] = 0
            frontier = nxt
        out = sorted(
            ((n, d, s, *via.get(n, (None, None))) for n, (d, s) in best.items()),
            key=lambda x: (x[1], x[0]),
        )
        return out[:limit]

    def graph_for_ranking(
        self, rev_id: str, kinds: Sequence[str]
    ) -> list[tuple[str, str, str, float]]:
        return [
            (r[0], r[1], r[2], r[3])
            for r in self.db.query(
                f"SELECT src, dst, kind, confidence FROM edge WHERE rev_id=? AND kind IN ({','.join('?' * len(kinds))})",
                (rev_id, *kinds),
            )
        ]

    def symbols_for_map(self, rev_id: str) -> list[tuple[Any, ...]]:
        return self.db.query(
            "SELECT n.node_id, n.kind, n.name, n.fqn, n.path, n.start_line, n.props, coalesce(r.shell, 0)"
            " FROM node n LEFT JOIN node_rank r ON r.rev_id = n.rev_id AND r.node_id = n.node_id"
            " WHERE n.rev_id=? AND n.path IS NOT NULL AND n.kind IN"
            " ('class','interface','trait','enum','function','method','constant','file')",
            (rev_id,),
        )

    def routes(self, rev_id: str) -> list[tuple[Any, ...]]:
        return self.db.query(
            "SELECT w.route, w.method, w.evidence_path, w.evidence_line, w.node_id FROM web_route w"
            " WHERE w.rev_id=? ORDER BY w.route, w.method",
            (rev_id,),
        )

    def nodes_of_kind(self, rev_id: str, kind: str, limit: int = 5000) -> list[tuple[Any, ...]]:
        return self.db.query(
            f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND kind=? ORDER BY fqn LIMIT ?",
            (rev_id, kind, limit),
        )

    def edges_of_kind(self, rev_id: str, kind: str) -> list[tuple[str, str]]:
        return [
            (r[0], r[1])
            for r in self.db.query(
                "SELECT src, dst FROM edge WHERE rev_id=? AND kind=?", (rev_id, kind)
            )
        ]

    def top_level_files(self, rev_id: str) -> list[tuple[Any, ...]]:
        """PHP files whose top-level code calls or instantiates something."""
        return self.db.query(
            f"SELECT {self.NODE_COLS} FROM node n WHERE n.rev_id=? AND n.kind='file' AND EXISTS ("
            " SELECT 1 FROM edge e WHERE e.rev_id=n.rev_id AND e.src=n.node_id"
            " AND e.kind IN ('calls','calls_heuristic','instantiates')) ORDER BY n.path",
            (rev_id,),
        )

    # -- revision comparison and the facts cache -----------------------------------------
    def node_rows_by_ids(self, rev_id: str, ids: Iterable[str]) -> list[tuple[Any, ...]]:
        return list(self.nodes_by_ids(rev_id, ids).values())

    def edges_by_uids(self, rev_id: str, uids: Iterable[str]) -> list[tuple[Any, ...]]:
        u = list(set(uids))
        if not u:
            return []
        return self.db.query(
            f"SELECT {self.EDGE_COLS} FROM edge WHERE rev_id=? AND edge_uid IN"
            " (SELECT value FROM json_each(?))",
            (rev_id, json.dumps(u)),
        )

    def edge_triples(self, rev_id: str) -> set[tuple[str, str, str]]:
        """(src fqn, dst fqn, kind) of every edge: identity that survives line shifts."""
        return {
            (r[0] or "", r[1] or "", r[2])
            for r in self.db.query(
                "SELECT s.fqn, d.fqn, e.kind FROM edge e JOIN node s ON s.rev_id=e.rev_id AND s.node_id=e.src"
                " JOIN node d ON d.rev_id=e.rev_id AND d.node_id=e.dst WHERE e.rev_id=?",
                (rev_id,),
            )
        }

    def cached_facts(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        if not keys:
            return {}
        rows = self.db.query(
            "SELECT f.sha256, f.extractor, f.facts FROM file_facts f JOIN json_each(?) j"
            " ON f.sha256 = json_extract(j.value, '$[0]') AND f.extractor = json_extract(j.value, '$[1]')",
            (json.dumps(keys),),
        )
        return {(r[0], r[1]): r[2] for r in rows}

    def store_facts(self, rows: list[tuple[str, str, bytes]]) -> None:
        with self.db.write():
            self.db.executemany(
                "INSERT OR IGNORE INTO file_facts(sha256, extractor, facts) VALUES (?,?,?)", rows
            )

    # -- schema (issue 6): queries for the schema / table_usage operations go below ----------
    def db_tables(self, rev_id: str) -> list[tuple[Any, ...]]:
        """(table_id, table_name, engine, row_estimate, source) of every table, by name."""
        return self.db.query(
            "SELECT table_id, table_name, engine, row_estimate, source FROM db_table WHERE rev_id=?"
            " ORDER BY table_name COLLATE NOCASE, table_id",
            (rev_id,),
        )

    def db_columns(self, rev_id: str, table_ids: Iterable[str]) -> list[tuple[Any, ...]]:
        """(table_id, column_name, data_type, is_nullable, column_key) in ordinal order
        (the order the build wrote them)."""
        ids = list(set(table_ids))
        if not ids:
            return []
        return self.db.query(
            "SELECT table_id, column_name, data_type, is_nullable, column_key FROM db_column"
            " WHERE rev_id=? AND table_id IN (SELECT value FROM json_each(?)) ORDER BY rowid",
            (rev_id, json.dumps(ids)),
        )

    def db_fks(self, rev_id: str) -> list[tuple[Any, ...]]:
        """(from_table, from_column, to_table, to_column) of every foreign key column pair."""
        return self.db.query(
            "SELECT from_table, from_column, to_table, to_column FROM db_fk WHERE rev_id=?"
            " ORDER BY from_table COLLATE NOCASE, from_column, to_table, to_column",
            (rev_id,),
        )

    def db_objects_named(self, rev_id: str, name: str) -> list[tuple[Any, ...]]:
        """db_table / db_view nodes called ``name`` (case-insensitive)."""
        return _by_place(
            [
                r
                for r in self.db.query(
                    f"SELECT {self.NODE_COLS} FROM node WHERE rev_id=? AND name=? COLLATE NOCASE",
                    (rev_id, name),
                )
                if r[1] in ("db_table", "db_view")
            ]
        )

    def db_object_names(self, rev_id: str) -> list[str]:
        return [
            r[0]
            for r in self.db.query(
                "SELECT DISTINCT name FROM node WHERE rev_id=? AND kind IN ('db_table','db_view') ORDER BY name",
                (rev_id,),
            )
        ]

    def sql_literals_naming(
        self, rev_id: str, table: str, limit: int = 500
    ) -> list[tuple[Any, ...]]:
        """sql_literal nodes whose analysed tables include ``table`` (case-insensitive), linked or not."""
        return _by_place(
            self.db.query(
                f"SELECT {self.NODE_COLS} FROM node n WHERE n.rev_id=? AND n.kind='sql_literal' AND EXISTS ("
                " SELECT 1 FROM json_each(n.props, '$.tables') j"
                " WHERE json_extract(j.value, '$.name') = ? COLLATE NOCASE) LIMIT ?",
                (rev_id, table, limit),
            )
        )

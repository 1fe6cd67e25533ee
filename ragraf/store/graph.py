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
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ragraf.store.db import Database


class GraphStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "graph", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    # -- revisions ----------------------------------------------------------
    def revs(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.db.query("SELECT rev_id, state FROM rev ORDER BY rev_id")]

    def rev_row(self, rev_id: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT rev_id, created_at, corpus_hash, config_hash, extractor_versions, state FROM rev WHERE rev_id=?",
            (rev_id,),
        )
        if row is None:
            return None
        keys = ("rev_id", "created_at", "corpus_hash", "config_hash", "extractor_versions", "state")
        return dict(zip(keys, row, strict=True))

    def begin_rev(self, rev_id: str, created_at: str, corpus_hash: str, config_hash: str,
                  extractor_versions: dict[str, str]) -> None:
        with self.db.write():
            self.db.execute(
                "INSERT INTO rev(rev_id, created_at, corpus_hash, config_hash, extractor_versions, state)"
                " VALUES (?,?,?,?,?,'building')",
                (rev_id, created_at, corpus_hash, config_hash, json.dumps(extractor_versions, sort_keys=True)),
            )

    def set_state(self, rev_id: str, state: str) -> None:
        with self.db.write():
            self.db.execute("UPDATE rev SET state=? WHERE rev_id=?", (state, rev_id))

    def delete_rev(self, rev_id: str) -> None:
        with self.db.write():
            for table in ("file", "node", "edge", "text_chunk", "cfg_edge", "dfg_edge", "db_table",
                          "db_column", "db_fk", "web_route", "invalidated", "coverage"):
                self.db.execute(f"DELETE FROM {table} WHERE rev_id=?", (rev_id,))
            self.db.execute("DELETE FROM rev WHERE rev_id=?", (rev_id,))

    # -- writing ------------------------------------------------------------
    def write_rows(
        self,
        rev_id: str,
        files: Iterable[Sequence[Any]],
        nodes: Iterable[Sequence[Any]],
        edges: Iterable[Sequence[Any]],
        texts: Iterable[Sequence[Any]],
        coverage: Iterable[tuple[str, float | None, str | None]],
    ) -> None:
        """All rows of a building revision, in one transaction."""
        with self.db.write():
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
        return dict(self.db.query(
            f"SELECT kind, count(*) FROM {table} WHERE rev_id=? GROUP BY kind ORDER BY kind", (rev_id,)))

    def coverage(self, rev_id: str) -> list[tuple[str, float | None, str | None]]:
        return [(m, v, n) for m, v, n in self.db.query(
            "SELECT metric, value, note FROM coverage WHERE rev_id=? ORDER BY metric", (rev_id,))]

    def files(self, rev_id: str) -> list[tuple[Any, ...]]:
        return self.db.query(
            "SELECT path, lang, lines, sha256, parse_status, parse_note, size, mtime_ns FROM file"
            " WHERE rev_id=? ORDER BY path", (rev_id,))

    def file_count(self, rev_id: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM file WHERE rev_id=?", (rev_id,)))

    def edge_uids(self, rev_id: str) -> set[str]:
        return {r[0] for r in self.db.query("SELECT edge_uid FROM edge WHERE rev_id=?", (rev_id,))}

    def node_ids(self, rev_id: str) -> set[str]:
        return {r[0] for r in self.db.query("SELECT node_id FROM node WHERE rev_id=?", (rev_id,))}

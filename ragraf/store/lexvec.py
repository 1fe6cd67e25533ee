"""lexvec.sqlite: the lexicon (FTS5) and the raw chunk text.

Invariants a change must keep:
- ft_chunk holds tokenized forms only; its seven columns are part of the
  contract and ``BM25_WEIGHTS`` numbers exactly those columns in order.
- chunk_text line 0 is the service header; code starts at line 1 and matches
  chunk_map.start_line.
- A chunk_id is unique per revision: content seen twice in one revision is
  one chunk, its further places are in chunk_also.
- Vectors are not touched here: only ``ragraf.store.vec`` loads sqlite-vec.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from ragraf.model import ChunkPlace, ChunkRef, ChunkRow, FtsHit, StoredChunk
from ragraf.store.db import Database

# the indexed columns of ft_chunk, in order; bm25() weights are given for these
# (the three UNINDEXED columns before them get weight 0)
FTS_COLUMNS = ("symbol", "code", "sql", "text")
CHUNK_REF_COLS = "chunk_id, path, source_kind, node_id, start_line, end_line"


class LexStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "lexvec", readonly=readonly)
        self._vocab = False  # the temp fts5vocab table of doc_freq exists on this connection

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> LexStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def delete_rev(self, rev_id: str) -> None:
        with self.db.write():
            for table in ("ft_chunk", "chunk_text", "chunk_map", "chunk_also"):
                self.db.execute(f"DELETE FROM {table} WHERE rev_id=?", (rev_id,))
        if self.db.scalar("SELECT count(*) FROM sqlite_master WHERE name='vec_chunk'"):
            from ragraf.store.vec import drop_rev_vectors

            drop_rev_vectors(self.db, rev_id)  # vec_meta rows, then vectors no revision uses
        else:
            with self.db.write():
                self.db.execute("DELETE FROM vec_meta WHERE rev_id=?", (rev_id,))

    def write_chunks(
        self, rev_id: str, chunks: Sequence[ChunkRow], also: Iterable[ChunkPlace]
    ) -> None:
        """The chunks of a building revision and their further places, in one transaction."""
        with self.db.write():
            self.db.executemany(
                "INSERT INTO chunk_map(rev_id, chunk_id, source_kind, path, node_id, start_line,"
                " end_line) VALUES (?,?,?,?,?,?,?)",
                (
                    (rev_id, c.chunk_id, c.source_kind, c.path, c.node_id, c.start_line, c.end_line)
                    for c in chunks
                ),
            )
            self.db.executemany(
                "INSERT INTO chunk_text(rev_id, chunk_id, path, text) VALUES (?,?,?,?)",
                ((rev_id, c.chunk_id, c.path, c.text) for c in chunks),
            )
            self.db.executemany(
                "INSERT INTO ft_chunk(rev_id, chunk_id, path, symbol_tokens, code_tokens,"
                " sql_tokens, text_tokens) VALUES (?,?,?,?,?,?,?)",
                (
                    (
                        rev_id,
                        c.chunk_id,
                        c.path,
                        c.symbol_tokens,
                        c.code_tokens,
                        c.sql_tokens,
                        c.text_tokens,
                    )
                    for c in chunks
                ),
            )
            self.db.executemany(
                "INSERT INTO chunk_also(rev_id, chunk_id, path, node_id, start_line, end_line)"
                " VALUES (?,?,?,?,?,?)",
                ((rev_id, *a) for a in also),
            )

    def chunk_ids(self, rev_id: str) -> set[str]:
        return {
            r[0] for r in self.db.query("SELECT chunk_id FROM chunk_map WHERE rev_id=?", (rev_id,))
        }

    def chunk_count(self, rev_id: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM chunk_map WHERE rev_id=?", (rev_id,)))

    def chunk(self, rev_id: str, chunk_id: str) -> StoredChunk | None:
        return self.db.row(
            StoredChunk,
            "SELECT m.chunk_id, m.source_kind, m.path, m.node_id, m.start_line, m.end_line, t.text"
            " FROM chunk_map m JOIN chunk_text t ON t.rev_id=m.rev_id AND t.chunk_id=m.chunk_id"
            " WHERE m.rev_id=? AND m.chunk_id=?",
            (rev_id, chunk_id),
        )

    def fts(self, rev_id: str, match: str, weights: dict[str, float], limit: int) -> list[FtsHit]:
        """Chunks matching an FTS5 expression, best first (score = -bm25, higher is better)."""
        w = ", ".join(["0", "0", "0", *(str(float(weights.get(c, 1.0))) for c in FTS_COLUMNS)])
        return self.db.rows(
            FtsHit,
            f"SELECT f.chunk_id, m.path, m.source_kind, m.node_id, m.start_line, m.end_line,"
            f" -bm25(ft_chunk, {w}), f.symbol_tokens, f.code_tokens, f.sql_tokens, f.text_tokens"
            " FROM ft_chunk f JOIN chunk_map m ON m.rev_id = f.rev_id AND m.chunk_id = f.chunk_id"
            f" WHERE ft_chunk MATCH ? AND f.rev_id = ? ORDER BY bm25(ft_chunk, {w}) LIMIT ?",
            (match, rev_id, limit),
        )

    def doc_freq(self, rev_id: str, terms: Sequence[str]) -> dict[str, int]:
        """About how many chunks of ``rev_id`` contain each (already tokenised) term.

        Read from the FTS5 vocabulary (one index seek per term, through a temp ``fts5vocab``
        table on this connection), which counts the rows of every retained revision: scaled by
        the revision's share of the rows, and at least 1 for a term the lexicon has."""
        if not terms:
            return {}
        if not self._vocab:
            self.db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.ft_vocab"
                " USING fts5vocab(main, 'ft_chunk', 'row')"
            )
            self._vocab = True
        rows = self.db.query(
            "SELECT term, doc FROM temp.ft_vocab WHERE term IN (SELECT value FROM json_each(?))",
            (json.dumps(list(terms)),),
        )
        total = int(self.db.scalar("SELECT count(*) FROM chunk_map")) or 1
        share = self.chunk_count(rev_id) / total
        out = dict.fromkeys(terms, 0)
        for term, doc in rows:
            out[term] = max(1, round(int(doc) * share))
        return out

    def chunks_of_nodes(self, rev_id: str, node_ids: list[str]) -> list[ChunkRef]:
        if not node_ids:
            return []
        return self.db.rows(
            ChunkRef,
            f"SELECT {CHUNK_REF_COLS} FROM chunk_map"
            " WHERE rev_id=? AND node_id IN (SELECT value FROM json_each(?))"
            " ORDER BY path, start_line",
            (rev_id, json.dumps(node_ids)),
        )

    def texts(self, rev_id: str, chunk_ids: list[str]) -> dict[str, str]:
        if not chunk_ids:
            return {}
        return {
            r[0]: r[1]
            for r in self.db.query(
                "SELECT chunk_id, text FROM chunk_text WHERE rev_id=?"
                " AND chunk_id IN (SELECT value FROM json_each(?))",
                (rev_id, json.dumps(chunk_ids)),
            )
        }

    def chunk_refs(self, rev_id: str, chunk_ids: list[str]) -> dict[str, ChunkRef]:
        if not chunk_ids:
            return {}
        rows = self.db.rows(
            ChunkRef,
            f"SELECT {CHUNK_REF_COLS} FROM chunk_map"
            " WHERE rev_id=? AND chunk_id IN (SELECT value FROM json_each(?))",
            (rev_id, json.dumps(chunk_ids)),
        )
        return {r.chunk_id: r for r in rows}

    def has_vectors(self, rev_id: str) -> bool:
        return bool(self.db.scalar("SELECT 1 FROM vec_meta WHERE rev_id=? LIMIT 1", (rev_id,)))

    def vector_count(self, rev_id: str) -> int:
        """Chunks of the revision with a vector (vec_meta rows; vec_meta is plain SQL)."""
        return int(self.db.scalar("SELECT count(*) FROM vec_meta WHERE rev_id=?", (rev_id,)))

    def without_vector(self, rev_id: str, chunk_ids: list[str]) -> set[str]:
        """Those of ``chunk_ids`` the revision has no vector for (yet)."""
        if not chunk_ids:
            return set()
        have = {
            r[0]
            for r in self.db.query(
                "SELECT chunk_id FROM vec_meta WHERE rev_id=?"
                " AND chunk_id IN (SELECT value FROM json_each(?))",
                (rev_id, json.dumps(chunk_ids)),
            )
        }
        return set(chunk_ids) - have

    def all_chunks(self, rev_id: str) -> list[tuple[str, str]]:
        """(chunk_id, text) of every chunk of the revision, by chunk id."""
        return [
            (r[0], r[1])
            for r in self.db.query(
                "SELECT chunk_id, text FROM chunk_text WHERE rev_id=? ORDER BY chunk_id", (rev_id,)
            )
        ]

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

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ragraf.store.db import Database

# rev_id, chunk_id, path (UNINDEXED: weight 0), symbol, code, sql, text
BM25_WEIGHTS = (0.0, 0.0, 0.0, 10.0, 1.0, 2.0, 0.5)


class LexStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "lexvec", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    def delete_rev(self, rev_id: str) -> None:
        with self.db.write():
            for table in ("ft_chunk", "chunk_text", "chunk_map", "chunk_also", "vec_meta"):
                self.db.execute(f"DELETE FROM {table} WHERE rev_id=?", (rev_id,))

    def write_chunks(
        self,
        rev_id: str,
        chunks: Iterable[Sequence[Any]],
        also: Iterable[Sequence[Any]],
    ) -> None:
        """chunks: (chunk_id, source_kind, path, node_id, start, end, text, sym, code, sql, txt)."""
        rows = list(chunks)
        with self.db.write():
            self.db.executemany(
                "INSERT INTO chunk_map(rev_id, chunk_id, source_kind, path, node_id, start_line, end_line)"
                " VALUES (?,?,?,?,?,?,?)",
                ((rev_id, c[0], c[1], c[2], c[3], c[4], c[5]) for c in rows),
            )
            self.db.executemany(
                "INSERT INTO chunk_text(rev_id, chunk_id, path, text) VALUES (?,?,?,?)",
                ((rev_id, c[0], c[2], c[6]) for c in rows),
            )
            self.db.executemany(
                "INSERT INTO ft_chunk(rev_id, chunk_id, path, symbol_tokens, code_tokens, sql_tokens, text_tokens)"
                " VALUES (?,?,?,?,?,?,?)",
                ((rev_id, c[0], c[2], c[7], c[8], c[9], c[10]) for c in rows),
            )
            self.db.executemany(
                "INSERT INTO chunk_also(rev_id, chunk_id, path, node_id, start_line, end_line) VALUES (?,?,?,?,?,?)",
                ((rev_id, *a) for a in also),
            )

    def chunk_ids(self, rev_id: str) -> set[str]:
        return {r[0] for r in self.db.query("SELECT chunk_id FROM chunk_map WHERE rev_id=?", (rev_id,))}

    def chunk_count(self, rev_id: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM chunk_map WHERE rev_id=?", (rev_id,)))

"""lexvec.sqlite: the lexicon (FTS5) and the raw chunk text.

Invariants a change must keep:
- ft_chunk holds tokenized forms only: a contentless FTS5 index of the four token
  columns (part of the contract: ``fts`` weights exactly those columns in order) whose
  rowid is its ``chunk_tokens`` row's. The tokens are stored once, packed, in
  ``chunk_tokens`` with the revision range, chunk id and path; its triggers index a row
  inserted and unindex a row deleted (migration lexvec 0004).
- Rows are shared by the revisions that have them (``ragraf.store.ranges``): a new
  revision writes the delta against the newest one; every read is scoped to one
  revision, whose number is the query's first parameter (``?1``).
- chunk_text line 0 is the service header; code starts at line 1 and matches
  chunk_map.start_line. Its text is stored packed (``ragraf.store.packed``: zlib) and
  read only through this module, which unpacks it (a row an older ragraf wrote as TEXT
  is read as it is).
- A chunk_id is unique per revision: content seen twice in one revision is
  one chunk, its further places are in chunk_also.
- ft_ui holds the tokens of a chunk's user-facing text, one row per chunk that has any
  (``fts_ui``: a search channel of its own).
- Vectors are not touched here: only ``ragraf.store.vec`` loads sqlite-vec.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ragraf.model import ChunkPlace, ChunkRef, ChunkRow, FtsHit, StoredChunk, UiHit
from ragraf.store import ranges
from ragraf.store.db import Database, RawRow
from ragraf.store.packed import pack, pack_tokens, unpack, unpack_tokens
from ragraf.store.ranges import rev_no

#: tables whose rows belong to a range of revisions (``ragraf.store.ranges``)
REV_TABLES = ("chunk_tokens", "chunk_text", "chunk_map", "chunk_also", "ft_ui")

# the columns of ft_chunk, in order; bm25() weights are given for these
FTS_COLUMNS = ("symbol", "code", "sql", "text")
CHUNK_REF_COLS = "chunk_id, path, source_kind, node_id, start_line, end_line"


def _chunk_tables(
    chunks: Sequence[ChunkRow], also: Iterable[ChunkPlace]
) -> list[tuple[str, str, Iterable[Sequence[Any]]]]:
    """(table, columns, rows) of the revision tables the chunks of a build fill."""
    return [
        (
            "chunk_map",
            "chunk_id, source_kind, path, node_id, start_line, end_line",
            (
                (c.chunk_id, c.source_kind, c.path, c.node_id, c.start_line, c.end_line)
                for c in chunks
            ),
        ),
        (
            "chunk_text",
            "chunk_id, path, text",
            ((c.chunk_id, c.path, pack(c.text)) for c in chunks),
        ),
        (
            "chunk_tokens",
            "chunk_id, path, tokens",
            (
                (
                    c.chunk_id,
                    c.path,
                    pack_tokens(c.symbol_tokens, c.code_tokens, c.sql_tokens, c.text_tokens),
                )
                for c in chunks
            ),
        ),
        ("chunk_also", "chunk_id, path, node_id, start_line, end_line", also),
        (
            "ft_ui",
            "chunk_id, path, ui_tokens",
            ((c.chunk_id, c.path, c.ui_tokens) for c in chunks if c.ui_tokens),
        ),
    ]


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

    def rev_rows(self, rev_id: str) -> dict[str, list[tuple[Any, ...]]]:
        """Every row the revision has, by table, without ranges (comparisons of builds)."""
        return {t: ranges.visible(self.db, t, rev_no(rev_id)) for t in REV_TABLES}

    def delete_rev(self, rev_id: str) -> None:
        """Undo a revision that was not sealed (``ranges.undo``), then drop the vectors no
        chunk of any revision has."""
        with self.db.write():
            ranges.undo(self.db, REV_TABLES, rev_no(rev_id))
        self.gc_vectors()

    def prune_before(self, oldest: str) -> int:
        """Retention: delete the rows no revision from ``oldest`` on has, then the vectors no
        remaining chunk has; returns the number of rows deleted."""
        with self.db.write():
            gone = ranges.prune_before(self.db, REV_TABLES, rev_no(oldest))
        self.gc_vectors()
        return gone

    def gc_vectors(self) -> None:
        """vec_meta rows of no chunk, then the vectors without vec_meta (``ragraf.store.vec``)."""
        from ragraf.store.vec import gc_vectors

        gc_vectors(self.db)

    def write_chunks(
        self,
        rev_id: str,
        chunks: Sequence[ChunkRow],
        also: Iterable[ChunkPlace],
        scope: Iterable[str] | None = None,
    ) -> ranges.Delta:
        """The chunks of a building revision and their further places, in one transaction:
        only what differs from the newest revision is written (``ranges.write_delta``).
        ``scope`` (paths): ``chunks`` and ``also`` are those of these paths only; the
        other paths' rows stay as they are."""
        n = rev_no(rev_id)
        done = ranges.Delta()
        with self.db.write():
            where = None
            if scope is not None:
                ranges.set_scope(self.db, scope)
                where = ranges.in_scope("path")
            for table, cols, rows in _chunk_tables(chunks, also):
                done += ranges.write_delta(self.db, table, cols, rows, n, where)
        return done

    def stage_chunks(
        self, rev_id: str, chunks: Sequence[ChunkRow], also: Iterable[ChunkPlace]
    ) -> Callable[[], ranges.Delta] | None:
        """``write_chunks`` in two steps, for a first build (every table empty; else None:
        call ``write_chunks``): the rows are staged now on this connection's temp database
        (Python binds them: fast), and the returned function writes them in one transaction
        by ``INSERT ... SELECT`` statements, which hold no GIL, so it can run in a thread
        while the builder links (the FTS5 tokenizing is most of the chunks' write). Until
        it has returned, nothing else may use this store."""
        if not all(ranges.empty(self.db, t) for t in REV_TABLES):
            return None
        n = rev_no(rev_id)
        with self.db.write():  # the temp database only
            staged = [
                (table, cols, ranges.stage(self.db, table, cols, rows))
                for table, cols, rows in _chunk_tables(chunks, also)
            ]

        def write() -> ranges.Delta:
            done = ranges.Delta()
            with self.db.write():
                for table, cols, count in staged:
                    done += ranges.insert_staged(self.db, table, cols, n, count)
            return done

        return write

    def open_chunk_places(self, paths: Iterable[str]) -> set[str]:
        """The chunk ids the newest revision has at these paths (as chunk or further place)."""
        with self.db.write():  # the scope table is per connection
            ranges.set_scope(self.db, paths)
            cond = ranges.in_scope("path")
            return {
                r[0]
                for t in ("chunk_map", "chunk_also")
                for r in self.db.query(
                    f"SELECT chunk_id FROM {t} WHERE rev_to = {ranges.OPEN} AND {cond}"
                )
            }

    def open_chunk_holders(self, chunk_ids: Iterable[str]) -> set[tuple[str, str]]:
        """(chunk_id, path) of every place the newest revision has these chunks at."""
        ids = json.dumps(sorted(set(chunk_ids)))
        return {
            (r[0], r[1])
            for t in ("chunk_map", "chunk_also")
            for r in self.db.query(
                f"SELECT chunk_id, path FROM {t} WHERE rev_to = {ranges.OPEN}"
                " AND chunk_id IN (SELECT value FROM json_each(?))",
                (ids,),
            )
        }

    def open_chunk_count(self, outside: Iterable[str] = ()) -> int:
        """How many chunks the newest revision has whose path is none of ``outside``."""
        with self.db.write():
            ranges.set_scope(self.db, outside)
            return int(
                self.db.scalar(
                    f"SELECT count(*) FROM chunk_map WHERE rev_to = {ranges.OPEN}"
                    f" AND NOT {ranges.in_scope('path')}"
                )
            )

    def chunk_ids(self, rev_id: str) -> set[str]:
        return {
            r[0]
            for r in self.db.query(
                "SELECT chunk_id FROM chunk_map WHERE rev_from <= ?1 AND rev_to > ?1",
                (rev_no(rev_id),),
            )
        }

    def chunk_count(self, rev_id: str) -> int:
        return int(
            self.db.scalar_kept(
                "SELECT count(*) FROM chunk_map WHERE rev_from <= ?1 AND rev_to > ?1",
                (rev_no(rev_id),),
            )
        )

    def chunk(self, rev_id: str, chunk_id: str) -> StoredChunk | None:
        row = self.db.row(
            StoredChunk,
            "SELECT m.chunk_id, m.source_kind, m.path, m.node_id, m.start_line, m.end_line, t.text"
            " FROM chunk_map m JOIN chunk_text t ON t.rev_from <= ?1 AND t.rev_to > ?1 AND t.chunk_id=m.chunk_id"
            " WHERE m.rev_from <= ?1 AND m.rev_to > ?1 AND m.chunk_id=?",
            (rev_no(rev_id), chunk_id),
        )
        return None if row is None else row._replace(text=unpack(row.text))

    def fts(self, rev_id: str, match: str, weights: dict[str, float], limit: int) -> list[FtsHit]:
        """Chunks matching an FTS5 expression, best first (score = -bm25, higher is better)."""
        w = ", ".join(str(float(weights.get(c, 1.0))) for c in FTS_COLUMNS)
        return [
            FtsHit._make((*r[:7], *unpack_tokens(r[7])))
            for r in self._ranked(
                ("ft_chunk", f"bm25(ft_chunk, {w})", "chunk_tokens"), rev_id, match, limit
            )
        ]

    def fts_ui(self, rev_id: str, match: str, limit: int) -> list[UiHit]:
        """Chunks whose user-facing text (ft_ui) matches an FTS5 expression, best first
        (score = -bm25, higher is better); the ranking reads the index alone, like ``fts``."""
        return [
            UiHit._make(r)
            for r in self._ranked(("ft_ui", "bm25(ft_ui)", "ft_ui"), rev_id, match, limit)
        ]

    def _ranked(
        self, table: tuple[str, str, str], rev_id: str, match: str, limit: int
    ) -> list[RawRow]:
        """The best ``limit`` rows of ``rev_id`` matching ``match`` in the full-text table
        ``table`` (its name, its bm25 expression, the table of its rows' range and tokens),
        as raw rows: the chunk's place, the score, the row's token column(s).

        The ranking reads the full-text index alone; the revision's range and the token
        columns are in the content table, read for the best rows only (reading them for
        every match took most of a query: ~900 content rows per query on phpMyAdmin). Rows
        of other retained revisions can take places in the ranking: fetch more until
        ``limit`` rows of this revision are there or the matches run out."""
        name, bm25, content = table
        columns = "f.tokens" if content == "chunk_tokens" else "f.ui_tokens"
        n = rev_no(rev_id)
        fetch = limit + 16
        while True:
            top = self.db.query(
                f"SELECT rowid, -{bm25} FROM {name} WHERE {name} MATCH ? ORDER BY {bm25} LIMIT ?",
                (match, fetch),
            )
            hits = self.db.query(
                "SELECT f.chunk_id, m.path, m.source_kind, m.node_id, m.start_line, m.end_line,"
                f" t.value ->> 1, {columns}"
                f" FROM json_each(?2) t JOIN {content} f ON f.rowid = t.value ->> 0"
                " JOIN chunk_map m ON m.rev_from <= ?1 AND m.rev_to > ?1 AND m.chunk_id = f.chunk_id"
                " WHERE f.rev_from <= ?1 AND f.rev_to > ?1 ORDER BY t.key",
                (n, json.dumps([[int(r), float(sc)] for r, sc in top])),
            )
            if len(hits) >= limit or len(top) < fetch:
                return hits[:limit]
            fetch *= 4

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
        total = int(self.db.scalar_kept("SELECT count(*) FROM chunk_map")) or 1
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
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND node_id IN (SELECT value FROM json_each(?))"
            " ORDER BY path, start_line",
            (rev_no(rev_id), json.dumps(node_ids)),
        )

    def texts(self, rev_id: str, chunk_ids: list[str]) -> dict[str, str]:
        if not chunk_ids:
            return {}
        return {
            r[0]: unpack(r[1])
            for r in self.db.query(
                "SELECT chunk_id, text FROM chunk_text WHERE rev_from <= ?1 AND rev_to > ?1"
                " AND chunk_id IN (SELECT value FROM json_each(?))",
                (rev_no(rev_id), json.dumps(chunk_ids)),
            )
        }

    def chunk_refs(self, rev_id: str, chunk_ids: list[str]) -> dict[str, ChunkRef]:
        if not chunk_ids:
            return {}
        rows = self.db.rows(
            ChunkRef,
            f"SELECT {CHUNK_REF_COLS} FROM chunk_map"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND chunk_id IN (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(chunk_ids)),
        )
        return {r.chunk_id: r for r in rows}

    def has_vectors(self, rev_id: str) -> bool:
        return bool(
            self.db.scalar(
                f"SELECT 1 FROM chunk_map m JOIN vec_meta v ON v.chunk_id = m.chunk_id"
                f" WHERE {ranges.live('m')} LIMIT 1",
                (rev_no(rev_id),),
            )
        )

    def vector_count(self, rev_id: str) -> int:
        """Chunks of the revision with a vector (vec_meta is plain SQL)."""
        return int(
            self.db.scalar(
                f"SELECT count(*) FROM chunk_map m JOIN vec_meta v ON v.chunk_id = m.chunk_id"
                f" WHERE {ranges.live('m')}",
                (rev_no(rev_id),),
            )
        )

    def without_vector(self, rev_id: str, chunk_ids: list[str]) -> set[str]:
        """Those of ``chunk_ids`` the revision has no vector for (yet)."""
        if not chunk_ids:
            return set()
        have = {
            r[0]
            for r in self.db.query(
                f"SELECT m.chunk_id FROM chunk_map m JOIN vec_meta v ON v.chunk_id = m.chunk_id"
                f" WHERE {ranges.live('m')} AND m.chunk_id IN (SELECT value FROM json_each(?))",
                (rev_no(rev_id), json.dumps(chunk_ids)),
            )
        }
        return set(chunk_ids) - have

    def all_chunks(self, rev_id: str) -> list[tuple[str, str]]:
        """(chunk_id, text) of every chunk of the revision, by chunk id."""
        return [
            (r[0], unpack(r[1]))
            for r in self.db.query(
                "SELECT chunk_id, text FROM chunk_text WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY chunk_id",
                (rev_no(rev_id),),
            )
        ]

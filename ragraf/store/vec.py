"""Vectors of chunks in lexvec.sqlite: the only module that touches sqlite-vec.

Invariants a change must keep:
- sqlite-vec ("pre-v1, expect breaking changes", architecture §4.2) is loaded
  and spoken to here only; replacing the engine changes this file alone.
- ``vec_chunk`` holds ONE vector per chunk_id. A chunk_id is a content hash
  shared by every revision that has the chunk (ids.chunk_id), so a vector is
  computed once and reused. ``vec_meta`` is keyed by content too (chunk_id, model,
  model_version, chunk_sha256); which revision has which chunk, and so which vector,
  is chunk_map's revision range (``ragraf.store.ranges``). vec_chunk's ``rev_id``
  column only says which revision stored the vector first.
- A vec_meta row of a chunk no revision has, and a vector without a vec_meta row,
  are garbage: ``gc`` removes them. Nothing else deletes vectors.
- Writes run inside ``Database.write()``; a reader (read-only connection)
  can search but never creates the table.
- Distances are L2 between unit vectors (the table uses sqlite-vec's default
  metric): ``cosine_of(distance) = 1 - distance**2 / 2`` is the one place that converts.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ragraf.errors import EmbeddingUnavailable, InvalidArgument, StoreError
from ragraf.store.db import Database, SQLiteError
from ragraf.store.ranges import live, rev_no

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

TABLE = "vec_chunk"
#: sqlite-vec refuses a KNN query with k above this (v0.1.9: "the limit is 4096").
KNN_MAX_K = 4096
#: first KNN asks for this many times the share-adjusted k, then doubles
OVERSAMPLE = 2
#: ids per statement when a list of chunk ids is passed to SQL
_BATCH = 5000

_DIM_RE = re.compile(r"\bembedding\s+float\s*\[\s*(\d+)\s*\]", re.IGNORECASE)


def cosine_of(distance: float) -> float:
    """Cosine similarity of two unit vectors from their L2 distance: 1 - d**2 / 2."""
    return 1.0 - float(distance) ** 2 / 2.0


def _extension_path() -> str:
    """The loadable sqlite-vec library of the installed package (``sqlite_vec.loadable_path``),
    found without importing the package: its ``__init__`` imports sqlite3 and numpy (~0.15 s
    of a start that only loads the extension)."""
    import importlib.util

    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingUnavailable("sqlite-vec is not installed; run `pip install sqlite-vec`")
    return os.path.normpath(os.path.join(list(spec.submodule_search_locations)[0], "vec0"))


def _load_extension(db: Database) -> None:
    """Load sqlite-vec into this connection once (read-only connections too)."""
    try:
        db.scalar("SELECT vec_version()")
        return
    except SQLiteError:
        pass
    where = _extension_path()
    try:
        db.load_extension(where)
    except SQLiteError as e:
        raise EmbeddingUnavailable(
            f"sqlite-vec cannot be loaded from {where} ({e}); "
            "reinstall it with `pip install --force-reinstall sqlite-vec`"
        ) from e


def vec_version(db: Database) -> str:
    _load_extension(db)
    return str(db.scalar("SELECT vec_version()"))


def table_dim(db: Database) -> int | None:
    """Dimensions of the existing vec_chunk table (None when there is none)."""
    sql = db.scalar("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (TABLE,))
    if sql is None:
        return None
    m = _DIM_RE.search(str(sql))
    if m is None:
        raise StoreError(f"{db.path}: {TABLE} has no 'embedding float[N]' column ({sql})")
    return int(m.group(1))


def drop_vectors(db: Database) -> None:
    """Remove every vector and vec_meta row (e.g. after embedding.dim changed); reindex after."""
    _load_extension(db)
    with db.write():
        db.execute(f"DROP TABLE IF EXISTS {TABLE}")
        db.execute("DELETE FROM vec_meta")


def _chunks(items: Sequence[str], size: int = _BATCH) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class VecStore:
    """Vectors of one lexvec database, ``dim`` floats each."""

    def __init__(self, db: Database, dim: int) -> None:
        if db.store != "lexvec":
            raise StoreError(f"{db.path} is a {db.store!r} store; vectors live in lexvec")
        if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
            raise InvalidArgument(f"embedding.dim must be a positive integer, got {dim!r}")
        self.db = db
        self.dim = dim
        _load_extension(db)
        self._exists = self._check_table()
        if not self._exists and not db.readonly:
            with db.write():
                # inside BEGIN IMMEDIATE: a concurrent writer either created it already or waits
                if self._check_table() is False:
                    db.execute(
                        f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING vec0("
                        f"chunk_id TEXT PRIMARY KEY, rev_id TEXT, embedding FLOAT[{dim}])"
                    )
            self._exists = True

    # -- table --------------------------------------------------------------
    def _check_table(self) -> bool:
        have = table_dim(self.db)
        if have is None:
            return False
        if have != self.dim:
            raise EmbeddingUnavailable(
                f"{self.db.path}: {TABLE} holds {have}-dim vectors but embedding.dim is {self.dim}; "
                f"set embedding.dim: {have} back, or rebuild the vectors "
                f"(ragraf.store.vec.drop_vectors, then `ragraf index --force`)"
            )
        return True

    def _ready(self) -> bool:
        """True when the table exists (a reader re-checks: a writer may have made it since)."""
        if not self._exists:
            self._exists = self._check_table()
        return self._exists

    def _blob(self, vector: ArrayLike) -> bytes:
        import numpy as np

        v = np.asarray(vector, dtype=np.float32)
        if v.shape != (self.dim,):
            raise InvalidArgument(f"a vector must have shape ({self.dim},), got {v.shape}")
        if not np.isfinite(v).all():
            raise InvalidArgument("a vector contains NaN or infinity")
        return np.ascontiguousarray(v).tobytes()

    # -- reading ------------------------------------------------------------
    def has_vectors(
        self,
        chunk_ids: Iterable[str],
        *,
        model: str | None = None,
        model_version: str | None = None,
    ) -> set[str]:
        """The chunk ids whose vector is stored.

        With ``model`` (and ``model_version``), only those recorded in vec_meta
        with exactly that model and version: a vector made by another model
        version is not reusable.
        """
        ids = list(dict.fromkeys(chunk_ids))
        if not ids or not self._ready():
            return set()
        if len(ids) <= 2000:
            have = {
                c
                for c in ids
                if self.db.query_one(f"SELECT 1 FROM {TABLE} WHERE chunk_id=?", (c,)) is not None
            }
        else:  # one scan of the primary keys beats thousands of lookups
            wanted = set(ids)
            have = {r[0] for r in self.db.query(f"SELECT chunk_id FROM {TABLE}") if r[0] in wanted}
        if model is None:
            return have
        same: set[str] = set()
        for part in _chunks(sorted(have)):
            same.update(
                r[0]
                for r in self.db.query(
                    "SELECT DISTINCT chunk_id FROM vec_meta WHERE model=? AND model_version IS ?"
                    " AND chunk_id IN (SELECT value FROM json_each(?))",
                    (model, model_version, json.dumps(list(part))),
                )
            )
        return same

    def count(self, rev_id: str | None = None) -> int:
        """Vectors of a revision (vec_meta rows), or all stored vectors when rev_id is None."""
        if rev_id is None:
            return int(self.db.scalar_kept(f"SELECT count(*) FROM {TABLE}")) if self._ready() else 0
        return int(
            self.db.scalar_kept(
                "SELECT count(*) FROM chunk_map m JOIN vec_meta x ON x.chunk_id = m.chunk_id"
                f" WHERE {live('m')}",
                (rev_no(rev_id),),
            )
        )

    def in_rev(self, rev_id: str, model: str, model_version: str | None) -> set[str]:
        """The chunk ids ``rev_id`` has a vector for, made by this model and version."""
        return {
            r[0]
            for r in self.db.query(
                "SELECT m.chunk_id FROM chunk_map m JOIN vec_meta x ON x.chunk_id = m.chunk_id"
                f" WHERE {live('m')} AND x.model=? AND x.model_version IS ?",
                (rev_no(rev_id), model, model_version),
            )
        }

    def models(self, rev_id: str) -> list[tuple[str, str | None]]:
        """(model, model_version) pairs a revision's vectors were made with.

        A query vector is comparable only with vectors of the same pair; the
        caller checks this before :meth:`knn`.
        """
        return [
            (r[0], r[1])
            for r in self.db.query(
                "SELECT DISTINCT x.model, x.model_version FROM chunk_map m"
                f" JOIN vec_meta x ON x.chunk_id = m.chunk_id WHERE {live('m')}"
                " ORDER BY x.model, x.model_version",
                (rev_no(rev_id),),
            )
        ]

    def knn(self, rev_id: str, query_vector: ArrayLike, k: int) -> list[tuple[str, float]]:
        """The k chunks of ``rev_id`` nearest to the vector: (chunk_id, L2 distance), nearest first.

        sqlite-vec's KNN sees every stored vector (all revisions), so it is
        asked for more than k, filtered through vec_meta, and asked again with
        a larger k until k chunks of the revision are found; past sqlite-vec's
        k limit an exact scan of the revision's vectors answers instead.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
            raise InvalidArgument(f"k must be a positive integer, got {k!r}")
        blob = self._blob(query_vector)
        if not self._ready():
            return []
        n = rev_no(rev_id)
        in_rev = self.count(rev_id)
        if in_rev == 0:
            return []
        total = self.count()
        want = min(k, in_rev)
        # expected share of the revision among the nearest neighbours
        ask = min(total, max(want, math.ceil(want * total / in_rev * OVERSAMPLE) + 8))
        while ask <= KNN_MAX_K:
            rows = self.db.query(
                f"SELECT v.chunk_id, v.distance FROM {TABLE} v"
                f" JOIN chunk_map m ON m.chunk_id = v.chunk_id AND {live('m')}"
                " WHERE v.embedding MATCH ? AND v.k = ? ORDER BY v.distance LIMIT ?",
                (n, blob, ask, want),
            )
            if len(rows) >= want or ask >= total:
                return [(r[0], float(r[1])) for r in rows]
            if ask == KNN_MAX_K:
                break
            ask = min(KNN_MAX_K, total, ask * 4)
        rows = self.db.query(
            f"SELECT m.chunk_id, vec_distance_l2(v.embedding, ?2) AS d FROM chunk_map m"
            f" JOIN vec_meta x ON x.chunk_id = m.chunk_id"
            f" JOIN {TABLE} v ON v.chunk_id = m.chunk_id WHERE {live('m')} ORDER BY d LIMIT ?3",
            (n, blob, want),
        )
        return [(r[0], float(r[1])) for r in rows]

    def distances(
        self, rev_id: str, query_vector: ArrayLike, chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        """L2 distance from the vector to each given chunk of ``rev_id`` that has a vector
        (an exact scan of those rows only: for re-ranking a short candidate list)."""
        if not chunk_ids or not self._ready():
            return {}
        rows = self.db.query(
            f"SELECT m.chunk_id, vec_distance_l2(v.embedding, ?2) FROM chunk_map m"
            f" JOIN vec_meta x ON x.chunk_id = m.chunk_id"
            f" JOIN {TABLE} v ON v.chunk_id = m.chunk_id WHERE {live('m')}"
            " AND m.chunk_id IN (SELECT value FROM json_each(?3))",
            (rev_no(rev_id), self._blob(query_vector), json.dumps(list(chunk_ids))),
        )
        return {r[0]: float(r[1]) for r in rows}

    # -- writing ------------------------------------------------------------
    def add(
        self,
        rev_id: str,
        rows: Iterable[tuple[str, ArrayLike, str]],
        model: str,
        model_version: str | None,
    ) -> int:
        """Store vectors for ``rev_id``: rows are (chunk_id, vector, chunk_sha256).

        A chunk_id without a vector gets one; a chunk_id that has one gets the
        new vector (the caller embedded it again because the stored one was
        made by another model version). Every row gets its vec_meta row for
        this revision. Returns the number of rows.
        """
        if self.db.readonly:
            raise StoreError(f"{self.db.path} is open read-only")
        prepared = []
        for chunk_id, vector, sha in rows:
            if not chunk_id or not sha:
                raise InvalidArgument("add() rows need a chunk_id and a chunk_sha256")
            prepared.append((str(chunk_id), self._blob(vector), str(sha)))
        if not prepared:
            return 0
        with self.db.write():
            existing = self.has_vectors([r[0] for r in prepared])
            # vec0 refuses INSERT OR REPLACE: delete first
            self.db.executemany(
                f"DELETE FROM {TABLE} WHERE chunk_id=?",
                ((c,) for c, _b, _s in prepared if c in existing),
            )
            self.db.executemany(
                f"INSERT INTO {TABLE}(chunk_id, rev_id, embedding) VALUES (?,?,?)",
                ((c, rev_id, b) for c, b, _s in {r[0]: r for r in prepared}.values()),
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO vec_meta(chunk_id, model, model_version, chunk_sha256)"
                " VALUES (?,?,?,?)",
                ((c, model, model_version, s) for c, _b, s in prepared),
            )
        return len(prepared)

    def gc(self) -> int:
        """Remove the vec_meta rows of chunks no revision has any more (after an undo or a
        prune of chunk_map rows), then the vectors without a vec_meta row."""
        with self.db.write():
            return self._gc()

    def _gc(self) -> int:
        _drop_orphan_meta(self.db)
        if not self._ready():
            return 0
        orphans = [
            r[0]
            for r in self.db.query(
                f"SELECT chunk_id FROM {TABLE} WHERE chunk_id NOT IN (SELECT chunk_id FROM vec_meta)"
            )
        ]
        self.db.executemany(f"DELETE FROM {TABLE} WHERE chunk_id=?", ((c,) for c in orphans))
        return len(orphans)


def _drop_orphan_meta(db: Database) -> None:
    """vec_meta rows of chunks no revision has (inside the caller's transaction)."""
    db.execute("DELETE FROM vec_meta WHERE chunk_id NOT IN (SELECT chunk_id FROM chunk_map)")


def gc_vectors(db: Database) -> int:
    """``VecStore.gc`` whatever the table's dimension (after an undo or a prune); without a
    vector table, only vec_meta is cleaned and sqlite-vec is not loaded."""
    dim = table_dim(db)
    if dim is None:
        with db.write():
            _drop_orphan_meta(db)
        return 0
    return VecStore(db, dim).gc()

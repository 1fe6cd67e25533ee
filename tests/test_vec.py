"""The vector store: real SQLite (apsw) with the real sqlite-vec extension, real model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragraf.embed import Embedder
from ragraf.errors import EmbeddingUnavailable, InvalidArgument, StoreError
from ragraf.ids import chunk_id, sha256_text
from ragraf.model import ChunkRow
from ragraf.store.db import Database
from ragraf.store.lexvec import LexStore
from ragraf.store.vec import VecStore, drop_vectors, table_dim, vec_version

DIM = 16
MODEL = "test/model"
VER = "v1"


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def rows(ids: list[str], vecs: np.ndarray) -> list[tuple[str, np.ndarray, str]]:
    return [(c, v, "sha-" + c) for c, v in zip(ids, vecs, strict=True)]


def give_chunks(path: Path, rev_id: str, ids: list[str]) -> None:
    """Make ``ids`` the chunks of revision ``rev_id`` (written as the build does: the delta
    against the newest revision), so that its vectors are those of these chunks."""
    with LexStore(path) as lex:
        lex.write_chunks(
            rev_id,
            [ChunkRow(c, "symbol", "a.php", None, 1, 2, "h\nx", c, "", "", "", "s") for c in ids],
            [],
        )


@pytest.fixture
def db(tmp_path: Path) -> Database:
    d = Database(tmp_path / "lexvec.sqlite", "lexvec")
    yield d
    d.close()


def brute(vecs: dict[str, np.ndarray], q: np.ndarray, k: int) -> list[str]:
    ids = sorted(vecs, key=lambda c: float(np.linalg.norm(vecs[c] - q)))
    return ids[:k]


def test_roundtrip(db: Database) -> None:
    rng = np.random.default_rng(1)
    vs = VecStore(db, DIM)
    assert vec_version(db).startswith("v0.")
    assert table_dim(db) == DIM
    ids = [f"c{i}" for i in range(20)]
    vecs = unit(rng, 20)
    give_chunks(db.path, "rev-0001", ids)
    assert vs.add("rev-0001", rows(ids, vecs), MODEL, VER) == 20
    assert vs.count("rev-0001") == 20 and vs.count() == 20
    assert vs.has_vectors(ids + ["nope"]) == set(ids)
    assert vs.models("rev-0001") == [(MODEL, VER)]
    hits = vs.knn("rev-0001", vecs[7], 3)
    assert hits[0][0] == "c7" and hits[0][1] == pytest.approx(0.0, abs=1e-5)
    assert [h[0] for h in hits] == brute(dict(zip(ids, vecs, strict=True)), vecs[7], 3)
    assert all(hits[i][1] <= hits[i + 1][1] for i in range(len(hits) - 1))
    assert db.query("SELECT chunk_sha256 FROM vec_meta WHERE chunk_id='c3'") == [("sha-c3",)]
    # k larger than the revision: everything, nearest first
    assert len(vs.knn("rev-0001", vecs[0], 100)) == 20


def test_reopen_keeps_table(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    with Database(tmp_path / "l.sqlite", "lexvec") as d:
        VecStore(d, DIM).add("rev-0001", rows(["a"], unit(rng, 1)), MODEL, VER)
    with Database(tmp_path / "l.sqlite", "lexvec") as d:
        vs = VecStore(d, DIM)
        assert vs.count() == 1 and vs.has_vectors(["a"]) == {"a"}


def test_reuse_across_revisions(db: Database) -> None:
    """A vector belongs to its chunk id (content), not to a revision: a revision that has
    the chunk has its vector."""
    rng = np.random.default_rng(3)
    vs = VecStore(db, DIM)
    ids = [f"c{i}" for i in range(10)]
    give_chunks(db.path, "rev-0001", ids)
    vs.add("rev-0001", rows(ids, unit(rng, 10)), MODEL, VER)
    # rev 2: c0..c5 unchanged, n1/n2 new
    give_chunks(db.path, "rev-0002", ids[:6] + ["n1", "n2"])
    assert vs.in_rev("rev-0002", MODEL, VER) == set(ids[:6])
    vs.add("rev-0002", rows(["n1", "n2"], unit(rng, 2)), MODEL, VER)
    assert vs.count("rev-0002") == 8 and vs.count("rev-0001") == 10
    assert vs.count() == 12  # one vector per chunk_id, not per revision
    assert db.query("SELECT chunk_sha256 FROM vec_meta WHERE chunk_id='c4'") == [("sha-c4",)]
    # another model version: nothing is reusable, has_vectors(model=...) says so too
    assert vs.in_rev("rev-0002", MODEL, "v2") == set()
    assert vs.has_vectors(ids, model=MODEL, model_version="v2") == set()
    assert vs.has_vectors(ids, model=MODEL, model_version=VER) == set(ids)


def test_add_replaces_a_stale_vector(db: Database) -> None:
    rng = np.random.default_rng(4)
    vs = VecStore(db, DIM)
    old, new = unit(rng, 2)
    give_chunks(db.path, "rev-0001", ["c"])
    vs.add("rev-0001", [("c", old, "s")], MODEL, "v1")
    give_chunks(db.path, "rev-0002", ["c"])
    vs.add("rev-0002", [("c", new, "s")], MODEL, "v2")
    assert vs.count() == 1
    assert vs.knn("rev-0002", new, 1)[0][1] == pytest.approx(0.0, abs=1e-5)
    assert vs.models("rev-0002") == [(MODEL, "v2")]


def test_knn_is_restricted_to_the_revision(db: Database) -> None:
    rng = np.random.default_rng(5)
    vs = VecStore(db, DIM)
    q = unit(rng, 1)[0]
    # rev-0002 has the chunks nearest to q; rev-0001 must never see them
    near = q + 0.01 * unit(rng, 30)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    far = unit(rng, 40)
    give_chunks(db.path, "rev-0001", [f"f{i}" for i in range(40)])
    vs.add("rev-0001", rows([f"f{i}" for i in range(40)], far), MODEL, VER)
    give_chunks(db.path, "rev-0002", [f"n{i}" for i in range(30)])
    vs.add("rev-0002", rows([f"n{i}" for i in range(30)], near), MODEL, VER)
    hits = vs.knn("rev-0001", q, 5)
    assert len(hits) == 5 and all(h[0].startswith("f") for h in hits)
    assert [h[0] for h in hits] == brute({f"f{i}": far[i] for i in range(40)}, q, 5)
    assert all(h[0].startswith("n") for h in vs.knn("rev-0002", q, 5))
    give_chunks(db.path, "rev-0003", [])  # a revision without chunks has no vectors
    assert vs.knn("rev-0003", q, 5) == [] and len(vs.knn("rev-0001", q, 5)) == 5


@pytest.mark.parametrize("n_other, n_rev", [(3000, 300), (4600, 400), (6000, 20)])
def test_knn_grows_k_and_falls_back_to_a_scan(db: Database, n_other: int, n_rev: int) -> None:
    """The revision's chunks are the farthest ones: the first KNN rounds find none of them."""
    rng = np.random.default_rng(6)
    vs = VecStore(db, DIM)
    q = np.zeros(DIM, np.float32)
    q[0] = 1.0
    others = unit(rng, n_other)
    others[:, 0] = np.abs(others[:, 0]) + 1.0  # all on q's side
    others /= np.linalg.norm(others, axis=1, keepdims=True)
    mine = unit(rng, n_rev)
    mine[:, 0] = -np.abs(mine[:, 0]) - 1.0  # all on the opposite side
    mine /= np.linalg.norm(mine, axis=1, keepdims=True)
    give_chunks(db.path, "rev-0001", [f"o{i}" for i in range(n_other)])
    vs.add("rev-0001", rows([f"o{i}" for i in range(n_other)], others), MODEL, VER)
    give_chunks(db.path, "rev-0002", [f"m{i}" for i in range(n_rev)])
    vs.add("rev-0002", rows([f"m{i}" for i in range(n_rev)], mine), MODEL, VER)
    hits = vs.knn("rev-0002", q, 10)
    assert [h[0] for h in hits] == brute({f"m{i}": mine[i] for i in range(n_rev)}, q, 10)
    exact = [float(np.linalg.norm(mine[int(h[0][1:])] - q)) for h in hits]
    assert [h[1] for h in hits] == pytest.approx(exact, abs=1e-4)


def test_undo_and_prune_collect_garbage(tmp_path: Path) -> None:
    """Vectors go with the last chunk that has them: a revision undone before its seal
    takes the vectors only it had; pruning takes those only pruned revisions had."""
    rng = np.random.default_rng(7)
    path = tmp_path / "lexvec.sqlite"
    with LexStore(path) as lex:
        vs = VecStore(lex.db, DIM)
        give_chunks(path, "rev-0001", ["a", "b", "shared"])
        vs.add("rev-0001", rows(["a", "b", "shared"], unit(rng, 3)), MODEL, VER)
        give_chunks(path, "rev-0002", ["shared", "c"])
        vs.add("rev-0002", rows(["c"], unit(rng, 1)), MODEL, VER)
        lex.delete_rev("rev-0002")  # undone: c goes, rev-0001 is whole again
        assert vs.has_vectors(["a", "b", "shared", "c"]) == {"a", "b", "shared"}
        assert vs.count("rev-0001") == 3
        give_chunks(path, "rev-0003", ["shared", "c"])
        vs.add("rev-0003", rows(["c"], unit(rng, 1)), MODEL, VER)
        lex.prune_before("rev-0003")  # rev-0001 pruned: a, b go; shared stays
        assert vs.has_vectors(["a", "b", "shared", "c"]) == {"shared", "c"}
        assert vs.count("rev-0003") == 2 and vs.gc() == 0
        assert db_count(lex.db) == 2


def db_count(db: Database) -> int:
    return int(db.scalar("SELECT count(*) FROM vec_meta"))


def test_dim_mismatch_is_refused(db: Database) -> None:
    VecStore(db, DIM).add("rev-0001", rows(["a"], unit(np.random.default_rng(9), 1)), MODEL, VER)
    with pytest.raises(EmbeddingUnavailable) as ei:
        VecStore(db, 384)
    assert "16-dim" in str(ei.value) and "embedding.dim is 384" in str(ei.value)
    drop_vectors(db)
    vs = VecStore(db, 384)
    assert (
        table_dim(db) == 384 and vs.count() == 0 and db.scalar("SELECT count(*) FROM vec_meta") == 0
    )


def test_bad_vectors(db: Database) -> None:
    vs = VecStore(db, DIM)
    with pytest.raises(InvalidArgument):
        vs.add("rev-0001", [("a", np.ones(DIM + 1, np.float32), "s")], MODEL, VER)
    with pytest.raises(InvalidArgument):
        vs.add("rev-0001", [("a", np.full(DIM, np.nan, np.float32), "s")], MODEL, VER)
    with pytest.raises(InvalidArgument):
        vs.knn("rev-0001", np.ones(3), 5)
    with pytest.raises(InvalidArgument):
        vs.knn("rev-0001", np.ones(DIM), 0)
    assert vs.count() == 0  # nothing half-written


def test_readonly_reader(tmp_path: Path) -> None:
    path = tmp_path / "lexvec.sqlite"
    rng = np.random.default_rng(10)
    vecs = unit(rng, 5)
    with Database(path, "lexvec") as w:
        ro0 = Database(path, "lexvec", readonly=True)
        early = VecStore(ro0, DIM)  # no table yet: a reader does not create it
        assert early.knn("rev-0001", vecs[0], 3) == [] and early.count() == 0
        give_chunks(path, "rev-0001", list("abcde"))
        VecStore(w, DIM).add("rev-0001", rows(list("abcde"), vecs), MODEL, VER)
        assert early.knn("rev-0001", vecs[2], 1)[0][0] == "c"  # sees the table made since
        ro0.close()
    with Database(path, "lexvec", readonly=True) as ro:
        vs = VecStore(ro, DIM)
        assert vs.knn("rev-0001", vecs[3], 1)[0][0] == "d"
        with pytest.raises(StoreError):
            vs.add("rev-0002", rows(["x"], unit(rng, 1)), MODEL, VER)
        with pytest.raises(StoreError):
            vs.gc()


def test_wrong_store(tmp_path: Path) -> None:
    with Database(tmp_path / "g.sqlite", "graph") as g, pytest.raises(StoreError):
        VecStore(g, DIM)


@pytest.fixture(scope="module")
def emb(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(cache_dir=tmp_path_factory.mktemp("cache")).load()


@pytest.mark.slow
@pytest.mark.model
def test_semantic_search_with_the_real_model(db: Database, emb: Embedder) -> None:
    chunks = {
        "Util::backquote": "public static function backquote($name) { return '`' . str_replace('`', '``', $name) . '`'; }",
        "Invoice::pay": "public function pay(Invoice $i) { $this->gateway->chargeCard($i->customer->card, $i->total); }",
        "Flags::all": "public function countryFlags(): array { return ['fr' => 'flag-fr.png', 'de' => 'flag-de.png']; }",
        "Mailer::send": "public function send(Message $m) { $this->smtp->deliver($m->to, $m->subject, $m->body); }",
    }
    ids = {
        name: chunk_id(sha256_text(text), "symbol", emb.model_id) for name, text in chunks.items()
    }
    vecs = emb.embed(list(chunks.values()))
    vs = VecStore(db, emb.dim)
    give_chunks(db.path, "rev-0001", list(ids.values()))
    vs.add(
        "rev-0001",
        [(ids[n], v, sha256_text(t)) for (n, t), v in zip(chunks.items(), vecs, strict=True)],
        emb.model_id,
        emb.model_version,
    )
    by_id = {v: k for k, v in ids.items()}
    top = vs.knn("rev-0001", emb.embed_query("charge the customer's credit card"), 2)
    assert by_id[top[0][0]] == "Invoice::pay"
    top = vs.knn("rev-0001", emb.embed_query("quote a table name with backticks"), 1)
    assert by_id[top[0][0]] == "Util::backquote"

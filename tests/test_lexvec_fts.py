"""LexStore.fts ranks over the full-text index alone and reads the revision's range and token
columns of the best rows only; rows of older retained revisions that rank first make it fetch
further. The result is the single query's: every match of the revision, best first."""

from __future__ import annotations

from pathlib import Path

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.indexing import indexer
from ragraf.store.lexvec import LexStore
from ragraf.store.ranges import rev_no
from tests.helpers import write

WEIGHTS = {"symbol_tokens": 10.0, "code_tokens": 1.0, "sql_tokens": 2.0, "text_tokens": 0.5}


def _oracle(lex: LexStore, rev: str, match: str, limit: int) -> list[tuple[str, float]]:
    """The revision's matches best first, in one query over the content (the old way)."""
    w = "10.0, 1.0, 2.0, 0.5"
    rows = lex.db.query(
        f"SELECT s.chunk_id, -bm25(ft_chunk, {w}) FROM ft_chunk"
        " JOIN chunk_tokens s ON s.rowid = ft_chunk.rowid"
        " JOIN chunk_map m ON m.rev_from <= ?1 AND m.rev_to > ?1 AND m.chunk_id = s.chunk_id"
        f" WHERE ft_chunk MATCH ?2 AND s.rev_from <= ?1 AND s.rev_to > ?1"
        f" ORDER BY bm25(ft_chunk, {w}) LIMIT ?3",
        (rev_no(rev), match, limit),
    )
    return [(str(c), round(float(s), 9)) for c, s in rows]


def test_older_revisions_ranking_first_do_not_crowd_out_this_ones(tmp_path: Path) -> None:
    root = tmp_path / "p"
    n = 40
    for i in range(n):  # rev-0001: the word many times in each file (it ranks high)
        body = " ".join(["zebraword"] * 30)
        write(root, f"src/f{i}.php", f"<?php\nfunction f{i}() {{ return '{body} {i}'; }}\n")
    config.init_project(root)
    cfg = config.load(root)
    indexer.build(cfg, no_vectors=True)
    for i in range(n):  # rev-0002: once (its rows rank below every closed one)
        write(root, f"src/f{i}.php", f"<?php\nfunction f{i}() {{ return 'zebraword {i} x'; }}\n")
    run_scan(cfg)
    res = indexer.build(cfg, commit=True, no_vectors=True)
    assert res.rev_id == "rev-0002"
    with LexStore(cfg.layout.lexvec_db, readonly=True) as lex:
        for rev in ("rev-0001", "rev-0002"):
            for limit in (1, 5, n, n + 10):
                got = [
                    (h.chunk_id, round(h.score, 9))
                    for h in lex.fts(rev, '"zebraword"', WEIGHTS, limit)
                ]
                want = _oracle(lex, rev, '"zebraword"', limit)
                assert [c for c, _s in got] == [c for c, _s in want], (rev, limit)
                assert got == want
                assert len(got) == min(limit, n)

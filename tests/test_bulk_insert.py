"""A first build loads big tables with their indexes dropped and made again after the rows
(``ragraf.store.ranges._bulk_insert``): the indexes that come out are the migrations' own,
the store is sound, and a kill while the indexes are gone loses nothing (the transaction
rolls the drop back). The lexicon's tables are written so by a thread while the builder
links (``LexStore.stage_chunks``): the same holds for them, and its rows are the ones the
synchronous write makes, rowid for rowid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ragraf import config, failpoints
from ragraf.indexing import indexer
from ragraf.store import manifest
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore
from ragraf.store.ranges import BULK_ROWS
from tests.helpers import wait_failpoint, write


def _project(root: Path) -> Path:
    """A PHP project with more than BULK_ROWS functions and calls."""
    n = BULK_ROWS + 100
    body = "".join(f"function f{i}() {{ return f{(i + 1) % n}(); }}\n" for i in range(n))
    write(root, "src/many.php", "<?php\n" + body)
    config.init_project(root)
    return root


def _indexes(
    db: Path, store: type[GraphStore] | type[LexStore] = GraphStore
) -> list[tuple[str, str]]:
    with store(db, readonly=True) as s:
        return sorted(
            (str(name), str(sql))
            for name, sql in s.db.query(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
        )


def _sound_lexicon(layout: config.Layout, tmp_path: Path) -> None:
    """The lexicon has the migrations' indexes, passes SQLite's and FTS5's checks."""
    empty = tmp_path / "empty-lex.sqlite"
    LexStore(empty).close()
    assert _indexes(layout.lexvec_db, LexStore) == _indexes(empty, LexStore)
    assert _indexes(layout.lexvec_db, LexStore)  # chunk_map's and chunk_text's at least
    with LexStore(layout.lexvec_db) as lex:
        assert lex.db.query("PRAGMA integrity_check") == [("ok",)]
        lex.db.execute("INSERT INTO ft_chunk(ft_chunk) VALUES ('integrity-check')")


def test_a_first_build_has_the_migrations_indexes_and_a_sound_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    GraphStore(empty).close()  # migrated, never written
    root = _project(tmp_path / "p")
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.counts["edges"] > BULK_ROWS and res.counts["nodes"] > BULK_ROWS
    layout = config.Layout(root)
    assert _indexes(layout.graph_db) == _indexes(empty)
    with GraphStore(layout.graph_db, readonly=True) as g:
        assert g.db.query("PRAGMA integrity_check") == [("ok",)]
        # the edge index answers (the planner uses it): f1's caller is f0
        plan = g.db.query(
            "EXPLAIN QUERY PLAN SELECT * FROM edge WHERE dst = ? AND kind = ?", ("x", "calls")
        )
        assert any("idx_edge_dst" in str(r[-1]) for r in plan)
    _sound_lexicon(layout, tmp_path)


def _killed_first_build(root: Path, point: str) -> config.Layout:
    """A first build of ``_project`` at ``root`` SIGKILLed at failpoint ``point``: nothing
    was sealed."""
    _project(root)
    env = {**os.environ, failpoints.ENV: point, "RAGRAF_VECTORS": "off"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(root), "index"],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    wait_failpoint(proc, point)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    layout = config.Layout(root)
    assert manifest.read(layout.rev_json) is None
    return layout


@pytest.mark.slow
def test_a_kill_while_the_indexes_are_dropped_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "p"
    layout = _killed_first_build(root, "delta-bulk-rows-edge")
    empty = tmp_path / "empty.sqlite"
    GraphStore(empty).close()
    assert _indexes(layout.graph_db) == _indexes(empty)  # the drop was rolled back
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.counts["edges"] > BULK_ROWS
    assert _indexes(layout.graph_db) == _indexes(empty)
    with GraphStore(layout.graph_db, readonly=True) as g:
        assert g.db.query("PRAGMA integrity_check") == [("ok",)]


@pytest.mark.slow
def test_a_kill_while_the_lexicon_thread_writes_loses_nothing(tmp_path: Path) -> None:
    """The lexicon's thread stands in its transaction (its FTS table's rows inserted, the
    builder linking or waiting for it): a kill there leaves nothing sealed and nothing in
    the lexicon, and the next build completes with a sound one."""
    root = tmp_path / "p"
    layout = _killed_first_build(root, "delta-bulk-rows-chunk_tokens")
    with LexStore(layout.lexvec_db, readonly=True) as lex:
        assert lex.db.query("SELECT count(*) FROM chunk_tokens") == [(0,)]  # rolled back
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.counts["chunks"] > BULK_ROWS
    _sound_lexicon(layout, tmp_path)


def test_the_staged_lexicon_is_the_synchronous_one_rowid_for_rowid(tmp_path: Path) -> None:
    """``stage_chunks`` then its write give every lexicon table the rows ``write_chunks``
    gives, in the same rowids, and the same FTS5 index, for the chunks of real files (more
    than BULK_ROWS: the indexes are dropped and made again on both paths)."""
    from ragraf.indexing.rows import content_rows
    from ragraf.lang import registry

    root = _project(tmp_path / "p")
    facts = [
        registry.extract(p.relative_to(root).as_posix(), "php", p.read_text(), 120)
        for p in sorted(root.rglob("*.php"))
    ]
    made = content_rows(facts, "m")
    assert len(made.chunks) > BULK_ROWS
    with LexStore(tmp_path / "a.sqlite") as a, LexStore(tmp_path / "b.sqlite") as b:
        a.write_chunks("rev-0001", made.chunks, made.also)
        write = b.stage_chunks("rev-0001", made.chunks, made.also)
        assert write is not None
        write()
        assert b.stage_chunks("rev-0002", made.chunks, made.also) is None  # not empty now
        for table in ("chunk_map", "chunk_text", "chunk_tokens", "chunk_also"):
            sql = f"SELECT rowid, * FROM {table} ORDER BY rowid"
            assert a.db.query(sql) == b.db.query(sql), table
        sql = "SELECT id, sz FROM ft_chunk_docsize ORDER BY id"  # the column sizes bm25 reads
        assert a.db.query(sql) == b.db.query(sql)
        # the same FTS5 index: every term's every place (row, column, offset). Its pages
        # and docsize's origin counters may differ (chunk_tokens's trigger indexes row by
        # row on one path, in one statement on the other: FTS5 flushes at other points)
        for lex in (a, b):
            lex.db.execute(
                "CREATE VIRTUAL TABLE temp.inst USING fts5vocab(main, 'ft_chunk', 'instance')"
            )
        sql = "SELECT term, doc, col, offset FROM temp.inst"
        assert a.db.query(sql) == b.db.query(sql)
        assert len(a.db.query(sql)) > BULK_ROWS

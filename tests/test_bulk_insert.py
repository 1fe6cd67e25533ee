"""A first build loads big tables with their indexes dropped and made again after the rows
(``ragraf.store.ranges._bulk_insert``): the indexes that come out are the migrations' own,
the store is sound, and a kill while the indexes are gone loses nothing (the transaction
rolls the drop back)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ragraf import config, failpoints
from ragraf.build import indexer
from ragraf.store import manifest
from ragraf.store.graph import GraphStore
from ragraf.store.ranges import BULK_ROWS
from tests.helpers import wait_failpoint, write


def _project(root: Path) -> Path:
    """A PHP project with more than BULK_ROWS functions and calls."""
    n = BULK_ROWS + 100
    body = "".join(f"function f{i}() {{ return f{(i + 1) % n}(); }}\n" for i in range(n))
    write(root, "src/many.php", "<?php\n" + body)
    config.init_project(root)
    return root


def _indexes(db: Path) -> list[tuple[str, str]]:
    with GraphStore(db, readonly=True) as g:
        return sorted(
            (str(name), str(sql))
            for name, sql in g.db.query(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
        )


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


@pytest.mark.slow
def test_a_kill_while_the_indexes_are_dropped_loses_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    env = {**os.environ, failpoints.ENV: "delta-bulk-rows", "RAGRAF_VECTORS": "off"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(root), "index"],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    wait_failpoint(proc, "delta-bulk-rows")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    layout = config.Layout(root)
    assert manifest.read(layout.rev_json) is None  # nothing was sealed
    empty = tmp_path / "empty.sqlite"
    GraphStore(empty).close()
    assert _indexes(layout.graph_db) == _indexes(empty)  # the drop was rolled back
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.counts["edges"] > BULK_ROWS
    assert _indexes(layout.graph_db) == _indexes(empty)
    with GraphStore(layout.graph_db, readonly=True) as g:
        assert g.db.query("PRAGMA integrity_check") == [("ok",)]

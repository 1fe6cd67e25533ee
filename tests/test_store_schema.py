"""The exact schema of each SQLite store after its migrations (architecture §4).

A migration that changes a table, an index or a trigger changes tests/expected/<store>.sql;
this test fails until the expectation is updated with it, so every schema change shows up
in review as a diff of that file. To rewrite the files after a deliberate change:
``RAGRAF_UPDATE_EXPECTED=1 .venv/bin/python -m pytest tests/test_store_schema.py`` (the
run fails once, saying what it rewrote), then read ``git diff tests/expected``.

lexvec's ``vec_chunk`` is created by ragraf/store/vec.py (sqlite-vec), not by a migration;
its statement is part of lexvec.sql. Shadow tables of a virtual table (fts5's
``ft_chunk_*``, vec0's ``vec_chunk_*``) and automatic indexes are listed by name: their
statements belong to the module that creates them, not to ragraf.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ragraf.embed import DEFAULT_DIM
from ragraf.store.control import ControlStore
from ragraf.store.db import Database
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore
from ragraf.store.vec import VecStore
from tests.helpers import REPO

EXPECTED = REPO / "tests" / "expected"
UPDATE_ENV = "RAGRAF_UPDATE_EXPECTED"


def schema_text(db: Database) -> str:
    """Every object of sqlite_master, sorted by name, and the applied migrations."""
    rows = db.query("SELECT type, name, sql FROM sqlite_master ORDER BY name")
    virtual = [
        name for kind, name, sql in rows if kind == "table" and sql.startswith("CREATE VIRTUAL")
    ]
    out = [
        f"-- {db.path.name} after its migrations (tests/test_store_schema.py)",
        "-- migrations: " + ", ".join(db.applied_migrations()),
    ]
    for kind, name, sql in rows:
        owner = next((v for v in virtual if name.startswith(v + "_")), None)
        if owner is not None:
            out += ["", f"-- {kind} {name} (shadow table of {owner})"]
        elif sql is None:
            out += ["", f"-- {kind} {name} (automatic)"]
        else:
            out += ["", f"-- {kind} {name}", sql.rstrip() + ";"]
    return "\n".join(out) + "\n"


def fresh_graph(folder: Path) -> Database:
    return GraphStore(folder / "graph.sqlite").db


def fresh_lexvec(folder: Path) -> Database:
    """A migrated lexvec with the vector table of the default model, as an index with
    vectors has it."""
    db = LexStore(folder / "lexvec.sqlite").db
    VecStore(db, DEFAULT_DIM)
    return db


def fresh_control(folder: Path) -> Database:
    return ControlStore(folder / "control.sqlite").db


STORES: dict[str, Callable[[Path], Database]] = {
    "graph": fresh_graph,
    "lexvec": fresh_lexvec,
    "control": fresh_control,
}


@pytest.mark.parametrize("store", sorted(STORES))
def test_fresh_store_has_exactly_the_expected_schema(store: str, tmp_path: Path) -> None:
    db = STORES[store](tmp_path)
    try:
        got = schema_text(db)
    finally:
        db.close()
    path = EXPECTED / f"{store}.sql"
    if os.environ.get(UPDATE_ENV):
        if not path.exists() or path.read_text(encoding="utf-8") != got:
            path.write_text(got, encoding="utf-8")
            pytest.fail(f"rewrote {path.relative_to(REPO)}; review `git diff tests/expected`")
    assert path.exists(), f"{path} is missing; run with {UPDATE_ENV}=1 to write it"
    want = path.read_text(encoding="utf-8")
    assert got == want, (
        f"the {store} schema differs from {path.relative_to(REPO)}: a migration changed it. "
        f"If that is intended, rerun with {UPDATE_ENV}=1 and review the diff."
    )


def test_the_vector_table_is_the_only_difference_vectors_make(tmp_path: Path) -> None:
    """Before a VecStore exists, lexvec holds everything of lexvec.sql except vec_chunk."""
    plain = LexStore(tmp_path / "plain" / "lexvec.sqlite").db
    with_vectors = fresh_lexvec(tmp_path / "vec")
    try:
        before = {r[0] for r in plain.query("SELECT name FROM sqlite_master")}
        after = {r[0] for r in with_vectors.query("SELECT name FROM sqlite_master")}
    finally:
        plain.close()
        with_vectors.close()
    added = after - before
    assert before < after and "vec_chunk" in added
    # vec0's shadow tables, their automatic indexes, and sqlite_sequence (AUTOINCREMENT rowids)
    vec0 = [n for n in added if n.startswith(("vec_chunk", "sqlite_autoindex_vec_chunk_"))]
    assert sorted(added) == sorted([*vec0, "sqlite_sequence"])


def test_a_schema_change_is_caught(tmp_path: Path) -> None:
    """The comparison sees a new migration: one more index and one more migration name."""
    db = Database(
        tmp_path / "control.sqlite",
        "control",
        extra_migrations=[("9999_probe", "CREATE INDEX idx_probe ON calibration(kind)")],
    )
    try:
        got = schema_text(db)
    finally:
        db.close()
    want = (EXPECTED / "control.sql").read_text(encoding="utf-8")
    assert got != want
    assert "CREATE INDEX idx_probe ON calibration(kind);" in got
    assert got.splitlines()[1] == want.splitlines()[1] + ", 9999_probe"

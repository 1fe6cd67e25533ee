"""An index an older ragraf wrote keeps its answers (issue 44: tokens stored once, texts and
flow units packed).

fixtures/old_index holds graph.sqlite and lexvec.sqlite as ragraf 562a122 wrote them for
fixtures/dataflow (lexvec migrations 0001-0003: ft_chunk with its content, chunk_text and
flow_unit.data as TEXT; file_facts emptied and both files vacuumed to keep them small).
Made by `ragraf init && RAGRAF_VECTORS=off ragraf index --no-vectors` in a copy of
fixtures/dataflow with that checkout. A reader refuses it as before (the next writing
command upgrades it); a writer migrates it in place; then every ranking (chunk, score,
tokens), chunk text, flow unit and edge reads as the old file held it, and a next revision
written with the same chunks keeps the migrated token rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw
import pytest

from ragraf.errors import StoreError
from ragraf.model import ChunkPlace, ChunkRow
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore
from tests.helpers import REPO

OLD = REPO / "fixtures" / "old_index"
WEIGHTS = {"symbol": 10.0, "code": 1.0, "sql": 2.0, "text": 0.5}
QUERIES = (
    '"price"',
    '"total" OR "name"',
    '"user"',
    'symbol_tokens : ("price" OR "grade" OR "run")',
)
REV = "rev-0001"


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    shutil.copy(OLD / "graph.sqlite", tmp_path / "graph.sqlite")
    shutil.copy(OLD / "lexvec.sqlite", tmp_path / "lexvec.sqlite")
    return tmp_path / "graph.sqlite", tmp_path / "lexvec.sqlite"


def _old_rankings(conn: apsw.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Each query's hits as the old schema ranked them (bm25 over the content table)."""
    w = "0, 0, 0, 0, 10.0, 1.0, 2.0, 0.5"
    out = {}
    for q in QUERIES:
        rows = conn.execute(
            f"SELECT f.chunk_id, m.path, m.source_kind, m.node_id, m.start_line, m.end_line,"
            f" round(-bm25(ft_chunk, {w}), 9), f.symbol_tokens, f.code_tokens, f.sql_tokens,"
            " f.text_tokens FROM ft_chunk f"
            " JOIN chunk_map m ON m.rev_from <= 1 AND m.rev_to > 1 AND m.chunk_id = f.chunk_id"
            f" WHERE ft_chunk MATCH ? AND f.rev_from <= 1 AND f.rev_to > 1"
            f" ORDER BY bm25(ft_chunk, {w}) LIMIT 50",
            (q,),
        ).fetchall()
        out[q] = [tuple(r) for r in rows]
    return out


def test_an_old_index_migrates_and_answers_as_it_did(tmp_path: Path) -> None:
    graph_db, lex_db = _copy(tmp_path)
    old = apsw.Connection(str(lex_db), flags=apsw.SQLITE_OPEN_READONLY)
    ranked = _old_rankings(old)
    texts = dict(old.execute("SELECT chunk_id, text FROM chunk_text").fetchall())
    chunks = [
        ChunkRow(*m, t, s, c, q, x, "", u or "")
        for *m, t, s, c, q, x, u in old.execute(
            "SELECT m.chunk_id, m.source_kind, m.path, m.node_id, m.start_line, m.end_line,"
            " t.text, f.symbol_tokens, f.code_tokens, f.sql_tokens, f.text_tokens, u.ui_tokens"
            " FROM chunk_map m JOIN chunk_text t ON t.chunk_id = m.chunk_id"
            " JOIN ft_chunk f ON f.chunk_id = m.chunk_id"
            " LEFT JOIN ft_ui u ON u.chunk_id = m.chunk_id ORDER BY f.rowid"
        )
    ]
    also = [
        ChunkPlace(*r)
        for r in old.execute("SELECT chunk_id, path, node_id, start_line, end_line FROM chunk_also")
    ]
    old.close()
    old_g = apsw.Connection(str(graph_db), flags=apsw.SQLITE_OPEN_READONLY)
    units = dict(old_g.execute("SELECT unit_id, data FROM flow_unit").fetchall())
    edges = {
        r[8]: r
        for r in old_g.execute(
            "SELECT src, dst, kind, provenance, evidence_path, evidence_line, confidence,"
            " sources, edge_uid, props FROM edge"
        )
    }
    old_g.close()
    assert all(ranked.values()) and len(texts) == len(chunks) > 10 and len(units) > 10
    assert all(isinstance(t, str) for t in [*texts.values(), *units.values()])  # TEXT, unpacked

    # a reader refuses the old lexicon as before, naming the command that upgrades it
    with pytest.raises(StoreError, match="older ragraf.*ragraf index"):
        LexStore(lex_db, readonly=True)
    LexStore(lex_db).close()  # a writer migrates it in place
    GraphStore(graph_db).close()

    with LexStore(lex_db, readonly=True) as lex:
        for q, want in ranked.items():
            got = [(*h[:6], round(h.score, 9), *h[7:]) for h in lex.fts(REV, q, WEIGHTS, 50)]
            assert got == want, q
        assert lex.texts(REV, list(texts)) == texts
    with GraphStore(graph_db, readonly=True) as g:
        assert {e.edge_uid: tuple(e) for e in g.edges_by_uids(REV, edges)} == edges
        assert any(e[7] == '["tree-sitter"]' for e in edges.values())  # stored as '' now
        assert g.db.query("SELECT count(*) FROM edge WHERE sources = '[\"tree-sitter\"]'") == [(0,)]
        assert {u: g.flow_unit_data(REV, u) for u in units} == units
        paths = sorted({u.rsplit("#", 1)[0] for u in units})
        assert {r.unit_id: r.data for p in paths for r in g.flow_units_in_file(REV, p)} == units

    # the next revision, same chunks: the migrated token rows are kept, the texts repacked
    with LexStore(lex_db) as lex:
        lex.write_chunks("rev-0002", chunks, also)
        kept = lex.db.query("SELECT count(*) FROM chunk_tokens WHERE rev_to > 2")
        assert kept == lex.db.query("SELECT count(*) FROM chunk_tokens WHERE rev_from = 1")
        assert lex.db.query("SELECT count(*) FROM chunk_tokens WHERE rev_from = 2") == [(0,)]
        assert lex.db.query("SELECT typeof(text) FROM chunk_text WHERE rev_from = 2 LIMIT 1") == [
            ("blob",)
        ]
    with LexStore(lex_db, readonly=True) as lex:
        for q, want in ranked.items():
            got = [(*h[:6], round(h.score, 9), *h[7:]) for h in lex.fts("rev-0002", q, WEIGHTS, 50)]
            assert got == want, q
        assert lex.texts("rev-0002", list(texts)) == texts

"""search's stages one at a time (issue 38): fusion, the re-rank's order, abstention and the
fold on hand-made candidates (they read no store), the ``why`` a candidate renders to, and the
channels on the indexed pilot (no vectors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from ragraf.config import Config, default_text
from ragraf.facade.context import Session
from ragraf.facade.search import channels
from ragraf.facade.search.abstain import (
    Evidence,
    Verdict,
    best_place,
    confidence,
    places,
)
from ragraf.facade.search.candidate import (
    Candidate,
    Channel,
    Pool,
    Scope,
    Settings,
    StrongSignal,
)
from ragraf.facade.search.fold import built_copies, one_per_symbol
from ragraf.facade.search.rank import SymbolFacts, fuse, order, rerank, strong_signal
from ragraf.facade.search.render import why
from ragraf.globs import GlobSet
from ragraf.model import ChunkRef, NodeRow
from tests.helpers import PILOT, indexed_fixture

SETTINGS = Settings.of(Config.of(PILOT, yaml.safe_load(default_text("project")), {}).search)
K = SETTINGS.rrf_k


def node(node_id: str, kind: str = "method", fqn: str | None = None) -> NodeRow:
    name = (fqn or node_id).rsplit("::", 1)[-1]
    return NodeRow(node_id, kind, name, fqn or node_id, "x.php", 1, 9, None, "structural")


def cand(
    cid: str,
    path: str = "src/a.php",
    n: NodeRow | None = None,
    line: int = 1,
    **fields: Any,
) -> Candidate:
    ref = ChunkRef(cid, path, "php", n.node_id if n else None, line, line + 9)
    c = Candidate(ref, n)
    for k, v in fields.items():
        setattr(c, k, v)
    return c


def pool_of(*cands: Candidate) -> Pool:
    pool = Pool()
    for c in cands:
        got = pool.add(c.chunk)
        got.node = c.node
        for k in ("fused", "name_score", "bm25", "cosine"):
            setattr(got, k, getattr(c, k))
    return pool


# -- the candidate pool --------------------------------------------------------------------------
def test_the_pool_holds_one_candidate_per_chunk_and_gives_nodes_to_late_comers() -> None:
    pool = Pool()
    ref = ChunkRef("c1", "a.php", "php", "n1", 1, 5)
    first = pool.add(ref)
    assert pool.add(ref) is first and len(pool) == 1
    assert pool.nodes_to_read() == ["n1"]
    pool.give_nodes({"n1": node("n1")})
    assert first.node is not None and pool.nodes_to_read() == []
    # a window of the same symbol added later gets the node already read
    assert pool.add(ChunkRef("c2", "a.php", "php", "n1", 6, 9)).node == node("n1")


# -- fuse ----------------------------------------------------------------------------------------
def test_fusion_ranks_only_the_chunks_the_scope_accepts() -> None:
    php, js, php2 = cand("a"), cand("b", "web/b.js"), cand("c")
    scope = Scope(suffixes=(".php",))
    fuse([php, js, php2], Channel.LEXICAL, 1.0, K, scope)
    assert (php.ranks, js.ranks, php2.ranks) == ({Channel.LEXICAL: 1}, {}, {Channel.LEXICAL: 2})
    assert js.fused is None  # never a hit: nothing later may rank it
    fuse([php2, php], Channel.NAME, 0.5, K, scope)
    assert php.fused == pytest.approx(1 / (K + 1) + 0.5 / (K + 2))
    assert php2.fused == pytest.approx(1 / (K + 2) + 0.5 / (K + 1))
    assert php2.ranks == {Channel.LEXICAL: 2, Channel.NAME: 1}


def test_fusion_filters_by_kind_of_symbol_or_chunk() -> None:
    method, doc = cand("m", n=node("n", "method")), cand("d", "README.md")
    fuse([doc, method], Channel.VECTOR, 1.0, K, Scope(kinds=frozenset({"method"})))
    assert method.ranks == {Channel.VECTOR: 1} and doc.fused is None


def test_a_strong_signal_is_one_more_first_place() -> None:
    cands = [cand(f"c{i}", fused=0.01, name_score=0.3) for i in range(6)]
    cands[4].name_score = 1.0
    pool = pool_of(*cands)
    scores = {c.id: c.name_score for c in pool}
    strong_signal(Channel.NAME, scores, pool, 2.0, K)
    best = pool.get("c4")
    assert best is not None and best.fused == pytest.approx(0.01 + 1 / (K + 1))
    assert best.strong == [StrongSignal(Channel.NAME, 2.24)]
    assert all(not c.strong for c in pool if c is not best)
    # below the threshold, or too few scores to tell an outlier: nothing changes
    strong_signal(Channel.NAME, scores, pool, 3.0, K)
    strong_signal(Channel.NAME, dict(list(scores.items())[:4]), pool, 0.1, K)
    assert len(best.strong) == 1


# -- re-rank -------------------------------------------------------------------------------------
FACTS = SymbolFacts(centrality={}, abstract=frozenset({"contract"}), vendored=GlobSet(["**/lib"]))
WORDS = {"deliver": 2.0, "message": 1.0}


def test_rerank_normalises_features_within_the_top() -> None:
    a = cand("a", fused=0.04, bm25=8.0, cosine=0.6, matched=["deliver", "message"])
    b = cand("b", fused=0.02, bm25=2.0, cosine=0.4, matched=["message"])
    rerank([a, b], WORDS, SETTINGS.rerank_weights, FACTS)
    assert a.features is not None and b.features is not None
    assert (a.features.rrf, a.features.bm25, a.features.cosine) == (1.0, 1.0, 1.0)
    assert (b.features.rrf, b.features.bm25, b.features.cosine) == (0.5, 0.25, 0.0)
    assert (a.features.coverage, b.features.coverage) == (1.0, pytest.approx(1 / 3))
    w = SETTINGS.rerank_weights
    assert a.final == pytest.approx(w["rrf"] + w["coverage"] + w["cosine"] + w["bm25"])


def test_implementations_and_own_code_rerank_above_contracts_and_copies() -> None:
    same = {"fused": 0.03, "bm25": 5.0, "cosine": 0.5, "matched": ["deliver", "message"]}
    impl = cand("impl", n=node("impl", fqn="App\\Smtp::deliver"), **same)
    contract = cand("contract", n=node("contract", fqn="App\\Transport::deliver"), **same)
    copy = cand("copy", "lib/Smtp.php", n=node("copy", fqn="Vendor::deliver"), **same)
    top = [contract, copy, impl]
    rerank(top, WORDS, SETTINGS.rerank_weights, FACTS)
    assert [c.id for c in order([], top, len(top))] == ["impl", "contract", "copy"]
    assert contract.features is not None and contract.features.abstract == 1.0
    assert copy.features is not None and copy.features.vendored == 1.0


def test_order_puts_anchors_then_exact_names_then_the_top_then_the_rest() -> None:
    anchor = cand("anchor", exact=True, fused=0.01, final=0.1)
    top = [
        cand(c, fused=0.05 - i / 100, final=f)
        for i, (c, f) in enumerate([("t1", 1.0), ("t2", 2.0)])
    ]
    rest = [cand("r1", fused=0.005), cand("named", fused=0.004, name_how="exact")]
    got = order([anchor], [*top, anchor, *rest], 2)
    # the anchor is fused too (a channel returned it): it stays first, and once
    assert [c.id for c in got] == ["anchor", "named", "t2", "t1", "r1"]


# -- abstain -------------------------------------------------------------------------------------
TH = SETTINGS.thresholds


def ev(**kw: Any) -> Evidence:
    base: dict[str, Any] = {
        "anchored": False,
        "lexical": True,
        "best_cosine": 0.6,
        "coverage": 1.0,
        "meet": 1.0,
        "matched": frozenset({"invoice", "charge"}),
    }
    return Evidence(**{**base, **kw})


def test_confidence_exact_strong_weak_without_doubt() -> None:
    assert confidence(ev(anchored=True, best_cosine=0.0), TH) == Verdict("exact")
    assert confidence(ev(best_cosine=None), TH) == Verdict("weak")  # lexical, no vectors
    assert confidence(ev(best_cosine=0.6), TH).confidence == "strong"  # above promote
    assert confidence(ev(best_cosine=0.4, coverage=0.8), TH).confidence == "weak"
    # a purely conceptual query: the embedding alone decides
    assert confidence(ev(lexical=False, best_cosine=0.5), TH).confidence == "strong"
    assert confidence(ev(lexical=False, best_cosine=0.4), TH).confidence == "weak"


def test_confidence_abstains_with_a_reason() -> None:
    none = confidence(ev(lexical=False, best_cosine=None), TH)
    assert none == Verdict("none", "no indexed chunk contains these words")
    far = confidence(ev(lexical=False, best_cosine=0.2), TH)
    assert far.confidence == "none" and "nothing is near in meaning" in far.reason
    generic = confidence(ev(best_cosine=0.3, matched=frozenset({"get", "data"})), TH)
    assert generic.confidence == "none" and "generic or few (data, get;" in generic.reason
    apart = confidence(ev(best_cosine=0.45, meet=0.2), TH)
    assert apart.confidence == "none" and "never together: at most 20%" in apart.reason
    near = confidence(ev(best_cosine=0.6, near=0.2, near_at="App\\Exporter"), TH)
    assert near.confidence == "none" and "(App\\Exporter) has 20%" in near.reason
    # above near_cosine the embedding alone answers, wherever the words meet
    assert confidence(ev(best_cosine=0.75, near=0.2), TH).confidence == "strong"


def test_places_count_a_symbols_windows_together() -> None:
    n = node("sym")
    one = cand("w1", n=n, matched=["export", "table"])
    two = cand("w2", n=n, line=121, matched=["email"])
    alone = cand("chunk", matched=["export", "email", "attachment"])
    got = places([one, two, alone])
    assert got == {"sym": {"export", "table", "email"}, "chunk": {"export", "email", "attachment"}}
    idf = {"export": 1.0, "table": 1.0, "email": 1.0, "attachment": 3.0}
    assert best_place(got, idf) == (pytest.approx(5 / 6), "chunk")
    assert best_place(got, {}) is None and best_place({}, idf) is None


# -- fold ----------------------------------------------------------------------------------------
def test_a_built_copy_folds_into_its_source_at_the_better_rank() -> None:
    fn = node("f", "function", "escape")
    copy = cand("dist", "js/dist/functions.js", n=fn)
    other = cand("other", "js/other.js", n=node("o", "function", "other"))
    src = cand("src", "js/src/functions.js", n=node("f2", "function", "escape"))
    alone = cand("only", "js/dist/only.js", n=node("q", "function", "quote"))
    got = built_copies([copy, other, src, alone])
    assert [c.id for c in got] == ["src", "other", "only"]
    assert src.built_copies == ["js/dist/functions.js:1"] and alone.built_copies is None


def test_a_symbol_is_one_hit_at_its_best_window() -> None:
    n = node("long")
    late, early, other = cand("w2", n=n, line=121), cand("w1", n=n, line=1), cand("x")
    got = one_per_symbol([late, other, early])
    assert got == [late, other]
    assert late.windows == [1, 121] and other.windows is None


# -- render --------------------------------------------------------------------------------------
def test_why_names_every_feature_in_stage_order() -> None:
    c = cand(
        "c", exact=True, fused=0.02, bm25=3.5, matched=["charge"], cosine=0.61, name_how="exact"
    )
    c.ranks = {Channel.NAME: 1, Channel.LEXICAL: 2, Channel.EXPANSION: 4}
    c.strong = [StrongSignal(Channel.NAME, 3.1)]
    rerank([c], {"charge": 1.0}, SETTINGS.rerank_weights, FACTS)
    w = why(c, ["payment"])
    assert list(w) == [
        "exact_symbol",
        "fts_terms",
        "lexical_rank",
        "name_rank",
        "strong_signal",
        "expansion_rank",
        "expanded_with",
        "rerank",
        "name_match",
        "cosine",  # read for the re-rank: after it (a vector neighbour's follows vector_rank)
        "bm25",
    ]
    assert w["strong_signal"] == [{"channel": "name", "z": 3.1}]
    assert w["rerank"] == {"rrf": 1.0, "coverage": 1.0, "bm25": 1.0}  # zeros left out
    c.ranks[Channel.VECTOR] = 1
    assert list(why(c, []))[2:5] == ["lexical_rank", "vector_rank", "cosine"]


# -- the channels, on an index -------------------------------------------------------------------
@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(PILOT, tmp_path_factory.mktemp("stages") / "pilot")


def test_channels_fill_one_pool_without_vectors(pilot: Path) -> None:
    session = Session(pilot)
    try:
        ctx = session.context("search", None)
        q = channels.read_query(ctx, "invoice charge", SETTINGS)
        assert q.terms == ["invoice", "charge"] and set(q.idf) == {"invoice", "charge"}
        pool = Pool()
        found = channels.gather(ctx, q, SETTINGS, Scope(), pool)
        assert found.knn == [] and found.cosines is None and found.anchors == []
        assert any("search is lexical" in limit for limit in ctx.limits)
        assert found.lexical and all(c.bm25 is not None and c.matched for c in found.lexical)
        bm25 = [c.bm25 or 0.0 for c in found.lexical]
        assert bm25 == sorted(bm25, reverse=True)
        assert pool.nodes_to_read() == []  # every node read before the name channel ranks
        assert len({c.id for c in pool}) == len(pool)
        fqns = [c.node.fqn for c in found.by_name if c.node]
        assert fqns[0] == "App\\Billing\\Invoice::charge", fqns
        exact = channels.read_query(ctx, "Invoice", SETTINGS)
        got = channels.gather(ctx, exact, SETTINGS, Scope(), Pool())
        assert got.anchors and all(c.exact for c in got.anchors)
        assert {c.node.fqn for c in got.anchors if c.node} == {"App\\Billing\\Invoice"}
    finally:
        session.close()

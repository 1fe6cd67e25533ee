"""search's stages one at a time (issue 38): fusion, the re-rank's order, abstention and the
fold on hand-made candidates (they read no store), the ``why`` a candidate renders to, and the
channels on the indexed pilot (no vectors)."""

from __future__ import annotations

from dataclasses import replace
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
    assert [c.id for c in order([], top, top)] == ["impl", "contract", "copy"]
    assert contract.features is not None and contract.features.abstract == 1.0
    assert copy.features is not None and copy.features.vendored == 1.0


def test_order_puts_anchors_then_exact_names_then_the_top_then_the_rest() -> None:
    anchor = cand("anchor", exact=True, fused=0.01, final=0.1)
    top = [
        cand(c, fused=0.05 - i / 100, final=f)
        for i, (c, f) in enumerate([("t1", 1.0), ("t2", 2.0)])
    ]
    rest = [cand("r1", fused=0.005), cand("named", fused=0.004, name_how="exact")]
    got = order([anchor], [*top, anchor, *rest], top)
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
    near = confidence(ev(best_cosine=0.55, near=0.2, near_at="App\\Exporter"), TH)
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


# -- issue 46: channels that agree, the corpus's floor, compounds, the re-rank pool -----------------
def test_channels_that_agree_answer_weak_with_the_reason_instead_of_refusing() -> None:
    th = replace(TH, agree_cosine=0.5)
    refused = ev(best_cosine=0.55, near=0.2, near_at="App\\Exporter")
    assert confidence(refused, th).confidence == "none"
    agreed = ev(
        best_cosine=0.55, near=0.2, near_at="App\\Exporter", agree=("lexical", "vector"),
        agree_at="App\\Mailer::send",
    )  # fmt: skip
    v = confidence(agreed, th)
    assert v.confidence == "weak"
    assert v.reason.startswith("App\\Mailer::send is among the first 3 hits of the lexical and")
    assert "(App\\Exporter) has 20%" in v.reason  # the refusal's reason is kept
    # far from everything, agreeing channels do not answer
    far = ev(best_cosine=th.agree_cosine - 0.01, near=0.2, agree=("lexical", "vector"))
    assert confidence(far, th).confidence == "none"
    # by default (agree_cosine above 1) agreement never answers
    assert confidence(agreed, TH).confidence == "none"


def test_agreement_is_one_place_in_the_first_hits_of_two_channels() -> None:
    from ragraf.facade.search.abstain import agreement
    from ragraf.facade.search.channels import Found

    a, b = node("a", fqn="App\\A::run"), node("b", fqn="App\\B::run")
    lex = [cand("c1", n=a), cand("c2", n=b)]
    vec = [cand("c3", n=node("x")), cand("c4", n=node("y")), cand("c5", n=node("z"))]
    found = Found([], lex, [], vec, [], None, [])
    assert agreement(found) == ((), None)
    vec.append(cand("c6", n=b))  # fourth: too deep
    assert agreement(found) == ((), None)
    vec.insert(1, cand("c7", n=b))  # another chunk of the same symbol
    held, c = agreement(found)
    assert held == ("lexical", "vector") and c is lex[1]


def test_the_corpus_floor_moves_the_cosine_thresholds() -> None:
    cfg = Config.of(PILOT, yaml.safe_load(default_text("project")), {}).search
    floored = cfg.floored({"max": 0.4, "q90": 0.35})
    shift = 0.35 + cfg.floor_margin - cfg.abstain_cosine
    assert shift > 0
    assert floored.abstain_cosine == pytest.approx(0.35 + cfg.floor_margin)
    assert floored.near_cosine == pytest.approx(cfg.near_cosine + shift)
    assert floored.coverage_cosine == pytest.approx(cfg.coverage_cosine + shift)
    # where everyday English stays far, the configured thresholds stand
    assert cfg.floored({"max": 0.3, "q90": 0.2}) == cfg
    assert cfg.floored(None) == cfg and cfg.floored({}) == cfg
    # a calibration still overrides what the floor set
    assert floored.calibrated({"abstain_cosine": 0.5}).abstain_cosine == 0.5


def test_floor_sentences_are_fixed_and_share_no_word_with_the_bench() -> None:
    import re

    from ragraf.indexing.search_floor import SAMPLES, sentences

    assert sentences() == sentences() and len(sentences()) == SAMPLES
    bench = Path(__file__).resolve().parent.parent / "bench"
    words: set[str] = set()
    for f in bench.glob("search_eval*.yaml"):
        for q in yaml.safe_load(f.read_text(encoding="utf-8"))["queries"]:
            if q["category"] in ("nonsense", "near_miss"):
                words |= set(re.findall(r"[a-z]+", q["query"].lower()))
    assert not {w for s in sentences() for w in s.split()} & words


def test_two_query_words_match_the_one_token_code_writes() -> None:
    from ragraf.facade.search.words import fts_expression, matched_terms

    assert matched_terms(["find", "time", "zone"], "get system timezone") == ["time", "zone"]
    assert matched_terms(["time", "zone"], "time limit") == ["time"]
    assert fts_expression(["time", "zone"]) == '"time" OR "zone" OR "timezone"'


def test_neighbours_join_the_rerank_pool_wherever_their_fused_rank_falls() -> None:
    from ragraf.facade.search.rank import rerank_pool

    fused = [cand(f"f{i}", fused=0.1 - i / 1000) for i in range(5)]
    near = cand("n", fused=0.0001, neighbour_of="called by App\\A::run")
    stray = cand("s")  # not fused (the scope refused it)
    assert [c.id for c in rerank_pool([*fused, near], [near, stray], 2)] == ["f0", "f1", "n"]
    got = order([], [*fused, near], rerank_pool([*fused, near], [near], 2))
    assert [c.id for c in got][:3] in (["f0", "f1", "n"], ["f1", "f0", "n"], ["n", "f0", "f1"])
    c = cand("n2", neighbour_of="calls App\\A::run", ranks={Channel.NEIGHBOUR: 1})
    assert why(c, [])["neighbour_of"] == "calls App\\A::run"


def test_neighbours_of_the_first_hits_come_from_the_call_graph_and_names(pilot: Path) -> None:
    from ragraf.facade.search import rank

    s = replace(SETTINGS, neighbour_seeds=2)
    session = Session(pilot)
    try:
        ctx = session.context("search", None)
        q = channels.read_query(ctx, "invoice charge", s)
        pool = Pool()
        found = channels.gather(ctx, q, s, Scope(), pool)
        rank.fuse_channels(found, pool, s, Scope())
        seeds = [c.node.fqn for c in pool.fused()[:2] if c.node]
        near = channels.neighbours(ctx, pool, q, s, [])
        assert near and all(c.neighbour_of for c in near)
        hows = {c.node.fqn: c.neighbour_of for c in near if c.node}
        # each is a caller, callee, member or container of a seed, or shares the query's words
        assert all(
            h.startswith("name shares ")
            or h.split(" ", 2)[-1] in seeds
            or h.split(" ")[-1] in seeds
            for h in hows.values()
        ), (seeds, hows)
        assert not set(hows) & set(seeds)
        assert any(not h.startswith("name shares ") for h in hows.values()), hows  # the graph
        assert channels.neighbours(ctx, Pool(), q, s, []) == []  # nothing fused: no seed
    finally:
        session.close()


def test_an_exact_name_as_written_anchors_before_another_case(tmp_path: Path) -> None:
    """ZoneMinder has a function validateUser and a CakePHP class ValidateUser: the query
    `validateUser` names the function first."""
    from ragraf import facade

    src = tmp_path / "src"
    (src / "lib").mkdir(parents=True)
    (src / "lib" / "a.php").write_text("<?php\nclass ValidateUser {\n  public $x = 1;\n}\n")
    (src / "z.php").write_text("<?php\nfunction validateUser($u) {\n  return $u;\n}\n")
    root = indexed_fixture(src, tmp_path / "app")
    hits = facade.run_op(root, "search", {"query": "validateUser"})["result"]["hits"]
    assert [h["fqn"] for h in hits[:2]] == ["validateUser", "ValidateUser"]

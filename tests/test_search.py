"""Hybrid search with the real packaged model (no mock): meaning, abstention, degradation, reuse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragraf import config, facade
from ragraf.indexing import indexer
from tests.helpers import copy_pilot, invoke
from tests.schemacheck import check

# indexing the pilot with real vectors takes a few seconds (module fixture)
pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def vec_pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    mp = pytest.MonkeyPatch()
    mp.delenv("RAGRAF_VECTORS", raising=False)
    root = copy_pilot(tmp_path_factory.mktemp("search") / "pilot")
    config.init_project(root)
    res = indexer.build(config.load(root))
    assert res.vectors and res.vectors["status"] == "ready", res.vectors
    v = res.vectors
    assert v["computed"] + v["skipped"] == res.counts["chunks"] and v["reused"] == 0
    assert v["skipped"] == 6  # five class headers and a constructor with an empty body
    mp.undo()
    return root


def search(root: Path, query: str, **kw: Any) -> dict[str, Any]:
    env = facade.run_op(root, "search", {"query": query, "detail": "full", **kw})
    check(env)
    return env


def test_a_conceptual_query_finds_code_by_meaning(vec_pilot: Path) -> None:
    # no word of the query occurs in the code: only the embedding can answer
    r = search(vec_pilot, "append a line to a journal on disk")["result"]
    assert not r["abstained"] and r["confidence"] in ("strong", "weak")
    top = [h["fqn"] for h in r["hits"][:3]]
    assert "App\\Core\\FileLogger::write" in top, top
    assert "vector_rank" in r["hits"][0]["why"] and "cosine" in r["hits"][0]["why"]
    words = search(vec_pilot, "how are invoices charged")["result"]
    assert {h["fqn"] for h in words["hits"][:3]} >= {"App\\Billing\\Invoice::charge"}
    fused = next(h for h in words["hits"] if h["fqn"] == "App\\Billing\\Invoice::charge")
    assert {"fts_terms", "vector_rank", "lexical_rank"} <= set(fused["why"])


def test_nonsense_abstains_and_generic_words_are_vetoed(vec_pilot: Path) -> None:
    for q in ("train a convolutional neural network on GPU", "get the current weather forecast"):
        r = search(vec_pilot, q)["result"]
        assert r["abstained"] and r["hits"] == [] and r["confidence"] == "none", (q, r)
        assert "nothing is near in meaning" in r["hint"]


def test_a_near_miss_whose_words_never_meet_abstains(vec_pilot: Path) -> None:
    """Issue 17: every word occurs in the pilot (Report::monthly, plugins/stripe.php, the
    loggers), but never in one chunk or symbol, and the embedding is not confident."""
    r = search(vec_pilot, "monthly stripe logger")["result"]
    assert r["abstained"] and r["confidence"] == "none", r
    assert "never together" in r["hint"] and "logger, monthly, stripe" in r["hint"]
    # each word is in some chunk, no chunk or symbol holds two of the three
    assert r["words_meet"] == 0.0 and r["best_cosine"] < 0.5
    assert "no chunk or symbol holds half of them" in r["hint"]
    for word in ("monthly", "stripe", "logger"):  # each word alone is in the lexicon
        assert search(vec_pilot, word)["result"]["terms"] == [word]


def test_function_words_do_not_count_in_the_shares(vec_pilot: Path) -> None:
    """ "also", "over", "behind" weigh like content words under idf; added to a query they
    change neither how far its words meet nor a hit's coverage feature."""
    plain = search(vec_pilot, "invoice charge stripe")["result"]
    padded = search(vec_pilot, "invoice charge stripe also over behind")["result"]
    assert {"also", "over", "behind"} <= set(padded["terms"])
    assert 0 < plain["words_meet"] < 1 and padded["words_meet"] == plain["words_meet"]
    assert padded["words_meet_near"] == plain["words_meet_near"]

    def coverage(r: dict[str, Any]) -> float:
        hit = next(h for h in r["hits"] if h["fqn"] == "App\\Billing\\Invoice::charge")
        return float(hit["why"]["rerank"]["coverage"])

    assert coverage(padded) == coverage(plain) > 0


def test_a_candidate_only_the_vectors_found_is_read_for_its_words(vec_pilot: Path) -> None:
    """With one candidate per channel, the vector channel's hit that the lexical channel did
    not return still gets its coverage feature from its own text."""
    yaml_path = config.Layout(vec_pilot).project_yaml
    before = yaml_path.read_text()
    yaml_path.write_text(before.replace("  candidates: 50 ", "  candidates: 1  "))
    try:
        r = search(vec_pilot, "write a line to the log file of the invoices")["result"]
    finally:
        yaml_path.write_text(before)
    only_vec = [
        h for h in r["hits"] if "vector_rank" in h["why"] and "lexical_rank" not in h["why"]
    ]
    assert only_vec, [h["why"] for h in r["hits"]]
    assert all(h["why"]["rerank"].get("coverage", 0) > 0 for h in only_vec), only_vec


def test_every_hit_explains_its_ranking(vec_pilot: Path) -> None:
    """The re-rank's features (name match, coverage, cosine, bm25, centrality, definition) are
    in each hit's why; the words of a name (class + method) rank that symbol first."""
    r = search(vec_pilot, "file logger write")["result"]
    top = r["hits"][0]
    assert top["fqn"] == "App\\Core\\FileLogger::write", [h["fqn"] for h in r["hits"]]
    assert top["why"]["name_match"] == "exact" and top["why"]["name_rank"] == 1
    feats = top["why"]["rerank"]
    assert set(feats) <= {"rrf", "name", "coverage", "cosine", "bm25", "centrality", "definition"}
    assert feats["name"] == 1.0 and feats["definition"] == 1.0 and 0 < feats["centrality"] <= 1
    for h in search(vec_pilot, "how are invoices charged")["result"]["hits"]:
        assert "rerank" in h["why"] or "exact_symbol" in h["why"], h


def test_exact_names_anchor_first_and_entry_ids_resolve(vec_pilot: Path) -> None:
    r = search(vec_pilot, "Invoice::charge", with_text=True)["result"]
    assert r["confidence"] == "exact" and r["hits"][0]["fqn"] == "App\\Billing\\Invoice::charge"
    assert r["hits"][0]["why"]["exact_symbol"] is True
    assert "function charge" in r["hits"][0]["text"]["untrusted"]
    e = facade.run_op(vec_pilot, "code", {"entry_ids": [r["hits"][0]["chunk_id"]]})["result"][
        "entries"
    ][0]
    assert e["found"] and e["start_line"] == r["hits"][0]["start_line"]


def test_unchanged_tree_computes_no_vectors(
    vec_pilot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    res = indexer.build(config.load(vec_pilot), force=True)
    v = res.vectors
    assert v["computed"] == 0 and v["reused"] + v["skipped"] == res.counts["chunks"]
    st = json.loads(invoke("-C", vec_pilot, "status", "--json", check=True).stdout)
    assert st["vectors"]["status"] == "ready" and st["vectors"]["computed"] == 0


def test_missing_model_degrades_to_the_lexicon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    root = copy_pilot(tmp_path / "p")
    config.init_project(root)
    config.Layout(root).project_yaml.write_text("embedding: {path: models/absent}\n")
    res = indexer.build(config.load(root))
    assert res.status == "built" and res.vectors["status"] == "unavailable"
    assert "models/absent" in res.vectors["reason"]
    env = search(root, "how are invoices charged")
    assert (
        env["result"]["hits"] and env["result"]["hits"][0]["fqn"] == "App\\Billing\\Invoice::charge"
    )
    assert any(lim.startswith("vectors unavailable") for lim in env["limits"])
    cli = invoke("-C", root, "index", "--force", "--no-vectors", "--json", check=True)
    assert json.loads(cli.stdout)["vectors"] == {"status": "disabled"} and cli.stderr == ""
    off = search(root, "invoices")
    assert any("vectors disabled" in lim for lim in off["limits"])


def test_queries_are_embedded_as_the_revisions_vectors_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A query vector must lie in the space of the revision's vectors. Vectors made with
    embedding.quantize: none are searched with float query vectors after the setting
    changes to int8 (until the next index embeds them again); vectors of another model
    than the configured one are not searched at all, and limits say why."""
    import shutil

    from ragraf.embed import Embedder

    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    root = copy_pilot(tmp_path / "p")
    config.init_project(root)
    project = config.Layout(root).project_yaml
    project.write_text("embedding: {quantize: none}\n")
    res = indexer.build(config.load(root))
    assert not res.vectors["model_version"].endswith(";int8-dyn-pc7-v1")
    query = "append a line to a journal on disk"
    before = search(root, query)["result"]
    project.write_text("embedding: {quantize: int8}\n")
    after = search(root, query)["result"]
    assert after["best_cosine"] == before["best_cosine"]
    assert [h["fqn"] for h in after["hits"]] == [h["fqn"] for h in before["hits"]]
    # the int8 query vector itself is another one: the check above can fail
    int8 = Embedder(quantize="int8").embed_query(query)
    flt = Embedder(quantize="none").embed_query(query)
    assert not np.array_equal(int8, flt)

    other = Embedder(quantize="none")
    other._prepare()
    assert other._folder is not None
    folder = tmp_path / "other-model"
    shutil.copytree(
        other._folder, folder, symlinks=False, ignore=shutil.ignore_patterns("ragraf-*")
    )
    project.write_text(f"embedding: {{model: acme/other-model, path: {folder}}}\n")
    env = search(root, query)
    assert not any("vector_rank" in h["why"] for h in env["result"]["hits"])
    note = next(lim for lim in env["limits"] if lim.startswith("vectors unavailable"))
    assert "made by sentence-transformers/all-MiniLM-L6-v2" in note and "acme/other-model" in note


def test_calibrate_sets_the_abstention_threshold(vec_pilot: Path) -> None:
    samples = [
        {"query": "append a line to a journal on disk", "relevant": True},
        {"query": "how are invoices charged", "relevant": True},
        {"query": "train a convolutional neural network on GPU", "relevant": False},
        {"query": "compute the orbit of a planet around the sun", "relevant": False},
    ]
    env = facade.run_op(vec_pilot, "calibrate", {"kind": "threshold", "samples": samples})
    check(env)
    r = env["result"]
    assert (
        r["separated"] == 4
        and r["not_relevant_max_cosine"] < r["params"]["abstain_cosine"] < r["relevant_min_cosine"]
    )
    # the near-miss rule's share is calibrated too, and the samples stay separated with it
    assert 0 <= r["params"]["min_term_coverage"] <= 1 and r["separated_with_coverage"] == 4
    assert 0 <= r["params"]["min_near_meet"] <= 1
    after = search(vec_pilot, "append a line to a journal on disk")
    assert any(
        lim.startswith(f"search threshold from calibration #{r['calibration_id']}")
        for lim in after["limits"]
    )
    with pytest.raises(Exception, match="samples"):
        facade.run_op(vec_pilot, "calibrate", {"samples": [{"query": "x"}]})

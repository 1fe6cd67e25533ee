"""bench/search_eval.py: the set's structure and the metric functions (no search engine needed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO

_spec = importlib.util.spec_from_file_location("search_eval", REPO / "bench" / "search_eval.py")
assert _spec is not None and _spec.loader is not None
se = importlib.util.module_from_spec(_spec)
sys.modules["search_eval"] = se  # dataclasses look their module up
_spec.loader.exec_module(se)

HITS = [
    {
        "chunk_id": "a",
        "path": "libraries/classes/Utils/FormatConverter.php",
        "start_line": 33,
        "end_line": 50,
        "score": 0.9,
        "kind": "method",
        "fqn": "PhpMyAdmin\\Utils\\FormatConverter::binaryToIp",
        "why": {},
    },
    {
        "chunk_id": "b",
        "path": "libraries/classes/Util.php",
        "start_line": 1,
        "end_line": 120,
        "score": 0.8,
        "kind": "file",
        "fqn": None,
        "why": {},
    },
    {
        "chunk_id": "c",
        "path": "libraries/classes/Util.php",
        "start_line": 393,
        "end_line": 396,
        "score": 0.7,
        "kind": "method",
        "fqn": "PhpMyAdmin\\Util::backquote",
        "why": {},
    },
]


def test_matches() -> None:
    m = se.matches
    assert m(HITS[2], ("fqn", "PhpMyAdmin\\Util::backquote"))
    assert m(HITS[2], ("fqn", "PhpMyAdmin\\Util"))  # a class expectation
    assert not m(HITS[0], ("fqn", "PhpMyAdmin\\Util"))  # Utils\... is not Util::
    assert not m({"fqn": "PhpMyAdmin\\UtilX::f"}, ("fqn", "PhpMyAdmin\\Util"))
    assert not m(HITS[2], ("fqn", "PhpMyAdmin\\Util::back"))  # no partial method names
    assert not m(HITS[1], ("fqn", "PhpMyAdmin\\Util"))  # fqn None
    assert m(HITS[1], ("path", "libraries/classes/Util.php"))
    assert not m(HITS[1], ("path", "libraries/classes/Util"))


def test_score_rank_rr_hit5() -> None:
    s = se.score(
        {"hits": HITS, "abstained": False, "hint": None}, [{"fqn": "PhpMyAdmin\\Util::backquote"}]
    )
    assert s == {"rank": 3, "rr": pytest.approx(1 / 3), "hit5": 1, "abstained": False}
    # alternatives: the first one found counts
    s = se.score(
        {"hits": HITS, "abstained": False},
        [("fqn", "PhpMyAdmin\\Util::backquote"), ("path", "libraries/classes/Util.php")],
    )
    assert s["rank"] == 2 and s["rr"] == 0.5
    # beyond 5: rr counts, hit5 not; beyond the limit: nothing
    many = [{"fqn": f"X::f{i}", "path": "x.php"} for i in range(6)] + [HITS[2]]
    s = se.score({"hits": many, "abstained": False}, [("fqn", "PhpMyAdmin\\Util")])
    assert s["rank"] == 7 and s["hit5"] == 0 and s["rr"] == pytest.approx(1 / 7)
    assert se.score({"hits": many}, [("fqn", "PhpMyAdmin\\Util")], limit=5)["rank"] is None
    # no match, no hits, abstained
    assert se.score({"hits": HITS}, [("fqn", "PhpMyAdmin\\Core")])["rr"] == 0.0
    assert se.score({"hits": [], "abstained": False}, [("fqn", "A")])["rank"] is None
    s = se.score({"hits": HITS, "abstained": True}, [("fqn", "PhpMyAdmin\\Util::backquote")])
    assert s == {"rank": None, "rr": 0.0, "hit5": 0, "abstained": True}
    assert se.score({"hits": HITS, "abstained": True}, [])["abstained"] is True


def _qs(cat: str, rank: int | None, abstained: bool = False, hits: int = 3, sec: float = 0.1):
    rr = 1 / rank if rank else 0.0
    return se.QueryScore("q", cat, rank, rr, int(bool(rank) and rank <= 5), abstained, hits, sec)


def test_aggregate() -> None:
    scores = [
        _qs("literal", 1),
        _qs("literal", 2),
        _qs("literal", None),
        _qs("literal", 7),
        _qs("conceptual", None, abstained=True, hits=0),
        _qs("nonsense", None, abstained=True, hits=0),
        _qs("nonsense", None, hits=4),
    ]
    agg = se.aggregate(scores)
    lit = agg["literal"]
    assert lit["n"] == 4
    assert lit["mrr@10"] == pytest.approx((1 + 0.5 + 0 + 1 / 7) / 4)
    assert lit["recall@5"] == pytest.approx(0.5)
    assert lit["abstention"] == 0.0
    assert agg["conceptual"]["abstention"] == 1.0 and agg["conceptual"]["mrr@10"] == 0.0
    non = agg["nonsense"]
    assert non["abstention"] == 0.5 and non["mrr@10"] is None and non["answered_with_hits"] == 0.5
    assert agg["answerable"]["n"] == 5
    assert agg["abstain/tune"]["n"] == 2 and agg["abstain/tune"]["abstention"] == 0.5
    assert "abstain/held" not in agg
    assert "literal" in se.render(agg) and "-" in se.render(agg)


@pytest.mark.parametrize(
    "data, msg",
    [
        ({}, "queries"),
        (
            {"queries": [{"query": "", "category": "literal", "expected": [{"fqn": "A"}]}]},
            "non-empty",
        ),
        ({"queries": [{"query": "x", "category": "fuzzy", "expected": []}]}, "category"),
        (
            {"queries": [{"query": "x", "category": "nonsense", "expected": [{"fqn": "A"}]}]},
            "expected: \\[\\]",
        ),
        ({"queries": [{"query": "x", "category": "literal", "expected": []}]}, "at least one"),
        ({"queries": [{"query": "x", "category": "literal", "expected": [{"name": "A"}]}]}, "fqn"),
        (
            {
                "queries": [
                    {"query": "x", "category": "literal", "expected": [{"path": "/abs.php"}]}
                ]
            },
            "relative",
        ),
        (
            {
                "queries": [
                    {"query": "x", "category": "literal", "expected": [{"fqn": "A"}]},
                    {"query": "x", "category": "literal", "expected": [{"fqn": "B"}]},
                ]
            },
            "duplicate",
        ),
    ],
)
def test_parse_set_errors(data: object, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        se.parse_set(data, "t.yaml")


def test_the_shipped_set() -> None:
    qs = se.load_set(se.DEFAULT_SET)
    assert len(qs) >= 36
    by_cat = {c: [q for q in qs if q.category == c] for c in se.CATEGORIES}
    assert all(len(by_cat[c]) >= 10 for c in ("literal", "conceptual", "nonsense")), {
        c: len(v) for c, v in by_cat.items()
    }
    assert all(q.expected == () for c in se.UNANSWERABLE for q in by_cat[c])


def test_the_two_corpora_sets_have_a_held_apart_half() -> None:
    """Issue 17: >= 40 conceptual questions over two corpora, half of the new ones held apart,
    >= 20 nonsense and near-miss questions."""
    wp = se.DEFAULT_SET.with_name("search_eval_wordpress.yaml")
    assert se.set_corpus(se.DEFAULT_SET) == "phpmyadmin" and se.set_corpus(wp) == "wordpress"
    qs = se.load_set(se.DEFAULT_SET) + se.load_set(wp)
    concept = [q for q in qs if q.category == "conceptual"]
    held = [q for q in concept if q.half == "held"]
    assert len(concept) >= 40 and len(held) >= 20
    assert sum(q.category in se.UNANSWERABLE for q in qs) >= 20
    with pytest.raises(ValueError, match="half"):
        se.parse_set({"queries": [{"query": "x", "category": "literal", "half": "both",
                                   "expected": [{"fqn": "A"}]}]})  # fmt: skip


def test_the_issue46_sets_have_twenty_conceptual_questions_half_held() -> None:
    """Issue 46: Zabbix and ZoneMinder, >= 20 conceptual questions each, half held apart,
    nonsense and near misses in both halves."""
    for name, corpus in (
        ("search_eval_zabbix.yaml", "zabbix-frontend-php"),
        ("search_eval_zoneminder.yaml", "zoneminder"),
    ):
        path = se.DEFAULT_SET.with_name(name)
        assert se.set_corpus(path) == corpus
        qs = se.load_set(path)
        concept = [q for q in qs if q.category == "conceptual"]
        assert len(concept) >= 20
        assert sum(q.half == "held" for q in concept) * 2 == len(concept)
        for cat in se.UNANSWERABLE:
            assert {q.half for q in qs if q.category == cat} == set(se.HALVES)


def test_a_capitalised_global_function_is_checked_as_a_function(tmp_path: Path) -> None:
    (tmp_path / "db.inc.php").write_text("<?php\nfunction DBselect($q) {}\n")
    queries = se.parse_set(
        {"queries": [{"query": "q", "category": "literal", "expected": [{"fqn": "DBselect"}]},
                     {"query": "r", "category": "literal", "expected": [{"fqn": "DBgone"}]}]}
    )  # fmt: skip
    assert se.check_against_corpus(queries, tmp_path, "zabbix-frontend-php") == [
        "'r': DBgone is declared in no *.php file"
    ]


def test_answers_outside_psr4_are_checked_by_declaration(tmp_path: Path) -> None:
    (tmp_path / "wp-includes").mkdir()
    (tmp_path / "wp-includes" / "f.php").write_text(
        "<?php\nfunction wp_mkdir_p($t) {}\nclass WP_Http {\n  public function request() {}\n}\n"
    )
    queries = se.parse_set(
        {
            "queries": [
                {"query": "ok", "category": "conceptual", "expected": [
                    {"fqn": "wp_mkdir_p"}, {"fqn": "WP_Http::request"}]},
                {"query": "gone", "category": "conceptual", "expected": [{"fqn": "wp_gone"}]},
            ]
        }
    )  # fmt: skip
    assert se.check_against_corpus(queries, tmp_path, "wordpress") == [
        "'gone': wp_gone is declared in no *.php file"
    ]


def test_answers_outside_psr4_are_checked_with_their_namespace(tmp_path: Path) -> None:
    (tmp_path / "a.php").write_text(
        "<?php\nnamespace MediaWiki\\Revision;\nclass RevisionStore {\n  function get() {}\n}\n"
    )
    (tmp_path / "b.php").write_text("<?php\nclass Title {\n  function newFromText() {}\n}\n")
    queries = se.parse_set(
        {
            "queries": [
                {"query": "ok", "category": "conceptual", "expected": [
                    {"fqn": "MediaWiki\\Revision\\RevisionStore::get"},
                    {"fqn": "Title::newFromText"}]},
                {"query": "ns", "category": "conceptual", "expected": [
                    {"fqn": "RevisionStore::get"}, {"fqn": "MediaWiki\\Title::newFromText"}]},
            ]
        }
    )  # fmt: skip
    assert se.check_against_corpus(queries, tmp_path, "mediawiki") == [
        "'ns': RevisionStore::get is declared in no *.php file",
        "'ns': MediaWiki\\Title::newFromText is declared in no *.php file",
    ]


def test_expected_answers_are_checked_against_the_corpus(tmp_path: Path) -> None:
    """bench/search_eval.py refuses a set whose answers are not in the tree it runs on."""
    cls = tmp_path / "libraries" / "classes" / "Table"
    cls.mkdir(parents=True)
    (cls / "Search.php").write_text(
        "<?php\nnamespace PhpMyAdmin\\Table;\nclass Search {\n  public function run() {}\n}\n"
    )
    (tmp_path / "index.php").write_text("<?php\n")
    queries = se.parse_set(
        {
            "queries": [
                {"query": "ok", "category": "conceptual", "expected": [
                    {"fqn": "PhpMyAdmin\\Table\\Search::run"}, {"path": "index.php"}]},
                {"query": "no method", "category": "conceptual", "expected": [
                    {"fqn": "PhpMyAdmin\\Table\\Search::gone"}]},
                {"query": "no file", "category": "conceptual", "expected": [
                    {"fqn": "PhpMyAdmin\\Nope"}, {"path": "missing.php"}]},
            ]
        }
    )  # fmt: skip
    assert se.check_against_corpus(queries, tmp_path) == [
        "'no method': PhpMyAdmin\\Table\\Search::gone: Table/Search.php declares no method gone",
        "'no file': PhpMyAdmin\\Nope: no libraries/classes/Nope.php",
        "'no file': missing.php is not a file",
    ]

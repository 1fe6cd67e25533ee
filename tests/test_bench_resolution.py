"""bench/resolution.py: its pure helpers (coverage shares, sampling, counting, examples, the
call-line scans), on small inputs and fixtures/oracle; no corpus and no index run."""

from __future__ import annotations

from bench import resolution as rs
from bench.oracle.corpus import Corpus
from bench.oracle.judge import CORRECT, UNKNOWN_V, WRONG, Target, Verdict
from tests.helpers import REPO

ROOT = REPO / "fixtures" / "oracle"


def edge(uid: str, via: str = "name-match", path: str = "a.php", line: int = 1) -> rs.DerivedEdge:
    return rs.DerivedEdge(
        uid, "calls_heuristic", path, line, "src", Target("method", "A::m", "a.php"), via, 2
    )


def test_coverage_report_nulls_a_key_the_index_does_not_write() -> None:
    out = rs.coverage_report(
        {
            "calls.total": 200.0,
            "calls.stated": 100.0,
            "calls.derived": 20.0,
            "calls.unresolved": 80.0,
            "calls.unresolved_method": 30.0,
            "calls.stated_share": 0.5,
            "files.total": 3.0,
        }
    )
    assert out["total"] == 200
    assert out["stated"] == {"count": 100, "share": 0.5}
    assert out["derived"] == {"count": 20, "share": 0.1}
    assert out["external"] == {"count": None, "share": None}
    assert out["unresolved"] == {"count": 80, "share": 0.4}
    assert out["detail"] == {"calls.stated_share": 0.5, "calls.unresolved_method": 30}


def test_sample_is_seeded_and_takes_all_when_small() -> None:
    edges = [edge(f"{i:03d}") for i in range(50)]
    a = rs.sample(edges, 10, "11")
    assert a == rs.sample(edges, 10, "11")
    assert a != rs.sample(edges, 10, "12")
    assert len(set(a)) == 10
    assert rs.sample(edges, 80, "11") == edges
    assert rs.sample(edges, None, "11") == edges


def test_tally_and_precision() -> None:
    t = rs.tally([CORRECT, CORRECT, CORRECT, WRONG, UNKNOWN_V])
    assert t == {
        "size": 5,
        "correct": 3,
        "wrong": 1,
        "unknown": 1,
        "precision": 0.75,
        "unknown_share": 0.2,
    }
    assert rs.tally([UNKNOWN_V])["precision"] is None


def test_strata_estimate_weights_by_judged_population() -> None:
    strata = {
        # 1000 edges, all judged, precision 0.5; 10 edges, half judged, precision 1.0
        "a": {"population": 1000, "size": 100, "correct": 50, "wrong": 50, "precision": 0.5},
        "b": {"population": 10, "size": 10, "correct": 5, "wrong": 0, "precision": 1.0},
        "c": {"population": 5, "size": 5, "correct": 0, "wrong": 0, "precision": None},
    }
    assert rs.strata_estimate(strata) == round((1000 * 0.5 + 5 * 1.0) / 1005, 4)


def test_examples_spread_over_causes_and_sites() -> None:
    items = [
        (edge(f"n{i}", "name-match", "n.php", i), Verdict(WRONG, "the receiver runs B::m"))
        for i in range(1, 8)
    ]
    items.append((edge("n1b", "name-match", "n.php", 1), Verdict(WRONG, "the receiver runs C::m")))
    items += [
        (edge(f"d{i}", "duplicate-function", "d.php", i), Verdict(WRONG, "another declaration"))
        for i in range(1, 3)
    ]
    got = rs.pick_examples(items, 4)
    assert [e.via for e, _v in got].count("duplicate-function") == 2
    assert len({e.site for e, _v in got}) == 4  # one example per call site


def test_call_lines_by_tree_sitter_and_by_grep() -> None:
    paths = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.php"))
    corpus = Corpus(ROOT, paths)
    code = rs.function_call_lines(corpus, "helper")
    assert code == {"app/pages.php:3", "app/light.php:9", "app/common.php:4", "app/late.php:3"}
    grep = rs.grep_function_lines(ROOT, paths, "helper")
    # grep also counts the string on pages.php:4 and the trailing comment on light.php:13;
    # neither counts the comment line or the declarations
    assert grep == code | {"app/pages.php:4", "app/light.php:13"}

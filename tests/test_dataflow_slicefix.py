"""Slice and flow defects seen on phpMyAdmin (issue 42 §2), on fixtures/slicefix: calls on
the continuation lines of a statement, one variable, keyed request sources, query wrappers
as sinks, the ranking of flow paths, and slice paging."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ragraf import config, facade
from ragraf.indexing import indexer
from ragraf.lang import registry
from tests.flowhelp import fl, indexed_copy, result, run
from tests.flowhelp import lines as places
from tests.helpers import invoke
from tests.schemacheck import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "slicefix"
BM = "src/Bookmark.php"
DBI = "src/Dbi.php"
CC = "src/CreateController.php"
REP = "src/Report.php"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, FIXTURE, "slicefix", no_vectors=True)


def sl(root: Path, **args: Any) -> dict[str, Any]:
    return result(root, "slice", **args)


def returns(r: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["from"], e["to"], e["call_evidence"]) for e in r["edges"] if e["kind"] == "return"}


def test_calls_on_continuation_lines_keep_their_return_edge(root: Path) -> None:
    """Bookmark.php:251 in phpMyAdmin: `. $dbi->escapeString($user)` on the second line of
    `$query = ...` had no return edge (only calls on a statement's first line linked)."""
    r = sl(root, path=BM, line=9)
    assert returns(r) == {
        ("src/Util.php:8", f"{BM}:9", f"{BM}:9"),
        (f"{DBI}:24", f"{BM}:9", f"{BM}:10"),  # the call is on line 10
    }
    assert f"{DBI}:24" in {s["evidence"] for s in r["statements"]}
    # forward: an argument on a continuation line enters the callee
    fw = sl(root, path=CC, line=16, direction="forward", depth=2)
    assert f"{DBI}:37" in {s["evidence"] for s in fw["statements"]}  # logged($statement, ...)


def test_variable_slices_that_variable_only(root: Path) -> None:
    """Bookmark.php:258: `--variable query` on `$result = $dbi->fetchResult($query)` pulled in
    all of fetchResult (and through its properties connect and __construct)."""
    r = sl(root, path=BM, line=15, variable="query")
    assert places(r, BM) == [7, 9, 11, 12, 14, 15]
    assert not [s for s in r["statements"] if s["path"] == DBI and 43 <= s["line"] <= 51]
    assert "App\\Dbi::fetchResult" not in {f["fqn"] for f in r["functions"]}
    # the callees that make $query are entered through their return value
    assert {e[0] for e in returns(r)} == {"src/Util.php:8", f"{DBI}:24"}
    # the variable the call assigns: the call's result feeds it, depth 1 enters fetchResult
    res = sl(root, path=BM, line=15, variable="result")
    assert {f"{DBI}:50", f"{DBI}:46"} <= {s["evidence"] for s in res["statements"]}
    # forward from a use: what the statement assigns and the argument it passes
    fw = sl(root, path=BM, line=15, variable="query", direction="forward")
    assert places(fw, BM) == [15, 18] and f"{DBI}:43" in {s["evidence"] for s in fw["statements"]}
    # a variable the line does not have is said, not sliced as the whole line
    none = sl(root, path=BM, line=15, variable="nope")
    assert none["statements"] == [] and "$nope is neither used nor assigned" in none["hint"]


def test_a_keyed_source_starts_at_that_key_only(root: Path) -> None:
    """`flow "$_POST['zzz_no_such_key']"` answered "3 paths" from plain $_POST."""
    none = fl(root, source="$_POST['zzz_no_such_key']", sink="sql")
    assert not none["reaches"] and none["paths"] == []
    assert none["source"] == {
        "kind": "request",
        "name": "$_POST",
        "key": "zzz_no_such_key",
        "statements": 0,
    }
    assert "no statement reads $_POST['zzz_no_such_key']" in none["hint"]
    one = fl(root, source='$_POST["db_collation"]', sink="sql")
    assert one["source"]["key"] == "db_collation" and one["source"]["statements"] == 1
    assert {p["edges"][0]["from"] for p in one["paths"]} == {f"{CC}:17"}
    # the other key reaches its own sinks, not through line 17
    other = fl(root, source="$_POST['new_db']", sink="sql", limit=10)
    assert {p["edges"][0]["from"] for p in other["paths"]} == {f"{CC}:16"}
    assert f"{CC}:19" in {p["sink"]["evidence"] for p in other["paths"]}
    assert f"{CC}:19" not in {p["sink"]["evidence"] for p in one["paths"]}


def test_a_function_whose_parameter_reaches_sql_is_a_sink(root: Path) -> None:
    """phpMyAdmin's queryAsControlUser / tryQueryAsControlUser: the call passing request
    data to a query wrapper is a SQL sink, listed with why (a summary of the wrapper)."""
    r = fl(root, source="$_POST['db_collation']", sink="sql")
    first = r["paths"][0]
    assert first["sink"]["evidence"] == f"{CC}:20" and first["sink"]["kinds"] == ["sql"]
    assert first["sink"]["via"] == [
        {
            "fqn": "App\\Dbi::queryAsControlUser",
            "param": "$sql",
            "reaches": f"{DBI}:34",
            "call": "tryQuery",
            "provenance": "stated",
        }
    ]
    [w] = r["wrappers"]
    assert w["fqn"] == "App\\Dbi::queryAsControlUser" and "reaches a SQL sink" in w["why"]
    # a wrapper of a wrapper, called over two lines
    n = fl(root, source="$_POST['new_db']", sink="sql", limit=10)
    logged = next(p for p in n["paths"] if p["sink"]["evidence"] == f"{CC}:21")
    assert [v["fqn"] for v in logged["sink"]["via"]] == ["App\\Dbi::logged"]
    assert logged["sink"]["via"][0]["reaches"] == f"{DBI}:40"
    # the parameter that does not reach the query makes no sink: logged's $why
    why = fl(root, source="App\\Dbi::logged($why)", sink="sql")
    assert why["reaches"]  # $why is part of the text run as SQL
    # a summary stays in its function: connect's $user reaches the query of tryQuery only
    # through the property $this->link (derived), which makes connect no query wrapper
    conn = fl(root, source="App\\Dbi::connect($user)", sink="sql")
    assert [(p["sink"]["evidence"], p["provenance"]) for p in conn["paths"]][0] == (
        f"{DBI}:29",
        "derived",
    )
    assert not any(p["sink"].get("via") for p in conn["paths"]) and "wrappers" not in conn


def test_flow_ranks_distinct_pairs_before_length(root: Path) -> None:
    """`--limit` kept the shortest paths: three one-step sinks of one function hid the
    path into count() and its query."""
    r = fl(root, source="$_GET['table']", sink="sql", limit=3)
    got = [p["sink"]["evidence"] for p in r["paths"]]
    assert got == [f"{REP}:17", f"{DBI}:29", f"{REP}:26"]
    assert r["sinks_found"] == 6  # the search stopped once three pairs had a path
    env = run(root, "flow", source="$_GET['table']", sink="sql", limit=3)
    assert any(x.startswith("flow: 3 of 6 sinks found listed") for x in env["limits"])
    everything = fl(root, source="$_GET['table']", sink="sql", limit=10)
    assert [p["sink"]["evidence"] for p in everything["paths"]][3:] == [
        f"{DBI}:46",  # fetchResult($q) -> tryQuery($query): found once taint arrives there
        f"{REP}:18",
        f"{REP}:19",
        f"{REP}:20",
    ]


def test_capability_says_what_data_flow_covers_per_language(root: Path) -> None:
    """A mixed repository: PHP has the layer, Ruby (tags-level) does not; a Ruby statement
    is refused as a language not covered, not described as a declaration, a comment or a
    file without one, and nothing advises a reindex."""
    supported = list(registry.dataflow_languages())
    assert "php" in supported and "python" in supported and "ruby" not in supported
    only = ", ".join(supported)
    st = run(root, "index_status")["result"]
    assert st["capability"] == "dataflow"
    assert st["dataflow"] == {
        "supported": supported,
        "covered": ["php"],
        "not_covered": {"ruby": 1},
    }
    assert "ruby not covered" in st["capability_note"]
    txt = invoke("-C", str(root), "status", check=True).stdout
    assert "capability dataflow (data flow: php; not ruby (1 files)):" in txt
    for op, args in (
        ("slice", {"path": "tools/report.rb", "line": 6}),
        ("slice", {"fqn": "monthly"}),
        ("flow", {"source": "tools/report.rb:5", "sink": "sql"}),
        ("flow", {"source": "monthly(month)", "sink": "sql"}),
    ):
        env = run(root, op, **args)
        r = env["result"]
        assert r.get("refused") is True, (op, args, r)
        assert f"ruby is not covered: data flow is built for {only} only" in r["reason"]
        assert "reindex" not in r["reason"] and "declaration" not in r["reason"]
        assert any(f"ruby not covered by data flow ({only} only)" in x for x in env["limits"])


def test_a_ruby_only_repository_is_not_told_to_reindex(tmp_path: Path) -> None:
    r = tmp_path / "rb"
    (r / "app").mkdir(parents=True)
    shutil.copy(FIXTURE / "tools" / "report.rb", r / "app" / "report.rb")
    config.init_project(r)
    indexer.build(config.load(r), no_vectors=True)
    st = facade.run_op(r, "index_status", {})
    check(st)
    res = st["result"]
    assert res["capability"] == "degraded"
    assert res["dataflow"]["not_covered"] == {"ruby": 1} and res["dataflow"]["covered"] == []
    note = res["capability_note"]
    assert "python" in note and "ruby" in note and "php" in note
    assert "a reindex does not change that" in note
    txt = invoke("-C", str(r), "status", check=True).stdout
    assert "capability degraded (data flow: none; not ruby (1 files))" in txt
    assert "no data-flow analysis" not in txt
    for op, args in (
        ("slice", {"path": "app/report.rb", "line": 6}),
        ("flow", {"source": "$_GET", "sink": "sql"}),
    ):
        env = facade.run_op(r, op, args)
        check(env)
        reason = env["result"]["reason"]
        assert env["result"]["refused"] and "reindex to" not in reason
        assert "ruby" in reason and "python" in reason


def test_slice_pages_like_the_other_lists(root: Path) -> None:
    """A slice of WordPress top-level code reached 150 KB (issue 45): `limit` / `offset`,
    nearest statements first, the cut said in `page` and in the limits."""
    whole = sl(root, path=BM, line=15, limit=500)
    total = whole["counts"]["statements"]
    assert total == len(whole["statements"]) > 8 and whole["page"]["next_offset"] is None
    env = run(root, "slice", path=BM, line=15, limit=4)
    first = env["result"]
    assert len(first["statements"]) == 4 and first["counts"] == whole["counts"]
    assert all(s["hops"] == 0 for s in first["statements"])  # the function's own first
    assert first["page"]["next_offset"] == 4
    assert any(
        x.startswith(f"slice: 4 of {total} statements listed; next: offset 4")
        for x in env["limits"]
    )
    # the pages together are the whole slice, each edge on exactly one page
    seen: list[str] = []
    edges: list[tuple[str, str, str, str]] = []
    offset = 0
    while offset is not None:
        page = sl(root, path=BM, line=15, limit=4, offset=offset)
        seen += [s["stmt_id"] for s in page["statements"]]
        edges += [(e["from"], e["to"], e["var"] or "", e["kind"]) for e in page["edges"]]
        offset = page["page"]["next_offset"]
    assert sorted(seen) == sorted(s["stmt_id"] for s in whole["statements"])
    assert sorted(edges) == sorted(
        (e["from"], e["to"], e["var"] or "", e["kind"]) for e in whole["edges"]
    )
    assert len(edges) == whole["counts"]["edges"]
    txt = invoke("-C", str(root), "query", "slice", "--path", BM, "--line", "15", "--limit", "4")
    assert f": 4 of {total} statements" in txt.stdout.splitlines()[0]
    assert "next: offset 4" in txt.stdout


def test_a_callee_returns_to_the_call_it_was_entered_from(root: Path) -> None:
    """$_POST['new_db'] enters tryQuery from CreateController; tryQuery's result went back to
    every caller of tryQuery (fetchResult, and from there Bookmark::getList and
    Report::count): paths no run takes."""
    r = fl(root, source="$_POST['new_db']", sink="sql", limit=10)
    sinks = {p["sink"]["path"] for p in r["paths"]}
    assert sinks == {CC, DBI}
    for p in r["paths"]:
        returns_to = [e["to"] for e in p["edges"] if e["kind"] == "return"]
        assert all(t.startswith(CC) or t.startswith(DBI) for t in returns_to)
    # backward the same: a parameter reached through a call's result goes back to that call
    back = sl(root, path=CC, line=16, direction="forward", depth=3, limit=500)
    assert BM not in {s["path"] for s in back["statements"]}

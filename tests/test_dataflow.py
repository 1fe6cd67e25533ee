"""The data-flow layer (issue 13): slices of fixtures/dataflow, exact lines and edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.indexing import indexer
from ragraf.lang.php.walk import extract
from tests.flowhelp import edges, fl, indexed_copy, lines, price_edges, sl
from tests.helpers import invoke
from tests.schemacheck import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dataflow"


@pytest.fixture(scope="module")
def flow_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, FIXTURE, "dataflow")


CALC = "src/Calc.php"
PRICING = "src/Pricing.php"


def test_golden_price_back_slice(flow_root: Path) -> None:
    """The issue's golden test: signature, $base, $tax, $total and return; not $label/echo."""
    r = sl(flow_root, path=CALC, line=8, direction="back")
    assert lines(r) == [2, 3, 4, 6, 8]
    assert [s["kind"] for s in r["statements"]] == ["entry", "assign", "assign", "assign", "return"]
    assert r["statements"][0]["text"]["untrusted"] == "function price($qty, $unit) {"
    assert edges(r) == price_edges(f"{CALC}:", sigil="$")
    assert all(e["provenance"] == "stated" and e["confidence"] == 1.0 for e in r["edges"])
    assert [f["fqn"] for f in r["functions"]] == ["price"]
    # the same through the CLI, one variable, as JSON and as text
    out = invoke(
        "-C", str(flow_root), "query", "slice", "--path", CALC, "--line", "8",
        "--direction", "back", "--variable", "total", "--json", check=True,
    )  # fmt: skip
    env = json.loads(out.stdout)
    check(env)
    assert lines(env["result"]) == [2, 3, 4, 6, 8] and env["capability"] == "dataflow"
    txt = invoke("-C", str(flow_root), "query", "slice", "--path", CALC, "--line", "8", check=True)
    assert txt.stdout.startswith("back slice of src/Calc.php:8, depth 1: 5 statements, 6 edges\n")
    assert "$label" not in txt.stdout and "echo" not in txt.stdout
    assert "-- from the index rev-0001 (with data flow)\n" in txt.stdout
    assert "no CPG" not in txt.stdout and "degraded" not in txt.stdout


def test_variable_filter_and_nodes_mode(flow_root: Path) -> None:
    r = sl(flow_root, path=CALC, line=6, variable="tax", mode="nodes")
    assert lines(r) == [2, 3, 4, 6]  # $tax <- $base <- $qty, $unit; not $base's own use here
    assert all("text" not in s for s in r["statements"])
    assert all(s["stmt_id"].startswith(CALC + "#") for s in r["statements"])


def test_branches(flow_root: Path) -> None:
    r = sl(flow_root, path="src/Branches.php", line=13)
    # $label from all three branches, $extra from before the if and inside it, the
    # conditions that decide them; not $unused (line 12)
    assert lines(r) == [2, 3, 4, 5, 6, 7, 8, 10, 13]
    b = "src/Branches.php:"
    assert (b + "5", b + "13", "$label", "def_use") in edges(r)
    assert (b + "10", b + "13", "$label", "def_use") in edges(r)
    assert (b + "3", b + "13", "$extra", "def_use") in edges(r)
    assert (b + "7", b + "8", None, "control") in edges(r)


def test_loops_reach_around_and_early_continue(flow_root: Path) -> None:
    r = sl(flow_root, path="src/Branches.php", line=31)
    # foreach, the `continue` that skips the sum, the while loop; not the for / $count
    assert lines(r) == [16, 17, 19, 20, 23, 28, 29, 31]
    b = "src/Branches.php:"
    assert (b + "23", b + "23", "$sum", "def_use") in edges(r)  # around the loop
    assert (b + "29", b + "28", "$sum", "def_use") in edges(r)
    assert (b + "20", b + "23", None, "control") in edges(r)


def test_destructuring_references_and_arrays(flow_root: Path) -> None:
    r = sl(flow_root, path="src/Branches.php", line=43)
    assert lines(r) == list(range(34, 44))
    b = "src/Branches.php:"
    e = edges(r)
    assert (b + "35", b + "36", "$second", "def_use") in e  # [$first, 'k' => $second] = ...
    assert (b + "36", b + "39", "$b", "def_use") in e  # list($a, list($b)) = ...
    assert (b + "39", b + "41", "$copy", "def_use") in e  # $alias = &$copy; $alias = $b
    assert (b + "41", b + "43", "$bag", "def_use") in e  # $bag['x'] = ...: the whole array
    assert (b + "40", b + "43", "$bag", "def_use") in e  # an element write does not kill


def test_try_catch(flow_root: Path) -> None:
    r = sl(flow_root, path="src/Branches.php", line=53)
    assert lines(r) == [46, 49, 50, 51, 53]
    b = "src/Branches.php:"
    assert (b + "49", b + "53", "$data", "def_use") in edges(r)
    assert (b + "50", b + "51", "$e", "def_use") in edges(r)


def test_global_and_static(flow_root: Path) -> None:
    r = sl(flow_root, path="src/State.php", line=8)
    assert lines(r) == [5, 6, 7, 8]
    s = "src/State.php:"
    assert edges(r) == {
        (s + "5", s + "8", "$config", "def_use"),
        (s + "6", s + "7", "$calls", "def_use"),
        (s + "7", s + "8", "$calls", "def_use"),
    }


def test_properties_per_method_and_class_wide(flow_root: Path) -> None:
    r = sl(flow_root, path="src/State.php", line=30)
    assert lines(r) == [16, 18, 23, 29, 30]
    s = "src/State.php:"
    by = {(e["from"], e["to"], e["var"]): e for e in r["edges"]}
    derived = by[(s + "23", s + "29", "$this->count")]
    assert (derived["kind"], derived["provenance"], derived["confidence"]) == (
        "property",
        "derived",
        0.6,
    )
    assert by[(s + "16", s + "18", "$step")]["provenance"] == "stated"
    assert r["derived_edges"] == 2
    # within one method the assignment kills: bump's own += reaches its return, stated
    r2 = sl(flow_root, path="src/State.php", line=24)
    assert (s + "23", s + "24", "$this->count", "def_use") in edges(r2)


def test_calls_across_files_count_hops(flow_root: Path) -> None:
    one = sl(flow_root, path="src/Shop.php", line=14, depth=1)
    assert PRICING not in {s["path"] for s in one["statements"]}
    assert lines(one) == [4, 5, 6, 8, 12, 13, 14]  # checkout's body, not its $label (7)
    two = sl(flow_root, path="src/Shop.php", line=14, depth=2)
    assert lines(two, PRICING) == [2, 3, 4, 6]  # not its $note (5)
    e = edges(two)
    assert (PRICING + ":6", "src/Shop.php:6", None, "return") in e
    assert ("src/Shop.php:13", "src/Shop.php:4", "$qty", "argument") in e
    assert [(f["fqn"], f["hops"]) for f in two["functions"]] == [
        ("order", 0),
        ("checkout", 1),
        ("unit_price", 2),
    ]
    ret = next(x for x in two["edges"] if x["kind"] == "return" and x["from"] == PRICING + ":6")
    assert ret["call_evidence"] == "src/Shop.php:6" and ret["provenance"] == "stated"
    # forward from $base in unit_price: into its callers through the return, not back in
    fw = sl(flow_root, path=PRICING, line=3, direction="forward", depth=2)
    assert lines(fw, PRICING) == [3, 6] and lines(fw, "src/Shop.php") == [6, 8, 13, 14]
    # forward from checkout's parameter into unit_price
    fp = sl(flow_root, fqn="checkout", direction="forward")
    assert lines(fp, PRICING) == [2, 3, 6]
    assert ("src/Shop.php:6", PRICING + ":2", "$qty", "argument") in edges(fp)


def test_function_target_and_superglobal_reaching_sql(flow_root: Path) -> None:
    r = sl(flow_root, fqn="find_user")  # back from its return
    assert lines(r) == [2, 3, 4, 5, 6, 7, 8]
    fw = sl(flow_root, path="src/Search.php", line=3, direction="forward")
    assert lines(fw) == [3, 5, 6, 7, 8]  # $_GET -> trim -> the SQL string -> mysqli_query
    assert 4 not in lines(fw)


def test_facts_of_a_unit() -> None:
    """The extractor's units: entry defines the parameters, a closure is a unit of its own
    linked from the statement creating it."""
    src = (
        "<?php\nfunction f($a) {\n  $g = function ($p) use ($a) { return $p + $a; };\n"
        "  return $g(1);\n}\n"
    )
    f = extract("x.php", src)
    kinds = [(u.kind, u.start_line) for u in f.flows]
    assert kinds == [("script", 1), ("function", 2), ("closure", 3)]
    closure = json.loads(f.flows[2].data)
    assert closure["s"][0][4] == ["$p", "$a"]
    assert closure["x"] == [[1, 1, 0, "$a", "capture"]]
    assert [1, 2, "$g"] in json.loads(f.flows[1].data)["d"]


def test_without_the_layer_slice_refuses(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "README.md").write_text("# Notes\n\nNo code here.\n")
    config.init_project(root)
    indexer.build(config.load(root))
    env = facade.run_op(root, "slice", {"path": "README.md", "line": 1})
    check(env)
    assert env["capability"] == "degraded" and env["result"]["refused"]
    assert any("capability degraded" in x for x in env["limits"])


def test_flow_superglobal_reaches_sql(flow_root: Path) -> None:
    r = fl(flow_root, source="$_GET", sink="any")
    s = "src/Search.php:"
    got = [(p["sink"]["evidence"], p["sink"]["kinds"], p["length"]) for p in r["paths"]]
    assert got == [(s + "6", ["sql_string"], 2), (s + "7", ["sql"], 3)]
    assert [(e["from"], e["to"], e["var"]) for e in r["paths"][1]["edges"]] == [
        (s + "3", s + "5", "$name"),
        (s + "5", s + "6", "$clean"),
        (s + "6", s + "7", "$sql"),
    ]
    assert r["reaches"] and r["paths"][1]["provenance"] == "stated"
    # safe_list's constant SQL is no sink of $_GET; $_POST is read nowhere
    assert not fl(flow_root, source="$_POST")["reaches"]
    # a place as the sink: bidirectional search, the same shortest path
    b = fl(flow_root, source="$_GET['name']", sink=s + "7")
    assert b["reaches"] and [e["to"] for e in b["paths"][0]["edges"]] == [s + "5", s + "6", s + "7"]
    assert not fl(flow_root, source="$_GET", sink=s + "13")["reaches"]
    # text
    txt = invoke("-C", str(flow_root), "query", "flow", "$_GET", "--sink", "sql", check=True)
    assert txt.stdout.startswith("$_GET reaches sql: 1 paths")


def test_flow_request_body_across_functions(flow_root: Path) -> None:
    a = "src/Api.php:"
    r = fl(flow_root, source="php://input", sink="sql")
    # issue 42: run_sql's $sql reaches its query, so the call of run_sql is a sink itself
    wrapper, p = r["paths"]
    assert wrapper["sink"]["evidence"] == a + "11" and wrapper["length"] == 4
    assert wrapper["sink"]["via"] == [
        {
            "fqn": "run_sql",
            "param": "$sql",
            "reaches": a + "16",
            "call": "query",
            "provenance": "stated",
        }
    ]
    assert p["sink"]["evidence"] == a + "16" and p["sink"]["kinds"] == ["sql"]
    assert [(e["from"], e["to"], e["kind"]) for e in p["edges"]] == [
        (a + "3", a + "4", "def_use"),
        (a + "4", a + "8", "return"),
        (a + "8", a + "9", "def_use"),
        (a + "9", a + "11", "def_use"),
        (a + "11", a + "15", "argument"),
        (a + "15", a + "16", "def_use"),
    ]
    # one hop is not enough to reach run_sql's query through body()'s return; the call of
    # the wrapper is reached
    one = fl(flow_root, source="php://input", sink="sql", depth=1)
    assert [x["sink"]["evidence"] for x in one["paths"]] == [a + "11"]
    # a parameter as the source: the SQL text does; the connection it runs on is no data
    q = fl(flow_root, source="run_sql($sql)", sink="sql")
    assert q["reaches"] and q["paths"][0]["sink"]["evidence"] == a + "16"
    assert not fl(flow_root, source="handle($pdo)", sink="sql")["reaches"]
    out = fl(flow_root, source="php://input", sink="output")
    assert not out["reaches"]  # echo $page: not the request body


def test_flows_to_from_a_superglobal_to_the_sql_string_it_reaches(flow_root: Path) -> None:
    """Index time: the def-use graph links $_GET['name'] to the SQL string built from it."""
    from ragraf.store.graph import GraphStore

    layout = config.Layout(flow_root)
    with GraphStore(layout.graph_db, readonly=True) as g:
        rev = "rev-0001"
        [ep] = [n for n in g.nodes_of_kind(rev, "http_endpoint") if n.fqn == "$_GET['name']"]
        got = [
            (e.evidence_path, e.evidence_line, e.provenance, g.node(rev, e.dst).kind)  # type: ignore[union-attr]
            for e in g.edges_from(rev, [ep.node_id], ("flows_to",))
        ]
        assert sorted(got) == [
            ("src/Search.php", 3, "stated", "function"),  # the reading scope, as before
            ("src/Search.php", 6, "stated", "sql_literal"),  # the string its value reaches
        ]
        cov = {m: v for m, v, _n in g.coverage(rev)}
        assert cov["flow.to_sql"] == 1.0


def test_flow_that_hits_its_cap_says_so(flow_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search stopped by its statement cap is no 'does not reach': the answer says it is
    incomplete (it once stopped at the slice's cap of 200 and answered 'does not reach')."""
    from ragraf.facade import flowpaths

    monkeypatch.setattr(flowpaths, "MAX_FLOW_STATEMENTS", 1)
    env = facade.run_op(flow_root, "flow", {"source": "$_GET", "sink": "sql"})
    check(env)
    r = env["result"]
    assert not r["reaches"] and r["complete"] is False
    assert any("flow: stopped after 1 statements" in x for x in env["limits"])
    b = facade.run_op(flow_root, "flow", {"source": "$_GET['name']", "sink": "src/Search.php:7"})
    assert not b["result"]["reaches"] and b["result"]["complete"] is False
    monkeypatch.undo()
    full = facade.run_op(flow_root, "flow", {"source": "$_GET", "sink": "sql"})["result"]
    assert full["reaches"] and "complete" not in full


def test_a_source_that_only_decides_whether_a_sink_runs_does_not_reach_it(
    tmp_path: Path,
) -> None:
    """WordPress's repair.php: `isset($_GET['repair'])` decides whether `CHECK TABLE $t` runs,
    but `$t` comes from the database. A flow follows data; a forward slice also follows what a
    statement controls."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src/Repair.php").write_text(
        "<?php\n"
        "function repair($db) {\n"
        "    if (isset($_GET['repair'])) {\n"
        "        foreach ($db->tables() as $t) {\n"
        '            mysqli_query($db, "CHECK TABLE $t");\n'
        "        }\n"
        "    }\n"
        "    $id = $_GET['id'];\n"
        '    mysqli_query($db, "SELECT * FROM posts WHERE id = $id");\n'
        "}\n"
    )
    config.init_project(root)
    indexer.build(config.load(root), no_vectors=True)
    r = fl(root, source="$_GET", sink="sql")
    assert [p["sink"]["evidence"] for p in r["paths"]] == ["src/Repair.php:9"]
    assert not fl(root, source="$_GET", sink="src/Repair.php:5")["reaches"]
    # the slice forward from the condition holds what it controls
    s = sl(root, path="src/Repair.php", line=3, direction="forward")
    assert {4, 5} <= set(lines(s))

"""The Java walk of the data-flow layer (ragraf/lang/java/flow.py): statements, definitions
and uses, def-use edges, calls with their arguments, lambdas and anonymous classes, sources
and sinks of fixtures/flowjava, exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.lang.registry import dataflow_languages
from tests.flowhelp import edges, indexed_copy, price_edges
from tests.flowunits import U, assert_price_twin, unit_at, units
from tests.schemacheck import check

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "flowjava"


def dao() -> list[U]:
    return units(ROOT, "src/shop/Dao.java", "java")


def web() -> list[U]:
    return units(ROOT, "src/shop/Web.java", "java")


def test_golden_price_twin() -> None:
    """The twin of PHP's price() golden: signature, base, tax, total and return, not label."""
    (u,) = [u for u in units(ROOT, "src/shop/Calc.java", "java") if u.kind == "method"]
    assert_price_twin(u)
    # System.out is a class's field: no variable; println keeps its one argument
    assert u.stmts[5][5:7] == [["label"], [["system.out.println", "method", [["label"]]]]]


def test_java_is_a_dataflow_language() -> None:
    assert "java" in dataflow_languages()


def test_fields_bare_and_this_link_across_methods() -> None:
    us = dao()
    ctor, set_table, count = unit_at(us, 11), unit_at(us, 15), unit_at(us, 19)
    assert ctor.stmts[1][4] == ["this.conn"]  # this.conn = conn
    assert set_table.stmts[1][4] == ["this.table"]  # table = t: a bare field name
    assert count.stmts[1][5] == ["name", "this.table"]
    assert sorted(x[3] for x in count.data["x"]) == ["this.conn", "this.table"]


def test_try_with_resources_catch_finally_and_sql_sink() -> None:
    u = unit_at(dao(), 19)
    kinds = [(s[0], s[2]) for s in u.stmts]
    assert kinds[2:5] == [(21, "try"), (21, "assign"), (21, "assign")]
    assert u.stmts[3][4] == ["st"] and u.stmts[4][4] == ["rs"]  # the resources
    assert u.stmts[4][7] == ["sql"]  # st.executeQuery(q)
    assert (20, 21, "q") in u.edges()
    catch = u.at(27)[0]
    assert u.stmts[catch][2] == "catch" and u.stmts[catch][4] == ["e"]
    # the catch may be entered from every statement of the try, resources included
    preds = {a for a, b in u.data["c"] if b == catch}
    assert preds == {2, 3, 4, 5, 6, 7, 8}
    assert (27, 28, "e") in u.edges()


def test_overloads_keep_their_arity() -> None:
    lookup = unit_at(web(), 18)
    assert lookup.stmts[2][6] == [["dao.count", "method", [["k"], []]]]  # dao.count(k, 10)
    two = unit_at(dao(), 34)
    assert two.stmts[1][6] == [
        ["count", "method", [["name"]]],
        ["math.min", "static", [["name"], ["limit"]]],
    ]


def test_sources_and_sinks() -> None:
    us = web()
    get = unit_at(us, 11)
    assert get.sources == "getParameter()"
    assert get.stmts[1][4:6] == [["who"], ["getParameter()", "req"]]
    assert get.stmts[2][6] == [["lookup", "method", [["who"]]]]
    assert get.stmts[4][7] == ["output"]  # out = resp.getWriter(); out.println(...)
    run = unit_at(us, 23)
    assert run.sources == "@RequestParam"  # @RequestParam String cmd
    assert run.stmts[0][4:6] == [["cmd"], ["@RequestParam"]]
    assert run.stmts[1][7] == ["shell"]  # Runtime.getRuntime().exec(cmd)


def test_switch_fallthrough_labels_lambda_and_anonymous_class() -> None:
    us = web()
    u = unit_at(us, 29)
    succ = {tuple(c) for c in u.data["c"]}
    at = u.at
    # case 1 falls into case 2; `break` leaves the switch to the loop's update;
    # `continue outer` goes to the update; `break outer` leaves the loop
    update = [i for i in at(32) if u.stmts[i][2] == "assign"][1]
    assert (at(36)[0], at(37)[0]) in succ
    assert (at(39)[0], update) in succ
    assert (at(41)[0], update) in succ
    assert (at(43)[0], at(46)[0]) in succ
    assert {(36, 38, "total"), (38, 36, "total"), (30, 58, "total")} <= u.edges()
    # the lambda and the anonymous class capture base / label
    lam = next(x for x in us if x.kind == "closure")
    assert lam.stmts[0][4] == ["base", "v"]
    anon = unit_at(us, 53)
    assert anon.kind == "method" and anon.stmts[0][4] == ["label"]
    assert [x[3:] for x in anon.data["x"]] == [["label", "capture"]]
    assert u.stmts[at(52)[0]][5] == ["label"]  # the creating statement uses it


@pytest.fixture(scope="module")
def java_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, ROOT, "flowjava")


def test_golden_price_back_slice_end_to_end(java_root: Path) -> None:
    """PHP's golden through the facade: the same five lines and six edges."""
    path = "src/shop/Calc.java"
    env = facade.run_op(java_root, "slice", {"path": path, "line": 8, "direction": "back"})
    check(env)
    assert env["capability"] == "dataflow"
    r = env["result"]
    assert [s["line"] for s in r["statements"]] == [2, 3, 4, 6, 8]
    assert [s["kind"] for s in r["statements"]] == ["entry", "assign", "assign", "assign", "return"]
    assert edges(r) == price_edges(path + ":")
    assert [f["fqn"] for f in r["functions"]] == ["shop.Calc.price"]


def test_request_parameter_reaches_sql_across_overloads(java_root: Path) -> None:
    """getParameter in doGet -> lookup(who) -> dao.count(k, 10) (the 2-argument overload)
    -> count(name) -> st.executeQuery(q) in a try-with-resources."""
    env = facade.run_op(java_root, "flow", {"source": "src/shop/Web.java:12", "sink": "sql"})
    check(env)
    deepest = max(env["result"]["paths"], key=lambda p: len(p["edges"]))
    assert deepest["sink"]["evidence"] == "src/shop/Dao.java:21"
    w, d = "src/shop/Web.java:", "src/shop/Dao.java:"
    assert [(s["from"], s["to"], s["kind"]) for s in deepest["edges"]] == [
        (w + "12", w + "13", "def_use"),
        (w + "13", w + "18", "argument"),
        (w + "18", w + "19", "def_use"),
        (w + "19", w + "20", "def_use"),
        (w + "20", d + "34", "argument"),
        (d + "34", d + "35", "def_use"),
        (d + "35", d + "19", "argument"),
        (d + "19", d + "20", "def_use"),
        (d + "20", d + "21", "def_use"),
    ]


def test_configured_sources_are_the_walks() -> None:
    """config/project.yaml lists as Go's and Java's sources exactly what their walks read
    (a source the walk does not know could never be found)."""
    from ragraf.lang.go.flow import SOURCES as GO
    from ragraf.lang.java.flow import SOURCES as JAVA

    d = config.load(ROOT.parent / "flowjava").dataflow
    assert set(d.rules("go").sources) == set(GO)
    assert set(d.rules("java").sources) == set(JAVA)


def test_main_args_through_an_options_parser_and_an_enum_constant_reach_the_shell(
    java_root: Path,
) -> None:
    """Bazel's ResourceProcessorBusyBox construct: main(args) -> process(asList(args)) ->
    parser.parse(args) (a weak definition of the parser) -> options.tool.call(
    parser.getResidue()) -> the body of the enum constant RUN -> Runner.execute(args) ->
    new ProcessBuilder().command(command)."""
    u = unit_at(units(ROOT, "src/shop/Cli.java", "java"), 11)
    parse = u.stmts[u.at(13)[0]]
    assert parse[4] == ["parser"] and parse[5] == ["args", "parser"]
    run = unit_at(units(ROOT, "src/shop/Cli.java", "java"), 22)  # a method of RUN's body
    assert run.stmts[1][6] == [["runner.execute", "static", [["args"]]]]
    env = facade.run_op(
        java_root, "flow", {"source": "shop.Cli.main(args)", "sink": "shell", "depth": 5}
    )
    check(env)
    (path,) = env["result"]["paths"]
    c = "src/shop/Cli.java:"
    assert path["sink"]["evidence"] == c + "37"
    assert [(s["from"], s["to"], s["kind"]) for s in path["edges"]] == [
        (c + "7", c + "8", "def_use"),
        (c + "8", c + "11", "argument"),
        (c + "11", c + "13", "def_use"),
        (c + "13", c + "15", "def_use"),
        (c + "15", c + "23", "argument"),
        (c + "23", c + "24", "def_use"),
        (c + "24", c + "36", "argument"),
        (c + "36", c + "37", "def_use"),
    ]

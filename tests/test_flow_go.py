"""The Go walk of the data-flow layer (ragraf/lang/go/flow.py): statements, definitions and
uses, def-use edges, calls with their arguments, closures, sources and sinks of
fixtures/flowgo, exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragraf import facade
from ragraf.lang.registry import dataflow_languages
from tests.flowhelp import edges, indexed_copy, price_edges
from tests.flowunits import U, assert_price_twin, unit_at, units
from tests.schemacheck import check

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "flowgo"


def flow() -> list[U]:
    return units(ROOT, "shop/flow.go", "go")


def test_golden_price_twin() -> None:
    """The twin of PHP's price() golden: signature, base, tax, total and return, not label."""
    (u,) = [u for u in units(ROOT, "shop/calc.go", "go") if u.kind == "function"]
    assert_price_twin(u)
    assert u.stmts[5][6] == [["println", "function", [["label"]]]]


def test_go_is_a_dataflow_language() -> None:
    assert "go" in dataflow_languages()


def test_receiver_fields_are_this_and_link_across_methods() -> None:
    us = flow()
    find = unit_at(us, 20)
    assert find.kind == "method"
    # q := ... + s.table + ... name: the receiver's field is this.table, the receiver no variable
    assert find.stmts[1][4:6] == [["q"], ["name", "this.table"]]
    # SetTable's s.table = t is the definition a use in Find links to (class_links)
    set_table = unit_at(us, 16)
    assert set_table.stmts[1][4] == ["this.table"]
    assert [x[3:] for x in find.data["x"]] == [["this.table", "property"]]
    assert find.stmts[2][7] == ["sql"]  # s.db.Query(q)
    assert find.stmts[2][6] == [["this.db.query", "method", [["q"]]]]


def test_multiple_results_named_results_and_a_deferred_closure() -> None:
    us = flow()
    lookup = unit_at(us, 25)
    e = lookup.edges()
    assert lookup.stmts[0][4] == ["st", "key", "n", "err"]  # named results defined at entry
    assert lookup.stmts[1][4] == ["rows", "err"]  # rows, err := st.Find(key)
    # a bare return uses the named results: n from the entry and the loop, err from := and
    # from the deferred closure that assigns it (a weak definition of the defer statement)
    assert {(25, 36, "n"), (34, 36, "n"), (26, 36, "err"), (30, 36, "err")} <= e
    assert (26, 30, "rows") in e
    (closure,) = [u for u in us if u.kind == "closure"]
    assert closure.stmts[0][4] == ["err", "rows"]  # captured
    assert [x[3:] for x in closure.data["x"]] == [["err", "capture"], ["rows", "capture"]]


def test_sources_sinks_and_calls_with_arguments() -> None:
    us = flow()
    handle = unit_at(us, 39)
    assert handle.sources == "r.FormValue()"
    assert "r.FormValue()" in handle.stmts[1][5]  # req.FormValue("id"): whatever it is called
    assert handle.stmts[3][6] == [["lookup", "function", [["st"], ["id"]]]]
    assert handle.stmts[3][4] == ["n", "err"]
    assert handle.stmts[7][7] == ["output"]  # fmt.Fprintf(w, ...) to the ResponseWriter
    run = unit_at(us, 50)
    assert run.sources == "r.URL.Query()"
    assert run.stmts[2][7] == ["shell"]  # exec.Command
    assert (51, 52, "cmd") in run.edges()


def test_branches_loops_labels_and_switch() -> None:
    u = unit_at(flow(), 55)
    kinds = [(s[0], s[2]) for s in u.stmts]
    # the if's init statement precedes its header; else if is an elseif under the if
    assert kinds[1:5] == [(56, "assign"), (56, "if"), (57, "assign"), (58, "elseif")]
    assert u.stmts[4][3] == 2
    e = u.edges()
    assert {(57, 67, "total"), (59, 67, "total"), (61, 67, "total")} <= e
    # the 3-clause loop's update runs after the body and after `continue`
    upd = [i for i, s in enumerate(u.stmts) if s[0] == 63 and s[2] == "assign"][1]
    cont = u.at(65)[0]
    assert (cont, upd) in {tuple(c) for c in u.data["c"]}
    # break outer leaves the range loop; continue inside the switch goes back to its head
    head = u.at(70)[0]
    succ = {tuple(c) for c in u.data["c"]}
    assert (u.at(73)[0], u.at(80)[0]) in succ
    assert (u.at(75)[0], head) in succ
    # a, b = b, a; p := &a; *p = 3 (an alias): the return sees a from all three
    assert {(81, 84, "a"), (82, 84, "a"), (83, 84, "a"), (81, 84, "b")} <= e


@pytest.fixture(scope="module")
def go_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, ROOT, "flowgo")


def test_golden_price_back_slice_end_to_end(go_root: Path) -> None:
    """PHP's golden through the facade: the same five lines and six edges."""
    env = facade.run_op(go_root, "slice", {"path": "shop/calc.go", "line": 8, "direction": "back"})
    check(env)
    assert env["capability"] == "dataflow"
    r = env["result"]
    assert [s["line"] for s in r["statements"]] == [2, 3, 4, 6, 8]
    assert [s["kind"] for s in r["statements"]] == ["entry", "assign", "assign", "assign", "return"]
    assert edges(r) == price_edges("shop/calc.go:")
    assert [f["fqn"] for f in r["functions"]] == ["shop.price"]


def test_request_value_reaches_sql_across_two_calls(go_root: Path) -> None:
    """req.FormValue("id") in Handle -> lookup(st, id) -> st.Find(key) -> s.db.Query(q)."""
    env = facade.run_op(go_root, "flow", {"source": "shop/flow.go:40", "sink": "sql"})
    check(env)
    paths = env["result"]["paths"]
    deepest = max(paths, key=lambda p: len(p["edges"]))
    assert deepest["sink"]["evidence"] == "shop/flow.go:22"
    assert [(s["from"], s["to"], s["kind"]) for s in deepest["edges"]] == [
        ("shop/flow.go:40", "shop/flow.go:42", "def_use"),
        ("shop/flow.go:42", "shop/flow.go:25", "argument"),
        ("shop/flow.go:25", "shop/flow.go:26", "def_use"),
        ("shop/flow.go:26", "shop/flow.go:20", "argument"),
        ("shop/flow.go:20", "shop/flow.go:21", "def_use"),
        ("shop/flow.go:21", "shop/flow.go:22", "def_use"),
    ]


def test_argv_through_a_flag_set_reaches_the_shell_across_two_calls(go_root: Path) -> None:
    """os.Args in Main -> process(args) -> fs.Parse(args) (the flag set then answers from
    the arguments: a weak definition of fs) -> execute(fs.Args()) -> exec.Command; the
    construct of CLIs such as Bazel's tools (docs/PERFORMANCE.md, Go and Java data flow)."""
    u = unit_at(units(ROOT, "shop/cli.go", "go"), 13)
    parse = u.stmts[u.at(15)[0]]
    assert parse[4] == ["fs"] and parse[5] == ["args", "fs"]
    env = facade.run_op(go_root, "flow", {"source": "os.Args", "sink": "shell"})
    check(env)
    (path,) = env["result"]["paths"]
    c = "shop/cli.go:"
    assert path["sink"]["evidence"] == c + "23"
    assert [(s["from"], s["to"], s["kind"]) for s in path["edges"]] == [
        (c + "10", c + "13", "argument"),
        (c + "13", c + "15", "def_use"),
        (c + "15", c + "16", "def_use"),
        (c + "16", c + "22", "argument"),
        (c + "22", c + "23", "def_use"),
    ]

"""The data-flow layer of JavaScript / TypeScript (issue 42): the walk's units, statements,
def-use edges, calls, closures, sources and sinks on fixtures/dataflow_js, and the golden
``price()`` slice (the PHP one's twin) through the facade and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragraf import facade
from ragraf.lang.js.walk import extract
from tests.flowhelp import edges, fl, indexed_copy, lines, price_edges, sl
from tests.helpers import invoke
from tests.schemacheck import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dataflow_js"


def units(name: str) -> dict[str, tuple[str, dict[str, Any], str]]:
    """The flow units of a fixture file by their declaration's fqn (a closure's: its
    enclosing one's + ``>`` + its first line): (kind, data, sources)."""
    path = f"src/{name}"
    f = extract(path, (FIXTURE / path).read_text())
    assert f.status == "ok" and not f.stats.get("flow_failed")
    out: dict[str, tuple[str, dict[str, Any], str]] = {}
    for u in f.flows:
        key = f.nodes[u.node].fqn if u.node else "<script>"
        if u.kind == "closure":
            key += f">{u.start_line}"
        out[key] = (u.kind, json.loads(u.data), u.sources)
    return out


def stmt(data: dict[str, Any], line: int) -> list[Any]:
    [s] = [s for s in data["s"] if s[0] == line and s[2] not in ("entry",)][:1]
    return s


def du(data: dict[str, Any]) -> set[tuple[int, int, str]]:
    """Def-use edges as (def line, use line, variable)."""
    s = data["s"]
    return {(s[a][0], s[b][0], v) for a, b, v in data["d"]}


# -- the walk ---------------------------------------------------------------------------------
def test_statements_defs_uses_and_def_use_edges() -> None:
    kind, d, _ = units("calc.js")["src/calc.price"]
    assert kind == "function"
    assert [(s[0], s[2], s[4], sorted(s[5])) for s in d["s"]] == [
        (2, "entry", ["qty", "unit"], []),
        (3, "assign", ["base"], ["qty", "unit"]),
        (4, "assign", ["tax"], ["base"]),
        (5, "assign", ["label"], []),
        (6, "assign", ["total"], ["base", "tax"]),
        (7, "expr", [], ["console", "label"]),
        (8, "return", [], ["total"]),
    ]
    assert du(d) == {
        (2, 3, "qty"),
        (2, 3, "unit"),
        (3, 4, "base"),
        (3, 6, "base"),
        (4, 6, "tax"),
        (5, 7, "label"),
        (6, 8, "total"),
    }
    # TypeScript: annotations, `as` and `!` are transparent; the same statements and edges
    _, ts, _ = units("calc.ts")["src/calc.price"]
    assert du(ts) == du(d)
    assert [s[2] for s in ts["s"]] == [s[2] for s in d["s"]]


def test_branches_else_if_and_control() -> None:
    _, d, _ = units("branches.js")["src/branches.classify"]
    assert {(line, v) for a, line, v in du(d) if line == 11} == {(11, "label")}
    assert sorted(a for a, b, v in du(d) if b == 11) == [4, 6, 8]  # not the initial 'none'
    kinds = {s[0]: (s[2], d["s"][s[3]][0] if s[3] >= 0 else None) for s in d["s"][1:]}
    assert kinds[5] == ("elseif", 3)  # else if: a header controlled by the if
    assert kinds[6] == ("assign", 5) and kinds[8] == ("assign", 5) and kinds[10] == ("assign", None)


def test_loops_labels_switch_and_try() -> None:
    _, d, _ = units("branches.js")["src/branches.total"]
    s = d["s"]
    at = {(x[0], x[2]): i for i, x in enumerate(s)}
    succ = {(s[a][0], s[a][2], s[b][0], s[b][2]) for a, b in d["c"]}
    # `continue outer` goes to the for-of header, `break outer` past the outer loop
    assert (18, "continue", 16, "foreach") in succ
    assert (19, "break", 23, "assign") in succ
    assert not any(a == 19 and k == "break" and b == 17 for a, k, b, _ in succ)
    # the sum reaches around the inner loop and out of it
    e = du(d)
    assert (20, 20, "sum") in e and (20, 26, "sum") in e and (15, 26, "sum") in e
    assert (25, 25, "k") in e and (25, 26, "k") in e  # do-while: the body before the test
    # switch: the case's break leaves the switch; default runs after the header
    assert (30, "break", 34, "try") in succ and (27, "switch", 31, "default") in succ
    # catch: entered from the try body; finally after both
    assert (35, "assign", 36, "catch") in succ and (37, "assign", 38, "finally") in succ
    assert (36, 37, "err") in e and (37, 41, "sum") in e and (35, 41, "sum") in e
    assert at[(38, "finally")] < at[(39, "assign")]


def test_destructuring_defaults_rest_and_weak_writes() -> None:
    _, d, _ = units("branches.js")["src/branches.unpack"]
    assert sorted(stmt(d, 45)[4]) == ["first", "rest"]
    assert sorted(stmt(d, 46)[4]) == ["a", "c", "more"]  # b: {c = first}: a default uses first
    e = du(d)
    assert {(45, 46, "first"), (44, 46, "opts"), (46, 48, "c"), (46, 49, "a")} <= e
    # bag.x = / bag[a] = are weak: the object literal still reaches the return
    assert {(47, 52, "bag"), (48, 52, "bag"), (49, 52, "bag")} <= e
    assert stmt(d, 51)[2] == "assign" and (51, 52, "count") in e  # ({ count } = more)


def test_calls_with_arguments_and_sinks() -> None:
    u = units("api.js")
    _, h, _ = u["src/api.handle"]
    assert stmt(h, 14)[6] == [["readname", "function", [["req"]]]]
    assert stmt(h, 16)[6] == [["runsql", "function", [["db"], ["sql"]]]]
    assert stmt(h, 21)[6][-1] == ["res.send", "method", [["page"]]]
    # a child_process function by its module's name, whatever it was bound to; a shell sink
    s22 = stmt(h, 22)
    assert s22[6] == [
        ["child_process.exec", "function", [["req", "req.query", "req.query['host']"]]]
    ]
    assert s22[7] == ["shell"]
    _, r, _ = u["src/api.runSql"]
    assert stmt(r, 10)[6] == [["conn.query", "method", [["sql"]]]]
    _, page, _ = units("page.js")["<script>>5"]
    sinks = {s[0]: s[7] for s in page["s"]}
    assert sinks[7] == ["output"]  # .innerHTML =
    assert sinks[8] == ["output"]  # document.write
    assert sinks[9] == ["code"] and sinks[10] == ["code"]  # eval, new Function
    assert sinks[11] == ["shell"]  # cp = require('child_process'); cp.exec
    assert stmt(page, 11)[6] == [["child_process.exec", "method", [["q"]]]]
    assert sinks[12] == []  # res.send: a sink the configuration names, not the walk


def test_sources_and_keyed_reads() -> None:
    u = units("api.js")
    _, d, sources = u["src/api.readName"]
    assert sources == "req.query"
    assert sorted(stmt(d, 5)[5]) == ["req", "req.query", "req.query['name']"]
    assert (4, 5, "req") in du(d)
    _, _, env = units("db.js")["<script>"]
    assert env == "process.env"
    _, page, srcs = units("page.js")["<script>>5"]
    assert srcs == "req.body req.cookies req.params req.query"
    assert "req.query['q']" in stmt(page, 6)[5]  # req.query['q'] is the same key as req.query.q
    # destructuring a source reads its keys
    f = extract("d.js", "function f(req) {\n  const { id, name: n, ...rest } = req.query;\n}\n")
    uses = sorted(json.loads(f.flows[1].data)["s"][1][5])
    assert uses == ["req", "req.query", "req.query['id']", "req.query['name']"]
    # through `this` (express's res.jsonp) or a global object; a computed key is no key
    f = extract(
        "r.js",
        "res.jsonp = function (obj) {\n  var cb = this.req.query[app.get('k')];\n"
        "  var s = window.location.search;\n  return this.send(cb + s);\n};\n",
    )
    [unit] = [u for u in f.flows if u.kind == "function"]
    assert unit.sources == "location.search req.query"
    assert sorted(json.loads(unit.data)["s"][1][5]) == ["app", "req.query", "this.req"]


def test_closures_capture_by_reference() -> None:
    u = units("api.js")
    kind, c, _ = u["src/api.handle>18"]
    assert kind == "closure"
    assert c["s"][0][4] == ["row", "page"]  # its parameter, then what it captures
    _, h, _ = u["src/api.handle"]
    creating = next(i for i, s in enumerate(h["s"]) if s[0] == 18)
    assert c["x"] == [[creating_unit(u, "src/api.handle"), creating, 0, "page", "capture"]]
    # page.push(...) inside: the creating statement writes page too (weakly), which the
    # response then reads
    assert "page" in h["s"][creating][4] and (18, 21, "page") in du(h)
    assert (17, 21, "page") in du(h)


def creating_unit(u: dict[str, tuple[str, dict[str, Any], str]], key: str) -> int:
    return list(u).index(key)


def test_classes_this_fields_parameter_properties_and_arrows() -> None:
    u = units("state.ts")
    kind, ctor, _ = u["src/state.Counter.constructor"]
    assert kind == "method"
    # constructor(private readonly start): start and this.start; the field's initialiser
    assert ctor["s"][0][4] == ["start", "this.start", "this.step"]
    _, bump, _ = u["src/state.Counter.bump"]
    order = list(u)
    links = {(order[x[0]], x[3], x[4]) for x in bump["x"]}
    # this.count is read before bump writes it: the writes of the other methods reach it
    assert ("src/state.Counter.reset", "this.count", "property") in links
    assert ("src/state.Counter.constructor", "this.step", "property") in links
    assert (6, 7, "this.count") in du(bump)  # within the method the write kills
    # an arrow's `this` is the method's: it captures the fields it reads
    kind, arrow, _ = u["src/state.Counter.later>15"]
    assert kind == "closure"
    assert arrow["s"][0][4] == ["this.count", "this.step"]
    assert {x[4] for x in arrow["x"]} == {"capture"}


def test_units_of_a_script_callback_and_es5_constructor() -> None:
    src = (
        "function Legacy(a) { this.a = a; }\n"
        "Legacy.prototype.get = function () { return this.a; };\n"
        "app.post('/x', function (req, res) { res.json(req.body); });\n"
        "const outer = (x) => { let n = 0; [1].forEach(() => { n += x; }); return n; };\n"
    )
    f = extract("x.js", src)
    got = [(u.kind, u.start_line, f.nodes[u.node].fqn if u.node else "") for u in f.flows]
    assert got == [
        ("script", 1, ""),
        ("function", 1, "x.Legacy"),
        ("method", 2, "x.Legacy.get"),
        ("closure", 3, ""),  # a callback of file-level code: a closure of the script
        ("function", 4, "x.outer"),
        ("closure", 4, "x.outer"),
    ]
    get = json.loads(f.flows[2].data)
    assert get["x"] == [[1, 1, 1, "this.a", "property"]]  # the constructor's this.a
    outer = json.loads(f.flows[4].data)
    # n += x in the callback: captured by reference, so the return sees it written
    assert [1, 3, "n"] in outer["d"] and [2, 3, "n"] in outer["d"]
    assert f.flows[3].sources == "req.body"


# -- through the facade -------------------------------------------------------------------
@pytest.fixture(scope="module")
def js_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, FIXTURE, "dataflow_js")


@pytest.mark.parametrize("path", ["src/calc.js", "src/calc.ts"])
def test_golden_price_back_slice(js_root: Path, path: str) -> None:
    """The PHP golden's twin: signature, base, tax, total and return; not label / log."""
    r = sl(js_root, path=path, line=8, direction="back")
    assert lines(r) == [2, 3, 4, 6, 8]
    assert [s["kind"] for s in r["statements"]] == ["entry", "assign", "assign", "assign", "return"]
    assert edges(r) == price_edges(f"{path}:")
    assert all(e["provenance"] == "stated" and e["confidence"] == 1.0 for e in r["edges"])
    assert [f["fqn"] for f in r["functions"]] == ["src/calc.price"]
    txt = invoke("-C", str(js_root), "query", "slice", "--path", path, "--line", "8", check=True)
    assert txt.stdout.startswith(f"back slice of {path}:8, depth 1: 5 statements, 6 edges\n")
    assert "label" not in txt.stdout and "console" not in txt.stdout
    assert "-- from the index rev-0001 (with data flow)\n" in txt.stdout


def test_calls_across_files_count_hops(js_root: Path) -> None:
    one = sl(js_root, path="src/shop.js", line=19, depth=1)
    assert "src/pricing.js" not in {s["path"] for s in one["statements"]}
    assert lines(one) == [3, 5, 6, 8, 11, 14, 15, 16, 17, 19]  # not checkout's label (10)
    two = sl(js_root, path="src/shop.js", line=19, depth=2)
    assert lines(two, "src/pricing.js") == [1, 2, 3, 5]  # not its note (4)
    e = edges(two)
    assert ("src/pricing.js:5", "src/shop.js:6", None, "return") in e
    assert ("src/pricing.js:5", "src/shop.js:8", None, "return") in e
    assert ("src/shop.js:17", "src/shop.js:3", "qty", "argument") in e
    assert [(f["fqn"], f["hops"]) for f in two["functions"]] == [
        ("src/shop.order", 0),
        ("src/shop.checkout", 1),
        ("src/pricing.unitPrice", 2),
    ]
    fw = sl(js_root, fqn="src/shop.checkout", direction="forward", depth=2)
    assert ("src/shop.js:6", "src/pricing.js:1", "qty", "argument") in edges(fw)
    assert lines(fw, "src/pricing.js") == [1, 2, 5]


def test_flow_from_a_keyed_read_across_a_call(js_root: Path) -> None:
    env = facade.run_op(js_root, "flow", {"source": "src/api.js:5", "sink": "any"})
    check(env)
    r = env["result"]
    a = "src/api.js:"
    assert r["reaches"]
    first = r["paths"][0]
    assert first["sink"]["evidence"] == a + "15" and first["sink"]["kinds"] == ["sql_string"]
    assert [(x["from"], x["to"], x["kind"]) for x in first["edges"]] == [
        (a + "5", a + "6", "def_use"),
        (a + "6", a + "14", "return"),
        (a + "14", a + "15", "def_use"),
    ]


def test_golden_price_one_variable_through_the_cli(js_root: Path) -> None:
    """A variable as written (no sigil), as JSON and as text."""
    out = invoke(
        "-C", str(js_root), "query", "slice", "--path", "src/calc.js", "--line", "8",
        "--direction", "back", "--variable", "total", "--json", check=True,
    )  # fmt: skip
    env = json.loads(out.stdout)
    check(env)
    assert lines(env["result"]) == [2, 3, 4, 6, 8] and env["capability"] == "dataflow"
    assert env["result"]["target"]["variable"] == "total"
    r = sl(js_root, path="src/calc.js", line=6, variable="tax", mode="nodes")
    assert lines(r) == [2, 3, 4, 6]  # tax <- base <- qty, unit; not base's own use here


def test_flow_from_req_query_to_each_kind_of_sink(js_root: Path) -> None:
    a = "src/api.js:"
    r = fl(js_root, source="req.query", sink="sql")
    # req.query['name'] -> readName's return -> handle -> runSql's parameter -> conn.query
    wrapper, inside = r["paths"]
    assert wrapper["sink"]["evidence"] == a + "16" and wrapper["sink"]["via"][0]["call"] == "query"
    assert inside["sink"]["evidence"] == a + "10" and inside["sink"]["kinds"] == ["sql"]
    assert [(e["from"], e["to"], e["kind"]) for e in inside["edges"]] == [
        (a + "5", a + "6", "def_use"),
        (a + "6", a + "14", "return"),
        (a + "14", a + "15", "def_use"),
        (a + "15", a + "16", "def_use"),
        (a + "16", a + "9", "argument"),
        (a + "9", a + "10", "def_use"),
    ]
    sinks = {
        (p["sink"]["evidence"], k)
        for p in fl(js_root, source="req.query", sink="any", limit=50)["paths"]
        for k in p["sink"]["kinds"]
    }
    assert (a + "22", "shell") in sinks  # exec of child_process, destructured
    assert ("src/page.js:11", "shell") in sinks  # cp.exec
    assert ("src/page.js:7", "output") in sinks  # .innerHTML =
    assert ("src/page.js:12", "output") in sinks  # res.send, configured
    assert ("src/route.ts:10", "output") in sinks  # TypeScript reads JavaScript's rules
    code = fl(js_root, source="req.body", sink="code")
    assert [p["sink"]["evidence"] for p in code["paths"]] == ["src/page.js:9"]  # eval


def test_flow_from_one_key_of_a_source(js_root: Path) -> None:
    r = fl(js_root, source="req.query['name']", sink="sql")
    assert r["reaches"] and r["source"]["key"] == "name"
    assert {p["sink"]["evidence"] for p in r["paths"]} == {"src/api.js:10", "src/api.js:16"}
    host = fl(js_root, source="req.query['host']", sink="sql")
    assert not host["reaches"]  # exec's host never reaches SQL
    none = fl(js_root, source="req.query['zzz_no_such_key']", sink="any")
    assert not none["reaches"] and "no statement reads req.query['zzz_no_such_key']" in none["hint"]
    txt = invoke(
        "-C", str(js_root), "query", "flow", "req.query['name']", "--sink", "sql", check=True
    )
    assert txt.stdout.startswith("req.query['name'] reaches sql: 2 paths")


def test_into_a_closure_only_the_captured_variable_comes_from_its_creator(js_root: Path) -> None:
    """Back from a statement of a callback: the statement creating it counts for the
    variable captured (page), not for its other uses (rows, the SQL result)."""
    r = sl(js_root, path="src/api.js", line=19)
    assert lines(r) == [17, 18, 18, 19]  # page = []; the forEach; the callback's entry
    a = "src/api.js:"
    assert (a + "18", a + "18", "page", "capture") in edges(r)
    assert not {s["line"] for s in r["statements"]} & {13, 14, 15, 16}


def test_a_call_on_the_line_a_callback_starts_belongs_to_its_statement(js_root: Path) -> None:
    """`verify(decode(token), (err, data) => {...})`: the callback's entry is on the line of
    the call too, but makes no call; decode's argument is the statement's."""
    t = "src/token.js:"
    r = fl(js_root, source="src/token.userId(token)", sink=t + "2")
    assert r["reaches"]
    assert [(e["from"], e["to"], e["kind"]) for e in r["paths"][0]["edges"]] == [
        (t + "6", t + "7", "def_use"),
        (t + "7", t + "7", "capture"),
        (t + "7", t + "8", "def_use"),
        (t + "8", t + "1", "argument"),
        (t + "1", t + "2", "def_use"),
    ]

"""The data-flow layer of Python (issue 42 §1): the twin of PHP's `price()` golden, calls
across functions, request sources to sinks, and the walk's statements on
fixtures/dataflow_py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ragraf import config
from ragraf.indexing import indexer
from ragraf.lang.python.walk import extract
from tests.flowhelp import edges, indexed_copy, lines, price_edges, run
from tests.helpers import invoke
from tests.schemacheck import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dataflow_py"
CALC = "app/calc.py"
SHOP = "app/shop.py"
PRICING = "app/pricing.py"
API = "app/api.py"
SHAPES = "app/shapes.py"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, FIXTURE, "dataflow_py", no_vectors=True)


def test_golden_price_back_slice(root: Path) -> None:
    """PHP's golden twin: signature, base, tax, total and return; not label / print."""
    r = run(root, "slice", path=CALC, line=7, direction="back")["result"]
    assert lines(r) == [1, 2, 3, 5, 7]
    assert [s["kind"] for s in r["statements"]] == ["entry", "assign", "assign", "assign", "return"]
    assert r["statements"][0]["text"]["untrusted"] == "def price(qty, unit):"
    assert edges(r) == price_edges(f"{CALC}:", at=(1, 2, 3, 5, 7))
    assert all(e["provenance"] == "stated" and e["confidence"] == 1.0 for e in r["edges"])
    assert [f["fqn"] for f in r["functions"]] == ["app.calc.price"]
    out = invoke(
        "-C", str(root), "query", "slice", "--path", CALC, "--line", "7",
        "--direction", "back", "--variable", "total", "--json", check=True,
    )  # fmt: skip
    env = json.loads(out.stdout)
    check(env)
    assert lines(env["result"]) == [1, 2, 3, 5, 7] and env["capability"] == "dataflow"
    assert env["result"]["target"]["variable"] == "total"  # no PHP sigil added
    txt = invoke("-C", str(root), "query", "slice", "--path", CALC, "--line", "7", check=True)
    assert txt.stdout.startswith("back slice of app/calc.py:7, depth 1: 5 statements, 6 edges\n")
    assert "label" not in txt.stdout and "print" not in txt.stdout
    assert "-- from the index rev-0001 (with data flow)\n" in txt.stdout


def test_status_says_python_is_covered(root: Path) -> None:
    st = run(root, "index_status")["result"]
    assert st["capability"] == "dataflow"
    assert st["dataflow"]["covered"] == ["python"] and st["dataflow"]["not_covered"] == {}
    txt = invoke("-C", str(root), "status", check=True).stdout
    assert "capability dataflow (data flow: python):" in txt


def test_calls_across_files_count_hops(root: Path) -> None:
    one = run(root, "slice", path=SHOP, line=14, depth=1)["result"]
    assert PRICING not in {s["path"] for s in one["statements"]}
    assert lines(one) == [4, 5, 6, 8, 12, 13, 14]  # checkout's body, not its label (7)
    two = run(root, "slice", path=SHOP, line=14, depth=2)["result"]
    assert lines(two, PRICING) == [1, 2, 3, 5]  # not its note (4)
    e = edges(two)
    assert (PRICING + ":5", SHOP + ":6", None, "return") in e
    assert (SHOP + ":13", SHOP + ":4", "qty", "argument") in e
    assert [(f["fqn"], f["hops"]) for f in two["functions"]] == [
        ("app.shop.order", 0),
        ("app.shop.checkout", 1),
        ("app.pricing.unit_price", 2),
    ]
    # forward from `unit = 5`: a keyword argument reaches the parameter of its name
    fw = run(root, "slice", path=SHOP, line=5, direction="forward")["result"]
    assert (SHOP + ":6", PRICING + ":1", "unit", "argument") in edges(fw)
    assert lines(fw, PRICING) == [1, 2, 5]
    # a function as the target: forward from its parameters into the callee
    fp = run(root, "slice", fqn="app.shop.checkout", direction="forward")["result"]
    assert lines(fp, PRICING) == [1, 2, 5]
    assert (SHOP + ":6", PRICING + ":1", "qty", "argument") in edges(fp)


def test_flow_request_body_to_sql_across_two_calls(root: Path) -> None:
    a = f"{API}:"
    r = run(root, "flow", source="request.json", sink="sql")["result"]
    wrapper, p = r["paths"]
    assert wrapper["sink"]["evidence"] == a + "15" and wrapper["length"] == 4
    assert wrapper["sink"]["via"] == [
        {
            "fqn": "app.api.run_sql",
            "param": "sql",
            "reaches": a + "21",
            "call": "execute",
            "provenance": "stated",
        }
    ]
    assert p["sink"]["evidence"] == a + "21" and p["sink"]["kinds"] == ["sql"]
    assert [(e["from"], e["to"], e["kind"]) for e in p["edges"]] == [
        (a + "7", a + "8", "def_use"),
        (a + "8", a + "12", "return"),
        (a + "12", a + "13", "def_use"),
        (a + "13", a + "15", "def_use"),
        (a + "15", a + "19", "argument"),
        (a + "19", a + "21", "def_use"),
    ]
    q = run(root, "flow", source="app.api.run_sql(sql)", sink="sql")["result"]
    assert q["reaches"] and q["paths"][0]["sink"]["evidence"] == a + "21"
    assert not run(root, "flow", source="app.api.handle(conn)", sink="output")["result"]["reaches"]


def test_keyed_sources_and_sinks_per_kind(root: Path) -> None:
    a = f"{API}:"
    r = run(root, "flow", source="request.args['name']", sink="sql")["result"]
    assert r["source"] == {
        "kind": "request",
        "name": "request.args",
        "key": "name",
        "statements": 1,
    }
    assert [p["sink"]["evidence"] for p in r["paths"]] == [a + "30"]
    assert [e["var"] for e in r["paths"][0]["edges"]] == ["name", "clean", "sql"]
    g = run(root, "flow", source="request.args.get('name')", sink=a + "30")["result"]
    assert g["reaches"] and g["source"]["key"] == "name"
    other = run(root, "flow", source="request.args['other']", sink="any")["result"]
    got = [(p["sink"]["evidence"], p["sink"]["kinds"]) for p in other["paths"]]
    assert got == [(a + "31", ["shell"]), (a + "32", ["code"])]
    none = run(root, "flow", source="request.args['zzz']", sink="sql")["result"]
    assert not none["reaches"] and none["source"]["statements"] == 0
    assert "no statement reads request.args['zzz']" in none["hint"]
    txt = invoke("-C", str(root), "query", "flow", "request.json", "--sink", "sql", check=True)
    assert txt.stdout.startswith("request.json reaches sql: 2 paths")


def _units(path: str) -> dict[int, dict[str, Any]]:
    f = extract(path, (FIXTURE / path).read_text())
    return {u.start_line: {"kind": u.kind, "src": u.sources, **json.loads(u.data)} for u in f.flows}


def test_walk_methods_receiver_fields_and_branches() -> None:
    u = _units(SHAPES)
    init, allowed, parse = u[5], u[9], u[19]
    assert init["kind"] == "method" and init["s"][0][4] == ["owner", "limit"]  # no self
    assert [s[4] for s in init["s"][1:]] == [["self.owner"], ["self.limit"]]
    # if / elif / else: the elif is controlled by the if, its body by the elif
    assert [(s[0], s[2], s[3]) for s in allowed["s"]] == [
        (9, "entry", -1),
        (10, "if", -1),
        (11, "return", 1),
        (12, "elseif", 1),
        (13, "throw", 3),
        (15, "assign", 3),
        (16, "return", -1),
    ]
    assert [[1, 2, 1, "self.limit", "property"], [1, 2, 5, "self.limit", "property"]] == allowed[
        "x"
    ]
    # staticmethod: every parameter is one (*rest, keyword-only, **opts); star destructuring,
    # augmented assignment, for / else
    assert parse["s"][0][4] == ["text", "rest", "sep", "opts"]
    assert parse["s"][1][4] == ["head", "tail"] and sorted(parse["s"][1][5]) == ["sep", "text"]
    assert [1, 5, "head"] in parse["d"] and [5, 5, "head"] in parse["d"]
    assert [0, 7, "rest"] in parse["d"] and [0, 7, "opts"] in parse["d"]
    assert (parse["s"][6][0], parse["s"][6][3]) == (26, 2)  # else of the for


def test_walk_scopes_try_with_closures_and_match() -> None:
    u = _units(SHAPES)
    totals, counter, pick, scaled, bump = u[30], u[51], u[62], u[45], u[54]
    s = totals["s"]
    assert s[1][4] == ["seen"] and s[1][5] == ["rows"]  # the comprehension's r does not leak
    assert "r" not in {v for st in s for v in st[4] + st[5]}
    assert [6, 10, "value"] in totals["d"] and [8, 10, "value"] in totals["d"]  # try / except
    assert s[7][2] == "catch" and s[7][4] == ["err"]
    assert s[11][4] == ["fh"] and "os.environ['LOG']" in s[11][5]  # with ... as, a keyed source
    assert totals["src"] == "os.environ"
    # a nested def captures what its enclosing function defines; the lambda's y stays inside
    assert s[14][4] == ["scaled"] and s[14][5] == ["scale"]
    assert totals["o"] == [[14, 7, 0, "scale", "capture"]]
    assert scaled["s"][0][4] == ["x", "scale"] and scaled["d"] == [[0, 1, "scale"], [0, 1, "x"]]
    assert s[15][5] == ["count", "seen"]
    # nonlocal defines its name; the closure's own writes stay inside
    assert bump["s"][1][2] == "global" and [1, 2, "total"] in bump["d"]
    assert counter["o"] == [[2, 8, 0, "total", "capture"]]
    # match: each case defines its captures and controls its body
    assert [(x[0], x[2], x[4]) for x in pick["s"][2:7:2]] == [
        (64, "case", ["where"]),
        (66, "case", ["when"]),
        (68, "case", []),
    ]
    assert sorted(d for d in pick["d"] if d[2] == "target") == [
        [3, 8, "target"],
        [5, 8, "target"],
        [7, 8, "target"],
    ]


def test_walk_calls_sources_and_generators() -> None:
    src = (
        "import os, sys\n"
        "def gen(xs, db):\n"
        "    for x in xs:\n"
        "        yield x\n"
        "    cmd = sys.argv[1] + input() + os.getenv('HOME')\n"
        "    db.cursor().execute(cmd, params=[x])\n"
        "    (yield cmd)\n"
    )
    f = extract("g.py", src)
    d = json.loads(f.flows[1].data)
    assert f.flows[1].sources == "input() os.environ sys.argv"
    assert [s[2] for s in d["s"]] == ["entry", "foreach", "yield", "assign", "expr", "yield"]
    uses = d["s"][3][5]
    assert {"sys.argv['1']", "os.environ['HOME']", "input()"} <= set(uses)
    assert d["s"][4][6] == [
        ["execute", "method", [["cmd"]], {"params": ["x"]}],
        ["db.cursor", "method", []],
    ]
    assert [3, 4, "cmd"] in d["d"] and [3, 5, "cmd"] in d["d"]


def test_status_slice_and_flow_through_the_mcp_server(root: Path, tmp_path: Path) -> None:
    """The MCP server answers like the CLI: python covered, a slice without a sigil, a keyed
    flow; a Ruby file beside it is refused naming Ruby, never advising a reindex."""
    import asyncio
    import sys

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    mixed = tmp_path / "mixed"
    shutil.copytree(root, mixed, ignore=shutil.ignore_patterns(".ragraf"))
    (mixed / "tools").mkdir()
    (mixed / "tools" / "report.rb").write_text("def monthly(db, month)\n  db.execute(month)\nend\n")
    config.init_project(mixed)
    indexer.build(config.load(mixed), no_vectors=True)

    async def drive() -> list[Any]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "ragraf", "-C", str(mixed), "mcp"]
        )
        with open(tmp_path / "mcp-stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                calls: list[tuple[str, dict[str, Any]]] = [
                    ("ragraf_index_status", {}),
                    ("ragraf_slice", {"path": CALC, "line": 7, "variable": "total"}),
                    ("ragraf_flow", {"source": "request.args.get('name')", "sink": "sql"}),
                    ("ragraf_slice", {"path": "tools/report.rb", "line": 2}),
                ]
                return [await session.call_tool(n, a) for n, a in calls]

    st, sl, fl, rb = (json.loads(r.content[0].text) for r in asyncio.run(drive()))
    for env in (st, sl, fl, rb):
        check(env)
    assert st["result"]["capability"] == "dataflow"
    assert st["result"]["dataflow"]["covered"] == ["python"]
    assert st["result"]["dataflow"]["not_covered"] == {"ruby": 1}
    assert lines(sl["result"]) == [1, 2, 3, 5, 7]
    assert [p["sink"]["evidence"] for p in fl["result"]["paths"]] == [f"{API}:30"]
    assert rb["result"]["refused"] and "ruby is not covered" in rb["result"]["reason"]
    assert "reindex" not in rb["result"]["reason"]


MULTI = "app/multi.py"


def test_a_call_on_a_continuation_line_and_one_variable(root: Path) -> None:
    """Issue 42 §2 in Python: a call on a continuation line of its statement links its
    return like one on the first line; a variable only used at the start enters no callee."""
    m = f"{MULTI}:"
    r = run(root, "slice", path=MULTI, line=14, depth=1)["result"]
    assert lines(r, MULTI) == [1, 2, 5, 6, 7, 10, 11, 14]
    assert (m + "2", m + "7", None, "return") in edges(r)
    only = run(root, "slice", path=MULTI, line=7, variable="where", depth=1)["result"]
    assert lines(only) == [5, 6, 7]  # not fetch's body, not rows' other inputs
    assert {e["var"] for e in only["edges"]} == {"month", "where"}


def test_a_class_call_enters_its_constructor_and_fields_link_methods(root: Path) -> None:
    """`Box(n)` passes n to `__init__`'s size (the receiver is no parameter); `self.size`
    set there reaches `area` (a derived, class-wide property link), whose result returns
    to the caller."""
    b = "app/box.py:"
    r = run(root, "slice", fqn="app.box.make", direction="forward", depth=2)["result"]
    assert edges(r) == {
        (b + "9", b + "10", "n", "def_use"),
        (b + "10", b + "2", "size", "argument"),
        (b + "2", b + "3", "size", "def_use"),
        (b + "3", b + "6", "self.size", "property"),
        (b + "6", b + "11", None, "return"),
        (b + "10", b + "11", "b", "def_use"),
    }
    prop = next(e for e in r["edges"] if e["kind"] == "property")
    assert (prop["provenance"], prop["confidence"]) == ("derived", 0.6)

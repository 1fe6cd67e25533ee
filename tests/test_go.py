"""Go, deep (issue 14): the golden fixture fixtures/goapp (a module with ``go.mod``, a
package ``store`` spread over two files — the type in one, its methods in the other —
struct embedding, an interface, an aliased import of ``internal/db``, calls through
package qualifiers, typed receivers, fields, locals and parameters), coverage by
language, drift on an edited Go file, and the search chunks and repo map of Go symbols.

The expected sets were checked by hand against the sources: every call is stated except
``x.Get`` on a parameter of an unnamed interface type (a name match, derived: two
candidates); ``fmt.Println`` is external (standard library).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.kinds import BindKind, Denotes
from ragraf.lang import registry
from ragraf.lang.typedesc import Export, Pending
from tests.helpers import REPO, invoke
from tests.test_drift import edit
from tests.test_pilot_golden import _graph
from tests.test_python import assert_golden, indexed_copy

GOAPP = REPO / "fixtures" / "goapp"

NODES = {
    ("class", "internal/db.Conn", "internal/db/db.go", 4, 6),
    ("class", "store.Base", "store/store.go", 14, 14),
    ("class", "store.Store", "store/store.go", 21, 24),
    ("file", "cmd/app/main.go", "cmd/app/main.go", 1, 16),
    ("file", "go.mod", "go.mod", 1, 3),
    ("file", "internal/db/db.go", "internal/db/db.go", 1, 15),
    ("file", "store/methods.go", "store/methods.go", 1, 12),
    ("file", "store/store.go", "store/store.go", 1, 28),
    ("function", "cmd/app.main", "cmd/app/main.go", 5, 12),
    ("function", "cmd/app.run", "cmd/app/main.go", 14, 16),
    ("function", "internal/db.Open", "internal/db/db.go", 9, 11),
    ("function", "store.Fetch", "store/methods.go", 10, 12),
    ("function", "store.New", "store/store.go", 26, 28),
    ("interface", "store.Getter", "store/store.go", 10, 12),
    ("method", "internal/db.Conn.Query", "internal/db/db.go", 13, 15),
    ("method", "store.Base.Log", "store/store.go", 16, 18),
    ("method", "store.Getter.Get", "store/store.go", 11, 11),
    ("method", "store.Store.Get", "store/methods.go", 4, 8),
}
EDGES = {
    ("calls", "cmd/app.main", "cmd/app.run", "cmd/app/main.go:11", "stated", 1.0),
    ("calls", "cmd/app.main", "store.Fetch", "cmd/app/main.go:10", "stated", 1.0),
    ("calls", "cmd/app.main", "store.Getter.Get", "cmd/app/main.go:9", "stated", 1.0),
    ("calls", "cmd/app.main", "store.New", "cmd/app/main.go:6", "stated", 1.0),
    ("calls", "cmd/app.main", "store.Store.Get", "cmd/app/main.go:7", "stated", 1.0),
    ("calls", "store.Fetch", "store.Getter.Get", "store/methods.go:11", "stated", 1.0),
    ("calls", "store.New", "internal/db.Open", "store/store.go:27", "stated", 1.0),
    ("calls", "store.Store.Get", "internal/db.Conn.Query", "store/methods.go:6", "stated", 1.0),
    ("calls", "store.Store.Get", "store.Base.Log", "store/methods.go:5", "stated", 1.0),
    ("calls_heuristic", "cmd/app.run", "store.Getter.Get", "cmd/app/main.go:15", "derived", 0.4),
    ("calls_heuristic", "cmd/app.run", "store.Store.Get", "cmd/app/main.go:15", "derived", 0.4),
    ("extends", "store.Store", "store.Base", "store/store.go:22", "stated", 1.0),
    # a package import links to every file of the package (issue 40)
    ("imports", "cmd/app/main.go", "store/methods.go", "cmd/app/main.go:3", "stated", 1.0),
    ("imports", "cmd/app/main.go", "store/store.go", "cmd/app/main.go:3", "stated", 1.0),
    ("imports", "store/store.go", "internal/db/db.go", "store/store.go:6", "stated", 1.0),
    ("instantiates", "internal/db.Open", "internal/db.Conn", "internal/db/db.go:10", "stated", 1.0),
    ("instantiates", "store.New", "store.Store", "store/store.go:27", "stated", 1.0),
}
STRUCTURE = {
    ("contains", "cmd/app/main.go", "cmd/app.main", "cmd/app/main.go:5"),
    ("contains", "cmd/app/main.go", "cmd/app.run", "cmd/app/main.go:14"),
    ("contains", "internal/db/db.go", "internal/db.Conn", "internal/db/db.go:4"),
    ("contains", "internal/db/db.go", "internal/db.Conn.Query", "internal/db/db.go:13"),
    ("contains", "internal/db/db.go", "internal/db.Open", "internal/db/db.go:9"),
    ("contains", "store.Getter", "store.Getter.Get", "store/store.go:11"),
    ("contains", "store/methods.go", "store.Fetch", "store/methods.go:10"),
    ("contains", "store/methods.go", "store.Store.Get", "store/methods.go:4"),
    ("contains", "store/store.go", "store.Base", "store/store.go:14"),
    ("contains", "store/store.go", "store.Base.Log", "store/store.go:16"),
    ("contains", "store/store.go", "store.Getter", "store/store.go:10"),
    ("contains", "store/store.go", "store.New", "store/store.go:26"),
    ("contains", "store/store.go", "store.Store", "store/store.go:21"),
    ("defines", "internal/db.Conn", "internal/db.Conn.Query", "internal/db/db.go:13"),
    ("defines", "store.Base", "store.Base.Log", "store/store.go:16"),
    ("defines", "store.Store", "store.Store.Get", "store/methods.go:4"),
}


@pytest.fixture
def goapp(tmp_path: Path) -> Path:
    return indexed_copy(GOAPP, tmp_path / "goapp")


def test_goapp_nodes_and_edges_exactly(goapp: Path) -> None:
    assert_golden(goapp, NODES, EDGES, STRUCTURE)


def test_status_coverage_by_language(goapp: Path) -> None:
    cov = json.loads(invoke("status", "--json", cwd=goapp).stdout)["coverage"]
    got = {k: v["value"] for k, v in cov.items() if k.startswith("lang.")}
    assert got == {
        "lang.go.files": 5.0,  # go.mod included
        "lang.go.calls.total": 11.0,
        "lang.go.calls.stated": 9.0,
        "lang.go.calls.derived": 1.0,
        "lang.go.calls.unresolved_function": 1.0,  # fmt.Println: external
    }
    assert cov.get("conflict.duplicate_class", {"value": 0.0})["value"] == 0.0


def test_callers_of_a_method_declared_in_another_file(goapp: Path) -> None:
    out = json.loads(
        invoke(
            "query", "callers", "store.Store.Get", "--json", "--detail", "full", cwd=goapp
        ).stdout
    )
    stated = {s["symbol"]["fqn"] for s in out["result"]["stated"]}
    assert stated == {"cmd/app.main"}


def test_drift_scan_reports_changed_go_symbols(goapp: Path) -> None:
    cfg = config.load(goapp)
    assert run_scan(cfg).written == []
    edit(goapp, "store/methods.go", "return rows[0]", "return rows[len(rows)-1]")
    with (goapp / "store/methods.go").open("a") as fh:
        fh.write("\nfunc Count(g Getter) int {\n\treturn 0\n}\n")
    rep = run_scan(cfg)
    by = {e.path: e for e in rep.written}
    assert set(by) == {"store/methods.go"}
    assert json.loads(by["store/methods.go"].symbols_changed) == ["store.Store.Get"]
    assert json.loads(by["store/methods.go"].symbols_added) == ["store.Count"]


def test_go_chunks_and_repo_map(goapp: Path) -> None:
    f = registry.extract("store/store.go", "go", (GOAPP / "store/store.go").read_text(), 120)
    assert f.status == "ok"
    heads = [c.header for c in f.chunks if c.source_kind == "symbol"]
    assert any("store.New" in h for h in heads) and any("store.Store" in h for h in heads)
    out = json.loads(invoke("query", "repo_map", "--json", cwd=goapp).stdout)
    modules = {m["module"]: m for m in out["result"]["modules"]}
    assert set(modules) == {"cmd/app", "internal/db", "store"}
    shown = {s["fqn"] for m in modules.values() for f in m["files"] for s in f["symbols"]}
    assert {"store.Store", "store.Store.Get", "store.Getter", "internal/db.Open"} <= shown


def test_go_extraction_of_one_file_alone() -> None:
    """What a file says alone: a method of a type declared elsewhere is an extension,
    generics and closures bind no corpus type, a syntax error makes the file partial,
    ``go.mod`` gives its module path."""
    from ragraf.kinds import CLASS_EXTENSION
    from ragraf.lang.facts import CallRef, MethodCallRef

    text = (
        "package util\n\n"
        'import m "example.com/x/v2"\n\n'
        "// Max is generic.\n"
        "func Max[T any](a, b T) T {\n\treturn a\n}\n\n"
        "func (r *Ring) Next() *Ring {\n"
        "\tf := func(x int) int { return x }\n"
        "\tf(1)\n"
        "\tv := m.New()\n"
        "\tv.Run()\n"
        "\treturn r.next\n}\n"
    )
    f = registry.extract("pkg/util/a.go", "go", text, 120)
    assert f.status == "ok"
    assert [(n.kind, n.fqn) for n in f.nodes[1:]] == [
        ("function", "pkg/util.Max"),
        ("method", "pkg/util.Ring.Next"),
    ]
    (ext,) = f.classes
    assert ext.kind == CLASS_EXTENSION and ext.fqn == "pkg/util.Ring" and ext.node == 0
    assert ext.methods == {"Next": 2, "next": 2}
    calls = [r for r in f.refs if isinstance(r, (CallRef, MethodCallRef))]
    assert CallRef(2, 13, ("@example.com/x/v2#New",), "m.New") in calls
    assert (
        MethodCallRef(2, 14, Pending(Denotes.RETURN, ("example.com/x/v2", "New")), "Run") in calls
    )
    assert [t.kind for t in f.texts] == ["docblock"] and f.texts[0].owner == 1
    bad = registry.extract("pkg/util/b.go", "go", "package util\n\nfunc (\n", 120)
    assert bad.status == "partial" and bad.note == "syntax error near line 3"
    mod = registry.extract("go.mod", "go", "module example.com/x/v2\n\ngo 1.21\n", 120)
    assert mod.global_assigns == [("", Export(BindKind.MODULE, "example.com/x/v2"))]


def test_routes_of_net_http_gin_and_chi(tmp_path: Path) -> None:
    """net/http (Go 1.22 method patterns), gorilla/mux's .Methods, gin groups and chi's
    Route: routes to the named handler functions and methods."""
    from ragraf.indexing import indexer

    root = tmp_path / "svc"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/svc\n\ngo 1.22\n")
    (root / "main.go").write_text(
        'package main\n\nimport (\n\t"net/http"\n)\n\n'
        "type API struct{}\n\nfunc (a *API) Orders(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func health(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func listUsers(c any) {}\n\nfunc cancel(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func main() {\n\tapi := &API{}\n"
        '\thttp.HandleFunc("GET /health", health)\n'
        '\thttp.HandleFunc("/orders", api.Orders)\n'
        '\tr := newRouter()\n\tv1 := r.Group("/v1")\n\tadmin := v1.Group("/admin")\n'
        '\tv1.GET("/users", listUsers)\n\tadmin.POST("/users", listUsers)\n'
        '\tdyn := r.Group(base)\n\tdyn.GET("/q", health)\n'
        '\tm := newMux()\n\tm.HandleFunc("/cancel", cancel).Methods("POST", "PUT")\n'
        '\tc := newChi()\n\tc.Route("/api", func(c any) {\n\t\tc.Get("/ping", health)\n\t})\n'
        "}\n"
    )
    config.init_project(root)
    indexer.build(config.load(root))
    out = json.loads(invoke("query", "routes", "--json", cwd=root).stdout)["result"]["routes"]
    got = {(r["method"], r["route"]): sorted(h["fqn"] for h in r["handlers"]) for r in out}
    assert got == {
        ("GET", "/health"): ["main.health"],
        ("*", "/orders"): ["main.API.Orders"],
        ("GET", "/v1/users"): ["main.listUsers"],
        ("POST", "/v1/admin/users"): ["main.listUsers"],
        ("POST|PUT", "/cancel"): ["main.cancel"],
        ("GET", "/api/ping"): ["main.health"],
        ("GET", "{base}/q"): ["main.health"],  # a prefix built at run time is said so
    }


GOMUX_EDGES = {
    # Walk calls walk, the method of that exact name (not itself: keys differ by case)
    ("calls", "main.Router.Walk", "main.Router.walk", "router.go:14", "stated", 1.0),
    ("calls_heuristic", "main.Router.walk", "main.Router.walk", "router.go:18", "derived", 0.6),
    # functions differing by case only: NewThing calls newThing, stated
    ("calls", "main.NewThing", "main.newThing", "router.go:36", "stated", 1.0),
    # a name match respects case: v.url() is regexp.url, never Route.URL
    ("calls_heuristic", "main.build", "main.regexp.url", "router.go:32", "derived", 0.6),
    # a handler held in a variable, returned by a call, converted by http.HandlerFunc
    ("handles", "GET /api/items", "main.list", "routes.go:15", "derived", 0.6),
    ("handles", "* /api/names", "main.named", "routes.go:16", "derived", 0.6),
    ("handles", "* /api/wrapped", "main.list", "routes.go:17", "derived", 0.6),
    ("handles", "POST /inline", "main.register", "routes.go:18", "derived", 0.6),
    ("handles", "* /exact", "main.list", "routes.go:19", "derived", 0.6),
}


def test_gorilla_mux_routes_handlers_and_case(tmp_path: Path) -> None:
    """fixtures/gomux: PathPrefix / Path / Methods before Subrouter() give the prefix and
    methods of the routes registered on the subrouter (``http.MethodGet`` a method too);
    a handler held in a variable, returned by a call or converted is followed; one the
    file cannot name (a parameter) still makes the route; methods differing by case
    only are told apart (issue 40 section 4). Checked by hand against the sources."""
    root = indexed_copy(REPO / "fixtures" / "gomux", tmp_path / "gomux")
    nodes, edges, _struct = _graph(root)
    assert {n[1:4] for n in nodes if n[0] == "web_route"} == {
        ("GET /api/items", "routes.go", 15),
        ("* /api/names", "routes.go", 16),
        ("* /api/wrapped", "routes.go", 17),
        ("POST /inline", "routes.go", 18),
        ("* /exact", "routes.go", 19),
        ("* /param", "routes.go", 20),
    }
    got = {
        e
        for e in edges
        if e[0] in ("handles", "calls_heuristic")
        or e[2].lower() in ("main.router.walk", "main.newthing")
    }
    assert got == GOMUX_EDGES

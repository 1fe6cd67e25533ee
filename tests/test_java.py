"""Java, deep (issue 14): the golden fixture fixtures/javaapp (two packages, an abstract
class, an interface, an enum, a record, overloaded constructors with ``this(...)`` /
``super()``, single and on-demand imports, same-package classes without an import,
calls through typed fields, locals, parameters, an enhanced ``for``, ``var``, ``this``,
``new`` and an anonymous class), coverage by language, drift on an edited Java file.

The expected sets were checked by hand against the sources: every call is stated, to
the overload of its arity; ``System.out.println``, ``Runnable.run`` and ``Object.weight``
are external, ``super()`` of ``Invoice(int)`` links nothing (``Entity`` has only its
implicit constructor).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.kinds import Denotes
from ragraf.lang.typedesc import Pending
from ragraf.store.graph import GraphStore
from tests.helpers import REPO, invoke
from tests.test_drift import edit
from tests.test_python import assert_golden, indexed_copy

JAVAAPP = REPO / "fixtures" / "javaapp"

NODES = {
    ("class", "com.acme.model.Entity", "src/com/acme/model/Entity.java", 4, 12),
    ("class", "com.acme.model.Invoice", "src/com/acme/model/Invoice.java", 3, 35),
    ("class", "com.acme.model.Line", "src/com/acme/model/Line.java", 3, 7),
    ("class", "com.acme.service.Audit", "src/com/acme/service/Audit.java", 3, 7),
    ("class", "com.acme.service.Billing", "src/com/acme/service/Billing.java", 7, 41),
    ("class", "com.acme.service.Billing$1", "src/com/acme/service/Billing.java", 26, 30),
    ("class", "com.acme.service.MemRepo", "src/com/acme/service/MemRepo.java", 6, 11),
    ("class", "java.lang.Runnable", None, None, None),
    ("enum", "com.acme.model.Status", "src/com/acme/model/Status.java", 3, 10),
    ("file", "src/com/acme/model/Entity.java", "src/com/acme/model/Entity.java", 1, 12),
    ("file", "src/com/acme/model/Invoice.java", "src/com/acme/model/Invoice.java", 1, 35),
    ("file", "src/com/acme/model/Line.java", "src/com/acme/model/Line.java", 1, 7),
    ("file", "src/com/acme/model/Repo.java", "src/com/acme/model/Repo.java", 1, 5),
    ("file", "src/com/acme/model/Status.java", "src/com/acme/model/Status.java", 1, 10),
    ("file", "src/com/acme/service/Audit.java", "src/com/acme/service/Audit.java", 1, 7),
    ("file", "src/com/acme/service/Billing.java", "src/com/acme/service/Billing.java", 1, 41),
    ("file", "src/com/acme/service/MemRepo.java", "src/com/acme/service/MemRepo.java", 1, 11),
    ("interface", "com.acme.model.Repo", "src/com/acme/model/Repo.java", 3, 5),
    ("interface", "java.lang.Comparable", None, None, None),
    ("method", "com.acme.model.Entity.id", "src/com/acme/model/Entity.java", 11, 11),
    ("method", "com.acme.model.Entity.save", "src/com/acme/model/Entity.java", 7, 9),
    ("method", "com.acme.model.Invoice.Invoice", "src/com/acme/model/Invoice.java", 11, 13),
    ("method", "com.acme.model.Invoice.Invoice", "src/com/acme/model/Invoice.java", 6, 9),
    ("method", "com.acme.model.Invoice.compareTo", "src/com/acme/model/Invoice.java", 32, 34),
    ("method", "com.acme.model.Invoice.id", "src/com/acme/model/Invoice.java", 16, 18),
    ("method", "com.acme.model.Invoice.tax", "src/com/acme/model/Invoice.java", 28, 30),
    ("method", "com.acme.model.Invoice.total", "src/com/acme/model/Invoice.java", 20, 22),
    ("method", "com.acme.model.Invoice.total", "src/com/acme/model/Invoice.java", 24, 26),
    ("method", "com.acme.model.Line.weight", "src/com/acme/model/Line.java", 4, 6),
    ("method", "com.acme.model.Repo.store", "src/com/acme/model/Repo.java", 4, 4),
    ("method", "com.acme.model.Status.done", "src/com/acme/model/Status.java", 7, 9),
    ("method", "com.acme.service.Audit.log", "src/com/acme/service/Audit.java", 4, 6),
    ("method", "com.acme.service.Billing$1.run", "src/com/acme/service/Billing.java", 27, 29),
    ("method", "com.acme.service.Billing.Billing", "src/com/acme/service/Billing.java", 11, 13),
    ("method", "com.acme.service.Billing.charge", "src/com/acme/service/Billing.java", 15, 37),
    ("method", "com.acme.service.Billing.helper", "src/com/acme/service/Billing.java", 39, 40),
    ("method", "com.acme.service.MemRepo.store", "src/com/acme/service/MemRepo.java", 8, 10),
}
EDGES = {
    (
        "calls",
        "com.acme.model.Entity.save",
        "com.acme.model.Repo.store",
        "src/com/acme/model/Entity.java:8",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.model.Invoice.Invoice",
        "com.acme.model.Invoice.Invoice",
        "src/com/acme/model/Invoice.java:12",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.model.Invoice.compareTo",
        "com.acme.model.Invoice.total",
        "src/com/acme/model/Invoice.java:33",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.model.Invoice.total",
        "com.acme.model.Invoice.tax",
        "src/com/acme/model/Invoice.java:21",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.model.Invoice.total",
        "com.acme.model.Invoice.total",
        "src/com/acme/model/Invoice.java:25",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing$1.run",
        "com.acme.service.Audit.log",
        "src/com/acme/service/Billing.java:28",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Entity.save",
        "src/com/acme/service/Billing.java:17",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Invoice.Invoice",
        "src/com/acme/service/Billing.java:16",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Invoice.Invoice",
        "src/com/acme/service/Billing.java:35",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Invoice.total",
        "src/com/acme/service/Billing.java:19",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Invoice.total",
        "src/com/acme/service/Billing.java:35",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Line.weight",
        "src/com/acme/service/Billing.java:21",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.model.Status.done",
        "src/com/acme/service/Billing.java:24",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.service.Billing.helper",
        "src/com/acme/service/Billing.java:25",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.Billing.charge",
        "com.acme.service.MemRepo.store",
        "src/com/acme/service/Billing.java:33",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.MemRepo.store",
        "com.acme.model.Entity.id",
        "src/com/acme/service/MemRepo.java:9",
        "stated",
        1.0,
    ),
    (
        "calls",
        "com.acme.service.MemRepo.store",
        "com.acme.service.Audit.log",
        "src/com/acme/service/MemRepo.java:9",
        "stated",
        1.0,
    ),
    (
        "extends",
        "com.acme.model.Invoice",
        "com.acme.model.Entity",
        "src/com/acme/model/Invoice.java:3",
        "stated",
        1.0,
    ),
    (
        "extends",
        "com.acme.service.Billing$1",
        "java.lang.Runnable",
        "src/com/acme/service/Billing.java:26",
        "stated",
        1.0,
    ),
    (
        "implements",
        "com.acme.model.Invoice",
        "java.lang.Comparable",
        "src/com/acme/model/Invoice.java:3",
        "stated",
        1.0,
    ),
    (
        "implements",
        "com.acme.service.MemRepo",
        "com.acme.model.Repo",
        "src/com/acme/service/MemRepo.java:6",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/com/acme/service/MemRepo.java",
        "com.acme.model.Entity",
        "src/com/acme/service/MemRepo.java:3",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/com/acme/service/MemRepo.java",
        "com.acme.model.Repo",
        "src/com/acme/service/MemRepo.java:4",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "com.acme.service.Billing.charge",
        "com.acme.model.Invoice",
        "src/com/acme/service/Billing.java:16",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "com.acme.service.Billing.charge",
        "com.acme.model.Invoice",
        "src/com/acme/service/Billing.java:35",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "com.acme.service.Billing.charge",
        "com.acme.service.MemRepo",
        "src/com/acme/service/Billing.java:32",
        "stated",
        1.0,
    ),
    (
        "overrides",
        "com.acme.model.Invoice.id",
        "com.acme.model.Entity.id",
        "src/com/acme/model/Invoice.java:16",
        "stated",
        1.0,
    ),
    (
        "overrides",
        "com.acme.service.MemRepo.store",
        "com.acme.model.Repo.store",
        "src/com/acme/service/MemRepo.java:8",
        "stated",
        1.0,
    ),
}
STRUCTURE = {
    (
        "contains",
        "com.acme.model.Entity",
        "com.acme.model.Entity.id",
        "src/com/acme/model/Entity.java:11",
    ),
    (
        "contains",
        "com.acme.model.Entity",
        "com.acme.model.Entity.save",
        "src/com/acme/model/Entity.java:7",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.Invoice",
        "src/com/acme/model/Invoice.java:11",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.Invoice",
        "src/com/acme/model/Invoice.java:6",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.compareTo",
        "src/com/acme/model/Invoice.java:32",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.id",
        "src/com/acme/model/Invoice.java:16",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.tax",
        "src/com/acme/model/Invoice.java:28",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.total",
        "src/com/acme/model/Invoice.java:20",
    ),
    (
        "contains",
        "com.acme.model.Invoice",
        "com.acme.model.Invoice.total",
        "src/com/acme/model/Invoice.java:24",
    ),
    (
        "contains",
        "com.acme.model.Line",
        "com.acme.model.Line.weight",
        "src/com/acme/model/Line.java:4",
    ),
    (
        "contains",
        "com.acme.model.Repo",
        "com.acme.model.Repo.store",
        "src/com/acme/model/Repo.java:4",
    ),
    (
        "contains",
        "com.acme.model.Status",
        "com.acme.model.Status.done",
        "src/com/acme/model/Status.java:7",
    ),
    (
        "contains",
        "com.acme.service.Audit",
        "com.acme.service.Audit.log",
        "src/com/acme/service/Audit.java:4",
    ),
    (
        "contains",
        "com.acme.service.Billing",
        "com.acme.service.Billing.Billing",
        "src/com/acme/service/Billing.java:11",
    ),
    (
        "contains",
        "com.acme.service.Billing",
        "com.acme.service.Billing.charge",
        "src/com/acme/service/Billing.java:15",
    ),
    (
        "contains",
        "com.acme.service.Billing",
        "com.acme.service.Billing.helper",
        "src/com/acme/service/Billing.java:39",
    ),
    (
        "contains",
        "com.acme.service.Billing$1",
        "com.acme.service.Billing$1.run",
        "src/com/acme/service/Billing.java:27",
    ),
    (
        "contains",
        "com.acme.service.Billing.charge",
        "com.acme.service.Billing$1",
        "src/com/acme/service/Billing.java:26",
    ),
    (
        "contains",
        "com.acme.service.MemRepo",
        "com.acme.service.MemRepo.store",
        "src/com/acme/service/MemRepo.java:8",
    ),
    (
        "contains",
        "src/com/acme/model/Entity.java",
        "com.acme.model.Entity",
        "src/com/acme/model/Entity.java:4",
    ),
    (
        "contains",
        "src/com/acme/model/Invoice.java",
        "com.acme.model.Invoice",
        "src/com/acme/model/Invoice.java:3",
    ),
    (
        "contains",
        "src/com/acme/model/Line.java",
        "com.acme.model.Line",
        "src/com/acme/model/Line.java:3",
    ),
    (
        "contains",
        "src/com/acme/model/Repo.java",
        "com.acme.model.Repo",
        "src/com/acme/model/Repo.java:3",
    ),
    (
        "contains",
        "src/com/acme/model/Status.java",
        "com.acme.model.Status",
        "src/com/acme/model/Status.java:3",
    ),
    (
        "contains",
        "src/com/acme/service/Audit.java",
        "com.acme.service.Audit",
        "src/com/acme/service/Audit.java:3",
    ),
    (
        "contains",
        "src/com/acme/service/Billing.java",
        "com.acme.service.Billing",
        "src/com/acme/service/Billing.java:7",
    ),
    (
        "contains",
        "src/com/acme/service/MemRepo.java",
        "com.acme.service.MemRepo",
        "src/com/acme/service/MemRepo.java:6",
    ),
}


@pytest.fixture
def javaapp(tmp_path: Path) -> Path:
    return indexed_copy(JAVAAPP, tmp_path / "javaapp")


def test_javaapp_nodes_and_edges_exactly(javaapp: Path) -> None:
    assert_golden(javaapp, NODES, EDGES, STRUCTURE)


def test_overloads_are_told_apart_by_arity(javaapp: Path) -> None:
    """Overloads share an fqn: the callee of each call site is checked by its line."""
    layout = config.Layout(javaapp)
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        rows = g.db.query(
            "SELECT e.evidence_path, e.evidence_line, d.fqn, d.start_line FROM edge e"
            " JOIN node d ON d.node_id = e.dst WHERE e.kind = 'calls'"
            " AND d.fqn IN ('com.acme.model.Invoice.Invoice', 'com.acme.model.Invoice.total')"
        )
    finally:
        g.close()
    assert {(p.rsplit("/", 1)[-1], ln, fqn.rsplit(".", 1)[-1], at) for p, ln, fqn, at in rows} == {
        ("Invoice.java", 12, "Invoice", 6),  # this(0) -> Invoice(int)
        ("Billing.java", 16, "Invoice", 6),  # new Invoice(3)
        ("Billing.java", 35, "Invoice", 11),  # new Invoice()
        ("Billing.java", 35, "total", 24),  # .total(n) -> total(int)
        ("Billing.java", 19, "total", 20),  # last.total()
        ("Invoice.java", 25, "total", 20),  # total() inside total(int)
        ("Invoice.java", 33, "total", 20),  # o.total()
    }


def test_status_coverage_by_language(javaapp: Path) -> None:
    cov = json.loads(invoke("status", "--json", cwd=javaapp).stdout)["coverage"]
    got = {k: v["value"] for k, v in cov.items() if k.startswith("lang.")}
    assert got == {
        "lang.java.files": 8.0,
        "lang.java.calls.total": 22.0,
        "lang.java.calls.stated": 18.0,
        # System.out.println, Runnable.run, Object.weight, the anonymous Runnable's
        # constructor; super() of Invoice(int) is none (Entity declares no constructor)
        "lang.java.calls.external": 4.0,
    }


def test_callers_through_an_inherited_method(javaapp: Path) -> None:
    out = json.loads(
        invoke(
            "query",
            "callers",
            "com.acme.model.Entity.save",
            "--json",
            "--detail",
            "full",
            cwd=javaapp,
        ).stdout
    )
    stated = {s["symbol"]["fqn"] for s in out["result"]["stated"]}
    assert stated == {"com.acme.service.Billing.charge"}


def test_drift_scan_reports_changed_java_symbols(javaapp: Path) -> None:
    cfg = config.load(javaapp)
    assert run_scan(cfg).written == []
    path = "src/com/acme/model/Invoice.java"
    edit(javaapp, path, "        return 0;\n", "        return 1;\n")
    edit(
        javaapp,
        path,
        "    int tax() {",
        "    int fee() {\n        return 2;\n    }\n\n    int tax() {",
    )
    rep = run_scan(cfg)
    by = {e.path: e for e in rep.written}
    assert set(by) == {path}
    assert json.loads(by[path].symbols_changed) == ["com.acme.model.Invoice.tax"]
    assert json.loads(by[path].symbols_added) == ["com.acme.model.Invoice.fee"]


def test_java_extraction_of_one_file_alone() -> None:
    """Annotation types and their elements, a generic method, a lambda, a static import,
    a declaration starting after its annotations, a syntax error making the file partial."""
    from ragraf.lang import registry
    from ragraf.lang.facts import MethodCallRef

    text = (
        "package p;\n\n"
        "import static q.U.help;\n\n"
        '@interface Tag {\n    String value() default "";\n}\n\n'
        "class G {\n"
        "    @Deprecated\n"
        "    static <T> T first(java.util.List<T> xs) {\n"
        "        Runnable r = () -> help(1);\n"
        "        return xs.get(0);\n"
        "    }\n"
        "}\n"
    )
    f = registry.extract("p/G.java", "java", text, 120)
    assert f.status == "ok"
    assert [(n.kind, n.fqn, n.start_line) for n in f.nodes[1:]] == [
        ("interface", "p.Tag", 5),
        ("method", "p.Tag.value", 6),
        ("class", "p.G", 9),
        ("method", "p.G.first", 11),
    ]
    calls = [r for r in f.refs if isinstance(r, MethodCallRef)]
    assert MethodCallRef(4, 12, Pending(Denotes.INSTANCE, ("q.U",)), "help(1:int)") in calls
    assert any(c.method == "get(1:int)" and c.line == 13 for c in calls)
    bad = registry.extract("p/B.java", "java", "class B { void m( }\n", 120)
    assert bad.status == "partial"


def test_routes_of_spring_and_jaxrs(tmp_path: Path) -> None:
    """Spring's @GetMapping / @RequestMapping (after the class's @RequestMapping) and
    JAX-RS's @Path with @GET are routes to their methods."""
    from ragraf.indexing import indexer

    root = tmp_path / "svc"
    src = root / "src/main/java/com/acme"
    src.mkdir(parents=True)
    (src / "UserController.java").write_text(
        "package com.acme;\n"
        '@RestController\n@RequestMapping("/api/users")\npublic class UserController {\n'
        '  @GetMapping("/{id}")\n  public String get(@PathVariable Long id) { return ""; }\n'
        '  @PostMapping\n  public String create() { return ""; }\n'
        '  @RequestMapping(value = "/search", method = {RequestMethod.GET, RequestMethod.POST})\n'
        "  public void search() {}\n"
        '  @GetMapping(path = {"/a", "/b"})\n  public void two() {}\n'
        "  public void helper() {}\n}\n"
    )
    (src / "Orders.java").write_text(
        'package com.acme;\n@Path("/orders")\npublic class Orders {\n'
        '  @GET\n  public String all() { return ""; }\n'
        '  @POST @Path("/{id}/cancel")\n  public void cancel() {}\n}\n'
    )
    config.init_project(root)
    indexer.build(config.load(root))
    out = json.loads(invoke("query", "routes", "--json", cwd=root).stdout)["result"]["routes"]
    got = {(r["method"], r["route"]): sorted(h["fqn"] for h in r["handlers"]) for r in out}
    assert got == {
        ("GET", "/api/users/{id}"): ["com.acme.UserController.get"],
        ("POST", "/api/users"): ["com.acme.UserController.create"],
        ("GET|POST", "/api/users/search"): ["com.acme.UserController.search"],
        ("GET", "/api/users/a"): ["com.acme.UserController.two"],
        ("GET", "/api/users/b"): ["com.acme.UserController.two"],
        ("GET", "/orders"): ["com.acme.Orders.all"],
        ("POST", "/orders/{id}/cancel"): ["com.acme.Orders.cancel"],
    }


def test_overloads_of_one_arity_are_told_apart_by_argument_types(tmp_path: Path) -> None:
    """fixtures/javaover (issue 40 section 4): overloads of one arity are chosen by the
    argument types the file knows (a field's, a parameter's, what a method of the file
    returns, ``getMessage()`` / ``String.format`` / a concatenation: a String), stated
    when one fits; a ``null`` argument fits both: derived to each. By hand from the
    sources: exec(Input, Options, Module) is line 10, exec(..., Map) line 14; Fail(String)
    line 4, Fail(Throwable) line 6, Fail(String, Throwable) line 8."""
    root = indexed_copy(REPO / "fixtures" / "javaover", tmp_path / "javaover")
    layout = config.Layout(root)
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        rows = g.db.query(
            "SELECT e.kind, e.evidence_line, d.name, d.start_line FROM edge e"
            " JOIN node d ON d.node_id = e.dst WHERE e.kind LIKE 'calls%'"
            " AND d.name IN ('exec', 'Fail')"
        )
    finally:
        g.close()
    assert set(rows) == {
        ("calls", 23, "exec", 10),  # exec(in, OPTIONS, module): a Module field
        ("calls", 24, "exec", 14),  # exec(in, OPTIONS, g): a Map parameter
        ("calls", 25, "exec", 10),  # exec(in, OPTIONS, current()): current() returns Module
        ("calls_heuristic", 26, "exec", 10),  # exec(in, OPTIONS, null): either
        ("calls_heuristic", 26, "exec", 14),
        ("calls", 30, "Fail", 4),  # new Fail(e.getMessage())
        ("calls", 31, "Fail", 6),  # new Fail(e): an IOException is no String
        ("calls", 32, "Fail", 8),  # new Fail("at " + 1, e)
        ("calls", 33, "Fail", 4),  # new Fail(String.format(...))
    }


def test_routes_of_real_spring_and_jaxrs_constructs(tmp_path: Path) -> None:
    """fixtures/javaroutes (issue 40 section 4): what Debian's libspring-java 4.3.30, jersey1
    1.19.3 and resteasy3.0 3.0.26 sources write, read by hand: escapes in a path template
    (``"{id: \\\\d+}"`` is ``{id: \\d+}``), ``@GET()``, qualified verbs, a verb annotation
    type of the file (``@HttpMethod``), constants of the file in ``@Path`` (``PATH +
    "/x"``, ``Outer.ROOT``, parentheses; another file's stays ``{expression}``), Spring's
    class-level ``method`` and a composed annotation of the file; a sub-resource locator
    (``@Path`` without a verb) is no route."""
    root = indexed_copy(REPO / "fixtures" / "javaroutes", tmp_path / "javaroutes")
    out = json.loads(invoke("query", "routes", "--json", cwd=root).stdout)["result"]["routes"]
    got = {(r["method"], r["route"]): sorted(h["fqn"] for h in r["handlers"]) for r in out}
    assert got == {
        ("GET", "/digits/{id: \\d+}"): ["org.acme.Digits.byId"],
        ("GET", "/digits/hello"): ["org.acme.Digits.hello"],
        ("DELETE", "/digits"): ["org.acme.Digits.remove"],
        ("PATCH", "/digits/patch"): ["org.acme.Digits.patch"],
        ("GOTOSLEEP", "/digits"): ["org.acme.Digits.sleep"],
        ("GET", "/dispatch/inner/basic"): ["org.acme.Dispatcher.basic"],
        ("GET", "/dispatch/json"): ["org.acme.Dispatcher.json"],
        ("POST", "/dispatch/{Elsewhere.CONST}/x"): ["org.acme.Dispatcher.elsewhere"],
        ("GET", "/client/inner/forward"): ["org.acme.Dispatcher.Client.forward"],
        ("GET", "/emptyParameterListHandler"): [
            "org.acme.Controllers.EmptyParameterListController.emptyParameterListHandler"
        ],
        ("*", "/{root:\\d+}"): ["org.acme.Controllers.CustomRegexController.handle"],
        ("POST", "/postJson"): ["org.acme.Controllers.CustomRegexController.postJson"],
    }

"""Python, deep (issue 14): the golden fixture fixtures/pyapp (a package with relative
imports, an ``__init__`` re-export, classes, inheritance and ``super()``, a decorator, a
``classmethod`` instantiating through ``cls``, module-alias calls, attributes typed by
annotation and by ``self.x = Foo()`` in ``__init__``, a nested function, SQL in a string),
drift on an edited Python file, coverage by language, and this project indexing its own
source.

The expected sets were checked by hand against the sources: every call below is stated
(resolved through imports, the class hierarchy or types) except ``job.charge(1)`` on an
untyped parameter (a name match, derived); builtins and ``json.dumps`` are external.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.indexing import indexer
from tests.helpers import REPO, invoke
from tests.test_drift import edit, git
from tests.test_pilot_golden import _graph

PYAPP = REPO / "fixtures" / "pyapp"

NODES = {
    ("class", "app.base.Model", "app/base.py", 1, 10),
    ("class", "app.db.Database", "app/db.py", 1, 3),
    ("class", "app.models.Invoice", "app/models.py", 11, 32),
    ("class", "app.service.Billing", "app/service.py", 6, 19),
    ("file", "app/__init__.py", "app/__init__.py", 1, 4),
    ("file", "app/base.py", "app/base.py", 1, 10),
    ("file", "app/db.py", "app/db.py", 1, 3),
    ("file", "app/models.py", "app/models.py", 1, 32),
    ("file", "app/service.py", "app/service.py", 1, 19),
    ("file", "app/util.py", "app/util.py", 1, 5),
    ("file", "main.py", "main.py", 1, 16),
    ("function", "app.models.audited", "app/models.py", 6, 8),
    ("function", "app.service.Billing.charge.helper", "app/service.py", 16, 17),
    ("function", "app.util.fmt", "app/util.py", 4, 5),
    ("function", "main.main", "main.py", 5, 8),
    ("function", "main.run", "main.py", 11, 12),
    ("method", "app.base.Model.__init__", "app/base.py", 2, 3),
    ("method", "app.base.Model.log", "app/base.py", 9, 10),
    ("method", "app.base.Model.save", "app/base.py", 5, 7),
    ("method", "app.db.Database.query", "app/db.py", 2, 3),
    ("method", "app.models.Invoice.__init__", "app/models.py", 14, 16),
    ("method", "app.models.Invoice.create", "app/models.py", 29, 32),
    ("method", "app.models.Invoice.save", "app/models.py", 25, 26),
    ("method", "app.models.Invoice.tax", "app/models.py", 22, 23),
    ("method", "app.models.Invoice.total", "app/models.py", 19, 20),
    ("method", "app.service.Billing.__init__", "app/service.py", 9, 10),
    ("method", "app.service.Billing.charge", "app/service.py", 12, 19),
    ("module", "app.base", "app/base.py", 1, 10),
    ("module", "app.db", "app/db.py", 1, 3),
    ("module", "app.models", "app/models.py", 1, 32),
    ("module", "app.service", "app/service.py", 1, 19),
    ("module", "app.util", "app/util.py", 1, 5),
    ("module", "main", "main.py", 1, 16),
    ("package", "app", "app/__init__.py", 1, 4),
    ("sql_literal", "app.service.Billing.charge#sql@14", "app/service.py", 14, 14),
    # no schema in the corpus: the table the SQL names is a db_table of source code (issue 12)
    ("db_table", "invoices", "app/service.py", 14, 14),
}
EDGES = {
    ("calls", "app.base.Model.save", "app.base.Model.log", "app/base.py:7", "stated", 1.0),
    ("calls", "app.models.Invoice", "app.models.audited", "app/models.py:18", "stated", 1.0),
    (
        "calls",
        "app.models.Invoice.__init__",
        "app.base.Model.__init__",
        "app/models.py:15",
        "stated",
        1.0,
    ),
    (
        "calls",
        "app.models.Invoice.create",
        "app.models.Invoice.__init__",
        "app/models.py:30",
        "stated",
        1.0,
    ),
    (
        "calls",
        "app.models.Invoice.create",
        "app.models.Invoice.save",
        "app/models.py:31",
        "stated",
        1.0,
    ),
    ("calls", "app.models.Invoice.save", "app.base.Model.save", "app/models.py:26", "stated", 1.0),
    (
        "calls",
        "app.models.Invoice.total",
        "app.models.Invoice.tax",
        "app/models.py:20",
        "stated",
        1.0,
    ),
    (
        "calls",
        "app.service.Billing.charge",
        "app.db.Database.query",
        "app/service.py:14",
        "stated",
        1.0,
    ),
    # no schema: the SQL's table is known from code only, so its links are derived (issue 12)
    ("queries", "app.service.Billing.charge", "invoices", "app/service.py:14", "derived", 0.4),
    (
        "references_table",
        "app.service.Billing.charge#sql@14",
        "invoices",
        "app/service.py:14",
        "derived",
        0.4,
    ),
    (
        "calls",
        "app.service.Billing.charge",
        "app.models.Invoice.create",
        "app/service.py:13",
        "stated",
        1.0,
    ),
    (
        "calls",
        "app.service.Billing.charge",
        "app.models.Invoice.total",
        "app/service.py:19",
        "stated",
        1.0,
    ),
    (
        "calls",
        "app.service.Billing.charge",
        "app.service.Billing.charge.helper",
        "app/service.py:19",
        "stated",
        1.0,
    ),
    (
        "calls",
        "app.service.Billing.charge.helper",
        "app.util.fmt",
        "app/service.py:17",
        "stated",
        1.0,
    ),
    ("calls", "main.main", "app.service.Billing.__init__", "main.py:6", "stated", 1.0),
    ("calls", "main.main", "app.service.Billing.charge", "main.py:7", "stated", 1.0),
    ("calls", "main.main", "app.util.fmt", "main.py:8", "stated", 1.0),
    ("calls", "main.py", "main.main", "main.py:16", "stated", 1.0),
    ("calls_heuristic", "main.run", "app.service.Billing.charge", "main.py:12", "derived", 0.6),
    ("extends", "app.models.Invoice", "app.base.Model", "app/models.py:11", "stated", 1.0),
    ("imports", "app/__init__.py", "app.models.Invoice", "app/__init__.py:3", "stated", 1.0),
    ("imports", "app/__init__.py", "app/util.py", "app/__init__.py:4", "stated", 1.0),
    ("imports", "app/models.py", "app.base.Model", "app/models.py:3", "stated", 1.0),
    ("imports", "app/service.py", "app.db.Database", "app/service.py:3", "stated", 1.0),
    ("imports", "app/service.py", "app.models.Invoice", "app/service.py:1", "stated", 1.0),
    ("imports", "app/service.py", "app/util.py", "app/service.py:2", "stated", 1.0),
    ("imports", "main.py", "app.service.Billing", "main.py:2", "stated", 1.0),
    ("imports", "main.py", "app/util.py", "main.py:1", "stated", 1.0),
    (
        "instantiates",
        "app.models.Invoice.create",
        "app.models.Invoice",
        "app/models.py:30",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "app.service.Billing.__init__",
        "app.db.Database",
        "app/service.py:10",
        "stated",
        1.0,
    ),
    ("instantiates", "main.main", "app.service.Billing", "main.py:6", "stated", 1.0),
    (
        "overrides",
        "app.models.Invoice.save",
        "app.base.Model.save",
        "app/models.py:25",
        "stated",
        1.0,
    ),
}
STRUCTURE = {
    ("contains", "app", "app.base", "app/__init__.py:1"),
    ("contains", "app", "app.db", "app/__init__.py:1"),
    ("contains", "app", "app.models", "app/__init__.py:1"),
    ("contains", "app", "app.service", "app/__init__.py:1"),
    ("contains", "app", "app.util", "app/__init__.py:1"),
    ("contains", "app.base.Model", "app.base.Model.__init__", "app/base.py:2"),
    ("contains", "app.base.Model", "app.base.Model.log", "app/base.py:9"),
    ("contains", "app.base.Model", "app.base.Model.save", "app/base.py:5"),
    ("contains", "app.db.Database", "app.db.Database.query", "app/db.py:2"),
    ("contains", "app.models.Invoice", "app.models.Invoice.__init__", "app/models.py:14"),
    ("contains", "app.models.Invoice", "app.models.Invoice.create", "app/models.py:29"),
    ("contains", "app.models.Invoice", "app.models.Invoice.save", "app/models.py:25"),
    ("contains", "app.models.Invoice", "app.models.Invoice.tax", "app/models.py:22"),
    ("contains", "app.models.Invoice", "app.models.Invoice.total", "app/models.py:19"),
    ("contains", "app.service.Billing", "app.service.Billing.__init__", "app/service.py:9"),
    ("contains", "app.service.Billing", "app.service.Billing.charge", "app/service.py:12"),
    (
        "contains",
        "app.service.Billing.charge",
        "app.service.Billing.charge#sql@14",
        "app/service.py:14",
    ),
    (
        "contains",
        "app.service.Billing.charge",
        "app.service.Billing.charge.helper",
        "app/service.py:16",
    ),
    ("contains", "app/__init__.py", "app", "app/__init__.py:1"),
    ("contains", "app/base.py", "app.base", "app/base.py:1"),
    ("contains", "app/base.py", "app.base.Model", "app/base.py:1"),
    ("contains", "app/db.py", "app.db", "app/db.py:1"),
    ("contains", "app/db.py", "app.db.Database", "app/db.py:1"),
    ("contains", "app/models.py", "app.models", "app/models.py:1"),
    ("contains", "app/models.py", "app.models.Invoice", "app/models.py:11"),
    ("contains", "app/models.py", "app.models.audited", "app/models.py:6"),
    ("contains", "app/service.py", "app.service", "app/service.py:1"),
    ("contains", "app/service.py", "app.service.Billing", "app/service.py:6"),
    ("contains", "app/util.py", "app.util", "app/util.py:1"),
    ("contains", "app/util.py", "app.util.fmt", "app/util.py:4"),
    ("contains", "main.py", "main", "main.py:1"),
    ("contains", "main.py", "main.main", "main.py:5"),
    ("contains", "main.py", "main.run", "main.py:11"),
    ("defines", "app.base", "app.base.Model", "app/base.py:1"),
    ("defines", "app.db", "app.db.Database", "app/db.py:1"),
    ("defines", "app.models", "app.models.Invoice", "app/models.py:11"),
    ("defines", "app.models", "app.models.audited", "app/models.py:6"),
    ("defines", "app.service", "app.service.Billing", "app/service.py:6"),
    ("defines", "app.util", "app.util.fmt", "app/util.py:4"),
    ("defines", "main", "main.main", "main.py:5"),
    ("defines", "main", "main.run", "main.py:11"),
}


def indexed_copy(fixture: Path, root: Path) -> Path:
    """A golden fixture copied to ``root``, committed to a fresh git repository and
    indexed (no vectors); the build must be clean."""
    shutil.copytree(fixture, root, ignore=shutil.ignore_patterns(".ragraf", "__pycache__"))
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".ragraf/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", root.name)
    config.init_project(root)
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.warnings == []
    return root


def assert_golden(root: Path, nodes: set[tuple], edges: set[tuple], struct: set[tuple]) -> None:
    """The index of ``root`` has exactly these nodes, edges and structure edges."""
    got_nodes, got_edges, got_struct = _graph(root)
    assert got_nodes == nodes
    assert got_edges - edges == set(), "unexpected edges"
    assert edges - got_edges == set(), "missing edges"
    assert got_struct == struct


@pytest.fixture
def pyapp(tmp_path: Path) -> Path:
    return indexed_copy(PYAPP, tmp_path / "pyapp")


def test_pyapp_nodes_and_edges_exactly(pyapp: Path) -> None:
    assert_golden(pyapp, NODES, EDGES, STRUCTURE)


def test_status_coverage_by_language(pyapp: Path) -> None:
    cov = json.loads(invoke("status", "--json", cwd=pyapp).stdout)["coverage"]
    got = {k: v["value"] for k, v in cov.items() if k.startswith("lang.")}
    # external: print x2, super() x2, classmethod, json.dumps
    assert got == {
        "lang.python.files": 7.0,
        "lang.python.calls.total": 23.0,
        "lang.python.calls.stated": 16.0,
        "lang.python.calls.derived": 1.0,
        "lang.python.calls.unresolved_function": 6.0,
    }
    assert cov["calls.stated"]["value"] == 16.0


def test_callers_through_a_reexport_are_stated(pyapp: Path) -> None:
    out = json.loads(
        invoke(
            "query", "callers", "app.models.Invoice.create", "--json", "--detail", "full", cwd=pyapp
        ).stdout
    )
    stated = {s["symbol"]["fqn"] for s in out["result"]["stated"]}
    assert stated == {"app.service.Billing.charge"}


def test_drift_scan_reports_changed_python_symbols(pyapp: Path) -> None:
    cfg = config.load(pyapp)
    assert run_scan(cfg).written == []
    edit(pyapp, "app/models.py", "        return 0\n", "        return 1\n")
    edit(pyapp, "app/util.py", "    return json.dumps", "    return str(amount) or json.dumps")
    with (pyapp / "app/util.py").open("a") as fh:
        fh.write("\n\ndef parse(text: str) -> int:\n    return int(text)\n")
    rep = run_scan(cfg)
    by = {e.path: e for e in rep.written}
    assert set(by) == {"app/models.py", "app/util.py"}
    assert json.loads(by["app/models.py"].symbols_changed) == ["app.models.Invoice.tax"]
    assert json.loads(by["app/util.py"].symbols_changed) == ["app.util.fmt"]
    assert json.loads(by["app/util.py"].symbols_added) == ["app.util.parse"]


@pytest.mark.slow
def test_the_project_indexes_its_own_source(tmp_path: Path) -> None:
    """`ragraf index` on a copy of this project's ragraf/ (vectors off), then `callers` of
    one of its functions: a known caller is stated, through a plain module-level call."""
    root = tmp_path / "self"
    shutil.copytree(REPO / "ragraf", root / "ragraf", ignore=shutil.ignore_patterns("__pycache__"))
    config.init_project(root)
    res = invoke("index", "--no-vectors", cwd=root)
    assert res.exit_code == 0, res.stderr
    assert "files selected" not in res.stderr
    out = json.loads(
        invoke(
            "query",
            "callers",
            "ragraf.lang.registry.language_of",
            "--json",
            "--detail",
            "full",
            cwd=root,
        ).stdout
    )
    stated = {s["symbol"]["fqn"] for s in out["result"]["stated"]}
    assert "ragraf.lang.registry.lang_of" in stated  # `lang = language_of(path)`
    # a caller in another module, through `from ragraf.lang.registry import lang_of`
    out = json.loads(
        invoke(
            "query",
            "callers",
            "ragraf.lang.registry.lang_of",
            "--json",
            "--detail",
            "full",
            cwd=root,
        ).stdout
    )
    assert "ragraf.corpus.scan" in {s["symbol"]["fqn"] for s in out["result"]["stated"]}

"""JavaScript / TypeScript, deep (issue 14): the golden fixture fixtures/jsapp (an ES module
with a default-exported object literal, a CommonJS module with ``module.exports = {...}``,
TypeScript interfaces extending each other and an abstract class, a class that extends and
implements imported types, ``super``, ``this.``, ``new``, a return type carrying the type of a
call's result, a barrel ``index.ts`` with ``export *`` and ``export {a as b} from``,
``require`` of a folder (``./models`` -> ``models/index.ts``), namespace and default imports,
Express routes, a TSX component rendered by another), drift on an edited JavaScript file,
coverage by language.

The expected sets were checked by hand against the sources: every call below is stated
(resolved through imports, re-exports, the class hierarchy or types) except ``job.bill(...)``
on an untyped parameter (a name match, derived); ``express``, ``console.log``, ``String``,
methods of parameters and of builtin values are external.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.indexing import indexer
from ragraf.lang import registry
from tests.helpers import REPO, invoke
from tests.test_drift import edit, git
from tests.test_pilot_golden import _graph

JSAPP = REPO / "fixtures" / "jsapp"

NODES = {
    ("class", "src/index.Service", "src/index.js", 6, 15),
    ("class", "src/models/base.Base", "src/models/base.ts", 9, 19),
    ("class", "src/models/invoice.Invoice", "src/models/invoice.ts", 5, 33),
    ("file", "package.json", "package.json", 1, 5),  # a manifest: where `jsapp` leads
    ("file", "src/index.js", "src/index.js", 1, 21),
    ("file", "src/legacy.cjs", "src/legacy.cjs", 1, 11),
    ("file", "src/models/base.ts", "src/models/base.ts", 1, 19),
    ("file", "src/models/index.ts", "src/models/index.ts", 1, 3),
    ("file", "src/models/invoice.ts", "src/models/invoice.ts", 1, 33),
    ("file", "src/server.js", "src/server.js", 1, 23),
    ("file", "src/ui/Button.tsx", "src/ui/Button.tsx", 1, 10),
    ("file", "src/util.mjs", "src/util.mjs", 1, 17),
    ("function", "src/index.run", "src/index.js", 17, 19),
    ("function", "src/legacy.label", "src/legacy.cjs", 7, 9),
    ("function", "src/legacy.pad", "src/legacy.cjs", 3, 5),
    ("function", "src/server.health", "src/server.js", 18, 20),
    ("function", "src/server.listInvoices", "src/server.js", 10, 12),
    ("function", "src/ui/Button.Button", "src/ui/Button.tsx", 6, 8),
    ("function", "src/ui/Button.Total", "src/ui/Button.tsx", 10, 10),
    ("function", "src/util.double", "src/util.mjs", 6, 6),
    ("function", "src/util.fmt", "src/util.mjs", 2, 4),
    ("interface", "src/models/base.Billable", "src/models/base.ts", 5, 7),
    ("interface", "src/models/base.Named", "src/models/base.ts", 1, 3),
    ("method", "src/index.Service.bill", "src/index.js", 11, 14),
    ("method", "src/index.Service.constructor", "src/index.js", 7, 9),
    ("method", "src/models/base.Base.constructor", "src/models/base.ts", 10, 10),
    ("method", "src/models/base.Base.log", "src/models/base.ts", 16, 18),
    ("method", "src/models/base.Base.save", "src/models/base.ts", 12, 14),
    ("method", "src/models/base.Billable.total", "src/models/base.ts", 6, 6),
    ("method", "src/models/base.Named.name", "src/models/base.ts", 2, 2),
    ("method", "src/models/invoice.Invoice.constructor", "src/models/invoice.ts", 8, 10),
    ("method", "src/models/invoice.Invoice.create", "src/models/invoice.ts", 28, 32),
    ("method", "src/models/invoice.Invoice.describe", "src/models/invoice.ts", 24, 26),
    ("method", "src/models/invoice.Invoice.name", "src/models/invoice.ts", 12, 14),
    ("method", "src/models/invoice.Invoice.save", "src/models/invoice.ts", 20, 22),
    ("method", "src/models/invoice.Invoice.total", "src/models/invoice.ts", 16, 18),
    ("method", "src/util.helpers.trim", "src/util.mjs", 9, 11),
    ("method", "src/util.helpers.upper", "src/util.mjs", 12, 14),
    ("module", "src/index", "src/index.js", 1, 21),
    ("module", "src/legacy", "src/legacy.cjs", 1, 11),
    ("module", "src/models/base", "src/models/base.ts", 1, 19),
    ("module", "src/models/index", "src/models/index.ts", 1, 3),
    ("module", "src/models/invoice", "src/models/invoice.ts", 1, 33),
    ("module", "src/server", "src/server.js", 1, 23),
    ("module", "src/ui/Button", "src/ui/Button.tsx", 1, 10),
    ("module", "src/util", "src/util.mjs", 1, 17),
    ("web_route", "GET /health", "src/server.js", 18, 18),
    ("web_route", "GET /invoices", "src/server.js", 14, 14),
    ("web_route", "POST /invoices/:id", "src/server.js", 15, 15),
}
EDGES = {
    ("calls", "src/index.Service.bill", "src/legacy.label", "src/index.js:13", "stated", 1.0),
    (
        "calls",
        "src/index.Service.bill",
        "src/models/invoice.Invoice.create",
        "src/index.js:12",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/index.Service.bill",
        "src/models/invoice.Invoice.describe",
        "src/index.js:13",
        "stated",
        1.0,
    ),
    ("calls", "src/index.run", "src/legacy.pad", "src/index.js:18", "stated", 1.0),
    ("calls", "src/legacy.label", "src/legacy.pad", "src/legacy.cjs:8", "stated", 1.0),
    (
        "calls",
        "src/models/base.Base.save",
        "src/models/base.Base.log",
        "src/models/base.ts:13",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.constructor",
        "src/models/base.Base.constructor",
        "src/models/invoice.ts:9",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.create",
        "src/models/invoice.Invoice.constructor",
        "src/models/invoice.ts:29",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.create",
        "src/models/invoice.Invoice.save",
        "src/models/invoice.ts:30",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.describe",
        "src/models/invoice.Invoice.total",
        "src/models/invoice.ts:25",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.describe",
        "src/util.double",
        "src/models/invoice.ts:25",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.describe",
        "src/util.fmt",
        "src/models/invoice.ts:25",
        "stated",
        1.0,
    ),
    (
        "calls",
        "src/models/invoice.Invoice.save",
        "src/models/base.Base.save",
        "src/models/invoice.ts:21",
        "stated",
        1.0,
    ),
    ("calls", "src/server.js", "src/index.Service.bill", "src/server.js:16", "stated", 1.0),
    ("calls", "src/server.js", "src/index.Service.constructor", "src/server.js:8", "stated", 1.0),
    ("calls", "src/server.health", "src/util.helpers.trim", "src/server.js:19", "stated", 1.0),
    ("calls", "src/server.listInvoices", "src/util.fmt", "src/server.js:11", "stated", 1.0),
    ("calls", "src/ui/Button.Button", "src/util.fmt", "src/ui/Button.tsx:7", "stated", 1.0),
    ("calls", "src/ui/Button.Total", "src/ui/Button.Button", "src/ui/Button.tsx:10", "stated", 1.0),
    ("calls", "src/util.helpers.upper", "src/util.fmt", "src/util.mjs:13", "stated", 1.0),
    (
        "calls_heuristic",
        "src/index.run",
        "src/index.Service.bill",
        "src/index.js:18",
        "derived",
        0.6,
    ),
    (
        "extends",
        "src/models/base.Billable",
        "src/models/base.Named",
        "src/models/base.ts:5",
        "stated",
        1.0,
    ),
    (
        "extends",
        "src/models/invoice.Invoice",
        "src/models/base.Base",
        "src/models/invoice.ts:5",
        "stated",
        1.0,
    ),
    ("handles", "GET /health", "src/server.health", "src/server.js:18", "derived", 0.6),
    ("handles", "GET /invoices", "src/server.listInvoices", "src/server.js:14", "derived", 0.6),
    ("handles", "POST /invoices/:id", "src/server.js", "src/server.js:15", "derived", 0.6),
    (
        "implements",
        "src/models/invoice.Invoice",
        "src/models/base.Billable",
        "src/models/invoice.ts:5",
        "stated",
        1.0,
    ),
    ("imports", "src/index.js", "src/legacy.cjs", "src/index.js:3", "stated", 1.0),
    ("imports", "src/index.js", "src/legacy.cjs", "src/index.js:4", "stated", 1.0),
    ("imports", "src/index.js", "src/models/index.ts", "src/index.js:2", "stated", 1.0),
    (
        "imports",
        "src/models/index.ts",
        "src/models/base.Base",
        "src/models/index.ts:2",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/models/index.ts",
        "src/models/base.Billable",
        "src/models/index.ts:3",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/models/index.ts",
        "src/models/invoice.ts",
        "src/models/index.ts:1",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/models/invoice.ts",
        "src/models/base.Base",
        "src/models/invoice.ts:1",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/models/invoice.ts",
        "src/models/base.Billable",
        "src/models/invoice.ts:1",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/models/invoice.ts",
        "src/util.double",
        "src/models/invoice.ts:2",
        "stated",
        1.0,
    ),
    ("imports", "src/models/invoice.ts", "src/util.fmt", "src/models/invoice.ts:2", "stated", 1.0),
    ("imports", "src/server.js", "src/index.Service", "src/server.js:4", "stated", 1.0),
    ("imports", "src/server.js", "src/util.mjs", "src/server.js:2", "stated", 1.0),
    ("imports", "src/server.js", "src/util.mjs", "src/server.js:3", "stated", 1.0),
    ("imports", "src/ui/Button.tsx", "src/util.fmt", "src/ui/Button.tsx:2", "stated", 1.0),
    (
        "instantiates",
        "src/models/invoice.Invoice.create",
        "src/models/invoice.Invoice",
        "src/models/invoice.ts:29",
        "stated",
        1.0,
    ),
    ("instantiates", "src/server.js", "src/index.Service", "src/server.js:8", "stated", 1.0),
    (
        "overrides",
        "src/models/invoice.Invoice.name",
        "src/models/base.Named.name",
        "src/models/invoice.ts:12",
        "stated",
        1.0,
    ),
    (
        "overrides",
        "src/models/invoice.Invoice.save",
        "src/models/base.Base.save",
        "src/models/invoice.ts:20",
        "stated",
        1.0,
    ),
    (
        "overrides",
        "src/models/invoice.Invoice.total",
        "src/models/base.Billable.total",
        "src/models/invoice.ts:16",
        "stated",
        1.0,
    ),
}
STRUCTURE = {
    ("contains", "src/index.Service", "src/index.Service.bill", "src/index.js:11"),
    ("contains", "src/index.Service", "src/index.Service.constructor", "src/index.js:7"),
    ("contains", "src/index.js", "src/index", "src/index.js:1"),
    ("contains", "src/index.js", "src/index.Service", "src/index.js:6"),
    ("contains", "src/index.js", "src/index.run", "src/index.js:17"),
    ("contains", "src/legacy.cjs", "src/legacy", "src/legacy.cjs:1"),
    ("contains", "src/legacy.cjs", "src/legacy.label", "src/legacy.cjs:7"),
    ("contains", "src/legacy.cjs", "src/legacy.pad", "src/legacy.cjs:3"),
    (
        "contains",
        "src/models/base.Base",
        "src/models/base.Base.constructor",
        "src/models/base.ts:10",
    ),
    ("contains", "src/models/base.Base", "src/models/base.Base.log", "src/models/base.ts:16"),
    ("contains", "src/models/base.Base", "src/models/base.Base.save", "src/models/base.ts:12"),
    (
        "contains",
        "src/models/base.Billable",
        "src/models/base.Billable.total",
        "src/models/base.ts:6",
    ),
    ("contains", "src/models/base.Named", "src/models/base.Named.name", "src/models/base.ts:2"),
    ("contains", "src/models/base.ts", "src/models/base", "src/models/base.ts:1"),
    ("contains", "src/models/base.ts", "src/models/base.Base", "src/models/base.ts:9"),
    ("contains", "src/models/base.ts", "src/models/base.Billable", "src/models/base.ts:5"),
    ("contains", "src/models/base.ts", "src/models/base.Named", "src/models/base.ts:1"),
    ("contains", "src/models/index.ts", "src/models/index", "src/models/index.ts:1"),
    (
        "contains",
        "src/models/invoice.Invoice",
        "src/models/invoice.Invoice.constructor",
        "src/models/invoice.ts:8",
    ),
    (
        "contains",
        "src/models/invoice.Invoice",
        "src/models/invoice.Invoice.create",
        "src/models/invoice.ts:28",
    ),
    (
        "contains",
        "src/models/invoice.Invoice",
        "src/models/invoice.Invoice.describe",
        "src/models/invoice.ts:24",
    ),
    (
        "contains",
        "src/models/invoice.Invoice",
        "src/models/invoice.Invoice.name",
        "src/models/invoice.ts:12",
    ),
    (
        "contains",
        "src/models/invoice.Invoice",
        "src/models/invoice.Invoice.save",
        "src/models/invoice.ts:20",
    ),
    (
        "contains",
        "src/models/invoice.Invoice",
        "src/models/invoice.Invoice.total",
        "src/models/invoice.ts:16",
    ),
    ("contains", "src/models/invoice.ts", "src/models/invoice", "src/models/invoice.ts:1"),
    ("contains", "src/models/invoice.ts", "src/models/invoice.Invoice", "src/models/invoice.ts:5"),
    ("contains", "src/server.js", "src/server", "src/server.js:1"),
    ("contains", "src/server.js", "src/server.health", "src/server.js:18"),
    ("contains", "src/server.js", "src/server.listInvoices", "src/server.js:10"),
    ("contains", "src/ui/Button.tsx", "src/ui/Button", "src/ui/Button.tsx:1"),
    ("contains", "src/ui/Button.tsx", "src/ui/Button.Button", "src/ui/Button.tsx:6"),
    ("contains", "src/ui/Button.tsx", "src/ui/Button.Total", "src/ui/Button.tsx:10"),
    ("contains", "src/util.mjs", "src/util", "src/util.mjs:1"),
    ("contains", "src/util.mjs", "src/util.double", "src/util.mjs:6"),
    ("contains", "src/util.mjs", "src/util.fmt", "src/util.mjs:2"),
    ("contains", "src/util.mjs", "src/util.helpers.trim", "src/util.mjs:9"),
    ("contains", "src/util.mjs", "src/util.helpers.upper", "src/util.mjs:12"),
    ("defines", "src/index", "src/index.Service", "src/index.js:6"),
    ("defines", "src/index", "src/index.run", "src/index.js:17"),
    ("defines", "src/legacy", "src/legacy.label", "src/legacy.cjs:7"),
    ("defines", "src/legacy", "src/legacy.pad", "src/legacy.cjs:3"),
    ("defines", "src/models/base", "src/models/base.Base", "src/models/base.ts:9"),
    ("defines", "src/models/base", "src/models/base.Billable", "src/models/base.ts:5"),
    ("defines", "src/models/base", "src/models/base.Named", "src/models/base.ts:1"),
    ("defines", "src/models/invoice", "src/models/invoice.Invoice", "src/models/invoice.ts:5"),
    ("defines", "src/server", "src/server.health", "src/server.js:18"),
    ("defines", "src/server", "src/server.listInvoices", "src/server.js:10"),
    ("defines", "src/ui/Button", "src/ui/Button.Button", "src/ui/Button.tsx:6"),
    ("defines", "src/ui/Button", "src/ui/Button.Total", "src/ui/Button.tsx:10"),
    ("defines", "src/util", "src/util.double", "src/util.mjs:6"),
    ("defines", "src/util", "src/util.fmt", "src/util.mjs:2"),
    ("defines", "src/util", "src/util.helpers.trim", "src/util.mjs:9"),
    ("defines", "src/util", "src/util.helpers.upper", "src/util.mjs:12"),
}


@pytest.fixture
def jsapp(tmp_path: Path) -> Path:
    root = tmp_path / "jsapp"
    shutil.copytree(JSAPP, root, ignore=shutil.ignore_patterns(".ragraf"))
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".ragraf/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "jsapp")
    config.init_project(root)
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.warnings == []
    return root


def test_jsapp_nodes_and_edges_exactly(jsapp: Path) -> None:
    nodes, edges, struct = _graph(jsapp)
    assert nodes == NODES
    assert edges - EDGES == set(), "unexpected edges"
    assert EDGES - edges == set(), "missing edges"
    assert struct == STRUCTURE


def test_languages_by_suffix() -> None:
    got = {
        p: registry.lang_of(p)
        for p in ("a.js", "a.mjs", "a.cjs", "a.jsx", "a.ts", "a.mts", "a.d.ts", "a.tsx")
    }
    assert got == {
        "a.js": "javascript",
        "a.mjs": "javascript",
        "a.cjs": "javascript",
        "a.jsx": "javascript",
        "a.ts": "typescript",
        "a.mts": "typescript",
        "a.d.ts": "typescript",
        "a.tsx": "tsx",
    }


def test_status_coverage_by_language(jsapp: Path) -> None:
    cov = json.loads(invoke("status", "--json", cwd=jsapp).stdout)["coverage"]
    got = {k: v["value"] for k, v in cov.items() if k.startswith("lang.")}
    assert got == COVERAGE


def test_callers_through_a_barrel_reexport_are_stated(jsapp: Path) -> None:
    out = json.loads(
        invoke(
            "query",
            "callers",
            "src/models/invoice.Invoice.create",
            "--json",
            "--detail",
            "full",
            cwd=jsapp,
        ).stdout
    )
    stated = {s["symbol"]["fqn"] for s in out["result"]["stated"]}
    assert stated == {"src/index.Service.bill"}


def test_drift_scan_reports_changed_js_symbols(jsapp: Path) -> None:
    cfg = config.load(jsapp)
    assert run_scan(cfg).written == []
    edit(jsapp, "src/util.mjs", "x * 2", "x * 3")
    edit(
        jsapp,
        "src/models/invoice.ts",
        "    super.save();\n",
        "    super.save();\n    this.log('x');\n",
    )
    with (jsapp / "src/legacy.cjs").open("a") as fh:
        fh.write("\nfunction trimmed(s) {\n  return s.trim();\n}\n")
    rep = run_scan(cfg)
    by = {e.path: e for e in rep.written}
    assert set(by) == {"src/util.mjs", "src/models/invoice.ts", "src/legacy.cjs"}
    assert json.loads(by["src/util.mjs"].symbols_changed) == ["src/util.double"]
    assert json.loads(by["src/models/invoice.ts"].symbols_changed) == [
        "src/models/invoice.Invoice.save"
    ]
    assert json.loads(by["src/legacy.cjs"].symbols_added) == ["src/legacy.trimmed"]
    # the CLI, as an agent runs it after an edit
    edit(jsapp, "src/ui/Button.tsx", "fmt(amount)", "fmt(amount * 2)")
    out = invoke("drift", "--scan", "--json", cwd=jsapp)
    assert out.exit_code == 0, out.stderr
    entries = json.loads(out.stdout)["new_entries"]
    assert [(e["path"], e["kind"]) for e in entries] == [("src/ui/Button.tsx", "modify")]


#: external callees: express() x2, express.Router(), String(), console.log() (unresolved
#: functions, as Python's builtins), methods of parameters and builtin values (external)
COVERAGE = {
    "lang.javascript.files": 4.0,
    "lang.javascript.calls.total": 26.0,
    "lang.javascript.calls.stated": 10.0,
    "lang.javascript.calls.derived": 1.0,
    "lang.javascript.calls.external": 11.0,
    "lang.javascript.calls.unresolved_function": 4.0,
    "lang.typescript.files": 3.0,
    "lang.typescript.calls.total": 10.0,
    "lang.typescript.calls.stated": 8.0,
    "lang.typescript.calls.external": 1.0,
    "lang.typescript.calls.unresolved_function": 1.0,
    "lang.tsx.files": 1.0,
    "lang.tsx.calls.total": 2.0,
    "lang.tsx.calls.stated": 2.0,
    "lang.json.files": 1.0,  # package.json
}


def test_routes_repo_map_and_search_cover_js(jsapp: Path) -> None:
    out = json.loads(invoke("query", "routes", "--json", cwd=jsapp).stdout)["result"]["routes"]
    got = {(r["method"], r["route"]): sorted(h["fqn"] for h in r["handlers"]) for r in out}
    assert got == {
        ("GET", "/health"): ["src/server.health"],
        ("GET", "/invoices"): ["src/server.listInvoices"],
        ("POST", "/invoices/:id"): ["src/server.js"],  # an arrow function: the registering file
    }
    rmap = json.loads(invoke("query", "repo_map", "--json", cwd=jsapp).stdout)["result"]
    shown = {s["fqn"] for m in rmap["modules"] for f in m["files"] for s in f["symbols"]}
    assert {"src/models/invoice.Invoice.create", "src/ui/Button.Button"} <= shown
    hits = json.loads(invoke("query", "search", "format amount", "--json", cwd=jsapp).stdout)
    assert hits["result"]["hits"][0]["fqn"] == "src/util.fmt"


def test_routes_of_nestjs_controllers(tmp_path: Path) -> None:
    """NestJS: ``@Controller('cats')`` on a class, ``@Get(':id')`` / ``@Post()`` on its
    methods: one route per decorated method, to that method."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "cats.controller.ts").write_text(
        "import { Controller, Get, Post, Param } from '@nestjs/common';\n"
        "@Controller('cats')\nexport class CatsController {\n"
        "  @Get(':id')\n  findOne(@Param('id') id: string) { return id; }\n"
        "  @Post()\n  create() { return 1; }\n"
        "  helper() { return 2; }\n}\n"
        "@Controller({ path: 'dogs' })\nclass DogsController {\n"
        "  @Get()\n  list() { return []; }\n}\n"
    )
    config.init_project(root)
    indexer.build(config.load(root))
    out = json.loads(invoke("query", "routes", "--json", cwd=root).stdout)["result"]["routes"]
    got = {(r["method"], r["route"]): sorted(h["fqn"] for h in r["handlers"]) for r in out}
    assert got == {
        ("GET", "/cats/:id"): ["src/cats.controller.CatsController.findOne"],
        ("POST", "/cats"): ["src/cats.controller.CatsController.create"],
        ("GET", "/dogs"): ["src/cats.controller.DogsController.list"],
    }


def test_routes_of_nextjs_files(tmp_path: Path) -> None:
    """Next.js routes are where files lie: ``app/**/route.ts`` exporting HTTP-method functions
    (route groups dropped), ``pages/api/**`` with a default export."""
    root = tmp_path / "web"
    files = {
        "app/api/users/route.ts": "export async function GET() { return 1; }\n"
        "export function POST(req: Request) { return 2; }\nfunction helper() {}\n",
        "app/(shop)/api/cart/[id]/route.ts": "export const dynamic = 'force-dynamic';\n"
        "export async function DELETE() { return 3; }\n",
        "pages/api/hello.ts": "export default function handler(req, res) { res.json({}); }\n",
        "pages/api/orders/index.js": "export default function list(req, res) {}\n",
        "app/page.tsx": "export default function Page() { return null; }\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config.init_project(root)
    indexer.build(config.load(root))
    out = json.loads(invoke("query", "routes", "--json", cwd=root).stdout)["result"]["routes"]
    got = {(r["method"], r["route"]): sorted(h["fqn"] for h in r["handlers"]) for r in out}
    assert got == {
        ("GET", "/api/users"): ["app/api/users/route.GET"],
        ("POST", "/api/users"): ["app/api/users/route.POST"],
        ("DELETE", "/api/cart/[id]"): ["app/(shop)/api/cart/[id]/route.DELETE"],
        ("*", "/api/hello"): ["pages/api/hello.handler"],
        ("*", "/api/orders"): ["pages/api/orders/index.list"],
    }


def test_build_output_is_skipped_with_a_note(tmp_path: Path) -> None:
    """A webpack bundle and a file whose last line is a source map comment are build output:
    recorded as skipped with the reason, not indexed; a source file that merely mentions
    the markers is indexed."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "dist").mkdir()
    (root / "src" / "app.js").write_text(
        "// reads '//# sourceMappingURL=' comments\nexport function load(map) { return map; }\n"
    )
    (root / "dist" / "bundle.js").write_text(
        "/******/ (() => { // webpackBootstrap\n/******/ var __webpack_modules__ = {};\n"
        "function bundled() { return 1; }\n/******/ })();\n"
    )
    (root / "dist" / "out.js").write_text(
        "function compiled() { return 2; }\n//# sourceMappingURL=out.js.map\n"
    )
    config.init_project(root)
    indexer.build(config.load(root))
    res = invoke("-C", str(root), "status", "--json", check=True)
    cov = json.loads(res.stdout)["coverage"]
    assert cov["files.skipped"]["value"] == 2
    assert set(cov["files.skipped"]["note"].split(", ")) == {"dist/bundle.js", "dist/out.js"}
    from ragraf.store import manifest
    from ragraf.store.graph import GraphStore

    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    with GraphStore(layout.graph_db, readonly=True) as g:
        notes = {p: g.file_row(rev, p) for p in ("dist/bundle.js", "dist/out.js", "src/app.js")}
    assert notes["dist/bundle.js"] is not None and "webpackBootstrap" in str(
        notes["dist/bundle.js"].parse_note
    )
    assert notes["dist/out.js"] is not None and "sourceMappingURL" in str(
        notes["dist/out.js"].parse_note
    )
    assert notes["src/app.js"] is not None and notes["src/app.js"].parse_status == "ok"
    found = invoke("-C", str(root), "query", "symbol", "--name", "load", "--json", check=True)
    assert "src/app.js" in found.stdout

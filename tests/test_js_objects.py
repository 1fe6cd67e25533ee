"""JavaScript as deep as TypeScript (issue 40 §2): the golden fixture fixtures/jsobjects, an
express-like CommonJS package and a TypeScript corner, every construct checked by hand at
its evidence line:

- ``this`` in functions assigned to members of an object (``app.set = function``: ``var app
  = exports = module.exports = {}``; ``var res = Object.create(...)``; ``proto.handle`` of
  the function ``var proto = module.exports = function``), computed members (``app[method]
  = function``), prototype methods, ``var self = this``, a method returning ``this``,
  members set in methods (``this._router = new Router()``), aliases (``res.type =
  res.contentType = function``);
- mixins (``mixin(app, proto)``, ``setPrototypeOf(router, proto)``), getters defined on an
  object (``Object.defineProperty``, a ``defineGetter(obj, name, fn)`` of the file);
- ``module.exports = fn`` above ``function fn``, ``exports.f()`` / ``module.exports.f()``
  inside the module, ``require('./dir')`` of ``dir/index.js``, ``require`` of the package
  entry ``module.exports = require('./lib/express')``;
- untyped receivers: guessed by name (``res.send()`` on a parameter ``res``: derived), a
  builtin method (``.trim()``) external, a match by name kept within its copy of a tree
  (``src/shapes.js`` and ``dist/shapes.js`` are not matched to each other) and to classes
  (``jq(el).send()`` is not ``res.send``: an object is reached by its name);
- TypeScript: a namespace's members (``util.keys``), a const of two alternative arrow
  functions, overloads (a call runs the implementation), ``export *`` and ``export { a as b
  } from``, ``tsconfig.json`` ``paths`` (JSON with comments) and the package's own name
  through ``package.json`` ``exports``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragraf import config
from ragraf.indexing import indexer
from ragraf.lang import registry
from tests.helpers import REPO, invoke
from tests.test_drift import git
from tests.test_pilot_golden import _graph

FIXTURE = REPO / "fixtures" / "jsobjects"

APP, RES, REQ, ROUTER = (
    "lib/application.app",
    "lib/response.res",
    "lib/request.req",
    "lib/router/index.proto",
)
CALLS = {
    ("calls", f"{APP}.init", f"{APP}.defaultConfiguration", "lib/application.js:10", "stated", 1.0),
    (
        "calls",
        f"{APP}.defaultConfiguration",
        f"{APP}.enable",
        "lib/application.js:14",
        "stated",
        1.0,
    ),
    ("calls", f"{APP}.defaultConfiguration", f"{APP}.set", "lib/application.js:15", "stated", 1.0),
    ("calls", f"{APP}.set", "lib/utils.compile", "lib/application.js:22", "stated", 1.0),
    ("calls", f"{APP}.enable", f"{APP}.set", "lib/application.js:27", "stated", 1.0),
    ("calls", f"{APP}.lazyrouter", ROUTER, "lib/application.js:32", "stated", 1.0),
    ("calls", f"{APP}.lazyrouter", f"{APP}.enable", "lib/application.js:33", "stated", 1.0),
    ("calls", f"{APP}.lazyrouter", f"{ROUTER}.use", "lib/application.js:33", "stated", 1.0),
    ("calls", f"{APP}.handle", f"{ROUTER}.handle", "lib/application.js:39", "stated", 1.0),
    ("calls", "lib/application.js", f"{APP}.lazyrouter", "lib/application.js:44", "stated", 1.0),
    ("calls", "lib/application.js", f"{APP}.set", "lib/application.js:45", "stated", 1.0),
    (
        "calls",
        "lib/express.createApplication.app",
        f"{APP}.handle",
        "lib/express.js:11",
        "stated",
        1.0,
    ),
    ("calls", "lib/express.createApplication", f"{APP}.init", "lib/express.js:15", "stated", 1.0),
    ("calls", "lib/request.js", "lib/request.defineGetter", "lib/request.js:14", "stated", 1.0),
    ("calls", "lib/request.host", f"{REQ}.header", "lib/request.js:15", "stated", 1.0),
    ("calls", "lib/request.js", f"{REQ}.header", "lib/request.js:20", "stated", 1.0),
    ("calls", f"{RES}.send", f"{RES}.header", "lib/response.js:11", "stated", 1.0),
    ("calls", f"{RES}.send", "lib/utils.size", "lib/response.js:11", "stated", 1.0),
    ("calls", f"{RES}.send", f"{RES}.type", "lib/response.js:12", "stated", 1.0),
    ("calls", f"{RES}.json", f"{RES}.send", "lib/response.js:16", "stated", 1.0),
    ("calls", f"{RES}.type", f"{RES}.header", "lib/response.js:21", "stated", 1.0),
    ("calls", f"{RES}.location", f"{RES}.header", "lib/response.js:31", "stated", 1.0),
    ("calls", f"{RES}.redirect", f"{RES}.header", "lib/response.js:36", "stated", 1.0),
    ("calls", f"{RES}.redirect", f"{RES}.location", "lib/response.js:36", "stated", 1.0),
    ("calls", f"{RES}.redirect", f"{RES}.type", "lib/response.js:38", "stated", 1.0),
    ("calls", f"{ROUTER}.handle", f"{ROUTER}.process", "lib/router/index.js:17", "stated", 1.0),
    ("calls", f"{ROUTER}.use", "lib/router/layer.Layer", "lib/router/index.js:28", "stated", 1.0),
    (
        "calls",
        f"{ROUTER}.options",
        "lib/router/index.sendOptions",
        "lib/router/index.js:39",
        "stated",
        1.0,
    ),
    ("calls", f"{ROUTER}.router", f"{ROUTER}.handle", "lib/router/index.js:8", "stated", 1.0),
    (
        "calls",
        "lib/router/layer.Layer",
        "lib/router/layer.Layer",
        "lib/router/layer.js:7",
        "stated",
        1.0,
    ),
    ("calls", "lib/utils.twice", "lib/utils.size", "lib/utils.js:12", "stated", 1.0),
    ("calls", "lib/utils.compile", "lib/utils.size", "lib/utils.js:4", "stated", 1.0),
    ("calls", "ts/main.main", "ts/overload.pick", "ts/main.ts:6", "stated", 1.0),
    ("calls", "ts/main.main", "ts/overload.Box.fill", "ts/main.ts:7", "stated", 1.0),
    ("calls", "ts/main.main", "ts/util.util.keys", "ts/main.ts:8", "stated", 1.0),
    ("calls", "ts/main.main", "ts/util.util.keys", "ts/main.ts:9", "stated", 1.0),
    ("calls", "ts/overload.Box.fill", "ts/overload.Box.put", "ts/overload.ts:15", "stated", 1.0),
    ("calls", "ts/util.util.keys", "ts/util.util.objectKeys", "ts/util.ts:3", "stated", 1.0),
    (
        "calls_heuristic",
        "dist/shapes.total",
        "dist/shapes.Shape.area",
        "dist/shapes.js:8",
        "derived",
        0.85,
    ),
    (
        "calls_heuristic",
        f"{ROUTER}.handle",
        "lib/router/layer.Layer.handle_request",
        "lib/router/index.js:19",
        "derived",
        0.85,
    ),
    (
        "calls_heuristic",
        "lib/router/index.sendOptions",
        f"{RES}.send",
        "lib/router/index.js:34",
        "derived",
        0.85,
    ),
    (
        "calls_heuristic",
        "src/shapes.total",
        "src/shapes.Shape.area",
        "src/shapes.js:8",
        "derived",
        0.85,
    ),
    (
        "instantiates",
        f"{ROUTER}.use",
        "lib/router/layer.Layer",
        "lib/router/index.js:28",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "lib/router/layer.Layer",
        "lib/router/layer.Layer",
        "lib/router/layer.js:7",
        "stated",
        1.0,
    ),
    ("instantiates", "ts/main.main", "ts/overload.Box", "ts/main.ts:7", "stated", 1.0),
}


def _index(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".ragraf"))
    git(dest, "init", "-q", "-b", "main")
    (dest / ".gitignore").write_text(".ragraf/\n")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "fixture")
    config.init_project(dest)
    res = indexer.build(config.load(dest), no_vectors=True)
    assert res.status == "built" and res.warnings == []
    return dest


@pytest.fixture(scope="module")
def jsobjects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _index(FIXTURE, tmp_path_factory.mktemp("jsobjects") / "jsobjects")


def _calls(root: Path) -> set[tuple]:
    _nodes, edges, _struct = _graph(root)
    return {e for e in edges if e[0] in ("calls", "calls_heuristic", "instantiates")}


def test_jsobjects_calls_exactly(jsobjects: Path) -> None:
    got = _calls(jsobjects)
    assert got - CALLS == set(), "unexpected edges"
    assert CALLS - got == set(), "missing edges"


def test_object_members_are_methods_and_overloads_run_the_implementation(jsobjects: Path) -> None:
    nodes, _edges, _struct = _graph(jsobjects)
    kinds = {(fqn, start): kind for kind, fqn, _path, start, _end in nodes}
    assert kinds[(f"{APP}.set", 18)] == "method"
    assert kinds[(f"{RES}.type", 20)] == "method"  # res.contentType = res.type = function
    assert kinds[("lib/router/index.proto", 6)] == "function"  # `new Router()` runs it
    # the calls of pick and put above reach the implementations (line 3, line 10)
    out = json.loads(
        invoke(
            "query", "callers", "ts/overload.Box.put", "--json", "--detail", "full", cwd=jsobjects
        ).stdout
    )["result"]
    assert [(s["symbol"]["fqn"], s["symbol"]["start_line"]) for s in out["stated"]] == [
        ("ts/overload.Box.fill", 14)
    ]


def test_guessed_receiver_is_derived_and_named(jsobjects: Path) -> None:
    out = json.loads(
        invoke(
            "query", "callers", f"{RES}.send", "--json", "--detail", "full", cwd=jsobjects
        ).stdout
    )
    res = out["result"]
    assert {s["symbol"]["fqn"] for s in res["stated"]} == {f"{RES}.json"}
    assert {s["symbol"]["fqn"] for s in res["derived"]} == {"lib/router/index.sendOptions"}


def test_manifests_are_read_into_the_file_node() -> None:
    pkg = registry.extract("package.json", "json", (FIXTURE / "package.json").read_text(), 200)
    assert pkg.nodes[0].props["js_package"]["exports"] == [
        [".", ["./index.js"]],
        ["./ts", ["./ts/index.d.ts", "./ts/index.ts"]],
    ]
    conf = registry.extract("tsconfig.json", "json", (FIXTURE / "tsconfig.json").read_text(), 200)
    assert conf.status == "ok"
    assert conf.nodes[0].props["js_paths"] == {"baseUrl": ".", "paths": [["@app/*", ["ts/*"]]]}


def test_a_changed_manifest_relinks_the_importers(tmp_path: Path) -> None:
    """The JavaScript files a build prepared are prepared again when a manifest changes
    (``hook_context``): ``jsobjects/ts`` leads nowhere once ``exports`` drops it."""
    root = _index(FIXTURE, tmp_path / "jsobjects")
    want = ("calls", "ts/main.main", "ts/util.util.keys", "ts/main.ts:8", "stated", 1.0)
    assert want in _calls(root)
    pkg = root / "package.json"
    data = json.loads(pkg.read_text())
    del data["exports"]["./ts"]
    pkg.write_text(json.dumps(data, indent=2) + "\n")
    git(root, "commit", "-qam", "no ./ts")
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built"
    assert want not in _calls(root)


def test_package_main_and_tsconfig_base_url_lead_to_corpus_modules() -> None:
    """A workspace package by its ``package.json`` ``name`` and ``main`` (no ``exports``),
    and a bare specifier under a ``jsconfig.json`` ``baseUrl``."""
    from ragraf.lang.facts import CallRef

    texts = {
        "packages/util/package.json": '{"name": "@acme/util", "main": "lib/main.js"}',
        "packages/util/lib/main.js": "exports.pad = function pad(s) { return s; };\n",
        "web/jsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}',
        "web/src/helpers/fmt.js": "export function fmt(x) { return x; }\n",
        "web/src/app.js": (
            "const util = require('@acme/util');\n"
            "import { fmt } from 'helpers/fmt';\n"
            "export function run() { util.pad(fmt('x')); }\n"
        ),
    }
    files = [registry.extract(p, registry.lang_of(p), t, 200) for p, t in texts.items()]
    app = next(f for f in registry.prepare(files) if f.path == "web/src/app.js")
    called = {r.candidates[0] for r in app.refs if isinstance(r, CallRef)}
    assert called == {"packages/util/lib/main.pad", "web/src/helpers/fmt.fmt"}


def test_the_registry_names_the_manifests_the_link_step_reads() -> None:
    from ragraf.lang.js.manifest import MANIFESTS

    for name in MANIFESTS:
        assert registry.prepare_reads(f"a/{name}")
    assert not registry.prepare_reads("a/extension.json")

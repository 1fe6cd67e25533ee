"""Callers of real functions per language against hand-written oracles, ragraf beside
codegraph 1.6.1, and the name forms people type (issue 40's acceptance bench); run by hand.

    .venv/bin/python bench/lang_calls.py                       # every corpus, every tool
    .venv/bin/python bench/lang_calls.py --corpus express --corpus zod
    .venv/bin/python bench/lang_calls.py --lang python --no-codegraph --no-forms
    .venv/bin/python bench/lang_calls.py --markdown             # also a table for PERFORMANCE.md
    .venv/bin/python bench/lang_calls.py --check-oracle         # the oracles against the corpora only
    .venv/bin/python bench/lang_calls.py --sites express '\\.set\\('   # authoring: candidate lines

The corpora are pinned packages from the registries (``bench/oracle/lang_calls/*.json``
names each: registry, version, how to fetch it, the folder indexed): flask 3.0.3 and
requests 2.32.3 (PyPI sdists), express 4.21.2 (npm; lib/ is plain CommonJS), zod 3.25.76
(npm: the 3.x release that ships src/*.ts beside its compiled copies), gorilla/mux 1.8.0
(Debian golang-github-gorilla-mux-dev 1.8.0-1) and the Starlark interpreter in Java
(net.starlark.java, src/main and src/test, of Debian bazel-bootstrap-source 4.2.3+ds-9).
They are fetched once into a cache outside the repository (``--cache``; default
``$XDG_CACHE_HOME/ragraf-bench/lang_calls``) with the ordinary clients (``pip download``,
``npm pack``, ``apt-get download``) and copied into a temporary folder per run.

The oracle of each corpus was written by hand before either tool answered for its targets:
for every target (a declaration: file and line), the call sites (file:line of the line that
names the callee) that run it, found by grep and reading the code, with a one-line note on
how. A site's callers are its enclosing declarations, computed here with tree-sitter (syntax
only, nothing of ragraf's resolution): a tool's caller covers a site when it is in the same
file, spans the site's line and starts where one of the site's enclosing functions (or, for
a call at the top level of a file, the file) starts. Per target and per language:

- recall = oracle sites covered by a listed caller / oracle sites;
- precision = listed callers that cover an oracle site / listed callers.

ragraf is indexed structurally (``ragraf index --force --no-vectors``) and asked ``ragraf
query callers --node-id ID --json --limit 500`` (paged) for the target's node (found by
file and line); stated callers and stated + derived callers are scored apart, and the
answer's ``unresolved`` total is kept. codegraph (npm ``@colbymchenry/codegraph@1.6.1``,
installed into the cache with npm unless ``--codegraph`` names a binary) indexes a copy of
the same tree (``codegraph init -y``) and is asked ``codegraph callers NAME --file PATH
--json``; the definition at the target's line is scored. The name-form check asks ragraf's
``callers`` and ``symbol`` operations (the CLI, in this process) for every form issue 40
lists (the trailing name; ``Owner.name`` and the same with ``::``, ``#``, ``/``, ``\\``;
``module.Owner.name``; the import path a user writes: ``requests.sessions.Session.request``,
``github.com/gorilla/mux.Router.NewRoute``, ``net.starlark.java.eval.Starlark.str``; the fqn
ragraf prints) and says per form: ``resolves`` (the target alone), ``ambiguous`` (the target
among others: overloads share every name), ``wrong`` or ``not_found``.

Prints one JSON report (``--out FILE`` also writes it); record the numbers in
docs/PERFORMANCE.md with the machine and the date. Needs npm (codegraph) and, for the
fetch, pip, npm, apt-get and dpkg-deb.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

ORACLES = REPO / "bench" / "oracle" / "lang_calls"
CODEGRAPH_PACKAGE = "@colbymchenry/codegraph@1.6.1"
#: how far above the target's line a tool's declaration may start (decorators, annotations,
#: a doc comment it counts in) and still be the target
DECL_SLACK = 12
#: a target the tool has no declaration for: its sites count as missed
NO_DECL = "no declaration at the target's line"
#: the most callers asked for at once (ragraf's ``--limit`` maximum)
PAGE = 500
SUFFIXES = {
    "python": (".py",),
    "javascript": (".js", ".cjs", ".mjs"),
    "typescript": (".ts", ".tsx", ".mts", ".cts"),
    "go": (".go",),
    "java": (".java",),
}
FILE_KINDS = ("file", "module")
#: kinds of declarations that run code (a caller of another kind spanning a top-level call
#: is the variable or constant it initialises)
CALLABLE_KINDS = ("function", "method", "constructor", "class", "interface", "struct", "enum")
#: a declaration's name a tool can know (``app[method]``, ``<anon>`` are not)
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")

# -- enclosing declarations (tree-sitter: syntax only) --------------------------------------
_FUNCS = {
    "python": {"function_definition"},
    "javascript": {
        "function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
    },
    "go": {"function_declaration", "method_declaration", "func_literal"},
    "java": {
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "lambda_expression",
        "static_initializer",
    },
}
_FUNCS["typescript"] = _FUNCS["javascript"]
_CLASSES = {
    "python": {"class_definition"},
    "javascript": {"class_declaration", "class"},
    "typescript": {"class_declaration", "class", "abstract_class_declaration"},
    "go": set(),
    "java": {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
    },
}
_GRAMMAR = {"typescript": "tsx"}


@dataclass(frozen=True)
class Encl:
    """An enclosing declaration of a call site: its name (``<anon>`` when it has none), its
    lines (decorators and annotations included) and the line of its name (``head``: a tool
    may start the declaration there); ``<module>`` with line 0 stands for the top level."""

    name: str
    start: int
    end: int
    head: int = 0


def _text(src: bytes, node: Any) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _decl_name(node: Any, src: bytes) -> str:
    """A function's own name, else the name it is assigned to (``app.set = function``,
    ``const f = () =>``, ``{ key: function }``)."""
    own = node.child_by_field_name("name")
    if own is not None:
        return _text(src, own)
    p = node.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    target = None
    if p is not None and p.type == "variable_declarator":
        target = p.child_by_field_name("name")
    elif p is not None and p.type in ("assignment_expression", "augmented_assignment_expression"):
        target = p.child_by_field_name("left")
        if target is not None and target.type == "member_expression":
            target = target.child_by_field_name("property")
    elif p is not None and p.type == "pair":
        target = p.child_by_field_name("key")
    elif p is not None and p.type in ("public_field_definition", "field_definition"):
        target = p.child_by_field_name("name") or p.child_by_field_name("property")
    return _text(src, target).strip("'\"") if target is not None else "<anon>"


def _encl(node: Any, start: Any, src: bytes) -> Encl:
    own = node.child_by_field_name("name")
    head = (own if own is not None else node).start_point[0] + 1
    return Encl(_decl_name(node, src), start.start_point[0] + 1, node.end_point[0] + 1, head)


class Enclosures:
    """The enclosing declarations of lines of files of one language (parsed once each)."""

    def __init__(self, root: Path, lang: str) -> None:
        from tree_sitter_language_pack import get_parser

        self.root, self.lang = root, lang
        self.parser = get_parser(_GRAMMAR.get(lang, lang))  # type: ignore[arg-type]
        self._trees: dict[str, tuple[bytes, Any]] = {}

    def chain(self, path: str, line: int) -> list[Encl]:
        """Innermost first; a call outside every function gives its innermost class, and
        one at the top level of the file ``[<module>]``."""
        if path not in self._trees:
            src = (self.root / path).read_bytes()
            self._trees[path] = (src, self.parser.parse(src))
        src, tree = self._trees[path]
        lines = src.split(b"\n")
        text = lines[line - 1] if 0 < line <= len(lines) else b""
        col = len(text) - len(text.lstrip())
        node = tree.root_node.descendant_for_point_range((line - 1, col), (line - 1, col))
        out: list[Encl] = []
        cls: Encl | None = None
        while node is not None:
            if node.is_named and node.type in _FUNCS[self.lang]:
                start = node
                if node.parent is not None and node.parent.type == "decorated_definition":
                    start = node.parent
                out.append(_encl(node, start, src))
            elif node.is_named and node.type in _CLASSES[self.lang] and cls is None:
                cls = _encl(node, node, src)
            node = node.parent
        if not out and cls is not None:
            out.append(cls)
        return out or [Encl("<module>", 0, 0)]


# -- the oracle -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Site:
    path: str
    line: int
    chain: tuple[Encl, ...]

    @property
    def label(self) -> str:
        return f"{self.path}:{self.line} {self.chain[0].name}"


@dataclass(frozen=True)
class Caller:
    """A caller a tool listed: its file and lines (``end`` None when unknown)."""

    path: str
    name: str
    kind: str
    start: int
    end: int | None
    label: str = ""


def covers(c: Caller, s: Site) -> bool:
    """The caller is one of the site's enclosing declarations (see the module docstring)."""
    if c.path != s.path:
        return False
    named = any(_IDENT.match(e.name) for e in s.chain if e.name != "<module>")
    if c.kind in FILE_KINDS:  # the file: for a call outside every function that has a name
        return not named
    if c.end is not None and not c.start <= s.line <= c.end:
        return False
    if not named and c.kind not in CALLABLE_KINDS:  # the variable a top-level call initialises
        return True
    return any(e.start - DECL_SLACK <= c.start <= max(e.start, e.head) + 1 for e in s.chain)


def score(sites: list[Site], callers: list[Caller]) -> dict[str, Any]:
    """Recall over the oracle's sites and precision over the listed callers, with the
    sites missed and the callers that cover none."""
    covered = [s for s in sites if any(covers(c, s) for c in callers)]
    wrong = [c for c in callers if not any(covers(c, s) for s in sites)]
    return {
        "sites": len(sites),
        "covered": len(covered),
        "listed": len(callers),
        "correct": len(callers) - len(wrong),
        "missed": [s.label for s in sites if s not in covered],
        "wrong": [c.label or f"{c.path}:{c.start} {c.name}" for c in wrong],
    }


def ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def load_oracle(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ORACLES / f"{name}.json").read_text("utf-8"))
    return data


def oracle_sites(oracle: dict[str, Any], root: Path) -> dict[str, list[Site]]:
    """The sites of every target with their enclosing declarations; checks that each site's
    recorded caller name and each target's line still match the corpus (a wrong version
    or a typo fails here, before any tool is scored)."""
    enc = Enclosures(root, oracle["language"])
    out: dict[str, list[Site]] = {}
    problems = []
    for t in oracle["targets"]:
        decl = (root / t["path"]).read_text("utf-8", "replace").split("\n")[t["line"] - 1]
        if t["name"] not in decl:
            problems.append(f"{t['id']}: {t['path']}:{t['line']} does not declare {t['name']}")
        sites = []
        for raw in t["sites"]:
            where, _, who = raw.partition(" ")
            path, _, line = where.rpartition(":")
            chain = tuple(enc.chain(path, int(line)))
            if who and chain[0].name != who:
                problems.append(f"{t['id']}: {where} is in {chain[0].name}, not {who}")
            sites.append(Site(path, int(line), chain))
        out[t["id"]] = sites
    if problems:
        raise SystemExit("oracle does not match the corpus:\n  " + "\n  ".join(problems))
    return out


# -- fetching the corpora -------------------------------------------------------------------
def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragraf-bench" / "lang_calls"


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)


def fetch(oracle: dict[str, Any], cache: Path) -> Path:
    """The unpacked package (fetched once into the cache); returns the corpus root."""
    pkg = oracle["package"]
    dest = cache / "src" / f"{oracle['corpus']}-{pkg['version']}"
    if not (dest / ".complete").exists():
        shutil.rmtree(dest, ignore_errors=True)
        dl = cache / "download" / oracle["corpus"]
        shutil.rmtree(dl, ignore_errors=True)
        dl.mkdir(parents=True)
        reg = pkg["registry"]
        if reg == "pypi":
            spec = f"{pkg['name']}=={pkg['version']}"
            _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
                 + ["--no-binary", ":all:", "-d", str(dl), spec])  # fmt: skip
        elif reg == "npm":
            _run(["npm", "pack", f"{pkg['name']}@{pkg['version']}", "--silent"], cwd=dl)
        elif reg == "debian":
            _run(["apt-get", "download", "-q", f"{pkg['name']}={pkg['version']}"], cwd=dl)
        else:
            raise SystemExit(f"unknown registry {reg}")
        archive = next(p for p in dl.iterdir() if p.is_file())
        dest.mkdir(parents=True)
        if archive.suffix == ".deb":
            _run(["dpkg-deb", "-x", str(archive), str(dest)])
        else:
            with tarfile.open(archive) as t:
                t.extractall(dest, filter="data")
        (dest / ".complete").write_text(archive.name + "\n")
    return dest / pkg["root"]


def copy_corpus(oracle: dict[str, Any], src: Path, dest: Path) -> Path:
    """A private copy of the corpus (only the ``only`` folders when the oracle names some)."""
    only = oracle["package"].get("only")
    if only:
        for sub in only:
            shutil.copytree(src / sub, dest / sub, symlinks=True)
    else:
        shutil.copytree(src, dest, symlinks=True)
    return dest


# -- ragraf -----------------------------------------------------------------------------------
class Ragraf:
    """The CLI of this checkout, run in this process (typer's runner), one project."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def json(self, *args: str) -> dict[str, Any]:
        from typer.testing import CliRunner

        from ragraf.cli import app as cli_app

        state = getattr(cli_app, "_state", None)
        if isinstance(state, dict):
            state["project"] = None
        res = CliRunner().invoke(
            cli_app.app, ["-C", str(self.root), *args, "--json"], catch_exceptions=False
        )
        if isinstance(state, dict):
            state["project"] = None
        try:
            out: dict[str, Any] = json.loads(res.stdout)
        except json.JSONDecodeError:
            out = {"error": (res.stdout + res.stderr)[-400:], "exit_code": res.exit_code}
        return out

    def index(self) -> dict[str, Any]:
        from bench.index import timed_index
        from ragraf import config

        config.init_project(self.root)
        run = timed_index(self.root)
        return {
            "index_wall_s": round(run.wall, 2),
            "index_peak_rss_mib": round(run.peak_kib / 1024, 1),
            **{k: run.result.get(k) for k in ("files", "nodes", "edges") if k in run.result},
        }

    def nodes(self, path: str) -> list[dict[str, Any]]:
        """The declarations of one file in the sealed revision."""
        from ragraf import config
        from ragraf.store import manifest
        from ragraf.store.graph import GraphStore
        from ragraf.store.ranges import live, rev_no

        layout = config.Layout(self.root)
        rev = manifest.require(layout.rev_json)["rev_id"]
        g = GraphStore(layout.graph_db, readonly=True)
        try:
            rows = g.db.query(
                "SELECT node_id, kind, name, fqn, start_line, end_line FROM node n"
                f" WHERE {live('n')} AND path = ?2",
                (rev_no(rev), path),
            )
        finally:
            g.close()
        keys = ("node_id", "kind", "name", "fqn", "start_line", "end_line")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def callers(self, node_id: str) -> dict[str, Any]:
        """Every caller (paged), stated and derived apart, and the unresolved total."""
        stated: list[Caller] = []
        derived: list[Caller] = []
        offset, unresolved, error = 0, None, None
        while True:
            env = self.json(
                "query", "callers", "--node-id", node_id, "--limit", str(PAGE),
                "--offset", str(offset),
            )  # fmt: skip
            res = env.get("result")
            if not isinstance(res, dict):
                error = env.get("error") or env
                break
            for key, into in (("stated", stated), ("derived", derived)):
                for item in res.get(key) or []:
                    into.append(_ragraf_caller(item))
            if unresolved is None:
                unresolved = (res.get("unresolved") or {}).get("total")
            nxt = (res.get("page") or {}).get("next_offset")
            if not nxt or nxt <= offset:
                break
            offset = nxt
        return {"stated": stated, "derived": derived, "unresolved": unresolved, "error": error}


def _ragraf_caller(item: dict[str, Any]) -> Caller:
    sym = item.get("symbol") or {}
    lines = ",".join(str(e.get("line")) for e in item.get("evidence") or [] if e.get("line"))
    return Caller(
        str(sym.get("path")),
        str(sym.get("name")),
        str(sym.get("kind")),
        int(sym.get("start_line") or 0),
        sym.get("end_line"),
        f"{sym.get('fqn')} ({item.get('provenance')}) at {sym.get('path')}:{lines}",
    )


def find_decl(
    nodes: list[dict[str, Any]], t: dict[str, Any], name_key: str = "name"
) -> dict[str, Any] | None:
    """The tool's declaration of a target: a callable starting at the target's line or up
    to ``DECL_SLACK`` lines above it, named as the target (or an alias) when one is."""
    names = {t["name"], *t.get("aliases", [])}
    line = t["line"]
    near = [
        n
        for n in nodes
        if n.get("start_line") is not None
        and line - DECL_SLACK <= int(n["start_line"]) <= line + 1
        and str(n.get("kind")) not in FILE_KINDS + ("class", "interface", "parameter", "variable")
        and (n.get("end_line") is None or int(n["end_line"]) >= line)
    ]
    named = [n for n in near if n.get(name_key) in names] or near
    named.sort(key=lambda n: (abs(int(n["start_line"]) - line), -int(n["start_line"])))
    return named[0] if named else None


# -- codegraph --------------------------------------------------------------------------------
class Codegraph:
    """The codegraph CLI on a copy of the corpus (its index in the copy's .codegraph/)."""

    def __init__(self, binary: str, root: Path) -> None:
        self.binary, self.root = binary, root
        self.env = {**os.environ, "CODEGRAPH_TELEMETRY": "0", "NO_COLOR": "1"}

    def index(self) -> dict[str, Any]:
        t0 = time.perf_counter()
        run = subprocess.run(
            [self.binary, "init", "-y", str(self.root)],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.root,
        )
        out: dict[str, Any] = {"index_wall_s": round(time.perf_counter() - t0, 2)}
        if run.returncode != 0:
            out["error"] = (run.stdout + run.stderr)[-400:]
        return out

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(
            f"file:{self.root / '.codegraph' / 'codegraph.db'}?mode=ro", uri=True
        )

    def nodes(self, path: str) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute(
                "SELECT id, kind, name, qualified_name, start_line, end_line FROM nodes"
                " WHERE file_path = ?",
                (path,),
            ).fetchall()
        keys = ("node_id", "kind", "name", "fqn", "start_line", "end_line")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def spans(self, ids: list[str]) -> dict[str, tuple[int, int]]:
        if not ids:
            return {}
        with self._db() as db:
            marks = ",".join("?" * len(ids))
            rows = db.execute(
                f"SELECT id, start_line, end_line FROM nodes WHERE id IN ({marks})", ids
            ).fetchall()
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    def callers(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        run = subprocess.run(
            [self.binary, "callers", str(node["name"]), "--file", path, "--json"]
            + ["--limit", str(PAGE), "--path", str(self.root)],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.root,
        )
        try:
            data = json.loads(run.stdout)
        except json.JSONDecodeError:
            return {"callers": [], "error": (run.stdout + run.stderr)[-300:]}
        items = None
        for d in data.get("definitions") or []:  # one definition may merge several roots
            ids = {(d.get("definition") or {}).get("id"), *(d.get("roots") or [])}
            if node["node_id"] in ids:
                items = d.get("callers") or []
        if items is None:
            return {"callers": [], "error": "codegraph lists no definition at the target's line"}
        spans = self.spans([str(c.get("id")) for c in items])
        out = []
        for c in items:
            start, end = spans.get(str(c.get("id")), (int(c.get("startLine") or 0), None))
            out.append(
                Caller(
                    str(c.get("filePath")),
                    str(c.get("name")),
                    str(c.get("kind")),
                    start,
                    end,
                    f"{c.get('name')} at {c.get('filePath')}:{c.get('startLine')}",
                )
            )
        return {"callers": out, "error": None}


def codegraph_binary(given: str | None, cache: Path) -> tuple[str | None, str]:
    """The codegraph binary: given, or installed into the cache with npm; else why not."""
    if given:
        return given, "given"
    prefix = cache / "codegraph"
    binary = prefix / "node_modules" / ".bin" / "codegraph"
    if not binary.exists():
        if shutil.which("npm") is None:
            return None, "npm is not installed"
        prefix.mkdir(parents=True, exist_ok=True)
        run = subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                CODEGRAPH_PACKAGE,
            ],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0 or not binary.exists():
            return None, f"npm install {CODEGRAPH_PACKAGE} failed: {run.stderr[-300:]}"
    return str(binary), CODEGRAPH_PACKAGE


# -- name forms -------------------------------------------------------------------------------
def name_forms(lang: str, t: dict[str, Any]) -> dict[str, str]:
    """The names a user types for the target (issue 40 section 1), by kind of form."""
    name, owner, module = t["name"], t.get("owner") or "", t.get("module") or ""
    if lang == "java" and name == owner:  # a constructor
        owner = ""
    forms = {"name": name}
    if owner:
        forms["Owner.name"] = f"{owner}.{name}"
        for sep in ("::", "#", "/", "\\"):
            forms[f"Owner{sep}name"] = f"{owner}{sep}{name}"
    head = f"{owner}.{name}" if owner else name
    last = re.split(r"[./]", module)[-1] if module else ""
    if last:
        forms["module.Owner.name"] = f"{last}.{head}"
    if module:
        forms["import.path"] = f"{module}.{head}"
    if lang == "java" and owner:
        forms["pkg.Class#method"] = f"{module}.{owner}#{name}"
    return forms


def offered(res: Any) -> list[str]:
    """The node ids an answer names as what it is about (the target or the candidates)."""
    ids: list[str] = []
    if not isinstance(res, dict):
        return ids
    for key in ("target", "targets", "matches", "candidates", "ambiguous"):
        val = res.get(key)
        for item in val if isinstance(val, list) else [val] if isinstance(val, dict) else []:
            if isinstance(item, dict):
                nid = item.get("node_id") or (item.get("symbol") or {}).get("node_id")
                if nid and nid not in ids:
                    ids.append(str(nid))
    return ids


def form_outcome(ids: list[str], ours: str) -> str:
    if not ids:
        return "not_found"
    if ours not in ids:
        return "wrong"
    return "resolves" if len(ids) == 1 else "ambiguous"


def check_forms(rg: Ragraf, lang: str, t: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    forms = name_forms(lang, t)
    if node.get("fqn"):
        forms["printed_fqn"] = str(node["fqn"])
    out: dict[str, Any] = {}
    for kind, text in forms.items():
        per_op = {}
        for op in ("callers", "symbol"):
            env = rg.json("query", op, text, "--limit", "50")
            per_op[op] = form_outcome(offered(env.get("result")), str(node["node_id"]))
        out[kind] = {"form": text, **per_op}
    return out


# -- one corpus -------------------------------------------------------------------------------
@dataclass
class Options:
    cache: Path
    codegraph: str | None
    forms: bool
    verbose: bool = False
    notes: dict[str, str] = field(default_factory=dict)


def run_corpus(name: str, opts: Options, tmp: Path) -> dict[str, Any]:
    oracle = load_oracle(name)
    lang = oracle["language"]
    src = fetch(oracle, opts.cache)
    sites = oracle_sites(oracle, src)
    report: dict[str, Any] = {
        "language": lang,
        "package": f"{oracle['package']['name']} {oracle['package']['version']}",
        "targets": len(oracle["targets"]),
        "sites": sum(len(v) for v in sites.values()),
    }
    rg = Ragraf(copy_corpus(oracle, src, tmp / "ragraf" / name))
    report["ragraf_index"] = rg.index()
    cg = None
    if opts.codegraph:
        cg = Codegraph(opts.codegraph, copy_corpus(oracle, src, tmp / "codegraph" / name))
        report["codegraph_index"] = cg.index()
        if report["codegraph_index"].get("error"):
            cg = None
    per_target = []
    cache_nodes: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for t in oracle["targets"]:
        row: dict[str, Any] = {"id": t["id"], "sites": len(sites[t["id"]])}
        key = ("ragraf", t["path"])
        if key not in cache_nodes:
            cache_nodes[key] = rg.nodes(t["path"])
        node = find_decl(cache_nodes[key], t)
        if node is None:
            none = score(sites[t["id"]], [])
            row["ragraf"] = {"stated": none, "stated_derived": none, "error": NO_DECL}
        else:
            ans = rg.callers(str(node["node_id"]))
            st = score(sites[t["id"]], ans["stated"])
            sd = score(sites[t["id"]], ans["stated"] + ans["derived"])
            row["ragraf"] = {
                "fqn": node.get("fqn"),
                "stated": st,
                "stated_derived": sd,
                "unresolved": ans["unresolved"],
                **({"error": ans["error"]} if ans["error"] else {}),
            }
            if opts.forms:
                row["forms"] = check_forms(rg, lang, t, node)
        if cg is not None:
            key = ("codegraph", t["path"])
            if key not in cache_nodes:
                cache_nodes[key] = cg.nodes(t["path"])
            cnode = find_decl(cache_nodes[key], t)
            if cnode is None:
                row["codegraph"] = {**score(sites[t["id"]], []), "error": NO_DECL}
            else:
                cans = cg.callers(cnode, t["path"])
                row["codegraph"] = {
                    **score(sites[t["id"]], cans["callers"]),
                    **({"error": cans["error"]} if cans["error"] else {}),
                }
        per_target.append(row)
    report["summary"] = summarize(per_target)
    report["per_target"] = per_target
    return report


def _sum(rows: list[dict[str, Any]], tool: str, part: str | None) -> dict[str, Any]:
    answers = [(r.get(tool) or {}) for r in rows]
    no_decl = sum(1 for a in answers if a.get("error") == NO_DECL)
    got = [a.get(part) if part else a for a in answers]
    got = [g for g in got if isinstance(g, dict) and "sites" in g]
    sites = sum(g["sites"] for g in got)
    covered = sum(g["covered"] for g in got)
    listed = sum(g["listed"] for g in got)
    correct = sum(g["correct"] for g in got)
    return {
        "targets": len(got),
        "no_declaration": no_decl,
        "sites": sites,
        "covered": covered,
        "listed": listed,
        "correct": correct,
        "recall": ratio(covered, sites),
        "precision": ratio(correct, listed),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ragraf_stated": _sum(rows, "ragraf", "stated"),
        "ragraf_stated_derived": _sum(rows, "ragraf", "stated_derived"),
        "codegraph": _sum(rows, "codegraph", None),
    }
    for op in ("callers", "symbol"):
        forms: dict[str, Counter[str]] = {}
        for r in rows:
            for kind, f in (r.get("forms") or {}).items():
                forms.setdefault(kind, Counter())[f[op]] += 1
        if forms:
            out[f"forms_{op}"] = {k: dict(sorted(v.items())) for k, v in forms.items()}
    return out


def by_language(corpora: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per language: every target of its corpora together."""
    langs: dict[str, list[dict[str, Any]]] = {}
    for rep in corpora.values():
        langs.setdefault(rep["language"], []).extend(rep["per_target"])
    return {lang: summarize(rows) for lang, rows in sorted(langs.items())}


def markdown(report: dict[str, Any]) -> str:
    def rp(s: dict[str, Any]) -> str:
        if not s.get("targets"):
            return "n/a"
        return f"{s['recall']} / {s['precision']}"

    lines = [
        "| language | corpora | targets | sites | ragraf stated R / P | ragraf stated+derived"
        " R / P | codegraph 1.6.1 R / P | name forms resolving (callers) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for lang, s in report["languages"].items():
        reps = [r for r in report["corpora"].values() if r["language"] == lang]
        names = ", ".join(r["package"] for r in reps)
        targets = sum(r["targets"] for r in reps)
        sites = sum(r["sites"] for r in reps)
        forms = s.get("forms_callers") or {}
        res = sum(c.get("resolves", 0) for c in forms.values())
        tot = sum(sum(c.values()) for c in forms.values())
        lines.append(
            f"| {lang} | {names} | {targets} | {sites} | {rp(s['ragraf_stated'])} | "
            f"{rp(s['ragraf_stated_derived'])} | {rp(s['codegraph'])} | {res}/{tot} |"
        )
    return "\n".join(lines)


# -- authoring ----------------------------------------------------------------------------------
def print_sites(name: str, pattern: str, cache: Path) -> None:
    """Candidate call lines for an oracle: every line of the corpus matching ``pattern``
    (comment-only lines left out) with its enclosing declarations. Read each one."""
    oracle = load_oracle(name)
    lang = oracle["language"]
    root = fetch(oracle, cache)
    enc = Enclosures(root, lang)
    rx = re.compile(pattern)
    for p in sorted(root.rglob("*")):
        if not p.is_file() or not p.name.endswith(SUFFIXES[lang]) or p.name.endswith(".d.ts"):
            continue
        rel = p.relative_to(root).as_posix()
        only = oracle["package"].get("only")
        if only and not any(rel.startswith(o + "/") for o in only):
            continue
        for i, text in enumerate(p.read_text("utf-8", "replace").split("\n"), 1):
            if rx.search(text) and not text.strip().startswith(("#", "//", "*", "/*")):
                chain = " < ".join(f"{e.name}@{e.start}-{e.end}" for e in enc.chain(rel, i))
                print(f"{rel}:{i} in {chain} | {text.strip()[:110]}")


def main() -> None:
    names = sorted(p.stem for p in ORACLES.glob("*.json"))
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="corpora: " + ", ".join(names),
    )  # fmt: skip
    ap.add_argument("--corpus", action="append", choices=names, help="only this corpus (repeat)")
    ap.add_argument("--lang", action="append", help="only the corpora of this language (repeat)")
    ap.add_argument("--no-codegraph", action="store_true", help="skip codegraph")
    ap.add_argument("--codegraph", default=None, help="a codegraph binary (else npm installs one)")
    ap.add_argument("--no-forms", action="store_true", help="skip the name-form check")
    ap.add_argument("--cache", type=Path, default=default_cache(), help="where corpora are kept")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON report here")
    ap.add_argument("--markdown", action="store_true", help="also print the summary table")
    ap.add_argument("--check-oracle", action="store_true", help="check the oracles, run no tool")
    ap.add_argument("--sites", nargs=2, metavar=("CORPUS", "REGEX"), help="authoring aid")
    args = ap.parse_args()
    if args.sites:
        print_sites(args.sites[0], args.sites[1], args.cache)
        return
    chosen = [n for n in names if (not args.corpus or n in args.corpus)]
    if args.lang:
        chosen = [n for n in chosen if load_oracle(n)["language"] in args.lang]
    if args.check_oracle:
        for n in chosen:
            o = load_oracle(n)
            got = oracle_sites(o, fetch(o, args.cache))
            print(f"{n}: {len(got)} targets, {sum(len(v) for v in got.values())} sites: ok")
        return
    binary, how = (
        (None, "skipped") if args.no_codegraph else codegraph_binary(args.codegraph, args.cache)
    )
    opts = Options(args.cache, binary, not args.no_forms)
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "ragraf_commit": _git_head(),
        "codegraph": how if binary else f"not run: {how}",
        "corpora": {},
    }
    with tempfile.TemporaryDirectory(prefix="ragraf-langcalls-") as tmp:
        for n in chosen:
            report["corpora"][n] = run_corpus(n, opts, Path(tmp))
    report["languages"] = by_language(report["corpora"])
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    if args.markdown:
        print(markdown(report))


def _git_head() -> str:
    run = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)  # fmt: skip
    return run.stdout.strip()


if __name__ == "__main__":
    main()

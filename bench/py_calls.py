"""Precision of Python's stated call edges on a seeded sample, index time and peak RSS; run
by hand (issue 14).

    .venv/bin/python bench/py_calls.py                       # this project's ragraf/
    .venv/bin/python bench/py_calls.py --sdist sqlglot       # a PyPI source distribution
    .venv/bin/python bench/py_calls.py --root PATH [--sample 40] [--seed 14]

Copies the tree into a temporary folder, runs the real CLI (``ragraf index --force --json
--no-vectors``) while sampling the RSS of its process tree (``bench/index.py``), draws a
seeded sample of the stated ``calls`` edges and judges each with an oracle of its own: the
standard library's ``ast`` over the caller's file (no tree-sitter, nothing from
``ragraf.lang``). The oracle finds the calls on the evidence line whose callee has the
target's name, resolves what the callee names — a function or class of the module or an
enclosing function, an import (re-exports followed through the corpus' modules), ``self.`` /
``cls.`` / ``super()`` through the class's bases, a class or module name, a parameter's
annotation, a local or ``self.x`` assigned a class instance — and says **correct** (the
target), **wrong** (another corpus declaration, or no call of that name on the line) or
**unknown** (it cannot tell). Precision = correct / (correct + wrong). Prints one JSON
report; record it in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import ast
import json
import platform
import random
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.index import timed_index  # noqa: E402
from bench.lang_recall import fetch_sdist  # noqa: E402
from ragraf import config  # noqa: E402
from ragraf.store import manifest  # noqa: E402
from ragraf.store.graph import GraphStore  # noqa: E402
from ragraf.store.ranges import live, rev_no  # noqa: E402

CORRECT, WRONG, UNKNOWN = "correct", "wrong", "unknown"
MAX_HOPS = 6


def module_name(path: str) -> str:
    stem = path[:-3]
    if stem.endswith("/__init__") or stem == "__init__":
        stem = stem[: -len("__init__")].rstrip("/")
    return stem.replace("/", ".")


class Mod:
    """One module as the oracle sees it."""

    def __init__(self, path: str, tree: ast.Module) -> None:
        self.path = path
        self.name = module_name(path)
        self.package = self.name if path.endswith("__init__.py") else self.name.rpartition(".")[0]
        self.tree = tree
        self.defs: dict[str, ast.AST] = {}
        self.imports: dict[str, str] = {}  # bound name -> dotted
        self.stars: list[str] = []  # modules of ``from m import *``
        for st in tree.body:
            self._top(st)

    def _top(self, st: ast.stmt) -> None:
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.defs[st.name] = st
        elif isinstance(st, ast.Import | ast.ImportFrom):
            self.imports.update(imports_of(st, self.package))
            if isinstance(st, ast.ImportFrom) and any(a.name == "*" for a in st.names):
                self.stars.append(imports_of_star(st, self.package))
        elif isinstance(st, ast.If | ast.Try):
            for sub in [*st.body, *getattr(st, "orelse", []), *getattr(st, "handlers", [])]:
                if isinstance(sub, ast.ExceptHandler):
                    for s2 in sub.body:
                        self._top(s2)
                else:
                    self._top(sub)


def imports_of(st: ast.Import | ast.ImportFrom, package: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(st, ast.Import):
        for a in st.names:
            if a.asname:
                out[a.asname] = a.name
            else:
                head = a.name.split(".")[0]
                out[head] = head
        return out
    base = st.module or ""
    if st.level:
        parts = package.split(".") if package else []
        if st.level > 1:
            parts = parts[: len(parts) - (st.level - 1)]
        base = ".".join([*parts, *([st.module] if st.module else [])])
    for a in st.names:
        if a.name != "*":
            out[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
    return out


def imports_of_star(st: ast.ImportFrom, package: str) -> str:
    base = st.module or ""
    if st.level:
        parts = package.split(".") if package else []
        if st.level > 1:
            parts = parts[: len(parts) - (st.level - 1)]
        base = ".".join([*parts, *([st.module] if st.module else [])])
    return base


class Oracle:
    def __init__(self, root: Path, paths: list[str]) -> None:
        self.root = root
        self.mods: dict[str, Mod] = {}
        for p in paths:
            try:
                tree = ast.parse((root / p).read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            m = Mod(p, tree)
            self.mods.setdefault(m.name, m)
        self.by_path = {m.path: m for m in self.mods.values()}

    # -- what a dotted name is ---------------------------------------------------------------
    def entity(self, dotted: str, hops: int = 0) -> tuple[str, Any] | None:
        """("func" | "class", (module, node, fqn)) | ("module", Mod) | None (outside)."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            m = self.mods.get(".".join(parts[:i]))
            if m is None:
                continue
            rest = parts[i:]
            if not rest:
                return ("module", m)
            return self.member(m, rest, hops)
        return None

    def member(self, m: Mod, rest: list[str], hops: int) -> tuple[str, Any] | None:
        name = rest[0]
        node = m.defs.get(name)
        if node is not None:
            fqn = f"{m.name}.{name}" if m.name else name
            if isinstance(node, ast.ClassDef):
                if len(rest) == 1:
                    return ("class", (m, node, fqn))
                return None
            return ("func", (m, node, fqn)) if len(rest) == 1 else None
        if name in m.imports and hops < MAX_HOPS:
            return self.entity(".".join([m.imports[name], *rest[1:]]), hops + 1)
        if hops < MAX_HOPS:
            for star in m.stars:
                sm = self.mods.get(star)
                if sm is not None and sm is not m:
                    got = self.member(sm, rest, hops + 1)
                    if got is not None:
                        return got
        return None

    def name_in(self, m: Mod, scopes: list[ast.AST], name: str) -> tuple[str, Any] | None:
        """A bare name at a call site: enclosing functions' nested defs, the module, imports."""
        for sc in reversed(scopes):
            if isinstance(sc, ast.FunctionDef | ast.AsyncFunctionDef):
                for st in ast.walk(sc):
                    if (
                        st is not sc
                        and isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                        and st.name == name
                    ):
                        fqn = self.fqn_of(m, scopes[: scopes.index(sc) + 1]) + "." + name
                        kind = "class" if isinstance(st, ast.ClassDef) else "func"
                        return (kind, (m, st, fqn))
                    if isinstance(st, ast.Import | ast.ImportFrom):  # a function-local import
                        bound = imports_of(st, m.package)
                        if name in bound:
                            return self.entity(bound[name])
        if name in m.defs or name in m.imports:
            return self.member(m, [name], 0)
        return None

    def fqn_of(self, m: Mod, scopes: list[ast.AST]) -> str:
        names = [
            s.name
            for s in scopes
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        return ".".join([m.name, *names] if m.name else names)

    # -- classes -------------------------------------------------------------------------------
    def bases(self, m: Mod, cls: ast.ClassDef) -> list[tuple[Mod, ast.ClassDef, str]] | None:
        """The corpus bases of a class (None: a base the oracle cannot see)."""
        out = []
        for b in cls.bases:
            if isinstance(b, ast.Subscript):
                b = b.value
            text = ast.unparse(b)
            if text in ("object", "Generic", "Protocol", "ABC", "abc.ABC"):
                continue
            head, _, tail = text.partition(".")
            if head in m.defs and not tail and isinstance(m.defs[head], ast.ClassDef):
                node = m.defs[head]
                assert isinstance(node, ast.ClassDef)
                out.append((m, node, f"{m.name}.{head}"))
                continue
            dotted = m.imports.get(head)
            e = self.entity(dotted + ("." + tail if tail else "")) if dotted else None
            if e is None or e[0] != "class":
                return None
            out.append(e[1])
        return out

    def lookup(self, m: Mod, cls: ast.ClassDef, fqn: str, attr: str, depth: int = 0) -> str | None:
        """The fqn of the method ``attr`` a class runs (MRO depth-first), or "?" when a base
        is outside the corpus, None when no class has it."""
        if depth > 12:
            return "?"
        for st in cls.body:
            if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef) and st.name == attr:
                return f"{fqn}.{attr}"
        bases = self.bases(m, cls)
        if bases is None:
            return "?"
        for bm, bc, bf in bases:
            got = self.lookup(bm, bc, bf, attr, depth + 1)
            if got is not None:
                return got
        return None

    # -- a call site -------------------------------------------------------------------------
    def judge(self, path: str, line: int, dst: str, dst_kind: str) -> tuple[str, str]:
        m = self.by_path.get(path)
        if m is None:
            return UNKNOWN, "caller not parsed"
        short = dst.rsplit(".", 1)[-1]
        ctor = short == "__init__"
        sites = list(self.calls_on(m, line))
        verdicts: list[tuple[str, str]] = []
        for call, scopes in sites:
            v = self.judge_call(m, call, scopes, dst, short, ctor)
            if v is not None:
                verdicts.append(v)
        if not verdicts:
            return WRONG, "no call of that name on the line"
        for want in (CORRECT, UNKNOWN):
            for v in verdicts:
                if v[0] == want:
                    return v
        return verdicts[0]

    def calls_on(self, m: Mod, line: int) -> list[tuple[ast.expr, list[ast.AST]]]:
        out: list[tuple[ast.expr, list[ast.AST]]] = []

        def visit(node: ast.AST, scopes: list[ast.AST]) -> None:
            inner = scopes
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for d in node.decorator_list:
                    f = d.func if isinstance(d, ast.Call) else d
                    if getattr(f, "end_lineno", None) == line:
                        out.append((f, scopes))
                inner = [*scopes, node]
            if isinstance(node, ast.Call) and getattr(node.func, "end_lineno", None) == line:
                out.append((node.func, scopes))
            for child in ast.iter_child_nodes(node):
                visit(child, inner)

        visit(m.tree, [])
        return out

    def judge_call(
        self, m: Mod, fn: ast.expr, scopes: list[ast.AST], dst: str, short: str, ctor: bool
    ) -> tuple[str, str] | None:
        name = (
            fn.id
            if isinstance(fn, ast.Name)
            else fn.attr
            if isinstance(fn, ast.Attribute)
            else None
        )
        if name is None:
            return None
        if ctor:
            if name != "__init__" and not name[:1].isupper():
                return None
        elif name != short:
            return None
        if isinstance(fn, ast.Name):
            e = self.name_in(m, scopes, name)
            return self.verdict_entity(e, dst, ctor, "name")
        value = fn.value
        if ctor and name != "__init__":  # mod.Class(...)
            d = self.dotted(m, fn, scopes)
            return self.verdict_entity(self.entity(d) if d else None, dst, ctor, "dotted class")
        # super().m() / super(C, self).m()
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
        ):
            cls = self.enclosing_class(scopes)
            if cls is None:
                return UNKNOWN, "super() outside a class"
            bases = self.bases(m, cls)
            if bases is None:
                return UNKNOWN, "a base outside the corpus"
            for bm, bc, bf in bases:
                got = self.lookup(bm, bc, bf, name)
                if got is not None:
                    return self.compare(got, dst, "super()")
            return WRONG, "no base has it"
        recv = self.receiver_class(m, value, scopes)
        if recv == "module":
            dotted = self.dotted(m, value, scopes)
            e = self.entity(f"{dotted}.{name}") if dotted else None
            return self.verdict_entity(e, dst, ctor, "module attribute")
        if recv is None:
            return UNKNOWN, "receiver not typed by the oracle"
        rm, rc, rf = recv
        if ctor:
            return UNKNOWN, "attribute instantiation"
        got = self.lookup(rm, rc, rf, name)
        if got is None:
            return WRONG, f"{rf} has no {name}"
        return self.compare(got, dst, "typed receiver")

    def compare(self, got: str, dst: str, how: str) -> tuple[str, str]:
        if got == "?":
            return UNKNOWN, f"{how}: a base outside the corpus"
        return (CORRECT, how) if got == dst else (WRONG, f"{how}: oracle says {got}")

    def verdict_entity(
        self, e: tuple[str, Any] | None, dst: str, ctor: bool, how: str
    ) -> tuple[str, str]:
        if e is None:
            return UNKNOWN, f"{how}: outside the corpus or not found"
        kind, val = e
        if kind == "func":
            return (CORRECT, how) if val[2] == dst else (WRONG, f"{how}: oracle says {val[2]}")
        if kind == "class":
            cm, cc, cf = val
            if not ctor:
                return WRONG, f"{how}: a class {cf}"
            got = self.lookup(cm, cc, cf, "__init__")
            if got is None:
                return WRONG, f"{cf} has no __init__"
            return self.compare(got, dst, how + " (instantiation)")
        return UNKNOWN, how

    def enclosing_class(self, scopes: list[ast.AST]) -> ast.ClassDef | None:
        for sc in reversed(scopes):
            if isinstance(sc, ast.ClassDef):
                return sc
        return None

    def class_path(self, m: Mod, scopes: list[ast.AST]) -> tuple[Mod, ast.ClassDef, str] | None:
        for i in range(len(scopes) - 1, -1, -1):
            if isinstance(scopes[i], ast.ClassDef):
                cls = scopes[i]
                assert isinstance(cls, ast.ClassDef)
                return (m, cls, self.fqn_of(m, scopes[: i + 1]))
        return None

    def dotted(self, m: Mod, value: ast.expr, scopes: list[ast.AST]) -> str | None:
        if isinstance(value, ast.Name):
            return m.imports.get(value.id)
        if isinstance(value, ast.Attribute):
            base = self.dotted(m, value.value, scopes)
            return f"{base}.{value.attr}" if base else None
        return None

    def class_named(
        self, m: Mod, scopes: list[ast.AST], expr: ast.expr | None
    ) -> tuple[Mod, ast.ClassDef, str] | None:
        """The corpus class an annotation or a constructor callee names."""
        if expr is None:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            try:
                expr = ast.parse(expr.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(expr, ast.Name):
            e = self.name_in(m, scopes, expr.id)
        elif isinstance(expr, ast.Attribute):
            d = self.dotted(m, expr, scopes)
            e = self.entity(d) if d else None
        else:
            return None
        return e[1] if e is not None and e[0] == "class" else None

    def receiver_class(
        self, m: Mod, value: ast.expr, scopes: list[ast.AST]
    ) -> tuple[Mod, ast.ClassDef, str] | str | None:
        func = next(
            (s for s in reversed(scopes) if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)),
            None,
        )
        if isinstance(value, ast.Name):
            n = value.id
            if func is not None:
                args = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
                if args and args[0].arg == n and n in ("self", "cls"):
                    return self.class_path(m, scopes[: scopes.index(func)])
                for a in args:
                    if a.arg == n:
                        return self.class_named(m, scopes, a.annotation)
                for st in ast.walk(func):
                    if isinstance(st, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == n for t in st.targets
                    ):
                        if isinstance(st.value, ast.Call):
                            return self.class_named(m, scopes, st.value.func)
                        return None
                    if (
                        isinstance(st, ast.AnnAssign)
                        and isinstance(st.target, ast.Name)
                        and st.target.id == n
                    ):
                        return self.class_named(m, scopes, st.annotation)
            e = self.name_in(m, scopes, n)
            if e is not None and e[0] == "class":
                return e[1]  # a class method through the class
            if e is not None and e[0] == "module":
                return "module"
            if n in m.imports and self.entity(m.imports[n]) is not None:
                got = self.entity(m.imports[n])
                if got is not None and got[0] == "module":
                    return "module"
            return None
        if isinstance(value, ast.Attribute):
            if isinstance(value.value, ast.Name) and value.value.id == "self":
                cp = self.class_path(m, scopes)
                if cp is None:
                    return None
                _m, cls, _f = cp
                for st in ast.walk(cls):
                    if isinstance(st, ast.AnnAssign):
                        t = st.target
                        if (isinstance(t, ast.Attribute) and t.attr == value.attr) or (
                            isinstance(t, ast.Name) and t.id == value.attr
                        ):
                            return self.class_named(m, scopes, st.annotation)
                    if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
                        for t in st.targets:
                            if isinstance(t, ast.Attribute) and t.attr == value.attr:
                                return self.class_named(m, scopes, st.value.func)
                return None
            d = self.dotted(m, value, scopes)
            if d:
                e = self.entity(d)
                if e is not None and e[0] == "module":
                    return "module"
                if e is not None and e[0] == "class":
                    return e[1]
        return None


def stated_calls(root: Path) -> list[tuple[str, str, int, str, str]]:
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        rows = g.db.query(
            "SELECT e.edge_uid, e.evidence_path, e.evidence_line, d.fqn, d.kind FROM edge e"
            f" JOIN node d ON d.node_id=e.dst AND {live('d')}"
            f" WHERE {live('e')} AND e.provenance='stated' AND e.kind='calls'"
            " AND e.evidence_path LIKE '%.py' AND d.path LIKE '%.py'",
            (rev_no(rev),),
        )
    finally:
        g.close()
    return sorted((str(u), str(p), int(ln), str(f), str(k)) for u, p, ln, f, k in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--sdist", default=None)
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--seed", type=int, default=14)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragraf-pycalls-") as tmp:
        work = Path(tmp) / "corpus"
        if args.sdist:
            src = fetch_sdist(args.sdist, Path(tmp) / "dl")
            corpus = f"sdist:{args.sdist}"
            tops = list(src.iterdir())
            if len(tops) == 1 and tops[0].is_dir():  # name-version/: the project's root
                corpus += f" ({tops[0].name})"
                src = tops[0]
            shutil.copytree(src, work)
        else:
            src = args.root or REPO / "ragraf"
            corpus = str(src)
            shutil.copytree(src, work / src.name, ignore=shutil.ignore_patterns("__pycache__"))
        config.init_project(work)
        run = timed_index(work)
        wall, peak_kib = run.wall, run.peak_kib
        edges = stated_calls(work)
        pick = random.Random(args.seed).sample(edges, min(args.sample, len(edges)))
        paths = sorted(p.relative_to(work).as_posix() for p in work.rglob("*.py"))
        oracle = Oracle(work, [p for p in paths if ".ragraf" not in p])
        verdicts = []
        for _uid, path, line, fqn, kind in sorted(pick, key=lambda e: (e[1], e[2], e[3])):
            v, why = oracle.judge(path, line, fqn, kind)
            verdicts.append({"site": f"{path}:{line}", "target": fqn, "verdict": v, "why": why})
        # control: the same sites with another edge's target must not judge correct
        rng = random.Random(args.seed + 1)
        control: Counter[str] = Counter()
        for _uid, path, line, fqn, _kind in pick:
            other = rng.choice([e for e in edges if e[3] != fqn])
            control[oracle.judge(path, line, other[3], other[4])[0]] += 1
        c = Counter(v["verdict"] for v in verdicts)
        known = c[CORRECT] + c[WRONG]
        print(
            json.dumps(
                {
                    "corpus": corpus,
                    "machine": f"{platform.machine()} {platform.python_version()}",
                    "index_wall_s": round(wall, 2),
                    "peak_rss_mib": round(peak_kib / 1024, 1),
                    "python_files": len(paths),
                    "stated_call_edges": len(edges),
                    "sample": len(pick),
                    "seed": args.seed,
                    "correct": c[CORRECT],
                    "wrong": c[WRONG],
                    "unknown": c[UNKNOWN],
                    "precision": round(c[CORRECT] / known, 4) if known else None,
                    "not_correct": [v for v in verdicts if v["verdict"] != CORRECT],
                    "control_wrong_targets": dict(sorted(control.items())),
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()

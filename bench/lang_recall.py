"""Definition recall of a language's extractor against universal-ctags, run by hand.

    .venv/bin/python bench/lang_recall.py                    # this project's ragraf/
    .venv/bin/python bench/lang_recall.py --root PATH        # any tree
    .venv/bin/python bench/lang_recall.py --sdist sqlglot    # a PyPI source distribution
    .venv/bin/python bench/lang_recall.py --lang go --deb golang-github-spf13-cobra-dev
    .venv/bin/python bench/lang_recall.py --lang java --jdk java.base/java/util/ --index
    .venv/bin/python bench/lang_recall.py --lang rust --deb librust-regex-syntax-dev
    .venv/bin/python bench/lang_recall.py --lang kotlin --npm expo-modules-core
    .venv/bin/python bench/lang_recall.py --lang javascript --npm express --precision 40
    .venv/bin/python bench/lang_recall.py --lang typescript --npm typescript --precision 40

Runs the language's extractor (``ragraf.lang.registry.extract``, what `ragraf index` runs)
on every file of the tree and ``ctags -R`` with the matching kinds, then compares the
definitions by (name, path, line): recall = ctags definitions the extractor also has /
ctags definitions. An sdist is fetched with ``pip download --no-deps --no-binary :all:``,
a Debian binary package (``--deb``; a ``golang-*-dev`` ships Go sources under
/usr/share/gocode) with ``apt-get download`` + ``dpkg-deb -x``, an npm package with
``npm pack``, Java sources from Debian's ``openjdk-17-source`` (``--jdk PREFIX``: the files
of its src.zip under PREFIX), each into a temporary folder (never into the repository).
Only files with the language's suffixes are compared (ctags' own suffix map differs: it
reads ``.h`` as C++); a ctags name qualified by ``.``, ``:`` or ``::`` (Lua's ``T.f``) is
compared by its last part, as ragraf names a declaration. ``--index`` also runs ``ragraf
index --no-vectors`` on a copy of the tree (index time, the child's peak RSS) and checks a
sample of 40 stated call edges of the language against a grep/type oracle
(``stated_precision``): the evidence line calls the callee's name (``new C`` / ``this(``
/ ``super(`` for a constructor) and the callee's class or package is visible from the
calling file (same directory or package, or named in the file). Prints one JSON report
(with up to 20 missed definitions and every edge the oracle rejects); record it in
docs/PERFORMANCE.md with the machine and the date. Needs ``ctags`` (Debian:
universal-ctags) on PATH, and ``npm`` for ``--npm``.

ctags artefacts left out of the JavaScript comparison (counted in the report): its
``AnonymousFunction...`` tags (no name in the source), and ``class`` tags on a line that
declares no class of that name (ctags calls an object literal with methods or with object
values, and the owner of ``X.prototype.m = ...``, a class). A ctags definition missed by
name but found under the other name of the same definition (``X.Template = class
TemplateImpl``, ``module.exports = class Compiler``, ``let h = function named()``: ctags
tags the target, the own name, or both; ragraf keeps one) is counted apart
(``same_definition_other_name``: our definition on that line, the line naming both, ctags
tagging at most two names there); ``recall_by_definition`` counts it as found, ``recall``
does not.

``--precision N`` also indexes the corpus (``ragraf index --force --no-vectors`` in a child
process: wall time and peak RSS of its process tree, as ``bench/index.py``) and judges a
seeded random sample of N stated call edges with an oracle independent of the extractor
(``judge_call``): the callee's name must be called on the evidence line (``name(``,
``name<T>(``, ``new Class``, ``super(``, ``<Component``), and the callee's file must be the
caller's, or one the caller's file names in an ``import`` / ``require`` / ``export ...
from`` specifier (probed like Node and TypeScript do), directly or through the
re-exports of those files (up to 3 hops), or hold a class the caller's class extends.
precision = correct / (correct + wrong).

Callers of chosen functions against hand-written oracles, per language and beside
codegraph, and the name forms people type: ``bench/lang_calls.py`` (issue 40).
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ragraf.lang import registry  # noqa: E402

_TAGS_NODES = ("class", "interface", "trait", "enum", "module", "namespace", "function", "method")
#: per language: ({ctags language: ctags kinds}, node kinds compared)
KINDS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "python": ({"Python": "cfm"}, ("class", "function", "method")),
    "php": ({"PHP": "cfit"}, ("class", "interface", "trait", "enum", "function", "method")),
    # functions and methods, structs, interfaces, named types, aliases, interface methods
    "go": ({"Go": "fstian"}, ("class", "interface", "function", "method")),
    # annotation types, classes (records too), enums, interfaces, methods and constructors
    "java": ({"Java": "acgim"}, ("class", "interface", "enum", "method")),
    # tags level (ragraf/lang/tags.py); universal-ctags 5.9 has no Swift nor Scala parser
    "ruby": ({"Ruby": "cfmS"}, _TAGS_NODES),
    "csharp": ({"C#": "cgimns"}, _TAGS_NODES),
    "rust": ({"Rust": "MPfgins"}, _TAGS_NODES),
    "kotlin": ({"Kotlin": "ciom"}, _TAGS_NODES),
    "c": ({"C": "fgsu", "C++": "cfgnsu"}, _TAGS_NODES),
    "cpp": ({"C++": "cfgnsu"}, _TAGS_NODES),
    "lua": ({"Lua": "f"}, _TAGS_NODES),
    "bash": ({"Sh": "f"}, _TAGS_NODES),
    "javascript": ({"JavaScript": "cfmgGS"}, ("class", "function", "method")),
    "typescript": ({"TypeScript": "cfimgG"}, ("class", "interface", "enum", "function", "method")),
}
#: suffixes ctags 5.9 does not map to the language by itself
CTAGS_MAPS = {
    "javascript": ["--map-JavaScript=+.cjs"],
    "typescript": ["--map-TypeScript=+.mts", "--map-TypeScript=+.cts"],
}
#: stated call edges checked per corpus by the oracle
SAMPLE = 40
#: how many lines before its name a declaration may start (modifiers on their own lines)
SIGNATURE_LINES = 3


def fetch_sdist(name: str, dest: Path) -> Path:
    """Download and unpack the source distribution of ``name``; returns its folder."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
        + ["-d", str(dest), name],
        check=True,
    )
    archive = next(p for p in dest.iterdir() if p.is_file())
    out = dest / "src"
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(out)
    else:
        with tarfile.open(archive) as t:
            t.extractall(out, filter="data")
    return out


def fetch_deb(package: str, dest: Path) -> Path:
    """Download and unpack a Debian binary package; returns the Go source root it ships
    (usr/share/gocode/src) or the unpacked tree."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["apt-get", "download", "-q", package], cwd=dest, check=True, capture_output=True
    )
    deb = next(p for p in dest.iterdir() if p.suffix == ".deb")
    out = dest / "deb"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(out)], check=True)
    gocode = out / "usr/share/gocode/src"
    return gocode if gocode.is_dir() else out


def fetch_jdk(prefix: str, dest: Path) -> Path:
    """The Java sources under ``prefix`` of the JDK's src.zip (Debian openjdk-17-source)."""
    root = fetch_deb("openjdk-17-source", dest)
    src = next(root.rglob("src.zip"))
    out = dest / "jdk"
    with zipfile.ZipFile(src) as z:
        for name in z.namelist():
            if name.startswith(prefix) and name.endswith(".java"):
                z.extract(name, out)
    return out


def fetch_npm(name: str, dest: Path) -> Path:
    """``npm pack <name>`` into ``dest`` and unpack it; returns the package folder."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["npm", "pack", name, "--silent", "--pack-destination", str(dest)],
        check=True,
        capture_output=True,
    )
    archive = next(p for p in dest.iterdir() if p.name.endswith(".tgz"))
    out = dest / "src"
    with tarfile.open(archive) as t:
        t.extractall(out, filter="data")
    return out / "package"


def _short(name: str) -> str:
    for q in ("::", ".", ":"):
        name = name.rpartition(q)[2] or name
    return name


def ctags_defs(root: Path, lang: str) -> tuple[set[tuple[str, str, int]], dict[str, int]]:
    """ctags' definitions (name, path, line), and the artefacts left out by kind."""
    kinds, _nk = KINDS[lang]
    suffixes = registry.suffixes_of(lang)
    out = subprocess.run(
        ["ctags", "-R", "--links=no", f"--languages={','.join(kinds)}"]
        + ["--output-format=json", "--fields=+nK"]
        + CTAGS_MAPS.get(lang, [])
        + [f"--kinds-{cl}={k}" for cl, k in kinds.items()]
        + ["-f", "-", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    want = set()
    skipped: dict[str, int] = {}
    lines: dict[str, list[str]] = {}
    for line in out.stdout.splitlines():
        t = json.loads(line)
        path = t.get("path", "").removeprefix("./")
        if t.get("_type") != "tag" or t["name"].startswith(("<", "__anon")) or t["name"][-1] == "=":
            continue  # ctags' Kotlin lambdas, C++ anonymous namespaces, Sh ``a=(...)``: no declared name
        if lang in ("javascript", "typescript"):
            ln = int(t["line"])
            if t["name"].startswith("AnonymousFunction"):
                skipped["anonymous_function"] = skipped.get("anonymous_function", 0) + 1
                continue
            if t.get("kind") == "class":
                if path not in lines:
                    lines[path] = (root / path).read_text("utf-8", "replace").split("\n")
                cname = re.escape(t["name"])
                decl = rf"\bclass\s+{cname}\b|\b{cname}\s*=\s*class\b"
                if not re.search(decl, lines[path][ln - 1]):
                    skipped["class_tag_without_class_declaration"] = (
                        skipped.get("class_tag_without_class_declaration", 0) + 1
                    )
                    continue
            want.add((t["name"], path, ln))
            continue
        name = _short(t["name"])
        if lang == "kotlin" and not re.search(
            rf"\b(fun|class|object|interface)\s+(<[^>]*>\s*)?([\w.]+\.)?`?{re.escape(name)}\b",
            t.get("pattern", ""),
        ):
            continue  # ctags' Kotlin parser also tags lambda parameters as methods
        if Path(path).suffix.lower() in suffixes:
            want.add((name, path, int(t["line"])))
    return want, skipped


def our_defs(root: Path, lang: str) -> tuple[set[tuple[str, str, int]], dict[str, int], float]:
    node_kinds = KINDS[lang][1]
    suffixes = registry.suffixes_of(lang)
    have: set[tuple[str, str, int]] = set()
    status: dict[str, int] = {}
    t0 = time.perf_counter()
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink() or p.suffix.lower() not in suffixes:
            continue
        if "node_modules" in p.parts:
            continue
        rel = p.relative_to(root).as_posix()
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            status["unreadable"] = status.get("unreadable", 0) + 1
            continue
        facts = registry.extract(rel, lang, text, 120)
        status[facts.status] = status.get(facts.status, 0) + 1
        for n in facts.nodes:
            if n.kind in node_kinds:
                # a tags-level declaration that starts with annotations or modifiers on
                # lines of their own keeps its name's line (ctags' line) in ``name_line``
                have.add((n.name, rel, int(n.props.get("name_line", n.start_line))))
    return have, status, time.perf_counter() - t0


def match(
    want: set[tuple[str, str, int]], have: set[tuple[str, str, int]]
) -> set[tuple[str, str, int]]:
    """The ctags definitions the extractor has: a node of that name in that file starting
    on the tag's line, or up to ``SIGNATURE_LINES`` lines before it (ctags gives the line
    of the name; a declaration starts at its modifiers: ``public static <T>`` on a line of
    its own), each node matched once."""
    found = want & have
    spare = sorted(have - want)
    by_file: dict[tuple[str, str], list[int]] = {}
    for name, path, line in spare:
        by_file.setdefault((name, path), []).append(line)
    for name, path, line in sorted(want - have):
        lines = by_file.get((name, path), [])
        hit = next((ln for ln in lines if line - SIGNATURE_LINES <= ln < line), None)
        if hit is not None:
            lines.remove(hit)
            found.add((name, path, line))
    return found


def index_run(root: Path, lang: str, tmp: Path) -> dict[str, object]:
    """Index a copy of the tree (time, peak RSS of the child) and check a sample of its
    stated call edges against the oracle."""
    import random
    import resource

    from ragraf import config
    from ragraf.store.graph import GraphStore

    work = tmp / "indexed"
    shutil.copytree(root, work, symlinks=True)
    env = {**os.environ, "HOME": str(tmp), "XDG_CACHE_HOME": str(tmp / "cache")}
    py = str(REPO / ".venv" / "bin" / "python")
    subprocess.run([py, "-m", "ragraf", "init"], cwd=work, env=env, check=True, capture_output=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    run = subprocess.run(
        [py, "-m", "ragraf", "index", "--no-vectors"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    secs = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if run.returncode != 0:
        return {"index_error": run.stderr[-500:]}
    layout = config.Layout(work)
    g = GraphStore(layout.graph_db, readonly=True)
    db = g.db
    try:
        nodes = {r[0]: r[1:] for r in db.query("SELECT node_id, kind, name, fqn, path FROM node")}
        edges = db.query(
            "SELECT src, dst, evidence_path, evidence_line FROM edge "
            "WHERE kind='calls' AND provenance='stated'"
        )
    finally:
        g.close()
    suffixes = registry.suffixes_of(lang)
    mine = sorted(e for e in edges if e[2] and e[2].endswith(suffixes))
    sample = random.Random(0).sample(mine, min(SAMPLE, len(mine)))
    bad = []
    for _src, dst, path, line in sample:
        ok, why = oracle(work, nodes.get(dst), path, int(line))
        if not ok:
            bad.append(f"{path}:{line} -> {nodes.get(dst, ('?', '?', '?'))[2]}: {why}")
    return {
        "index_s": round(secs, 2),
        "index_peak_rss_mb": round(max(rss, before) / 1024, 1),
        "stated_calls": len(mine),
        "sample": len(sample),
        "stated_precision": round(1 - len(bad) / len(sample), 4) if sample else None,
        "oracle_rejects": bad,
    }


def oracle(
    root: Path, dst: tuple[str, str, str, str | None] | None, path: str, line: int
) -> tuple[bool, str]:
    """Grep/type oracle of one stated call edge: the evidence line calls the callee's name
    and the callee's class (or package) is visible from the calling file."""
    import re

    if dst is None:
        return False, "no callee node"
    kind, name, fqn, dpath = dst
    lines = (root / path).read_text(encoding="utf-8", errors="replace").split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    owner = fqn.rsplit(".", 1)[0] if kind == "method" else ""
    cls = owner.rsplit(".", 1)[-1].rsplit("/", 1)[-1]
    if kind == "method" and name == cls:  # a Java constructor
        called = re.search(rf"\bnew\s+([\w.]+\.)?{re.escape(name)}\b|\b(this|super)\s*\(", text)
    else:
        called = re.search(rf"\b{re.escape(name)}\s*(\[[^\]]*\])?\(", text)
    if not called:
        return False, f"line does not call {name}"
    whole = "\n".join(lines)
    same_dir = dpath is not None and os.path.dirname(dpath) == os.path.dirname(path)
    if kind == "function":  # Go: same package, or the package's name qualifies the call
        pkg = fqn.rsplit(".", 1)[0].rsplit("/", 1)[-1]
        return (
            same_dir or re.search(rf"\b{re.escape(pkg)}\b", whole) is not None,
            f"package {pkg} not visible",
        )
    if same_dir or re.search(rf"\b{re.escape(cls)}\b", whole):
        return True, ""
    # a receiver typed in another file (a field, a returned value, an inherited method):
    # the callee's class must be an ancestor or the declared type of something used here
    return False, f"class {cls} not named in the calling file"


def other_names(
    root: Path,
    want: set[tuple[str, str, int]],
    have: set[tuple[str, str, int]],
    missed: list[tuple[str, str, int]],
) -> set[tuple[str, str, int]]:
    """Missed ctags definitions that are a definition we have under its other name."""
    ours: dict[tuple[str, int], set[str]] = {}
    for n, p, ln in have:
        ours.setdefault((p, ln), set()).add(n)
    per_line: dict[tuple[str, int], int] = {}
    for _n, p, ln in want:
        per_line[(p, ln)] = per_line.get((p, ln), 0) + 1
    out = set()
    for n, p, ln in missed:
        names = ours.get((p, ln), set()) - {n}
        if not names or per_line[(p, ln)] > 2:
            continue
        line = (root / p).read_text("utf-8", "replace").split("\n")[ln - 1]
        if re.search(rf"\b{re.escape(n)}\b", line) and any(
            re.search(rf"\b{re.escape(o)}\b", line) for o in names
        ):
            out.add((n, p, ln))
    return out


# -- precision of stated call edges ------------------------------------------------------
_SPEC = re.compile(
    r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1""",
    re.M,
)
_REEXPORT = re.compile(
    r"""^\s*(?:export\s[^;]*?\bfrom\s*|module\.exports\s*=\s*require\s*\(\s*)(['"])([^'"\n]+)\1""",
    re.M,
)
_PROBE = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


class Oracle:
    """Judges a stated call edge from the files' text alone (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._text: dict[str, str] = {}

    def text(self, rel: str) -> str:
        if rel not in self._text:
            try:
                self._text[rel] = (self.root / rel).read_text("utf-8", "replace")
            except OSError:
                self._text[rel] = ""
        return self._text[rel]

    def resolve(self, importer: str, spec: str) -> str | None:
        if not spec.startswith("."):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        cands = [base]
        stem, ext = os.path.splitext(base)
        if ext in (".js", ".mjs", ".cjs", ".jsx"):
            cands += [stem + e for e in (".ts", ".tsx", ".mts", ".cts", ".d.ts")]
        cands += [base + e for e in _PROBE] + [f"{base}/index{e}" for e in _PROBE]
        return next((c for c in cands if (self.root / c).is_file()), None)

    def imports(self, rel: str, rx: re.Pattern[str] = _SPEC) -> set[str]:
        out = set()
        for m in rx.finditer(self.text(rel)):
            got = self.resolve(rel, m.group(2))
            if got:
                out.add(got)
        return out

    def reachable(self, rel: str, follow_all: bool, hops: int) -> set[str]:
        """Files ``rel`` imports, then (up to ``hops``) what those re-export (or import)."""
        seen = set(self.imports(rel))
        frontier = set(seen)
        for _ in range(hops):
            nxt = set()
            for f in frontier:
                nxt |= self.imports(f, _SPEC if follow_all else _REEXPORT)
            frontier = nxt - seen
            seen |= frontier
        return seen

    def judge(self, path: str, line: int, name: str, kind: str, cls: str, dst_path: str) -> str:
        lines = self.text(path).split("\n")
        code = lines[line - 1] if 0 < line <= len(lines) else ""
        if name == "constructor":
            short = cls.rsplit(".", 1)[-1]
            ok = re.search(rf"\bnew\s+[\w.]*\b{re.escape(short)}\b|\bsuper\s*\(", code)
        else:
            n = re.escape(name)
            ok = re.search(rf"\b{n}\s*(?:<[^()]*>)?\s*\(|<{n}\b|\b{n}\s*`", code)
        if not ok:
            return "wrong"
        if dst_path == path or dst_path in self.reachable(path, False, 3):
            return "correct"
        if dst_path in self.reachable(path, True, 4):
            return "unknown"  # only through what imported files import: a type chain
        return "wrong"


def precision(root: Path, lang: str, sample: int, seed: int) -> dict[str, object]:
    """Index ``root`` (time, peak RSS) and judge a sample of its stated call edges."""
    from bench.index import timed_index
    from ragraf import config
    from ragraf.store import manifest
    from ragraf.store.graph import GraphStore
    from ragraf.store.ranges import live, rev_no

    config.init_project(root)
    run = timed_index(root)
    wall, peak_kib, report = run.wall, run.peak_kib, run.result
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        rows = g.db.query(
            "SELECT e.evidence_path, e.evidence_line, s.fqn, d.fqn, d.name, d.kind, d.path"
            f" FROM edge e JOIN node s ON s.node_id = e.src AND {live('s')}"
            f" JOIN node d ON d.node_id = e.dst AND {live('d')}"
            f" WHERE {live('e')} AND e.kind = 'calls' AND e.provenance = 'stated'"
            " AND d.path IS NOT NULL ORDER BY e.edge_uid",
            (rev_no(rev),),
        )
    finally:
        g.close()
    suffixes = registry.suffixes_of(lang)
    mine = [r for r in rows if str(r[0]).endswith(suffixes)]
    picked = random.Random(seed).sample(mine, min(sample, len(mine)))
    oracle = Oracle(root)
    verdicts: dict[str, int] = {"correct": 0, "wrong": 0, "unknown": 0}
    wrong = []
    for path, line, src, dst, name, kind, dpath in picked:
        v = oracle.judge(path, line, name, kind, dst.rpartition(".")[0], dpath)
        verdicts[v] += 1
        if v != "correct":
            wrong.append(f"{v}: {path}:{line} {src} -> {dst}")
    judged = verdicts["correct"] + verdicts["wrong"]
    return {
        "index_wall_s": round(wall, 2),
        "index_peak_rss_mib": round(peak_kib / 1024, 1),
        "index": {k: report.get(k) for k in ("files", "nodes", "edges") if k in report},
        "stated_call_edges": len(mine),
        "sample": len(picked),
        "seed": seed,
        "verdicts": verdicts,
        "precision": round(verdicts["correct"] / judged, 4) if judged else None,
        "not_correct": wrong[:20],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="python", choices=sorted(KINDS))
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--sdist", default=None, help="a PyPI package name")
    ap.add_argument("--deb", default=None, help="a Debian binary package (sources)")
    ap.add_argument("--jdk", default=None, help="a folder prefix of the JDK's src.zip")
    ap.add_argument("--index", action="store_true", help="index time, RSS, stated precision")
    ap.add_argument("--npm", default=None, help="an npm package name (npm pack)")
    ap.add_argument("--precision", type=int, default=0, help="JS/TS: stated call edges to judge")
    ap.add_argument("--seed", type=int, default=14)
    args = ap.parse_args()
    if shutil.which("ctags") is None:
        sys.exit("ctags (universal-ctags) is not installed")
    with tempfile.TemporaryDirectory(prefix="ragraf-recall-") as tmp:
        if args.sdist:
            root = fetch_sdist(args.sdist, Path(tmp))
            corpus = f"sdist:{args.sdist}"
        elif args.deb:
            root = fetch_deb(args.deb, Path(tmp))
            corpus = f"deb:{args.deb}"
        elif args.jdk:
            root = fetch_jdk(args.jdk, Path(tmp))
            corpus = f"deb:openjdk-17-source:{args.jdk}"
        elif args.npm:
            root = fetch_npm(args.npm, Path(tmp))
            version = json.loads((root / "package.json").read_text()).get("version")
            corpus = f"npm:{args.npm}@{version}"
        else:
            root = args.root or REPO / "ragraf"
            corpus = str(root)
        want, skipped = ctags_defs(root, args.lang)
        have, status, secs = our_defs(root, args.lang)
        found = match(want, have)
        missed = sorted(want - found, key=lambda t: (t[1], t[2]))
        other = other_names(root, want, have, missed)
        missed = [m for m in missed if m not in other]
        have_matched = len(have) - len(have - want) + (len(found) - len(want & have))
        out: dict[str, object] = {
            **(index_run(root, args.lang, Path(tmp)) if args.index else {}),
            "corpus": corpus,
            "lang": args.lang,
            "files": status,
            "extract_s": round(secs, 2),
            "ctags_definitions": len(want),
            "ctags_artefacts_left_out": skipped,
            "found": len(found),
            "recall": round(len(found) / len(want), 4) if want else None,
            "same_definition_other_name": len(other),
            "recall_by_definition": round((len(found) + len(other)) / len(want), 4)
            if want
            else None,
            "ours_not_in_ctags": len(have) - have_matched,
            "missed": [f"{p}:{ln} {n}" for n, p, ln in missed[:20]],
        }
        if args.precision:
            if args.root:
                sys.exit("--precision indexes the tree: use it with --npm or --sdist")
            out["stated_calls"] = precision(root, args.lang, args.precision, args.seed)
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

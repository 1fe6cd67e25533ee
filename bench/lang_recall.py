"""Definition recall of a language's extractor against universal-ctags, run by hand.

    .venv/bin/python bench/lang_recall.py                    # this project's ragraf/
    .venv/bin/python bench/lang_recall.py --root PATH        # any tree
    .venv/bin/python bench/lang_recall.py --sdist sqlglot    # a PyPI source distribution
    .venv/bin/python bench/lang_recall.py --lang javascript --npm express --precision 40
    .venv/bin/python bench/lang_recall.py --lang typescript --npm typescript --precision 40

Runs the language's extractor (``ragraf.lang.registry.extract``, what `ragraf index` runs)
on every file of the tree and ``ctags -R`` with the matching kinds, then compares the
definitions by (name, path, line): recall = ctags definitions the extractor also has /
ctags definitions. An sdist is fetched with ``pip download --no-deps --no-binary :all:``,
an npm package with ``npm pack`` (the registry's tarball), into a temporary folder (never
into the repository). Prints one JSON report (with up to 20 missed definitions); record it
in docs/PERFORMANCE.md with the machine and the date. Needs ``ctags`` (Debian:
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

#: per language: (ctags language, ctags kinds, node kinds compared)
KINDS = {
    "python": ("Python", "cfm", ("class", "function", "method")),
    "php": ("PHP", "cfit", ("class", "interface", "trait", "enum", "function", "method")),
    "javascript": ("JavaScript", "cfmgGS", ("class", "function", "method")),
    "typescript": ("TypeScript", "cfimgG", ("class", "interface", "enum", "function", "method")),
}
#: suffixes ctags 5.9 does not map to the language by itself
CTAGS_MAPS = {
    "javascript": ["--map-JavaScript=+.cjs"],
    "typescript": ["--map-TypeScript=+.mts", "--map-TypeScript=+.cts"],
}


def fetch_npm(name: str, dest: Path) -> Path:
    """``npm pack <name>`` into ``dest`` and unpack it; returns the package folder."""
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


def ctags_defs(root: Path, lang: str) -> tuple[set[tuple[str, str, int]], dict[str, int]]:
    """ctags' definitions (name, path, line), and the artefacts left out by kind."""
    ctags_lang, kinds, _nk = KINDS[lang]
    out = subprocess.run(
        ["ctags", "-R", f"--languages={ctags_lang}", "--output-format=json", "--fields=+nK"]
        + CTAGS_MAPS.get(lang, [])
        + [f"--kinds-{ctags_lang}={kinds}", "-f", "-", "."],
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
        if t.get("_type") != "tag":
            continue
        path, ln = t["path"].removeprefix("./"), int(t["line"])
        if lang in ("javascript", "typescript"):
            if t["name"].startswith("AnonymousFunction"):
                skipped["anonymous_function"] = skipped.get("anonymous_function", 0) + 1
                continue
            if t.get("kind") == "class":
                if path not in lines:
                    lines[path] = (root / path).read_text("utf-8", "replace").split("\n")
                name = re.escape(t["name"])
                decl = rf"\bclass\s+{name}\b|\b{name}\s*=\s*class\b"
                if not re.search(decl, lines[path][ln - 1]):
                    skipped["class_tag_without_class_declaration"] = (
                        skipped.get("class_tag_without_class_declaration", 0) + 1
                    )
                    continue
        want.add((t["name"], path, ln))
    return want, skipped


def our_defs(root: Path, lang: str) -> tuple[set[tuple[str, str, int]], dict[str, int], float]:
    node_kinds = KINDS[lang][2]
    suffixes = registry.suffixes_of(lang)
    have: set[tuple[str, str, int]] = set()
    status: dict[str, int] = {}
    t0 = time.perf_counter()
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in suffixes or "node_modules" in p.parts:
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
                have.add((n.name, rel, n.start_line))
    return have, status, time.perf_counter() - t0


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

    config.init_project(root)
    wall, peak_kib, report = timed_index(root, None)
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        rows = g.db.query(
            "SELECT e.evidence_path, e.evidence_line, s.fqn, d.fqn, d.name, d.kind, d.path"
            " FROM edge e JOIN node s ON s.node_id = e.src AND s.rev_id = e.rev_id"
            " JOIN node d ON d.node_id = e.dst AND d.rev_id = e.rev_id"
            " WHERE e.rev_id = ? AND e.kind = 'calls' AND e.provenance = 'stated'"
            " AND d.path IS NOT NULL ORDER BY e.edge_uid",
            (rev,),
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
    ap.add_argument("--npm", default=None, help="an npm package name (npm pack)")
    ap.add_argument("--precision", type=int, default=0, help="stated call edges to judge")
    ap.add_argument("--seed", type=int, default=14)
    args = ap.parse_args()
    if shutil.which("ctags") is None:
        sys.exit("ctags (universal-ctags) is not installed")
    with tempfile.TemporaryDirectory(prefix="ragraf-recall-") as tmp:
        if args.sdist:
            root = fetch_sdist(args.sdist, Path(tmp))
            corpus = f"sdist:{args.sdist}"
        elif args.npm:
            root = fetch_npm(args.npm, Path(tmp))
            version = json.loads((root / "package.json").read_text()).get("version")
            corpus = f"npm:{args.npm}@{version}"
        else:
            root = args.root or REPO / "ragraf"
            corpus = str(root)
        want, skipped = ctags_defs(root, args.lang)
        have, status, secs = our_defs(root, args.lang)
        found = want & have
        missed = sorted(want - have, key=lambda t: (t[1], t[2]))
        other = other_names(root, want, have, missed)
        missed = [m for m in missed if m not in other]
        out: dict[str, object] = {
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
            "ours_not_in_ctags": len(have - want),
            "missed": [f"{p}:{ln} {n}" for n, p, ln in missed[:20]],
        }
        if args.precision:
            if args.root:
                sys.exit("--precision indexes the tree: use it with --npm or --sdist")
            out["stated_calls"] = precision(root, args.lang, args.precision, args.seed)
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

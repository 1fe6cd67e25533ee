"""Definition recall of a language's extractor against universal-ctags, run by hand.

    .venv/bin/python bench/lang_recall.py                    # this project's ragraf/
    .venv/bin/python bench/lang_recall.py --root PATH        # any tree
    .venv/bin/python bench/lang_recall.py --sdist sqlglot    # a PyPI source distribution
    .venv/bin/python bench/lang_recall.py --lang rust --deb librust-regex-syntax-dev
    .venv/bin/python bench/lang_recall.py --lang kotlin --npm expo-modules-core

Runs the language's extractor (``ragraf.lang.registry.extract``, what `ragraf index` runs)
on every file of the tree and ``ctags -R`` with the matching kinds, then compares the
definitions by (name, path, line): recall = ctags definitions the extractor also has /
ctags definitions. An sdist is fetched with ``pip download --no-deps --no-binary :all:``,
a Debian binary package with ``apt-get download`` + ``dpkg-deb -x``, an npm package with
``npm pack``, each into a temporary folder (never into the repository). Only files with
the language's suffixes are compared (ctags' own suffix map differs: it reads ``.h`` as
C++); a ctags name qualified by ``.``, ``:`` or ``::`` (Lua's ``T.f``) is compared by its
last part, as ragraf names a declaration. Prints one JSON report (with up to
20 missed definitions); record it in docs/PERFORMANCE.md with the machine and the date.
Needs ``ctags`` (Debian: universal-ctags) on PATH.
"""

from __future__ import annotations

import argparse
import json
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
    # tags level (ragraf/lang/tags.py); universal-ctags 5.9 has no Swift nor Scala parser
    "ruby": ({"Ruby": "cfmS"}, _TAGS_NODES),
    "csharp": ({"C#": "cgimns"}, _TAGS_NODES),
    "rust": ({"Rust": "MPfgins"}, _TAGS_NODES),
    "kotlin": ({"Kotlin": "ciom"}, _TAGS_NODES),
    "c": ({"C": "fgsu", "C++": "cfgnsu"}, _TAGS_NODES),
    "cpp": ({"C++": "cfgnsu"}, _TAGS_NODES),
    "lua": ({"Lua": "f"}, _TAGS_NODES),
    "bash": ({"Sh": "f"}, _TAGS_NODES),
}


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


def fetch_deb(name: str, dest: Path) -> Path:
    """Download a Debian binary package and unpack its files; returns their folder."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", "-q", name], cwd=dest, check=True, capture_output=True)
    deb = next(p for p in dest.iterdir() if p.suffix == ".deb")
    out = dest / "src"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(out)], check=True)
    return out


def fetch_npm(name: str, dest: Path) -> Path:
    """Download an npm package's tarball and unpack it; returns its folder."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "pack", "--silent", name], cwd=dest, check=True, capture_output=True)
    archive = next(p for p in dest.iterdir() if p.name.endswith(".tgz"))
    out = dest / "src"
    with tarfile.open(archive) as t:
        t.extractall(out, filter="data")
    return out


def _short(name: str) -> str:
    for q in ("::", ".", ":"):
        name = name.rpartition(q)[2] or name
    return name


def ctags_defs(root: Path, lang: str) -> set[tuple[str, str, int]]:
    kinds, _nk = KINDS[lang]
    suffixes = registry.suffixes_of(lang)
    out = subprocess.run(
        ["ctags", "-R", "--links=no", f"--languages={','.join(kinds)}"]
        + ["--output-format=json", "--fields=+nK"]
        + [f"--kinds-{cl}={k}" for cl, k in kinds.items()]
        + ["-f", "-", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    want = set()
    for line in out.stdout.splitlines():
        t = json.loads(line)
        path = t.get("path", "").removeprefix("./")
        if t.get("_type") != "tag" or t["name"].startswith(("<", "__anon")) or t["name"][-1] == "=":
            continue  # ctags' Kotlin lambdas, C++ anonymous namespaces, Sh ``a=(...)``: no declared name
        name = _short(t["name"])
        if lang == "kotlin" and not re.search(
            rf"\b(fun|class|object|interface)\s+(<[^>]*>\s*)?([\w.]+\.)?`?{re.escape(name)}\b",
            t.get("pattern", ""),
        ):
            continue  # ctags' Kotlin parser also tags lambda parameters as methods
        if Path(path).suffix.lower() in suffixes:
            want.add((name, path, int(t["line"])))
    return want


def our_defs(root: Path, lang: str) -> tuple[set[tuple[str, str, int]], dict[str, int], float]:
    node_kinds = KINDS[lang][1]
    suffixes = registry.suffixes_of(lang)
    have: set[tuple[str, str, int]] = set()
    status: dict[str, int] = {}
    t0 = time.perf_counter()
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink() or p.suffix.lower() not in suffixes:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="python", choices=sorted(KINDS))
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--sdist", default=None, help="a PyPI package name")
    ap.add_argument("--deb", default=None, help="a Debian binary package name")
    ap.add_argument("--npm", default=None, help="an npm package name")
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
        elif args.npm:
            root = fetch_npm(args.npm, Path(tmp))
            corpus = f"npm:{args.npm}"
        else:
            root = args.root or REPO / "ragraf"
            corpus = str(root)
        want = ctags_defs(root, args.lang)
        have, status, secs = our_defs(root, args.lang)
        found = want & have
        missed = sorted(want - have, key=lambda t: (t[1], t[2]))
        print(
            json.dumps(
                {
                    "corpus": corpus,
                    "lang": args.lang,
                    "files": status,
                    "extract_s": round(secs, 2),
                    "ctags_definitions": len(want),
                    "found": len(found),
                    "recall": round(len(found) / len(want), 4) if want else None,
                    "ours_not_in_ctags": len(have - want),
                    "missed": [f"{p}:{ln} {n}" for n, p, ln in missed[:20]],
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()

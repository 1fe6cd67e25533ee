"""Definition recall of a language's extractor against universal-ctags, run by hand.

    .venv/bin/python bench/lang_recall.py                    # this project's ragraf/
    .venv/bin/python bench/lang_recall.py --root PATH        # any tree
    .venv/bin/python bench/lang_recall.py --sdist sqlglot    # a PyPI source distribution

Runs the language's extractor (``ragraf.lang.registry.extract``, what `ragraf index` runs)
on every file of the tree and ``ctags -R`` with the matching kinds, then compares the
definitions by (name, path, line): recall = ctags definitions the extractor also has /
ctags definitions. An sdist is fetched with ``pip download --no-deps --no-binary :all:``
into a temporary folder (never into the repository). Prints one JSON report (with up to
20 missed definitions); record it in docs/PERFORMANCE.md with the machine and the date.
Needs ``ctags`` (Debian: universal-ctags) on PATH.
"""

from __future__ import annotations

import argparse
import json
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


def ctags_defs(root: Path, lang: str) -> set[tuple[str, str, int]]:
    ctags_lang, kinds, _nk = KINDS[lang]
    out = subprocess.run(
        ["ctags", "-R", f"--languages={ctags_lang}", "--output-format=json", "--fields=+nK"]
        + [f"--kinds-{ctags_lang}={kinds}", "-f", "-", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    want = set()
    for line in out.stdout.splitlines():
        t = json.loads(line)
        if t.get("_type") == "tag":
            want.add((t["name"], t["path"].removeprefix("./"), int(t["line"])))
    return want


def our_defs(root: Path, lang: str) -> tuple[set[tuple[str, str, int]], dict[str, int], float]:
    node_kinds = KINDS[lang][2]
    suffixes = registry.suffixes_of(lang)
    have: set[tuple[str, str, int]] = set()
    status: dict[str, int] = {}
    t0 = time.perf_counter()
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in suffixes:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="python", choices=sorted(KINDS))
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--sdist", default=None, help="a PyPI package name")
    args = ap.parse_args()
    if shutil.which("ctags") is None:
        sys.exit("ctags (universal-ctags) is not installed")
    with tempfile.TemporaryDirectory(prefix="ragraf-recall-") as tmp:
        if args.sdist:
            root = fetch_sdist(args.sdist, Path(tmp))
            corpus = f"sdist:{args.sdist}"
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

"""Benchmark of `ragraf index` on a real corpus (default: phpMyAdmin), run by hand.

    .venv/bin/python bench/index.py [--corpus phpmyadmin] [--runs 3] [--workers N]

Copies the corpus into a temporary folder, runs the real CLI (`ragraf index
--json`) in a child process while sampling the RSS of its whole process tree,
then checks the graph: call resolution against grep, truthfulness of stated
edges, definition recall against universal-ctags. Prints one JSON report;
record it in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402
from ragraf import config  # noqa: E402
from ragraf.store import manifest  # noqa: E402
from ragraf.store.graph import GraphStore  # noqa: E402


def tree_rss_kib(pid: int) -> int:
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def timed_index(root: Path, workers: int | None) -> tuple[float, int, dict]:
    cmd = [
        sys.executable,
        "-m",
        "ragraf",
        "-C",
        str(root),
        "index",
        "--force",
        "--json",
        "--no-vectors",
    ]
    env = dict(os.environ)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_kib(proc.pid))
            time.sleep(0.01)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    if proc.returncode != 0:
        raise SystemExit(f"index failed: {err}")
    return wall, peak, json.loads(out)


def grep_lines(root: Path, pattern: str) -> set[str]:
    rx = re.compile(pattern)
    out = set()
    for p in sorted(root.rglob("*.php")):
        if "/.ragraf/" in str(p) or not p.is_file():
            continue  # and dangling symlinks (WordPress links to Debian's shared libraries)
        rel = p.relative_to(root).as_posix()
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").split("\n"), 1):
            s = line.strip()
            if s.startswith(("*", "//", "/*", "#")):
                continue  # docblock examples are not calls
            if rx.search(line):
                out.add(f"{rel}:{i}")
    return out


def checks(root: Path) -> dict:
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    q = g.db.query

    def incoming(fqn: str) -> list[tuple]:
        return q(
            "SELECT e.kind, e.provenance, e.src, e.evidence_path || ':' || e.evidence_line, e.confidence"
            " FROM edge e JOIN node n ON n.rev_id=e.rev_id AND n.node_id=e.dst"
            " WHERE e.rev_id=? AND n.fqn=?",
            (rev, fqn),
        )

    res: dict = {}
    bq = incoming("PhpMyAdmin\\Util::backquote")
    calls = [r for r in bq if r[0] == "calls"]
    grep_bq = grep_lines(root, r"\b(Util|self|static)::backquote\(")
    res["util_backquote"] = {
        "calling_functions": len({r[2] for r in calls}),
        "call_lines": len({r[3] for r in calls}),
        "grep_call_lines": len(grep_bq),
        "missed_vs_grep": sorted(grep_bq - {r[3] for r in calls})[:10],
        "callable_references": len([r for r in bq if r[0] == "references"]),
        "all_stated": all(r[1] == "stated" for r in calls),
    }
    fr = incoming("PhpMyAdmin\\DatabaseInterface::fetchResult")
    fr_lines = {r[3]: r for r in fr if r[0].startswith("calls")}
    this_sites = grep_lines(root, r"\$this->dbi->fetchResult\(")
    dbi_sites = grep_lines(root, r"(?<![>\w])\$dbi->fetchResult\(")
    global_sites = set()
    for site in dbi_sites:
        path, line = site.rsplit(":", 1)
        text = (root / path).read_text(encoding="utf-8").split("\n")[: int(line)]
        # the innermost function before the site declares `global $dbi`
        for prev in reversed(text):
            if re.search(r"\bfunction\b", prev):
                break
            if re.search(r"\bglobal\b[^;]*\$dbi\b", prev):
                global_sites.add(site)
                break
    res["this_dbi_fetchResult"] = {
        "sites": len(this_sites),
        "resolved": len(this_sites & set(fr_lines)),
        "stated": sum(1 for s in this_sites if s in fr_lines and fr_lines[s][1] == "stated"),
    }
    res["dbi_fetchResult"] = {"sites": len(dbi_sites), "resolved": len(dbi_sites & set(fr_lines))}
    res["global_dbi_fetchResult"] = {
        "sites": len(global_sites),
        "resolved": len(global_sites & set(fr_lines)),
        "derived": sum(1 for s in global_sites if s in fr_lines and fr_lines[s][1] == "derived"),
        "confidence": sorted({fr_lines[s][4] for s in global_sites if s in fr_lines}),
    }
    # wrong targets: a fetchResult call edge whose line does not call fetchResult
    wrong = 0
    files: dict[str, list[str]] = {}
    for site in fr_lines:
        path, line = site.rsplit(":", 1)
        if path not in files:
            files[path] = (root / path).read_text(encoding="utf-8").split("\n")
        if "fetchResult" not in files[path][int(line) - 1]:
            wrong += 1
    res["fetchResult_wrong_targets"] = wrong

    # truthfulness: a stated calls/extends/implements edge's line names its target
    bad: Counter[str] = Counter()
    total: Counter[str] = Counter()
    examples = []
    for kind, path, line, name in q(
        "SELECT e.kind, e.evidence_path, e.evidence_line, n.name FROM edge e JOIN node n"
        " ON n.rev_id=e.rev_id AND n.node_id=e.dst WHERE e.rev_id=? AND e.provenance='stated'"
        " AND e.kind IN ('calls','extends','implements')",
        (rev,),
    ):
        if path not in files:
            files[path] = (root / path).read_text(encoding="utf-8").split("\n")
        text = files[path][line - 1].lower()
        total[kind] += 1
        short = name.lower()
        ok = short in text or (short == "__construct" and "new " in text)
        if not ok:
            bad[kind] += 1
            examples.append(f"{kind} {path}:{line} -> {name}")
    res["truthfulness"] = {
        "checked": dict(total),
        "violations": dict(bad),
        "examples": examples[:10],
    }

    # definition recall against universal-ctags
    ctags = shutil.which("ctags")
    if ctags:
        out = subprocess.run(
            [
                ctags,
                "-R",
                "--languages=PHP",
                "--output-format=json",
                "--fields=+nK",
                "--kinds-PHP=cfit",
                "-f",
                "-",
                ".",
            ],
            cwd=root,
            capture_output=True,
            text=True,
        )
        want = set()
        for line in out.stdout.splitlines():
            t = json.loads(line)
            if t.get("_type") != "tag" or "/.ragraf/" in t["path"]:
                continue
            want.add((t["name"].lower(), t["path"].lstrip("./"), t["line"]))
        have = {
            (n.lower(), p, ln)
            for n, p, ln in q(
                "SELECT name, path, start_line FROM node WHERE rev_id=? AND kind IN"
                " ('class','interface','trait','enum','function','method')",
                (rev,),
            )
        }
        missed = sorted(want - have)
        res["ctags_recall"] = {
            "ctags_definitions": len(want),
            "found": len(want & have),
            "recall": round(len(want & have) / len(want), 4) if want else None,
            "missed_examples": [f"{p}:{ln} {n}" for n, p, ln in missed[:10]],
        }
    else:
        res["ctags_recall"] = (
            "skipped: universal-ctags is not installed (apt-get install universal-ctags)"
        )
    g.close()
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="phpmyadmin")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragraf-bench-") as tmp:
        root = copy_corpus(args.corpus, Path(tmp))
        config.init_project(root)
        if args.workers is not None:
            config.Layout(root).project_yaml.write_text(f"index: {{workers: {args.workers}}}\n")
        runs = [timed_index(root, args.workers) for _ in range(args.runs)]
        best = min(runs, key=lambda r: r[0])
        php_lines = sum(
            p.read_text(encoding="utf-8", errors="replace").count("\n")
            for p in root.rglob("*.php")
            if "/.ragraf/" not in str(p) and p.is_file()  # WordPress ships dangling symlinks
        )
        report = {
            "corpus": args.corpus,
            "php_lines": php_lines,
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d"),
            "wall_s": [round(r[0], 2) for r in runs],
            "best_wall_s": round(best[0], 2),
            "peak_rss_mib": [round(r[1] / 1024) for r in runs],
            "stages_s": best[2]["timings_s"],
            "counts": best[2]["counts"],
            "calls_stated_share": best[2]["coverage"].get("calls.stated_share"),
            "coverage": {
                k: v
                for k, v in best[2]["coverage"].items()
                if k.startswith(("calls", "files", "includes"))
            },
        }
        report["checks"] = checks(root)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

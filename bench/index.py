"""Benchmark of `ragraf index` on a real corpus (default: phpMyAdmin), run by hand.

    .venv/bin/python bench/index.py [--corpus phpmyadmin] [--runs 3] [--workers N] [--warm]
        [--python OTHER/.venv/bin/python] [--no-checks]

Copies the corpus into a temporary folder, runs the real CLI (`ragraf index
--force --json --no-vectors`, the structural index, interpreter start included) in a
child process while sampling the RSS of its whole process tree, then checks the graph:
call resolution against grep, truthfulness of stated edges, definition recall against
universal-ctags. Prints one JSON report; record it in docs/PERFORMANCE.md with the
machine and the date.

Every run is cold: the project's ``.ragraf/`` is recreated before it, so nothing is
cached (``--warm`` keeps it: then every run after the first reuses the facts cache, as
``index --force`` over an unchanged tree does).

The floor (issue 18): before each index run, the bench process parses the same selected
files with their tree-sitter grammars, one after the other in one process (the text is
read and encoded beforehand; only ``Parser.parse`` is timed). ``ratio`` is the run's wall
time over the floor measured just before it, so both see the same load on a shared
machine; the report gives every run and the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402
from ragraf import config  # noqa: E402
from ragraf.corpus import scan  # noqa: E402
from ragraf.kinds import ParseStatus  # noqa: E402
from ragraf.lang import registry  # noqa: E402
from ragraf.store import manifest  # noqa: E402
from ragraf.store.graph import GraphStore  # noqa: E402
from ragraf.store.ranges import live, rev_no  # noqa: E402


def _tree(pid: int) -> list[int]:
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    return pids


def _field_kib(path: str, field: str) -> int:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kib(pid: int) -> int:
    """The RSS of the process and its children, summed: the pages forked workers share with
    the builder are counted once per process (``tree_pss_kib`` counts them once)."""
    return sum(_field_kib(f"/proc/{p}/status", "VmRSS:") for p in _tree(pid))


def tree_pss_kib(pid: int) -> int:
    """The proportional set size of the process and its children: each shared page divided
    among the processes sharing it, so the sum is the memory the tree holds."""
    return sum(_field_kib(f"/proc/{p}/smaps_rollup", "Pss:") for p in _tree(pid))


def child_env() -> dict[str, str]:
    """The environment of the timed child: its bytecode cached (``__pycache__``, ignored by
    git) as an installed package has it, not recompiled from source on every start (this
    machine sets PYTHONDONTWRITEBYTECODE)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_package(python: str, env: dict[str, str]) -> None:
    """Write the bytecode of the ragraf that ``python`` imports (outside the timing)."""
    where = subprocess.run(
        [python, "-c", "import ragraf, os; print(os.path.dirname(ragraf.__file__))"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd="/",
    ).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], check=True, env=env, cwd="/")


def children_cpu_s() -> float:
    """CPU seconds (user + system) of the waited-for descendants of this process."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


class Timed(NamedTuple):
    """One timed ``ragraf index`` run."""

    wall: float  # seconds, interpreter start included
    peak_kib: int  # the process tree's RSS, summed (shared pages once per process)
    result: dict  # the --json answer
    cpu_s: float  # CPU seconds of the whole tree
    peak_pss_kib: int  # the tree's proportional set size: the memory it holds


def timed_index(
    root: Path, python: str = sys.executable, env: dict[str, str] | None = None
) -> Timed:
    cmd = [
        python,
        "-P",  # the corpus may hold a package named ragraf (py_calls indexes ragraf itself)
        "-m",
        "ragraf",
        "-C",
        str(root),
        "index",
        "--force",
        "--json",
        "--no-vectors",
    ]
    env = dict(os.environ) if env is None else env
    cpu0 = children_cpu_s()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root
    )  # cwd: `-m ragraf` must not pick up a checkout from the current folder
    peak = peak_pss = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_pss
        n = 0
        while not done.is_set():
            peak = max(peak, tree_rss_kib(proc.pid))
            if n % 10 == 0:  # smaps_rollup walks the page tables: every 0.1 s
                peak_pss = max(peak_pss, tree_pss_kib(proc.pid))
            n += 1
            time.sleep(0.01)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    if proc.returncode != 0:
        raise SystemExit(f"index failed: {err}")
    # the builder waits for its workers, so their time is in its children's time
    return Timed(wall, peak, json.loads(out), children_cpu_s() - cpu0, peak_pss)


def parse_inputs(root: Path) -> list[tuple[str, bytes]]:
    """(grammar, bytes) of every selected file that has a tree-sitter grammar."""
    out = []
    for f in scan(config.load(root)).files:
        lang = registry.get(f.lang)
        if f.status == ParseStatus.OK and lang is not None and lang.grammar:
            out.append((lang.grammar, (f.text or "").encode("utf-8", "surrogateescape")))
    return out


def parse_floor(inputs: list[tuple[str, bytes]]) -> tuple[float, float]:
    """Wall and CPU seconds to parse every input with tree-sitter, sequentially in this
    process."""
    from ragraf.lang import tstree

    parsers = {g: tstree.parser(g) for g, _b in inputs}
    t0, c0 = time.perf_counter(), time.process_time()
    for grammar, data in inputs:
        parsers[grammar].parse(data)
    return time.perf_counter() - t0, time.process_time() - c0


def fresh_project(root: Path, workers: int | None) -> None:
    """An initialised project with nothing indexed nor cached."""
    shutil.rmtree(config.Layout(root).dot, ignore_errors=True)
    config.init_project(root)
    if workers is not None:
        config.Layout(root).project_yaml.write_text(f"index: {{workers: {workers}}}\n")


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
            f" FROM edge e JOIN node n ON n.node_id=e.dst AND {live('n')}"
            f" WHERE {live('e')} AND n.fqn=?2",
            (rev_no(rev), fqn),
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
        f" ON n.node_id=e.dst AND {live('n')} WHERE {live('e')} AND e.provenance='stated'"
        " AND e.kind IN ('calls','extends','implements')",
        (rev_no(rev),),
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
                f"SELECT name, path, start_line FROM node WHERE {live()} AND kind IN"
                " ('class','interface','trait','enum','function','method')",
                (rev_no(rev),),
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
    ap.add_argument(
        "--warm", action="store_true", help="keep .ragraf/ (and its caches) between runs"
    )
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter that runs `ragraf index` (another checkout's .venv/bin/python"
        " times that checkout)",
    )
    ap.add_argument("--no-checks", action="store_true", help="time only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragraf-bench-") as tmp:
        root = copy_corpus(args.corpus, Path(tmp))
        env = child_env()
        compile_package(args.python, env)
        fresh_project(root, args.workers)
        inputs = parse_inputs(root)
        parse_floor(inputs[:20])  # load the grammars before the first timing
        runs = []
        floors = []
        for i in range(args.runs):
            if i and not args.warm:
                fresh_project(root, args.workers)
            floors.append(parse_floor(inputs))
            runs.append(timed_index(root, args.python, env))
        best = min(runs, key=lambda r: r[0])
        walls = [r[0] for r in runs]
        cpus = [r[3] for r in runs]
        floor_walls = [f[0] for f in floors]
        floor_cpus = [f[1] for f in floors]
        php_lines = sum(
            p.read_text(encoding="utf-8", errors="replace").count("\n")
            for p in root.rglob("*.php")
            if "/.ragraf/" not in str(p) and p.is_file()  # WordPress ships dangling symlinks
        )

        def ratios(num: list[float], den: list[float]) -> list[float]:
            return [n / d for n, d in zip(num, den, strict=True)]

        report = {
            "corpus": args.corpus,
            "php_lines": php_lines,
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d %H:%M"),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "cold": not args.warm,
            "wall_s": [round(r[0], 2) for r in runs],
            "best_wall_s": round(best[0], 2),
            "median_wall_s": round(statistics.median(walls), 2),
            "cpu_s": [round(c, 2) for c in cpus],
            "floor_files": len(inputs),
            "floor_s": [round(f, 3) for f in floor_walls],
            "median_floor_s": round(statistics.median(floor_walls), 3),
            "floor_cpu_s": [round(f, 3) for f in floor_cpus],
            # the acceptance number: wall time over the parse floor measured just before
            "ratio": [round(r, 2) for r in ratios(walls, floor_walls)],
            "median_ratio": round(statistics.median(ratios(walls, floor_walls)), 2),
            # the same in CPU time (all processes): steadier than wall time on a loaded machine
            "cpu_ratio": [round(r, 2) for r in ratios(cpus, floor_cpus)],
            "reused_files": [r[2].get("reused_files", 0) for r in runs],
            "peak_rss_mib": [round(r.peak_kib / 1024) for r in runs],
            # shared pages counted once: the memory the build holds (the figure to compare)
            "peak_pss_mib": [round(r.peak_pss_kib / 1024) for r in runs],
            "stages_s": best[2]["timings_s"],
            "counts": best[2]["counts"],
            "calls_stated_share": best[2]["coverage"].get("calls.stated_share"),
            "coverage": {
                k: v
                for k, v in best[2]["coverage"].items()
                if k.startswith(("calls", "files", "includes"))
            },
        }
        if not args.no_checks:
            report["checks"] = checks(root)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

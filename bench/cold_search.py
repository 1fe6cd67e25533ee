"""Cold lexical search (issue 44.4): `ragraf query search` as a fresh process against
codegraph 1.6.1's `query`, interleaved, run by hand.

    .venv/bin/python bench/cold_search.py [--corpus wordpress] [--runs 7]
        [--codegraph bench/results/codegraph/node_modules/.bin/codegraph]
        [--python OTHER/.venv/bin/python] [--query 'user login session cookie']

Copies the corpus, builds ragraf's structural index (``RAGRAF_VECTORS=off``: search is
lexical) and, with ``--codegraph``, codegraph's (``init -y``) on a second copy. Then, each
round in turn: ``ragraf query search --json QUERY`` in a new process (interpreter start,
imports, opening the stores and the answer; bytecode compiled beforehand as an installed
package has it; page cache warm after the first round) and ``codegraph query QUERY``.
Wall and CPU seconds (user + system of the child) per run, medians, and the load.

The first search of a revision ranks the whole graph once (``repomap.centrality``) and
keeps the result for later processes (``ragraf.facade.rankcache``): ``first_search`` is a
run with that cache removed, the rounds are the searches after it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402
from bench.disk import build, codegraph, measure, structural_copy  # noqa: E402


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one child process, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return round(wall, 3), round(cpu, 3), run.stdout


def summary(runs: list[tuple[float, float]]) -> dict[str, Any]:
    return {
        "wall_s": [w for w, _c in runs],
        "cpu_s": [c for _w, c in runs],
        "median_wall_s": round(statistics.median(w for w, _c in runs), 3),
        "median_cpu_s": round(statistics.median(c for _w, c in runs), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="wordpress")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--query", default="user login session cookie")
    ap.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
    ap.add_argument("--codegraph", help="the codegraph binary")
    args = ap.parse_args()
    report: dict[str, Any] = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "corpus": args.corpus,
        "query": args.query,
    }
    with tempfile.TemporaryDirectory(prefix="ragraf-cold-") as tmp:
        env, root = structural_copy(args.python, args.corpus, Path(tmp))
        build(args.python, root, env)
        report["index_mb"] = measure(root)["mb"]  # one revision's disk (bench/disk.py)
        ours = [args.python, "-m", "ragraf", "query", "search", "--json", args.query]
        cache = root / ".ragraf" / "index" / "centrality.json.z"
        cache.unlink(missing_ok=True)
        wall, cpu, _out = timed(ours, env, root)
        report["first_search"] = {"wall_s": wall, "cpu_s": cpu}
        theirs: list[str] | None = None
        other = root
        if args.codegraph:
            other = copy_corpus(args.corpus, Path(tmp) / "codegraph")
            codegraph(str(Path(args.codegraph).resolve()), other)
            theirs = [str(Path(args.codegraph).resolve()), "query", args.query]
        cg_env = {**os.environ, "CODEGRAPH_TELEMETRY": "0", "NO_COLOR": "1"}
        report["load_start"] = os.getloadavg()[0]
        got: dict[str, list[tuple[float, float]]] = {"ragraf": [], "codegraph": []}
        for _ in range(args.runs):
            wall, cpu, _out = timed(ours, env, root)
            got["ragraf"].append((wall, cpu))
            if theirs is not None:
                wall, cpu, _out = timed(theirs, cg_env, other)
                got["codegraph"].append((wall, cpu))
        report["load_end"] = os.getloadavg()[0]
    report["ragraf"] = summary(got["ragraf"])
    if got["codegraph"]:
        report["codegraph"] = summary(got["codegraph"])
        report["ratio_wall"] = round(
            report["ragraf"]["median_wall_s"] / report["codegraph"]["median_wall_s"], 2
        )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

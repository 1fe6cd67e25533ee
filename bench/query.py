"""Benchmark of facade queries on a real corpus (default: phpMyAdmin), run by hand.

    .venv/bin/python bench/query.py [--corpus phpmyadmin] [--samples 60]

Indexes a temporary copy, then measures in-process latency (p50 / p95, warm
session, as the MCP server runs) of symbol, references, callers (depth 1 and 3),
impact (depth 3), repo_map (2000 tokens) and search, over deterministic samples
of real symbols; plus the cold start of `ragraf query symbol` as a new process.
Record the output in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
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
from ragraf import config, facade  # noqa: E402
from ragraf.drift.scan import run_scan  # noqa: E402
from ragraf.facade.context import Session  # noqa: E402
from ragraf.indexing import indexer  # noqa: E402

#: files edited in turn by --edits (phpMyAdmin; another corpus: the n-th PHP file)
EDITED = (
    "libraries/classes/Util.php",
    "libraries/classes/Core.php",
    "libraries/classes/Sanitize.php",
)


def _edit(root: Path, i: int) -> None:
    """A one-file edit: a new function appended to a file (each edit a new one)."""
    rels = [r for r in EDITED if (root / r).is_file()] or sorted(
        str(p.relative_to(root)) for p in root.rglob("*.php")
    )[:3]
    path = root / rels[i % len(rels)]
    path.write_text(
        path.read_text() + f"\nfunction bench_edit_{i}(): int\n{{\n    return {i};\n}}\n"
    )


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def measure(session: Session, op: str, arg_list: list[dict[str, Any]]) -> dict[str, Any]:
    times = []
    sizes = []
    cpu = 0.0
    for args in arg_list:
        c = time.process_time()
        t = time.perf_counter()
        env = facade.run(session, op, args)
        times.append((time.perf_counter() - t) * 1000)
        cpu += time.process_time() - c
        sizes.append(len(json.dumps(env)))
    return {
        "n": len(times),
        # CPU time of all calls: what compares two runs on a busy machine (wall times do not)
        "cpu_total_ms": round(cpu * 1000, 1),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(pct(times, 95), 2),
        "max_ms": round(max(times), 2),
        "median_answer_bytes": int(statistics.median(sizes)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="phpmyadmin")
    ap.add_argument("--samples", type=int, default=60)
    ap.add_argument(
        "--edits",
        type=int,
        default=0,
        help="one-file edits, each sealed by drift --scan + reindex --commit, before measuring:"
        " the store then holds several revisions' row ranges (issue 15)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragraf-qbench-") as tmp:
        root = copy_corpus(args.corpus, Path(tmp))
        config.init_project(root)
        cfg = config.load(root)
        indexer.build(cfg)
        for i in range(args.edits):
            _edit(root, i)
            run_scan(cfg)
            indexer.build(cfg, commit=True)
        session = Session(root)
        rev = facade.run(session, "index_status")["index_rev"]
        rng = random.Random(42)
        rows = session.graph.symbol_names(rev)
        methods = sorted(
            f for n, f in rows if f and "::" in f and not f.rsplit("::", 1)[1].startswith("$")
        )
        classes = sorted(f for n, f in rows if f and "::" not in f and "\\" in f)
        # callers are measured on the most-called methods too (the expensive case)
        hubs = [
            "PhpMyAdmin\\Util::backquote",
            "PhpMyAdmin\\DatabaseInterface::fetchResult",
            "PhpMyAdmin\\DatabaseInterface::query",
            "PhpMyAdmin\\Html\\Generator::getIcon",
        ]
        sample_m = rng.sample(methods, min(args.samples, len(methods))) + hubs
        sample_c = rng.sample(classes, min(args.samples // 3, len(classes)))
        names = [f.rsplit("::", 1)[-1].rsplit("\\", 1)[-1] for f in sample_m]
        queries = [
            "escape identifier with backticks",
            "export table as csv",
            "user privileges",
            "fetchResult",
            "bookmark",
            "two factor authentication",
            "relation between tables",
            "charset collation",
        ]
        for op, a in (("symbol", {"name": "backquote"}),):
            facade.run(session, op, a)  # warm caches once, as a running server would be
        report: dict[str, Any] = {
            "corpus": args.corpus,
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d"),
            "edits": args.edits,
            "symbol_by_fqn": measure(session, "symbol", [{"fqn": f} for f in sample_m]),
            "symbol_by_name": measure(session, "symbol", [{"name": n} for n in names]),
            "references": measure(session, "references", [{"fqn": f} for f in sample_m]),
            "callers_depth1": measure(
                session, "callers", [{"fqn": f, "depth": 1} for f in sample_m]
            ),
            "callers_depth3": measure(
                session, "callers", [{"fqn": f, "depth": 3} for f in sample_m]
            ),
            "callees_depth1": measure(
                session, "callees", [{"fqn": f, "depth": 1} for f in sample_m]
            ),
            "impact_depth3": measure(
                session, "impact", [{"fqn": f, "depth": 3} for f in sample_m + sample_c]
            ),
            "repo_map_2000": measure(
                session,
                "repo_map",
                [{"budget_tokens": 2000}] * 10
                + [
                    {"budget_tokens": 2000, "scope": s}
                    for s in (
                        "libraries/classes/Controllers",
                        "PhpMyAdmin\\Plugins",
                        "libraries/classes/Dbal",
                    )
                ],
            ),
            "search_lexical": measure(session, "search", [{"query": q} for q in queries]),
        }
        session.close()
        cold = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ragraf",
                    "-C",
                    str(root),
                    "query",
                    "symbol",
                    "PhpMyAdmin\\Util::backquote",
                    "--json",
                ],
                check=True,
                capture_output=True,
            )
            cold.append((time.perf_counter() - t) * 1000)
        report["cold_cli_symbol_ms"] = {
            "runs": [round(c) for c in cold],
            "median": round(statistics.median(cold)),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

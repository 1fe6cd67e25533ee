"""Slices and flows of JavaScript / TypeScript on the languages bench packages (issue 42 §1),
run by hand:

    .venv/bin/python bench/slice_js.py [--corpus express] [--corpus zod] [--samples 100]

For each corpus (fetched once by ``bench/lang_calls.py``'s ``fetch`` into its cache, indexed
in a private copy, no vectors):

1. The hand-checked slices of ``bench/slice_hand_js.py`` (depth 1, back): precision and
   recall of the lines the answer gives inside the expected range.
2. ``slice`` in-process (warm session), back depth 1 and 3, on deterministic samples: a
   random statement of a random function or method (seed 13), as ``bench/slice.py``.
3. ``flow`` from the same places (``sink any``, depth 3): p50 / p95.

The index-time cost of the layer is measured apart, in callgrind instructions
(``bench/index_instructions.sh`` on a tree with and one without the layer). Prints one JSON
report; record it in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import lang_calls  # noqa: E402
from bench.slice import measure, pct, sample_points  # noqa: E402
from bench.slice_hand_js import HAND_CHECKED_JS  # noqa: E402
from ragraf import config, facade  # noqa: E402
from ragraf.facade.context import MAX_ITEMS, Session  # noqa: E402
from ragraf.indexing import indexer  # noqa: E402


def hand_checked(
    session: Session, table: list[tuple[str, int, str | None, list[int]]]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path, line, var, want in table:
        args: dict[str, Any] = {"path": path, "line": line, "depth": 1, "limit": MAX_ITEMS}
        if var:
            args["variable"] = var
        r = facade.run(session, "slice", args)["result"]
        lo, hi = min(want), max(want)
        got = sorted(
            {
                s["line"]
                for s in r.get("statements", [])
                if s["path"] == path and lo <= s["line"] <= hi
            }
        )
        tp = len(set(got) & set(want))
        out.append(
            {
                "start": f"{path}:{line}",
                "expected": want,
                "got": got,
                "precision": round(tp / len(got), 3) if got else None,
                "recall": round(tp / len(want), 3),
            }
        )
    return out


def flows(session: Session, points: list[tuple[str, int]]) -> dict[str, Any]:
    times: list[float] = []
    reached = 0
    for p, ln in points:
        t = time.perf_counter()
        env = facade.run(session, "flow", {"source": f"{p}:{ln}", "sink": "any", "depth": 3})
        times.append((time.perf_counter() - t) * 1000)
        reached += bool(env["result"].get("reaches"))
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(pct(times, 95), 2),
        "max_ms": round(max(times), 2),
        "reaching_a_sink": reached,
    }


def run_corpus(name: str, samples: int, tmp: Path) -> dict[str, Any]:
    oracle = json.loads((REPO / "bench" / "oracle" / "lang_calls" / f"{name}.json").read_text())
    src = lang_calls.fetch(oracle, lang_calls.default_cache())
    root = lang_calls.copy_corpus(oracle, src, tmp / name)
    config.init_project(root)
    t0 = time.perf_counter()
    indexer.build(config.load(root), no_vectors=True)
    report: dict[str, Any] = {"index_s": round(time.perf_counter() - t0, 2)}
    session = Session(root)
    rev = facade.run(session, "index_status")["index_rev"]
    report["coverage"] = {m: v for m, v, _n in session.graph.coverage(rev) if m.startswith("flow")}
    report["hand_checked"] = hand_checked(session, HAND_CHECKED_JS.get(name, []))
    hc = [h for h in report["hand_checked"] if h["precision"] is not None]
    if hc:
        report["hand_checked_mean"] = {
            "precision": round(statistics.mean(h["precision"] for h in hc), 3),
            "recall": round(statistics.mean(h["recall"] for h in hc), 3),
            "functions": len(report["hand_checked"]),
            "lines": sum(len(h["expected"]) for h in report["hand_checked"]),
        }
    points = sample_points(session, rev, samples)
    facade.run(session, "slice", {"path": points[0][0], "line": points[0][1]})  # warm
    for depth in (1, 3):
        report[f"slice_back_depth{depth}"] = measure(
            session,
            [{"path": p, "line": ln, "direction": "back", "depth": depth} for p, ln in points],
        )
    report["flow_depth3"] = flows(session, points)
    session.close()
    return report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", default=None, help="express, zod (default both)")
    ap.add_argument("--samples", type=int, default=100)
    args = ap.parse_args()
    report: dict[str, Any] = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "load": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory(prefix="ragraf-slicejs-") as tmp:
        for name in args.corpus or ["express", "zod"]:
            report[name] = run_corpus(name, args.samples, Path(tmp))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

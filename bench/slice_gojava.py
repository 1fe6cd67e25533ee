"""Slices and flows of the Go and Java data-flow layers on the languages bench's packages
(issue 42 §1), against lines checked by hand; run by hand.

    .venv/bin/python bench/slice_gojava.py                    # both corpora
    .venv/bin/python bench/slice_gojava.py --corpus gorilla-mux --samples 100

The corpora are the languages bench's (``bench/lang_calls.py``: gorilla/mux 1.8.0 from
Debian golang-github-gorilla-mux-dev 1.8.0-1; the Starlark interpreter net.starlark.java of
Debian bazel-bootstrap-source 4.2.3+ds-9), fetched into its cache once and copied into a
temporary folder per run, then indexed structurally (``ragraf index --no-vectors``).

1. The slices of the hand-checked starts in ``HAND_CHECKED`` (per corpus: path, line,
   variable or None, the lines a correct backward slice of depth 1 holds within the
   function): precision and recall of the lines the answer gives inside that function, the
   same rule and scorer (``precision``) as ``bench/slice.py``: the statements whose values or decisions reach the
   start, as a program dependence graph has them (the predicate of an early ``return`` /
   ``continue`` / ``break`` counts, and the loops and branches around it, the jump itself
   not); a statement counts by its first line; the signature line stands for the
   parameters (never for the receiver's fields, which come from other methods).
2. ``slice`` latency in-process (warm session), p50 / p95, back depth 1 and depth 3, and
   ``flow`` latency from the same sample of statements to ``any`` sink.

Prints one JSON report; record it in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.lang_calls import copy_corpus, default_cache, fetch  # noqa: E402
from ragraf import config, facade  # noqa: E402
from ragraf.facade.context import Session  # noqa: E402
from ragraf.indexing import indexer  # noqa: E402
from ragraf.store.packed import unpack  # noqa: E402
from ragraf.store.ranges import live, rev_no  # noqa: E402

R = "regexp.go"
M = "mux.go"
J = "src/main/java/net/starlark/java/eval/"
F = J + "FormatParser.java"
S = J + "StringModule.java"
#: corpus -> (path, start line, variable or None, the lines of a correct back slice)
HAND_CHECKED: dict[str, list[tuple[str, int, str | None, list[int]]]] = {
    "gorilla-mux": [
        # routeRegexp.Match: two early returns (host, query) guard the path match; path from
        # req.URL.Path or, under useEncodedPath, EscapedPath(); r.regexp is a field
        (R, 193, None, [174, 175, 186, 189, 190, 191, 193]),
        # routeRegexp.url: urlValues filled in the range loop (element writes), the early
        # return inside it, the check loop whose return guards the final one
        (R, 222, None, [197, 198, 199, 200, 201, 204, 205, 207, 209, 210, 214, 215, 222]),
        # getURLQuery: the early return on the regexp type, templateKey and the
        # findFirstQueryKey results (multiple results), `if ok`
        (R, 235, None, [228, 229, 232, 233, 234, 235]),
        # findFirstQueryKey: the loop, four `continue` predicates, the if-with-init
        # statements, `var value []byte` and its redefinition in a parallel assignment
        (
            R,
            273,
            None,
            [
                242,
                243,
                244,
                245,
                246,
                247,
                249,
                251,
                254,
                255,
                256,
                258,
                262,
                263,
                266,
                269,
                270,
                273,
            ],
        ),  # fmt: skip
        # braceIndices: switch in a for, if-with-init (level++ / level--), two early
        # returns' predicates
        (
            R,
            304,
            None,
            [284, 285, 286, 287, 288, 289, 290, 291, 293, 294, 295, 296, 301, 304],
        ),
        # getHost: a function (r is a parameter here, not a receiver), one early return
        (R, 381, None, [377, 378, 381]),
        # extractVars: a range loop's key and value, an element write
        (R, 386, None, [384, 385, 386]),
        # routeRegexpGroup.setMatch (value receiver v): the queries loop over v.queries
        (R, 369, None, [324, 365, 366, 367, 368, 369]),
        # Router.ServeHTTP: the early redirect return (and the ifs deciding it), &match
        # passed to r.Match (a weak definition), handler from three branches, req rebound
        (
            M,
            210,
            None,
            [173, 174, 175, 176, 177, 180, 194, 195, 196, 197, 198, 199, 202, 203, 206, 207, 210],
        ),  # fmt: skip
        # cleanPath: an early return, p rebound under a condition, np += under another
        (M, 476, None, [462, 463, 466, 467, 469, 472, 473, 476]),
    ],
    "starlark": [
        # FormatParser.format: output changed by append (a method that changes its object)
        # under the if / else-if chain, pos advanced by the helpers' results
        (
            F,
            69,
            None,
            [49, 50, 51, 52, 54, 55, 56, 58, 59, 60, 61, 63, 66, 69],
        ),
        # FormatParser.getFieldName: result appended in the else branch after two throws'
        # predicates; the throw after the loop guards the return
        (F, 203, None, [178, 179, 180, 182, 183, 185, 186, 189, 191, 195, 199, 203]),
        # FormatParser.parsePositional: result from both branches inside a try (its catch
        # throws; `int result = -1` is overwritten on every path that returns), history
        # changed by setAutomaticPositional before getNextPosition
        (F, 231, None, [214, 217, 218, 220, 221, 224, 231]),
        # StringModule.slice: the else of an if / else-if chain, an element-writing loop
        (S, 83, None, [69, 70, 71, 72, 74, 76, 79, 80, 81, 83]),
        # StringModule.substringIndices: istart and iend under three conditions
        (S, 125, None, [111, 113, 114, 115, 116, 118, 119, 120, 122, 123, 125]),
        # StringModule.join: a for-each whose throw guards the return
        (S, 158, None, [148, 149, 151, 152, 158]),
        # StringModule.title: element writes under nested if / else-if in a loop
        (
            S,
            516,
            None,
            [498, 499, 500, 502, 503, 504, 506, 507, 508, 509, 510, 513, 516],
        ),
        # StringModule.isTitle: an early return in the loop, matcher from three branches
        (
            S,
            804,
            None,
            [774, 775, 780, 781, 782, 783, 784, 786, 790, 791, 792, 793, 795, 798, 799, 804],
        ),
        # StringModule.startsWith: `return false` after an early return and a loop's
        (S, 1018, None, [1007, 1009, 1010, 1013, 1014, 1018]),
    ],
}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def timed(session: Session, op: str, arg_list: list[dict[str, Any]]) -> dict[str, Any]:
    times = []
    for args in arg_list:
        t = time.perf_counter()
        facade.run(session, op, args)
        times.append((time.perf_counter() - t) * 1000)
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(pct(times, 95), 2),
        "max_ms": round(max(times), 2),
    }


def sample_points(session: Session, rev: str, n: int) -> list[tuple[str, int]]:
    rows = session.graph.db.query(
        f"SELECT path, data FROM flow_unit WHERE {live()} AND kind IN ('function','method')"
        " ORDER BY unit_id",
        (rev_no(rev),),
    )
    rng = random.Random(13)
    picks = rng.sample(rows, min(n, len(rows)))
    out = []
    for path, data in picks:
        stmts = json.loads(unpack(data))["s"]
        s = rng.choice(stmts[1:] or stmts)
        out.append((path, s[0]))
    return out


def run_corpus(name: str, samples: int, tmp: Path) -> dict[str, Any]:
    oracle = json.loads((REPO / "bench" / "oracle" / "lang_calls" / f"{name}.json").read_text())
    root = copy_corpus(oracle, fetch(oracle, default_cache()), tmp / name)
    config.init_project(root)
    t = time.perf_counter()
    indexer.build(config.load(root))
    report: dict[str, Any] = {"index_s": round(time.perf_counter() - t, 2)}
    session = Session(root)
    rev = facade.run(session, "index_status")["index_rev"]
    report["flow_units"] = session.graph.db.scalar(
        f"SELECT count(*) FROM flow_unit WHERE {live()}", (rev_no(rev),)
    )
    points = sample_points(session, rev, samples)
    facade.run(session, "slice", {"path": points[0][0], "line": points[0][1]})  # warm
    for depth in (1, 3):
        report[f"slice_back_depth{depth}"] = timed(
            session, "slice", [{"path": p, "line": ln, "depth": depth} for p, ln in points]
        )
    report["flow_any"] = timed(
        session, "flow", [{"source": f"{p}:{ln}", "sink": "any"} for p, ln in points]
    )
    # bench/slice.py's own check (it imports this module's HAND_CHECKED, hence not at the top)
    from bench.slice import precision

    hc = precision(session, HAND_CHECKED.get(name, []))
    report["hand_checked"] = hc
    if hc:
        report["hand_checked_mean"] = {
            "precision": round(statistics.mean(h["precision"] or 0 for h in hc), 3),
            "recall": round(statistics.mean(h["recall"] for h in hc), 3),
        }
    session.close()
    return report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", default=None)
    ap.add_argument("--samples", type=int, default=100)
    args = ap.parse_args()
    report: dict[str, Any] = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "load": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory(prefix="ragraf-gjbench-") as tmp:
        for name in args.corpus or list(HAND_CHECKED):
            report[name] = run_corpus(name, args.samples, Path(tmp))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

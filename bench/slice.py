"""Benchmark of the data-flow layer (issue 13, issue 42) on a real corpus, by hand.

    .venv/bin/python bench/slice.py [--base ../wt-base] [--runs 3] [--samples 100]
    .venv/bin/python bench/slice.py --corpus requests --lang python   # a languages-bench package
    .venv/bin/python bench/slice.py --src DIR --corpus datasette --lang python  # any folder

``--corpus`` names a PHP corpus of ``bench/corpora.py`` (default: phpMyAdmin) or a package of
the languages bench (``bench/oracle/lang_calls/*.json``: flask, requests, express...,
fetched and cached by ``bench/lang_calls.py``); ``--src`` indexes a copy of any folder
instead (``--corpus`` then only names it). ``--lang`` keeps the sampled statements to the
files of one language.

1. Index time with the layer against a checkout without it (``--base``: a worktree of the
   commit before the layer, with its own ``.venv``), interleaved A B A B on two private
   copies of the corpus: the real CLI ``ragraf index --force --json --no-vectors`` each time.
   (On a loaded machine compare instruction counts instead: bench/index_instructions.sh.)
2. ``slice`` latency in-process (warm session, as the MCP server runs), p50 / p95, back and
   forward, depth 1 and depth 3, over a deterministic sample of statements of functions and
   methods (a random statement line of a random unit); ``flow`` latency (depth 3, sink
   any) from the first parameter of a sample of those functions and from each configured
   request source the corpus reads.
3. The slices of the hand-checked functions of the corpus (``HAND_CHECKED``: path, line, the
   lines a correct backward slice of depth 1 holds within the function): precision and
   recall of the lines the answer gives inside that function.

Prints one JSON report; record it in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
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
from bench.slice_gojava import HAND_CHECKED as GOJAVA_CHECKED  # noqa: E402
from bench.slice_hand_js import HAND_CHECKED_JS  # noqa: E402
from ragraf import config, facade  # noqa: E402
from ragraf.facade.context import MAX_ITEMS, Session  # noqa: E402
from ragraf.lang import registry  # noqa: E402
from ragraf.store.packed import unpack  # noqa: E402
from ragraf.store.ranges import live, rev_no  # noqa: E402

#: (path, line of the slice start, variable or None, the lines of a correct backward slice
#: within the function, read by hand from the source (phpMyAdmin 5.2 as Debian ships it):
#: the statements whose values or decisions reach the start, as a program dependence graph
#: has them (the predicate of an early `return` / `continue` counts, the jump itself not).
#: A line is that of the statement's first line; the signature line stands for the
#: parameters.
U = "libraries/classes/Util.php"
I = "libraries/classes/Index.php"  # noqa: E741
HAND_CHECKED: list[tuple[str, int, str | None, list[int]]] = [
    # backquoteCompat: two early returns guard the quoting; the MSSQL branch sets both chars
    (U, 433, None, [412, 417, 418, 422, 426, 427, 428, 429, 430, 433]),
    # formatByteDown: the null guard, the string cast, the unit table, the for loop's search
    (
        U,
        496,
        None,
        [445, 447, 451, 452, 455, 472, 473, 474, 476, 477, 478, 480, 481, 486, 490, 493, 496],
    ),
    # getFormattedMaximumUploadSize: [$maxSize, $maxUnit] = destructuring
    (U, 132, None, [126, 130, 132]),
    # Core::getRealSize: the last return depends on both guards, not on $binaryprefixes
    ("libraries/classes/Core.php", 270, None, [249, 251, 266, 270]),
    # getCompressionMimeType: the final 'none' after four early returns (fclose() is no def)
    (U, 2076, None, [2052, 2054, 2056, 2062, 2064, 2068, 2072, 2076]),
    # addMicroseconds: two guards and a compound assignment
    (U, 2037, None, [2025, 2027, 2031, 2035, 2037]),
    # Sanitize::escapeJsString: one expression of the parameter
    ("libraries/classes/Sanitize.php", 301, None, [299, 301]),
    # Index::getFromTableByChoice: foreach with five conditional appends and a continue
    (I, 188, None, [161, 163, 164, 165, 166, 169, 170, 173, 174, 177, 178, 181, 185, 188]),
    # Index::getComments: .= under a condition and after it (no parameter: the signature
    # defines nothing; listing it was the first hand check's mistake)
    (I, 438, None, [431, 432, 433, 436, 438]),
    # Index::isUnique: $r from both branches (the property comes from other methods)
    (I, 535, None, [521, 523, 524, 529, 535]),
]
#: requests 2.32.3 (PyPI sdist), read by hand the same way (issue 42), written before the
#: slices were asked: a `try` header is no decision, an `except` header is (whether its
#: body runs); an element write (`parts[i] = ...`) defines the list weakly
RU = "src/requests/utils.py"
REQUESTS_CHECKED: list[tuple[str, int, str | None, list[int]]] = [
    # _parse_content_type_header: the for / if / if nest builds params_dict
    (RU, 536, None, [514, 522, 523, 524, 525, 527, 528, 529, 530, 531, 532, 533, 534, 535, 536]),
    # get_encoding_from_headers: the charset branch after an early return
    (RU, 554, None, [539, 546, 548, 551, 553, 554]),
    # unquote_unreserved: element writes of parts in three branches of a loop
    (RU, 657, None, [636, 642, 643, 644, 645, 647, 651, 652, 654, 656, 657]),
    # requote_uri: the parameter and one constant inside a try
    (RU, 674, None, [660, 668, 674]),
    # address_in_network: tuple destructuring of a split
    (RU, 694, None, [682, 690, 691, 692, 693, 694]),
    # select_proxy: an early return guards the loop; break is no definition
    (RU, 861, None, [838, 844, 845, 846, 849, 855, 856, 857, 858, 861]),
    # prepend_scheme_if_needed: seven-name destructuring, a swap, three conditional fixes
    (
        RU,
        1015,
        None,
        [989, 995, 996, 1002, 1003, 1004, 1006, 1009, 1010, 1011, 1012, 1013, 1015],
    ),
    # get_auth_from_url: try / except both define auth
    (RU, 1031, None, [1018, 1024, 1027, 1028, 1029, 1031]),
    # guess_json_utf: a return after eight early returns (975 / 977 decide whether 980 runs)
    (
        RU,
        984,
        None,
        [957, 964, 965, 967, 969, 971, 972, 974, 975, 977, 980, 981, 983, 984],
    ),
]
#: flask 3.0.3 (PyPI sdist): methods (the receiver is no variable; self.x is one)
FC = "src/flask/config.py"
FLASK_CHECKED: list[tuple[str, int, str | None, list[int]]] = [
    # Config.from_envvar: os.environ.get, a guard holding return / raise
    (FC, 124, None, [102, 114, 115, 124]),
    # Config.from_prefixed_env: continue guards, star destructuring, a nested loop whose
    # element write (current[part] = {}) feeds the walk down the dict
    (
        FC,
        186,
        None,
        [126, 152, 153, 155, 156, 159, 162, 168, 170, 176, 177, 179, 181, 182, 184, 186],
    ),
]
HAND_CHECKED_BY_CORPUS = {
    "phpmyadmin": HAND_CHECKED,
    "requests": REQUESTS_CHECKED,
    "flask": FLASK_CHECKED,
    **HAND_CHECKED_JS,  # express, zod (bench/slice_hand_js.py)
    **GOJAVA_CHECKED,  # gorilla-mux, starlark (bench/slice_gojava.py)
}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def index_once(python: str, root: Path, cwd: Path) -> float:
    cmd = [python, "-m", "ragraf", "-C", str(root), "index", "--force", "--json", "--no-vectors"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=cwd, env=dict(os.environ))
    return time.perf_counter() - t0


def interleaved(
    base: Path, tmp: Path, corpus: str, runs: int, src: Path | None = None
) -> dict[str, Any]:
    a = _copy(corpus, src, tmp / "a")
    b = _copy(corpus, src, tmp / "b")
    base_py = str(base / ".venv" / "bin" / "python")
    subprocess.run(
        [base_py, "-m", "ragraf", "-C", str(a), "init"], check=True, capture_output=True, cwd=base
    )
    config.init_project(b)
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(runs):
        ta.append(index_once(base_py, a, base))
        tb.append(index_once(sys.executable, b, REPO))
    return {
        "without_layer_s": [round(x, 2) for x in ta],
        "with_layer_s": [round(x, 2) for x in tb],
        "best_ratio": round(min(tb) / min(ta), 3),
        "median_ratio": round(statistics.median(tb) / statistics.median(ta), 3),
        "root": str(b),
    }


def measure(session: Session, arg_list: list[dict[str, Any]]) -> dict[str, Any]:
    times = []
    sizes = []
    stmts = []
    for args in arg_list:
        t = time.perf_counter()
        env = facade.run(session, "slice", args)
        times.append((time.perf_counter() - t) * 1000)
        sizes.append(len(json.dumps(env)))
        stmts.append(len(env["result"].get("statements", [])))
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(pct(times, 95), 2),
        "max_ms": round(max(times), 2),
        "median_statements": int(statistics.median(stmts)),
        "median_answer_bytes": int(statistics.median(sizes)),
    }


def units(session: Session, rev: str, lang: str | None) -> list[tuple[str, str, str]]:
    """(path, data, function node) of the function and method units, of one language."""
    rows = session.graph.db.query(
        f"SELECT path, data, func_node_id FROM flow_unit WHERE {live()}"
        " AND kind IN ('function','method') ORDER BY unit_id",
        (rev_no(rev),),
    )
    return [r for r in rows if lang is None or registry.lang_of(r[0]) == lang]


def sample_points(rows: list[tuple[str, str, str]], n: int) -> list[tuple[str, int]]:
    rng = random.Random(13)
    picks = rng.sample(rows, min(n, len(rows)))
    out = []
    for path, data, _f in picks:
        stmts = json.loads(unpack(data))["s"]
        s = rng.choice(stmts[1:] or stmts)
        out.append((path, s[0]))
    return out


def flow_sources(session: Session, rev: str, rows: list[tuple[str, str, str]], n: int) -> list[str]:
    """`flow` sources: the first parameter of a sample of functions (``fqn(param)``) and
    every configured request source some unit reads."""
    rng = random.Random(17)
    out = []
    for _path, data, func in rng.sample(rows, min(len(rows), n * 3)):
        params = json.loads(unpack(data))["s"][0][4]
        node = session.graph.node(rev, func)
        if params and node is not None and node.fqn and len(out) < n:
            out.append(f"{node.fqn}({params[0]})")
    for src in session.config().dataflow.all_sources():
        if session.graph.flow_units_reading(rev, src, limit=1):
            out.append(src)
    return out


def measure_flow(session: Session, sources: list[str]) -> dict[str, Any]:
    times = []
    reached = 0
    for src in sources:
        t = time.perf_counter()
        env = facade.run(session, "flow", {"source": src, "sink": "any", "depth": 3})
        times.append((time.perf_counter() - t) * 1000)
        reached += bool(env["result"].get("reaches"))
    return {
        "n": len(times),
        "reaching": reached,
        "p50_ms": round(statistics.median(times), 2) if times else None,
        "p95_ms": round(pct(times, 95), 2) if times else None,
        "max_ms": round(max(times), 2) if times else None,
    }


def precision(
    session: Session, checked: list[tuple[str, int, str | None, list[int]]]
) -> list[dict[str, Any]]:
    out = []
    for path, line, var, want in checked:
        # every statement of the slice (one page of the largest size), not the first page
        args: dict[str, Any] = {"path": path, "line": line, "depth": 1, "limit": MAX_ITEMS}
        if var:
            args["variable"] = var
        r = facade.run(session, "slice", args)["result"]
        lo, hi = min(want), max(want)
        got = sorted(
            {s["line"] for s in r["statements"] if s["path"] == path and lo <= s["line"] <= hi}
        )
        tp = len(set(got) & set(want))
        out.append(
            {
                "start": f"{path}:{line}",
                "variable": var,
                "expected": want,
                "got": got,
                "precision": round(tp / len(got), 3) if got else None,
                "recall": round(tp / len(want), 3),
                "false": sorted(set(got) - set(want)),
                "missed": sorted(set(want) - set(got)),
            }
        )
    return out


def _copy(corpus: str, src: Path | None, into: Path) -> Path:
    """A private copy of the corpus: a folder given, a languages-bench package, or a PHP
    corpus of bench/corpora.py."""
    if src is not None:
        dest = into / corpus
        shutil.copytree(src, dest, symlinks=True)
        return dest
    oracle = REPO / "bench" / "oracle" / "lang_calls" / f"{corpus}.json"
    if oracle.exists():
        from bench import lang_calls

        o = json.loads(oracle.read_text())
        return lang_calls.copy_corpus(
            o, lang_calls.fetch(o, lang_calls.default_cache()), into / corpus
        )
    return copy_corpus(corpus, into)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="phpmyadmin")
    ap.add_argument("--base", type=Path, default=None, help="a worktree without the layer")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--root", type=Path, default=None, help="an indexed copy: measure slices only")
    ap.add_argument("--src", type=Path, default=None, help="index a copy of this folder")
    ap.add_argument("--lang", default=None, help="sample the units of this language only")
    args = ap.parse_args()
    report: dict[str, Any] = {
        "corpus": args.corpus,
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
    }
    with tempfile.TemporaryDirectory(prefix="ragraf-sbench-") as tmp:
        if args.root is not None:
            root = args.root
        elif args.base is not None:
            report["index"] = interleaved(
                args.base.resolve(), Path(tmp), args.corpus, args.runs, args.src
            )
            root = Path(report["index"].pop("root"))
        else:
            root = _copy(args.corpus, args.src, Path(tmp))
            config.init_project(root)
            index_once(sys.executable, root, REPO)
        session = Session(root)
        rev = facade.run(session, "index_status")["index_rev"]
        cov = {m: v for m, v, _n in session.graph.coverage(rev) if m.startswith("flow")}
        report["coverage"] = cov
        report["flow_unit_bytes"] = session.graph.db.scalar(
            f"SELECT sum(length(data)) FROM flow_unit WHERE {live()}", (rev_no(rev),)
        )
        rows = units(session, rev, args.lang)
        points = sample_points(rows, args.samples)
        facade.run(session, "slice", {"path": points[0][0], "line": points[0][1]})  # warm
        for direction in ("back", "forward"):
            for depth in (1, 3):
                report[f"slice_{direction}_depth{depth}"] = measure(
                    session,
                    [
                        {"path": p, "line": ln, "direction": direction, "depth": depth}
                        for p, ln in points
                    ],
                )
        report["flow_depth3"] = measure_flow(
            session, flow_sources(session, rev, rows, max(10, args.samples // 5))
        )
        report["hand_checked"] = precision(session, HAND_CHECKED_BY_CORPUS.get(args.corpus, []))
        hc = [h for h in report["hand_checked"] if h["precision"] is not None]
        if hc:
            report["hand_checked_mean"] = {
                "precision": round(statistics.mean(h["precision"] for h in hc), 3),
                "recall": round(statistics.mean(h["recall"] for h in hc), 3),
            }
        session.close()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

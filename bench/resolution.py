"""Benchmark of call resolution on a real corpus (issue 11), run by hand, one corpus per run:

    .venv/bin/python bench/resolution.py --corpus phpmyadmin
    .venv/bin/python bench/resolution.py --corpus wordpress [--sample 200] [--seed 11]
    .venv/bin/python bench/resolution.py --root <an indexed copy>   # no copy, no index run

Copies the corpus into a temporary folder (``bench/corpora.py``), runs the real CLI
(``ragraf index --force --json --no-vectors``, vectors off) and reads the graph:

1. the share of call sites stated / derived / external / unresolved (coverage rows ``calls.*``;
   a key the index does not write is null);
2. the precision of derived call edges on seeded random samples (a uniform sample of all
   derived edges, and one per ``via`` stratum), judged by the bench's own type oracle
   (``bench/oracle``, independent of ``ragraf.indexing.resolve`` and ``ragraf.lang.php``):
   correct / wrong / unknown, precision = correct / (correct + wrong), example wrong edges;
   as a control, the oracle also judges every stated call edge to a method (it should agree);
3. specific checks: WordPress ``get_option`` callers stated as a share of its code call lines;
   phpMyAdmin ``Header::getMessage`` callers whose receiver is not a Header; issue 41's
   (``bench/dynamic_checks.py``): WordPress's ``wp_ajax_*`` handlers reached, a silent-miss
   sweep of 30 functions and methods with at most one caller (with the verdicts read by hand,
   ``bench/audit/<corpus>-sweep.tsv``), a sample of derived edges per ``via`` to check by
   hand, and the precision by rule of the derived edges checked by hand (``bench/audit.py``,
   verdicts in ``bench/audit/<corpus>.tsv``: 10 per rule, seeded);
4. the no-loss checks of ``bench/index.py`` (``checks()``, unchanged) with today's numbers.

Prints one JSON document on stdout (progress on stderr); record it in docs/PERFORMANCE.md with
the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import ragraf  # noqa: E402
from bench import audit, dynamic_checks  # noqa: E402
from bench.corpora import copy_corpus  # noqa: E402
from bench.index import checks, timed_index  # noqa: E402
from bench.oracle.corpus import Corpus, key, text  # noqa: E402
from bench.oracle.judge import CORRECT, UNKNOWN_V, WRONG, Judge, Target, Verdict  # noqa: E402
from ragraf import config  # noqa: E402
from ragraf.store import manifest  # noqa: E402
from ragraf.store.graph import GraphStore  # noqa: E402
from ragraf.store.ranges import live, rev_no  # noqa: E402

#: the coverage keys of call sites, in report order (``external`` is written by issue 11's resolver)
CALL_KEYS = ("stated", "derived", "external", "unresolved")
#: today's exact no-loss numbers on phpMyAdmin (docs/PERFORMANCE.md, issue 2)
NO_LOSS = {
    "util_backquote": {"calling_functions": 299, "call_lines": 804},
    "this_dbi_fetchResult": {"sites": 61, "resolved": 61, "stated": 61},
    "dbi_fetchResult": {"sites": 32, "resolved": 32},
    "fetchResult_wrong_targets": 0,
    "truthfulness_violations": 0,
}


def log(msg: str) -> None:
    print(f"[resolution] {msg}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class DerivedEdge:
    uid: str
    kind: str
    path: str
    line: int
    src: str
    target: Target
    via: str
    candidates: int

    @property
    def site(self) -> str:
        return f"{self.path}:{self.line}"


# -- reading the index ------------------------------------------------------------------------
def coverage_report(rows: dict[str, float | None]) -> dict[str, Any]:
    """Call sites by outcome from the coverage rows; a key the index does not write is null."""
    total = rows.get("calls.total")
    out: dict[str, Any] = {"total": int(total) if total is not None else None}
    for k in CALL_KEYS:
        v = rows.get(f"calls.{k}")
        out[k] = {
            "count": int(v) if v is not None else None,
            "share": round(v / total, 4) if v is not None and total else None,
        }
    out["detail"] = {
        k: (int(v) if v is not None and float(v).is_integer() else v)
        for k, v in sorted(rows.items())
        if k.startswith("calls.") and k.split(".", 1)[1] not in ("total", *CALL_KEYS)
    }
    return out


def derived_edges(g: GraphStore, rev: str) -> list[DerivedEdge]:
    """Every derived call edge (``calls_heuristic`` and any derived ``calls``), by edge_uid."""
    rows = audit.derived_rows(
        g,
        rev,
        "e.edge_uid, e.kind, e.evidence_path, e.evidence_line, s.fqn, d.kind, d.fqn, d.path,"
        " e.props",
        "e.kind IN ('calls','calls_heuristic')",
    )
    out = []
    for uid, kind, path, line, src, dkind, dfqn, dpath, props in rows:
        p = json.loads(props) if props else {}
        via = str(p.get("via") or "none") + (
            "+magic" if p.get("magic") and p.get("via") != "magic" else ""
        )
        out.append(
            DerivedEdge(
                uid,
                kind,
                path,
                int(line),
                src or "",
                Target(dkind, dfqn or "", dpath),
                via,
                int(p.get("candidates") or 1),
            )
        )
    return sorted(out, key=lambda e: e.uid)


def stated_method_edges(g: GraphStore, rev: str) -> list[DerivedEdge]:
    """Stated call edges to methods: the oracle's control sample (they should judge correct)."""
    rows = g.db.query(
        "SELECT e.edge_uid, e.kind, e.evidence_path, e.evidence_line, d.fqn, d.path FROM edge e"
        f" JOIN node d ON d.node_id=e.dst AND {live('d')}"
        f" WHERE {live('e')} AND e.provenance='stated' AND e.kind='calls' AND d.kind='method'",
        (rev_no(rev),),
    )
    out = [
        DerivedEdge(uid, kind, path, int(line), "", Target("method", fqn or "", dpath), "stated", 1)
        for uid, kind, path, line, fqn, dpath in rows
    ]
    return sorted(out, key=lambda e: e.uid)


def incoming_calls(g: GraphStore, rev: str, fqn: str, path: str | None = None) -> list[tuple]:
    """(kind, provenance, path, line) of call edges to the node(s) named ``fqn``."""
    nodes = [n for n in g.nodes_by_fqn(rev, fqn) if path is None or n.path == path]
    return [
        (e.kind, e.provenance, e.evidence_path, e.evidence_line)
        for e in g.edges_to(rev, [n.node_id for n in nodes], kinds=("calls", "calls_heuristic"))
    ]


# -- sampling and counting --------------------------------------------------------------------
def sample(edges: list[DerivedEdge], n: int | None, seed: str) -> list[DerivedEdge]:
    """A deterministic random sample (all edges when ``n`` is None or not smaller)."""
    if n is None or n >= len(edges):
        return list(edges)
    return random.Random(seed).sample(edges, n)


def tally(verdicts: list[str]) -> dict[str, Any]:
    c = Counter(verdicts)
    known = c[CORRECT] + c[WRONG]
    return {
        "size": len(verdicts),
        "correct": c[CORRECT],
        "wrong": c[WRONG],
        "unknown": c[UNKNOWN_V],
        "precision": round(c[CORRECT] / known, 4) if known else None,
        "unknown_share": round(c[UNKNOWN_V] / len(verdicts), 4) if verdicts else None,
    }


def strata_estimate(strata: dict[str, dict[str, Any]]) -> float | None:
    """Precision over all derived edges, each stratum weighted by its population's judged part."""
    num = den = 0.0
    for s in strata.values():
        if not s["size"] or s["precision"] is None:
            continue
        judged = s["population"] * (s["correct"] + s["wrong"]) / s["size"]
        num += judged * s["precision"]
        den += judged
    return round(num / den, 4) if den else None


def pick_examples(
    items: list[tuple[DerivedEdge, Verdict]], n: int = 10
) -> list[tuple[DerivedEdge, Verdict]]:
    """``n`` wrong edges, spread over causes: round robin over (via, reason) groups."""
    groups: dict[tuple[str, str], list[tuple[DerivedEdge, Verdict]]] = {}
    for e, v in sorted(
        items, key=lambda x: (x[0].via, _cause(x[1]), x[0].path, x[0].line, x[0].uid)
    ):
        groups.setdefault((e.via, _cause(v)), []).append((e, v))
    out: list[tuple[DerivedEdge, Verdict]] = []
    seen_sites: set[str] = set()
    while len(out) < n and any(groups.values()):
        for g in list(groups.values()):
            while g:
                e, v = g.pop(0)
                if e.site not in seen_sites:
                    seen_sites.add(e.site)
                    out.append((e, v))
                    break
            if len(out) >= n:
                break
    return out


def _cause(v: Verdict) -> str:
    return re.sub(r" [A-Z\\][\w\\:]+.*", " <method>", v.reason)


# -- the checks ---------------------------------------------------------------------------------
def function_call_lines(corpus: Corpus, name: str) -> set[str]:
    """``path:line`` of every call of the global function ``name`` (code only, tree-sitter)."""
    out = set()
    want = name.lower()
    for unit in corpus.units.values():
        if want.encode() not in unit.src.lower():
            continue
        todo = [unit.tree.root_node]
        while todo:
            n = todo.pop()
            if n.type == "function_call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and fn.type in ("name", "qualified_name"):
                    cands = unit.region_at(n.start_byte).function_candidates(text(fn))
                    if key(cands[-1]) == want:
                        out.add(f"{unit.path}:{fn.start_point[0] + 1}")
            todo.extend(n.children)
    return out


def grep_function_lines(root: Path, paths: list[str], name: str) -> set[str]:
    """The same by grep: ``name(`` not after ``->``, ``::``, ``$`` or a word character, on lines
    that do not start as comments, declarations excluded."""
    rx = re.compile(r"(?<![\w$>:])" + re.escape(name) + r"\s*\(")
    decl = re.compile(r"\bfunction\s+&?\s*" + re.escape(name) + r"\s*\(")
    out = set()
    for p in paths:
        f = root / p
        if not f.is_file():
            continue
        for i, line in enumerate(f.read_text(encoding="utf-8", errors="replace").split("\n"), 1):
            s = line.strip()
            if s.startswith(("*", "//", "/*", "#")) or decl.search(line):
                continue
            if rx.search(line):
                out.add(f"{p}:{i}")
    return out


def get_option_check(
    g: GraphStore, rev: str, corpus: Corpus, root: Path, paths: list[str]
) -> dict[str, Any]:
    decl_path = "wp-includes/option.php"
    code = function_call_lines(corpus, "get_option")
    grep = grep_function_lines(root, paths, "get_option")
    edges = incoming_calls(g, rev, "get_option", decl_path)
    stated = {f"{p}:{ln}" for k, prov, p, ln in edges if k == "calls" and prov == "stated"}
    derived = {f"{p}:{ln}" for k, prov, p, ln in edges if prov == "derived"}
    other = incoming_calls(g, rev, "get_option")
    elsewhere = {f"{p}:{ln}" for _k, _prov, p, ln in other} - stated - derived
    hit = code & stated
    return {
        "declaration": f"{decl_path} get_option",
        "code_call_lines": len(code),
        "grep_call_lines": len(grep),
        "grep_not_in_code": sorted(grep - code)[:5],
        "stated_lines": len(hit),
        "derived_lines": len(code & derived - stated),
        "stated_share": round(len(hit) / len(code), 4) if code else None,
        "target": ">= 0.95 after issue 11",
        "lines_linked_only_to_another_declaration": len(code & elsewhere),
        "not_stated_examples": sorted(code - stated)[:5],
    }


def header_getmessage_check(
    g: GraphStore, rev: str, judge: Judge, corpus: Corpus
) -> dict[str, Any]:
    fqn = "PhpMyAdmin\\Header::getMessage"
    nodes = g.nodes_by_fqn(rev, fqn)
    tgt = Target("method", fqn, nodes[0].path if nodes else None)
    rows = incoming_calls(g, rev, fqn)
    verdicts = []
    false_callers = []
    for _kind, prov, path, line in rows:
        v = judge.judge(path, line, tgt)
        verdicts.append(v.verdict)
        if v.verdict == WRONG:
            unit = corpus.units.get(path)
            false_callers.append(
                {
                    "site": f"{path}:{line}",
                    "provenance": prov,
                    "receiver": v.receiver,
                    "line": unit.line_text(line).strip()[:160] if unit else "",
                }
            )
    c = Counter(verdicts)
    return {
        "callers_edges": len(rows),
        "stated": sum(1 for r in rows if r[1] == "stated"),
        "derived": sum(1 for r in rows if r[1] == "derived"),
        "oracle": {"correct": c[CORRECT], "wrong": c[WRONG], "unknown": c[UNKNOWN_V]},
        "false_callers": len(false_callers),
        "target": 0,
        "false_caller_examples": false_callers[:5],
    }


def no_loss(res: dict[str, Any]) -> dict[str, Any]:
    """bench/index.py's checks against today's numbers (they must not get worse)."""
    bq, this, dbi = res["util_backquote"], res["this_dbi_fetchResult"], res["dbi_fetchResult"]
    viol = sum(res["truthfulness"]["violations"].values())
    got = {
        "util_backquote": {
            "calling_functions": bq["calling_functions"],
            "call_lines": bq["call_lines"],
        },
        "this_dbi_fetchResult": {k: this[k] for k in ("sites", "resolved", "stated")},
        "dbi_fetchResult": {k: dbi[k] for k in ("sites", "resolved")},
        "fetchResult_wrong_targets": res["fetchResult_wrong_targets"],
        "truthfulness_violations": viol,
    }
    ok = (
        bq["calling_functions"] >= 299
        and bq["call_lines"] >= 804
        and bq["all_stated"]
        and this["resolved"] >= 61
        and this["stated"] >= 61
        and dbi["resolved"] >= 32
        and res["fetchResult_wrong_targets"] == 0
        and viol == 0
    )
    return {"expected": NO_LOSS, "got": got, "ok": ok}


# -- the run ------------------------------------------------------------------------------------
def judge_all(judge: Judge, corpus: Corpus, edges: list[DerivedEdge]) -> dict[str, Verdict]:
    out = {}
    for e in edges:
        if e.uid not in out:
            out[e.uid] = judge.judge(e.path, e.line, e.target)
    return out


def report(root: Path, corpus_name: str, n: int | None, seed: int) -> dict[str, Any]:
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        cov = {r.metric: r.value for r in g.coverage(rev)}
        paths = [
            f.path for f in g.files(rev) if f.path.endswith(".php") and f.parse_status != "skipped"
        ]
        t0 = time.perf_counter()
        corpus = Corpus(root, paths)
        judge = Judge(corpus)
        log(
            f"oracle: {len(corpus.units)} files, {len(corpus.classes)} classes ({time.perf_counter() - t0:.1f} s)"
        )
        edges = derived_edges(g, rev)
        by_via = Counter(e.via for e in edges)
        uniform = sample(edges, n, f"{seed}")
        strata_samples = {
            via: sample([e for e in edges if e.via == via], n, f"{seed}:{via}")
            for via in sorted(by_via)
        }
        t0 = time.perf_counter()
        verdicts = judge_all(
            judge, corpus, uniform + [e for s in strata_samples.values() for e in s]
        )
        log(f"judged {len(verdicts)} edges ({time.perf_counter() - t0:.1f} s)")
        uni = tally([verdicts[e.uid].verdict for e in uniform])
        uni["seed"] = seed
        uni["by_via"] = {
            via: tally([verdicts[e.uid].verdict for e in uniform if e.via == via])
            for via in sorted({e.via for e in uniform})
        }
        strata = {}
        for via, s in strata_samples.items():
            t = tally([verdicts[e.uid].verdict for e in s])
            strata[via] = {"population": by_via[via], **t}
        judged = {e.uid: e for e in uniform + [e for s in strata_samples.values() for e in s]}
        wrong = [
            (e, verdicts[u]) for u, e in sorted(judged.items()) if verdicts[u].verdict == WRONG
        ]
        unknown_reasons = Counter(
            _cause(verdicts[u]) for u in judged if verdicts[u].verdict == UNKNOWN_V
        )
        wrong_causes = Counter(f"{e.via}: {_cause(v)}" for e, v in wrong)
        examples = []
        for e, v in pick_examples(wrong):
            unit = corpus.units.get(e.path)
            examples.append(
                {
                    "site": e.site,
                    "line": unit.line_text(e.line).strip()[:160] if unit else "",
                    "target": f"{e.target.fqn} ({e.target.path})",
                    "via": e.via,
                    "candidates": e.candidates,
                    # a method call: the receiver's classes ("+": or a subclass, "?": unknown
                    # part); a function: the files whose declaration the call runs
                    ("runs" if e.target.kind == "function" else "receiver"): v.receiver,
                    "why_wrong": v.reason,
                }
            )
        out: dict[str, Any] = {
            "call_sites": coverage_report(cov),
            "derived_edges": {
                "edges": len(edges),
                "sites": len({e.site for e in edges}),
                "by_via": dict(sorted(by_via.items())),
            },
            "precision": {
                "judge": "bench/oracle (tree-sitter type oracle, independent of ragraf's resolver)",
                "uniform_sample": uni,
                "strata": strata,
                "strata_estimate": strata_estimate(strata),
                "wrong_causes": dict(wrong_causes.most_common()),
                "unknown_reasons": dict(unknown_reasons.most_common()),
                "wrong_examples": examples,
            },
        }
        # the control: every stated call edge to a method (a few seconds), where the resolver
        # knew the receiver's type; the oracle should find the same method
        control = stated_method_edges(g, rev)
        cv = judge_all(judge, corpus, control)
        ctl = tally([cv[e.uid].verdict for e in control])
        ctl["wrong_examples"] = [
            {
                "site": e.site,
                "line": corpus.units[e.path].line_text(e.line).strip()[:160]
                if e.path in corpus.units
                else "",
                "target": e.target.fqn,
                "receiver": cv[e.uid].receiver,
                "why_wrong": cv[e.uid].reason,
            }
            for e in control
            if cv[e.uid].verdict == WRONG
        ][:10]
        out["precision"]["control_stated_methods"] = ctl
        t0 = time.perf_counter()
        base = checks(root)
        log(f"bench/index.py checks ({time.perf_counter() - t0:.1f} s)")
        specific: dict[str, Any] = {"truthfulness": base["truthfulness"]}
        if corpus_name == "wordpress":
            specific["get_option"] = get_option_check(g, rev, corpus, root, paths)
        if corpus_name == "wordpress":
            specific["wp_ajax_handlers"] = dynamic_checks.ajax_handlers(g, rev, root)
        t0 = time.perf_counter()
        specific["silent_sweep"] = dynamic_checks.silent_sweep(g, rev, root, 30, seed, corpus_name)
        specific["derived_by_hand"] = audit.report(g, rev, root, corpus_name, 10, seed)
        specific["manual_sample"] = dynamic_checks.manual_sample(g, rev, root, 10, seed)
        log(f"issue 41 checks ({time.perf_counter() - t0:.1f} s)")
        if corpus_name == "phpmyadmin":
            specific["header_getMessage"] = header_getmessage_check(g, rev, judge, corpus)
            specific["no_loss"] = no_loss(base)
            specific["index_checks"] = base
        out["checks"] = specific
        return out
    finally:
        g.close()


def machine() -> str:
    return f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="phpmyadmin", help="phpmyadmin | wordpress")
    ap.add_argument(
        "--root", type=Path, help="an already indexed copy: skip the copy and the index run"
    )
    ap.add_argument(
        "--sample", default="200", help="edges per sample (uniform and each stratum), or 'all'"
    )
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    n = None if args.sample == "all" else int(args.sample)
    os.environ["RAGRAF_VECTORS"] = "off"
    # the child `python -m ragraf` indexes with this checkout's ragraf, wherever the bench runs from
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p
    )
    head: dict[str, Any] = {
        "corpus": args.corpus,
        "machine": machine(),
        "date": subprocess.run(["date"], capture_output=True, text=True).stdout.strip(),
        "command": "bench/resolution.py " + " ".join(sys.argv[1:]),
        "git": subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "ragraf": str(Path(ragraf.__file__).parent),
    }
    if args.root is not None:
        res = report(args.root.resolve(), args.corpus, n, args.seed)
    else:
        with tempfile.TemporaryDirectory(prefix="ragraf-bench-") as tmp:
            root = copy_corpus(args.corpus, Path(tmp))
            config.init_project(root)
            log(f"indexing {root}")
            run = timed_index(root)
            wall, peak, idx = run.wall, run.peak_kib, run.result
            head["index"] = {
                "wall_s": round(wall, 2),
                "peak_rss_mib": round(peak / 1024),
                "counts": idx.get("counts"),
            }
            res = report(root, args.corpus, n, args.seed)
    print(json.dumps({**head, **res}, indent=2))


if __name__ == "__main__":
    main()

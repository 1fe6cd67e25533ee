"""Search quality on phpMyAdmin, WordPress, MediaWiki, Zabbix and ZoneMinder: MRR@10, recall@5 and abstention per query category. Run by hand.

    .venv/bin/python bench/search_eval.py --root <indexed copy of phpMyAdmin> [--set bench/search_eval.yaml]
    .venv/bin/python bench/search_eval.py --root <indexed copy of WordPress> --set bench/search_eval_wordpress.yaml
    .venv/bin/python bench/search_eval.py --root <indexed copy of MediaWiki> --set bench/search_eval_mediawiki.yaml
    .venv/bin/python bench/search_eval.py --root <indexed copy of Zabbix> --set bench/search_eval_zabbix.yaml
    .venv/bin/python bench/search_eval.py --root <indexed copy of ZoneMinder> --set bench/search_eval_zoneminder.yaml
                                          [--limit 10] [--json] [--verbose]

The root must be indexed first, e.g.:

    cp -r "$(../shared/corpora/fetch phpmyadmin)" /tmp/pma
    .venv/bin/ragraf init /tmp/pma && .venv/bin/ragraf -C /tmp/pma index

It speaks only the facade contract:
``run(session, "search", {"query": q, "limit": 10})["result"]`` (one warm session) is
``{"hits": [{chunk_id, path, start_line, end_line, score, kind, fqn, why}],
"abstained": bool, "hint": str | None}``.

Scoring (``score``), per query:
- a hit matches an expected ``{fqn: X}`` when ``hit.fqn == X`` or, X naming a
  class, ``hit.fqn`` starts with ``X + "::"``; an expected ``{path: P}`` when
  ``hit.path == P``. The expected entries are alternatives: one match is enough.
- ``rank``: 1-based position of the first matching hit among the first
  ``limit`` hits; ``rr`` = 1/rank (0 without a match); ``hit5`` = 1 when
  rank <= 5. recall@5 of a category is the mean of ``hit5`` (the share of its
  queries answered in the first five hits).
- An abstained answer counts as no answer (rr 0, hit5 0) whatever hits it
  carries: the agent was told there is nothing good to read.
- Nonsense and near-miss queries (``expected: []``) have no rank; what counts
  is the abstention rate, which should be high there and low elsewhere. A near
  miss uses words that occur in the corpus, but never together in one place.
- Every query belongs to a ``half``: ``tune`` (default) or ``held``, the
  held-apart half that is never looked at while tuning; the conceptual queries
  are also reported per half (``conceptual/tune``, ``conceptual/held``: their
  ``abstention`` is the share of real questions refused), and ``abstain`` pools
  nonsense and near misses (per half: ``abstain/tune``, ``abstain/held``).
  ``--half tune`` runs one half only (a tuning run never sees the held half).
Printed per category: queries, MRR@10, recall@5, abstention rate, median and
p95 latency. Record the report in docs/PERFORMANCE.md with the machine and date.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SET = Path(__file__).resolve().parent / "search_eval.yaml"
CATEGORIES = ("literal", "conceptual", "nonsense", "near_miss")
UNANSWERABLE = ("nonsense", "near_miss")
HALVES = ("tune", "held")
MRR_AT = 10
RECALL_AT = 5


@dataclass(frozen=True)
class Query:
    query: str
    category: str
    expected: tuple[tuple[str, str], ...]  # ("fqn" | "path", value)
    half: str = "tune"


@dataclass
class QueryScore:
    query: str
    category: str
    rank: int | None  # first matching hit, 1-based, within the limit
    rr: float
    hit5: int
    abstained: bool
    hits: int
    seconds: float = 0.0
    top: list[str] = field(
        default_factory=list
    )  # fqn or path:line of the first hits, for --verbose
    half: str = "tune"


# -- the evaluation set --------------------------------------------------------
def parse_set(data: Any, source: str = "<set>") -> list[Query]:
    """Validate the YAML structure; every mistake names the entry."""
    if not isinstance(data, Mapping) or not isinstance(data.get("queries"), list):
        raise ValueError(f"{source}: expected a mapping with a 'queries' list")
    out: list[Query] = []
    seen: set[str] = set()
    for i, q in enumerate(data["queries"]):
        where = f"{source}: queries[{i}]"
        if not isinstance(q, Mapping):
            raise ValueError(f"{where}: not a mapping")
        text, cat, exp = q.get("query"), q.get("category"), q.get("expected")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}: 'query' must be a non-empty string")
        if text in seen:
            raise ValueError(f"{where}: duplicate query {text!r}")
        seen.add(text)
        if cat not in CATEGORIES:
            raise ValueError(
                f"{where}: category must be one of {', '.join(CATEGORIES)}, got {cat!r}"
            )
        half = q.get("half", "tune")
        if half not in HALVES:
            raise ValueError(f"{where}: half must be one of {', '.join(HALVES)}, got {half!r}")
        if not isinstance(exp, list):
            raise ValueError(f"{where}: 'expected' must be a list (empty for nonsense)")
        pairs: list[tuple[str, str]] = []
        for e in exp:
            if not isinstance(e, Mapping) or len(e) != 1:
                raise ValueError(
                    f"{where}: each expected entry is {{fqn: ...}} or {{path: ...}}, got {e!r}"
                )
            ((key, value),) = e.items()
            if key not in ("fqn", "path") or not isinstance(value, str) or not value:
                raise ValueError(
                    f"{where}: each expected entry is {{fqn: ...}} or {{path: ...}}, got {e!r}"
                )
            if key == "path" and (value.startswith("/") or "\\" in value):
                raise ValueError(f"{where}: a path is relative and POSIX, got {value!r}")
            pairs.append((key, value))
        if cat in UNANSWERABLE and pairs:
            raise ValueError(f"{where}: a {cat} query has expected: []")
        if cat not in UNANSWERABLE and not pairs:
            raise ValueError(f"{where}: a {cat} query needs at least one expected answer")
        out.append(Query(text, cat, tuple(pairs), half))
    return out


def load_set(path: Path) -> list[Query]:
    import yaml

    with path.open(encoding="utf-8") as fh:
        return parse_set(yaml.safe_load(fh), str(path))


def set_corpus(path: Path) -> str:
    """The ``corpus:`` the set was written for (phpmyadmin when absent)."""
    import yaml

    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return str(data.get("corpus") or "phpmyadmin") if isinstance(data, Mapping) else "phpmyadmin"


_NAMESPACE = re.compile(r"^\s*namespace\s+([\w\\]+)\s*[;{]", re.M)


def _declared_anywhere(root: Path, value: str) -> str | None:
    """A global function ``f`` or a ``[Namespace\\]Class[::method]`` declared in some *.php
    under ``root``, in a file of that namespace (none for a class without one), for corpora
    without PSR-4 paths; None when found, else the mistake."""
    cls, _, method = value.partition("::")
    short = re.escape(cls.rpartition(chr(92))[2])
    if "::" not in value:  # a global function (DBselect is capitalised too) or a class
        pat = re.compile(rf"\b(function\s+&?{short}\s*\(|(class|interface|trait)\s+{short}\b)")
    else:
        pat = re.compile(rf"\b(class|interface|trait)\s+{short}\b")
    ns = cls.rpartition("\\")[0]
    for f in root.rglob("*.php"):
        if not f.is_file():  # a broken link (Debian's MediaWiki has LocalSettings.php -> /etc)
            continue
        src = f.read_text(encoding="utf-8", errors="replace")
        if not pat.search(src):
            continue
        declared_ns = _NAMESPACE.search(src)
        if (declared_ns.group(1) if declared_ns else "") != ns:
            continue  # the same short name in another namespace is another class
        if "::" not in value or re.search(rf"\bfunction\s+&?{re.escape(method)}\s*\(", src):
            return None
    return f"{value} is declared in no *.php file"


def check_against_corpus(
    queries: Sequence[Query], root: Path, corpus: str = "phpmyadmin"
) -> list[str]:
    """Every expected answer exists in the tree at ``root``: a path is a file; on phpMyAdmin
    an fqn ``PhpMyAdmin\\X\\Y[::m]`` is declared in ``libraries/classes/X/Y.php`` (PSR-4),
    with its namespace, its class/interface/trait and its method; elsewhere the function,
    or the class with the method, is declared in some *.php file. Returns the mistakes."""
    bad: list[str] = []
    for q in queries:
        for key, value in q.expected:
            if key == "path":
                if not (root / value).is_file():
                    bad.append(f"{q.query!r}: {value} is not a file")
                continue
            if corpus != "phpmyadmin":
                wrong = _declared_anywhere(root, value)
                if wrong:
                    bad.append(f"{q.query!r}: {wrong}")
                continue
            cls, _, method = value.partition("::")
            if not cls.startswith("PhpMyAdmin\\"):
                bad.append(f"{q.query!r}: {value} is not in the PhpMyAdmin namespace")
                continue
            rel = cls[len("PhpMyAdmin\\") :].replace("\\", "/") + ".php"
            f = root / "libraries" / "classes" / rel
            if not f.is_file():
                bad.append(f"{q.query!r}: {value}: no libraries/classes/{rel}")
                continue
            src = f.read_text(encoding="utf-8", errors="replace")
            ns, _, short = cls.rpartition("\\")
            if not re.search(rf"^namespace\s+{re.escape(ns)};", src, re.M):
                bad.append(f"{q.query!r}: {value}: {rel} is not in namespace {ns}")
            elif not re.search(rf"\b(class|interface|trait)\s+{re.escape(short)}\b", src):
                bad.append(f"{q.query!r}: {value}: {rel} declares no {short}")
            elif method and not re.search(rf"\bfunction\s+{re.escape(method)}\s*\(", src):
                bad.append(f"{q.query!r}: {value}: {rel} declares no method {method}")
    return bad


# -- metrics --------------------------------------------------------------------
def matches(hit: Mapping[str, Any], expected: tuple[str, str]) -> bool:
    key, value = expected
    if key == "fqn":
        fqn = hit.get("fqn")
        return isinstance(fqn, str) and (fqn == value or fqn.startswith(value + "::"))
    return hit.get("path") == value


def first_rank(
    hits: Sequence[Mapping[str, Any]], expected: Iterable[tuple[str, str]], limit: int = MRR_AT
) -> int | None:
    exp = list(expected)
    for i, hit in enumerate(hits[:limit], start=1):
        if any(matches(hit, e) for e in exp):
            return i
    return None


def score(
    result: Mapping[str, Any],
    expected: Iterable[tuple[str, str]] | Iterable[Mapping[str, str]],
    limit: int = MRR_AT,
) -> dict[str, Any]:
    """Score one search result against the acceptable answers of its query.

    ``expected`` takes (key, value) pairs or the YAML form ``[{fqn: ...}, {path: ...}]``.
    Returns {"rank", "rr", "hit5", "abstained"}; rank is None when nothing
    matched (or the answer abstained, or expected is empty).
    """
    pairs = [next(iter(e.items())) if isinstance(e, Mapping) else tuple(e) for e in expected]
    hits = result.get("hits") or []
    abstained = bool(result.get("abstained"))
    rank = None if abstained or not pairs else first_rank(hits, pairs, limit)
    return {
        "rank": rank,
        "rr": 1.0 / rank if rank else 0.0,
        "hit5": 1 if rank is not None and rank <= RECALL_AT else 0,
        "abstained": abstained,
    }


def _percentile(values: Sequence[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return 0.0
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]


def aggregate(scores: Sequence[QueryScore]) -> dict[str, dict[str, Any]]:
    """Per category (and 'all' for the answerable ones): n, mrr@10, recall@5, abstention, latency."""
    out: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[QueryScore]] = {c: [] for c in CATEGORIES}
    for s in scores:
        groups.setdefault(s.category, []).append(s)
    groups["answerable"] = [s for s in scores if s.category not in UNANSWERABLE]
    for half in HALVES:
        groups[f"conceptual/{half}"] = [
            s for s in scores if s.category == "conceptual" and s.half == half
        ]
    groups["abstain"] = [s for s in scores if s.category in UNANSWERABLE]
    for half in HALVES:
        groups[f"abstain/{half}"] = [
            s for s in scores if s.category in UNANSWERABLE and s.half == half
        ]
    for cat, items in groups.items():
        if not items:
            continue
        n = len(items)
        row: dict[str, Any] = {
            "n": n,
            "abstention": sum(s.abstained for s in items) / n,
            "latency_p50_s": statistics.median(s.seconds for s in items),
            "latency_p95_s": _percentile([s.seconds for s in items], 95),
        }
        if cat in UNANSWERABLE or cat.startswith("abstain"):
            row["mrr@10"] = None
            row["recall@5"] = None
            row["answered_with_hits"] = sum((not s.abstained) and s.hits > 0 for s in items) / n
        else:
            row["mrr@10"] = sum(s.rr for s in items) / n
            row["recall@5"] = sum(s.hit5 for s in items) / n
        out[cat] = row
    return out


# -- running ----------------------------------------------------------------------
SearchFn = Callable[[str], Mapping[str, Any]]


def evaluate(queries: Sequence[Query], search: SearchFn, limit: int = MRR_AT) -> list[QueryScore]:
    out = []
    for q in queries:
        t = time.perf_counter()
        result = search(q.query)
        dt = time.perf_counter() - t
        s = score(result, q.expected, limit)
        hits = result.get("hits") or []
        top = [h.get("fqn") or f"{h.get('path')}:{h.get('start_line')}" for h in hits[:5]]
        out.append(
            QueryScore(
                q.query,
                q.category,
                s["rank"],
                s["rr"],
                s["hit5"],
                s["abstained"],
                len(hits),
                dt,
                top,
                q.half,
            )
        )
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def render(summary: Mapping[str, Mapping[str, Any]]) -> str:
    cols = ("n", "mrr@10", "recall@5", "abstention", "latency_p50_s", "latency_p95_s")
    lines = [f"{'category':<16}" + "".join(f"{c:>15}" for c in cols)]
    for cat, row in summary.items():
        lines.append(f"{cat:<16}" + "".join(f"{_fmt(row.get(c)):>15}" for c in cols))
    return "\n".join(lines)


def _no_index(root: Path) -> str:
    return (
        f"{root} has no ragraf index: index a copy of the corpus first, e.g. "
        f"`.venv/bin/ragraf init {root} && .venv/bin/ragraf -C {root} index` "
        "(bench/index.py only indexes a temporary copy)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, required=True, help="an indexed copy of phpMyAdmin")
    ap.add_argument("--set", type=Path, default=DEFAULT_SET, help="the evaluation set (YAML)")
    ap.add_argument("--limit", type=int, default=MRR_AT)
    ap.add_argument("--category", choices=CATEGORIES, action="append", help="only these categories")
    ap.add_argument("--half", choices=HALVES, help="only this half (tuning runs: --half tune)")
    ap.add_argument("--json", action="store_true", help="print one JSON report")
    ap.add_argument("--verbose", action="store_true", help="one line per query: rank and top hits")
    a = ap.parse_args(argv)

    queries = load_set(a.set)
    if a.category:
        queries = [q for q in queries if q.category in a.category]
    if a.half:
        queries = [q for q in queries if q.half == a.half]
    root = a.root.resolve()
    if not (root / ".ragraf" / "index" / "rev.json").is_file():
        print(_no_index(root), file=sys.stderr)
        return 3
    wrong = check_against_corpus(queries, root, set_corpus(a.set))
    if wrong:
        print(f"{a.set}: expected answers not in {root}:", *wrong, sep="\n  ", file=sys.stderr)
        return 2

    sys.path.insert(0, str(REPO))
    from ragraf.errors import NoIndexError, RagrafError
    from ragraf.facade import run
    from ragraf.facade.context import Session

    # one warm session, as the MCP server keeps: the model loads once, before the timings
    try:
        session = Session(root)
    except NoIndexError:
        print(_no_index(root), file=sys.stderr)
        return 3
    run(session, "search", {"query": "warm up", "limit": 1})

    def search(q: str) -> Mapping[str, Any]:
        env = run(session, "search", {"query": q, "limit": a.limit})
        result = env.get("result") if isinstance(env, Mapping) else None
        if not isinstance(result, Mapping):
            raise RuntimeError(
                f"search {q!r}: the envelope has no result: {json.dumps(env, default=str)[:500]}"
            )
        return result

    try:
        scores = evaluate(queries, search, a.limit)
    except NoIndexError:
        print(_no_index(root), file=sys.stderr)
        return 3
    except RagrafError as e:
        print(f"search failed: {e}", file=sys.stderr)
        return int(getattr(e, "exit_code", 1)) or 1
    summary = aggregate(scores)
    if a.json:
        print(
            json.dumps(
                {
                    "root": str(root),
                    "set": str(a.set),
                    "limit": a.limit,
                    "summary": summary,
                    "queries": [asdict(s) for s in scores],
                },
                indent=1,
            )
        )
        return 0
    if a.verbose:
        for s in scores:
            mark = "abstain" if s.abstained else (f"rank {s.rank}" if s.rank else "miss")
            print(
                f"[{s.category:<10} {s.half:<4}] {mark:<8} {s.seconds:6.3f}s  {s.query}"
                f"  ->  {', '.join(s.top[:3])}"
            )
        print()
    print(render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

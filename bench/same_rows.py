"""Do two versions of ragraf build the same revision of a corpus? Run by hand.

    .venv/bin/python bench/same_rows.py --other /path/to/worktree [--corpus phpmyadmin]

Builds the corpus (a fresh private copy each) with this checkout and with the checkout at
``--other`` (its own ``.venv``), structural index only, then compares every row of the
revision except what names the build itself (times, extractor fingerprints, the facts
cache): files, nodes, edges, text chunks, schema rows, routes, ranks, coverage,
unresolved calls, and the lexicon's chunk map, text, tokens and further places. Rows are
compared as multisets, all columns but ``rev_id``. Prints a JSON report; exits 1 when a
table differs. A speed change must leave every table equal.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import apsw

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402
from ragraf import config  # noqa: E402

#: (store file below .ragraf/index, table, columns); every column but rev_id
TABLES = (
    ("graph/graph.sqlite", "file", "*"),
    ("graph/graph.sqlite", "node", "*"),
    ("graph/graph.sqlite", "edge", "*"),
    ("graph/graph.sqlite", "text_chunk", "*"),
    ("graph/graph.sqlite", "db_table", "*"),
    ("graph/graph.sqlite", "db_column", "*"),
    ("graph/graph.sqlite", "db_fk", "*"),
    ("graph/graph.sqlite", "web_route", "*"),
    ("graph/graph.sqlite", "node_rank", "*"),
    ("graph/graph.sqlite", "coverage", "*"),
    ("graph/graph.sqlite", "unresolved_call", "*"),
    ("graph/graph.sqlite", "file_blob", "sha256"),
    ("lex/lexvec.sqlite", "chunk_map", "*"),
    ("lex/lexvec.sqlite", "chunk_text", "*"),
    ("lex/lexvec.sqlite", "chunk_tokens", "*"),
    ("lex/lexvec.sqlite", "chunk_also", "*"),
)


def build(python: str, root: Path) -> dict:
    out = subprocess.run(
        [python, "-m", "ragraf", "-C", str(root), "index", "--json", "--no-vectors"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{python}: index failed: {out.stderr}")
    res: dict = json.loads(out.stdout)
    return res


def rows(root: Path, store: str, table: str, cols: str) -> Counter[tuple]:
    conn = apsw.Connection(str(root / ".ragraf" / "index" / store), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        names = (
            [r[1] for r in conn.execute(f"PRAGMA table_info({table})")] if cols == "*" else [cols]
        )
        keep = ", ".join(n for n in names if n != "rev_id")
        return Counter(tuple(r) for r in conn.execute(f"SELECT {keep} FROM {table}"))
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--other", required=True, help="a ragraf checkout with its own .venv")
    ap.add_argument("--corpus", default="phpmyadmin")
    args = ap.parse_args()
    other_py = str(Path(args.other).resolve() / ".venv" / "bin" / "python")
    report: dict = {"corpus": args.corpus, "other": str(Path(args.other).resolve())}
    with tempfile.TemporaryDirectory(prefix="ragraf-same-") as tmp:
        mine = copy_corpus(args.corpus, Path(tmp) / "mine")
        theirs = copy_corpus(args.corpus, Path(tmp) / "theirs")
        for root in (mine, theirs):
            config.init_project(root)
        report["counts"] = {
            "this": build(sys.executable, mine)["counts"],
            "other": build(other_py, theirs)["counts"],
        }
        tables: dict[str, dict] = {}
        for store, table, cols in TABLES:
            a = rows(mine, store, table, cols)
            b = rows(theirs, store, table, cols)
            only_a, only_b = a - b, b - a
            tables[table] = {
                "rows": sum(a.values()),
                "equal": not only_a and not only_b,
                "only_this": sum(only_a.values()),
                "only_other": sum(only_b.values()),
                "examples_this": [repr(r)[:300] for r in list(only_a)[:3]],
                "examples_other": [repr(r)[:300] for r in list(only_b)[:3]],
            }
        report["tables"] = tables
        report["equal"] = all(t["equal"] for t in tables.values())
    print(json.dumps(report, indent=2))
    sys.exit(0 if report["equal"] else 1)


if __name__ == "__main__":
    main()

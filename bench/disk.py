"""Where one revision's disk goes (issue 44), beside codegraph's default, run by hand.

    .venv/bin/python bench/disk.py [--corpus phpmyadmin] [--python OTHER/.venv/bin/python]
        [--codegraph bench/results/codegraph/node_modules/.bin/codegraph] [--markdown]
    .venv/bin/python bench/disk.py --root PROJECT [--markdown]

Copies the corpus into a temporary folder and builds the structural index there with the
real CLI (``ragraf init``, then ``index --no-vectors`` with ``RAGRAF_VECTORS=off``: one
revision, as bench/drift.py measures its ``disk_one_rev``); ``--root`` measures the index
an existing project holds instead. Reports, as one JSON document (``--markdown``: tables):

- per file of ``.ragraf/index/**/*.sqlite*`` (WAL and shm included, as bench/drift.py
  counts) its bytes, and the other files of the index folder (caches, not counted);
- per table and index of each SQLite file, from SQLite's ``dbstat`` virtual table: pages
  (bytes), cells and payload, an FTS5 table's shadow tables each on their own line;
- with ``--codegraph``, the size of ``.codegraph/`` after ``codegraph init -y`` on a second
  copy (its default file selection), and the ratio.

``--python`` measures another checkout (its interpreter builds the index). Record the
output in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402
from bench.index import child_env, compile_package  # noqa: E402


def tables(db: Path) -> list[dict[str, Any]]:
    """Every table and index of ``db`` by bytes, from ``dbstat`` (largest first)."""
    import apsw

    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute(
            "SELECT name, sum(pgsize), sum(ncell), sum(payload) FROM dbstat"
            " GROUP BY name ORDER BY 2 DESC, 1"
        ).fetchall()
        kinds = dict(conn.execute("SELECT name, type FROM sqlite_master").fetchall())
    finally:
        conn.close()
    return [
        {
            "name": name,
            "type": kinds.get(name, "table"),
            "bytes": int(size),
            "cells": int(cells),
            "payload": int(payload),
        }
        for name, size, cells, payload in rows
    ]


def measure(root: Path) -> dict[str, Any]:
    """The index folder of the project at ``root``: its files and each database's tables."""
    idx = root / ".ragraf" / "index"
    files = {
        p.relative_to(idx).as_posix(): p.stat().st_size for p in sorted(idx.rglob("*.sqlite*"))
    }
    others = {
        p.relative_to(idx).as_posix(): p.stat().st_size
        for p in sorted(idx.rglob("*"))
        if p.is_file() and ".sqlite" not in p.name
    }
    total = sum(files.values())
    return {
        "bytes": total,
        "mb": round(total / 1e6, 1),
        "files": files,
        "not_counted": others,
        "tables": {p.relative_to(idx).as_posix(): tables(p) for p in sorted(idx.rglob("*.sqlite"))},
    }


def structural_copy(python: str, corpus: str, tmp: Path) -> tuple[dict[str, str], Path]:
    """A child environment without vectors, its state in ``tmp``/state, the package compiled
    for it, and a copy of ``corpus`` in ``tmp``/ragraf (not yet indexed)."""
    env = child_env()
    env["RAGRAF_VECTORS"] = "off"
    env["RAGRAF_STATE_DIR"] = str(tmp / "state")
    compile_package(python, env)
    return env, copy_corpus(corpus, tmp / "ragraf")


def build(python: str, root: Path, env: dict[str, str]) -> float:
    """``ragraf init`` and a structural ``index`` of ``root``; returns the index's wall time."""
    subprocess.run(
        [python, "-m", "ragraf", "init", str(root)], check=True, env=env, capture_output=True
    )
    t0 = time.perf_counter()
    subprocess.run(
        [python, "-m", "ragraf", "-C", str(root), "index", "--json", "--no-vectors"],
        check=True,
        env=env,
        capture_output=True,
    )
    return round(time.perf_counter() - t0, 2)


def codegraph(binary: str, root: Path) -> dict[str, Any]:
    env = {**os.environ, "CODEGRAPH_TELEMETRY": "0", "NO_COLOR": "1"}
    t0 = time.perf_counter()
    subprocess.run(
        [binary, "init", "-y", str(root)], check=True, env=env, cwd=root, capture_output=True
    )
    wall = round(time.perf_counter() - t0, 2)
    size = sum(p.stat().st_size for p in (root / ".codegraph").rglob("*") if p.is_file())
    return {"bytes": size, "mb": round(size / 1e6, 1), "index_wall_s": wall}


def markdown(report: dict[str, Any]) -> str:
    d = report["ragraf"]
    out = [f"### {report['corpus']}: {d['mb']} MB in {len(d['files'])} files", ""]
    if "codegraph" in report:
        cg = report["codegraph"]
        out += [f"codegraph default: {cg['mb']} MB; ragraf / codegraph = {report['ratio']}", ""]
    out += [
        "| file | table / index | type | MB | cells | payload MB |",
        "|---|---|---|---|---|---|",
    ]
    for f, rows in d["tables"].items():
        for r in rows:
            if r["bytes"] >= 0.002 * d["bytes"]:
                out.append(
                    f"| {f} | {r['name']} | {r['type']} | {r['bytes'] / 1e6:.2f} | {r['cells']}"
                    f" | {r['payload'] / 1e6:.2f} |"
                )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="phpmyadmin")
    ap.add_argument("--root", type=Path, help="measure this project's index (no build)")
    ap.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
    ap.add_argument("--codegraph", help="the codegraph binary (measured on a second copy)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    report: dict[str, Any] = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg()[0],
        "corpus": str(args.root) if args.root else args.corpus,
    }
    if args.root:
        report["ragraf"] = measure(args.root)
    else:
        with tempfile.TemporaryDirectory(prefix="ragraf-disk-") as tmp:
            env, root = structural_copy(args.python, args.corpus, Path(tmp))
            report["index_wall_s"] = build(args.python, root, env)
            report["ragraf"] = measure(root)
            if args.codegraph:
                other = copy_corpus(args.corpus, Path(tmp) / "codegraph")
                report["codegraph"] = codegraph(str(Path(args.codegraph).resolve()), other)
                report["ratio"] = round(report["ragraf"]["bytes"] / report["codegraph"]["bytes"], 2)
    print(markdown(report) if args.markdown else json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

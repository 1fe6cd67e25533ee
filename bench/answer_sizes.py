"""Answer sizes: the bytes one MCP call returns for the list-returning operations (issue 43).

    .venv/bin/python bench/answer_sizes.py --root /path/to/indexed/phpmyadmin [--limit N]

Runs each case through the facade on an open session, as the MCP server does, and prints
the size of the envelope as the server sends it (``json.dumps(env, ensure_ascii=False)``,
UTF-8 bytes), with the items listed and the total the answer reports. ``--limit N`` passes
``limit: N`` to every operation that declares it, capped at its maximum (the size of
"give me everything").
Record the output in docs/PERFORMANCE.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ragraf import facade  # noqa: E402
from ragraf.facade.context import Session  # noqa: E402

#: (operation, arguments) on phpMyAdmin
CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("callers", {"fqn": "DatabaseInterface::query"}),
    ("callers", {"fqn": "PhpMyAdmin\\Util::backquote"}),
    ("callees", {"fqn": "PhpMyAdmin\\DatabaseInterface::query"}),
    ("references", {"fqn": "DatabaseInterface::query"}),
    ("impact", {"fqn": "PhpMyAdmin\\DatabaseInterface::query"}),
    ("table_usage", {"table": "pma__column_info"}),
    ("search", {"query": "run a query on the database server"}),
    ("symbol", {"name": "query"}),
    ("routes", {}),
)

#: the lists each operation's answer holds (what "items" counts)
LISTS = {
    "callers": ("stated", "derived"),
    "callees": ("stated", "derived"),
    "references": ("sites",),
    "impact": (),
    "table_usage": ("readers", "writers", "unlinked", "possible"),
    "search": ("hits",),
    "symbol": ("matches",),
    "routes": ("routes", "endpoints", "entry_files"),
}


def items(op: str, r: dict[str, Any]) -> int:
    if op == "impact":
        return sum(len(r[s][k]) for s in ("hard", "soft") for k in r[s] if k != "files")
    return sum(len(r.get(k) or []) for k in LISTS[op])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=None)
    a = ap.parse_args()
    session = Session(a.root.resolve())
    print("| operation | arguments | bytes | items listed | total |")
    print("|---|---|---:|---:|---:|")
    try:
        for op, args in CASES:
            call = dict(args)
            lim = facade.spec(op).param("limit")
            if a.limit is not None and lim is not None:
                call["limit"] = min(a.limit, lim.maximum or a.limit)
            env = facade.run(session, op, call)
            size = len(json.dumps(env, ensure_ascii=False).encode("utf-8"))
            r = env["result"]
            shown = ", ".join(f"{k} {v}" for k, v in call.items())
            total = r.get("total", "")
            if op == "routes":  # no total of its own: the page counts each list
                total = sum(v["total"] for v in r.get("page", {}).get("lists", {}).values()) or ""
            print(f"| {op} | {shown} | {size:,} | {items(op, r)} | {total} |")
    finally:
        session.close()


if __name__ == "__main__":
    main()

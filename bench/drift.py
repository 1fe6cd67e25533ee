"""Benchmark of the ledger cycle on a real corpus (default: phpMyAdmin), run by hand.

    .venv/bin/python bench/drift.py [--corpus phpmyadmin]

Indexes a temporary copy, then times the real CLI: `ragraf drift --scan` with nothing
changed, after a one-file edit, and `ragraf reindex --commit` after that edit (structural;
the vector layer is reported separately when enabled). Record the output in
docs/PERFORMANCE.md with the machine and the date.
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402


def timed(root: Path, *args: str) -> tuple[float, dict]:
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "ragraf", "-C", str(root), *args, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return round(time.perf_counter() - t, 3), json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="phpmyadmin")
    ap.add_argument("--file", default="libraries/classes/Util.php")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragraf-dbench-") as tmp:
        root = copy_corpus(args.corpus, Path(tmp))
        subprocess.run(
            [sys.executable, "-m", "ragraf", "init", str(root)], check=True, capture_output=True
        )
        t_index, idx = timed(root, "index")
        nothing = [timed(root, "drift", "--scan")[0] for _ in range(3)]
        target = root / args.file
        text = target.read_text(encoding="utf-8")
        # a one-file edit: change a body, add a method (what an agent typically does)
        marker = "    public static function backquote("
        assert marker in text, f"{marker!r} not in {args.file}"
        text = text.replace(
            marker,
            "    public static function benchHelper(): int\n    {\n        return 42;\n"
            "    }\n\n" + marker,
            1,
        )
        target.write_text(text, encoding="utf-8")
        t_edit, scan = timed(root, "drift", "--scan")
        t_again, _ = timed(root, "drift", "--scan")
        t_reindex, re = timed(root, "reindex", "--commit")
        report = {
            "corpus": args.corpus,
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d"),
            "index_s": t_index,
            "files": idx["counts"]["files"],
            "scan_nothing_changed_s": nothing,
            "scan_after_one_file_edit_s": t_edit,
            "entries_written": [
                (e["kind"], e["path"], len(json.loads(e["edges_invalidated"])))
                for e in scan["new_entries"]
            ],
            "rescan_s": t_again,
            "reindex_commit_s": t_reindex,
            "reindex_stages_s": re["timings_s"],
            "reused_files": re["reused_files"],
            "archive": re["archive"],
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""Benchmark of the ledger cycle on a real corpus (default: phpMyAdmin), run by hand.

    .venv/bin/python bench/drift.py [--corpus phpmyadmin|wordpress] [--rounds 5] [--vectors]
        [--python OTHER/.venv/bin/python] [--check]
    .venv/bin/python bench/drift.py --sequence [--corpus wordpress] [--equality 20] [--seed 15]
        [--check-every 1] [--hub-every K] [--vectors] [--python OTHER/.venv/bin/python]

Issue 15 ("revisions that share what did not change"). Every step is the real CLI in a
child process (``python -m ragraf ... --json``, interpreter start included, bytecode
compiled beforehand as an installed package has it), on a private copy of the corpus with
the default configuration (``retain_revs: 3``). Structural unless ``--vectors``
(``RAGRAF_VECTORS=off`` and ``--no-vectors``; with ``--vectors`` the packaged model embeds,
which is slow: the first index embeds every chunk).

Timing mode (the default) reports, as one JSON document:

1. the full index (``index``): wall time, stages, files;
2. ``drift --scan`` with nothing changed (three runs), then ``--rounds`` one-file edits
   (a different file and kind of edit each round, the same every run), each followed by
   ``drift --scan`` and ``reindex --commit``: both wall times, their sum, the reindex's
   ``timings_s``, what it reused and pruned (pruning starts at the third reindex);
3. disk: the bytes of ``.ragraf/index/**/*.sqlite*`` (WAL and shm included) after the
   index (one revision), after three reindexes (three revisions retained) and at the end,
   with the ratio to one revision; ``free_bytes`` are pages SQLite keeps for reuse;
4. with ``--check``, whether the last revision shows what a clean build of the same tree
   shows (as sequence mode compares; exit status 1 when not): the rounds include the
   edit of a file every other file calls, whose callers are renamed (``resolve.files_renamed``).

Sequence mode (``--sequence``) is the equality oracle: ``--equality`` N random one-file
edits of PHP files of the corpus (phpMyAdmin's libraries/classes, ``--corpus wordpress``:
wp-includes, a corpus without a schema file; seeded; the kinds of bench/php_edits.py,
each keeps the PHP parseable; with ``--hub-every K`` every K-th edit is in one of the files
the timing rounds edit, which every other file calls, so their callers get renamed), each
followed by ``drift --scan`` and ``reindex --commit``. Every
``--check-every`` edits and after the last one, a second copy of the same tree gets a
clean build in a fresh ``.ragraf/`` (``init`` + ``index``). The incremental active
revision must show what the clean one shows: the node set, the edge_uid set, the chunk
set (with ``--vectors`` also the chunks that have a vector), and for the nodes and edges
both have, the rest of the row (end line, layer, props; provenance, confidence, sources,
props), which the ids (kind, name, path, start line) do not cover. Every retained older
revision must still show what it showed when it was sealed. The first differences are
printed; the exit status is 1 when anything differs.

The revisions are read only through ``open_stores(config.Layout(root))`` and
``GraphStore.node_ids`` / ``edge_uids``, ``LexStore.chunk_ids`` / ``without_vector``,
``nodes_by_ids`` / ``edges_by_uids`` (the rows) and ``chunk_refs`` (to describe), in a
child process of the interpreter under test: ``--python`` runs another checkout (its
``.venv/bin/python``), whatever its store layout, from this one bench. Record the output
in docs/PERFORMANCE.md with the machine and the date.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.corpora import copy_corpus  # noqa: E402
from bench.index import child_env, compile_package  # noqa: E402
from bench.php_edits import Edit, edit_file, random_edit  # noqa: E402

#: the one-file edits of the timing rounds: (path, kind of edit), in order; a round past
#: the end of the list starts again at its top (with new names, so it is another edit)
ROUNDS: dict[str, list[tuple[str, str]]] = {
    "phpmyadmin": [
        ("libraries/classes/Util.php", "add_method"),
        ("libraries/classes/DatabaseInterface.php", "edit_body"),
        ("libraries/classes/Table.php", "change_sql"),
        ("libraries/classes/Html/Generator.php", "rename_variable"),
        ("libraries/classes/Sql.php", "append_function"),
    ],
    "wordpress": [
        ("wp-includes/class-wp-query.php", "add_method"),
        ("wp-includes/post.php", "edit_body"),
        ("wp-admin/includes/post.php", "change_sql"),
        ("wp-includes/formatting.php", "rename_variable"),
        ("wp-includes/functions.php", "append_function"),
    ],
}
#: where the sequence picks its files (paths relative to the corpus root)
SEQUENCE_POOL = {"phpmyadmin": "libraries/classes", "wordpress": "wp-includes"}
#: after this many reindexes the disk is measured against one revision (retain_revs: 3)
DISK_AFTER = 3

#: run by the interpreter under test: the sets of one revision, or rows describing ids
_READ = r"""
import json, sys
from pathlib import Path
from ragraf import config
from ragraf.store import open_stores

root, rev, vectors = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
ask = json.loads(sys.stdin.read() or "null")
with open_stores(config.Layout(root)) as st:
    if ask is None:
        chunks = sorted(st.lex.chunk_ids(rev))
        out = {
            "nodes": sorted(st.graph.node_ids(rev)),
            "edges": sorted(st.graph.edge_uids(rev)),
            "chunks": chunks,
        }
        if vectors:
            out["vectors"] = sorted(set(chunks) - st.lex.without_vector(rev, chunks))
        # beyond the ids: what a row says that its id does not (end line, provenance...)
        out["node_rows"] = sorted(
            f"{n.node_id} end={n.end_line} layer={n.layer} props={n.props}"
            for n in st.graph.nodes_by_ids(rev, out["nodes"]).values()
        )
        out["edge_rows"] = sorted(
            f"{e.edge_uid} {e.provenance} conf={e.confidence} sources={e.sources} props={e.props}"
            for e in st.graph.edges_by_uids(rev, out["edges"])
        )
    else:
        g = st.graph

        def label(n):
            return f"{n.kind} {n.fqn or n.name} ({n.path}:{n.start_line})"

        nodes = g.nodes_by_ids(rev, ask["nodes"])
        edges = g.edges_by_uids(rev, ask["edges"])
        ends = g.nodes_by_ids(rev, [x for e in edges for x in (e.src, e.dst)])

        def end(i):
            return label(ends[i]) if i in ends else i

        refs = st.lex.chunk_refs(rev, ask["chunks"] + ask.get("vectors", []))
        out = {
            "nodes": {i: label(n) for i, n in nodes.items()},
            "edges": {
                e.edge_uid: f"{e.kind} {e.provenance} {end(e.src)} -> {end(e.dst)} at {e.evidence}"
                for e in edges
            },
            "chunks": {
                i: f"{r.source_kind} {r.path}:{r.start_line}-{r.end_line}" for i, r in refs.items()
            },
        }
        out["vectors"] = out["chunks"]
json.dump(out, sys.stdout)
"""
#: the sets issue 15 names (with --vectors also "vectors": the chunks that have one)
SETS = ("nodes", "edges", "chunks")
#: the rest of each node and edge row, as "id attributes" strings (shown as they are)
ROWS = ("node_rows", "edge_rows")


@dataclass
class Cli:
    """The ragraf under test, run as a child process per command."""

    python: str
    env: dict[str, str]
    vectors: bool

    def run(self, root: Path, *args: str) -> tuple[float, dict[str, Any]]:
        """(wall seconds, the JSON result) of ``ragraf -C root ARGS --json``."""
        cmd = [self.python, "-m", "ragraf", "-C", str(root), *args, "--json"]
        t0 = time.perf_counter()
        # cwd: `-m ragraf` must not pick up a checkout from the current folder
        proc = subprocess.run(cmd, capture_output=True, text=True, env=self.env, cwd=root)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        res: dict[str, Any] = json.loads(proc.stdout)
        return round(wall, 3), res

    def init(self, root: Path) -> None:
        subprocess.run(
            [self.python, "-m", "ragraf", "init", str(root)],
            check=True,
            capture_output=True,
            env=self.env,
            cwd=root,
        )

    def build_args(self, *args: str) -> tuple[str, ...]:
        return args if self.vectors else (*args, "--no-vectors")

    def index(self, root: Path) -> tuple[float, dict[str, Any]]:
        return self.run(root, *self.build_args("index"))

    def scan(self, root: Path) -> tuple[float, dict[str, Any]]:
        return self.run(root, "drift", "--scan")

    def reindex(self, root: Path) -> tuple[float, dict[str, Any]]:
        return self.run(root, *self.build_args("reindex", "--commit"))

    def read(self, root: Path, rev: str, ask: dict[str, list[str]] | None = None) -> dict[str, Any]:
        """The sets of revision ``rev`` (ask=None), or descriptions of the ids in ``ask``."""
        proc = subprocess.run(
            [self.python, "-c", _READ, str(root), rev, "1" if self.vectors else "0"],
            input=json.dumps(ask),
            capture_output=True,
            text=True,
            env=self.env,
            cwd=root,
        )
        if proc.returncode != 0:
            raise SystemExit(f"reading {rev} of {root} failed: {proc.stderr}")
        res: dict[str, Any] = json.loads(proc.stdout)
        return res


def make_cli(python: str, vectors: bool, state: Path) -> Cli:
    env = child_env()
    if vectors:
        env.pop("RAGRAF_VECTORS", None)
    else:
        env["RAGRAF_VECTORS"] = "off"
    env["RAGRAF_STATE_DIR"] = str(state)  # the ledger anchors of the temp projects
    compile_package(python, env)
    return Cli(python, env, vectors)


def disk(root: Path) -> dict[str, Any]:
    """Bytes of the index's SQLite files (with their -wal and -shm), and the free pages."""
    import apsw

    idx = root / ".ragraf" / "index"
    files = {
        p.relative_to(idx).as_posix(): p.stat().st_size for p in sorted(idx.rglob("*.sqlite*"))
    }
    free = 0
    for p in sorted(idx.rglob("*.sqlite")):
        conn = apsw.Connection(str(p), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            page = int(conn.execute("PRAGMA page_size").fetchone()[0])  # type: ignore[index]
            free += page * int(conn.execute("PRAGMA freelist_count").fetchone()[0])  # type: ignore[index]
        finally:
            conn.close()
    total = sum(files.values())
    return {"bytes": total, "mib": round(total / 2**20, 1), "free_bytes": free, "files": files}


def entries(scan: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(kind, path, edges invalidated) of the entries a scan wrote."""
    out = []
    for e in scan["new_entries"]:
        inv = e["edges_invalidated"]  # a count (the ids, as JSON text, in older versions)
        if isinstance(inv, str):
            inv = json.loads(inv)
        out.append((e["kind"], e["path"], inv if isinstance(inv, int) else len(inv)))
    return out


def unstaged(stages: dict[str, float]) -> float | None:
    if "total" not in stages:
        return None
    named = sum(v for k, v in stages.items() if k not in ("total", "queryable"))
    return round(stages["total"] - named, 3)


def cycle(cli: Cli, root: Path, edit: Edit) -> dict[str, Any]:
    """Write the edit, then `drift --scan` and `reindex --commit`, each timed."""
    (root / edit.path).write_bytes(edit.text)
    t_scan, scan = cli.scan(root)
    t_re, re = cli.reindex(root)
    return {
        "file": edit.path,
        "edit": edit.kind,
        "detail": edit.detail,
        "scan_s": t_scan,
        "reindex_s": t_re,
        "cycle_s": round(t_scan + t_re, 3),
        "entries": entries(scan),
        "rev_id": re["rev_id"],
        "reindex_stages_s": re["timings_s"],
        # total minus the named stages: sealing, pruning, what no stage names
        "reindex_unstaged_s": unstaged(re["timings_s"]),
        "reused_files": re["reused_files"],
        # how scoped resolution took the edit: files reused, resolved, renamed, relinked
        "resolve": {
            k[len("resolve_") :]: v for k, v in re["counts"].items() if k.startswith("resolve_")
        },
        "pruned": re["pruned"],
        "vectors": re["vectors"],
    }


def machine() -> str:
    return (
        f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs,"
        f" Python {platform.python_version()}"
    )


def timing(args: argparse.Namespace, cli: Cli, tmp: Path) -> dict[str, Any]:
    root = copy_corpus(args.corpus, tmp)
    cli.init(root)
    load0 = os.getloadavg()[0]
    t_index, idx = cli.index(root)
    disk_one = disk(root)
    nothing = [cli.scan(root)[0] for _ in range(3)]
    plan = ROUNDS[args.corpus]
    rounds = []
    disk_three: dict[str, Any] | None = None
    for i in range(args.rounds):
        path, kind = plan[i % len(plan)]
        others = [k for k in ("add_method", "edit_body", "append_function") if k != kind]
        edit = edit_file(root, path, random.Random(i), i + 1, [kind, *others])
        if edit is None:
            raise SystemExit(f"round {i + 1}: no edit applies to {path}")
        rounds.append({"round": i + 1, **cycle(cli, root, edit)})
        if i + 1 == DISK_AFTER:
            disk_three = disk(root)
    disk_end = disk(root)
    cycles = [r["cycle_s"] for r in rounds]
    report: dict[str, Any] = {
        "corpus": args.corpus,
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "load_avg_1m": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "vectors": cli.vectors,
        "index_s": t_index,
        "index_stages_s": idx["timings_s"],
        "files": idx["counts"]["files"],
        "counts": idx["counts"],
        "index_vectors": idx["vectors"],
        "scan_nothing_changed_s": nothing,
        "cycle_s": cycles,
        "median_cycle_s": round(statistics.median(cycles), 3) if cycles else None,
        "scan_s": [r["scan_s"] for r in rounds],
        "reindex_s": [r["reindex_s"] for r in rounds],
        "rounds": rounds,
        "disk_one_rev": disk_one,
    }
    if disk_three is not None:
        report[f"disk_after_{DISK_AFTER}_reindexes"] = disk_three
        report["disk_ratio"] = round(disk_three["bytes"] / disk_one["bytes"], 2)
        # without the free pages SQLite keeps after pruning (the files do not shrink)
        report["disk_ratio_used"] = round(
            (disk_three["bytes"] - disk_three["free_bytes"])
            / (disk_one["bytes"] - disk_one["free_bytes"]),
            2,
        )
    report["disk_end"] = disk_end
    if args.check:  # the last revision against a clean build of the same tree
        clean = tmp / "clean" / args.corpus
        shutil.copytree(root, clean, symlinks=True, ignore=shutil.ignore_patterns(".ragraf"))
        cli.init(clean)
        _t, cres = cli.index(clean)
        rev = rounds[-1]["rev_id"] if rounds else idx["rev_id"]
        incr, other = cli.read(root, rev), cli.read(clean, cres["rev_id"])
        d = compare(cli, (root, rev), (clean, cres["rev_id"]), incr, other, args.show)
        report["equal_to_clean"] = d is None
        if d is not None:
            report["differences"] = d
    return report


def describe(
    cli: Cli, root: Path, rev: str, ids: dict[str, list[str]], limit: int
) -> dict[str, list[str]]:
    """At most ``limit`` ids per set, each with what the revision says it is."""
    ask = {k: v[:limit] for k, v in ids.items() if k not in ROWS}
    ask.setdefault("vectors", [])
    rows = cli.read(root, rev, ask)
    out = {k: [f"{i} {rows[k].get(i, '?')}" for i in v] for k, v in ask.items() if v}
    out.update({k: v[:limit] for k, v in ids.items() if k in ROWS and v})
    return out


def compare(
    cli: Cli,
    a: tuple[Path, str],
    b: tuple[Path, str],
    sa: dict[str, Any],
    sb: dict[str, Any],
    limit: int,
    labels: tuple[str, str] = ("incremental", "clean"),
) -> dict[str, Any] | None:
    """None when the two revisions show the same sets, else counts and examples."""
    names = [*SETS, *(["vectors"] if cli.vectors else []), *ROWS]
    only_a = {n: sorted(set(sa[n]) - set(sb[n])) for n in names}
    only_b = {n: sorted(set(sb[n]) - set(sa[n])) for n in names}
    for rows, ids in zip(ROWS, ("nodes", "edges"), strict=True):
        # rows of ids both revisions have: the differences the id sets do not show
        both = set(sa[ids]) & set(sb[ids])
        only_a[rows] = [r for r in only_a[rows] if r.split(" ", 1)[0] in both]
        only_b[rows] = [r for r in only_b[rows] if r.split(" ", 1)[0] in both]
    if not any(only_a.values()) and not any(only_b.values()):
        return None
    return {
        # per set: [only in the first, only in the second]
        "counts": {n: [len(only_a[n]), len(only_b[n])] for n in names if only_a[n] or only_b[n]},
        f"only_{labels[0]}": describe(cli, a[0], a[1], only_a, limit),
        f"only_{labels[1]}": describe(cli, b[0], b[1], only_b, limit),
    }


def sequence(args: argparse.Namespace, cli: Cli, tmp: Path) -> tuple[dict[str, Any], bool]:
    corpus = args.corpus
    root = copy_corpus(corpus, tmp / "incremental")
    cli.init(root)
    t_index, idx = cli.index(root)
    sealed: dict[str, dict[str, Any]] = {idx["rev_id"]: cli.read(root, idx["rev_id"])}
    clean = tmp / "clean" / corpus
    shutil.copytree(root, clean, symlinks=True, ignore=shutil.ignore_patterns(".ragraf"))
    pool = sorted(
        p.relative_to(root).as_posix()
        for p in (root / SEQUENCE_POOL[corpus]).rglob("*.php")
        if p.is_file() and not p.is_symlink()
    )
    rng = random.Random(args.seed)
    steps: list[dict[str, Any]] = []
    failures = 0
    #: files every other file calls (the timing rounds'): an edit above their declarations
    #: renames their callers' links (``resolve.files_renamed``), which random files rarely do
    hubs = [path for path, _kind in ROUNDS[corpus]]
    for k in range(1, args.equality + 1):
        if args.hub_every and k % args.hub_every == 0:
            edit = random_edit(root, hubs, rng, k)
        else:
            edit = random_edit(root, pool, rng, k)
        step: dict[str, Any] = {"step": k, **cycle(cli, root, edit)}
        (clean / edit.path).write_bytes(edit.text)
        rev = step["rev_id"]
        for gone in step["pruned"]:
            sealed.pop(gone, None)
        if k % args.check_every == 0 or k == args.equality:
            incr = cli.read(root, rev)
            sealed[rev] = incr
            shutil.rmtree(clean / ".ragraf", ignore_errors=True)
            cli.init(clean)
            t_clean, cres = cli.index(clean)
            step["clean_index_s"] = t_clean
            other = cli.read(clean, cres["rev_id"])
            step["sizes"] = {n: len(v) for n, v in incr.items() if n not in ROWS}
            d = compare(cli, (root, rev), (clean, cres["rev_id"]), incr, other, args.show)
            step["equal_to_clean"] = d is None
            if d is not None:
                step["differences"] = d
                failures += 1
            # a sealed revision's view never changes
            changed = {}
            for old, before in sealed.items():
                if old == rev:
                    continue
                now = cli.read(root, old)
                dd = compare(
                    cli, (root, old), (root, old), now, before, args.show, ("now", "when_sealed")
                )
                if dd is not None:
                    changed[old] = dd["counts"]
            step["sealed_views_unchanged"] = not changed
            if changed:
                step["sealed_views_changed"] = changed
                failures += 1
        else:
            sealed[rev] = cli.read(root, rev)
        steps.append(step)
        note = ""
        if "equal_to_clean" in step:
            note = (
                ", equal to a clean build"
                if step["equal_to_clean"]
                else ", DIFFERS: " + (json.dumps(step["differences"]["counts"]))
            )
        if not step.get("sealed_views_unchanged", True):
            note += ", A SEALED VIEW CHANGED: " + json.dumps(step["sealed_views_changed"])
        print(
            f"step {k}: {edit.kind} {edit.path}: cycle {step['cycle_s']} s"
            f" (files resolved {step['resolve'].get('files_resolved')},"
            f" renamed {step['resolve'].get('files_renamed')}){note}",
            file=sys.stderr,
        )
    cycles = [s["cycle_s"] for s in steps]
    checked = [s for s in steps if "equal_to_clean" in s]
    report = {
        "corpus": corpus,
        "mode": "sequence",
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "vectors": cli.vectors,
        "seed": args.seed,
        "edits": args.equality,
        "index_s": t_index,
        "checks": len(checked),
        "equal": all(s["equal_to_clean"] and s["sealed_views_unchanged"] for s in checked),
        "median_cycle_s": round(statistics.median(cycles), 3) if cycles else None,
        "max_cycle_s": max(cycles) if cycles else None,
        "kinds": sorted({s["edit"] for s in steps}),
        "steps": steps,
    }
    return report, failures == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="phpmyadmin", choices=sorted(ROUNDS))
    ap.add_argument("--rounds", type=int, default=5, help="one-file edits + reindexes (timing)")
    ap.add_argument("--vectors", action="store_true", help="with the embedding layer (slow)")
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter that runs ragraf (another checkout's .venv/bin/python)",
    )
    ap.add_argument(
        "--sequence", action="store_true", help="the equality oracle (--corpus, phpMyAdmin first)"
    )
    ap.add_argument(
        "--equality", type=int, default=None, metavar="N", help="edits of --sequence (20)"
    )
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--check-every", type=int, default=1, help="clean build every K edits")
    ap.add_argument("--show", type=int, default=5, help="differences shown per set")
    ap.add_argument(
        "--hub-every",
        type=int,
        default=0,
        metavar="K",
        help="sequence: every K-th edit in one of the files the timing rounds edit (hubs)",
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="timing: compare the last revision with a clean build of the same tree",
    )
    args = ap.parse_args()
    if args.equality is not None:
        args.sequence = True
    elif args.sequence:
        args.equality = 20
    with tempfile.TemporaryDirectory(prefix="ragraf-dbench-") as name:
        tmp = Path(name)
        cli = make_cli(args.python, args.vectors, tmp / "state")
        if args.sequence:
            report, ok = sequence(args, cli, tmp)
        else:
            report = timing(args, cli, tmp)
            ok = report.get("equal_to_clean", True)
    print(json.dumps(report, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

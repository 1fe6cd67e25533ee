"""`ragraf index`: seal an immutable revision (architecture §9, §10).

Invariants a change must keep:
- One build at a time: an exclusive, non-blocking lock on
  ``.ragraf/index/.build.lock`` (released by the OS when the process dies).
- rev.json is the single commit point. Rows of the building revision are
  written to graph and lexvec first; rev.json is replaced atomically after
  both committed; only then is the state 'ready' recorded. A build killed at
  any moment leaves the previous revision active and intact, and the next
  build removes the half-built rows (``recover``).
- Revision numbers only grow; a crashed or failed number is not reused.
- Same tree + same config => same corpus_hash, node set, edge_uid set and
  chunk set (§9.3): everything is sorted and derived from content.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import multiprocessing
import os
import pickle
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ragraf import ids
from ragraf.config import EXTRACTOR_VERSION, Config, Layout
from ragraf.corpus import ScannedFile, scan
from ragraf.errors import BusyError, IndexBuildError, RefusedError
from ragraf.lang.facts import FileFacts
from ragraf.store import manifest
from ragraf.store.control import ControlStore
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore

Progress = Callable[[str, int, int], None]
FAILPOINT_ENV = "RAGRAF_FAILPOINT"
PARALLEL_MIN_FILES = 24


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def failpoint(name: str) -> None:
    """Test hook: with RAGRAF_FAILPOINT=name the build stops here until killed."""
    if os.environ.get(FAILPOINT_ENV) == name:
        sys.stderr.write(f"ragraf: failpoint {name} reached\n")
        sys.stderr.flush()
        while True:
            time.sleep(3600)


@contextlib.contextmanager
def build_lock(layout: Layout) -> Iterator[None]:
    layout.index_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(layout.lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            raise BusyError(
                f"another ragraf build is running on {layout.root} (pid {holder}); "
                "wait for it to finish, this build was not started"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


# -- extraction (runs in worker processes) -----------------------------------
_JOBS: list[tuple[str, str | None, str]] = []
_MAX_LINES = 120


def extract_one(path: str, lang: str | None, text: str, max_lines: int) -> FileFacts:
    if lang == "php":
        from ragraf.lang import php

        try:
            return php.extract(path, text, max_lines)
        except RecursionError:
            return FileFacts(
                path, lang, "failed", "too deeply nested to parse", text.count("\n") + 1
            )
    if lang == "markdown":
        from ragraf.lang import markdown

        return markdown.extract(path, text, max_lines)
    from ragraf.lang.chunking import file_chunks

    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    f = FileFacts(path, lang, "ok", None, lines)
    f.nodes.append(
        (
            ids.node_id("file", path, path, 1),
            "file",
            path.rsplit("/", 1)[-1],
            path,
            1,
            max(lines, 1),
            {"lang": lang} if lang else {},
            "structural",
        )
    )
    f.scope_nodes.append(0)
    f.chunks = file_chunks(path, text, lang or "text", 0, max_lines)
    return f


def _work(i: int) -> tuple[int, FileFacts]:
    path, lang, text = _JOBS[i]
    return i, extract_one(path, lang, text, _MAX_LINES)


def extract_all(
    files: list[ScannedFile], workers: int, max_lines: int, progress: Progress | None
) -> list[FileFacts]:
    global _JOBS, _MAX_LINES
    jobs = [(f.path, f.lang, f.text or "") for f in files]
    out: list[FileFacts | None] = [None] * len(jobs)
    total = len(jobs)
    if workers <= 1 or total < PARALLEL_MIN_FILES:
        for i, (p, lang, text) in enumerate(jobs):
            out[i] = extract_one(p, lang, text, max_lines)
            if progress:
                progress("parse", i + 1, total)
    else:
        _JOBS, _MAX_LINES = jobs, max_lines
        order = sorted(range(total), key=lambda i: -len(jobs[i][2]))
        try:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(workers) as pool:
                for done, (i, facts) in enumerate(
                    pool.imap_unordered(_work, order, chunksize=2), 1
                ):
                    out[i] = facts
                    if progress:
                        progress("parse", done, total)
        finally:
            _JOBS = []
    return [f for f in out if f is not None]


# -- the build -----------------------------------------------------------------
@dataclass
class IndexResult:
    status: str  # built | current
    rev_id: str
    counts: dict[str, int] = field(default_factory=dict)
    coverage: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    recovered: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    reused_files: int = 0
    archive: str | None = None
    vectors: dict[str, Any] | None = None


def _next_rev(graph: GraphStore, control: ControlStore, active: str | None) -> str:
    nums = [int(r[4:]) for r, _s in graph.revs() if r.startswith("rev-")]
    nums += [int(r[4:]) for r in control.rev_ids() if r.startswith("rev-")]
    if active:
        nums.append(int(active[4:]))
    return f"rev-{(max(nums) if nums else 0) + 1:04d}"


def recover(layout: Layout, graph: GraphStore, lex: LexStore, control: ControlStore) -> list[str]:
    """Finish or remove revisions left by a build that died."""
    man = manifest.read(layout.rev_json)
    active = man["rev_id"] if man else None
    cleaned = []
    for rev_id, state in graph.revs():
        if state != "building":
            continue
        row = graph.rev_row(rev_id)
        assert row is not None
        if rev_id == active and man is not None:
            # killed after the commit point: the revision is sealed, finish the bookkeeping
            graph.set_state(rev_id, "ready")
            control.record_rev(
                rev_id,
                man.get("parent_rev"),
                "ready",
                row["created_at"],
                man.get("sealed_at"),
                row["corpus_hash"],
                row["config_hash"],
                man["counts"]["files"],
                man["counts"]["nodes"],
                man["counts"]["edges"],
            )
            if man.get("parent_rev"):
                from ragraf.drift.archive import ensure_archive

                ensure_archive(layout, graph, control, man["parent_rev"], rev_id)
            continue
        lex.delete_rev(rev_id)
        graph.delete_rev(rev_id)
        control.record_rev(
            rev_id,
            active,
            "failed",
            row["created_at"],
            None,
            row["corpus_hash"],
            row["config_hash"],
            0,
            0,
            0,
            note="interrupted before it was sealed; rows removed",
        )
        cleaned.append(rev_id)
    return cleaned


def _coverage(
    files: list[ScannedFile],
    facts: list[FileFacts],
    stats: dict[str, int],
    secrets: int,
    chunks_total: int,
    chunks_dup: int,
    chunks_file: int,
    dup_nodes: int,
) -> list[tuple[str, float | None, str | None]]:
    by_status: dict[str, list[str]] = {}
    parsed = {f.path: f for f in facts}
    for sf in files:
        st = parsed[sf.path].status if sf.path in parsed else sf.status
        by_status.setdefault(st, []).append(sf.path)
    shas: dict[str, int] = {}
    for sf in files:
        if sf.sha256 and sf.status == "ok":
            shas[sf.sha256] = shas.get(sf.sha256, 0) + 1
    dup_files = sum(n - 1 for n in shas.values() if n > 1)
    calls_total = stats.get("calls_total", 0)
    stated = stats.get("calls_stated", 0)
    unresolved = sum(v for k, v in stats.items() if k.startswith("calls_unresolved"))
    ext = stats.get("calls_unresolved_function", 0)
    rows: list[tuple[str, float | None, str | None]] = [
        ("files.total", float(len(files)), None),
        ("files.secret_excluded", float(secrets), "count only; paths are never stored"),
        ("files.duplicate", float(dup_files), "files whose content also appears at another path"),
        ("lines.total", float(sum(f.lines for f in facts)), None),
        ("calls.total", float(calls_total), None),
        ("calls.stated", float(stated), None),
        ("calls.derived", float(stats.get("calls_derived", 0)), None),
        ("calls.unresolved", float(unresolved), "builtins and unknown receivers included"),
        ("calls.stated_share", round(stated / calls_total, 4) if calls_total else None, None),
        (
            "calls.stated_share_declared",
            round(stated / (calls_total - ext), 4) if calls_total - ext > 0 else None,
            "share among calls whose callee could be declared in the corpus (unresolved plain functions excluded:"
            " PHP builtins and vendor functions)",
        ),
        ("chunks.total", float(chunks_total), None),
        ("chunks.duplicate", float(chunks_dup), "same content at several places"),
        ("chunks.without_owner_symbol", float(chunks_file), "top-level code chunks"),
        ("conflict.duplicate_node", float(dup_nodes), None),
    ]
    for st in ("ok", "partial", "failed", "skipped"):
        paths = by_status.get(st, [])
        note = None
        if st in ("partial", "failed", "skipped") and paths:
            note = ", ".join(paths[:20]) + (" ..." if len(paths) > 20 else "")
        rows.append((f"files.{st}", float(len(paths)), note))
    for k in sorted(stats):
        if k.startswith(("calls_unresolved", "includes_", "conflict.", "sql_")):
            rows.append(
                (
                    k.replace("_", ".", 1) if not k.startswith("conflict.") else k,
                    float(stats[k]),
                    None,
                )
            )
    return rows


def build(
    cfg: Config,
    *,
    force: bool = False,
    commit: bool = False,
    progress: Progress | None = None,
    no_vectors: bool = False,
) -> IndexResult:
    """`ragraf index` (commit=False) or `ragraf reindex --commit` (commit=True)."""
    layout = cfg.layout
    layout.ensure_dirs()
    with build_lock(layout):
        return _build_locked(cfg, layout, force, commit, progress, no_vectors)


def _build_locked(
    cfg: Config,
    layout: Layout,
    force: bool,
    commit: bool,
    progress: Progress | None,
    no_vectors: bool = False,
) -> IndexResult:
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    if progress:
        progress("scan", 0, 1)
    sc = scan(cfg)
    timings["scan"] = time.perf_counter() - t0
    corpus_hash = sc.corpus_hash
    config_hash = cfg.config_hash
    man = manifest.read(layout.rev_json)
    active = man["rev_id"] if man else None
    graph = GraphStore(layout.graph_db)
    lex = LexStore(layout.lexvec_db)
    control = ControlStore(layout.control_db)
    try:
        recovered = recover(layout, graph, lex, control)
        ledger = control.ledger_size(active) if active else 0
        if ledger and not commit:
            raise RefusedError(
                f"the ledger of {active} has {ledger} entries: the change effort is not finished. Run "
                "`ragraf reindex --commit` to seal the next revision and archive the ledger (P1: no new "
                "revision appears silently in the middle of a change effort)"
            )
        if (
            man
            and not force
            and not ledger
            and man.get("corpus_hash") == corpus_hash
            and man.get("config_hash") == config_hash
        ):
            return IndexResult(
                "current", man["rev_id"], dict(man.get("counts", {})), recovered=recovered
            )
        if commit and not man:
            raise RefusedError("there is no revision to reindex yet: run `ragraf index` first")
        check_disk(layout, sc)
        failpoint("after-scan")
        rev_id = _next_rev(graph, control, active)
        created = now_iso()
        from ragraf.lang import php as php_ex

        versions = {
            "ragraf": EXTRACTOR_VERSION,
            "tree-sitter": php_ex.grammar_version(),
            "joern": "absent",
        }
        graph.begin_rev(rev_id, created, corpus_hash, config_hash, versions)
        try:
            return _build_rev(
                cfg,
                layout,
                sc,
                graph,
                lex,
                control,
                rev_id,
                created,
                active,
                corpus_hash,
                config_hash,
                recovered,
                timings,
                t0,
                progress,
                reuse=commit,
                no_vectors=no_vectors,
            )
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt | SystemExit):
                raise
            reason = f"{type(e).__name__}: {e}"
            with contextlib.suppress(Exception):
                lex.delete_rev(rev_id)
                graph.delete_rev(rev_id)
                control.record_rev(
                    rev_id,
                    active,
                    "failed",
                    created,
                    None,
                    corpus_hash,
                    config_hash,
                    0,
                    0,
                    0,
                    note=reason[:500],
                )
            raise IndexBuildError(
                f"building {rev_id} failed ({reason}); {active or 'no revision'} stays active"
            ) from e
    finally:
        graph.close()
        lex.close()
        control.close()


def _build_rev(
    cfg: Config,
    layout: Layout,
    sc: Any,
    graph: GraphStore,
    lex: LexStore,
    control: ControlStore,
    rev_id: str,
    created: str,
    active: str | None,
    corpus_hash: str,
    config_hash: str,
    recovered: list[str],
    timings: dict[str, float],
    t0: float,
    progress: Progress | None,
    reuse: bool = False,
    no_vectors: bool = False,
) -> IndexResult:
    from ragraf.build.resolve import resolve

    max_lines = int(cfg.project["chunking"]["max_chunk_lines"])
    model = str(cfg.project["embedding"]["model"])
    ok_files = [f for f in sc.files if f.status == "ok"]
    t = time.perf_counter()
    keys = [(f.sha256, facts_key(f.path, max_lines)) for f in ok_files]
    cached = graph.cached_facts(keys) if reuse else {}
    todo = [f for f, k in zip(ok_files, keys, strict=True) if k not in cached]
    fresh = {
        f.path: x
        for f, x in zip(todo, extract_all(todo, cfg.workers(), max_lines, progress), strict=True)
    }
    facts = [
        fresh[f.path] if f.path in fresh else pickle.loads(zlib.decompress(cached[k]))
        for f, k in zip(ok_files, keys, strict=True)
    ]
    graph.store_facts(
        [
            (f.sha256, k[1], zlib.compress(pickle.dumps(fresh[f.path], protocol=5), 1))
            for f, k in zip(ok_files, keys, strict=True)
            if f.path in fresh
        ]
    )
    timings["parse"] = time.perf_counter() - t
    failpoint("after-parse")
    t = time.perf_counter()
    from ragraf.sql import schema_build

    schema = schema_build.build(cfg, sc.files)
    timings["schema"] = time.perf_counter() - t
    resolved = resolve(
        facts,
        cfg.confidence,
        int(cfg.project["resolve"]["max_heuristic_candidates"]),
        tables=schema.table_index,
        prefixes=dict(cfg.project["db"]["table_prefixes"]),
    )
    extra_nodes = resolved.nodes + schema.nodes
    edges = sorted(resolved.edges + schema.edges, key=lambda e: e[8])
    stats = resolved.stats
    timings["resolve"] = time.perf_counter() - t
    t = time.perf_counter()
    # rows
    parsed = {f.path: f for f in facts}
    file_rows = []
    for sf in sc.files:
        pf = parsed.get(sf.path)
        status = pf.status if pf else sf.status
        note = pf.note if pf else sf.note
        file_rows.append(
            (
                sf.path,
                pf.lang if pf else sf.lang,
                pf.lines if pf else sf.lines,
                sf.sha256,
                status,
                note,
                sf.size,
                sf.mtime_ns,
            )
        )
    node_rows: list[tuple[Any, ...]] = []
    seen_nodes: set[str] = set()
    dup_nodes = 0
    text_rows = []
    chunk_rows: list[tuple[Any, ...]] = []
    also_rows: list[tuple[Any, ...]] = []
    seen_chunks: set[str] = set()
    chunks_file = 0
    for f in facts:
        for n in f.nodes:
            if n[0] in seen_nodes:
                dup_nodes += 1
                continue
            seen_nodes.add(n[0])
            node_rows.append(
                (
                    n[0],
                    n[1],
                    n[2],
                    n[3],
                    f.path,
                    n[4],
                    n[5],
                    json.dumps(n[6], sort_keys=True) if n[6] else None,
                    n[7],
                )
            )
        for start, end, kind, raw, owner in f.texts:
            tid = ids.text_chunk_id(f.path, start, kind, raw)
            text_rows.append(
                (
                    tid,
                    f.nodes[owner][0] if owner is not None else None,
                    f.path,
                    start,
                    end,
                    kind,
                    raw,
                )
            )
        for c in f.chunks:
            content_sha = ids.sha256_text(c.code)
            cid = ids.chunk_id(content_sha, c.source_kind, model)
            owner_id = f.nodes[c.node][0] if c.node is not None else None
            if c.source_kind == "file":
                chunks_file += 1
            if cid in seen_chunks:
                also_rows.append((cid, f.path, owner_id, c.start_line, c.end_line))
                continue
            seen_chunks.add(cid)
            chunk_rows.append(
                (
                    cid,
                    c.source_kind,
                    f.path,
                    owner_id,
                    c.start_line,
                    c.end_line,
                    c.header + "\n" + c.code,
                    c.symbol_tokens,
                    c.code_tokens,
                    c.sql_tokens,
                    c.text_tokens,
                    content_sha,
                )
            )
    for n in extra_nodes:
        if n[0] not in seen_nodes:
            seen_nodes.add(n[0])
            node_rows.append(n)
    cov = (
        _coverage(
            sc.files,
            facts,
            stats,
            sc.secrets_excluded,
            len(chunk_rows) + len(also_rows),
            len(also_rows),
            chunks_file,
            dup_nodes,
        )
        + schema.coverage
    )
    timings["rows"] = time.perf_counter() - t
    t = time.perf_counter()
    if progress:
        progress("write", 0, 2)
    texts = {f.path: f.text for f in ok_files}
    blobs = [(sf.sha256, texts[sf.path]) for sf in ok_files]
    known = graph.has_blobs(sha for sha, _t in blobs)
    graph.write_rows(
        rev_id,
        file_rows,
        node_rows,
        edges,
        text_rows,
        cov,
        blobs=[b for b in blobs if b[0] not in known],
        shells=resolved.shells,
        routes=resolved.routes,
        schema=(schema.table_rows, schema.column_rows, schema.fk_rows),
    )
    failpoint("after-graph")
    if progress:
        progress("write", 1, 2)
    lex.write_chunks(rev_id, chunk_rows, also_rows)
    failpoint("after-lexvec")
    if progress:
        progress("write", 2, 2)
    timings["write"] = time.perf_counter() - t
    t = time.perf_counter()
    from ragraf.build import vectors

    if no_vectors or vectors.disabled_by_env():
        vec_status: dict[str, Any] = {"status": "disabled"}
    else:
        vec_status = vectors.build(
            cfg, lex.db, rev_id, [(c[0], c[11], c[6]) for c in chunk_rows], progress
        )
    timings["vectors"] = time.perf_counter() - t
    failpoint("after-vectors")
    sealed = now_iso()
    counts = {
        "files": len(file_rows),
        "nodes": len(node_rows),
        "edges": len(edges),
        "chunks": len(chunk_rows),
        "vectors_reused": vec_status.get("reused", 0),
        "vectors_computed": vec_status.get("computed", 0),
    }
    git_commit = _git_head(layout.root)
    manifest.write(
        layout.rev_json,
        {
            "git_commit": git_commit,
            "rev_id": rev_id,
            "parent_rev": active,
            "state": "ready",
            "created_at": created,
            "sealed_at": sealed,
            "corpus_hash": corpus_hash,
            "config_hash": config_hash,
            "capability": "degraded",
            "joern_used": 0,
            "vectors": vec_status,
            "counts": counts,
            "schema": {"source": schema.source, "incomplete": schema.incomplete},
        },
    )
    failpoint("after-manifest")
    graph.set_state(rev_id, "ready")
    control.record_rev(
        rev_id,
        active,
        "ready",
        created,
        sealed,
        corpus_hash,
        config_hash,
        counts["files"],
        counts["nodes"],
        counts["edges"],
        coverage=cov,
    )
    archive = None
    if active:
        from ragraf.drift.archive import ensure_archive

        archive = ensure_archive(layout, graph, control, active, rev_id)
    pruned = prune(cfg, graph, lex, control, rev_id)
    graph.analyze()
    graph.db.checkpoint()
    lex.db.checkpoint()
    timings["total"] = time.perf_counter() - t0
    covd = {m: v for m, v, _n in cov if v is not None}
    from ragraf.logs import file_logger

    file_logger("ragraf.index", layout.logs_dir, "index.log").info(
        "sealed %s parent=%s files=%d nodes=%d edges=%d chunks=%d vectors=%s reused_files=%d total=%.2fs",
        rev_id,
        active,
        counts["files"],
        counts["nodes"],
        counts["edges"],
        counts["chunks"],
        vec_status.get("status"),
        len(ok_files) - len(todo),
        timings["total"],
    )
    return IndexResult(
        "built",
        rev_id,
        counts,
        covd,
        timings,
        recovered,
        pruned,
        reused_files=len(ok_files) - len(todo),
        archive=archive,
        vectors=vec_status,
    )


# measured on phpMyAdmin: graph + lexicon + vectors take ~8x the bytes of the corpus text
SPACE_FACTOR = 8
SPACE_MARGIN = 64 * 1024 * 1024


def required_bytes(corpus_bytes: int) -> int:
    return corpus_bytes * SPACE_FACTOR + SPACE_MARGIN


def check_disk(layout: Layout, sc: Any, free: int | None = None) -> None:
    """§15: refuse before building when the disk cannot hold the revision, saying how much it needs."""
    import shutil

    need = required_bytes(sum(f.size for f in sc.files if f.status == "ok"))
    free = shutil.disk_usage(layout.dot).free if free is None else free
    if free < need:
        raise RefusedError(
            f"not enough disk space under {layout.dot}: a new revision needs about "
            f"{need / 2**20:.0f} MiB, {free / 2**20:.0f} MiB are free; nothing was written"
        )


def facts_key(path: str, max_lines: int) -> str:
    """The cache key of a file's extraction besides its sha256: everything else it depends on."""
    return f"{EXTRACTOR_VERSION}|{max_lines}|{path}"


def _git_head(root: Any) -> str | None:
    try:
        import git

        return str(git.Repo(root, search_parent_directories=True).head.commit.hexsha)
    except Exception:  # noqa: BLE001 - not a git work tree, or no commit yet
        return None


def prune(
    cfg: Config, graph: GraphStore, lex: LexStore, control: ControlStore, active: str
) -> list[str]:
    """retain_revs: drop the oldest sealed revisions' rows; rev_history stays forever."""
    keep = int(cfg.project["index"]["retain_revs"])
    ready = [r for r, s in graph.revs() if s == "ready" and r != active]
    excess = len(ready) + 1 - keep
    pruned = []
    for rev_id in ready[: max(0, excess)]:
        lex.delete_rev(rev_id)
        graph.delete_rev(rev_id)
        control.set_state(rev_id, "archived", f"rows pruned by retain_revs={keep}")
        pruned.append(rev_id)
    return pruned

"""`ragraf index`: seal an immutable revision (architecture §9, §10).

Invariants a change must keep:
- One build at a time: an exclusive, non-blocking lock on
  ``.ragraf/index/.build.lock`` (released by the OS when the process dies).
- rev.json is the single commit point. Rows of the building revision are
  written to graph and lexvec first; rev.json is replaced atomically after
  both committed; only then is the state 'ready' recorded. A build killed at
  any moment leaves the previous revision active and intact, and the next
  build removes the half-built rows (``recover``).
- Vectors are a cache keyed by content, not rows of the revision (``build/vectors.py``):
  the revision is sealed once its graph and lexicon are written, and the same process
  then embeds the missing vectors batch by batch (``--wait-vectors``: before sealing).
  After the seal, rev.json changes only in its ``vectors`` block, and only by the
  holder of the build lock; a kill while embedding loses nothing sealed, and the next
  ``index``, ``reindex --commit`` or ``ragraf vectors --resume`` embeds what is missing.
- Revision numbers only grow; a crashed or failed number is not reused.
- Same tree + same config => same corpus_hash, node set, edge_uid set and
  chunk set (§9.3): everything is sorted and derived from content.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragraf import gitinfo
from ragraf.clock import now_iso
from ragraf.config import Config, Layout
from ragraf.corpus import ScanResult, scan, selection_warning
from ragraf.errors import BusyError, IndexBuildError, RagrafError, RefusedError
from ragraf.failpoints import failpoint
from ragraf.indexing import trim_memory
from ragraf.kinds import ParseStatus
from ragraf.lang import registry
from ragraf.locks import file_lock
from ragraf.model import RevHistoryRow
from ragraf.store import Stores, manifest, open_stores, ranges

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ragraf.indexing import scoped_write
    from ragraf.indexing.extract import Extracted, Facts
    from ragraf.indexing.resolve import link_memo
    from ragraf.indexing.resolve.linker import OldNodes
    from ragraf.indexing.rows import ContentRows
    from ragraf.lang.facts import FileFacts
    from ragraf.workers import Pool

Progress = Callable[[str, int, int], None]


def build_lock(layout: Layout) -> contextlib.AbstractContextManager[None]:
    """One build at a time (``ragraf/locks.py``: released by the kernel when the holder
    dies; parser workers do not inherit it)."""

    def busy(pid: str) -> BusyError:
        try:
            man = manifest.read(layout.rev_json)
        except RagrafError:  # a corrupt rev.json: the refusal still says who is busy
            man = None
        vec = (man or {}).get("vectors")
        doing = (
            f", embedding the vectors of {man['rev_id']} (it answers meanwhile; stopped, "
            "`ragraf vectors --resume` finishes them later)"
            if man and isinstance(vec, dict) and vec.get("status") == "embedding"
            else ""
        )
        return BusyError(
            f"another ragraf build is running on {layout.root} (pid {pid}{doing}); "
            "wait for it to finish, this build was not started"
        )

    return file_lock(layout.lock_file, wait=False, busy=busy)


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
    schema: dict[str, Any] | None = None  # {source, incomplete}
    #: what the build wants a human to know (``index`` prints them on stderr)
    warnings: list[str] = field(default_factory=list)
    #: the vectors still to embed after the seal (``build`` embeds them, then clears it)
    pending: Any = None  # Any: a ragraf.indexing.vectors.Plan (imported lazily)


class Prefetch:
    """The embedding model loaded ahead of need (``ragraf.embed.helper``): started once a
    build knows it builds a revision whose vectors it will fill, used by the fill, closed
    when the build ends, whatever way it ends."""

    def __init__(self, cfg: Config, enabled: bool) -> None:
        self.cfg, self.enabled = cfg, enabled
        self.helper: Any = None  # Any: an EmbedHelper (imported lazily)

    def start(self) -> None:
        if self.enabled and self.helper is None:
            from ragraf.embed import helper

            self.helper = helper.start(self.cfg.embedding.as_mapping(), self.cfg.root)

    def close(self) -> None:
        helper, self.helper = self.helper, None
        if helper is not None:
            helper.close()


@dataclass
class BuildContext:
    """Everything one build of one revision works with."""

    cfg: Config
    stores: Stores
    scan: ScanResult
    rev_id: str
    parent: str | None  # the active revision this one follows
    created: str
    reuse: bool  # reuse cached per-file facts (every build: their key holds what they depend on)
    no_vectors: bool
    wait_vectors: bool  # embed before sealing (today's behaviour, for scripts)
    progress: Progress | None
    recovered: list[str]
    t0: float
    timings: dict[str, float] = field(default_factory=dict)
    prefetch: Prefetch | None = None
    pool: Pool[Extracted] | None = None  # the parser workers (forked before the scan)

    @property
    def layout(self) -> Layout:
        return self.cfg.layout

    def lap(self, stage: str, since: float) -> float:
        """Record the time of a stage; returns now (the start of the next one)."""
        now = time.perf_counter()
        self.timings[stage] = now - since
        return now


def _next_rev(stores: Stores, active: str | None) -> str:
    nums = [int(r[4:]) for r, _s in stores.graph.revs() if r.startswith("rev-")]
    nums += [int(r[4:]) for r in stores.control.rev_ids() if r.startswith("rev-")]
    if active:
        nums.append(int(active[4:]))
    return f"rev-{(max(nums) if nums else 0) + 1:04d}"


@dataclass
class Finished:
    """What completing a sealed revision's bookkeeping did."""

    archive: str | None = None
    pruned: list[str] = field(default_factory=list)


def finish_commit(cfg: Config, stores: Stores, man: dict[str, Any]) -> Finished:
    """Every step after the commit point (rev.json names the revision), idempotent: the
    graph state, the history with its coverage, the archive of the parent's ledger, and
    retention. The build calls it once sealed; the next build calls it again, so a build
    killed anywhere after the commit point is completed, never half-finished."""
    graph, control = stores.graph, stores.control
    rev_id = man["rev_id"]
    row = graph.rev_row(rev_id)
    if row is not None and row["state"] != "ready":
        graph.set_state(rev_id, "ready")
    history = {h["rev_id"]: h for h in control.history()}
    if history.get(rev_id, {}).get("state") != "ready":
        control.record_rev(
            RevHistoryRow(
                rev_id,
                man.get("parent_rev"),
                "ready",
                man.get("created_at") or (row or {}).get("created_at") or now_iso(),
                man.get("sealed_at"),
                man["corpus_hash"],
                man["config_hash"],
                man["counts"]["files"],
                man["counts"]["nodes"],
                man["counts"]["edges"],
            ),
            coverage=graph.coverage(rev_id),
        )
    failpoint("commit-before-archive")
    done = Finished()
    if man.get("parent_rev"):
        from ragraf.drift.archive import ensure_archive

        done.archive = ensure_archive(cfg.layout, graph, control, man["parent_rev"], rev_id)
    done.pruned = prune(cfg, stores, rev_id)
    return done


def recover(cfg: Config, stores: Stores) -> list[str]:
    """Complete the active revision's bookkeeping (``finish_commit``) and remove the rows
    of revisions a build left before its commit point; returns the removed ones."""
    layout = cfg.layout
    graph, control = stores.graph, stores.control
    man = manifest.read(layout.rev_json)
    active = man["rev_id"] if man else None
    if man is not None:
        finish_commit(cfg, stores, man)
    cleaned = []
    for rev_id, state in graph.revs():
        if state != "building" or rev_id == active:
            continue
        row = graph.rev_row(rev_id)
        if row is None:
            continue
        stores.lex.delete_rev(rev_id)
        graph.delete_rev(rev_id)
        control.record_rev(
            RevHistoryRow(
                rev_id,
                active,
                "failed",
                row["created_at"],
                None,
                row["corpus_hash"],
                row["config_hash"],
                note="interrupted before it was sealed; rows removed",
            )
        )
        cleaned.append(rev_id)
    return cleaned


def build(
    cfg: Config,
    *,
    force: bool = False,
    commit: bool = False,
    progress: Progress | None = None,
    no_vectors: bool = False,
    wait_vectors: bool = False,
    on_sealed: Callable[[IndexResult], None] | None = None,
) -> IndexResult:
    """`ragraf index` (commit=False) or `ragraf reindex --commit` (commit=True).

    The revision is sealed as soon as its graph and lexicon are written; ``on_sealed``
    is called then (every operation answers from that moment), and the missing vectors
    are embedded afterwards in this process, with the build lock still held but the
    ledger open. ``wait_vectors`` embeds them before sealing instead. An unchanged tree
    whose active revision is still missing vectors ("current") gets them embedded."""
    layout = cfg.layout
    layout.ensure_dirs()
    from ragraf.drift.ledger import ledger_lock

    # reindex --commit seals and archives the ledger: no scan may append to it meanwhile
    frozen = ledger_lock(layout) if commit else contextlib.nullcontext()
    from ragraf.indexing.extract import parser_pool
    from ragraf.indexing.vectors import disabled_by_env

    prefetch = Prefetch(cfg, enabled=not (no_vectors or disabled_by_env()))
    with build_lock(layout), contextlib.closing(prefetch):
        with parser_pool(cfg.workers()) as pool, frozen, open_stores(layout, write=True) as stores:
            res = _build_locked(
                cfg, stores, force, commit, progress, no_vectors, wait_vectors, prefetch, pool
            )
        if res.pending is not None:
            if on_sealed is not None:
                on_sealed(res)
            t = time.perf_counter()
            from ragraf.embed.helper import MAX_TEXTS

            if len(res.pending.todo) > MAX_TEXTS:
                # a large plan loads the model in this process (a small one goes to the
                # helper): the build's memory, let go when it returned, goes back to the system
                # first, or the embedding's peak comes on top of the build's (MediaWiki with
                # vectors: 1.05 GB -> 865 MB, the build's own 641 MB). The first collection
                # after a build costs ~0.2 s (phpMyAdmin), nothing beside minutes of embedding
                gc.collect()
                trim_memory.give_back()
            with open_stores(layout, write=True) as stores:
                res.vectors = _fill_vectors(cfg, stores, res.pending, progress, prefetch.helper)
            res.pending = None
            res.timings["vectors_after_seal"] = time.perf_counter() - t
            if "total" in res.timings:
                res.timings["total"] += res.timings["vectors_after_seal"]
            res.counts["vectors_computed"] = int(res.vectors.get("computed", 0))
    return res


def resume_vectors(cfg: Config, progress: Progress | None = None) -> dict[str, Any]:
    """`ragraf vectors --resume`: embed the vectors the active revision is missing (a
    build killed while embedding, a revision built with --no-vectors, a model that was
    unavailable then); returns the layer's status."""
    layout = cfg.layout
    with build_lock(layout), open_stores(layout, write=True) as stores:
        man = manifest.require(layout.rev_json)
        p = _vector_plan(cfg, stores, man)
        if isinstance(p, dict):
            _set_vectors(layout, man["rev_id"], p)
            return p
        return _fill_vectors(cfg, stores, p, progress)


def _vector_plan(cfg: Config, stores: Stores, man: dict[str, Any]) -> Any:
    """The plan that finishes the vectors of the sealed revision ``man`` names (Any: a
    vectors.Plan, or the status dict when the model is unavailable)."""
    from ragraf import ids
    from ragraf.indexing import vectors

    rev_id = man["rev_id"]
    chunks = [
        (cid, ids.sha256_text(text.partition("\n")[2]), text)
        for cid, text in stores.lex.all_chunks(rev_id)
    ]
    return vectors.plan(cfg, stores.lex.db, rev_id, chunks)


def _fill_vectors(
    cfg: Config, stores: Stores, p: Any, progress: Progress | None, helper: Any = None
) -> dict[str, Any]:
    """Embed a plan's chunks into the sealed revision (with ``helper``, an EmbedHelper, when
    the build started one), then record the layer's final status in rev.json (only its
    ``vectors`` block changes)."""
    from ragraf.indexing import vectors

    status = vectors.fill(stores.lex.db, p, progress, helper)
    man = manifest.read(cfg.layout.rev_json) or {}
    before: dict[str, Any] = man["vectors"] if isinstance(man.get("vectors"), dict) else {}
    reused = (
        int(before.get("reused", p.reused)) if before.get("model") == p.emb.model_id else p.reused
    )
    embedded = stores.lex.vector_count(p.rev_id)
    status.update(reused=reused, computed=max(0, embedded - reused), embedded=embedded)
    _set_vectors(cfg.layout, p.rev_id, status)
    stores.lex.db.checkpoint()
    from ragraf.logs import file_logger

    file_logger("ragraf.index", cfg.layout.logs_dir, "index.log").info(
        "vectors of %s %s: %d of %d embedded (%d this run), %d skipped",
        p.rev_id,
        status["status"],
        embedded,
        p.total,
        len(p.todo) if status["status"] == "ready" else 0,
        p.skipped,
    )
    return status


def _set_vectors(layout: Layout, rev_id: str, status: dict[str, Any]) -> None:
    """Replace the ``vectors`` block of rev.json, when it still names ``rev_id`` (the
    caller holds the build lock, so no other build can have replaced it)."""
    man = manifest.read(layout.rev_json)
    if man is None or man.get("rev_id") != rev_id:
        return
    man["vectors"] = status
    man.setdefault("counts", {})["vectors_computed"] = int(status.get("computed", 0))
    manifest.write(layout.rev_json, man)


def _build_locked(
    cfg: Config,
    stores: Stores,
    force: bool,
    commit: bool,
    progress: Progress | None,
    no_vectors: bool,
    wait_vectors: bool = False,
    prefetch: Prefetch | None = None,
    pool: Pool[Extracted] | None = None,
) -> IndexResult:
    layout = cfg.layout
    t0 = time.perf_counter()
    if progress:
        progress("scan", 0, 1)

    man = manifest.read(layout.rev_json)

    def listed(langs: set[str | None]) -> None:
        # a first build parses every file: its parser workers fork once the files are
        # listed and before any is read, so that they share the extractors this process
        # loads for them and none of the texts (forked after the scan, each mapped every
        # text: MediaWiki's tree ~90 MiB more RSS). A build with a revision before it mostly
        # takes the facts cache (after `drift --scan`, every file): its workers, if any,
        # fork when there is something to parse, as many as there are files
        if pool is not None and man is None:
            registry.warm(langs)
            pool.start()

    sc = scan(cfg, on_listed=listed)
    scan_s = time.perf_counter() - t0
    active = man["rev_id"] if man else None
    if man is None:
        if commit:
            raise RefusedError("there is no revision to reindex yet: run `ragraf index` first")
        check_disk(layout, sc)  # before any store file exists: a refusal leaves none behind
    recovered = recover(cfg, stores)
    ledger = stores.control.ledger_size(active) if active else 0
    if ledger and not commit:
        raise RefusedError(
            f"the ledger of {active} has {ledger} entries: the change effort is not finished. "
            "Run `ragraf reindex --commit` to seal the next revision and archive the ledger "
            "(P1: no new revision appears silently in the middle of a change effort)"
        )
    if (
        man
        and not force
        and not ledger
        and man.get("corpus_hash") == sc.corpus_hash
        and man.get("config_hash") == cfg.config_hash
        and man.get("extractors") == registry.corpus_fingerprint()
    ):
        res = IndexResult(
            "current",
            man["rev_id"],
            dict(man.get("counts", {})),
            recovered=recovered,
            vectors=man.get("vectors"),
            warnings=[w for w in (selection_warning(cfg, sc),) if w],
        )
        from ragraf.indexing.vectors import disabled_by_env

        vec = man.get("vectors")
        if isinstance(vec, dict) and vec.get("status") == "embedding":
            if not (no_vectors or disabled_by_env()):  # a build was killed while embedding
                p = _vector_plan(cfg, stores, man)
                if isinstance(p, dict):
                    _set_vectors(layout, man["rev_id"], p)
                    res.vectors = p
                elif wait_vectors:
                    res.vectors = _fill_vectors(cfg, stores, p, progress)
                else:
                    res.pending = p
        return res
    if commit and not man:
        raise RefusedError("there is no revision to reindex yet: run `ragraf index` first")
    check_disk(layout, sc)
    failpoint("after-scan")
    if prefetch is not None:
        prefetch.start()  # a revision is built: its vectors will want the model
    ctx = BuildContext(
        cfg,
        stores,
        sc,
        _next_rev(stores, active),
        active,
        now_iso(),
        # `index`, `index --force` and `reindex --commit` alike: a cached entry is used only
        # under an equal (sha256, facts_key), so a rebuild re-extracts only what changed
        reuse=True,
        no_vectors=no_vectors,
        wait_vectors=wait_vectors,
        progress=progress,
        recovered=recovered,
        t0=t0,
        timings={"scan": scan_s},
        prefetch=prefetch,
        pool=pool,
    )
    stores.graph.begin_rev(
        ctx.rev_id,
        ctx.created,
        sc.corpus_hash,
        cfg.config_hash,
        {**registry.versions(), "joern": "absent"},
    )
    try:
        with _long_lived_heap():
            return _build_rev(ctx)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        reason = f"{type(e).__name__}: {e}"
        with contextlib.suppress(Exception):
            stores.lex.delete_rev(ctx.rev_id)
            stores.graph.delete_rev(ctx.rev_id)
            stores.control.record_rev(
                RevHistoryRow(
                    ctx.rev_id,
                    active,
                    "failed",
                    ctx.created,
                    None,
                    sc.corpus_hash,
                    cfg.config_hash,
                    note=reason[:500],
                )
            )
        raise IndexBuildError(
            f"building {ctx.rev_id} failed ({reason}); {active or 'no revision'} stays active"
        ) from e


@contextlib.contextmanager
def _long_lived_heap() -> Iterator[None]:
    """The build's heap is long-lived: the facts unpickled from the workers (a few million
    objects on phpMyAdmin) live until the build ends, and the cyclic collector would
    rescan them again and again to find almost nothing (~10% of the build). So the
    collector pauses while they arrive and then freezes them (``gc.freeze``: later
    collections skip them). What the build makes after them is as long-lived (the resolve
    memo it loads, the linker's tables and answers, the rows) and its garbage is freed by
    reference counts, so the collector stays paused to the end: collecting while they grew
    cost MediaWiki's build 2.4 s of linking and 1 s of writing, and loading its memo
    (``index --force``, ``reindex``) 3.8 s instead of 0.4 s, with the same peak memory.
    The collector's state is restored at the end: this may run in a long-lived process
    (and a build followed by a long embedding collects once first)."""
    was = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()


def _write_content(
    stores: Stores,
    rev_id: str,
    made: ContentRows,
    paths: set[str] | None,
    blobs: list[tuple[str, bytes]],
) -> tuple[ranges.Delta, Future[ranges.Delta] | None]:
    """The content rows of a building revision (``rows.content_rows``; ``paths``: of these
    files only, the others' stay), each store in a transaction of its own, both at once:
    SQLite runs without the GIL (apsw releases it), so the lexicon's FTS5 tokenizing uses
    the core the graph's leaves idle. In a first build the lexicon's rows are staged
    (``LexStore.stage_chunks``) and written by a thread that may still run when this
    returns (the future: join it before the lexicon is used again, ``_join_lexicon``);
    its statements hold no GIL, so it writes while the builder links."""
    from concurrent.futures import ThreadPoolExecutor, wait

    write_lex = stores.lex.stage_chunks(rev_id, made.chunks, made.also) if paths is None else None
    pool = ThreadPoolExecutor(1, thread_name_prefix="ragraf-lexvec")
    if write_lex is not None:
        pending = pool.submit(write_lex)
    else:
        pending = pool.submit(stores.lex.write_chunks, rev_id, made.chunks, made.also, paths)
    pool.shutdown(wait=False)  # its thread ends with its one task
    try:
        delta = stores.graph.write_content(rev_id, made.texts, made.flows, paths, blobs)
    except BaseException:
        wait([pending])  # the store is not closed under its thread
        raise
    if write_lex is not None:
        return delta, pending
    delta += _join_lexicon(pending)
    return delta, None


def _join_lexicon(pending: Future[ranges.Delta] | None) -> ranges.Delta:
    """The lexicon's write ``_write_content`` left running, waited for (its error raised)."""
    if pending is None:
        return ranges.Delta()
    delta = pending.result()
    failpoint("after-lexvec")
    return delta


class _BuildScoping:
    """A build's side of resolution's scoped-reindex protocol
    (``ragraf.indexing.resolve.Scoping``): the scoped reindex's ``scoped_write.Plan`` when
    there is one, and the content rows written once the files to resolve are known, before
    any is linked."""

    def __init__(
        self,
        plan: scoped_write.Plan | None,
        write: Callable[[set[str] | None, list[FileFacts]], None],
        keys: dict[str, str] | None,
        memo: link_memo.Memo | None,
        context: str,
        parent: str | None,
        prepared: bool,
        old_nodes: OldNodes | None,
    ) -> None:
        self._plan, self._write = plan, write
        self.keys, self.memo, self.context, self.parent = keys, memo, context, parent
        self.prepared, self.old_nodes = prepared, old_nodes

    def same_tables(self, changed: dict[str, tuple[str, str]]) -> bool:
        return self._plan is not None and self._plan.same_tables(changed)

    def same_shape(self, changed: dict[str, tuple[str, str]], moved: dict[str, str]) -> bool:
        return self._plan is not None and self._plan.same_shape(changed, moved)

    def plan(self, stale: set[str], changed: set[str]) -> set[str] | None:
        return self._plan(stale, changed) if self._plan is not None else None

    def whole(self, only: set[str] | None) -> list[FileFacts] | None:
        return self._plan.facts_to_resolve(only) if self._plan is not None else None

    def before_linking(self, only: set[str] | None, linking: list[FileFacts]) -> None:
        self._write(only, linking)


def _build_rev(ctx: BuildContext) -> IndexResult:
    from ragraf.indexing import vectors
    from ragraf.indexing.extract import Extraction, facts_of
    from ragraf.indexing.resolve import ResolveInputs, resolve
    from ragraf.indexing.rows import assemble

    cfg, stores, sc, rev_id = ctx.cfg, ctx.stores, ctx.scan, ctx.rev_id
    graph, lex, control = stores.graph, stores.lex, stores.control
    max_lines = cfg.chunking.max_chunk_lines
    ok_files = [f for f in sc.files if f.status == ParseStatus.OK]
    from ragraf.indexing import schema as schema_build
    from ragraf.indexing import scoped_write
    from ragraf.indexing.resolve import link_memo

    t = time.perf_counter()
    # resolve.scoped (``scoped``): only when the schema lets a change stay in its files
    schema = None
    schema_input = None
    can_scope = False
    if cfg.resolve.scoped:
        schema = _schema_or_problem(cfg, sc)
        schema_input = schema_build.may_change_it(cfg)
        can_scope = scoped_write.possible(schema, schema_input, graph)
        t = ctx.lap("schema", t)
    gc.disable()  # see _long_lived_heap
    extraction = Extraction(
        max_lines,
        cfg.index.time_budget,
        reuse=ctx.reuse,
        workers=cfg.workers(),
        progress=ctx.progress,
        pool=ctx.pool,
    )
    loader = None
    if can_scope:  # interfaces first, whole facts where needed
        from ragraf.indexing.extract import Facts

        loader = Facts(ok_files, graph, extraction)
        facts, reused_files = loader.facts, loader.reused
    else:
        facts, reused_files = facts_of(ok_files, graph, extraction)
    if ctx.pool is not None:  # idle from here (a later extraction forks them again)
        ctx.pool.close()
    gc.freeze()  # the collector stays paused until the build ends (see _long_lived_heap)
    t = ctx.lap("parse", t)
    failpoint("after-parse")
    if schema is None:
        schema = _schema_or_problem(cfg, sc)
        t = ctx.lap("schema", t)
    model = cfg.embedding.model
    memo_path = ctx.layout.index_dir / link_memo.MEMO_FILE
    keys = None
    plan: scoped_write.Plan | None = None
    if loader is not None:
        keys = {sf.path: f"{sf.sha256}|{extraction.facts_key(sf)}" for sf in ok_files}
        plan = scoped_write.Plan(loader, schema, schema_input, graph, lex, model)
    # from here the files' texts only go to file_blob: the new ones are packed now and every
    # text is let go (MediaWiki holds ~64 MB of source through resolution otherwise)
    from ragraf.store.graph import blob

    known = graph.has_blobs(sf.sha256 for sf in ok_files)
    blobs = {sf.sha256: blob(sf.text or "") for sf in ok_files if sf.sha256 not in known}
    for sf in ok_files:
        sf.text = None
    previous = link_memo.load(memo_path) if keys is not None else None
    # the rows of the files' contents need no link: they are made and written as soon as
    # resolution knows which files it writes, before any is linked, and the facts keep only
    # what linking reads of them (MediaWiki: ~70% of their bytes) through linking and the
    # rest of the rows. (Bound row by row in a thread while linking runs, they took as long:
    # each row needs the GIL linking holds; a first build's lexicon is staged instead and
    # goes on in SQLite alone while linking runs, ``_write_content``.) A build killed after
    # this leaves rows of a revision rev.json does not name, which the next build removes
    # (``recover``)
    from ragraf.indexing.rows import content_rows, let_content_go

    made: list[ContentRows] = []
    delta = ranges.Delta()
    lexicon: Future[ranges.Delta] | None = None  # the lexicon's write, while linking runs

    def write_content(
        only: set[str] | None,
        linking: list[FileFacts],
        plan: scoped_write.Plan | None = plan,
        loader: Facts | None = loader,
        given: list[FileFacts] = facts,
        new_blobs: dict[str, bytes] = blobs,
    ) -> None:
        nonlocal delta, lexicon
        t_content = time.perf_counter()
        mine = plan.content if plan is not None and only is not None else None
        now = loader.facts if loader is not None else given
        # the whole facts of those files (a loader holds most as linking reads them, and
        # decodes the rest from their rows one file at a time)
        whole = (
            loader.contents(mine)
            if loader is not None
            else (f for f in given if mine is None or f.path in mine)
        )
        rows_made = content_rows(
            whole, model, plan.taken if plan is not None and mine is not None else None
        )
        for held in (now, linking):
            for f in held:
                if mine is None or f.path in mine:
                    let_content_go(f)
        made.append(rows_made.counted())
        # the new files' texts too: held to the write stage, they stood under linking's
        # peak (MediaWiki: 15 MB packed)
        written, lexicon = _write_content(
            stores, rev_id, rows_made, mine, sorted(new_blobs.items())
        )
        new_blobs.clear()
        delta += written
        del rows_made
        trim_memory.give_back()  # the contents, written and let go
        ctx.timings["content"] = time.perf_counter() - t_content

    try:
        scoping = _BuildScoping(
            plan,
            write_content,
            keys,
            previous,
            cfg.config_hash,
            ctx.parent,
            loader is not None,
            graph.open_node_keys if plan is not None else None,
        )
        resolved = resolve(facts, ResolveInputs.of(cfg, schema.table_index), scoping)
        del scoping
    finally:  # the lexicon's thread uses its store: it ends before anything else goes on
        if lexicon is not None:
            from concurrent.futures import wait

            wait([lexicon])
    delta += _join_lexicon(lexicon)
    if loader is not None:
        facts = loader.facts  # whole for the files resolved
    schema_build.add_code_tables(
        schema, resolved, cfg.confidence, ctx.layout.index_dir / schema_build.CODE_SCHEMA_CACHE
    )
    # the memos are complete: this build's is encoded now and written after the seal, and
    # the objects of both are let go (MediaWiki's is ~40 MB of JSON; kept to the end, they
    # stood under the rows and the writes, the build's peak)
    memo: list[bytes] | None = None
    if resolved.memo is not None:
        resolved.memo.rev = rev_id
        memo = link_memo.encode(resolved.memo)
        resolved.memo = None
    before = previous.code_nodes if previous is not None else []
    previous = None
    t = ctx.lap("resolve", t)
    # scoped: the rows of the files a change can affect, the others' stay (``scoped``)
    in_scope = resolved.scope_paths
    content: set[str] | None = None  # of the scope, the files whose content rows are written
    if in_scope is not None:
        assert plan is not None and plan.content is not None
        content = plan.content
        out = scoped_write.assemble_scoped(
            sc, facts, resolved, schema, stores, before, content, made[0]
        )
        # files resolved again for their links alone (their content did not change)
        resolved.scope["files_relinked"] = len(in_scope - content)
    else:
        out = assemble(sc, facts, resolved, schema, made[0])
    out.graph.blobs = sorted(blobs.items())
    # what the rest needs of the facts and of resolution; the rest of them is let go before
    # the writes (the rows share their strings; MediaWiki's references, chunks and flow
    # units otherwise stay through the write stage, its peak)
    capability = "dataflow" if any(f.flows for f in facts) else "degraded"
    broken = extractor_warning(facts)
    scope_counts = resolved.scope
    moved, renamed = resolved.moved, resolved.renamed
    del facts, resolved, loader, plan, blobs
    trim_memory.give_back()
    t = ctx.lap("rows", t)
    if ctx.progress:
        ctx.progress("write", 0, 1)
    # the rest of the graph's rows (the contents' are written: ``write_content`` above), one
    # transaction; a build killed now leaves rows of a revision that rev.json does not name,
    # which the next build removes (``recover``)
    delta += graph.write_rows(
        rev_id,
        out.graph,
        in_scope,
        out.whole,
        content,
        content_written=True,
        moved=moved,
        renamed=renamed,
    )
    failpoint("after-graph")
    if ctx.progress:
        ctx.progress("write", 1, 1)
    t = ctx.lap("write", t)
    vec_status: dict[str, Any]
    pending = None
    if ctx.no_vectors or vectors.disabled_by_env():
        vec_status = {"status": "disabled"}
    else:
        from ragraf import ids

        # the revision's chunks, as written (the build let their texts go once written)
        chunks = [
            (cid, ids.sha256_text(text.partition("\n")[2]), text)
            for cid, text in lex.all_chunks(rev_id)
        ]
        vplan = vectors.plan(cfg, lex.db, rev_id, chunks)
        if isinstance(vplan, dict):
            vec_status = vplan  # unavailable
        elif ctx.wait_vectors or not vplan.todo:
            helper = ctx.prefetch.helper if ctx.prefetch is not None else None
            vec_status = vectors.fill(lex.db, vplan, ctx.progress, helper)
        else:
            vec_status, pending = vplan.status("embedding"), vplan
    t = ctx.lap("vectors", t)
    failpoint("after-vectors")
    sealed = now_iso()
    rows = out.graph
    counts = {
        "files": len(rows.files),
        "nodes": len(rows.nodes) if in_scope is None else graph.open_count("node"),
        "edges": len(rows.edges) if in_scope is None else graph.open_count("edge"),
        "chunks": lex.chunk_count(rev_id),
        "vectors_reused": vec_status.get("reused", 0),
        "vectors_computed": vec_status.get("computed", 0),
        # rows shared with the parent revision, and what this one changed (ranges.Delta)
        "rows_kept": delta.kept,
        "rows_added": delta.added,
        "rows_closed": delta.closed,
        # scoped resolution: files whose rows were kept / were resolved and written again
        **{f"resolve_{k}": v for k, v in scope_counts.items()},
    }
    # the commit point (§9): from here on the revision is what readers see
    manifest.write(
        ctx.layout.rev_json,
        {
            "git_commit": gitinfo.head(ctx.layout.root),
            "rev_id": rev_id,
            "parent_rev": ctx.parent,
            "state": "ready",
            "created_at": ctx.created,
            "sealed_at": sealed,
            "corpus_hash": sc.corpus_hash,
            "config_hash": cfg.config_hash,
            "extractors": registry.corpus_fingerprint(),
            # dataflow: the def-use layer of ragraf.lang.php.flow is in the revision (§6.4)
            "capability": capability,
            "joern_used": 0,
            "vectors": vec_status,
            "counts": counts,
            "schema": {"source": schema.source, "incomplete": schema.incomplete},
            # the ledger's head when this revision was sealed (verify checks it is still there)
            "ledger_head": {
                "entry": list(control.ledger_head()),
                "ack": list(control.ack_head()),
            },
        },
    )
    failpoint("after-manifest")
    t = time.perf_counter()
    done = finish_commit(cfg, stores, manifest.require(ctx.layout.rev_json))
    archive, pruned = done.archive, done.pruned
    if memo is not None:  # for the next build, written after the seal
        t_memo = time.perf_counter()
        link_memo.write(memo_path, memo)
        ctx.timings["resolve_memo_save"] = time.perf_counter() - t_memo
    graph.analyze()
    graph.db.checkpoint()
    lex.db.checkpoint()
    ctx.lap("finish", t)  # history, the ledger's archive, retention, planner statistics
    ctx.timings["total"] = ctx.timings["queryable"] = time.perf_counter() - ctx.t0
    from ragraf.logs import file_logger

    file_logger("ragraf.index", ctx.layout.logs_dir, "index.log").info(
        "sealed %s parent=%s files=%d nodes=%d edges=%d chunks=%d vectors=%s reused_files=%d"
        " total=%.2fs",
        rev_id,
        ctx.parent,
        counts["files"],
        counts["nodes"],
        counts["edges"],
        counts["chunks"],
        vec_status.get("status"),
        reused_files,
        ctx.timings["total"],
    )
    return IndexResult(
        "built",
        rev_id,
        counts,
        {c.metric: c.value for c in rows.coverage if c.value is not None},
        ctx.timings,
        ctx.recovered,
        pruned,
        reused_files=reused_files,
        archive=archive,
        vectors=vec_status,
        schema={"source": schema.source, "incomplete": schema.incomplete},
        warnings=[w for w in (selection_warning(cfg, sc), broken) if w],
        pending=pending,
    )


# measured on phpMyAdmin: graph + lexicon + vectors take ~8x the bytes of the corpus text
SPACE_FACTOR = 8
#: room for the files' fixed part (empty stores, WAL, rev.json, logs): measured 0.5 MiB on
#: the pilot; the margin grows with the corpus (an eighth of the estimate) instead of being
#: a fixed 64 MiB that refused a 2 MB index
SPACE_BASE = 2 * 1024 * 1024


def required_bytes(corpus_bytes: int) -> int:
    estimate = corpus_bytes * SPACE_FACTOR
    return estimate + estimate // 8 + SPACE_BASE


def check_disk(layout: Layout, sc: ScanResult, free: int | None = None) -> None:
    """§15: refuse before building when the disk cannot hold the revision, saying how much
    it needs."""
    import shutil

    need = required_bytes(sum(f.size for f in sc.files if f.status == ParseStatus.OK))
    free = shutil.disk_usage(layout.dot).free if free is None else free
    if free < need:
        raise RefusedError(
            f"not enough disk space under {layout.dot}: a new revision needs about "
            f"{need / 2**20:.0f} MiB, {free / 2**20:.0f} MiB are free; nothing was written"
        )


def _schema_or_problem(cfg: Config, sc: ScanResult) -> Any:
    """The revision's database schema; schema input never fails a build: whatever goes
    wrong reading it becomes an incomplete schema with a problem in coverage (and the
    traceback in .ragraf/logs/index.log)."""
    from ragraf.indexing import schema as schema_build
    from ragraf.model import CoverageRow

    try:
        return schema_build.build(cfg, sc.files)
    except Exception as e:  # noqa: BLE001 - the last line of defence for schema input
        import traceback

        from ragraf.logs import file_logger

        file_logger("ragraf.index", cfg.layout.logs_dir, "index.log").error(
            "schema build failed:\n%s", traceback.format_exc()
        )
        why = f"the schema could not be built ({type(e).__name__}: {e})"[:300]
        res = schema_build.SchemaResult(incomplete=why)
        res.coverage = [
            CoverageRow("schema.source", None, "none"),
            CoverageRow("schema.incomplete", 1.0, why),
            CoverageRow("schema.problem", None, why),
        ]
        return res


def prune(cfg: Config, stores: Stores, active: str) -> list[str]:
    """retain_revs: the oldest sealed revisions beyond the count are pruned: the rows no
    retained revision has are deleted (rows the retained ones share stay); rev_history
    stays forever."""
    keep = max(1, cfg.index.retain_revs)
    ready = [r for r, s in stores.graph.revs() if s == "ready" and r != active]
    excess = max(0, len(ready) + 1 - keep)
    pruned = ready[:excess]
    if not pruned:
        return []
    from ragraf.store.ranges import rev_no

    oldest = min([*ready[excess:], active], key=rev_no)
    stores.lex.prune_before(oldest)
    stores.graph.prune_before(oldest, pruned)
    for rev_id in pruned:
        stores.control.set_state(rev_id, "archived", f"rows pruned by retain_revs={keep}")
    return pruned


def extractor_warning(facts: list[FileFacts]) -> str | None:
    """The files an extractor failed on (``registry.extract``: a bug of ragraf's, the file
    indexed as failed), named with their errors, or None."""
    bad = [
        f
        for f in facts
        if f.status == ParseStatus.FAILED and registry.EXTRACTOR_FAILED in (f.note or "")
    ]
    if not bad:
        return None
    shown = "; ".join(f"{f.path}: {f.note}" for f in bad[:3]) + (" ..." if len(bad) > 3 else "")
    return (
        f"{len(bad)} file(s) not indexed because ragraf's extractor failed on them ({shown});"
        " `ragraf status` lists them under coverage: please report this as a bug"
    )

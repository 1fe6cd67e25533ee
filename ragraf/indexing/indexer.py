"""`ragraf index`: seal an immutable revision (architecture §9, §10).

Invariants a change must keep:
- One build at a time: an exclusive, non-blocking lock on
  ``.ragraf/index/.build.lock`` (released by the OS when the process dies).
- rev.json is the single commit point. Rows of the building revision are
  written to graph and lexvec first; rev.json is replaced atomically after
  both committed; only then is the state 'ready' recorded. A build killed at
  any moment leaves the previous revision active and intact, and the next
  build removes the half-built rows (``recover``).
- Vectors are a cache keyed by content, not rows of the revision (``indexing/vectors.py``):
  the revision is sealed once its graph and lexicon are written, and the same process
  then embeds the missing vectors batch by batch (``--wait-vectors``: before sealing).
  After the seal, rev.json changes only in its ``vectors`` block, and only by the
  holder of the build lock; a kill while embedding loses nothing sealed, and the next
  ``index``, ``reindex --commit`` or ``ragraf vectors --resume`` embeds what is missing.
- Revision numbers only grow; a crashed or failed number is not reused.
- Same tree + same config => same corpus_hash, node set, edge_uid set and
  chunk set (§9.3): everything is sorted and derived from content.
- A revision is built by named stages over one ``BuildContext`` (``_build_rev``): each
  stage's docstring says what of the context it reads and writes, and a stage empties
  what no later one reads. The cyclic collector is paused from the parse to the end
  (``_long_lived_heap``); freed memory goes back to the system once the contents are
  written and once the facts are let go (``trim_memory.give_back``).
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
from ragraf.kinds import ParseStatus, RevState, VectorStatus
from ragraf.lang import registry
from ragraf.locks import file_lock
from ragraf.model import RevHistoryRow
from ragraf.store import Stores, manifest, open_stores, ranges

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ragraf.corpus import ScannedFile
    from ragraf.indexing import scoped_write
    from ragraf.indexing.extract import Extracted, Extraction, Facts
    from ragraf.indexing.resolve import Resolved, link_memo
    from ragraf.indexing.resolve.linker import OldNodes
    from ragraf.indexing.rows import Assembled, ContentRows
    from ragraf.indexing.schema import SchemaResult
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
            if man and isinstance(vec, dict) and vec.get("status") == VectorStatus.EMBEDDING
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


@dataclass(frozen=True)
class BuildRequest:
    """What ``build`` was asked."""

    force: bool = False  # a revision even when the tree and the configuration are current
    commit: bool = False  # reindex --commit: seal the next revision, archive the ledger
    no_vectors: bool = False
    wait_vectors: bool = False  # embed before sealing (today's behaviour, for scripts)
    progress: Progress | None = None


@dataclass
class BuildContext:
    """What the stages of one revision's build share (``_build_rev``). The first block is
    given when the build starts; each later one is written by the stage it names and read
    by those after it. A stage empties what no later stage reads (``_assemble``: the facts
    and resolution, which would otherwise stand under the writes, the build's peak)."""

    cfg: Config
    stores: Stores
    scan: ScanResult
    rev_id: str
    parent: str | None  # the active revision this one follows
    created: str
    asked: BuildRequest
    recovered: list[str]  # the revisions ``recover`` removed before this build
    t0: float  # when the build started (its scan)
    since: float  # when the stage running now started (``lap``)
    #: reuse cached per-file facts (every build: a cached entry is used only under an equal
    #: (sha256, facts_key), so a rebuild re-extracts only what changed)
    reuse: bool = True
    timings: dict[str, float] = field(default_factory=dict)
    prefetch: Prefetch | None = None
    pool: Pool[Extracted] | None = None  # the parser workers (forked before the scan)
    # -- _schema
    schema: SchemaResult | None = None
    schema_input: Callable[[str], bool] | None = None  # ``schema.may_change_it``
    can_scope: bool = False  # ``scoped_write.possible``: resolve.scoped may stay in the scope
    # -- _parse
    files: list[ScannedFile] = field(default_factory=list)  # the files parsed (status ok)
    extraction: Extraction | None = None
    loader: Facts | None = None  # a scoped build's facts: interfaces, whole where needed
    facts: list[FileFacts] = field(default_factory=list)
    reused_files: int = 0  # of them, taken from the facts cache
    # -- _prepare_resolve
    keys: dict[str, str] | None = None  # path -> facts key: the memo's keys (scoped only)
    plan: scoped_write.Plan | None = None  # (scoped only)
    blobs: dict[str, bytes] = field(default_factory=dict)  # new files' texts, packed
    previous: link_memo.Memo | None = None  # the parent's resolve memo
    # -- _write_content_rows (called by resolution before it links)
    content_counts: ContentRows | None = None  # ``ContentRows.counted``
    delta: ranges.Delta = field(default_factory=ranges.Delta)  # rows kept / added / closed
    lexicon: Future[ranges.Delta] | None = None  # the lexicon's write, while linking runs
    # -- _resolve
    resolved: Resolved | None = None
    memo: list[bytes] | None = None  # this build's memo, encoded: written after the seal
    before: list[str] = field(default_factory=list)  # the parent's code-table node ids
    # -- _assemble
    out: Assembled | None = None
    in_scope: set[str] | None = None  # scoped: the files whose rows are written
    content: set[str] | None = None  # of them, those whose content rows are written
    capability: str = "degraded"  # dataflow when a file has flow units
    broken: str | None = None  # ``extractor_warning``
    scope_counts: dict[str, int] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)  # ``Resolved.moved``
    renamed: set[str] = field(default_factory=set)  # ``Resolved.renamed``
    # -- _vectors
    vec_status: dict[str, Any] = field(default_factory=dict)
    pending: Any = None  # Any: a vectors.Plan to embed after the seal (imported lazily)
    # -- _seal
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def layout(self) -> Layout:
        return self.cfg.layout

    def lap(self, stage: str) -> None:
        """Record the time of ``stage``, from ``since`` to now (the start of the next)."""
        now = time.perf_counter()
        self.timings[stage] = now - self.since
        self.since = now


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
    if row is not None and row["state"] != RevState.READY:
        graph.set_state(rev_id, RevState.READY)
    history = {h["rev_id"]: h for h in control.history()}
    if history.get(rev_id, {}).get("state") != RevState.READY:
        control.record_rev(
            RevHistoryRow(
                rev_id,
                man.get("parent_rev"),
                RevState.READY,
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
        if state != RevState.BUILDING or rev_id == active:
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
                RevState.FAILED,
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
            asked = BuildRequest(force, commit, no_vectors, wait_vectors, progress)
            res = _build_locked(cfg, stores, asked, prefetch, pool)
        if res.pending is not None:
            if on_sealed is not None:
                on_sealed(res)
            t = time.perf_counter()
            from ragraf.embed.helper import MAX_TEXTS

            if len(res.pending.todo) > MAX_TEXTS:
                # a large plan loads the model in this process (a small one goes to the
                # helper): the build's memory, let go when it returned, goes back to the system
                # first, or the embedding's peak comes on top of the build's; the collection
                # costs little beside minutes of embedding
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
        len(p.todo) if status["status"] == VectorStatus.READY else 0,
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
    asked: BuildRequest,
    prefetch: Prefetch | None = None,
    pool: Pool[Extracted] | None = None,
) -> IndexResult:
    """Scan, gate (refusals; "current" when nothing changed) and build the next revision
    (``_build_rev``), under the build lock; a failed build is recorded and its rows removed."""
    layout = cfg.layout
    t0 = time.perf_counter()
    if asked.progress:
        asked.progress("scan", 0, 1)  # the bar shows while the tree is walked
    man = manifest.read(layout.rev_json)
    sc = _scan(cfg, pool if man is None else None, asked.progress)
    scan_s = time.perf_counter() - t0
    active = man["rev_id"] if man else None
    if man is None:
        if asked.commit:
            raise RefusedError("there is no revision to reindex yet: run `ragraf index` first")
        check_disk(layout, sc)  # before any store file exists: a refusal leaves none behind
    recovered = recover(cfg, stores)
    ledger = stores.control.ledger_size(active) if active else 0
    if ledger and not asked.commit:
        raise RefusedError(
            f"the ledger of {active} has {ledger} entries: the change effort is not finished. "
            "Run `ragraf reindex --commit` to seal the next revision and archive the ledger "
            "(P1: no new revision appears silently in the middle of a change effort)"
        )
    if (
        man
        and not asked.force
        and not ledger
        and man.get("corpus_hash") == sc.corpus_hash
        and man.get("config_hash") == cfg.config_hash
        and man.get("extractors") == registry.corpus_fingerprint()
    ):
        return _current(cfg, stores, man, sc, asked, recovered)
    if asked.commit and not man:
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
        asked,
        recovered,
        t0,
        since=t0,
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
        raise _failed(ctx, e) from e


def _scan(
    cfg: Config, pool: Pool[Extracted] | None, progress: Progress | None = None
) -> ScanResult:
    """The corpus (``ragraf.corpus.scan``). ``pool``: the parser workers of a first build,
    forked once the files are listed and before any is read, so that they share the
    extractors this process loads for them and none of the texts (forked after the scan,
    each mapped every text: MediaWiki's tree ~90 MiB more RSS). A build with a revision
    before it mostly takes the facts cache (after `drift --scan`, every file): its workers,
    if any, fork when there is something to parse, as many as there are files."""

    def listed(langs: set[str | None]) -> None:
        if pool is not None:
            registry.warm(langs)
            pool.start()

    def read(done: int, total: int) -> None:
        if progress is not None:
            progress("scan", done, total)

    return scan(cfg, on_listed=listed, progress=read)


def _current(
    cfg: Config,
    stores: Stores,
    man: dict[str, Any],
    sc: ScanResult,
    asked: BuildRequest,
    recovered: list[str],
) -> IndexResult:
    """The result of a build whose tree, configuration and extractors are the active
    revision's; its vectors are finished when a build was killed while embedding them."""
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
    if isinstance(vec, dict) and vec.get("status") == VectorStatus.EMBEDDING:
        if not (asked.no_vectors or disabled_by_env()):  # a build was killed while embedding
            p = _vector_plan(cfg, stores, man)
            if isinstance(p, dict):
                _set_vectors(cfg.layout, man["rev_id"], p)
                res.vectors = p
            elif asked.wait_vectors:
                res.vectors = _fill_vectors(cfg, stores, p, asked.progress)
            else:
                res.pending = p
    return res


def _failed(ctx: BuildContext, e: BaseException) -> IndexBuildError:
    """A failed build's rows removed and its failure recorded in the history (as far as
    the stores let: the error raised is the build's)."""
    reason = f"{type(e).__name__}: {e}"
    stores = ctx.stores
    with contextlib.suppress(Exception):
        stores.lex.delete_rev(ctx.rev_id)
        stores.graph.delete_rev(ctx.rev_id)
        stores.control.record_rev(
            RevHistoryRow(
                ctx.rev_id,
                ctx.parent,
                RevState.FAILED,
                ctx.created,
                None,
                ctx.scan.corpus_hash,
                ctx.cfg.config_hash,
                note=reason[:500],
            )
        )
    return IndexBuildError(
        f"building {ctx.rev_id} failed ({reason}); {ctx.parent or 'no revision'} stays active"
    )


@contextlib.contextmanager
def _long_lived_heap() -> Iterator[None]:
    """The build's heap is long-lived: the facts unpickled from the workers (a few million
    objects on phpMyAdmin) live until the build ends, and the cyclic collector would
    rescan them again and again to find almost nothing (~10% of the build). So the
    collector pauses while they arrive and then freezes them (``gc.freeze``: later
    collections skip them; ``_parse``). What the build makes after them is as long-lived
    (the resolve memo it loads, the linker's tables and answers, the rows) and its garbage
    is freed by reference counts, so the collector stays paused to the end: collecting
    while they grew cost MediaWiki's build 2.4 s of linking and 1 s of writing, and
    loading its memo (``index --force``, ``reindex``) 3.8 s instead of 0.4 s, with the same
    peak memory. The collector's state is restored at the end: this may run in a
    long-lived process (and a build followed by a long embedding collects once first)."""
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


# -- the stages of one revision -------------------------------------------------------
def _build_rev(ctx: BuildContext) -> IndexResult:
    """Build revision ``ctx.rev_id``: its stages in order, each a function of ``ctx``
    whose docstring says what it reads and writes. From the content rows on (written by
    ``_write_content_rows`` as resolution starts) the stores hold rows of a revision
    rev.json does not name until ``_seal``: a build killed in between leaves them to the
    next build's ``recover``."""
    ctx.since = time.perf_counter()
    scoped = ctx.cfg.resolve.scoped
    if scoped:  # first: the schema decides whether a change may stay in its files
        _schema(ctx)
    _parse(ctx)
    if not scoped:
        _schema(ctx)
    _prepare_resolve(ctx)
    _resolve(ctx)
    _assemble(ctx)
    _write(ctx)
    _vectors(ctx)
    _seal(ctx)
    return _finish(ctx)


def _schema(ctx: BuildContext) -> None:
    """The revision's database schema (``_schema_or_problem``) and, with resolve.scoped,
    whether a scoped build can be exact (``scoped_write.possible``: the parse then reads
    the interfaces of files first). Reads cfg, scan, stores.graph; writes schema,
    schema_input, can_scope."""
    from ragraf.indexing import schema as schema_build
    from ragraf.indexing import scoped_write

    ctx.schema = _schema_or_problem(ctx.cfg, ctx.scan)
    if ctx.cfg.resolve.scoped:
        ctx.schema_input = schema_build.may_change_it(ctx.cfg)
        ctx.can_scope = scoped_write.possible(ctx.schema, ctx.schema_input, ctx.stores.graph)
    ctx.lap("schema")


def _parse(ctx: BuildContext) -> None:
    """The facts of the files to parse, taken from the facts cache or extracted by the
    parser workers (``ragraf.indexing.extract``): a build that can be scoped holds the
    interfaces of files (``extract.Facts``, whole facts where resolution needs them), the
    others every file's facts as linking reads them. The workers are idle afterwards and
    closed. Reads cfg, scan, stores.graph, can_scope, reuse, pool, asked.progress; writes
    files, extraction, loader, facts, reused_files."""
    from ragraf.indexing.extract import Extraction, Facts, facts_of

    cfg, graph = ctx.cfg, ctx.stores.graph
    ctx.files = [f for f in ctx.scan.files if f.status == ParseStatus.OK]
    ctx.extraction = how = Extraction(
        cfg.chunking.max_chunk_lines,
        cfg.index.time_budget,
        reuse=ctx.reuse,
        workers=cfg.workers(),
        progress=ctx.asked.progress,
        pool=ctx.pool,
    )
    # the facts are the build's long-lived heap (``_long_lived_heap``): the collector pauses
    # before they arrive and freezes them once they are all here, so that no later
    # collection scans them again; it stays paused to the end of the build, whose state
    # ``_long_lived_heap`` restores. Here, not around the whole build: the schema before
    # the parse makes short-lived garbage the collector frees as it goes
    gc.disable()
    if ctx.can_scope:  # interfaces first, whole facts where needed
        ctx.loader = Facts(ctx.files, graph, how)
        ctx.facts, ctx.reused_files = ctx.loader.facts, ctx.loader.reused
    else:
        ctx.facts, ctx.reused_files = facts_of(ctx.files, graph, how)
    if ctx.pool is not None:  # idle from here (a later extraction forks them again)
        ctx.pool.close()
    gc.freeze()
    ctx.lap("parse")
    failpoint("after-parse")


def _prepare_resolve(ctx: BuildContext) -> None:
    """What resolution needs besides the facts: a scoped build's facts keys and plan
    (``scoped_write.Plan``) and the parent's resolve memo; and the new files' texts packed
    for file_blob, where alone they go from here: every text is let go (MediaWiki holds
    ~64 MB of source through resolution otherwise). Reads cfg, files, extraction, loader,
    schema, schema_input, stores; writes keys, plan, blobs, previous; empties the files'
    texts."""
    from ragraf.indexing import scoped_write
    from ragraf.indexing.resolve import link_memo
    from ragraf.store.graph import blob

    graph = ctx.stores.graph
    if ctx.loader is not None:
        assert ctx.extraction is not None and ctx.schema is not None
        how = ctx.extraction
        ctx.keys = {sf.path: f"{sf.sha256}|{how.facts_key(sf)}" for sf in ctx.files}
        ctx.plan = scoped_write.Plan(
            ctx.loader,
            ctx.schema,
            ctx.schema_input,
            graph,
            ctx.stores.lex,
            ctx.cfg.embedding.model,
        )
    known = graph.has_blobs(sf.sha256 for sf in ctx.files)
    ctx.blobs = {sf.sha256: blob(sf.text or "") for sf in ctx.files if sf.sha256 not in known}
    for sf in ctx.files:
        sf.text = None
    if ctx.keys is not None:
        ctx.previous = link_memo.load(ctx.layout.index_dir / link_memo.MEMO_FILE)


class _BuildScoping:
    """A build's side of resolution's scoped-reindex protocol
    (``ragraf.indexing.resolve.Scoping``): a scoped build's memo keys, its parent's memo and
    its ``scoped_write.Plan``, and, for every build, the content rows written once the
    files to resolve are known, before any is linked (``_write_content_rows``)."""

    def __init__(self, ctx: BuildContext) -> None:
        self.ctx, plan = ctx, ctx.plan
        self.keys, self.memo = ctx.keys, ctx.previous
        self.context, self.parent = ctx.cfg.config_hash, ctx.parent
        self.prepared = ctx.loader is not None
        self.old_nodes: OldNodes | None = (
            ctx.stores.graph.open_node_keys if plan is not None else None
        )

    def same_tables(self, changed: dict[str, tuple[str, str]]) -> bool:
        plan = self.ctx.plan
        return plan is not None and plan.same_tables(changed)

    def same_shape(self, changed: dict[str, tuple[str, str]], moved: dict[str, str]) -> bool:
        plan = self.ctx.plan
        return plan is not None and plan.same_shape(changed, moved)

    def plan(self, stale: set[str], changed: set[str]) -> set[str] | None:
        plan = self.ctx.plan
        return plan(stale, changed) if plan is not None else None

    def whole(self, only: set[str] | None) -> list[FileFacts] | None:
        plan = self.ctx.plan
        return plan.facts_to_resolve(only) if plan is not None else None

    def before_linking(self, only: set[str] | None, linking: list[FileFacts]) -> None:
        _write_content_rows(self.ctx, only, linking)


def _write_content_rows(ctx: BuildContext, only: set[str] | None, linking: list[FileFacts]) -> None:
    """The rows of the files' contents, which need no link (texts, chunks, flow units:
    ``rows.content_rows``), made and written as soon as resolution knows which files it
    writes (``only``, None: all), before any is linked; the facts keep only what linking
    reads of them (MediaWiki: ~70% of their bytes) through linking and the rest of the rows.
    (Bound row by row in a thread while linking runs, they took as long: each row needs the
    GIL linking holds; a first build's lexicon is staged instead and goes on in SQLite
    alone while linking runs, ``_write_content``.) Reads plan, loader, facts, blobs,
    stores; writes content_counts, delta, lexicon, timings["content"]; empties blobs and
    the contents of the facts written."""
    from ragraf.indexing.rows import content_rows, let_content_go

    t = time.perf_counter()
    plan, loader = ctx.plan, ctx.loader
    mine = plan.content if plan is not None and only is not None else None
    now = loader.facts if loader is not None else ctx.facts
    # the whole facts of those files (a loader holds most as linking reads them, and
    # decodes the rest from their rows one file at a time)
    whole = (
        loader.contents(mine)
        if loader is not None
        else (f for f in ctx.facts if mine is None or f.path in mine)
    )
    made = content_rows(
        whole,
        ctx.cfg.embedding.model,
        plan.taken if plan is not None and mine is not None else None,
    )
    for held in (now, linking):
        for f in held:
            if mine is None or f.path in mine:
                let_content_go(f)
    ctx.content_counts = made.counted()
    # the new files' texts too: held to the write stage, they stood under linking's peak
    # (MediaWiki: 15 MB packed)
    written, ctx.lexicon = _write_content(
        ctx.stores, ctx.rev_id, made, mine, sorted(ctx.blobs.items())
    )
    ctx.blobs.clear()
    ctx.delta += written
    del made
    trim_memory.give_back()  # the contents, written and let go
    ctx.timings["content"] = time.perf_counter() - t


def _resolve(ctx: BuildContext) -> None:
    """Cross-file links (``ragraf.indexing.resolve``; the content rows are written as it
    starts, ``_BuildScoping``), the tables known only from code added to the schema, and
    this build's resolve memo encoded (written after the seal). Reads cfg, facts, schema,
    the scoping's fields (``_BuildScoping``); writes resolved, memo, before, delta, facts
    (a loader's: whole for the files resolved), schema (its code tables); lets go of
    previous."""
    from concurrent.futures import wait

    from ragraf.indexing import schema as schema_build
    from ragraf.indexing.resolve import ResolveInputs, link_memo, resolve

    cfg, schema = ctx.cfg, ctx.schema
    assert schema is not None
    try:
        resolved = resolve(ctx.facts, ResolveInputs.of(cfg, schema.table_index), _BuildScoping(ctx))
    finally:  # the lexicon's thread uses its store: it ends before anything else goes on
        if ctx.lexicon is not None:
            wait([ctx.lexicon])
    ctx.delta += _join_lexicon(ctx.lexicon)
    ctx.lexicon = None
    if ctx.loader is not None:
        ctx.facts = ctx.loader.facts  # whole for the files resolved
    schema_build.add_code_tables(
        schema, resolved, cfg.confidence, ctx.layout.index_dir / schema_build.CODE_SCHEMA_CACHE
    )
    # the memos are complete: this build's is encoded now and written after the seal, and
    # the objects of both are let go (kept to the end, they would stand under the rows and
    # the writes, the build's peak)
    if resolved.memo is not None:
        resolved.memo.rev = ctx.rev_id
        ctx.memo = link_memo.encode(resolved.memo)
        resolved.memo = None
    ctx.before = ctx.previous.code_nodes if ctx.previous is not None else []
    ctx.previous = None
    ctx.resolved = resolved
    ctx.lap("resolve")


def _assemble(ctx: BuildContext) -> None:
    """The revision's other rows (``rows.assemble``; a scoped build's: those of the files
    in the scope and the revision-wide ones, ``scoped_write.assemble_scoped``); then what
    the rest of the build needs of the facts and of resolution is kept and the rest let go
    before the writes (the rows share their strings; MediaWiki's references, chunks and
    flow units otherwise stay through the write stage, its peak). Reads scan, facts,
    resolved, schema, plan, before, content_counts, blobs; writes out, in_scope, content,
    capability, broken, scope_counts, moved, renamed; empties facts, loader, plan,
    resolved, blobs."""
    from ragraf.indexing import scoped_write
    from ragraf.indexing.rows import assemble

    resolved, schema, counted = ctx.resolved, ctx.schema, ctx.content_counts
    assert resolved is not None and schema is not None and counted is not None
    ctx.in_scope = resolved.scope_paths
    if ctx.in_scope is not None:
        assert ctx.plan is not None and ctx.plan.content is not None
        ctx.content = ctx.plan.content
        out = scoped_write.assemble_scoped(
            ctx.scan, ctx.facts, resolved, schema, ctx.stores, ctx.before, ctx.content, counted
        )
        # files resolved again for their links alone (their content did not change)
        resolved.scope["files_relinked"] = len(ctx.in_scope - ctx.content)
    else:
        out = assemble(ctx.scan, ctx.facts, resolved, schema, counted)
    out.graph.blobs = sorted(ctx.blobs.items())
    ctx.out = out
    ctx.capability = "dataflow" if any(f.flows for f in ctx.facts) else "degraded"
    ctx.broken = extractor_warning(ctx.facts)
    ctx.scope_counts = resolved.scope
    ctx.moved, ctx.renamed = resolved.moved, resolved.renamed
    del resolved
    ctx.facts, ctx.loader, ctx.plan, ctx.resolved, ctx.blobs = [], None, None, None, {}
    trim_memory.give_back()
    ctx.lap("rows")


def _write(ctx: BuildContext) -> None:
    """The rest of the graph's rows (the contents' are written: ``_write_content_rows``),
    one transaction. Reads out, in_scope, content, moved, renamed; adds to delta."""
    progress, out = ctx.asked.progress, ctx.out
    assert out is not None
    if progress:
        progress("write", 0, 1)
    ctx.delta += ctx.stores.graph.write_rows(
        ctx.rev_id,
        out.graph,
        ctx.in_scope,
        out.whole,
        ctx.content,
        content_written=True,
        moved=ctx.moved,
        renamed=ctx.renamed,
    )
    failpoint("after-graph")
    if progress:
        progress("write", 1, 1)
    ctx.lap("write")


def _vectors(ctx: BuildContext) -> None:
    """The vectors' plan (``ragraf.indexing.vectors``: the chunks that get a vector, those
    reused); embedded now with --wait-vectors or when nothing is left to embed, else after
    the seal (``build``). Reads asked, prefetch, stores.lex; writes vec_status, pending."""
    from ragraf.indexing import vectors

    lex, asked = ctx.stores.lex, ctx.asked
    if asked.no_vectors or vectors.disabled_by_env():
        ctx.vec_status = {"status": VectorStatus.DISABLED}
    else:
        from ragraf import ids

        # the revision's chunks, as written (the build let their texts go once written)
        chunks = [
            (cid, ids.sha256_text(text.partition("\n")[2]), text)
            for cid, text in lex.all_chunks(ctx.rev_id)
        ]
        vplan = vectors.plan(ctx.cfg, lex.db, ctx.rev_id, chunks)
        if isinstance(vplan, dict):
            ctx.vec_status = vplan  # unavailable
        elif asked.wait_vectors or not vplan.todo:
            helper = ctx.prefetch.helper if ctx.prefetch is not None else None
            ctx.vec_status = vectors.fill(lex.db, vplan, asked.progress, helper)
        else:
            ctx.vec_status, ctx.pending = vplan.status(VectorStatus.EMBEDDING), vplan
    ctx.lap("vectors")
    failpoint("after-vectors")


def _seal(ctx: BuildContext) -> None:
    """The commit point (§9): rev.json names the revision, which from here on is what
    readers see. Reads out, in_scope, delta, scope_counts, vec_status, schema, capability,
    the ledger's head; writes counts."""
    graph, lex, control = ctx.stores.graph, ctx.stores.lex, ctx.stores.control
    assert ctx.out is not None and ctx.schema is not None
    sealed = now_iso()
    rows, in_scope, delta, status = ctx.out.graph, ctx.in_scope, ctx.delta, ctx.vec_status
    ctx.counts = {
        "files": len(rows.files),
        "nodes": len(rows.nodes) if in_scope is None else graph.open_count("node"),
        "edges": len(rows.edges) if in_scope is None else graph.open_count("edge"),
        "chunks": lex.chunk_count(ctx.rev_id),
        "vectors_reused": status.get("reused", 0),
        "vectors_computed": status.get("computed", 0),
        # rows shared with the parent revision, and what this one changed (ranges.Delta)
        "rows_kept": delta.kept,
        "rows_added": delta.added,
        "rows_closed": delta.closed,
        # scoped resolution: files whose rows were kept / were resolved and written again
        **{f"resolve_{k}": v for k, v in ctx.scope_counts.items()},
    }
    manifest.write(
        ctx.layout.rev_json,
        {
            "git_commit": gitinfo.head(ctx.layout.root),
            "rev_id": ctx.rev_id,
            "parent_rev": ctx.parent,
            "state": RevState.READY,
            "created_at": ctx.created,
            "sealed_at": sealed,
            "corpus_hash": ctx.scan.corpus_hash,
            "config_hash": ctx.cfg.config_hash,
            "extractors": registry.corpus_fingerprint(),
            # dataflow: the def-use layer of ragraf.lang.php.flow is in the revision (§6.4)
            "capability": ctx.capability,
            "joern_used": 0,
            "vectors": status,
            "counts": ctx.counts,
            "schema": {"source": ctx.schema.source, "incomplete": ctx.schema.incomplete},
            # the ledger's head when this revision was sealed (verify checks it is still there)
            "ledger_head": {
                "entry": list(control.ledger_head()),
                "ack": list(control.ack_head()),
            },
        },
    )
    failpoint("after-manifest")
    ctx.since = time.perf_counter()  # the seal is no stage of the timings: finish starts here


def _finish(ctx: BuildContext) -> IndexResult:
    """After the commit point: the history, the ledger's archive and retention
    (``finish_commit``), the resolve memo for the next build, planner statistics and
    checkpoints, the log line; the build's result. Reads memo, counts, out, schema,
    vec_status, pending, broken, timings."""
    from ragraf.indexing.resolve import link_memo

    cfg, stores, layout = ctx.cfg, ctx.stores, ctx.layout
    assert ctx.out is not None and ctx.schema is not None
    done = finish_commit(cfg, stores, manifest.require(layout.rev_json))
    if ctx.memo is not None:  # for the next build, written after the seal
        t_memo = time.perf_counter()
        link_memo.write(layout.index_dir / link_memo.MEMO_FILE, ctx.memo)
        ctx.timings["resolve_memo_save"] = time.perf_counter() - t_memo
    stores.graph.analyze()
    stores.graph.db.checkpoint()
    stores.lex.db.checkpoint()
    ctx.lap("finish")  # history, the ledger's archive, retention, planner statistics
    ctx.timings["total"] = ctx.timings["queryable"] = time.perf_counter() - ctx.t0
    from ragraf.logs import file_logger

    counts = ctx.counts
    file_logger("ragraf.index", layout.logs_dir, "index.log").info(
        "sealed %s parent=%s files=%d nodes=%d edges=%d chunks=%d vectors=%s reused_files=%d"
        " total=%.2fs",
        ctx.rev_id,
        ctx.parent,
        counts["files"],
        counts["nodes"],
        counts["edges"],
        counts["chunks"],
        ctx.vec_status.get("status"),
        ctx.reused_files,
        ctx.timings["total"],
    )
    return IndexResult(
        "built",
        ctx.rev_id,
        counts,
        {c.metric: c.value for c in ctx.out.graph.coverage if c.value is not None},
        ctx.timings,
        ctx.recovered,
        done.pruned,
        reused_files=ctx.reused_files,
        archive=done.archive,
        vectors=ctx.vec_status,
        schema={"source": ctx.schema.source, "incomplete": ctx.schema.incomplete},
        warnings=[w for w in (selection_warning(cfg, ctx.scan), ctx.broken) if w],
        pending=ctx.pending,
    )


#: graph + lexicon + vectors take about this many times the bytes of the corpus text
SPACE_FACTOR = 8
#: room for the files' fixed part (empty stores, WAL, rev.json, logs); the margin grows with
#: the corpus (an eighth of the estimate), so a small index is not refused
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
    ready = [r for r, s in stores.graph.revs() if s == RevState.READY and r != active]
    excess = max(0, len(ready) + 1 - keep)
    pruned = ready[:excess]
    if not pruned:
        return []
    from ragraf.store.ranges import rev_no

    oldest = min([*ready[excess:], active], key=rev_no)
    stores.lex.prune_before(oldest)
    stores.graph.prune_before(oldest, pruned)
    for rev_id in pruned:
        stores.control.set_state(rev_id, RevState.ARCHIVED, f"rows pruned by retain_revs={keep}")
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

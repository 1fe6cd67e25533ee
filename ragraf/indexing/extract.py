"""Extraction of a build: every parseable file through its language's extractor,
in worker processes, with the per-file facts cache.

Invariants a change must keep:
- A file's facts come from ``ragraf.lang.registry.extract`` alone; the result
  is the same in a worker and in the builder (nothing global is read).
- Results come back in the order of the input list, whatever order the
  workers finish in (the build is deterministic).
- Workers hold nothing the builder owns: a build's pool is forked before the scan
  reads the files (``parser_pool``), and each job sends (path, lang, text and the
  extraction's settings) through the worker's pipe.
- The cache is keyed by (sha256, ``registry.facts_key``): a cached entry is
  used only when everything the facts depend on is unchanged. Entries are
  data only (``ragraf.lang.codec``, JSON): a cache shipped inside a repository
  can never run code; a row that does not decode is re-extracted.
- Facts held lean (``facts_of(rows=)``, ``Facts``) are exactly ``facts.for_linking`` of
  the whole facts, and the row held beside them decodes to those whole facts
  (``codec.with_rest``); a file a ``prepare`` hook rewrites is always held whole.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ragraf.corpus import ScannedFile
from ragraf.kinds import ParseStatus
from ragraf.lang import codec, registry
from ragraf.lang.facts import (
    CallRef,
    Chunk,
    DispatchRef,
    FileFacts,
    HookRef,
    IncludeRef,
    OrmTableRef,
    Ref,
    SqlRef,
    TableForwardRef,
    TableParamRef,
    TablePrefixRef,
    TemplateRef,
    called_functions,
    for_linking,
    types_a_callable,
)
from ragraf.store.graph import GraphStore

if TYPE_CHECKING:
    from ragraf.workers import Pool

Progress = Callable[[str, int, int], None]

#: a file's facts, their cache row and (when asked for) the cache row of its interface
Extracted = tuple[FileFacts, bytes, bytes | None]
#: what a worker is sent for one file: path, language, text, max_lines, interfaces, lean
Job = tuple[str, str | None, str, int, bool, bool]


def _rows(facts: FileFacts, interfaces: bool, lean: bool = False) -> Extracted:
    iface = None
    hooked = _hooked(facts.lang)
    if interfaces and not hooked:
        iface = codec.encode(interface(facts))
    row = codec.encode(facts)
    if lean and not hooked:  # the rest is in the row: the builder decodes it when it writes
        facts = for_linking(facts)
    return facts, row, iface


def work(job: Job) -> Extracted:
    """A worker's job: the facts of one file and their cache rows, encoded here so the
    encoding runs in parallel instead of in the builder."""
    path, lang, text, max_lines, interfaces, lean = job
    return _rows(registry.extract(path, lang, text, max_lines), interfaces, lean)


def parser_pool(workers: int) -> Pool[Extracted]:
    """The parser workers of one build, not yet forked (``Pool.start`` forks them: before
    the scan reads the files, so that no worker maps their texts)."""
    from ragraf.workers import Pool  # multiprocessing: only when a build runs

    return Pool(work, workers)


@dataclasses.dataclass(frozen=True)
class Extraction:
    """How a build extracts its files' facts, the same for every file: the chunks' window
    (``max_lines``) and a file's time budget (``budget_s``, None: no limit) are part of a
    file's facts key (``registry.facts_key``); ``reuse``: cached facts are used; the
    others say where the work runs (``pool``: the build's forked workers, else
    ``workers`` processes forked when needed) and who hears of it (``progress``)."""

    max_lines: int
    budget_s: float | None = None
    reuse: bool = True
    workers: int = 1
    progress: Progress | None = None
    pool: Pool[Extracted] | None = None

    def facts_key(self, f: ScannedFile) -> str:
        """The key of ``f``'s facts in the cache beside its sha256."""
        return registry.facts_key(f.path, f.lang, self.max_lines, self.budget_s)


def extract_all(
    files: list[ScannedFile], how: Extraction, interfaces: bool = False, lean: bool = False
) -> list[Extracted]:
    """Facts of ``files`` in their order with their cache rows (with ``interfaces``, the
    rows of the interfaces of files no ``prepare`` hook rewrites too), extracted in
    ``how.pool`` (or ``how.workers`` processes forked now); a file whose extraction exceeds
    ``how.budget_s`` seconds is killed and recorded ``failed`` (and cached so: the same
    bytes under the same budget would only time out again). ``lean``: the facts of files
    no hook rewrites are what linking reads of them (``facts.for_linking``; the whole ones
    are in their rows)."""
    if not files:
        return []
    max_lines, budget_s, progress, pool = how.max_lines, how.budget_s, how.progress, how.pool
    jobs = [(f.path, f.lang, f.text or "") for f in files]
    total = len(jobs)
    # largest first: the long tail of a pool is its biggest file
    order = sorted(range(total), key=lambda i: -len(jobs[i][2]))

    def tick(done: int, total: int) -> None:
        if progress:
            progress("parse", done, total)

    def job(i: int) -> Job:
        return (*jobs[i], max_lines, interfaces, lean)

    from ragraf.lang.plain import line_count

    registry.warm({f.lang for f in files})  # before a fork: workers inherit it
    if pool is None:
        with parser_pool(how.workers) as own:
            outcomes = own.run(order, job, budget_s, tick)
    else:  # forked already, or now (as many workers as files, at most its size)
        outcomes = pool.run(order, job, budget_s, tick)
    out: list[Extracted] = []
    for i, (path, lang, text) in enumerate(jobs):
        got = outcomes[i]
        if got.timed_out or got.result is None:
            failed = FileFacts(
                path,
                lang,
                ParseStatus.FAILED,
                f"not indexed: extraction took longer than the {budget_s:g} s budget"
                " (index.file_time_budget_s)"
                if budget_s
                else "not indexed: the extraction process died",
                line_count(text),
            )
            out.append(_rows(failed, interfaces, lean))
        else:
            out.append(got.result)
    return out


def facts_of(
    files: list[ScannedFile],
    graph: GraphStore,
    how: Extraction,
    *,
    interfaces: dict[str, bytes] | None = None,
    rows: dict[str, bytes] | None = None,
) -> tuple[list[FileFacts], int]:
    """Facts of every file (cached ones reused when ``how.reuse``), and how many were reused.

    Freshly extracted facts are stored in the cache for the next build. ``interfaces``
    receives the interface rows of the fresh files no hook rewrites (made in the workers).
    With ``rows``, the facts of the files no hook rewrites are what linking reads of them
    (``facts.for_linking``) and ``rows`` receives their cache rows (path -> row), which
    hold the whole facts (``codec.decode``)."""
    keys = [(f.sha256, how.facts_key(f)) for f in files]
    lean = rows is not None
    cached: dict[tuple[str, str], FileFacts] = {}
    if how.reuse:
        paths = {(f.sha256, k): f for f, (_s, k) in zip(files, keys, strict=True)}
        for key, blob in graph.cached_facts(keys).items():
            f = paths[key]
            try:
                if lean and not _hooked(f.lang):
                    cached[key] = codec.decode_for_linking(blob)
                    codec.check_rest(blob)  # the rest must be there too, or the row is not one
                    assert rows is not None
                    rows[f.path] = blob
                else:
                    cached[key] = codec.decode(blob)
            except ValueError:
                continue  # not a row we wrote (or a damaged one): extract the file again
    todo = [f for f, k in zip(files, keys, strict=True) if k not in cached]
    fresh = dict(
        zip(
            (f.path for f in todo),
            extract_all(todo, how, interfaces is not None, lean),
            strict=True,
        )
    )
    if interfaces is not None:
        interfaces.update((p, x[2]) for p, x in fresh.items() if x[2] is not None)
    if rows is not None:
        rows.update((f.path, fresh[f.path][1]) for f in todo if not _hooked(f.lang))
    facts = [
        fresh[f.path][0] if f.path in fresh else cached[k] for f, k in zip(files, keys, strict=True)
    ]
    graph.store_facts(
        [
            (f.sha256, k[1], fresh[f.path][1])
            for f, k in zip(files, keys, strict=True)
            if f.path in fresh
        ]
    )
    return facts, len(files) - len(todo)


# -- interfaces: what a scoped build reads of the files it does not resolve again -----------
#: the extractor key of a file's interface in the facts cache (its facts key + this; the
#: number says which ``interface`` made it)
INTERFACE = "|interface4"
#: the references the corpus-wide tables are made of (``ragraf.indexing.resolve``: the
#: dispatchers and the include graph, which PHP's link modules collect, the table-name
#: conventions' prefixes, the ORM entities' tables (``SqlResolver.entity_tables``: DQL names
#: entities, the functions naming their SQL's table by a parameter, directly or
#: through a call); a hook's listens and runs, every ``HookRef``, are read by
#: ``ragraf.lang.php.link.hooks`` too, and the renders passing variables and includes of
#: templates, ``TemplateRef`` with ``vars`` or not ``render``, by
#: ``ragraf.lang.php.link.templates``)
_TABLE_REFS = (
    DispatchRef,
    IncludeRef,
    TablePrefixRef,
    OrmTableRef,
    TableParamRef,
    TableForwardRef,
)


def interface(f: FileFacts) -> FileFacts:
    """What the corpus-wide tables and the revision's totals read of a file: its facts
    without the references only its own resolution reads (CREATE TABLE strings stay), the
    texts but the docblocks that type a parameter ``callable``, the chunks' and flow
    units' contents (their number and kinds stay) and its local edges. Of its calls, the
    include graph reads only which functions the file calls by name or passes as a
    callback (``Calls.loading``: the files an include inside a function runs from): one
    call per set of candidates stays, without its text."""
    calls: dict[tuple[str, ...], Ref] = {}
    for r in f.refs:
        cands = called_functions(r)
        if cands is None:
            continue
        if cands not in calls:
            calls[cands] = CallRef(r.owner, r.line, cands, "")
    return dataclasses.replace(
        f,
        refs=[
            r
            for r in f.refs
            if isinstance(r, _TABLE_REFS)
            or isinstance(r, HookRef)
            or (isinstance(r, TemplateRef) and (bool(r.vars) or r.how != "render"))
            or (
                isinstance(r, SqlRef)
                and r.analysis is not None
                and r.analysis.operation == "create"
            )
        ]
        + list(calls.values()),
        texts=[t for t in f.texts if types_a_callable(t)],
        chunks=[
            Chunk(c.source_kind, c.node, c.start_line, c.end_line, "", "", "", "", "", "")
            for c in f.chunks
        ],
        flows=[u._replace(data="", sources="") for u in f.flows],
        edges=[],
    )


#: the fields of facts tuples that hold a line (``interface_shape`` leaves them out)
_LINE_FIELDS = frozenset({"line", "start_line", "end_line"})


def _without_lines(v: Any, moved: dict[str, str]) -> Any:
    """``v`` (reference data: NamedTuples, tuples, lists, dicts of them) with every line
    field set to 0 and every string that is a moved id renamed."""
    t = type(v)
    if t is str:
        return moved.get(v, v)
    fields = getattr(t, "_fields", None)
    if fields is not None:  # a NamedTuple of the facts
        return t(
            *(
                0 if name in _LINE_FIELDS else _without_lines(x, moved)
                for name, x in zip(fields, v, strict=True)
            )
        )
    if t is tuple or t is list:
        return t(_without_lines(x, moved) for x in v)
    if t is dict:
        return {_without_lines(k, moved): _without_lines(x, moved) for k, x in v.items()}
    return v


def interface_shape(f: FileFacts, moved: dict[str, str]) -> Any:
    """What the corpus-wide tables read of an interface (``interface``), without its line
    numbers and with the ``moved`` ids (old -> new) renamed: two interfaces of one file
    with the same shape give the tables the same entries but for those ids. No lookup
    reads a line (lines are only the evidence of a file's own links), and the chunks, flow
    units and stats an interface keeps are the revision's totals (``scoped``), which no
    lookup reads either; of its calls only the set of candidates counts (``interface``: the
    include graph reads which functions a file calls, not from where)."""
    return (
        f.path,
        f.lang,
        f.status,
        f.note,
        [
            (moved.get(n.node_id, n.node_id), n.kind, n.name, n.fqn, n.props, n.layer)
            for n in f.nodes
        ],
        _without_lines(f.edges, moved),
        [
            (
                c.node,
                c.fqn,
                c.kind,
                [a for a, _l in c.extends],
                [a for a, _l in c.implements],
                [a for a, _l in c.traits],
                c.methods,
                _without_lines(c.props, moved),
                c.consts,
                c.abstract,
            )
            for c in f.classes
        ],
        f.functions,
        _without_lines(f.returns, moved),
        _without_lines([r for r in f.refs if not isinstance(r, CallRef)], moved),
        # of the calls, the include graph reads which functions the file calls, not where
        sorted({_without_lines(r.candidates, moved) for r in f.refs if isinstance(r, CallRef)}),
        f.scope_nodes,
        _without_lines(f.global_assigns, moved),
        [(t.kind, t.raw, t.owner) for t in f.texts],
    )


#: the extractor key of the interface of a file a ``prepare`` hook rewrote, as the hook left
#: it (its facts key + this). One row per file, replaced when the hooks saw something else:
#: the row is the digest of what they saw (``scope.hook_context``), ``:``, the encoded facts.
PREPARED = "|prepared-interface"


def _prepared_row(ctx: str, f: FileFacts) -> bytes:
    return ctx.encode("ascii") + b":" + codec.encode(f)


def _prepared_facts(ctx: str, blob: bytes) -> FileFacts | None:
    """The prepared interface in a row, if the hooks saw ``ctx`` (else None)."""
    head, sep, body = blob.partition(b":")
    if not sep or head != ctx.encode("ascii"):
        return None
    return codec.decode_for_linking(body)  # an interface is all linking reads of it


_F = TypeVar("_F", bound=Callable[..., Any])


def _long_lived(fn: _F) -> _F:
    """The facts a call decodes live until the build lets them go: the cyclic collector
    pauses while they are made and they are frozen after (``gc.freeze``: later collections
    skip them), as the parse stage's are (``ragraf.indexing.indexer._long_lived_heap``)."""

    @functools.wraps(fn)
    def paused(*args: Any, **kw: Any) -> Any:
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kw)
        finally:
            if was:
                gc.freeze()
                gc.enable()

    return paused  # type: ignore[return-value]


class Facts:
    """The facts of a scoped build: every file's interface (``interface``), except the
    ones extracted now, which are held as linking reads them (``facts.for_linking``) with
    their cache rows (``rows``); ``for_linking`` and ``full`` put what linking reads, or
    the whole facts, of more files in their place, and ``contents`` gives the whole facts
    one file at a time without keeping them (the content rows are made of those). The
    facts are handed to resolution prepared (``registry.prepare`` has run; ``resolve``'s
    ``prepared``).

    The files a ``prepare`` hook rewrites are read whole and prepared here, unless nothing
    any hook reads changed since a build stored their prepared interfaces (same keys of
    every hooked file: ``scope.hook_context``): then those are used and no hook runs (on
    phpMyAdmin: 157 JavaScript files not decoded, linked again or rewritten per reindex).
    Only hooks that read no other file's nodes take that path (the tags-level hook reads
    which paths have nodes, which the keys alone do not say)."""

    def __init__(self, files: list[ScannedFile], graph: GraphStore, how: Extraction) -> None:
        from ragraf.indexing.resolve.link_memo import hook_context

        self.files, self.graph, self.how = files, graph, how
        self.whole: set[str] = set()
        #: the files whose facts are what linking reads of them (``for_linking``)
        self.linked: set[str] = set()
        keys = [(f.sha256, how.facts_key(f)) for f in files]
        #: path -> the key of its facts row
        self.keys = {f.path: k for f, k in zip(files, keys, strict=True)}
        hooked = [_hooked(f.lang) for f in files]
        self.hooked = {f.path for f, h in zip(files, hooked, strict=True) if h}
        found: dict[tuple[str, str], FileFacts] = {}
        for (sha, key), blob in graph.cached_facts(
            [(sha, k + INTERFACE) for (sha, k), h in zip(keys, hooked, strict=True) if not h]
        ).items():
            try:
                # an interface holds nothing linking does not read: the row's first part
                found[(sha, key[: -len(INTERFACE)])] = codec.decode_for_linking(blob)
            except ValueError:
                continue
        # the hooked files: their prepared interfaces when every one is there
        ctx = None
        if self.hooked and not any(_reads_nodes(f.lang) for f in files if f.path in self.hooked):
            by_path = {f.path: f"{sha}|{k}" for f, (sha, k) in zip(files, keys, strict=True)}
            ctx = hook_context(files, by_path, None)
        self.skipped_hooks = False
        if ctx is not None:
            want = [(sha, k + PREPARED) for (sha, k), h in zip(keys, hooked, strict=True) if h]
            got_prep: dict[tuple[str, str], FileFacts] = {}
            for (sha, key), blob in graph.cached_facts(want).items():
                try:
                    prepared = _prepared_facts(ctx, blob)
                except ValueError:
                    continue
                if prepared is not None:
                    got_prep[(sha, key[: -len(PREPARED)])] = prepared
            if len(got_prep) == len(want):
                found.update(got_prep)
                self.skipped_hooks = True
        need = [f for f, k in zip(files, keys, strict=True) if k not in found]
        made: dict[str, bytes] = {}  # the interface rows the workers made
        #: the rows of the files whose facts are what linking reads (their whole facts)
        self.rows: dict[str, bytes] = {}
        got, self.reused = facts_of(need, graph, how, interfaces=made, rows=self.rows)
        whole = dict(zip((f.path for f in need), got, strict=True))
        self.whole = {p for p in whole if p not in self.rows}
        self.linked = set(self.rows)
        graph.store_facts(
            [
                (
                    f.sha256,
                    k[1] + INTERFACE,
                    made.get(f.path) or codec.encode(interface(whole[f.path])),
                )
                for f, k, h in zip(files, keys, hooked, strict=True)
                if f.path in whole and not h
            ]
        )
        self.reused += len(files) - len(need)
        self.facts = [whole.get(f.path) or found[k] for f, k in zip(files, keys, strict=True)]
        if self.hooked and not self.skipped_hooks:
            self.facts = registry.prepare(self.facts)
            if ctx is not None:
                graph.store_facts(
                    [
                        (f.sha256, k[1] + PREPARED, _prepared_row(ctx, interface(got_f)))
                        for f, k, got_f in zip(files, keys, self.facts, strict=True)
                        if f.path in self.hooked
                    ],
                    replace=True,
                )

    @_long_lived
    def full(self, paths: set[str] | None) -> list[FileFacts]:
        """The facts with these files' (None: every file's) whole ones in place, prepared."""
        todo = [f for f in self.files if (paths is None or f.path in paths)]
        todo = [f for f in todo if f.path not in self.whole]
        if self.skipped_hooks and any(f.path in self.hooked for f in todo):
            # a hooked file is wanted whole: the hook runs again over all its files, whole
            hooked = [f for f in self.files if f.path in self.hooked and f.path not in self.whole]
            got, _n = facts_of(hooked, self.graph, self.how)
            whole = dict(zip((f.path for f in hooked), got, strict=True))
            prepared = registry.prepare(
                [whole.get(f.path, x) for f, x in zip(self.files, self.facts, strict=True)]
            )
            self.facts = [
                p if f.path in whole else x
                for f, x, p in zip(self.files, self.facts, prepared, strict=True)
            ]
            self.whole |= set(whole)
            self.skipped_hooks = False
            todo = [f for f in todo if f.path not in self.whole]
        if todo:
            whole = {}
            for f in todo:
                got_f = self._from_row(f.path)
                if got_f is not None:
                    whole[f.path] = got_f
            rest = [f for f in todo if f.path not in whole]
            if rest:
                got, _n = facts_of(rest, self.graph, self.how)
                whole.update(zip((f.path for f in rest), got, strict=True))
            self.whole |= set(whole)
            self.facts = [whole.get(f.path, f) for f in self.facts]
        self.linked -= self.whole
        return self.facts

    def _from_row(self, path: str) -> FileFacts | None:
        blob = self.rows.pop(path, None)
        if blob is None:
            return None
        try:
            return codec.decode(blob)
        except ValueError:
            return None

    def contents(self, paths: set[str] | None) -> Iterator[FileFacts]:
        """The whole facts of these files (None: every file), in file order, one at a time
        and not kept: those held whole, the others decoded from their rows (the row held
        since extraction, dropped once read, else the cached one)."""
        for held in list(self.facts):
            path = held.path
            if paths is not None and path not in paths:
                continue
            if path not in self.linked:
                yield held
                continue
            blob = self.rows.pop(path, None)
            if blob is None:
                key = self.keys[path]
                blob = self.graph.cached_facts([key]).get(key)
                if blob is None:
                    raise ValueError(f"{path}: its facts left the extraction cache mid-build")
            yield codec.with_rest(blob, held)

    @_long_lived
    def for_linking(self, paths: set[str]) -> list[FileFacts]:
        """The facts with, for these files, what linking reads of theirs in place
        (``facts.for_linking``, the first part of their cached rows: a scoped build links
        again files whose content did not change, and writes only their links). A file
        whose row does not decode, or that a ``prepare`` hook rewrites, is read whole."""
        todo = [f for f in self.files if f.path in paths and f.path not in self.whole]
        hooked = {f.path for f in todo if f.path in self.hooked}
        todo = [f for f in todo if f.path not in hooked and f.path not in self.linked]
        keys = [self.keys[f.path] for f in todo]
        got: dict[str, FileFacts] = {}
        rows = self.graph.cached_facts(keys)
        for f, k in zip(todo, keys, strict=True):
            blob = rows.get(k)
            if blob is None:
                continue
            try:
                got[f.path] = codec.decode_for_linking(blob)
            except ValueError:
                continue
        self.linked |= set(got)
        self.facts = [got.get(f.path, f) for f in self.facts]
        whole = hooked | {f.path for f in todo if f.path not in got}
        return self.full(whole) if whole else self.facts


def _reads_nodes(lang: str | None) -> bool:
    got = registry.get(lang)
    return got is not None and got.prepare == registry.TAGS_EXTRACTOR


def _hooked(lang: str | None) -> bool:
    got = registry.get(lang)
    return got is not None and got.prepare is not None

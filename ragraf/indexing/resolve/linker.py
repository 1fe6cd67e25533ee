"""The linker: every file's references -> edges with evidence, file by file, and the run
that makes a scoped build reuse the files whose questions still have their answers.

The resolver's own handlers cover calls, ``new``, class constants, dynamic calls, uses by
name, routes, imports, doc links and names, SQL strings; and class edges (extends /
implements / traits / overrides). The reference types only a language produces are
handled by that language's link modules (``Language.link``, ``ragraf.lang.linking``),
registered here: this module names no language's module.

Invariants: see ``ragraf.indexing.resolve``. Every handler takes the file, the
owner's node id and the reference, and adds edges (and nodes) with the
reference's line as evidence (``Context``); call handlers count the outcome in stats.
A reference type has one handler (``_register`` refuses a second).
"""

from __future__ import annotations

import importlib
import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragraf import ids
from ragraf.indexing.resolve import link_memo, reach
from ragraf.indexing.resolve.context import Context
from ragraf.indexing.resolve.edges import SOURCES_TS, EdgeSpec
from ragraf.indexing.resolve.sqlrefs import SqlResolver
from ragraf.indexing.resolve.symbols import SymbolTable, bare_method
from ragraf.indexing.resolve.tablenames import QueryBuilders
from ragraf.kinds import (
    CALLABLE,
    CLASS_EXTENSION,
    CLASS_LIKE,
    RANK_EDGES,
    CallKind,
    EdgeKind,
    Layer,
    NodeKind,
    Unresolved,
)
from ragraf.lang import registry
from ragraf.lang.facts import (
    BuilderCallRef,
    CallRef,
    ClassConstRef,
    ClassDecl,
    DocLinkRef,
    DocNameRef,
    DynamicCallRef,
    FileFacts,
    ImportRef,
    MethodCallRef,
    NameRef,
    NewRef,
    OrmTableRef,
    RouteRef,
    SqlRef,
    StaticCallRef,
    TablePrefixRef,
    TypeDesc,
    called_functions,
)
from ragraf.lang.linking import Collect, Handler, Includes, Linking
from ragraf.model import EdgeRow, NodeRow, RankRow, RouteRow, UnresolvedRow
from ragraf.rank import kcore

_EXTERNAL = EdgeSpec(props={"external": True})
_USE_FUNCTION = EdgeSpec(props={"use": "function"})
_USE_MODULE = EdgeSpec(props={"use": "module"})


#: the symbol table's lookups a handler may make (``link_memo.Lookups``)
_TABLE_LOOKUPS = (
    "function_ids",
    "has_function_named",
    "has_class",
    "is_guarded",
    "file_id",
    "in_corpus",
    "doc_targets",
    "methods_named",
    "class_ids",
    "find_method",
    "types",
    "external_root",
    "display",
    "lookup_method",
    "external_ancestor",
    "find_const",
    "methods_of",
    "takes_callable",
    "const_value",
)


def _register(table: dict[type, Any], more: Mapping[type, Any], module: str) -> None:
    """Add a link module's entries (by reference type) to ``table``: one of each type."""
    for ty, fn in more.items():
        if ty in table:
            raise RuntimeError(f"{module}: {ty.__name__} has a handler already")
        table[ty] = fn


@dataclass
class Resolved:
    nodes: list[NodeRow]
    edges: list[EdgeRow]
    stats: dict[str, int]
    routes: list[RouteRow]
    shells: list[RankRow]
    unresolved: list[UnresolvedRow] = field(default_factory=list)
    #: the memo of a scoped run (``scope``), and how many files it reused / resolved
    memo: link_memo.Memo | None = None
    scope: dict[str, int] = field(default_factory=dict)
    #: a run of some files only (``Linker.run``): their paths (None: every file), the
    #: nodes without a path every file links to, and per lower table name the first
    #: (not a CREATE, path, line, spelling) of a SQL string of any file naming it, the
    #: files naming it, and the (path, line, owner fqn, table, statement) of every DDL
    #: statement of SQL strings (what ``ragraf.indexing.schema.add_code_tables`` reads)
    scope_paths: set[str] | None = None
    #: of a run of some files: old id -> new id of the declarations that only moved, and
    #: the files outside ``scope_paths`` whose rows are the old ones with those ids renamed
    moved: dict[str, str] = field(default_factory=dict)
    renamed: set[str] = field(default_factory=set)
    pathless: set[str] = field(default_factory=set)
    named: dict[str, tuple[bool, str, int, str]] = field(default_factory=dict)
    uses: dict[str, set[str]] = field(default_factory=dict)
    ddl: list[tuple[str, int, str, str, str]] = field(default_factory=list)


#: {path: (memo key, key now)} of changed files -> whether the corpus-wide tables read the
#: same of each (``Linker.stale``)
SameTables = Callable[[dict[str, tuple[str, str]]], bool]
#: ({path: (memo key, key now)} of changed files, old id -> new id of the moved
#: declarations) -> whether the tables read the same of each but for those ids
SameShape = Callable[[dict[str, tuple[str, str]], dict[str, str]], bool]
#: paths -> (node_id, kind, fqn, path) of their nodes in the memo's revision
OldNodes = Callable[[set[str]], list[tuple[str, str, str | None, str | None]]]
NodeKey = tuple[str, str | None, str | None]


def moved_ids(
    old: Iterable[tuple[str, str, str | None, str | None]],
    new: Iterable[tuple[str, str, str | None, str | None]],
) -> dict[str, str]:
    """Old id -> new id of the declarations that only moved: the same kind, fqn and path
    among the ``old`` and the ``new`` (node_id, kind, fqn, path), each the only one of its
    key on both sides, under another id (another start line)."""

    def unique(rows: Iterable[tuple[str, str, str | None, str | None]]) -> dict[NodeKey, str]:
        seen: dict[NodeKey, str | None] = {}
        for nid, kind, fqn, path in rows:
            key = (str(kind), fqn, path)
            seen[key] = None if key in seen else nid
        return {k: v for k, v in seen.items() if v is not None}

    was, now = unique(old), unique(new)
    return {a: b for key, a in was.items() if (b := now.get(key)) is not None and a != b}


class Linker:
    def __init__(
        self,
        files: list[FileFacts],
        conf: dict[str, float],
        max_candidates: int = 5,
        tables: dict[str, str] | None = None,
        prefixes: dict[str, str] | None = None,
        max_ambiguous: int = 50,
        code_tables: bool = False,
        table_helpers: tuple[str, ...] = (),
        query_builders: QueryBuilders | None = None,
        memo: link_memo.Memo | None = None,
        keys: dict[str, str] | None = None,
        params: str = "",
        old_nodes: OldNodes | None = None,
    ) -> None:
        """``keys`` (path -> the key of its facts) makes the run scoped (``scope``): it
        records what each file asks and reuses the outputs ``memo`` has for a file whose
        key and answers are the same; ``memo_out`` is then this run's memo. ``old_nodes``
        (paths -> their nodes in the memo's revision) lets ``stale`` tell a file whose
        answers changed only by the ids of declarations that moved (``renamed``)."""
        self.files = files
        self.conf = conf
        self.max_candidates = max_candidates
        self.max_ambiguous = max(max_ambiguous, max_candidates)
        self.memo = memo
        self.keys = keys
        self.params = params
        self.memo_out: link_memo.Memo | None = None
        self._hook_context: dict[bool, str] = {}  # tags-level or not -> hook_context
        #: files resolved and reused by the run (not stats: those are rows of the revision)
        self.scope_counts: dict[str, int] = {}
        self.questions_checked = 0  # recorded questions asked again by ``stale``
        self.changed: set[str] = set()  # what ``stale`` found changed in content
        self.old_nodes = old_nodes
        #: old id -> new id of the declarations of changed files that only moved, and the
        #: files ``stale`` left out for answers changed by those ids alone (their rows are
        #: the old ones renamed), each with its questions as ``link_memo.MemoWriter.add`` takes
        self.moved: dict[str, str] = {}
        self.renamed: dict[str, list[int | tuple[str, Any, Any]]] = {}
        self._loading: reach.Loading | None = None
        self._by_name: dict[tuple[str, str, str], list[str]] | None = None
        #: what the handlers share: parameters, lookups, the file at hand's output
        ctx = self.ctx = Context(conf, max_candidates, max_ambiguous, record=keys is not None)
        #: every corpus-wide lookup of a handler (recorded per file when scoped)
        self.sym = ctx.sym
        self.handlers: dict[type, Handler] = {
            CallRef: self.on_call,
            MethodCallRef: self.on_method_call,
            StaticCallRef: self.on_static_call,
            NewRef: self.on_new,
            ClassConstRef: self.on_class_const,
            DynamicCallRef: self.on_dynamic_call,
            RouteRef: self.on_route,
            ImportRef: self.on_import,
            NameRef: self.on_name,
            DocLinkRef: self.on_doc_link,
            DocNameRef: self.on_doc_name,
        }
        #: SQL in strings and ORM mappings, whichever language's
        sql = SqlResolver(
            ctx,
            files,
            tables or {},
            prefixes or {},
            code_tables,
            table_helpers,
            query_builders or QueryBuilders(),
        )
        self.handlers |= {
            SqlRef: sql.on_sql,
            BuilderCallRef: sql.on_builder_candidate,
            TablePrefixRef: sql.on_table_prefix,
            OrmTableRef: sql.on_orm_table,
        }
        collect: dict[type, Collect] = {OrmTableRef: sql.collect}
        spellings: dict[str, str] = {}
        #: the languages' include graphs, and what runs once a file's references are linked
        self.includes: list[Includes] = []
        self.finishes: list[Callable[[FileFacts], None]] = []
        for module in registry.link_modules():  # the languages' own reference types
            part: Linking = importlib.import_module(module).linking(ctx)
            _register(self.handlers, part.handlers, module)
            _register(collect, part.collect, module)
            spellings.update(part.spellings)
            if part.includes is not None:
                self.includes.append(part.includes)
            if part.finish is not None:
                self.finishes.append(part.finish)
        self.symtab = ctx.symtab = SymbolTable(files, collect, spellings)
        t = self.symtab
        for name in _TABLE_LOOKUPS:
            self.sym.add(name, getattr(t, name))
        self.sym.add("reachable", self._reachable)
        self.sym.add("by_name", self._by_name_of)
        #: the corpus paths as a digest: the memo's answers to the lookups that read the
        #: paths alone stand while it is the same (``Context.remembered``)
        self.paths_key = link_memo.paths_key(t.paths) if keys is not None else ""
        if memo is not None and memo.paths == self.paths_key:
            ctx.memo = memo

    # -- the run ------------------------------------------------------------------
    def stale(
        self, same_tables: SameTables | None = None, same_shape: SameShape | None = None
    ) -> set[str] | None:
        """With a memo of the previous build: the paths whose memo entry cannot stand for
        this build (no entry, another key, some recorded lookup answers differently now)
        and those of the memo's files that are gone; None without a memo.

        ``same_tables`` ({path: (memo key, key now)} of the changed files -> whether the
        corpus-wide tables read the same of them): when it says so for every changed file,
        no file is gone or new and the paths are the memo's, every recorded question has
        the answer it had (the tables are a function of what they read of each file), so
        none is asked again and the changed files alone are stale.

        ``same_shape`` (the same, but for the ids of declarations that moved, ``moved``):
        when it says so, the tables are the old ones with those ids renamed, so only the
        questions that name a moved id are asked again (``Checker.still_renamed``); the
        others have the answers they had.

        After it, ``changed``: the stale paths whose content is another (no entry, another
        key, gone); the others are stale for their answers alone."""
        if self.memo is None or self.keys is None:
            return None
        out: set[str] = set()
        changed: dict[str, tuple[str, str]] = {}
        kept: list[link_memo.Entry] = []
        for f in self.files:
            key = self._memo_key(f)
            e = self.memo.files.get(f.path)
            if key is None or e is None or e.key != key:
                out.add(f.path)
                if key is not None and e is not None:
                    changed[f.path] = (e.key, key)
            else:
                kept.append(e)
        gone = set(self.memo.files) - {f.path for f in self.files}
        self.changed = out | gone
        self.questions_checked = 0
        # only changed files, none gone or new, the same paths: the tables differ by what
        # they read of the changed files alone
        comparable = bool(
            out and not gone and len(changed) == len(out) and self.memo.paths == self.paths_key
        )
        if comparable and same_tables is not None and same_tables(changed):
            return out
        check = link_memo.Checker(self.memo, self.sym)
        moved = self.moved = self._moved(changed) if changed else {}
        self.renamed = {}
        # the tables but for the moved ids as they were: a question naming none stands
        only_moved = bool(
            comparable and moved and same_shape is not None and same_shape(changed, moved)
        )
        naming = check.naming(moved) if only_moved else set()  # the questions to ask
        for f, e in zip([f for f in self.files if f.path not in out], kept, strict=True):
            if only_moved and naming.isdisjoint(e.asked):
                continue  # every answer stands
            again = False
            for i in e.asked:
                if only_moved and i not in naming:
                    continue
                if check.still(i):
                    continue
                if not (moved and check.still_renamed(i, moved)):
                    out.add(f.path)
                    break
                again = True
            else:
                if again:
                    self.renamed[f.path] = [
                        got if (got := check.renamed.get(i)) is not None else i for i in e.asked
                    ]
        self.questions_checked = len(check.ok)
        return out | gone

    def _moved(self, changed: dict[str, tuple[str, str]]) -> dict[str, str]:
        """Old id -> new id of the declarations of the ``changed`` files (same kind, fqn
        and path, each the only one of its key) under another id (another start line)."""
        if self.old_nodes is None:
            return {}
        now = [
            (n.node_id, n.kind, n.fqn, f.path)
            for f in self.files
            if f.path in changed
            for n in f.nodes
        ]
        return moved_ids(self.old_nodes(set(changed)), now)

    def release(self) -> None:
        """Let go of everything linking held (the symbol table, the lookups, the edges
        made), once ``run``'s result is taken. Its lookups refer back to it, so without
        this the whole of it stays until a collection, and a build keeps the collector
        paused to its end: MediaWiki's rows and writes stood on ~40-60 MB of it."""
        self.sym.close()
        self.__dict__.clear()

    def run(self, only: set[str] | None = None) -> Resolved:
        """Resolve every file, or with ``only`` (a subset ``stale`` left out nothing of)
        those files: the others' shares come from the memo and the result holds the rows
        of ``only`` alone (the others' stay in the stores), but the stats, the nodes
        without a path and the tables named of all; its shells are then for the caller to
        compute (over the stored edges too)."""
        # each file's questions go into the memo as soon as it is resolved (a question many
        # files asked is kept once; MediaWiki's per-file logs held ~200 MB until the end)
        memo = link_memo.MemoWriter(self.params, self.memo) if self.keys is not None else None
        every: list[tuple[str, link_memo.FileOut]] = []
        outs: list[link_memo.FileOut] = []  # the shares whose rows are in the result
        reused = 0
        for f in self.files:
            key = self._memo_key(f)
            if only is not None and f.path not in only and self.memo is not None:
                kept = self.memo.files[f.path]
                if key is not None and memo is not None:
                    memo.add(f.path, key, self.renamed.get(f.path) or kept.asked, kept.out)
                every.append((f.path, kept.out))
                reused += 1 if f.nodes else 0
                continue
            if not f.nodes:
                if key is not None and memo is not None:
                    memo.add(f.path, key, {}, link_memo.FileOut())
                continue
            log: dict[link_memo.Query, Any] | None = {} if key is not None else None
            out = self.resolve_file(f, log)
            outs.append(out)
            every.append((f.path, out))
            if key is not None and log is not None and memo is not None:
                memo.add(f.path, key, log, out.summarize())
        if memo is not None:
            self.memo_out = memo.memo
            self.memo_out.paths = self.paths_key
            renamed = set(self.renamed) - (only or set())
            self.scope_counts = {
                "files_reused": reused - len(renamed),
                "files_resolved": len(outs),
                "files_renamed": len(renamed),
                "questions_checked": self.questions_checked,
            }
        # the files' shares, merged as one EdgeSet would have them (an edge's evidence is
        # in the file that made it, so no two files make the same edge_uid)
        edges: dict[str, EdgeRow] = {}
        nodes: dict[str, NodeRow] = {}
        routes: list[RouteRow] = []
        unresolved: list[UnresolvedRow] = []
        st: dict[str, int] = defaultdict(int)
        for o in outs:
            for edge in o.edges:
                old = edges.get(edge.edge_uid)
                if old is None or edge.confidence > old.confidence:
                    edges[edge.edge_uid] = edge
            for n in o.nodes:
                nodes[n.node_id] = n
            routes += o.routes
            unresolved += o.unresolved
        pathless: set[str] = set()
        named: dict[str, tuple[bool, str, int, str]] = {}
        uses: dict[str, set[str]] = defaultdict(set)
        ddl: list[tuple[str, int, str, str, str]] = []
        for path, o in every:
            for k, v in o.stats.items():
                st[k] += v
            pathless.update(o.pathless)
            for low, (later, line, spelling) in o.named.items():
                at = (later, path, line, spelling)
                if low not in named or at < named[low]:
                    named[low] = at
                uses[low].add(path)
            ddl += [(path, *d) for d in o.ddl]
        classes, functions = self.symtab.classes, self.symtab.functions
        st["conflict.duplicate_class"] = sum(
            1 for v in classes.values() if sum(c.decl.kind != CLASS_EXTENSION for c in v) > 1
        )
        st["conflict.duplicate_function"] = sum(1 for v in functions.values() if len(v) > 1)
        sorted_edges = [edges[k] for k in sorted(edges)]
        return Resolved(
            [nodes[k] for k in sorted(nodes)],
            sorted_edges,
            dict(st),
            sorted(routes),
            self.shells(sorted_edges) if only is None else [],
            sorted(set(unresolved)),
            scope_paths=only,
            moved=self.moved if only is not None else {},
            renamed=set(self.renamed) - only if only is not None else set(),
            pathless=pathless,
            named=named,
            uses=dict(uses),
            ddl=ddl,
        )

    def _memo_key(self, f: FileFacts) -> str | None:
        """The memo key of a file's facts as the linker takes them (None: not scoped, or
        no key known for it): a file a ``prepare`` hook rewrote adds what the hooks saw
        (``link_memo.hook_context``)."""
        if self.keys is None:
            return None
        key = self.keys.get(f.path)
        if key is None:
            return None
        lang = registry.get(f.lang)
        if lang is not None and lang.prepare is not None:
            tags = lang.prepare == registry.TAGS_EXTRACTOR  # its hook reads the paths too
            got = self._hook_context.get(tags)
            if got is None:
                got = self._hook_context[tags] = link_memo.hook_context(
                    self.files, self.keys, f.lang
                )
            key += ":" + got
        return key

    def resolve_file(
        self, f: FileFacts, log: dict[link_memo.Query, Any] | None
    ) -> link_memo.FileOut:
        """Link one file's references: its share of the result (``log`` collects the
        corpus-wide lookups it made)."""
        ctx = self.ctx
        ctx.start()
        self.sym.log = log
        try:
            lang = registry.get(f.lang)
            sources = json.dumps(list(lang.sources)) if lang else SOURCES_TS
            spec = EdgeSpec(sources=sources)
            for e in f.edges:
                ctx.add(e.src, e.dst, e.kind, f.path, e.line, spec)
            for cd in f.classes:
                self.class_edges(f, cd)
            before = self._call_counts()
            handlers = self.handlers
            for ref in f.refs:
                handlers[type(ref)](f, f.node_id(ref.owner), ref)
            for finish in self.finishes:
                finish(f)
            self._count_lang(f.lang, before)  # coverage lang.<name>.calls.*
        finally:
            self.sym.log = None
        return link_memo.FileOut(
            list(ctx.out.edges.values()),
            list(ctx.out.extra_nodes.values()),
            ctx.routes,
            ctx.unresolved,
            dict(ctx.stats),
        )

    def _call_counts(self) -> dict[str, int]:
        return {k: v for k, v in self.ctx.stats.items() if k.startswith("calls_")}

    def _count_lang(self, lang: str | None, before: dict[str, int]) -> None:
        for k, v in self._call_counts().items():
            d = v - before.get(k, 0)
            if d:
                self.ctx.stats[f"lang.{lang or 'plain'}.calls.{k[len('calls_') :]}"] += d

    def shells(self, edges: list[EdgeRow]) -> list[RankRow]:
        """k-core shell of every symbol in the undirected graph of code links."""
        return shells_of((e.src, e.dst) for e in edges if e.kind in RANK_EDGES)

    def _count(self, outcome: str) -> None:
        """One call's outcome: stated, derived, external (a builtin or vendor callee) or
        unresolved_<reason>."""
        self.ctx.stats[f"calls_{outcome}"] += 1

    def _unresolved(
        self,
        name: str,
        kind: str,
        src: str,
        path: str,
        line: int,
        reason: Unresolved,
        detail: str | None = None,
    ) -> str:
        """Keep a call site no declaration was attached to, when some corpus declaration
        has its name (an answer about that declaration lists it); returns the outcome."""
        low = name.lower()
        known = (
            self.sym.has_function_named(low)
            if kind == CallKind.FUNCTION
            else bool(self.sym.methods_named(low, path))
        )
        if known:
            self.ctx.unresolved.append(UnresolvedRow(low, kind, src, path, line, reason, detail))
        return "external" if reason == Unresolved.EXTERNAL_TYPE else f"unresolved_{reason}"

    # -- class edges ------------------------------------------------------------------
    def class_edges(self, f: FileFacts, cd: ClassDecl) -> None:
        src = f.node_id(cd.node)
        for rel, items, ext_kind in (
            (
                EdgeKind.EXTENDS,
                cd.extends,
                NodeKind.INTERFACE if cd.kind == NodeKind.INTERFACE else NodeKind.CLASS,
            ),
            (EdgeKind.IMPLEMENTS, cd.implements, NodeKind.INTERFACE),
            (EdgeKind.USES_TRAIT, cd.traits, NodeKind.TRAIT),
        ):
            for fqn, line in items:
                targets = self.sym.class_ids(fqn)
                if not targets:
                    ext = self.ctx.out.external(ext_kind, fqn)
                    self.ctx.add(src, ext, rel, f.path, line, _EXTERNAL)
                elif len(targets) == 1:
                    self.ctx.add(src, targets[0], rel, f.path, line)
                else:
                    props = {"via": "duplicate-class", "candidates": len(targets)}
                    spec = EdgeSpec(self.conf["heuristic_ambiguous"], True, props)
                    for t in targets:
                        self.ctx.add(src, t, rel, f.path, line, spec)
        # overrides: a method redeclared from a parent, a trait or an interface
        lang = registry.get(f.lang)
        ctor = lang.constructor if lang else "__construct"
        # a language with overloads keys each method by its arity too (``name(N)``): those
        # keys decide which declaration a redeclaration overrides, and constructors
        # (``<init>(N)``) override nothing
        by_arity = {k.split("(", 1)[0] for k in cd.methods if k.endswith(")")}
        for mname, idx in cd.methods.items():
            if mname == ctor or mname.startswith(ctor + "("):
                continue
            if not mname.endswith(")") and (
                "(" in mname or mname in by_arity or mname.lower() in by_arity
            ):
                continue
            for p, _l in (*cd.extends, *cd.implements):
                found = self.sym.find_method(p.lower(), mname)
                if len(found) == 1:
                    node = f.nodes[idx]
                    self.ctx.add(
                        node.node_id, found[0], EdgeKind.OVERRIDES, f.path, node.start_line
                    )
                    break

    # -- calls ------------------------------------------------------------------------
    def on_call(self, f: FileFacts, src: str, ref: CallRef) -> None:
        st = self.ctx.stats
        st["calls_total"] += 1
        for cand in ref.candidates:
            fids = self.sym.function_ids(cand.lower())
            if fids:
                if len(fids) == 1:
                    self.ctx.add(src, fids[0], EdgeKind.CALLS, f.path, ref.line)
                    st["calls_stated"] += 1
                else:
                    st[f"calls_{self.duplicate_call(f.path, src, ref.line, fids)}"] += 1
                return
        st["calls_unresolved_function"] += 1

    def duplicate_call(self, path: str, src: str, line: int, fids: list[str]) -> str:
        """A call of a function declared more than once: the declarations the include graph
        lets the caller's file reach (``reach.Loading``), the ones guarded by
        ``if (!function_exists(...))`` set aside while an unguarded one remains (PHP skips a
        fallback when the name is already declared). One left: stated, with how it was
        chosen; several: derived ``duplicate-function`` with the reason. Returns the outcome."""
        found, why = self.sym.reachable(path, tuple(fids))
        unguarded = [fid for fid in found if not self.sym.is_guarded(fid)]
        fallbacks = len(found) - len(unguarded) if unguarded else 0
        if unguarded:
            found = unguarded
        if len(found) == 1:
            props: dict[str, Any] = {"declarations": len(fids), "chosen_by": why}
            if fallbacks:
                props["fallbacks_skipped"] = fallbacks
            self.ctx.add(src, found[0], EdgeKind.CALLS, path, line, EdgeSpec(props=props))
            return "stated"
        dprops = {"via": "duplicate-function", "candidates": len(found), "why": why}
        if len(found) < len(fids):
            dprops["declarations"] = len(fids)
        spec = EdgeSpec(self.conf["heuristic_ambiguous"], True, dprops)
        for t in found:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, path, line, spec)
        return "derived"

    @property
    def loading(self) -> reach.Loading:
        """The include graph (``reach.Loading``), built on first use, once per build, of
        what the languages' includes load (``ragraf.lang.linking.Linking.includes``) given
        the files that call each function by name or pass it as a callback: an include
        inside a function runs where the function is called."""
        if self._loading is None:
            sym = self.symtab
            log, self.sym.log = self.sym.log, None  # the whole corpus, no file's question
            callers: dict[str, set[str]] = defaultdict(set)
            for f in self.files:
                for ref in f.refs:
                    cands = called_functions(ref)
                    if cands is None:
                        continue
                    for c in cands:
                        if c.lower() in sym.functions:
                            callers[c.lower()].add(f.path)
                            break
            edges: list[tuple[str, str, bool]] = []
            open_files: set[str] = set()
            for graph in self.includes:  # what the languages' includes load
                got = graph(callers)
                edges += got.edges
                open_files |= got.open
            self._loading = reach.Loading(
                sym.paths,
                edges,
                open_files,
                [fids for fids in sym.functions.values() if len(fids) > 1],
                sym.function_paths,
                sym.guarded,
            )
            self.sym.log = log
        return self._loading

    def _reachable(self, path: str, fids: tuple[str, ...]) -> tuple[list[str], str]:
        return self.loading.reachable(path, list(fids))

    def on_method_call(self, f: FileFacts, src: str, ref: MethodCallRef) -> None:
        self.ctx.stats["calls_total"] += 1
        self._count(self.method_call(src, f.path, ref.line, ref.receiver, ref.method))

    def method_call(
        self,
        src: str,
        path: str,
        line: int,
        recv: TypeDesc | None,
        m: str,
        kind: str = CallKind.METHOD,
    ) -> str:
        """Link ``<recv>->m()`` (or ``<recv>::m()``): the methods the receiver's classes have;
        a receiver of builtin or vendor classes only calls outside the corpus (external,
        never a name match); an untyped one falls back to a name match. ``m`` may carry
        the call's arity (``name(N)``, ``SymbolTable.lookup_method``)."""
        called = m
        m = bare_method(m)
        tys = self.sym.types(recv) if recv is not None else {}
        if not tys:
            if kind == CallKind.STATIC:
                return self._unresolved(m, kind, src, path, line, Unresolved.DYNAMIC_NAME)
            outside = self.sym.external_root(recv) if recv is not None else None
            if outside:  # a member or element of a builtin or vendor value: never a name match
                return self._unresolved(
                    m, kind, src, path, line, Unresolved.EXTERNAL_TYPE, self.sym.display(outside)
                )
            return self.name_match(src, path, line, m)
        targets: dict[str, bool] = {}
        external: list[str] = []
        known: list[str] = []
        for cls, der in sorted(tys.items()):
            found = self.sym.lookup_method(cls, called)
            if found:
                for t in found:
                    targets[t] = targets.get(t, True) and der
            elif self.sym.has_class(cls):
                outside = self.sym.external_ancestor(cls)
                (external if outside else known).append(outside or cls)
            else:
                external.append(cls)
        if targets:
            derived = all(targets.values())
            via = None
            if derived:
                via = "global-single-type" if len(tys) == 1 else "global"
            elif external or known:
                # a union whose other members call outside the corpus or have no such
                # method: the call may not reach these declarations at all
                derived, via = True, "union"
            return (
                self.ctx.out.link_targets(
                    src, sorted(targets), EdgeKind.CALLS, path, line, derived, via
                )
                or "stated"
            )
        magic_name = "__callstatic" if kind == CallKind.STATIC else "__call"
        magic = sorted({t for cls in tys for t in self.sym.find_method(cls, magic_name)})
        if magic:
            self.ctx.out.link_targets(
                src, magic, EdgeKind.CALLS, path, line, True, "magic", magic=True
            )
            return "derived"
        if external:
            return self._unresolved(
                m, kind, src, path, line, Unresolved.EXTERNAL_TYPE, self.sym.display(external[0])
            )
        return self._unresolved(
            m, kind, src, path, line, Unresolved.UNKNOWN_MEMBER, self.sym.display(known[0])
        )

    def name_match(self, src: str, path: str, line: int, m: str) -> str:
        """An untyped receiver: every method of that name may be the one, up to
        ``max_ambiguous`` of them; above ``max_candidates`` they are marked ``ambiguous``
        with the chance of one of N as confidence."""
        cands = self.sym.methods_named(m.lower(), path)
        if not cands:
            return "external"  # no corpus method has that name: a builtin or vendor one
        n = len(cands)
        if n > self.max_ambiguous:
            return self._unresolved(
                m, CallKind.METHOD, src, path, line, Unresolved.TOO_MANY_CANDIDATES, str(n)
            )
        if n <= self.max_candidates:
            self.ctx.out.link_targets(src, cands, EdgeKind.CALLS, path, line, True, "name-match")
            return "derived"
        conf = round(min(self.conf["heuristic_ambiguous"], self.conf["heuristic_many"] / n), 4)
        spec = EdgeSpec(conf, True, {"via": "name-match", "ambiguous": True, "candidates": n})
        for t in cands:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, path, line, spec)
        return "derived"

    # -- uses by name (tags-level languages) ----------------------------------------------
    @property
    def by_name(self) -> dict[tuple[str, str, str], list[str]]:
        """(name group, ``callable`` | ``class``, name) -> the node ids of the tags-level
        declarations of that name (sorted); built on first use."""
        if self._by_name is None:
            out: dict[tuple[str, str, str], list[str]] = defaultdict(list)
            for f in self.files:
                group = registry.name_group(f.lang)
                if group is None:
                    continue
                for nd in f.nodes[1:]:
                    what = (
                        "callable"
                        if nd.kind in CALLABLE
                        else "class"
                        if nd.kind in CLASS_LIKE
                        else None
                    )
                    if what is not None:
                        out[(group, what, nd.name)].append(nd.node_id)
            for lst in out.values():
                lst.sort()
            self._by_name = dict(out)
        return self._by_name

    def _by_name_of(self, key: tuple[str, str, str]) -> list[str]:
        return self.by_name.get(key, [])

    def on_name(self, f: FileFacts, src: str, ref: NameRef) -> None:
        """A use by name in a tags-level language: every declaration of that name in the
        language's group may be the one (a call: the callables, else the classes it would
        instantiate), so every edge is derived, with the name-match rules of ``name_match``
        (one candidate: ``heuristic_single``; up to ``max_candidates``: ``heuristic_ambiguous``;
        up to ``max_ambiguous``: ``heuristic_many / n`` marked ambiguous; above: unresolved)."""
        self.ctx.stats["calls_total"] += 1
        group = registry.name_group(f.lang) or ""
        kind = EdgeKind.CALLS
        cands = self.sym.by_name((group, "callable", ref.name)) if ref.kind == "call" else []
        if not cands:
            kind = EdgeKind.INSTANTIATES
            cands = self.sym.by_name((group, "class", ref.name))
        n = len(cands)
        if not n:
            self._count("external")
        elif n > self.max_ambiguous:
            self._count(f"unresolved_{Unresolved.TOO_MANY_CANDIDATES}")
        elif n <= self.max_candidates:
            self.ctx.out.link_targets(src, cands, kind, f.path, ref.line, True, "name-match")
            self._count("derived")
        else:
            conf = round(min(self.conf["heuristic_ambiguous"], self.conf["heuristic_many"] / n), 4)
            spec = EdgeSpec(conf, True, {"via": "name-match", "ambiguous": True, "candidates": n})
            ekind = EdgeKind.CALLS_HEURISTIC if kind == EdgeKind.CALLS else kind
            for t in cands:
                self.ctx.add(src, t, ekind, f.path, ref.line, spec)
            self._count("derived")

    def on_static_call(self, f: FileFacts, src: str, ref: StaticCallRef) -> None:
        self.ctx.stats["calls_total"] += 1
        self._count(self.method_call(src, f.path, ref.line, ref.cls, ref.method, CallKind.STATIC))

    def on_new(self, f: FileFacts, src: str, ref: NewRef) -> None:
        st = self.ctx.stats
        lang = registry.get(f.lang)
        ctor_name = lang.constructor if lang else "__construct"
        for cls in sorted(self.sym.types(ref.cls)):
            cids = self.sym.class_ids(cls)
            if len(cids) == 1:
                self.ctx.add(src, cids[0], EdgeKind.INSTANTIATES, f.path, ref.line)
            ctor = self.sym.find_method(cls, ctor_name)
            if ctor:
                st["calls_total"] += 1
                self.ctx.out.link_targets(src, ctor, EdgeKind.CALLS, f.path, ref.line, False, None)
                st["calls_stated" if len(ctor) == 1 else "calls_derived"] += 1

    def on_class_const(self, f: FileFacts, src: str, ref: ClassConstRef) -> None:
        for cls in sorted(self.sym.types(ref.cls)):
            if ref.member.lower() == "class":
                cids = self.sym.class_ids(cls)
            else:
                cids = self.sym.find_const(cls, ref.member)
            if len(cids) == 1:
                self.ctx.add(src, cids[0], EdgeKind.REFERENCES, f.path, ref.line)

    def on_dynamic_call(self, f: FileFacts, src: str, ref: DynamicCallRef) -> None:
        st = self.ctx.stats
        st["calls_total"] += 1
        targets: list[str] = []
        for alt in ref.targets:
            if alt.kind == "function":
                for cand in alt.candidates:
                    fids = self.sym.function_ids(cand.lower())
                    if fids:
                        targets.extend(fids)
                        break
            elif alt.kind == "method" and alt.receiver is not None:
                targets.extend(self.sym.methods_of(alt.receiver, alt.method))
        targets = sorted(set(targets))
        if not targets:
            st["calls_unresolved_dynamic"] += 1
            return
        via = "call_user_func" if ref.how == "call_user_func" else "variable-function"
        spec = EdgeSpec(self.conf["variable_function"], True, {"via": via})
        for t in targets:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, spec)
        st["calls_derived"] += 1

    # -- entry points ----------------------------------------------------------------
    def on_route(self, f: FileFacts, src: str, ref: RouteRef) -> None:
        method = "|".join(ref.methods)
        fqn = f"{method} {ref.route}"
        nid = ids.node_id(NodeKind.WEB_ROUTE, fqn, f.path, ref.line)
        handler = ref.handler
        targets: list[str] = []
        if handler.kind == "class":
            for cls in sorted(self.sym.types(handler.cls)):
                inv = self.sym.find_method(cls, "__invoke")
                targets.extend(inv or self.sym.class_ids(cls))
        elif handler.kind == "method":
            for cls in sorted(self.sym.types(handler.cls)):
                targets.extend(self.sym.find_method(cls, handler.method.lower()))
        elif handler.kind == "function":  # a function by fqn (a Django view, an Express handler)
            targets.extend(self.sym.function_ids(handler.method.lower()) if handler.method else [])
        else:
            targets.append(src)  # a closure: the code registering it handles the route
        self.ctx.node(
            NodeRow(
                nid,
                NodeKind.WEB_ROUTE,
                ref.route,
                fqn,
                f.path,
                ref.line,
                ref.line,
                json.dumps({"method": method, "route": ref.route}),
                Layer.STRUCTURAL,
            )
        )
        self.ctx.route(RouteRow(nid, ref.route, method, f.path, ref.line))
        spec = EdgeSpec(self.conf["heuristic_single"], True, {"via": "router-call"})
        for t in sorted(set(targets)):
            self.ctx.add(nid, t, EdgeKind.HANDLES, f.path, ref.line, spec)

    def on_import(self, f: FileFacts, src: str, ref: ImportRef) -> None:
        file_id = self.sym.file_id(f.path)
        if ref.kind == "class":
            cids = self.sym.class_ids(ref.fqn)
            if len(cids) > 1:
                return  # duplicate declarations: the import names no single one
            dst = cids[0] if cids else self.ctx.out.external(NodeKind.CLASS, ref.fqn)
            props = {"use": "class", **({"external": True} if not cids else {})}
            self.ctx.add(file_id, dst, EdgeKind.IMPORTS, f.path, ref.line, EdgeSpec(props=props))
        elif ref.kind == "function":
            fids = self.sym.function_ids(ref.fqn.lower())
            if fids and len(fids) == 1:
                self.ctx.add(file_id, fids[0], EdgeKind.IMPORTS, f.path, ref.line, _USE_FUNCTION)
        elif ref.kind == "module":  # a module (Python): fqn is the path of its file
            mod_id = self.sym.file_id(ref.fqn)
            if mod_id is not None and mod_id != file_id:
                self.ctx.add(file_id, mod_id, EdgeKind.IMPORTS, f.path, ref.line, _USE_MODULE)

    # -- documentation ---------------------------------------------------------------------
    def _doc_sources(self, f: FileFacts) -> str:
        lang = registry.get(f.lang)
        return json.dumps(list(lang.sources)) if lang else SOURCES_TS

    def on_doc_link(self, f: FileFacts, src: str, ref: DocLinkRef) -> None:
        base = posixpath.dirname(f.path)
        for cand in (
            posixpath.normpath(posixpath.join(base, ref.target)),
            posixpath.normpath(ref.target.lstrip("/")),
        ):
            if self.sym.in_corpus(cand):
                spec = EdgeSpec(sources=self._doc_sources(f))
                self.ctx.add(
                    self.sym.file_id(cand), src, EdgeKind.DOCUMENTED_BY, f.path, ref.line, spec
                )
                break

    def on_doc_name(self, f: FileFacts, src: str, ref: DocNameRef) -> None:
        name = ref.name.strip().lstrip("\\").rstrip("()")
        if not re.fullmatch(r"[A-Za-z_][\w\\]*(::\$?\w+)?", name):
            return
        targets, exact = self.sym.doc_targets(name)
        if len(targets) != 1:
            return
        sources = self._doc_sources(f)
        if exact:
            spec = EdgeSpec(sources=sources)
        else:
            spec = EdgeSpec(self.conf["heuristic_single"], True, {"via": "name-match"}, sources)
        self.ctx.add(src, targets[0], EdgeKind.MENTIONS, f.path, ref.line, spec)


def shells_of(links: Iterable[tuple[str, str]]) -> list[RankRow]:
    """k-core shell of every symbol in the undirected graph of these (src, dst) links."""
    index: dict[str, int] = {}
    pairs = []
    for src, dst in links:
        a = index.setdefault(src, len(index))
        b = index.setdefault(dst, len(index))
        pairs.append((a, b))
    shell = kcore(len(index), pairs)
    return sorted(RankRow(nid, shell[i]) for nid, i in index.items() if shell[i] > 0)

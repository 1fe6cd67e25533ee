"""The linker: every file's references -> edges with evidence, file by file, and the run
that makes a scoped build reuse the files whose questions still have their answers.

The resolver's own handlers are ``calls.Calls`` (calls, ``new``, class constants, dynamic
calls, uses by name, routes; class edges: extends / implements / traits / overrides),
``imports.Imports`` (imports, doc links and names) and ``sqlrefs.SqlResolver`` (SQL
strings, ORM mappings). The reference types only a language produces are handled by that
language's link modules (``Language.link``, ``ragraf.lang.linking``), set up here once per
run: this module names no language's module.

Invariants: see ``ragraf.indexing.resolve``. Every handler takes the file, the
owner's node id and the reference, and adds edges (and nodes) with the
reference's line as evidence (``Context``); call handlers count the outcome in stats.
A language's reference type has one handler (``_per_language`` refuses a second); a
file's references go to its language's handlers.
"""

from __future__ import annotations

import importlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ragraf.indexing.resolve import link_memo
from ragraf.indexing.resolve.calls import Calls
from ragraf.indexing.resolve.context import Context
from ragraf.indexing.resolve.edges import SOURCES_TS, EdgeSpec
from ragraf.indexing.resolve.imports import Imports
from ragraf.indexing.resolve.inputs import ResolveInputs, Scoping
from ragraf.indexing.resolve.sqlrefs import SqlResolver
from ragraf.indexing.resolve.symbols import SymbolTable
from ragraf.kinds import (
    CLASS_EXTENSION,
    RANK_EDGES,
)
from ragraf.lang import registry
from ragraf.lang.facts import (
    BuilderCallRef,
    CallRef,
    ClassConstRef,
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
    TableArgRef,
    TableForwardRef,
    TableListRef,
    TableParamRef,
    TablePrefixRef,
)
from ragraf.lang.linking import Collect, Handler, Linking
from ragraf.model import EdgeRow, NodeRow, RankRow, RouteRow, UnresolvedRow
from ragraf.rank import kcore

T = TypeVar("T")

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
    "functions_matching",
    "methods_matching",
    "subclass_methods",
    "method_class",
)


def _per_language(
    core: dict[type, T], parts: Mapping[str, Linking], pick: Callable[[Linking], Mapping[type, T]]
) -> dict[str | None, dict[type, T]]:
    """Language -> reference type -> what its files use: the resolver's own (``core``; key
    None for a language without link modules) and what ``pick`` takes of each of its link
    modules (``parts``, by module). One of each type per language: a second is refused."""
    out: dict[str | None, dict[type, T]] = {None: core}
    for lang in registry.LANGUAGES:
        if not lang.link:
            continue
        table = dict(core)
        for module in lang.link:
            for ty, fn in pick(parts[module]).items():
                if ty in table:
                    raise RuntimeError(f"{module}: {lang.name}'s {ty.__name__} is handled already")
                table[ty] = fn
        out[lang.name] = table
    return out


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
        inputs: ResolveInputs,
        scoping: Scoping | None = None,
        memo: link_memo.Memo | None = None,
        params: str = "",
    ) -> None:
        """``inputs``: how the references are linked. ``scoping.keys`` (path -> the key of
        its facts) makes the run scoped (``scope``): it records what each file asks under
        ``params`` and reuses the outputs ``memo`` (the scoping's, written under the same
        parameters) has for a file whose key and answers are the same; ``memo_out`` is then
        this run's memo. ``scoping.old_nodes`` (paths -> their nodes in the memo's
        revision) lets ``stale`` tell a file whose answers changed only by the ids of
        declarations that moved (``renamed``)."""
        self.files = files
        self.memo = memo
        self.keys = scoping.keys if scoping is not None else None
        self.params = params
        self.memo_out: link_memo.Memo | None = None
        self._hook_context: dict[bool, str] = {}  # tags-level or not -> hook_context
        #: files resolved and reused by the run (not stats: those are rows of the revision)
        self.scope_counts: dict[str, int] = {}
        self.questions_checked = 0  # recorded questions asked again by ``stale``
        self.changed: set[str] = set()  # what ``stale`` found changed in content
        self.old_nodes = scoping.old_nodes if scoping is not None else None
        #: old id -> new id of the declarations of changed files that only moved, and the
        #: files ``stale`` left out for answers changed by those ids alone (their rows are
        #: the old ones renamed), each with its questions as ``link_memo.MemoWriter.add`` takes
        self.moved: dict[str, str] = {}
        self.renamed: dict[str, list[int | tuple[str, Any, Any]]] = {}
        #: what the handlers share: parameters, lookups, the file at hand's output
        ctx = self.ctx = Context(
            inputs.conf, inputs.max_candidates, inputs.max_ambiguous, record=self.keys is not None
        )
        #: every corpus-wide lookup of a handler (recorded per file when scoped)
        self.sym = ctx.sym
        #: SQL in strings and ORM mappings, whichever language's
        sql = SqlResolver(
            ctx,
            files,
            inputs.tables,
            inputs.prefixes,
            inputs.code_tables,
            inputs.helpers,
            inputs.builders,
        )
        #: the languages' link modules, each set up once (``ragraf.lang.linking``)
        parts = {m: importlib.import_module(m).linking(ctx) for m in registry.link_modules()}
        core_collect: dict[type, Collect] = {OrmTableRef: sql.collect}
        collect = _per_language(core_collect, parts, lambda p: p.collect)
        spellings = {k: v for part in parts.values() for k, v in part.spellings.items()}
        self.symtab = ctx.symtab = SymbolTable(files, collect, spellings)
        for name in _TABLE_LOOKUPS:
            self.sym.add(name, getattr(self.symtab, name))
        includes = [part.includes for part in parts.values() if part.includes is not None]
        calls = self.calls = Calls(ctx, files, self.symtab, includes)
        imports = Imports(ctx)
        core: dict[type, Handler] = {
            CallRef: calls.on_call,
            MethodCallRef: calls.on_method_call,
            StaticCallRef: calls.on_static_call,
            NewRef: calls.on_new,
            ClassConstRef: calls.on_class_const,
            DynamicCallRef: calls.on_dynamic_call,
            NameRef: calls.on_name,
            RouteRef: calls.on_route,
            ImportRef: imports.on_import,
            DocLinkRef: imports.on_doc_link,
            DocNameRef: imports.on_doc_name,
            SqlRef: sql.on_sql,
            BuilderCallRef: sql.on_builder_candidate,
            TablePrefixRef: sql.on_table_prefix,
            TableParamRef: sql.on_table_param,
            TableForwardRef: sql.on_table_param,
            TableArgRef: sql.on_table_arg,
            TableListRef: sql.on_table_list,
            OrmTableRef: sql.on_orm_table,
        }
        #: language -> reference type -> its handler (None: a language without link modules)
        self.handlers = _per_language(core, parts, lambda p: p.handlers)
        #: language -> what runs once a file's references are linked
        self.finishes = {
            lang.name: [f for m in lang.link if (f := parts[m].finish) is not None]
            for lang in registry.LANGUAGES
            if lang.link
        }
        #: the corpus paths as a digest: the memo's answers to the lookups that read the
        #: paths alone stand while it is the same (``Context.remembered``)
        self.paths_key = link_memo.paths_key(self.symtab.paths) if self.keys is not None else ""
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
        paused to its end: the rows and the writes would stand on it."""
        self.sym.close()
        self.__dict__.clear()

    def run(self, only: set[str] | None = None) -> Resolved:
        """Resolve every file, or with ``only`` (a subset ``stale`` left out nothing of)
        those files: the others' shares come from the memo and the result holds the rows
        of ``only`` alone (the others' stay in the stores), but the stats, the nodes
        without a path and the tables named of all; its shells are then for the caller to
        compute (over the stored edges too)."""
        # each file's questions go into the memo as soon as it is resolved (a question many
        # files asked is kept once; per-file logs kept to the end were a peak of their own)
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
                self.calls.class_edges(f, cd)
            before = self._call_counts()
            handlers = self.handlers.get(f.lang) or self.handlers[None]
            for ref in f.refs:
                handlers[type(ref)](f, f.node_id(ref.owner), ref)
            for finish in self.finishes.get(f.lang or "", ()):
                finish(f)
            self._count_lang(f.lang, before)  # coverage lang.<name>.calls.*
        finally:
            self.sym.log = None
        return link_memo.FileOut(
            list(ctx.out.edges.values()),
            list(ctx.out.extra_nodes.values()),
            ctx.routes,
            ctx.unresolved_rows,
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

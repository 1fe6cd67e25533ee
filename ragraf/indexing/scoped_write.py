"""A revision written for the files a change can affect only (issue 15, ``resolve.scoped``).

``ragraf.indexing.resolve.link_memo`` says which files' linker outputs still stand (the memo of
the parent revision: same facts key, same answers to every corpus-wide lookup). Those
files keep their rows in the stores as they are (a scoped ``write_rows`` / ``write_chunks``
leaves the rows of paths outside the scope open); the files in the scope get theirs
assembled and written as a full build would (those whose content did not change, only
their nodes and links: ``Plan.content``), and the revision-wide rows (file rows,
coverage, k-core shells, the nodes without a path, the schema tables) are made whole.

Invariants a change must keep:
- The result equals a clean build row for row (tests/test_shared_rows.py).
- The scope is closed under everything that couples files' rows: a file whose lookups
  answer differently, a removed file, any other file holding a chunk (same content) that
  a file of the scope has or had (which place is the chunk's and which a further place
  depends on the file order), a node id in two files. Files outside the scope are read
  as interfaces only (``ragraf.indexing.extract.Facts``). Whatever cannot be closed that way
  is resolved in full (``plan`` returns None): a schema input among the files (its
  nodes and edges are the schema's), a live schema (it changes without a file changing).
- Without a schema (code tables), the tables SQL names are nodes placed in the first
  file naming them, with the columns the CREATE / ALTER strings of every file give. A
  file's links to them depend on the name alone (``dbschema.code_table_id``) and on
  recorded lookups (the table-name conventions); what is corpus-wide (which tables
  exist, the file and line of each node, how many files name it, the columns) is made
  again every build from every file's share (``Resolved.named`` / ``uses`` / ``ddl``,
  the memo's for files not resolved) and written whole: the old and new ids of those
  nodes (``Memo.code_nodes``, ``SchemaResult.code_nodes``) are replaced wherever they
  are (``GraphStore.write_rows(whole=)``), so a file never comes into the scope for
  hosting one of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ragraf import ids
from ragraf.corpus import ScanResult
from ragraf.indexing.extract import Facts
from ragraf.indexing.resolve import Resolved
from ragraf.indexing.resolve.linker import shells_of
from ragraf.indexing.rows import Assembled, ContentRows, assemble, coverage, files_of
from ragraf.indexing.schema import LIVE_PATH, SchemaResult
from ragraf.kinds import RANK_EDGES, ChunkSource
from ragraf.lang.facts import FileFacts
from ragraf.model import CoverageRow, RankRow
from ragraf.store import Stores
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore


def possible(
    schema: SchemaResult, schema_input: Callable[[str], bool] | None, graph: GraphStore
) -> bool:
    """Whether a scoped build can be exact at all: no live schema (now or in the parent
    revision), and either a schema with tables or none at all (code tables: then every
    schema row is one ``add_code_tables`` makes, written whole; a schema of no table
    that still has rows of its own is resolved in full)."""
    if schema_input is None or graph.open_path(LIVE_PATH):
        return False
    return bool(schema.table_index) or not (schema.nodes or schema.edges or schema.table_rows)


class Plan:
    """The ``plan`` of resolution's scoped-reindex protocol (``ragraf.indexing.resolve.Scoping``,
    which the build implements with it): the stale paths closed as the
    module docstring says, or None (resolve every file). ``schema_input``: whether a
    path may change the schema (``schema.may_change_it``; None: anything may). After a
    call, ``taken``: chunk id -> the first path outside ``content`` holding it, and
    ``content``: the files of the scope whose every row is written again."""

    def __init__(
        self,
        facts: Facts,
        schema: SchemaResult,
        schema_input: Callable[[str], bool] | None,
        graph: GraphStore,
        lex: LexStore,
        model: str,
    ) -> None:
        self.facts, self.schema, self.schema_input = facts, schema, schema_input
        self.graph, self.lex, self.model = graph, lex, model
        self.taken: dict[str, str] = {}
        self.content: set[str] | None = None

    def _interface_rows(
        self, changed: dict[str, tuple[str, str]]
    ) -> list[tuple[bytes | None, bytes | None]] | None:
        """(row under the memo's key, row under today's) of each changed file's interface
        (``extract.interface``, what the tables read of a file), None where not cached; None
        in all when a file is one a ``prepare`` hook rewrites (its key holds what the hooks
        saw) or a key is not a facts key."""
        from ragraf.indexing.extract import INTERFACE

        want: list[tuple[str, str]] = []
        for path, (old, new) in changed.items():
            if path in self.facts.hooked:
                return None
            for key in (old, new):
                sha, sep, facts_key = key.partition("|")
                if not sep:
                    return None
                want.append((sha, facts_key + INTERFACE))
        rows = self.graph.cached_facts(want)
        return [(rows.get(want[i]), rows.get(want[i + 1])) for i in range(0, len(want), 2)]

    def same_tables(self, changed: dict[str, tuple[str, str]]) -> bool:
        """Whether the corpus-wide tables read the same of each changed file before and
        now (``Linker.stale``): its interface rows under the memo's key and under today's
        are both cached and equal, byte for byte."""
        pairs = self._interface_rows(changed)
        return pairs is not None and all(a is not None and a == b for a, b in pairs)

    def same_shape(self, changed: dict[str, tuple[str, str]], moved: dict[str, str]) -> bool:
        """Whether the corpus-wide tables read the same of each changed file before and now
        but for the ids of the declarations that moved (``moved``, old -> new): its
        interface rows under the memo's key and under today's, both cached, have the same
        ``extract.interface_shape`` (lines aside, the old ids renamed). Then every recorded
        question that names no moved id has the answer it had (``Linker.stale``)."""
        from ragraf.indexing.extract import interface_shape
        from ragraf.lang import codec

        pairs = self._interface_rows(changed)
        if pairs is None:
            return False
        for before, now in pairs:
            if before is None or now is None:
                return False
            try:
                a, b = codec.decode_for_linking(before), codec.decode_for_linking(now)
            except ValueError:
                return False
            if interface_shape(a, moved) != interface_shape(b, {}):
                return False
        return True

    def __call__(self, stale: set[str], changed: set[str]) -> set[str] | None:
        """The files to resolve, or None; ``changed``: those of ``stale`` whose content
        changed. After it, ``content``: the files whose every row is written again (the
        changed ones and the files the chunk rule couples to them); the others of the
        scope have the same content as in the parent revision and only their links are
        made again (``facts_to_resolve``, ``assemble_scoped``)."""
        self.content = None
        schema, schema_input = self.schema, self.schema_input
        if schema_input is None or not possible(schema, schema_input, self.graph):
            return None
        schema_paths = {n.path for n in schema.nodes} | {e.evidence_path for e in schema.edges}
        schema_paths |= {u.path for u in schema.plan.used} | {r.path for r in schema.plan.rejected}

        def of_schema(p: str) -> bool:
            return p in schema_paths or schema_input(p)

        scope = set(stale)
        if any(of_schema(p) for p in scope):
            return None
        owner: dict[str, str] = {}
        for f in self.facts.facts:
            for n in f.nodes:
                at = owner.setdefault(n.node_id, f.path)
                if at != f.path:
                    return None  # a node id in two files: which one keeps it is the order's
        # chunks: the first holder of a chunk (in path order) has its row, the others a
        # further place; a file whose content rows are kept is added to the content when
        # it gains or loses the row (the files whose content did not change keep their
        # chunks: they are outside here, like the files not resolved)
        paths = {f.path for f in self.facts.facts}
        content = set(changed)
        ids_of: dict[str, set[str]] = {}
        holders: set[tuple[str, str]] = set()
        asked: set[str] = set()
        while True:
            by_path = {f.path: f for f in self.facts.full(content) if f.path in content}
            for p in content - ids_of.keys():
                got = by_path.get(p)
                ids_of[p] = {
                    ids.chunk_id(ids.sha256_text(c.code), c.source_kind, self.model)
                    for c in (got.chunks if got else ())
                }
            todo = content - asked
            asked |= todo
            ids_of_old = self.lex.open_chunk_places(todo) if todo else set()
            want = {c for p in todo for c in ids_of[p]} | ids_of_old
            holders |= self.lex.open_chunk_holders(want)
            first_out: dict[str, str] = {}
            old_in: dict[str, str] = {}
            for cid, p in holders:
                d = old_in if p in content else first_out
                if cid not in d or p < d[cid]:
                    d[cid] = p
            new_in: dict[str, str] = {}
            for p in content:
                for cid in ids_of[p]:
                    if cid not in new_in or p < new_in[cid]:
                        new_in[cid] = p
            more: set[str] = set()
            for cid, k in first_out.items():
                before = cid in old_in and old_in[cid] < k
                now = cid in new_in and new_in[cid] < k
                if before != now:
                    more.add(k)
            if not more:
                break
            if any(p not in paths or of_schema(p) for p in more):
                return None
            content |= more
        self.taken = first_out
        self.content = content
        return scope | content

    def facts_to_resolve(self, only: set[str] | None) -> list[FileFacts]:
        """The ``whole`` of ``ragraf.indexing.resolve.Scoping``: the facts with those of the
        files to resolve in place, whole for the ``content`` files and as linking reads
        them for the others (``Facts.for_linking``); without a scope, every file as linking
        reads it (the content rows are made of ``Facts.contents``)."""
        if only is None or self.content is None:
            return self.facts.for_linking({f.path for f in self.facts.files})
        self.facts.full(self.content)
        return self.facts.for_linking(only - self.content)


def assemble_scoped(
    sc: ScanResult,
    facts: list[FileFacts],
    resolved: Resolved,
    schema: SchemaResult,
    stores: Stores,
    before: list[str],
    content: set[str],
    made: ContentRows,
) -> Assembled:
    """The rows of a scoped revision: those of the paths in ``resolved.scope_paths`` and the
    revision-wide ones (``GraphStore.write_rows`` with the same scope and ``whole`` writes
    them); of the files of the scope outside ``content`` (``Plan.content``) only the nodes
    and links (their texts, chunks and flow units stay as they are). ``before``: the
    code-table node ids of the parent revision (``Memo.code_nodes``); with this build's
    they are ``Assembled.whole``. ``made``: the counts of the content rows of ``content``,
    written already (``rows.content_rows``, ``ContentRows.counted``). ``stores``: of the
    building revision, with the parent's rows of the files outside the scope open."""
    graph, lex = stores.graph, stores.lex
    scope = resolved.scope_paths
    assert scope is not None
    files_in = [sf for sf in sc.files if sf.path in scope]
    facts_in = [f for f in facts if f.path in scope]
    own = Resolved(
        [n for n in resolved.nodes if n.path is not None],
        resolved.edges,
        resolved.stats,
        resolved.routes,
        [],
        resolved.unresolved,
    )
    out = assemble(ScanResult(files_in), facts_in, own, SchemaResult(), made)
    rows = out.graph
    rows.files = files_of(sc.files, facts)
    # the nodes without a path: each one some file links to (stored, or made now)
    pathless = {n.node_id: n for n in graph.open_pathless_nodes()}
    pathless.update((n.node_id, n) for n in resolved.nodes if n.path is None)
    rows.nodes += [pathless[i] for i in sorted(resolved.pathless)]
    # the k-core shells are the graph's: the same when the scope's links are, up to the
    # ids of the declarations that only moved (a body edit above them: ids carry lines),
    # else computed over every link again
    mine = [(e.src, e.dst) for e in resolved.edges if e.kind in RANK_EDGES]
    moved = resolved.moved
    was = graph.open_rank_pairs(RANK_EDGES, scope, inside=True)
    if moved:
        was = [(moved.get(a, a), moved.get(b, b)) for a, b in was]
    if Counter(mine) == Counter(was):
        rows.shells = sorted(
            RankRow(moved.get(r.node_id, r.node_id), r.shell) for r in graph.open_shells()
        )
    else:  # the others' links as they are written (``renamed`` files': with the new ids)
        others = graph.open_rank_pairs(RANK_EDGES, scope)
        if moved:
            others = [(moved.get(a, a), moved.get(b, b)) for a, b in others]
        rows.shells = shells_of(others + mine)
    rows.tables, rows.columns, rows.fks = schema.table_rows, schema.column_rows, schema.fk_rows
    # the tables known only from code and their columns, whatever file they are placed in
    code = set(schema.code_nodes)
    if code or before:
        rows.nodes += [n for n in schema.nodes if n.node_id in code]
        rows.edges += [e for e in schema.edges if e.src in code]
        out.whole = sorted(code | set(before))
    # coverage over every file (a chunk is a chunk row or a further place: each chunk has
    # its row either among the scope's or among the others', kept)
    total = sum(len(f.chunks) for f in facts)
    distinct = made.chunks_total - made.chunks_dup + lex.open_chunk_count(content)
    seen: set[str] = set()
    dup_nodes = 0
    for f in facts:
        for n in f.nodes:
            if n.node_id in seen:
                dup_nodes += 1
            seen.add(n.node_id)
    chunks = ContentRows(
        chunks_total=total,
        chunks_dup=total - distinct,
        chunks_file=sum(1 for f in facts for c in f.chunks if c.source_kind == ChunkSource.FILE),
    )
    rows.coverage = coverage(sc, facts, resolved.stats, chunks, dup_nodes) + schema.coverage
    rows.coverage.append(CoverageRow("flow.units", float(sum(len(f.flows) for f in facts)), None))
    return out

"""Pure row assembly: scanned files, extracted facts, resolution and schema ->
the rows of one revision (no I/O here).

Invariants a change must keep:
- Every scanned file has exactly one file row, parsed or not (§15: a file
  never disappears from coverage).
- Node ids are unique per revision: a node seen twice (two identical
  declarations at one place cannot happen; a copied file can) is written
  once and counted in ``conflict.duplicate_node``.
- A chunk_id is unique per revision: repeated content becomes a ChunkPlace.
- Edges are sorted by edge_uid; everything else keeps the order of the
  sorted file list, so two builds of one tree give identical rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragraf import ids
from ragraf.corpus import ScannedFile, ScanResult, kinds_note
from ragraf.indexing.resolve import Resolved
from ragraf.indexing.schema import SchemaResult
from ragraf.kinds import ChunkSource, ParseStatus
from ragraf.lang.facts import FileFacts, for_linking
from ragraf.model import (
    ChunkPlace,
    ChunkRow,
    CoverageRow,
    EdgeRow,
    FileRow,
    FlowUnitRow,
    NodeRow,
    RevisionRows,
    TextRow,
)

#: paths listed in a coverage note before "..."
NOTE_PATHS = 20
#: ``json.dumps(v, sort_keys=True)`` without building an encoder per call (same text)
_sorted_json = json.JSONEncoder(sort_keys=True).encode


@dataclass
class Assembled:
    graph: RevisionRows
    #: node ids a scoped write replaces whatever their path (``GraphStore.write_rows``)
    whole: list[str] = field(default_factory=list)


@dataclass
class ContentRows:
    """The rows a revision makes of its files' contents alone, before any link: texts,
    chunks and their further places, flow units (a build writes them before it links:
    ``ragraf.indexing.indexer``). The counts stay when the rows are let go (``counted``)."""

    texts: list[TextRow] = field(default_factory=list)
    flows: list[FlowUnitRow] = field(default_factory=list)
    chunks: list[ChunkRow] = field(default_factory=list)
    also: list[ChunkPlace] = field(default_factory=list)
    chunks_total: int = 0
    chunks_dup: int = 0
    #: chunks (rows and further places) of top-level code (``ChunkSource.FILE``)
    chunks_file: int = 0

    def counted(self) -> ContentRows:
        """The counts without the rows (what assembling the rest needs of them)."""
        return ContentRows(
            chunks_total=self.chunks_total,
            chunks_dup=self.chunks_dup,
            chunks_file=self.chunks_file,
        )


def content_rows(
    facts: Iterable[FileFacts],
    model: str,
    taken: dict[str, str] | None = None,
) -> ContentRows:
    """The content rows of ``facts`` (in their order). ``taken`` (a scoped build,
    ``ragraf.indexing.scoped_write``): chunk id -> the first path outside ``facts`` that holds it; a
    file after it has the chunk as a further place."""
    out = ContentRows()
    seen_chunks: set[str] = set()
    for f in facts:
        for i, u in enumerate(f.flows):
            out.flows.append(
                FlowUnitRow(
                    f"{f.path}#{i}",
                    f.node_id(u.node),
                    f.path,
                    u.start_line,
                    u.end_line,
                    u.kind,
                    u.data,
                    u.sources or None,
                )
            )
        for t in f.texts:
            out.texts.append(
                TextRow(
                    ids.text_chunk_id(f.path, t.start_line, t.kind, t.raw),
                    f.node_id(t.owner) if t.owner is not None else None,
                    f.path,
                    t.start_line,
                    t.end_line,
                    t.kind,
                    t.raw,
                )
            )
        for c in f.chunks:
            content_sha = ids.sha256_text(c.code)
            cid = ids.chunk_id(content_sha, c.source_kind, model)
            owner_id = f.node_id(c.node) if c.node is not None else None
            if c.source_kind == ChunkSource.FILE:
                out.chunks_file += 1
            if cid in seen_chunks or (taken and cid in taken and taken[cid] < f.path):
                out.also.append(ChunkPlace(cid, f.path, owner_id, c.start_line, c.end_line))
                continue
            seen_chunks.add(cid)
            out.chunks.append(
                ChunkRow(
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
                    c.ui_tokens,
                )
            )
    out.chunks_total = len(out.chunks) + len(out.also)
    out.chunks_dup = len(out.also)
    return out


def let_content_go(f: FileFacts) -> None:
    """Keep of ``f`` (in place, for every holder of it) what linking reads
    (``facts.for_linking``): its content rows are made (``content_rows``)."""
    got = for_linking(f)
    f.texts, f.chunks, f.flows = got.texts, got.chunks, got.flows


def assemble(
    sc: ScanResult,
    facts: list[FileFacts],
    resolved: Resolved,
    schema: SchemaResult,
    content: ContentRows,
) -> Assembled:
    """The rows of a revision but its content rows (``content``: made and written already,
    ``content_rows``; its counts go into the coverage, its rows, if any, into the result)
    for the files ``sc`` scanned."""
    file_rows = files_of(sc.files, facts)
    node_rows: list[NodeRow] = []
    seen_nodes: set[str] = set()
    dup_nodes = 0
    for f in facts:
        for n in f.nodes:
            if n.node_id in seen_nodes:
                dup_nodes += 1
                continue
            seen_nodes.add(n.node_id)
            node_rows.append(
                NodeRow(
                    n.node_id,
                    n.kind,
                    n.name,
                    n.fqn,
                    f.path,
                    n.start_line,
                    n.end_line,
                    _sorted_json(n.props) if n.props else None,
                    n.layer,
                )
            )
    for row in [*resolved.nodes, *schema.nodes]:
        if row.node_id not in seen_nodes:
            seen_nodes.add(row.node_id)
            node_rows.append(row)
    # one row per edge_uid (the table's key): of two equal edges the more confident stays
    merged: dict[str, EdgeRow] = {}
    for e in [*resolved.edges, *schema.edges]:
        old = merged.get(e.edge_uid)
        if old is None or e.confidence > old.confidence:
            merged[e.edge_uid] = e
    edges: list[EdgeRow] = [merged[k] for k in sorted(merged)]
    cov = coverage(sc, facts, resolved.stats, content, dup_nodes) + schema.coverage
    rows = RevisionRows(
        file_rows,
        node_rows,
        edges,
        content.texts,
        cov,
        shells=resolved.shells,
        routes=resolved.routes,
        tables=schema.table_rows,
        columns=schema.column_rows,
        fks=schema.fk_rows,
        unresolved=resolved.unresolved,
        flow_units=content.flows,
    )
    rows.coverage.append(CoverageRow("flow.units", float(sum(len(f.flows) for f in facts)), None))
    return Assembled(rows)


def files_of(files: list[ScannedFile], facts: list[FileFacts]) -> list[FileRow]:
    """One file row per scanned file, parsed or not."""
    parsed = {f.path: f for f in facts}
    out = []
    for sf in files:
        pf = parsed.get(sf.path)
        out.append(
            FileRow(
                sf.path,
                pf.lang if pf else sf.lang,
                pf.lines if pf else sf.lines,
                sf.sha256,
                pf.status if pf else sf.status,
                pf.note if pf else sf.note,
                sf.size,
                sf.mtime_ns,
            )
        )
    return out


def _note(paths: list[str]) -> str:
    return ", ".join(paths[:NOTE_PATHS]) + (" ..." if len(paths) > NOTE_PATHS else "")


def coverage(
    sc: ScanResult,
    facts: list[FileFacts],
    stats: dict[str, int],
    chunks: ContentRows,
    dup_nodes: int,
) -> list[CoverageRow]:
    """The coverage metrics of a revision (§14): of the files ``sc`` scanned (and what the
    scan left out), their ``facts``, resolution's ``stats``, the chunk counts of ``chunks``
    (``ContentRows.counted``) and the node ids seen twice."""
    files, unreadable_dirs = sc.files, sc.unreadable_dirs
    chunks_total, chunks_dup = chunks.chunks_total, chunks.chunks_dup
    by_status: dict[str, list[str]] = {}
    parsed = {f.path: f for f in facts}
    for sf in files:
        st = parsed[sf.path].status if sf.path in parsed else sf.status
        by_status.setdefault(st, []).append(sf.path)
    shas: dict[str, int] = {}
    for sf in files:
        if sf.sha256 and sf.status == ParseStatus.OK:
            shas[sf.sha256] = shas.get(sf.sha256, 0) + 1
    dup_files = sum(n - 1 for n in shas.values() if n > 1)
    calls_total = stats.get("calls_total", 0)
    stated = stats.get("calls_stated", 0)
    # a plain function no corpus file declares is a PHP builtin or a vendor function
    ext = stats.get("calls_external", 0) + stats.get("calls_unresolved_function", 0)
    unresolved = sum(
        v
        for k, v in stats.items()
        if k.startswith("calls_unresolved") and k != "calls_unresolved_function"
    )
    rows: list[CoverageRow] = [
        CoverageRow("files.total", float(len(files)), None),
        CoverageRow(
            "files.secret_excluded",
            float(sc.secrets_excluded),
            "count only; paths are never stored",
        ),
        CoverageRow(
            "files.duplicate", float(dup_files), "files whose content also appears at another path"
        ),
        CoverageRow("lines.total", float(sum(f.lines for f in facts)), None),
        CoverageRow("calls.total", float(calls_total), None),
        CoverageRow("calls.stated", float(stated), None),
        CoverageRow("calls.derived", float(stats.get("calls_derived", 0)), None),
        CoverageRow(
            "calls.external",
            float(ext),
            "callees the corpus does not declare: PHP builtins, methods of builtin or vendor classes",
        ),
        CoverageRow(
            "calls.unresolved",
            float(unresolved),
            "not attached: too many candidates, dynamic names, members no class declares",
        ),
        CoverageRow(
            "calls.stated_share", round(stated / calls_total, 4) if calls_total else None, None
        ),
        CoverageRow(
            "calls.stated_share_declared",
            round(stated / (calls_total - ext), 4) if calls_total - ext > 0 else None,
            "share among calls whose callee could be declared in the corpus (external calls"
            " excluded: PHP builtins and vendor code)",
        ),
        CoverageRow("chunks.total", float(chunks_total), None),
        CoverageRow("chunks.duplicate", float(chunks_dup), "same content at several places"),
        CoverageRow(
            "chunks.without_owner_symbol", float(chunks.chunks_file), "top-level code chunks"
        ),
        CoverageRow("conflict.duplicate_node", float(dup_nodes), None),
        CoverageRow(
            "files.unreadable_dirs",
            float(len(unreadable_dirs or [])),
            _note(unreadable_dirs) if unreadable_dirs else None,
        ),
    ]
    passed = sc.not_selected or {}
    rows.append(
        CoverageRow(
            "files.not_selected",
            float(sum(passed.values())),
            f"no include glob selects them, by suffix: {kinds_note(passed)}" if passed else None,
        )
    )
    by_lang: dict[str, int] = {}
    for sf in files:
        lang = parsed[sf.path].lang if sf.path in parsed else sf.lang
        by_lang[lang or "plain"] = by_lang.get(lang or "plain", 0) + 1
    for lang, n in sorted(by_lang.items()):
        rows.append(CoverageRow(f"lang.{lang}.files", float(n), None))
    for k in sorted(stats):
        if k.startswith("lang."):
            rows.append(CoverageRow(k, float(stats[k]), None))
    for st in ParseStatus:
        paths = by_status.get(st, [])
        note = _note(paths) if st != ParseStatus.OK and paths else None
        rows.append(CoverageRow(f"files.{st}", float(len(paths)), note))
    for k in sorted(stats):
        if k.startswith(
            ("calls_unresolved", "includes_", "templates_", "conflict.", "sql_", "flow_")
        ):
            metric = k if k.startswith("conflict.") else k.replace("_", ".", 1)
            rows.append(CoverageRow(metric, float(stats[k]), None))
    return rows

"""Typed rows: what the stores return and take, and what the build produces
(architecture §4, §5).

Invariants a change must keep:
- Each row type lists the columns of its table in table order (without
  ``rev_id``): a row is still a plain tuple, so ``executemany`` takes it as is
  and building one costs no more than a tuple.
- JSON columns (``props``, ``sources``) stay JSON text in rows; whoever shows
  them decodes them (``props_of``).
- No behaviour here beyond trivial accessors: this module imports nothing of
  ragraf but the kinds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

#: the path the live database has in evidence (``db://schema:1``) and in the ledger
SCHEMA_PATH = "db://schema"


class FileRow(NamedTuple):
    """A row of graph ``file``: one accounted file of a revision."""

    path: str
    lang: str | None
    lines: int | None
    sha256: str
    parse_status: str
    parse_note: str | None
    size: int | None
    mtime_ns: int | None


class NodeRow(NamedTuple):
    """A row of graph ``node`` (§5.1); ``props`` is JSON text or None."""

    node_id: str
    kind: str
    name: str | None
    fqn: str | None
    path: str | None
    start_line: int | None
    end_line: int | None
    props: str | None
    layer: str

    @property
    def label(self) -> str:
        """The fully qualified name, else the name, else the id."""
        return self.fqn or self.name or self.node_id


class EdgeRow(NamedTuple):
    """A row of graph ``edge`` (§5.2): evidence and confidence are mandatory (P3)."""

    src: str
    dst: str
    kind: str
    provenance: str
    evidence_path: str | None
    evidence_line: int | None
    confidence: float
    sources: str
    edge_uid: str
    props: str | None

    @property
    def evidence(self) -> str:
        return f"{self.evidence_path}:{self.evidence_line}"


class TextRow(NamedTuple):
    """A row of graph ``text_chunk``: a comment, docblock or markdown section (P6)."""

    chunk_id: str
    owner_node_id: str | None
    path: str
    start_line: int
    end_line: int
    text_kind: str
    raw: str


class CoverageRow(NamedTuple):
    metric: str
    value: float | None
    note: str | None


class RouteRow(NamedTuple):
    """A row of graph ``web_route``."""

    node_id: str
    route: str
    method: str | None
    evidence_path: str
    evidence_line: int


class UnresolvedRow(NamedTuple):
    """A row of graph ``unresolved_call``: a call site no declaration was attached to."""

    name: str  # lower-case short name of the called function or method
    kind: str  # ragraf.kinds.CallKind
    src: str
    path: str
    line: int
    reason: str  # ragraf.kinds.Unresolved
    detail: str | None


class FlowUnitRow(NamedTuple):
    """A row of graph ``flow_unit``: the data-flow layer of one function, method, closure
    or file-level script (``ragraf.lang.php.flow``; ``data`` is its JSON)."""

    unit_id: str
    func_node_id: str
    path: str
    start_line: int
    end_line: int
    kind: str
    data: str
    sources: str | None  # the taint sources its statements read, space-separated


class RankRow(NamedTuple):
    """A row of graph ``node_rank``: the k-core shell of a node."""

    node_id: str
    shell: int


class DbTableRow(NamedTuple):
    table_id: str
    table_name: str
    engine: str | None
    row_estimate: int | None
    source: str


class DbColumnRow(NamedTuple):
    table_id: str
    column_name: str
    data_type: str | None
    is_nullable: int
    column_key: str | None


class DbFkRow(NamedTuple):
    from_table: str
    from_column: str
    to_table: str
    to_column: str


class MapSymbol(NamedTuple):
    """A node as repo_map ranks it, with its k-core shell."""

    node_id: str
    kind: str
    name: str | None
    fqn: str | None
    path: str
    start_line: int | None
    props: str | None
    shell: int


class RankEdge(NamedTuple):
    src: str
    dst: str
    kind: str
    confidence: float


class Reached(NamedTuple):
    """A node found by an upstream walk: the shortest depth, whether every path to it
    needs a derived edge (``soft``), and the edge that first reached it."""

    node_id: str
    depth: int
    soft: bool
    edge_uid: str | None
    evidence_path: str | None


# -- lexvec ------------------------------------------------------------------------------
class ChunkRow(NamedTuple):
    """A search chunk as the build writes it (chunk_map + chunk_text + ft_chunk)."""

    chunk_id: str
    source_kind: str
    path: str
    node_id: str | None
    start_line: int
    end_line: int
    text: str  # line 0 is the service header, code starts at line 1
    symbol_tokens: str
    code_tokens: str
    sql_tokens: str
    text_tokens: str
    content_sha256: str
    #: the tokens of its user-facing text (ft_ui; empty: none)
    ui_tokens: str = ""


class ChunkPlace(NamedTuple):
    """A further place of a chunk whose content occurs more than once (chunk_also)."""

    chunk_id: str
    path: str
    node_id: str | None
    start_line: int
    end_line: int


class ChunkRef(NamedTuple):
    """A row of chunk_map as readers see it."""

    chunk_id: str
    path: str
    source_kind: str
    node_id: str | None
    start_line: int
    end_line: int


class StoredChunk(NamedTuple):
    """A chunk with its text (chunk_map joined with chunk_text)."""

    chunk_id: str
    source_kind: str
    path: str
    node_id: str | None
    start_line: int
    end_line: int
    text: str


class FtsHit(NamedTuple):
    """One lexical match: the chunk, its bm25 score (higher is better) and its token columns."""

    chunk_id: str
    path: str
    source_kind: str
    node_id: str | None
    start_line: int
    end_line: int
    score: float
    symbol_tokens: str
    code_tokens: str
    sql_tokens: str
    text_tokens: str


class UiHit(NamedTuple):
    """One match of a chunk's user-facing text (ft_ui): the chunk, its bm25 score (higher is
    better) and the text's tokens."""

    chunk_id: str
    path: str
    source_kind: str
    node_id: str | None
    start_line: int
    end_line: int
    score: float
    ui_tokens: str


# -- control -----------------------------------------------------------------------------
class LedgerEntry(NamedTuple):
    """A row of control ``drift_entry`` (§8): append-only, hash-chained."""

    id: int
    index_rev: str
    ts: str
    path: str
    kind: str
    old_hash: str | None
    new_hash: str | None
    symbols_added: str | None  # JSON arrays of names
    symbols_removed: str | None
    symbols_changed: str | None
    edges_invalidated: str | None  # JSON array of edge_uid
    detected_by: str
    commit_sha: str | None
    note: str | None
    dedupe_key: str
    prev_hash: str | None
    entry_hash: str | None

    def names(self, column: str) -> list[str]:
        """The decoded JSON list of ``symbols_added`` / ``symbols_removed`` / ``symbols_changed``."""
        raw = getattr(self, column)
        return list(json.loads(raw)) if raw else []

    @property
    def invalidated(self) -> list[str]:
        return list(json.loads(self.edges_invalidated)) if self.edges_invalidated else []


class LedgerAck(NamedTuple):
    """A row of control ``drift_ack``: who accounted for an entry, hash-chained on its own."""

    id: int
    entry_id: int
    by: str
    ts: str
    note: str | None
    prev_hash: str
    ack_hash: str


class StaleEdge(NamedTuple):
    """An edge the ledger invalidated, with why and by which entry."""

    edge_uid: str
    reason: str
    drift_entry_id: int


class RevHistoryRow(NamedTuple):
    """A revision's row of control ``rev_history`` as a build records it (``joern_used`` is
    always 0; the coverage goes beside it, ``ControlStore.record_rev``)."""

    rev_id: str
    parent_rev: str | None
    state: str  # ready | failed | archived
    created_at: str
    sealed_at: str | None
    corpus_hash: str
    config_hash: str
    files: int = 0
    nodes: int = 0
    edges: int = 0
    note: str | None = None  # a failure's reason, a pruning


class ArchiveRow(NamedTuple):
    """A row of control ``drift_archive``: one archived ledger, its report chained (NULL
    hashes: a row from before the archive chain)."""

    id: int
    from_rev: str
    to_rev: str
    archived_at: str
    entries: int
    report_path: str
    report_sha256: str | None = None
    prev_hash: str | None = None
    archive_hash: str | None = None


def props_of(raw: str | None) -> dict[str, Any]:
    """A JSON props column as a dict ({} for NULL)."""
    if not raw:
        return {}
    data = json.loads(raw)
    return data if isinstance(data, dict) else {}


@dataclass(slots=True)
class RevisionRows:
    """Everything a build writes to graph.sqlite for one revision (one transaction)."""

    files: list[FileRow]
    nodes: list[NodeRow]
    edges: list[EdgeRow]
    texts: list[TextRow]
    coverage: list[CoverageRow]
    #: (sha256, the file's text as ``ragraf.store.graph.blob`` packs it) of files not stored yet
    blobs: list[tuple[str, bytes]] = field(default_factory=list)
    shells: list[RankRow] = field(default_factory=list)
    routes: list[RouteRow] = field(default_factory=list)
    tables: list[DbTableRow] = field(default_factory=list)
    columns: list[DbColumnRow] = field(default_factory=list)
    fks: list[DbFkRow] = field(default_factory=list)
    unresolved: list[UnresolvedRow] = field(default_factory=list)
    flow_units: list[FlowUnitRow] = field(default_factory=list)

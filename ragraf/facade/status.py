"""What `ragraf status` (and the facade's index_status) report.

Reads rev.json first: it alone says which revision is active. Stores are
opened read-only; nothing here writes.

``pending`` (the active revision only) counts the indexed files that changed on disk and
that the ledger does not hold yet, with the command that registers them. It is the check
every answer makes for its files (``context.sha_now``: size and mtime, a hash only when
they differ), run over all of them; files added to the tree are found by the scan only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragraf.config import Layout
from ragraf.facade import dfcover
from ragraf.facade.context import sha_now, vector_layer
from ragraf.kinds import RevState
from ragraf.store import manifest, open_stores
from ragraf.store.control import ControlStore
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore


def status(root: Path, rev: str | None = None) -> dict[str, Any]:
    layout = Layout(root)
    man = manifest.require(layout.rev_json)
    with open_stores(layout) as st:
        rev_id = rev or man["rev_id"]
        if rev_id != man["rev_id"] and dict(st.graph.revs()).get(rev_id) != RevState.READY:
            from ragraf.errors import InvalidArgument

            raise InvalidArgument(f"--rev: '{rev_id}' is not a retained revision")
        return status_of(root, rev_id, st.graph, st.lex, st.control, man)


def status_of(
    root: Path,
    rev_id: str,
    graph: GraphStore,
    lex: LexStore,
    control: ControlStore,
    man: dict[str, Any],
) -> dict[str, Any]:
    row = graph.rev_row(rev_id) or {}
    hist = {h["rev_id"]: h for h in control.history()}
    dataflow = graph.has_flow(rev_id)
    cover = dfcover.cover(graph, rev_id)
    h = hist.get(rev_id, {})
    coverage = {m: {"value": v, **({"note": n} if n else {})} for m, v, n in graph.coverage(rev_id)}
    return {
        "root": str(root),
        "rev_id": rev_id,
        "active_rev": man["rev_id"],
        "state": row.get("state", h.get("state")),
        "created_at": row.get("created_at", h.get("created_at")),
        "sealed_at": h.get("sealed_at")
        or (man.get("sealed_at") if rev_id == man["rev_id"] else None),
        "capability": "dataflow" if dataflow else "degraded",
        "capability_note": dfcover.note(cover, dataflow),
        "dataflow": cover,
        "vectors": vector_layer(Layout(root), man, lex) if rev_id == man["rev_id"] else None,
        "corpus_hash": row.get("corpus_hash", h.get("corpus_hash")),
        "config_hash": row.get("config_hash"),
        "counts": {
            "files": graph.file_count(rev_id),
            "nodes": graph.counts_by_kind(rev_id, "node"),
            "edges": graph.counts_by_kind(rev_id, "edge"),
            "chunks": lex.chunk_count(rev_id),
        },
        "coverage": coverage,
        "schema": _schema_block(graph, rev_id, coverage),
        "ledger": {"entries": control.ledger_size(rev_id)},
        "pending": pending_changes(root, rev_id, graph, control)
        if rev_id == man["rev_id"]
        else None,
        "store_bytes": {
            "graph": graph.db.size_bytes(),
            "lexvec": lex.db.size_bytes(),
            "control": control.db.size_bytes(),
        },
        "revisions": [
            {
                k: v
                for k, v in x.items()
                if k
                in ("rev_id", "state", "created_at", "sealed_at", "files", "nodes", "edges", "note")
            }
            for x in control.history()
        ],
    }


#: the coverage metrics a session needs to know how complete the answers are (the rest:
#: ``index_status`` with ``detail: full``)
BRIEF_COVERAGE = (
    "files.total",
    "files.partial",
    "files.failed",
    "files.skipped",
    "calls.stated",
    "calls.derived",
    "calls.unresolved",
)
#: the fields of the vector layer a brief status keeps (is search semantic, how far)
BRIEF_VECTORS = ("status", "computed", "total", "percent", "embedded", "reason")
#: the fields of the schema block a brief status keeps
BRIEF_SCHEMA = ("source", "incomplete", "dialect")
#: the fields of the pending block a brief status keeps when nothing is pending
BRIEF_PENDING = ("files", "modified_total", "deleted_total", "next")


def brief(full: dict[str, Any]) -> dict[str, Any]:
    """``status_of``'s answer sized for an agent's first call (~1 KB): the revision and
    its capability, the search layer's state, totals (files, nodes, edges, chunks), the
    coverage metrics of ``BRIEF_COVERAGE`` as values (notes dropped), the schema's source,
    the ledger and the pending changes (their lists only when there are some); what is
    left out is counted so the answer says what ``detail: full`` adds."""
    keep = ("root", "rev_id", "active_rev", "state", "sealed_at", "capability")
    out: dict[str, Any] = {k: full[k] for k in keep if k in full}
    out["capability_note"] = full.get("capability_note")
    out["dataflow"] = full.get("dataflow")
    vec = full.get("vectors")
    out["vectors"] = {k: vec[k] for k in BRIEF_VECTORS if k in vec} if vec else vec
    counts = full["counts"]
    out["counts"] = {
        "files": counts["files"],
        "nodes": sum(counts["nodes"].values()),
        "edges": sum(counts["edges"].values()),
        "chunks": counts["chunks"],
    }
    cov = full["coverage"]
    out["coverage"] = {m: cov[m]["value"] for m in BRIEF_COVERAGE if m in cov}
    schema = full.get("schema") or {}
    out["schema"] = {k: schema.get(k) for k in BRIEF_SCHEMA}
    if "schema.tables" in cov:
        out["schema"]["tables"] = int(cov["schema.tables"]["value"])
    out["ledger"] = full["ledger"]
    pending = full.get("pending")
    if pending is not None and not pending["files"]:
        pending = {k: pending[k] for k in BRIEF_PENDING}
    out["pending"] = pending
    out["detail"] = {
        "level": "brief",
        "left_out": {
            "coverage_metrics": len(cov) - len(out["coverage"]),
            "revisions": len(full["revisions"]),
        },
        "more": "index_status with detail: full (node and edge counts by kind, every coverage"
        " metric with its note, schema files, store sizes, revisions)",
    }
    return out


def pending_changes(
    root: Path, rev_id: str, graph: GraphStore, control: ControlStore
) -> dict[str, Any]:
    """The indexed files of ``rev_id`` changed (or deleted) on disk since the ledger last
    recorded them, and the command that registers them."""
    from ragraf.drift.state import ledger_state

    state = ledger_state(control.entries(rev_id))
    modified: list[str] = []
    deleted: list[str] = []
    for f in graph.files(rev_id):
        known = state.get(f.path)
        recorded = known.new_hash if known is not None else f.sha256
        now = sha_now(root, f.path, (f.size, f.mtime_ns, f.sha256))
        if now == recorded or (now is None and known is not None and recorded is None):
            continue
        (deleted if now is None else modified).append(f.path)
    return {
        "files": len(modified) + len(deleted),
        "modified": modified[:PENDING_LISTED],
        "deleted": deleted[:PENDING_LISTED],
        "modified_total": len(modified),
        "deleted_total": len(deleted),
        "next": "ragraf drift --scan" if modified or deleted else None,
        "note": "indexed files only: files added to the tree are found by `ragraf drift --scan`",
    }


#: changed files listed by name in ``pending`` (the counts are whole)
PENDING_LISTED = 20
#: rejected schema candidates listed by status (all of them: ``schema``)
STATUS_REJECTED = 20


def _schema_block(graph: GraphStore, rev_id: str, coverage: dict[str, Any]) -> dict[str, Any]:
    """The schema's source and completeness, the files it was read from (and why), and
    the SQL files seen and left out (the first ``STATUS_REJECTED``, with the total)."""
    from ragraf.sql.schema_notes import schema_files

    files = schema_files(graph.coverage(rev_id))
    rejected = files["rejected"]
    return {
        "source": (coverage.get("schema.source") or {}).get("note") or "none",
        "incomplete": (coverage.get("schema.incomplete") or {}).get("note"),
        "dialect": files["dialect"],
        "files": files["used"],
        "rejected": rejected[:STATUS_REJECTED],
        "rejected_total": len(rejected),
        "code_tables": files["code_tables"],
    }

"""The archive of a ledger after `reindex --commit` (architecture §8.4, I5).

Invariants a change must keep:
- The report answers "what changed in the knowledge": counts of entries,
  files, symbols and stale edges; what appeared or changed per file; for each
  group of stale edges whether the new revision confirms them (same edge_uid,
  or the same source, target and kind by fully qualified name); the slice
  boundaries; and the ledger's chain head, so `verify` can tie it to the ledger.
- The report file is written atomically before its drift_archive row; an
  archive is made once per (from, to) pair, so a rerun after a crash completes
  it instead of duplicating it. Ledger rows are never touched.
- Archive rows are chained like the ledger (``ledger.ARCHIVE_HASHED``): each holds the
  sha256 of its report's text and a hash linked to the previous row's; the head goes
  outside ``.ragraf/`` with the ledger's (``ledger.record_heads``), so ``verify`` finds
  an edited report, a deleted row or a deleted tail.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import defaultdict
from typing import Any

from ragraf.clock import now_iso
from ragraf.config import Layout
from ragraf.drift import ledger_text
from ragraf.kinds import ChangeKind
from ragraf.model import ArchiveRow, LedgerEntry
from ragraf.store.control import GENESIS, ControlStore
from ragraf.store.graph import GraphStore


def ensure_archive(
    layout: Layout, graph: GraphStore, control: ControlStore, from_rev: str, to_rev: str
) -> str | None:
    """Write the archive of ``from_rev``'s ledger once; returns its report path (relative to
    the root), or None when there is nothing to archive or it exists already."""
    if any(a.from_rev == from_rev and a.to_rev == to_rev for a in control.archives()):
        return None
    entries = control.entries(from_rev)
    if not entries:
        return None
    rel = f".ragraf/drift/archive/{from_rev}_{to_rev}.md"
    text = render(graph, control, entries, from_rev, to_rev)
    target = layout.root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".archive.", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, target)
    from ragraf.drift import ledger

    prev = control.archive_head()[1]
    row = ArchiveRow(
        0,
        from_rev,
        to_rev,
        now_iso(),
        len(entries),
        rel,
        hashlib.sha256(text.encode("utf-8")).hexdigest(),
        prev,
    )
    control.record_archive(row._replace(archive_hash=ledger.archive_hash(prev, row)))
    ledger.record_heads(layout, control)
    return rel


def render(
    graph: GraphStore,
    control: ControlStore,
    entries: list[LedgerEntry],
    from_rev: str,
    to_rev: str,
) -> str:
    files: dict[str, dict[str, Any]] = {}
    symbols: set[str] = set()
    slices = []
    for e in entries:
        if e.kind == ChangeKind.SLICE_BOUNDARY:
            slices.append({"note": e.note or ", ".join(e.names("symbols_changed"))})
            continue
        f = files.setdefault(
            e.path, {"path": e.path, "kinds": [], "added": [], "removed": [], "changed": []}
        )
        if e.kind not in f["kinds"]:
            f["kinds"].append(e.kind)
        for key, col in (
            ("added", "symbols_added"),
            ("removed", "symbols_removed"),
            ("changed", "symbols_changed"),
        ):
            for name in e.names(col):
                symbols.add(name)
                if name not in f[key]:
                    f[key].append(name)
    stale = control.stale_edges(from_rev)
    uids = sorted({s.edge_uid for s in stale})
    old_edges = graph.edges_by_uids(from_rev, uids)
    # the stale edges only: an edge the new revision still has, or one between the same
    # symbols (fqn, fqn, kind) after its lines moved
    new_uids = {e.edge_uid for e in graph.edges_by_uids(to_rev, uids)} if old_edges else set()
    ends = graph.nodes_by_ids(from_rev, [x for oe in old_edges for x in (oe.src, oe.dst)])
    srcs = [ends.get(oe.src) for oe in old_edges]
    named = all(r is not None and r.fqn for r in srcs)  # else: match the unnamed ones too
    new_triples = (
        graph.edge_triples(to_rev, {r.fqn for r in srcs if r and r.fqn} if named else None)
        if old_edges
        else set()
    )
    groups: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for edge in old_edges:
        src_row = ends.get(edge.src)
        dst_row = ends.get(edge.dst)
        src_name = src_row.label if src_row else edge.src
        triple = (
            (src_row.fqn if src_row else "") or "",
            (dst_row.fqn if dst_row else "") or "",
            edge.kind,
        )
        groups[(edge.kind, src_name)].append(edge.edge_uid in new_uids or triple in new_triples)
    confirmed = sum(sum(v) for v in groups.values())
    stale_groups = []
    confirmed_groups = confirmed_whole = 0
    # what a reader must look at first: groups with edges not confirmed, biggest first; the
    # groups confirmed whole are only counted (they are what did not change)
    for (kind, src), verdicts in sorted(
        groups.items(), key=lambda kv: (all(kv[1]), -len(kv[1]), kv[0])
    ):
        n, ok = len(verdicts), sum(verdicts)
        if ok == n:
            confirmed_groups += 1
            confirmed_whole += n
            continue
        verdict = f"not confirmed in {to_rev}" if ok == 0 else f"{ok} of {n} confirmed in {to_rev}"
        stale_groups.append({"kind": kind, "src": src, "count": n, "verdict": verdict})
    acked = {a.entry_id for a in control.acks([e.id for e in entries])}
    return ledger_text.archive(
        {
            "from_rev": from_rev,
            "to_rev": to_rev,
            "archived_at": now_iso(),
            "entries": entries,
            "files": sorted(files.values(), key=lambda f: f["path"]),
            "symbols_affected": len(symbols),
            "stale_total": len(old_edges),
            "confirmed": confirmed,
            "stale_groups": stale_groups,
            "confirmed_groups": confirmed_groups,
            "confirmed_whole": confirmed_whole,
            "slices": slices,
            "first_id": entries[0].id,
            "last_id": entries[-1].id,
            "chain_head": entries[-1].entry_hash or GENESIS,
            "acks": len(acked),
        }
    )

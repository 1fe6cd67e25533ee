"""The archive of a ledger after `reindex --commit` (architecture §8.4, I5).

Invariants a change must keep:
- The report answers "what changed in the knowledge": counts of entries,
  files, symbols and stale edges; what appeared or changed per file; for each
  group of stale edges whether the new revision confirms them (``_still_there``:
  the same edge_uid; or the same edge at a moved line, paired as ``ragraf diff``
  pairs them; or the same source, target and kind by fully qualified name); the
  slice boundaries; and the ledger's chain head, so `verify` can tie it to the ledger.
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
import re
import tempfile
from collections import defaultdict
from typing import Any

from ragraf.clock import now_iso
from ragraf.config import Layout
from ragraf.drift import ledger_text
from ragraf.kinds import ChangeKind
from ragraf.model import ArchiveRow, EdgeRow, LedgerEntry
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


#: how a stale edge is still in the new revision: the same edge (its uid), or the same
#: source, target, kind and file at another line or between ids that moved
SAME, MOVED = "same", "moved"


def _still_there(
    graph: GraphStore, old_edges: list[EdgeRow], from_rev: str, to_rev: str
) -> dict[str, str]:
    """The stale edges of ``from_rev`` the new revision still holds (edge_uid -> SAME or
    MOVED): by uid, else paired as ``ragraf diff`` pairs them (``revdiff.RevPair``: ends
    paired across line shifts and renames, the file's line map), else by the names of
    their ends without the lines they carry (``revdiff.stable_fqn``) and kind."""
    if not old_edges:
        return {}
    from ragraf.drift.revdiff import RevPair

    out = {e.edge_uid: SAME for e in graph.edges_by_uids(to_rev, [e.edge_uid for e in old_edges])}
    rest = [e for e in old_edges if e.edge_uid not in out]
    if not rest:
        return out
    rp = RevPair(graph, from_rev, to_rev)
    cands = graph.edges_from(to_rev, {rp.pairs.get(e.src, e.src) for e in rest})
    # an edge both revisions hold is nobody's counterpart
    kept = {e.edge_uid for e in graph.edges_by_uids(from_rev, [c.edge_uid for c in cands])}
    paired = rp.match_edges(rest, [c for c in cands if c.edge_uid not in kept]).pairs
    out.update((o.edge_uid, MOVED) for o, _n in paired)
    rest = [e for e in rest if e.edge_uid not in out]
    if not rest:
        return out
    ends = graph.nodes_by_ids(from_rev, [x for e in rest for x in (e.src, e.dst)])

    def name(nid: str) -> str:
        r = ends.get(nid)
        return _strip_line(r.fqn or "") if r else ""

    srcs = [ends.get(e.src) for e in rest]
    named = all(r is not None and r.fqn for r in srcs)  # else: match the unnamed ones too
    fqns = {r.fqn for r in srcs if r and r.fqn} if named else None
    new_triples = {
        (_strip_line(s), _strip_line(d), k) for s, d, k in graph.edge_triples(to_rev, fqns)
    }
    for e in rest:
        if (name(e.src), name(e.dst), e.kind) in new_triples:
            out[e.edge_uid] = MOVED
    return out


def _strip_line(fqn: str) -> str:
    """A name without a line it carries, as ``revdiff.stable_fqn`` spells it (here without
    the node's line at hand: any ``@<digits>`` before ``#`` or the end)."""
    return re.sub(r"@\d+(?=#|$)", "@", fqn)


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
    still = _still_there(graph, old_edges, from_rev, to_rev)
    ends = graph.nodes_by_ids(from_rev, [x for oe in old_edges for x in (oe.src, oe.dst)])
    groups: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for edge in old_edges:
        src_row = ends.get(edge.src)
        src_name = src_row.label if src_row else edge.src
        groups[(edge.kind, src_name)].append(edge.edge_uid in still)
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
            "moved": sum(1 for how in still.values() if how == MOVED),
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

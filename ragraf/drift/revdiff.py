"""`ragraf diff rev-A rev-B`: what the knowledge gained and lost between two retained
revisions. Read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragraf.config import Layout
from ragraf.errors import InvalidArgument
from ragraf.store.graph import GraphStore


def diff_revs(root: Path, rev_a: str, rev_b: str, limit: int = 50) -> dict[str, Any]:
    with GraphStore(Layout(root).graph_db, readonly=True) as graph:
        states = dict(graph.revs())
        for rev in (rev_a, rev_b):
            if states.get(rev) != "ready":
                retained = ", ".join(x for x, s in sorted(states.items()) if s == "ready")
                raise InvalidArgument(
                    f"diff: '{rev}' is not a retained revision; retained: {retained}"
                )
        out: dict[str, Any] = {"from": rev_a, "to": rev_b}
        na, nb = graph.node_ids(rev_a), graph.node_ids(rev_b)
        out["nodes"] = _section(nb - na, na - nb)
        for what, ids, rev in (("added", nb - na, rev_b), ("removed", na - nb, rev_a)):
            rows = graph.nodes_by_ids(rev, sorted(ids)[:limit]).values()
            for r in sorted(rows, key=lambda r: (r.path or "", r.start_line or 0)):
                out["nodes"][what].append(
                    {
                        "kind": r.kind,
                        "fqn": r.fqn,
                        "path": r.path,
                        "start_line": r.start_line,
                        "node_id": r.node_id,
                    }
                )
        ea, eb = graph.edge_uids(rev_a), graph.edge_uids(rev_b)
        out["edges"] = _section(eb - ea, ea - eb)
        for what, uids, rev in (("added", eb - ea, rev_b), ("removed", ea - eb, rev_a)):
            edges = graph.edges_by_uids(rev, sorted(uids)[:limit])
            ends = graph.nodes_by_ids(rev, [x for e in edges for x in (e.src, e.dst)])

            def name(nid: str, ends: dict[str, Any] = ends) -> str:
                n = ends.get(nid)
                return n.label if n is not None else nid

            for e in sorted(
                edges, key=lambda e: (e.evidence_path or "", e.evidence_line or 0, e.kind)
            ):
                out["edges"][what].append(
                    {
                        "kind": e.kind,
                        "src": name(e.src),
                        "dst": name(e.dst),
                        "evidence": e.evidence,
                        "provenance": e.provenance,
                        "edge_uid": e.edge_uid,
                    }
                )
        return out


def _section(added: set[str], removed: set[str]) -> dict[str, Any]:
    return {"added_total": len(added), "removed_total": len(removed), "added": [], "removed": []}

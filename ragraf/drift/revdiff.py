"""`ragraf diff rev-A rev-B`: what the knowledge gained and lost between two retained revisions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragraf.config import Layout
from ragraf.errors import InvalidArgument
from ragraf.store.graph import GraphStore


def diff_revs(root: Path, rev_a: str, rev_b: str, limit: int = 50) -> dict[str, Any]:
    graph = GraphStore(Layout(root).graph_db, readonly=True)
    try:
        states = dict(graph.revs())
        for r in (rev_a, rev_b):
            if states.get(r) != "ready":
                retained = ", ".join(x for x, s in sorted(states.items()) if s == "ready")
                raise InvalidArgument(
                    f"diff: '{r}' is not a retained revision; retained: {retained}"
                )
        na, nb = graph.node_ids(rev_a), graph.node_ids(rev_b)
        ea, eb = graph.edge_uids(rev_a), graph.edge_uids(rev_b)
        out: dict[str, Any] = {"from": rev_a, "to": rev_b}
        names: dict[str, str] = {}
        for sec, (a, b) in (("nodes", (na, nb)), ("edges", (ea, eb))):
            added, removed = sorted(b - a), sorted(a - b)
            out[sec] = {
                "added_total": len(added),
                "removed_total": len(removed),
                "added": [],
                "removed": [],
            }
            for what, ids, rev in (("added", added, rev_b), ("removed", removed, rev_a)):
                if sec == "nodes":
                    for r in sorted(
                        graph.node_rows_by_ids(rev, ids[:limit]),
                        key=lambda r: (r[4] or "", r[5] or 0),
                    ):
                        out[sec][what].append(
                            {
                                "kind": r[1],
                                "fqn": r[3],
                                "path": r[4],
                                "start_line": r[5],
                                "node_id": r[0],
                            }
                        )
                else:
                    rows = graph.edges_by_uids(rev, ids[:limit])
                    ends = graph.nodes_by_ids(rev, [x for r in rows for x in (r[0], r[1])])
                    names.update({k: v[3] or v[2] for k, v in ends.items()})
                    for r in sorted(rows, key=lambda r: (r[4] or "", r[5] or 0, r[2])):
                        out[sec][what].append(
                            {
                                "kind": r[2],
                                "src": names.get(r[0], r[0]),
                                "dst": names.get(r[1], r[1]),
                                "evidence": f"{r[4]}:{r[5]}",
                                "provenance": r[3],
                                "edge_uid": r[8],
                            }
                        )
        return out
    finally:
        graph.close()

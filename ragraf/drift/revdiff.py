"""`ragraf diff rev-A rev-B`: what the knowledge gained and lost between two retained
revisions. Read-only.

Node ids hold the path and the first line (§5.3), so an edit above a method, or a renamed
file, changes ids without changing knowledge. The diff pairs them before listing:
- a file that left path P while a file with the same content (sha256) appeared at Q is
  *renamed* P -> Q, and the nodes it holds are not listed as removed + added;
- a removed and an added node with the same kind, fqn and path (one of each) *moved*
  (from_line -> to_line);
- what is left is added or removed. Totals count every item, lists hold ``limit``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from ragraf.config import Layout
from ragraf.errors import InvalidArgument
from ragraf.kinds import NodeKind, RevState
from ragraf.model import NodeRow
from ragraf.store.graph import GraphStore


def diff_revs(root: Path, rev_a: str, rev_b: str, limit: int = 50) -> dict[str, Any]:
    with GraphStore(Layout(root).graph_db, readonly=True) as graph:
        states = dict(graph.revs())
        for rev in (rev_a, rev_b):
            if states.get(rev) != RevState.READY:
                retained = ", ".join(x for x, s in sorted(states.items()) if s == RevState.READY)
                raise InvalidArgument(
                    f"diff: '{rev}' is not a retained revision; retained: {retained}"
                )
        out: dict[str, Any] = {"from": rev_a, "to": rev_b}
        na, nb = graph.node_ids(rev_a), graph.node_ids(rev_b)
        added = list(graph.nodes_by_ids(rev_b, nb - na).values())
        removed = list(graph.nodes_by_ids(rev_a, na - nb).values())
        renamed = _renamed_files(graph, rev_a, rev_b)
        # nodes of a renamed file, seen from its old path: they are not news
        moved_paths = {r["from"]: r["to"] for r in renamed}
        gone = {
            (r.kind, r.fqn if r.kind != NodeKind.FILE else None, moved_paths[r.path])
            for r in removed
            if r.path in moved_paths
        }
        removed = [r for r in removed if r.path not in moved_paths]
        added = [
            a
            for a in added
            if (a.kind, a.fqn if a.kind != NodeKind.FILE else None, a.path) not in gone
        ]
        moved, added, removed = _moved(added, removed)
        out["nodes"] = {
            "added_total": len(added),
            "removed_total": len(removed),
            "moved_total": len(moved),
            "renamed_files": renamed[:limit],
            "renamed_total": len(renamed),
            "added": [_node(r) for r in _by_place(added)[:limit]],
            "removed": [_node(r) for r in _by_place(removed)[:limit]],
            "moved": moved[:limit],
        }
        ea, eb = graph.edge_uids(rev_a), graph.edge_uids(rev_b)
        out["edges"] = {
            "added_total": len(eb - ea),
            "removed_total": len(ea - eb),
            "added": [],
            "removed": [],
        }
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


def _renamed_files(graph: GraphStore, rev_a: str, rev_b: str) -> list[dict[str, str]]:
    """Paths that left rev_a while a file of the same content appeared in rev_b (one each)."""
    fa = {f.path: f.sha256 for f in graph.files(rev_a)}
    fb = {f.path: f.sha256 for f in graph.files(rev_b)}
    left: dict[str, list[str]] = defaultdict(list)
    came: dict[str, list[str]] = defaultdict(list)
    for p, sha in fa.items():
        if p not in fb:
            left[sha].append(p)
    for p, sha in fb.items():
        if p not in fa:
            came[sha].append(p)
    return sorted(
        (
            {"from": left[sha][0], "to": came[sha][0]}
            for sha in left
            if len(left[sha]) == 1 and len(came.get(sha, [])) == 1
        ),
        key=lambda r: r["from"],
    )


def _moved(
    added: list[NodeRow], removed: list[NodeRow]
) -> tuple[list[dict[str, Any]], list[NodeRow], list[NodeRow]]:
    """Pair a removed and an added node of the same kind, fqn and path (one of each)."""

    def key(r: NodeRow) -> tuple[str, str | None, str | None]:
        return (r.kind, r.fqn, r.path)

    adds: dict[tuple[Any, ...], list[NodeRow]] = defaultdict(list)
    rems: dict[tuple[Any, ...], list[NodeRow]] = defaultdict(list)
    for a in added:
        adds[key(a)].append(a)
    for r in removed:
        rems[key(r)].append(r)
    pairs = {k for k in adds if len(adds[k]) == 1 and len(rems.get(k, [])) == 1}
    moved = [
        {
            "kind": adds[k][0].kind,
            "fqn": adds[k][0].fqn,
            "path": adds[k][0].path,
            "from_line": rems[k][0].start_line,
            "to_line": adds[k][0].start_line,
        }
        for k in pairs
    ]
    moved.sort(key=lambda m: (m["path"] or "", m["to_line"] or 0))
    return (
        moved,
        [a for a in added if key(a) not in pairs],
        [r for r in removed if key(r) not in pairs],
    )


def _by_place(rows: list[NodeRow]) -> list[NodeRow]:
    return sorted(rows, key=lambda r: (r.path or "", r.start_line or 0, r.kind, r.fqn or ""))


def _node(r: NodeRow) -> dict[str, Any]:
    return {
        "kind": r.kind,
        "fqn": r.fqn,
        "path": r.path,
        "start_line": r.start_line,
        "node_id": r.node_id,
    }

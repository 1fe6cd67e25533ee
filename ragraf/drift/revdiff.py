"""`ragraf diff rev-A rev-B`: what the knowledge gained and lost between two retained
revisions. Read-only.

Node ids hold the path and the first line (§5.3), edge uids the ids of their ends and the
evidence line, so an edit above a method, or a renamed file, changes ids without changing
knowledge. The diff pairs them before it lists anything (``RevPair``):
- a file that left path P while a file with the same content (sha256) appeared at Q is
  *renamed* P -> Q: its nodes and edges are paired, not listed;
- a removed and an added node with the same kind, name and path *moved*. A name that
  carries its own line (a SQL string's ``Invoice::find#sql@25``) is compared without it.
  Where several nodes share that key, the file's line map (its text in both revisions,
  diffed) pairs each with the one at its old line's new place; the rest pair in order when
  as many remain on each side, else they stay added / removed;
- an edge of rev-A whose ends and evidence file pair with those of an edge of rev-B, of
  the same kind, is the same edge: at the same line it is nothing (identical knowledge),
  at another it *moved*. Pairing by the line map first, then in order as for nodes.
- What is left is added or removed: only real additions and removals are listed.
Totals count every item, lists hold ``limit``, ordered by place.

``RevPair`` also serves the archive (``ragraf.drift.archive``): whether a stale edge of the
old revision is still in the new one, perhaps at a moved line.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ragraf.config import Layout
from ragraf.errors import InvalidArgument
from ragraf.kinds import NodeKind, RevState
from ragraf.model import EdgeRow, NodeRow
from ragraf.store.graph import GraphStore

T = TypeVar("T")
#: what an edge is once its ends are paired: (src, dst, kind, evidence path), in rev-B's ids
EdgeKey = tuple[str, str, str, str | None]


def stable_fqn(kind: str, fqn: str | None, line: int | None) -> str | None:
    """A node's name without the line it carries (``save#sql@119`` -> ``save#sql@``); a
    file's name is its path, compared apart (None)."""
    if kind == NodeKind.FILE or fqn is None:
        return None
    if line is not None:
        return re.sub(rf"@{line}(?=#|$)", "@", fqn)
    return fqn


class RevPair:
    """The nodes of two revisions paired across line shifts and renamed files."""

    def __init__(self, graph: GraphStore, rev_a: str, rev_b: str) -> None:
        self.graph, self.rev_a, self.rev_b = graph, rev_a, rev_b
        self.sha_a = {f.path: f.sha256 for f in graph.files(rev_a)}
        self.sha_b = {f.path: f.sha256 for f in graph.files(rev_b)}
        self.renamed = _renamed_files(self.sha_a, self.sha_b)
        #: old path -> new path of the renamed files
        self.paths = {r["from"]: r["to"] for r in self.renamed}
        self._maps: dict[str, dict[int, int] | None] = {}
        na, nb = graph.node_ids(rev_a), graph.node_ids(rev_b)
        removed = list(graph.nodes_by_ids(rev_a, na - nb).values())
        added = list(graph.nodes_by_ids(rev_b, nb - na).values())
        #: rev-A node id -> its rev-B node id (moved, or in a renamed file)
        self.pairs: dict[str, str] = {}
        #: (old, new) of the paired nodes whose place changed in a file not renamed
        self.moved: list[tuple[NodeRow, NodeRow]] = []
        #: old path of a renamed file -> how many of its nodes were paired
        self.renamed_nodes: Counter[str] = Counter()
        rem_by: dict[Any, list[NodeRow]] = defaultdict(list)
        add_by: dict[Any, list[NodeRow]] = defaultdict(list)
        for r in removed:
            rem_by[(r.kind, stable_fqn(r.kind, r.fqn, r.start_line), self.path_b(r.path))].append(r)
        for a in added:
            add_by[(a.kind, stable_fqn(a.kind, a.fqn, a.start_line), a.path)].append(a)
        left_a: list[NodeRow] = []
        for key, olds in rem_by.items():
            news = add_by.pop(key, [])
            path = key[2]
            got = self.match(olds, news, _start, self.line_map(olds[0].path) if path else None)
            for old, new in got.pairs:
                self.pairs[old.node_id] = new.node_id
                if old.path == new.path:
                    self.moved.append((old, new))
                elif old.path is not None:
                    self.renamed_nodes[old.path] += 1
            left_a += got.left_a
            if got.left_b:
                add_by[key] = got.left_b
        self.removed = left_a
        self.added = [a for news in add_by.values() for a in news]

    def path_b(self, path: str | None) -> str | None:
        """The path a rev-A path has in rev-B (itself unless the file was renamed)."""
        return self.paths.get(path, path) if path is not None else None

    def line_map(self, path: str | None) -> dict[int, int] | None:
        """rev-A line -> rev-B line of the lines of ``path`` (a rev-A path) whose text did not
        change; None when the file is in one revision only or its text is not stored."""
        if path is None:
            return None
        if path not in self._maps:
            self._maps[path] = self._make_map(path)
        return self._maps[path]

    def _make_map(self, path: str) -> dict[int, int] | None:
        new = self.path_b(path)
        sha_a, sha_b = self.sha_a.get(path), self.sha_b.get(new or "")
        if sha_a is None or sha_b is None:
            return None
        if sha_a == sha_b:
            return _IDENTITY
        ta = self.graph.file_text(self.rev_a, path)
        tb = self.graph.file_text(self.rev_b, new or path)
        if ta is None or tb is None:
            return None
        la, lb = ta.split("\n"), tb.split("\n")
        out: dict[int, int] = {}
        for i, j, n in difflib.SequenceMatcher(None, la, lb).get_matching_blocks():
            for k in range(n):
                out[i + k + 1] = j + k + 1
        return out

    @staticmethod
    def match(
        olds: list[T],
        news: list[T],
        line: Callable[[T], int | None],
        lines: dict[int, int] | None,
    ) -> _Matched[T]:
        """Pair ``olds`` (rev-A) with ``news`` (rev-B) of one key: first each old one with the
        new one at its line's new place (``lines``), then the rest in order of their lines
        when as many remain on each side."""
        pairs: list[tuple[T, T]] = []
        if lines is not None and olds and news:
            at: dict[int | None, list[T]] = defaultdict(list)
            for n in news:
                at[line(n)].append(n)
            rest_a = []
            for o in olds:
                ln = line(o)
                hit = at.get(ln if lines is _IDENTITY or ln is None else lines.get(ln))
                if hit:
                    pairs.append((o, hit.pop(0)))
                else:
                    rest_a.append(o)
            olds, news = rest_a, [n for ns in at.values() for n in ns]
        if olds and len(olds) == len(news):
            key = lambda x: line(x) or 0  # noqa: E731
            pairs += zip(sorted(olds, key=key), sorted(news, key=key), strict=True)
            olds, news = [], []
        return _Matched(pairs, olds, news)

    # -- edges ---------------------------------------------------------------------
    def key_a(self, e: EdgeRow) -> EdgeKey:
        """A rev-A edge in rev-B's terms."""
        return (
            self.pairs.get(e.src, e.src),
            self.pairs.get(e.dst, e.dst),
            e.kind,
            self.path_b(e.evidence_path),
        )

    @staticmethod
    def key_b(e: EdgeRow) -> EdgeKey:
        return (e.src, e.dst, e.kind, e.evidence_path)

    def match_edges(self, olds: Iterable[EdgeRow], news: Iterable[EdgeRow]) -> EdgeMatch:
        """Rev-A edges paired with rev-B edges (same paired ends, kind and evidence file)."""
        by_a: dict[EdgeKey, list[EdgeRow]] = defaultdict(list)
        by_b: dict[EdgeKey, list[EdgeRow]] = defaultdict(list)
        for e in olds:
            by_a[self.key_a(e)].append(e)
        for e in news:
            by_b[self.key_b(e)].append(e)
        out = EdgeMatch()
        for key, es in by_a.items():
            got = self.match(
                es,
                by_b.pop(key, []),
                _line,
                self.line_map(es[0].evidence_path),
            )
            out.pairs += got.pairs
            out.removed += got.left_a
            out.added += got.left_b
        out.added += [e for es in by_b.values() for e in es]
        return out


#: the line map of a file whose text did not change (every line keeps its number)
_IDENTITY: dict[int, int] = {}


@dataclass
class _Matched(Generic[T]):
    """Items of one key paired across the revisions, and those left on either side."""

    pairs: list[tuple[T, T]]
    left_a: list[T]
    left_b: list[T]


class EdgeMatch:
    """Edges of rev-A paired with edges of rev-B; what is left was removed or added."""

    def __init__(self) -> None:
        self.pairs: list[tuple[EdgeRow, EdgeRow]] = []
        self.removed: list[EdgeRow] = []
        self.added: list[EdgeRow] = []


def _start(r: NodeRow) -> int | None:
    return r.start_line


def _line(e: EdgeRow) -> int | None:
    return e.evidence_line


def diff_revs(root: Path, rev_a: str, rev_b: str, limit: int = 50) -> dict[str, Any]:
    with GraphStore(Layout(root).graph_db, readonly=True) as graph:
        states = dict(graph.revs())
        for rev in (rev_a, rev_b):
            if states.get(rev) != RevState.READY:
                retained = ", ".join(x for x, s in sorted(states.items()) if s == RevState.READY)
                raise InvalidArgument(
                    f"diff: '{rev}' is not a retained revision; retained: {retained}"
                )
        rp = RevPair(graph, rev_a, rev_b)
        ea, eb = graph.edge_uids(rev_a), graph.edge_uids(rev_b)
        em = rp.match_edges(
            graph.edges_by_uids(rev_a, ea - eb), graph.edges_by_uids(rev_b, eb - ea)
        )
        moved_edges = [(o, n) for o, n in em.pairs if o.evidence_line != n.evidence_line]
        renamed = [
            {
                **r,
                "nodes": rp.renamed_nodes[r["from"]],
                "edges": sum(1 for o, _n in em.pairs if o.evidence_path == r["from"]),
            }
            for r in rp.renamed
        ]
        return {
            "from": rev_a,
            "to": rev_b,
            "nodes": {
                "added_total": len(rp.added),
                "removed_total": len(rp.removed),
                "moved_total": len(rp.moved),
                "renamed_files": renamed[:limit],
                "renamed_total": len(renamed),
                "added": [_node(r) for r in _by_place(rp.added)[:limit]],
                "removed": [_node(r) for r in _by_place(rp.removed)[:limit]],
                "moved": [_moved(o, n) for o, n in _by_new_place(rp.moved)[:limit]],
            },
            "edges": {
                "added_total": len(em.added),
                "removed_total": len(em.removed),
                "moved_total": len(moved_edges),
                "added": _edges(graph, rev_b, em.added, limit),
                "removed": _edges(graph, rev_a, em.removed, limit),
            },
            "moved_files": _moved_files(rp.moved, moved_edges),
        }


def _moved_files(
    nodes: list[tuple[NodeRow, NodeRow]], edges: list[tuple[EdgeRow, EdgeRow]]
) -> list[dict[str, Any]]:
    """Per file, how many nodes and edges moved and by how many lines (the distinct shifts)."""
    files: dict[str, dict[str, Any]] = {}

    def add(path: str | None, what: str, delta: int) -> None:
        f = files.setdefault(path or "", {"path": path, "nodes": 0, "edges": 0, "lines": set()})
        f[what] += 1
        f["lines"].add(delta)

    for o, n in nodes:
        add(n.path, "nodes", (n.start_line or 0) - (o.start_line or 0))
    for oe, ne in edges:
        add(ne.evidence_path, "edges", (ne.evidence_line or 0) - (oe.evidence_line or 0))
    return [{**f, "lines": sorted(f["lines"])} for _p, f in sorted(files.items())]


def _edges(graph: GraphStore, rev: str, rows: list[EdgeRow], limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` edges by place, with their ends named."""
    shown = sorted(rows, key=lambda e: (e.evidence_path or "", e.evidence_line or 0, e.kind))
    shown = shown[:limit]
    ends = graph.nodes_by_ids(rev, [x for e in shown for x in (e.src, e.dst)])

    def name(nid: str) -> str:
        n = ends.get(nid)
        return n.label if n is not None else nid

    return [
        {
            "kind": e.kind,
            "src": name(e.src),
            "dst": name(e.dst),
            "evidence": e.evidence,
            "provenance": e.provenance,
            "edge_uid": e.edge_uid,
        }
        for e in shown
    ]


def _renamed_files(fa: dict[str, str], fb: dict[str, str]) -> list[dict[str, str]]:
    """Paths that left rev_a while a file of the same content appeared in rev_b (one each)."""
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


def _by_place(rows: list[NodeRow]) -> list[NodeRow]:
    return sorted(rows, key=lambda r: (r.path or "", r.start_line or 0, r.kind, r.fqn or ""))


def _by_new_place(pairs: list[tuple[NodeRow, NodeRow]]) -> list[tuple[NodeRow, NodeRow]]:
    return sorted(pairs, key=lambda p: (p[1].path or "", p[1].start_line or 0, p[1].kind))


def _moved(old: NodeRow, new: NodeRow) -> dict[str, Any]:
    return {
        "kind": new.kind,
        "fqn": new.fqn,
        "path": new.path,
        "from_line": old.start_line,
        "to_line": new.start_line,
    }


def _node(r: NodeRow) -> dict[str, Any]:
    return {
        "kind": r.kind,
        "fqn": r.fqn,
        "path": r.path,
        "start_line": r.start_line,
        "node_id": r.node_id,
    }

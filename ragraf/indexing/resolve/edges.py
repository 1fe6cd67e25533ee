"""The edge set of a build, and how a use becomes stated or derived edges (§5.2).

Invariants a change must keep:
- Edges are keyed by edge_uid (§5.3); adding the same edge again keeps the
  higher confidence, so the result does not depend on the order of adds.
- A use with exactly one target and nothing guessed is stated with confidence
  1.0; anything else is derived, its kind ``calls`` becomes ``calls_heuristic``
  and its confidence comes from confidence.yaml (the key says why).
- ``add`` is called once per edge: how the edge is known travels as one
  ``ragraf.lang.linking.EdgeSpec`` (``STATED`` by default), made once per use,
  not per target.
"""

from __future__ import annotations

import json
from typing import Any

from ragraf import ids
from ragraf.kinds import EdgeKind, Layer, Provenance
from ragraf.lang.linking import SOURCES_TS, STATED, EdgeSpec
from ragraf.model import EdgeRow, NodeRow

__all__ = ["SOURCES_TS", "STATED", "EdgeSet", "EdgeSpec"]
#: ``json.dumps(v, sort_keys=True)`` without building an encoder per call (same text)
_sorted_json = json.JSONEncoder(sort_keys=True).encode


class EdgeSet:
    def __init__(self, conf: dict[str, float]) -> None:
        self.conf = conf
        self.edges: dict[str, EdgeRow] = {}
        self.extra_nodes: dict[str, NodeRow] = {}

    def add(
        self,
        src: str,
        dst: str,
        kind: str,
        path: str | None,
        line: int | None,
        spec: EdgeSpec = STATED,
    ) -> None:
        """The edge ``src`` -> ``dst`` of ``kind`` with its evidence (``path``, ``line``),
        known as ``spec`` says; an edge already added with a confidence as high is kept."""
        conf, derived, props, sources = spec
        uid = ids.edge_uid(src, dst, kind, path, line)
        old = self.edges.get(uid)
        if old is not None and old.confidence >= conf:
            return
        self.edges[uid] = EdgeRow(
            src,
            dst,
            kind,
            Provenance.DERIVED if derived else Provenance.STATED,
            path,
            line,
            conf,
            sources,
            uid,
            _sorted_json(props) if props else None,
        )

    def node(self, row: NodeRow) -> None:
        """A node the resolver makes (SQL literal, route, endpoint): the last one wins."""
        self.extra_nodes[row.node_id] = row

    def external(self, kind: str, fqn: str) -> str:
        """The id of a declaration outside the corpus (made once, no path)."""
        nid = ids.node_id(kind, fqn, None, None)
        if nid not in self.extra_nodes:
            self.extra_nodes[nid] = NodeRow(
                nid,
                kind,
                fqn.rsplit("\\", 1)[-1],
                fqn,
                None,
                None,
                None,
                json.dumps({"external": True}),
                Layer.STRUCTURAL,
            )
        return nid

    def link_targets(
        self,
        src: str,
        targets: list[str],
        kind: str,
        path: str,
        line: int,
        derived: bool,
        via: str | None,
        magic: bool = False,
    ) -> str | None:
        """Link a use to its target declaration(s); returns 'stated', 'derived' or None."""
        if not targets:
            return None
        if len(targets) == 1 and not derived and not magic:
            self.add(src, targets[0], kind, path, line)
            return Provenance.STATED
        if kind == EdgeKind.CALLS:
            kind = EdgeKind.CALLS_HEURISTIC
        if magic:
            conf, via = self.conf["magic"], "magic"
        elif via == "global-single-type":  # every assignment of the global agrees on a class
            conf = self.conf["global_single_type"]
        elif len(targets) == 1:
            conf = (
                self.conf["global_variable"] if via == "global" else self.conf["heuristic_single"]
            )
        else:
            conf = self.conf["heuristic_ambiguous"]
        props: dict[str, Any] = {"via": via or "ambiguous"}
        if magic:
            props["magic"] = True
        if len(targets) > 1:
            props["candidates"] = len(targets)
        spec = EdgeSpec(conf, True, props)
        for t in targets:
            self.add(src, t, kind, path, line, spec)
        return Provenance.DERIVED

    def sorted_edges(self) -> list[EdgeRow]:
        return [self.edges[k] for k in sorted(self.edges)]

    def sorted_nodes(self) -> list[NodeRow]:
        return [self.extra_nodes[k] for k in sorted(self.extra_nodes)]

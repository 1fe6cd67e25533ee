"""Reading graph.sqlite's edges, routes and data-flow units of one revision.

Invariants a change must keep:
- Every read is scoped to one revision (the revision's number is the query's first
  parameter, ``?1``) and returns ``ragraf.model`` rows; edges come in evidence order
  (sorted in Python: an ORDER BY lures the planner onto the evidence index).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ragraf.kinds import Provenance
from ragraf.model import EdgeRow, FlowUnitRow, RankEdge, Reached, RouteRow, UnresolvedRow
from ragraf.store import ranges
from ragraf.store.db import Database
from ragraf.store.graph.cols import EDGE_READ, FLOW_COLS, sql_list
from ragraf.store.packed import unpack, unpacked_flow
from ragraf.store.ranges import rev_no


class EdgeReads:
    """The edge, route and flow-unit reads of ``GraphStore`` (over its ``db``)."""

    db: Database

    # -- edges ------------------------------------------------------------------
    def edges_to(
        self,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None = None,
        stated_only: bool = False,
    ) -> list[EdgeRow]:
        return self._edges("dst", rev_id, node_ids, kinds, stated_only)

    def edges_from(
        self,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None = None,
        stated_only: bool = False,
    ) -> list[EdgeRow]:
        return self._edges("src", rev_id, node_ids, kinds, stated_only)

    def _edges(
        self,
        col: str,
        rev_id: str,
        node_ids: Iterable[str],
        kinds: Sequence[str] | None,
        stated_only: bool,
    ) -> list[EdgeRow]:
        ids = list(set(node_ids))
        if not ids:
            return []
        sql = (
            f"SELECT {EDGE_READ} FROM edge WHERE rev_from <= ?1 AND rev_to > ?1"
            f" AND {col} IN (SELECT value FROM json_each(?))"
        )
        params: list[Any] = [rev_no(rev_id), json.dumps(ids)]
        if kinds is not None:
            sql += f" AND kind IN ({sql_list(kinds)})"
        if stated_only:
            sql += f" AND provenance='{Provenance.STATED}'"
        # sorted here: an ORDER BY lures the planner onto the evidence index (a scan)
        return sorted(
            self.db.rows(EdgeRow, sql, params),
            key=lambda e: (e.evidence_path or "", e.evidence_line or 0, e.kind, e.src, e.dst),
        )

    def caller_counts(
        self, rev_id: str, node_ids: Iterable[str], kinds: Sequence[str]
    ) -> dict[str, int]:
        """How many distinct nodes reach each of ``node_ids`` by an edge of ``kinds``
        (absent: none)."""
        ids = list(set(node_ids))
        if not ids:
            return {}
        return {
            str(dst): int(n)
            for dst, n in self.db.query(
                "SELECT dst, count(DISTINCT src) FROM edge WHERE rev_from <= ?1 AND rev_to > ?1"
                f" AND dst IN (SELECT value FROM json_each(?)) AND kind IN ({sql_list(kinds)})"
                " GROUP BY dst",
                (rev_no(rev_id), json.dumps(ids)),
            )
        }

    def unresolved_calls(
        self, rev_id: str, names: Iterable[str], kinds: Sequence[str]
    ) -> list[UnresolvedRow]:
        """Call sites of these (lower-case short) names that no declaration was attached
        to, in path and line order."""
        n = sorted({x.lower() for x in names})
        if not n:
            return []
        return self.db.rows(
            UnresolvedRow,
            "SELECT name, kind, src, path, line, reason, detail FROM unresolved_call"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND name IN (SELECT value FROM json_each(?))"
            f" AND kind IN ({sql_list(kinds)}) ORDER BY path, line, name",
            (rev_no(rev_id), json.dumps(n)),
        )

    def dynamic_calls(self, rev_id: str, kinds: Sequence[str]) -> list[UnresolvedRow]:
        """Call sites whose name is computed at run time and not known (``*``) or known
        only as a pattern (``upgrade_to_*``), in path and line order."""
        return self.db.rows(
            UnresolvedRow,
            "SELECT name, kind, src, path, line, reason, detail FROM unresolved_call"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND instr(name, '*') > 0"
            f" AND kind IN ({sql_list(kinds)}) ORDER BY path, line, name",
            (rev_no(rev_id),),
        )

    def call_sites_of_name(
        self, rev_id: str, names: Iterable[str], kinds: Sequence[str], node_kinds: Sequence[str]
    ) -> list[tuple[str, str, int]]:
        """(callee node id, path, line) of every call edge whose callee, of one of
        ``node_kinds``, has one of these short names (any case)."""
        n = sorted({x.lower() for x in names})
        if not n:
            return []
        rows = self.db.query(
            "SELECT e.dst, e.evidence_path, e.evidence_line FROM node c"
            " JOIN edge e ON e.rev_from <= ?1 AND e.rev_to > ?1 AND e.dst = c.node_id"
            f" AND e.kind IN ({sql_list(kinds)})"
            " WHERE c.rev_from <= ?1 AND c.rev_to > ?1 AND c.name COLLATE NOCASE IN (SELECT value FROM json_each(?))"
            f" AND c.kind IN ({sql_list(node_kinds)})",
            (rev_no(rev_id), json.dumps(n)),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def edges_with_evidence_in(self, rev_id: str, path: str) -> list[EdgeRow]:
        return self.db.rows(
            EdgeRow,
            f"SELECT {EDGE_READ} FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND evidence_path=?",
            (rev_no(rev_id), path),
        )

    def edges_by_uids(self, rev_id: str, uids: Iterable[str]) -> list[EdgeRow]:
        u = list(set(uids))
        if not u:
            return []
        return self.db.rows(
            EdgeRow,
            f"SELECT {EDGE_READ} FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND edge_uid IN"
            " (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(u)),
        )

    def edge_ends(self, rev_id: str, kind: str) -> list[tuple[str, str]]:
        """(src, dst) of every edge of one kind."""
        return [
            (r[0], r[1])
            for r in self.db.query(
                "SELECT src, dst FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND kind=?",
                (rev_no(rev_id), kind),
            )
        ]

    def edge_triples(
        self, rev_id: str, src_fqns: Iterable[str] | None = None
    ) -> set[tuple[str, str, str]]:
        """(src fqn, dst fqn, kind) of every edge: identity that survives line shifts; with
        ``src_fqns``, only the edges leaving nodes of those fqns (an indexed lookup)."""
        where = f"WHERE {ranges.live('e')}"
        params: tuple[Any, ...] = (rev_no(rev_id),)
        if src_fqns is not None:
            where = f"WHERE {ranges.live('e')} AND s.fqn IN (SELECT value FROM json_each(?2))"
            params = (rev_no(rev_id), json.dumps(sorted(set(src_fqns))))
        return {
            (r[0] or "", r[1] or "", r[2])
            for r in self.db.query(
                "SELECT s.fqn, d.fqn, e.kind FROM node s"
                f" JOIN edge e ON e.src = s.node_id AND {ranges.live('s')}"
                f" JOIN node d ON d.node_id = e.dst AND {ranges.live('d')} {where}",
                params,
            )
        }

    def reach_upstream(
        self,
        rev_id: str,
        seeds: Sequence[str],
        kinds: Sequence[str],
        depth: int,
        stated_only: bool,
        limit: int,
    ) -> list[Reached]:
        """Everything that depends on ``seeds`` through ``kinds`` (edges walked dst -> src),
        breadth first, one indexed query per level, at most ``limit`` nodes (seeds included).

        ``soft`` is True when no path of stated edges reaches the node (every path needs a
        derived edge); the edge is the one that first reached it."""
        best: dict[str, tuple[int, bool]] = dict.fromkeys(seeds, (0, False))
        via: dict[str, tuple[str | None, str | None]] = {}
        frontier: dict[str, bool] = dict.fromkeys(seeds, False)
        sql = (
            "SELECT src, dst, provenance, edge_uid, evidence_path FROM edge WHERE rev_from <= ?1 AND rev_to > ?1"
            f" AND dst IN (SELECT value FROM json_each(?)) AND kind IN ({sql_list(kinds)})"
            + (f" AND provenance='{Provenance.STATED}'" if stated_only else "")
        )
        for d in range(1, depth + 1):
            if not frontier or len(best) >= limit:
                break
            nxt: dict[str, bool] = {}
            for src, dst, prov, uid, epath in self.db.query(
                sql, (rev_no(rev_id), json.dumps(list(frontier)))
            ):
                soft = frontier[dst] or prov == Provenance.DERIVED
                old = best.get(src)
                if old is None:
                    best[src] = (d, soft)
                    via[src] = (uid, epath)
                    nxt[src] = soft and nxt.get(src, True)
                elif not soft and old[1]:
                    # a stated path found later: the node becomes hard, and so may what it reaches
                    best[src] = (old[0], False)
                    nxt[src] = False
            frontier = nxt
        out = sorted(
            (Reached(n, d, s, *via.get(n, (None, None))) for n, (d, s) in best.items()),
            key=lambda x: (x.depth, x.node_id),
        )
        return out[:limit]

    def graph_for_ranking(self, rev_id: str, kinds: Sequence[str]) -> list[RankEdge]:
        return self.db.rows(
            RankEdge,
            f"SELECT src, dst, kind, confidence FROM edge WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN"
            f" ({sql_list(kinds)})",
            (rev_no(rev_id),),
        )

    def routes(self, rev_id: str) -> list[RouteRow]:
        return self.db.rows(
            RouteRow,
            "SELECT node_id, route, method, evidence_path, evidence_line FROM web_route"
            " WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY route, method",
            (rev_no(rev_id),),
        )

    # -- the data-flow layer (issue 13) ----------------------------------------
    def has_flow(self, rev_id: str) -> bool:
        """Whether the revision has the data-flow layer (capability ``dataflow``)."""
        return (
            self.db.query_one(
                "SELECT 1 FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 LIMIT 1",
                (rev_no(rev_id),),
            )
            is not None
        )

    def flow_units_in_file(self, rev_id: str, path: str) -> list[FlowUnitRow]:
        """Every flow unit of one file, in unit order (``<path>#0`` is its script)."""
        rows = self.db.rows(
            FlowUnitRow,
            f"SELECT {FLOW_COLS} FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND path=?",
            (rev_no(rev_id), path),
        )
        return sorted(map(unpacked_flow, rows), key=lambda r: int(r.unit_id.rsplit("#", 1)[1]))

    def flow_heads_in_file(self, rev_id: str, path: str) -> list[tuple[FlowUnitRow, bool]]:
        """The units of a file without their data (``data`` is ''), in unit order, each with
        whether it has links from other units of the file (``x`` not empty)."""
        return self._heads("path=?", (rev_no(rev_id), path))

    def flow_heads_of(self, rev_id: str, func_node_id: str) -> list[tuple[FlowUnitRow, bool]]:
        """The units of one function or method (its closures included), without data."""
        return self._heads("func_node_id=?", (rev_no(rev_id), func_node_id))

    def _heads(self, where: str, params: tuple[int, str]) -> list[tuple[FlowUnitRow, bool]]:
        rows = self.db.query(
            "SELECT unit_id, func_node_id, path, start_line, end_line, kind, '', sources,"
            f" data FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND {where}",
            params,
        )
        # links from other units: the JSON's "x" list is not empty (it ends the data)
        out = [(FlowUnitRow(*r[:8]), not unpack(r[8]).endswith('"x":[]}')) for r in rows]
        return sorted(out, key=lambda h: (h[0].path, int(h[0].unit_id.rsplit("#", 1)[1])))

    def flow_unit_data(self, rev_id: str, unit_id: str) -> str | None:
        row = self.db.query_one(
            "SELECT data FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND unit_id=?",
            (rev_no(rev_id), unit_id),
        )
        return None if row is None else unpack(row[0])

    def flow_units_reading(self, rev_id: str, source: str, limit: int = 2000) -> list[FlowUnitRow]:
        """The units whose statements read a taint source (``$_GET``, ``php://input``)."""
        rows = self.db.rows(
            FlowUnitRow,
            f"SELECT {FLOW_COLS} FROM flow_unit WHERE rev_from <= ?1 AND rev_to > ?1 AND sources IS NOT NULL"
            " AND (' ' || sources || ' ') LIKE ? ORDER BY path, unit_id LIMIT ?",
            (rev_no(rev_id), f"% {source} %", limit),
        )
        return list(map(unpacked_flow, rows))

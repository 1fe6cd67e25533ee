"""Slices and flows over the data-flow layer (issue 13): ``slice`` and ``flow`` read the
flow units of graph.sqlite (``ragraf.lang.php.flow``) and cross functions through the
resolver's call edges.

Invariants a change must keep:
- Only facts of the revision: statements, def-use and control edges come from the
  units; inter-procedural steps only along ``calls`` / ``calls_heuristic`` edges, whose
  provenance and confidence the step keeps (a derived call gives a derived step).
- A slice follows control dependence; a flow does not (``Walk(control=False)``): data that
  only decides whether a sink runs does not reach it.
- ``depth`` counts inter-procedural hops (argument -> parameter, return -> call result):
  depth 1 follows one hop beyond the starting function.
- A statement is shown as path:line, its kind and its first line (untrusted), never a
  body; ``mode: nodes`` leaves the text out.
- What could not be followed (a call without a resolved callee, a statement cap) is
  said in the answer, not dropped in silence.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ragraf.errors import InvalidArgument
from ragraf.facade import lookup, sanitize
from ragraf.facade.context import Ctx
from ragraf.kinds import (
    CALL_EDGES,
    FlowCallHow,
    FlowStep,
    NodeKind,
    Provenance,
    SinkKind,
    StmtKind,
    UnitKind,
)
from ragraf.model import EdgeRow, FlowUnitRow

#: statements one slice lists before it stops (and says so): beyond this an answer is no
#: longer a slice an agent reads, and its cost grows with every function it crosses
MAX_STATEMENTS = 200
#: call sites (callers) / callee units followed per inter-procedural step (the rest is said)
MAX_FANOUT = 10
#: confidence of a class-wide property link (confidence.yaml heuristic_single)
PROPERTY_CONFIDENCE = 0.6
#: statement kinds that decide whether the statements they control run
HEADERS = frozenset(
    {
        StmtKind.IF,
        StmtKind.ELSEIF,
        StmtKind.WHILE,
        StmtKind.FOR,
        StmtKind.FOREACH,
        StmtKind.SWITCH,
        StmtKind.CASE,
        StmtKind.DO_WHILE,
    }
)
#: the units of a declaration that takes arguments and returns (not a closure, not a script)
_CALLED_UNITS = (UnitKind.FUNCTION, UnitKind.METHOD)
LIMIT_FLOW = (
    "data flow: syntactic def-use per function (tree-sitter, reaching definitions); values"
    " through object properties of other objects, dynamic variables ($$x), extract(), eval"
    " and by-reference parameters of user functions are not tracked"
)

Node = tuple[str, int]  # (unit_id, statement index)
NONE: frozenset[str] = frozenset()


@dataclass
class Unit:
    row: FlowUnitRow
    stmts: list[list[Any]]
    din: dict[int, list[tuple[Node, str, str]]] = field(default_factory=dict)
    dout: dict[int, list[tuple[Node, str, str]]] = field(default_factory=dict)
    controls: dict[int, list[int]] = field(default_factory=dict)


class FlowGraph:
    """The units a walk touches: their heads (no data) a file at a time, each unit's data
    parsed on first use (a slice reads a few units of a few files, not whole files)."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.units: dict[str, Unit] = {}
        self.heads: dict[str, list[tuple[FlowUnitRow, bool]]] = {}
        self._callees: dict[str, list[EdgeRow]] = {}
        self._callers: dict[str, list[EdgeRow]] = {}
        self._names: dict[str, str] = {}
        self._of: dict[str, list[tuple[FlowUnitRow, bool]]] = {}

    def file_heads(self, path: str) -> list[tuple[FlowUnitRow, bool]]:
        if path not in self.heads:
            self.heads[path] = self.ctx.graph.flow_heads_in_file(self.ctx.rev, path)
        return self.heads[path]

    def parse(self, row: FlowUnitRow) -> Unit:
        uid = row.unit_id
        u = self.units.get(uid)
        if u is not None:
            return u
        data = row.data or self.ctx.graph.flow_unit_data(self.ctx.rev, uid)
        d = json.loads(data or '{"s":[],"d":[],"x":[]}')
        u = self.units[uid] = Unit(row._replace(data=""), d["s"])
        for a, b, var in d["d"]:
            u.din.setdefault(b, []).append(((uid, a), var, FlowStep.DEF_USE))
            u.dout.setdefault(a, []).append(((uid, b), var, FlowStep.DEF_USE))
        for i, s in enumerate(u.stmts):
            if s[3] >= 0:
                u.controls.setdefault(s[3], []).append(i)
            if s[8] >= 0 and s[8] != s[3]:
                u.controls.setdefault(s[8], []).append(i)
        for oi, osi, si, var, kind in d["x"]:
            u.din.setdefault(si, []).append(((f"{row.path}#{oi}", osi), var, kind))
        for si, oi, osi, var, kind in d.get("o", ()):
            u.dout.setdefault(si, []).append(((f"{row.path}#{oi}", osi), var, kind))
        return u

    def unit(self, uid: str) -> Unit:
        if uid not in self.units:
            path = uid.rsplit("#", 1)[0]
            row = next(r for r, _x in self.file_heads(path) if r.unit_id == uid)
            self.parse(row)
        return self.units[uid]

    def at(self, path: str, line: int) -> list[Node]:
        """The statements at ``path:line``: those starting there in the innermost unit
        around it, else the innermost statement spanning it."""
        heads = [r for r, _x in self.file_heads(path) if r.start_line <= line <= r.end_line]
        if not heads:
            heads = [r for r, _x in self.file_heads(path) if r.kind == UnitKind.SCRIPT]
        heads.sort(key=lambda r: (r.end_line - r.start_line, r.kind == UnitKind.SCRIPT))
        units = [self.parse(r) for r in heads]
        for u in units:
            hits = [i for i, s in enumerate(u.stmts) if s[0] == line]
            if hits:
                return [(u.row.unit_id, i) for i in hits]
        for u in units:
            spans = [(s[1] - s[0], i) for i, s in enumerate(u.stmts) if s[0] <= line <= s[1]]
            if spans:
                return [(u.row.unit_id, min(spans)[1])]
        return []

    def name_of(self, node_id: str) -> str:
        if node_id not in self._names:
            row = self.ctx.graph.node(self.ctx.rev, node_id)
            self._names[node_id] = (row.name or "").lower() if row else ""
        return self._names[node_id]

    def callees(self, func: str) -> list[EdgeRow]:
        if func not in self._callees:
            self._callees[func] = self.ctx.graph.edges_from(self.ctx.rev, [func], CALL_EDGES)
        return self._callees[func]

    def callers(self, func: str) -> list[EdgeRow]:
        """Call edges into ``func``: stated first, then by place (a deterministic order)."""
        if func not in self._callers:
            rows = self.ctx.graph.edges_to(self.ctx.rev, [func], CALL_EDGES)
            rows.sort(
                key=lambda e: (
                    e.provenance != Provenance.STATED,
                    e.evidence_path or "",
                    e.evidence_line or 0,
                    e.src,
                )
            )
            self._callers[func] = rows
        return self._callers[func]

    def heads_of(self, func: str) -> list[tuple[FlowUnitRow, bool]]:
        if func not in self._of:
            self._of[func] = self.ctx.graph.flow_heads_of(self.ctx.rev, func)
        return self._of[func]

    def entry_units(self, func: str) -> list[Unit]:
        """The units of a function or method (its closures aside)."""
        return [self.parse(r) for r, _x in self.heads_of(func) if r.kind != UnitKind.CLOSURE]

    def call_sites(self, e: EdgeRow, callee: str) -> list[tuple[Node, list[list[str]]]]:
        """The statements of a call edge's evidence line that call ``callee`` by name, with
        the variables of each argument."""
        if not e.evidence_path or not e.evidence_line:
            return []
        name = self.name_of(callee)
        out: list[tuple[Node, list[list[str]]]] = []
        for uid, i in self.at_line_in(e.evidence_path, e.evidence_line, e.src):
            s = self.units[uid].stmts[i]
            for c in s[6]:
                if c[0] == name or (name and c[0] == "" and not out):
                    out.append(((uid, i), c[2]))
        return out

    def at_line_in(self, path: str, line: int, func: str) -> list[Node]:
        hits = []
        for r, _x in self.file_heads(path):
            if not r.start_line <= line <= r.end_line:
                continue
            if r.func_node_id != func and r.kind != UnitKind.SCRIPT:
                continue
            u = self.parse(r)
            for i, s in enumerate(u.stmts):
                if s[0] <= line <= s[1] and (s[0] == line or s[2] not in HEADERS):
                    hits.append((u.row.unit_id, i))
        if len(hits) > 1:  # the innermost statements only (a call inside a closure)

            def span(h: Node) -> int:
                st = self.units[h[0]].stmts[h[1]]
                return int(st[1] - st[0])

            best = min(span(h) for h in hits)
            hits = [h for h in hits if span(h) == best]
        return hits


def _edge(
    g: FlowGraph,
    src: Node,
    dst: Node,
    var: str | None,
    kind: str,
    provenance: str = Provenance.STATED,
    confidence: float = 1.0,
    via: EdgeRow | None = None,
) -> dict[str, Any]:
    a, b = g.unit(src[0]), g.unit(dst[0])
    out: dict[str, Any] = {
        "from": f"{a.row.path}:{a.stmts[src[1]][0]}",
        "to": f"{b.row.path}:{b.stmts[dst[1]][0]}",
        "var": sanitize.name(var) if var else None,
        "kind": kind,
        "provenance": provenance,
        "confidence": confidence,
    }
    if via is not None:
        out["call_evidence"] = f"{via.evidence_path}:{via.evidence_line}"
        out["edge_uid"] = via.edge_uid
        g.ctx.edge_uids[via.edge_uid] = via.evidence_path or ""
    return out


class Walk:
    """One slice: a breadth-first walk over def-use, control and call steps."""

    def __init__(
        self,
        g: FlowGraph,
        direction: str,
        depth: int,
        max_statements: int = MAX_STATEMENTS,
        control: bool = True,
    ) -> None:
        self.g = g
        #: follow control dependence (a slice: what decides whether a statement runs); a
        #: flow follows data alone (a source that only decides whether a sink runs does
        #: not reach it)
        self.control = control
        self.max_statements = max_statements
        self.back = direction == "back"
        self.depth = depth
        self.seen: set[tuple[Node, frozenset[str] | None, frozenset[str]]] = set()
        self.nodes: dict[Node, int] = {}  # node -> hops at which it was reached
        self.edges: list[dict[str, Any]] = []
        self.edge_keys: dict[tuple[Node, Node, str | None, str], dict[str, Any]] = {}
        self.functions: dict[str, int] = {}
        self.cut: dict[str, int] = {}  # function -> callers it has (more than MAX_FANOUT)
        self.truncated = False
        #: (statement, hops, only these variables' edges (None: all), variables that arrived
        #: by def-use: forward, what a call passes on to the callee's parameters)
        self.queue: deque[tuple[Node, int, frozenset[str] | None, frozenset[str]]] = deque()
        #: how each statement was first reached: (the statement expanded, the edge), for the
        #: shortest evidence path of `flow`
        self.parent: dict[Node, tuple[Node, dict[str, Any]] | None] = {}
        self.arrived: dict[Node, set[str]] = {}  # variables that reached a statement (forward)
        self.current: Node | None = None
        self.order: list[Node] = []  # statements in the order they were reached
        self.starts: set[Node] = set()
        self.last: dict[str, Any] | None = None

    def add_edge(
        self,
        src: Node,
        dst: Node,
        var: str | None,
        kind: str,
        provenance: str = Provenance.STATED,
        confidence: float = 1.0,
        via: EdgeRow | None = None,
    ) -> None:
        key = (src, dst, var, kind)
        e = self.edge_keys.get(key)
        if e is None:
            e = self.edge_keys[key] = _edge(
                self.g, src, dst, var, kind, provenance, confidence, via
            )
            self.edges.append(e)
        self.last = e

    def fan(self, callers: list[EdgeRow], func: str) -> list[EdgeRow]:
        """The first MAX_FANOUT callers; how many there were is kept for the answer."""
        if len(callers) > MAX_FANOUT:
            self.cut[func] = len(callers)
        return callers[:MAX_FANOUT]

    def push(
        self, n: Node, hops: int, only: frozenset[str] | None, arrived: frozenset[str] = NONE
    ) -> None:
        key = (n, only, arrived)
        if key in self.seen:
            return
        if n not in self.nodes and len(self.nodes) >= self.max_statements:
            self.truncated = True
            return
        self.seen.add(key)
        if n not in self.parent:
            self.parent[n] = (
                None if self.current is None or self.last is None else (self.current, self.last)
            )
        self.arrived.setdefault(n, set()).update(arrived)
        if n not in self.nodes:
            self.nodes[n] = hops
            self.order.append(n)
        u = self.g.unit(n[0])
        self.functions.setdefault(u.row.func_node_id, hops)
        self.queue.append((n, hops, only, arrived))

    def run(
        self, starts: list[Node], only: frozenset[str] | None, arrived: frozenset[str] = NONE
    ) -> None:
        self.start(starts, only, arrived)
        while self.queue and not self.truncated:
            self.step()

    def start(
        self, starts: list[Node], only: frozenset[str] | None, arrived: frozenset[str] = NONE
    ) -> None:
        self.current = None
        self.starts.update(starts)
        for n in starts:
            self.push(n, 0, only, arrived)

    def step(self) -> Node:
        """Expand the next statement of the queue; returns it."""
        n, hops, only, arrived = self.queue.popleft()
        self.current = n
        self.last = None
        if self.back:
            self.step_back(n, hops, only)
        else:
            self.step_forward(n, hops, only, arrived)
        return n

    def path_to(self, n: Node) -> list[dict[str, Any]]:
        """The edges from a start to ``n`` as first discovered (forward: in flow order;
        backward: from ``n`` towards the start)."""
        out: list[dict[str, Any]] = []
        seen: set[Node] = set()
        while n not in seen:
            seen.add(n)
            p = self.parent.get(n)
            if p is None:
                break
            out.append(p[1])
            n = p[0]
        return out[::-1] if not self.back else out

    # -- backward -------------------------------------------------------------------------
    def step_back(self, n: Node, hops: int, only: frozenset[str] | None) -> None:
        g = self.g
        u = g.unit(n[0])
        s = u.stmts[n[1]]
        for src, var, kind in u.din.get(n[1], ()):
            if only is not None and var not in only:
                continue
            self.add_edge(src, n, var, kind, *_trust(kind))
            # at an entry only the parameter that reached here matters (not all of them)
            self.push(src, hops, frozenset({var}) if src[1] == 0 else None)
        for k in {s[3], s[8]} if self.control else ():
            if k >= 0:
                c = (n[0], k)
                self.add_edge(c, n, None, FlowStep.CONTROL)
                self.push(c, hops, None)
        if hops >= self.depth:
            return
        # a parameter: the arguments of the calls of this function
        if n[1] == 0 and u.row.kind in _CALLED_UNITS:
            params = _params(s)
            # a promoted constructor parameter defines $this->x too
            asked = (
                None
                if only is None
                else {"$" + v[7:] if v.startswith("$this->") else v for v in only}
            )
            wanted = [p for p in params if asked is None or p in asked]
            for e in self.fan(g.callers(u.row.func_node_id), u.row.func_node_id):
                for site, argv in g.call_sites(e, u.row.func_node_id):
                    for p in wanted:
                        pos = params.index(p)
                        avars = frozenset(argv[pos]) if pos < len(argv) else frozenset()
                        self.add_edge(site, n, p, FlowStep.ARGUMENT, e.provenance, e.confidence, e)
                        self.push(site, hops + 1, avars)
        # a call's result: the return statements of the callee
        if s[6] and (s[4] or s[2] == StmtKind.RETURN or n in self.starts):
            self.into_callees(n, u, s, hops)

    def into_callees(self, n: Node, u: Unit, s: list[Any], hops: int) -> None:
        g = self.g
        names = {c[0] for c in s[6] if c[0]}
        for e in g.callees(u.row.func_node_id):
            if e.evidence_line != s[0] or e.evidence_path != u.row.path:
                continue
            if g.name_of(e.dst) not in names:
                continue
            for cu in g.entry_units(e.dst)[:MAX_FANOUT]:
                for i, cs in enumerate(cu.stmts):
                    if cs[2] == StmtKind.RETURN:
                        r = (cu.row.unit_id, i)
                        self.add_edge(r, n, None, FlowStep.RETURN, e.provenance, e.confidence, e)
                        self.push(r, hops + 1, None)

    # -- forward --------------------------------------------------------------------------
    def step_forward(
        self, n: Node, hops: int, only: frozenset[str] | None, arrived: frozenset[str]
    ) -> None:
        g = self.g
        u = g.unit(n[0])
        s = u.stmts[n[1]]
        for dst, var, kind in u.dout.get(n[1], ()):
            if only is not None and var not in only:
                continue
            self.add_edge(n, dst, var, kind, *_trust(kind))
            self.push(dst, hops, None, frozenset({var}))
        if self.control and n[1] in u.controls:
            for i in u.controls[n[1]]:
                c = (n[0], i)
                self.add_edge(n, c, None, FlowStep.CONTROL)
                self.push(c, hops, None)
        if hops >= self.depth:
            return
        # arguments -> the parameters of the callee (only what arrived by def-use: the
        # result of a call, a controlled statement pass nothing on)
        if s[6] and arrived:
            tainted = arrived
            names = {c[0]: c[2] for c in s[6] if c[0]}
            for e in g.callees(u.row.func_node_id):
                if e.evidence_line != s[0] or e.evidence_path != u.row.path:
                    continue
                argv = names.get(g.name_of(e.dst))
                if argv is None:
                    continue
                for cu in g.entry_units(e.dst)[:MAX_FANOUT]:
                    params = _params(cu.stmts[0])
                    hit = [
                        params[i]
                        for i, a in enumerate(argv)
                        if i < len(params) and tainted.intersection(a)
                    ]
                    if not hit:
                        continue
                    entry = (cu.row.unit_id, 0)
                    for p in hit:
                        self.add_edge(n, entry, p, FlowStep.ARGUMENT, e.provenance, e.confidence, e)
                    self.push(entry, hops + 1, frozenset(hit))
        # a return: the statements that take the call's result
        if s[2] == StmtKind.RETURN and u.row.kind in _CALLED_UNITS:
            for e in self.fan(g.callers(u.row.func_node_id), u.row.func_node_id):
                for site, _argv in g.call_sites(e, u.row.func_node_id):
                    self.add_edge(n, site, None, FlowStep.RETURN, e.provenance, e.confidence, e)
                    self.push(site, hops + 1, None)


def _trust(kind: str) -> tuple[str, float]:
    """Provenance and confidence of an edge of a unit: a class-wide property link is
    inferred (another method may not have run first), the others are read off the tree."""
    if kind == FlowStep.PROPERTY:
        return Provenance.DERIVED, PROPERTY_CONFIDENCE
    return Provenance.STATED, 1.0


def _params(entry: list[Any]) -> list[str]:
    """The parameters of a unit's entry statement, in order (its other definitions are the
    ``$this->x`` of promoted constructor parameters and a closure's ``use`` variables, which
    come after the parameters)."""
    return [d for d in entry[4] if not d.startswith("$this->")]


def _var(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip()
    return name if name.startswith("$") else "$" + name


def _statement(g: FlowGraph, n: Node, hops: int, text: bool) -> dict[str, Any]:
    u = g.unit(n[0])
    s = u.stmts[n[1]]
    g.ctx.touch(u.row.path)
    out: dict[str, Any] = {
        "path": u.row.path,
        "line": s[0],
        "end_line": s[1],
        "kind": s[2],
        "evidence": f"{u.row.path}:{s[0]}",
        "hops": hops,
        "stmt_id": f"{n[0]}:{n[1]}",
    }
    if text:
        out["text"] = g.ctx.line_text(u.row.path, s[0])
    if s[7]:
        out["sinks"] = list(s[7])
    return out


def slice_op(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The body of ``ops.slice_`` once the revision has the layer."""
    g = FlowGraph(ctx)
    direction = args.get("direction", "back")
    depth = int(args.get("depth", 1))
    mode = args.get("mode", "lines")
    variable = _var(args.get("variable"))
    ctx.limits.append(LIMIT_FLOW)
    target: dict[str, Any]
    starts: list[Node] = []
    if args.get("path"):
        path = args["path"]
        line = args.get("line")
        ctx.touch(path)
        if not line:
            return {
                "target": {"path": path, "line": None},
                "statements": [],
                "edges": [],
                "functions": [],
                "hint": "`path` needs `line`: the statement to slice from",
            }
        if ctx.file_row(path) is None:
            return _not_found(ctx, f"{path} is not in {ctx.rev}", path, line)
        starts = g.at(path, int(line))
        target = {"path": path, "line": int(line)}
    else:
        if args.get("line"):
            ctx.limits.append("slice: `line` applies with `path` only; it was ignored")
        rows = lookup.targets(ctx, args)
        if not rows:
            what = args.get("fqn") or args.get("node_id", "")
            return _not_found(ctx, f"no function or method '{what}' in {ctx.rev}", None, None)
        row = rows[0]
        target = {"node_id": row.node_id, "fqn": sanitize.name(row.fqn), "path": row.path}
        ctx.touch(row.path)
        for u in g.entry_units(row.node_id):
            if direction == "back":
                starts += [
                    (u.row.unit_id, i) for i, s in enumerate(u.stmts) if s[2] == StmtKind.RETURN
                ]
            else:
                starts.append((u.row.unit_id, 0))
        if len(rows) > 1:
            ctx.limits.append(f"slice: {len(rows)} symbols match; sliced {row.fqn} ({row.path})")
    target.update({"variable": variable, "direction": direction, "depth": depth})
    if not starts:
        return {
            "target": target,
            "statements": [],
            "edges": [],
            "functions": [],
            "hint": "no statement of the data-flow layer at that place (a declaration, a"
            " comment or a file without one); try the line of a statement, or `code`",
        }
    only: frozenset[str] | None = None
    if variable:
        only = frozenset({variable})
    elif direction == "forward":
        defs: set[str] = set()
        for n in starts:
            defs.update(g.unit(n[0]).stmts[n[1]][4])
        only = frozenset(defs) if defs else None
    w = Walk(g, direction, depth)
    w.run(starts, only)
    if w.truncated:
        ctx.limits.append(f"slice: the first {MAX_STATEMENTS} statements are listed")
    if w.cut:
        names = ctx.graph.nodes_by_ids(ctx.rev, w.cut)
        cut = ", ".join(
            f"{names[f].fqn if f in names else f} ({n})" for f, n in sorted(w.cut.items())[:5]
        )
        ctx.limits.append(
            f"slice: followed the first {MAX_FANOUT} call sites of functions with more: {cut}"
        )
    nodes = sorted(
        w.nodes.items(),
        key=lambda kv: (g.unit(kv[0][0]).row.path, g.unit(kv[0][0]).stmts[kv[0][1]][0], kv[0]),
    )
    statements = [_statement(g, n, hops, mode == "lines") for n, hops in nodes]
    funcs = ctx.graph.nodes_by_ids(ctx.rev, w.functions)
    functions = []
    for fid, hops in sorted(w.functions.items(), key=lambda kv: (kv[1], kv[0])):
        frow = funcs.get(fid)
        if frow is None:
            continue
        functions.append(
            {
                "node_id": fid,
                "kind": frow.kind,
                "fqn": sanitize.name(frow.fqn),
                "evidence": f"{frow.path}:{frow.start_line}",
                "hops": hops,
            }
        )
    start_stmts = [_statement(g, n, 0, mode == "lines") for n in starts]
    derived = sum(1 for e in w.edges if e["provenance"] == Provenance.DERIVED)
    return {
        "target": {**target, "statements": start_stmts},
        "statements": statements,
        "edges": sorted(w.edges, key=lambda e: (e["from"], e["to"], e["kind"], e["var"] or "")),
        "functions": functions,
        "derived_edges": derived,
        "truncated": w.truncated,
    }


def _not_found(ctx: Ctx, why: str, path: str | None, line: int | None) -> dict[str, Any]:
    return {
        "target": {"path": path, "line": line} if path else None,
        "statements": [],
        "edges": [],
        "functions": [],
        "hint": why + "; check `symbol` or read the file with live_read",
    }


# -- flow ---------------------------------------------------------------------------------
#: sink kinds `flow` knows (``any``: each of them)
SINK_KINDS = (
    SinkKind.SQL,
    SinkKind.SQL_STRING,
    SinkKind.OUTPUT,
    SinkKind.INCLUDE,
    SinkKind.SHELL,
)
#: statements one `flow` search expands before it gives up (and says so)
MAX_FLOW_STATEMENTS = 5000


class Sinks:
    """Which statements are sinks, from the ``dataflow`` section of the configuration."""

    def __init__(self, ctx: Ctx, kinds: tuple[str, ...]) -> None:
        d = ctx.s.config().dataflow
        self.ctx = ctx
        self.kinds = kinds
        self.sql = {c.lower() for c in d.sql_calls}
        self.output = {c.lower() for c in d.output_calls}
        self.shell = {c.lower() for c in d.shell_calls}
        self.include = d.include
        self._sql_lines: dict[str, set[int]] = {}

    def sql_lines(self, path: str) -> set[int]:
        if path not in self._sql_lines:
            rows = self.ctx.graph.nodes_in_file(self.ctx.rev, path)
            self._sql_lines[path] = {
                r.start_line
                for r in rows
                if r.kind == NodeKind.SQL_LITERAL and r.start_line is not None
            }
        return self._sql_lines[path]

    def of(self, g: FlowGraph, n: Node, tainted: set[str]) -> list[str]:
        """The sink kinds statement ``n`` is for the variables ``tainted`` that reached it."""
        if not tainted:
            return []
        u = g.unit(n[0])
        s = u.stmts[n[1]]
        out: list[str] = []
        uses = tainted.intersection(s[5])
        if not uses:
            return []
        for name, how, argv in s[6]:
            hit = any(tainted.intersection(a) for a in argv)
            if not hit:
                continue
            if how == FlowCallHow.FUNCTION and name in self.shell:
                out.append(SinkKind.SHELL)
            elif name in self.sql:
                out.append(SinkKind.SQL)
            elif name in self.output:
                out.append(SinkKind.OUTPUT)
        if SinkKind.OUTPUT in s[7]:
            out.append(SinkKind.OUTPUT)
        if SinkKind.SHELL in s[7]:
            out.append(SinkKind.SHELL)
        if SinkKind.INCLUDE in s[7] and self.include:
            out.append(SinkKind.INCLUDE)
        if s[0] in self.sql_lines(u.row.path):
            out.append(SinkKind.SQL_STRING)
        return [k for k in dict.fromkeys(out) if k in self.kinds]


def _parse_place(text: str) -> tuple[str, int] | None:
    path, sep, line = text.rpartition(":")
    if sep and path and line.isdigit():
        return path, int(line)
    return None


def flow_op(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The body of ``ops.flow`` once the revision has the layer."""
    g = FlowGraph(ctx)
    depth = int(args.get("depth", 3))
    limit = int(args.get("limit", 5))
    ctx.limits.append(LIMIT_FLOW)
    source = str(args["source"]).strip()
    sink = str(args.get("sink") or "any").strip()
    allowed = list(ctx.s.config().dataflow.sources)
    starts: list[Node] = []
    arrived: frozenset[str] = NONE
    only: frozenset[str] | None = None
    src_place = _parse_place(source)
    if src_place is not None:
        ctx.touch(src_place[0])
        starts = g.at(*src_place)
        defs = {v for n in starts for v in g.unit(n[0]).stmts[n[1]][4]}
        only = frozenset(defs) if defs else None
        source_desc: dict[str, Any] = {"kind": "statement", "place": source}
    elif source.startswith("$_") or source.startswith("php://"):
        name = source.split("[", 1)[0]
        if allowed and name not in allowed:
            raise InvalidArgument(
                f"flow: '{name}' is not a configured source (dataflow.sources: {', '.join(allowed)})"
            )
        for row in ctx.graph.flow_units_reading(ctx.rev, name):
            u = g.parse(row)
            starts += [(row.unit_id, i) for i, s in enumerate(u.stmts) if name in s[5]]
        arrived = frozenset({name})
        source_desc = {"kind": "request", "name": name}
    else:  # a parameter: Fqn($param)
        fqn, _, param = source.partition("(")
        param = _var(param.rstrip(")")) or ""
        rows = lookup.targets(ctx, {"fqn": fqn}) if param else []
        if not rows:
            return {
                "source": {"kind": "unknown", "name": sanitize.name(source), "statements": 0},
                "sink": {"kind": sink},
                "reaches": False,
                "paths": [],
                "hint": "`source` is a superglobal ($_GET, $_POST['id']), php://input, a place"
                " (path:line) or a parameter (Class::method($param)) of a function in"
                f" {ctx.rev}; this is none of them",
            }
        for u in g.entry_units(rows[0].node_id):
            if param in u.stmts[0][4]:
                starts.append((u.row.unit_id, 0))
        only = frozenset({param})
        source_desc = {"kind": "parameter", "fqn": sanitize.name(rows[0].fqn), "name": param}
    sink_place = _parse_place(sink)
    kinds = (
        SINK_KINDS
        if sink in ("any", "") or sink_place
        else tuple(k for k in SINK_KINDS if k == sink)
    )
    if not kinds:
        return {
            "source": {**source_desc, "statements": len(starts)},
            "sink": {"kind": "unknown", "name": sanitize.name(sink)},
            "reaches": False,
            "paths": [],
            "hint": f"`sink` is a place (path:line) or one of: any, {', '.join(SINK_KINDS)}",
        }
    result: dict[str, Any] = {
        "source": {**source_desc, "statements": len(starts)},
        "sink": {"kind": "statement", "place": sink} if sink_place else {"kind": sink},
        "reaches": False,
        "paths": [],
    }
    if not starts:
        result["hint"] = "no statement of the data-flow layer reads that source"
        return result
    fw = Walk(g, "forward", depth, MAX_FLOW_STATEMENTS, control=False)
    fw.start(starts, only, arrived)
    if sink_place is not None:
        ctx.touch(sink_place[0])
        targets = g.at(*sink_place)
        if not targets:
            result["hint"] = "no statement of the data-flow layer at the sink place"
            return result
        path, complete = _bidirectional(g, fw, targets, depth)
        if path is not None:
            result["reaches"] = True
            result["paths"].append(_flow_path(g, path, None))
        result["searched"] = len(fw.nodes)
        if path is None and not complete:
            _stopped(ctx, result)
        return result
    sinks = Sinks(ctx, kinds)
    found: dict[Node, list[str]] = {}
    for n in starts:  # a source statement that is a sink already
        ks = sinks.of(g, n, set(fw.arrived.get(n, set())) | set(only or ()))
        if ks:
            found[n] = ks
    while fw.queue and len(found) < limit and not fw.truncated:
        before = len(fw.order)
        fw.step()
        for m in fw.order[before:]:
            ks = sinks.of(g, m, fw.arrived.get(m, set()))
            if ks:
                found.setdefault(m, ks)
    if fw.truncated and len(found) < limit:
        _stopped(ctx, result)
    for n, ks in list(found.items())[:limit]:
        result["paths"].append(_flow_path(g, fw.path_to(n), (n, ks)))
    result["reaches"] = bool(result["paths"])
    result["searched"] = len(fw.nodes)
    return result


def _stopped(ctx: Any, result: dict[str, Any]) -> None:
    """The search hit its cap: a path beyond it is not known either way (the answer says
    so instead of a silent 'does not reach')."""
    result["complete"] = False
    ctx.limits.append(
        f"flow: stopped after {MAX_FLOW_STATEMENTS} statements; a path beyond them is not"
        " known (narrow the source or name a sink place path:line)"
    )


def _bidirectional(
    g: FlowGraph, fw: Walk, targets: list[Node], depth: int
) -> tuple[list[dict[str, Any]] | None, bool]:
    """Bidirectional breadth-first search (travsr): expand the smaller frontier a level at a
    time until the forward and backward walks meet; the shortest evidence path, and whether
    the search ended for want of statements (True) rather than at the cap (False)."""
    bw = Walk(g, "back", depth, MAX_FLOW_STATEMENTS, control=False)
    bw.start(targets, None)
    meet = next((n for n in fw.nodes if n in bw.nodes), None)
    capped = False
    while meet is None and fw.queue and bw.queue:
        if len(fw.nodes) + len(bw.nodes) > MAX_FLOW_STATEMENTS or fw.truncated or bw.truncated:
            capped = True
            break
        w, other = (fw, bw) if len(fw.queue) <= len(bw.queue) else (bw, fw)
        for _ in range(len(w.queue)):
            before = len(w.order)
            w.step()
            meet = next((m for m in w.order[before:] if m in other.nodes), None)
            if meet is not None:
                break
    if meet is None:
        return None, not capped
    return fw.path_to(meet) + bw.path_to(meet), True


def _flow_path(
    g: FlowGraph, edges: list[dict[str, Any]], end: tuple[Node, list[str]] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "edges": edges,
        "length": len(edges),
        "provenance": Provenance.DERIVED
        if any(e["provenance"] == Provenance.DERIVED for e in edges)
        else Provenance.STATED,
        "confidence": min([e["confidence"] for e in edges] or [1.0]),
    }
    if end is not None:
        out["sink"] = {**_statement(g, end[0], 0, True), "kinds": end[1]}
        out["sink"].pop("hops", None)
    return out

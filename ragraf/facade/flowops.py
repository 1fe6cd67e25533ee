"""Slices and flows over the data-flow layer (issue 13): ``slice`` and ``flow`` read the
flow units of graph.sqlite (``ragraf.lang.php.flow``) and cross functions through the
resolver's call edges.

Invariants a change must keep:
- Only facts of the revision: statements, def-use and control edges come from the
  units; inter-procedural steps only along ``calls`` / ``calls_heuristic`` edges, whose
  provenance and confidence the step keeps (a derived call gives a derived step).
- A slice follows control dependence; a flow does not (``Walk(control=False)``): data that
  only decides whether a sink runs does not reach it.
- Back through a ``capture`` link, the statement creating a closure counts for the
  captured variable only (its other uses make other values); likewise an entry for the
  parameter that was reached.
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

from ragraf.facade import lookup, sanitize
from ragraf.facade.context import Ctx
from ragraf.kinds import (
    CALL_EDGES,
    FlowStep,
    Provenance,
    StmtKind,
    UnitKind,
)
from ragraf.lang.registry import FlowNaming, flow_naming
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
#: the statements whose value is a call's result (a return, a generator's yield)
RESULTS = frozenset({StmtKind.RETURN, StmtKind.YIELD})
#: the units of a declaration that takes arguments and returns (not a closure, not a script)
_CALLED_UNITS = (UnitKind.FUNCTION, UnitKind.METHOD)
LIMIT_FLOW = (
    "data flow: syntactic def-use per function (tree-sitter, reaching definitions); values"
    " through object properties of other objects, dynamic variables ($$x), extract(), eval"
    " and by-reference parameters of user functions are not tracked, nor a closure's writes"
    " to the variables it captures (Python's nonlocal)"
)

Node = tuple[str, int]  # (unit_id, statement index)
#: a statement's call: [name, how, [variables of each positional argument], and, when it
#: has keyword arguments, {parameter name: variables}]
Call = list[Any]
NONE: frozenset[str] = frozenset()


@dataclass
class Unit:
    row: FlowUnitRow
    stmts: list[list[Any]]
    din: dict[int, list[tuple[Node, str, str]]] = field(default_factory=dict)
    dout: dict[int, list[tuple[Node, str, str]]] = field(default_factory=dict)
    controls: dict[int, list[int]] = field(default_factory=dict)
    #: the serialised parameter positions (``flowcore.Unit.set_params``), when it has them
    layout: tuple[list[list[str]], int, str] | None = None


@dataclass(frozen=True)
class Params:
    """A callee's parameters by position: the names each position binds (a destructured
    parameter: several), the rest / variadic position taking every argument from it on
    (-1: none; the positions after it bind by keyword only) and the parameter taking
    the keyword arguments no other one names (``**kw``; empty: none)."""

    groups: list[list[str]]
    rest: int = -1
    kwargs: str = ""

    @property
    def names(self) -> list[str]:
        """Every parameter name, in order."""
        out = [v for g in self.groups for v in g]
        return [*out, self.kwargs] if self.kwargs else out


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
        self._inner: dict[tuple[str, int, str], list[Node]] = {}
        self._naming: dict[str, FlowNaming] = {}

    def naming(self, path: str) -> FlowNaming:
        """How the data-flow layer of ``path``'s language writes variables."""
        got = self._naming.get(path)
        if got is None:
            fr = self.ctx.file_row(path)
            got = self._naming[path] = flow_naming(fr.lang if fr is not None else None)
        return got

    def params(self, u: Unit) -> Params:
        """The parameters of unit ``u`` by position: its serialised layout, else one a
        position, in order (``_params``), not the variables its entry defines because a
        closure captures them (``capture`` links into it)."""
        if u.layout is not None:
            return Params(*u.layout)
        captured = {v for _src, v, k in u.din.get(0, ()) if k == FlowStep.CAPTURE}
        names = _params(u.stmts[0], self.naming(u.row.path))
        return Params([[p] for p in names if p not in captured])

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
        if "p" in d:
            u.layout = (d["p"], d.get("v", -1), d.get("k", ""))
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

    def call_sites(self, e: EdgeRow, callee: str) -> list[tuple[Node, Call]]:
        """The statements of a call edge's evidence line that call ``callee`` by name, with
        the call (``bind`` gives the variables of each parameter)."""
        if not e.evidence_path or not e.evidence_line:
            return []
        name = self.name_of(callee)
        out: list[tuple[Node, Call]] = []
        for uid, i in self.innermost(e.evidence_path, e.evidence_line, e.src):
            s = self.units[uid].stmts[i]
            for c in s[6]:
                if short(c[0]) == name or (name and c[0] == "" and not out):
                    out.append(((uid, i), c))
        return out

    def calls_at(self, n: Node) -> list[tuple[EdgeRow, Call]]:
        """The resolved call edges statement ``n`` makes, each with its call (matched by
        the callee's name; ``bind`` gives the variables of each parameter)."""
        u = self.unit(n[0])
        s = u.stmts[n[1]]
        if not s[6]:
            return []
        call_of = {short(c[0]): c for c in s[6] if c[0]}
        out = []
        for e in self.callees(u.row.func_node_id):
            if e.evidence_line is None or not s[0] <= e.evidence_line <= s[1]:
                continue
            c = call_of.get(self.name_of(e.dst))
            if c is not None and self.owns_call(n, e):
                out.append((e, c))
        return out

    def owns_call(self, n: Node, e: EdgeRow) -> bool:
        """Whether the call of edge ``e`` is made by statement ``n``: the innermost statement
        of ``n``'s function around the call's line is ``n``, whichever line of a statement
        written over several lines the call is on (issue 42)."""
        if not e.evidence_path or not e.evidence_line:
            return False
        u = self.units[n[0]]
        s = u.stmts[n[1]]
        if e.evidence_path != u.row.path or not s[0] <= e.evidence_line <= s[1]:
            return False
        if s[0] == s[1] == e.evidence_line and s[2] not in HEADERS:
            return True  # one line, no body: nothing inside can own the call instead
        key = (e.evidence_path, e.evidence_line, e.src)
        hits = self._inner.get(key)
        if hits is None:
            hits = self._inner[key] = self.innermost(e.evidence_path, e.evidence_line, e.src)
        return n in hits

    def innermost(self, path: str, line: int, func: str) -> list[Node]:
        """The innermost statements of ``func`` (its closures and, for file-level code, the
        script) spanning ``line`` that make calls (a closure's entry on the line of the call
        it is an argument of makes none: ``cb(f(x), (err) => {...})``)."""
        hits = []
        for r, _x in self.file_heads(path):
            if not r.start_line <= line <= r.end_line:
                continue
            if r.func_node_id != func and r.kind != UnitKind.SCRIPT:
                continue
            u = self.parse(r)
            hits += [(r.unit_id, i) for i, s in enumerate(u.stmts) if s[6] and s[0] <= line <= s[1]]
        if len(hits) > 1:
            best = min(self._span(h) for h in hits)
            hits = [h for h in hits if self._span(h) == best]
        return hits

    def _span(self, h: Node) -> int:
        st = self.units[h[0]].stmts[h[1]]
        return int(st[1] - st[0])


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
        #: statements in the order variables arrived at them (again when more arrive)
        self.grew: list[Node] = []
        self.current: Node | None = None
        self.order: list[Node] = []  # statements in the order they were reached
        self.starts: set[Node] = set()
        #: context: the call sites a unit was entered from (forward through an argument,
        #: backward through its result), and the units reached otherwise (``leave``)
        self.bound: dict[str, set[Node]] = {}
        self.free: set[str] = set()
        #: exits of bound units already left, redone if the unit becomes free
        self.left: dict[str, list[tuple[Node, int, frozenset[str] | None]]] = {}
        #: a unit the walk stays in (a summary of one function), None: anywhere
        self.within: str | None = None
        #: starts whose calls' results do not feed the slice (a variable only used there)
        self.no_callees: set[Node] = set()
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
        if key in self.seen or (self.within is not None and n[0] != self.within):
            return
        if n not in self.nodes and len(self.nodes) >= self.max_statements:
            self.truncated = True
            return
        self.seen.add(key)
        if n not in self.parent:
            self.parent[n] = (
                None if self.current is None or self.last is None else (self.current, self.last)
            )
        got = self.arrived.setdefault(n, set())
        if not arrived <= got:
            got.update(arrived)
            self.grew.append(n)
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
            self.free.add(n[0])
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

    def origin(self, n: Node) -> Node:
        """The start the first path to ``n`` comes from."""
        seen: set[Node] = set()
        while n not in seen:
            seen.add(n)
            p = self.parent.get(n)
            if p is None:
                break
            n = p[0]
        return n

    # -- backward -------------------------------------------------------------------------
    def step_back(self, n: Node, hops: int, only: frozenset[str] | None) -> None:
        g = self.g
        u = g.unit(n[0])
        s = u.stmts[n[1]]
        for src, var, kind in u.din.get(n[1], ()):
            if only is not None and var not in only:
                continue
            if src[0] != n[0]:
                self.make_free(src[0])  # a property or a capture: not through a call site
            self.add_edge(src, n, var, kind, *_trust(kind))
            # at an entry only the parameter that reached here matters (not all of them); at
            # the statement creating a closure only the captured variable (its other uses
            # make other values)
            narrow = src[1] == 0 or kind == FlowStep.CAPTURE
            self.push(src, hops, frozenset({var}) if narrow else None)
        for k in {s[3], s[8]} if self.control else ():
            if k >= 0:
                c = (n[0], k)
                self.add_edge(c, n, None, FlowStep.CONTROL)
                self.push(c, hops, None)
        if hops >= self.depth:
            return
        # a parameter: the arguments of the calls of this function
        if n[1] == 0 and u.row.kind in _CALLED_UNITS:
            self.leave(n, hops, only)
        # a call's result: the return statements of the callee
        if n in self.no_callees:
            return
        if s[6] and (s[4] or s[2] in RESULTS or n in self.starts):
            self.into_callees(n, u, s, hops)

    def leave(self, n: Node, hops: int, only: frozenset[str] | None) -> None:
        """Out of a function: backward from its entry to the arguments of its call sites,
        forward from a return to the statements taking the result. A function entered from
        a call site (forward through an argument, backward through its result) goes back to
        those sites only; one the walk reached otherwise, to every caller (``fan``)."""
        g = self.g
        u = g.unit(n[0])
        func = u.row.func_node_id
        sites = None if n[0] in self.free else self.bound.get(n[0])
        if sites is not None:
            self.left.setdefault(n[0], []).append((n, hops, only))
            callers = [e for e in g.callers(func) if _near(g, e, sites)]
        else:
            callers = self.fan(g.callers(func), func)
        if self.back:
            params = g.params(u)
            # a promoted constructor parameter defines $this->x too
            naming = g.naming(u.row.path)
            asked = None if only is None else {naming.param_of(v) for v in only}
            wanted = [p for p in params.names if asked is None or p in asked]
        for e in callers:
            for site, call in g.call_sites(e, func):
                if sites is not None and site not in sites:
                    continue
                if sites is None:
                    self.make_free(site[0])
                if not self.back:
                    self.add_edge(n, site, None, FlowStep.RETURN, e.provenance, e.confidence, e)
                    self.push(site, hops + 1, None)
                    continue
                bound = bind(call, params)
                for p in wanted:
                    avars = frozenset(bound.get(p, ()))
                    self.add_edge(site, n, p, FlowStep.ARGUMENT, e.provenance, e.confidence, e)
                    self.push(site, hops + 1, avars)

    def make_free(self, uid: str) -> None:
        """The walk reached unit ``uid`` other than through the call sites it entered it
        from: its exits lead to every caller from now on (those already left are redone)."""
        if uid in self.free:
            return
        self.free.add(uid)
        current = self.current
        for n, hops, only in self.left.pop(uid, ()):
            self.current = n  # the statements it reaches now are reached from that exit
            self.leave(n, hops, only)
        self.current = current

    def into_callees(self, n: Node, u: Unit, s: list[Any], hops: int) -> None:
        g = self.g
        for e, _call in g.calls_at(n):
            for cu in g.entry_units(e.dst)[:MAX_FANOUT]:
                for i, cs in enumerate(cu.stmts):
                    if cs[2] in RESULTS:
                        r = (cu.row.unit_id, i)
                        self.bound.setdefault(r[0], set()).add(n)
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
            if dst[0] != n[0]:
                self.make_free(dst[0])  # a property or a capture: not through a call site
            self.add_edge(n, dst, var, kind, *_trust(kind))
            # into a closure's entry only the captured variable goes on (not its parameters)
            self.push(dst, hops, frozenset({var}) if dst[1] == 0 else None, frozenset({var}))
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
            for e, call in g.calls_at(n):
                for cu in g.entry_units(e.dst)[:MAX_FANOUT]:
                    hit = [
                        p for p, a in bind(call, g.params(cu)).items() if tainted.intersection(a)
                    ]
                    if not hit:
                        continue
                    entry = (cu.row.unit_id, 0)
                    self.bound.setdefault(entry[0], set()).add(n)
                    for p in hit:
                        self.add_edge(n, entry, p, FlowStep.ARGUMENT, e.provenance, e.confidence, e)
                    self.push(entry, hops + 1, frozenset(hit))
        # a return: the statements that take the call's result
        if s[2] in RESULTS and u.row.kind in _CALLED_UNITS:
            self.leave(n, hops, None)


def _near(g: FlowGraph, e: EdgeRow, sites: set[Node]) -> bool:
    """Whether call edge ``e``'s evidence line is inside one of the statements ``sites``."""
    for uid, i in sites:
        u = g.unit(uid)
        s = u.stmts[i]
        if e.evidence_path == u.row.path and s[0] <= (e.evidence_line or 0) <= s[1]:
            return True
    return False


def _trust(kind: str) -> tuple[str, float]:
    """Provenance and confidence of an edge of a unit: a class-wide property link is
    inferred (another method may not have run first), the others are read off the tree."""
    if kind == FlowStep.PROPERTY:
        return Provenance.DERIVED, PROPERTY_CONFIDENCE
    return Provenance.STATED, 1.0


def _params(entry: list[Any], naming: FlowNaming) -> list[str]:
    """The parameters of a unit's entry statement, in order (its other definitions are the
    receiver's fields of PHP's promoted constructor parameters, ``$this->x``, and a
    closure's captured variables, which come after the parameters)."""
    return [d for d in entry[4] if not naming.is_field(d)]


def bind(call: Call, params: Params) -> dict[str, list[str]]:
    """The variables each parameter of the callee gets from a call: positional arguments
    by position (to every name of a destructured one; a rest parameter all from its
    position on, those after it none), keyword arguments by name (Python's ``f(x,
    key=y)``; one no parameter names to ``**kw``)."""
    args = call[2]
    out: dict[str, list[str]] = {}
    for i, names in enumerate(params.groups):
        if i == params.rest:
            got = [v for a in args[i:] for v in a]
        elif i < len(args) and (params.rest < 0 or i < params.rest):
            got = args[i]
        else:
            break
        for p in names:
            out[p] = got
    if len(call) > 3:
        known = set(params.names)
        for k, a in call[3].items():
            if k in known and k != params.kwargs:
                out[k] = a
            elif params.kwargs:
                out[params.kwargs] = [*out.get(params.kwargs, ()), *a]
    return out


def short(call: str) -> str:
    """A call's name as a resolved callee's is compared with it: its last dotted part
    (a walk may keep the dotted callee as written, ``subprocess.run``, for the sinks)."""
    return call.rsplit(".", 1)[-1]


def _var(name: str | None, naming: FlowNaming) -> str | None:
    """A variable an agent named, as the walk of its language writes it."""
    if not name or not name.strip():
        return None
    return naming.var(name)


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


#: how a slice's statements are ranked for paging (each page is shown by place)
ORDER_STATEMENTS = (
    "statements by hops from the start, then in the order the walk reached them; each page"
    " listed by place, with the edges whose two ends are listed by then and the functions"
    " of its statements"
)


def _empty(target: dict[str, Any] | None, hint: str) -> dict[str, Any]:
    return {"target": target, "statements": [], "edges": [], "functions": [], "hint": hint}


def _slice_start(
    ctx: Ctx, g: FlowGraph, args: dict[str, Any], direction: str
) -> tuple[dict[str, Any], list[Node]] | dict[str, Any]:
    """The target and the statements a slice starts from, or the answer that it cannot."""
    from ragraf.facade import dfcover

    if args.get("path"):
        path = args["path"]
        line = args.get("line")
        ctx.touch(path)
        if not line:
            return _empty(
                {"path": path, "line": None}, "`path` needs `line`: the statement to slice from"
            )
        if ctx.file_row(path) is None:
            return _not_found(ctx, f"{path} is not in {ctx.rev}", path, line)
        lang = dfcover.uncovered(ctx, path)
        if lang is not None:
            return dfcover.refuse(ctx, "slice", lang)
        return {"path": path, "line": int(line)}, g.at(path, int(line))
    if args.get("line"):
        ctx.limits.append("slice: `line` applies with `path` only; it was ignored")
    rows = lookup.targets(ctx, args)
    if not rows:
        what = args.get("fqn") or args.get("node_id", "")
        near = lookup.nearest_names(ctx, what) if args.get("fqn") else []
        said = f" (nearest names: {', '.join(near)})" if near else ""
        return _not_found(ctx, f"no function or method '{what}' in {ctx.rev}{said}", None, None)
    row = rows[0]
    ctx.touch(row.path)
    lang = dfcover.uncovered(ctx, row.path)
    if lang is not None:
        return dfcover.refuse(ctx, "slice", lang)
    target = {"node_id": row.node_id, "fqn": sanitize.name(row.fqn), "path": row.path}
    starts: list[Node] = []
    for u in g.entry_units(row.node_id):
        if direction == "back":
            starts += [(u.row.unit_id, i) for i, s in enumerate(u.stmts) if s[2] in RESULTS]
        else:
            starts.append((u.row.unit_id, 0))
    if len(rows) > 1:
        ctx.limits.append(f"slice: {len(rows)} symbols match; sliced {row.fqn} ({row.path})")
        target["narrow"] = lookup.narrow(ctx, rows, "slice")["narrow"]
    return target, starts


def slice_op(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The body of ``ops.slice_`` once the revision has the layer."""
    g = FlowGraph(ctx)
    direction = args.get("direction", "back")
    depth = int(args.get("depth", 1))
    ctx.limits.append(LIMIT_FLOW)
    got = _slice_start(ctx, g, args, direction)
    if isinstance(got, dict):
        return got
    target, starts = got
    variable = _var(args.get("variable"), g.naming(target["path"]))
    narrow = target.pop("narrow", None)
    target.update({"variable": variable, "direction": direction, "depth": depth})
    if not starts:
        return _empty(
            target,
            "no statement of the data-flow layer at that place (a declaration, a comment or"
            " a blank line); try the line of a statement, or `code`",
        )
    w = Walk(g, direction, depth)
    seeds = _seeds(g, starts, variable, direction)
    if not seeds:
        return _empty(
            target,
            f"{sanitize.name(variable or '')} is neither used nor assigned at that place;"
            " give a variable of the line, or none for all of them",
        )
    for n, only, arrived in seeds:
        if variable and only is not None and direction == "back":
            w.no_callees.add(n)  # a variable only used here: no call's result feeds it
        w.start([n], only, arrived)
    while w.queue and not w.truncated:
        w.step()
    _walk_limits(ctx, w)
    text = args.get("mode", "lines") == "lines"
    out = _page(ctx, g, w, args, text)
    out["target"] = {**target, "statements": [_statement(g, n, 0, text) for n in starts]}
    if narrow:
        out["narrow"] = narrow
    return out


def _walk_limits(ctx: Ctx, w: Walk) -> None:
    if w.truncated:
        ctx.limits.append(f"slice: the walk stopped at {MAX_STATEMENTS} statements")
    if w.cut:
        names = ctx.graph.nodes_by_ids(ctx.rev, w.cut)
        cut = ", ".join(
            f"{names[f].fqn if f in names else f} ({n})" for f, n in sorted(w.cut.items())[:5]
        )
        ctx.limits.append(
            f"slice: followed the first {MAX_FANOUT} call sites of functions with more: {cut}"
        )


def _page(ctx: Ctx, g: FlowGraph, w: Walk, args: dict[str, Any], text: bool) -> dict[str, Any]:
    """The statements of one page (``ORDER_STATEMENTS``), their edges and functions; the
    cut said in ``page`` and in the limits."""
    from ragraf.facade.paging import Pager

    reach = {n: i for i, n in enumerate(w.order)}
    ranked = sorted(w.nodes, key=lambda n: (w.nodes[n], reach[n]))
    pager = Pager(args, ORDER_STATEMENTS)
    shown = pager.cut("statements", ranked)
    upto = set(ranked[: pager.offset + pager.limit])
    here = set(shown)

    def place(n: Node) -> tuple[str, int, Node]:
        u = g.unit(n[0])
        return (u.row.path, int(u.stmts[n[1]][0]), n)

    statements = [_statement(g, n, w.nodes[n], text) for n in sorted(shown, key=place)]
    edges = [
        e
        for (a, b, _v, _k), e in w.edge_keys.items()
        if a in upto and b in upto and (a in here or b in here)
    ]
    fids = {g.unit(n[0]).row.func_node_id for n in shown}
    funcs = ctx.graph.nodes_by_ids(ctx.rev, list(fids))
    functions = [
        {
            "node_id": fid,
            "kind": funcs[fid].kind,
            "fqn": sanitize.name(funcs[fid].fqn),
            "evidence": f"{funcs[fid].path}:{funcs[fid].start_line}",
            "hops": hops,
        }
        for fid, hops in sorted(w.functions.items(), key=lambda kv: (kv[1], kv[0]))
        if fid in fids and fid in funcs
    ]
    page = pager.page()
    if page["rest"]:
        ctx.limits.append(f"slice: {page['rest']} (nearest first)")
    return {
        "statements": statements,
        "edges": sorted(edges, key=lambda e: (e["from"], e["to"], e["kind"], e["var"] or "")),
        "functions": functions,
        "counts": {
            "statements": len(ranked),
            "edges": len(w.edges),
            "functions": len(w.functions),
        },
        "derived_edges": sum(1 for e in w.edges if e["provenance"] == Provenance.DERIVED),
        "truncated": w.truncated,
        "page": page,
    }


Seed = tuple[Node, "frozenset[str] | None", frozenset[str]]


def _seeds(g: FlowGraph, starts: list[Node], variable: str | None, direction: str) -> list[Seed]:
    """Where a slice starts: each statement with the variables whose edges it follows and,
    forward, what arrived at it. Without a variable, every use (back) or definition
    (forward) of the statement. With one (issue 42): back, a statement assigning it follows
    all its uses and the results of its calls (they make the value), one only using it
    follows that variable alone and enters no callee; forward, a statement assigning it
    follows it, one using it follows what the statement assigns and the arguments it
    passes. A statement that neither uses nor assigns it is no seed."""
    out: list[Seed] = []
    for n in starts:
        s = g.unit(n[0]).stmts[n[1]]
        defs, uses = set(s[4]), set(s[5])
        if variable is None:
            only = frozenset(defs) if direction == "forward" and defs else None
            out.append((n, only, NONE))
        elif variable in defs:
            out.append((n, None if direction == "back" else frozenset({variable}), NONE))
        elif variable in uses:
            if direction == "back":
                out.append((n, frozenset({variable}), NONE))
            else:
                out.append((n, frozenset(defs), frozenset({variable})))
    return out


def _not_found(ctx: Ctx, why: str, path: str | None, line: int | None) -> dict[str, Any]:
    return {
        "target": {"path": path, "line": line} if path else None,
        "statements": [],
        "edges": [],
        "functions": [],
        "hint": why + "; check `symbol` or read the file with live_read",
    }

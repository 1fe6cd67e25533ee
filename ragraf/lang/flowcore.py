"""The language-neutral part of the data-flow layer (issue 13): units, their statements,
the bookkeeping of the control-flow skeleton, reaching definitions, and a unit's
serialisation. A language's statement walk subclasses ``UnitBuilder`` (PHP's:
``ragraf.lang.php.flow``) and says which of its nodes are blocks, branches and loops;
nothing here reads a grammar's node types or a language's variable names.

Invariants a change must keep:
- A *unit* is a function, method, closure or the file-level script; statement
  0 of a unit is its entry (the signature: it defines the parameters and, for
  a closure, its captured variables). Statements are numbered in document
  order; ``ctrl`` is the innermost branch or loop header that decides whether
  the statement runs (-1: none), its syntactic control dependence; ``guard`` the
  latest earlier statement of the enclosing blocks that may jump past it.
- Arguments bind by parameter position: a unit whose positions are not one entry
  definition each (a destructured parameter, a rest / variadic one, Python's ``**kw``)
  says so (``Unit.set_params``; ``p``: the names of each position, ``v``: the rest
  position, ``k``: the keyword catch-all); the others serialise as before.
- A strong definition kills earlier ones of its name; a weak one (an element, a
  property of an object, an alias) does not. Aliases' definitions are weak
  definitions of each other.
- Reaching definitions are computed over the control-flow edges to a fixed
  point (bit sets): a use links every definition of its name that reaches it; a
  use no definition reaches is upward-exposed. A unit with more than
  ``MAX_STATEMENTS`` statements keeps no def-use edges (``skipped``).
- A use of a property of the object (``SELF_PREFIX``) that no definition of its
  method reaches is linked to the definitions of it in the other methods of the
  class (``class_links``, at most ``MAX_CLASS_DEFS``).
- A unit is serialised once, in the worker, as compact JSON (``FlowUnit.data``),
  stored as it is in ``flow_unit`` (graph.sqlite); a statement is (line, end line,
  kind, ...), never its text.

Adding a language (issue 42; PHP's ``ragraf.lang.php.flow``, Python's
``ragraf.lang.python.flow``): subclass ``UnitBuilder``, walk each function into a
``Unit`` whose entry defines the parameters in order (the receiver ``self`` / ``this``
is no parameter: a method call's arguments line up with the parameters after it) and
then captured variables; call ``build`` from the extractor with ``decl_at`` (start byte
of each function's node -> its node index) and set ``Language.dataflow`` in the
registry. Names as the facade reads them (``registry.FlowNaming``): a variable as
written (PHP with its ``$``), a field of the receiver as ``SELF_PREFIX`` + name
(``Language.flow_self``: ``$this->p``, ``self.p``, ``this.p``). A call is ``[name, how,
[vars of each argument]]``: ``name`` lower-case, either the callee's short name or its
dotted form as written (``subprocess.run``, ``db.query``: the facade matches a resolved
callee by the last dotted part, the configured sinks by the last part or the dotted
tail); keyword arguments in the order written after the positional ones. A taint source
is a use of a canonical name in ``SOURCES`` (``request.args``), a keyed read of one also
a use of ``name['key']`` (``request.args['id']``, ``request.args.get('id')``); list
the names and the language's sinks in ``dataflow.languages.<name>`` of
config/project.yaml (JS: ``req.query`` / ``req.body`` / ``req.params`` -> ``query``,
``child_process.exec``, ``res.send``; Go: ``r.URL.Query()``, ``r.FormValue()`` ->
``Query`` / ``Exec``; Java: ``getParameter()`` -> ``execute*``). What a language settles
across its units once all are walked, before any is analysed, goes in ``walked``
(JavaScript's captured variables); a language without ``decl_at`` passes ``{}`` and maps
its functions itself (``ragraf.lang.js.flow``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ragraf.kinds import FlowStep, StmtKind, UnitKind
from ragraf.lang.facts import FlowUnit

if TYPE_CHECKING:
    from tree_sitter import Node

#: a statement with more uses or definitions is cut (a generated table, a huge array)
MAX_NAMES = 200
#: units with more statements are kept without def-use edges (generated code)
MAX_STATEMENTS = 20_000
#: class-wide definitions linked to one upward-exposed use of a property
MAX_CLASS_DEFS = 12
#: calls kept per statement
MAX_CALLS = 20
#: statement kinds that jump away (and of those, the ones that leave the unit)
EXITS = frozenset({StmtKind.RETURN, StmtKind.THROW, StmtKind.EXIT})
JUMPS = frozenset({StmtKind.BREAK, StmtKind.CONTINUE, *EXITS})
#: a unit still to walk: (function node, owner node index, kind, class start byte or -1,
#: captured variables (``&`` before one taken by reference), (enclosing unit, creating
#: statement) of a closure)
Pending = tuple["Node", int, str, int, list[str], tuple[int, int] | None]


class Stmt:
    """One statement of a unit: where it is, what decides whether it runs, what it defines
    and uses, the calls it makes (with the variables of each argument) and its sinks."""

    __slots__ = (
        "line",
        "end_line",
        "kind",
        "ctrl",
        "guard",
        "defs",
        "weak",
        "uses",
        "calls",
        "sinks",
    )

    def __init__(self, line: int, end_line: int, kind: str, ctrl: int, guard: int = -1) -> None:
        self.line = line
        self.guard = guard
        self.end_line = end_line
        self.kind = kind
        self.ctrl = ctrl
        self.defs: list[str] = []  # strong definitions (kill earlier ones)
        self.weak: list[str] = []  # weak definitions (element, property of an object, alias)
        self.uses: list[str] = []
        self.calls: list[list[Any]] = []  # [name, how, [[arg vars], ...]]
        self.sinks: list[str] = []


class Loop:
    """A loop (or ``switch``) being walked: where its ``break`` / ``continue`` jump from."""

    __slots__ = ("breaks", "conts", "head")

    def __init__(self, head: int) -> None:
        self.head = head
        self.breaks: list[int] = []
        self.conts: list[int] = []


class Unit:
    """One unit being walked: its statements, control-flow edges, aliases."""

    def __init__(self, node: int, kind: str, fn: Node | None, index: int) -> None:
        self.index = index
        self.cross: list[list[Any]] = []  # [unit, stmt, stmt here, var, kind] from other units
        self.node = node
        self.kind = kind
        self.fn = fn
        self.stmts: list[Stmt] = []
        self.succ: list[tuple[int, int]] = []
        self.ctrl: list[int] = []
        self.loops: list[Loop] = []
        self.aliases: dict[str, set[str]] = {}
        self.closures: list[tuple[Node, int, list[str]]] = []  # (node, creating stmt, use vars)
        self.props_written: bool = False
        #: the latest earlier statement of the enclosing blocks that may jump past what
        #: follows (an `if` holding a continue / break / return / throw): a control
        #: dependence the block structure does not show
        self.guard = -1
        #: the names each parameter position binds, when they are not the entry's
        #: definitions one a position (``set_params``)
        self.positions: list[list[str]] | None = None
        self.rest = -1  # the position taking every argument from it on (-1: none)
        self.kwargs = ""  # the parameter taking keyword arguments no other one names
        self.jumps = 0  # break / continue / return / throw / exit statements so far
        self.exits = 0  # return / throw / exit statements so far

    def set_params(self, groups: list[list[str]], rest: int = -1, kwargs: str = "") -> None:
        """Say which names each parameter position binds (a destructured parameter: all of
        its names; a rest / variadic one: every argument from its position on; ``kwargs``:
        Python's ``**kw``, bound by keyword only). Serialised (``p``, ``v``, ``k``) only when
        that is not one entry definition a position, so a unit without such parameters
        keeps its bytes."""
        self.positions = [list(dict.fromkeys(g)) for g in groups]
        self.rest = rest
        self.kwargs = kwargs


class UnitBuilder:
    """Walks one parsed file into its flow units (``build``); a language's subclass walks
    its statements (``unit``, ``stmt``) and expressions."""

    #: node types of a block of statements
    BLOCKS: frozenset[str] = frozenset()
    #: statement node types after which a jump inside guards what follows (``seq``): a
    #: branch holding any jump, a loop holding an exit
    BRANCHING: frozenset[str] = frozenset()
    LOOPS: frozenset[str] = frozenset()
    #: the prefix of a variable that is a property of the object a method runs on
    SELF_PREFIX = ""
    #: uses that are taint sources (``FlowUnit.sources``)
    SOURCES: frozenset[str] = frozenset()
    #: the expression walk (``expr``): node types that are names (a use of what ``name``
    #: makes of one), node type -> handler(builder, unit, node, stmt, stack), node types
    #: walked no further (literals, types, names of members)
    IDENTS: frozenset[str] = frozenset({"identifier"})
    HANDLERS: dict[str, Any] = {}
    LEAVES: frozenset[str] = frozenset()
    #: a C-like ``switch`` (``switch``): its value's field, its case and default node types
    SWITCH_VALUE = "condition"
    SWITCH_CASES = ("case_statement", "default_statement")
    #: an ``if`` chain (``if_elif``): the field of a branch's body, the node type of ``else if``
    IF_BODY = "body"
    ELSE_IF = "else_if_clause"

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        self.src = src
        self.decl_at = decl_at
        self.units: list[Unit] = []
        #: units still to walk
        self.pending: list[Pending] = []
        self.method_class: dict[int, int] = {}  # unit index -> class start byte
        self.switches: set[int] = set()  # id() of the Loop objects of switch statements
        self.skipped = 0

    # -- driver -----------------------------------------------------------------------------
    def build(self, root: Node) -> list[FlowUnit]:
        script = Unit(0, UnitKind.SCRIPT, None, 0)
        self.units.append(script)
        entry = self.new(script, root, StmtKind.ENTRY, [])
        script.stmts[entry].end_line = script.stmts[entry].line
        self.seq(script, root.named_children, [entry])
        while self.pending:
            self.unit(*self.pending.pop(0))
        self.walked()
        self.class_links()
        done = [self.analyse(i, u) for i, u in enumerate(self.units)]
        outs: list[list[list[Any]]] = [[] for _ in self.units]
        for ui, (_dfg, cross) in enumerate(done):
            for oui, osi, si, var, kind in cross:
                outs[oui].append([osi, ui, si, var, kind])
        return [
            self.finish(u, dfg, cross, outs[i])
            for i, (u, (dfg, cross)) in enumerate(zip(self.units, done, strict=True))
        ]

    def unit(
        self,
        fn: Node,
        node: int,
        kind: str,
        cls: int,
        captured: list[str],
        origin: tuple[int, int] | None,
    ) -> None:
        """Walk one function, method or closure into a unit of its own (see ``Pending``): the
        unit (``unit_node`` may name another owner), its class when ``cls`` >= 0, for a
        closure an edge from the statement creating it to its entry per captured variable
        (``captured_vars``); then the language walks its signature and body (``enter``)."""
        node, kind = self.unit_node(fn, node, kind)
        u = Unit(node, kind, fn, len(self.units))
        self.units.append(u)
        if origin is not None:
            for v in self.captured_vars(captured):
                u.cross.append([origin[0], origin[1], 0, v, FlowStep.CAPTURE])
        if cls >= 0:
            self.method_class[u.index] = cls
        self.enter(u, fn, cls, captured, origin)

    def unit_node(self, fn: Node, node: int, kind: str) -> tuple[int, str]:
        """The owner node and kind of the unit of ``fn`` (by default those it was queued with)."""
        return node, kind

    def captured_vars(self, captured: list[str]) -> list[str]:
        """The names of the variables a closure captures, as ``Pending`` lists them."""
        return captured

    def enter(
        self, u: Unit, fn: Node, cls: int, captured: list[str], origin: tuple[int, int] | None
    ) -> None:
        """Walk the signature (statement 0 of ``u``) and the body of ``fn`` into ``u``."""
        raise NotImplementedError

    def stmt(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """Walk one statement after ``preds``; returns the statements control leaves it from."""
        raise NotImplementedError

    def expr(self, u: Unit, n: Node | None, s: Stmt) -> None:
        """Collect the uses, definitions, calls and sinks of an expression into ``s``."""
        if n is None:
            return
        stack = [n]
        uses = s.uses
        handlers = self.HANDLERS
        leaves = self.LEAVES
        idents = self.IDENTS
        name = self.name
        while stack:
            x = stack.pop()
            t = x.type
            if t in idents:
                v = name(u, x)
                if v is not None:
                    uses.append(v)
                continue
            h = handlers.get(t)
            if h is not None:
                h(self, u, x, s, stack)
            elif t not in leaves:
                stack.extend(x.named_children)

    def name(self, u: Unit, n: Node) -> str | None:
        """The variable a name node (``IDENTS``) of ``u`` is; None: none (the receiver)."""
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "replace")

    def walked(self) -> None:
        """Every unit is walked, none analysed yet: what a language settles across units
        (JavaScript's captured variables); nothing by default."""

    # -- the control-flow skeleton ----------------------------------------------------------
    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "replace")

    def new(self, u: Unit, n: Node, kind: str, preds: list[int], end: Node | None = None) -> int:
        i = len(u.stmts)
        last = end if end is not None else n
        u.stmts.append(
            Stmt(
                n.start_point[0] + 1,
                last.end_point[0] + 1,
                kind,
                u.ctrl[-1] if u.ctrl else -1,
                u.guard,
            )
        )
        if kind in JUMPS:
            u.jumps += 1
            if kind in EXITS:
                u.exits += 1
        for p in preds:
            u.succ.append((p, i))
        return i

    def seq(self, u: Unit, nodes: list[Node], preds: list[int]) -> list[int]:
        saved = u.guard
        branching, loops = self.BRANCHING, self.LOOPS
        for n in nodes:
            first, jumps, exits = len(u.stmts), u.jumps, u.exits
            preds = self.stmt(u, n, preds)
            if first < len(u.stmts) and (
                (n.type in branching and u.jumps > jumps) or (n.type in loops and u.exits > exits)
            ):
                u.guard = first  # what follows runs only when that one did not jump away
        u.guard = saved
        return preds

    def body(self, u: Unit, n: Node | None, preds: list[int], head: int) -> list[int]:
        if n is None:
            return preds
        u.ctrl.append(head)
        try:
            if n.type in self.BLOCKS:
                return self.seq(u, n.named_children, preds)
            return self.stmt(u, n, preds)
        finally:
            u.ctrl.pop()

    def loop(self, u: Unit, h: int, body: Node | None, head: int) -> list[int]:
        lp = Loop(h)
        u.loops.append(lp)
        end = self.body(u, body, [h], head)
        u.loops.pop()
        for p in end + lp.conts:
            u.succ.append((p, h))
        return [h, *lp.breaks]

    def switch(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """A C-like ``switch`` (``SWITCH_*``): a case falls through to the next; a ``break``
        leaves it, as a ``continue`` that names no enclosing loop (PHP) does."""
        cond = n.child_by_field_name(self.SWITCH_VALUE)
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.SWITCH, preds, cond)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        lp = Loop(h)
        self.switches.add(id(lp))
        u.loops.append(lp)
        fall: list[int] = []
        has_default = False
        u.ctrl.append(h)
        for c in body.named_children if body is not None else []:
            if c.type not in self.SWITCH_CASES:
                continue
            value = c.child_by_field_name("value")
            if c.type == self.SWITCH_CASES[1]:
                has_default = True
            k = self.new(
                u, c, StmtKind.CASE if value is not None else StmtKind.DEFAULT, [h, *fall], value
            )
            if value is not None:
                self.expr(u, value, u.stmts[k])
            else:
                u.stmts[k].end_line = u.stmts[k].line
            kids = [x for x in c.named_children if x != value]
            u.ctrl.append(k)
            fall = self.seq(u, kids, [k])
            u.ctrl.pop()
        u.ctrl.pop()
        u.loops.pop()
        self.switches.discard(id(lp))
        out = fall + lp.breaks + lp.conts
        if not has_default:
            out.append(h)
        return out

    def if_elif(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """``if`` with its ``else if`` / ``elif`` chain (``IF_BODY``, ``ELSE_IF``) and ``else``."""
        cond = n.child_by_field_name("condition")
        h = self.new(u, n, StmtKind.IF, preds, cond)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        out = self.body(u, n.child_by_field_name(self.IF_BODY), [h], h)
        last = h
        has_else = False
        for i, c in enumerate(n.children):
            if n.field_name_for_child(i) != "alternative":
                continue
            if c.type == self.ELSE_IF:
                cc = c.child_by_field_name("condition")
                u.ctrl.append(last)
                e = self.new(u, c, StmtKind.ELSEIF, [last], cc)
                u.ctrl.pop()
                if cc is not None:
                    self.expr(u, cc, u.stmts[e])
                out = out + self.body(u, c.child_by_field_name(self.IF_BODY), [e], e)
                last = e
            elif c.type == "else_clause":
                has_else = True
                out = out + self.body(u, c.child_by_field_name("body"), [last], last)
        if not has_else:
            out = out + [last]
        return out

    def do_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """``do ... while (cond)``: the body runs once before the condition decides."""
        first = len(u.stmts)
        lp = Loop(-1)
        u.loops.append(lp)
        cond = n.child_by_field_name("condition")
        # the body runs before the condition; the condition decides whether it runs again
        end = self.body(u, n.child_by_field_name("body"), preds, -1)
        u.loops.pop()
        h = self.new(u, cond if cond is not None else n, StmtKind.DO_WHILE, end + lp.conts)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        if first < h:
            u.succ.append((h, first))
        else:
            for p in preds:
                u.succ.append((p, h))
        return [h, *lp.breaks]

    def alias(self, u: Unit, a: str, b: str) -> None:
        if a != b:
            u.aliases.setdefault(a, set()).add(b)
            u.aliases.setdefault(b, set()).add(a)

    # -- reaching definitions -----------------------------------------------------------------
    def class_links(self) -> None:
        """A use of a property of the object (``SELF_PREFIX``: PHP's ``$this->p``) that no
        definition of its method reaches: every definition of it in the other methods of the
        class (derived)."""
        prefix = self.SELF_PREFIX
        by_class: dict[int, list[int]] = {}
        for ui, cls in self.method_class.items():
            by_class.setdefault(cls, []).append(ui)
        self.class_defs: dict[int, dict[str, list[tuple[int, int]]]] = {}
        for _cls, uis in by_class.items():
            defs: dict[str, list[tuple[int, int]]] = {}
            for ui in uis:
                for si, s in enumerate(self.units[ui].stmts):
                    for v in s.defs:
                        if v.startswith(prefix):
                            defs.setdefault(v, []).append((ui, si))
                    for v in s.weak:
                        if v.startswith(prefix):
                            defs.setdefault(v, []).append((ui, si))
            for ui in uis:
                self.class_defs[ui] = defs

    def analyse(self, ui: int, u: Unit) -> tuple[list[tuple[int, int, str]], list[list[Any]]]:
        """Def-use edges of a unit and the links into it from other units of the file."""
        stmts = u.stmts
        n = len(stmts)
        dfg: list[tuple[int, int, str]] = []
        exposed: list[tuple[int, str]] = []
        if n <= MAX_STATEMENTS:
            dfg, exposed = reaching(stmts, u.succ, u.aliases)
        else:
            self.skipped += 1
        cross: list[list[Any]] = list(u.cross)
        cdefs = getattr(self, "class_defs", {}).get(ui)
        if cdefs:
            for si, v in exposed:
                if v.startswith(self.SELF_PREFIX):
                    for oui, osi in cdefs.get(v, ())[:MAX_CLASS_DEFS]:
                        if oui != ui:
                            cross.append([oui, osi, si, v, FlowStep.PROPERTY])
        return dfg, cross

    def finish(
        self,
        u: Unit,
        dfg: list[tuple[int, int, str]],
        cross: list[list[Any]],
        out: list[list[Any]],
    ) -> FlowUnit:
        """The unit as FlowUnit: ``x`` the links into it ([unit, stmt, stmt here, var, kind]),
        ``o`` the same links seen from their source ([stmt here, unit, stmt, var, kind])."""
        stmts = u.stmts
        fn = u.fn
        start = fn.start_point[0] + 1 if fn is not None else 1
        end = fn.end_point[0] + 1 if fn is not None else max(s.end_line for s in stmts)
        data: dict[str, Any] = {
            "s": [
                [
                    s.line,
                    s.end_line,
                    s.kind,
                    s.ctrl,
                    _cap(s.defs + s.weak if s.weak else s.defs),
                    _cap(s.uses),
                    s.calls if len(s.calls) <= MAX_CALLS else s.calls[:MAX_CALLS],
                    sorted(set(s.sinks)) if s.sinks else [],
                    s.guard,
                ]
                for s in stmts
            ],
            "c": sorted(set(u.succ)),
            "d": dfg,
            "o": out,
            "x": cross,
        }
        pos = u.positions
        if pos is not None and (u.rest >= 0 or u.kwargs or any(len(g) != 1 for g in pos)):
            data["p"] = pos
            if u.rest >= 0:
                data["v"] = u.rest
            if u.kwargs:
                data["k"] = u.kwargs
        sources = self.SOURCES
        read = {v for s in stmts for v in s.uses if v in sources}
        return FlowUnit(
            u.node,
            u.kind,
            start,
            end,
            _encode(data),
            " ".join(sorted(read)),
        )


#: ``json.dumps(x, separators=(",", ":"))`` without a new encoder per unit
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def _cap(names: list[str]) -> list[str]:
    """The names once each, in order, at most ``MAX_NAMES`` (the definitions before the
    weak definitions not among them)."""
    if len(names) < 2:
        return names
    out = list(dict.fromkeys(names))
    return out if len(out) <= MAX_NAMES else out[:MAX_NAMES]


def _reaching_tiny(stmts: list[Stmt]) -> tuple[list[tuple[int, int, str]], list[tuple[int, str]]]:
    """``reaching`` of an entry alone or an entry followed by one statement (most closures
    and one-line functions), without the bit sets: the same edges in the same order."""
    first = stmts[0]
    exposed = [(0, v) for v in dict.fromkeys(first.uses)]
    if len(stmts) == 1:
        return [], exposed
    defined = set(first.defs) | set(first.weak)
    edges: list[tuple[int, int, str]] = []
    for v in dict.fromkeys(stmts[1].uses):
        if v in defined:
            edges.append((0, 1, v))
        else:
            exposed.append((1, v))
    edges.sort()
    return edges, exposed


def reaching(
    stmts: list[Stmt], succ: list[tuple[int, int]], aliases: dict[str, set[str]]
) -> tuple[list[tuple[int, int, str]], list[tuple[int, str]]]:
    """Def-use edges (def stmt, use stmt, var) by reaching definitions over ``succ``, and
    the uses no definition reaches (upward-exposed: parameters of nothing, globals of the
    file, properties set elsewhere)."""
    n = len(stmts)
    if not aliases and (n == 1 and not succ or n == 2 and succ and set(succ) == {(0, 1)}):
        return _reaching_tiny(stmts)
    var_mask: dict[str, int] = {}
    def_stmt: list[int] = []
    gen = [0] * n
    kill_vars: list[tuple[str, ...]] = [()] * n
    for i, s in enumerate(stmts):
        if not s.defs and not s.weak:
            continue  # no definition: nothing generated, nothing killed
        strong = list(dict.fromkeys(s.defs)) if len(s.defs) > 1 else list(s.defs)
        weak = [w for w in dict.fromkeys(s.weak) if w not in strong] if s.weak else []
        if aliases:
            for v in strong + weak:
                for a in aliases.get(v, ()):
                    if a not in strong and a not in weak:
                        weak.append(a)
        g = 0
        for v in strong + weak:
            d = len(def_stmt)
            def_stmt.append(i)
            bit = 1 << d
            g |= bit
            var_mask[v] = var_mask.get(v, 0) | bit
        gen[i] = g
        kill_vars[i] = tuple(strong)
    kill = [0] * n
    for i in range(n):
        k = 0
        for v in kill_vars[i]:
            k |= var_mask[v]
        kill[i] = k & ~gen[i]
    preds: list[list[int]] = [[] for _ in range(n)]
    for x_, y_ in succ:
        preds[y_].append(x_)
    inn = [0] * n
    out = [0] * n
    # statements are numbered in document order: without a back edge every predecessor
    # comes first, and one pass in order is the fixed point
    changed = True
    if all(x_ < y_ for x_, y_ in succ):
        changed = False
        for i in range(n):
            x = 0
            for p in preds[i]:
                x |= out[p]
            inn[i] = x
            out[i] = gen[i] | (x & ~kill[i])
    while changed:
        changed = False
        for i in range(n):
            x = 0
            for p in preds[i]:
                x |= out[p]
            inn[i] = x
            o = gen[i] | (x & ~kill[i])
            if o != out[i]:
                out[i] = o
                changed = True
    edges: list[tuple[int, int, str]] = []
    exposed: list[tuple[int, str]] = []
    for i, s in enumerate(stmts):
        if not s.uses:
            continue
        x = inn[i]
        for v in dict.fromkeys(s.uses) if len(s.uses) > 1 else s.uses:
            m = x & var_mask.get(v, 0)
            if not m:
                exposed.append((i, v))
                continue
            while m:
                low = m & -m
                edges.append((def_stmt[low.bit_length() - 1], i, v))
                m ^= low
    edges.sort()
    return edges, exposed

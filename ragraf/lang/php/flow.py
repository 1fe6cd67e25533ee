"""The data-flow layer of PHP code (issue 13): per function, method, closure and
file-level script, an intra-procedural control-flow skeleton over statements
and the def-use edges of reaching definitions, built from the tree-sitter tree
the extractor already parsed (no JVM, no Joern).

Invariants a change must keep:
- Syntactic only: every statement, control-flow edge and def-use edge is read
  off the tree of this one file, so FileFacts stay a function of (path,
  content, extractor version). Names are resolved later, at query time
  (``ragraf.facade.flowops``), through the resolver's call edges.
- A *unit* is a function, method, closure or the file-level script; statement
  0 of a unit is its entry (the signature: it defines the parameters and, for
  a closure, the ``use`` variables). Statements are numbered in document
  order; ``ctrl`` is the innermost branch or loop header that decides whether
  the statement runs (-1: none), its syntactic control dependence.
- Variables are PHP names with their ``$``; ``$this->p`` is a variable of its
  own per method (``self::$p`` likewise); an element write ``$a[k] = v`` or a
  write through an object ``$o->p = v`` is a weak definition of the whole
  ``$a`` / ``$o`` (it does not kill earlier ones); a reference ``$a = &$b``,
  ``foreach ($xs as &$x)`` and ``use (&$x)`` make the names aliases whose
  definitions are weak definitions of each other.
- Reaching definitions are computed over the control-flow edges to a fixed
  point (bit sets): a use links every definition of its name that reaches it.
  ``try``: a ``catch`` may be entered from any statement of the ``try`` body;
  ``finally`` from the ends of the body and of the catches (a ``return``
  inside the body does not run through ``finally`` here).
- A unit is serialised once, in the worker, as compact JSON
  (``FlowUnit.data``), stored as it is in ``flow_unit`` (graph.sqlite).
- Bodies are not copied: a statement is (line, end line, kind); its text is
  read from the indexed file when an answer shows it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ragraf.lang.facts import FlowUnit

if TYPE_CHECKING:
    from tree_sitter import Node

#: statements that only declare something for another unit or do nothing at run time
_SKIP = frozenset(
    {
        "comment",
        "php_tag",
        "text_interpolation",
        "namespace_use_declaration",
        "empty_statement",
        "named_label_statement",
        "interface_declaration",
        "use_declaration",
        "text",
    }
)
_CLASS_LIKE = frozenset(
    {"class_declaration", "trait_declaration", "enum_declaration", "interface_declaration"}
)
_BLOCKS = frozenset({"compound_statement", "colon_block"})
#: builtins that write a by-reference argument (0-based positions)
BYREF_BUILTINS: dict[str, tuple[int, ...]] = {
    "preg_match": (2,),
    "preg_match_all": (2,),
    "preg_replace_callback": (4,),
    "preg_replace": (4,),
    "str_replace": (3,),
    "str_ireplace": (3,),
    "parse_str": (1,),
    "sort": (0,),
    "rsort": (0,),
    "usort": (0,),
    "uasort": (0,),
    "uksort": (0,),
    "ksort": (0,),
    "krsort": (0,),
    "asort": (0,),
    "arsort": (0,),
    "natsort": (0,),
    "natcasesort": (0,),
    "shuffle": (0,),
    "array_push": (0,),
    "array_unshift": (0,),
    "array_pop": (0,),
    "array_shift": (0,),
    "array_splice": (0,),
    "array_walk": (0,),
    "array_multisort": (0,),
    "settype": (0,),
    "list": (),
    "exec": (1, 2),
    "mb_parse_str": (1,),
    "openssl_sign": (1,),
    "end": (),
    "reset": (),
}
#: a statement with more uses or definitions is cut (a generated table, a huge array)
MAX_NAMES = 200
#: units with more statements are kept without def-use edges (generated code)
MAX_STATEMENTS = 20_000


class _Stmt:
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


class _Loop:
    __slots__ = ("breaks", "conts", "head")

    def __init__(self, head: int) -> None:
        self.head = head
        self.breaks: list[int] = []
        self.conts: list[int] = []


class _Unit:
    """One unit being walked: its statements, control-flow edges, aliases."""

    def __init__(self, node: int, kind: str, fn: Node | None, index: int) -> None:
        self.index = index
        self.cross: list[list[Any]] = []  # [unit, stmt, stmt here, var, kind] from other units
        self.node = node
        self.kind = kind
        self.fn = fn
        self.stmts: list[_Stmt] = []
        self.succ: list[tuple[int, int]] = []
        self.ctrl: list[int] = []
        self.loops: list[_Loop] = []
        self.aliases: dict[str, set[str]] = {}
        self.closures: list[tuple[Node, int, list[str]]] = []  # (node, creating stmt, use vars)
        self.props_written: bool = False
        #: the latest earlier statement of the enclosing blocks that may jump past what
        #: follows (an `if` holding a continue / break / return / throw): a control
        #: dependence the block structure does not show
        self.guard = -1
        self.jumps = 0  # break / continue / return / throw / exit statements so far
        self.exits = 0  # return / throw / exit statements so far


class FlowBuilder:
    """Walks one parsed file into its flow units (``build``)."""

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        self.src = src
        self.decl_at = decl_at
        self.units: list[_Unit] = []
        #: units still to walk: (node, owner node index, kind, class start byte or -1,
        #: captured variables, (enclosing unit, creating statement) of a closure)
        self.pending: list[tuple[Node, int, str, int, list[str], tuple[int, int] | None]] = []
        self.method_class: dict[int, int] = {}  # unit index -> class start byte
        self.skipped = 0

    # -- driver -----------------------------------------------------------------------------
    def build(self, root: Node) -> list[FlowUnit]:
        script = _Unit(0, "script", None, 0)
        self.units.append(script)
        entry = self.new(script, root, "entry", [])
        script.stmts[entry].end_line = script.stmts[entry].line
        self.seq(script, root.named_children, [entry])
        while self.pending:
            self.unit(*self.pending.pop(0))
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
        ui = len(self.units)
        u = _Unit(node, kind, fn, ui)
        self.units.append(u)
        if origin is not None:
            # the statement creating the closure -> its entry, per captured variable (stated)
            for v, _byref in captured_names(captured):
                u.cross.append([origin[0], origin[1], 0, v, "capture"])
        if cls >= 0:
            self.method_class[ui] = cls
        params = fn.child_by_field_name("parameters")
        body = fn.child_by_field_name("body")
        end = (body.start_point[0] if body is not None else fn.end_point[0]) + 1
        s = _Stmt(fn.start_point[0] + 1, max(end, fn.start_point[0] + 1), "entry", -1)
        u.stmts.append(s)
        if params is not None:
            for p in params.named_children:
                name = p.child_by_field_name("name")
                if name is not None and name.type == "variable_name":
                    v = self.t(name)
                    s.defs.append(v)
                    if p.type == "property_promotion_parameter":  # __construct(private $db)
                        s.defs.append("$this->" + v[1:])
                    default = p.child_by_field_name("default_value")
                    if default is not None:
                        self.expr(u, default, s)
        for v, byref in captured_names(captured):
            s.defs.append(v)
            if byref:
                u.aliases.setdefault(v, set())
        if body is not None and body.type in _BLOCKS:
            self.seq(u, body.named_children, [0])

    # -- statements -------------------------------------------------------------------------
    def t(self, n: Node) -> str:
        return n.text.decode("utf-8", "replace")  # type: ignore[union-attr]

    def new(self, u: _Unit, n: Node, kind: str, preds: list[int], end: Node | None = None) -> int:
        i = len(u.stmts)
        last = end if end is not None else n
        u.stmts.append(
            _Stmt(
                n.start_point[0] + 1,
                last.end_point[0] + 1,
                kind,
                u.ctrl[-1] if u.ctrl else -1,
                u.guard,
            )
        )
        if kind in _JUMPS:
            u.jumps += 1
            if kind in _EXITS:
                u.exits += 1
        for p in preds:
            u.succ.append((p, i))
        return i

    def seq(self, u: _Unit, nodes: list[Node], preds: list[int]) -> list[int]:
        saved = u.guard
        for n in nodes:
            first, jumps, exits = len(u.stmts), u.jumps, u.exits
            preds = self.stmt(u, n, preds)
            if first < len(u.stmts) and (
                (n.type in _BRANCHING and u.jumps > jumps) or (n.type in _LOOPS and u.exits > exits)
            ):
                u.guard = first  # what follows runs only when that one did not jump away
        u.guard = saved
        return preds

    def body(self, u: _Unit, n: Node | None, preds: list[int], head: int) -> list[int]:
        if n is None:
            return preds
        u.ctrl.append(head)
        try:
            if n.type in _BLOCKS:
                return self.seq(u, n.named_children, preds)
            return self.stmt(u, n, preds)
        finally:
            u.ctrl.pop()

    def stmt(self, u: _Unit, n: Node, preds: list[int]) -> list[int]:
        t = n.type
        if t in _SKIP:
            return preds
        if t in _BLOCKS:
            return self.seq(u, n.named_children, preds)
        if t == "expression_statement":
            c = n.named_children[0] if n.named_child_count else None
            kind = "expr"
            if c is not None:
                if c.type in ("assignment_expression", "augmented_assignment_expression"):
                    kind = "assign"
                elif c.type == "reference_assignment_expression":
                    kind = "assign"
                elif c.type == "throw_expression":
                    kind = "throw"
                elif c.type == "print_intrinsic":
                    kind = "echo"
            i = self.new(u, n, kind, preds)
            if c is not None:
                self.expr(u, c, u.stmts[i])
            return [] if kind == "throw" else [i]
        if t == "return_statement":
            i = self.new(u, n, "return", preds)
            self.expr_children(u, n, u.stmts[i])
            return []
        if t == "echo_statement":
            i = self.new(u, n, "echo", preds)
            u.stmts[i].sinks.append("output")
            self.expr_children(u, n, u.stmts[i])
            return [i]
        if t == "if_statement":
            return self.if_(u, n, preds)
        if t == "while_statement":
            cond = n.child_by_field_name("condition")
            h = self.new(u, n, "while", preds, cond)
            if cond is not None:
                self.expr(u, cond, u.stmts[h])
            return self.loop(u, h, n.child_by_field_name("body"), h)
        if t == "do_statement":
            return self.do_(u, n, preds)
        if t == "for_statement":
            h = self.new(u, n, "for", preds)
            body = n.child_by_field_name("body")
            s = u.stmts[h]
            if body is not None:
                s.end_line = max(s.line, body.start_point[0] + 1)
            for c in n.named_children:
                if c != body:
                    self.expr(u, c, s)
            return self.loop(u, h, body, h)
        if t == "foreach_statement":
            return self.foreach(u, n, preds)
        if t == "switch_statement":
            return self.switch(u, n, preds)
        if t == "try_statement":
            return self.try_(u, n, preds)
        if t in ("break_statement", "continue_statement"):
            i = self.new(u, n, "break" if t == "break_statement" else "continue", preds)
            level = 1
            for c in n.named_children:
                if c.type == "integer":
                    try:
                        level = max(1, int(self.t(c)))
                    except ValueError:
                        level = 1
            if len(u.loops) >= level:
                lp = u.loops[-level]
                (lp.breaks if t == "break_statement" else lp.conts).append(i)
            return []
        if t == "global_declaration":
            i = self.new(u, n, "global", preds)
            for c in n.named_children:
                if c.type == "variable_name":
                    u.stmts[i].defs.append(self.t(c))
            return [i]
        if t == "function_static_declaration":
            i = self.new(u, n, "static", preds)
            s = u.stmts[i]
            for d in n.named_children:
                name = d.child_by_field_name("name")
                if name is not None:
                    s.defs.append(self.t(name))
                val = d.child_by_field_name("value")
                if val is not None:
                    self.expr(u, val, s)
            return [i]
        if t == "unset_statement":
            i = self.new(u, n, "unset", preds)
            for c in n.named_children:
                self.target(u, c, u.stmts[i], also_use=False)
            return [i]
        if t == "exit_statement":
            i = self.new(u, n, "exit", preds)
            self.expr_children(u, n, u.stmts[i])
            return []
        if t == "function_definition":
            node = self.decl_at.get(n.start_byte)
            if node is not None:
                self.pending.append((n, node, "function", -1, [], None))
            return preds
        if t in _CLASS_LIKE:
            self.class_(n)
            return preds
        if t == "namespace_definition":
            body = n.child_by_field_name("body")
            return self.seq(u, body.named_children, preds) if body is not None else preds
        if t == "declare_statement":
            kids = [c for c in n.named_children if c.type not in ("declare_directive",)]
            return self.seq(u, kids, preds)
        if t == "inline_html":
            return preds
        i = self.new(u, n, "stmt", preds)
        self.expr_children(u, n, u.stmts[i])
        return [i]

    def class_(self, n: Node) -> None:
        body = n.child_by_field_name("body")
        if body is None:
            return
        for m in body.named_children:
            if m.type == "method_declaration" and m.child_by_field_name("body") is not None:
                node = self.decl_at.get(m.start_byte)
                if node is not None:
                    self.pending.append((m, node, "method", n.start_byte, [], None))

    def if_(self, u: _Unit, n: Node, preds: list[int]) -> list[int]:
        cond = n.child_by_field_name("condition")
        h = self.new(u, n, "if", preds, cond)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        out = self.body(u, n.child_by_field_name("body"), [h], h)
        last = h
        has_else = False
        for i, c in enumerate(n.children):
            if n.field_name_for_child(i) != "alternative":
                continue
            if c.type == "else_if_clause":
                cc = c.child_by_field_name("condition")
                u.ctrl.append(last)
                e = self.new(u, c, "elseif", [last], cc)
                u.ctrl.pop()
                if cc is not None:
                    self.expr(u, cc, u.stmts[e])
                out = out + self.body(u, c.child_by_field_name("body"), [e], e)
                last = e
            elif c.type == "else_clause":
                has_else = True
                out = out + self.body(u, c.child_by_field_name("body"), [last], last)
        if not has_else:
            out = out + [last]
        return out

    def loop(self, u: _Unit, h: int, body: Node | None, head: int) -> list[int]:
        lp = _Loop(h)
        u.loops.append(lp)
        end = self.body(u, body, [h], head)
        u.loops.pop()
        for p in end + lp.conts:
            u.succ.append((p, h))
        return [h, *lp.breaks]

    def do_(self, u: _Unit, n: Node, preds: list[int]) -> list[int]:
        first = len(u.stmts)
        lp = _Loop(-1)
        u.loops.append(lp)
        cond = n.child_by_field_name("condition")
        # the body runs before the condition; the condition decides whether it runs again
        end = self.body(u, n.child_by_field_name("body"), preds, -1)
        u.loops.pop()
        h = self.new(u, cond if cond is not None else n, "do_while", end + lp.conts)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        if first < h:
            u.succ.append((h, first))
        else:
            for p in preds:
                u.succ.append((p, h))
        return [h, *lp.breaks]

    def foreach(self, u: _Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, "foreach", preds)
        s = u.stmts[h]
        if body is not None:
            s.end_line = max(s.line, body.start_point[0] + 1)
        kids = [c for c in n.named_children if c != body and c.type != "comment"]
        base: str | None = None
        if kids:
            self.expr(u, kids[0], s)
            base = self.base_var(kids[0])
        for c in kids[1:]:
            if c.type == "pair":
                parts = c.named_children
                for p in parts[:-1]:
                    self.target(u, p, s, also_use=False)
                c = parts[-1] if parts else c
            if c.type == "by_ref":
                inner = c.named_children[0] if c.named_child_count else None
                if inner is not None:
                    self.target(u, inner, s, also_use=False)
                    if inner.type == "variable_name" and base is not None:
                        self.alias(u, self.t(inner), base)
            else:
                self.target(u, c, s, also_use=False)
        return self.loop(u, h, body, h)

    def switch(self, u: _Unit, n: Node, preds: list[int]) -> list[int]:
        cond = n.child_by_field_name("condition")
        body = n.child_by_field_name("body")
        h = self.new(u, n, "switch", preds, cond)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        lp = _Loop(h)
        u.loops.append(lp)
        fall: list[int] = []
        has_default = False
        u.ctrl.append(h)
        for c in body.named_children if body is not None else []:
            if c.type not in ("case_statement", "default_statement"):
                continue
            value = c.child_by_field_name("value")
            if c.type == "default_statement":
                has_default = True
            k = self.new(u, c, "case" if value is not None else "default", [h, *fall], value)
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
        out = fall + lp.breaks + lp.conts
        if not has_default:
            out.append(h)
        return out

    def try_(self, u: _Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, "try", preds)
        u.stmts[h].end_line = u.stmts[h].line
        first = len(u.stmts)
        out = self.body(u, body, [h], -1) if body is not None else [h]
        in_try = list(range(first, len(u.stmts)))
        for c in n.named_children:
            if c.type == "catch_clause":
                name = c.child_by_field_name("name")
                k = self.new(u, c, "catch", [h, *in_try], c.child_by_field_name("type") or c)
                if name is not None:
                    u.stmts[k].defs.append(self.t(name))
                out = out + self.body(u, c.child_by_field_name("body"), [k], k)
            elif c.type == "finally_clause":
                f = self.new(u, c, "finally", [h, *out])
                u.stmts[f].end_line = u.stmts[f].line
                out = self.body(u, c.child_by_field_name("body"), [f], -1)
        return out

    # -- expressions ------------------------------------------------------------------------
    def expr_children(self, u: _Unit, n: Node, s: _Stmt) -> None:
        for c in n.named_children:
            self.expr(u, c, s)

    def expr(self, u: _Unit, n: Node, s: _Stmt) -> None:
        """Collect the uses, definitions, calls and sinks of an expression into ``s``."""
        stack = [n]
        uses = s.uses
        handlers = _EXPR
        leaves = _LEAVES
        while stack:
            x = stack.pop()
            t = x.type
            if t == "variable_name":
                v = x.text.decode("utf-8", "replace")  # type: ignore[union-attr]
                if v != "$this":
                    uses.append(v)
                continue
            h = handlers.get(t)
            if h is not None:
                h(self, u, x, s, stack)
            elif t not in leaves:
                stack.extend(x.named_children)

    def _assign(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        right = x.child_by_field_name("right")
        if right is not None:
            stack.append(right)
        if left is not None:
            self.target(u, left, s, also_use=False)
            if (
                x.type == "reference_assignment_expression"
                and right is not None
                and left.type == "variable_name"
            ):
                rv = self.base_var(right)
                if rv is not None:
                    self.alias(u, self.t(left), rv)

    def _augmented(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        right = x.child_by_field_name("right")
        if right is not None:
            stack.append(right)
        if left is not None:
            self.target(u, left, s, also_use=True)

    def _update(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        arg = x.child_by_field_name("argument")
        if arg is None and x.named_child_count:
            arg = x.named_children[0]
        if arg is not None:
            self.target(u, arg, s, also_use=True)

    def _member(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        v = self.prop_var(x)
        if v is not None:
            s.uses.append(v)
        else:
            stack.extend(x.named_children)

    def _scoped_prop(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        s.uses.append(self.t(x))

    def _new(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        args = None
        for c in x.named_children:
            t = c.type
            if t == "arguments":
                args = c
            elif t not in ("name", "qualified_name", "anonymous_class"):
                stack.append(c)
        if args is not None:
            s.calls.append(["__construct", "new", self.args(u, args, s)])

    def _sink(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        s.sinks.append(_SINK_OF[x.type])
        stack.extend(x.named_children)

    def _skip(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        return

    def call(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        fn = x.child_by_field_name("function")
        args = x.child_by_field_name("arguments")
        name = ""
        if fn is not None:
            if fn.type in ("name", "qualified_name", "relative_name"):
                name = self.t(fn).rsplit("\\", 1)[-1].lower()
            else:
                stack.append(fn)
        argv = self.args(u, args, s) if args is not None else []
        if name in _INPUT_READERS and args is not None and args.named_child_count:
            if b"php://input" in args.named_children[0].text:  # type: ignore[operator]
                s.uses.append("php://input")
        if name == "compact" and args is not None:
            for a in args.named_children:
                txt = self.t(a).strip("'\" ")
                if txt.isidentifier():
                    s.uses.append("$" + txt)
        for pos in BYREF_BUILTINS.get(name, ()):
            if pos < len(argv):
                for v in argv[pos]:
                    s.weak.append(v)
        s.calls.append([name, "function" if name else "dynamic", argv])

    def method_call(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        obj = x.child_by_field_name("object") or x.child_by_field_name("scope")
        name = x.child_by_field_name("name")
        args = x.child_by_field_name("arguments")
        if obj is not None:
            stack.append(obj)
        mname = ""
        if name is not None:
            if name.type == "name":
                mname = self.t(name).lower()
            else:
                stack.append(name)
        argv = self.args(u, args, s) if args is not None else []
        how = "static" if x.type == "scoped_call_expression" else "method"
        s.calls.append([mname, how, argv])

    def args(self, u: _Unit, args: Node, s: _Stmt) -> list[list[str]]:
        out: list[list[str]] = []
        for a in args.named_children:
            if a.type == "comment":
                continue
            before = len(s.uses)
            self.expr(u, a, s)
            out.append(sorted(set(s.uses[before:])))
        return out

    def closure(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        captured: list[str] = []
        for c in x.named_children:
            if c.type == "anonymous_function_use_clause":
                for v in c.named_children:
                    if v.type == "variable_name":
                        name = self.t(v)
                        s.uses.append(name)
                        captured.append(name)
                    elif v.type == "by_ref" and v.named_child_count:
                        name = self.t(v.named_children[0])
                        s.uses.append(name)
                        s.weak.append(name)
                        captured.append("&" + name)
        si = len(u.stmts) - 1
        if u.stmts[si] is not s:
            si = next((i for i, x2 in enumerate(u.stmts) if x2 is s), si)
        self.pending.append((x, u.node, "closure", -1, captured, (u.index, si)))

    def arrow(self, u: _Unit, x: Node, s: _Stmt, stack: list[Node]) -> None:
        params = x.child_by_field_name("parameters")
        body = x.child_by_field_name("body")
        own: set[str] = set()
        if params is not None:
            for p in params.named_children:
                name = p.child_by_field_name("name")
                if name is not None:
                    own.add(self.t(name))
        if body is None:
            return
        tmp = _Stmt(0, 0, "", -1)
        self.expr(u, body, tmp)
        s.uses.extend(v for v in tmp.uses if v not in own)
        s.calls.extend(tmp.calls)
        s.sinks.extend(tmp.sinks)

    def target(self, u: _Unit, n: Node, s: _Stmt, *, also_use: bool) -> None:
        """``n`` is written: a variable, a destructuring list, an element or a property."""
        t = n.type
        if t == "variable_name":
            v = self.t(n)
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        if t in ("list_literal", "array_creation_expression"):
            for c in n.named_children:
                if c.type == "array_element_initializer" or c.type == "pair":
                    parts = c.named_children
                    if not parts:
                        continue
                    for p in parts[:-1]:
                        self.expr(u, p, s)
                    c = parts[-1]
                if c.type == "by_ref" and c.named_child_count:
                    c = c.named_children[0]
                if c.type in ("variable_name", "list_literal", "array_creation_expression"):
                    self.target(u, c, s, also_use=also_use)
                elif c.type in (
                    "subscript_expression",
                    "member_access_expression",
                    "scoped_property_access_expression",
                ):
                    self.target(u, c, s, also_use=also_use)
                else:
                    self.expr(u, c, s)
            return
        if t == "member_access_expression" or t == "nullsafe_member_access_expression":
            pv = self.prop_var(n)
            if pv is not None:
                if also_use:
                    s.uses.append(pv)
                s.defs.append(pv)
                u.props_written = True
                return
            obj = n.child_by_field_name("object")
            base = self.base_var(obj) if obj is not None else None
            if obj is not None:
                self.expr(u, obj, s)
            name = n.child_by_field_name("name")
            if name is not None and name.type != "name":
                self.expr(u, name, s)
            if base is not None:
                s.weak.append(base)
            return
        if t == "scoped_property_access_expression":
            v = self.t(n)
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        if t == "subscript_expression":
            kids = n.named_children
            if not kids:
                return
            base = self.base_var(kids[0])
            for c in kids[1:]:
                self.expr(u, c, s)
            inner = kids[0]
            if inner.type not in ("variable_name",) and not (
                inner.type == "member_access_expression" and self.prop_var(inner) is not None
            ):
                self.expr(u, inner, s)
            if base is not None:
                if also_use:
                    s.uses.append(base)
                s.weak.append(base)
            return
        if t == "by_ref" and n.named_child_count:
            self.target(u, n.named_children[0], s, also_use=also_use)
            return
        self.expr(u, n, s)

    def prop_var(self, n: Node) -> str | None:
        """``$this->p`` as the variable ``$this->p``; None for any other member access."""
        obj = n.child_by_field_name("object")
        name = n.child_by_field_name("name")
        if (
            obj is not None
            and name is not None
            and obj.type == "variable_name"
            and name.type == "name"
            and self.src[obj.start_byte : obj.end_byte] == b"$this"
        ):
            return "$this->" + self.t(name)
        return None

    def base_var(self, n: Node) -> str | None:
        """The variable an element / property chain starts from (``$a`` of ``$a['k']->p``)."""
        while True:
            t = n.type
            if t == "variable_name":
                v = self.t(n)
                return None if v == "$this" else v
            if t in ("member_access_expression", "nullsafe_member_access_expression"):
                pv = self.prop_var(n)
                if pv is not None:
                    return pv
                obj = n.child_by_field_name("object")
                if obj is None:
                    return None
                n = obj
                continue
            if t == "subscript_expression" and n.named_child_count:
                n = n.named_children[0]
                continue
            if t == "scoped_property_access_expression":
                return self.t(n)
            if t == "by_ref" and n.named_child_count:
                n = n.named_children[0]
                continue
            return None

    def alias(self, u: _Unit, a: str, b: str) -> None:
        if a != b:
            u.aliases.setdefault(a, set()).add(b)
            u.aliases.setdefault(b, set()).add(a)

    # -- reaching definitions -----------------------------------------------------------------
    def class_links(self) -> None:
        """A use of ``$this->p`` that no definition of its method reaches: every definition of
        ``$this->p`` in the other methods of the class (derived)."""
        by_class: dict[int, list[int]] = {}
        for ui, cls in self.method_class.items():
            by_class.setdefault(cls, []).append(ui)
        self.class_defs: dict[int, dict[str, list[tuple[int, int]]]] = {}
        for _cls, uis in by_class.items():
            defs: dict[str, list[tuple[int, int]]] = {}
            for ui in uis:
                for si, s in enumerate(self.units[ui].stmts):
                    for v in s.defs:
                        if v.startswith("$this->"):
                            defs.setdefault(v, []).append((ui, si))
                    for v in s.weak:
                        if v.startswith("$this->"):
                            defs.setdefault(v, []).append((ui, si))
            for ui in uis:
                self.class_defs[ui] = defs

    def analyse(self, ui: int, u: _Unit) -> tuple[list[tuple[int, int, str]], list[list[Any]]]:
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
                if v.startswith("$this->"):
                    for oui, osi in cdefs.get(v, ())[:MAX_CLASS_DEFS]:
                        if oui != ui:
                            cross.append([oui, osi, si, v, "property"])
        return dfg, cross

    def finish(
        self,
        u: _Unit,
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
        data = {
            "s": [
                [
                    s.line,
                    s.end_line,
                    s.kind,
                    s.ctrl,
                    _cap(s.defs + [w for w in s.weak if w not in s.defs]),
                    _cap(s.uses),
                    s.calls[:MAX_CALLS],
                    sorted(set(s.sinks)),
                    s.guard,
                ]
                for s in stmts
            ],
            "c": sorted(set(u.succ)),
            "d": dfg,
            "o": out,
            "x": cross,
        }
        read = {v for s in stmts for v in s.uses if v in SOURCES}
        return FlowUnit(
            u.node,
            u.kind,
            start,
            end,
            json.dumps(data, separators=(",", ":")),
            " ".join(sorted(read)),
        )


#: what a request can set: superglobals (variables of their own in every unit) and the raw
#: body (a use named ``php://input`` where file_get_contents / fopen read it)
SOURCES = frozenset(
    {
        "$_GET",
        "$_POST",
        "$_REQUEST",
        "$_COOKIE",
        "$_FILES",
        "$_SERVER",
        "$_ENV",
        "$_SESSION",
        "php://input",
    }
)
#: calls whose first argument may name the request body
_INPUT_READERS = frozenset({"file_get_contents", "fopen", "stream_get_contents"})
#: class-wide definitions linked to one upward-exposed use of a property
MAX_CLASS_DEFS = 12
#: calls kept per statement
MAX_CALLS = 20

_LEAVES = frozenset(
    {
        "string",
        "string_content",
        "integer",
        "float",
        "boolean",
        "null",
        "name",
        "qualified_name",
        "comment",
        "nowdoc",
        "escape_sequence",
        "heredoc_start",
        "heredoc_end",
        "primitive_type",
        "named_type",
        "cast_type",
        "class_constant_access_expression",
    }
)


_JUMPS = frozenset({"break", "continue", "return", "throw", "exit"})
_EXITS = frozenset({"return", "throw", "exit"})
_BRANCHING = frozenset({"if_statement", "switch_statement", "try_statement"})
_LOOPS = frozenset({"while_statement", "do_statement", "for_statement", "foreach_statement"})
_SINK_OF = {
    "include_expression": "include",
    "include_once_expression": "include",
    "require_expression": "include",
    "require_once_expression": "include",
    "shell_command_expression": "shell",
    "print_intrinsic": "output",
    "dynamic_variable_name": "dynamic_variable",
}
_EXPR: dict[str, Any] = {
    "assignment_expression": FlowBuilder._assign,
    "reference_assignment_expression": FlowBuilder._assign,
    "augmented_assignment_expression": FlowBuilder._augmented,
    "update_expression": FlowBuilder._update,
    "member_access_expression": FlowBuilder._member,
    "nullsafe_member_access_expression": FlowBuilder._member,
    "scoped_property_access_expression": FlowBuilder._scoped_prop,
    "function_call_expression": FlowBuilder.call,
    "member_call_expression": FlowBuilder.method_call,
    "nullsafe_member_call_expression": FlowBuilder.method_call,
    "scoped_call_expression": FlowBuilder.method_call,
    "object_creation_expression": FlowBuilder._new,
    "anonymous_function": FlowBuilder.closure,
    "arrow_function": FlowBuilder.arrow,
    "anonymous_class": FlowBuilder._skip,
    **dict.fromkeys(_CLASS_LIKE, FlowBuilder._skip),
    **dict.fromkeys(_SINK_OF, FlowBuilder._sink),
}


def _cap(names: list[str]) -> list[str]:
    out = list(dict.fromkeys(names))
    return out[:MAX_NAMES]


def captured_names(captured: list[str]) -> list[tuple[str, bool]]:
    return [(c[1:], True) if c.startswith("&") else (c, False) for c in captured]


def reaching(
    stmts: list[_Stmt], succ: list[tuple[int, int]], aliases: dict[str, set[str]]
) -> tuple[list[tuple[int, int, str]], list[tuple[int, str]]]:
    """Def-use edges (def stmt, use stmt, var) by reaching definitions over ``succ``, and
    the uses no definition reaches (upward-exposed: parameters of nothing, globals of the
    file, properties set elsewhere)."""
    n = len(stmts)
    var_mask: dict[str, int] = {}
    def_stmt: list[int] = []
    gen = [0] * n
    kill_vars: list[tuple[str, ...]] = [()] * n
    for i, s in enumerate(stmts):
        strong = list(dict.fromkeys(s.defs))
        weak = [w for w in dict.fromkeys(s.weak) if w not in strong]
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
    changed = True
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
        for v in dict.fromkeys(s.uses):
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


def build(root: Node, src: bytes, decl_at: dict[int, int]) -> tuple[list[FlowUnit], int]:
    """The flow units of one parsed PHP file and how many were too big for def-use edges."""
    b = FlowBuilder(src, decl_at)
    units = b.build(root)
    return units, b.skipped

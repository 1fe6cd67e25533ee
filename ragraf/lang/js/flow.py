"""The data-flow layer of JavaScript / TypeScript code (issue 42): per function, method,
closure and file-level script, the control-flow skeleton over statements and the def-use
edges of reaching definitions, read off the tree-sitter tree the extractor parsed.

Two modules over ``ragraf.lang.flowcore`` (units, reaching definitions, serialisation):
``flow_expr`` (expressions: uses, definitions, calls, sinks) and this one (statements: the
control flow of each statement kind, closures' captured variables, and ``build``, what
the walk calls).

Invariants a change must keep (besides ``flowcore``'s and ``flow_expr``'s):
- Syntactic only, names resolved at query time (as PHP's layer).
- A function is a unit of the node the walk declared for it (``State.fn_scopes``): a
  function or method by its own node, an anonymous one a closure of the unit around it.
  Statement 0 defines its parameters (destructured ones each name, all bound to the
  argument of their position, ``set_params``; a TypeScript parameter property
  ``constructor(private x)`` also ``this.x``), then what it captures.
- A nested function captures the names it uses without declaring them that a function
  around it (not the file-level script: module variables are globals here, as PHP's)
  declares, and an arrow function also the ``this.p`` it uses (its ``this`` is the one
  around it): they are uses of the statement creating it and definitions of its entry,
  linked as ``capture`` steps; one it writes (``rows.push(x)``, ``n += 1``) is a weak
  definition of that statement too (captured by reference). Settled bottom-up once every
  unit is walked (``walked``).
- A class's instance fields are set at its constructor's entry (``this.f``, from what
  their initialisers use); a class without a constructor keeps them as uses of its
  declaration.
- ``const {id, name: n} = req.query`` reads the keys ``id`` and ``name`` of the source.
- Methods and functions whose ``this`` is one class-like (a class, an ES5 constructor and
  its prototype's functions, an object literal) share ``this.p`` through ``class_links``.
- ``try``: a ``catch`` may be entered from any statement of the ``try`` body; ``finally``
  from the ends of the body and of the catches. ``continue`` goes to the innermost loop
  (a ``switch`` is no loop for it); a label names the loop it leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.kinds import FlowStep, NodeKind, StmtKind, UnitKind
from ragraf.lang.facts import FlowUnit
from ragraf.lang.flowcore import Loop, Stmt, Unit
from ragraf.lang.js.flow_expr import Expressions

if TYPE_CHECKING:
    from tree_sitter import Node

    from ragraf.lang.js.names import Scope

_SKIP = frozenset(
    {
        "comment",
        "empty_statement",
        "debugger_statement",
        "hash_bang_line",
        "type_alias_declaration",
        "interface_declaration",
        "enum_declaration",
        "ambient_declaration",
        "function_signature",
        "abstract_class_declaration_signature",
        "html_comment",
    }
)
_BLOCKS = frozenset({"statement_block", "class_static_block"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
_FUNCTION_DECLS = frozenset({"function_declaration", "generator_function_declaration"})
_CLASS_DECLS = frozenset({"class_declaration", "abstract_class_declaration"})
_BRANCHING = frozenset({"if_statement", "switch_statement", "try_statement"})
_LOOPS = frozenset(
    {"while_statement", "do_statement", "for_statement", "for_in_statement", "labeled_statement"}
)
#: modules whose functions a call names by the module (``cp.exec`` -> ``child_process.exec``)
_MODULES = {"child_process": "child_process", "node:child_process": "child_process"}


class FlowBuilder(Expressions):
    """Walks one parsed JavaScript / TypeScript file into its flow units (``build``)."""

    BLOCKS = _BLOCKS
    BRANCHING = _BRANCHING
    LOOPS = _LOOPS
    SWITCH_VALUE = "value"
    SWITCH_CASES = ("switch_case", "switch_default")

    def __init__(self, src: bytes, scopes: dict[int, Scope], kinds: list[str]) -> None:
        super().__init__(src, {})
        self.scopes = scopes  # start byte of a function -> its scope (``State.fn_scopes``)
        self.kinds = kinds  # node index -> its NodeKind
        #: unit index -> (creating unit, creating statement, whether it keeps ``this``)
        self.parents: dict[int, tuple[int, int, bool]] = {}
        self.class_keys: dict[str, int] = {}
        #: label -> the depth in ``Unit.loops`` of the loop it names
        self.labels: dict[str, int] = {}

    # -- units ----------------------------------------------------------------------------------
    def unit_node(self, fn: Node, node: int, kind: str) -> tuple[int, str]:
        # a function nested in a scope of its own (an object literal's method) is owned by it
        scope = self.scopes.get(fn.start_byte)
        if scope is not None and scope.parent is not None and scope.node != scope.parent.node:
            if self.kinds[scope.node] in (NodeKind.FUNCTION, NodeKind.METHOD):
                node = scope.node
                kind = UnitKind.METHOD if self.kinds[node] == NodeKind.METHOD else UnitKind.FUNCTION
        return node, kind

    def enter(
        self, u: Unit, fn: Node, cls: int, captured: list[str], origin: tuple[int, int] | None
    ) -> None:
        ui = u.index
        scope = self.scopes.get(fn.start_byte)
        arrow = fn.type == "arrow_function" and (scope is None or scope.arrow)
        declared: set[str] = set()
        self.declared.append(declared)
        if origin is not None:
            self.parents[ui] = (origin[0], origin[1], arrow)
        this_cls = scope.this_class() if scope is not None and not arrow else None
        if this_cls is not None:
            self.method_class[ui] = self.class_keys.setdefault(this_cls, len(self.class_keys))
        body = fn.child_by_field_name("body")
        line = fn.start_point[0] + 1
        block = body is not None and body.type == "statement_block"
        end = body.start_point[0] + 1 if block and body is not None else line
        s = Stmt(line, max(end, line), StmtKind.ENTRY, -1)
        u.stmts.append(s)
        self.params(u, fn, s, declared)
        if self.fields:
            self.field_inits(u, fn, s)
        labels, self.labels = self.labels, {}
        if body is not None and block:
            self.seq(u, body.named_children, [0])
        elif body is not None:
            i = self.new(u, body, StmtKind.RETURN, [0])
            self.expr(u, body, u.stmts[i])
        self.labels = labels

    def params(self, u: Unit, fn: Node, s: Stmt, declared: set[str]) -> None:
        plist = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        if plist is None:
            return
        items = [plist] if plist.type == "identifier" else plist.named_children
        groups: list[list[str]] = []
        rest = -1
        for p in items:
            target: Node | None = p
            promoted = False
            if p.type in ("required_parameter", "optional_parameter"):
                target = p.child_by_field_name("pattern")
                value = p.child_by_field_name("value")
                if value is not None:
                    self.expr(u, value, s)
                promoted = any(
                    c.type in ("accessibility_modifier", "override_modifier", "readonly")
                    for c in p.children
                )
            if target is None or target.type in ("comment", "this"):
                continue
            before = len(s.defs)
            self.pattern(u, target, s, declared)
            groups.append(s.defs[before:])
            if target.type == "rest_pattern":
                rest = len(groups) - 1
            if promoted and target.type == "identifier":  # constructor(private db: Db)
                s.defs.append("this." + self.t(target))
        u.set_params(groups, rest)

    def walked(self) -> None:
        """What each nested function captures (see the module docstring), innermost first:
        a function's captures are uses of the statement creating it, which its creator may
        capture in turn."""
        units = self.units
        for ui in range(len(units) - 1, 0, -1):
            got = self.parents.get(ui)
            if got is None:
                continue
            pi, si, arrow = got
            visible: set[str] = set()
            a: int | None = pi
            while a is not None and units[a].kind != UnitKind.SCRIPT:
                visible |= self.declared[a]
                up = self.parents.get(a)
                a = up[0] if up is not None else None
            this_ok = arrow and units[pi].kind != UnitKind.SCRIPT
            if not visible and not this_ok:
                continue
            own = self.declared[ui]
            c = units[ui]
            captured = sorted(
                {
                    v
                    for st in c.stmts
                    for v in st.uses
                    if v not in own
                    and (v in visible or (this_ok and v.startswith("this.") and "[" not in v))
                }
            )
            if not captured:
                continue
            c.stmts[0].defs.extend(captured)
            origin = units[pi].stmts[si]
            origin.uses.extend(captured)
            # captured by reference: what the function writes, the creator may see written
            written = {v for st in c.stmts[1:] for v in (*st.defs, *st.weak)}
            origin.weak.extend(v for v in captured if v in written)
            for v in captured:
                c.cross.append([pi, si, 0, v, FlowStep.CAPTURE])

    # -- statements -----------------------------------------------------------------------------
    def stmt(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        t = n.type
        if t in _SKIP:
            return preds
        if t in _BLOCKS:
            return self.seq(u, n.named_children, preds)
        if t == "expression_statement":
            c = n.named_children[0] if n.named_child_count else None
            kind = StmtKind.EXPR
            inner = c
            while inner is not None and inner.type == "parenthesized_expression":
                inner = inner.named_children[0] if inner.named_child_count else None
            if inner is not None and inner.type in (
                "assignment_expression",
                "augmented_assignment_expression",
            ):
                kind = StmtKind.ASSIGN
            i = self.new(u, n, kind, preds)
            if c is not None:
                self.expr(u, c, u.stmts[i])
            return [i]
        if t in _DECLARATIONS:
            i = self.new(u, n, StmtKind.ASSIGN, preds)
            self.declare(u, n, u.stmts[i])
            return [i]
        if t == "return_statement" or t == "throw_statement":
            i = self.new(
                u, n, StmtKind.RETURN if t == "return_statement" else StmtKind.THROW, preds
            )
            self.expr_children(u, n, u.stmts[i])
            return []
        if t == "if_statement":
            return self.if_(u, n, preds, StmtKind.IF)
        if t == "while_statement":
            cond = n.child_by_field_name("condition")
            h = self.new(u, n, StmtKind.WHILE, preds, cond)
            if cond is not None:
                self.expr(u, cond, u.stmts[h])
            return self.loop(u, h, n.child_by_field_name("body"), h)
        if t == "do_statement":
            return self.do_(u, n, preds)
        if t == "for_statement":
            return self.for_(u, n, preds)
        if t == "for_in_statement":
            return self.for_in(u, n, preds)
        if t == "switch_statement":
            return self.switch(u, n, preds)
        if t == "try_statement":
            return self.try_(u, n, preds)
        if t in ("break_statement", "continue_statement"):
            return self.jump(u, n, preds)
        if t == "labeled_statement":
            label = n.child_by_field_name("label")
            body = n.child_by_field_name("body")
            if body is None:
                return preds
            if label is not None and body.type in _LOOPS:
                self.labels[self.t(label)] = len(u.loops)
            return self.stmt(u, body, preds)
        if t in _FUNCTION_DECLS:
            name = n.child_by_field_name("name")
            if name is not None:
                self.declared[u.index].add(self.t(name))
            if u.kind == UnitKind.SCRIPT:
                self.pending.append((n, u.node, UnitKind.CLOSURE, -1, [], None))
                return preds
            i = self.new(u, n, StmtKind.STMT, preds)
            u.stmts[i].end_line = u.stmts[i].line
            self.function_value(u, n, u.stmts[i])
            return [i]
        if t in _CLASS_DECLS:
            i = self.new(u, n, StmtKind.STMT, preds)
            name = n.child_by_field_name("name")
            if name is not None:
                self.declared[u.index].add(self.t(name))
                u.stmts[i].defs.append(self.t(name))
            self.class_body(u, n, u.stmts[i])
            return [i]
        if t == "export_statement":
            decl = n.child_by_field_name("declaration")
            if decl is not None:
                return self.stmt(u, decl, preds)
            value = n.child_by_field_name("value")
            if value is None:
                return preds
            i = self.new(u, n, StmtKind.EXPR, preds)
            self.expr(u, value, u.stmts[i])
            return [i]
        if t == "import_statement":
            return self.import_(u, n, preds)
        if t in ("internal_module", "module"):
            body = n.child_by_field_name("body")
            return self.seq(u, body.named_children, preds) if body is not None else preds
        i = self.new(u, n, StmtKind.STMT, preds)
        self.expr_children(u, n, u.stmts[i])
        return [i]

    def declare(self, u: Unit, n: Node, s: Stmt) -> None:
        """``const / let / var``: each declarator's names are defined by its value."""
        declared = self.declared[u.index]
        for d in n.named_children:
            if d.type != "variable_declarator":
                continue
            name = d.child_by_field_name("name")
            value = d.child_by_field_name("value")
            if value is not None:
                self.expr(u, value, s)
                if name is not None:
                    self.required(name, value)
                    if name.type == "object_pattern":
                        self.keys_read(name, value, s)
            if name is not None:
                self.pattern(u, name, s, declared)

    def required(self, name: Node, value: Node) -> None:
        """``const cp = require('child_process')`` / ``const {exec} = require(...)``: the
        names a shell call is recognised by whatever it was bound to."""
        if value.type != "call_expression":
            return
        fn = value.child_by_field_name("function")
        if fn is None or fn.type != "identifier" or self.t(fn) != "require":
            return
        args = value.child_by_field_name("arguments")
        if args is None or not args.named_child_count:
            return
        module = _MODULES.get(self.t(args.named_children[0]).strip("'\"`"))
        if module is None:
            return
        if name.type == "identifier":
            self.canon[self.t(name)] = module
        elif name.type == "object_pattern":
            for c in name.named_children:
                if c.type == "shorthand_property_identifier_pattern":
                    self.canon[self.t(c)] = f"{module}.{self.t(c)}"
                elif c.type == "pair_pattern":
                    k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
                    if k is not None and v is not None and v.type == "identifier":
                        self.canon[self.t(v)] = f"{module}.{self.t(k)}"

    def keys_read(self, pattern: Node, value: Node, s: Stmt) -> None:
        """``const {id, name: n} = req.query``: reads of the keys ``id`` and ``name``."""
        parts = self.chain(value) if value.type == "member_expression" else None
        if parts is None:
            return
        before = len(s.uses)
        self.source(parts, s)
        if len(s.uses) - before != 1:  # not a source, or already one key of it
            return
        name = s.uses[-1]
        for c in pattern.named_children:
            key = c
            if c.type == "pair_pattern":
                key = c.child_by_field_name("key") or c
            elif c.type == "object_assignment_pattern":
                key = c.child_by_field_name("left") or c
            if key.type in ("shorthand_property_identifier_pattern", "property_identifier"):
                s.uses.append(f"{name}['{self.t(key)}']")

    def import_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """``import a, {b as c}, * as d from 'm'``: defines a, c and d."""
        source = n.child_by_field_name("source")
        module = _MODULES.get(self.t(source).strip("'\"`")) if source is not None else None
        names: list[tuple[str, str]] = []  # (local, imported)
        stack = list(n.named_children)
        while stack:
            c = stack.pop()
            if c.type == "import_clause" or c.type == "named_imports":
                stack.extend(c.named_children)
            elif c.type == "identifier":
                names.append((self.t(c), "default"))
            elif c.type == "namespace_import" and c.named_child_count:
                names.append((self.t(c.named_children[-1]), "*"))
            elif c.type == "import_specifier":
                nm, alias = c.child_by_field_name("name"), c.child_by_field_name("alias")
                if nm is not None:
                    names.append((self.t(alias if alias is not None else nm), self.t(nm)))
        if not names:
            return preds
        i = self.new(u, n, StmtKind.STMT, preds)
        for local, imported in sorted(names):
            u.stmts[i].defs.append(local)
            self.declared[u.index].add(local)
            if module is not None:
                whole = imported in ("*", "default")
                self.canon[local] = module if whole else f"{module}.{imported}"
        return [i]

    # -- control flow ---------------------------------------------------------------------------
    def if_(self, u: Unit, n: Node, preds: list[int], kind: str) -> list[int]:
        cond = n.child_by_field_name("condition")
        h = self.new(u, n, kind, preds, cond)
        if cond is not None:
            self.expr(u, cond, u.stmts[h])
        out = self.body(u, n.child_by_field_name("consequence"), [h], h)
        alt = n.child_by_field_name("alternative")
        inner = [c for c in alt.named_children if c.type != "comment"] if alt is not None else []
        if not inner:
            return [*out, h]
        if len(inner) == 1 and inner[0].type == "if_statement":  # else if
            u.ctrl.append(h)
            try:
                return out + self.if_(u, inner[0], [h], StmtKind.ELSEIF)
            finally:
                u.ctrl.pop()
        u.ctrl.append(h)
        try:
            return out + self.seq(u, inner, [h])
        finally:
            u.ctrl.pop()

    def for_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """``for (init; cond; step)``: one header statement defining and using all three."""
        h = self.new(u, n, StmtKind.FOR, preds)
        body = n.child_by_field_name("body")
        s = u.stmts[h]
        if body is not None:
            s.end_line = max(s.line, body.start_point[0] + 1)
        for c in n.named_children:
            if c == body:
                continue
            if c.type in _DECLARATIONS:
                self.declare(u, c, s)
            else:
                self.expr(u, c, s)
        return self.loop(u, h, body, h)

    def for_in(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """``for (const [k, v] of xs)`` / ``for (k in o)``: the header defines the left side."""
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.FOREACH, preds)
        s = u.stmts[h]
        if body is not None:
            s.end_line = max(s.line, body.start_point[0] + 1)
        right = n.child_by_field_name("right")
        left = n.child_by_field_name("left")
        if right is not None:
            self.expr(u, right, s)
        if left is not None:
            if n.child_by_field_name("kind") is not None:
                self.pattern(u, left, s, self.declared[u.index])
            else:
                self.target(u, left, s, also_use=False)
        return self.loop(u, h, body, h)

    def jump(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        brk = n.type == "break_statement"
        i = self.new(u, n, StmtKind.BREAK if brk else StmtKind.CONTINUE, preds)
        label = n.child_by_field_name("label")
        lp: Loop | None = None
        if label is not None:
            depth = self.labels.get(self.t(label))
            lp = u.loops[depth] if depth is not None and depth < len(u.loops) else None
        elif brk:
            lp = u.loops[-1] if u.loops else None
        else:  # continue: the innermost loop, not a switch
            lp = next((x for x in reversed(u.loops) if id(x) not in self.switches), None)
        if lp is not None:
            (lp.breaks if brk else lp.conts).append(i)
        return []

    def try_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.TRY, preds)
        u.stmts[h].end_line = u.stmts[h].line
        first = len(u.stmts)
        out = self.body(u, body, [h], -1) if body is not None else [h]
        in_try = list(range(first, len(u.stmts)))
        handler = n.child_by_field_name("handler")
        if handler is not None:
            param = handler.child_by_field_name("parameter")
            hbody = handler.child_by_field_name("body")
            k = self.new(u, handler, StmtKind.CATCH, [h, *in_try], param or handler)
            if param is None:
                u.stmts[k].end_line = u.stmts[k].line
            else:
                self.pattern(u, param, u.stmts[k], self.declared[u.index])
            out = out + self.body(u, hbody, [k], k)
        fin = n.child_by_field_name("finalizer")
        if fin is not None:
            f = self.new(u, fin, StmtKind.FINALLY, [h, *out])
            u.stmts[f].end_line = u.stmts[f].line
            out = self.body(u, fin.child_by_field_name("body"), [f], -1)
        return out


def build(
    root: Node, src: bytes, scopes: dict[int, Scope], kinds: list[str], functions: set[str]
) -> tuple[list[FlowUnit], int]:
    """The flow units of one parsed JavaScript / TypeScript file and how many were too big
    for def-use edges (``scopes``: the walk's functions by start byte; ``kinds``: its
    nodes' kinds; ``functions``: the names of its declared functions)."""
    b = FlowBuilder(src, scopes, kinds)
    b.functions = functions
    units = b.build(root)
    return units, b.skipped

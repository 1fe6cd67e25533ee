"""The data-flow layer of PHP code (issue 13): per function, method, closure and
file-level script, an intra-procedural control-flow skeleton over statements
and the def-use edges of reaching definitions, built from the tree-sitter tree
the extractor already parsed (no JVM, no Joern).

Three modules: ``ragraf.lang.flowcore`` (language-neutral: units, statements, the control-flow
bookkeeping, reaching definitions, serialisation), ``flow_expr`` (PHP expressions:
uses, definitions, calls, sinks) and this one (PHP statements: the control flow of
each statement kind, and ``build``, what the extractor calls).

Invariants a change must keep (besides ``flowcore``'s and ``flow_expr``'s):
- Syntactic only: every statement, control-flow edge and def-use edge is read
  off the tree of this one file, so FileFacts stay a function of (path,
  content, extractor version). Names are resolved later, at query time
  (``ragraf.facade.flowops``), through the resolver's call edges.
- Statement 0 of a function or method defines its parameters (and ``$this->x``
  for a promoted constructor parameter), of a closure also its ``use`` variables;
  ``foreach ($xs as &$x)`` and ``use (&$x)`` make the names aliases.
- ``try``: a ``catch`` may be entered from any statement of the ``try`` body;
  ``finally`` from the ends of the body and of the catches (a ``return``
  inside the body does not run through ``finally`` here).
- Bodies are not copied: a statement is (line, end line, kind); its text is
  read from the indexed file when an answer shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.kinds import SinkKind, StmtKind, UnitKind
from ragraf.lang.facts import FlowUnit
from ragraf.lang.flowcore import Stmt, Unit
from ragraf.lang.php.flow_expr import CLASS_LIKE, Expressions

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
_BLOCKS = frozenset({"compound_statement", "colon_block"})
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
#: a jump inside one of these guards the statements after it (``UnitBuilder.seq``)
_BRANCHING = frozenset({"if_statement", "switch_statement", "try_statement"})
_LOOPS = frozenset({"while_statement", "do_statement", "for_statement", "foreach_statement"})


class FlowBuilder(Expressions):
    """Walks one parsed PHP file into its flow units (``build``)."""

    BLOCKS = _BLOCKS
    BRANCHING = _BRANCHING
    LOOPS = _LOOPS
    SELF_PREFIX = "$this->"
    SOURCES = SOURCES

    def captured_vars(self, captured: list[str]) -> list[str]:
        # a ``use (&$x)`` is listed with its ``&``: the edge is of the variable
        return [v for v, _byref in captured_names(captured)]

    def enter(
        self, u: Unit, fn: Node, cls: int, captured: list[str], origin: tuple[int, int] | None
    ) -> None:
        params = fn.child_by_field_name("parameters")
        body = fn.child_by_field_name("body")
        end = (body.start_point[0] if body is not None else fn.end_point[0]) + 1
        s = Stmt(fn.start_point[0] + 1, max(end, fn.start_point[0] + 1), StmtKind.ENTRY, -1)
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

    def stmt(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        t = n.type
        if t in _SKIP:
            return preds
        if t in _BLOCKS:
            return self.seq(u, n.named_children, preds)
        if t == "expression_statement":
            c = n.named_children[0] if n.named_child_count else None
            kind = StmtKind.EXPR
            if c is not None:
                if c.type in ("assignment_expression", "augmented_assignment_expression"):
                    kind = StmtKind.ASSIGN
                elif c.type == "reference_assignment_expression":
                    kind = StmtKind.ASSIGN
                elif c.type == "throw_expression":
                    kind = StmtKind.THROW
                elif c.type == "print_intrinsic":
                    kind = StmtKind.ECHO
            i = self.new(u, n, kind, preds)
            if c is not None:
                self.expr(u, c, u.stmts[i])
            return [] if kind == StmtKind.THROW else [i]
        if t == "return_statement":
            i = self.new(u, n, StmtKind.RETURN, preds)
            self.expr_children(u, n, u.stmts[i])
            return []
        if t == "echo_statement":
            i = self.new(u, n, StmtKind.ECHO, preds)
            u.stmts[i].sinks.append(SinkKind.OUTPUT)
            self.expr_children(u, n, u.stmts[i])
            return [i]
        if t == "if_statement":
            return self.if_elif(u, n, preds)
        if t == "while_statement":
            cond = n.child_by_field_name("condition")
            h = self.new(u, n, StmtKind.WHILE, preds, cond)
            if cond is not None:
                self.expr(u, cond, u.stmts[h])
            return self.loop(u, h, n.child_by_field_name("body"), h)
        if t == "do_statement":
            return self.do_(u, n, preds)
        if t == "for_statement":
            h = self.new(u, n, StmtKind.FOR, preds)
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
            i = self.new(
                u, n, StmtKind.BREAK if t == "break_statement" else StmtKind.CONTINUE, preds
            )
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
            i = self.new(u, n, StmtKind.GLOBAL, preds)
            for c in n.named_children:
                if c.type == "variable_name":
                    u.stmts[i].defs.append(self.t(c))
            return [i]
        if t == "function_static_declaration":
            i = self.new(u, n, StmtKind.STATIC, preds)
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
            i = self.new(u, n, StmtKind.UNSET, preds)
            for c in n.named_children:
                self.target(u, c, u.stmts[i], also_use=False)
            return [i]
        if t == "exit_statement":
            i = self.new(u, n, StmtKind.EXIT, preds)
            self.expr_children(u, n, u.stmts[i])
            return []
        if t == "function_definition":
            node = self.decl_at.get(n.start_byte)
            if node is not None:
                self.pending.append((n, node, UnitKind.FUNCTION, -1, [], None))
            return preds
        if t in CLASS_LIKE:
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
        i = self.new(u, n, StmtKind.STMT, preds)
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
                    self.pending.append((m, node, UnitKind.METHOD, n.start_byte, [], None))

    def foreach(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.FOREACH, preds)
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

    def try_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.TRY, preds)
        u.stmts[h].end_line = u.stmts[h].line
        first = len(u.stmts)
        out = self.body(u, body, [h], -1) if body is not None else [h]
        in_try = list(range(first, len(u.stmts)))
        for c in n.named_children:
            if c.type == "catch_clause":
                name = c.child_by_field_name("name")
                k = self.new(u, c, StmtKind.CATCH, [h, *in_try], c.child_by_field_name("type") or c)
                if name is not None:
                    u.stmts[k].defs.append(self.t(name))
                out = out + self.body(u, c.child_by_field_name("body"), [k], k)
            elif c.type == "finally_clause":
                f = self.new(u, c, StmtKind.FINALLY, [h, *out])
                u.stmts[f].end_line = u.stmts[f].line
                out = self.body(u, c.child_by_field_name("body"), [f], -1)
        return out


def captured_names(captured: list[str]) -> list[tuple[str, bool]]:
    return [(c[1:], True) if c.startswith("&") else (c, False) for c in captured]


def build(root: Node, src: bytes, decl_at: dict[int, int]) -> tuple[list[FlowUnit], int]:
    """The flow units of one parsed PHP file and how many were too big for def-use edges."""
    b = FlowBuilder(src, decl_at)
    units = b.build(root)
    return units, b.skipped

"""The data-flow layer of Python code (issue 42): per function, method and the module's
top-level code, the control-flow skeleton over statements and the def-use edges of
reaching definitions (``ragraf.lang.flowcore``), built from the tree the extractor
already parsed.

Two modules: ``flow_expr`` (expressions: uses, definitions, calls, sources) and this one
(statements: the control flow of each statement kind, and ``build``, what the extractor
calls).

Invariants a change must keep (besides ``flowcore``'s and ``flow_expr``'s):
- Syntactic only: everything is read off this one file's tree; names are resolved at
  query time through the resolver's call edges.
- Statement 0 of a function defines its parameters in order (``*args``, keyword-only
  ones and ``**kwargs`` too), the receiver of a method (its first parameter, unless it
  is a ``staticmethod``) aside; a nested ``def`` is a unit of its own (kind function,
  called by its name) whose entry also defines the variables it captures from the
  units around it (a ``capture`` link from the ``def`` statement, which uses them):
  the value they hold where the function is defined, not where it runs.
- ``for`` / ``while`` ``else`` runs when the loop ends without ``break``; ``try``: an
  ``except`` may be entered from any statement of the body, ``else`` from the body's
  end, ``finally`` from the ends of the body, the handlers and ``else``; ``with``
  defines its ``as`` targets in a statement of its own; ``match`` tries its cases in
  order, each defining its pattern's captures.
- ``global`` / ``nonlocal`` define their names (a use after it links there); a write in a
  nested function through ``nonlocal`` does not flow back to the enclosing one.
- A statement made of a ``yield`` is a ``yield`` statement: its value leaves the unit as
  a return's does, and control goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.kinds import StmtKind, UnitKind
from ragraf.lang.facts import FlowUnit
from ragraf.lang.flowcore import Loop, Stmt, Unit
from ragraf.lang.python.flow_expr import Expressions

if TYPE_CHECKING:
    from tree_sitter import Node

_SKIP = frozenset(
    {"comment", "pass_statement", "future_import_statement", "ERROR", "type_alias_statement"}
)
_BLOCKS = frozenset({"block", "module"})
_BRANCHING = frozenset({"if_statement", "try_statement", "match_statement", "with_statement"})
_LOOPS = frozenset({"for_statement", "while_statement"})
#: statements whose expression is walked as one statement of this kind
_SIMPLE = {
    "assignment": StmtKind.ASSIGN,
    "augmented_assignment": StmtKind.ASSIGN,
    "return_statement": StmtKind.RETURN,
    "raise_statement": StmtKind.THROW,
    "delete_statement": StmtKind.UNSET,
}


class FlowBuilder(Expressions):
    """Walks one parsed Python file into its flow units (``build``)."""

    BLOCKS = _BLOCKS
    BRANCHING = _BRANCHING
    LOOPS = _LOOPS
    IF_BODY = "consequence"
    ELSE_IF = "elif_clause"

    def enter(
        self, u: Unit, fn: Node, cls: int, captured: list[str], origin: tuple[int, int] | None
    ) -> None:
        ui = u.index
        if origin is not None:
            outer = self.recv.get(origin[0])
            if outer is not None:
                self.recv[ui] = outer  # a closure in a method sees its `self`
        params = fn.child_by_field_name("parameters")
        body = fn.child_by_field_name("body")
        # the signature: up to the line before the body (the body's own line when it is on
        # the signature's)
        end = body.start_point[0] if body is not None else fn.end_point[0] + 1
        s = Stmt(fn.start_point[0] + 1, max(end, fn.start_point[0] + 1), StmtKind.ENTRY, -1)
        u.stmts.append(s)
        plist = [p for p in params.named_children if p.type != "comment"] if params else []
        if cls >= 0:
            if plist and not _static(fn):
                names = self.param_names(plist[0])
                if names:
                    self.recv[ui] = names[0]
                plist = plist[1:]
        groups: list[list[str]] = []
        rest, kwargs = -1, ""
        for p in plist:
            names = self.param_names(p)
            s.defs.extend(names)
            if p.type == "dictionary_splat_pattern":
                kwargs = names[0] if names else ""
            elif names:
                if p.type == "list_splat_pattern":
                    rest = len(groups)
                groups.append(names)
            elif p.type == "keyword_separator" and rest < 0:  # def f(a, *, key): by name only
                rest = len(groups)
                groups.append([])
            default = p.child_by_field_name("value")
            if default is not None:
                self.expr(u, default, s)
        u.set_params(groups, rest, kwargs)
        s.defs.extend(v for v in captured if v not in s.defs)
        if body is not None:
            self.seq(u, body.named_children, [0])

    def stmt(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        t = n.type
        if t in _SKIP:
            return preds
        if t in _BLOCKS:
            return self.seq(u, n.named_children, preds)
        if t == "expression_statement":
            return self.seq(u, n.named_children, preds)
        kind = _SIMPLE.get(t)
        if kind is not None:
            return self.simple(u, n, kind, preds)
        if t == "if_statement":
            return self.if_elif(u, n, preds)
        if t in ("for_statement", "while_statement"):
            return self.loop_(u, n, preds)
        if t == "try_statement":
            return self.try_(u, n, preds)
        if t == "with_statement":
            return self.with_(u, n, preds)
        if t == "match_statement":
            return self.match_(u, n, preds)
        if t in ("break_statement", "continue_statement"):
            br = t == "break_statement"
            i = self.new(u, n, StmtKind.BREAK if br else StmtKind.CONTINUE, preds)
            if u.loops:
                (u.loops[-1].breaks if br else u.loops[-1].conts).append(i)
            return []
        if t in ("global_statement", "nonlocal_statement"):
            i = self.new(u, n, StmtKind.GLOBAL, preds)
            u.stmts[i].defs.extend(self.t(c) for c in n.named_children if c.type == "identifier")
            return [i]
        if t in ("import_statement", "import_from_statement"):
            return self.import_(u, n, preds)
        if t in ("function_definition", "class_definition", "decorated_definition"):
            return self.definition(u, n, preds)
        if t == "string":  # a docstring
            return preds
        i = self.new(u, n, _expr_kind(n), preds)
        self.expr(u, n, u.stmts[i])
        return [i]

    def simple(self, u: Unit, n: Node, kind: str, preds: list[int]) -> list[int]:
        i = self.new(u, n, kind, preds)
        s = u.stmts[i]
        if n.type == "assignment":
            self.assign(u, n, s)
        elif n.type == "augmented_assignment":
            right = n.child_by_field_name("right")
            left = n.child_by_field_name("left")
            if right is not None:
                self.expr(u, right, s)
            if left is not None:
                self.target(u, left, s, also_use=True)
        elif n.type == "delete_statement":
            for c in n.named_children:
                self.target(u, c, s, also_use=False)
        else:
            for c in n.named_children:
                self.expr(u, c, s)
        return [] if kind in (StmtKind.RETURN, StmtKind.THROW) else [i]

    def assign(self, u: Unit, n: Node, s: Stmt) -> None:
        """``a = b = value``, ``x, *y = value``, ``x: int = value``."""
        targets = []
        right: Node | None = n
        while right is not None and right.type == "assignment":
            left = right.child_by_field_name("left")
            if left is not None:
                targets.append(left)
            right = right.child_by_field_name("right")
        if right is not None:
            self.expr(u, right, s)
        if right is None:
            s.kind = StmtKind.STMT  # `x: int`: declares, assigns nothing
            return
        for left in targets:
            self.target(u, left, s, also_use=False)

    def loop_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """``for`` / ``while``, with their ``else``: the header decides each round; the
        ``else`` runs when the header ends the loop, a ``break`` skips it."""
        body = n.child_by_field_name("body")
        if n.type == "for_statement":
            h = self.new(u, n, StmtKind.FOREACH, preds, body)
            s = u.stmts[h]
            s.end_line = max(s.line, body.start_point[0] if body is not None else s.line)
            right = n.child_by_field_name("right")
            left = n.child_by_field_name("left")
            if right is not None:
                self.expr(u, right, s)
            if left is not None:
                self.target(u, left, s, also_use=False)
        else:
            cond = n.child_by_field_name("condition")
            h = self.new(u, n, StmtKind.WHILE, preds, cond)
            if cond is not None:
                self.expr(u, cond, u.stmts[h])
        lp = Loop(h)
        u.loops.append(lp)
        end = self.body(u, body, [h], h)
        u.loops.pop()
        for p in end + lp.conts:
            u.succ.append((p, h))
        alt = n.child_by_field_name("alternative")
        out = [h]
        if alt is not None:
            out = self.body(u, alt.child_by_field_name("body"), [h], h)
        return out + lp.breaks

    def try_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.TRY, preds)
        u.stmts[h].end_line = u.stmts[h].line
        first = len(u.stmts)
        out = self.body(u, body, [h], -1) if body is not None else [h]
        in_try = list(range(first, len(u.stmts)))
        handled: list[int] = []
        for c in n.named_children:
            if c.type in ("except_clause", "except_group_clause"):
                handled += self.except_(u, c, [h, *in_try])
            elif c.type == "else_clause":
                out = self.body(u, c.child_by_field_name("body"), out, -1)
            elif c.type == "finally_clause":
                f = self.new(u, c, StmtKind.FINALLY, [h, *out, *handled])
                u.stmts[f].end_line = u.stmts[f].line
                block = next((x for x in c.named_children if x.type == "block"), None)
                return self.body(u, block, [f], -1)
        return out + handled

    def except_(self, u: Unit, c: Node, preds: list[int]) -> list[int]:
        block = next((x for x in c.named_children if x.type == "block"), None)
        head = [x for x in c.named_children if x.type not in ("block", "comment")]
        k = self.new(u, c, StmtKind.CATCH, preds, head[-1] if head else c)
        s = u.stmts[k]
        for x in head:
            if x.type == "as_pattern":
                for i, y in enumerate(x.children):
                    if x.field_name_for_child(i) == "alias":
                        s.defs.extend(
                            self.names_in(y.named_children[0]) if y.named_children else []
                        )
                    elif y.is_named:
                        self.expr(u, y, s)
            else:
                self.expr(u, x, s)
        return self.body(u, block, [k], k)

    def with_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        clause = next((c for c in n.named_children if c.type == "with_clause"), None)
        i = self.new(u, n, StmtKind.STMT, preds, clause or n)
        s = u.stmts[i]
        for item in clause.named_children if clause is not None else []:
            val = item.child_by_field_name("value")
            if val is None:
                continue
            if val.type == "as_pattern":
                for j, y in enumerate(val.children):
                    if val.field_name_for_child(j) == "alias":
                        for z in y.named_children:
                            self.target(u, z, s, also_use=False)
                        s.kind = StmtKind.ASSIGN
                    elif y.is_named:
                        self.expr(u, y, s)
            else:
                self.expr(u, val, s)
        if body is None:
            return [i]
        return self.seq(u, body.named_children, [i])

    def match_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        subject = n.child_by_field_name("subject")
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.SWITCH, preds, subject)
        if subject is not None:
            self.expr(u, subject, u.stmts[h])
        out: list[int] = []
        last = h
        u.ctrl.append(h)
        for c in body.named_children if body is not None else []:
            if c.type != "case_clause":
                continue
            block = c.child_by_field_name("consequence")
            k = self.new(u, c, StmtKind.CASE, [last], block)
            s = u.stmts[k]
            s.end_line = max(s.line, block.start_point[0] if block is not None else s.line)
            for p in c.named_children:
                if p.type == "case_pattern":
                    s.defs.extend(self.captures(p))
                elif p.type == "if_clause" or p != block:
                    self.expr(u, p, s)
            out += self.body(u, block, [k], k)
            last = k
        u.ctrl.pop()
        return out + [last]

    def captures(self, p: Node) -> list[str]:
        """The names a ``case`` pattern binds (a bare name, ``as`` targets, ``*rest``)."""
        out: list[str] = []
        stack = [p]
        while stack:
            x = stack.pop()
            if x.type == "dotted_name":
                if x.named_child_count == 1 and self.t(x) != "_":
                    out.append(self.t(x))
                continue
            if x.type == "identifier":
                out.append(self.t(x))
                continue
            if x.type in ("class_pattern",):
                stack.extend(c for c in x.named_children if c.type != "dotted_name")
                continue
            if x.type == "keyword_pattern":
                stack.extend(x.named_children[1:])
                continue
            stack.extend(x.named_children)
        return out

    def import_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        i = self.new(u, n, StmtKind.ASSIGN, preds)
        s = u.stmts[i]
        for j, c in enumerate(n.children):
            field = n.field_name_for_child(j)
            if field != "name":
                continue
            if c.type == "aliased_import":
                alias = c.child_by_field_name("alias")
                if alias is not None:
                    s.defs.append(self.t(alias))
            elif c.type == "dotted_name" and c.named_child_count:
                s.defs.append(self.t(c.named_children[0]))
        return [i]

    def definition(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """A nested ``def`` or ``class``: its decorators are used here, the ``def`` defines
        its name; the function is a unit of its own, walked later (its entry uses the
        parameters' defaults)."""
        inner = n
        i = self.new(u, n, StmtKind.STMT, preds, n.child_by_field_name("definition") or n)
        s = u.stmts[i]
        if n.type == "decorated_definition":
            for c in n.named_children:
                if c.type == "decorator":
                    self.expr(u, c, s)
            inner = n.child_by_field_name("definition") or n
        s.end_line = inner.start_point[0] + 1
        name = inner.child_by_field_name("name")
        if name is not None:
            s.defs.append(self.t(name))
        if inner.type == "class_definition":
            sup = inner.child_by_field_name("superclasses")
            if sup is not None:
                self.expr(u, sup, s)
            self.class_(inner)
        elif inner.type == "function_definition":
            self.nested(u, inner, i)
        return [i]

    def nested(self, u: Unit, fn: Node, si: int) -> None:
        node = self.decl_at.get(fn.start_byte)
        if node is None:
            return
        s = u.stmts[si]
        if u.kind == UnitKind.SCRIPT:
            self.pending.append((fn, node, UnitKind.FUNCTION, -1, [], None))
            return
        captured = sorted(self.free_names(fn) & self.local_names(u))
        s.uses.extend(captured)
        self.pending.append((fn, node, UnitKind.FUNCTION, -1, captured, (u.index, si)))

    def local_names(self, u: Unit) -> set[str]:
        """The names a unit defines so far (its parameters and assignments)."""
        return {v for st in u.stmts for v in st.defs}

    def free_names(self, fn: Node) -> set[str]:
        """The names read in a function's body (a superset of its free variables: the
        caller keeps those the enclosing unit defines)."""
        out: set[str] = set()
        body = fn.child_by_field_name("body")
        stack = [body] if body is not None else []
        while stack:
            x = stack.pop()
            if x.type == "identifier":
                out.add(self.t(x))
                continue
            if x.type == "attribute":
                obj = x.child_by_field_name("object")
                if obj is not None:
                    stack.append(obj)
                continue
            if x.type == "keyword_argument":
                val = x.child_by_field_name("value")
                if val is not None:
                    stack.append(val)
                continue
            stack.extend(x.named_children)
        return out

    def class_(self, n: Node) -> None:
        body = n.child_by_field_name("body")
        for m in body.named_children if body is not None else []:
            fn = m.child_by_field_name("definition") if m.type == "decorated_definition" else m
            if fn is None:
                continue
            if fn.type == "function_definition":
                node = self.decl_at.get(fn.start_byte)
                if node is not None:
                    self.pending.append((fn, node, UnitKind.METHOD, n.start_byte, [], None))
            elif fn.type == "class_definition":
                self.class_(fn)


def _static(fn: Node) -> bool:
    """Whether a method is a ``staticmethod`` (no receiver)."""
    parent = fn.parent
    if parent is None or parent.type != "decorated_definition":
        return False
    for c in parent.named_children:
        if c.type == "decorator" and c.text is not None and b"staticmethod" in c.text:
            return True
    return False


def _expr_kind(n: Node) -> str:
    while n.type == "parenthesized_expression" and n.named_child_count == 1:
        n = n.named_children[0]
    if n.type == "yield":
        return StmtKind.YIELD
    return StmtKind.STMT if n.type.endswith("_statement") else StmtKind.EXPR


def build(root: Node, src: bytes, decl_at: dict[int, int]) -> tuple[list[FlowUnit], int]:
    """The flow units of one parsed Python file and how many were too big for def-use
    edges."""
    b = FlowBuilder(src, decl_at)
    units = b.build(root)
    return units, b.skipped

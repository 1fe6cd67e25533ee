"""The data-flow layer of Java code (issue 42): per method, constructor, lambda and method of
an anonymous class, the control-flow skeleton over statements and the def-use edges of
reaching definitions (``ragraf.lang.flowcore``), walked with the block-structured walk
Java shares with Go (``ragraf.lang.flowblocks``).

Invariants a change must keep (besides ``flowcore``'s and ``flowblocks``'s):
- Variables are Java names as written; a field of the object is ``this.p``, written
  ``this.p`` or as a bare name that is no local or parameter but a field the class (or
  a class around it) declares (``SELF_PREFIX``). A bare name that is neither, starting
  with an upper-case letter, is a class (no variable). ``o.f = v`` and ``a[i] = v`` are
  weak definitions of ``o`` / ``a``.
- A method's calls are ``[name, how, args]``, the name the callee as written when it is a
  chain of names (``st.executequery``), lower-cased (the facade matches its last part to
  the callee's lower-cased name and configured sinks to its tail): a bare call ``m(x)`` and ``o.m(x)`` are
  methods, ``Cls.m(x)`` static, ``new T(x)`` ``[T, new, ...]``; the argument lists keep
  their length (an overload is picked by arity at query time).
- Statement 0 (on the signature's first line, after the annotations) defines the
  parameters; a parameter bound from the request by an
  annotation (``@RequestParam``, ``@PathVariable``, ``@QueryParam``, ...) is also a use
  of the source ``@RequestParam`` (``SOURCES``). try-with-resources defines each
  resource in a statement of its own; a ``catch`` defines its parameter and may be
  entered from any statement of the ``try``; ``finally`` from the ends of the body and
  the catches. An old ``switch`` group falls into the next; an arrow rule does not.
- Lambdas are closures (units of their own, capturing the enclosing locals they name);
  an anonymous class's methods are methods of their own node capturing likewise. An
  enum constant's body is a class nested in the enum: its methods are units.
  Field initialisers and static blocks are not walked.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.kinds import FlowCallHow, SinkKind, StmtKind, UnitKind
from ragraf.lang.facts import FlowUnit
from ragraf.lang.flowblocks import BlockBuilder, Handler, Scope, mutates
from ragraf.lang.flowcore import Stmt, Unit

if TYPE_CHECKING:
    from tree_sitter import Node

#: annotations binding a parameter from the request (a use of ``@Name`` at the entry)
_PARAM_SOURCES = frozenset(
    {
        "RequestParam",
        "PathVariable",
        "QueryParam",
        "PathParam",
        "FormParam",
        "HeaderParam",
        "CookieParam",
        "RequestHeader",
        "RequestBody",
        "CookieValue",
    }
)
#: request readers (``request.getParameter("id")``: a use of ``getParameter()``)
_REQUEST_CALLS = frozenset(
    {
        "getParameter",
        "getParameterValues",
        "getParameterMap",
        "getHeader",
        "getHeaders",
        "getQueryString",
        "getInputStream",
        "getReader",
        "getCookies",
        "getPathInfo",
        "getRequestURI",
    }
)
SOURCES = frozenset(
    {f"{c}()" for c in _REQUEST_CALLS}
    | {"@" + a for a in _PARAM_SOURCES}
    | {"System.getenv()", "System.getProperty()"}
)
_SQL = frozenset(
    {
        "execute",
        "executeQuery",
        "executeUpdate",
        "executeLargeUpdate",
        "addBatch",
        "prepareStatement",
        "prepareCall",
        "createQuery",
        "createNativeQuery",
        "createSQLQuery",
    }
)
#: methods of a ``JdbcTemplate`` (an object whose name says so)
_JDBC = frozenset(
    {"query", "queryForObject", "queryForList", "queryForMap", "update", "batchUpdate"}
)
_PRINT = frozenset({"print", "println", "printf", "write", "append", "format"})
#: an object written as a chain of names (``this.dao``, ``System.out``)
_CHAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*")
_LEAVES = frozenset(
    {
        "line_comment",
        "block_comment",
        "string_literal",
        "text_block",
        "character_literal",
        "decimal_integer_literal",
        "hex_integer_literal",
        "octal_integer_literal",
        "binary_integer_literal",
        "decimal_floating_point_literal",
        "hex_floating_point_literal",
        "true",
        "false",
        "null_literal",
        "class_literal",
        "this",
        "super",
        "type_identifier",
        "scoped_type_identifier",
        "generic_type",
        "integral_type",
        "floating_point_type",
        "boolean_type",
        "void_type",
        "array_type",
        "type_arguments",
        "dimensions",
        "annotation",
        "marker_annotation",
        "modifiers",
        "class_body",
    }
)
_BLOCKS = frozenset({"block", "constructor_body"})
_SKIP = frozenset(
    {
        "line_comment",
        "block_comment",
        ";",
        "package_declaration",
        "import_declaration",
        "module_declaration",
    }
)
CLASS_LIKE = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    }
)
_METHODS = frozenset(
    {"method_declaration", "constructor_declaration", "compact_constructor_declaration"}
)
_BRANCHING = frozenset(
    {"if_statement", "switch_expression", "try_statement", "try_with_resources_statement"}
)
_LOOPS = frozenset({"while_statement", "do_statement", "for_statement", "enhanced_for_statement"})


def decl_start(n: Node) -> Node:
    """Where a declaration starts for its node: after its annotations (as a Python
    definition starts after its decorators), at its first modifier keyword or its type."""
    for c in n.children:
        if c.type == "modifiers":
            for m in c.children:
                if m.type not in (
                    "marker_annotation",
                    "annotation",
                    "line_comment",
                    "block_comment",
                ):
                    return m
            continue
        if c.type not in ("line_comment", "block_comment"):
            return c
    return n


class JavaFlow(BlockBuilder):
    """Walks one parsed Java file into its flow units (``build``)."""

    BLOCKS = _BLOCKS
    BRANCHING = _BRANCHING
    LOOPS = _LOOPS
    SELF_PREFIX = "this."
    SOURCES = SOURCES
    LEAVES = _LEAVES
    ELEMENT = "array_access"

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        super().__init__(src, decl_at)
        #: class key (start byte of its body) -> the fields it and the classes around it declare
        self.fields: dict[int, set[str]] = {}

    # -- classes and units --------------------------------------------------------------------
    def class_(self, n: Node, body: Node | None, outer: set[str]) -> None:
        """A class's methods as units; its nested classes likewise."""
        if body is None:
            return
        key = body.start_byte
        fields = set(outer)
        members = list(body.named_children)
        for m in list(members):
            if m.type == "enum_body_declarations":
                members += m.named_children
        for m in members:
            if m.type == "field_declaration":
                for d in m.children_by_field_name("declarator"):
                    nm = d.child_by_field_name("name")
                    if nm is not None:
                        fields.add(self.t(nm))
        params = n.child_by_field_name("parameters") if n.type == "record_declaration" else None
        for p in params.named_children if params is not None else []:
            nm = p.child_by_field_name("name")
            if nm is not None:
                fields.add(self.t(nm))
        self.fields[key] = fields
        for m in members:
            if m.type in _METHODS and m.child_by_field_name("body") is not None:
                node = self.decl_at.get(m.start_byte)
                if node is not None:
                    self.pending.append((m, node, UnitKind.METHOD, key, [], None))
            elif m.type in CLASS_LIKE or m.type == "enum_constant":
                # an enum constant's body (``A { void call() {...} }``) is a class of its own
                self.class_(m, m.child_by_field_name("body"), fields)

    def enter(
        self, u: Unit, fn: Node, cls: int, captured: list[str], origin: tuple[int, int] | None
    ) -> None:
        self.scopes[u.index] = Scope(cls)
        body = fn.child_by_field_name("body")
        end = fn.end_point[0] if body is None else body.start_point[0]
        first = decl_start(fn).start_point[0] + 1  # the signature, after its annotations
        s = Stmt(first, max(end + 1, first), StmtKind.ENTRY, -1)
        u.stmts.append(s)
        for v in captured:
            self.declare(u, v, s)
        params = fn.child_by_field_name("parameters")
        if params is not None and params.type == "identifier":  # x -> ...
            self.declare(u, self.t(params), s)
        elif params is not None:
            self.params(u, params, s)
        if body is None:
            return
        if body.type in _BLOCKS:
            self.seq(u, body.named_children, [0])
        else:  # an expression lambda: its value is returned
            i = self.new(u, body, StmtKind.RETURN, [0])
            self.expr(u, body, u.stmts[i])

    def params(self, u: Unit, plist: Node, s: Stmt) -> None:
        """Declare the parameters; a varargs one (``String... xs``) takes every argument
        from its position on (``set_params``)."""
        groups: list[list[str]] = []
        rest = -1
        for p in plist.named_children:
            if p.type == "identifier":  # (x, y) -> ...
                self.declare(u, self.t(p), s)
                groups.append([self.t(p)])
                continue
            nm = p.child_by_field_name("name")
            if nm is None and p.type == "spread_parameter":
                d = next((c for c in p.named_children if c.type == "variable_declarator"), None)
                nm = d.child_by_field_name("name") if d is not None else None
                rest = len(groups)
            if nm is None:
                continue
            self.declare(u, self.t(nm), s)
            groups.append([self.t(nm)] if self.t(nm) != "_" else [])
            tnode = p.child_by_field_name("type")
            if tnode is not None and self.t(tnode).endswith("ServletResponse"):
                self.scopes[u.index].extra.setdefault("responses", set()).add(self.t(nm))
            mods = next((c for c in p.named_children if c.type == "modifiers"), None)
            for a in mods.named_children if mods is not None else []:
                an = a.child_by_field_name("name")
                name = self.t(an).rsplit(".", 1)[-1] if an is not None else ""
                if name in _PARAM_SOURCES:
                    s.uses.append("@" + name)
        u.set_params(groups, rest)

    # -- statements ---------------------------------------------------------------------------
    def stmt(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        t = n.type
        if t in _SKIP or not n.is_named:
            return preds
        if t in _BLOCKS:
            return self.seq(u, n.named_children, preds)
        if t == "local_variable_declaration":
            i = self.new(u, n, StmtKind.ASSIGN, preds)
            self.locals(u, n, u.stmts[i])
            return [i]
        if t == "expression_statement":
            c = n.named_children[0] if n.named_child_count else None
            assign = c is not None and c.type in ("assignment_expression", "update_expression")
            i = self.new(u, n, StmtKind.ASSIGN if assign else StmtKind.EXPR, preds)
            self.expr(u, c, u.stmts[i])
            return [i]
        if t in ("return_statement", "throw_statement"):
            kind = StmtKind.RETURN if t == "return_statement" else StmtKind.THROW
            i = self.new(u, n, kind, preds)
            for c in n.named_children:
                self.expr(u, c, u.stmts[i])
            return []
        if t == "if_statement":
            return self.if_chain(u, n, preds, lambda _u, _n, p: p)
        if t == "while_statement":
            cond = n.child_by_field_name("condition")
            h = self.new(u, n, StmtKind.WHILE, preds, cond)
            self.expr(u, cond, u.stmts[h])
            return self.loop_body(u, h, n.child_by_field_name("body"))
        if t == "do_statement":
            return self.do_(u, n, preds)
        if t == "for_statement":
            return self.for_(u, n, preds)
        if t == "enhanced_for_statement":
            body = n.child_by_field_name("body")
            h = self.new(u, n, StmtKind.FOREACH, preds)
            s = u.stmts[h]
            if body is not None:
                s.end_line = max(s.line, body.start_point[0] + 1)
            self.expr(u, n.child_by_field_name("value"), s)
            nm = n.child_by_field_name("name")
            if nm is not None:
                self.declare(u, self.t(nm), s)
            return self.loop_body(u, h, body)
        if t in ("switch_expression", "switch_statement"):
            return self.switch(u, n, preds)
        if t in ("try_statement", "try_with_resources_statement"):
            return self.try_(u, n, preds)
        if t in ("break_statement", "continue_statement"):
            lab = next((self.t(c) for c in n.named_children if c.type == "identifier"), None)
            kind = StmtKind.BREAK if t == "break_statement" else StmtKind.CONTINUE
            return self.jump(u, n, kind, lab, preds)
        if t == "labeled_statement":
            kids = n.named_children
            self.label = self.t(kids[0]) if kids and kids[0].type == "identifier" else None
            out = self.seq(u, list(kids[1:]), preds)
            self.label = None
            return out
        if t == "synchronized_statement":
            body = n.child_by_field_name("body")
            i = self.new(u, n, StmtKind.STMT, preds, body.prev_named_sibling if body else None)
            for c in n.named_children:
                if c != body:
                    self.expr(u, c, u.stmts[i])
            return self.body(u, body, [i], -1)
        if t in CLASS_LIKE:
            self.class_(n, n.child_by_field_name("body"), self.outer_fields(u))
            return preds
        kind = StmtKind.RETURN if t == "yield_statement" else StmtKind.STMT
        i = self.new(u, n, kind, preds)
        for c in n.named_children:
            self.expr(u, c, u.stmts[i])
        return [i]

    def outer_fields(self, u: Unit) -> set[str]:
        return self.fields.get(self.scopes[u.index].cls, set())

    def locals(self, u: Unit, n: Node, s: Stmt) -> None:
        """``T a = x, b;``: each declarator with a value defines its name."""
        tnode = n.child_by_field_name("type")
        tt = self.t(tnode) if tnode is not None else ""
        for d in n.children_by_field_name("declarator"):
            nm = d.child_by_field_name("name")
            value = d.child_by_field_name("value")
            if nm is None:
                continue
            v = self.t(nm)
            self.scopes[u.index].locals.add(v)
            if value is None:
                continue
            self.expr(u, value, s)
            s.defs.append(v)
            if tt in ("PrintWriter", "ServletOutputStream") or (
                value.type == "method_invocation" and _name(self, value) == "getWriter"
            ):
                self.scopes[u.index].extra.setdefault("writers", set()).add(v)

    def for_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        label = self.take_label()
        body = n.child_by_field_name("body")
        for init in n.children_by_field_name("init"):
            i = self.new(u, init, StmtKind.ASSIGN, preds)
            if init.type == "local_variable_declaration":
                self.locals(u, init, u.stmts[i])
            else:
                self.expr(u, init, u.stmts[i])
            preds = [i]
        cond = n.child_by_field_name("condition")
        h = self.new(u, n, StmtKind.FOR, preds)
        s = u.stmts[h]
        if body is not None:
            s.end_line = max(s.line, body.start_point[0] + 1)
        self.expr(u, cond, s)
        updates = n.children_by_field_name("update")

        def upd(back: list[int]) -> list[int]:
            for x in updates:
                k = self.new(u, x, StmtKind.ASSIGN, back)
                self.expr(u, x, u.stmts[k])
                back = [k]
            return back

        self.label = label
        return self.loop_body(u, h, body, upd)

    def do_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        first = len(u.stmts)
        tg = self.push_target(u, -1, True)
        cond = n.child_by_field_name("condition")
        end = self.body(u, n.child_by_field_name("body"), preds, -1)
        self.pop_target(u)
        h = self.new(u, cond if cond is not None else n, StmtKind.DO_WHILE, end + tg.loop.conts)
        self.expr(u, cond, u.stmts[h])
        if first < h:
            u.succ.append((h, first))
        else:
            for p in preds:
                u.succ.append((p, h))
        return [h, *tg.loop.breaks]

    def switch(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        cond = n.child_by_field_name("condition")
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.SWITCH, preds, cond)
        self.expr(u, cond, u.stmts[h])
        arms = []
        for c in body.named_children if body is not None else []:
            if c.type not in ("switch_block_statement_group", "switch_rule"):
                continue
            labels = [x for x in c.named_children if x.type == "switch_label"]
            rest = [x for x in c.named_children if x.type != "switch_label"]
            values = [v for lb in labels for v in lb.named_children]
            default = any(self.t(lb).startswith("default") for lb in labels)
            arms.append((c, values, rest, default, c.type == "switch_block_statement_group"))
        if arms:  # the last group falls out of the switch
            c, values, rest, default, _f = arms[-1]
            arms[-1] = (c, values, rest, default, False)
        return self.cases(u, h, arms)

    def try_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        h = self.new(u, n, StmtKind.TRY, preds)
        u.stmts[h].end_line = u.stmts[h].line
        first = len(u.stmts)
        cur = [h]
        res = n.child_by_field_name("resources")
        for r in res.named_children if res is not None else []:
            i = self.new(u, r, StmtKind.ASSIGN, cur)
            s = u.stmts[i]
            self.expr(u, r.child_by_field_name("value"), s)
            nm = r.child_by_field_name("name")
            if nm is not None:
                self.declare(u, self.t(nm), s)
            elif r.child_by_field_name("value") is None:
                self.expr(u, r, s)  # try (existing) { ... }
            cur = [i]
        out = self.body(u, body, cur, -1) if body is not None else cur
        in_try = list(range(first, len(u.stmts)))
        for c in n.named_children:
            if c.type == "catch_clause":
                param = next(
                    (x for x in c.named_children if x.type == "catch_formal_parameter"), None
                )
                k = self.new(u, c, StmtKind.CATCH, [h, *in_try], param or c)
                nm = param.child_by_field_name("name") if param is not None else None
                if nm is not None:
                    self.declare(u, self.t(nm), u.stmts[k])
                out = out + self.body(u, c.child_by_field_name("body"), [k], k)
            elif c.type == "finally_clause":
                f = self.new(u, c, StmtKind.FINALLY, [h, *out])
                u.stmts[f].end_line = u.stmts[f].line
                blk = next((x for x in c.named_children if x.type == "block"), None)
                out = self.body(u, blk, [f], -1)
        return out

    # -- expressions --------------------------------------------------------------------------
    def name(self, u: Unit, n: Node) -> str | None:
        v = self.t(n)
        sc = self.scopes[u.index]
        if v in sc.locals:
            return v
        if v in self.fields.get(sc.cls, ()):
            return "this." + v
        if v[:1].isupper():
            return None
        return v

    def field_var(self, u: Unit, n: Node) -> str | None:
        """``this.p`` as the variable ``this.p``; None for any other field access."""
        obj = n.child_by_field_name("object")
        field = n.child_by_field_name("field")
        if obj is not None and field is not None and obj.type == "this":
            return "this." + self.t(field)
        return None

    def base_var(self, u: Unit, n: Node | None) -> str | None:
        while n is not None:
            t = n.type
            if t == "identifier":
                return self.name(u, n)
            if t == "field_access":
                fv = self.field_var(u, n)
                if fv is not None:
                    return fv
                n = n.child_by_field_name("object")
            elif t == "array_access":
                n = n.child_by_field_name("array")
            elif t == "parenthesized_expression" and n.named_child_count:
                n = n.named_children[0]
            else:
                return None
        return None

    def target_var(self, u: Unit, n: Node) -> str | None:
        if n.type == "identifier":
            return self.name(u, n) or self.t(n)
        return self.field_var(u, n) if n.type == "field_access" else None

    def _assign(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        right = x.child_by_field_name("right")
        op = x.child_by_field_name("operator")
        if right is not None:
            stack.append(right)
        if left is not None:
            self.target(u, left, s, also_use=op is not None and self.t(op) != "=")

    def _update(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        if x.named_child_count:
            self.target(u, x.named_children[0], s, also_use=True)

    def _field(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        fv = self.field_var(u, x)
        if fv is not None:
            s.uses.append(fv)
            return
        obj = x.child_by_field_name("object")
        if obj is not None:
            stack.append(obj)

    def _call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        obj = x.child_by_field_name("object")
        name = _name(self, x)
        how = FlowCallHow.METHOD
        if obj is not None:
            if obj.type == "identifier" and self.name(u, obj) is None:
                how = FlowCallHow.STATIC
            else:
                stack.append(obj)
        argv = self.args(u, x.child_by_field_name("arguments"), s)
        before = len(s.sinks)
        otext = self.t(obj) if obj is not None else ""
        self.source_sink(u, obj, otext, s, name, argv)
        # a method that changes its object; printing to a writer or setting a header of the
        # response sends the data away
        if how == FlowCallHow.METHOD and obj is not None and len(s.sinks) == before:
            base = self.base_var(u, obj) if mutates(name) else None
            if base is not None and base not in self.scopes[u.index].extra.get("responses", ()):
                s.weak.append(base)
        written = f"{otext}.{name}" if otext and _CHAIN.fullmatch(otext) else name
        s.calls.append([written.lower(), how, argv])

    def source_sink(
        self, u: Unit, obj: Node | None, otext: str, s: Stmt, name: str, argv: list[list[str]]
    ) -> None:
        if name in _REQUEST_CALLS and obj is not None:
            s.uses.append(name + "()")
        elif otext == "System" and name in ("getenv", "getProperty"):
            s.uses.append(f"System.{name}()")
        elif name in _SQL and obj is not None and argv:
            s.sinks.append(SinkKind.SQL)
        elif name in _JDBC and argv and "jdbc" in otext.lower():
            s.sinks.append(SinkKind.SQL)
        elif name == "exec" and "Runtime" in otext:
            s.sinks.append(SinkKind.SHELL)
        elif name in _PRINT and obj is not None and argv:
            writers = self.scopes[u.index].extra.get("writers", ())
            if otext in writers or (
                obj.type == "method_invocation" and _name(self, obj) == "getWriter"
            ):
                s.sinks.append(SinkKind.OUTPUT)

    def _new(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        tnode = x.child_by_field_name("type")
        tname = self.t(tnode) if tnode is not None else ""
        tname = tname.split("<", 1)[0].rsplit(".", 1)[-1]
        outer = x.child_by_field_name("object")
        if outer is not None:
            stack.append(outer)
        argv = self.args(u, x.child_by_field_name("arguments"), s)
        if tname == "ProcessBuilder":
            s.sinks.append(SinkKind.SHELL)
        s.calls.append([tname.lower(), FlowCallHow.NEW, argv])
        body = next((c for c in x.named_children if c.type == "class_body"), None)
        if body is not None:
            self.anonymous(u, body, s)

    def anonymous(self, u: Unit, body: Node, s: Stmt) -> None:
        """An anonymous class's methods: methods of their own nodes that capture the
        enclosing locals they name."""
        self.fields[body.start_byte] = set(self.outer_fields(u))
        for m in body.named_children:
            if m.type == "field_declaration":
                for d in m.children_by_field_name("declarator"):
                    nm = d.child_by_field_name("name")
                    if nm is not None:
                        self.fields[body.start_byte].add(self.t(nm))
        saved = self.scopes[u.index].cls
        self.scopes[u.index].cls = body.start_byte
        for m in body.named_children:
            if m.type in _METHODS and m.child_by_field_name("body") is not None:
                own = self.own_params(m)
                node = self.decl_at.get(m.start_byte)
                self.closure(u, m, m.child_by_field_name("body"), own, s, node)
            elif m.type in CLASS_LIKE:
                self.class_(m, m.child_by_field_name("body"), self.fields[body.start_byte])
        self.scopes[u.index].cls = saved

    def own_params(self, fn: Node) -> set[str]:
        params = fn.child_by_field_name("parameters")
        if params is None:
            return set()
        if params.type == "identifier":
            return {self.t(params)}
        out: set[str] = set()
        for p in params.named_children:
            nm = p if p.type == "identifier" else p.child_by_field_name("name")
            if nm is not None:
                out.add(self.t(nm))
        return out

    def _lambda(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        self.closure(u, x, x.child_by_field_name("body"), self.own_params(x), s)

    def _instanceof(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        if left is not None:
            stack.append(left)
        nm = x.child_by_field_name("name")
        if nm is not None:  # o instanceof String str: defines str
            self.declare(u, self.t(nm), s)

    def _method_ref(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        if x.named_child_count and x.named_children[0].type != "identifier":
            stack.append(x.named_children[0])
        elif x.named_child_count:
            v = self.name(u, x.named_children[0])
            if v is not None:
                s.uses.append(v)

    def _ctor_call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        ctor = x.child_by_field_name("constructor")
        name = self.t(ctor) if ctor is not None else ""
        s.calls.append(
            [name.lower(), FlowCallHow.NEW, self.args(u, x.child_by_field_name("arguments"), s)]
        )


def _name(b: JavaFlow, call: Node) -> str:
    nm = call.child_by_field_name("name")
    return b.t(nm) if nm is not None else ""


_EXPR: dict[str, Handler] = {
    "assignment_expression": JavaFlow._assign,
    "update_expression": JavaFlow._update,
    "field_access": JavaFlow._field,
    "method_invocation": JavaFlow._call,
    "object_creation_expression": JavaFlow._new,
    "lambda_expression": JavaFlow._lambda,
    "instanceof_expression": JavaFlow._instanceof,
    "method_reference": JavaFlow._method_ref,
    "explicit_constructor_invocation": JavaFlow._ctor_call,
}
JavaFlow.HANDLERS = _EXPR


def build(root: Node, src: bytes, decl_at: dict[int, int]) -> tuple[list[FlowUnit], int]:
    """The flow units of one parsed Java file and how many were too big for def-use edges."""
    b = JavaFlow(src, decl_at)
    units = b.build(root)
    return units, b.skipped

"""The data-flow layer of Go code (issue 42): per function, method and func literal, the
control-flow skeleton over statements and the def-use edges of reaching definitions
(``ragraf.lang.flowcore``), walked with the block-structured walk Go shares with Java
(``ragraf.lang.flowblocks``).

Invariants a change must keep (besides ``flowcore``'s and ``flowblocks``'s):
- Variables are Go names as written; the blank ``_`` is none, nor is an imported
  package's name. A method's receiver is the object: ``recv.p`` is the variable
  ``this.p`` whatever the receiver is called (``SELF_PREFIX``), the receiver alone is no
  variable, and the methods of one receiver type are one class for ``class_links`` (the
  file's methods of ``*T`` and ``T`` together).
- ``a, b := f()`` and ``a, b = x, y`` define each name; a function's named results are
  defined at its entry and a bare ``return`` uses them. ``x.f = v``, ``x[k] = v`` and
  ``*x = v`` are weak definitions of ``x``; ``p := &x`` makes ``p`` and ``x`` aliases and
  ``&x`` elsewhere (an argument, a literal) a weak definition of ``x`` (it escapes).
- An ``if`` / ``switch`` / ``for`` init statement is a statement of its own before the
  header; a type switch's ``v := x.(type)`` is defined by the header; a ``select`` case's
  ``v := <-ch`` by its case. ``panic(...)`` is a ``throw``; ``go`` / ``defer`` statements
  are their calls (a deferred closure's writes to captured variables are weak
  definitions of the ``defer`` statement).
- A call is ``[name, how, args]``, the name the callee as written when it is a chain of
  names (``exec.command``, ``this.db.query``: the receiver as ``this``), lower-cased (the
  facade matches its last part to the callee's lower-cased name and configured sinks to
  its tail); ``pkg.F(x)`` is a function, ``v.M(x)`` a method.
- Sources (``SOURCES``) are uses of canonical names, whatever the request is called:
  ``r.FormValue()`` for ``req.FormValue("id")``; sinks are the statement's ``sinks``.
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

#: what a request or the process environment hands a Go program
SOURCES = frozenset(
    {
        "r.URL.Query()",
        "r.FormValue()",
        "r.PostFormValue()",
        "r.FormFile()",
        "r.Form",
        "r.PostForm",
        "r.Body",
        "r.Header",
        "r.Cookie()",
        "mux.Vars()",
        "os.Getenv()",
        "os.Args",
    }
)
#: methods of any value that read a request (``req.FormValue("id")``)
_REQUEST_CALLS = frozenset({"FormValue", "PostFormValue", "FormFile", "Cookie"})
#: fields of a variable declared ``*http.Request``
_REQUEST_FIELDS = frozenset({"Form", "PostForm", "Body", "Header"})
_SQL = frozenset(
    {"Query", "QueryRow", "Exec", "QueryContext", "QueryRowContext", "ExecContext", "Prepare"}
)
_OUTPUT_FUNCS = frozenset({"Fprintf", "Fprint", "Fprintln"})
#: a callee written as a chain of names (``exec.Command``, ``s.db.Query``)
_CHAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LEAVES = frozenset(
    {
        "comment",
        "interpreted_string_literal",
        "raw_string_literal",
        "int_literal",
        "float_literal",
        "imaginary_literal",
        "rune_literal",
        "nil",
        "true",
        "false",
        "iota",
        "field_identifier",
        "type_identifier",
        "package_identifier",
        "label_name",
        "qualified_type",
        "pointer_type",
        "slice_type",
        "map_type",
        "array_type",
        "struct_type",
        "interface_type",
        "function_type",
        "channel_type",
        "generic_type",
        "implicit_length_array_type",
        "type_arguments",
        "negated_type",
        "escape_sequence",
    }
)
_BLOCKS = frozenset({"block", "statement_list"})
_SKIP = frozenset(
    {
        "comment",
        "empty_statement",
        "type_declaration",
        "import_declaration",
        "package_clause",
        "fallthrough_statement",
    }
)
_ASSIGNS = frozenset(
    {
        "short_var_declaration",
        "assignment_statement",
        "inc_statement",
        "dec_statement",
        "var_declaration",
        "const_declaration",
    }
)
_BRANCHING = frozenset(
    {"if_statement", "expression_switch_statement", "type_switch_statement", "select_statement"}
)
_LOOPS = frozenset({"for_statement"})


class GoFlow(BlockBuilder):
    """Walks one parsed Go file into its flow units (``build``)."""

    BLOCKS = _BLOCKS
    BRANCHING = _BRANCHING
    LOOPS = _LOOPS
    SELF_PREFIX = "this."
    SOURCES = SOURCES
    LEAVES = _LEAVES

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        super().__init__(src, decl_at)
        self.packages: set[str] = set()
        self.recv_class: dict[str, int] = {}

    # -- units --------------------------------------------------------------------------------
    def build(self, root: Node) -> list[FlowUnit]:
        for c in root.named_children:
            if c.type == "import_declaration":
                self.imports(c)
        return super().build(root)

    def imports(self, n: Node) -> None:
        stack = [n]
        while stack:
            x = stack.pop()
            if x.type == "import_spec":
                name = x.child_by_field_name("name")
                path = x.child_by_field_name("path")
                if name is not None and name.type == "package_identifier":
                    self.packages.add(self.t(name))
                elif path is not None:
                    last = self.t(path).strip('"`').rsplit("/", 1)[-1]
                    if last.startswith("v") and last[1:].isdigit() and "/" in self.t(path):
                        last = self.t(path).strip('"`').rsplit("/", 2)[-2]
                    self.packages.add(last.split(".")[0].replace("-", "_"))
            else:
                stack.extend(x.named_children)

    def enter(
        self, u: Unit, fn: Node, cls: int, captured: list[str], origin: tuple[int, int] | None
    ) -> None:
        sc = self.scopes[u.index] = Scope(cls)
        if origin is not None:
            sc.extra.update(self.scopes[origin[0]].extra)
        body = fn.child_by_field_name("body")
        end = (body.start_point[0] if body is not None else fn.end_point[0]) + 1
        s = Stmt(fn.start_point[0] + 1, max(end, fn.start_point[0] + 1), StmtKind.ENTRY, -1)
        u.stmts.append(s)
        recv = fn.child_by_field_name("receiver")
        if recv is not None:
            for p in recv.named_children:
                name = p.child_by_field_name("name")
                if name is not None:
                    sc.extra["recv"] = self.t(name)
        u.set_params(*self.params(u, fn.child_by_field_name("parameters"), s))
        result = fn.child_by_field_name("result")
        results: list[str] = []
        if result is not None and result.type == "parameter_list":
            before = len(s.defs)
            self.params(u, result, s)
            results = s.defs[before:]
        sc.extra["results"] = results
        for v in captured:
            sc.locals.add(v)
            s.defs.append(v)
        if body is not None:
            self.seq(u, body.named_children, [0])

    def params(self, u: Unit, plist: Node | None, s: Stmt) -> tuple[list[list[str]], int]:
        """Declare the names of a parameter (or named result) list; the names of each
        position (``_``: none) and the variadic position (``...T``; -1: none)."""
        sc = self.scopes[u.index]
        groups: list[list[str]] = []
        rest = -1
        for p in plist.named_children if plist is not None else []:
            if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue
            tnode = p.child_by_field_name("type")
            tt = self.t(tnode) if tnode is not None else ""
            for nm in p.named_children:
                if nm.type != "identifier":
                    continue
                v = self.t(nm)
                if p.type == "variadic_parameter_declaration":
                    rest = len(groups)
                groups.append([v] if v != "_" else [])
                self.declare(u, v, s)
                if tt.endswith("http.Request"):
                    sc.extra.setdefault("requests", set()).add(v)
                elif tt.endswith("http.ResponseWriter"):
                    sc.extra.setdefault("writers", set()).add(v)
        return groups, rest

    def recv_key(self, fn: Node) -> int:
        """The class of a method: its receiver's base type (``*T`` and ``T`` alike)."""
        recv = fn.child_by_field_name("receiver")
        t = recv.named_children[0].child_by_field_name("type") if recv is not None else None
        while t is not None and t.type in ("pointer_type", "parenthesized_type", "generic_type"):
            inner = t.child_by_field_name("type")
            t = (
                inner
                if inner is not None
                else (t.named_children[0] if t.named_child_count else None)
            )
        name = self.t(t) if t is not None else ""
        return self.recv_class.setdefault(name, fn.start_byte)

    # -- statements ---------------------------------------------------------------------------
    def stmt(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        t = n.type
        if t in _SKIP:
            return preds
        if t in _BLOCKS:
            return self.seq(u, n.named_children, preds)
        if t in _ASSIGNS:
            return [self.simple(u, n, preds)]
        if t == "expression_statement":
            c = n.named_children[0] if n.named_child_count else None
            throws = c is not None and c.type == "call_expression" and _callee(self, c) == "panic"
            i = self.new(u, n, StmtKind.THROW if throws else StmtKind.EXPR, preds)
            self.expr(u, c, u.stmts[i])
            return [] if throws else [i]
        if t == "return_statement":
            i = self.new(u, n, StmtKind.RETURN, preds)
            s = u.stmts[i]
            if n.named_child_count:
                for c in n.named_children:
                    self.expr(u, c, s)
            else:
                s.uses.extend(self.scopes[u.index].extra.get("results", []))
            return []
        if t in ("go_statement", "defer_statement", "send_statement", "goto_statement"):
            i = self.new(u, n, StmtKind.STMT, preds)
            for c in n.named_children:
                if c.type != "label_name":
                    self.expr(u, c, u.stmts[i])
            return [i]
        if t == "if_statement":
            return self.if_chain(u, n, preds, self.init)
        if t == "for_statement":
            return self.for_(u, n, preds)
        if t in ("expression_switch_statement", "type_switch_statement", "select_statement"):
            return self.switch(u, n, preds)
        if t in ("break_statement", "continue_statement"):
            lab = next((self.t(c) for c in n.named_children if c.type == "label_name"), None)
            kind = StmtKind.BREAK if t == "break_statement" else StmtKind.CONTINUE
            return self.jump(u, n, kind, lab, preds)
        if t == "labeled_statement":
            ln = n.child_by_field_name("label")
            inner = [c for c in n.named_children if c.type != "label_name"]
            self.label = self.t(ln) if ln is not None else None
            out = self.seq(u, inner, preds)
            self.label = None
            return out
        if t in ("function_declaration", "method_declaration"):
            node = self.decl_at.get(n.start_byte)
            if node is not None and n.child_by_field_name("body") is not None:
                is_m = t == "method_declaration"
                ukind = UnitKind.METHOD if is_m else UnitKind.FUNCTION
                cls = self.recv_key(n) if is_m else -1
                self.pending.append((n, node, ukind, cls, [], None))
            return preds
        i = self.new(u, n, StmtKind.STMT, preds)
        for c in n.named_children:
            self.expr(u, c, u.stmts[i])
        return [i]

    def simple(self, u: Unit, n: Node, preds: list[int]) -> int:
        """An assignment, declaration or ``x++``: one statement."""
        i = self.new(u, n, StmtKind.ASSIGN, preds)
        s = u.stmts[i]
        t = n.type
        if t in ("var_declaration", "const_declaration"):
            specs = [x for c in n.named_children for x in ([c] + c.named_children)]
            for spec in specs:
                if spec.type not in ("var_spec", "const_spec"):
                    continue
                self.expr(u, spec.child_by_field_name("value"), s)
                for nm in spec.children_by_field_name("name"):
                    self.declare(u, self.t(nm), s)
            return i
        if t in ("inc_statement", "dec_statement"):
            if n.named_child_count:
                self.target(u, n.named_children[0], s, also_use=True)
            return i
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        self.expr(u, right, s)
        lefts = left.named_children if left is not None else []
        if t == "short_var_declaration":
            for c in lefts:
                if c.type == "identifier":
                    self.declare(u, self.t(c), s)
        else:
            op = n.child_by_field_name("operator")
            compound = op is not None and self.t(op) != "="
            for c in lefts:
                self.target(u, c, s, also_use=compound)
        rights = right.named_children if right is not None else []
        if len(lefts) == len(rights):
            for a, b in zip(lefts, rights, strict=True):
                if a.type == "identifier" and b.type == "unary_expression":
                    op = b.child_by_field_name("operator")
                    base = self.base_var(u, b.child_by_field_name("operand"))
                    if op is not None and self.t(op) == "&" and base is not None:
                        self.alias(u, self.t(a), base)
        return i

    def init(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        """An ``if``'s init statement: a statement of its own before the header."""
        init = n.child_by_field_name("initializer")
        return self.stmt(u, init, preds) if init is not None else preds

    def for_(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        body = n.child_by_field_name("body")
        clause = next((c for c in n.named_children if c != body and c.type != "comment"), None)
        end = body.start_point[0] + 1 if body is not None else n.end_point[0] + 1
        if clause is not None and clause.type == "range_clause":
            h = self.new(u, n, StmtKind.FOREACH, preds)
            s = u.stmts[h]
            s.end_line = max(s.line, end)
            self.expr(u, clause.child_by_field_name("right"), s)
            left = clause.child_by_field_name("left")
            declares = any(self.t(c) == ":=" for c in clause.children if not c.is_named)
            for c in left.named_children if left is not None else []:
                if declares and c.type == "identifier":
                    self.declare(u, self.t(c), s)
                else:
                    self.target(u, c, s, also_use=False)
            return self.loop_body(u, h, body)
        if clause is not None and clause.type == "for_clause":
            label = self.take_label()
            init = clause.child_by_field_name("initializer")
            if init is not None:
                preds = self.stmt(u, init, preds)
            cond = clause.child_by_field_name("condition")
            h = self.new(u, n, StmtKind.FOR, preds)
            s = u.stmts[h]
            s.end_line = max(s.line, end)
            self.expr(u, cond, s)
            update = clause.child_by_field_name("update")
            self.label = label

            def upd(back: list[int]) -> list[int]:
                return self.stmt(u, update, back) if update is not None else back

            return self.loop_body(u, h, body, upd, exits=cond is not None)
        h = self.new(u, n, StmtKind.WHILE if clause is not None else StmtKind.FOR, preds)
        s = u.stmts[h]
        s.end_line = max(s.line, end)
        self.expr(u, clause, s)
        return self.loop_body(u, h, body, exits=clause is not None)

    def switch(self, u: Unit, n: Node, preds: list[int]) -> list[int]:
        label = self.take_label()
        u_init = n.child_by_field_name("initializer")
        if u_init is not None:
            preds = self.stmt(u, u_init, preds)
        value = n.child_by_field_name("value")
        h = self.new(u, n, StmtKind.SWITCH, preds, value)
        s = u.stmts[h]
        if value is None:
            s.end_line = s.line
        self.expr(u, value, s)
        alias = n.child_by_field_name("alias")
        for c in alias.named_children if alias is not None else []:
            if c.type == "identifier":
                self.declare(u, self.t(c), s)
        arms = []
        for c in n.named_children:
            if c.type not in ("expression_case", "type_case", "default_case", "communication_case"):
                continue
            stmts = [x for x in c.named_children if x.type == "statement_list"]
            body = stmts[0].named_children if stmts else []
            values: list[Node] = []
            if c.type == "expression_case":
                values = list(c.children_by_field_name("value"))
            elif c.type == "communication_case":
                values = list(c.children_by_field_name("communication"))
            falls = bool(body) and body[-1].type == "fallthrough_statement"
            arms.append((c, values, body, c.type == "default_case", falls))
        self.label = label
        return self.cases(u, h, arms)

    def arm_defs(self, u: Unit, arm: Node, s: Stmt) -> None:
        comm = arm.child_by_field_name("communication")
        if comm is None or comm.type != "receive_statement":
            return
        s.uses.clear()
        self.expr(u, comm.child_by_field_name("right"), s)
        left = comm.child_by_field_name("left")
        declares = any(self.t(c) == ":=" for c in comm.children if not c.is_named)
        for c in left.named_children if left is not None else []:
            if declares and c.type == "identifier":
                self.declare(u, self.t(c), s)
            else:
                self.target(u, c, s, also_use=False)

    # -- expressions --------------------------------------------------------------------------
    def name(self, u: Unit, n: Node) -> str | None:
        v = self.t(n)
        sc = self.scopes[u.index]
        if v in sc.locals:
            return v
        if v == "_" or v in self.packages or v == sc.extra.get("recv"):
            return None
        return v

    def self_field(self, u: Unit, n: Node) -> str | None:
        """``recv.p`` as ``this.p``; None for any other selector."""
        op = n.child_by_field_name("operand")
        field = n.child_by_field_name("field")
        recv = self.scopes[u.index].extra.get("recv")
        if op is None or field is None or recv is None or op.type != "identifier":
            return None
        if self.t(op) != recv or recv in self.scopes[u.index].locals:
            return None
        return "this." + self.t(field)

    def base_var(self, u: Unit, n: Node | None) -> str | None:
        """The variable a selector / index / dereference chain starts from."""
        while n is not None:
            t = n.type
            if t == "identifier":
                return self.name(u, n)
            if t == "selector_expression":
                sf = self.self_field(u, n)
                if sf is not None:
                    return sf
                n = n.child_by_field_name("operand")
            elif t in ("index_expression", "slice_expression"):
                n = n.child_by_field_name("operand")
            elif t in ("unary_expression", "parenthesized_expression"):
                n = n.child_by_field_name("operand") or (
                    n.named_children[0] if n.named_child_count else None
                )
            else:
                return None
        return None

    def target_var(self, u: Unit, n: Node) -> str | None:
        if n.type == "identifier":
            return self.name(u, n)
        return self.self_field(u, n) if n.type == "selector_expression" else None

    def _selector(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        sf = self.self_field(u, x)
        if sf is not None:
            s.uses.append(sf)
            return
        op = x.child_by_field_name("operand")
        field = x.child_by_field_name("field")
        if op is not None and field is not None and op.type == "identifier":
            o, f = self.t(op), self.t(field)
            sc = self.scopes[u.index]
            if o == "os" and f == "Args" and o not in sc.locals:
                s.uses.append("os.Args")
            elif f in _REQUEST_FIELDS and o in sc.extra.get("requests", ()):
                s.uses.append("r." + f)
        if op is not None:
            stack.append(op)

    def _call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        fn = x.child_by_field_name("function")
        args = x.child_by_field_name("arguments")
        name, how = "", FlowCallHow.DYNAMIC
        sc = self.scopes[u.index]
        qual = ""
        mut: str | None = None
        if fn is not None:
            if fn.type == "identifier":
                name = self.t(fn)
                if name in sc.locals:
                    how = FlowCallHow.DYNAMIC
                    s.uses.append(name)
                else:
                    how = FlowCallHow.FUNCTION
            elif fn.type == "selector_expression":
                op = fn.child_by_field_name("operand")
                field = fn.child_by_field_name("field")
                name = self.t(field) if field is not None else ""
                if op is not None and op.type == "identifier" and self.name(u, op) is None:
                    qual = self.t(op)
                    how = FlowCallHow.FUNCTION if qual in self.packages else FlowCallHow.METHOD
                else:
                    how = FlowCallHow.METHOD
                    if op is not None:
                        stack.append(op)
                        qual = self.t(op)
                        if mutates(name):
                            mut = self.base_var(u, op)
            elif fn.type == "generic_type" or fn.type == "parenthesized_expression":
                stack.append(fn)
            else:
                stack.append(fn)
        argv = self.args(u, args, s)
        before = len(s.sinks)
        self.source_sink(u, x, s, name, qual, argv)
        # a method that changes its object; writing to the response sends the data away
        if mut is not None and len(s.sinks) == before:
            s.weak.append(mut)
        written = self.written(u, fn) if how != FlowCallHow.DYNAMIC else None
        s.calls.append([(written or name).lower(), how, argv])

    def written(self, u: Unit, fn: Node | None) -> str | None:
        """A callee written as a chain of names, the receiver as ``this``: ``exec.Command``,
        ``this.db.Query``; None for any other callee (a call's result, an index)."""
        if fn is None:
            return None
        text = self.t(fn)
        if not _CHAIN.fullmatch(text):
            return None
        base, dot, rest = text.partition(".")
        sc = self.scopes[u.index]
        if dot and base == sc.extra.get("recv") and base not in sc.locals:
            return "this." + rest
        return text

    def source_sink(
        self, u: Unit, x: Node, s: Stmt, name: str, qual: str, argv: list[list[str]]
    ) -> None:
        if name in _REQUEST_CALLS and qual:
            s.uses.append(f"r.{name}()")
        elif name == "Query" and qual.endswith(".URL") and not argv:
            s.uses.append("r.URL.Query()")
        elif qual == "os" and name == "Getenv":
            s.uses.append("os.Getenv()")
        elif qual == "mux" and name == "Vars":
            s.uses.append("mux.Vars()")
        elif name in _SQL and qual and argv and qual not in self.packages:
            s.sinks.append(SinkKind.SQL)
        elif qual == "exec" and name in ("Command", "CommandContext"):
            s.sinks.append(SinkKind.SHELL)
        elif name in _OUTPUT_FUNCS and qual == "fmt":
            args = x.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_child_count else None
            if first is not None and self._writer(u, first):
                s.sinks.append(SinkKind.OUTPUT)
        elif name in ("Write", "WriteString") and qual:
            writers = self.scopes[u.index].extra.get("writers", ())
            if qual in writers or (qual == "io" and argv and set(argv[0]) & set(writers)):
                s.sinks.append(SinkKind.OUTPUT)

    def _writer(self, u: Unit, n: Node) -> bool:
        return n.type == "identifier" and self.t(n) in self.scopes[u.index].extra.get("writers", ())

    def _unary(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        op = x.child_by_field_name("operator")
        operand = x.child_by_field_name("operand")
        if op is not None and self.t(op) == "&":
            base = self.base_var(u, operand)
            if base is not None:
                s.weak.append(base)
        if operand is not None:
            stack.append(operand)

    def _func_literal(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        own: set[str] = set()
        params = x.child_by_field_name("parameters")
        for p in params.named_children if params is not None else []:
            own.update(self.t(c) for c in p.named_children if c.type == "identifier")
        self.closure(u, x, x.child_by_field_name("body"), own, s)

    def _keyed(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        kids = x.named_children
        if not kids:
            return
        key = kids[0]
        inner = key.named_children[0] if key.named_child_count == 1 else key
        if inner.type not in ("identifier", "field_identifier"):  # T{Name: v}: no variable
            stack.append(key)
        stack.extend(kids[1:])

    def _assert(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        op = x.child_by_field_name("operand")
        if op is not None:
            stack.append(op)


def _callee(b: GoFlow, call: Node) -> str:
    fn = call.child_by_field_name("function")
    return b.t(fn) if fn is not None and fn.type == "identifier" else ""


_EXPR: dict[str, Handler] = {
    "selector_expression": GoFlow._selector,
    "call_expression": GoFlow._call,
    "unary_expression": GoFlow._unary,
    "func_literal": GoFlow._func_literal,
    "keyed_element": GoFlow._keyed,
    "type_assertion_expression": GoFlow._assert,
}
GoFlow.HANDLERS = _EXPR


def build(root: Node, src: bytes, decl_at: dict[int, int]) -> tuple[list[FlowUnit], int]:
    """The flow units of one parsed Go file and how many were too big for def-use edges."""
    b = GoFlow(src, decl_at)
    units = b.build(root)
    return units, b.skipped

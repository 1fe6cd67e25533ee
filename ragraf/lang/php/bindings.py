"""What variables hold: assignments, ``global``, ``foreach``, ``catch``, ``return`` and the
narrowing by ``instanceof`` / ``is_a``, for ``Uses``.

Invariants a change must keep:
- Assignments only type variables, properties (``$this->p``, ``self::$p``) and
  globals. A variable's assignment binds it from the assignment's end on, in the
  block it is made in (``Names.close`` picks the bindings reaching each use);
  ``instanceof`` / ``is_a`` narrow a variable inside the branch they guard, and
  after an ``if (!$x instanceof C)`` whose body leaves (``return``, ``throw``,
  ``continue``, ``break``, ``exit``).
- ``return <expr>`` types a function only when it declares or documents no
  return type, and never from inside a closure.
- ``foreach ($xs as $v)`` binds ``$v`` to an element of ``$xs`` (an inline
  ``@var`` right before the loop instead); ``global $x`` binds the global, or
  what the function's ``@global T $x`` says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.lang.facts import ClassConstRef, TypeDesc
from ragraf.lang.php.names import Names
from ragraf.lang.typedesc import AnyOf, Cls, Elem, Global, Static

if TYPE_CHECKING:
    from tree_sitter import Node

#: the last statement of a body that leaves it (an early exit)
_EXITS = frozenset(
    {
        "return_statement",
        "throw_expression",
        "continue_statement",
        "break_statement",
        "exit_statement",
    }
)
_AND = frozenset({"&&", "and"})
_OR = frozenset({"||", "or"})


class Bindings(Names):
    """Handlers of the captures that type variables, properties and globals."""

    if TYPE_CHECKING:

        def wg_hook(self, left: Node, right: Node | None) -> None: ...  # ``FrameworkCalls``

    def on_global(self, n: Node) -> None:
        """``global $x``: ``$x`` is the global of that name in this scope (a class the
        function's docblock gives it with ``@global T $x`` instead)."""
        sc = self.scope()
        block = self.block_of(n)
        for c in n.named_children:
            if c.type == "variable_name":
                name = self.t(c)[1:]
                sc.globals.add(name)
                descs = sc.doc_globals.get(name) or [Global(name)]
                self.bind(sc, name, descs, n.end_byte, block)

    def on_assignment(self, n: Node) -> None:
        """Types from ``$x = ...``, ``$this->p = ...`` and ``$GLOBALS['x'] = ...``; a
        file-level or ``global`` variable's assignment also types the global."""
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None:
            return
        sc = self.scope()
        lt = left.type
        if lt == "variable_name":
            name = self.t(left)[1:]
            d = self.expr_desc(n)  # `$x ??= new C`: the old value or a C
            if d is None and right is not None:
                d = self.callable_desc(right)
            doc = self.doc_before(n, name)
            if doc and not isinstance(d, Cls):
                d = doc[0] if len(doc) == 1 else AnyOf(tuple(doc))
            if d is not None:
                self.bind(sc, name, [d], n.end_byte, self.block_of(n))
                if sc.node == 0 and not self.stack_has_function() or name in sc.globals:
                    self.pending_globals.append((self.scope_index(), name, d))
        elif lt == "member_access_expression":
            obj = left.child_by_field_name("object")
            pname = left.child_by_field_name("name")
            if (
                obj is not None
                and pname is not None
                and self.t(obj) == "$this"
                and pname.type == "name"
            ):
                decl = self.cur_class_decl_any()
                d = self.expr_desc(right)
                if decl is not None and d is not None:
                    self.pending_props.append((self.scope_index(), decl, self.t(pname), d))
        elif lt == "scoped_property_access_expression":  # `self::$instance = new static()`
            scope = left.child_by_field_name("scope")
            pname = left.child_by_field_name("name")
            decl = self.cur_class_decl_any()
            if scope is None or pname is None or decl is None:
                return
            word = self.t(scope).lower()
            if word in ("self", "static") or self.resolve_class(self.t(scope)) == decl.fqn:
                d = self.expr_desc(right)
                if d is not None:
                    self.pending_props.append(
                        (self.scope_index(), decl, self.t(pname).lstrip("$"), d)
                    )
        elif lt == "subscript_expression":
            d = self.expr_desc(left)
            if isinstance(d, Global):
                rd = self.expr_desc(right)
                if rd is not None:
                    self.pending_globals.append((self.scope_index(), d.name, rd))
            self.wg_hook(left, right)

    def doc_before(self, n: Node, name: str) -> list[TypeDesc]:
        """The types an inline ``/** @var T $name */`` right before the statement of
        assignment ``n`` gives ``$name`` (none when there is no such comment)."""
        if not self.doc_vars:
            return []
        stmt = n.parent
        if stmt is None or stmt.type != "expression_statement":
            return []
        return self.doc_before_statement(stmt, name)

    def doc_before_statement(self, stmt: Node, name: str) -> list[TypeDesc]:
        """The types an inline ``/** @var T $name */`` right before ``stmt`` gives."""
        if not self.doc_vars:
            return []
        prev = stmt.prev_named_sibling
        if prev is None or prev.type != "comment":
            return []
        return self.doc_vars.get(prev.start_byte, {}).get(name, [])

    def on_return(self, n: Node) -> None:
        """``return <expr>`` of a function or method without a declared or documented return
        type: one of the types it returns (``new static`` is the late-bound class)."""
        sc = self.scope()
        if sc.anon or sc.node == 0 or sc.node in self.typed_returns:
            return
        expr = n.named_children[0] if n.named_children else None
        if expr is None or expr.type == "comment":
            return
        p = n.parent
        while p is not None and p.type not in _FUNCTION_TYPES:
            p = p.parent
        if p is None or p.type not in ("function_definition", "method_declaration"):
            return  # a closure's return
        d: TypeDesc | None
        created = expr.named_children[0] if expr.named_children else None
        if (
            expr.type == "object_creation_expression"
            and created is not None
            and self.t(created).lower() == "static"
        ):
            d = Static() if self.cur_class() else None
        else:
            d = self.expr_desc(expr)
        if d is not None:
            self.pending_returns.append((self.scope_index(), sc.node, d))

    def on_instanceof(self, n: Node) -> None:
        """``$x instanceof C``: ``$x`` is a C where the test holds."""
        var = n.child_by_field_name("left")
        cls = n.child_by_field_name("right")
        if var is None or cls is None or var.type != "variable_name":
            return
        if cls.type not in ("name", "qualified_name"):
            return
        d = self.class_desc(cls)
        if isinstance(d, Cls):
            self.narrow(n, self.t(var)[1:], d)
            # ``instanceof C`` names the class: a reference to it
            self.raw_refs.append(
                ClassConstRef(self.scope_index(), cls.start_point[0] + 1, d, "class")
            )

    def on_class_test(self, n: Node) -> None:
        """``is_a($x, 'C')`` / ``is_subclass_of($x, C::class)``: like ``instanceof``."""
        args = n.child_by_field_name("arguments")
        if args is None or len(args.named_children) < 2:
            return
        a, b = (x.named_children[0] if x.named_children else None for x in args.named_children[:2])
        if a is None or b is None or a.type != "variable_name":
            return
        s = self.string_value(b)
        d: TypeDesc | None = None
        if s is not None:
            fq = self.resolve_class("\\" + s.lstrip("\\")) if s else None
            d = Cls(fq) if fq else None
        elif b.type == "class_constant_access_expression" and len(b.named_children) == 2:
            if self.t(b.named_children[1]).lower() == "class":
                d = self.class_desc(b.named_children[0])
        if isinstance(d, Cls):
            self.narrow(n, self.t(a)[1:], d)

    def narrow(self, test: Node, name: str, d: TypeDesc) -> None:
        """Bind ``$name`` to ``d`` where ``test`` holds: the rest of an ``&&`` chain, the
        ``if`` body or ternary branch it guards; negated, the ``else`` and, when the ``if``
        body leaves, the rest of the enclosing block."""
        sc = self.scope()
        node = test
        negated = False
        p = node.parent
        while p is not None:
            pt = p.type
            if pt == "parenthesized_expression":
                pass
            elif pt == "unary_op_expression" and self.t(p).lstrip().startswith("!"):
                negated = not negated
            elif pt == "binary_expression":
                op = p.child_by_field_name("operator")
                right = p.child_by_field_name("right")
                opt = self.t(op) if op is not None else ""
                if not negated and opt in _AND:
                    if right is not None and right.start_byte > node.start_byte:
                        self.bind(sc, name, [d], right.start_byte, _extent(right), True)
                elif not (negated and opt in _OR):
                    return
            elif pt in ("if_statement", "else_if_clause", "conditional_expression"):
                cond = p.child_by_field_name("condition")
                if cond is None or cond.start_byte != node.start_byte:
                    return
                body = p.child_by_field_name("body")
                if not negated:
                    if body is not None:
                        self.bind(sc, name, [d], body.start_byte, _extent(body), True)
                    return
                if pt == "conditional_expression":
                    alt = p.child_by_field_name("alternative")
                    if alt is not None:
                        self.bind(sc, name, [d], alt.start_byte, _extent(alt), True)
                    return
                for alt in p.children_by_field_name("alternative"):
                    if alt.type == "else_clause":
                        self.bind(sc, name, [d], alt.start_byte, _extent(alt), True)
                if body is not None and _leaves(body):
                    self.bind(sc, name, [d], p.end_byte, self.block_of(p), True)
                return
            else:
                return
            node = p
            p = p.parent

    def on_foreach(self, n: Node) -> None:
        """``foreach ($xs as $v)`` / ``($xs as $k => $v)``: ``$v`` is an element of ``$xs``."""
        kids = [c for c in n.named_children if c.type != "comment"]
        if len(kids) < 2:
            return
        src, val = kids[0], kids[1]
        if val.type == "pair":
            val = val.named_children[-1] if val.named_children else val
        if val.type == "by_ref":
            val = val.named_children[0] if val.named_children else val
        if val.type != "variable_name":
            return
        d = self.expr_desc(src)
        if d is not None:
            name = self.t(val)[1:]
            doc = self.doc_before_statement(n, name)
            self.bind(self.scope(), name, doc or [Elem(d)], val.end_byte, self.block_of(n))

    def on_catch(self, n: Node) -> None:
        """``catch (A | B $e)`` types ``$e``."""
        tnode = n.child_by_field_name("type")
        name = n.child_by_field_name("name")
        self.class_refs([tnode])  # the classes caught are named here
        if tnode is None or name is None:
            return
        descs: list[TypeDesc] = []
        for c in [tnode] if tnode.type != "type_list" else tnode.named_children:
            descs.extend(self.type_descs(c))
        if descs:
            sc = self.scope()
            self.bind(sc, self.t(name).lstrip("$"), descs, n.start_byte, self.block_of(n))


_FUNCTION_TYPES = frozenset(
    {"function_definition", "method_declaration", "anonymous_function", "arrow_function"}
)


def _extent(n: Node) -> tuple[int, int]:
    return n.start_byte, n.end_byte


def _leaves(body: Node) -> bool:
    """Whether a branch's last statement leaves it (return, throw, continue, break, exit)."""
    last = body
    if body.type in ("compound_statement", "colon_block"):
        stmts = [c for c in body.named_children if c.type != "comment"]
        if not stmts:
            return False
        last = stmts[-1]
    if last.type == "expression_statement" and last.named_children:
        last = last.named_children[0]
    if last.type == "function_call_expression":
        f = last.child_by_field_name("function")
        return f is not None and f.text is not None and f.text.lower() in (b"exit", b"die")
    return last.type in _EXITS

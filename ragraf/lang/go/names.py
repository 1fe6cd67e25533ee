"""Go names inside one file: scopes, bindings, and what a type, an expression or a callee
denotes, as far as the file alone can say.

A name of another package stays the import path it came through (``Pending(Denotes.
INSTANCE, (path, Name))``: an instance of type ``Name`` of the package at ``path``;
``Denotes.RETURN``: what calling ``path.Name`` returns), and a call of it a ``CallRef``
candidate ``@<path>#<Name>``, for ``ragraf.lang.go.link`` to resolve once every file is
known. A name of this package is final: ``Cls("<pkg>.<Type>")``, ``Func(("<pkg>.<Func>",))``
— even when another file of the package declares it.

Invariants a change must keep:
- Lookup is lexical and flow-insensitive: the function (or closure) scope, then the
  enclosing ones, then the file's package-level ``var`` / ``const``; several bindings of
  one name are a union. A predeclared type or function is never a corpus name unless the
  file binds it.
- Evaluation is bounded (``MAX_DEPTH``) and guarded against cycles (``x = x.next``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ragraf.kinds import BindKind, CalleeKind, Denotes
from ragraf.lang import tstree
from ragraf.lang.go.builtins import FUNCTIONS, TYPES
from ragraf.lang.tstree import DYNAMIC, Callee
from ragraf.lang.typedesc import Call, Cls, Func, Pending, Prop, TypeDesc

if TYPE_CHECKING:
    from tree_sitter import Node

#: how deep an expression is evaluated
MAX_DEPTH = 8


class Bind(NamedTuple):
    """What a name is bound to (``BindKind``): an expression (``expr``), a descriptor
    (``desc``) or nothing known (``NONE``)."""

    kind: str  # ragraf.kinds.BindKind
    desc: TypeDesc | None = None
    expr: tuple[Node, Scope] | None = None


UNKNOWN = Bind(BindKind.NONE)


class Scope:
    """The package (file) scope or a function / closure scope."""

    __slots__ = ("kind", "node", "parent", "binds", "types")

    def __init__(self, kind: str, node: int, parent: Scope | None) -> None:
        self.kind = kind  # a NodeKind: PACKAGE, FUNCTION
        self.node = node
        self.parent = parent
        self.binds: dict[str, list[Bind]] = {}
        self.types: set[str] = set()  # type parameters (never a corpus type)

    def bind(self, name: str, b: Bind) -> None:
        if name != "_":
            self.binds.setdefault(name, []).append(b)


lookup = tstree.lookup


def type_param(scope: Scope, name: str) -> bool:
    sc: Scope | None = scope
    while sc is not None:
        if name in sc.types:
            return True
        sc = sc.parent
    return False


_union = tstree.union


class Names:
    """Evaluation of types and expressions over the file's scopes."""

    src: bytes
    pkg: str  # the fqn prefix of this package's declarations
    imports: dict[str, str]  # local package name -> import path
    file_types: set[str]  # type names the file declares
    file_funcs: set[str]  # function names the file declares

    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    def is_import(self, name: str, scope: Scope) -> bool:
        return name in self.imports and lookup(scope, name) is None

    # -- types ---------------------------------------------------------------------------
    def type_desc(self, n: Node | None, scope: Scope, depth: int = 0) -> TypeDesc | None:
        """The class-like a type expression names an instance of (``T``, ``*T``,
        ``pkg.T``, ``T[int]``); None for builtin, composite or unnamed types."""
        if n is None or depth > MAX_DEPTH:
            return None
        ty = n.type
        if ty == "type_identifier":
            name = self.t(n)
            if type_param(scope, name) or (name in TYPES and name not in self.file_types):
                return None
            return Cls(f"{self.pkg}.{name}")
        if ty == "qualified_type":
            pkg, leaf = n.child_by_field_name("package"), n.child_by_field_name("name")
            if pkg is None or leaf is None:
                return None
            path = self.imports.get(self.t(pkg))
            return Pending(Denotes.INSTANCE, (path, self.t(leaf))) if path else None
        if ty in ("pointer_type", "parenthesized_type") and n.named_child_count:
            return self.type_desc(n.named_children[0], scope, depth + 1)
        if ty == "generic_type":
            return self.type_desc(n.child_by_field_name("type"), scope, depth + 1)
        return None

    def type_name(self, n: Node | None, scope: Scope) -> str | None:
        """A named type as a class-like fqn for ``extends`` (embedding): ``<pkg>.T``, or
        ``?<path>#T`` for ``link`` to resolve."""
        d = self.type_desc(n, scope)
        if isinstance(d, Pending):
            return f"?{d.names[0]}#{d.names[1]}"
        return d.fqn if isinstance(d, Cls) else None

    # -- what a call calls -----------------------------------------------------------------
    def callee(self, fn: Node, scope: Scope, depth: int = 0) -> Callee:
        """What ``fn(...)`` calls: a function of the package (``name``: its fqn), a name of
        another package (``path``, ``name``), a builtin, a method (``receiver``: its
        descriptor or None), a conversion (``receiver``: the type) or something dynamic
        (``CalleeKind``)."""
        ty = fn.type
        if ty == "identifier":
            name = self.t(fn)
            if lookup(scope, name):
                return DYNAMIC
            if name in FUNCTIONS and name not in self.file_funcs:
                return Callee(CalleeKind.BUILTIN, name)
            if name in self.file_types or (name in TYPES):
                d = self.type_desc_of_name(name, scope)
                return Callee(CalleeKind.TYPE, receiver=d)
            return Callee(CalleeKind.FUNCTION, f"{self.pkg}.{name}")
        if ty == "selector_expression":
            obj, field = fn.child_by_field_name("operand"), fn.child_by_field_name("field")
            if obj is None or field is None:
                return DYNAMIC
            m = self.t(field)
            if obj.type == "identifier" and self.is_import(self.t(obj), scope):
                return Callee(CalleeKind.QUALIFIED, m, path=self.imports[self.t(obj)])
            return Callee(CalleeKind.METHOD, m, self.desc(obj, scope, depth + 1))
        if ty == "parenthesized_expression" and fn.named_child_count == 1:
            inner = fn.named_children[0]
            if inner.type in ("pointer_type", "type_identifier", "qualified_type"):
                return Callee(CalleeKind.TYPE, receiver=self.type_desc(inner, scope))
            return self.callee(inner, scope, depth + 1)
        if ty in ("generic_type", "qualified_type", "pointer_type", "array_type"):
            return Callee(CalleeKind.TYPE, receiver=self.type_desc(fn, scope))
        if ty == "index_expression":  # a generic function instantiated: F[int](x)
            operand = fn.child_by_field_name("operand")
            if operand is not None:
                return self.callee(operand, scope, depth + 1)
        return DYNAMIC

    def type_desc_of_name(self, name: str, scope: Scope) -> TypeDesc | None:
        if type_param(scope, name) or (name in TYPES and name not in self.file_types):
            return None
        return Cls(f"{self.pkg}.{name}")

    # -- what an expression evaluates to ---------------------------------------------------
    def desc(self, expr: Node | None, scope: Scope, depth: int = 0) -> TypeDesc | None:
        """The type descriptor of an expression's value (None: unknown)."""
        if expr is None or depth > MAX_DEPTH:
            return None
        ty = expr.type
        if ty == "identifier":
            binds = lookup(scope, self.t(expr))
            if not binds:
                return None
            return _union([d for b in binds if (d := self.bind_desc(b, depth + 1)) is not None])
        if ty == "composite_literal":
            return self.type_desc(expr.child_by_field_name("type"), scope)
        if ty == "unary_expression":
            op = expr.child_by_field_name("operator")
            if op is not None and self.t(op) in ("&", "*"):
                return self.desc(expr.child_by_field_name("operand"), scope, depth + 1)
            return None
        if ty == "parenthesized_expression" and expr.named_child_count:
            return self.desc(expr.named_children[0], scope, depth + 1)
        if ty == "type_assertion_expression":
            return self.type_desc(expr.child_by_field_name("type"), scope)
        if ty == "selector_expression":
            obj, field = expr.child_by_field_name("operand"), expr.child_by_field_name("field")
            if obj is None or field is None:
                return None
            if obj.type == "identifier" and self.is_import(self.t(obj), scope):
                return None  # a package-level variable of another package
            r = self.desc(obj, scope, depth + 1)
            return Prop(r, self.t(field)) if r is not None else None
        if ty == "call_expression":
            fn = expr.child_by_field_name("function")
            if fn is None:
                return None
            c = self.callee(fn, scope, depth + 1)
            kind = c.kind
            if kind == CalleeKind.FUNCTION:
                return Func((c.name,))
            if kind == CalleeKind.QUALIFIED:
                return Pending(Denotes.RETURN, (c.path, c.name))
            if kind == CalleeKind.TYPE:
                return c.receiver
            if kind == CalleeKind.METHOD and c.receiver is not None:
                return Call(c.receiver, c.name)
            if kind == CalleeKind.BUILTIN and c.name == "new":
                args = expr.child_by_field_name("arguments")
                if args is not None and args.named_child_count:
                    return self.type_desc(args.named_children[0], scope)
            return None
        return None

    def bind_desc(self, b: Bind, depth: int) -> TypeDesc | None:
        if b.kind == BindKind.DESC:
            return b.desc
        if b.kind == BindKind.EXPR and b.expr is not None:
            node, sc = b.expr
            return self.desc(node, sc, depth)
        return None

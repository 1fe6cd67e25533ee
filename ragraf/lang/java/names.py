"""Java names inside one file: scopes, bindings, and what a type name, an expression or a
method invocation denotes, as far as the file alone can say.

A simple type name the file does not declare stays a list of candidates in the order
Java looks them up (``Pending(Denotes.INSTANCE, (fqn, ...))``: single-type import, then the file's package,
then each on-demand import, then ``java.lang``) for ``ragraf.lang.java.link`` to pick the
first one a corpus class has once every file is known; a type the file declares (a
member class of an enclosing one first) is final: ``Cls(fqn)``.

Invariants a change must keep:
- Lookup is lexical and flow-insensitive: the method (lambda, initializer) scope and the
  enclosing ones, then a field of an enclosing class the file declares, then a type
  name; an unknown lower-case name is a field the class inherits (``Prop(this,
  name)``), an unknown capitalised one a type.
- Evaluation is bounded (``MAX_DEPTH``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ragraf.kinds import BindKind, Denotes, NodeKind
from ragraf.lang import tstree
from ragraf.lang.typedesc import Call, Cls, Parent, Pending, Prop, TypeDesc

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_DEPTH = 8


class Bind(NamedTuple):
    """What a name is bound to (``BindKind``): an expression (``expr``), a descriptor
    (``desc``) or nothing known (``NONE``)."""

    kind: str  # ragraf.kinds.BindKind
    desc: TypeDesc | None = None
    expr: tuple[Node, Scope] | None = None


UNKNOWN = Bind(BindKind.NONE)

_PRIMITIVE = frozenset("byte short int long float double boolean char void".split())


class Scope:
    """A class body or a method / lambda / initializer scope."""

    __slots__ = ("kind", "node", "parent", "cls", "binds", "types", "fields", "methods")

    def __init__(self, kind: str, node: int, parent: Scope | None, cls: str) -> None:
        self.kind = kind  # a NodeKind: FILE, CLASS, METHOD
        self.node = node
        self.parent = parent
        self.cls = cls  # the innermost class fqn
        self.binds: dict[str, list[Bind]] = {}
        self.types: set[str] = set()  # type parameters
        self.fields: set[str] = set()  # a class scope: the fields it declares
        self.methods: set[str] = set()  # a class scope: the methods it declares

    def bind(self, name: str, b: Bind) -> None:
        self.binds.setdefault(name, []).append(b)


_union = tstree.union


class Names:
    src: bytes
    package: str
    single: dict[str, str]  # simple name -> imported fqn
    on_demand: list[str]  # packages (or classes) imported with .*
    static_single: dict[str, str]  # static member name -> class fqn
    static_on_demand: list[str]  # classes imported with static .*
    declared: dict[str, str]  # class fqn -> simple name (every class the file declares)

    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    # -- types ---------------------------------------------------------------------------
    def simple_type(self, name: str, scope: Scope | None) -> TypeDesc | None:
        sc = scope
        while sc is not None:
            if name in sc.types:
                return None
            if sc.kind == NodeKind.CLASS:
                if f"{sc.cls}.{name}" in self.declared:
                    return Cls(f"{sc.cls}.{name}")
                if sc.cls.rsplit(".", 1)[-1] == name and sc.cls in self.declared:
                    return Cls(sc.cls)
            sc = sc.parent
        top = f"{self.package}.{name}" if self.package else name
        if top in self.declared:
            return Cls(top)
        if name in self.single:
            return _candidates((self.single[name],))
        cands = [top, *(f"{p}.{name}" for p in self.on_demand), f"java.lang.{name}"]
        return _candidates(tuple(dict.fromkeys(cands)))

    def type_desc(self, n: Node | None, scope: Scope | None, depth: int = 0) -> TypeDesc | None:
        """The class a type names an instance of (generic arguments dropped); None for a
        primitive, an array, a type variable or ``var``."""
        if n is None or depth > MAX_DEPTH:
            return None
        ty = n.type
        if ty == "type_identifier":
            name = self.t(n)
            if name == "var" or name in _PRIMITIVE:
                return None
            return self.simple_type(name, scope)
        if ty == "generic_type" and n.named_child_count:
            return self.type_desc(n.named_children[0], scope, depth + 1)
        if ty == "scoped_type_identifier":
            parts = [self.t(c) for c in n.named_children if c.type == "type_identifier"]
            if not parts:
                return None
            head = self.simple_type(parts[0], scope) if len(parts) > 1 else None
            if isinstance(head, Cls):
                return Cls(".".join([head.fqn, *parts[1:]]))
            if isinstance(head, Pending) and len(head.names) == 1 and parts[0] in self.single:
                return _candidates((".".join([head.names[0], *parts[1:]]),))
            dotted = self.t(n).replace(" ", "")
            return _candidates((dotted,))
        if ty == "annotated_type" and n.named_child_count:
            return self.type_desc(n.named_children[-1], scope, depth + 1)
        return None

    def type_name(self, n: Node, scope: Scope | None) -> str | None:
        """A type as an ``extends`` / ``implements`` entry: a fqn, or ``?c1|c2`` for
        ``link`` to pick from."""
        d = self.type_desc(n, scope)
        if isinstance(d, Cls):
            return d.fqn
        if isinstance(d, Pending):
            return "?" + "|".join(d.names)
        return None

    # -- expressions -----------------------------------------------------------------------
    def field_owner(self, scope: Scope, name: str) -> str | None:
        sc: Scope | None = scope
        while sc is not None:
            if sc.kind == NodeKind.CLASS and name in sc.fields:
                return sc.cls
            sc = sc.parent
        return None

    def name_desc(self, name: str, scope: Scope, depth: int) -> TypeDesc | None:
        binds = tstree.lookup(scope, name)
        if binds:
            return _union([d for b in binds if (d := self.bind_desc(b, depth + 1)) is not None])
        owner = self.field_owner(scope, name)
        if owner is not None:
            return Prop(Cls(owner), name)
        if name[:1].isupper():
            return self.simple_type(name, scope)
        return Prop(Cls(scope.cls), name) if scope.cls else None

    def desc(self, expr: Node | None, scope: Scope, depth: int = 0) -> TypeDesc | None:
        if expr is None or depth > MAX_DEPTH:
            return None
        ty = expr.type
        if ty == "identifier":
            return self.name_desc(self.t(expr), scope, depth)
        if ty == "this":
            return Cls(scope.cls)
        if ty == "super":
            return Parent(scope.cls)
        if ty == "string_literal":
            return Cls("java.lang.String")
        if ty == "object_creation_expression":
            return self.type_desc(expr.child_by_field_name("type"), scope)
        if ty == "cast_expression":
            return self.type_desc(expr.child_by_field_name("type"), scope)
        if ty == "parenthesized_expression" and expr.named_child_count:
            return self.desc(expr.named_children[0], scope, depth + 1)
        if ty == "ternary_expression":
            parts = [
                expr.child_by_field_name("consequence"),
                expr.child_by_field_name("alternative"),
            ]
            return _union([d for p in parts if (d := self.desc(p, scope, depth + 1)) is not None])
        if ty == "field_access":
            obj, field = expr.child_by_field_name("object"), expr.child_by_field_name("field")
            if obj is None or field is None:
                return None
            r = self.desc(obj, scope, depth + 1)
            return Prop(r, self.t(field)) if r is not None else None
        if ty == "method_invocation":
            r = self.receiver(expr, scope, depth + 1)
            name = expr.child_by_field_name("name")
            if r is None or name is None:
                return None
            args = expr.child_by_field_name("arguments")
            n = args.named_child_count if args is not None else 0
            return Call(r, f"{self.t(name)}({n})")
        return None

    def bind_desc(self, b: Bind, depth: int) -> TypeDesc | None:
        if b.kind == BindKind.DESC:
            return b.desc
        if b.kind == BindKind.EXPR and b.expr is not None:
            node, sc = b.expr
            return self.desc(node, sc, depth)
        return None

    def receiver(self, call: Node, scope: Scope, depth: int = 0) -> TypeDesc | None:
        """What a method invocation is called on: its object, or for ``m()`` the innermost
        enclosing class the file declares ``m`` in (else a static import of it, else the
        class itself: an inherited method)."""
        obj = call.child_by_field_name("object")
        if obj is not None:
            return self.desc(obj, scope, depth)
        name_node = call.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else ""
        sc: Scope | None = scope
        while sc is not None:
            if sc.kind == NodeKind.CLASS and name in sc.methods:
                return Cls(sc.cls)
            sc = sc.parent
        if name in self.static_single:
            return _candidates((self.static_single[name],))
        if self.static_on_demand and not scope.cls:
            return _candidates(tuple(self.static_on_demand))
        return Cls(scope.cls) if scope.cls else None


def _candidates(cands: tuple[str, ...]) -> Pending:
    """An instance of the first of ``cands`` a corpus class has (``link`` picks it)."""
    return Pending(Denotes.INSTANCE, cands)

"""JavaScript / TypeScript names inside one file: scopes, bindings, and what a name, an
expression or a type annotation denotes, as far as the file alone can say.

A name bound by an import (``import``, ``require``) is not followed here: the file alone
cannot see the module. It stays an import key (``imp_key(spec, names)``: the module
specifier as written and the names taken from it, ``default``, ``*`` for a namespace,
``=`` for what ``require`` returns, then members) inside descriptors ``Pending(use,
(key,))`` (``Denotes.INSTANCE``: an instance of what the key names, ``RETURN``: what
calling it returns, ``VALUE``: the value itself), which ``ragraf.lang.js.link`` resolves
once every file is known. Names bound in the file resolve to final fqns.

Invariants a change must keep:
- Lookup is lexical and flow-insensitive: the scope itself, then enclosing function and
  module scopes (class bodies bind nothing; members go through ``this``); several
  bindings of one name are a union; a parameter or local shadows an outer name even
  when nothing is known of its value.
- Evaluation is bounded (``MAX_DEPTH``) and guarded against cycles (``x = x.next``).
- fqns: ``<module>.<class>.<method>``, ``<module>.<function>``, ``<module>.<object>.<key>``
  for object-literal methods; the module is the path without its extension (``module_of``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ragraf.kinds import BindKind, CalleeKind, Denotes, NodeKind
from ragraf.lang.facts import ClassDecl
from ragraf.lang.js.builtins import GLOBAL, GLOBALS, LITERAL_TYPES
from ragraf.lang.tstree import DYNAMIC, Callee
from ragraf.lang.typedesc import Call, Cls, Func, Parent, Pending, Prop, TypeDesc, any_of

if TYPE_CHECKING:
    from tree_sitter import Node

#: how deep an expression is evaluated
MAX_DEPTH = 8
#: a name bound more often than this in one scope is not evaluated (unknown)
MAX_BINDINGS = 16
#: separates the specifier from the names in an import key (no identifier or path has it)
IMPORT_MARK = "\x1f"
#: file suffixes of the languages of this package, longest first (``.d.ts`` before ``.ts``)
SUFFIXES = (
    ".d.ts",
    ".d.mts",
    ".d.cts",
    ".ts",
    ".tsx",
    ".mts",
    ".cts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
)
#: expression wrappers that do not change the value (TS casts, parentheses, await)
_TRANSPARENT = frozenset(
    {
        "parenthesized_expression",
        "await_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
        "type_assertion",
    }
)


class Bind(NamedTuple):
    """What a name is bound to (``BindKind``): a class, function, object literal (its
    methods are ``<fqn>.<key>``) or import key (``name``), an expression (``expr``), a
    descriptor (``desc``), a parameter or local of unknown value (``LOCAL``); an export
    may also be ``STAR`` (``name``: the specifier of ``export * from``)."""

    kind: str  # ragraf.kinds.BindKind
    name: str = ""
    desc: TypeDesc | None = None
    expr: tuple[Node, Scope] | None = None


LOCAL = Bind(BindKind.LOCAL)
#: the kinds of binding a call goes through before a plain value
_DECLARED = (BindKind.CLASS, BindKind.FUNCTION, BindKind.OBJECT, BindKind.IMPORT)


def module_of(path: str) -> str:
    """The module name of a file: its path without the extension (``src/a/b.ts`` ->
    ``src/a/b``; ``x.d.ts`` -> ``x.d``)."""
    for suffix in (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def imp_key(spec: str, names: tuple[str, ...] | list[str]) -> str:
    return IMPORT_MARK + spec + IMPORT_MARK + ".".join(names)


def parse_imp(key: str) -> tuple[str, list[str]] | None:
    """(specifier, names) of an import key; None: not one."""
    if not key.startswith(IMPORT_MARK):
        return None
    spec, _, names = key[1:].partition(IMPORT_MARK)
    return spec, names.split(".") if names else []


def imp_extend(key: str, *more: str) -> str:
    got = parse_imp(key)
    if got is None:
        return key
    return imp_key(got[0], [*got[1], *more])


class Scope:
    """A module, class or function scope: its bindings and the node its refs belong to."""

    __slots__ = ("kind", "node", "parent", "fqn", "cls", "binds", "this_cls", "arrow")

    def __init__(
        self,
        kind: str,
        node: int,
        parent: Scope | None,
        fqn: str,
        cls: str | None = None,
        arrow: bool = False,
    ) -> None:
        self.kind = kind  # a NodeKind: MODULE, CLASS, FUNCTION
        self.node = node  # the node refs in it belong to (an anonymous function's owner's)
        self.parent = parent
        self.fqn = fqn
        self.cls = cls  # the class of a method (this, super)
        self.arrow = arrow  # an arrow function keeps the `this` around it
        self.binds: dict[str, list[Bind]] = {}
        #: the class ``this`` is in this scope (None: unknown)
        self.this_cls: str | None = cls

    def bind(self, name: str, b: Bind) -> None:
        self.binds.setdefault(name, []).append(b)

    def this_class(self) -> str | None:
        sc: Scope | None = self
        while sc is not None:
            if sc.kind == NodeKind.FUNCTION and not sc.arrow:
                return sc.this_cls
            if sc.kind == NodeKind.MODULE:
                return None
            sc = sc.parent
        return None


def lookup(scope: Scope, name: str) -> list[Bind] | None:
    sc: Scope | None = scope
    while sc is not None:
        if sc.kind != NodeKind.CLASS:
            got = sc.binds.get(name)
            if got:
                return got
        sc = sc.parent
    return None


#: what calling a name bound so calls (any other binding: a call of a value, DYNAMIC)
_CALLEE_OF_BIND: dict[str, CalleeKind] = {
    BindKind.CLASS: CalleeKind.CLASS,
    BindKind.FUNCTION: CalleeKind.FUNCTION,
    BindKind.IMPORT: CalleeKind.IMPORT,
}


def _called(b: Bind) -> Callee:
    """The callee of a call of the name bound by ``b``."""
    kind = _CALLEE_OF_BIND.get(b.kind)
    return Callee(kind, b.name) if kind is not None else DYNAMIC


def _pick(binds: list[Bind]) -> Bind:
    """The binding a call goes through: a declaration or import before a plain value."""
    for b in binds:
        if b.kind in _DECLARED:
            return b
    return binds[0]


union = any_of


class Names:
    """Evaluation of names, expressions and type annotations over the file's scopes."""

    src: bytes
    path: str
    #: object fqn -> the class-like its member functions are methods of
    objects: dict[str, ClassDecl]
    #: class fqn -> its declaration
    decls: dict[str, ClassDecl]
    #: object-literal fqn -> its member keys that are methods
    obj_members: dict[str, set[str]]
    #: object-literal fqn -> key -> the node its value is (``{a, b: c}``) and its scope
    obj_values: dict[str, dict[str, tuple[Node, Scope]]]
    #: (node span, kind, scope) -> its descriptor (``desc``)
    desc_memo: dict[tuple[int, int, int, int], TypeDesc | None]

    def class_like(self, fqn: str) -> bool:
        """Whether a function or object of the file is a class-like (an ES5 constructor,
        an object or function object with methods)."""
        return fqn in self.objects or fqn in self.decls

    def own_spec(self) -> str:
        """The specifier this file's module is imported by from its own folder."""
        return "./" + self.path.rsplit("/", 1)[-1]

    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    def strip(self, expr: Node) -> Node:
        while expr.type in _TRANSPARENT and expr.named_child_count:
            inner = expr.named_children[0] if expr.type != "await_expression" else None
            if inner is None:
                inner = expr.named_children[-1]
            expr = inner
        return expr

    # -- import keys through member chains ---------------------------------------------
    def imported(self, expr: Node, scope: Scope) -> str | None:
        """``a.b.c`` whose root ``a`` is bound by an import: the import key it denotes."""
        expr = self.strip(expr)
        if expr.type == "identifier":
            binds = lookup(scope, self.t(expr))
            if binds:
                b = _pick(binds)
                if b.kind == BindKind.IMPORT:
                    return b.name
            return None
        if expr.type == "member_expression":
            obj, prop = expr.child_by_field_name("object"), expr.child_by_field_name("property")
            if obj is None or prop is None or prop.type != "property_identifier":
                return None
            base = self.imported(obj, scope)
            return imp_extend(base, self.t(prop)) if base else None
        if expr.type == "call_expression":
            req = self.require_spec(expr)
            if req is not None:
                return imp_key(req, ["="])
        return None

    def require_spec(self, call: Node) -> str | None:
        """``require('x')`` -> ``'x'``."""
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "identifier" or self.t(fn) != "require":
            return None
        args = call.child_by_field_name("arguments")
        if args is None or args.named_child_count != 1:
            return None
        return self.string_value(args.named_children[0])

    def string_value(self, n: Node | None) -> str | None:
        if n is None or n.type not in ("string", "template_string"):
            return None
        parts = []
        for c in n.named_children:
            if c.type == "string_fragment":
                parts.append(self.t(c))
            elif c.type == "escape_sequence":
                parts.append(self.t(c)[1:])
            else:
                return None  # a template with substitutions
        return "".join(parts)

    # -- what a call calls ---------------------------------------------------------------
    def callee(self, fn: Node, scope: Scope, depth: int = 0) -> Callee:
        """What ``fn(...)`` calls: a function or class (``name``: its fqn), an import key,
        a global or unbound name, a method (``receiver``: its descriptor or None) or
        something dynamic (``CalleeKind``)."""
        fn = self.strip(fn)
        if fn.type == "identifier":
            name = self.t(fn)
            binds = lookup(scope, name)
            if not binds:
                kind = CalleeKind.GLOBAL if name in GLOBALS else CalleeKind.UNBOUND
                return Callee(kind, name)
            return _called(_pick(binds))
        if fn.type == "member_expression":
            obj, prop = fn.child_by_field_name("object"), fn.child_by_field_name("property")
            if obj is None or prop is None or prop.type != "property_identifier":
                return DYNAMIC
            m = self.t(prop)
            base = self.imported(obj, scope)
            if base:
                return Callee(CalleeKind.IMPORT, imp_extend(base, m))
            obj = self.strip(obj)
            if obj.type == "super":
                cls = scope.this_class()
                return Callee(CalleeKind.METHOD, m, Parent(cls)) if cls else DYNAMIC
            if obj.type == "identifier":
                binds = lookup(scope, self.t(obj))
                if binds:
                    b = _pick(binds)
                    if b.kind == BindKind.CLASS:
                        return Callee(CalleeKind.METHOD, m, Cls(b.name))
                    if b.kind == BindKind.OBJECT:
                        return self.member_callee(b.name, m, depth)
                elif self.t(obj) == "exports":
                    return Callee(CalleeKind.IMPORT, imp_key(self.own_spec(), ["=", m]))
                elif self.t(obj) in GLOBALS:
                    return Callee(CalleeKind.GLOBAL, f"{self.t(obj)}.{m}")
            elif self.t(obj) == "module.exports" and not lookup(scope, "module"):
                return Callee(CalleeKind.IMPORT, imp_key(self.own_spec(), ["=", m]))
            return Callee(CalleeKind.METHOD, m, self.desc(obj, scope, depth + 1))
        if fn.type == "super":
            cls = scope.this_class()
            return Callee(CalleeKind.METHOD, "constructor", Parent(cls)) if cls else DYNAMIC
        return DYNAMIC

    def member_callee(self, obj: str, m: str, depth: int) -> Callee:
        """What ``o.m(...)`` calls on the object literal ``obj`` (its fqn)."""
        if m in self.obj_members.get(obj, ()):
            return Callee(CalleeKind.FUNCTION, f"{obj}.{m}")
        held = self.obj_values.get(obj, {}).get(m)
        if held is None or depth >= MAX_DEPTH:
            return DYNAMIC
        node, sc = held
        if node.type != "shorthand_property_identifier":
            return self.callee(node, sc, depth + 1)
        got = lookup(sc, self.t(node))
        return _called(_pick(got)) if got else DYNAMIC

    # -- what an expression evaluates to ---------------------------------------------
    def desc(self, expr: Node | None, scope: Scope, depth: int = 0) -> TypeDesc | None:
        """The type descriptor of an expression's value (None: unknown). Memoised per
        (node, scope): a name assigned many times in minified code would otherwise be
        evaluated exponentially often; an evaluation under way counts as unknown (a
        cycle)."""
        if expr is None or depth > MAX_DEPTH:
            return None
        key = (expr.start_byte, expr.end_byte, expr.kind_id, id(scope))
        memo = self.desc_memo
        if key in memo:
            return memo[key]
        memo[key] = None
        got = self._desc(expr, scope, depth)
        memo[key] = got
        return got

    def _desc(self, expr: Node, scope: Scope, depth: int) -> TypeDesc | None:
        expr = self.strip(expr)
        ty = expr.type
        if ty in LITERAL_TYPES:
            return Cls(f"{GLOBAL}.{LITERAL_TYPES[ty]}")
        if ty == "this":
            cls = scope.this_class()
            return Cls(cls) if cls else None
        if ty == "identifier":
            binds = lookup(scope, self.t(expr))
            if not binds or len(binds) > MAX_BINDINGS:
                return None
            return union(
                [d for b in binds if (d := self.bind_desc(b, scope, depth + 1)) is not None]
            )
        if ty == "member_expression":
            key = self.imported(expr, scope)
            if key:
                return Pending(Denotes.VALUE, (key,))
            obj, prop = expr.child_by_field_name("object"), expr.child_by_field_name("property")
            if obj is None or prop is None or prop.type != "property_identifier":
                return None
            r = self.desc(obj, scope, depth + 1)
            return Prop(r, self.t(prop)) if r is not None else None
        if ty == "new_expression":
            ctor = expr.child_by_field_name("constructor")
            return self.instance(ctor, scope) if ctor is not None else None
        if ty == "call_expression":
            req = self.require_spec(expr)
            if req is not None:
                return Pending(Denotes.VALUE, (imp_key(req, ["="]),))
            fn = expr.child_by_field_name("function")
            if fn is None:
                return None
            c = self.callee(fn, scope, depth + 1)
            if c.kind == CalleeKind.FUNCTION:
                return Func((c.name,))
            if c.kind == CalleeKind.IMPORT:
                return Pending(Denotes.RETURN, (c.name,))
            if c.kind == CalleeKind.METHOD and c.receiver is not None:
                return Call(c.receiver, c.name)
            return None
        if ty == "ternary_expression":
            kids = [
                expr.child_by_field_name("consequence"),
                expr.child_by_field_name("alternative"),
            ]
            return union([d for k in kids if (d := self.desc(k, scope, depth + 1)) is not None])
        if ty == "binary_expression" and expr.named_child_count == 2:
            op = expr.child_by_field_name("operator")
            if op is not None and self.t(op) in ("||", "??", "&&"):
                return union(
                    [
                        d
                        for k in expr.named_children
                        if (d := self.desc(k, scope, depth + 1)) is not None
                    ]
                )
        return None

    def instance(self, ctor: Node, scope: Scope) -> TypeDesc | None:
        """What ``new <ctor>`` makes: a corpus class, or an imported one (resolved later)."""
        key = self.imported(ctor, scope)
        if key:
            return Pending(Denotes.INSTANCE, (key,))
        ctor = self.strip(ctor)
        if ctor.type == "identifier":
            name = self.t(ctor)
            binds = lookup(scope, name)
            if binds:
                b = _pick(binds)
                if b.kind == BindKind.CLASS or (
                    b.kind == BindKind.FUNCTION and self.class_like(b.name)
                ):
                    return Cls(b.name)  # a class, an ES5 constructor, a function object
                return None
            return Cls(f"{GLOBAL}.{name}")  # Map, Error, Promise...: outside the corpus
        return None

    def bind_desc(self, b: Bind, scope: Scope, depth: int) -> TypeDesc | None:
        kind = b.kind
        if kind == BindKind.DESC:
            return b.desc
        if kind == BindKind.EXPR and b.expr is not None:
            node, sc = b.expr
            return self.desc(node, sc, depth)
        if kind == BindKind.IMPORT:
            return Pending(Denotes.VALUE, (b.name,))
        if kind == BindKind.CLASS:
            return Cls(b.name)  # the class object: its static methods
        if kind in (BindKind.FUNCTION, BindKind.OBJECT) and self.class_like(b.name):
            return Cls(b.name)  # an object (a function object) with methods
        return None

    # -- type annotations (TypeScript) ----------------------------------------------------
    def annotation(self, node: Node | None, scope: Scope, depth: int = 0) -> list[TypeDesc]:
        """The classes a type annotation names an instance of (unions included)."""
        if node is None or depth > MAX_DEPTH:
            return []
        ty = node.type
        if ty in ("type_annotation", "parenthesized_type", "readonly_type") or (ty == "union_type"):
            return [d for c in node.named_children for d in self.annotation(c, scope, depth + 1)]
        if ty == "type_identifier":
            return self.named_type(self.t(node), scope)
        if ty == "nested_type_identifier":
            parts = self.t(node).split(".")
            binds = lookup(scope, parts[0])
            if binds and _pick(binds).kind == BindKind.IMPORT:
                return [Pending(Denotes.INSTANCE, (imp_extend(_pick(binds).name, *parts[1:]),))]
            return []
        if ty == "generic_type":
            head = node.child_by_field_name("name") or (
                node.named_children[0] if node.named_child_count else None
            )
            return self.annotation(head, scope, depth + 1)
        if ty == "predefined_type":
            return [Cls(f"{GLOBAL}.{self.t(node)}")]
        if ty == "array_type":
            return [Cls(f"{GLOBAL}.Array")]
        return []

    def named_type(self, name: str, scope: Scope) -> list[TypeDesc]:
        binds = lookup(scope, name)
        if not binds:
            return [Cls(f"{GLOBAL}.{name}")] if name in GLOBALS else []
        b = _pick(binds)
        if b.kind == BindKind.CLASS:
            return [Cls(b.name)]
        if b.kind == BindKind.IMPORT:
            return [Pending(Denotes.INSTANCE, (b.name,))]
        return []

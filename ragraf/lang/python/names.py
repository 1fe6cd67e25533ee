"""Python names inside one file: scopes, bindings, and what a name, an expression or an
annotation denotes, as far as the file alone can say.

A name bound by an import is not followed here (the file alone cannot see the module):
it stays a dotted name (``Pending(Denotes.INSTANCE, ("pkg.mod.Foo",))``: an instance of
what ``pkg.mod.Foo`` names; ``RETURN``: what calling it returns; ``VALUE``: the object it
is; ``Holder(T)``: a ``ContextVar[T]``) that ``ragraf.lang.python.link`` resolves once
every file is known. Names bound in the file resolve to final fqns (``Cls(fqn)``,
``Func((fqn,))``).

Invariants a change must keep:
- Lookup follows Python's rules, flow-insensitively: the scope itself, then enclosing
  function scopes (a class body is seen only from itself, never from its methods),
  then the module, then builtins; several bindings of one name are a union.
- Evaluation is bounded (``MAX_DEPTH``) and guarded against cycles (``x = x.next``).
- fqns are dotted: ``<module>.<class>.<method>``, ``<module>.<function>.<nested>``; the
  module name comes from the path alone (``module_of``: the import path, ``src`` layout
  included).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ragraf.kinds import BindKind, CalleeKind, Denotes, NodeKind
from ragraf.lang import tstree
from ragraf.lang.python.builtins import BUILTINS, BUILTINS_MODULE, LITERAL_TYPES
from ragraf.lang.tstree import DYNAMIC, Callee
from ragraf.lang.typedesc import AnyOf, Call, Cls, Func, Holder, Parent, Pending, Prop, TypeDesc

if TYPE_CHECKING:
    from tree_sitter import Node

#: how deep an expression is evaluated
MAX_DEPTH = 8
#: builtins whose call returns an instance of themselves
BUILTIN_TYPES = frozenset(
    "str int float bool list dict set frozenset tuple bytes bytearray object range enumerate"
    " zip map filter reversed memoryview complex slice type".split()
)
_UNION = frozenset({"Optional", "Union"})
#: ``contextvars.ContextVar[T]``: a ``Holder(T)`` whose ``get()`` is a T (``link``)
CONTEXT_VAR = "ContextVar"
_DOTTED = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*")


class Bind(NamedTuple):
    """What a name is bound to (``BindKind``): a class or function (``name``: its fqn),
    an import (``name``: the dotted name), an expression or an annotation (``expr``), a
    descriptor (``desc``), a method's ``self`` or a classmethod's ``cls`` (``name``: the
    class)."""

    kind: str  # ragraf.kinds.BindKind
    name: str = ""
    desc: TypeDesc | None = None
    expr: tuple[Node, Scope] | None = None


#: the folder of the ``src`` layout: the packages below it are imported without it
SRC_ROOT = "src"


def module_of(path: str) -> str:
    """The dotted module name of a file by its path, as it is imported: ``a/b/c.py`` ->
    ``a.b.c``, ``a/b/__init__.py`` -> ``a.b`` (the package); below a ``src`` folder (the
    ``src`` layout, any depth: ``src/requests/sessions.py``,
    ``examples/celery/src/task_app/tasks.py``) the path starts after the last one
    (``requests.sessions``), as installing the project puts that folder on ``sys.path``."""
    stem = path[:-3] if path.endswith(".py") else path
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    parts = stem.split("/")
    dirs = parts[:-1]
    if SRC_ROOT in dirs:
        parts = parts[len(dirs) - dirs[::-1].index(SRC_ROOT) :]
    return ".".join(parts)


def is_package(path: str) -> bool:
    return path == "__init__.py" or path.endswith("/__init__.py")


class Scope:
    """A module, class or function scope: its bindings, the node refs in it belong to."""

    __slots__ = ("kind", "node", "parent", "fqn", "cls", "binds", "star", "func_name")

    def __init__(
        self, kind: str, node: int, parent: Scope | None, fqn: str, cls: str | None = None
    ) -> None:
        self.kind = kind  # a NodeKind: MODULE, CLASS, FUNCTION
        self.node = node
        self.parent = parent
        self.fqn = fqn
        self.cls = cls  # the class of a method (self / cls / super())
        self.binds: dict[str, list[Bind]] = {}
        self.star: list[str] = []  # modules of `from m import *`
        self.func_name = ""

    def bind(self, name: str, b: Bind) -> None:
        self.binds.setdefault(name, []).append(b)

    def method_class(self) -> str | None:
        """The class of the innermost method around this scope (for ``super()``)."""
        sc: Scope | None = self
        while sc is not None:
            if sc.kind == NodeKind.FUNCTION and sc.cls:
                return sc.cls
            sc = sc.parent
        return None


def lookup(scope: Scope, name: str) -> list[Bind] | None:
    """The bindings of ``name`` seen from ``scope`` (Python's LEGB, class bodies skipped
    from inside their methods); None: unbound in the file."""
    sc: Scope | None = scope
    first = True
    while sc is not None:
        if first or sc.kind != NodeKind.CLASS:
            got = sc.binds.get(name)
            if got:
                return got
        first = False
        sc = sc.parent
    return None


def _pick(binds: list[Bind]) -> Bind:
    """The binding a call goes through: a definition or import before a plain value."""
    for b in binds:
        if b.kind in (BindKind.CLASS, BindKind.FUNCTION, BindKind.IMPORT):
            return b
    return binds[0]


_union = tstree.union


class Names:
    """Evaluation of names, expressions and annotations over the file's scopes."""

    src: bytes

    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    # -- dotted names through imports -----------------------------------------------
    def dotted(self, expr: Node, scope: Scope) -> str | None:
        """``a.b.c`` whose root ``a`` is bound by an import: the dotted name it denotes."""
        if expr.type == "identifier":
            binds = lookup(scope, self.t(expr))
            if binds:
                b = _pick(binds)
                if b.kind == BindKind.IMPORT:
                    return b.name
            return None
        if expr.type == "attribute":
            obj, attr = expr.child_by_field_name("object"), expr.child_by_field_name("attribute")
            if obj is None or attr is None:
                return None
            base = self.dotted(obj, scope)
            return f"{base}.{self.t(attr)}" if base else None
        return None

    # -- what a call calls ---------------------------------------------------------
    def callee(self, fn: Node, scope: Scope, depth: int = 0) -> Callee:
        """What ``fn(...)`` calls: a function or class (``name``: its fqn), a dotted name
        through an import, a builtin, a method (``receiver``: its descriptor or None), an
        unbound name or something dynamic (``CalleeKind``)."""
        if fn.type == "identifier":
            name = self.t(fn)
            binds = lookup(scope, name)
            if not binds:
                kind = CalleeKind.BUILTIN if name in BUILTINS else CalleeKind.UNBOUND
                return Callee(kind, name)
            b = _pick(binds)
            if b.kind in (BindKind.CLASS, BindKind.CLS):
                return Callee(CalleeKind.CLASS, b.name)
            if b.kind == BindKind.FUNCTION:
                return Callee(CalleeKind.FUNCTION, b.name)
            if b.kind == BindKind.IMPORT:
                return Callee(CalleeKind.EXTERNAL, b.name)
            return DYNAMIC
        if fn.type == "attribute":
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            if obj is None or attr is None:
                return DYNAMIC
            m = self.t(attr)
            base = self.dotted(obj, scope)
            if base:
                return Callee(CalleeKind.EXTERNAL, f"{base}.{m}")
            if obj.type == "identifier":
                binds = lookup(scope, self.t(obj))
                if binds and _pick(binds).kind == BindKind.CLASS:
                    return Callee(CalleeKind.METHOD, m, Cls(_pick(binds).name))
            return Callee(CalleeKind.METHOD, m, self.desc(obj, scope, depth + 1))
        if fn.type == "parenthesized_expression" and fn.named_child_count == 1:
            inner = fn.named_children[0]
            return self.callee(inner, scope, depth + 1)
        return DYNAMIC

    # -- what an expression evaluates to ---------------------------------------------
    def desc(self, expr: Node | None, scope: Scope, depth: int = 0) -> TypeDesc | None:
        """The type descriptor of an expression's value (None: unknown)."""
        if expr is None or depth > MAX_DEPTH:
            return None
        ty = expr.type
        if ty in LITERAL_TYPES:
            return Cls(f"{BUILTINS_MODULE}.{LITERAL_TYPES[ty]}")
        if ty == "identifier":
            name = self.t(expr)
            binds = lookup(scope, name)
            if not binds:
                return None
            out: list[TypeDesc] = []
            for b in binds:
                d = self.bind_desc(b, scope, depth + 1)
                if d is not None:
                    out.append(d)
            return _union(out)
        if ty == "attribute":
            base = self.dotted(expr, scope)
            if base:
                return Pending(Denotes.VALUE, (base,))
            obj, attr = expr.child_by_field_name("object"), expr.child_by_field_name("attribute")
            if obj is None or attr is None:
                return None
            r = self.desc(obj, scope, depth + 1)
            return Prop(r, self.t(attr)) if r is not None else None
        if ty == "call":
            fn = expr.child_by_field_name("function")
            if fn is None:
                return None
            return self.call_desc(self.callee(fn, scope, depth + 1), scope)
        if ty in ("await", "parenthesized_expression") and expr.named_child_count:
            return self.desc(expr.named_children[-1], scope, depth + 1)
        if ty in ("conditional_expression", "boolean_operator") and expr.named_child_count >= 2:
            kids = expr.named_children
            parts = (
                [kids[0], kids[2]]
                if ty == "conditional_expression" and len(kids) > 2
                else [
                    kids[0],
                    kids[-1],
                ]
            )
            return _union([d for p in parts if (d := self.desc(p, scope, depth + 1)) is not None])
        return None

    def call_desc(self, c: Callee, scope: Scope) -> TypeDesc | None:
        """What a call of ``c`` returns."""
        kind = c.kind
        if kind == CalleeKind.CLASS:
            return Cls(c.name)
        if kind == CalleeKind.FUNCTION:
            return Func((c.name,))
        if kind == CalleeKind.EXTERNAL:
            return Pending(Denotes.RETURN, (c.name,))
        if kind == CalleeKind.BUILTIN:
            if c.name == "super":
                cls = scope.method_class()
                return Parent(cls) if cls else None
            if c.name in BUILTIN_TYPES:
                return Cls(f"{BUILTINS_MODULE}.{c.name}")
            return None
        if kind == CalleeKind.METHOD and c.receiver is not None:
            return Call(c.receiver, c.name)
        return None

    def bind_desc(self, b: Bind, scope: Scope, depth: int) -> TypeDesc | None:
        kind = b.kind
        if kind in (BindKind.SELF, BindKind.CLS):
            return Cls(b.name)
        if kind == BindKind.DESC:
            return b.desc
        if kind == BindKind.EXPR and b.expr is not None:
            node, sc = b.expr
            return self.desc(node, sc, depth)
        if kind == BindKind.IMPORT:
            return Pending(Denotes.VALUE, (b.name,))
        if kind == BindKind.ANNOTATION and b.expr is not None:
            node, sc = b.expr
            got = self.annotation(node, sc)
            return got[0] if len(got) == 1 else (AnyOf(tuple(got)) if got else None)
        return None

    # -- annotations ---------------------------------------------------------------
    def annotation(self, node: Node | None, scope: Scope, depth: int = 0) -> list[TypeDesc]:
        """The classes an annotation names an instance of (``Optional[X]``, ``X | None``,
        ``Union[...]`` and string annotations included)."""
        if node is None or depth > MAX_DEPTH:
            return []
        ty = node.type
        if ty == "type":
            return [d for c in node.named_children for d in self.annotation(c, scope, depth + 1)]
        if ty == "identifier":
            return self._named(self.t(node), scope)
        if ty == "attribute":
            base = self.dotted(node, scope)
            return [Pending(Denotes.INSTANCE, (base,))] if base else []
        if ty == "string":
            txt = "".join(self.t(c) for c in node.named_children if c.type == "string_content")
            txt = txt.strip()
            if "|" in txt:
                return [d for part in txt.split("|") for d in self._text_ann(part.strip(), scope)]
            return self._text_ann(txt, scope)
        if ty == "binary_operator":
            return [d for c in node.named_children for d in self.annotation(c, scope, depth + 1)]
        if ty in ("generic_type", "subscript"):
            head = node.named_children[0] if node.named_child_count else None
            if head is None:
                return []
            name = self.t(head).rsplit(".", 1)[-1]
            if name == CONTEXT_VAR:  # ContextVar[T]: its get() returns a T
                return [
                    Holder(d)
                    for a in node.named_children[1:]
                    for x in (a.named_children if a.type == "type_parameter" else [a])
                    for d in self.annotation(x, scope, depth + 1)
                ]
            if name in _UNION:
                args = node.named_children[1:]
                out: list[TypeDesc] = []
                for a in args:
                    inner = a.named_children if a.type == "type_parameter" else [a]
                    for x in inner:
                        out.extend(self.annotation(x, scope, depth + 1))
                return out
            return self.annotation(head, scope, depth + 1)
        return []

    def _text_ann(self, txt: str, scope: Scope) -> list[TypeDesc]:
        m = re.fullmatch(r"(?:typing\.)?Optional\[(.+)\]", txt)
        if m:
            txt = m.group(1).strip()
        if not _DOTTED.fullmatch(txt):
            return []
        head, _, rest = txt.partition(".")
        if not rest:
            return self._named(head, scope)
        binds = lookup(scope, head)
        if binds and _pick(binds).kind == BindKind.IMPORT:
            return [Pending(Denotes.INSTANCE, (f"{_pick(binds).name}.{rest}",))]
        return []

    def _named(self, name: str, scope: Scope) -> list[TypeDesc]:
        binds = lookup(scope, name)
        if not binds:
            if name in BUILTINS and name != "None":
                return [Cls(f"{BUILTINS_MODULE}.{name}")]
            return []
        b = _pick(binds)
        if b.kind == BindKind.CLASS:
            return [Cls(b.name)]
        if b.kind == BindKind.IMPORT:
            return [Pending(Denotes.INSTANCE, (b.name,))]
        return []

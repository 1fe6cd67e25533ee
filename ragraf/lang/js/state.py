"""What one JavaScript / TypeScript extraction shares across its mixins (``walk``,
``declarations``, ``uses``, ``routes``): the file's facts so far, its scopes, what the
captures collected for ``finish``, and the small helpers over scopes and patterns.

Invariants a change must keep:
- Node 0 is the file, node 1 the module (``names.module_of``); the file contains every
  top-level declaration, the module defines them (``link``).
- ``stack`` holds ``(end byte, Scope)`` of the declarations the walk is in, innermost
  last; a capture past a scope's end closes it (``tstree.Walk.advance``).
- What waits for ``finish`` (calls, ``new``, returns, bases, property and parameter
  types, routes) keeps the scope it was met in, so it resolves over the final bindings
  of that scope.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.kinds import EdgeKind, NodeKind
from ragraf.lang import tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES
from ragraf.lang.facts import ClassDecl, ImportRef, LocalEdge, RouteRef, SqlRef, TypeDesc
from ragraf.lang.js.names import Bind, Names, Scope, module_of

if TYPE_CHECKING:
    from tree_sitter import Node

#: a JavaScript identifier (ASCII; ``$`` is a letter)
IDENT = re.compile(r"[A-Za-z_$][\w$]*")
#: a declaration's ``signature`` prop is cut here
MAX_SIGNATURE_CHARS = 300
#: function values: a declaration when their context names them, else anonymous
FUNC_VALUES = frozenset({"function_expression", "function", "generator_function", "arrow_function"})
#: class declarations and class expressions
CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})


def grammar_of(path: str) -> str:
    """The tree-sitter grammar of a file of this package's languages by its suffix."""
    low = path.lower()
    if low.endswith(".tsx"):
        return "tsx"
    if low.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


class State(tstree.Walk, Names):
    """One file's extraction state (see the module docstring)."""

    #: the module's scope (``Extractor.run`` opens it)
    top: Scope

    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        self.grammar = grammar_of(path)
        self.lang = "javascript" if self.grammar == "javascript" else self.grammar
        super().__init__(path, text, max_chunk_lines)
        self.module = module_of(path)
        self.decls: dict[str, ClassDecl] = {}  # class fqn -> decl
        #: object fqn -> the class-like its member functions are methods of (``object_decl``)
        self.objects: dict[str, ClassDecl] = {}
        #: start byte of a function -> its scope; a declared function's fqn -> its node
        self.fn_scopes: dict[int, Scope] = {}
        self.fn_nodes: dict[str, Node] = {}
        #: calls that may define a getter or method on their first argument
        #: (``Object.defineProperty(o, 'x', {get: function})``, ``defineGetter(o, 'x', fn)``)
        self.definers: list[tuple[Scope, Node]] = []
        #: node indexes of methods without a body (overload signatures, abstract methods)
        self.bodiless: set[int] = set()
        self.class_at: dict[int, Scope] = {}  # class_body start byte -> class scope
        self.obj_members: dict[str, set[str]] = {}
        self.obj_values: dict[str, dict[str, tuple[Node, Scope]]] = {}
        self.desc_memo: dict[tuple[int, int, int, int], TypeDesc | None] = {}
        #: start byte of a function expression that is a declaration -> its fqn
        self.named_values: dict[int, str] = {}
        self._obj_fqn: dict[int, str | None] = {}
        self.calls: list[tuple[Scope, Node]] = []
        self.news: list[tuple[Scope, Node]] = []
        self.jsx: list[tuple[Scope, Node]] = []
        self.returns: dict[int, list[tuple[Scope, Node]]] = {}
        self.pending_bases: list[tuple[ClassDecl, Scope, Node, str]] = []
        self.pending_props: list[tuple[ClassDecl, str, Scope, Node, bool]] = []
        self.pending_params: list[tuple[Scope, str, Node]] = []
        self.pending_rtypes: list[tuple[int, Scope, Node]] = []
        self.routes: list[tuple[Scope, Node, tuple[str, ...], str, Node]] = []
        self.decorated_routes: list[RouteRef] = []  # NestJS: @Controller / @Get methods
        self.exports: list[tuple[str, str]] = []  # (exported name, local name)
        self.export_binds: list[tuple[str, Bind]] = []  # (name, binding)
        self.imports: list[ImportRef] = []
        self.sql: list[SqlRef] = []
        self.sql_lines: dict[tuple[int, int], int] = {}

    def scope(self) -> Scope:
        return self.stack[-1][1] if self.stack else self.top

    def link(self, parent: Scope, idx: int, line: int) -> None:
        f = self.facts
        if parent.kind == NodeKind.MODULE:
            f.edges.append(LocalEdge(f.node_id(0), f.node_id(idx), EdgeKind.CONTAINS, line))
            f.edges.append(LocalEdge(f.node_id(1), f.node_id(idx), EdgeKind.DEFINES, line))
        else:
            f.edges.append(
                LocalEdge(f.node_id(parent.node), f.node_id(idx), EdgeKind.CONTAINS, line)
            )

    def signature(self, n: Node) -> str:
        body = n.child_by_field_name("body")
        end = body.start_byte if body is not None else n.end_byte
        sig = self.src[n.start_byte : end].decode("utf-8", "surrogateescape")
        return " ".join(sig.split()).rstrip(" {=>")[:MAX_SIGNATURE_CHARS]

    def prefix(self, scope: Scope) -> str:
        """The fqn a declaration in this scope is named under (an anonymous function's
        declarations are named under the declaration around it)."""
        return scope.fqn


def declaring(scope: Scope, name: str) -> Scope | None:
    """The innermost scope around ``scope`` that binds ``name`` (class bodies bind
    nothing): where an assignment to it binds (None: nowhere, a new global)."""
    sc: Scope | None = scope
    while sc is not None:
        if sc.kind != NodeKind.CLASS and name in sc.binds:
            return sc
        sc = sc.parent
    return None


def enclosing_function(scope: Scope) -> Scope | None:
    """The innermost named function around a scope (None: module level)."""
    sc: Scope | None = scope
    while sc is not None:
        if sc.kind == NodeKind.FUNCTION and (sc.parent is None or sc.node != sc.parent.node):
            return sc
        if sc.kind == NodeKind.MODULE:
            return None
        sc = sc.parent
    return None


def pattern_names(n: Node) -> list[Node]:
    """The identifiers a destructuring pattern binds."""
    out: list[Node] = []
    stack = [n]
    while stack:
        c = stack.pop()
        if c.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(c)
        elif c.type == "pair_pattern":
            v = c.child_by_field_name("value")
            if v is not None:
                stack.append(v)
        elif c.type == "assignment_pattern":
            v = c.child_by_field_name("left")
            if v is not None:
                stack.append(v)
        else:
            stack.extend(c.named_children)
    return out


def pattern_members(n: Node, names: Names) -> list[tuple[Node, str | None]]:
    """``{a, b: c}`` -> [(a, "a"), (c, "b")]; deeper patterns bind locals (member None)."""
    out: list[tuple[Node, str | None]] = []
    if n.type != "object_pattern":
        return [(i, None) for i in pattern_names(n)]
    for c in n.named_children:
        if c.type == "shorthand_property_identifier_pattern":
            out.append((c, names.t(c)))
        elif c.type == "pair_pattern":
            k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
            if k is not None and v is not None and v.type == "identifier":
                out.append((v, names.t(k)))
            elif v is not None:
                out.extend((i, None) for i in pattern_names(v))
        elif c.type == "object_assignment_pattern":
            left = c.child_by_field_name("left")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                out.append((left, names.t(left)))
        else:
            out.extend((i, None) for i in pattern_names(c))
    return out

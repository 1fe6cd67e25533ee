"""The Java walk: one query run over the file (``queries/java-tags.scm``), its captures
handled in document order, then ``finish`` resolves types and uses over the final scopes
(``ragraf.lang.java.names``) and turns what was collected into FileFacts.

Invariants a change must keep:
- Node 0 is the file; it contains the top-level classes, a class its members (methods,
  constructors, nested classes), a method its local and anonymous classes. There is no
  package node: a package spans files (its name is the fqn prefix).
- Every type is resolved in ``finish``, when every class of the file is known (a class
  may be used before it is declared).
- A call ``m()`` goes to the innermost enclosing class the file declares ``m`` in, else
  a static import of ``m``, else the class itself (an inherited method); ``x.m()`` to
  what ``x`` evaluates to (untyped: the linker's name match, derived).
- Comments go to ``texts`` (layer text), a ``/** */`` right above a declaration as its
  docblock; never into props (P6). A syntax error makes the file ``partial``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf.kinds import BindKind, EdgeKind, HandlerKind, ImportKind, NodeKind
from ragraf.lang import tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    ClassDecl,
    FileFacts,
    Handler,
    ImportRef,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
)
from ragraf.lang.java import flow
from ragraf.lang.java.flow import decl_start
from ragraf.lang.java.names import UNKNOWN, Bind, Names, Scope
from ragraf.lang.java.routes import Routes
from ragraf.lang.typedesc import Cls, Parent, Pending, Prop, TypeDesc

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_SIGNATURE_CHARS = 300
CONSTRUCTOR = "<init>"

_KINDS = {
    "class_declaration": NodeKind.CLASS,
    "interface_declaration": NodeKind.INTERFACE,
    "enum_declaration": NodeKind.ENUM,
    "record_declaration": NodeKind.CLASS,
    "annotation_type_declaration": NodeKind.INTERFACE,
}


class Extractor(tstree.Walk, Names):
    """One file's extraction: ``Extractor(path, text).run()`` -> FileFacts."""

    lang = "java"

    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        super().__init__(path, text, max_chunk_lines)
        self.package = ""
        self.single: dict[str, str] = {}
        self.on_demand: list[str] = []
        self.static_single: dict[str, str] = {}
        self.static_on_demand: list[str] = []
        self.declared: dict[str, str] = {}
        self.top = Scope(NodeKind.FILE, 0, None, "")
        self.decls: dict[int, ClassDecl] = {}  # class node idx -> decl
        self.route_prefix: dict[int, list[str]] = {}  # class node idx -> its mapping paths
        self.route_methods: dict[int, tuple[str, ...]] = {}  # class idx -> its mapping methods
        self.routes: Routes | None = None
        self.anon: dict[str, int] = {}  # class fqn -> anonymous classes so far
        self.pending_supers: list[tuple[ClassDecl, Scope, Node, str]] = []
        self.pending_props: list[tuple[ClassDecl, str, Scope, Node]] = []
        self.pending_binds: list[tuple[Scope, str, Node]] = []
        self.pending_returns: list[tuple[int, Scope, Node]] = []
        self.calls: list[tuple[Scope, Node]] = []
        self.news: list[tuple[Scope, Node]] = []
        self.ctor_calls: list[tuple[Scope, Node]] = []
        self.refs: list[Ref] = []
        self.components: dict[str, list[Node]] = {}  # record fqn -> its components
        self.decl_at: dict[int, int] = {}  # start byte of a method / constructor -> node index

    def run(self) -> FileFacts:
        root = tstree.parser("java").parse(self.src).root_node
        self.start(root)
        self.routes = Routes(self, root)
        handlers = {
            "definition.package": self.on_package,
            "definition.class": self.on_class,
            "definition.anonymous": self.on_anonymous,
            "definition.method": self.on_method,
            "definition.lambda": self.on_lambda,
            "reference.import": self.on_import,
            "reference.field": self.on_field,
            "reference.local": self.on_local,
            "reference.call": lambda n: self.calls.append((self.scope(), n)),
            "reference.new": lambda n: self.news.append((self.scope(), n)),
            "reference.constructor": lambda n: self.ctor_calls.append((self.scope(), n)),
            "text.comment": self.on_comment,
        }
        self.walk(tstree.query("java", "java-tags.scm"), root, handlers)
        self.finish()
        f = self.facts
        f.flows, too_big = flow.build(root, self.src, self.decl_at)
        if too_big:
            f.stats["flow_too_big"] = too_big
        return f

    def scope(self) -> Scope:
        return self.stack[-1][1] if self.stack else self.top

    def doc(self, n: Node, idx: int) -> None:
        prev = n.prev_named_sibling
        if prev is not None and prev.type == "block_comment" and self.t(prev).startswith("/**"):
            if prev.end_point[0] >= n.start_point[0] - 1:
                start, end = prev.start_point[0] + 1, prev.end_point[0] + 1
                self.docblock(start, end, self.t(prev), idx)

    # -- declarations -------------------------------------------------------------------
    def on_package(self, n: Node) -> None:
        for c in n.named_children:
            if c.type in ("scoped_identifier", "identifier"):
                self.package = self.t(c)

    def add_class(
        self, kind: str, name: str, fqn: str, n: Node, props: dict[str, Any], parent: Scope
    ) -> tuple[ClassDecl, Scope]:
        start = decl_start(n)
        idx = self.add_node(kind, name, fqn, n, props, start)
        self.edge(parent.node, idx, EdgeKind.CONTAINS, start.start_point[0] + 1)
        decl = ClassDecl(idx, fqn, kind)
        self.decls[idx] = decl
        self.facts.classes.append(decl)
        self.declared[fqn] = name
        scope = Scope(NodeKind.CLASS, idx, parent, fqn)
        self.doc(n, idx)
        return decl, scope

    def on_class(self, n: Node) -> None:
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return
        name = self.t(name_node)
        if parent.cls:
            fqn = f"{parent.cls}.{name}"
        else:
            fqn = f"{self.package}.{name}" if self.package else name
        props: dict[str, Any] = {"signature": tstree.signature(self.src, n, MAX_SIGNATURE_CHARS)}
        if n.type == "record_declaration":
            props["record"] = True
        elif n.type == "annotation_type_declaration":
            props["annotation"] = True
        kind = _KINDS[n.type]
        decl, scope = self.add_class(kind, name, fqn, n, props, parent)
        mods = next((c for c in n.named_children if c.type == "modifiers"), None)
        mapped = self.routes.mappings(mods) if self.routes is not None else []
        if mapped:  # @RequestMapping("/api") / @Path("/api"): the prefix of its methods' routes
            self.route_prefix[decl.node] = [p for p, _m, _l in mapped]
            self.route_methods[decl.node] = mapped[0][1]
        if mods is not None and "abstract" in self.t(mods).split():
            decl.abstract = True
        self.type_params(n, scope)
        sup = n.child_by_field_name("superclass")
        if sup is not None:
            for c in sup.named_children:
                self.pending_supers.append((decl, scope, c, EdgeKind.EXTENDS))
        for c in n.named_children:
            if c.type in ("super_interfaces", "extends_interfaces"):
                rel = EdgeKind.EXTENDS if kind == NodeKind.INTERFACE else EdgeKind.IMPLEMENTS
                for tl in c.named_children:
                    for t in tl.named_children if tl.type == "type_list" else [tl]:
                        self.pending_supers.append((decl, scope, t, rel))
        if n.type == "record_declaration":
            params = n.child_by_field_name("parameters")
            self.components[fqn] = [
                p
                for p in (params.named_children if params is not None else [])
                if p.type == "formal_parameter"
            ]
            for p in params.named_children if params is not None else []:
                pn, pt = p.child_by_field_name("name"), p.child_by_field_name("type")
                if pn is not None and pt is not None:
                    scope.fields.add(self.t(pn))
                    self.pending_props.append((decl, self.t(pn), scope, pt))
        body = n.child_by_field_name("body")
        self.stack.append((n.end_byte, scope))
        if body is not None:
            self.members(body, scope)

    def type_params(self, n: Node, scope: Scope) -> None:
        """A generic declaration's type variables: no class of the corpus."""
        tps = n.child_by_field_name("type_parameters")
        for tp in tps.named_children if tps is not None else []:
            for c in tp.named_children:
                if c.type == "type_identifier":
                    scope.types.add(self.t(c))

    def members(self, body: Node, scope: Scope) -> None:
        """The methods a class body declares (for calls of ``m()`` before ``m``)."""
        for c in body.named_children:
            if c.type == "enum_body_declarations":
                self.members(c, scope)
            elif c.type == "method_declaration":
                nm = c.child_by_field_name("name")
                if nm is not None:
                    scope.methods.add(self.t(nm))

    def on_anonymous(self, body: Node) -> None:
        parent = self.scope()
        creation = body.parent
        if creation is None:
            return
        tnode = creation.child_by_field_name("type")
        outer = parent.cls or self.package or "anonymous"
        k = self.anon.get(outer, 0) + 1
        self.anon[outer] = k
        base = self.t(tnode) if tnode is not None else "Object"
        name = f"{outer.rsplit('.', 1)[-1]}${k}"
        decl, scope = self.add_class(
            NodeKind.CLASS, name, f"{outer}${k}", body, {"anonymous": base}, parent
        )
        if tnode is not None:
            self.pending_supers.append((decl, scope, tnode, EdgeKind.EXTENDS))
        self.stack.append((body.end_byte, scope))
        self.members(body, scope)

    def on_method(self, n: Node) -> None:
        parent = self.scope()
        decl = self.decls.get(parent.node) if parent.kind == NodeKind.CLASS else None
        name_node = n.child_by_field_name("name")
        if decl is None or name_node is None:
            return
        name = self.t(name_node)
        is_ctor = n.type in ("constructor_declaration", "compact_constructor_declaration")
        fqn = f"{decl.fqn}.{name}"
        props: dict[str, Any] = {"signature": tstree.signature(self.src, n, MAX_SIGNATURE_CHARS)}
        if is_ctor:
            props["constructor"] = True
        start = decl_start(n)
        idx = self.add_node(NodeKind.METHOD, name, fqn, n, props, start)
        self.decl_at[n.start_byte] = idx
        self.edge(parent.node, idx, EdgeKind.CONTAINS, start.start_point[0] + 1)
        scope = Scope(NodeKind.METHOD, idx, parent, parent.cls)
        self.type_params(n, scope)
        props["parameters"] = params = self.params(n.child_by_field_name("parameters"), scope)
        if n.type == "compact_constructor_declaration":  # a record's: its components
            arity = str(len(self.components.get(decl.fqn, [])))
        else:
            arity = "*" if params and params[-1].get("variadic") else str(len(params))
        if not is_ctor:
            self.add_method(decl.methods, name, idx)
        key = f"{CONSTRUCTOR if is_ctor else name}({arity})"
        k = 0
        while (f"{key}+{k}" if k else key) in decl.methods:  # another overload of this arity
            k += 1
        decl.methods[f"{key}+{k}" if k else key] = idx
        rtype = n.child_by_field_name("type")
        if rtype is not None and not is_ctor:
            props["return_type"] = self.t(rtype)
            self.pending_returns.append((idx, scope, rtype))
        self.doc(n, idx)
        self.stack.append((n.end_byte, scope))
        mods = next((c for c in n.named_children if c.type == "modifiers"), None)
        if not is_ctor and mods is not None and self.routes is not None:
            for path, methods, line in self.routes.mappings(mods, method=True):
                if methods == ("*",):  # Spring: the class's @RequestMapping(method = ...)
                    methods = self.route_methods.get(decl.node, methods)
                for prefix in self.route_prefix.get(decl.node) or [""]:
                    route = "/" + "/".join(x.strip("/") for x in (prefix, path) if x.strip("/"))
                    self.refs.append(
                        RouteRef(
                            idx,
                            line,
                            methods,
                            route,
                            Handler(HandlerKind.METHOD, Cls(decl.fqn), name),
                        )
                    )

    def params(self, plist: Node | None, scope: Scope) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for p in plist.named_children if plist is not None else []:
            if p.type == "formal_parameter":
                pn, pt = p.child_by_field_name("name"), p.child_by_field_name("type")
                if pn is None or pt is None:
                    continue
                out.append({"name": self.t(pn), "type": self.t(pt)})
                self.pending_binds.append((scope, self.t(pn), pt))
            elif p.type == "spread_parameter":
                decl = next((c for c in p.named_children if c.type == "variable_declarator"), None)
                nm = decl.child_by_field_name("name") if decl is not None else None
                if nm is not None:
                    tt = " ".join(self.t(c) for c in p.named_children if c is not decl)
                    out.append({"name": self.t(nm), "type": tt, "variadic": True})
                    scope.bind(self.t(nm), UNKNOWN)
        return out

    def on_lambda(self, n: Node) -> None:
        parent = self.scope()
        scope = Scope(NodeKind.METHOD, parent.node, parent, parent.cls)
        ps = n.child_by_field_name("parameters")
        if ps is not None:
            if ps.type == "identifier":
                scope.bind(self.t(ps), UNKNOWN)
            else:
                for p in ps.named_children:
                    if p.type == "identifier":
                        scope.bind(self.t(p), UNKNOWN)
                self.params(ps, scope)
        self.stack.append((n.end_byte, scope))

    def on_import(self, n: Node) -> None:
        is_static = any(c.type == "static" for c in n.children)
        star = any(c.type == "asterisk" for c in n.children)
        name = next(
            (c for c in n.named_children if c.type in ("scoped_identifier", "identifier")), None
        )
        if name is None:
            return
        dotted = self.t(name).replace(" ", "")
        line = n.start_point[0] + 1
        if is_static:
            if star:
                self.static_on_demand.append(dotted)
                self.refs.append(ImportRef(0, line, ImportKind.CLASS, dotted))
            else:
                cls, _, member = dotted.rpartition(".")
                self.static_single[member] = cls
                self.refs.append(ImportRef(0, line, ImportKind.CLASS, cls))
        elif star:
            self.on_demand.append(dotted)
        else:
            self.single[dotted.rsplit(".", 1)[-1]] = dotted
            self.refs.append(ImportRef(0, line, ImportKind.CLASS, dotted))

    def on_field(self, n: Node) -> None:
        scope = self.scope()
        decl = self.decls.get(scope.node) if scope.kind == NodeKind.CLASS else None
        tnode = n.child_by_field_name("type")
        if decl is None or tnode is None:
            return
        for d in n.named_children:
            if d.type == "variable_declarator":
                nm = d.child_by_field_name("name")
                if nm is not None and not any(c.type == "dimensions" for c in d.named_children):
                    scope.fields.add(self.t(nm))
                    self.pending_props.append((decl, self.t(nm), scope, tnode))

    def on_local(self, n: Node) -> None:
        scope = self.scope()
        tnode = n.child_by_field_name("type")
        if n.type == "catch_formal_parameter":
            nm = n.child_by_field_name("name")
            if nm is not None:
                types = [c for c in n.named_children if c.type == "catch_type"]
                parts = types[0].named_children if types else []
                if len(parts) == 1:
                    self.pending_binds.append((scope, self.t(nm), parts[0]))
                else:
                    scope.bind(self.t(nm), UNKNOWN)
            return
        if n.type == "enhanced_for_statement":
            nm = n.child_by_field_name("name")
            if nm is not None and tnode is not None:
                if self.t(tnode) == "var":
                    scope.bind(self.t(nm), UNKNOWN)
                else:
                    self.pending_binds.append((scope, self.t(nm), tnode))
            return
        if tnode is None:
            return
        is_var = self.t(tnode) == "var"
        for d in n.named_children:
            if d.type != "variable_declarator":
                continue
            nm = d.child_by_field_name("name")
            if nm is None:
                continue
            if any(c.type == "dimensions" for c in d.named_children):
                scope.bind(self.t(nm), UNKNOWN)
            elif is_var:
                value = d.child_by_field_name("value")
                scope.bind(
                    self.t(nm), Bind(BindKind.EXPR, expr=(value, scope)) if value else UNKNOWN
                )
            else:
                self.pending_binds.append((scope, self.t(nm), tnode))

    # -- finish ---------------------------------------------------------------------------
    def finish(self) -> None:
        f = self.facts
        for scope, name, tnode in self.pending_binds:
            d = self.type_desc(tnode, scope)
            scope.bind(name, Bind(BindKind.DESC, d) if d is not None else UNKNOWN)
        for decl, scope, tnode, rel in self.pending_supers:
            base = self.type_name(tnode, scope.parent)
            if base is not None:
                (decl.extends if rel == EdgeKind.EXTENDS else decl.implements).append(
                    (base, tnode.start_point[0] + 1)
                )
        for decl, name, scope, tnode in self.pending_props:
            d = self.type_desc(tnode, scope)
            if d is not None and d not in decl.props.setdefault(name, []):
                decl.props[name].append(d)
        for idx, scope, rnode in self.pending_returns:
            d = self.type_desc(rnode, scope)
            if d is not None:
                f.returns[idx] = [d]
        refs = self.refs
        for scope, n in self.calls:
            mnode = n.child_by_field_name("name")
            if mnode is None:
                continue
            recv = self.receiver(n, scope)
            called = f"{self.t(mnode)}({self.args(n, scope)})"
            refs.append(MethodCallRef(scope.node, mnode.start_point[0] + 1, recv, called))
        for scope, n in self.news:
            d = self.type_desc(n.child_by_field_name("type"), scope)
            if d is not None:
                line = n.start_point[0] + 1
                refs.append(NewRef(scope.node, line, d))
                called = f"{CONSTRUCTOR}({self.args(n, scope)})"
                refs.append(MethodCallRef(scope.node, line, d, called))
        for scope, n in self.ctor_calls:
            ctor = n.child_by_field_name("constructor")
            if ctor is None or not scope.cls:
                continue
            recv = Parent(scope.cls) if ctor.type == "super" else Cls(scope.cls)
            called = f"{CONSTRUCTOR}({self.args(n, scope)})"
            refs.append(MethodCallRef(scope.node, n.start_point[0] + 1, recv, called))
        refs.sort(key=lambda r: (r.line, r.owner, type(r).__name__))
        f.refs = refs
        self.texts((NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.ENUM, NodeKind.METHOD))
        f.chunks = make_chunks(self.path, self.text, f, "java", self.max_chunk_lines)

    def args(self, call: Node, scope: Scope) -> str:
        """What a call states of its arguments for choosing among overloads: ``N`` (how
        many), and when the type of one is known ``N:T1,T2`` (simple names, ``?`` for one
        not known: ``4:ParserInput,FileOptions,Module,?``; ``symbols.fit_overloads``)."""
        node = call.child_by_field_name("arguments")
        vals = [
            c for c in (node.named_children if node is not None else []) if c.type not in _NOTES
        ]
        types = [self.arg_type(v, scope) for v in vals]
        known = any(t != "?" for t in types)
        return f"{len(vals)}:{','.join(types)}" if known else str(len(vals))

    def arg_type(self, v: Node, scope: Scope) -> str:
        """The simple name of an argument's type as the file alone knows it: a literal, a
        string concatenation, a local, parameter or field of a class of the file, what a
        method of the file returns, ``toString()`` / ``getMessage()`` /
        ``String.format(...)`` (a String); ``?``: not known."""
        lit = _LITERALS.get(v.type)
        if lit is not None:
            return lit
        if v.type == "decimal_integer_literal":
            return "long" if self.t(v)[-1:] in ("l", "L") else "int"
        if v.type == "binary_expression" and any(
            c.type == "string_literal" for c in v.named_children
        ):
            op = v.child_by_field_name("operator")
            if op is not None and self.t(op) == "+":
                return "String"
        if v.type == "method_invocation":
            got = self.returned(v, scope)
            if got:
                return got
        return _simple(self.known(self.desc(v, scope)))

    def known(self, d: TypeDesc | None) -> TypeDesc | None:
        """A field of a class of the file: its declared type (else the descriptor)."""
        if isinstance(d, Prop) and isinstance(d.of, Cls):
            decl = self.decl_of(d.of.fqn)
            got = decl.props.get(d.name) if decl is not None else None
            if got and len(got) == 1:
                return got[0]
        return d

    def decl_of(self, fqn: str) -> ClassDecl | None:
        for decl in self.decls.values():
            if decl.fqn == fqn:
                return decl
        return None

    def returned(self, call: Node, scope: Scope) -> str:
        """The type a call returns, when the file says: ``toString()``, ``getMessage()``
        and ``String.<x>(...)`` give a String; a method of a class of the file (by name:
        its overloads must agree) its declared return type."""
        name_node = call.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else ""
        obj = call.child_by_field_name("object")
        if name in _STRING_METHODS or (obj is not None and self.t(obj) == "String"):
            return "String"
        recv = self.receiver(call, scope)
        decl = self.decl_of(recv.fqn) if isinstance(recv, Cls) else None
        if decl is None:
            return ""
        types = {
            _simple(ds[0]) if len(ds) == 1 else "?"
            for key, idx in decl.methods.items()
            if key.split("(", 1)[0] == name and "(" in key
            for ds in [self.facts.returns.get(idx) or []]
        }
        return types.pop() if len(types) == 1 and "?" not in types else ""


def _simple(d: TypeDesc | None) -> str:
    """The simple name of the class a descriptor names (``?``: not one)."""
    if isinstance(d, Cls) and d.fqn:
        return d.fqn.rsplit(".", 1)[-1]
    if isinstance(d, Pending) and d.names:
        return d.names[0].rsplit(".", 1)[-1]
    return "?"


#: methods whose result is a String whatever the receiver (``Object``'s and ``Throwable``'s)
_STRING_METHODS = frozenset({"toString", "getMessage", "getLocalizedMessage"})
#: comments among a call's arguments
_NOTES = ("line_comment", "block_comment")
#: the type of a literal argument (``null`` fits any reference: not known)
_LITERALS = {
    "string_literal": "String",
    "text_block": "String",
    "character_literal": "char",
    "true": "boolean",
    "false": "boolean",
    "decimal_floating_point_literal": "double",
    "hex_integer_literal": "int",
    "class_literal": "Class",
}


def warm() -> None:
    """Load the grammar and compile the query before workers fork."""
    tstree.query("java", "java-tags.scm")
    tstree.parser("java")


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one Java file: what the language registry calls."""
    return tstree.safe_extract(Extractor, path, text, max_chunk_lines)

"""The Go walk: one query run over the file (``queries/go-tags.scm``), its captures
handled in document order, then ``finish`` resolves every use over the final bindings
of its scope (``ragraf.lang.go.names``) and turns what was collected into FileFacts.

Invariants a change must keep:
- Node 0 is the file; it contains every top-level declaration (functions, types,
  methods: a method sits at top level in Go), an interface contains its method specs.
  There is no package node: a package spans files (its fqn prefix is shared).
- fqns: ``<pkg>.<Func>``, ``<pkg>.<Type>``, ``<pkg>.<Type>.<Method>``; a method of a type
  the file declares is in that type's ``ClassDecl`` (and the type defines it); of a type
  declared elsewhere in the package, in a ``CLASS_EXTENSION`` declaration of the type
  (``link`` adds the ``defines`` edge from the type).
- A struct's embedded types and an interface's embedded interfaces are ``extends``;
  struct fields are the class's ``props`` (an embedded type is also a field of its
  name); a function's or method's first result type is its ``returns``.
- ``go.mod`` yields its module path as ``(<dir>, Export(MODULE, <module path>))`` in
  ``global_assigns``; every ``.go`` file ``(<dir>, Export(PACKAGE, <fqn prefix>))``.
- Comments go to ``texts`` (layer text), the ones right above a declaration as its
  docblock; never into props (P6). A syntax error makes the file ``partial``.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from ragraf.kinds import (
    CLASS_EXTENSION,
    BindKind,
    CalleeKind,
    DynamicHow,
    EdgeKind,
    HandlerKind,
    ImportKind,
    NodeKind,
)
from ragraf.lang import tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    CallRef,
    ClassDecl,
    DynamicCallRef,
    FileFacts,
    Handler,
    ImportRef,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
)
from ragraf.lang.go import flow
from ragraf.lang.go.builtins import BUILTIN_PACKAGE
from ragraf.lang.go.names import UNKNOWN, Bind, Names, Scope
from ragraf.lang.typedesc import Cls, Export

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_SIGNATURE_CHARS = 300
_MODULE_LINE = re.compile(r"^\s*module\s+(\"?)([^\s\"]+)\1", re.M)


def package_prefix(path: str, package: str) -> str:
    """The fqn prefix of a file's declarations: its directory (the package clause's name
    for a file at the root), ``_test`` appended for an external test package."""
    d = posixpath.dirname(path)
    base = d or package
    if package.endswith("_test") and not base.endswith("_test"):
        base += "_test"
    return base


class Extractor(tstree.Walk, Names):
    """One file's extraction: ``Extractor(path, text).run()`` -> FileFacts."""

    lang = "go"

    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        super().__init__(path, text, max_chunk_lines)
        self.pkg = posixpath.dirname(path) or "main"
        self.imports: dict[str, str] = {}
        self.file_types: set[str] = set()
        self.file_funcs: set[str] = set()
        self.top = Scope(NodeKind.PACKAGE, 0, None)
        self.decls: dict[str, ClassDecl] = {}  # type fqn -> decl (own or extension)
        self.calls: list[tuple[Scope, Node, Node]] = []
        self.route_calls: list[tuple[Scope, Node, str]] = []  # (scope, call, method name)
        self.news: list[tuple[Scope, Node]] = []
        self.pending_types: list[tuple[ClassDecl, Node]] = []
        self.pending_returns: list[tuple[int, Scope, Node]] = []
        self.pending_params: list[tuple[Scope, str, Node]] = []
        self.methods: list[tuple[str, str, int, int]] = []  # (type, name, node idx, line)
        self.refs: list[Ref] = []
        self.field_scope: dict[str, Scope] = {}
        self.decl_at: dict[int, int] = {}  # start byte of a function / method -> node index

    # -- the run ------------------------------------------------------------------------
    def run(self) -> FileFacts:
        f = self.facts
        if posixpath.basename(self.path) == "go.mod":
            return self.go_mod()
        root = tstree.parser("go").parse(self.src).root_node
        self.start(root)
        self.prescan(root)
        handlers = {
            "definition.package": lambda n: None,
            "definition.function": self.on_function,
            "definition.method": self.on_function,
            "definition.type": self.on_type,
            "definition.closure": self.on_closure,
            "reference.import": self.on_import,
            "reference.call": self.on_call,
            "reference.new": self.on_new,
            "reference.assignment": self.on_assignment,
            "text.comment": self.on_comment,
        }
        self.walk(tstree.query("go", "go-tags.scm"), root, handlers)
        self.finish()
        f.flows, too_big = flow.build(root, self.src, self.decl_at)
        if too_big:
            f.stats["flow_too_big"] = too_big
        return f

    def go_mod(self) -> FileFacts:
        """A ``go.mod``: the file node and the module path of its directory."""
        from ragraf.lang.chunking import file_chunks

        f = self.facts
        self.file_node()
        m = _MODULE_LINE.search(self.text)
        if m:
            f.global_assigns.append(
                (posixpath.dirname(self.path), Export(BindKind.MODULE, m.group(2)))
            )
        f.chunks = file_chunks(self.path, self.text, "code", 0, self.max_chunk_lines)
        return f

    def prescan(self, root: Node) -> None:
        """The package clause, and the type and function names the file declares (a call
        ``T(x)`` of a type is a conversion, whatever comes first in the file)."""
        for c in root.named_children:
            if c.type == "package_clause" and c.named_child_count:
                self.pkg = package_prefix(self.path, self.t(c.named_children[0]))
            elif c.type == "type_declaration":
                for spec in c.named_children:
                    name = spec.child_by_field_name("name")
                    if name is not None:
                        self.file_types.add(self.t(name))
            elif c.type == "function_declaration":
                name = c.child_by_field_name("name")
                if name is not None:
                    self.file_funcs.add(self.t(name))
        self.facts.global_assigns.append(
            (posixpath.dirname(self.path), Export(BindKind.PACKAGE, self.pkg))
        )

    def scope(self) -> Scope:
        return self.stack[-1][1] if self.stack else self.top

    def doc(self, n: Node, idx: int) -> None:
        """The comment lines right above a declaration are its docblock."""
        prev = n.prev_named_sibling
        if n.parent is not None and n.parent.type in ("type_spec", "type_declaration"):
            return
        lines: list[Node] = []
        line = n.start_point[0]
        while prev is not None and prev.type == "comment" and prev.end_point[0] == line - 1:
            lines.append(prev)
            line = prev.start_point[0]
            prev = prev.prev_named_sibling
        if lines:
            lines.reverse()
            start, end = lines[0].start_point[0] + 1, lines[-1].end_point[0] + 1
            self.docblock(start, end, "\n".join(self.t(x) for x in lines), idx)

    # -- declarations -------------------------------------------------------------------
    def on_function(self, n: Node) -> None:
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return
        name = self.t(name_node)
        scope = Scope(NodeKind.FUNCTION, 0, self.top)
        self.type_params(n, scope)
        recv_type: str | None = None
        props: dict[str, Any] = {"signature": tstree.signature(self.src, n, MAX_SIGNATURE_CHARS)}
        receiver = n.child_by_field_name("receiver")
        if receiver is not None:
            for p in receiver.named_children:
                if p.type != "parameter_declaration":
                    continue
                tnode = p.child_by_field_name("type")
                base = tnode
                while base is not None and base.type in ("pointer_type", "parenthesized_type"):
                    base = base.named_children[0] if base.named_child_count else None
                if base is not None and base.type == "generic_type":
                    for tp in base.named_children[1:]:
                        for x in tp.named_children:
                            scope.types.add(self.t(x))
                    base = base.child_by_field_name("type")
                if base is not None and base.type == "type_identifier":
                    recv_type = self.t(base)
                    props["receiver"] = self.t(tnode) if tnode is not None else recv_type
                    rname = p.child_by_field_name("name")
                    if rname is not None:
                        scope.bind(
                            self.t(rname), Bind(BindKind.DESC, Cls(f"{self.pkg}.{recv_type}"))
                        )
        kind = NodeKind.METHOD if recv_type else NodeKind.FUNCTION
        fqn = f"{self.pkg}.{recv_type}.{name}" if recv_type else f"{self.pkg}.{name}"
        idx = self.add_node(kind, name, fqn, n, props)
        self.decl_at[n.start_byte] = idx
        scope.node = idx
        line = n.start_point[0] + 1
        self.edge(0, idx, EdgeKind.CONTAINS, line)
        if recv_type:
            self.methods.append((recv_type, name, idx, line))
        else:
            self.facts.functions.append((fqn, idx))
        props["parameters"] = self.params(n.child_by_field_name("parameters"), scope)
        result = n.child_by_field_name("result")
        if result is not None:
            props["result"] = self.t(result)[:MAX_SIGNATURE_CHARS]
        self.returns(idx, scope, result)
        self.doc(n, idx)
        self.stack.append((n.end_byte, scope))

    def returns(self, idx: int, scope: Scope, result: Node | None) -> None:
        """A function's first result type is what a call of it returns (``x, err := f()``
        gives ``x`` the first)."""
        first = result
        if result is not None and result.type == "parameter_list":
            ps = [p for p in result.named_children if p.type == "parameter_declaration"]
            first = ps[0].child_by_field_name("type") if ps else None
        if first is not None:
            self.pending_returns.append((idx, scope, first))

    def type_params(self, n: Node, scope: Scope) -> None:
        tps = n.child_by_field_name("type_parameters")
        if tps is None:
            return
        for decl in tps.named_children:
            for c in decl.named_children:
                if c.type == "identifier":
                    scope.types.add(self.t(c))

    def params(self, plist: Node | None, scope: Scope) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if plist is None:
            return out
        for p in plist.named_children:
            if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue
            tnode = p.child_by_field_name("type")
            tt = self.t(tnode) if tnode is not None else ""
            names: list[Node | None] = [c for c in p.named_children if c.type == "identifier"]
            for nm in names or [None]:
                entry: dict[str, Any] = {"type": tt}
                if nm is not None:
                    entry = {"name": self.t(nm), **entry}
                    if p.type == "variadic_parameter_declaration":
                        entry["variadic"] = True
                    elif tnode is not None:
                        self.pending_params.append((scope, self.t(nm), tnode))
                out.append(entry)
        return out

    def on_closure(self, n: Node) -> None:
        parent = self.scope()
        scope = Scope(NodeKind.FUNCTION, parent.node, parent)
        self.params(n.child_by_field_name("parameters"), scope)
        self.stack.append((n.end_byte, scope))

    def on_type(self, n: Node) -> None:
        if self.stack:  # a type declared inside a function: local, not a package member
            return
        name_node = n.child_by_field_name("name")
        tnode = n.child_by_field_name("type")
        if name_node is None or tnode is None:
            return
        name = self.t(name_node)
        fqn = f"{self.pkg}.{name}"
        is_iface = tnode.type == "interface_type"
        kind = NodeKind.INTERFACE if is_iface else NodeKind.CLASS
        props: dict[str, Any] = {"signature": " ".join(self.t(n).split())[:MAX_SIGNATURE_CHARS]}
        if n.type == "type_alias":
            props["alias"] = True
        elif not is_iface:
            props["go_kind"] = "struct" if tnode.type == "struct_type" else "type"
        decl_node = n.parent if n.parent is not None else n
        target = decl_node if decl_node.named_child_count == 1 else n
        idx = self.add_node(kind, name, fqn, target, props)
        line = target.start_point[0] + 1
        self.edge(0, idx, EdgeKind.CONTAINS, line)
        decl = ClassDecl(idx, fqn, kind)
        self.decls[fqn] = decl
        self.facts.classes.append(decl)
        scope = Scope(NodeKind.FUNCTION, idx, self.top)
        self.type_params(n, scope)
        self.doc(target, idx)
        if tnode.type == "struct_type":
            self.struct_fields(decl, tnode, scope)
        elif is_iface:
            self.interface(decl, tnode, scope, idx)

    def struct_fields(self, decl: ClassDecl, st: Node, scope: Scope) -> None:
        body = next((c for c in st.named_children if c.type == "field_declaration_list"), None)
        if body is None:
            return
        for fd in body.named_children:
            if fd.type != "field_declaration":
                continue
            tnode = fd.child_by_field_name("type")
            names = [c for c in fd.named_children if c.type == "field_identifier"]
            if not names and tnode is not None:  # embedded: promoted fields and methods
                base = self.type_name(tnode, scope)
                if base is not None:
                    decl.extends.append((base, fd.start_point[0] + 1))
                    inner = tnode.named_children[0] if tnode.type == "pointer_type" else tnode
                    leaf = inner.child_by_field_name("name") or inner
                    self.pending_types.append((decl, fd))
                    decl.props.setdefault(self.t(leaf), [])
                continue
            for nm in names:
                decl.props.setdefault(self.t(nm), [])
            self.pending_types.append((decl, fd))
        self.field_scope[decl.fqn] = scope

    def interface(self, decl: ClassDecl, it: Node, scope: Scope, idx: int) -> None:
        for c in it.named_children:
            if c.type == "method_elem":
                nm = c.child_by_field_name("name")
                if nm is None:
                    continue
                mname = self.t(nm)
                props: dict[str, Any] = {"signature": " ".join(self.t(c).split())}
                props["parameters"] = self.params(c.child_by_field_name("parameters"), scope)
                midx = self.add_node(NodeKind.METHOD, mname, f"{decl.fqn}.{mname}", c, props)
                self.edge(idx, midx, EdgeKind.CONTAINS, c.start_point[0] + 1)
                self.add_method(decl.methods, mname, midx)
                self.returns(midx, scope, c.child_by_field_name("result"))
            elif c.type == "type_elem":
                for t in c.named_children:
                    base = self.type_name(t, scope)
                    if base is not None:
                        decl.extends.append((base, c.start_point[0] + 1))

    def on_import(self, n: Node) -> None:
        path_node = n.child_by_field_name("path")
        if path_node is None:
            return
        ip = self.t(path_node).strip('"`')
        name_node = n.child_by_field_name("name")
        local = self.t(name_node) if name_node is not None else ip.rsplit("/", 1)[-1]
        if name_node is None and re.fullmatch(r"v\d+", local) and "/" in ip:
            local = ip.rsplit("/", 2)[-2]  # example.com/x/y/v2 is package y
        if local not in ("_", "."):
            self.imports[local.replace("-", "_")] = ip
        self.refs.append(ImportRef(0, n.start_point[0] + 1, ImportKind.MODULE, ip))

    def on_assignment(self, n: Node) -> None:
        scope = self.scope()
        if n.type == "var_spec":
            names = [c for c in n.named_children if c.type == "identifier"]
            tnode = n.child_by_field_name("type")
            value = n.child_by_field_name("value")
            vals = value.named_children if value is not None else []
            for i, nm in enumerate(names):
                if tnode is not None:
                    self.pending_params.append((scope, self.t(nm), tnode))
                elif i < len(vals) and (len(vals) == len(names) or i == 0):
                    scope.bind(self.t(nm), Bind(BindKind.EXPR, expr=(vals[i], scope)))
                else:
                    scope.bind(self.t(nm), UNKNOWN)
            return
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if n.type == "range_clause":
            if left is not None:
                for c in left.named_children:
                    if c.type == "identifier":
                        scope.bind(self.t(c), UNKNOWN)
            return
        if left is None or right is None:
            return
        lefts = list(left.named_children)
        rights = right.named_children
        for i, c in enumerate(lefts):
            if c.type != "identifier":
                continue
            if i < len(rights) and (len(rights) == len(lefts) or i == 0):
                scope.bind(self.t(c), Bind(BindKind.EXPR, expr=(rights[i], scope)))
            else:
                scope.bind(self.t(c), UNKNOWN)

    def on_call(self, n: Node) -> None:
        fn = n.child_by_field_name("function")
        if fn is not None:
            self.calls.append((self.scope(), n, fn))
            if fn.type == "selector_expression":
                field = fn.child_by_field_name("field")
                m = self.t(field) if field is not None else ""
                if m in _ROUTE_VERBS or m in ("HandleFunc", "Handle"):
                    self.route_calls.append((self.scope(), n, m))

    def on_new(self, n: Node) -> None:
        self.news.append((self.scope(), n))

    # -- finish ---------------------------------------------------------------------------
    def finish(self) -> None:
        f = self.facts
        for scope, pname, tnode in self.pending_params:
            d = self.type_desc(tnode, scope)
            scope.bind(pname, Bind(BindKind.DESC, d) if d is not None else UNKNOWN)
        for decl, fd in self.pending_types:
            ftype = fd.child_by_field_name("type")
            d = self.type_desc(ftype, self.field_scope.get(decl.fqn, self.top))
            names = [c for c in fd.named_children if c.type == "field_identifier"]
            if not names and ftype is not None:
                embedded = ftype.named_children[0] if ftype.type == "pointer_type" else ftype
                names = [embedded.child_by_field_name("name") or embedded]
            for nm in names:
                if d is not None and d not in decl.props.setdefault(self.t(nm), []):
                    decl.props[self.t(nm)].append(d)
        for idx, scope, rnode in self.pending_returns:
            d = self.type_desc(rnode, scope)
            if d is not None:
                f.returns[idx] = [d]
        for tname, mname, idx, line in self.methods:
            fqn = f"{self.pkg}.{tname}"
            known = self.decls.get(fqn)
            if known is None:
                known = ClassDecl(0, fqn, CLASS_EXTENSION)
                self.decls[fqn] = known
                f.classes.append(known)
            elif known.kind != CLASS_EXTENSION:
                self.edge(known.node, idx, EdgeKind.DEFINES, line)
            self.add_method(known.methods, mname, idx)
        refs = self.refs
        for scope, n, fn in self.calls:
            ref = self.call_ref(scope, n, fn)
            if ref is not None:
                refs.append(ref)
        for scope, n in self.news:
            d = self.type_desc(n.child_by_field_name("type"), scope)
            if d is not None:
                refs.append(NewRef(scope.node, n.start_point[0] + 1, d))
        for scope, n, m in self.route_calls:
            ref = self.route_ref(scope, n, m)
            if ref is not None:
                refs.append(ref)
        refs.sort(key=lambda r: (r.line, r.owner, type(r).__name__))
        f.refs = refs
        self.texts((NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.FUNCTION, NodeKind.METHOD))
        f.chunks = make_chunks(self.path, self.text, f, "go", self.max_chunk_lines)

    def route_ref(self, scope: Scope, n: Node, m: str) -> RouteRef | None:
        """``http.HandleFunc("/p", h)`` (``"GET /p"`` patterns of Go 1.22; gorilla/mux's
        ``.Methods("GET")`` after it), gin / echo ``r.GET("/p", h)``, chi ``r.Get("/p", h)``:
        the path after the prefixes of the routers it is registered on (``router_prefix``;
        chi's ``r.Route("/api", func(r chi.Router) {...})`` around it); the handler is the
        last argument (``go_handler``); one the file cannot name still makes the route."""
        args = n.child_by_field_name("arguments")
        vals = [a for a in (args.named_children if args is not None else []) if a.type != "comment"]
        if len(vals) < 2:
            return None
        pattern = self.go_string(vals[0])
        if pattern is None:
            return None
        fn = n.child_by_field_name("function")
        recv = fn.child_by_field_name("operand") if fn is not None else None
        prefix, chain_methods = self.router_prefix(recv, scope, 0)
        if m in ("HandleFunc", "Handle"):
            verb, _, path = pattern.partition(" ") if " " in pattern else ("", "", pattern)
            methods = (verb.upper(),) if verb else self.mux_methods(n)
            if methods == ("*",) and chain_methods:
                methods = chain_methods
        else:
            path, methods = pattern, (_ROUTE_VERBS[m],)
        if not path.startswith("/") and not (path == "" and prefix):
            return None
        route = self.chi_prefix(n) + (prefix.rstrip("/") if path else prefix) + path
        handler = self.go_handler(vals[-1], scope, 0) or Handler(HandlerKind.FUNCTION, None, "")
        return RouteRef(scope.node, n.start_point[0] + 1, methods, route, handler)

    def go_string(self, n: Node | None) -> str | None:
        if n is None or n.type not in ("interpreted_string_literal", "raw_string_literal"):
            return None
        if n.type == "raw_string_literal":
            return self.t(n)[1:-1]
        if any(c.type == "escape_sequence" for c in n.named_children):
            return None
        return self.t(n)[1:-1]

    def http_method(self, n: Node) -> str | None:
        """A method name: a string literal, or ``http.MethodGet`` and the like."""
        got = self.go_string(n)
        if got is not None:
            return got.upper()
        if n.type == "selector_expression":
            field = n.child_by_field_name("field")
            name = self.t(field) if field is not None else ""
            if name.startswith("Method") and name[6:].isalpha() and len(name) > 6:
                return name[6:].upper()
        return None

    def methods_of(self, call: Node) -> tuple[str, ...] | None:
        """The methods of a ``.Methods(...)`` call (None: one is not literal)."""
        args = call.child_by_field_name("arguments")
        got = [self.http_method(a) for a in (args.named_children if args else [])]
        if got and all(got):
            return tuple(str(g) for g in got)
        return None

    def mux_methods(self, n: Node) -> tuple[str, ...]:
        """gorilla/mux: ``r.HandleFunc("/p", h).Methods("GET", http.MethodPost)``; else any."""
        sel = n.parent
        call = sel.parent if sel is not None and sel.type == "selector_expression" else None
        field = sel.child_by_field_name("field") if sel is not None else None
        if call is not None and call.type == "call_expression" and field is not None:
            if self.t(field) == "Methods":
                return self.methods_of(call) or ("*",)
        return ("*",)

    def router_prefix(
        self, recv: Node | None, scope: Scope, depth: int
    ) -> tuple[str, tuple[str, ...] | None]:
        """The path prefix (and methods, when set) of the router a route is registered on,
        followed through variables and call chains: gin / echo ``x.Group("/p")``, gorilla/mux
        ``x.PathPrefix("/p")`` / ``x.Path("/p")`` and ``.Methods(...)`` before
        ``.Subrouter()`` (``s := r.PathPrefix("/api").Subrouter()``); a prefix built at run
        time is said so (``{expr}``)."""
        if recv is None or depth > MAX_ROUTER_DEPTH:
            return "", None
        if recv.type == "identifier":
            for b in reversed(tstree.lookup(scope, self.t(recv)) or []):
                if b.kind == BindKind.EXPR and b.expr is not None:
                    rhs, sc = b.expr
                    return self.router_prefix(rhs, sc, depth + 1)
            return "", None
        if recv.type in ("parenthesized_expression", "unary_expression") and recv.named_child_count:
            return self.router_prefix(recv.named_children[-1], scope, depth + 1)
        if recv.type != "call_expression":
            return "", None
        fn = recv.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None else None
        if fn is None or field is None or fn.type != "selector_expression":
            return "", None
        name = self.t(field)
        if name not in _ROUTER_STEPS:
            return "", None
        prefix, methods = self.router_prefix(fn.child_by_field_name("operand"), scope, depth + 1)
        if name in _ROUTER_PATHS:
            args = recv.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            p = self.go_string(first)
            if p is None and first is not None:  # built at run time: said so
                p = "{" + self.t(first) + "}"
            prefix = prefix.rstrip("/") + (p or "") if p else prefix
        elif name == "Methods":
            methods = self.methods_of(recv) or methods
        return prefix, methods

    def chi_prefix(self, at: Node) -> str:
        """chi: the prefixes of the ``Route("/p", func...)`` calls around a registration."""
        p_node = at.parent
        outer = ""
        while p_node is not None:
            if p_node.type == "call_expression":
                fn = p_node.child_by_field_name("function")
                field = (
                    fn.child_by_field_name("field")
                    if fn is not None and fn.type == "selector_expression"
                    else None
                )
                if field is not None and self.t(field) == "Route":
                    args = p_node.child_by_field_name("arguments")
                    first = (
                        args.named_children[0] if args is not None and args.named_children else None
                    )
                    p = self.go_string(first)
                    if p is None and first is not None:
                        p = "{" + self.t(first) + "}"
                    if p is not None:
                        outer = p + outer
            p_node = p_node.parent
        return outer

    def go_handler(self, h: Node, scope: Scope, depth: int) -> Handler | None:
        """What handles a route: a function literal (the registering function), a function,
        a method value, a variable holding one of those (followed), the function whose call
        returns the handler (``stringHandler("a")``), through ``http.HandlerFunc(f)``."""
        if h.type == "func_literal":
            return Handler(HandlerKind.CLOSURE)
        if depth > MAX_ROUTER_DEPTH:
            return None
        if h.type in ("parenthesized_expression", "unary_expression") and h.named_child_count:
            return self.go_handler(h.named_children[-1], scope, depth + 1)
        if h.type == "call_expression":
            fn = h.child_by_field_name("function")
            args = h.child_by_field_name("arguments")
            vals = [a for a in args.named_children if a.type != "comment"] if args else []
            if fn is None:
                return None
            c = self.callee(fn, scope)
            conversion = c.kind == CalleeKind.TYPE or (
                c.kind == CalleeKind.QUALIFIED and c.name in _HANDLER_TYPES
            )
            if conversion and len(vals) == 1:  # http.HandlerFunc(f)
                return self.go_handler(vals[0], scope, depth + 1)
            return self.handler_of(c)
        if h.type == "identifier":
            for b in reversed(tstree.lookup(scope, self.t(h)) or []):
                if b.kind == BindKind.EXPR and b.expr is not None:
                    rhs, sc = b.expr
                    return self.go_handler(rhs, sc, depth + 1)
        if h.type not in ("identifier", "selector_expression"):
            return None
        return self.handler_of(self.callee(h, scope))

    def handler_of(self, c: tstree.Callee) -> Handler | None:
        if c.kind == CalleeKind.FUNCTION:
            return Handler(HandlerKind.FUNCTION, None, c.name)
        if c.kind == CalleeKind.QUALIFIED:
            return Handler(HandlerKind.FUNCTION, None, f"@{c.path}#{c.name}")
        if c.kind == CalleeKind.METHOD and c.receiver is not None:
            return Handler(HandlerKind.METHOD, c.receiver, c.name)
        return None

    def call_ref(self, scope: Scope, n: Node, fn: Node) -> Ref | None:
        owner = scope.node
        name_node = fn.child_by_field_name("field") if fn.type == "selector_expression" else fn
        line = (name_node or fn).start_point[0] + 1
        c = self.callee(fn, scope)
        kind = c.kind
        raw = self.t(fn)[:120]
        if kind == CalleeKind.FUNCTION:
            return CallRef(owner, line, (c.name,), raw)
        if kind == CalleeKind.QUALIFIED:
            return CallRef(owner, line, (f"@{c.path}#{c.name}",), raw)
        if kind == CalleeKind.BUILTIN:
            return CallRef(owner, line, (f"{BUILTIN_PACKAGE}.{c.name}",), raw)
        if kind == CalleeKind.METHOD:
            return MethodCallRef(owner, line, c.receiver, c.name)
        if kind == CalleeKind.TYPE:
            return None  # a conversion
        return DynamicCallRef(owner, line, DynamicHow.VARIABLE, ())


#: how far a router or a handler is followed through variables and calls
MAX_ROUTER_DEPTH = 8
#: calls of a router chain that set a path prefix (gin / echo groups, gorilla/mux)
_ROUTER_PATHS = frozenset({"Group", "PathPrefix", "Path"})
#: calls a router chain goes through to the router routes are registered on
_ROUTER_STEPS = _ROUTER_PATHS | frozenset(
    "Subrouter StrictSlash Host Schemes Headers HeadersRegexp Queries Methods Name"
    " MatcherFunc SkipClean UseEncodedPath".split()
)
#: net/http's handler types a function is converted to
_HANDLER_TYPES = frozenset({"HandlerFunc"})
#: router methods of gin / echo (upper case) and chi (capitalised) -> HTTP method
_ROUTE_VERBS = {
    **{v: v for v in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")},
    **{v.capitalize(): v for v in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")},
    "Any": "*",
}


def warm() -> None:
    """Load the grammar and compile the query before workers fork."""
    tstree.query("go", "go-tags.scm")
    tstree.parser("go")


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one Go file (or ``go.mod``): what the language registry calls."""
    return tstree.safe_extract(Extractor, path, text, max_chunk_lines)

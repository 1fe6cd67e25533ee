"""The Python walk: one query run over the file (``queries/python-tags.scm``), its
captures handled in document order, then ``finish`` resolves every use over the final
bindings of its scope and turns what was collected into FileFacts.

Invariants a change must keep:
- Node 0 is the file, node 1 the module (kind ``package`` for an ``__init__.py``); the
  file contains every top-level declaration, the module defines them; a class contains
  its methods, a function its nested functions.
- Declarations get their final ids (``ids.node_id`` over kind, fqn, path, first line);
  a method is a function defined directly in a class body. An ``@overload`` signature is
  a declaration, but calls link to the implementation (the first signature when there
  is none: a stub).
- Uses are resolved in ``finish``, flow-insensitively (a call may use a name bound
  later in the file), over ``ragraf.lang.python.names``: a call of a name the file
  binds becomes a ``CallRef`` with its fqn (a function), a ``NewRef`` (a class) or a
  ``MethodCallRef``; a name bound by an import stays dotted for
  ``ragraf.lang.python.link``; a call through a variable holding a callable is a
  ``DynamicCallRef`` (unresolved); a builtin is ``builtins.<name>`` (external).
- Module-level bindings go to ``global_assigns`` as ``Export`` rows (``IMPORT``: a dotted
  name, ``VALUE``: a descriptor) so that other modules' imports of them resolve.
- Comments and docstrings go to ``texts`` (layer text), never into props (P6).
- A syntax error makes the file ``partial``; extraction goes on.
- tree-sitter is imported lazily (``ragraf --help`` must not load it).
- A ``pyproject.toml`` / ``setup.cfg`` is a file node with the package roots it states
  (``ragraf.lang.python.roots``) as ``Export`` rows ``ROOT`` (folder) named by the prefix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf import ids
from ragraf.kinds import (
    BindKind,
    CalleeKind,
    DynamicHow,
    EdgeKind,
    FragmentKind,
    ImportKind,
    Layer,
    NodeKind,
)
from ragraf.lang import tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    CallRef,
    ClassDecl,
    DynamicCallRef,
    FactNode,
    FileFacts,
    ImportRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    Ref,
    SqlAnalysis,
    SqlRef,
)
from ragraf.lang.python import flow, roots, routes
from ragraf.lang.python.builtins import BUILTINS_MODULE
from ragraf.lang.python.names import Bind, Names, Scope, is_package, module_of
from ragraf.lang.typedesc import Cls, Export, Pending

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query

#: a declaration's ``signature`` prop is cut here
MAX_SIGNATURE_CHARS = 300
MAX_DEFAULT_CHARS = 60


def _query() -> Query:
    return tstree.query("python", "python-tags.scm")


def _parser() -> Parser:
    return tstree.parser("python")


class Extractor(tstree.Walk, Names):
    """One file's extraction: ``Extractor(path, text).run()`` -> FileFacts."""

    lang = "python"

    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        super().__init__(path, text, max_chunk_lines)
        self.module = module_of(path)
        self.package = self.module if is_package(path) else self.module.rpartition(".")[0]
        self.decls: dict[str, ClassDecl] = {}  # class fqn -> decl
        self.calls: list[tuple[Scope, Node, Node]] = []  # (scope, call or decorator, callee)
        self.pending_bases: list[tuple[ClassDecl, Scope, Node]] = []
        self.pending_props: list[tuple[ClassDecl, str, Scope, Node, bool]] = []
        self.pending_params: list[tuple[Scope, str, Node]] = []
        self.pending_returns: list[tuple[int, Scope, Node]] = []
        self.imports: list[ImportRef] = []  # owner: node index
        self.sql: list[SqlRef] = []
        self.sql_done: set[int] = set()
        self.sql_lines: dict[tuple[int, int], int] = {}
        self.urls = routes.is_urls(path)
        self.route_decos: list[tuple[int, Node]] = []  # (function node, decorator)
        self.route_calls: list[tuple[Scope, Node]] = []  # path(...) in a urls.py
        self.rule_calls: list[tuple[Scope, Node]] = []  # <x>.add_url_rule(...)
        #: ``@overload`` signatures: (class fqn or "", name, fqn, node)
        self.overloads: list[tuple[str, str, str, int]] = []
        #: start byte of each function's node -> its node index (the data-flow units)
        self.decl_at: dict[int, int] = {}

    # -- the run ------------------------------------------------------------------------
    def run(self) -> FileFacts:
        if not self.path.endswith(".py"):
            return self.project_file()
        root = _parser().parse(self.src).root_node
        f = self.facts
        end = max(f.lines, 1)
        self.start(root)
        mkind = NodeKind.PACKAGE if is_package(self.path) else NodeKind.MODULE
        f.nodes.append(
            FactNode(
                ids.node_id(mkind, self.module, self.path, 1),
                mkind,
                self.module.rsplit(".", 1)[-1],
                self.module,
                1,
                end,
                {},
                Layer.STRUCTURAL,
            )
        )
        f.edges.append(LocalEdge(f.node_id(0), f.node_id(1), EdgeKind.CONTAINS, 1))
        self.top = Scope(NodeKind.MODULE, 0, None, self.module)
        self.docstring(root, 1)
        handlers = {
            "definition.class": self.on_class,
            "definition.function": self.on_function,
            "reference.import": self.on_import,
            "reference.call": self.on_call,
            "reference.decorator": self.on_decorator,
            "reference.assignment": self.on_assignment,
            "text.comment": self.on_comment,
            "sql.string": self.on_sql,
        }
        self.walk(_query(), root, handlers)
        self.finish()
        f.flows, too_big = flow.build(root, self.src, self.decl_at)
        if too_big:
            f.stats["flow_too_big"] = too_big
        return f

    def project_file(self) -> FileFacts:
        """A ``pyproject.toml`` / ``setup.cfg``: the file node, and the package roots it
        states as ``Export`` rows ``ROOT`` in ``global_assigns`` (named by their prefix)."""
        from ragraf.lang.chunking import file_chunks

        f = self.facts
        self.file_node()
        if self.path.rsplit("/", 1)[-1] in roots.CONFIG_FILES:
            for root in roots.package_roots(self.path, self.text):
                f.global_assigns.append((root[0], Export(BindKind.ROOT, root[1])))
        f.chunks = file_chunks(self.path, self.text, "code", 0, self.max_chunk_lines)
        return f

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
        return tstree.signature(self.src, n, MAX_SIGNATURE_CHARS, " :")

    def decorators(self, n: Node) -> list[Node]:
        parent = n.parent
        if parent is None or parent.type != "decorated_definition":
            return []
        return [c for c in parent.named_children if c.type == "decorator"]

    def docstring(self, owner_node: Node, owner: int) -> None:
        body = owner_node if owner_node.type == "module" else owner_node.child_by_field_name("body")
        if body is None or not body.named_child_count:
            return
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_child_count:
            s = first.named_children[0]
            if s.type == "string":
                self.comments.append((s.start_point[0] + 1, s.end_point[0] + 1, self.t(s), owner))
                self.sql_done.add(s.start_byte)  # a docstring is no SQL

    # -- declarations -------------------------------------------------------------------
    def on_class(self, n: Node) -> None:
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return
        name = self.t(name_node)
        fqn = f"{parent.fqn}.{name}"
        props: dict[str, Any] = {"signature": self.signature(n)}
        decos = self.decorators(n)
        if decos:
            props["decorators"] = [self.t(d).lstrip("@").strip() for d in decos]
        idx = self.add_node(NodeKind.CLASS, name, fqn, n, props)
        decl = ClassDecl(idx, fqn, NodeKind.CLASS)
        self.decls[fqn] = decl
        self.facts.classes.append(decl)
        bases = n.child_by_field_name("superclasses")
        if bases is not None:
            for b in bases.named_children:
                if b.type in ("identifier", "attribute", "subscript", "generic_type"):
                    self.pending_bases.append((decl, parent, b))
        self.link(parent, idx, n.start_point[0] + 1)
        parent.bind(name, Bind(BindKind.CLASS, fqn))
        scope = Scope(NodeKind.CLASS, idx, parent, fqn, fqn)
        self.stack.append((n.end_byte, scope))
        self.docstring(n, idx)

    def on_function(self, n: Node) -> None:
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return
        name = self.t(name_node)
        fqn = f"{parent.fqn}.{name}"
        is_method = parent.kind == NodeKind.CLASS
        kind = NodeKind.METHOD if is_method else NodeKind.FUNCTION
        deco_nodes = self.decorators(n)
        decos = [self.t(d).lstrip("@").strip() for d in deco_nodes]
        props: dict[str, Any] = {"signature": self.signature(n)}
        if decos:
            props["decorators"] = decos
        if any(c.type == "async" for c in n.children):
            props["async"] = True
        idx = self.add_node(kind, name, fqn, n, props)
        self.decl_at[n.start_byte] = idx
        self.route_decos.extend((idx, d) for d in deco_nodes)
        line = n.start_point[0] + 1
        self.link(parent, idx, line)
        scope = Scope(NodeKind.FUNCTION, idx, parent, fqn, parent.cls if is_method else None)
        scope.func_name = name
        if any(d.rsplit(".", 1)[-1] == "overload" for d in decos):
            # a typing.overload signature: the implementation below is what runs
            self.overloads.append((parent.fqn if is_method else "", name, fqn, idx))
            if not is_method:
                parent.bind(name, Bind(BindKind.FUNCTION, fqn))
        elif is_method:
            self.decls[parent.fqn].methods.setdefault(name.lower(), idx)
        else:
            self.facts.functions.append((fqn, idx))
            parent.bind(name, Bind(BindKind.FUNCTION, fqn))
        props["parameters"] = self.params(n, scope, is_method, decos)
        ret = n.child_by_field_name("return_type")
        if ret is not None:
            props["return_type"] = self.t(ret)
            self.pending_returns.append((idx, scope, ret))
        self.stack.append((n.end_byte, scope))
        self.docstring(n, idx)

    def params(
        self, n: Node, scope: Scope, is_method: bool, decos: list[str]
    ) -> list[dict[str, Any]]:
        plist = n.child_by_field_name("parameters")
        out: list[dict[str, Any]] = []
        if plist is None:
            return out
        for i, p in enumerate(plist.named_children):
            entry: dict[str, Any] = {}
            name_node: Node | None = None
            if p.type == "identifier":
                name_node = p
            elif p.type in ("typed_parameter", "typed_default_parameter", "default_parameter"):
                name_node = p.child_by_field_name("name")
                if name_node is None and p.named_child_count:
                    name_node = p.named_children[0]
            elif p.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                name_node = p.named_children[0] if p.named_child_count else None
                entry["variadic"] = True
            if name_node is None or name_node.type != "identifier":
                continue
            pname = self.t(name_node)
            entry = {"name": pname, **entry}
            tnode = p.child_by_field_name("type")
            if tnode is not None:
                entry["type"] = self.t(tnode)
                self.pending_params.append((scope, pname, tnode))
            default = p.child_by_field_name("value")
            if default is not None:
                entry["default"] = self.t(default)[:MAX_DEFAULT_CHARS]
            if i == 0 and is_method and scope.cls and "staticmethod" not in decos:
                # the instance, or the class itself in a classmethod (``cls(...)`` instantiates)
                scope.bind(
                    pname,
                    Bind(BindKind.CLS if "classmethod" in decos else BindKind.SELF, scope.cls),
                )
            out.append(entry)
        return out

    def on_import(self, n: Node) -> None:
        scope = self.scope()
        owner = scope.node
        line = n.start_point[0] + 1
        if n.type == "import_statement":
            for c in n.named_children:
                if c.type == "dotted_name":
                    dotted = self.t(c)
                    scope.bind(
                        dotted.split(".", 1)[0], Bind(BindKind.IMPORT, dotted.split(".", 1)[0])
                    )
                elif c.type == "aliased_import":
                    nm, alias = c.child_by_field_name("name"), c.child_by_field_name("alias")
                    if nm is None or alias is None:
                        continue
                    dotted = self.t(nm)
                    scope.bind(self.t(alias), Bind(BindKind.IMPORT, dotted))
                else:
                    continue
                self.imports.append(
                    ImportRef(owner, c.start_point[0] + 1, ImportKind.MODULE, dotted)
                )
            return
        mod = n.child_by_field_name("module_name")
        if mod is None:
            return
        base = self.absolute(mod)
        if base is None:
            return
        for c in n.named_children:
            if c.start_byte == mod.start_byte:
                continue
            if c.type == "wildcard_import":
                scope.star.append(base)
                self.imports.append(ImportRef(owner, line, ImportKind.MODULE, base))
                continue
            if c.type == "dotted_name":
                nm, alias_text = c, self.t(c)
            elif c.type == "aliased_import":
                nm0, al = c.child_by_field_name("name"), c.child_by_field_name("alias")
                if nm0 is None or al is None:
                    continue
                nm, alias_text = nm0, self.t(al)
            else:
                continue
            target = f"{base}.{self.t(nm)}" if base else self.t(nm)
            scope.bind(alias_text, Bind(BindKind.IMPORT, target))
            self.imports.append(ImportRef(owner, c.start_point[0] + 1, ImportKind.NAME, target))

    def absolute(self, mod: Node) -> str | None:
        """The absolute dotted module of ``from <mod> import``; relative ones by the path."""
        if mod.type == "dotted_name":
            return self.t(mod)
        if mod.type != "relative_import":
            return None
        dots = 0
        rest = ""
        for c in mod.named_children:
            if c.type == "import_prefix":
                dots = self.t(c).count(".")
            elif c.type == "dotted_name":
                rest = self.t(c)
        pkg = self.package.split(".") if self.package else []
        if dots > 1:
            if dots - 1 > len(pkg):
                return None
            pkg = pkg[: len(pkg) - (dots - 1)]
        parts = [*pkg, *([rest] if rest else [])]
        return ".".join(parts)

    def on_assignment(self, n: Node) -> None:
        scope = self.scope()
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        ann = n.child_by_field_name("type")
        if left is None:
            return
        if left.type == "identifier":
            name = self.t(left)
            if scope.kind == NodeKind.CLASS:
                decl = self.decls.get(scope.fqn)
                if decl is not None:
                    if ann is not None:
                        self.pending_props.append((decl, name, scope, ann, True))
                    elif right is not None:
                        self.pending_props.append((decl, name, scope, right, False))
            if ann is not None:
                scope.bind(name, Bind(BindKind.ANNOTATION, expr=(ann, scope)))
            elif right is not None:
                scope.bind(name, Bind(BindKind.EXPR, expr=(right, scope)))
        elif left.type == "attribute":
            obj, attr = left.child_by_field_name("object"), left.child_by_field_name("attribute")
            if obj is None or attr is None or obj.type != "identifier":
                return
            binds = scope.binds.get(self.t(obj)) or []
            if not any(b.kind == BindKind.SELF for b in binds) or not scope.cls:
                return
            decl = self.decls.get(scope.cls)
            if decl is None:
                return
            if ann is not None:
                self.pending_props.append((decl, self.t(attr), scope, ann, True))
            elif right is not None and scope.func_name == "__init__":
                self.pending_props.append((decl, self.t(attr), scope, right, False))

    def on_call(self, n: Node) -> None:
        fn = n.child_by_field_name("function")
        if fn is not None:
            self.calls.append((self.scope(), n, fn))
            if self.urls and fn.type == "identifier" and self.t(fn) in routes.URL_CALLS:
                self.route_calls.append((self.scope(), n))
            attr = fn.child_by_field_name("attribute") if fn.type == "attribute" else None
            if attr is not None and self.t(attr) == routes.RULE_CALL:
                self.rule_calls.append((self.scope(), n))

    def on_decorator(self, n: Node) -> None:
        """``@name`` / ``@a.b`` calls its value with the function; ``@f(...)`` is a call
        already (captured as one)."""
        expr = n.named_children[0] if n.named_child_count else None
        if expr is not None and expr.type in ("identifier", "attribute"):
            self.calls.append((self.scope(), n, expr))

    def on_sql(self, n: Node) -> None:
        from ragraf.sql import sqltext

        outer = n
        if n.parent is not None and n.parent.type == "concatenated_string":
            outer = n.parent
        if outer.start_byte in self.sql_done or n.start_byte in self.sql_done:
            return
        self.sql_done.add(outer.start_byte)
        strings = outer.named_children if outer.type == "concatenated_string" else [outer]
        frags: list[tuple[str, str]] = []
        for s in strings:
            for c in s.named_children:
                if c.type in ("string_content", "escape_sequence"):
                    frags.append((FragmentKind.LIT, self.t(c)))
                elif c.type == "interpolation":
                    frags.append((FragmentKind.DYN, self.t(c)))
        try:
            info = sqltext.analyze(tuple(frags))
        except Exception:  # noqa: BLE001 - a string the SQL analysis cannot take is no SQL fact
            self.facts.stats["sql_analysis_errors"] = (
                self.facts.stats.get("sql_analysis_errors", 0) + 1
            )
            return
        if info is None:
            return
        owner = self.sql_owner()
        line = outer.start_point[0] + 1
        ordinal = self.sql_lines.get((owner, line), 0) + 1
        self.sql_lines[(owner, line)] = ordinal
        self.sql.append(
            SqlRef(owner, line, outer.end_point[0] + 1, tuple(frags), SqlAnalysis.of(info), ordinal)
        )

    def sql_owner(self) -> int:
        for _end, sc in reversed(self.stack):
            if sc.kind == NodeKind.FUNCTION:
                return int(sc.node)
        return self.scope().node

    # -- finish ---------------------------------------------------------------------------
    def finish(self) -> None:
        f = self.facts
        impls = {fqn for fqn, _i in f.functions}
        for cls, name, fqn, idx in self.overloads:  # signatures only: the first stands for it
            if cls:
                self.decls[cls].methods.setdefault(name.lower(), idx)
            elif fqn not in impls:
                impls.add(fqn)
                f.functions.append((fqn, idx))
        for scope, pname, tnode in self.pending_params:
            for d in self.annotation(tnode, scope):
                scope.bind(pname, Bind(BindKind.DESC, desc=d))
        for decl, scope, bnode in self.pending_bases:
            line = bnode.start_point[0] + 1
            node = bnode.named_children[0] if bnode.type in ("subscript", "generic_type") else bnode
            for d in self.annotation(node, scope):
                if isinstance(d, Cls):
                    decl.extends.append((d.fqn, line))
                elif isinstance(d, Pending):
                    decl.extends.append((f"?{d.names[0]}", line))  # dotted: resolved by link
        for decl, name, scope, node, is_ann in self.pending_props:
            got = self.annotation(node, scope) if is_ann else [self.desc(node, scope)]
            for pd in got:
                if pd is not None and pd not in decl.props.get(name, []):
                    decl.props.setdefault(name, []).append(pd)
        for idx, scope, rnode in self.pending_returns:
            descs = self.annotation(rnode, scope.parent or scope)
            if descs:
                f.returns[idx] = descs
        refs: list[Ref] = [*self.imports]
        for scope, n, fn in self.calls:
            ref = self.call_ref(scope, n, fn)
            if ref is not None:
                refs.append(ref)
        refs.extend(self.sql)
        for idx, deco in self.route_decos:
            route = routes.decorator_route(self, idx, deco)
            if route is not None:
                refs.append(route)
        for scope, call in self.route_calls:
            route = routes.url_route(self, scope, call)
            if route is not None:
                refs.append(route)
        for scope, call in self.rule_calls:
            route = routes.rule_route(self, scope, call)
            if route is not None:
                refs.append(route)
        refs.sort(key=_ref_order)
        f.refs = refs
        for name, binds in self.top.binds.items():
            for b in binds:
                if b.kind == BindKind.IMPORT:
                    f.global_assigns.append((name, Export(BindKind.IMPORT, b.name)))
                elif b.kind in (BindKind.EXPR, BindKind.ANNOTATION) and b.expr is not None:
                    vnode, sc = b.expr
                    if b.kind == BindKind.ANNOTATION:
                        for d in self.annotation(vnode, sc):
                            f.global_assigns.append((name, Export(BindKind.VALUE, desc=d)))
                    else:
                        d2 = self.desc(vnode, sc)
                        if d2 is not None:
                            f.global_assigns.append((name, Export(BindKind.VALUE, desc=d2)))
        for star in self.top.star:
            f.global_assigns.append(("*", Export(BindKind.IMPORT, star)))
        self.texts((NodeKind.CLASS, NodeKind.FUNCTION, NodeKind.METHOD))
        f.chunks = make_chunks(self.path, self.text, f, "python", self.max_chunk_lines)

    def call_ref(self, scope: Scope, n: Node, fn: Node) -> Ref | None:
        owner = scope.node
        name_node = fn.child_by_field_name("attribute") if fn.type == "attribute" else fn
        line = (name_node or fn).start_point[0] + 1
        c = self.callee(fn, scope)
        kind = c.kind
        raw = self.t(fn)[:120]
        if kind in (CalleeKind.FUNCTION, CalleeKind.EXTERNAL):
            return CallRef(owner, line, (c.name,), raw)
        if kind == CalleeKind.CLASS:
            return NewRef(owner, line, Cls(c.name))
        if kind == CalleeKind.BUILTIN:
            return CallRef(owner, line, (f"{BUILTINS_MODULE}.{c.name}",), raw)
        if kind == CalleeKind.METHOD:
            return MethodCallRef(owner, line, c.receiver, c.name)
        if kind == CalleeKind.UNBOUND:
            stars = _stars(scope)
            return CallRef(owner, line, (*(f"{s}.{c.name}" for s in stars), c.name), raw)
        return DynamicCallRef(owner, line, DynamicHow.VARIABLE, ())


def _stars(scope: Scope) -> list[str]:
    out: list[str] = []
    sc: Scope | None = scope
    while sc is not None:
        out.extend(sc.star)
        sc = sc.parent
    return out


def _ref_order(r: Ref) -> tuple[int, int, str]:
    return (r.line, r.owner, type(r).__name__)


def warm() -> None:
    """Load the grammar, compile the query and import sqlglot before workers fork."""
    from ragraf.sql import sqltext

    _query()
    _parser()
    sqltext.warm()


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one Python file (what the language registry calls); never raises for
    bad input: a file the walk cannot handle comes back ``failed`` with a note."""
    return tstree.safe_extract(Extractor, path, text, max_chunk_lines)

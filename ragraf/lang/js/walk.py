"""The JavaScript / TypeScript walk: one query run over the file
(``queries/<grammar>-tags.scm``), its captures handled in document order, then ``finish``
resolves every use over the final bindings of its scope and turns what was collected into
FileFacts.

Invariants a change must keep:
- Node 0 is the file, node 1 the module (``names.module_of``); the file contains every
  top-level declaration, the module defines them; a class or interface contains its
  methods, a function its nested named functions.
- Declarations get their final ids (``ids.node_id`` over kind, fqn, path, first line).
  A function is declared by ``function f``, or by a function expression / arrow function
  given a name: ``const f = ...``, ``f = ...``, ``exports.f = ...``, ``X.prototype.f =
  ...`` (a method of ``X``), a class field ``f = () => ...`` (a method), an object-literal
  key (``{ f() {} }``, ``{ f: function () {} }``: a method of the object, fqn
  ``<object>.f``) of a named object (``const o = {...}``, ``module.exports = {...}``,
  ``export default {...}``). Any other function expression is anonymous: its uses belong
  to the declaration around it.
- Uses are resolved in ``finish``, flow-insensitively: a call of a name the file binds is
  a ``CallRef`` with its fqn or a ``MethodCallRef``; one through an import keeps an import
  key for ``ragraf.lang.js.link``; a global (``console.log``) is ``globalThis.<name>``
  (external); a call through a variable holding a callable is a ``DynamicCallRef``.
- What the module exports goes to ``global_assigns`` as ``(name, ("jsexp", binding))``
  (``default``, ``=`` for ``module.exports = X``, ``*`` for ``export * from``) so that
  other modules' imports of it resolve; ``link`` removes them.
- Comments go to ``texts`` (a ``/** */`` block right above a declaration is its
  docblock), never into props (P6). A syntax error makes the file ``partial``.
- tree-sitter is imported lazily (``ragraf --help`` must not load it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ragraf import ids
from ragraf.kinds import EdgeKind, Layer, NodeKind
from ragraf.lang import tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    CallRef,
    ClassDecl,
    DynamicCallRef,
    FactNode,
    FileFacts,
    Handler,
    ImportRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
    SqlAnalysis,
    SqlRef,
    TypeDesc,
)
from ragraf.lang.js.builtins import GLOBAL
from ragraf.lang.js.names import (
    Bind,
    Names,
    Scope,
    _pick,
    imp_extend,
    imp_key,
    lookup,
    module_of,
    union,
)

if TYPE_CHECKING:
    from tree_sitter import Node

#: a JavaScript identifier (ASCII; ``$`` is a letter)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
#: a declaration's ``signature`` prop is cut here
MAX_SIGNATURE_CHARS = 300
_FUNCS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "function_signature",
        "construct_signature",
    }
)
_FUNC_VALUES = frozenset(
    {"function_expression", "function", "generator_function", "arrow_function"}
)
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
#: Express-style route registrations: ``app.get('/p', handler)`` (``use`` mounts, no route)
#: Next.js: the app router's route handlers (``app/**/route.ts``) and the pages router's
#: API routes (``pages/api/**.ts``, ``index`` naming its folder)
_NEXT_APP_ROUTE = re.compile(r"(?:^|/)app/((?:[^/]+/)*?)route\.[cm]?[jt]sx?$")
_NEXT_PAGES_API = re.compile(r"(?:^|/)pages/(api(?:/[^.]+?)?)(?:/index)?\.[cm]?[jt]sx?$")
_NEXT_VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
#: NestJS's method decorators -> HTTP method
_NEST_VERBS = {
    "Get": "GET",
    "Post": "POST",
    "Put": "PUT",
    "Patch": "PATCH",
    "Delete": "DELETE",
    "Options": "OPTIONS",
    "Head": "HEAD",
    "All": "*",
}
ROUTE_METHODS = frozenset(
    {"get", "post", "put", "patch", "delete", "del", "all", "options", "head"}
)


def grammar_of(path: str) -> str:
    """The tree-sitter grammar of a file of this package's languages by its suffix."""
    low = path.lower()
    if low.endswith(".tsx"):
        return "tsx"
    if low.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


class Extractor(tstree.Walk, Names):
    """One file's extraction: ``Extractor(path, text).run()`` -> FileFacts."""

    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        self.grammar = grammar_of(path)
        self.lang = "javascript" if self.grammar == "javascript" else self.grammar
        super().__init__(path, text, max_chunk_lines)
        self.module = module_of(path)
        self.decls: dict[str, ClassDecl] = {}  # class fqn -> decl
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
        self.export_binds: list[tuple[str, tuple[Any, ...]]] = []  # (name, binding)
        self.imports: list[ImportRef] = []
        self.sql: list[SqlRef] = []
        self.sql_lines: dict[tuple[int, int], int] = {}

    # -- the run ------------------------------------------------------------------------
    def run(self) -> FileFacts:
        root = tstree.parser(self.grammar).parse(self.src).root_node
        f = self.facts
        end = max(f.lines, 1)
        self.start(root)  # node 0: the file; partial with a note on syntax errors
        f.nodes.append(
            FactNode(
                ids.node_id(NodeKind.MODULE, self.module, self.path, 1),
                NodeKind.MODULE,
                self.module.rsplit("/", 1)[-1],
                self.module,
                1,
                end,
                {},
                Layer.STRUCTURAL,
            )
        )
        f.edges.append(LocalEdge(f.node_id(0), f.node_id(1), EdgeKind.CONTAINS, 1))
        self.top = Scope("module", 0, None, self.module)
        handlers = {
            "definition.class": self.on_class,
            "definition.interface": self.on_interface,
            "definition.enum": self.on_enum,
            "definition.function": self.on_function,
            "reference.field": self.on_field,
            "reference.import": self.on_import,
            "reference.export": self.on_export,
            "reference.assignment": self.on_assignment,
            "reference.call": self.on_call,
            "reference.new": self.on_new,
            "reference.return": self.on_return,
            "reference.jsx": self.on_jsx,
            "text.comment": self.on_comment,
            "sql.string": self.on_sql,
        }
        for _s, _e, cap, node in _captures(root, self.grammar):
            self.advance(node.start_byte)
            handlers[cap](node)
        self.finish()
        return f

    def scope(self) -> Scope:
        return self.stack[-1][1] if self.stack else self.top

    def link(self, parent: Scope, idx: int, line: int) -> None:
        f = self.facts
        if parent.kind == "module":
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

    # -- declarations -------------------------------------------------------------------
    def on_class(self, n: Node) -> None:
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else None
        # an expression: its own name, else what it is assigned to (which is bound)
        assigned = self.assigned_name(n) if n.type == "class" else None
        name = name or assigned
        body = n.child_by_field_name("body")
        if name is None or body is None:
            return
        fqn = self.member_fqn(n, parent, name)
        if fqn is None:
            return
        props: dict[str, Any] = {"signature": self.signature(n)}
        idx = self.add_node(NodeKind.CLASS, name, fqn, n, props)
        decl = ClassDecl(idx, fqn, NodeKind.CLASS, abstract=n.type == "abstract_class_declaration")
        self.decls[fqn] = decl
        self.facts.classes.append(decl)
        for c in n.named_children:
            if c.type != "class_heritage":
                continue
            for h in c.named_children:
                if h.type == "extends_clause":
                    for v in h.named_children:
                        if v.type != "type_arguments":
                            self.pending_bases.append((decl, parent, v, "extends"))
                elif h.type == "implements_clause":
                    for v in h.named_children:
                        self.pending_bases.append((decl, parent, v, "implements"))
                else:  # JavaScript: `extends <expression>`
                    self.pending_bases.append((decl, parent, h, "extends"))
        self.link(parent, idx, n.start_point[0] + 1)
        self.bind_decl(n, parent, assigned or name, ("class", fqn))
        self.export_assigned(n, ("class", fqn))
        scope = Scope("class", idx, parent, fqn, fqn)
        self.class_at[body.start_byte] = scope
        self.stack.append((n.end_byte, scope))
        self.controller_routes(n, body, idx, fqn)

    def controller_routes(self, n: Node, body: Node, idx: int, fqn: str) -> None:
        """NestJS: ``@Controller('cats')`` on the class, ``@Get(':id')`` (``Post``, ``Put``,
        ``Patch``, ``Delete``, ``All``, ``Options``, ``Head``) on a method: the route
        ``GET /cats/:id`` to that method."""
        decorators = [c for c in n.children if c.type == "decorator"]
        if n.parent is not None and n.parent.type == "export_statement":
            decorators += [c for c in n.parent.children if c.type == "decorator"]
        prefix = None
        for d in decorators:
            name, arg = self._decorator_call(d)
            if name == "Controller":
                prefix = self._decorator_path(arg)
        if prefix is None:
            return
        pending: list[Node] = []
        for c in body.named_children:
            if c.type == "decorator":
                pending.append(c)
                continue
            if c.type == "method_definition" and pending:
                mname = c.child_by_field_name("name")
                for d in pending:
                    name, arg = self._decorator_call(d)
                    verb = _NEST_VERBS.get(name or "")
                    sub = self._decorator_path(arg)
                    if verb is None or sub is None or mname is None:
                        continue
                    path = "/" + "/".join(p.strip("/") for p in (prefix, sub) if p.strip("/"))
                    self.decorated_routes.append(
                        RouteRef(
                            idx,
                            d.start_point[0] + 1,
                            (verb,),
                            path,
                            Handler("method", ("class", fqn), self.t(mname)),
                        )
                    )
            pending = []

    def _decorator_call(self, d: Node) -> tuple[str | None, Node | None]:
        """(name, first argument) of ``@Name(arg, ...)``; (name, None) of ``@Name()``."""
        call = next((c for c in d.named_children if c.type == "call_expression"), None)
        if call is None:
            return None, None
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        return (self.t(fn) if fn is not None and fn.type == "identifier" else None), first

    def _decorator_path(self, arg: Node | None) -> str | None:
        """``'cats'``; ``{ path: 'cats' }``; '' when the decorator has no argument."""
        if arg is None:
            return ""
        sv = self.string_value(arg)
        if sv is not None:
            return sv
        if arg.type == "object":
            for pair in arg.named_children:
                key = pair.child_by_field_name("key")
                if pair.type == "pair" and key is not None and self.t(key) == "path":
                    return self.string_value(pair.child_by_field_name("value"))
        return None

    def on_interface(self, n: Node) -> None:
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        body = n.child_by_field_name("body")
        if name_node is None or body is None:
            return
        name = self.t(name_node)
        fqn = f"{parent.fqn}.{name}"
        idx = self.add_node(NodeKind.INTERFACE, name, fqn, n, {"signature": self.signature(n)})
        decl = ClassDecl(idx, fqn, NodeKind.INTERFACE)
        self.decls[fqn] = decl
        self.facts.classes.append(decl)
        for c in n.named_children:
            if c.type == "extends_type_clause":
                for v in c.named_children:
                    self.pending_bases.append((decl, parent, v, "extends"))
        self.link(parent, idx, n.start_point[0] + 1)
        parent.bind(name, ("class", fqn))
        scope = Scope("class", idx, parent, fqn, fqn)
        self.class_at[body.start_byte] = scope
        self.stack.append((n.end_byte, scope))

    def on_enum(self, n: Node) -> None:
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return
        name = self.t(name_node)
        fqn = f"{parent.fqn}.{name}"
        idx = self.add_node(NodeKind.ENUM, name, fqn, n, {})
        decl = ClassDecl(idx, fqn, NodeKind.ENUM)
        self.decls[fqn] = decl
        self.facts.classes.append(decl)
        self.link(parent, idx, n.start_point[0] + 1)
        parent.bind(name, ("class", fqn))

    def bind_decl(self, n: Node, scope: Scope, name: str, b: Bind) -> None:
        """Bind a declaration's name where it is visible: the scope of ``function f`` /
        ``class C`` / ``const f = ...``; nothing for members (``o.f = ...``)."""
        p = n.parent
        if n.type in (
            "function_declaration",
            "generator_function_declaration",
            "function_signature",
        ) or (n.type in ("class_declaration", "abstract_class_declaration")):
            scope.bind(name, b)
        elif p is not None and p.type == "variable_declarator":
            scope.bind(name, b)
        elif p is not None and p.type == "assignment_expression":
            left = p.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                home = _declaring(scope, name) or self.top
                home.bind(name, b)
        elif p is not None and p.type == "export_statement":
            self.top.bind(name, b)

    def assigned_name(self, n: Node) -> str | None:
        """The name an anonymous function or class expression is given by its context."""
        p = n.parent
        if p is None:
            return None
        if p.type == "variable_declarator":
            nm = p.child_by_field_name("name")
            return self.t(nm) if nm is not None and nm.type == "identifier" else None
        if p.type == "assignment_expression":
            left = p.child_by_field_name("left")
            if left is None:
                return None
            if left.type == "identifier":
                return self.t(left)
            if left.type == "member_expression":
                prop = left.child_by_field_name("property")
                if prop is None or prop.type != "property_identifier":
                    return None
                name = self.t(prop)
                if name == "exports" and self.t(left) == "module.exports":
                    own = n.child_by_field_name("name")
                    return self.t(own) if own is not None else "exports"
                return name
            return None
        if p.type == "pair":
            key = p.child_by_field_name("key")
            if key is None:
                return None
            if key.type == "property_identifier":
                return self.t(key)
            if key.type == "string":
                return self.string_value(key)
            return None
        if p.type in ("public_field_definition", "field_definition"):
            nm = p.child_by_field_name("name") or p.child_by_field_name("property")
            return self.t(nm) if nm is not None and nm.type == "property_identifier" else None
        if p.type == "export_statement":
            return "default"
        return None

    def member_fqn(self, n: Node, scope: Scope, name: str) -> str | None:
        """The fqn of a declaration named ``name`` by its context (None: anonymous)."""
        p = n.parent
        if p is not None and p.type == "pair":
            obj = p.parent
            base = self.obj_fqn(obj, scope) if obj is not None else None
            if base is None:
                return None
            self.obj_members.setdefault(base, set()).add(name)
            return f"{base}.{name}"
        if p is not None and p.type == "assignment_expression":
            left = p.child_by_field_name("left")
            if left is not None and left.type == "member_expression":
                return self.assigned_member_fqn(left, scope, name)
        return f"{scope.fqn}.{name}"

    def assigned_member_fqn(self, left: Node, scope: Scope, name: str) -> str | None:
        """``module.exports.f = ``, ``exports.f = `` -> ``<module>.f``; ``X.prototype.f =`` ->
        ``<X>.f``; ``o.f =`` (``o`` a named object of the file) -> ``<o>.f``; another
        ``a.f =`` -> ``<scope>.a.f``."""
        obj = left.child_by_field_name("object")
        if obj is None:
            return None
        text = self.t(obj)
        if text in ("exports", "module.exports") or self.t(left) == "module.exports":
            return f"{self.module}.{name}"
        if obj.type == "member_expression":
            prop = obj.child_by_field_name("property")
            inner = obj.child_by_field_name("object")
            if prop is not None and self.t(prop) == "prototype" and inner is not None:
                cls = self.class_of(inner, scope)
                if cls is not None:
                    return f"{cls}.{name}"
        if obj.type == "identifier":
            binds = lookup(scope, text)
            if binds:
                b = _pick(binds)
                if b[0] == "obj":
                    self.obj_members.setdefault(b[1], set()).add(name)
                    return f"{b[1]}.{name}"
                if b[0] in ("class", "func"):
                    return f"{b[1]}.{name}"
        if not all(_IDENT.fullmatch(part) for part in text.split(".")):
            return None
        return f"{scope.fqn}.{text}.{name}"

    def class_of(self, n: Node, scope: Scope) -> str | None:
        """The class ``X`` names in ``X.prototype.f = ...``: a class of the file, or a
        function of the file (an ES5 constructor, made a class so its instances have it)."""
        if n.type != "identifier":
            return None
        binds = lookup(scope, self.t(n))
        if not binds:
            return None
        b = _pick(binds)
        if b[0] == "class":
            return str(b[1])
        if b[0] == "func":
            fqn = str(b[1])
            if fqn not in self.decls:
                idx = next((i for fq, i in self.facts.functions if fq == fqn), None)
                if idx is None:
                    return None
                decl = ClassDecl(idx, fqn, NodeKind.CLASS)
                self.decls[fqn] = decl
                self.facts.classes.append(decl)
            return fqn
        return None

    def obj_fqn(self, obj: Node, scope: Scope) -> str | None:
        """The fqn of a named object literal (its methods are ``<fqn>.<key>``)."""
        if obj.start_byte in self._obj_fqn:
            return self._obj_fqn[obj.start_byte]
        got: str | None = None
        p = obj.parent
        while p is not None and p.type in ("parenthesized_expression", "as_expression"):
            p = p.parent
        if p is not None:
            if p.type == "variable_declarator":
                nm = p.child_by_field_name("name")
                if nm is not None and nm.type == "identifier":
                    got = f"{scope.fqn}.{self.t(nm)}"
            elif p.type == "assignment_expression":
                left = p.child_by_field_name("left")
                if left is not None and self.t(left) in ("module.exports", "exports"):
                    got = self.module
                elif left is not None and left.type == "identifier":
                    got = f"{scope.fqn}.{self.t(left)}"
                elif left is not None and left.type == "member_expression":
                    prop = left.child_by_field_name("property")
                    if prop is not None and prop.type == "property_identifier":
                        got = self.assigned_member_fqn(left, scope, self.t(prop))
            elif p.type == "export_statement":
                got = f"{self.module}.default"
            elif p.type == "pair":
                key = p.child_by_field_name("key")
                outer = p.parent
                if key is not None and key.type == "property_identifier" and outer is not None:
                    base = self.obj_fqn(outer, scope)
                    got = f"{base}.{self.t(key)}" if base else None
        self._obj_fqn[obj.start_byte] = got
        return got

    def on_function(self, n: Node) -> None:
        parent = self.scope()
        ty = n.type
        p = n.parent
        cls_scope = self.class_at.get(p.start_byte) if p is not None else None
        if ty in (
            "method_definition",
            "method_signature",
            "abstract_method_signature",
            "construct_signature",
        ) and (p is not None and p.type in ("class_body", "interface_body", "object_type")):
            name_node = n.child_by_field_name("name")
            if cls_scope is None or (name_node is None and ty != "construct_signature"):
                self.anonymous(n, parent)
                return
            # `new (...): T` in an interface: how its values are constructed
            self.method(n, cls_scope, self.member_name(name_node) if name_node else "new")
            return
        if p is not None and p.type in ("public_field_definition", "field_definition"):
            owner = self.class_at.get(p.parent.start_byte) if p.parent is not None else None
            name = self.assigned_name(n)
            if owner is not None and name:
                self.method(n, owner, name)
                return
        if ty in ("function_declaration", "generator_function_declaration", "function_signature"):
            name_node = n.child_by_field_name("name")
            name = self.t(name_node) if name_node is not None else "default"
        elif ty == "method_definition":  # in an object literal
            name_node = n.child_by_field_name("name")
            name = self.member_name(name_node) if name_node is not None else None
            obj = p
            base = self.obj_fqn(obj, parent) if obj is not None else None
            if name is None or base is None:
                self.anonymous(n, parent)
                return
            self.obj_members.setdefault(base, set()).add(name)
            self.function(n, parent, name, f"{base}.{name}", NodeKind.METHOD)
            return
        else:
            name = self.assigned_name(n)
        own = n.child_by_field_name("name") if ty in _FUNC_VALUES else None
        fqn = self.member_fqn(n, parent, name) if name else None
        if fqn is None and own is not None:
            # a named function expression (``cb(function onDone() {...})``): a declaration
            # by its own name, which is bound only inside it
            name = self.t(own)
            fqn = f"{parent.fqn}.{name}"
            self.function(n, parent, name, fqn, NodeKind.FUNCTION)
            self.stack[-1][1].bind(name, ("func", fqn))
            self.named_values[n.start_byte] = fqn
            return
        if not name or fqn is None:
            self.anonymous(n, parent)
            return
        kind = NodeKind.FUNCTION
        cls: str | None = None
        if (
            p is not None
            and p.type == "pair"
            or (fqn.rpartition(".")[0] in self.decls and fqn != f"{parent.fqn}.{name}")
        ):
            kind = NodeKind.METHOD
            owner_cls = fqn.rpartition(".")[0]
            if owner_cls in self.decls:
                cls = owner_cls
                self.decls[owner_cls].methods.setdefault(name.lower(), len(self.facts.nodes))
        self.function(n, parent, name, fqn, kind, cls)
        self.named_values[n.start_byte] = fqn
        if kind == NodeKind.FUNCTION or cls is None:
            self.bind_decl(n, parent, name, ("func", fqn))
        self.export_assigned(n, ("func", fqn))

    def member_name(self, n: Node) -> str:
        if n.type == "string":
            return self.string_value(n) or self.t(n)
        return self.t(n)

    def export_assigned(self, n: Node, b: Bind) -> None:
        """``module.exports = function`` / ``exports.f = function``: what the module exports."""
        p = n.parent
        if p is None or p.type != "assignment_expression":
            return
        left = p.child_by_field_name("left")
        if left is None:
            return
        text = self.t(left)
        if text == "module.exports":
            self.export_binds.append(("=", b))
        elif text.startswith(("exports.", "module.exports.")) and text.count(".") == (
            1 if text.startswith("exports.") else 2
        ):
            self.export_binds.append((text.rpartition(".")[2], b))

    def anonymous(self, n: Node, parent: Scope) -> None:
        """A function without a name: a scope for its parameters, owned by its parent."""
        scope = Scope("function", parent.node, parent, parent.fqn, arrow=n.type == "arrow_function")
        if n.type != "arrow_function":
            scope.this_cls = None
        self.params(n, scope)
        self.stack.append((n.end_byte, scope))

    def method(self, n: Node, cls_scope: Scope, name: str) -> None:
        fqn = f"{cls_scope.fqn}.{name}"
        decl = self.decls[cls_scope.fqn]
        decl.methods.setdefault(name.lower(), len(self.facts.nodes))
        self.function(n, cls_scope, name, fqn, NodeKind.METHOD, cls_scope.fqn)

    def function(
        self, n: Node, parent: Scope, name: str, fqn: str, kind: str, cls: str | None = None
    ) -> None:
        props: dict[str, Any] = {"signature": self.signature(n)}
        if any(c.type == "async" for c in n.children):
            props["async"] = True
        if any(c.type == "static" for c in n.children):
            props["static"] = True
        idx = self.add_node(kind, name, fqn, n, props)
        line = n.start_point[0] + 1
        self.link(parent, idx, line)
        if kind == NodeKind.FUNCTION or cls is None:
            self.facts.functions.append((fqn, idx))
        scope = Scope("function", idx, parent, fqn, cls, arrow=False)
        if cls is None and n.type == "arrow_function":
            scope.arrow = True
        props["parameters"] = self.params(n, scope)
        ret = n.child_by_field_name("return_type")
        if ret is not None:
            props["return_type"] = self.t(ret).lstrip(": ").strip()
            self.pending_rtypes.append((idx, scope, ret))
        self.stack.append((n.end_byte, scope))

    def params(self, n: Node, scope: Scope) -> list[dict[str, Any]]:
        plist = n.child_by_field_name("parameters") or n.child_by_field_name("parameter")
        out: list[dict[str, Any]] = []
        if plist is None:
            return out
        items = [plist] if plist.type == "identifier" else plist.named_children
        for p in items:
            entry: dict[str, Any] = {}
            target = p
            if p.type in ("required_parameter", "optional_parameter"):
                target = p.child_by_field_name("pattern") or p
                tnode = p.child_by_field_name("type")
                if tnode is not None:
                    entry["type"] = self.t(tnode).lstrip(": ").strip()
            else:
                tnode = None
            if target.type == "assignment_pattern":
                target = target.child_by_field_name("left") or target
            if target.type == "rest_pattern":
                entry["variadic"] = True
                target = target.named_children[0] if target.named_child_count else target
            if target.type == "identifier":
                pname = self.t(target)
                out.append({"name": pname, **entry})
                scope.bind(pname, ("local",))
                if tnode is not None:
                    self.pending_params.append((scope, pname, tnode))
            else:
                for ident in _pattern_names(target):
                    scope.bind(self.t(ident), ("local",))
                out.append({"name": self.t(target)[:60], **entry})
        return out

    def on_field(self, n: Node) -> None:
        p = n.parent
        owner = self.class_at.get(p.start_byte) if p is not None else None
        if owner is None:
            return
        name_node = n.child_by_field_name("name") or n.child_by_field_name("property")
        if name_node is None:
            return
        decl = self.decls[owner.fqn]
        name = self.t(name_node)
        tnode = n.child_by_field_name("type")
        value = n.child_by_field_name("value")
        if tnode is not None:
            self.pending_props.append((decl, name, owner, tnode, True))
        elif value is not None and value.type not in _FUNC_VALUES:
            self.pending_props.append((decl, name, owner, value, False))

    # -- imports and exports ---------------------------------------------------------------
    def on_import(self, n: Node) -> None:
        scope = self.scope()
        src = n.child_by_field_name("source")
        for c in n.named_children:
            if c.type == "import_require_clause":  # TS: import x = require('y')
                ident = next((k for k in c.named_children if k.type == "identifier"), None)
                spec = self.string_value(c.child_by_field_name("source"))
                if ident is not None and spec is not None:
                    key = imp_key(spec, ["="])
                    scope.bind(self.t(ident), ("import", key))
                    self.imports.append(ImportRef(scope.node, n.start_point[0] + 1, "jsimp", key))
                return
        spec = self.string_value(src)
        if spec is None:
            return
        line = n.start_point[0] + 1
        clause = next((c for c in n.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.imports.append(ImportRef(scope.node, line, "jsimp", imp_key(spec, [])))
            return
        for c in clause.named_children:
            if c.type == "identifier":
                self.import_name(scope, c, spec, ["default"])
            elif c.type == "namespace_import":
                ident = next((k for k in c.named_children if k.type == "identifier"), None)
                if ident is not None:
                    self.import_name(scope, ident, spec, ["*"])
            elif c.type == "named_imports":
                for s in c.named_children:
                    if s.type != "import_specifier":
                        continue
                    nm, alias = s.child_by_field_name("name"), s.child_by_field_name("alias")
                    if nm is None:
                        continue
                    self.import_name(scope, alias or nm, spec, [self.member_name(nm)])

    def import_name(self, scope: Scope, local: Node, spec: str, names: list[str]) -> None:
        key = imp_key(spec, names)
        scope.bind(self.t(local), ("import", key))
        self.imports.append(ImportRef(scope.node, local.start_point[0] + 1, "jsimp", key))

    def on_export(self, n: Node) -> None:
        src = n.child_by_field_name("source")
        line = n.start_point[0] + 1
        if src is not None:
            spec = self.string_value(src)
            if spec is None:
                return
            clause = next((c for c in n.named_children if c.type == "export_clause"), None)
            ns = next((c for c in n.named_children if c.type == "namespace_export"), None)
            if clause is not None:
                for s in clause.named_children:
                    if s.type != "export_specifier":
                        continue
                    nm, alias = s.child_by_field_name("name"), s.child_by_field_name("alias")
                    if nm is None:
                        continue
                    key = imp_key(spec, [self.member_name(nm)])
                    self.export_binds.append((self.member_name(alias or nm), ("import", key)))
                    self.imports.append(ImportRef(0, s.start_point[0] + 1, "jsimp", key))
            elif ns is not None:
                ident = next((k for k in ns.named_children), None)
                key = imp_key(spec, ["*"])
                if ident is not None:
                    self.export_binds.append((self.member_name(ident), ("import", key)))
                self.imports.append(ImportRef(0, line, "jsimp", key))
            else:
                self.export_binds.append(("*", ("star", spec)))
                self.imports.append(ImportRef(0, line, "jsimp", imp_key(spec, [])))
            return
        decl = n.child_by_field_name("declaration")
        value = n.child_by_field_name("value")
        default = any(c.type == "default" for c in n.children)
        if decl is not None:
            for name in self.declared_names(decl):
                self.exports.append(("default" if default else name, name))
            return
        clause = next((c for c in n.named_children if c.type == "export_clause"), None)
        if clause is not None:
            for s in clause.named_children:
                if s.type == "export_specifier":
                    nm, alias = s.child_by_field_name("name"), s.child_by_field_name("alias")
                    if nm is not None:
                        self.exports.append((self.member_name(alias or nm), self.t(nm)))
            return
        if value is None and n.named_child_count == 1 and n.named_children[0].type == "identifier":
            value = n.named_children[0]  # TS: export = X
            default = False
            self.exports.append(("=", self.t(value)))
            return
        if value is None:
            return
        value = self.strip(value)
        if value.type == "identifier":
            self.exports.append(("default", self.t(value)))
        elif value.type in _FUNC_VALUES or value.type in _CLASSES:
            own = value.child_by_field_name("name")
            if own is not None:
                self.exports.append(("default", self.t(own)))
            # an anonymous one is named `default` by on_function / on_class
            self.exports.append(("default", "default"))
        elif value.type == "object":
            self.export_binds.append(("default", ("obj", f"{self.module}.default")))
        else:
            self.export_binds.append(("default", ("expr", (value, self.top))))

    def declared_names(self, decl: Node) -> list[str]:
        if decl.type in ("lexical_declaration", "variable_declaration"):
            out = []
            for d in decl.named_children:
                if d.type == "variable_declarator":
                    nm = d.child_by_field_name("name")
                    if nm is not None and nm.type == "identifier":
                        out.append(self.t(nm))
            return out
        nm = decl.child_by_field_name("name")
        return [self.t(nm)] if nm is not None else []

    # -- bindings -------------------------------------------------------------------------
    def on_assignment(self, n: Node) -> None:
        scope = self.scope()
        if n.type == "variable_declarator":
            name = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if name is None:
                return
            if name.type == "identifier":
                self.bind_value(scope, scope, self.t(name), value)
            else:
                key = self.imported(value, scope) if value is not None else None
                for ident, member in _pattern_members(name, self):
                    if key and member:
                        scope.bind(self.t(ident), ("import", imp_extend(key, member)))
                    else:
                        scope.bind(self.t(ident), ("local",))
            return
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None or right is None:
            return
        while right.type == "assignment_expression":  # a = b = value
            right = right.child_by_field_name("right") or right
            if right.type != "assignment_expression":
                break
        if left.type == "identifier":
            lname = self.t(left)
            home = _declaring(scope, lname) or self.top
            self.bind_value(home, scope, lname, right)
            return
        if left.type != "member_expression":
            return
        obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
        if obj is None or prop is None or prop.type != "property_identifier":
            return
        text = self.t(left)
        if text == "module.exports":
            if right.type not in _FUNC_VALUES and right.type not in _CLASSES:
                self.export_binds.append(("=", self.value_bind(right, scope)))
            return
        if self.t(obj) in ("exports", "module.exports"):
            if right.type not in _FUNC_VALUES and right.type not in _CLASSES:
                self.export_binds.append((self.t(prop), self.value_bind(right, scope)))
            return
        if obj.type == "this":
            cls = scope.this_class()
            fn = _enclosing_function(scope)
            decl = self.decls.get(cls) if cls else None
            if decl is not None and fn is not None and fn.fqn.endswith(".constructor"):
                self.pending_props.append((decl, self.t(prop), scope, right, False))

    def bind_value(self, home: Scope, scope: Scope, name: str, value: Node | None) -> None:
        if value is None:
            home.bind(name, ("local",))
            return
        v = self.strip(value)
        if v.type in _FUNC_VALUES or v.type in _CLASSES:
            if v.type in _CLASSES and v.child_by_field_name("body") is None:
                home.bind(name, ("local",))
            return  # bound by on_function / on_class (a declaration)
        home.bind(name, self.value_bind(value, scope))

    def value_bind(self, value: Node, scope: Scope) -> Bind:
        v = self.strip(value)
        if v.type == "object":
            fqn = self.obj_fqn(v, scope)
            if fqn is not None:
                self.obj_value_members(v, fqn, scope)
                return ("obj", fqn)
        key = self.imported(v, scope)
        if key:
            return ("import", key)
        if v.type in ("identifier", "shorthand_property_identifier"):
            binds = lookup(scope, self.t(v))
            if binds:
                b = _pick(binds)
                if b[0] in ("class", "func", "obj", "import"):
                    return b
            if v.type == "shorthand_property_identifier":
                return ("local",)
        return ("expr", (value, scope))

    def obj_value_members(self, obj: Node, fqn: str, scope: Scope) -> None:
        """``{a, b: c}``: what the keys of a named object hold (methods are declarations)."""
        members = self.obj_values.setdefault(fqn, {})
        for c in obj.named_children:
            if c.type == "shorthand_property_identifier":
                members.setdefault(self.t(c), (c, scope))
            elif c.type == "pair":
                k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
                if (
                    k is not None
                    and k.type == "property_identifier"
                    and v is not None
                    and v.type in ("identifier", "member_expression")
                ):
                    members.setdefault(self.t(k), (v, scope))

    # -- uses -------------------------------------------------------------------------------
    def on_call(self, n: Node) -> None:
        scope = self.scope()
        fn = n.child_by_field_name("function")
        if fn is None:
            return
        if fn.type == "import":  # import('x')
            args = n.child_by_field_name("arguments")
            spec = (
                self.string_value(args.named_children[0]) if args and args.named_children else None
            )
            if spec is not None:
                self.imports.append(
                    ImportRef(scope.node, n.start_point[0] + 1, "jsimp", imp_key(spec, ["*"]))
                )
            return
        req = self.require_spec(n)
        if req is not None:
            self.imports.append(
                ImportRef(scope.node, n.start_point[0] + 1, "jsimp", imp_key(req, ["="]))
            )
            return
        self.calls.append((scope, n))
        self.route(scope, n, fn)

    def route(self, scope: Scope, n: Node, fn: Node) -> None:
        """``app.get('/p', ..., handler)``, ``router.route('/p').post(handler)``."""
        if fn.type != "member_expression":
            return
        prop = fn.child_by_field_name("property")
        if prop is None:
            return
        m = self.t(prop).lower()
        if m not in ROUTE_METHODS:
            return
        args = n.child_by_field_name("arguments")
        vals = [a for a in (args.named_children if args is not None else []) if a.type != "comment"]
        obj = fn.child_by_field_name("object")
        path: str | None = None
        handler: Node | None = None
        if len(vals) >= 2:
            path, handler = self.string_value(vals[0]), vals[-1]
        elif len(vals) == 1 and obj is not None and obj.type == "call_expression":
            inner = obj.child_by_field_name("function")
            iargs = obj.child_by_field_name("arguments")
            if (
                inner is not None
                and inner.type == "member_expression"
                and self.t(inner).endswith(".route")
                and iargs is not None
                and iargs.named_child_count == 1
            ):
                path, handler = self.string_value(iargs.named_children[0]), vals[0]
        if path is None or handler is None or not path.startswith("/"):
            return
        method = "*" if m == "all" else ("DELETE" if m == "del" else m.upper())
        self.routes.append((scope, n, (method,), path, handler))

    def on_new(self, n: Node) -> None:
        self.news.append((self.scope(), n))

    def on_return(self, n: Node) -> None:
        scope = self.scope()
        fn = _enclosing_function(scope)
        if fn is None or fn.node == 0 or not n.named_child_count:
            return
        if scope.kind == "function" and scope.node == fn.node and scope is not fn:
            return  # a return of an anonymous function inside it
        self.returns.setdefault(fn.node, []).append((scope, n.named_children[0]))

    def on_jsx(self, n: Node) -> None:
        name = n.child_by_field_name("name")
        if name is None:
            return
        text = self.t(name)
        if name.type == "identifier" and not text[:1].isupper():
            return  # <div>: an intrinsic element
        if name.type in ("identifier", "member_expression"):
            self.jsx.append((self.scope(), name))

    def on_sql(self, n: Node) -> None:
        from ragraf.sql import sqltext

        frags: list[tuple[str, str]] = []
        for c in n.named_children:
            if c.type in ("string_fragment", "escape_sequence"):
                frags.append(("lit", self.t(c)))
            elif c.type == "template_substitution":
                frags.append(("dyn", self.t(c)))
        try:
            info = sqltext.analyze(tuple(frags))
        except Exception:  # noqa: BLE001 - a string the SQL analysis cannot take is no SQL fact
            self.facts.stats["sql_analysis_errors"] = (
                self.facts.stats.get("sql_analysis_errors", 0) + 1
            )
            return
        if info is None:
            return
        fn = _enclosing_function(self.scope())
        owner = fn.node if fn is not None else self.scope().node
        line = n.start_point[0] + 1
        ordinal = self.sql_lines.get((owner, line), 0) + 1
        self.sql_lines[(owner, line)] = ordinal
        self.sql.append(
            SqlRef(owner, line, n.end_point[0] + 1, tuple(frags), SqlAnalysis.of(info), ordinal)
        )

    # -- finish ---------------------------------------------------------------------------
    def finish(self) -> None:
        f = self.facts
        for scope, pname, tnode in self.pending_params:
            for d in self.annotation(tnode, scope):
                scope.bind(pname, ("desc", d))
        for decl, scope, bnode, rel in self.pending_bases:
            target = decl.extends if rel == "extends" else decl.implements
            base = self.base_name(bnode, scope)
            if base:
                target.append((base, bnode.start_point[0] + 1))
        for decl, name, scope, node, is_ann in self.pending_props:
            got = self.annotation(node, scope) if is_ann else [self.desc(node, scope)]
            for pd in got:
                if pd is not None and pd not in decl.props.get(name, []):
                    decl.props.setdefault(name, []).append(pd)
        for idx, scope, rnode in self.pending_rtypes:
            descs = self.annotation(rnode, scope.parent or scope)
            if descs:
                f.returns[idx] = descs
        for idx, rets in self.returns.items():
            if idx in f.returns:
                continue
            ret = union([x for sc, e in rets if (x := self.desc(e, sc)) is not None])
            if ret is not None:
                f.returns[idx] = [ret]
        refs: list[Ref] = [*self.imports]
        for scope, n in self.calls:
            fn = n.child_by_field_name("function")
            if fn is not None:
                ref = self.call_ref(scope, fn)
                if ref is not None:
                    refs.append(ref)
        for scope, n in self.jsx:
            ref = self.call_ref(scope, n)
            if ref is not None and not isinstance(ref, DynamicCallRef):
                refs.append(ref)
        for scope, n in self.news:
            ctor = n.child_by_field_name("constructor")
            cls = self.instance(ctor, scope) if ctor is not None else None
            if cls is not None:
                refs.append(NewRef(scope.node, n.start_point[0] + 1, cls))
        for scope, n, methods, path, hnode in self.routes:
            handler = self.handler(hnode, scope)
            if handler is not None:
                refs.append(RouteRef(scope.node, n.start_point[0] + 1, methods, path, handler))
        refs.extend(self.decorated_routes)
        refs.extend(self.file_routes())
        refs.extend(self.sql)
        refs.sort(key=_ref_order)
        f.refs = refs
        self.export_table()
        self.attach_docblocks()
        self.texts(_DOCUMENTED)
        f.chunks = make_chunks(self.path, self.text, f, self.lang, self.max_chunk_lines)

    def base_name(self, bnode: Node, scope: Scope) -> str | None:
        """What a class extends or implements: a class of the file (its fqn), an import key
        (``link`` resolves it), or the name as written (outside the corpus)."""
        node = bnode
        if node.type == "generic_type":
            node = node.child_by_field_name("name") or node
        if node.type == "call_expression":
            return None  # a mixin call: what it returns is not known here
        key = self.imported(node, scope)
        if key:
            return key
        text = self.t(node)
        if node.type in ("identifier", "type_identifier"):
            binds = lookup(scope, text)
            if binds:
                b = _pick(binds)
                return str(b[1]) if b[0] in ("class", "import") else None
            return f"{GLOBAL}.{text}"
        if node.type in ("member_expression", "nested_type_identifier"):
            return text
        return None

    def handler(self, hnode: Node, scope: Scope) -> Handler | None:
        h = self.strip(hnode)
        if h.type in _FUNC_VALUES:
            fqn = self.named_values.get(h.start_byte)
            return Handler("function", None, fqn) if fqn else Handler("closure")
        if h.type not in ("identifier", "member_expression"):
            return None
        c = self.callee(h, scope)
        if c[0] == "func":
            return Handler("function", None, c[1])
        if c[0] == "import":
            return Handler("function", None, c[1])
        if c[0] == "method" and c[1] is not None:
            return Handler("method", c[1], c[2])
        return None

    def call_ref(self, scope: Scope, fn: Node) -> Ref | None:
        owner = scope.node
        name_node = fn.child_by_field_name("property") if fn.type == "member_expression" else fn
        line = (name_node or fn).start_point[0] + 1
        c = self.callee(fn, scope)
        tag = c[0]
        raw = self.t(fn)[:120]
        if tag == "func":
            return CallRef(owner, line, (c[1],), raw)
        if tag == "class":
            return NewRef(owner, line, ("class", c[1]))
        if tag == "import":
            return CallRef(owner, line, (c[1],), raw)
        if tag == "global":
            return CallRef(owner, line, (f"{GLOBAL}.{c[1]}",), raw)
        if tag == "method":
            return MethodCallRef(owner, line, c[1], c[2])
        if tag == "unbound":
            return CallRef(owner, line, (c[1],), raw)
        return DynamicCallRef(owner, line, "variable", ())

    def file_routes(self) -> list[RouteRef]:
        """Routes a file is by where it lies (Next.js): ``app/api/users/route.ts`` exporting
        ``GET`` / ``POST``... is ``GET /api/users`` (route groups ``(name)`` dropped, dynamic
        segments kept as written, ``[id]``); ``pages/api/users/[id].ts`` with a default
        export is ``* /api/users/[id]``."""
        path = self.facts.path
        app = _NEXT_APP_ROUTE.search(path)
        pages = _NEXT_PAGES_API.search(path) if app is None else None
        if app is None and pages is None:
            return []
        exported: dict[str, str] = {}
        for name, local in self.exports:
            b = _pick(self.top.binds.get(local) or [])
            if b and b[0] == "func":
                exported[name] = b[1]
        for name, b in self.export_binds:
            if b[0] == "func":
                exported.setdefault(name, b[1])
        lines = {n.fqn: n.start_line for n in self.facts.nodes}
        out = []
        if app is not None:
            segs = [s for s in app.group(1).split("/") if s and not s.startswith("(")]
            url = "/" + "/".join(segs)
            for verb in _NEXT_VERBS:
                fqn = exported.get(verb)
                if fqn:
                    out.append(
                        RouteRef(0, lines.get(fqn, 1), (verb,), url, Handler("function", None, fqn))
                    )
        elif pages is not None and exported.get("default"):
            fqn = exported["default"]
            url = "/" + pages.group(1)
            out.append(RouteRef(0, lines.get(fqn, 1), ("*",), url, Handler("function", None, fqn)))
        return out

    def export_table(self) -> None:
        """What the module exports, for other modules' imports (``link``)."""
        f = self.facts
        out: list[tuple[str, tuple[Any, ...]]] = list(self.export_binds)
        for exported, local in self.exports:
            binds = self.top.binds.get(local)
            if not binds:
                continue
            out.append((exported, _pick(binds)))
        for name, b in out:
            tag = b[0]
            if tag in ("func", "class", "obj", "star"):
                f.global_assigns.append((name, ("jsexp", b)))
            elif tag == "import":
                f.global_assigns.append((name, ("jsexp", ("import", b[1]))))
            elif tag == "expr":
                node, sc = b[1]
                d = self.desc(node, sc)
                if d is not None:
                    f.global_assigns.append((name, ("jsexp", ("value", d))))
        for fqn, members in sorted(self.obj_values.items()):
            for key, (node, sc) in sorted(members.items()):
                b = self.value_bind(node, sc)
                if b[0] in ("func", "class", "obj", "import"):
                    f.global_assigns.append((fqn, ("jsobj", key, b)))

    def attach_docblocks(self) -> None:
        """A ``/**`` comment right before a declaration is its docblock (the others belong
        to the innermost declaration around them: ``tstree.Walk.texts``)."""
        starts: dict[int, int] = {}
        spans = sorted(
            (n.start_line, n.end_line, i)
            for i, n in enumerate(self.facts.nodes)
            if i > 1 and n.kind in _DOCUMENTED
        )
        for start, _end, i in spans:
            starts.setdefault(start, i)
        self.comments = [
            (start, end, txt, starts.get(end + 1) if txt.startswith("/**") else None)
            for start, end, txt, _owner in self.comments
        ]


_DOCUMENTED = (NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.FUNCTION, NodeKind.METHOD)


def _declaring(scope: Scope, name: str) -> Scope | None:
    sc: Scope | None = scope
    while sc is not None:
        if sc.kind != "class" and name in sc.binds:
            return sc
        sc = sc.parent
    return None


def _enclosing_function(scope: Scope) -> Scope | None:
    """The innermost named function around a scope (None: module level)."""
    sc: Scope | None = scope
    while sc is not None:
        if sc.kind == "function" and (sc.parent is None or sc.node != sc.parent.node):
            return sc
        if sc.kind == "module":
            return None
        sc = sc.parent
    return None


def _pattern_names(n: Node) -> list[Node]:
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


def _pattern_members(n: Node, names: Names) -> list[tuple[Node, str | None]]:
    """``{a, b: c}`` -> [(a, "a"), (c, "b")]; deeper patterns bind locals (member None)."""
    out: list[tuple[Node, str | None]] = []
    if n.type != "object_pattern":
        return [(i, None) for i in _pattern_names(n)]
    for c in n.named_children:
        if c.type == "shorthand_property_identifier_pattern":
            out.append((c, names.t(c)))
        elif c.type == "pair_pattern":
            k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
            if k is not None and v is not None and v.type == "identifier":
                out.append((v, names.t(k)))
            elif v is not None:
                out.extend((i, None) for i in _pattern_names(v))
        elif c.type == "object_assignment_pattern":
            left = c.child_by_field_name("left")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                out.append((left, names.t(left)))
        else:
            out.extend((i, None) for i in _pattern_names(c))
    return out


def _ref_order(r: Ref) -> tuple[int, int, str]:
    return (r.line, r.owner, type(r).__name__)


def _captures(root: Node, grammar: str) -> list[tuple[int, int, str, Node]]:
    from tree_sitter import QueryCursor

    caps = QueryCursor(tstree.query(grammar, f"{grammar}-tags.scm")).captures(root)
    items: list[tuple[int, int, str, Node]] = []
    seen: set[tuple[int, int, str]] = set()
    for cap, nodes in caps.items():
        for node in nodes:
            key = (node.start_byte, -node.end_byte, cap)
            if key not in seen:
                seen.add(key)
                items.append((node.start_byte, -node.end_byte, cap, node))
    items.sort(key=lambda x: (x[0], x[1], _CAPTURE_ORDER.get(x[2], 9), x[2]))
    return items


#: captures of one node, in the order they must be handled (a declarator binds before the
#: function it names is walked)
_CAPTURE_ORDER = {"reference.export": 0, "reference.assignment": 1, "reference.field": 1}


def warm() -> None:
    """Load the grammars, compile the queries and import sqlglot before workers fork."""
    from ragraf.sql import sqltext

    for g in ("javascript", "typescript", "tsx"):
        tstree.query(g, f"{g}-tags.scm")
        tstree.parser(g)
    sqltext.warm()


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one JavaScript / TypeScript file (what the language registry calls);
    never raises for bad input: a file the walk cannot handle comes back ``failed``."""
    try:
        return Extractor(path, text, max_chunk_lines).run()
    except RecursionError:
        raise  # the registry reports it ("too deeply nested to parse")
    except Exception as e:  # noqa: BLE001 - one file must not stop a build
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        lang = "javascript" if grammar_of(path) == "javascript" else grammar_of(path)
        return FileFacts(path, lang, "failed", f"extractor error: {type(e).__name__}", lines)

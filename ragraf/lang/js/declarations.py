"""JavaScript / TypeScript declarations: classes, interfaces, enums, functions and methods,
class fields, parameters, and the fqns their context gives them.

Invariants a change must keep:
- Declarations get their final ids (``ids.node_id`` over kind, fqn, path, first line);
  a class or interface contains its methods, a function its nested named functions.
- A function is declared by ``function f``, or by a function expression / arrow function
  given a name: ``const f = ...``, ``f = ...``, ``exports.f = ...``, ``X.prototype.f =
  ...`` (a method of ``X``), a class field ``f = () => ...`` (a method), an object-literal
  key (``{ f() {} }``, ``{ f: function () {} }``: a method of the object, fqn
  ``<object>.f``) of a named object (``const o = {...}``, ``module.exports = {...}``,
  ``export default {...}``), ``o.f = ...`` of a named object or function of the file,
  ``const f = cond ? () => ... : () => ...`` (the declarator). Through an assignment
  chain the declarator names it (``var proto = module.exports = function``: ``proto``).
  Any other function expression is anonymous: its uses belong to the declaration around it.
- An object with member functions (an object literal, ``Object.create(...)``, a function
  given members) is a class-like: a ``CLASS_EXTENSION`` declaration with no node of its
  own (``object_decl``), whose methods its member functions are (every alias of a chain
  ``res.type = res.contentType = function``); ``this`` in them is the object, and so in
  ``o[name] = function``. A function given members is ``new``-able: its ``constructor``
  is itself; so is an ES5 constructor (``X.prototype.f``), in whose body ``this`` is X.
- A TypeScript namespace is an object ``<scope>.<name>`` of its exported declarations;
  of overloads, the implementation is the method (and the function) a call runs.
- What a class extends or implements is resolved in ``finish`` (``base_name``): a class
  of the file, an import key, or the name as written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf.kinds import CLASS_EXTENSION, BindKind, EdgeKind, NodeKind
from ragraf.lang.facts import ClassDecl
from ragraf.lang.js.builtins import GLOBAL
from ragraf.lang.js.names import LOCAL, Bind, Scope, _pick, lookup
from ragraf.lang.js.routes import Routes
from ragraf.lang.js.state import FUNC_VALUES, IDENT, declaring, pattern_names

if TYPE_CHECKING:
    from tree_sitter import Node


class Declarations(Routes):
    """The ``@definition.*`` and ``@reference.field`` captures (see the module docstring)."""

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
                            self.pending_bases.append((decl, parent, v, EdgeKind.EXTENDS))
                elif h.type == "implements_clause":
                    for v in h.named_children:
                        self.pending_bases.append((decl, parent, v, EdgeKind.IMPLEMENTS))
                else:  # JavaScript: `extends <expression>`
                    self.pending_bases.append((decl, parent, h, EdgeKind.EXTENDS))
        self.link(parent, idx, n.start_point[0] + 1)
        self.bind_decl(n, parent, assigned or name, Bind(BindKind.CLASS, fqn))
        self.export_assigned(n, Bind(BindKind.CLASS, fqn))
        scope = Scope(NodeKind.CLASS, idx, parent, fqn, fqn)
        self.class_at[body.start_byte] = scope
        self.stack.append((n.end_byte, scope))
        self.controller_routes(n, body, idx, fqn)

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
                    self.pending_bases.append((decl, parent, v, EdgeKind.EXTENDS))
        self.link(parent, idx, n.start_point[0] + 1)
        parent.bind(name, Bind(BindKind.CLASS, fqn))
        scope = Scope(NodeKind.CLASS, idx, parent, fqn, fqn)
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
        parent.bind(name, Bind(BindKind.CLASS, fqn))

    def on_namespace(self, n: Node) -> None:
        """``namespace util { export function f() {} }``: an object ``<scope>.util`` whose
        members are its exported declarations (``util.f`` is ``<scope>.util.f``)."""
        parent = self.scope()
        name_node = n.child_by_field_name("name")
        body = n.child_by_field_name("body")
        if name_node is None or body is None or name_node.type != "identifier":
            return
        name = self.t(name_node)
        fqn = f"{parent.fqn}.{name}"
        parent.bind(name, Bind(BindKind.OBJECT, fqn))
        self.obj_members.setdefault(fqn, set())
        self.stack.append((n.end_byte, Scope(NodeKind.NAMESPACE, parent.node, parent, fqn)))

    def namespace_member(self, scope: Scope, name: str) -> None:
        """A function declared in a namespace is a member of it."""
        if scope.kind == NodeKind.NAMESPACE:
            self.obj_members.setdefault(scope.fqn, set()).add(name)

    def conditional_function(self, n: Node, scope: Scope) -> bool:
        """``const keys = cond ? (o) => ... : (o) => ...``: one function declared by the
        declarator (the two alternatives are anonymous functions of it)."""
        name_node, value = n.child_by_field_name("name"), n.child_by_field_name("value")
        if name_node is None or value is None or name_node.type != "identifier":
            return False
        value = self.strip(value)
        if value.type != "ternary_expression":
            return False
        alts = [value.child_by_field_name(k) for k in ("consequence", "alternative")]
        if not all(a is not None and self.strip(a).type in FUNC_VALUES for a in alts):
            return False
        name = self.t(name_node)
        fqn = f"{scope.fqn}.{name}"
        self.function(n, scope, name, fqn, NodeKind.FUNCTION)
        scope.bind(name, Bind(BindKind.FUNCTION, fqn))
        self.namespace_member(scope, name)
        return True

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
        elif chain_declarator(n) is not None:
            scope.bind(name, b)
        elif p is not None and p.type == "assignment_expression":
            left = p.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                home = declaring(scope, name) or self.top
                home.bind(name, b)
        elif p is not None and p.type == "export_statement":
            scope.bind(name, b)  # the module's, or a namespace's

    def assigned_name(self, n: Node) -> str | None:
        """The name an anonymous function or class expression is given by its context."""
        p = n.parent
        if p is None:
            return None
        declarator = chain_declarator(n)
        if declarator is not None:  # var x = module.exports = function () {}
            p = declarator
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
        if chain_declarator(n) is not None:
            return f"{scope.fqn}.{name}"
        if p is not None and p.type == "pair":
            obj = p.parent
            base = self.obj_fqn(obj, scope) if obj is not None else None
            if base is None:
                return None
            self.obj_members.setdefault(base, set()).add(name)
            self.object_decl(base)
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
                if b.kind == BindKind.OBJECT:
                    self.obj_members.setdefault(b.name, set()).add(name)
                    self.object_decl(b.name)
                    return f"{b.name}.{name}"
                if b.kind in (BindKind.CLASS, BindKind.FUNCTION):
                    if b.kind == BindKind.FUNCTION and b.name not in self.decls:
                        self.function_object(b.name)
                    return f"{b.name}.{name}"
        if not all(IDENT.fullmatch(part) for part in text.split(".")):
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
        if b.kind == BindKind.CLASS:
            return b.name
        if b.kind == BindKind.FUNCTION:
            fqn = b.name
            if fqn not in self.decls:
                idx = next((i for fq, i in self.facts.functions if fq == fqn), None)
                if idx is None:
                    return None
                decl = ClassDecl(idx, fqn, NodeKind.CLASS)
                decl.methods["constructor"] = idx  # `new X()` runs the function
                self.decls[fqn] = decl
                self.facts.classes.append(decl)
                node = self.fn_nodes.get(fqn)
                body = self.fn_scopes.get(node.start_byte) if node is not None else None
                if body is not None and not body.arrow:
                    body.this_cls = fqn  # `this` in an ES5 constructor is its instance
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
        declarator = chain_declarator(obj)
        if declarator is not None:  # var app = exports = module.exports = {}
            p = declarator
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
            self.object_method(n, self.object_decl(base), name)
            return
        else:
            name = self.assigned_name(n)
        own = n.child_by_field_name("name") if ty in FUNC_VALUES else None
        fqn = self.member_fqn(n, parent, name) if name else None
        if fqn is None and own is not None:
            # a named function expression (``cb(function onDone() {...})``): a declaration
            # by its own name, which is bound only inside it
            name = self.t(own)
            fqn = f"{parent.fqn}.{name}"
            self.function(n, parent, name, fqn, NodeKind.FUNCTION)
            self.stack[-1][1].bind(name, Bind(BindKind.FUNCTION, fqn))
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
        home = self.objects.get(fqn.rpartition(".")[0])
        if home is not None and (cls is not None or fqn == f"{parent.fqn}.{name}"):
            home = None
        if home is not None:
            kind = NodeKind.METHOD  # of an object: also a function of the file (``o.f()``)
        self.function(n, parent, name, fqn, kind, cls)
        self.named_values[n.start_byte] = fqn
        if home is not None:
            self.object_method(n, home, name)
        if kind == NodeKind.FUNCTION or cls is None:
            self.bind_decl(n, parent, name, Bind(BindKind.FUNCTION, fqn))
            if fqn == f"{parent.fqn}.{name}":
                self.namespace_member(parent, name)
        self.export_assigned(n, Bind(BindKind.FUNCTION, fqn))

    def object_decl(self, fqn: str) -> ClassDecl:
        """The object ``fqn`` (an object literal, ``Object.create(...)``, a function object)
        as a class-like its member functions are methods of (``this`` in them is it): a
        ``CLASS_EXTENSION`` declaration, no node of its own."""
        decl = self.objects.get(fqn)
        if decl is None:
            decl = ClassDecl(0, fqn, CLASS_EXTENSION)
            self.objects[fqn] = decl
            self.facts.classes.append(decl)
        return decl

    def function_object(self, fqn: str) -> None:
        """A function of the file given members (``proto.handle = function``): an object
        whose methods they are, and ``new`` of it runs the function."""
        decl = self.object_decl(fqn)
        idx = next((i for fq, i in self.facts.functions if fq == fqn), None)
        if idx is not None:
            decl.methods.setdefault("constructor", idx)

    def object_method(self, n: Node, decl: ClassDecl, name: str) -> None:
        """The function just declared (``n``) is the method ``name`` of object ``decl``,
        and of every other member of it the same value is assigned to (``res.type =
        res.contentType = function``); ``this`` in it is the object."""
        idx = len(self.facts.nodes) - 1
        decl.methods.setdefault(name.lower(), idx)
        members = self.obj_members.setdefault(decl.fqn, set())
        members.add(name)
        lefts = chain_lefts(n)
        home = lefts[0].child_by_field_name("object") if lefts else None
        for left in lefts[1:]:
            obj = left.child_by_field_name("object")
            prop = left.child_by_field_name("property")
            if home is None or obj is None or self.t(obj) != self.t(home):
                continue
            if prop is not None and prop.type == "property_identifier":
                decl.methods.setdefault(self.t(prop).lower(), idx)
                members.add(self.t(prop))
        self.stack[-1][1].this_cls = decl.fqn

    def member_name(self, n: Node) -> str:
        if n.type == "string":
            return self.string_value(n) or self.t(n)
        return self.t(n)

    def export_assigned(self, n: Node, b: Bind) -> None:
        """``module.exports = function`` / ``exports.f = function``: what the module exports."""
        for left in chain_lefts(n):
            text = self.t(left)
            if text == "module.exports":
                self.export_binds.append(("=", b))
            elif text.startswith(("exports.", "module.exports.")) and text.count(".") == (
                1 if text.startswith("exports.") else 2
            ):
                self.export_binds.append((text.rpartition(".")[2], b))

    def anonymous(self, n: Node, parent: Scope) -> None:
        """A function without a name: a scope for its parameters, owned by its parent."""
        scope = Scope(
            NodeKind.FUNCTION, parent.node, parent, parent.fqn, arrow=n.type == "arrow_function"
        )
        if n.type != "arrow_function":
            scope.this_cls = self.computed_member_of(n, parent)
        self.params(n, scope)
        self.fn_scopes[n.start_byte] = scope
        self.stack.append((n.end_byte, scope))

    def computed_member_of(self, n: Node, scope: Scope) -> str | None:
        """``o[name] = function`` / ``X.prototype[name] = function``: the class-like ``this``
        is in the function (None: another anonymous function)."""
        p = n.parent
        left = p.child_by_field_name("left") if p is not None else None
        if p is None or p.type != "assignment_expression" or left is None:
            return None
        if left.type != "subscript_expression":
            return None
        obj = left.child_by_field_name("object")
        if obj is None:
            return None
        if obj.type == "member_expression":
            prop, inner = obj.child_by_field_name("property"), obj.child_by_field_name("object")
            if prop is not None and self.t(prop) == "prototype" and inner is not None:
                return self.class_of(inner, scope)
            return None
        if obj.type != "identifier":
            return None
        binds = lookup(scope, self.t(obj))
        b = _pick(binds) if binds else None
        kinds = (BindKind.OBJECT, BindKind.FUNCTION, BindKind.CLASS)
        if b is not None and b.kind in kinds and self.class_like(b.name):
            return b.name
        return None

    def method(self, n: Node, cls_scope: Scope, name: str) -> None:
        fqn = f"{cls_scope.fqn}.{name}"
        decl = self.decls[cls_scope.fqn]
        idx, prev = len(self.facts.nodes), decl.methods.get(name.lower())
        has_body = n.child_by_field_name("body") is not None
        if prev is None or (prev in self.bodiless and has_body):
            # TypeScript overloads: the implementation is what a call runs
            decl.methods[name.lower()] = idx
        if not has_body:
            self.bodiless.add(idx)
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
            self.register_function(n, fqn, idx)
        scope = Scope(NodeKind.FUNCTION, idx, parent, fqn, cls, arrow=False)
        if cls is None and n.type == "arrow_function":
            scope.arrow = True
        self.fn_scopes[n.start_byte] = scope
        self.fn_nodes.setdefault(fqn, n)
        props["parameters"] = self.params(n, scope)
        ret = n.child_by_field_name("return_type")
        if ret is not None:
            props["return_type"] = self.t(ret).lstrip(": ").strip()
            self.pending_rtypes.append((idx, scope, ret))
        self.stack.append((n.end_byte, scope))

    def register_function(self, n: Node, fqn: str, idx: int) -> None:
        """A function in the file's functions; TypeScript overload signatures give way to
        the implementation after them (what a call runs)."""
        functions = self.facts.functions
        if n.type == "function_signature":
            self.bodiless.add(idx)
        elif any(fq == fqn and i in self.bodiless for fq, i in functions):
            functions[:] = [(fq, i) for fq, i in functions if fq != fqn or i not in self.bodiless]
        functions.append((fqn, idx))

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
                scope.bind(pname, LOCAL)
                if tnode is not None:
                    self.pending_params.append((scope, pname, tnode))
            else:
                for ident in pattern_names(target):
                    scope.bind(self.t(ident), LOCAL)
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
        elif value is not None and value.type not in FUNC_VALUES:
            self.pending_props.append((decl, name, owner, value, False))

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
                return b.name if b.kind in (BindKind.CLASS, BindKind.IMPORT) else None
            return f"{GLOBAL}.{text}"
        if node.type in ("member_expression", "nested_type_identifier"):
            return text
        return None


def chain_lefts(n: Node) -> list[Node]:
    """What a value is assigned to through ``a = b.c = <n>``: the left sides, innermost
    first."""
    out: list[Node] = []
    cur, p = n, n.parent
    while p is not None and p.type == "assignment_expression":
        right = p.child_by_field_name("right")
        left = p.child_by_field_name("left")
        if right is None or left is None or right.start_byte != cur.start_byte:
            break
        out.append(left)
        cur, p = p, p.parent
    return out


def chain_declarator(n: Node) -> Node | None:
    """The declarator a value reaches through assignments (``var x = module.exports =
    <n>``), None when ``n`` is not assigned through at least one assignment into one."""
    cur, p = n, n.parent
    hops = 0
    while p is not None and p.type == "assignment_expression":
        right = p.child_by_field_name("right")
        if right is None or right.start_byte != cur.start_byte:
            return None
        cur, p = p, p.parent
        hops += 1
    if hops and p is not None and p.type == "variable_declarator":
        value = p.child_by_field_name("value")
        if value is not None and value.start_byte == cur.start_byte:
            return p
    return None

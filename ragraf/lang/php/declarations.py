"""Declarations: namespaces, ``use`` imports, classes (interfaces, traits, enums),
functions and methods with their parameters, properties, constants.

Invariants a change must keep:
- Every declaration becomes a node with its final id (``ids.node_id`` over
  kind, fqn, path and first line) and a ``contains`` edge from its container
  (the file for top-level ones, plus ``defines`` from their namespace).
- Props hold structure only (``signature``, ``visibility``, ``static``,
  ``parameters``, ``return_type`` / ``type``, modifiers; ``guarded`` for a
  function declared in the body of ``if (!function_exists('f'))``; ``value``
  for a global constant whose value is a plain string literal), never comment
  text (P6).
- ``use`` aliases go to the current namespace segment and become
  ``ImportRef``s.
- Declared, promoted and docblock (``@param`` / ``@var`` / ``@property`` /
  ``@return``) types become type descriptors of scopes, class properties and
  return values; a declared type that names a class wins over the docblock; a
  function with neither gets the types of its ``return`` expressions (``Uses``);
  interfaces "extend" interfaces (their ``implements`` stays empty).
- A method of an anonymous class is no symbol: it opens a scope whose calls
  belong to the enclosing scope, where ``$this`` is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ragraf.kinds import EdgeKind, HookRole, ImportKind, NodeKind, TargetKind
from ragraf.lang.facts import ClassDecl, HookRef, ImportRef, LocalEdge, Target, TypeDesc
from ragraf.lang.php import doctrine, hooks
from ragraf.lang.php.names import (
    DOC_GLOBAL,
    DOC_PARAM,
    DOC_PROPERTY,
    DOC_RETURN,
    DOC_VAR_PROP,
)
from ragraf.lang.php.routes import Routes
from ragraf.lang.php.state import FrameKind, Scope, Segment
from ragraf.lang.typedesc import Cls
from ragraf.limits import MAX_CONST_VALUE_CHARS

if TYPE_CHECKING:
    from tree_sitter import Node

CLASS_KINDS = {
    "class_declaration": NodeKind.CLASS,
    "interface_declaration": NodeKind.INTERFACE,
    "trait_declaration": NodeKind.TRAIT,
    "enum_declaration": NodeKind.ENUM,
}
#: a declaration's ``signature`` prop (its head up to the body, whitespace collapsed) is cut
#: here: enough for a parameter list, bounded for generated code
MAX_SIGNATURE_CHARS = 300
#: a parameter's ``default`` prop (its PHP source) is cut here (a long array literal says
#: little)
MAX_DEFAULT_CHARS = 60
#: the checks that make a function declaration a fallback: ``if (!function_exists('f'))``
_GUARD_CALL = r"!\s*\\?(function_exists|is_callable)\s*\(\s*(['\"])(?:[\w\\]*\\)?{name}\2\s*\)"


class Declarations(Routes):
    """Handlers of the ``@definition.*`` captures (and ``use`` imports)."""

    def on_namespace(self, n: Node) -> None:
        """``namespace X;`` (until the next one) or ``namespace X { ... }``: a new segment."""
        name_node = n.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else ""
        body = n.child_by_field_name("body")
        self.seg = Segment(name, n.end_byte if body is not None else None)
        if name:
            idx = self.add_node(NodeKind.NAMESPACE, name.rsplit("\\", 1)[-1], name, n, {})
            self.facts.edges.append(
                LocalEdge(self.nid(0), self.nid(idx), EdgeKind.CONTAINS, n.start_point[0] + 1)
            )
            if body is not None:
                self.stack.append((n.end_byte, FrameKind.NAMESPACE, idx))
            self.seg_node = idx
        else:
            self.seg_node = None

    def on_import(self, n: Node) -> None:
        """``use A\\B [as C]``, grouped ``use A\\{B, C}``, ``use function`` / ``use const``."""
        line = n.start_point[0] + 1
        kind = ImportKind.CLASS
        prefix = ""
        for c in n.children:
            if c.type in ("function", "const"):
                kind = ImportKind.FUNCTION if c.type == "function" else ImportKind.CONST
            elif c.type == "namespace_name":
                prefix = self.t(c)
        group = n.child_by_field_name("body")
        clauses = (
            list(group.named_children)
            if group is not None
            else [c for c in n.named_children if c.type == "namespace_use_clause"]
        )
        for cl in clauses:
            if cl.type != "namespace_use_clause":
                continue
            ckind = kind
            for c in cl.children:
                if c.type in ("function", "const"):
                    ckind = ImportKind.FUNCTION if c.type == "function" else ImportKind.CONST
            alias_node = cl.child_by_field_name("alias")
            name_nodes = [
                c
                for c in cl.named_children
                if c is not alias_node and c.type in ("name", "qualified_name")
            ]
            if not name_nodes:
                continue
            raw = self.t(name_nodes[0]).lstrip("\\")
            fqn = f"{prefix}\\{raw}" if prefix else raw
            fqn = fqn.lstrip("\\")
            alias = self.t(alias_node) if alias_node is not None else fqn.rsplit("\\", 1)[-1]
            table = {
                ImportKind.CLASS: self.seg.classes,
                ImportKind.FUNCTION: self.seg.functions,
                ImportKind.CONST: self.seg.consts,
            }[ckind]
            table[alias.lower()] = fqn
            self.raw_refs.append(
                ImportRef(
                    self.scope_index(),
                    cl.start_point[0] + 1 if cl.start_point[0] != n.start_point[0] else line,
                    ckind,
                    fqn,
                )
            )

    def on_class(self, n: Node, kind: str) -> None:
        """A class, interface, trait or enum: its node, ``ClassDecl`` and stack frame."""
        name = self.t(self.field(n, "name"))
        fqn = self.qualify(name)
        mods = [
            self.t(c)
            for c in n.children
            if c.type in ("abstract_modifier", "final_modifier", "readonly_modifier")
        ]
        props: dict[str, Any] = {"signature": self.signature(n)}
        if mods:
            props["modifiers"] = mods
        idx = self.add_node(kind, name, fqn, n, props)
        decl = ClassDecl(idx, fqn, kind, abstract="abstract" in mods)
        for c in n.named_children:
            if c.type == "base_clause":
                for b in c.named_children:
                    fq = self.resolve_class(self.t(b))
                    if fq:
                        decl.extends.append((fq, b.start_point[0] + 1))
            elif c.type == "class_interface_clause":
                for b in c.named_children:
                    fq = self.resolve_class(self.t(b))
                    if fq:
                        decl.implements.append((fq, b.start_point[0] + 1))
        if kind == NodeKind.INTERFACE:
            decl.implements, decl.extends = [], decl.extends  # interfaces "extend" interfaces
        routed = self.attribute_routes(n)  # #[Route('/blog')]: the prefix of its methods' routes
        if routed:
            self.route_prefixes[fqn] = [p for p, _m, _l in routed]
        self.class_refs(self.attribute_classes(n))  # #[ORM\Entity]: owned by the file's scope
        if kind == NodeKind.CLASS:
            orm = doctrine.entity_ref(self, n, idx, name)
            if orm is not None:
                self.raw_refs.append(orm)
        self.facts.classes.append(decl)
        self.link_parent(idx, n)
        self.stack.append((n.end_byte, FrameKind.CLASS, decl))
        doc = self.docblock(n)
        if doc and "@property" in doc:  # `@property Pdf $diagram`: magic or narrowed
            for m in DOC_PROPERTY.finditer(doc):
                descs = self.doc_types(m.group(1))
                if descs:
                    decl.props.setdefault(m.group(2), []).extend(descs)

    def link_parent(self, idx: int, n: Node) -> None:
        """The ``contains`` edge from the container (and ``defines`` from the namespace)."""
        line = n.start_point[0] + 1
        parent = self.container()
        kind = self.facts.nodes[idx].kind
        if parent == 0 or self.facts.nodes[parent].kind == NodeKind.NAMESPACE:
            self.facts.edges.append(LocalEdge(self.nid(0), self.nid(idx), EdgeKind.CONTAINS, line))
            ns_idx = self.seg_node
            if ns_idx is not None and kind != NodeKind.NAMESPACE:
                self.facts.edges.append(
                    LocalEdge(self.nid(ns_idx), self.nid(idx), EdgeKind.DEFINES, line)
                )
        else:
            self.facts.edges.append(
                LocalEdge(self.nid(parent), self.nid(idx), EdgeKind.CONTAINS, line)
            )

    def signature(self, n: Node) -> str:
        """The declaration's head up to its body, attributes left out, whitespace collapsed."""
        body = n.child_by_field_name("body")
        end = body.start_byte if body is not None else n.end_byte
        start = n.start_byte
        for c in n.children:  # skip attributes before the declaration
            if c.type == "attribute_list":
                start = c.end_byte
        sig = self.src[start:end].decode("utf-8", "surrogateescape")
        sig = " ".join(sig.split()).rstrip(" ;{")
        return sig[:MAX_SIGNATURE_CHARS]

    def params(
        self, n: Node, scope: Scope, decl: ClassDecl | None, is_ctor: bool
    ) -> list[dict[str, Any]]:
        """The ``parameters`` prop; typed parameters (declared, else ``@param``) type
        ``scope``'s variables inside ``n``, promoted constructor parameters become properties
        of ``decl``."""
        plist = n.child_by_field_name("parameters")
        out: list[dict[str, Any]] = []
        if plist is None:
            return out
        doc_types: dict[str, list[TypeDesc]] = {}
        doc = self.docblock(n) if n.type in ("function_definition", "method_declaration") else None
        if doc and "@param" in doc:
            for m in DOC_PARAM.finditer(doc):
                doc_types.setdefault(m.group(2), self.doc_types(m.group(1)))
        for p in plist.named_children:
            if p.type not in (
                "simple_parameter",
                "variadic_parameter",
                "property_promotion_parameter",
            ):
                continue
            name_node = p.child_by_field_name("name")
            if name_node is None:
                continue
            pname = self.t(name_node).lstrip("&$")
            tnode = p.child_by_field_name("type")
            entry: dict[str, Any] = {"name": pname}
            if tnode is not None:
                entry["type"] = self.t(tnode)
            default = p.child_by_field_name("default_value")
            if default is not None:
                entry["default"] = self.t(default)[:MAX_DEFAULT_CHARS]
            if p.type == "variadic_parameter":
                entry["variadic"] = True
            descs = self.type_descs(tnode) or doc_types.get(pname, [])
            if descs:
                self.bind(scope, pname, descs, n.start_byte, (n.start_byte, n.end_byte))
            if p.type == "property_promotion_parameter":
                entry["promoted"] = True
                if decl is not None and is_ctor:
                    decl.props.setdefault(pname, []).extend(descs)
                    vis = p.child_by_field_name("visibility")
                    pid = self.add_node(
                        NodeKind.PROPERTY,
                        "$" + pname,
                        f"{decl.fqn}::${pname}",
                        p,
                        {
                            "visibility": self.t(vis) if vis is not None else "public",
                            "promoted": True,
                            **({"type": entry["type"]} if "type" in entry else {}),
                        },
                    )
                    self.facts.edges.append(
                        LocalEdge(
                            self.nid(decl.node),
                            self.nid(pid),
                            EdgeKind.CONTAINS,
                            p.start_point[0] + 1,
                        )
                    )
            out.append(entry)
        return out

    def on_function(self, n: Node, method: bool) -> None:
        """A function or method: its node, return types and a scope of its own."""
        name = self.t(self.field(n, "name"))
        decl = self.cur_class_decl() if method else None
        in_anon = any(what == FrameKind.ANON for _e, what, _p in self.stack)
        if method and (decl is None or in_anon):
            # a method of an anonymous class: no symbol of its own; its calls
            # belong to the enclosing scope and `$this` is unknown
            sc = Scope(self.scope().node, None, n.end_byte, anon=True)
            self.params(n, sc, None, False)
            self.push_scope(sc)
            self.stack.append((n.end_byte, FrameKind.SCOPE, None))
            return
        props: dict[str, Any] = {"signature": self.signature(n)}
        mods = {c.type: self.t(c) for c in n.children if c.type.endswith("_modifier")}
        if method:
            props["visibility"] = mods.get("visibility_modifier", "public")
            props["static"] = "static_modifier" in mods
            if "abstract_modifier" in mods:
                props["abstract"] = True
            if "final_modifier" in mods:
                props["final"] = True
            fqn = f"{decl.fqn}::{name}" if decl else name
            kind = NodeKind.METHOD
        else:
            fqn = self.qualify(name)
            kind = NodeKind.FUNCTION
        sc = Scope(0, decl.fqn if decl else None, n.end_byte)
        idx = self.add_node(kind, name, fqn, n, props)
        sc.node = idx
        props["parameters"] = self.params(n, sc, decl, method and name.lower() == "__construct")
        rt = n.child_by_field_name("return_type")
        if rt is not None:
            props["return_type"] = self.t(rt)
        doc = self.docblock(n)
        if doc and "@global" in doc:  # `@global wpdb $wpdb`: what `global $wpdb` holds here
            for g in DOC_GLOBAL.finditer(doc):
                gdescs = self.doc_types(g.group(1))
                if gdescs:
                    sc.doc_globals[g.group(2)] = gdescs
        rdescs = self.type_descs(rt)
        if rt is not None:
            self.typed_returns.add(idx)
        if not rdescs:
            m = DOC_RETURN.search(doc) if doc else None
            if m:
                self.typed_returns.add(idx)
                rdescs = self.doc_types(m.group(1))
        if rdescs:
            self.facts.returns[idx] = rdescs
        if decl is not None:
            decl.methods.setdefault(name.lower(), idx)
            if name.lower() in hooks.HANDLERS:
                self.handler_listens(n, decl.fqn, name)
            elif name.lower() == "getsubscribedevents":
                self.subscriber_listens(n, decl.fqn)
        else:
            guard = self.function_guard(n, name)
            if guard:
                props["guarded"] = guard
            self.facts.functions.append((fqn, idx))
            module = hooks.drupal_module(self.path)
            if module and name.lower().startswith(module.lower() + "_") and "\\" not in fqn:
                # <module>_<hook>: Drupal's implementation of hook_<hook>
                self.raw_refs.append(
                    HookRef(
                        self.scope_index(),
                        n.start_point[0] + 1,
                        HookRole.LISTEN,
                        hooks.DRUPAL_HOOK + name[len(module) + 1 :],
                        "drupal",
                        Target(TargetKind.FUNCTION, candidates=(fqn,)),
                    )
                )
        self.link_parent(idx, n)
        self.push_scope(sc)
        self.signature_refs(n, rt)
        self.facts.scope_nodes.append(idx)
        self.stack.append((n.end_byte, FrameKind.FUNCTION, idx))
        if decl is not None and any(c.type == "attribute_list" for c in n.children):
            self.on_method_routes(n, decl.fqn, name, self.route_prefixes.get(decl.fqn, []))
            self.hook_attributes(n, decl.fqn, name)

    def handler_listens(self, n: Node, cls: str, name: str) -> None:
        """A ``handle`` / ``__invoke`` method: it listens to the hooks of the classes its first
        parameter's declared type names (a Laravel event listener), and ``handle`` to its
        own class's (a job) (``ragraf.lang.php.hooks``)."""
        target = Target(TargetKind.METHOD, receiver=Cls(cls), method=name)
        low = name.lower()
        plist = n.child_by_field_name("parameters")
        first = plist.named_children[0] if plist is not None and plist.named_children else None
        events = self.type_descs(first.child_by_field_name("type")) if first is not None else []
        hooked = [d.fqn for d in events if isinstance(d, Cls) and d.fqn]
        if low == "handle":
            hooked.append(cls)
        line = n.start_point[0] + 1
        for fq in dict.fromkeys(hooked):
            self._class_listen(line, fq, low, target)

    def hook_attributes(self, n: Node, cls: str, name: str) -> None:
        """Drupal's ``#[Hook('cron')]`` on a method: it implements ``hook_cron``."""
        for attr, args in self.attributes_named(n, "hook"):
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is None or first.type != "argument" or not first.named_children:
                continue
            value = self.string_value(first.named_children[-1])
            if value:
                self.raw_refs.append(
                    HookRef(
                        self.scope_index(),
                        attr.start_point[0] + 1,
                        HookRole.LISTEN,
                        hooks.DRUPAL_HOOK + value,
                        "drupal",
                        Target(TargetKind.METHOD, receiver=Cls(cls), method=name),
                    )
                )

    def subscriber_listens(self, n: Node, cls: str) -> None:
        """Symfony's ``getSubscribedEvents()``: each ``X::class => 'method'`` (or
        ``['method', priority]``, or a list of those) of the array it returns makes the
        method a listener of the hook of class ``X`` (``ragraf.lang.php.hooks``)."""
        body = n.child_by_field_name("body")
        todo = list(body.named_children) if body is not None else []
        while todo:
            c = todo.pop()
            if c.type in ("function_definition", "anonymous_function", "arrow_function"):
                continue
            if c.type != "return_statement":
                todo.extend(c.named_children)
                continue
            arr = c.named_children[0] if c.named_children else None
            if arr is None or arr.type != "array_creation_expression":
                continue
            for el, event, value in self._by_class(arr):
                for m in self._subscribed_methods(value):
                    target = Target(TargetKind.METHOD, receiver=Cls(cls), method=m)
                    self._class_listen(el.start_point[0] + 1, event, "getsubscribedevents", target)

    def _subscribed_methods(self, v: Node) -> list[str]:
        """``'m'``, ``['m', 10]`` or ``[['m', 10], ['n']]`` -> the method names."""
        s = self.string_value(v)
        if s is not None:
            return [s] if re.fullmatch(r"\w+", s) else []
        if v.type != "array_creation_expression":
            return []
        items = [
            e.named_children[0]
            for e in v.named_children
            if e.type == "array_element_initializer" and len(e.named_children) == 1
        ]
        if items and self.string_value(items[0]) is not None:
            return self._subscribed_methods(items[0])
        return [m for it in items for m in self._subscribed_methods(it)]

    def signature_refs(self, fn: Node, rt: Node | None) -> None:
        """The classes the declared parameter and return types of ``fn`` name, and those of
        the attributes of ``fn`` and its parameters: references owned by ``fn``
        (``class_refs``)."""
        plist = fn.child_by_field_name("parameters")
        types = [p.child_by_field_name("type") for p in plist.named_children] if plist else []
        for p in plist.named_children if plist else ():  # #[SensitiveParameter] $x
            types += self.attribute_classes(p)
        self.class_refs([*types, rt, *self.attribute_classes(fn)])

    def function_guard(self, n: Node, name: str) -> str | None:
        """``function_exists`` (or ``is_callable``) when the declaration sits in the body of an
        ``if (!function_exists('name'))``: a fallback PHP skips when another declaration of
        the name is already loaded."""
        rx: re.Pattern[str] | None = None  # compiled only for a function inside an `if`
        child, p = n, n.parent
        while p is not None and p.type != "program":
            if p.type == "if_statement" and child == p.child_by_field_name("body"):
                cond = p.child_by_field_name("condition")
                if cond is not None and rx is None:
                    rx = re.compile(_GUARD_CALL.format(name=re.escape(name)), re.I)
                m = rx.search(self.t(cond)) if cond is not None and rx is not None else None
                if m:
                    return m.group(1).lower()
            if p.type in ("else_clause", "else_if_clause"):
                return None  # the other branch of a check: not the fallback it guards
            child, p = p, p.parent
        return None

    def on_anonymous_class(self, n: Node) -> None:
        """No symbol; inside there is no class context (its methods are bare scopes)."""
        self.stack.append((n.end_byte, FrameKind.ANON, None))

    def on_closure(self, n: Node) -> None:
        """A closure's or arrow function's parameters type variables of the enclosing scope,
        inside the closure."""
        sc = self.scope()
        sc.closures.append((n.start_byte, n.end_byte))
        self.params(n, sc, None, False)

    def on_property(self, n: Node) -> None:
        """Properties: nodes (a plain string default as ``value``), and their declared,
        ``@var`` and default (``new``) types; the classes a declared type names are
        referenced at its line (owned by the file's scope, as a class body is no scope of
        its own)."""
        decl = self.cur_class_decl()
        if decl is None:
            return
        tnode = n.child_by_field_name("type")
        # a declared property type and the property's attributes name their classes here
        self.class_refs([tnode, *self.attribute_classes(n)])
        descs = self.type_descs(tnode)
        if not descs:
            doc = self.docblock(n)
            m = DOC_VAR_PROP.search(doc) if doc else None
            if m:
                descs = self.doc_types(m.group(1))
        mods = {c.type: self.t(c) for c in n.children if c.type.endswith("_modifier")}
        for el in n.named_children:
            if el.type != "property_element":
                continue
            vn = el.child_by_field_name("name")
            if vn is None:
                continue
            pname = self.t(vn).lstrip("$")
            props: dict[str, Any] = {
                "visibility": mods.get("visibility_modifier", "public"),
                "static": "static_modifier" in mods,
            }
            if tnode is not None:
                props["type"] = self.t(tnode)
            default = el.child_by_field_name("default_value")
            value = self.string_value(default)
            if value is not None:  # Eloquent's `protected $table = 'audit_log'` and the like
                props["value"] = value[:MAX_CONST_VALUE_CHARS]
            idx = self.add_node(NodeKind.PROPERTY, "$" + pname, f"{decl.fqn}::${pname}", el, props)
            self.facts.edges.append(
                LocalEdge(
                    self.nid(decl.node), self.nid(idx), EdgeKind.CONTAINS, el.start_point[0] + 1
                )
            )
            decl.props.setdefault(pname, []).extend(descs)
            d = self.expr_desc(default)
            if isinstance(d, Cls):
                decl.props[pname].append(d)
            if pname == "listen" and default is not None:
                self.listen_map(default)

    def listen_map(self, arr: Node) -> None:
        """Laravel's ``protected $listen = [OrderShipped::class => [SendNotice::class]]``
        (an event service provider): each listener class (``X::class``, its name in a
        string, or ``[X::class, 'method']``) listens to the hook of the event's class with
        its ``handle`` (or the named method)."""
        if arr.type != "array_creation_expression":
            return
        for _el, event, listeners in self._by_class(arr):
            if listeners.type != "array_creation_expression":
                continue
            for item in listeners.named_children:
                parts = item.named_children if item.type == "array_element_initializer" else []
                if len(parts) != 1:
                    continue
                v, method = parts[0], "handle"
                if v.type == "array_creation_expression":  # [Listener::class, 'method']
                    pair = [e.named_children[0] for e in v.named_children if e.named_children]
                    if len(pair) != 2 or not re.fullmatch(r"\w+", self.string_value(pair[1]) or ""):
                        continue
                    v, method = pair[0], str(self.string_value(pair[1]))
                listener = self._class_named(v)
                if listener is None:
                    continue
                target = Target(TargetKind.METHOD, receiver=Cls(listener), method=method)
                self._class_listen(v.start_point[0] + 1, event, "$listen", target)

    def _class_listen(self, line: int, event: str, call: str, target: Target) -> None:
        """A listen, registered at ``line`` by ``call``, to the hook of class ``event``."""
        self.raw_refs.append(
            HookRef(
                self.scope_index(), line, HookRole.LISTEN, hooks.CLASS_HOOK + event, call, target
            )
        )

    def _by_class(self, arr: Node) -> Iterator[tuple[Node, str, Node]]:
        """(element, class fqn, value) of each ``X::class => value`` (or ``'Ns\\X' =>
        value``) element of an array: the maps that register listeners by event class."""
        for el in arr.named_children:
            kids = el.named_children if el.type == "array_element_initializer" else []
            if len(kids) == 2:
                cls = self._class_named(kids[0])
                if cls is not None:
                    yield el, cls, kids[1]

    def _class_named(self, n: Node) -> str | None:
        """``X::class`` or a string holding a class name -> its fqn."""
        if n.type == "class_constant_access_expression":
            return self.class_literal(n)
        name = self.string_value(n)
        if name and re.fullmatch(r"\\?[A-Za-z_]\w*(?:\\\w+)*", name):
            return name.lstrip("\\")  # a string names a class fully qualified
        return None

    def on_constant(self, n: Node) -> None:
        """Class constants and top-level ``const``; a ``const`` inside a function is skipped."""
        decl = self.cur_class_decl()
        in_function = any(what == FrameKind.FUNCTION for _e, what, _p in self.stack)
        for el in n.named_children:
            if el.type != "const_element":
                continue
            name_node = next((c for c in el.named_children if c.type == "name"), None)
            if name_node is None:
                continue
            name = self.t(name_node)
            if decl is not None:
                fqn = f"{decl.fqn}::{name}"
            elif in_function:
                continue
            else:
                fqn = self.qualify(name)
            props: dict[str, Any] = {}
            value = self.string_value(name_node.next_named_sibling)
            if decl is None and value is not None:
                props["value"] = value[:MAX_CONST_VALUE_CHARS]
            idx = self.add_node(NodeKind.CONSTANT, name, fqn, el, props)
            if decl is not None:
                decl.consts[name] = idx
                self.facts.edges.append(
                    LocalEdge(
                        self.nid(decl.node), self.nid(idx), EdgeKind.CONTAINS, el.start_point[0] + 1
                    )
                )
            else:
                self.link_parent(idx, el)

    def on_enum_case(self, n: Node) -> None:
        """An enum case: a constant of its enum."""
        decl = self.cur_class_decl()
        name_node = n.child_by_field_name("name")
        if decl is None or name_node is None:
            return
        name = self.t(name_node)
        idx = self.add_node(NodeKind.CONSTANT, name, f"{decl.fqn}::{name}", n, {"enum_case": True})
        decl.consts[name] = idx
        self.facts.edges.append(
            LocalEdge(self.nid(decl.node), self.nid(idx), EdgeKind.CONTAINS, n.start_point[0] + 1)
        )

    def on_trait_use(self, n: Node) -> None:
        """``use T;`` inside a class body."""
        decl = self.cur_class_decl()
        if decl is None:
            return
        for c in n.named_children:
            if c.type in ("name", "qualified_name"):
                fq = self.resolve_class(self.t(c))
                if fq:
                    decl.traits.append((fq, c.start_point[0] + 1))

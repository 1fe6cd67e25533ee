"""JavaScript / TypeScript uses: imports and exports, assignments (what names are bound
to), calls, ``new``, ``return``, JSX elements and SQL in strings.

Invariants a change must keep:
- A use is resolved in ``finish`` (``call_ref``), flow-insensitively: a call of a name
  the file binds is a ``CallRef`` with its fqn or a ``MethodCallRef``; one through an
  import keeps an import key for ``ragraf.lang.js.link``; a global (``console.log``) is
  ``globalThis.<name>`` (external); a call through a variable holding a callable is a
  ``DynamicCallRef``.
- What the module exports goes to ``global_assigns`` as ``(name, Export(...))``
  (``default``, ``=`` for ``module.exports = X``, ``*`` for ``export * from``) so that
  other modules' imports of it resolve; ``link`` removes them (``export_table``).
- A SQL string is owned by the innermost named function around it, else the scope's
  node; its ordinal counts the strings of that owner on that line.
- ``mixin(a, b)`` (``Object.assign``, ``setPrototypeOf``, the mixin packages) binds ``a``
  to what ``b`` is too; a function passed to ``Object.defineProperty(o, ...)`` or to a
  function of the file that passes its first parameter there has ``this`` = ``o``
  (``bind_definers``, before any use is resolved); ``exports.f()`` inside the module
  calls its own export; an untyped receiver keeps its name (``hints``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.kinds import (
    BindKind,
    CalleeKind,
    Denotes,
    DynamicHow,
    FragmentKind,
    ImportKind,
    NodeKind,
)
from ragraf.lang.facts import (
    CallRef,
    DynamicCallRef,
    ImportRef,
    MethodCallRef,
    NewRef,
    Ref,
    SqlAnalysis,
    SqlRef,
    TypeDesc,
)
from ragraf.lang.js.builtins import GLOBAL
from ragraf.lang.js.declarations import Declarations
from ragraf.lang.js.hints import HINT
from ragraf.lang.js.names import (
    _DECLARED,
    LOCAL,
    Bind,
    Scope,
    _pick,
    imp_extend,
    imp_key,
    lookup,
    parse_imp,
)
from ragraf.lang.js.state import (
    CLASSES,
    FUNC_VALUES,
    declaring,
    enclosing_function,
    pattern_members,
)
from ragraf.lang.typedesc import Cls, Export, Pending

if TYPE_CHECKING:
    from tree_sitter import Node

#: calls that give their first argument the members of the second
MIXIN_GLOBALS = frozenset({"Object.assign", "Object.setPrototypeOf", "Reflect.setPrototypeOf"})
#: packages whose export (``require('x')``) does it
MIXIN_PACKAGES = frozenset(
    {"merge-descriptors", "utils-merge", "setprototypeof", "object-assign", "xtend/mutable"}
)


class Uses(Declarations):
    """The ``@reference.*`` captures but fields (see the module docstring)."""

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
                    scope.bind(self.t(ident), Bind(BindKind.IMPORT, key))
                    self.imports.append(
                        ImportRef(scope.node, n.start_point[0] + 1, ImportKind.JS, key)
                    )
                return
        spec = self.string_value(src)
        if spec is None:
            return
        line = n.start_point[0] + 1
        clause = next((c for c in n.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.imports.append(ImportRef(scope.node, line, ImportKind.JS, imp_key(spec, [])))
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
        scope.bind(self.t(local), Bind(BindKind.IMPORT, key))
        self.imports.append(ImportRef(scope.node, local.start_point[0] + 1, ImportKind.JS, key))

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
                    self.export_binds.append(
                        (self.member_name(alias or nm), Bind(BindKind.IMPORT, key))
                    )
                    self.imports.append(ImportRef(0, s.start_point[0] + 1, ImportKind.JS, key))
            elif ns is not None:
                ident = next((k for k in ns.named_children), None)
                key = imp_key(spec, ["*"])
                if ident is not None:
                    self.export_binds.append((self.member_name(ident), Bind(BindKind.IMPORT, key)))
                self.imports.append(ImportRef(0, line, ImportKind.JS, key))
            else:
                self.export_binds.append(("*", Bind(BindKind.STAR, spec)))
                self.imports.append(ImportRef(0, line, ImportKind.JS, imp_key(spec, [])))
            return
        decl = n.child_by_field_name("declaration")
        value = n.child_by_field_name("value")
        default = any(c.type == "default" for c in n.children)
        if self.scope().kind == NodeKind.NAMESPACE:
            return  # a namespace's member (on_namespace): bound in its scope
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
        elif value.type in FUNC_VALUES or value.type in CLASSES:
            own = value.child_by_field_name("name")
            if own is not None:
                self.exports.append(("default", self.t(own)))
            # an anonymous one is named `default` by on_function / on_class
            self.exports.append(("default", "default"))
        elif value.type == "object":
            self.export_binds.append(("default", Bind(BindKind.OBJECT, f"{self.module}.default")))
        else:
            self.export_binds.append(("default", Bind(BindKind.EXPR, expr=(value, self.top))))

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
            if name is None or self.conditional_function(n, scope):
                return
            if name.type == "identifier":
                self.bind_value(scope, scope, self.t(name), value)
            else:
                key = self.imported(value, scope) if value is not None else None
                for ident, member in pattern_members(name, self):
                    if key and member:
                        scope.bind(self.t(ident), Bind(BindKind.IMPORT, imp_extend(key, member)))
                    else:
                        scope.bind(self.t(ident), LOCAL)
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
            home = declaring(scope, lname) or self.top
            self.bind_value(home, scope, lname, right)
            return
        if left.type != "member_expression":
            return
        obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
        if obj is None or prop is None or prop.type != "property_identifier":
            return
        text = self.t(left)
        exported = (
            "="
            if text == "module.exports"
            else self.t(prop)
            if self.t(obj) in ("exports", "module.exports")
            else None
        )
        if exported is not None:
            if right.type in FUNC_VALUES or right.type in CLASSES:
                return  # exported by on_function / on_class
            if right.type == "identifier" and not lookup(scope, self.t(right)):
                # `module.exports = Layer` above `function Layer`: the module's binding
                self.exports.append((exported, self.t(right)))
            else:
                self.export_binds.append((exported, self.value_bind(right, scope)))
            return
        if obj.type == "this":
            cls = scope.this_class()
            fn = enclosing_function(scope)
            decl = self.decls.get(cls) if cls else None
            if decl is not None and fn is not None and fn.fqn.endswith(".constructor"):
                self.pending_props.append((decl, self.t(prop), scope, right, False))
            elif cls is not None and cls in self.objects:
                # an object's method sets a member of it (`this._router = new Router()`)
                self.pending_props.append((self.objects[cls], self.t(prop), scope, right, False))

    def bind_value(self, home: Scope, scope: Scope, name: str, value: Node | None) -> None:
        if value is None:
            home.bind(name, LOCAL)
            return
        v = self.strip(value)
        while v.type == "assignment_expression":  # var app = exports = module.exports = {}
            right = v.child_by_field_name("right")
            if right is None:
                break
            value = right
            v = self.strip(right)
        if v.type in FUNC_VALUES or v.type in CLASSES:
            if v.type in CLASSES and v.child_by_field_name("body") is None:
                home.bind(name, LOCAL)
            return  # bound by on_function / on_class (a declaration)
        home.bind(name, self.value_bind(value, scope))

    def value_bind(self, value: Node, scope: Scope) -> Bind:
        v = self.strip(value)
        if v.type == "object" or self.object_create(v):
            fqn = self.obj_fqn(v, scope)
            if fqn is not None:
                if v.type == "object":
                    self.obj_value_members(v, fqn, scope)
                return Bind(BindKind.OBJECT, fqn)
        key = self.imported(v, scope)
        if key:
            return Bind(BindKind.IMPORT, key)
        if v.type in ("identifier", "shorthand_property_identifier"):
            binds = lookup(scope, self.t(v))
            if binds:
                b = _pick(binds)
                if b.kind in _DECLARED:
                    return b
            if v.type == "shorthand_property_identifier":
                return LOCAL
        return Bind(BindKind.EXPR, expr=(value, scope))

    def object_create(self, v: Node) -> bool:
        """``Object.create(proto)``: a new object (named like an object literal)."""
        if v.type != "call_expression":
            return False
        fn = v.child_by_field_name("function")
        return fn is not None and self.t(fn) == "Object.create"

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
                    ImportRef(scope.node, n.start_point[0] + 1, ImportKind.JS, imp_key(spec, ["*"]))
                )
            return
        req = self.require_spec(n)
        if req is not None:
            self.imports.append(
                ImportRef(scope.node, n.start_point[0] + 1, ImportKind.JS, imp_key(req, ["="]))
            )
            return
        self.calls.append((scope, n))
        self.route(scope, n, fn)
        self.mixin(scope, n, fn)
        args = n.child_by_field_name("arguments")
        if args is not None and args.named_child_count >= 2:
            first = args.named_children[0]
            if first.type == "identifier" and fn.type in ("identifier", "member_expression"):
                self.definers.append((scope, n))

    def bind_definers(self) -> None:
        """``this`` in the functions a call defines on its first argument, an object of the
        file: ``Object.defineProperty(o, 'x', {get: function () {}})``, and a function of
        the file that passes its first parameter to ``Object.defineProperty``
        (``defineGetter(req, 'ip', function ip() {})``). Runs before any use is resolved."""
        for scope, n in self.definers:
            fn = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if fn is None or args is None or not self.defines_on_first(fn, scope):
                continue
            kids = args.named_children
            d = self.desc(kids[0], scope)
            if not isinstance(d, Cls):
                continue
            for a in kids[1:]:
                values = [a]
                if a.type == "object":
                    values = [v for c in a.named_children if (v := c.child_by_field_name("value"))]
                for v in values:
                    sc = self.fn_scopes.get(v.start_byte) if v.type in FUNC_VALUES else None
                    if sc is not None and not sc.arrow and sc.this_cls is None:
                        sc.this_cls = d.fqn

    def defines_on_first(self, fn: Node, scope: Scope) -> bool:
        text = self.t(fn)
        if text in ("Object.defineProperty", "Object.defineProperties"):
            return not lookup(scope, "Object")
        if fn.type != "identifier":
            return False
        binds = lookup(scope, text)
        b = _pick(binds) if binds else None
        node = self.fn_nodes.get(b.name) if b is not None and b.kind == BindKind.FUNCTION else None
        params = node.child_by_field_name("parameters") if node is not None else None
        body = node.child_by_field_name("body") if node is not None else None
        if params is None or body is None or not params.named_children:
            return False
        first = self.t(params.named_children[0])
        return f"defineProperty({first}," in "".join(self.t(body).split())

    def mixin(self, scope: Scope, n: Node, fn: Node) -> None:
        """``mixin(target, source)`` (``Object.assign``, ``Object.setPrototypeOf``, the
        ``merge-descriptors`` / ``utils-merge`` / ``setprototypeof`` packages...): the
        target, a name, also holds what the source is (its methods become the target's)."""
        if not self.is_mixin(fn, scope):
            return
        args = n.child_by_field_name("arguments")
        kids = [a for a in args.named_children if a.type != "comment"] if args else []
        if len(kids) < 2 or kids[0].type != "identifier":
            return
        name = self.t(kids[0])
        if kids[1].type != "identifier":
            return  # `EventEmitter.prototype` and the like: another package's members
        home = declaring(scope, name)
        if home is not None:
            home.bind(name, Bind(BindKind.EXPR, expr=(kids[1], scope)))

    def is_mixin(self, fn: Node, scope: Scope) -> bool:
        text = self.t(fn)
        if text in MIXIN_GLOBALS:
            return not lookup(scope, text.partition(".")[0])
        key = self.imported(fn, scope)
        got = parse_imp(key) if key else None
        return got is not None and got[0] in MIXIN_PACKAGES and got[1] == ["="]

    def on_new(self, n: Node) -> None:
        self.news.append((self.scope(), n))

    def on_return(self, n: Node) -> None:
        scope = self.scope()
        fn = enclosing_function(scope)
        if fn is None or fn.node == 0 or not n.named_child_count:
            return
        if scope.kind == NodeKind.FUNCTION and scope.node == fn.node and scope is not fn:
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
                frags.append((FragmentKind.LIT, self.t(c)))
            elif c.type == "template_substitution":
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
        fn = enclosing_function(self.scope())
        owner = fn.node if fn is not None else self.scope().node
        line = n.start_point[0] + 1
        ordinal = self.sql_lines.get((owner, line), 0) + 1
        self.sql_lines[(owner, line)] = ordinal
        self.sql.append(
            SqlRef(owner, line, n.end_point[0] + 1, tuple(frags), SqlAnalysis.of(info), ordinal)
        )

    # -- what finish makes of them -----------------------------------------------------------
    def call_ref(self, scope: Scope, fn: Node) -> Ref | None:
        owner = scope.node
        name_node = fn.child_by_field_name("property") if fn.type == "member_expression" else fn
        line = (name_node or fn).start_point[0] + 1
        c = self.callee(fn, scope)
        raw = self.t(fn)[:120]
        kind = c.kind
        if kind in (CalleeKind.FUNCTION, CalleeKind.IMPORT, CalleeKind.UNBOUND):
            return CallRef(owner, line, (c.name,), raw)
        if kind == CalleeKind.CLASS:
            return NewRef(owner, line, Cls(c.name))
        if kind == CalleeKind.GLOBAL:
            return CallRef(owner, line, (f"{GLOBAL}.{c.name}",), raw)
        if kind == CalleeKind.METHOD:
            recv = c.receiver if c.receiver is not None else self.receiver_hint(fn)
            return MethodCallRef(owner, line, recv, c.name)
        return DynamicCallRef(owner, line, DynamicHow.VARIABLE, ())

    def receiver_hint(self, fn: Node) -> TypeDesc | None:
        """An untyped receiver's name (``res`` of ``res.set()``, ``req`` of
        ``this.req.get()``) for ``ragraf.lang.js.hints`` to guess from (None: no name)."""
        obj = fn.child_by_field_name("object") if fn.type == "member_expression" else None
        obj = self.strip(obj) if obj is not None else None
        if obj is not None and obj.type == "member_expression":
            obj = obj.child_by_field_name("property")
        if obj is None or obj.type not in ("identifier", "property_identifier"):
            return None
        return Pending(Denotes.INSTANCE, (HINT + self.t(obj),))

    def export_table(self) -> None:
        """What the module exports, for other modules' imports (``link``)."""
        f = self.facts
        out: list[tuple[str, Bind]] = list(self.export_binds)
        for exported, local in self.exports:
            binds = self.top.binds.get(local)
            if not binds:
                continue
            out.append((exported, _pick(binds)))
        for name, b in out:
            kind = b.kind
            if kind in (BindKind.FUNCTION, BindKind.CLASS, BindKind.OBJECT, BindKind.STAR):
                f.global_assigns.append((name, Export(kind, b.name)))
            elif kind == BindKind.IMPORT:
                f.global_assigns.append((name, Export(BindKind.IMPORT, b.name)))
            elif kind == BindKind.EXPR and b.expr is not None:
                node, sc = b.expr
                d = self.desc(node, sc)
                if d is not None:
                    f.global_assigns.append((name, Export(BindKind.VALUE, desc=d)))
        for fqn, members in sorted(self.obj_values.items()):
            for key, (node, sc) in sorted(members.items()):
                b = self.value_bind(node, sc)
                if b.kind in _DECLARED:
                    f.global_assigns.append((fqn, Export(b.kind, b.name, member=key)))

"""What class an expression's value is: the oracle's type inference, slower and more thorough than
the resolver's, and written without it.

Sources, strongest first: ``instanceof`` narrowing (enclosing ``if`` / ``&&`` / ternary, an
early ``return`` / ``throw`` on the negated test, ``assert``), an inline ``/** @var T $x */``,
the nearest preceding assignment in the same function (walking back through the statements;
branches that may or may not run are unioned, loops add their later assignments), ``foreach``
and ``catch`` bindings, ``global`` (the function's ``@global`` tag, else every global-scope
assignment of that variable in the corpus), parameters (declared type, then ``@param``, then the
overridden method's), ``$this`` / ``self`` / ``static`` / ``parent``, properties (declared,
promoted, ``@var``, the class's ``@property``, else the class's own ``$this->p = ...``
assignments), return types (declared, ``@return``, the overridden method's, else the method's
own ``return`` statements, with ``static`` / ``$this`` bound to the receiver).

A type is a set of (class key, open) pairs (open: the value may be of a subclass; ``new X`` is
exact), a flag for an unknown part, and the element type of an array / iterable.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor

from bench.oracle.builtins import BUILTIN_CLASSES, BUILTIN_RETURNS
from bench.oracle.corpus import (
    CLASS_KINDS,
    LANG,
    ClassDecl,
    Corpus,
    FuncDecl,
    MethodDecl,
    Region,
    Unit,
    doc_of,
    key,
    text,
    walk,
)
from bench.oracle.phpdoc import DocType, parse_docblock, parse_type


@dataclass(frozen=True)
class Ty:
    objs: frozenset[tuple[str, bool]] = frozenset()
    unknown: bool = False
    elems: Ty | None = None

    def __or__(self, o: Ty) -> Ty:
        if self.elems is None:
            e = o.elems
        elif o.elems is None:
            e = self.elems
        else:
            e = self.elems | o.elems
        return Ty(self.objs | o.objs, self.unknown or o.unknown, e)

    def names(self, corpus: Corpus) -> list[str]:
        """Class names for a report (declared spelling when the corpus has the class)."""
        out = []
        for k, open_ in sorted(self.objs):
            d = corpus.decls(k)
            n = d[0].fqn if d else k
            out.append(n + ("+" if open_ else ""))
        if self.unknown:
            out.append("?")
        return out


UNKNOWN = Ty(unknown=True)
NONE = Ty()


def union(tys: list[Ty]) -> Ty:
    out = NONE
    for t in tys:
        out = out | t
    return out


def obj(k: str, open_: bool = True) -> Ty:
    return Ty(frozenset({(k, open_)}))


SCOPES = frozenset(
    {"method_declaration", "function_definition", "anonymous_function", "arrow_function"}
)
NESTED = frozenset(SCOPES | set(CLASS_KINDS) | {"anonymous_class"})
CONTAINERS = frozenset(
    {"compound_statement", "program", "colon_block", "case_statement", "default_statement"}
)
LOOPS = frozenset({"while_statement", "do_statement", "for_statement", "foreach_statement"})
EXITS = frozenset(
    {
        "return_statement",
        "throw_expression",
        "continue_statement",
        "break_statement",
        "exit_statement",
    }
)
SCALAR_EXPRS = frozenset(
    {
        "string",
        "encapsed_string",
        "integer",
        "float",
        "boolean",
        "null",
        "heredoc",
        "nowdoc",
        "array_creation_expression",
        "unary_op_expression",
        "update_expression",
        "print_intrinsic",
        "throw_expression",
        "shell_command_expression",
        "name",
        "qualified_name",
    }
)
_ASSIGNS = Query(
    LANG,
    "(assignment_expression left: (variable_name (name) @v)) @a\n"
    "(assignment_expression left: (subscript_expression (variable_name (name) @g)"
    " (string (string_content) @k))) @ga",
)


@dataclass(frozen=True)
class Ctx:
    unit: Unit
    scope: Node  # the function-like node, or the program
    cls: ClassDecl | None  # the class `self` names
    this: Ty | None  # $this (None: there is none)

    @property
    def region(self) -> Region:
        return self.unit.region_at(self.scope.start_byte)


def _strip(e: Node) -> Node:
    while e.type == "parenthesized_expression" and e.named_children:
        e = e.named_children[0]
    return e


def _var_name(e: Node | None) -> str | None:
    """``x`` for a node ``$x``."""
    if e is None:
        return None
    if e.type == "by_ref" and e.named_children:
        e = e.named_children[0]
    if e.type == "variable_name" and e.named_children and e.named_children[0].type == "name":
        return text(e.named_children[0])
    return None


def _op(e: Node) -> str:
    op = e.child_by_field_name("operator")
    return text(op).lower() if op is not None else ""


def _ends_in_exit(body: Node | None) -> bool:
    if body is None:
        return False
    if body.type in ("compound_statement", "colon_block"):
        stmts = [c for c in body.named_children if c.type != "comment"]
        return bool(stmts) and _ends_in_exit(stmts[-1])
    if body.type in EXITS:
        return True
    if body.type == "expression_statement" and body.named_children:
        e = _strip(body.named_children[0])
        if e.type in EXITS:
            return True
        if e.type == "function_call_expression":
            return text(e.child_by_field_name("function")).lower().lstrip("\\") in (
                "exit",
                "die",
                "wp_die",
                "trigger_error",
            )
        return e.type == "name" and text(e).lower() in ("exit", "die")
    return False


class Typer:
    def __init__(self, corpus: Corpus) -> None:
        self.c = corpus
        self._memo: dict[tuple, Ty] = {}
        self._active: set[tuple] = set()
        self._assign_index: dict[str, list[tuple[Unit, Node, Node]]] | None = None
        self._globals_index: dict[str, list[tuple[Unit, Node]]] | None = None
        self._prop_sites: dict[int, dict[str, list[tuple[Node, Node, bool]]]] = {}
        self._global_names: dict[Node, set[str]] = {}

    # -- memo and cycles ------------------------------------------------------------------
    def _cached(self, k: tuple, fn, *args) -> Ty:  # type: ignore[no-untyped-def]
        hit = self._memo.get(k)
        if hit is not None:
            return hit
        if k in self._active:
            return UNKNOWN
        self._active.add(k)
        try:
            out = fn(*args)
        finally:
            self._active.discard(k)
        self._memo[k] = out
        return out

    # -- contexts ------------------------------------------------------------------
    def ctx_at(self, unit: Unit, node: Node, this: Ty | None = None) -> Ctx:
        scope: Node | None = None
        cls: ClassDecl | None = None
        no_this = False
        p: Node | None = node
        while p is not None:
            if scope is None and p.type in SCOPES:
                scope = p
            if p.type == "function_definition":
                no_this = True
                break
            if p.type in CLASS_KINDS:
                cls = self.c.class_at.get((unit.path, p.start_byte))
                break
            if p.type == "anonymous_class":
                no_this = True
                break
            p = p.parent
        if scope is None:
            scope = unit.tree.root_node
        if this is None and cls is not None and not no_this:
            this = obj(cls.key, True)
        return Ctx(unit, scope, cls, None if no_this else this)

    def outer(self, ctx: Ctx) -> Ctx:
        """The context around a closure or arrow function."""
        parent = ctx.scope.parent
        return self.ctx_at(ctx.unit, parent if parent is not None else ctx.scope, ctx.this)

    # -- type names --------------------------------------------------------------------------
    def from_doc(
        self, dt: DocType, region: Region, cls: ClassDecl | None, this: Ty | None, trusted: bool
    ) -> Ty:
        out = UNKNOWN if dt.opaque else NONE
        for n in dt.names:
            out = out | self._name_ty(n, region, cls, this, trusted)
        if dt.elems or dt.elems_opaque:
            el = UNKNOWN if dt.elems_opaque else NONE
            for n in dt.elems:
                el = el | self._name_ty(n, region, cls, this, trusted)
            out = Ty(out.objs, out.unknown, el)
        return out

    def _name_ty(
        self, n: str, region: Region, cls: ClassDecl | None, this: Ty | None, trusted: bool
    ) -> Ty:
        low = n.lower()
        if low in ("$this", "static"):
            if this is not None:
                return this
            return obj(cls.key) if cls is not None else UNKNOWN
        if low == "self":
            return obj(cls.key) if cls is not None else UNKNOWN
        if low == "parent":
            return obj(cls.parent) if cls is not None and cls.parent else UNKNOWN
        fqn, explicit = region.resolve_class_how(n)
        k = key(fqn)
        if self.c.decls(k) or trusted or explicit or k in BUILTIN_CLASSES:
            return obj(k)
        return UNKNOWN  # a docblock naming a class nobody declares or imports: maybe a typo

    def type_node_ty(
        self, tn: Node | None, region: Region, cls: ClassDecl | None, this: Ty | None
    ) -> Ty | None:
        """A declared type (enforced by PHP, so trusted), or None when there is none."""
        if tn is None:
            return None
        return self.from_doc(parse_type(text(tn)), region, cls, this, True)

    @staticmethod
    def _pick(decl: Ty | None, doc: Ty | None) -> Ty | None:
        """Declared type against docblock: the declared one when it names a class; a docblock
        refines ``mixed`` / ``object`` / ``array`` / ``iterable`` / nothing."""
        if decl is not None and decl.objs:
            if doc is not None and decl.elems is None and doc.elems is not None:
                return Ty(decl.objs, decl.unknown, doc.elems)
            return decl
        if decl is not None and not decl.unknown:
            # a scalar or an array: a docblock may only say what the elements are
            if doc is not None and doc.elems is not None and decl.elems is None:
                return Ty(decl.objs, decl.unknown, doc.elems)
            return decl
        if doc is not None:
            return doc
        return decl

    # -- expressions --------------------------------------------------------------------------
    def type_of(self, e: Node | None, ctx: Ctx, depth: int = 0) -> Ty:
        if e is None or depth > 30:
            return UNKNOWN
        t = e.type
        if t == "parenthesized_expression":
            return self.type_of(e.named_children[0] if e.named_children else None, ctx, depth + 1)
        if t == "variable_name":
            name = _var_name(e)
            if name is None:
                return UNKNOWN
            if name == "this":
                return ctx.this if ctx.this is not None else UNKNOWN
            return self.var_type(name, e, ctx)
        if t == "object_creation_expression":
            return self._new_ty(e, ctx)
        if t in ("member_call_expression", "nullsafe_member_call_expression"):
            recv = self.type_of(e.child_by_field_name("object"), ctx, depth + 1)
            name = e.child_by_field_name("name")
            if name is None or name.type != "name":
                return UNKNOWN
            return self.call_result(recv, text(name).lower(), static=False)
        if t == "scoped_call_expression":
            recv = self.scope_ty(e.child_by_field_name("scope"), ctx, depth)
            name = e.child_by_field_name("name")
            if name is None or name.type != "name":
                return UNKNOWN
            return self.call_result(recv, text(name).lower(), static=True)
        if t == "function_call_expression":
            return self._function_result(e, ctx)
        if t in ("member_access_expression", "nullsafe_member_access_expression"):
            recv = self.type_of(e.child_by_field_name("object"), ctx, depth + 1)
            name = e.child_by_field_name("name")
            if name is None or name.type != "name":
                return UNKNOWN
            return self.prop_of(recv, text(name))
        if t == "scoped_property_access_expression":
            recv = self.scope_ty(e.child_by_field_name("scope"), ctx, depth)
            pname = _var_name(e.child_by_field_name("name"))
            if pname is None:
                return UNKNOWN
            return self.prop_of(recv, pname)
        if t in ("assignment_expression", "reference_assignment_expression"):
            return self.type_of(e.child_by_field_name("right"), ctx, depth + 1)
        if t == "augmented_assignment_expression":
            if _op(e) == "??=":
                return self.type_of(e.child_by_field_name("left"), ctx, depth + 1) | self.type_of(
                    e.child_by_field_name("right"), ctx, depth + 1
                )
            return NONE
        if t == "conditional_expression":
            body = e.child_by_field_name("body") or e.child_by_field_name("condition")
            return self.type_of(body, ctx, depth + 1) | self.type_of(
                e.child_by_field_name("alternative"), ctx, depth + 1
            )
        if t == "binary_expression":
            if _op(e) == "??":
                return self.type_of(e.child_by_field_name("left"), ctx, depth + 1) | self.type_of(
                    e.child_by_field_name("right"), ctx, depth + 1
                )
            return NONE
        if t == "clone_expression":
            return self.type_of(e.named_children[0] if e.named_children else None, ctx, depth + 1)
        if t == "cast_expression":
            ct = text(e.child_by_field_name("type")).lower()
            return obj("stdclass", False) if ct == "object" else NONE
        if t == "match_expression":
            body = e.child_by_field_name("body")
            arms = [
                a.child_by_field_name("return_expression")
                for a in (body.named_children if body is not None else [])
            ]
            return union([self.type_of(a, ctx, depth + 1) for a in arms if a is not None])
        if t == "subscript_expression":
            base = e.named_children[0] if e.named_children else None
            if _var_name(base) == "GLOBALS" and len(e.named_children) > 1:
                idx = e.named_children[1]
                if idx.type == "string" and idx.named_children:
                    return self.global_type(text(idx.named_children[0]))
                return UNKNOWN
            bt = self.type_of(base, ctx, depth + 1)
            if bt.elems is not None:
                return bt.elems
            if bt.objs:  # an ArrayAccess object: what its offsetGet returns
                return self.call_result(bt, "offsetget", static=False)
            return UNKNOWN
        if t in ("anonymous_function", "arrow_function"):
            return obj("closure", False)
        if t == "class_constant_access_expression":
            scope = e.named_children[0] if e.named_children else None
            if scope is not None and scope.type in ("name", "qualified_name"):
                k = key(ctx.unit.region_at(e.start_byte).resolve_class(text(scope)))
                if any(d.kind == "enum" for d in self.c.decls(k)):
                    return obj(k, False)
            return NONE
        if t in SCALAR_EXPRS:
            return NONE
        return UNKNOWN

    def _new_ty(self, e: Node, ctx: Ctx) -> Ty:
        cn = e.named_children[0] if e.named_children else None
        if cn is None or cn.type == "anonymous_class":
            return UNKNOWN
        if cn.type in ("name", "qualified_name", "relative_name"):
            n = text(cn)
            low = n.lower()
            if low == "static":
                return (
                    ctx.this if ctx.this is not None else (obj(ctx.cls.key) if ctx.cls else UNKNOWN)
                )
            if low == "self":
                return obj(ctx.cls.key, False) if ctx.cls else UNKNOWN
            if low == "parent":
                return obj(ctx.cls.parent, False) if ctx.cls and ctx.cls.parent else UNKNOWN
            return obj(key(ctx.unit.region_at(e.start_byte).resolve_class(n)), False)
        return UNKNOWN

    def scope_ty(self, s: Node | None, ctx: Ctx, depth: int = 0) -> Ty:
        """The class a ``X::`` scope names (exact, except ``static``)."""
        if s is None:
            return UNKNOWN
        if s.type == "relative_scope":
            low = text(s).lower()
            if ctx.cls is None:
                return UNKNOWN
            if low == "self":
                return obj(ctx.cls.key, False)
            if low == "static":
                return ctx.this if ctx.this is not None else obj(ctx.cls.key)
            if low == "parent":
                return obj(ctx.cls.parent, False) if ctx.cls.parent else UNKNOWN
            return UNKNOWN
        if s.type in ("name", "qualified_name", "relative_name"):
            return obj(key(ctx.unit.region_at(s.start_byte).resolve_class(text(s))), False)
        t = self.type_of(s, ctx, depth + 1)
        return t if t.objs else UNKNOWN

    # -- calls ----------------------------------------------------------------------------------
    def call_result(self, recv: Ty, lname: str, static: bool) -> Ty:
        if not recv.objs:
            return UNKNOWN
        out = UNKNOWN if recv.unknown else NONE
        for k, open_ in recv.objs:
            if not self.c.decls(k):
                known = BUILTIN_RETURNS.get((k, lname))
                if known is None:
                    out = out | UNKNOWN
                else:
                    out = out | (obj(k, open_) if known == "static" else obj(known, False))
                continue
            ms = self.c.dispatch(k, lname, static=static)
            if not ms:
                ms = self.c.interface_decls(k, lname)
            if not ms:
                out = out | UNKNOWN
                continue
            for m in sorted(ms, key=lambda m: m.ident):
                out = out | self.method_return(m, obj(k, open_))
        return out

    def _function_result(self, e: Node, ctx: Ctx) -> Ty:
        fn = e.child_by_field_name("function")
        if fn is None or fn.type not in ("name", "qualified_name", "relative_name"):
            return UNKNOWN
        for cand in ctx.unit.region_at(e.start_byte).function_candidates(text(fn)):
            decls = self.c.functions.get(key(cand))
            if decls:
                return union([self.function_return(d) for d in decls])
        return UNKNOWN

    def method_return(self, m: MethodDecl, recv: Ty) -> Ty:
        return self._cached(("ret", m.ident, recv), self._method_return, m, recv)

    def _method_return(self, m: MethodDecl, recv: Ty) -> Ty:
        cls, region = m.cls, m.cls.region
        decl = self.type_node_ty(m.node.child_by_field_name("return_type"), region, cls, recv)
        doc = m.doc
        docty = (
            self.from_doc(parse_type(doc.returns), region, cls, recv, False)
            if doc is not None and doc.returns
            else None
        )
        picked = self._pick(decl, docty)
        if picked is not None:
            return picked
        for o in self._overridden(m):
            if o.node.child_by_field_name("return_type") is not None or (o.doc and o.doc.returns):
                return self.method_return(o, recv)
        body = m.node.child_by_field_name("body")
        if body is None:
            return UNKNOWN
        return self._returns(body, Ctx(m.cls.unit, m.node, cls, recv))

    def _overridden(self, m: MethodDecl) -> list[MethodDecl]:
        out = []
        for s in sorted(self.c.supertypes(m.cls.key)):
            for d in self.c.decls(s):
                o = d.methods.get(m.name.lower())
                if o is not None:
                    out.append(o)
        return out

    def function_return(self, f: FuncDecl) -> Ty:
        return self._cached(("fret", f.ident, f.node.start_byte), self._function_return, f)

    def _function_return(self, f: FuncDecl) -> Ty:
        decl = self.type_node_ty(f.node.child_by_field_name("return_type"), f.region, None, None)
        doc = f.doc
        docty = (
            self.from_doc(parse_type(doc.returns), f.region, None, None, False)
            if doc is not None and doc.returns
            else None
        )
        picked = self._pick(decl, docty)
        if picked is not None:
            return picked
        body = f.node.child_by_field_name("body")
        if body is None:
            return UNKNOWN
        return self._returns(body, Ctx(f.unit, f.node, None, None))

    def _returns(self, body: Node, ctx: Ctx) -> Ty:
        tys = []
        for n in walk(body, NESTED):
            if n.type in ("yield_expression",):
                return UNKNOWN
            if n.type == "return_statement":
                tys.append(self.type_of(n.named_children[0], ctx) if n.named_children else NONE)
        return union(tys)

    # -- properties --------------------------------------------------------------------------
    def prop_of(self, recv: Ty, pname: str) -> Ty:
        if not recv.objs:
            return UNKNOWN
        out = UNKNOWN if recv.unknown else NONE
        for k, open_ in sorted(recv.objs):
            out = out | self.prop_type(k, pname, obj(k, open_))
        return out

    def lineage(self, k: str) -> Iterator[ClassDecl]:
        """The class, its traits and its parents, in lookup order."""
        seen: set[str] = set()
        todo = [k]
        while todo:
            c = todo.pop(0)
            if c in seen:
                continue
            seen.add(c)
            for d in self.c.decls(c):
                yield d
                todo[0:0] = list(d.traits)
                if d.parent:
                    todo.append(d.parent)

    def prop_type(self, k: str, pname: str, this: Ty) -> Ty:
        return self._cached(("prop", k, pname, this), self._prop_type, k, pname, this)

    def _prop_type(self, k: str, pname: str, this: Ty) -> Ty:
        if not self.c.decls(k):
            return UNKNOWN
        declared_somewhere = False
        for d in self.lineage(k):
            p = d.props.get(pname)
            if p is not None:
                declared_somewhere = True
                decl = self.type_node_ty(p.type_node, d.region, d, this)
                doc = (
                    self.from_doc(parse_type(p.doc_type), d.region, d, this, False)
                    if p.doc_type
                    else None
                )
                picked = self._pick(decl, doc)
                if picked is not None and not (picked.unknown and not picked.objs):
                    return picked
            dp = d.doc_props.get(pname)
            if dp:
                return self.from_doc(parse_type(dp), d.region, d, this, False)
        del declared_somewhere
        tys: list[Ty] = []
        for d in self.lineage(k):
            for _site, rhs, elem in self._prop_assignments(d).get(pname, []):
                ctx = self.ctx_at(d.unit, rhs, this)
                t = self.type_of(rhs, ctx)
                tys.append(Ty(elems=t) if elem else t)
        return union(tys) if tys else UNKNOWN

    def _prop_assignments(self, d: ClassDecl) -> dict[str, list[tuple[Node, Node, bool]]]:
        """``$this->p = rhs`` / ``self::$p = rhs`` / ``$this->p[] = rhs`` in a class's methods."""
        hit = self._prop_sites.get(id(d))
        if hit is not None:
            return hit
        out: dict[str, list[tuple[Node, Node, bool]]] = {}
        body = d.node.child_by_field_name("body")
        for n in walk(body, frozenset({"anonymous_class"})) if body is not None else []:
            if n.type not in ("assignment_expression", "reference_assignment_expression"):
                continue
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is None or right is None:
                continue
            elem = False
            if left.type == "subscript_expression" and len(left.named_children) == 1:
                left, elem = left.named_children[0], True
            pname = None
            if left.type == "member_access_expression":
                o = left.child_by_field_name("object")
                nm = left.child_by_field_name("name")
                if _var_name(o) == "this" and nm is not None and nm.type == "name":
                    pname = text(nm)
            elif left.type == "scoped_property_access_expression":
                sc = left.child_by_field_name("scope")
                if (
                    sc is not None
                    and sc.type == "relative_scope"
                    and text(sc).lower() in ("self", "static")
                ):
                    pname = _var_name(left.child_by_field_name("name"))
            if pname:
                out.setdefault(pname, []).append((n, right, elem))
        self._prop_sites[id(d)] = out
        return out

    # -- globals ------------------------------------------------------------------------------
    def _build_indexes(self) -> None:
        self._assign_index, self._globals_index = {}, {}
        for unit in self.c.units.values():
            caps = QueryCursor(_ASSIGNS).matches(unit.tree.root_node)
            for _pat, cap in caps:
                if "a" in cap:
                    a, v = cap["a"][0], cap["v"][0]
                    self._assign_index.setdefault(text(v), []).append((unit, a, v))
                elif "ga" in cap:
                    g, k = cap["g"][0], cap["k"][0]
                    if text(g) == "GLOBALS":
                        self._globals_index.setdefault(text(k), []).append((unit, cap["ga"][0]))

    def global_type(self, name: str) -> Ty:
        return self._cached(("global", name), self._global_type, name)

    def _global_type(self, name: str) -> Ty:
        if self._assign_index is None or self._globals_index is None:
            self._build_indexes()
        assert self._assign_index is not None and self._globals_index is not None
        tys: list[Ty] = []
        for unit, a, _v in self._assign_index.get(name, []):
            ctx = self.ctx_at(unit, a)
            if ctx.scope.type == "program" or self._declares_global(ctx.scope, name):
                tys.append(self._assigned_ty(a, ctx))
        for unit, a in self._globals_index.get(name, []):
            ctx = self.ctx_at(unit, a)
            tys.append(self.type_of(a.child_by_field_name("right"), ctx))
        return union(tys) if tys else UNKNOWN

    def _declares_global(self, scope: Node, name: str) -> bool:
        names = self._global_names.get(scope)
        if names is None:
            names = {
                _var_name(v) or ""
                for n in walk(scope, NESTED)
                if n.type == "global_declaration"
                for v in n.named_children
            }
            self._global_names[scope] = names
        return name in names

    def _global_decl_ty(self, name: str, ctx: Ctx) -> Ty:
        """``global $x``: the function's ``@global T $x``, else the corpus's global assignments."""
        doc = doc_of(ctx.scope) if ctx.scope.type in SCOPES else None
        if doc is not None and name in doc.globals:
            t = self.from_doc(parse_type(doc.globals[name]), ctx.region, ctx.cls, ctx.this, False)
            if t.objs:
                return t
        return self.global_type(name)

    # -- variables ------------------------------------------------------------------------------
    def var_type(self, name: str, at: Node, ctx: Ctx) -> Ty:
        k = ("var", ctx.unit.path, at.start_byte, at.end_byte, name, ctx.this)
        return self._cached(k, self._var_type, name, at, ctx)

    def _var_type(self, name: str, at: Node, ctx: Ctx) -> Ty:
        found: list[Ty] = []
        node = at
        while node != ctx.scope:
            parent = node.parent
            if parent is None:
                break
            bound = self._binding(parent, node, name, ctx)
            if bound is not None:
                return union([*found, bound])
            nar = self._narrow_from(parent, node, name, ctx)
            if nar is not None:
                return union([*found, nar])
            for sib, definite_ok in self._earlier(parent, node):
                tys, definite = self._defs_in(sib, name, ctx, definite_ok)
                found.extend(tys)
                if definite:
                    return union(found)
            if parent.type in LOOPS and node == parent.child_by_field_name("body"):
                found.extend(self._defs_after(node, at, name, ctx))
            node = parent
        return union([*found, self._entry(name, ctx)])

    def _binding(self, parent: Node, child: Node, name: str, ctx: Ctx) -> Ty | None:
        """``foreach (... as $x)`` and ``catch (T $x)`` around the use."""
        if parent.type == "foreach_statement" and child == parent.child_by_field_name("body"):
            it, val = self._foreach_parts(parent)
            if val is not None and _var_name(val) == name:
                t = self.type_of(it, ctx)
                return t.elems if t.elems is not None else UNKNOWN
            if val is not None and val.type in ("list_literal", "array_creation_expression"):
                if any(_var_name(v) == name for v in walk(val)):
                    return UNKNOWN
            if val is not None and val.type == "pair":
                kv = val.named_children
                if kv and _var_name(kv[0]) == name:
                    return NONE  # a key
        if parent.type == "catch_clause" and child == parent.child_by_field_name("body"):
            if _var_name(parent.child_by_field_name("name")) == name:
                tl = parent.child_by_field_name("type")
                return (
                    self.type_node_ty(tl, ctx.unit.region_at(parent.start_byte), ctx.cls, ctx.this)
                    or UNKNOWN
                )
        return None

    @staticmethod
    def _foreach_parts(fe: Node) -> tuple[Node | None, Node | None]:
        named = [
            c
            for c in fe.named_children
            if c != fe.child_by_field_name("body") and c.type != "comment"
        ]
        it = named[0] if named else None
        val = named[1] if len(named) > 1 else None
        if val is not None and val.type == "pair" and len(val.named_children) == 2:
            # `$k => $v`: the value is what matters for a receiver
            k, v = val.named_children
            if _var_name(v) is not None or v.type == "by_ref":
                return it, v
        return it, val

    def _narrow_from(self, parent: Node, child: Node, name: str, ctx: Ctx) -> Ty | None:
        t = parent.type
        if t == "if_statement":
            cond = parent.child_by_field_name("condition")
            if child == parent.child_by_field_name("body"):
                return self._asserts(cond, name, True, ctx)
            if child.type == "else_clause":
                return self._asserts(cond, name, False, ctx)
        elif t == "else_if_clause" and child == parent.child_by_field_name("body"):
            return self._asserts(parent.child_by_field_name("condition"), name, True, ctx)
        elif t == "binary_expression" and child == parent.child_by_field_name("right"):
            op = _op(parent)
            left = parent.child_by_field_name("left")
            if op in ("&&", "and"):
                return self._asserts(left, name, True, ctx)
            if op in ("||", "or"):
                return self._asserts(left, name, False, ctx)
        elif t == "conditional_expression":
            cond = parent.child_by_field_name("condition")
            if child == parent.child_by_field_name("body"):
                return self._asserts(cond, name, True, ctx)
            if child == parent.child_by_field_name("alternative") and parent.child_by_field_name(
                "body"
            ):
                return self._asserts(cond, name, False, ctx)
        elif t == "while_statement" and child == parent.child_by_field_name("body"):
            return self._asserts(parent.child_by_field_name("condition"), name, True, ctx)
        return None

    def _asserts(self, cond: Node | None, name: str, positive: bool, ctx: Ctx) -> Ty | None:
        """The class ``cond`` being ``positive`` proves ``$name`` to be, if it proves one."""
        if cond is None:
            return None
        e = _strip(cond)
        if e.type == "unary_op_expression" and text(e.child_by_field_name("operator")) == "!":
            return self._asserts(
                e.child_by_field_name("argument") or e.named_children[-1], name, not positive, ctx
            )
        if e.type == "binary_expression":
            op = _op(e)
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            if op == "instanceof":
                if (
                    not positive
                    or _var_name(_strip(left) if left else None) != name
                    or right is None
                ):
                    return None
                if right.type in ("name", "qualified_name", "relative_name"):
                    return obj(key(ctx.unit.region_at(e.start_byte).resolve_class(text(right))))
                return None
            if (op in ("&&", "and") and positive) or (op in ("||", "or") and not positive):
                a = self._asserts(left, name, positive, ctx)
                return a if a is not None else self._asserts(right, name, positive, ctx)
            if (op in ("||", "or") and positive) or (op in ("&&", "and") and not positive):
                a = self._asserts(left, name, positive, ctx)
                b = self._asserts(right, name, positive, ctx)
                return a | b if a is not None and b is not None else None
            return None
        if e.type == "function_call_expression" and positive:
            fn = text(e.child_by_field_name("function")).lower().lstrip("\\")
            args = e.child_by_field_name("arguments")
            vals = [
                a.named_children[0]
                for a in (args.named_children if args else [])
                if a.named_children
            ]
            if fn == "is_a" and len(vals) >= 2 and _var_name(vals[0]) == name:
                cn = self._class_string(vals[1], ctx)
                return obj(cn) if cn else None
        return None

    def _class_string(self, e: Node, ctx: Ctx) -> str | None:
        if e.type == "string" and e.named_children:
            return key(text(e.named_children[0]).replace("\\\\", "\\"))
        if e.type == "class_constant_access_expression" and len(e.named_children) == 2:
            sc, cn = e.named_children
            if text(cn).lower() == "class" and sc.type in ("name", "qualified_name"):
                return key(ctx.unit.region_at(e.start_byte).resolve_class(text(sc)))
        return None

    def _earlier(self, parent: Node, child: Node) -> list[tuple[Node, bool]]:
        """What runs before ``child`` inside ``parent``, nearest first, with whether an
        assignment there always runs before it."""
        t = parent.type
        if t in CONTAINERS:
            out = []
            s = child.prev_named_sibling
            while s is not None:
                out.append((s, True))
                s = s.prev_named_sibling
            return out
        if t in ("if_statement", "else_if_clause", "while_statement", "switch_statement"):
            cond = parent.child_by_field_name("condition")
            return [(cond, True)] if cond is not None and child != cond else []
        if t == "try_statement":
            body = parent.child_by_field_name("body")
            return [(body, False)] if body is not None and child != body else []
        if t in (
            "switch_block",
            "match_block",
            "else_clause",
            "catch_clause",
            "finally_clause",
            "foreach_statement",
        ):
            if t == "foreach_statement":
                it, _ = self._foreach_parts(parent)
                return [(it, True)] if it is not None and child != it else []
            return []
        if t == "conditional_expression":
            cond = parent.child_by_field_name("condition")
            return [(cond, True)] if cond is not None and child != cond else []
        if t in NESTED:
            return []
        out = []
        s = child.prev_named_sibling
        while s is not None:
            out.append((s, True))
            s = s.prev_named_sibling
        return out

    def _defs_in(self, n: Node, name: str, ctx: Ctx, definite_ok: bool) -> tuple[list[Ty], bool]:
        """The types ``n`` may give ``$name`` (it runs before the use), and whether it surely
        sets it."""
        t = n.type
        if t == "comment":
            s = text(n)
            if s.startswith("/**") and "@var" in s:
                for ty, v in parse_docblock(s).vars:
                    if v == name:
                        return [
                            self.from_doc(parse_type(ty), ctx.region, ctx.cls, ctx.this, False)
                        ], definite_ok
            return [], False
        if t == "expression_statement" and n.named_children:
            e = _strip(n.named_children[0])
            if (
                e.type in ("assignment_expression", "reference_assignment_expression")
                and _var_name(e.child_by_field_name("left")) == name
            ):
                return [self._assigned_ty(e, ctx, n)], definite_ok
            if (
                e.type == "function_call_expression"
                and text(e.child_by_field_name("function")).lower() == "assert"
            ):
                args = e.child_by_field_name("arguments")
                a0 = args.named_children[0] if args is not None and args.named_children else None
                if a0 is not None and a0.named_children:
                    nar = self._asserts(a0.named_children[0], name, True, ctx)
                    if nar is not None:
                        return [nar], definite_ok
        if t == "if_statement" and not any(
            c.type in ("else_clause", "else_if_clause") for c in n.named_children
        ):
            nar = self._asserts(n.child_by_field_name("condition"), name, False, ctx)
            if nar is not None and _ends_in_exit(n.child_by_field_name("body")):
                return [nar], definite_ok  # past the test only the narrowed value goes on
        if t == "if_statement" and self._all_branches_assign(n, name):
            return self._all_defs(n, name, ctx), definite_ok
        if t == "global_declaration":
            if any(_var_name(v) == name for v in n.named_children):
                return [self._global_decl_ty(name, ctx)], definite_ok
            return [], False
        if t == "function_static_declaration":
            for d in n.named_children:
                if _var_name(d.child_by_field_name("name")) == name:
                    init = d.child_by_field_name("value")
                    tys = [self.type_of(init, ctx) if init is not None else NONE]
                    tys += self._all_defs(ctx.scope, name, ctx)
                    return tys, definite_ok
        if t in NESTED:
            return [], False
        return self._all_defs(n, name, ctx), False

    def _all_branches_assign(self, n: Node, name: str) -> bool:
        branches = [n.child_by_field_name("body")]
        has_else = False
        for c in n.named_children:
            if c.type == "else_if_clause":
                branches.append(c.child_by_field_name("body"))
            elif c.type == "else_clause":
                has_else = True
                branches.append(
                    c.child_by_field_name("body")
                    or (c.named_children[-1] if c.named_children else None)
                )
        if not has_else:
            return False
        for b in branches:
            if b is None:
                return False
            stmts = b.named_children if b.type in ("compound_statement", "colon_block") else [b]
            if not any(
                s.type == "expression_statement"
                and s.named_children
                and _strip(s.named_children[0]).type == "assignment_expression"
                and _var_name(_strip(s.named_children[0]).child_by_field_name("left")) == name
                for s in stmts
            ) and not _ends_in_exit(b):
                return False
        return True

    def _all_defs(self, n: Node, name: str, ctx: Ctx, after: int | None = None) -> list[Ty]:
        """Every assignment to ``$name`` inside ``n`` (nested functions excluded)."""
        out: list[Ty] = []
        for x in walk(n, NESTED):
            if after is not None and x.start_byte < after:
                continue
            xt = x.type
            if xt in (
                "assignment_expression",
                "reference_assignment_expression",
                "augmented_assignment_expression",
            ):
                left = x.child_by_field_name("left")
                if _var_name(left) == name:
                    out.append(
                        self._assigned_ty(
                            x,
                            ctx,
                            x.parent
                            if x.parent and x.parent.type == "expression_statement"
                            else None,
                        )
                    )
                elif left is not None and left.type in (
                    "list_literal",
                    "array_creation_expression",
                ):
                    if any(_var_name(v) == name for v in walk(left)):
                        out.append(UNKNOWN)
            elif xt == "foreach_statement":
                it, val = self._foreach_parts(x)
                if val is not None and _var_name(val) == name:
                    ti = self.type_of(it, ctx)
                    out.append(ti.elems if ti.elems is not None else UNKNOWN)
            elif xt == "catch_clause" and _var_name(x.child_by_field_name("name")) == name:
                out.append(
                    self.type_node_ty(x.child_by_field_name("type"), ctx.region, ctx.cls, ctx.this)
                    or UNKNOWN
                )
            elif xt == "global_declaration" and any(_var_name(v) == name for v in x.named_children):
                out.append(self._global_decl_ty(name, ctx))
        return out

    def _defs_after(self, body: Node, at: Node, name: str, ctx: Ctx) -> list[Ty]:
        """Assignments later in a loop body reach an earlier use in the next iteration."""
        return self._all_defs(body, name, ctx, after=at.end_byte)

    def _assigned_ty(self, a: Node, ctx: Ctx, stmt: Node | None = None) -> Ty:
        """The type an assignment gives its variable; an inline ``@var`` above the statement wins."""
        if stmt is None and a.parent is not None and a.parent.type == "expression_statement":
            stmt = a.parent
        left = _var_name(a.child_by_field_name("left"))
        if stmt is not None:
            prev = stmt.prev_named_sibling
            if prev is not None and prev.type == "comment" and text(prev).startswith("/**"):
                for ty, v in parse_docblock(text(prev)).vars:
                    if v in (None, left):
                        t = self.from_doc(parse_type(ty), ctx.region, ctx.cls, ctx.this, False)
                        if t.objs or t.elems is not None:
                            return t
        return self.type_of(a, ctx)

    def _entry(self, name: str, ctx: Ctx) -> Ty:
        """The value a variable has when the scope starts: a parameter, a closure's ``use``, the
        enclosing scope of an arrow function, or (at the top of a file) a global."""
        s = ctx.scope
        if s.type == "program":
            return self.global_type(name) | UNKNOWN
        params = s.child_by_field_name("parameters")
        for i, p in enumerate(params.named_children if params is not None else []):
            if _var_name(p.child_by_field_name("name")) == name:
                return self._param_ty(s, p, i, name, ctx)
        if s.type == "anonymous_function":
            for ch in s.named_children:
                if ch.type == "anonymous_function_use_clause" and any(
                    _var_name(v) == name for v in ch.named_children
                ):
                    return self.var_type(name, s, self.outer(ctx))
            return NONE
        if s.type == "arrow_function":
            return self.var_type(name, s, self.outer(ctx))
        return NONE  # not defined in the function: null

    def _param_ty(self, fn: Node, p: Node, index: int, name: str, ctx: Ctx) -> Ty:
        region = ctx.unit.region_at(fn.start_byte)
        decl = self.type_node_ty(p.child_by_field_name("type"), region, ctx.cls, ctx.this)
        doc = doc_of(fn) if fn.type in ("method_declaration", "function_definition") else None
        docty = (
            self.from_doc(parse_type(doc.params[name]), region, ctx.cls, ctx.this, False)
            if doc is not None and name in doc.params
            else None
        )
        picked = self._pick(decl, docty)
        if picked is None and fn.type == "method_declaration" and ctx.cls is not None:
            m = ctx.cls.methods.get(text(fn.child_by_field_name("name")).lower())
            for o in self._overridden(m) if m is not None else []:
                ops = o.node.child_by_field_name("parameters")
                plist = ops.named_children if ops is not None else []
                if index < len(plist):
                    octx = Ctx(o.cls.unit, o.node, o.cls, ctx.this)
                    oname = _var_name(plist[index].child_by_field_name("name"))
                    if oname is not None:
                        t = self._param_ty(o.node, plist[index], index, oname, octx)
                        if t.objs or t.elems is not None:
                            picked = t
                            break
        if picked is None:
            return UNKNOWN
        if p.type == "variadic_parameter":
            return Ty(elems=picked)
        return picked

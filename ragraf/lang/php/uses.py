"""Uses: calls of every form, ``new``, class constants, callable arrays,
includes, ``global``, assignments, ``catch`` variables, superglobals.

Invariants a change must keep:
- Evidence lines are the line of the name at the use site.
- A use becomes a ref owned by the current scope index; receivers stay type
  descriptors (possibly ('var', ...)) until ``finish()`` closes them.
- Assignments only type variables, properties and globals (flow-insensitive:
  every assignment in a scope counts for the whole scope).
- An include inside a condition, loop, ``try`` or a short-circuit expression
  of its scope is ``conditional``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.lang.facts import (
    CallableRef,
    CallbackRef,
    CallRef,
    ClassConstRef,
    DispatchRef,
    DynamicCallRef,
    IncludeRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    StaticCallRef,
    SuperglobalRef,
    Target,
    TypeDesc,
)
from ragraf.lang.php.routes import ROUTE_METHODS, Routes
from ragraf.limits import MAX_CONST_VALUE_CHARS

if TYPE_CHECKING:
    from tree_sitter import Node

COND_PARENTS = {
    "if_statement",
    "else_clause",
    "else_if_clause",
    "switch_statement",
    "case_statement",
    "conditional_expression",
    "try_statement",
    "catch_clause",
    "while_statement",
    "for_statement",
    "foreach_statement",
}
_SCOPE_TYPES = {
    "function_definition",
    "method_declaration",
    "anonymous_function",
    "arrow_function",
    "program",
}
#: functions whose first argument is a callable they call
_CALLABLE_CALLERS = frozenset(
    {"call_user_func", "call_user_func_array", "forward_static_call", "forward_static_call_array"}
)
_CONSTANT_NAME = re.compile(r"[A-Za-z_]\w*(\\\w+)*")  # define('NAME' or 'Ns\\NAME', ...)
#: a run-time part of an include path keeps this much of its PHP source (the resolver only
#: needs the literal parts to build a pattern; the rest is for humans)
MAX_INCLUDE_EXPR_CHARS = 80
#: ``dirname($path)`` goes up one level unless its second argument says otherwise
_DIRNAME_DEFAULT_LEVELS = 1


class Uses(Routes):
    """Handlers of the ``@reference.*`` captures (``use`` imports aside)."""

    def on_call(self, n: Node) -> None:
        """``f(...)``, ``call_user_func(...)`` and friends, ``$fn(...)``, ``define(...)``."""
        f = self.field(n, "function")
        line = f.start_point[0] + 1
        sc = self.scope_index()
        if f.type in ("name", "qualified_name"):
            raw = self.t(f)
            low = raw.lower().lstrip("\\")
            if low in _CALLABLE_CALLERS:
                target = self.callable_target(self.first_arg(n))
                self.raw_refs.append(
                    DynamicCallRef(sc, line, "call_user_func", (target,) if target else ())
                )
                return
            if low == "define":
                self.on_define(n)
            candidates = self.function_candidates(raw)
            self.raw_refs.append(CallRef(sc, line, candidates, raw))
            self.callback_args(n, Target("function", candidates=candidates))
        elif f.type == "variable_name":
            # the variable's name waits in the target until finish() closes it over the scope
            self.raw_refs.append(
                DynamicCallRef(sc, line, "variable", (Target("variable", method=self.t(f)[1:]),))
            )

    def on_define(self, n: Node) -> None:
        """``define('NAME', ...)`` with a literal name: a constant of the file (its ``value``
        prop when the value is a plain string literal: include paths read it)."""
        name = self.string_value(self.first_arg(n))
        if name and _CONSTANT_NAME.fullmatch(name):
            props: dict[str, object] = {"define": True}
            args = n.child_by_field_name("arguments")
            second = (
                args.named_children[1] if args is not None and args.named_child_count > 1 else None
            )
            value = self.string_value(
                second.named_children[0] if second is not None and second.named_children else None
            )
            if value is not None:
                props["value"] = value[:MAX_CONST_VALUE_CHARS]
            idx = self.add_node("constant", name.rsplit("\\", 1)[-1], name.lstrip("\\"), n, props)
            self.facts.edges.append(
                LocalEdge(self.nid(0), self.nid(idx), "contains", n.start_point[0] + 1)
            )

    def callback_args(self, call: Node, callee: Target) -> None:
        """Each string argument naming a function or ``Class::method``: a ``CallbackRef``
        (the resolver tells a callable, a dispatched method name and a plain string
        apart by what the callee's parameter takes)."""
        args = call.child_by_field_name("arguments")
        if args is None:
            return
        sc = self.scope_index()
        pos = 0
        for a in args.named_children:
            if a.type != "argument":
                continue
            if a.child_by_field_name("name") is not None:
                return  # named arguments: positions no longer say which parameter
            expr = a.named_children[-1] if a.named_children else None
            if expr is not None and expr.type in ("string", "encapsed_string"):
                target = self.callable_target(expr)
                if target is not None:
                    self.raw_refs.append(
                        CallbackRef(sc, expr.start_point[0] + 1, callee, pos, target)
                    )
            pos += 1

    def dispatch(self, name: Node, obj: Node | None, line: int) -> None:
        """``$obj->$m()`` where ``$m`` is a parameter of the enclosing function: a
        ``DispatchRef`` (its callers' string arguments name the method)."""
        if name.type != "variable_name":
            return
        sc = self.scope()
        if sc.node == 0 or sc.anon:
            return
        params = self.facts.nodes[sc.node].props.get("parameters") or []
        var = self.t(name).lstrip("$")
        for i, p in enumerate(params):
            if p.get("name") == var:
                recv = self.expr_desc(obj) if obj is not None else None
                self.raw_refs.append(DispatchRef(self.scope_index(), line, i, recv))
                return

    def on_array(self, n: Node) -> None:
        """A callable array ``[$obj, 'm']`` / ``[C::class, 'm']`` anywhere: a ``CallableRef``."""
        target = self.callable_array(n)
        if target is not None and target.receiver is not None:
            self.raw_refs.append(
                CallableRef(
                    self.scope_index(), n.start_point[0] + 1, target.receiver, target.method
                )
            )

    def on_method_call(self, n: Node) -> None:
        """``$x->m()`` / ``$x?->m()`` (``$x->$m()`` is dynamic); route registrations too."""
        name = self.field(n, "name")
        line = name.start_point[0] + 1
        if name.type != "name":
            self.raw_refs.append(DynamicCallRef(self.scope_index(), line, "dynamic_method", ()))
            self.dispatch(name, n.child_by_field_name("object"), line)
            return
        recv = self.expr_desc(n.child_by_field_name("object"))
        mname = self.t(name)
        self.raw_refs.append(MethodCallRef(self.scope_index(), line, recv, mname))
        self.callback_args(n, Target("method", receiver=recv, method=mname))
        if mname.lower() in ROUTE_METHODS:
            self.on_route(n, mname.lower(), line)

    def on_static_call(self, n: Node) -> None:
        """``C::m()``, ``self::m()``, ``parent::m()``, ``static::m()``."""
        name = self.field(n, "name")
        line = name.start_point[0] + 1
        if name.type != "name":
            self.raw_refs.append(DynamicCallRef(self.scope_index(), line, "dynamic_method", ()))
            return
        cls = self.class_desc(n.child_by_field_name("scope"))
        self.raw_refs.append(StaticCallRef(self.scope_index(), line, cls, self.t(name)))
        self.callback_args(n, Target("method", receiver=cls, method=self.t(name)))

    def on_new(self, n: Node) -> None:
        """``new C`` (anonymous classes and ``new $x`` aside)."""
        c = n.named_children[0] if n.named_children else None
        if c is None or c.type == "anonymous_class":
            return
        if c.type in ("name", "qualified_name"):
            d = self.class_desc(c)
            if d is not None:
                self.raw_refs.append(NewRef(self.scope_index(), c.start_point[0] + 1, d))

    def on_class_constant(self, n: Node) -> None:
        """``C::NAME`` and ``C::class``."""
        parts = n.named_children
        if len(parts) != 2:
            return
        if parts[0].type not in ("name", "qualified_name", "relative_scope"):
            return
        cls = self.class_desc(parts[0])
        if cls is None:
            return
        member = self.t(parts[1])
        self.raw_refs.append(
            ClassConstRef(self.scope_index(), parts[0].start_point[0] + 1, cls, member)
        )

    def on_include(self, n: Node) -> None:
        """``include`` / ``require`` (``_once``); ``conditional`` inside a condition, loop, ``try``
        or short-circuit expression of its scope."""
        expr = n.named_children[0] if n.named_children else None
        parts = self.include_parts(expr)
        conditional = False
        p = n.parent
        while p is not None and p.type not in _SCOPE_TYPES:
            if p.type in COND_PARENTS or (
                p.type == "binary_expression"
                and p.child(1) is not None
                and self.t(p.child(1)).lower() in ("or", "and", "||", "&&", "??")
            ):
                conditional = True
                break
            p = p.parent
        kind = n.type.replace("_expression", "")
        self.raw_refs.append(
            IncludeRef(self.scope_index(), n.start_point[0] + 1, kind, tuple(parts), conditional)
        )

    def include_parts(self, n: Node | None) -> list[tuple[str, str]]:
        """An include path expression -> ``("lit" | "dir" | "dyn", text)`` parts; ``dir`` is the
        including file's folder (``__DIR__``, ``dirname(__FILE__)``)."""
        if n is None:
            return [("dyn", "")]
        ty = n.type
        if ty == "parenthesized_expression":
            return self.include_parts(n.named_children[0] if n.named_children else None)
        if ty == "binary_expression" and n.child(1) is not None and self.t(n.child(1)) == ".":
            return self.include_parts(n.child_by_field_name("left")) + self.include_parts(
                n.child_by_field_name("right")
            )
        s = self.string_value(n)
        if s is not None:
            return [("lit", s)]
        if ty == "name" and self.t(n) == "__DIR__":
            return [("dir", "")]
        if ty == "function_call_expression":
            f = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if (
                f is not None
                and self.t(f).lower().lstrip("\\") == "dirname"
                and args is not None
                and args.named_children
            ):
                inner = (
                    args.named_children[0].named_children[0]
                    if args.named_children[0].named_children
                    else None
                )
                levels = _DIRNAME_DEFAULT_LEVELS
                if len(args.named_children) > 1:
                    lv = self.t(args.named_children[1]).strip()
                    levels = int(lv) if lv.isdigit() else _DIRNAME_DEFAULT_LEVELS
                if inner is not None and self.t(inner) in ("__FILE__",):
                    return [("dir", "")] + [("lit", "/..")] * (levels - 1)
                if inner is not None and self.t(inner) == "__DIR__":
                    return [("dir", "")] + [("lit", "/..")] * levels
        if ty == "encapsed_string":
            out: list[tuple[str, str]] = []
            for c in n.named_children:
                out.extend(
                    [("lit", self.t(c))] if c.type == "string_content" else [("dyn", self.t(c))]
                )
            return out
        return [("dyn", self.t(n)[:MAX_INCLUDE_EXPR_CHARS])]

    def on_global(self, n: Node) -> None:
        """``global $x``: ``$x`` is the global of that name in this scope."""
        sc = self.scope()
        for c in n.named_children:
            if c.type == "variable_name":
                name = self.t(c)[1:]
                sc.globals.add(name)
                sc.vars.setdefault(name, []).append(("global", name))

    def on_assignment(self, n: Node) -> None:
        """Types from ``$x = ...``, ``$this->p = ...`` and ``$GLOBALS['x'] = ...``; a
        file-level or ``global`` variable's assignment also types the global."""
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None:
            return
        sc = self.scope()
        lt = left.type
        if lt == "variable_name":
            name = self.t(left)[1:]
            d = self.expr_desc(right)
            if d is None and right is not None:
                d = self.callable_desc(right)
            if d is not None:
                sc.vars.setdefault(name, []).append(d)
                if sc.node == 0 and not self.stack_has_function() or name in sc.globals:
                    self.pending_globals.append((self.scope_index(), name, d))
        elif lt == "member_access_expression":
            obj = left.child_by_field_name("object")
            pname = left.child_by_field_name("name")
            if (
                obj is not None
                and pname is not None
                and self.t(obj) == "$this"
                and pname.type == "name"
            ):
                decl = self.cur_class_decl_any()
                d = self.expr_desc(right)
                if decl is not None and d is not None:
                    self.pending_props.append((self.scope_index(), decl, self.t(pname), d))
        elif lt == "subscript_expression":
            d = self.expr_desc(left)
            if d is not None and d[0] == "global":
                rd = self.expr_desc(right)
                if rd is not None:
                    self.pending_globals.append((self.scope_index(), d[1], rd))

    def on_catch(self, n: Node) -> None:
        """``catch (A | B $e)`` types ``$e``."""
        tnode = n.child_by_field_name("type")
        name = n.child_by_field_name("name")
        if tnode is None or name is None:
            return
        descs: list[TypeDesc] = []
        for c in [tnode] if tnode.type != "type_list" else tnode.named_children:
            descs.extend(self.type_descs(c))
        if descs:
            self.scope().vars.setdefault(self.t(name).lstrip("$"), []).extend(descs)

    def on_superglobal(self, n: Node) -> None:
        """``$_GET['id']`` and friends."""
        base = n.named_children[0]
        key_node = n.named_children[1] if n.named_child_count > 1 else None
        key = self.string_value(key_node) if key_node is not None else None
        self.raw_refs.append(
            SuperglobalRef(self.scope_index(), n.start_point[0] + 1, self.t(base), key)
        )

"""Router registrations: ``->get('/path', Handler::class)``,
``->addRoute(['GET'], '/p', [C::class, 'm'])`` and the like (architecture §6).

Invariants a change must keep:
- A call is a route only when its method is one of ``ROUTE_METHODS``, its
  path argument is a string literal that is empty or starts with ``/`` or
  ``[``, and its handler is understood: ``C::class`` (an invokable class),
  ``[C::class, 'm']`` / ``[$obj, 'm']``, ``'C@m'`` / ``'C::m'``, or a closure
  (handled by the registering scope).
- The path carries the prefixes of the enclosing ``->addGroup('/prefix', ...)``
  / ``group`` / ``prefix`` calls, outermost first.
- The handler's class stays a descriptor; ``finish()`` closes it over the
  scope like any receiver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.lang.facts import Handler, RouteRef
from ragraf.lang.php.names import Names

if TYPE_CHECKING:
    from tree_sitter import Node

ROUTE_METHODS = {
    "addroute",
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "any",
    "map",
    "match",
    "options",
    "head",
}
#: route calls whose first argument names the HTTP methods: (methods, path, handler)
_WITH_METHODS = frozenset({"addroute", "map", "match"})
#: calls whose first argument prefixes the paths of the routes registered inside them
_GROUP_CALLS = frozenset({"addgroup", "group", "prefix"})
#: how a route path starts: "/users", or "[/{lang}]" (an optional segment); "" in a group
_PATH_STARTS = "/["


class Routes(Names):
    """Recognises router registrations among method calls."""

    def on_route(self, n: Node, mname: str, line: int) -> None:
        """``n``, a call of the method ``mname`` (lower case), if it registers a route."""
        call = self._route_call(n, mname)
        if call is None:
            return
        methods, pnode, hnode = call
        route = self.string_value(pnode)
        if route is None or not (route == "" or route[0] in _PATH_STARTS):
            return
        handler = self.route_handler(hnode)
        if handler is None or (handler.kind != "closure" and handler.cls is None):
            return
        self.raw_refs.append(
            RouteRef(
                self.scope_index(), line, tuple(methods), self.group_prefix(n) + route, handler
            )
        )

    def _route_call(self, n: Node, mname: str) -> tuple[list[str], Node, Node] | None:
        """(HTTP methods, path node, handler node) of a route call with enough arguments."""
        args = n.child_by_field_name("arguments")
        vals = [
            a.named_children[0]
            for a in (args.named_children if args is not None else [])
            if a.type == "argument" and a.named_children
        ]
        if mname in _WITH_METHODS:
            if len(vals) < 3:
                return None
            return self._http_methods(vals[0]), vals[1], vals[2]
        if len(vals) < 2:
            return None
        return ["*" if mname == "any" else mname.upper()], vals[0], vals[1]

    def _http_methods(self, mnode: Node) -> list[str]:
        """``'GET'`` or ``['GET', 'POST']`` -> upper-case names ("?" for a non-literal
        element); anything else -> ``["*"]``."""
        single = self.string_value(mnode)
        if single is not None:
            return [single.upper()]
        if mnode.type == "array_creation_expression":
            methods = [
                self.string_value(e.named_children[0]) or "?"
                for e in mnode.named_children
                if e.type == "array_element_initializer" and e.named_children
            ]
            return [m.upper() for m in methods]
        return ["*"]

    def route_handler(self, hnode: Node) -> Handler | None:
        """``C::class``, ``[C::class, 'm']`` / ``[$x, 'm']``, a closure, ``'C@m'`` / ``'C::m'``."""
        if hnode.type == "class_constant_access_expression":
            parts = hnode.named_children
            if len(parts) == 2 and self.t(parts[1]).lower() == "class":
                return Handler("class", self.class_desc(parts[0]))
            return None
        if hnode.type == "array_creation_expression":
            t = self.callable_array(hnode)
            return Handler("method", t.receiver, t.method) if t is not None else None
        if hnode.type in ("anonymous_function", "arrow_function"):
            return Handler("closure")
        sv = self.string_value(hnode)
        if sv and ("@" in sv or "::" in sv):
            cls, _, meth = sv.replace("@", "::").partition("::")
            fq = self.resolve_class(cls)
            return Handler("method", ("class", fq), meth) if fq else None
        return None

    def group_prefix(self, n: Node) -> str:
        """The literal prefixes of the group calls around ``n``, outermost first."""
        prefix = ""
        p = n.parent
        while p is not None:
            if p.type in ("member_call_expression", "scoped_call_expression"):
                pn = p.child_by_field_name("name")
                if pn is not None and self.t(pn).lower() in _GROUP_CALLS:
                    pv = self.string_value(self.first_arg(p))
                    if pv is not None:
                        prefix = pv + prefix
            p = p.parent
        return prefix

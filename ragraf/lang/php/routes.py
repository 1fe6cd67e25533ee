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


class Routes(Names):
    """Recognises router registrations among method calls."""

    def on_route(self, n: Node, mname: str, line: int) -> None:
        """Router registrations: ->get('/path', Handler::class), ->addRoute(['GET'], '/p', [C::class, 'm']),
        with the prefixes of enclosing ->addGroup('/prefix', function ...) calls."""
        args = n.child_by_field_name("arguments")
        vals = [
            a.named_children[0]
            for a in (args.named_children if args is not None else [])
            if a.type == "argument" and a.named_children
        ]
        if mname in ("addroute", "map", "match"):
            if len(vals) < 3:
                return
            mnode, pnode, hnode = vals[0], vals[1], vals[2]
            single = self.string_value(mnode)
            if single is not None:
                methods = [single.upper()]
            elif mnode.type == "array_creation_expression":
                methods = [
                    self.string_value(e.named_children[0]) or "?"
                    for e in mnode.named_children
                    if e.type == "array_element_initializer" and e.named_children
                ]
                methods = [m.upper() for m in methods]
            else:
                methods = ["*"]
        else:
            if len(vals) < 2:
                return
            pnode, hnode = vals[0], vals[1]
            methods = ["*" if mname in ("any", "map") else mname.upper()]
        route = self.string_value(pnode)
        if route is None or not (route == "" or route[0] in "/["):
            return
        handler: Handler | None = None
        if hnode.type == "class_constant_access_expression":
            parts = hnode.named_children
            if len(parts) == 2 and self.t(parts[1]).lower() == "class":
                handler = Handler("class", self.class_desc(parts[0]))
        elif hnode.type == "array_creation_expression":
            t = self.callable_array(hnode)
            if t is not None:
                handler = Handler("method", t.receiver, t.method)
        elif hnode.type in ("anonymous_function", "arrow_function"):
            handler = Handler("closure")
        else:
            sv = self.string_value(hnode)
            if sv and ("@" in sv or "::" in sv):
                cls, _, meth = sv.replace("@", "::").partition("::")
                fq = self.resolve_class(cls)
                handler = Handler("method", ("class", fq), meth) if fq else None
        if handler is None or (handler.kind != "closure" and handler.cls is None):
            return
        prefix = ""
        p = n.parent
        while p is not None:
            if p.type in ("member_call_expression", "scoped_call_expression"):
                pn = p.child_by_field_name("name")
                if pn is not None and self.t(pn).lower() in ("addgroup", "group", "prefix"):
                    pargs = p.child_by_field_name("arguments")
                    first = (
                        pargs.named_children[0]
                        if pargs is not None and pargs.named_children
                        else None
                    )
                    pv = (
                        self.string_value(first.named_children[0])
                        if first is not None and first.named_children
                        else None
                    )
                    if pv is not None:
                        prefix = pv + prefix
            p = p.parent
        self.raw_refs.append(
            RouteRef(self.scope_index(), line, tuple(methods), prefix + route, handler)
        )

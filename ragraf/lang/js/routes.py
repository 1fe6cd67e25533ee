"""Routes of JavaScript / TypeScript frameworks: Express-style registrations
(``app.get('/p', handler)``, ``router.route('/p').post(handler)``), NestJS's
``@Controller`` / ``@Get`` decorators, and Next.js's route files (the app router's
``app/**/route.ts``, the pages router's ``pages/api/**``).

Invariants a change must keep:
- A registration is a route only with a literal path starting with ``/`` and a handler
  the file can name (a function, a method, or a closure: the registering scope).
- A decorated route's path is the controller's prefix and the method's path joined by
  one ``/``; a Next.js route's path drops route groups (``(name)``) and keeps dynamic
  segments as written (``[id]``).
- Express-style routes resolve their handlers in ``finish`` (``handler``), over the
  final bindings of the registering scope.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.kinds import BindKind, CalleeKind, HandlerKind
from ragraf.lang.facts import Handler, RouteRef
from ragraf.lang.js.names import Scope, _pick
from ragraf.lang.js.state import FUNC_VALUES, State
from ragraf.lang.typedesc import Cls

if TYPE_CHECKING:
    from tree_sitter import Node

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
#: Express-style route registrations: ``app.get('/p', handler)`` (``use`` mounts, no route)
ROUTE_METHODS = frozenset(
    {"get", "post", "put", "patch", "delete", "del", "all", "options", "head"}
)


class Routes(State):
    """The framework route patterns of the walk (see the module docstring)."""

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
                            Handler(HandlerKind.METHOD, Cls(fqn), self.t(mname)),
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

    def handler(self, hnode: Node, scope: Scope) -> Handler | None:
        h = self.strip(hnode)
        if h.type in FUNC_VALUES:
            fqn = self.named_values.get(h.start_byte)
            return Handler(HandlerKind.FUNCTION, None, fqn) if fqn else Handler(HandlerKind.CLOSURE)
        if h.type not in ("identifier", "member_expression"):
            return None
        c = self.callee(h, scope)
        if c.kind in (CalleeKind.FUNCTION, CalleeKind.IMPORT):
            return Handler(HandlerKind.FUNCTION, None, c.name)
        if c.kind == CalleeKind.METHOD and c.receiver is not None:
            return Handler(HandlerKind.METHOD, c.receiver, c.name)
        return None

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
            if b and b.kind == BindKind.FUNCTION:
                exported[name] = b.name
        for name, b in self.export_binds:
            if b.kind == BindKind.FUNCTION:
                exported.setdefault(name, b.name)
        lines = {n.fqn: n.start_line for n in self.facts.nodes}
        out = []
        if app is not None:
            segs = [s for s in app.group(1).split("/") if s and not s.startswith("(")]
            url = "/" + "/".join(segs)
            for verb in _NEXT_VERBS:
                fqn = exported.get(verb)
                if fqn:
                    out.append(
                        RouteRef(
                            0,
                            lines.get(fqn, 1),
                            (verb,),
                            url,
                            Handler(HandlerKind.FUNCTION, None, fqn),
                        )
                    )
        elif pages is not None and exported.get("default"):
            fqn = exported["default"]
            url = "/" + pages.group(1)
            out.append(
                RouteRef(
                    0, lines.get(fqn, 1), ("*",), url, Handler(HandlerKind.FUNCTION, None, fqn)
                )
            )
        return out

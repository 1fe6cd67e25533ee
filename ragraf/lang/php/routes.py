"""Router registrations: ``->get('/path', Handler::class)``,
``->addRoute(['GET'], '/p', [C::class, 'm'])`` and the like (architecture §6).

Invariants a change must keep:
- A call is a route only when its method is one of ``ROUTE_METHODS``, its
  path argument is a string literal that is empty or starts with ``/`` or
  ``[``, and its handler is understood: ``C::class`` (an invokable class),
  ``[C::class, 'm']`` / ``[$obj, 'm']``, ``'C@m'`` / ``'C::m'``, or a closure
  (handled by the registering scope).
- The path carries the prefixes of the enclosing ``->addGroup('/prefix', ...)``
  / ``group`` / ``prefix`` calls, outermost first; a group whose prefix is set
  before it (Laravel's ``Route::prefix('admin')->group(...)``) or given as
  ``['prefix' => 'admin']`` counts too.
- Laravel's facade (``Route::get('users', ...)``, the class's short name
  ``Route``): a path without its leading ``/`` gets one, and
  ``Route::resource`` / ``apiResource('photos', C::class)`` register the
  controller's resource routes (index, create, store, show, edit, update,
  destroy; no create / edit for an API resource).
- WordPress's ``register_rest_route('ns/v1', '/items', [...])``: one route per
  endpoint array with a ``callback``, its HTTP methods from ``methods`` (a
  string, a list, or a ``WP_REST_Server`` constant; GET when left out), its
  path ``/<namespace>/<route>``; a part of the namespace or route built at run
  time is kept as ``{<its PHP expression>}`` (``/{$this->namespace}/{$this->rest_base}``).
- WordPress's request actions (``ragraf.lang.php.hooks.request_route``): a callback added
  to ``wp_ajax_<action>`` (``wp_ajax_nopriv_``) or ``admin_post_<action>`` is the route
  ``GET|POST /wp-admin/admin-ajax.php?action=<action>`` (``admin-post.php``).
- Symfony's attributes: ``#[Route('/{slug}', methods: ['GET'])]`` on a method is a
  route to that method, after the path of a ``#[Route('/blog')]`` on its class;
  ``path:`` may name the path, ``methods:`` is a list or a string (any method when
  left out).
- The handler's class stays a descriptor; ``finish()`` closes it over the
  scope like any receiver.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ragraf.kinds import HandlerKind
from ragraf.lang.facts import Handler, RouteRef
from ragraf.lang.php.assemble import call_args
from ragraf.lang.php.names import Names
from ragraf.lang.typedesc import Cls

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
#: the short name of Laravel's route facade and of Symfony's Route attribute (any namespace)
_FACADE = "route"
#: Laravel's resource routes: (controller method, HTTP methods, path after the resource)
_RESOURCE = (
    ("index", ("GET",), ""),
    ("create", ("GET",), "/create"),
    ("store", ("POST",), ""),
    ("show", ("GET",), "/{%s}"),
    ("edit", ("GET",), "/{%s}/edit"),
    ("update", ("PUT", "PATCH"), "/{%s}"),
    ("destroy", ("DELETE",), "/{%s}"),
)
_RESOURCE_CALLS = frozenset({"resource", "apiresource"})
#: WordPress's WP_REST_Server method constants
_WP_REST_METHODS = {
    "readable": ("GET",),
    "creatable": ("POST",),
    "editable": ("POST", "PUT", "PATCH"),
    "deletable": ("DELETE",),
    "allmethods": ("GET", "POST", "PUT", "PATCH", "DELETE"),
}


class Routes(Names):
    """Recognises router registrations among method calls."""

    def on_static_route(self, n: Node, cls: str, mname: str, line: int) -> None:
        """``Route::get('users', ...)`` and the other calls of Laravel's facade: routes whose
        path may leave out its leading ``/``; ``Route::resource(...)``."""
        if cls.rsplit("\\", 1)[-1].lower() != _FACADE:
            return
        if mname in _RESOURCE_CALLS:
            self.on_resource(n, mname, line)
        elif mname in ROUTE_METHODS:
            self.on_route(n, mname, line, facade=True)

    def on_resource(self, n: Node, mname: str, line: int) -> None:
        """``Route::resource('photos', PhotoController::class)``: the seven resource routes
        (five for ``apiResource``) to the controller's methods of those names."""
        args = call_args(n)
        if len(args) < 2:
            return
        name = self.string_value(args[0])
        handler = self.route_handler(args[1])
        if not name or handler is None or handler.kind != HandlerKind.CLASS or handler.cls is None:
            return
        base = self.group_prefix(n) + "/" + name.strip("/")
        param = _singular(name.strip("/").rsplit("/", 1)[-1].rsplit(".", 1)[-1])
        for meth, verbs, tail in _RESOURCE:
            if mname == "apiresource" and meth in ("create", "edit"):
                continue
            path = base + (tail % param if "%s" in tail else tail)
            self.raw_refs.append(
                RouteRef(
                    self.scope_index(),
                    line,
                    verbs,
                    path,
                    Handler(HandlerKind.METHOD, handler.cls, meth),
                )
            )

    def attributes(self, decl: Node) -> Iterator[Node]:
        """The ``#[...]`` attributes of a declaration or parameter, in order (their lists
        lead its children; a comment in a parameter list has none)."""
        for i in range(decl.child_count):
            lst = decl.child(i)
            if lst is None or lst.type != "attribute_list":
                return
            for g in lst.named_children:
                yield from (
                    a for a in g.named_children if a.type == "attribute" and a.named_child_count
                )

    def attribute_classes(self, decl: Node) -> list[Node]:
        """The name nodes of a declaration's attributes: the classes they name are
        referenced there."""
        return [a.named_children[0] for a in self.attributes(decl)]

    @staticmethod
    def attribute_args(attr: Node) -> Node | None:
        """The arguments node of an attribute (None: ``#[X]`` without parentheses)."""
        return attr.child_by_field_name("parameters") or next(
            (c for c in attr.named_children if c.type == "arguments"), None
        )

    def attributes_named(self, decl: Node, short: str) -> Iterator[tuple[Node, Node | None]]:
        """(attribute, its arguments node) of each ``#[...]`` attribute of a declaration whose
        class's short name is ``short`` (lower case), in order."""
        for attr in self.attributes(decl):
            if self.t(attr.named_children[0]).rsplit("\\", 1)[-1].lower() == short:
                yield attr, self.attribute_args(attr)

    def attribute_routes(self, decl: Node) -> list[tuple[str, tuple[str, ...], int]]:
        """(path, HTTP methods, line) of each ``#[Route(...)]`` attribute of a declaration."""
        out = []
        for attr, args in self.attributes_named(decl, _FACADE):
            path: str | None = None
            methods: tuple[str, ...] = ("*",)
            for a in args.named_children if args is not None else ():
                if a.type != "argument" or not a.named_children:
                    continue
                named = a.named_children[0] if a.named_children[0].type == "name" else None
                value = a.named_children[-1]
                key = self.t(named).lower() if named is not None else None
                if key in (None, "path") and path is None:
                    path = self.string_value(value)
                elif key == "methods":
                    methods = self._rest_methods(value)
            if path is not None:
                out.append((path, methods, attr.start_point[0] + 1))
        return out

    def on_method_routes(self, n: Node, cls: str, method: str, prefixes: list[str]) -> None:
        """The routes a method's attributes declare (its class's path prefixes first)."""
        for path, methods, line in self.attribute_routes(n):
            for prefix in prefixes or [""]:
                route = _join(prefix, path) if prefix else path
                if route[:1] not in ("/", ""):
                    route = "/" + route
                self.raw_refs.append(
                    RouteRef(
                        self.scope_index(),
                        line,
                        methods,
                        route or "/",
                        Handler(HandlerKind.METHOD, Cls(cls), method),
                    )
                )

    def on_rest_route(self, n: Node, line: int) -> None:
        """``register_rest_route($namespace, $route, $endpoints)``: a route per endpoint."""
        args = call_args(n)
        if len(args) < 3:
            return
        ns, route = self.template_value(args[0]), self.template_value(args[1])
        if ns is None or route is None or not ns.strip("/"):
            return
        path = "/" + ns.strip("/") + ("/" + route.lstrip("/") if route.strip("/") else "")
        ep = args[2]
        if ep.type != "array_creation_expression":
            return
        endpoints = (
            [ep]
            if self._array_get(ep, "callback") is not None
            else [
                e.named_children[0]
                for e in ep.named_children
                if e.type == "array_element_initializer"
                and len(e.named_children) == 1
                and e.named_children[0].type == "array_creation_expression"
            ]
        )
        for one in endpoints:
            cb = self._array_get(one, "callback")
            handler = self.rest_handler(cb) if cb is not None else None
            if handler is None:
                continue
            methods = self._rest_methods(self._array_get(one, "methods"))
            self.raw_refs.append(RouteRef(self.scope_index(), line, methods, path, handler))

    def rest_handler(self, n: Node) -> Handler | None:
        """A REST callback: a callable array, a closure, or a function's name."""
        handler = self.route_handler(n)
        if handler is not None:
            return handler
        name = self.string_value(n)
        if name and re.fullmatch(r"\\?[A-Za-z_][\w\\]*", name):
            return Handler(HandlerKind.FUNCTION, None, name.lstrip("\\"))
        return None

    def _rest_methods(self, n: Node | None) -> tuple[str, ...]:
        if n is None:
            return ("GET",)
        sv = self.string_value(n)
        if sv is not None:
            return tuple(m.strip().upper() for m in sv.split(",") if m.strip()) or ("GET",)
        if n.type == "class_constant_access_expression" and len(n.named_children) == 2:
            got = _WP_REST_METHODS.get(self.t(n.named_children[1]).lower())
            if got is not None:
                return got
        if n.type == "array_creation_expression":
            out: list[str] = []
            for e in n.named_children:
                if e.type == "array_element_initializer" and len(e.named_children) == 1:
                    out.extend(self._rest_methods(e.named_children[0]))
            return tuple(dict.fromkeys(out)) or ("*",)
        return ("*",)

    def _array_get(self, arr: Node, key: str) -> Node | None:
        """The value of a literal string key of an array literal."""
        for e in arr.named_children:
            kv = [c for c in e.named_children if c.type != "comment"]
            if e.type == "array_element_initializer" and len(kv) == 2:
                if self.string_value(kv[0]) == key:
                    return kv[1]
        return None

    def template_value(self, n: Node | None) -> str | None:
        """A string literal, or a concatenation of literals and run-time parts, the latter
        as ``{<expression>}`` (``'/' . $this->rest_base`` -> ``/{$this->rest_base}``)."""
        if n is None:
            return None
        sv = self.string_value(n)
        if sv is not None:
            return sv
        if n.type == "binary_expression" and len(n.children) == 3 and n.children[1].type == ".":
            a, b = self.template_value(n.children[0]), self.template_value(n.children[2])
            return None if a is None or b is None else a + b
        if n.type in (
            "member_access_expression",
            "variable_name",
            "class_constant_access_expression",
        ):
            return "{" + self.t(n) + "}"
        return None

    def on_route(self, n: Node, mname: str, line: int, facade: bool = False) -> None:
        """``n``, a call of the method ``mname`` (lower case), if it registers a route."""
        call = self._route_call(n, mname)
        if call is None:
            return
        methods, pnode, hnode = call
        route = self.string_value(pnode)
        if route is not None and facade and route[:1] not in ("/", ""):
            route = "/" + route  # Laravel: 'users' is /users
        if route is None or not (route == "" or route[0] in _PATH_STARTS):
            return
        handler = self.route_handler(hnode)
        if handler is None or (handler.kind != HandlerKind.CLOSURE and handler.cls is None):
            return
        self.raw_refs.append(
            RouteRef(
                self.scope_index(), line, tuple(methods), self.group_prefix(n) + route, handler
            )
        )

    def _route_call(self, n: Node, mname: str) -> tuple[list[str], Node, Node] | None:
        """(HTTP methods, path node, handler node) of a route call with enough arguments."""
        vals = call_args(n)
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
                return Handler(HandlerKind.CLASS, self.class_desc(parts[0]))
            return None
        if hnode.type == "array_creation_expression":
            t = self.callable_array(hnode)
            return Handler(HandlerKind.METHOD, t.receiver, t.method) if t is not None else None
        if hnode.type in ("anonymous_function", "arrow_function"):
            return Handler(HandlerKind.CLOSURE)
        sv = self.string_value(hnode)
        if sv and ("@" in sv or "::" in sv):
            cls, _, meth = sv.replace("@", "::").partition("::")
            fq = self.resolve_class(cls)
            return Handler(HandlerKind.METHOD, Cls(fq), meth) if fq else None
        return None

    def group_prefix(self, n: Node) -> str:
        """The literal prefixes of the group calls around ``n``, outermost first."""
        prefix = ""
        p = n.parent
        while p is not None:
            if p.type in ("member_call_expression", "scoped_call_expression"):
                pn = p.child_by_field_name("name")
                if pn is not None and self.t(pn).lower() in _GROUP_CALLS:
                    pv = self._group_prefix_of(p)
                    if pv is not None:
                        prefix = _join(pv, prefix)
            p = p.parent
        return prefix

    def _group_prefix_of(self, call: Node) -> str | None:
        """The prefix a group call gives: its first argument, the ``'prefix'`` of an array
        first argument (``Route::group(['prefix' => 'admin'], ...)``), or the argument of a
        ``prefix(...)`` call earlier in its chain (``Route::prefix('admin')
        ->middleware('auth')->group(...)``); a part built at run time as ``{<expression>}``
        (a route never loses a prefix it cannot read)."""
        first = self.first_arg(call)
        pv = self.template_value(first)
        if pv is not None:
            return pv
        if first is not None and first.type == "array_creation_expression":
            got = self._array_get(first, "prefix")
            return self.template_value(got) if got is not None else None
        obj = call.child_by_field_name("object") or call.child_by_field_name("scope")
        while obj is not None and obj.type in ("member_call_expression", "scoped_call_expression"):
            on = obj.child_by_field_name("name")
            if on is not None and self.t(on).lower() == "prefix":
                return self.template_value(self.first_arg(obj))
            obj = obj.child_by_field_name("object") or obj.child_by_field_name("scope")
        return None


def _join(outer: str, inner: str) -> str:
    """A group prefix before a path: ``admin`` + ``/users`` -> ``/admin/users``; FastRoute's
    ``/admin`` + ``/home`` as written."""
    if not outer:
        return inner
    if outer[0] not in _PATH_STARTS:
        outer = "/" + outer
    if inner and inner[0] not in _PATH_STARTS:
        inner = "/" + inner
    return outer.rstrip("/") + inner if inner else outer


def _singular(word: str) -> str:
    """Laravel's route parameter of a resource: ``photos`` -> ``photo``, ``categories`` ->
    ``category`` (English plurals the common way; other words as they are)."""
    low = word.lower()
    if low.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if low.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return word[:-1]
    return word

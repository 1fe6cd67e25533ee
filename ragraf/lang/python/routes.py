"""Web routes of the Python frameworks whose convention the source states plainly (issue
14): Flask and FastAPI decorators, Django URL patterns; ``RouteRef`` as PHP's router calls.

- ``@<x>.<verb>("<path>", ...)`` on a function, ``verb`` in ``VERBS`` and the path a string
  literal that is empty or starts with ``/``: a route the function handles (``Handler``
  kind ``closure``: the owner, the decorated function, handles it). ``route`` /
  ``api_route`` take their methods from ``methods=[...]`` (string literals; GET when
  absent); ``get``, ``post``... name theirs; ``websocket`` is ``WS``. When ``x`` is bound at
  module level to a call with a literal ``url_prefix=`` / ``prefix=`` (``Blueprint``,
  ``APIRouter``), that prefix is prepended. A prefix given where the router is mounted
  (``register_blueprint``, ``include_router``) is not followed.
- In a file named ``urls.py``: ``path(...)`` / ``re_path(...)`` / ``url(...)`` with a literal
  route and a view (a name, a dotted name, or ``<view>.as_view()``): a route of any method
  (``*``). A view bound in the file is final here (``Handler`` kind ``function`` with the
  fqn, or ``class``); an imported one stays ``?<dotted>`` for ``ragraf.lang.python.link``.
  ``include(...)`` mounts another URL module and is not a route.
- ``<x>.add_url_rule("<path>", endpoint, view_func, methods=[...])`` (Flask; literal path
  as for a decorator, the Blueprint prefix of ``x`` joined): a route of the call's
  function (or file), handled by its ``view_func`` (a name, a dotted name,
  ``<View>.as_view(...)``, ``self.<method>``); without one, a route with no handler.

Invariants a change must keep:
- Only string literals make routes (no f-strings, no concatenation): a route path is
  never guessed.
- Python call facts do not change: routes are extra ``RouteRef`` rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.kinds import BindKind, CalleeKind, HandlerKind
from ragraf.lang.facts import Handler, RouteRef
from ragraf.lang.typedesc import Cls

if TYPE_CHECKING:
    from tree_sitter import Node

    from ragraf.lang.python.names import Scope
    from ragraf.lang.python.walk import Extractor

#: decorator attribute -> its HTTP methods (None: from ``methods=``)
VERBS: dict[str, tuple[str, ...] | None] = {
    "route": None,
    "api_route": None,
    "get": ("GET",),
    "post": ("POST",),
    "put": ("PUT",),
    "patch": ("PATCH",),
    "delete": ("DELETE",),
    "head": ("HEAD",),
    "options": ("OPTIONS",),
    "websocket": ("WS",),
}
#: Flask's registration by call (``app.add_url_rule``)
RULE_CALL = "add_url_rule"
#: Django URL pattern functions
URL_CALLS = frozenset({"path", "re_path", "url"})
PREFIX_KEYWORDS = ("url_prefix", "prefix")


def is_urls(path: str) -> bool:
    return path == "urls.py" or path.endswith("/urls.py")


def literal(ex: Extractor, n: Node | None) -> str | None:
    """The value of a plain string literal (None: not one, or interpolated)."""
    if n is None or n.type != "string":
        return None
    if any(c.type == "interpolation" for c in n.named_children):
        return None
    head = ex.t(n).split("'")[0].split('"')[0].lower()
    if "f" in head:
        return None
    return "".join(ex.t(c) for c in n.named_children if c.type == "string_content")


def _args(ex: Extractor, call: Node) -> tuple[list[Node], dict[str, Node]]:
    args = call.child_by_field_name("arguments")
    pos: list[Node] = []
    kw: dict[str, Node] = {}
    for a in args.named_children if args is not None else []:
        if a.type == "keyword_argument":
            k, v = a.child_by_field_name("name"), a.child_by_field_name("value")
            if k is not None and v is not None:
                kw[ex.t(k)] = v
        elif a.type not in ("comment", "list_splat", "dictionary_splat"):
            pos.append(a)
    return pos, kw


def _methods(ex: Extractor, node: Node | None) -> tuple[str, ...]:
    if node is None or node.type not in ("list", "tuple", "set"):
        return ("GET",) if node is None else ("*",)
    got = [literal(ex, e) for e in node.named_children]
    return tuple((m or "?").upper() for m in got) or ("*",)


def _prefix(ex: Extractor, obj: Node) -> str:
    """The literal ``url_prefix=`` / ``prefix=`` of the call the module binds ``obj`` to."""
    if obj.type != "identifier":
        return ""
    for b in ex.top.binds.get(ex.t(obj), []):
        if b.kind != BindKind.EXPR or b.expr is None:
            continue
        value = b.expr[0]
        if value.type != "call":
            continue
        _pos, kw = _args(ex, value)
        for key in PREFIX_KEYWORDS:
            got = literal(ex, kw.get(key))
            if got:
                return got.rstrip("/")
    return ""


def decorator_route(ex: Extractor, func: int, deco: Node) -> RouteRef | None:
    """The route ``deco`` (a decorator of the function node ``func``) registers, if any."""
    call = deco.named_children[0] if deco.named_child_count else None
    if call is None or call.type != "call":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "attribute":
        return None
    obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
    if obj is None or attr is None or ex.t(attr) not in VERBS:
        return None
    pos, kw = _args(ex, call)
    route = literal(ex, pos[0] if pos else kw.get("path") or kw.get("rule"))
    if route is None or not (route == "" or route.startswith("/")):
        return None
    methods = VERBS[ex.t(attr)] or _methods(ex, kw.get("methods"))
    line = deco.start_point[0] + 1
    return RouteRef(func, line, methods, _prefix(ex, obj) + route, Handler(HandlerKind.CLOSURE))


def _view(ex: Extractor, scope: Scope, view: Node) -> Handler | None:
    """The handler a view names: a function or class by name or dotted name (an imported
    one ``?<dotted>``), ``<Class>.as_view(...)`` (the class), a method through a typed
    receiver (``self.index``); None: anything else (a lambda, ``include(...)``)."""
    if view.type == "call":  # Home.as_view(): the class
        vf = view.child_by_field_name("function")
        if vf is None or vf.type != "attribute":
            return None
        a = vf.child_by_field_name("attribute")
        if a is None or ex.t(a) != "as_view":
            return None
        obj = vf.child_by_field_name("object")
        if obj is None:
            return None
        view = obj
    if view.type not in ("identifier", "attribute"):
        return None
    c = ex.callee(view, scope)
    if c.kind == CalleeKind.FUNCTION:
        return Handler(HandlerKind.FUNCTION, None, c.name)
    if c.kind == CalleeKind.CLASS:
        return Handler(HandlerKind.CLASS, Cls(c.name))
    if c.kind == CalleeKind.EXTERNAL:
        return Handler(HandlerKind.FUNCTION, None, "?" + c.name)
    if c.kind == CalleeKind.METHOD and c.receiver is not None:
        return Handler(HandlerKind.METHOD, c.receiver, c.name)
    return None


def url_route(ex: Extractor, scope: Scope, call: Node) -> RouteRef | None:
    """``path("r/", view)`` and the like in a ``urls.py``."""
    pos, kw = _args(ex, call)
    route = literal(ex, pos[0] if pos else kw.get("route"))
    view = pos[1] if len(pos) > 1 else kw.get("view")
    if route is None or view is None:
        return None
    handler = _view(ex, scope, view)
    if handler is None or handler.kind == HandlerKind.METHOD:
        return None
    return RouteRef(scope.node, call.start_point[0] + 1, ("*",), route, handler)


def rule_route(ex: Extractor, scope: Scope, call: Node) -> RouteRef | None:
    """Flask's ``<x>.add_url_rule("/path", endpoint, view_func, methods=[...])`` (a call of
    ``RULE_CALL``): the rule a literal that is empty or starts with ``/``, the prefix of a
    Blueprint ``x`` joined as for a decorator; no ``view_func`` (or one that names no
    function, class or typed method): a route whose handler the corpus does not state."""
    fn = call.child_by_field_name("function")
    obj = fn.child_by_field_name("object") if fn is not None else None
    if obj is None:
        return None
    pos, kw = _args(ex, call)
    route = literal(ex, pos[0] if pos else kw.get("rule"))
    if route is None or not (route == "" or route.startswith("/")):
        return None
    view = pos[2] if len(pos) > 2 else kw.get("view_func")
    handler = _view(ex, scope, view) if view is not None else None
    methods = _methods(ex, kw.get("methods"))
    line = call.start_point[0] + 1
    return RouteRef(
        scope.node,
        line,
        methods,
        _prefix(ex, obj) + route,
        handler or Handler(HandlerKind.FUNCTION, None, ""),
    )

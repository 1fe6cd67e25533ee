"""Spring MVC and JAX-RS request mappings of a Java file (checked on Debian's libspring-java,
jersey1 and resteasy3.0 sources, issue 40 section 4): the annotations that make a method a
route handler, with their HTTP methods and paths.

- Spring: ``@GetMapping`` ... ``@DeleteMapping`` name their method; ``@RequestMapping``
  takes ``method = RequestMethod.X`` / ``{...}``, else the class's ``@RequestMapping``
  method, else any (``*``). Paths are ``value`` / ``path`` (one or a list), "" when left out,
  after the class's mapping path(s).
- JAX-RS: a verb annotation (``@GET``, ``@GET()``, ``@javax.ws.rs.GET``, ``@X.PATCH``, or an
  annotation type of the file meta-annotated ``@HttpMethod("X")``; never with arguments:
  Retrofit's ``@GET("users")`` is a client call) makes a handler; its
  ``@Path`` follows the class's ``@Path``. ``@Path`` without a verb on a method (a
  sub-resource locator) is not a route.
- A Spring composed annotation declared in the file (an annotation type meta-annotated
  ``@RequestMapping(method = ...)``) maps like ``@RequestMapping`` with that method.
- A path is a compile-time constant: string literals (escapes decoded: ``"\\\\d+"`` is
  ``\\d+``), ``+``, parentheses, and constants of the file (``PATH``, ``Outer.PATH``: a
  field initialised to such an expression, looked up from the innermost class out). What
  the file does not define stays as ``{<expression>}`` (as PHP's routes): never guessed,
  never dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

    from ragraf.lang import tstree

#: Spring's mapping annotations -> HTTP method ("*": RequestMapping, its ``method``)
SPRING = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "PatchMapping": "PATCH",
    "DeleteMapping": "DELETE",
    "RequestMapping": "*",
}
#: JAX-RS's method annotations
JAXRS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
#: the declarations whose bodies may hold constants and annotation types
_TYPES = (
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
)
_BODIES = ("class_body", "interface_body", "enum_body", "enum_body_declarations")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " "}
#: how deep one constant may refer to others
_MAX_DEPTH = 8

Mapping = tuple[str, tuple[str, ...], int]  # (path, HTTP methods, line)


class Routes:
    """The file's constants and route annotation types, read once before the walk."""

    def __init__(self, walk: tstree.Walk, root: Node) -> None:
        self.w = walk
        #: enclosing class names (outermost first) -> constant name -> its value
        self.consts: dict[tuple[str, ...], dict[str, Node]] = {}
        self.verbs: dict[str, str] = {}  # JAX-RS verb annotation types of the file
        self.composed: dict[str, tuple[str, ...]] = {}  # Spring composed annotations
        todo: list[tuple[Node, tuple[str, ...]]] = [(root, ())]
        while todo:
            n, chain = todo.pop()
            for c in n.named_children:
                if c.type in _TYPES:
                    name = c.child_by_field_name("name")
                    inner = chain + ((self.w.t(name),) if name is not None else ("",))
                    if c.type == "annotation_type_declaration" and name is not None:
                        self.annotation_type(self.w.t(name), c)
                    body = c.child_by_field_name("body")
                    if body is not None:
                        todo.append((body, inner))
                elif c.type in _BODIES or c.type == "annotation_type_body":
                    todo.append((c, chain))
                elif c.type in ("field_declaration", "constant_declaration"):
                    for d in c.named_children:
                        nm, v = d.child_by_field_name("name"), d.child_by_field_name("value")
                        if d.type == "variable_declarator" and nm is not None and v is not None:
                            self.consts.setdefault(chain, {})[self.w.t(nm)] = v

    def annotation_type(self, name: str, n: Node) -> None:
        for a in _annotations(n):
            aname, args = self.name(a), a.child_by_field_name("arguments")
            if aname == "HttpMethod":
                verb = self.paths(a, args)
                if verb and verb[0]:
                    self.verbs[name] = verb[0]
            elif aname == "RequestMapping":
                self.composed[name] = self.methods(args) or ("*",)

    def name(self, a: Node) -> str:
        nm = a.child_by_field_name("name")
        return self.w.t(nm).rsplit(".", 1)[-1] if nm is not None else ""

    def mappings(self, mods: Node | None, method: bool = False) -> list[Mapping]:
        """(path, HTTP methods, line) of the request mappings among a declaration's
        annotations (see the module docstring); on a method, a JAX-RS verb without
        ``@Path`` maps the class's path."""
        out: list[Mapping] = []
        if mods is None:
            return out
        anns = [a for a in mods.named_children if a.type in ("annotation", "marker_annotation")]
        jax = [v for a in anns if (v := self.verb(a))]
        jax_path: list[str] | None = None
        for a in anns:
            aname, args = self.name(a), a.child_by_field_name("arguments")
            if aname == "Path":
                jax_path = self.paths(a, args) or [""]
                continue
            verb = SPRING.get(aname)
            methods: tuple[str, ...] = (verb,) if verb else self.composed.get(aname, ())
            if not methods:
                continue
            if verb == "*":
                methods = self.methods(args) or ("*",)
            out += [(p, methods, a.start_point[0] + 1) for p in self.paths(a, args) or [""]]
        if jax_path is not None and (jax or not method):
            out += [(p, tuple(jax) or ("*",), mods.start_point[0] + 1) for p in jax_path]
        elif method and jax:
            out.append(("", tuple(jax), mods.start_point[0] + 1))
        return out

    def verb(self, a: Node) -> str:
        """A JAX-RS verb annotation's method ("": none). A verb takes no arguments:
        Retrofit's ``@GET("users")`` declares a client call, not a route."""
        args = a.child_by_field_name("arguments")
        if args is not None and args.named_child_count:
            return ""
        name = self.name(a)
        return name if name in JAXRS else self.verbs.get(name, "")

    def paths(self, at: Node, args: Node | None) -> list[str]:
        """The path(s) of a mapping annotation: its single value, or ``value`` / ``path``
        (one expression or ``{"/a", "/b"}``)."""
        if args is None:
            return []
        vals: list[Node] = []
        for c in args.named_children:
            if c.type == "element_value_pair":
                key = c.child_by_field_name("key")
                if key is not None and self.w.t(key) in ("value", "path"):
                    v = c.child_by_field_name("value")
                    if v is not None:
                        vals.append(v)
            elif c.type not in ("line_comment", "block_comment"):
                vals.append(c)
        chain = _chain(self.w, at)
        out: list[str] = []
        for v in vals:
            items = v.named_children if v.type == "element_value_array_initializer" else [v]
            out += [self.value(it, chain, 0) for it in items]
        return out

    def value(self, n: Node, chain: tuple[str, ...], depth: int) -> str:
        """A constant string expression's value; what the file does not define: ``{text}``."""
        if n.type == "string_literal":
            return "".join(
                _unescape(self.w.t(f)) if f.type == "escape_sequence" else self.w.t(f)
                for f in n.named_children
                if f.type in ("string_fragment", "escape_sequence")
            )
        if depth < _MAX_DEPTH:
            if n.type == "parenthesized_expression" and n.named_child_count == 1:
                return self.value(n.named_children[0], chain, depth + 1)
            op = n.child_by_field_name("operator") if n.type == "binary_expression" else None
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if op is not None and self.w.t(op) == "+" and left is not None and right is not None:
                return self.value(left, chain, depth + 1) + self.value(right, chain, depth + 1)
            found = self.constant(n, chain)
            if found is not None:
                return self.value(found[1], found[0], depth + 1)
        return "{" + self.w.t(n) + "}"

    def constant(self, n: Node, chain: tuple[str, ...]) -> tuple[tuple[str, ...], Node] | None:
        """Where the file defines the constant ``NAME`` / ``Class.NAME`` used in ``chain``."""
        if n.type == "identifier":
            name = self.w.t(n)
            for i in range(len(chain), 0, -1):
                got = self.consts.get(chain[:i], {}).get(name)
                if got is not None:
                    return chain[:i], got
            return None
        if n.type != "field_access":
            return None
        obj, field = n.child_by_field_name("object"), n.child_by_field_name("field")
        if obj is None or field is None:
            return None
        names = tuple(self.w.t(obj).split("."))
        hits = [
            (c, v[self.w.t(field)])
            for c, v in self.consts.items()
            if c[-len(names) :] == names and self.w.t(field) in v
        ]
        return hits[0] if len(hits) == 1 else None

    def methods(self, args: Node | None) -> tuple[str, ...]:
        """``method = RequestMethod.GET`` / ``{RequestMethod.GET, RequestMethod.POST}``."""
        if args is None:
            return ()
        for c in args.named_children:
            key = c.child_by_field_name("key") if c.type == "element_value_pair" else None
            if key is not None and self.w.t(key) == "method":
                v = c.child_by_field_name("value")
                items = (
                    v.named_children
                    if v is not None and v.type == "element_value_array_initializer"
                    else [v]
                )
                return tuple(self.w.t(i).rsplit(".", 1)[-1].upper() for i in items if i is not None)
        return ()


def _annotations(n: Node) -> list[Node]:
    mods = next((c for c in n.named_children if c.type == "modifiers"), None)
    return [
        a
        for a in (mods.named_children if mods is not None else [])
        if a.type in ("annotation", "marker_annotation")
    ]


def _chain(w: tstree.Walk, n: Node) -> tuple[str, ...]:
    """The names of the type declarations around ``n`` (itself included), outermost first."""
    out: list[str] = []
    p: Node | None = n
    while p is not None:
        if p.type in _TYPES:
            name = p.child_by_field_name("name")
            out.append(w.t(name) if name is not None else "")
        p = p.parent
    return tuple(reversed(out))


def _unescape(esc: str) -> str:
    """A Java escape sequence's character(s)."""
    body = esc[1:]
    if body in _ESCAPES:
        return _ESCAPES[body]
    if body.startswith("u"):
        try:
            return chr(int(body.lstrip("u"), 16))
        except ValueError:
            return esc
    if body.isdigit():
        try:
            return chr(int(body, 8))
        except ValueError:
            return esc
    return body  # \\ \" \'

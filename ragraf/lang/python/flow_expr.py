"""Python expressions for the data-flow layer (``ragraf.lang.python.flow``): the uses,
definitions, calls and taint sources of an expression, collected into the statement it
is in.

Invariants a change must keep:
- Variables are names as written; an attribute of the receiver of a method (``self.p``,
  whatever the first parameter is called) is the variable ``self.p`` (``SELF_PREFIX``);
  any other attribute or element read is a use of the variable its chain starts from
  (``a`` of ``a.b[k].c``); a write through one (``a.b = v``, ``a[k] = v``) is a weak
  definition of that variable. The receiver itself is no variable.
- A lambda, a comprehension and a generator expression are part of their statement: their
  uses count, their own parameters and loop variables do not (they do not leak).
- A call is ``[name, how, [vars of each positional argument], {keyword: vars}]`` (the
  last only with keyword arguments): ``name`` lower-case, dotted as written when the
  callee is a chain of names (``subprocess.run``, ``self.db.execute``), else its last
  name; a capitalised callee is also recorded as ``__init__`` (``NEW``: a class call).
- A read of a taint source (``SOURCES``: ``request.args``, ``os.environ``, ``input()``...,
  a chain ending with one) is a use of its canonical name; a read of one key of it
  (``request.args['id']``, ``request.args.get('id')``, ``os.getenv('HOME')``) is also a
  use of ``name['key']``.
- ``expr`` walks iteratively (an explicit stack) with one handler per node type (``_EXPR``);
  a node with none is walked into unless it is a leaf (``_LEAVES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf.kinds import FlowCallHow
from ragraf.lang.flowcore import Stmt, Unit, UnitBuilder

if TYPE_CHECKING:
    from tree_sitter import Node

#: what a request, the environment or the user can set (``config/project.yaml``
#: ``dataflow.languages.python.sources`` lists the same names)
SOURCES = frozenset(
    {
        "request.args",
        "request.form",
        "request.values",
        "request.json",
        "request.data",
        "request.files",
        "request.cookies",
        "request.headers",
        "request.GET",
        "request.POST",
        "request.COOKIES",
        "request.body",
        "os.environ",
        "sys.argv",
        "input()",
    }
)
#: the last names of a chain that may be a source (a quick test before the full one)
_SOURCE_TAILS = frozenset(s.rsplit(".", 1)[-1] for s in SOURCES if "(" not in s)
#: calls that read a source: dotted tail -> (source, whether the first argument is a key)
_SOURCE_CALLS: dict[str, tuple[str, bool]] = {
    "input": ("input()", False),
    "os.getenv": ("os.environ", True),
    "request.get_json": ("request.json", False),
    "request.get_data": ("request.data", False),
}
_LEAVES = frozenset(
    {
        "integer",
        "float",
        "true",
        "false",
        "none",
        "ellipsis",
        "comment",
        "string_start",
        "string_content",
        "string_end",
        "escape_sequence",
        "type",
        "keyword_identifier",
        "type_conversion",
        "format_specifier",
    }
)
_COMPREHENSIONS = frozenset(
    {
        "list_comprehension",
        "set_comprehension",
        "dictionary_comprehension",
        "generator_expression",
    }
)
#: node types of a destructuring target
_PATTERNS = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"}
)


class Expressions(UnitBuilder):
    """The expression walk of ``FlowBuilder`` (see the module docstring)."""

    LEAVES = _LEAVES

    SELF_PREFIX = "self."
    SOURCES = SOURCES

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        super().__init__(src, decl_at)
        #: unit index -> the name of its receiver (``self``), for methods and their closures
        self.recv: dict[int, str] = {}

    def name(self, u: Unit, n: Node) -> str | None:
        v = n.text.decode("utf-8", "replace")  # type: ignore[union-attr]
        return None if v == self.recv.get(u.index) else v

    def chain(self, n: Node) -> list[str] | None:
        """The names of a chain of attributes (``a.b.c``: [a, b, c]); None when it does not
        start from a name."""
        parts: list[str] = []
        while n.type == "attribute":
            attr = n.child_by_field_name("attribute")
            obj = n.child_by_field_name("object")
            if attr is None or obj is None:
                return None
            parts.append(self.t(attr))
            n = obj
        if n.type != "identifier":
            return None
        parts.append(self.t(n))
        return parts[::-1]

    def source_of(self, parts: list[str]) -> str | None:
        """The source a chain of names reads (the longest prefix that is one or ends with
        one: ``flask.request.args.get`` reads ``request.args``)."""
        for k in range(len(parts), 1, -1):
            if parts[k - 1] not in _SOURCE_TAILS:
                continue
            dotted = ".".join(parts[:k])
            for src in SOURCES:
                if dotted == src or dotted.endswith("." + src):
                    return src
        return None

    def attr_var(self, u: Unit, n: Node) -> str | None:
        """The variable an attribute / element chain is read as: ``self.p`` for the
        receiver's attribute, else the name it starts from."""
        recv = self.recv.get(u.index)
        while True:
            t = n.type
            if t == "identifier":
                v = self.t(n)
                return None if v == recv else v
            if t == "attribute":
                obj = n.child_by_field_name("object")
                if obj is None:
                    return None
                if obj.type == "identifier" and recv is not None and self.t(obj) == recv:
                    attr = n.child_by_field_name("attribute")
                    return self.SELF_PREFIX + self.t(attr) if attr is not None else None
                n = obj
                continue
            if t == "subscript":
                val = n.child_by_field_name("value")
                if val is None:
                    return None
                n = val
                continue
            if t == "parenthesized_expression" and n.named_child_count:
                n = n.named_children[0]
                continue
            return None

    # -- handlers ----------------------------------------------------------------------------
    def _attribute(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        parts = self.chain(x)
        if parts is not None:
            self.read(u, parts, s)
            return
        obj = x.child_by_field_name("object")
        if obj is not None:
            stack.append(obj)

    def read(self, u: Unit, parts: list[str], s: Stmt) -> None:
        """The uses of reading a chain of names: the variable it starts from (``self.p`` for
        the receiver's field) and the source it reads, if any."""
        if parts[0] == self.recv.get(u.index):
            if len(parts) > 1:
                s.uses.append(self.SELF_PREFIX + parts[1])
        else:
            s.uses.append(parts[0])
        if len(parts) > 1 and not _SOURCE_TAILS.isdisjoint(parts):
            src = self.source_of(parts)
            if src is not None:
                s.uses.append(src)

    def _subscript(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        val = x.child_by_field_name("value")
        for i, c in enumerate(x.children):
            if c.is_named and x.field_name_for_child(i) == "subscript":
                stack.append(c)
        if val is None:
            return
        stack.append(val)
        parts = self.chain(val) if val.type == "attribute" else None
        src = (
            self.source_of(parts)
            if parts and len(parts) > 1 and not _SOURCE_TAILS.isdisjoint(parts)
            else None
        )
        key = self.key(x.child_by_field_name("subscript"))
        if src is not None and key is not None:
            s.uses.append(f"{src}['{key}']")

    def key(self, n: Node | None) -> str | None:
        """A constant key: a plain string or an integer."""
        if n is None:
            return None
        if n.type == "integer":
            return self.t(n)
        if n.type == "string" and not any(c.type == "interpolation" for c in n.children):
            return "".join(self.t(c) for c in n.children if c.type == "string_content")
        return None

    def _call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        fn = x.child_by_field_name("function")
        args = x.child_by_field_name("arguments")
        name = ""
        how = FlowCallHow.DYNAMIC
        parts: list[str] | None = None
        if fn is not None:
            if fn.type == "identifier":
                name, how = self.t(fn), FlowCallHow.FUNCTION
                parts = [name]
                if name == self.recv.get(u.index):
                    name = ""
            elif fn.type == "attribute":
                parts = self.chain(fn)
                attr = fn.child_by_field_name("attribute")
                how = FlowCallHow.METHOD
                if parts is not None:
                    recv = self.recv.get(u.index)
                    name = ".".join(["self", *parts[1:]] if parts[0] == recv else parts)
                    self.read(u, parts[:-1], s)
                else:
                    if attr is not None:
                        name = self.t(attr)
                    obj = fn.child_by_field_name("object")
                    if obj is not None:
                        stack.append(obj)
            else:
                stack.append(fn)
        argv, kw = self.args(u, args, s) if args is not None else ([], {})
        if parts is not None:
            self.source_call(parts, args, s)
        name = name.lower()
        call: list[Any] = [name, how, argv]
        if kw:
            call.append(kw)
        s.calls.append(call)
        short = name.rsplit(".", 1)[-1]
        if parts and parts[-1][:1].isupper() and short:
            s.calls.append(["__init__", FlowCallHow.NEW, *call[2:]])

    def source_call(self, parts: list[str], args: Node | None, s: Stmt) -> None:
        """A call reading a source: ``input()``, ``os.getenv('K')``, ``request.args.get('k')``."""
        dotted = ".".join(parts)
        first = None
        if args is not None and args.type == "argument_list":
            pos = [a for a in args.named_children if a.type != "comment"]
            first = self.key(pos[0]) if pos else None
        for tail, (src, keyed) in _SOURCE_CALLS.items():
            if dotted == tail or dotted.endswith("." + tail):
                s.uses.append(src)
                if keyed and first is not None:
                    s.uses.append(f"{src}['{first}']")
                return
        if len(parts) > 2 and parts[-1] == "get" and first is not None:
            got = self.source_of(parts[:-1])
            if got is not None:
                s.uses.append(f"{got}['{first}']")

    def args(self, u: Unit, args: Node, s: Stmt) -> tuple[list[list[str]], dict[str, list[str]]]:
        """The variables of each positional argument, and of each keyword argument by name."""
        argv: list[list[str]] = []
        kw: dict[str, list[str]] = {}
        kids = [args] if args.type in _COMPREHENSIONS else args.named_children
        recv = self.recv.get(u.index)
        for a in kids:
            t = a.type
            if t == "identifier":  # the common cases, without a walk
                v = self.t(a)
                if v == recv:
                    argv.append([])
                else:
                    s.uses.append(v)
                    argv.append([v])
                continue
            if t in _LEAVES:
                if t != "comment":
                    argv.append([])
                continue
            before = len(s.uses)
            if t == "keyword_argument":
                name = a.child_by_field_name("name")
                val = a.child_by_field_name("value")
                if val is not None:
                    self.expr(u, val, s)
                if name is not None:
                    kw[self.t(name)] = sorted(set(s.uses[before:]))
                continue
            self.expr(u, a, s)
            argv.append(sorted(set(s.uses[before:])))
        return argv, kw

    def _lambda(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        own: set[str] = set()
        params = x.child_by_field_name("parameters")
        tmp = Stmt(0, 0, "", -1)
        if params is not None:
            for p in params.named_children:
                own.update(self.param_names(p))
                default = p.child_by_field_name("value")
                if default is not None:
                    self.expr(u, default, s)
        body = x.child_by_field_name("body")
        if body is not None:
            self.expr(u, body, tmp)
        self.merge(s, tmp, own)

    def _comprehension(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        own: set[str] = set()
        tmp = Stmt(0, 0, "", -1)
        for c in x.named_children:
            if c.type == "for_in_clause":
                left = c.child_by_field_name("left")
                right = c.child_by_field_name("right")
                if right is not None:
                    self.expr(u, right, tmp)
                if left is not None:
                    own.update(self.names_in(left))
            else:
                self.expr(u, c, tmp)
        self.merge(s, tmp, own)

    def merge(self, s: Stmt, tmp: Stmt, own: set[str]) -> None:
        """An inner scope's uses, calls and definitions through objects, its own names aside."""
        s.uses.extend(v for v in tmp.uses if v not in own)
        s.weak.extend(v for v in tmp.weak if v not in own)
        s.defs.extend(v for v in tmp.defs if v not in own)
        s.calls.extend(tmp.calls)

    def _walrus(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        name = x.child_by_field_name("name")
        val = x.child_by_field_name("value")
        if val is not None:
            stack.append(val)
        if name is not None:
            s.defs.append(self.t(name))

    def _string(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        head = self.src[x.start_byte : x.start_byte + 3]
        if b"f" not in head and b"F" not in head:
            return  # no f-string prefix: nothing to read inside
        for c in x.children:
            if c.type == "interpolation":
                e = c.child_by_field_name("expression")
                if e is not None:
                    stack.append(e)

    def _keyword(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        val = x.child_by_field_name("value")
        if val is not None:
            stack.append(val)

    def _skip(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        return

    # -- targets -------------------------------------------------------------------------------
    def target(self, u: Unit, n: Node, s: Stmt, *, also_use: bool) -> None:
        """``n`` is written: a name, a destructuring pattern, an element or an attribute."""
        t = n.type
        if t == "identifier":
            v = self.t(n)
            if v == self.recv.get(u.index):
                return
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        if t in _PATTERNS or t in ("list_splat_pattern", "list_splat", "parenthesized_expression"):
            for c in n.named_children:
                self.target(u, c, s, also_use=also_use)
            return
        if t == "attribute":
            pv = self.attr_var(u, n)
            obj = n.child_by_field_name("object")
            own = (
                obj is not None
                and obj.type == "identifier"
                and self.t(obj) == self.recv.get(u.index)
            )
            if own and pv is not None:
                if also_use:
                    s.uses.append(pv)
                s.defs.append(pv)
                u.props_written = True
                return
            if obj is not None:
                self.expr(u, obj, s)
            if pv is not None:
                s.weak.append(pv)
            return
        if t == "subscript":
            sub = [c for i, c in enumerate(n.children) if n.field_name_for_child(i) == "subscript"]
            for c in sub:
                self.expr(u, c, s)
            val = n.child_by_field_name("value")
            if val is not None:
                self.expr(u, val, s)
                bv = self.attr_var(u, val)
                if bv is not None:
                    s.weak.append(bv)
            return
        self.expr(u, n, s)

    def names_in(self, n: Node) -> list[str]:
        """The names a target pattern binds (a comprehension's loop variables)."""
        if n.type == "identifier":
            return [self.t(n)]
        if n.type in _PATTERNS or n.type in ("list_splat_pattern", "parenthesized_expression"):
            return [v for c in n.named_children for v in self.names_in(c)]
        return []

    def param_names(self, p: Node) -> list[str]:
        """The name a parameter binds (``x``, ``x: int = 1``, ``*args``, ``**kw``)."""
        t = p.type
        if t == "identifier":
            return [self.t(p)]
        if t in ("default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name")
            return [self.t(name)] if name is not None else []
        if t in ("typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"):
            for c in p.named_children:
                if c.type == "identifier":
                    return [self.t(c)]
        return []


_EXPR: dict[str, Any] = {
    "attribute": Expressions._attribute,
    "subscript": Expressions._subscript,
    "call": Expressions._call,
    "lambda": Expressions._lambda,
    **dict.fromkeys(_COMPREHENSIONS, Expressions._comprehension),
    "named_expression": Expressions._walrus,
    "string": Expressions._string,
    "keyword_argument": Expressions._keyword,
    "function_definition": Expressions._skip,
    "class_definition": Expressions._skip,
}

Expressions.HANDLERS = _EXPR

"""JavaScript / TypeScript expressions for the data-flow layer (``ragraf.lang.js.flow``): the
uses, definitions, calls and sinks of an expression, collected into the statement it is in.

Invariants a change must keep:
- Variables are names as written (no sigil); ``this.p`` is a variable of its own per unit
  (``SELF_PREFIX``); a write through an object ``o.p = v`` or an element ``a[k] = v`` is
  a weak definition of the whole ``o`` / ``a`` (and a use of it); a write of ``this.p.q``
  a weak definition of ``this.p``.
- A taint source is a member chain starting with a canonical name (``req.query``,
  ``process.env``, ``location.search``: ``SOURCES``): its use is the base variable, the
  source, and for a read of one key (``req.query.id``, ``req.query['id']``) the keyed name
  ``req.query['id']`` too; through a global object or ``this`` (``window.location.search``,
  ``this.req.query``) likewise.
- Every function value (arrow, function expression, object or class method) is a unit of
  its own (walked later, ``pending``), created by the statement it is in; what it captures
  is settled once every unit is walked (``ragraf.lang.js.flow``).
- A call is ``[name, how, [[arg vars], ...]]``: ``name`` the callee as written when it is
  a plain chain (``db.query``, ``this.find``; ``res.status(500).send`` is ``res.send``),
  lower-cased, a ``child_process`` function by its module's name whatever it was bound to;
  ``new C(...)`` is a call of ``c`` and of ``constructor``.
- TypeScript types, ``as``, ``satisfies`` and the non-null ``!`` add nothing; ``expr``
  walks iteratively (an explicit stack) with one handler per node type (``_EXPR``); a node
  with none is walked into unless it is a leaf (``_LEAVES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf.kinds import FlowCallHow, SinkKind, UnitKind
from ragraf.lang.flowcore import Stmt, Unit, UnitBuilder

if TYPE_CHECKING:
    from tree_sitter import Node

#: what a request, the process or the page can set (``FlowUnit.sources``)
SOURCES = frozenset(
    {
        "req.query",
        "req.body",
        "req.params",
        "req.cookies",
        "req.headers",
        "process.env",
        "process.argv",
        "location.search",
        "location.hash",
        "document.cookie",
    }
)
#: the last names of the sources (the chains worth reading)
_SOURCE_PROPS = frozenset(x.rpartition(".")[2].encode() for x in SOURCES)
#: objects a source may be read through (``window.location.search``; ``this.req.query`` in
#: a method of the response)
_GLOBAL_OBJECTS = frozenset({"window", "globalThis", "self", "document", "this"})
#: function values: a unit each
FUNCTIONS = frozenset(
    {"function_expression", "function", "arrow_function", "generator_function", "method_definition"}
)
#: properties whose assignment writes markup into the page
_MARKUP_PROPS = frozenset({"innerHTML", "outerHTML"})
#: calls that write into the page / run their argument as code (statement sinks)
_OUTPUT_CALLS = frozenset({"document.write", "document.writeln"})
#: methods that change the object they are called on (a weak definition of it)
_MUTATORS = frozenset(
    {
        "push",
        "unshift",
        "splice",
        "pop",
        "shift",
        "sort",
        "reverse",
        "fill",
        "copywithin",
        "set",
        "add",
        "delete",
        "clear",
        "append",
        "setheader",
    }
)

#: arguments that use no variable
_LITERALS = frozenset({"string", "number", "true", "false", "null", "undefined", "regex"})

_LEAVES = frozenset(
    {
        "string",
        "string_fragment",
        "number",
        "regex",
        "true",
        "false",
        "null",
        "undefined",
        "this",
        "super",
        "comment",
        "property_identifier",
        "private_property_identifier",
        "statement_identifier",
        "escape_sequence",
        "hash_bang_line",
        "import",
        "meta_property",
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "type_identifier",
        "predefined_type",
        "decorator",
        "optional_chain",
        "jsx_text",
        "html_comment",
        "empty_statement",
    }
)
#: declarations walked as statements elsewhere or adding nothing at run time
_TYPE_DECLS = frozenset(
    {
        "type_alias_declaration",
        "interface_declaration",
        "enum_declaration",
        "ambient_declaration",
        "function_signature",
        "abstract_method_signature",
        "method_signature",
        "index_signature",
    }
)


class Expressions(UnitBuilder):
    """The expression walk of ``FlowBuilder`` (see the module docstring)."""

    LEAVES = _LEAVES
    IDENTS = frozenset({"identifier", "shorthand_property_identifier"})

    SELF_PREFIX = "this."
    SOURCES = SOURCES

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        super().__init__(src, decl_at)
        #: per unit index: the names it declares (parameters, var / let / const, functions)
        self.declared: list[set[str]] = [set()]  # [0]: the script's
        #: names of the file's declared functions (a call of one uses no variable)
        self.functions: set[str] = set()
        #: start byte of a constructor -> the instance fields its class declares
        self.fields: dict[int, list[Node]] = {}
        #: local name -> the module function it is (``exec`` -> ``child_process.exec``)
        self.canon: dict[str, str] = {}

    # -- the walk -------------------------------------------------------------------------------
    def expr_children(self, u: Unit, n: Node, s: Stmt) -> None:
        for c in n.named_children:
            self.expr(u, c, s)

    def _assign(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        right = x.child_by_field_name("right")
        if right is not None:
            stack.append(right)
        if left is not None:
            self.target(u, left, s, also_use=x.type != "assignment_expression")

    def _update(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        arg = x.child_by_field_name("argument")
        if arg is not None:
            self.target(u, arg, s, also_use=True)

    def _member(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        obj = x.child_by_field_name("object")
        if obj is None:
            return
        if obj.type == "this":
            prop = x.child_by_field_name("property")
            if prop is not None:
                s.uses.append("this." + self.t(prop))
            return
        if self.may_read_source(x, obj):
            parts = self.chain(x)
            if parts is not None:
                self.source(parts, s)
        stack.append(obj)

    def may_read_source(self, x: Node, obj: Node) -> bool:
        """Whether member ``x`` of ``obj`` may be a source or a key of one (a cheap test
        before its chain is read)."""
        prop = x.child_by_field_name("property")
        if prop is not None and self.src[prop.start_byte : prop.end_byte] in _SOURCE_PROPS:
            return True
        if obj.type in ("member_expression", "subscript_expression"):
            inner = obj.child_by_field_name("property") or obj.child_by_field_name("index")
            if inner is not None:
                return self.src[inner.start_byte : inner.end_byte] in _SOURCE_PROPS
        return False

    def _subscript(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        obj = x.child_by_field_name("object")
        index = x.child_by_field_name("index")
        if obj is None:
            return
        if index is not None:
            if index.type == "string" and self.may_read_source(x, obj):
                parts = self.chain(x)
                if parts is not None:
                    self.source(parts, s)
            else:
                stack.append(index)
        stack.append(obj)

    def _first(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        """``x as T``, ``x satisfies T``, ``x!``: the expression, not its type."""
        if x.named_child_count:
            stack.append(x.named_children[0])

    def _last(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        """``<T>x``: the expression, not its type."""
        if x.named_child_count:
            stack.append(x.named_children[-1])

    def _skip(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        return

    def _pair(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        key = x.child_by_field_name("key")
        value = x.child_by_field_name("value")
        if key is not None and key.type == "computed_property_name":
            stack.append(key)
        if value is not None:
            stack.append(value)

    def _function(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        self.function_value(u, x, s)

    def _class(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        self.class_body(u, x, s)

    def call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        fn = x.child_by_field_name("function")
        args = x.child_by_field_name("arguments")
        name, how = "", FlowCallHow.DYNAMIC
        if fn is not None:
            t = fn.type
            if t == "identifier":
                written = self.t(fn)
                name, how = self.canon.get(written, written).lower(), FlowCallHow.FUNCTION
                if written not in self.functions:
                    s.uses.append(written)
            elif t == "member_expression":
                obj = fn.child_by_field_name("object")
                name, how = self.callee(obj, fn), FlowCallHow.METHOD
                if obj is not None:
                    stack.append(obj)  # the method's name is no read of its receiver
                    self.mutates(obj, name, args, s)
            elif t == "super":
                name, how = "constructor", FlowCallHow.METHOD
            elif t == "import":
                name, how = "import", FlowCallHow.FUNCTION
            else:
                stack.append(fn)
        argv = self.args(u, args, s) if args is not None else []
        if name == "eval" and how == FlowCallHow.FUNCTION:
            s.sinks.append(SinkKind.CODE)
        elif name in _OUTPUT_CALLS:
            s.sinks.append(SinkKind.OUTPUT)
        elif name.startswith("child_process."):
            s.sinks.append(SinkKind.SHELL)
        s.calls.append([name, how, argv])

    def _new(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        ctor = x.child_by_field_name("constructor")
        args = x.child_by_field_name("arguments")
        argv = self.args(u, args, s) if args is not None else []
        name = ""
        if ctor is not None:
            if ctor.type == "identifier":
                name = self.t(ctor)
            elif ctor.type == "member_expression":
                name = self.callee(ctor.child_by_field_name("object"), ctor)
                stack.append(ctor)
            else:
                stack.append(ctor)
        if name == "Function":
            s.sinks.append(SinkKind.CODE)
        if name:
            s.calls.append([name.lower(), FlowCallHow.NEW, argv])
        s.calls.append(["constructor", FlowCallHow.NEW, argv])

    def mutates(self, obj: Node, name: str, args: Node | None, s: Stmt) -> None:
        """``xs.push(v)``, ``m.set(k, v)``: a weak definition of the receiver ``obj``;
        ``Object.assign(o, ...)`` of its first argument."""
        if name == "object.assign":
            first = args.named_children[0] if args is not None and args.named_child_count else None
            base = self.base_var(first) if first is not None else None
        elif name.rsplit(".", 1)[-1] in _MUTATORS:
            base = self.base_var(obj)
        else:
            return
        if base is not None:
            s.weak.append(base)

    def args(self, u: Unit, args: Node, s: Stmt) -> list[list[str]]:
        if args.type != "arguments":  # a tagged template: its substitutions, one argument
            before = len(s.uses)
            self.expr(u, args, s)
            return [sorted(set(s.uses[before:]))]
        out: list[list[str]] = []
        for a in args.named_children:
            t = a.type
            if t == "identifier":  # the common cases, without a walk of their own
                v = self.src[a.start_byte : a.end_byte].decode("utf-8", "replace")
                s.uses.append(v)
                out.append([v])
                continue
            if t in _LITERALS:
                out.append([])
                continue
            if t == "comment":
                continue
            before = len(s.uses)
            self.expr(u, a, s)
            out.append(sorted(set(s.uses[before:])))
        return out

    def callee(self, obj: Node | None, fn: Node) -> str:
        """The name of a method call ``fn`` on ``obj`` as written (``db.query``;
        ``res.status(500).send`` is ``res.send``, ``require('x').f`` is ``f``), lower-cased."""
        prop = fn.child_by_field_name("property")
        method = self.t(prop) if prop is not None else ""
        while obj is not None and obj.type == "call_expression":
            inner = obj.child_by_field_name("function")
            obj = inner.child_by_field_name("object") if inner is not None else None
            if inner is None or inner.type != "member_expression":
                obj = None
        parts = self.chain(obj) if obj is not None else None
        if not parts:
            return method.lower()
        if len(parts) == 1 and parts[0] in self.canon:
            parts = [self.canon[parts[0]]]
        return ".".join([*parts, method]).lower()

    # -- names ----------------------------------------------------------------------------------
    def chain(self, n: Node) -> list[str] | None:
        """``a.b['c'].d`` -> [a, b, c, d]; None unless a plain chain from a name or ``this``."""
        out: list[str] = []
        while True:
            t = n.type
            if t == "member_expression":
                prop = n.child_by_field_name("property")
                obj = n.child_by_field_name("object")
                if prop is None or obj is None:
                    return None
                out.append(self.t(prop))
                n = obj
            elif t == "subscript_expression":
                index = n.child_by_field_name("index")
                obj = n.child_by_field_name("object")
                if index is None or obj is None or index.type != "string":
                    return None
                out.append(self.t(index)[1:-1])
                n = obj
            elif t == "non_null_expression" and n.named_child_count:
                n = n.named_children[0]
            elif t == "identifier" or t == "this":
                out.append(self.t(n))
                out.reverse()
                return out
            else:
                return None

    def source(self, parts: list[str], s: Stmt) -> None:
        """A chain read from a taint source: the source and the key it reads."""
        i = 1 if len(parts) > 2 and parts[0] in _GLOBAL_OBJECTS else 0
        if len(parts) < i + 2:
            return
        name = parts[i] + "." + parts[i + 1]
        if name not in SOURCES:
            return
        s.uses.append(name)
        if len(parts) > i + 2:
            s.uses.append(f"{name}['{parts[i + 2]}']")

    def base_var(self, n: Node) -> str | None:
        """The variable an element / property chain starts from (``a`` of ``a[k].p``,
        ``this.p`` of ``this.p.q``)."""
        while True:
            t = n.type
            if t == "identifier":
                return self.t(n)
            if t == "member_expression":
                obj = n.child_by_field_name("object")
                if obj is None:
                    return None
                if obj.type == "this":
                    prop = n.child_by_field_name("property")
                    return "this." + self.t(prop) if prop is not None else None
                n = obj
                continue
            if t in ("subscript_expression", "non_null_expression", "parenthesized_expression"):
                inner = n.child_by_field_name("object") if t == "subscript_expression" else None
                if inner is None and n.named_child_count:
                    inner = n.named_children[0]
                if inner is None:
                    return None
                n = inner
                continue
            return None

    # -- what is written -----------------------------------------------------------------------
    def target(self, u: Unit, n: Node, s: Stmt, *, also_use: bool) -> None:
        """``n`` is written: a variable, a destructuring pattern, an element or a property."""
        t = n.type
        if t == "identifier" or t == "shorthand_property_identifier_pattern":
            v = self.t(n)
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        if t == "member_expression":
            obj = n.child_by_field_name("object")
            prop = n.child_by_field_name("property")
            if prop is not None and self.t(prop) in _MARKUP_PROPS:
                s.sinks.append(SinkKind.OUTPUT)
            if obj is not None and obj.type == "this" and prop is not None:
                v = "this." + self.t(prop)
                if also_use:
                    s.uses.append(v)
                s.defs.append(v)
                u.props_written = True
                return
            base = self.base_var(n)
            if obj is not None:
                self.expr(u, obj, s)
            if base is not None:
                s.weak.append(base)
            return
        if t == "subscript_expression":
            obj = n.child_by_field_name("object")
            index = n.child_by_field_name("index")
            if index is not None:
                self.expr(u, index, s)
            if obj is not None:
                self.expr(u, obj, s)
            base = self.base_var(n)
            if base is not None:
                s.weak.append(base)
            return
        if t in ("parenthesized_expression", "non_null_expression", "as_expression"):
            if n.named_child_count:
                self.target(u, n.named_children[0], s, also_use=also_use)
            return
        if t in _PATTERNS:
            self.pattern(u, n, s, None)
            return
        self.expr(u, n, s)

    def pattern(self, u: Unit, n: Node, s: Stmt, declared: set[str] | None) -> None:
        """A destructuring pattern (or a name) is written; its defaults and computed keys are
        used; the names it binds are declared when ``declared`` is given."""
        stack = [n]
        while stack:
            c = stack.pop()
            t = c.type
            if t == "identifier" or t == "shorthand_property_identifier_pattern":
                v = self.t(c)
                s.defs.append(v)
                if declared is not None:
                    declared.add(v)
            elif t == "pair_pattern":
                key = c.child_by_field_name("key")
                value = c.child_by_field_name("value")
                if key is not None and key.type == "computed_property_name":
                    self.expr(u, key, s)
                if value is not None:
                    stack.append(value)
            elif t in ("assignment_pattern", "object_assignment_pattern"):
                left = c.child_by_field_name("left")
                right = c.child_by_field_name("right")
                if right is not None:
                    self.expr(u, right, s)
                if left is not None:
                    stack.append(left)
            elif t in ("object_pattern", "array_pattern", "rest_pattern"):
                stack.extend(c.named_children)
            elif t in ("member_expression", "subscript_expression"):
                self.target(u, c, s, also_use=False)  # [this.a, o.b] = pair
            elif t not in ("comment", "type_annotation"):
                self.expr(u, c, s)

    # -- functions and classes ---------------------------------------------------------------------
    def function_value(self, u: Unit, fn: Node, s: Stmt) -> None:
        """A function created by statement ``s`` of ``u``: a unit of its own, walked later."""
        si = len(u.stmts) - 1
        if u.stmts[si] is not s:
            si = next((i for i, x in enumerate(u.stmts) if x is s), si)
        self.pending.append((fn, u.node, UnitKind.CLOSURE, -1, [], (u.index, si)))

    def class_body(self, u: Unit, cls: Node, s: Stmt) -> None:
        """A class: its heritage and field values are used by ``s``; its methods and the
        functions its fields hold are units of their own."""
        body = cls.child_by_field_name("body")
        for c in cls.named_children:
            if c.type == "class_heritage":
                self.expr(u, c, s)
        if body is None:
            return
        members = body.named_children
        ctor = next(
            (
                m
                for m in members
                if m.type == "method_definition"
                and m.child_by_field_name("body") is not None
                and self._named(m, "constructor")
            ),
            None,
        )
        fields: list[Node] = []
        for m in members:
            t = m.type
            if t == "method_definition":
                if m.child_by_field_name("body") is not None:
                    self.function_value(u, m, s)
            elif t in ("public_field_definition", "field_definition"):
                value = m.child_by_field_name("value")
                if ctor is not None and not any(c.type == "static" for c in m.children):
                    fields.append(m)  # set by the constructor, before its body
                elif value is not None:
                    self.expr(u, value, s)
            elif t == "class_static_block":
                self.expr(u, m, s)
        if ctor is not None and fields:
            self.fields[ctor.start_byte] = fields

    def _named(self, m: Node, name: str) -> bool:
        nm = m.child_by_field_name("name")
        return nm is not None and self.t(nm) == name

    def field_inits(self, u: Unit, fn: Node, s: Stmt) -> None:
        """The instance fields of a class its constructor (``fn``) sets: ``this.p`` defined
        by the entry, from what its value uses."""
        for m in self.fields.pop(fn.start_byte, ()):
            name = m.child_by_field_name("name") or m.child_by_field_name("property")
            value = m.child_by_field_name("value")
            if value is not None:
                self.expr(u, value, s)
            if name is not None and name.type in (
                "property_identifier",
                "private_property_identifier",
            ):
                s.defs.append("this." + self.t(name))


_PATTERNS = frozenset({"object_pattern", "array_pattern", "rest_pattern", "assignment_pattern"})

_EXPR: dict[str, Any] = {
    "assignment_expression": Expressions._assign,
    "augmented_assignment_expression": Expressions._assign,
    "update_expression": Expressions._update,
    "member_expression": Expressions._member,
    "subscript_expression": Expressions._subscript,
    "call_expression": Expressions.call,
    "new_expression": Expressions._new,
    "as_expression": Expressions._first,
    "satisfies_expression": Expressions._first,
    "non_null_expression": Expressions._first,
    "type_assertion": Expressions._last,
    "pair": Expressions._pair,
    "class": Expressions._class,
    "class_declaration": Expressions._class,
    **dict.fromkeys(FUNCTIONS, Expressions._function),
    "function_declaration": Expressions._function,
    "generator_function_declaration": Expressions._function,
    **dict.fromkeys(_TYPE_DECLS, Expressions._skip),
}

Expressions.HANDLERS = _EXPR

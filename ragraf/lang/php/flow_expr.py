"""PHP expressions for the data-flow layer (``ragraf.lang.php.flow``): the uses,
definitions, calls and sinks of an expression, collected into the statement it is in.

Invariants a change must keep:
- Variables are PHP names with their ``$``; ``$this->p`` is a variable of its own per
  method (``self::$p`` likewise); an element write ``$a[k] = v`` or a write through an
  object ``$o->p = v`` is a weak definition of the whole ``$a`` / ``$o``; a reference
  ``$a = &$b`` makes the names aliases.
- A closure is a unit of its own (walked later, ``pending``); its ``use`` variables are
  uses of the creating statement and definitions of its entry. An arrow function's
  body is part of the statement (its parameters aside).
- ``expr`` walks iteratively (an explicit stack) with one handler per node type
  (``_EXPR``); a node with none is walked into unless it is a leaf (``_LEAVES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf.kinds import FlowCallHow, SinkKind, UnitKind
from ragraf.lang.flowcore import Stmt, Unit, UnitBuilder

if TYPE_CHECKING:
    from tree_sitter import Node

#: declarations whose methods are units of their own (no uses of the statement around them)
CLASS_LIKE = frozenset(
    {"class_declaration", "trait_declaration", "enum_declaration", "interface_declaration"}
)
#: builtins that write a by-reference argument (0-based positions)
BYREF_BUILTINS: dict[str, tuple[int, ...]] = {
    "preg_match": (2,),
    "preg_match_all": (2,),
    "preg_replace_callback": (4,),
    "preg_replace": (4,),
    "str_replace": (3,),
    "str_ireplace": (3,),
    "parse_str": (1,),
    "sort": (0,),
    "rsort": (0,),
    "usort": (0,),
    "uasort": (0,),
    "uksort": (0,),
    "ksort": (0,),
    "krsort": (0,),
    "asort": (0,),
    "arsort": (0,),
    "natsort": (0,),
    "natcasesort": (0,),
    "shuffle": (0,),
    "array_push": (0,),
    "array_unshift": (0,),
    "array_pop": (0,),
    "array_shift": (0,),
    "array_splice": (0,),
    "array_walk": (0,),
    "array_multisort": (0,),
    "settype": (0,),
    "list": (),
    "exec": (1, 2),
    "mb_parse_str": (1,),
    "openssl_sign": (1,),
    "end": (),
    "reset": (),
}
#: calls whose first argument may name the request body
_INPUT_READERS = frozenset({"file_get_contents", "fopen", "stream_get_contents"})

_LEAVES = frozenset(
    {
        "string",
        "string_content",
        "integer",
        "float",
        "boolean",
        "null",
        "name",
        "qualified_name",
        "comment",
        "nowdoc",
        "escape_sequence",
        "heredoc_start",
        "heredoc_end",
        "primitive_type",
        "named_type",
        "cast_type",
        "class_constant_access_expression",
    }
)


_SINK_OF = {
    "include_expression": SinkKind.INCLUDE,
    "include_once_expression": SinkKind.INCLUDE,
    "require_expression": SinkKind.INCLUDE,
    "require_once_expression": SinkKind.INCLUDE,
    "shell_command_expression": SinkKind.SHELL,
    "print_intrinsic": SinkKind.OUTPUT,
    "dynamic_variable_name": SinkKind.DYNAMIC_VARIABLE,
}


class Expressions(UnitBuilder):
    """The expression walk of ``FlowBuilder`` (see the module docstring)."""

    LEAVES = _LEAVES
    IDENTS = frozenset({"variable_name"})

    def expr_children(self, u: Unit, n: Node, s: Stmt) -> None:
        for c in n.named_children:
            self.expr(u, c, s)

    def name(self, u: Unit, n: Node) -> str | None:
        v = n.text.decode("utf-8", "replace")  # type: ignore[union-attr]
        return None if v == "$this" else v

    def _assign(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        right = x.child_by_field_name("right")
        if right is not None:
            stack.append(right)
        if left is not None:
            self.target(u, left, s, also_use=False)
            if (
                x.type == "reference_assignment_expression"
                and right is not None
                and left.type == "variable_name"
            ):
                rv = self.base_var(right)
                if rv is not None:
                    self.alias(u, self.t(left), rv)

    def _augmented(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        left = x.child_by_field_name("left")
        right = x.child_by_field_name("right")
        if right is not None:
            stack.append(right)
        if left is not None:
            self.target(u, left, s, also_use=True)

    def _update(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        arg = x.child_by_field_name("argument")
        if arg is None and x.named_child_count:
            arg = x.named_children[0]
        if arg is not None:
            self.target(u, arg, s, also_use=True)

    def _member(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        v = self.prop_var(x)
        if v is not None:
            s.uses.append(v)
        else:
            stack.extend(x.named_children)

    def _scoped_prop(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        s.uses.append(self.t(x))

    def _new(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        args = None
        for c in x.named_children:
            t = c.type
            if t == "arguments":
                args = c
            elif t not in ("name", "qualified_name", "anonymous_class"):
                stack.append(c)
        if args is not None:
            s.calls.append(["__construct", FlowCallHow.NEW, self.args(u, args, s)])

    def _sink(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        s.sinks.append(_SINK_OF[x.type])
        stack.extend(x.named_children)

    def _skip(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        return

    def call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        fn = x.child_by_field_name("function")
        args = x.child_by_field_name("arguments")
        name = ""
        if fn is not None:
            if fn.type in ("name", "qualified_name", "relative_name"):
                name = self.t(fn).rsplit("\\", 1)[-1].lower()
            else:
                stack.append(fn)
        argv = self.args(u, args, s) if args is not None else []
        if name in _INPUT_READERS and args is not None and args.named_child_count:
            if b"php://input" in args.named_children[0].text:  # type: ignore[operator]
                s.uses.append("php://input")
        if name == "compact" and args is not None:
            for a in args.named_children:
                txt = self.t(a).strip("'\" ")
                if txt.isidentifier():
                    s.uses.append("$" + txt)
        for pos in BYREF_BUILTINS.get(name, ()):
            if pos < len(argv):
                for v in argv[pos]:
                    s.weak.append(v)
        s.calls.append([name, FlowCallHow.FUNCTION if name else FlowCallHow.DYNAMIC, argv])

    def method_call(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        obj = x.child_by_field_name("object") or x.child_by_field_name("scope")
        name = x.child_by_field_name("name")
        args = x.child_by_field_name("arguments")
        if obj is not None:
            stack.append(obj)
        mname = ""
        if name is not None:
            if name.type == "name":
                mname = self.t(name).lower()
            else:
                stack.append(name)
        argv = self.args(u, args, s) if args is not None else []
        how = FlowCallHow.STATIC if x.type == "scoped_call_expression" else FlowCallHow.METHOD
        s.calls.append([mname, how, argv])

    def args(self, u: Unit, args: Node, s: Stmt) -> list[list[str]]:
        out: list[list[str]] = []
        for a in args.named_children:
            if a.type == "comment":
                continue
            before = len(s.uses)
            self.expr(u, a, s)
            out.append(sorted(set(s.uses[before:])))
        return out

    def closure(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        captured: list[str] = []
        for c in x.named_children:
            if c.type == "anonymous_function_use_clause":
                for v in c.named_children:
                    if v.type == "variable_name":
                        name = self.t(v)
                        s.uses.append(name)
                        captured.append(name)
                    elif v.type == "by_ref" and v.named_child_count:
                        name = self.t(v.named_children[0])
                        s.uses.append(name)
                        s.weak.append(name)
                        captured.append("&" + name)
        si = len(u.stmts) - 1
        if u.stmts[si] is not s:
            si = next((i for i, x2 in enumerate(u.stmts) if x2 is s), si)
        self.pending.append((x, u.node, UnitKind.CLOSURE, -1, captured, (u.index, si)))

    def arrow(self, u: Unit, x: Node, s: Stmt, stack: list[Node]) -> None:
        params = x.child_by_field_name("parameters")
        body = x.child_by_field_name("body")
        own: set[str] = set()
        if params is not None:
            for p in params.named_children:
                name = p.child_by_field_name("name")
                if name is not None:
                    own.add(self.t(name))
        if body is None:
            return
        tmp = Stmt(0, 0, "", -1)
        self.expr(u, body, tmp)
        s.uses.extend(v for v in tmp.uses if v not in own)
        s.calls.extend(tmp.calls)
        s.sinks.extend(tmp.sinks)

    def target(self, u: Unit, n: Node, s: Stmt, *, also_use: bool) -> None:
        """``n`` is written: a variable, a destructuring list, an element or a property."""
        t = n.type
        if t == "variable_name":
            v = self.t(n)
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        if t in ("list_literal", "array_creation_expression"):
            for c in n.named_children:
                if c.type == "array_element_initializer" or c.type == "pair":
                    parts = c.named_children
                    if not parts:
                        continue
                    for p in parts[:-1]:
                        self.expr(u, p, s)
                    c = parts[-1]
                if c.type == "by_ref" and c.named_child_count:
                    c = c.named_children[0]
                if c.type in ("variable_name", "list_literal", "array_creation_expression"):
                    self.target(u, c, s, also_use=also_use)
                elif c.type in (
                    "subscript_expression",
                    "member_access_expression",
                    "scoped_property_access_expression",
                ):
                    self.target(u, c, s, also_use=also_use)
                else:
                    self.expr(u, c, s)
            return
        if t == "member_access_expression" or t == "nullsafe_member_access_expression":
            pv = self.prop_var(n)
            if pv is not None:
                if also_use:
                    s.uses.append(pv)
                s.defs.append(pv)
                u.props_written = True
                return
            obj = n.child_by_field_name("object")
            base = self.base_var(obj) if obj is not None else None
            if obj is not None:
                self.expr(u, obj, s)
            name = n.child_by_field_name("name")
            if name is not None and name.type != "name":
                self.expr(u, name, s)
            if base is not None:
                s.weak.append(base)
            return
        if t == "scoped_property_access_expression":
            v = self.t(n)
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        if t == "subscript_expression":
            kids = n.named_children
            if not kids:
                return
            base = self.base_var(kids[0])
            for c in kids[1:]:
                self.expr(u, c, s)
            inner = kids[0]
            if inner.type not in ("variable_name",) and not (
                inner.type == "member_access_expression" and self.prop_var(inner) is not None
            ):
                self.expr(u, inner, s)
            if base is not None:
                if also_use:
                    s.uses.append(base)
                s.weak.append(base)
            return
        if t == "by_ref" and n.named_child_count:
            self.target(u, n.named_children[0], s, also_use=also_use)
            return
        self.expr(u, n, s)

    def prop_var(self, n: Node) -> str | None:
        """``$this->p`` as the variable ``$this->p``; None for any other member access."""
        obj = n.child_by_field_name("object")
        name = n.child_by_field_name("name")
        if (
            obj is not None
            and name is not None
            and obj.type == "variable_name"
            and name.type == "name"
            and self.src[obj.start_byte : obj.end_byte] == b"$this"
        ):
            return "$this->" + self.t(name)
        return None

    def base_var(self, n: Node) -> str | None:
        """The variable an element / property chain starts from (``$a`` of ``$a['k']->p``)."""
        while True:
            t = n.type
            if t == "variable_name":
                v = self.t(n)
                return None if v == "$this" else v
            if t in ("member_access_expression", "nullsafe_member_access_expression"):
                pv = self.prop_var(n)
                if pv is not None:
                    return pv
                obj = n.child_by_field_name("object")
                if obj is None:
                    return None
                n = obj
                continue
            if t == "subscript_expression" and n.named_child_count:
                n = n.named_children[0]
                continue
            if t == "scoped_property_access_expression":
                return self.t(n)
            if t == "by_ref" and n.named_child_count:
                n = n.named_children[0]
                continue
            return None


_EXPR: dict[str, Any] = {
    "assignment_expression": Expressions._assign,
    "reference_assignment_expression": Expressions._assign,
    "augmented_assignment_expression": Expressions._augmented,
    "update_expression": Expressions._update,
    "member_access_expression": Expressions._member,
    "nullsafe_member_access_expression": Expressions._member,
    "scoped_property_access_expression": Expressions._scoped_prop,
    "function_call_expression": Expressions.call,
    "member_call_expression": Expressions.method_call,
    "nullsafe_member_call_expression": Expressions.method_call,
    "scoped_call_expression": Expressions.method_call,
    "object_creation_expression": Expressions._new,
    "anonymous_function": Expressions.closure,
    "arrow_function": Expressions.arrow,
    "anonymous_class": Expressions._skip,
    **dict.fromkeys(CLASS_LIKE, Expressions._skip),
    **dict.fromkeys(_SINK_OF, Expressions._sink),
}

Expressions.HANDLERS = _EXPR

"""Strings that name code: the values a PHP expression may evaluate to, when they are built
of literals, so that a call whose callee or method name is computed (``$fn()``,
``call_user_func($cb)``, ``$obj->$m()``, a hook named ``'wp_ajax_' . $action``) gets the
names it may reach.

A value is a *pattern*: its literal text with ``*`` for each part built at run time
(``"upgrade_to_$v"`` -> ``upgrade_to_*``); ``*`` alone is a value nothing is known of.
What is followed:

- literals, interpolations and concatenations (each side's values, one after the other);
- ternaries, ``??`` and ``?:`` (either side), ``apply_filters('hook', $default)`` (the
  default, and ``*``: a filter may return anything);
- ``strtolower`` / ``strtoupper`` / ``ucfirst`` / ``lcfirst`` / ``ucwords`` / ``trim`` and
  ``str_replace('a', 'b', $x)`` of known values (applied to their literal parts),
  ``sprintf('fmt_%s', ...)`` (each ``%s`` / ``%d`` an argument's values);
- a class constant of the file (``self::HOOK_RENDER``, ``C::NAME``) with a literal value;
- a local variable: the values of the assignments of it that may reach the use (those of
  earlier branches and the dominating one; ``*`` when none dominates: a parameter, a global);
- inside ``if (in_array($x, $list, ...))``, ``$x`` (a variable or an element such as
  ``$_GET['action']``) is one of the list's literal elements (an array literal, a variable
  assigned one, ``array_merge`` of those).

Invariants a change must keep:
- At most ``MAX_VALUES`` values per expression, each at most ``MAX_VALUE_CHARS`` long;
  beyond, the expression is unknown (``None``), never a truncated list (a list is all the
  values the code can produce, ``*`` standing for what it cannot tell).
- Consecutive ``*`` merge into one; ``None`` is "not a string we can read", ``("*",)``
  "a string, nothing known of it".
- Bindings are read in document order: a use sees the assignments before it only.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ragraf.kinds import TargetKind
from ragraf.lang.facts import UNKNOWN_NAME, Target
from ragraf.lang.php import hooks
from ragraf.lang.php.names import Names
from ragraf.lang.typedesc import Cls, TypeDesc

if TYPE_CHECKING:
    from tree_sitter import Node

#: values kept per expression (more: unknown)
MAX_VALUES = 128
#: the longest value kept
MAX_VALUE_CHARS = 200
#: how deep an expression is followed
MAX_DEPTH = 12
#: functions that keep their argument's value (up to case or padding)
_CASE: dict[str, Callable[[str], str]] = {
    "strtolower": str.lower,
    "strtoupper": str.upper,
    "ucfirst": lambda s: s[:1].upper() + s[1:],
    "lcfirst": lambda s: s[:1].lower() + s[1:],
    "ucwords": lambda s: s.title(),
    "trim": str.strip,
}
#: ``sprintf``'s conversions of one argument (``%s``, ``%d``, ``%1$s``)
_CONV = re.compile(r"%(?:(\d+)\$)?[-+ 0']*\d*(?:\.\d+)?([sdfFuxXbcoeE])")
#: escape sequences a name may hold (``'\\Sodium\\f'``), as their character
_ESCAPED = {"\\\\": "\\", "\\'": "'", '\\"': '"', "\\$": "$"}
#: expressions whose value is only known at run time (they may hold a name)
_RUNTIME = frozenset(
    {
        "member_call_expression",
        "nullsafe_member_call_expression",
        "scoped_call_expression",
        "member_access_expression",
        "nullsafe_member_access_expression",
        "scoped_property_access_expression",
        "cast_expression",
        "heredoc",
    }
)
#: right sides that may copy a parameter (``param_of``)
_PARAM_COPIES = frozenset({"variable_name", "function_call_expression", "parenthesized_expression"})
#: WordPress's filters: the value a filter returns when nothing is added (argument 1)
_FILTERS = frozenset({"apply_filters", "apply_filters_deprecated"})
#: the functions that test whether argument 0 is one of the list argument 1 holds
_IN_LIST = frozenset({"in_array"})

#: (pos, block start, block end, values, parameter position) of one assignment
StrBinding = tuple[int, int, int, "tuple[str, ...] | None", int]


def _merge_stars(s: str) -> str:
    while "**" in s:
        s = s.replace("**", "*")
    return s


def _join(parts: list[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The values of parts written one after the other (each combination)."""
    n = 1
    for p in parts:
        n *= len(p)
        if n > MAX_VALUES:
            return None
    out = [_merge_stars("".join(c)) for c in itertools.product(*parts)]
    if any(len(v) > MAX_VALUE_CHARS for v in out):
        return None
    return tuple(dict.fromkeys(out))


def _map(values: tuple[str, ...], fn: Callable[[str], str]) -> tuple[str, ...]:
    """A string function applied to the literal parts of each value."""
    return tuple(dict.fromkeys("*".join(fn(p) for p in v.split("*")) for v in values))


def literal_len(v: str) -> int:
    """The literal characters of a value (``*`` aside)."""
    return len(v) - v.count("*")


#: the literal characters a name pattern needs to be matched against declarations
MIN_PATTERN_LITERAL = 4
#: a value that may name a function (``*`` for run-time parts)
_FUNCTION_SHAPE = re.compile(r"\\?[A-Za-z_*][\w*]*(\\[\w*]+)*")
#: a value that may name a method
_METHOD_SHAPE = re.compile(r"[A-Za-z_*][\w*]*")
#: a call whose name nothing is known of (``Target.candidates`` / ``Target.method``)
UNKNOWN = UNKNOWN_NAME


def _known(v: str) -> bool:
    """Whether a value says enough of a name to be matched (a literal, or a pattern with
    ``MIN_PATTERN_LITERAL`` literal characters)."""
    return "*" not in v or literal_len(v) >= MIN_PATTERN_LITERAL


def function_targets(values: tuple[str, ...]) -> tuple[Target, ...]:
    """What the values of a callable expression name: functions (fully qualified, as PHP
    reads a name in a string), ``Class::method``s, and ``UNKNOWN`` for a value too vague."""
    out: list[Target] = []
    for v in values:
        if not _known(v):
            out.append(Target(TargetKind.FUNCTION, candidates=(UNKNOWN,)))
        elif "::" in v:
            cls, _, meth = v.partition("::")
            if "*" in cls or not _METHOD_SHAPE.fullmatch(meth):
                out.append(Target(TargetKind.FUNCTION, candidates=(UNKNOWN,)))
            else:
                out.append(Target(TargetKind.METHOD, receiver=Cls(cls.lstrip("\\")), method=meth))
        elif _FUNCTION_SHAPE.fullmatch(v):
            out.append(Target(TargetKind.FUNCTION, candidates=(v.lstrip("\\"),)))
    return tuple(dict.fromkeys(out))


def method_targets(values: tuple[str, ...], recv: TypeDesc | None) -> tuple[Target, ...]:
    """What the values of a method name (``$obj->$m()``) name on ``recv``."""
    out: list[Target] = []
    for v in values:
        name = v if _known(v) and _METHOD_SHAPE.fullmatch(v) else UNKNOWN
        out.append(Target(TargetKind.METHOD, receiver=recv, method=name))
    return tuple(dict.fromkeys(out))


class StrVals(Names):
    """The string values of expressions (see the module docstring)."""

    #: (scope id, variable) -> its string assignments, in document order
    _str_binds: dict[tuple[int, str], list[StrBinding]] | None = None
    #: (lower class fqn, constant) -> its literal value, of the file's classes
    _str_consts: dict[tuple[str, str], str] | None = None

    def str_binds(self) -> dict[tuple[int, str], list[StrBinding]]:
        if self._str_binds is None:
            self._str_binds = {}
        return self._str_binds

    def str_const(self, n: Node) -> None:
        """``const NAME = 'value';`` in a class: kept for ``self::NAME`` / ``C::NAME``."""
        decl = self.cur_class_decl()
        if decl is None:
            return
        if self._str_consts is None:
            self._str_consts = {}
        for el in n.named_children:
            if el.type != "const_element":
                continue
            name = next((c for c in el.named_children if c.type == "name"), None)
            if name is None:
                continue
            value = self.string_value(name.next_named_sibling)
            if value is not None and len(value) <= MAX_VALUE_CHARS:
                self._str_consts[(decl.fqn.lower(), self.t(name))] = value

    def str_assign(self, n: Node) -> None:
        """``$x = <expr>``: the values ``$x`` holds from there on (and the parameter it
        copies, for a dispatcher: ``$m = strtolower($type)``)."""
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None or right is None or left.type != "variable_name":
            return
        if n.type != "assignment_expression":
            return
        values = self.str_values(right)
        sc = self.scope()
        key = (sc.id, self.t(left)[1:])
        binds = self.str_binds().get(key)
        param = self.param_of(right) if right.type in _PARAM_COPIES else -1
        if not binds and param < 0 and values in (None, ("*",)) and not self._is_param(key[1]):
            return  # nothing known before nor now: as if unassigned (cheaper: most are)
        block = self.block_of(n)
        self.str_binds().setdefault(key, []).append((n.end_byte, block[0], block[1], values, param))

    def _is_param(self, name: str) -> bool:
        sc = self.scope()
        if sc.node == 0 or sc.anon:
            return False
        return any(
            p.get("name") == name for p in self.facts.nodes[sc.node].props.get("parameters") or []
        )

    def str_foreach(self, n: Node) -> None:
        """``foreach ($plugins as $plugin)`` over a list of literals (an array literal, a
        variable assigned one): inside the loop ``$plugin`` is one of them."""
        kids = [c for c in n.named_children if c.type != "comment"]
        if len(kids) < 3 or kids[1].type != "variable_name":
            return
        values = self._list_values(kids[0], 0)
        if not values or len(values) > MAX_VALUES:
            return
        body = kids[-1]
        self.str_binds().setdefault((self.scope().id, self.t(kids[1])[1:]), []).append(
            (kids[1].end_byte, body.start_byte, body.end_byte, values, -1)
        )

    def _reaching(self, name: str, at: int) -> tuple[list[StrBinding], bool]:
        """The string assignments of ``$name`` that may reach byte ``at`` and whether one of
        them dominates it (else the variable may still hold what it had on entry)."""
        binds = self.str_binds().get((self.scope().id, name)) or []
        out: list[StrBinding] = []
        for b in reversed(binds):
            pos, bs, be = b[0], b[1], b[2]
            if pos > at:
                continue
            out.append(b)
            if bs <= at < be:
                return out, True
        return out, False

    def param_of(self, n: Node | None, depth: int = 0) -> int:
        """The position of the parameter of the enclosing function ``n`` copies (itself,
        or a case change of it, or a variable assigned one), else -1."""
        if n is None or depth > MAX_DEPTH:
            return -1
        if n.type == "parenthesized_expression" and n.named_children:
            return self.param_of(n.named_children[0], depth + 1)
        if n.type == "function_call_expression":
            f = n.child_by_field_name("function")
            if f is not None and self.t(f).lower().lstrip("\\") in _CASE:
                return self.param_of(self.first_arg(n), depth + 1)
            return -1
        if n.type != "variable_name":
            return -1
        name = self.t(n)[1:]
        got, dominated = self._reaching(name, n.start_byte)
        if got:
            params = {b[4] for b in got}
            return params.pop() if dominated and len(params) == 1 else -1
        sc = self.scope()
        if sc.node == 0 or sc.anon:
            return -1
        for i, p in enumerate(self.facts.nodes[sc.node].props.get("parameters") or []):
            if p.get("name") == name:
                return i
        return -1

    def str_values(self, n: Node | None, depth: int = 0) -> tuple[str, ...] | None:
        """The values of a string expression (see the module docstring); None when it is
        not one this can read."""
        if n is None or depth > MAX_DEPTH:
            return None
        ty = n.type
        if ty in ("string", "encapsed_string"):
            parts: list[tuple[str, ...]] = []
            for p in n.named_children:
                if p.type in ("string_content", "string_value"):
                    parts.append((self.t(p),))
                elif p.type == "variable_name":
                    parts.append(self.str_values(p, depth + 1) or ("*",))
                elif p.type == "escape_sequence":
                    parts.append((_ESCAPED.get(self.t(p), "*"),))
                else:
                    parts.append(("*",))
            return _join(parts) if parts else ("",)
        if ty == "binary_expression":
            op = n.child_by_field_name("operator")
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if op is None or left is None or right is None:
                return None
            o = self.t(op)
            if o == ".":
                a = self.str_values(left, depth + 1)
                b = self.str_values(right, depth + 1)
                return _join([a or ("*",), b or ("*",)])
            if o in ("??", "?:"):
                return self._either([left, right], depth)
            return None
        if ty == "conditional_expression":
            body = n.child_by_field_name("body")
            cond = n.child_by_field_name("condition")
            return self._either(
                [body if body is not None else cond, n.child_by_field_name("alternative")], depth
            )
        if ty == "parenthesized_expression" and n.named_children:
            return self.str_values(n.named_children[0], depth + 1)
        if ty in ("variable_name", "subscript_expression"):
            listed = self._listed(n, depth)
            if listed is not None:
                return listed
            if ty == "subscript_expression":
                return ("*",)
            return self._var_values(n, depth)
        if ty == "class_constant_access_expression":
            return self._class_const(n)
        if ty == "function_call_expression":
            return self._call_values(n, depth)
        if ty in _RUNTIME:
            return ("*",)
        return None  # a closure, an object, an array, a number: no name

    def _either(self, alts: list[Node | None], depth: int) -> tuple[str, ...] | None:
        vals: list[str] = []
        for a in alts:
            got = self.str_values(a, depth + 1)
            vals.extend(got if got is not None else ("*",))
        out = tuple(dict.fromkeys(vals))
        return out if len(out) <= MAX_VALUES else None

    def _var_values(self, n: Node, depth: int) -> tuple[str, ...] | None:
        name = self.t(n)[1:]
        if name == "this":
            return None
        got, dominated = self._reaching(name, n.start_byte)
        vals: list[str] = []
        for b in got:
            vals.extend(b[3] or ())  # None: not a string (a closure, an object)
        if not dominated:
            vals.append("*")
        out = tuple(dict.fromkeys(vals))
        return out if len(out) <= MAX_VALUES else ("*",)

    def _class_const(self, n: Node) -> tuple[str, ...] | None:
        parts = n.named_children
        if len(parts) != 2 or not self._str_consts:
            return ("*",)
        cls = self.class_desc(parts[0])
        if not isinstance(cls, Cls):
            return ("*",)
        value = self._str_consts.get((cls.fqn.lower(), self.t(parts[1])))
        return (value,) if value is not None else ("*",)

    def _call_values(self, n: Node, depth: int) -> tuple[str, ...] | None:
        f = n.child_by_field_name("function")
        if f is None or f.type not in ("name", "qualified_name"):
            return ("*",)
        low = self.t(f).lower().lstrip("\\")
        args = _args(n)
        if low in _CASE and len(args) == 1:
            got = self.str_values(args[0], depth + 1)
            return _map(got, _CASE[low]) if got is not None else ("*",)
        if low == "str_replace" and len(args) == 3:
            a, b = self.string_value(args[0]), self.string_value(args[1])
            got = self.str_values(args[2], depth + 1)
            if a and b is not None and got is not None:
                old, new = a, b
                return _map(got, lambda s: s.replace(old, new))
            return ("*",)
        if low == "sprintf" and args:
            fmt = self.string_value(args[0])
            if fmt is None:
                return ("*",)
            return self._sprintf(fmt, args[1:], depth)
        if low in _FILTERS and len(args) >= 2:
            got = self.str_values(args[1], depth + 1)
            return tuple(dict.fromkeys([*(got or ()), "*"]))
        return ("*",)

    def _sprintf(self, fmt: str, args: list[Node], depth: int) -> tuple[str, ...] | None:
        parts: list[tuple[str, ...]] = []
        pos = 0
        nxt = 0
        for m in _CONV.finditer(fmt.replace("%%", "\x00")):
            parts.append((fmt[pos : m.start()].replace("\x00", "%"),))
            i = int(m.group(1)) - 1 if m.group(1) else nxt
            nxt = i + 1
            if m.group(2) == "s" and i < len(args):
                parts.append(self.str_values(args[i], depth + 1) or ("*",))
            else:
                parts.append(("*",))
            pos = m.end()
        parts.append((fmt[pos:].replace("\x00", "%"),))
        return _join(parts)

    # -- hooks ------------------------------------------------------------------------
    def hook_names(self, n: Node | None) -> list[str]:
        """The hooks a call's first argument names: the literal names its values are
        (``$hook = $a ? 'x' : 'y'``, ``'wp_ajax_' . $action`` inside an ``in_array``
        guard), else its name or pattern (``hooks.hook_name``)."""
        if n is None:
            return []
        vals = self.str_values(n) or ()
        exact = [v for v in vals if "*" not in v and 0 < len(v) <= hooks.MAX_HOOK_CHARS]
        patterns = [v for v in vals if "*" in v and v != "*"]
        if exact and not patterns:
            return exact
        name = hooks.hook_name(n, self.t)
        return [name] if name is not None else exact

    def hook_listens(
        self, names: list[str], hook: Node, cb: Node | None
    ) -> list[tuple[str, Target | None, str]]:
        """(hook, callback, how it was computed) of each listen an ``add_action`` makes: its
        callback is a literal callable (``callable_target``) or the names the callback
        expression's values give; values that vary with the hook name's (both built of one
        variable: ``'wp_ajax_' . $a``, ``'wp_ajax_' . str_replace('-', '_', $a)``) pair
        with them in order; a callback of one value goes with every name."""
        target = self.callable_target(cb)
        from_values = names != [hooks.hook_name(hook, self.t)]
        how_hook = _source(self.t(hook)) if from_values else ""
        if target is not None or cb is None or cb.type not in _STRING_EXPRS:
            return [(nm, target, how_hook) for nm in names]
        vals = self.str_values(cb) or ()
        targets = [t for t in function_targets(vals) if t.candidates != (UNKNOWN,)]
        how = _source(f"{self.t(hook)}, {self.t(cb)}")
        if (
            len(names) > 1
            and len(targets) == len(names)
            and len(vals) == len(targets)
            and _sources(hook, self.t) == _sources(cb, self.t)
            and len(_sources(hook, self.t)) == 1
        ):
            return [(nm, t, how) for nm, t in zip(names, targets, strict=True)]
        if len(targets) == 1:
            return [(nm, targets[0], how) for nm in names]
        return [(nm, None, how_hook) for nm in names]

    # -- in_array guards -------------------------------------------------------------
    def _listed(self, n: Node, depth: int) -> tuple[str, ...] | None:
        """Inside ``if (in_array($x, $list, ...))`` (or ``&&`` with it), ``$x`` is one of
        the list's literal elements: their values; None when no such guard holds."""
        text = self.t(n)
        c, p = n, n.parent
        while p is not None:
            if p.type in ("function_definition", "method_declaration", "anonymous_function"):
                return None
            if p.type == "if_statement":
                body = p.child_by_field_name("body")
                cond = p.child_by_field_name("condition")
                if body is not None and body.start_byte == c.start_byte and cond is not None:
                    got = self._guard_list(cond, text, depth)
                    if got is not None:
                        return got
            c, p = p, p.parent
        return None

    def _guard_list(self, cond: Node, text: str, depth: int) -> tuple[str, ...] | None:
        for call in _conjuncts(cond, self.t):
            if call.type != "function_call_expression":
                continue
            f = call.child_by_field_name("function")
            if f is None or self.t(f).lower().lstrip("\\") not in _IN_LIST:
                continue
            args = _args(call)
            if len(args) >= 2 and self.t(args[0]) == text:
                return self._list_values(args[1], depth)
        return None

    def _list_values(self, n: Node, depth: int) -> tuple[str, ...] | None:
        """The literal elements of a list: an array literal, a variable assigned one
        (``array_merge`` of those too)."""
        if depth > MAX_DEPTH:
            return None
        if n.type == "array_creation_expression":
            out: list[str] = []
            for e in n.named_children:
                if e.type == "comment":
                    continue
                if e.type != "array_element_initializer" or e.named_child_count != 1:
                    return None
                v = self.string_value(e.named_children[0])
                if v is None:
                    return None
                out.append(v)
            return tuple(dict.fromkeys(out))
        if n.type == "function_call_expression":
            f = n.child_by_field_name("function")
            if f is not None and self.t(f).lower().lstrip("\\") == "array_merge":
                vals: list[str] = []
                for a in _args(n):
                    got = self._list_values(a, depth + 1)
                    if got is None:
                        return None
                    vals.extend(got)
                return tuple(dict.fromkeys(vals))
            return None
        if n.type == "variable_name":
            name = self.t(n)[1:]
            lists = self.list_binds().get((self.scope().id, name)) or []
            for pos, node in reversed(lists):
                if pos <= n.start_byte:
                    return self._list_values(node, depth + 1)
        return None

    #: (scope id, variable) -> (position, right side) of its assignments of an array
    _list_binds: dict[tuple[int, str], list[tuple[int, Node]]] | None = None

    def list_binds(self) -> dict[tuple[int, str], list[tuple[int, Node]]]:
        if self._list_binds is None:
            self._list_binds = {}
        return self._list_binds

    def list_assign(self, n: Node) -> None:
        """``$list = array(...)`` / ``array_merge(...)``: kept for ``in_array`` guards."""
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None or right is None or left.type != "variable_name":
            return
        if right.type in ("array_creation_expression", "function_call_expression"):
            key = (self.scope().id, self.t(left)[1:])
            self.list_binds().setdefault(key, []).append((n.end_byte, right))


#: expressions a callback computed as a string may be (a literal is ``callable_target``'s)
_STRING_EXPRS = frozenset(
    {"binary_expression", "encapsed_string", "function_call_expression", "variable_name"}
)
#: the longest source of a computed name kept as evidence
MAX_SOURCE_CHARS = 120


def _source(text: str) -> str:
    """An expression's source as evidence (one line, cut)."""
    one = " ".join(text.split())
    return one if len(one) <= MAX_SOURCE_CHARS else one[: MAX_SOURCE_CHARS - 3] + "..."


def _sources(n: Node, t: Callable[[Node], str]) -> set[str]:
    """The variables and elements (``$a``, ``$_GET['action']``) an expression reads."""
    out: set[str] = set()
    stack = [n]
    while stack:
        c = stack.pop()
        if c.type in ("variable_name", "subscript_expression"):
            out.add(t(c))
        else:
            stack.extend(c.named_children)
    return out


def _args(call: Node) -> list[Node]:
    """The expressions of a call's positional arguments."""
    args = call.child_by_field_name("arguments")
    out: list[Node] = []
    if args is None:
        return out
    for a in args.named_children:
        if a.type != "argument" or not a.named_children:
            continue
        if a.child_by_field_name("name") is not None:
            break
        out.append(a.named_children[-1])
    return out


def _conjuncts(cond: Node, tx: Callable[[Node], str]) -> list[Node]:
    """The operands of a condition's top-level ``&&`` / ``and`` chain."""
    out: list[Node] = []
    stack = [cond]
    while stack:
        c = stack.pop()
        if c.type == "parenthesized_expression" and c.named_children:
            stack.append(c.named_children[0])
        elif c.type == "binary_expression":
            op = c.child_by_field_name("operator")
            if op is not None and tx(op).lower() in ("&&", "and"):
                for side in ("left", "right"):
                    s = c.child_by_field_name(side)
                    if s is not None:
                        stack.append(s)
            else:
                out.append(c)
        else:
            out.append(c)
    return out

"""PHP names and type descriptors.

Names are resolved per file as PHP resolves them: the namespace segment, its
``use`` aliases (class / function / const) and fully qualified names.

Type descriptors (``ragraf.lang.typedesc``, evaluated by
``ragraf.indexing.resolve.symbols.SymbolTable.types``) say what a receiver
expression evaluates to:

- ``Cls(fqn)``, ``Static()`` (the late-bound class), ``Parent(fqn)`` (the parents
  of ``fqn``);
- ``Prop(d, name)`` / ``Prop(d, name, static=True)``: a property of what ``d``
  describes; ``Call(d, name)`` / ``Call(d, name, static=True)``: what its method
  ``name`` returns; ``Func(candidates)``: what a function returns;
- ``Global(name)``: what the global ``$name`` is assigned anywhere;
- ``Array(d)``: an array of what ``d`` describes (``Foo[]``, ``array<K, Foo>``,
  ``list<Foo>``: it describes no class itself); ``Elem(d)``: an element of the
  array ``d`` describes (``foreach``, ``$a[$k]``, ``reset`` / ``end`` / ``current``);
- ``AnyOf((d, ...))``: one of several;
- only inside this package: ``Var(name, pos)`` (a local variable used at byte
  ``pos``), ``FuncName(candidates)`` and ``CallableOf(d, method)`` (a variable
  holding a function name or a callable array).

Invariants a change must keep:
- Names resolve as PHP resolves them. Unqualified function calls keep both
  candidates (namespaced, then global); unqualified classes do not fall back.
- Primitive types (``NOT_CLASSES``) describe no class.
- Variables are closed over their scope's bindings flow-sensitively (``close``):
  a use takes the nearest preceding binding whose block holds the use (the
  dominating one, approximately: the last before the use in the same or an
  enclosing block), together with the bindings after it made in branches that
  closed before the use (where branches merge); a narrowing (``instanceof``)
  holds only inside its block. A use no binding precedes takes every binding of
  the scope (loops), and at file scope (outside closures) the global of that
  name. No ``Var`` leaves this package.
- Declared PHP types win over docblocks (``@param``); an inline ``@var`` right
  before an assignment types it unless the assignment creates an object.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from ragraf.kinds import TargetKind
from ragraf.lang.facts import ClassConstRef, Target, TypeDesc
from ragraf.lang.php.state import Binding, Scope, State
from ragraf.lang.typedesc import (
    AnyOf,
    Array,
    Call,
    CallableOf,
    Cls,
    Elem,
    Func,
    FuncName,
    Global,
    Parent,
    Prop,
    Static,
    Var,
    alternatives,
)

if TYPE_CHECKING:
    from tree_sitter import Node

NOT_CLASSES = {
    "int",
    "integer",
    "float",
    "double",
    "string",
    "bool",
    "boolean",
    "array",
    "callable",
    "iterable",
    "object",
    "mixed",
    "void",
    "null",
    "never",
    "false",
    "true",
    "resource",
    "self",
    "static",
    "parent",
    "numeric",
    "scalar",
    "list",
}
#: how deep ``expr_desc`` follows a receiver expression (``$a->b()->c->d()``; parentheses,
#: assignments and clones count): a deeper one describes nothing (None), which bounds the
#: recursion and the size of a descriptor
MAX_EXPR_DEPTH = 6
#: how many variables deep ``close`` substitutes into a descriptor (``$a = $b; $b = $c->d;``,
#: ``$s = $s->add($t)`` line after line): a hop to one binding costs 1, a hop to several (where
#: branches merge) ``_MERGE_COST``, so a descriptor stays small (at most a few merges) while a
#: straight chain can be long; ``seen`` already stops cycles and each scope memoizes what a
#: use closes to
MAX_CLOSE_DEPTH = 16
_MERGE_COST = 4
_NAMESPACE_RELATIVE = "namespace\\"  # ``namespace\Foo``: relative to the current namespace

# docblock tags that type a local variable, a property, a return value
#: a docblock type: names, ``|``, ``?``, ``[]`` and generic arguments (``array<K, V>``, nested
#: up to three levels)
_DOC_TYPE = r"((?:[\\\w|?\[\]-]|<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>)+)"
DOC_VAR = re.compile(r"@var\s+" + _DOC_TYPE + r"\s+\$(\w+)")
DOC_VAR_PROP = re.compile(r"@var\s+" + _DOC_TYPE)
DOC_RETURN = re.compile(r"@return\s+" + _DOC_TYPE)
DOC_PARAM = re.compile(r"@param\s+" + _DOC_TYPE + r"\s+&?(?:\.\.\.)?\$(\w+)")
DOC_GLOBAL = re.compile(r"@global\s+" + _DOC_TYPE + r"\s+\$(\w+)")
DOC_PROPERTY = re.compile(r"@property(?:-read|-write)?\s+" + _DOC_TYPE + r"\s+\$(\w+)")
#: generic docblock types whose last argument is the element type
_DOC_ARRAYS = frozenset(
    {"array", "list", "iterable", "non-empty-array", "non-empty-list", "\\traversable"}
)
#: functions returning an element of their array argument
_ELEMENT_FUNCTIONS = frozenset({"reset", "end", "current", "array_pop", "array_shift", "next"})
#: WordPress's filters return the value they are given (argument 1) unless a callback
#: replaces it: ``apply_filters('x', new C)`` is typed as a C
_FILTER_FUNCTIONS = frozenset(
    {"apply_filters", "apply_filters_ref_array", "apply_filters_deprecated"}
)
#: where a binding stops holding: the branches of these constructs (their bodies, not their
#: conditions) are blocks of their own
_BRANCH_FIELDS = {
    "if_statement": ("body", "alternative"),
    "else_if_clause": ("body",),
    "else_clause": ("body",),
    "while_statement": ("body",),
    "do_statement": ("body",),
    "for_statement": ("body",),
    "foreach_statement": ("body",),
    "try_statement": ("body",),
    "catch_clause": ("body",),
    "finally_clause": ("body",),
    "conditional_expression": ("body", "alternative"),
}
_BRANCH_NODES = frozenset(
    {
        "case_statement",
        "default_statement",
        "match_conditional_expression",
        "match_default_expression",
    }
)
_SHORT_CIRCUIT = frozenset({"&&", "||", "and", "or", "??"})
_FUNCTION_NODES = frozenset(
    {"function_definition", "method_declaration", "anonymous_function", "arrow_function"}
)


class Names(State):
    """Name resolution and type descriptors in the walk's current context."""

    def qualify(self, name: str) -> str:
        """A name declared here -> its fqn in the current namespace."""
        return f"{self.seg.ns}\\{name}" if self.seg.ns else name

    def resolve_class(self, raw: str) -> str | None:
        """A class name as written -> fully qualified (without leading '\\')."""
        raw = raw.strip()
        if not raw:
            return None
        if raw[0] == "\\":
            return raw[1:]
        low = raw.lower()
        if low in NOT_CLASSES:
            return None
        if low.startswith(_NAMESPACE_RELATIVE):
            return self.qualify(raw[len(_NAMESPACE_RELATIVE) :])
        first, sep, rest = raw.partition("\\")
        target = self.seg.classes.get(first.lower())
        if target:
            return f"{target}\\{rest}" if sep else target
        return self.qualify(raw)

    def function_candidates(self, raw: str) -> tuple[str, ...]:
        """A function name as written -> the fqns PHP tries, in order (an unqualified name in a
        namespace: the namespaced one, then the global one)."""
        raw = raw.strip()
        if raw.startswith("\\"):
            return (raw[1:],)
        if "\\" in raw:
            first, _, rest = raw.partition("\\")
            if first.lower() == "namespace":
                return (self.qualify(rest),)
            target = self.seg.classes.get(first.lower())
            return (f"{target}\\{rest}",) if target else (self.qualify(raw),)
        alias = self.seg.functions.get(raw.lower())
        if alias:
            return (alias,)
        if self.seg.ns:
            return (self.qualify(raw), raw)
        return (raw,)

    # -- types ------------------------------------------------------------
    def class_refs(self, types: Iterable[Node | None]) -> None:
        """The classes these type annotations name (``self``, ``static`` and ``parent``
        aside): references owned by the current scope, each at its line (a rename of the
        class changes it)."""
        todo = [t for t in types if t is not None]
        while todo:
            t = todo.pop()
            if t.type not in ("name", "qualified_name"):
                todo.extend(t.named_children)
                continue
            raw = self.t(t)
            if raw.lower() in ("self", "static", "parent"):
                continue
            fq = self.resolve_class(raw)
            if fq:
                self.raw_refs.append(
                    ClassConstRef(self.scope_index(), t.start_point[0] + 1, Cls(fq), "class")
                )

    def type_descs(self, tnode: Node | None) -> list[TypeDesc]:
        """A type annotation node -> class descriptors (primitive types give none)."""
        if tnode is None:
            return []
        ty = tnode.type
        if ty in (
            "optional_type",
            "union_type",
            "intersection_type",
            "disjunctive_normal_form_type",
        ):
            out: list[TypeDesc] = []
            for c in tnode.named_children:
                out.extend(self.type_descs(c))
            return out
        if ty == "named_type":
            inner = tnode.named_children[0] if tnode.named_children else None
            return self.type_descs(inner) if inner is not None else []
        if ty in ("name", "qualified_name"):
            raw = self.t(tnode)
            low = raw.lower()
            if low in ("self", "static", "parent"):
                cls = self.cur_class()
                if not cls:
                    return []
                return [
                    Static() if low == "static" else Parent(cls) if low == "parent" else Cls(cls)
                ]
            fq = self.resolve_class(raw)
            return [Cls(fq)] if fq else []
        return []

    def doc_types(self, raw: str) -> list[TypeDesc]:
        """A docblock type (``Foo|null``, ``?Bar``, ``static``, ``Foo[]``,
        ``array<string, Foo>``) -> class and array descriptors; primitive types give none."""
        out: list[TypeDesc] = []
        for part in _split_top(raw.replace("?", ""), "|"):
            part = part.strip()
            if not part:
                continue
            if part.endswith("[]"):
                inner = self.doc_types(part[:-2])
                if inner:
                    out.append(Array(inner[0] if len(inner) == 1 else AnyOf(tuple(inner))))
                continue
            if part.endswith(">") and "<" in part:
                head, _, args = part[:-1].partition("<")
                if head.lower() in _DOC_ARRAYS:
                    inner = self.doc_types(_split_top(args, ",")[-1])
                    if inner:
                        out.append(Array(inner[0] if len(inner) == 1 else AnyOf(tuple(inner))))
                    continue
                part = head  # `Collection<Foo>`: a Collection
            low = part.lower()
            if low in ("self", "static", "$this", "parent"):
                cls = self.cur_class()
                if cls:
                    out.append(
                        Cls(cls) if low == "self" else Parent(cls) if low == "parent" else Static()
                    )
                continue
            fq = self.resolve_class(part)
            if fq:
                out.append(Cls(fq))
        return out

    def expr_desc(self, n: Node | None, depth: int = 0) -> TypeDesc | None:
        """What an expression evaluates to, as a type descriptor (or None)."""
        if n is None or depth > MAX_EXPR_DEPTH:
            return None
        ty = n.type
        if ty == "variable_name":
            var = self.t(n)[1:]
            if var == "this":
                this = self.cur_class()
                return Cls(this) if this else None
            return Var(var, n.start_byte)
        if ty in ("member_access_expression", "nullsafe_member_access_expression"):
            name = n.child_by_field_name("name")
            if name is None or name.type != "name":
                return None
            recv = self.expr_desc(n.child_by_field_name("object"), depth + 1)
            return Prop(recv, self.t(name)) if recv else None
        if ty in ("member_call_expression", "nullsafe_member_call_expression"):
            name = n.child_by_field_name("name")
            if name is None or name.type != "name":
                return None
            recv = self.expr_desc(n.child_by_field_name("object"), depth + 1)
            return Call(recv, self.t(name)) if recv else None
        if ty == "scoped_call_expression":
            name = n.child_by_field_name("name")
            cls = self.class_desc(n.child_by_field_name("scope"))
            if name is None or name.type != "name" or cls is None:
                return None
            return Call(cls, self.t(name), static=True)
        if ty == "object_creation_expression":
            c = n.named_children[0] if n.named_children else None
            if c is None:
                return None
            return self.class_desc(c)
        if ty == "function_call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type in ("name", "qualified_name"):
                fname = self.t(f)
                if fname.lower().lstrip("\\") in _ELEMENT_FUNCTIONS:
                    inner = self.expr_desc(self.first_arg(n), depth + 1)
                    return Elem(inner) if inner is not None else None
                if fname.lower().lstrip("\\") in _FILTER_FUNCTIONS:
                    args = n.child_by_field_name("arguments")
                    second = (
                        args.named_children[1]
                        if args is not None and args.named_child_count > 1
                        else None
                    )
                    if second is not None and second.type == "argument" and second.named_children:
                        return self.expr_desc(second.named_children[-1], depth + 1)
                    return None
                return Func(self.function_candidates(fname))
            return None
        if ty == "scoped_property_access_expression":
            cls = self.class_desc(n.child_by_field_name("scope"))
            name = n.child_by_field_name("name")
            if cls is None or name is None:
                return None
            return Prop(cls, self.t(name).lstrip("$"), static=True)
        if ty == "parenthesized_expression":
            return self.expr_desc(n.named_children[0] if n.named_children else None, depth + 1)
        if ty == "assignment_expression":
            return self.expr_desc(n.child_by_field_name("right"), depth + 1)
        if ty == "augmented_assignment_expression":  # `$x ??= new C`: the old value or C
            op = n.child_by_field_name("operator")
            if op is None or self.t(op) != "??=":
                return None
            return self.either(
                [n.child_by_field_name("left"), n.child_by_field_name("right")], depth
            )
        if ty == "binary_expression":  # `$a ?? $b`: either operand (null describes none)
            op = n.child_by_field_name("operator")
            if op is None or self.t(op) != "??":
                return None
            return self.either(
                [n.child_by_field_name("left"), n.child_by_field_name("right")], depth
            )
        if ty == "conditional_expression":  # `$c ? $a : $b`, `$a ?: $b`
            body = n.child_by_field_name("body")
            return self.either(
                [
                    body if body is not None else n.child_by_field_name("condition"),
                    n.child_by_field_name("alternative"),
                ],
                depth,
            )
        if ty == "clone_expression":
            return self.expr_desc(n.named_children[0] if n.named_children else None, depth + 1)
        if ty == "subscript_expression":
            base = n.named_children[0] if n.named_children else None
            if base is not None and base.type == "variable_name" and self.t(base) == "$GLOBALS":
                key = self.string_value(n.named_children[1]) if n.named_child_count > 1 else None
                return Global(key) if key else None
            inner = self.expr_desc(base, depth + 1)
            return Elem(inner) if inner is not None else None
        return None

    def either(self, ns: list[Node | None], depth: int) -> TypeDesc | None:
        """What one of several expressions evaluates to (those describing nothing left out)."""
        alts = [d for d in (self.expr_desc(x, depth + 1) for x in ns) if d is not None]
        if not alts:
            return None
        uniq = list(dict.fromkeys(alts))
        return uniq[0] if len(uniq) == 1 else AnyOf(tuple(uniq))

    def class_literal(self, n: Node | None) -> str | None:
        """``X::class`` -> the fqn of ``X`` (None for any other expression, or a class that
        does not resolve)."""
        if n is None or n.type != "class_constant_access_expression":
            return None
        parts = n.named_children
        if len(parts) != 2 or self.t(parts[1]).lower() != "class":
            return None
        d = self.class_desc(parts[0])
        return d.fqn.lstrip("\\") if isinstance(d, Cls) and d.fqn else None

    def class_desc(self, n: Node | None) -> TypeDesc | None:
        """A class position (scope of ::, target of new) -> descriptor."""
        if n is None:
            return None
        ty = n.type
        if ty == "relative_scope":
            word = self.t(n).lower()
            cls = self.cur_class()
            if not cls:
                return None
            return Parent(cls) if word == "parent" else Cls(cls)
        if ty in ("name", "qualified_name"):
            raw = self.t(n)
            low = raw.lower()
            if low in ("self", "static"):
                cls = self.cur_class()
                return Cls(cls) if cls else None
            if low == "parent":
                cls = self.cur_class()
                return Parent(cls) if cls else None
            fq = self.resolve_class(raw)
            return Cls(fq) if fq else None
        if ty == "variable_name":
            return self.expr_desc(n)
        return None

    # -- callables --------------------------------------------------------
    def callable_target(self, arg: Node | None) -> Target | None:
        """'name', 'Class::method', [Class::class, 'm'], [$this, 'm'] -> what they name."""
        if arg is None:
            return None
        s = self.string_value(arg)
        if s is not None:
            # a string names its function or class fully qualified: PHP resolves it at run
            # time, without the file's namespace or imports
            if "::" in s:
                cls, _, meth = s.partition("::")
                fq = _string_class(cls)
                return Target(TargetKind.METHOD, receiver=Cls(fq), method=meth) if fq else None
            if re.fullmatch(r"\\?\w+(\\\w+)*", s):
                return Target(TargetKind.FUNCTION, candidates=(s.lstrip("\\"),))
            return None
        if arg.type == "array_creation_expression":
            return self.callable_array(arg)
        return None

    def callable_array(self, arr: Node) -> Target | None:
        """``[X, 'method']`` -> a method target (receiver None when X is not understood)."""
        els = [e for e in arr.named_children if e.type == "array_element_initializer"]
        if len(els) != 2 or any(e.named_child_count != 1 for e in els):
            return None
        a, b = els[0].named_children[0], els[1].named_children[0]
        meth = self.string_value(b)
        if not meth or not re.fullmatch(r"\w+", meth):
            return None
        if a.type == "class_constant_access_expression":
            parts = a.named_children
            if len(parts) == 2 and self.t(parts[1]).lower() == "class":
                cls = self.class_desc(parts[0])
                return Target(TargetKind.METHOD, receiver=cls, method=meth) if cls else None
            return None
        s = self.string_value(a)
        if s:
            fq = _string_class(s)
            return Target(TargetKind.METHOD, receiver=Cls(fq), method=meth) if fq else None
        d = self.expr_desc(a)
        return Target(TargetKind.METHOD, receiver=d, method=meth) if d else None

    def callable_desc(self, n: Node) -> TypeDesc | None:
        """A string naming a function, or a callable array, as a descriptor."""
        s = self.string_value(n)
        if s is not None:
            if re.fullmatch(r"\\?[A-Za-z_]\w*(\\\w+)*", s):
                return FuncName((s.lstrip("\\"),))
            return None
        if n.type == "array_creation_expression":
            t = self.callable_array(n)
            if t is None or t.receiver is None:
                return None
            return CallableOf(t.receiver, t.method)
        return None

    # -- bindings and closing descriptors over a scope -------------------------
    def block_of(self, n: Node) -> tuple[int, int]:
        """The extent of the innermost block (branch) ``n`` sits in: the body of an
        ``if`` / ``else`` / loop / ``try`` / ``catch``, a ``case``, a ternary's branch, the
        right operand of a short-circuit operator, else its function (or the file)."""
        c = n
        p = n.parent
        while p is not None:
            pt = p.type
            if pt in _FUNCTION_NODES:
                return p.start_byte, p.end_byte
            fields = _BRANCH_FIELDS.get(pt)
            if fields is not None:
                for fname in fields:
                    b = p.child_by_field_name(fname)
                    if b is not None and b.start_byte == c.start_byte and b.end_byte == c.end_byte:
                        return c.start_byte, c.end_byte
            elif pt in _BRANCH_NODES:
                return p.start_byte, p.end_byte
            elif pt == "binary_expression":
                r = p.child_by_field_name("right")
                op = p.child_by_field_name("operator")
                if (
                    r is not None
                    and r.start_byte == c.start_byte
                    and op is not None
                    and self.t(op) in _SHORT_CIRCUIT
                ):
                    return c.start_byte, c.end_byte
            c = p
            p = p.parent
        return 0, len(self.src) + 1

    def bind(
        self,
        sc: Scope,
        name: str,
        descs: list[TypeDesc],
        pos: int,
        block: tuple[int, int],
        scoped: bool = False,
    ) -> None:
        """``$name`` holds one of ``descs`` from byte ``pos`` on (inside ``block`` only when
        ``scoped``)."""
        lst = sc.vars.setdefault(name, [])
        for d in descs:
            lst.append((pos, block[0], block[1], d, scoped))

    def close(
        self,
        d: TypeDesc | None,
        sc: Scope,
        depth: int = 0,
        seen: frozenset[tuple[str, int]] = frozenset(),
    ) -> TypeDesc | None:
        """Replace ``Var(x, pos)`` by what the bindings of x reaching ``pos`` hold."""
        if d is None or depth > MAX_CLOSE_DEPTH:
            return None
        match d:
            case Var(name, at):
                if (name, at) in seen:
                    return None
                memo = sc.closed.get((name, at), seen)  # `seen`: not memoized yet
                if memo is not seen:
                    return cast("TypeDesc | None", memo)
                seen = seen | {(name, at)}
                reach = self.reaching(sc, name, at)
                hop = depth + (1 if len(reach) == 1 else _MERGE_COST)
                alts = [a for a in (self.close(r, sc, hop, seen) for r in reach) if a is not None]
                uniq = list(dict.fromkeys(alts))
                out = None if not uniq else uniq[0] if len(uniq) == 1 else AnyOf(tuple(uniq))
                if out is not None or depth == 0:
                    sc.closed[(name, at)] = out
                return out
            case Prop(of) | Call(of) | CallableOf(of) | Elem(of) | Array(of):
                inner = self.close(of, sc, depth, seen)
                return d._replace(of=inner) if inner is not None else None
            case AnyOf(alts):
                parts = [self.close(a, sc, depth, seen) for a in alts]
                kept = list(dict.fromkeys(a for a in parts if a is not None))
                if not kept:
                    return None
                return kept[0] if len(kept) == 1 else AnyOf(tuple(kept))
        return d

    def reaching(self, sc: Scope, name: str, at: int) -> list[TypeDesc]:
        """What ``$name`` may hold at byte ``at`` (see the module docstring)."""
        binds: list[Binding] = sc.vars.get(name) or []
        out: list[TypeDesc] = []
        stop = -1  # the position of the dominating binding, once found
        for pos, bs, be, d, scoped in reversed(binds):  # sorted by position
            if pos > at:
                continue
            if stop >= 0 and pos != stop:
                break  # what came before the dominating binding was overwritten
            inside = bs <= at < be
            if scoped and not inside:
                continue
            out.append(d)  # a binding of a branch closed before `at` may have run: kept
            if inside:
                stop = pos
        if out:
            return out
        if sc.id == 0 and not any(s <= at < e for s, e in sc.closures):
            return [Global(name)]  # a file-level variable no assignment precedes
        return [d for _p, _bs, _be, d, scoped in binds if not scoped]

    def var_function_target(
        self, sc: Scope, name: str, at: int
    ) -> tuple[tuple[Target, ...], TypeDesc | None]:
        """`$fn()`: the functions and callable arrays $fn was assigned (literal names), and
        the classes it holds an object of (``new C``, a declared ``C $fn``): calling an
        object calls its ``__invoke``."""
        d = self.close(Var(name, at), sc)
        if d is None:
            return (), None
        out = []
        objects: list[TypeDesc] = []
        for a in alternatives(d):
            match a:
                case FuncName(candidates):
                    out.append(Target(TargetKind.FUNCTION, candidates=candidates))
                case CallableOf(of, method):
                    out.append(Target(TargetKind.METHOD, receiver=of, method=method))
                case Cls():
                    objects.append(a)
        if not objects:
            return tuple(out), None
        return tuple(out), objects[0] if len(objects) == 1 else AnyOf(tuple(objects))


def _split_top(s: str, sep: str) -> list[str]:
    """``s`` split at ``sep`` outside ``<...>``."""
    out: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _string_class(s: str) -> str | None:
    """The class a string names (``'Ns\\C'`` in ``'Ns\\C::m'`` or ``['Ns\\C', 'm']``): fully
    qualified as written (PHP resolves a class name in a string at run time, without the
    file's namespace or imports); None when it is not a class name."""
    s = s.strip().lstrip("\\")
    if not s or s.lower() in NOT_CLASSES or not re.fullmatch(r"[A-Za-z_]\w*(\\\w+)*", s):
        return None
    return s

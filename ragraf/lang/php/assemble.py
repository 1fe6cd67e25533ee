"""SQL text as one function builds it (issue 12): the values of string variables.

Code rarely writes a query as one literal. It assigns a start (``$sql = 'SELECT
...'``), appends to it (``$sql .= ' FROM orders o, order_lines l,'``), pushes
conditions onto arrays (``$where[] = 'o.id IN (SELECT ...)'``) that ``implode``
joins, fills ``sprintf`` formats, and interpolates such variables into other
strings. ``Assembler`` reads one scope (a function, method or closure body, or
a file's top level) once and gives the fragments of an expression with those
variables replaced by the text they hold at that point.

Invariants a change must keep:
- Flow-insensitive but ordered: the value of ``$v`` at a position is its last
  plain assignment before that position followed by every ``.=`` / ``[] =``
  after that assignment and before the position, in source order (both arms
  of an ``if`` are appended: the tables of both are named). A variable with no
  plain assignment in the scope (a parameter, a global) stays a run-time part.
- Only strings, concatenations, interpolations, arrays of them, ``implode`` /
  ``join`` and ``sprintf`` / ``vsprintf`` with a literal format are followed;
  anything else is a ``("dyn", php)`` fragment as before.
- Bounded: substitution is ``MAX_DEPTH`` deep and a value stops growing past
  ``MAX_FRAGMENTS`` fragments / ``MAX_CHARS`` characters (the rest is one
  ``("dyn", "…")`` part), so one scope costs time linear in its size.
- Every string node whose text went into an assembled value is recorded in
  ``consumed`` (by start byte): the caller analyses a piece once, as part of
  the statement it ends up in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING

from ragraf.kinds import FragmentKind

if TYPE_CHECKING:
    from tree_sitter import Node, Query

Fragment = tuple[str, str]

MAX_DEPTH = 4
MAX_FRAGMENTS = 400
MAX_CHARS = 50_000
#: characters of a run-time part's PHP source kept in a fragment (as ``strings.MAX_SQL_DYN``)
MAX_DYN = 120
_FUNCTION_LIKE = frozenset(
    {
        "function_definition",
        "method_declaration",
        "anonymous_function",
        "arrow_function",
        "class_declaration",
        "interface_declaration",
        "trait_declaration",
        "enum_declaration",
        "anonymous_class",
    }
)
_STRINGS = frozenset({"string", "encapsed_string", "heredoc", "nowdoc"})
_SIMPLE_VAR = re.compile(r"^\$[A-Za-z_]\w*$")
# sprintf conversions: %s / %1$s / %d / %05.2f / %%
_CONVERSION = re.compile(r"%(?:(\d+)\$)?[-+ 0]*(?:'.)?\d*(?:\.\d+)?([bcdeEfFgGosuxX%])")


class Write(StrEnum):
    """How an event of a variable's history writes it."""

    SET = "set"  # $v = 'text'
    ARRAY = "array"  # $v = [...]
    APPEND = "append"  # $v .= 'text'
    PUSH = "push"  # $v[] = 'text'


#: one write of a variable: (position, how, value node)
Event = tuple[int, Write, "Node"]


@cache
def _assignments_query() -> Query:
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    return Query(
        get_language("php"),
        "(assignment_expression) @a (augmented_assignment_expression) @a",
    )


def function_like(n: Node) -> bool:
    return n.type in _FUNCTION_LIKE


def scope_of(n: Node) -> Node:
    """The innermost function-like node around ``n`` (the root when there is none)."""
    p = n.parent
    last = n
    while p is not None:
        if p.type in _FUNCTION_LIKE:
            return p
        last = p
        p = p.parent
    return last


class Assembler:
    """The string variables of one scope and the fragments of expressions in it."""

    def __init__(
        self,
        scope: Node,
        text: Callable[[Node], str],
        literal: Callable[[Node], list[Fragment]],
    ) -> None:
        self.text = text
        self.literal = literal  # a string node -> its decoded fragments
        self.scope = scope
        self._events: dict[str, list[Event]] | None = None  # read on first use
        self.consumed: set[int] = set()
        self._log: list[int] = []  # consumed in order, for rollback()

    @property
    def events(self) -> dict[str, list[Event]]:
        """Assignments of the scope's variables, by name, in source order (the scope is
        read the first time a variable's value is asked for: most SQL needs none)."""
        if self._events is None:
            self._events = {}
            self._scan(self.scope)
        return self._events

    def checkpoint(self) -> int:
        return len(self._log)

    def rollback(self, mark: int) -> None:
        """Forget what was consumed since ``checkpoint()`` returned ``mark``."""
        for b in self._log[mark:]:
            self.consumed.discard(b)
        del self._log[mark:]

    # -- the scope's assignments ----------------------------------------------------
    def _scan(self, scope: Node) -> None:
        """The assignments in the scope, nested functions and classes left out (a tree-sitter
        query finds them: walking every node in Python cost more than the rest)."""
        from tree_sitter import QueryCursor

        body = scope.child_by_field_name("body") if scope.type in _FUNCTION_LIKE else scope
        if body is None:
            return
        caps = QueryCursor(_assignments_query()).captures(body)
        found = sorted((n for nodes in caps.values() for n in nodes), key=lambda n: n.start_byte)
        for n in found:
            if not self._directly_in(n, body):
                continue
            if n.type == "assignment_expression":
                self._assignment(n)
                continue
            op = n.child_by_field_name("operator")
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if op is not None and op.type == ".=" and left is not None and right is not None:
                key = self._key(left)
                if key:
                    self._add(key, (n.start_byte, Write.APPEND, right))

    @staticmethod
    def _directly_in(n: Node, body: Node) -> bool:
        """Whether ``n`` belongs to ``body``'s scope (no function or class in between)."""
        p = n.parent
        while p is not None and p.start_byte >= body.start_byte:
            if p.type in _FUNCTION_LIKE:
                return False
            if p.start_byte == body.start_byte and p.end_byte == body.end_byte:
                return True
            p = p.parent
        return True

    def _assignment(self, n: Node) -> None:
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if left is None or right is None:
            return
        if left.type == "subscript_expression":
            obj = left.named_children[0] if left.named_children else None
            key = self._key(obj) if obj is not None else None
            if key:
                self._add(key, (n.start_byte, Write.PUSH, right))
            return
        key = self._key(left)
        if key:
            kind = Write.ARRAY if right.type == "array_creation_expression" else Write.SET
            self._add(key, (n.start_byte, kind, right))

    def _add(self, key: str, event: Event) -> None:
        assert self._events is not None
        self._events.setdefault(key, []).append(event)

    def _key(self, n: Node) -> str | None:
        if n.type == "variable_name":
            t = self.text(n)
            return t if _SIMPLE_VAR.match(t) else None
        return None

    # -- values ---------------------------------------------------------------------------
    def _history(self, key: str, pos: int) -> list[Event] | None:
        """The events making the value at ``pos``: the last plain assignment and what
        was appended after it."""
        evs = [e for e in self.events.get(key, ()) if e[0] < pos]
        start = next(
            (i for i in range(len(evs) - 1, -1, -1) if evs[i][1] in (Write.SET, Write.ARRAY)), None
        )
        if start is None:
            return None
        return evs[start:]

    def string_value(self, key: str, pos: int, depth: int) -> list[Fragment] | None:
        hist = self._history(key, pos)
        if hist is None or hist[0][1] != Write.SET:
            return None
        out: list[Fragment] = []
        for at, kind, node in hist:
            if kind not in (Write.SET, Write.APPEND):
                return None  # a string variable used as an array: not followed
            out += self.fragments(node, at, depth + 1)
        return out

    def array_value(self, key: str, pos: int, depth: int) -> list[list[Fragment]] | None:
        hist = self._history(key, pos)
        if hist is None or hist[0][1] != Write.ARRAY:
            return None
        items: list[list[Fragment]] = []
        for at, kind, node in hist:
            if kind == Write.ARRAY:
                items += self._array_items(node, at, depth)
            elif kind == Write.PUSH:
                items.append(self.fragments(node, at, depth + 1))
            else:
                return None
        return items

    def _array_items(self, arr: Node, pos: int, depth: int) -> list[list[Fragment]]:
        items = []
        for el in arr.named_children:
            if el.type != "array_element_initializer" or not el.named_children:
                continue
            value = el.named_children[-1]  # `'k' => value` or `value`
            items.append(self.fragments(value, pos, depth + 1))
        return items

    def statement(self, rhs: Node) -> tuple[list[Fragment], Node] | None:
        """When ``rhs`` is assigned to a variable (``$sql = 'SELECT ...'``) that is appended
        to afterwards: the fragments of the whole text built (the assignment and every
        ``.=`` up to the next plain assignment) and the last appended expression."""
        parent = rhs.parent
        if parent is None or parent.type != "assignment_expression":
            return None
        left = parent.child_by_field_name("left")
        key = self._key(left) if left is not None else None
        if not key:
            return None
        evs = self.events.get(key, [])
        i = next(
            (
                j
                for j, e in enumerate(evs)
                if e[1] == Write.SET and e[2].start_byte == rhs.start_byte
            ),
            None,
        )
        if i is None:
            return None
        appends: list[Event] = []
        for e in evs[i + 1 :]:
            if e[1] != Write.APPEND:
                break
            appends.append(e)
        if not appends:
            return None
        out = self.fragments(rhs, parent.start_byte)
        for at, _kind, node in appends:
            out += self.fragments(node, at)
        return _merge(out), appends[-1][2]

    # -- fragments ------------------------------------------------------------------------
    def fragments(self, n: Node, pos: int | None = None, depth: int = 0) -> list[Fragment]:
        """The fragments of expression ``n`` with known variables substituted."""
        at = n.start_byte if pos is None else pos
        out: list[Fragment] = []
        self._frags(n, at, depth, out)
        return _merge(out)

    def _frags(self, n: Node, pos: int, depth: int, out: list[Fragment]) -> None:
        if len(out) > MAX_FRAGMENTS or sum(len(v) for _k, v in out) > MAX_CHARS:
            out.append((FragmentKind.DYN, "…"))
            return
        ty = n.type
        if ty == "binary_expression" and _is_concat(n):
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None:
                self._frags(left, pos, depth, out)
            if right is not None:
                self._frags(right, pos, depth, out)
            return
        if ty == "parenthesized_expression" and n.named_child_count == 1:
            inner = n.named_children[0]
            if inner.type in _STRINGS or (inner.type == "binary_expression" and _is_concat(inner)):
                self._frags(inner, pos, depth, out)
                return
        if ty == "comment":
            return
        if ty in _STRINGS:
            if n.start_byte not in self.consumed:
                self.consumed.add(n.start_byte)
                self._log.append(n.start_byte)
            for k, v in self.literal(n):
                if k == FragmentKind.DYN and depth < MAX_DEPTH:
                    sub = self._var(_norm(v), pos, depth)
                    if sub is not None:
                        out += sub
                        continue
                out.append((k, v))
            return
        if ty == "variable_name" and depth < MAX_DEPTH:
            sub = self._var(self.text(n), pos, depth)
            if sub is not None:
                out += sub
                return
        if ty == "function_call_expression" and depth < MAX_DEPTH:
            sub = self._call(n, pos, depth)
            if sub is not None:
                out += sub
                return
        out.append((FragmentKind.DYN, self.text(n)[:MAX_DYN]))

    def _var(self, name: str, pos: int, depth: int) -> list[Fragment] | None:
        if not _SIMPLE_VAR.match(name):
            return None
        return self.string_value(name, pos, depth)

    def _call(self, n: Node, pos: int, depth: int) -> list[Fragment] | None:
        fn = n.child_by_field_name("function")
        name = self.text(fn).lower().lstrip("\\") if fn is not None else ""
        args = _args(n)
        if name in ("implode", "join") and args:
            glue_node, arr_node = (args[0], args[1]) if len(args) > 1 else (None, args[0])
            if glue_node is not None and glue_node.type == "array_creation_expression":
                glue_node, arr_node = arr_node, glue_node  # implode($array, $glue): PHP < 8
            items = self._items(arr_node, pos, depth)
            if items is None:
                return None
            glue = self.fragments(glue_node, pos, depth + 1) if glue_node is not None else []
            out: list[Fragment] = []
            for i, item in enumerate(items):
                if i:
                    out += glue
                out += item
            return out
        if name in ("sprintf", "vsprintf") and args:
            fmt = self.fragments(args[0], pos, depth + 1)
            if any(k != FragmentKind.LIT for k, _v in fmt):
                return None
            if name == "sprintf":
                values: list[list[Fragment]] | None = [
                    self.fragments(a, pos, depth + 1) for a in args[1:]
                ]
            else:
                values = self._items(args[1], pos, depth) if len(args) > 1 else None
            if values is None:
                return None
            return _format("".join(v for _k, v in fmt), values)
        return None

    def _items(self, n: Node, pos: int, depth: int) -> list[list[Fragment]] | None:
        if n.type == "array_creation_expression":
            return self._array_items(n, pos, depth)
        if n.type == "variable_name":
            return self.array_value(self.text(n), pos, depth + 1)
        return None


def _format(fmt: str, values: list[list[Fragment]]) -> list[Fragment]:
    """A sprintf format with its ``%s`` conversions replaced by the arguments' fragments;
    numeric conversions (``%d``...) stay as written (sqltext reads them as values)."""
    out: list[Fragment] = []
    cur = 0
    nxt = 0
    for m in _CONVERSION.finditer(fmt):
        out.append((FragmentKind.LIT, fmt[cur : m.start()]))
        cur = m.end()
        conv = m.group(2)
        if conv == "%":
            out.append((FragmentKind.LIT, "%"))
            continue
        idx = int(m.group(1)) - 1 if m.group(1) else nxt
        if not m.group(1):
            nxt += 1
        if conv == "s" and 0 <= idx < len(values):
            out += values[idx]
        elif conv == "s":
            out.append((FragmentKind.DYN, m.group(0)))
        else:
            out.append((FragmentKind.LIT, "%d"))
    out.append((FragmentKind.LIT, fmt[cur:]))
    return _merge(out)


def call_args(call: Node) -> list[Node]:
    """The argument expressions of a call."""
    return _args(call)


def _args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    out = []
    for a in args.named_children:
        if a.type == "argument" and a.named_children:
            out.append(a.named_children[-1])
    return out


def _norm(text: str) -> str:
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        return t[1:-1].strip()
    if t.startswith("${") and t.endswith("}"):
        return "$" + t[2:-1].strip()
    return t


def _merge(frags: list[Fragment]) -> list[Fragment]:
    merged: list[Fragment] = []
    for k, v in frags:
        if k == FragmentKind.LIT and merged and merged[-1][0] == FragmentKind.LIT:
            merged[-1] = (FragmentKind.LIT, merged[-1][1] + v)
        elif k != FragmentKind.LIT or v:
            merged.append((k, v))
    return merged


def _is_concat(n: Node) -> bool:
    op = n.child_by_field_name("operator")
    return op is not None and op.type == "."

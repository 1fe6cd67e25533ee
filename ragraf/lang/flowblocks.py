"""The statement and expression walk Go and Java share for the data-flow layer (issue 42):
block-structured languages with labelled ``break`` / ``continue``, ``switch`` cases,
3-clause loops and closures that capture their enclosing function's variables without
saying so. A language's builder (``ragraf.lang.go.flow``, ``ragraf.lang.java.flow``)
subclasses ``BlockBuilder`` with its node types and its expression handlers.

Invariants a change must keep (besides ``ragraf.lang.flowcore``'s):
- ``expr`` walks iteratively (an explicit stack) with one handler per node type
  (``HANDLERS``); an identifier (``IDENT``) is a use of what ``name`` makes of it (None:
  not a variable: a package, a class, the receiver); a node with no handler is walked
  into unless it is a leaf (``LEAVES``: literals, types).
- Each unit has a ``Scope``: the local names declared so far (parameters, locals,
  captured variables), which decide what a closure captures and what a bare name is.
- A closure (Go's func literal, Java's lambda and anonymous class methods) is a unit of
  its own; it captures the enclosing unit's locals its body names (uses of the creating
  statement, definitions of its entry, a ``capture`` link); a captured variable the
  body assigns is also a weak definition of the creating statement (the write is seen
  by what follows, as Go's and Java's closures share the variable or its object).
- A call of a method that changes its object (``mutates``: ``sb.append(x)``) is a weak
  definition of the variable it is called on.
- ``break`` jumps to the innermost loop or switch (or the one its label names),
  ``continue`` to the innermost loop (or the labelled one); a 3-clause loop's update
  is a statement of its own run after the body and before the condition again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragraf.kinds import StmtKind, UnitKind
from ragraf.lang.flowcore import Loop, Stmt, Unit, UnitBuilder

if TYPE_CHECKING:
    from tree_sitter import Node

Handler = Callable[[Any, Unit, "Node", Stmt, list["Node"]], None]

_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
#: a plain name assigned (not declared with ``:=``, not compared with ``==``)
_WRITE = re.compile(
    rb"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+*/%&|^]|<<|>>|&\^)?=(?!=)|"
    rb"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)"
)

#: the words a method that changes its object starts with (``sb.append(x)``,
#: ``list.add(x)``, ``h.Set(k, v)``, ``buf.WriteString(s)``, a parser or flag set that
#: takes the arguments it then answers from: ``parser.parse(args)``, ``fs.Parse(args)``,
#: as Bazel's ``OptionsParser`` and Go's ``flag.FlagSet``): such a call is a weak
#: definition of the variable it is called on
MUTATORS = (
    "add",
    "append",
    "put",
    "set",
    "remove",
    "clear",
    "insert",
    "push",
    "pop",
    "offer",
    "poll",
    "write",
    "print",
    "sort",
    "reset",
    "del",
    "update",
    "merge",
    "retain",
    "fill",
    "truncate",
    "grow",
    "parse",
)


_MUTATES: dict[str, bool] = {}


def mutates(name: str) -> bool:
    """Whether a method of this name changes its object: a ``MUTATORS`` word, alone or
    followed by a capital (``addAll``, ``WriteString``; not ``address``, ``settings``)."""
    got = _MUTATES.get(name)
    if got is None:
        low = name[:1].lower() + name[1:]
        got = _MUTATES[name] = any(
            low.startswith(w) and (len(low) == len(w) or not low[len(w)].islower())
            for w in MUTATORS
        )
    return got


class Scope:
    """What one unit knows of its names: locals (parameters, declared and captured
    variables) and the per-language facts its walk keeps (``extra``)."""

    __slots__ = ("locals", "cls", "extra")

    def __init__(self, cls: int) -> None:
        self.locals: set[str] = set()
        self.cls = cls
        self.extra: dict[str, Any] = {}


class Target:
    """A ``break`` / ``continue`` target: a loop or a switch, with its label."""

    __slots__ = ("loop", "label", "is_loop")

    def __init__(self, loop: Loop, label: str | None, is_loop: bool) -> None:
        self.loop = loop
        self.label = label
        self.is_loop = is_loop


class BlockBuilder(UnitBuilder):
    """Shared control flow and expression walk of Go and Java (see the module docstring)."""

    #: the identifier node type (a variable when ``name`` says so)
    IDENT = "identifier"
    IDENTS = frozenset({IDENT})
    #: an element write (``a[i] = v``: ``target``)
    ELEMENT = "index_expression"

    def __init__(self, src: bytes, decl_at: dict[int, int]) -> None:
        super().__init__(src, decl_at)
        self.scopes: dict[int, Scope] = {0: Scope(-1)}
        self.targets: dict[int, list[Target]] = {}
        #: the label of the statement being walked (``L: for ...``)
        self.label: str | None = None

    # -- names --------------------------------------------------------------------------------
    def scope(self, u: Unit) -> Scope:
        return self.scopes[u.index]

    def name(self, u: Unit, n: Node) -> str | None:
        """The variable an identifier is a use of (None: not a variable)."""
        return self.t(n)

    def declare(self, u: Unit, name: str, s: Stmt) -> None:
        """``name`` is a new local defined by ``s``."""
        if name and name != "_":
            self.scopes[u.index].locals.add(name)
            s.defs.append(name)

    # -- expressions --------------------------------------------------------------------------
    def target(self, u: Unit, n: Node, s: Stmt, *, also_use: bool) -> None:
        """``n`` is written: a name or a field (``target_var``; a name that is none is left
        alone), else an element or what a pointer points to: a weak definition of its base
        variable, its index and operand chain read."""
        v = self.target_var(u, n)
        if v is not None:
            if also_use:
                s.uses.append(v)
            s.defs.append(v)
            return
        t = n.type
        if t == self.IDENT:
            return
        if t == "parenthesized_expression" and n.named_child_count:
            self.target(u, n.named_children[0], s, also_use=also_use)
            return
        base = self.base_var(u, n)
        if t == self.ELEMENT:
            self.expr(u, n.child_by_field_name("index"), s)
        if base is not None:
            if also_use:
                s.uses.append(base)
            s.weak.append(base)
        else:
            self.expr(u, n, s)

    def target_var(self, u: Unit, n: Node) -> str | None:
        """The variable a written name or field of the receiver is, or None."""
        raise NotImplementedError

    def base_var(self, u: Unit, n: Node | None) -> str | None:
        """The variable an element, field or dereference written through belongs to."""
        raise NotImplementedError

    def args(self, u: Unit, args: Node | None, s: Stmt) -> list[list[str]]:
        """The variables of each argument (their uses go into ``s``)."""
        out: list[list[str]] = []
        if args is None:
            return out
        uses, leaves = s.uses, self.LEAVES
        for a in args.named_children:
            t = a.type
            if t in leaves:  # a literal: no variable (a comment: no argument)
                if not t.endswith("comment"):
                    out.append([])
                continue
            before = len(uses)
            self.expr(u, a, s)
            out.append(sorted(set(uses[before:])) if len(uses) > before else [])
        return out

    def stmt_index(self, u: Unit, s: Stmt) -> int:
        si = len(u.stmts) - 1
        if u.stmts[si] is not s:
            si = next((i for i, x in enumerate(u.stmts) if x is s), si)
        return si

    def closure(
        self, u: Unit, fn: Node, body: Node | None, own: set[str], s: Stmt, node: int | None = None
    ) -> None:
        """``fn`` is a closure created by ``s``: a unit of its own (walked later) capturing
        the locals of ``u`` its body names (``own``: its parameters)."""
        sc = self.scopes[u.index]
        names, written = self.free_names(body) if body is not None else (set(), set())
        captured = sorted(v for v in names if v in sc.locals and v not in own)
        for v in captured:
            s.uses.append(v)
            if v in written:
                s.weak.append(v)
        origin = (u.index, self.stmt_index(u, s))
        if node is None:
            self.pending.append((fn, u.node, UnitKind.CLOSURE, sc.cls, captured, origin))
        else:
            self.pending.append((fn, node, UnitKind.METHOD, sc.cls, captured, origin))

    def free_names(self, body: Node) -> tuple[set[str], set[str]]:
        """The names a body's text holds and those it assigns (``x = ``, ``x += ``,
        ``x++``), read off the text (a name in a string or a member name counts too: a
        capture too many, never one too few)."""
        text = self.src[body.start_byte : body.end_byte]
        names = {m.decode("utf-8", "replace") for m in _NAME.findall(text)}
        written = {
            (m.group(1) or m.group(2)).decode("utf-8", "replace") for m in _WRITE.finditer(text)
        }
        return names, written

    # -- control flow ------------------------------------------------------------------------
    def take_label(self) -> str | None:
        label, self.label = self.label, None
        return label

    def push_target(self, u: Unit, h: int, is_loop: bool) -> Target:
        tg = Target(Loop(h), self.take_label(), is_loop)
        self.targets.setdefault(u.index, []).append(tg)
        u.loops.append(tg.loop)
        return tg

    def pop_target(self, u: Unit) -> None:
        self.targets[u.index].pop()
        u.loops.pop()

    def jump(self, u: Unit, n: Node, kind: str, label: str | None, preds: list[int]) -> list[int]:
        """``break`` / ``continue`` (to ``label`` when given): no statement follows it."""
        i = self.new(u, n, kind, preds)
        for tg in reversed(self.targets.get(u.index, [])):
            if label is not None and tg.label != label:
                continue
            if kind == StmtKind.CONTINUE and not tg.is_loop:
                continue
            (tg.loop.conts if kind == StmtKind.CONTINUE else tg.loop.breaks).append(i)
            break
        return []

    def loop_body(
        self,
        u: Unit,
        h: int,
        body: Node | None,
        update: Callable[[list[int]], list[int]] | None = None,
        exits: bool = True,
    ) -> list[int]:
        """A loop's body after header ``h``; ``update`` (a 3-clause loop's) runs after the body
        and each ``continue``. Control leaves from the header (unless it has no condition:
        ``exits`` false) and each ``break``."""
        tg = self.push_target(u, h, True)
        end = self.body(u, body, [h], h)
        self.pop_target(u)
        back = end + tg.loop.conts
        if update is not None:
            u.ctrl.append(h)
            back = update(back)
            u.ctrl.pop()
        for p in back:
            u.succ.append((p, h))
        return ([h] if exits else []) + tg.loop.breaks

    def if_chain(
        self,
        u: Unit,
        n: Node,
        preds: list[int],
        init: Callable[[Unit, Node, list[int]], list[int]],
    ) -> list[int]:
        """``if`` / ``else if`` / ``else``: an ``else if`` is an ``elseif`` statement controlled
        by the header before it; ``init`` walks an ``if``'s init statement (Go's) first."""
        out: list[int] = []
        cur: Node | None = n
        kind = StmtKind.IF
        last = -1
        while cur is not None:
            if last >= 0:
                u.ctrl.append(last)
            preds = init(u, cur, preds)
            cond = cur.child_by_field_name("condition")
            h = self.new(u, cur, kind, preds, cond)
            if last >= 0:
                u.ctrl.pop()
            self.expr(u, cond, u.stmts[h])
            out += self.body(u, cur.child_by_field_name("consequence"), [h], h)
            alt = cur.child_by_field_name("alternative")
            if alt is None:
                out.append(h)
                cur = None
            elif alt.type == n.type:
                cur, kind, last, preds = alt, StmtKind.ELSEIF, h, [h]
            else:
                out += self.body(u, alt, [h], h)
                cur = None
        return out

    def cases(
        self,
        u: Unit,
        h: int,
        arms: list[tuple[Node, list[Node], list[Node], bool, bool]],
    ) -> list[int]:
        """The arms of a switch after header ``h``: (node, values, statements, is default,
        falls into the next). Control leaves from each arm's end (unless it falls through),
        each ``break`` and, without a default arm, the header."""
        self.push_target(u, h, False)
        tg = self.targets[u.index][-1]
        fall: list[int] = []
        out: list[int] = []
        has_default = False
        u.ctrl.append(h)
        for node, values, stmts, is_default, falls in arms:
            has_default = has_default or is_default
            k = self.new(
                u,
                node,
                StmtKind.DEFAULT if is_default else StmtKind.CASE,
                [h, *fall],
                values[-1] if values else None,
            )
            if not values:
                u.stmts[k].end_line = u.stmts[k].line
            for v in values:
                self.expr(u, v, u.stmts[k])
            self.arm_defs(u, node, u.stmts[k])
            u.ctrl.append(k)
            end = self.seq(u, stmts, [k])
            u.ctrl.pop()
            if falls:
                fall = end
            else:
                fall = []
                out += end
        u.ctrl.pop()
        self.pop_target(u)
        out += fall + tg.loop.breaks
        if not has_default:
            out.append(h)
        return out

    def arm_defs(self, u: Unit, arm: Node, s: Stmt) -> None:
        """What a switch arm defines (Go's ``case v := <-ch``); nothing by default."""
        return

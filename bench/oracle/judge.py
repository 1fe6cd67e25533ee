"""Judging one call edge (call site ``path:line`` -> target declaration) with the oracle.

- A method target is **correct** when a call of that method name on the line has a receiver the
  oracle types, and the target is among the corpus methods that receiver may run (its class's
  dispatch including inherited and trait methods, ``__call``, the interface / abstract
  declaration it binds to, and for a value that may be of a subclass, the subclasses'
  overrides). **Wrong** when the oracle knows the receiver's class(es) completely and the
  target is none of them (a builtin or vendor receiver runs no corpus method at all).
- A function target (several declarations of one name) is correct when its file is loaded
  together with the caller's file in some request (the include closures of the entry files),
  wrong when another declaration is and this one never is.
- Anything else is **unknown**: the oracle says so rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from bench.oracle.corpus import Corpus, MethodDecl, Unit, key, text
from bench.oracle.infer import NONE, UNKNOWN, Ty, Typer, obj

CORRECT, WRONG, UNKNOWN_V = "correct", "wrong", "unknown"
MEMBER_CALLS = ("member_call_expression", "nullsafe_member_call_expression")
DYNAMIC = (
    "call_user_func",
    "call_user_func_array",
    "forward_static_call",
    "forward_static_call_array",
)


@dataclass(frozen=True)
class Target:
    """A ragraf target node: ``kind`` method | function, its fqn and declaration path."""

    kind: str
    fqn: str
    path: str | None

    @property
    def ident(self) -> tuple[str, str | None]:
        return (self.fqn.lower(), self.path)

    @property
    def short(self) -> str:
        return self.fqn.rsplit("::", 1)[-1].rsplit("\\", 1)[-1].lower()


@dataclass
class Verdict:
    verdict: str
    reason: str
    receiver: list[str] = field(default_factory=list)


def calls_on_line(unit: Unit, line: int) -> list[Node]:
    """Call-like nodes whose name (or start) is on ``line`` (1-based), outermost first."""
    row = line - 1
    out: list[Node] = []
    todo = [unit.tree.root_node]
    while todo:
        n = todo.pop()
        if n.start_point[0] > row or n.end_point[0] < row:
            continue
        t = n.type
        if t in (*MEMBER_CALLS, "scoped_call_expression"):
            name = n.child_by_field_name("name")
            if name is not None and name.start_point[0] == row:
                out.append(n)
        elif t in ("function_call_expression", "object_creation_expression"):
            if n.start_point[0] == row or any(
                c.start_point[0] == row and c.type in ("name", "qualified_name") for c in n.children
            ):
                out.append(n)
        todo.extend(reversed(n.children))
    return out


class Judge:
    def __init__(self, corpus: Corpus, typer: Typer | None = None) -> None:
        self.c = corpus
        self.t = typer or Typer(corpus)

    def judge(self, path: str, line: int, target: Target) -> Verdict:
        unit = self.c.units.get(path)
        if unit is None:
            return Verdict(UNKNOWN_V, "the oracle did not parse the caller's file")
        nodes = calls_on_line(unit, line)
        if target.kind == "function":
            return self._function(unit, nodes, target)
        return self._method(unit, nodes, target)

    # -- methods ------------------------------------------------------------------
    def _method(self, unit: Unit, nodes: list[Node], target: Target) -> Verdict:
        m = target.short
        named = [
            n
            for n in nodes
            if n.type in (*MEMBER_CALLS, "scoped_call_expression")
            and text(n.child_by_field_name("name")).lower() == m
        ]
        if m == "__construct":
            named += [n for n in nodes if n.type == "object_creation_expression"]
        if not named and m in ("__call", "__callstatic"):
            kinds = MEMBER_CALLS if m == "__call" else ("scoped_call_expression",)
            named = [n for n in nodes if n.type in kinds]
        verdicts = [self._method_call(unit, n, target) for n in named]
        if not named:
            verdicts = [self._callable(unit, n, target) for n in nodes if self._is_dynamic(n)]
        if not verdicts:
            return Verdict(UNKNOWN_V, "no call of that name on the line")
        return _combine(verdicts)

    def receiver(self, unit: Unit, n: Node) -> tuple[Ty, bool, str]:
        """The receiver type of a call node, whether it may be a subclass, and the method name."""
        ctx = self.t.ctx_at(unit, n)
        if n.type in MEMBER_CALLS:
            recv = self.t.type_of(n.child_by_field_name("object"), ctx)
            return recv, False, text(n.child_by_field_name("name")).lower()
        if n.type == "scoped_call_expression":
            recv = self.t.scope_ty(n.child_by_field_name("scope"), ctx)
            return recv, True, text(n.child_by_field_name("name")).lower()
        if n.type == "object_creation_expression":
            return self.t.type_of(n, ctx), False, "__construct"
        return UNKNOWN, False, ""

    def possible(self, recv: Ty, lname: str, static: bool) -> set[MethodDecl]:
        out: set[MethodDecl] = set()
        for k, open_ in recv.objs:
            out |= self.c.targets(k, lname, open_=open_, static=False)
            if static:
                out |= self.c.targets(k, lname, open_=open_, static=True)
        return out

    def _method_call(self, unit: Unit, n: Node, target: Target) -> Verdict:
        recv, static, lname = self.receiver(unit, n)
        names = recv.names(self.c)
        poss = self.possible(recv, lname, static)
        idents = {m.ident for m in poss}
        if target.ident in idents or (
            target.path is None and target.fqn.lower() in {i[0] for i in idents}
        ):
            return Verdict(CORRECT, "the receiver's class runs this method", names)
        if recv.unknown or not recv.objs:
            return Verdict(
                UNKNOWN_V,
                "receiver type unknown" if recv.unknown or recv == NONE else "no object type",
                names,
            )
        if not poss:
            where = (
                "outside the corpus (builtin or vendor)"
                if all(not self.c.decls(k) for k, _ in recv.objs)
                else "not in the corpus chain (vendor parent, __get or missing)"
            )
            return Verdict(WRONG, f"the receiver runs a method {where}", names)
        ran = sorted(m.fqn for m in poss)
        return Verdict(
            WRONG,
            "the receiver runs " + ", ".join(ran[:3]) + (" ..." if len(ran) > 3 else ""),
            names,
        )

    @staticmethod
    def _is_dynamic(n: Node) -> bool:
        if n.type != "function_call_expression":
            return False
        fn = n.child_by_field_name("function")
        return fn is not None and (
            text(fn).lower().lstrip("\\") in DYNAMIC or fn.type == "variable_name"
        )

    def _callable(self, unit: Unit, n: Node, target: Target) -> Verdict:
        """``call_user_func([$obj, 'm'])``, ``call_user_func('C::m')``: judge the method named."""
        fn = n.child_by_field_name("function")
        if fn is None or fn.type == "variable_name":
            return Verdict(UNKNOWN_V, "variable function")
        args = n.child_by_field_name("arguments")
        vals = [
            a.named_children[0] for a in (args.named_children if args else []) if a.named_children
        ]
        if not vals:
            return Verdict(UNKNOWN_V, "callable not readable")
        cb = vals[0]
        ctx = self.t.ctx_at(unit, n)
        recv: Ty = UNKNOWN
        lname = ""
        if cb.type == "array_creation_expression":
            els = [e.named_children[0] for e in cb.named_children if e.named_children]
            if len(els) == 2 and els[1].type == "string" and els[1].named_children:
                lname = text(els[1].named_children[0]).lower()
                cs = self.t._class_string(els[0], ctx)
                recv = obj(cs, False) if cs else self.t.type_of(els[0], ctx)
        elif cb.type == "string" and cb.named_children and "::" in text(cb.named_children[0]):
            cname, _, meth = text(cb.named_children[0]).partition("::")
            recv = obj(key(unit.region_at(n.start_byte).resolve_class(cname)), False)
            lname = meth.lower()
        if not lname:
            return Verdict(UNKNOWN_V, "callable not readable")
        poss = self.possible(recv, lname, True)
        names = recv.names(self.c)
        if target.ident in {m.ident for m in poss}:
            return Verdict(CORRECT, "the callable's class runs this method", names)
        if recv.unknown or not recv.objs:
            return Verdict(UNKNOWN_V, "callable receiver unknown", names)
        return Verdict(WRONG, "the callable names another method", names)

    # -- functions ------------------------------------------------------------------
    def _function(self, unit: Unit, nodes: list[Node], target: Target) -> Verdict:
        want = target.short
        verdicts = []
        for n in nodes:
            if n.type != "function_call_expression":
                continue
            fn = n.child_by_field_name("function")
            if fn is None:
                continue
            name = text(fn)
            if fn.type in ("name", "qualified_name", "relative_name"):
                if name.rsplit("\\", 1)[-1].lower() == want:
                    verdicts.append(self._function_call(unit, n, name, target))
            elif self._is_dynamic(n):
                args = n.child_by_field_name("arguments")
                vals = [
                    a.named_children[0]
                    for a in (args.named_children if args else [])
                    if a.named_children
                ]
                if vals and vals[0].type == "string" and vals[0].named_children:
                    s = text(vals[0].named_children[0])
                    if s.rsplit("\\", 1)[-1].lower() == want:
                        verdicts.append(self._function_call(unit, n, "\\" + s.lstrip("\\"), target))
        if not verdicts:
            return Verdict(UNKNOWN_V, "no call of that function on the line")
        return _combine(verdicts)

    def _function_call(self, unit: Unit, n: Node, name: str, target: Target) -> Verdict:
        decls = []
        for cand in unit.region_at(n.start_byte).function_candidates(name):
            decls = self.c.functions.get(key(cand), [])
            if decls:
                break
        if not decls:
            return Verdict(UNKNOWN_V, "the oracle knows no declaration of the function")
        if target.fqn.lower() != decls[0].fqn.lower():
            return Verdict(WRONG, f"the call reaches {decls[0].fqn}, not {target.fqn}")
        if len(decls) == 1:
            return Verdict(CORRECT, "the only declaration")
        possible, seen = self.c.function_callees(unit.path, decls)
        paths = sorted({d.unit.path for d in possible})
        if target.ident in {d.ident for d in possible}:
            return Verdict(CORRECT, "declared in a file loaded with the caller", paths)
        if seen:
            return Verdict(
                WRONG, "every request loading the caller runs another declaration", paths
            )
        return Verdict(UNKNOWN_V, "no request the oracle knows loads the caller and a declaration")


def _combine(vs: list[Verdict]) -> Verdict:
    """Several calls of the name on one line: correct if any is, wrong only if all are."""
    for v in vs:
        if v.verdict == CORRECT:
            return v
    if all(v.verdict == WRONG for v in vs):
        return vs[0]
    return next(v for v in vs if v.verdict == UNKNOWN_V)

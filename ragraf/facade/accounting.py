"""Call-site accounting: what an answer about a function or method could not attach.

``callers``, ``references`` and ``impact`` list the call sites the index attached to
a declaration. Without more, "no callers" would also be what an agent reads when the
call sites exist and the resolver could not decide; so every such answer says, for
the same name, what else there is:

- ``unresolved``: call sites of that name attached to no declaration, with the reason
  (``ragraf.kinds.Unresolved``: too many candidates, a dynamic name, a member no
  class declares), listed with their line (up to ``LISTED``);
- ``external``: call sites of that name proven to call a builtin or vendor class's
  method (counted by class): they are not calls of the target;
- ``elsewhere``: call lines of that name attached to other corpus declarations;
- ``dynamic``: call sites whose callee is computed at run time (``$fn()``,
  ``call_user_func($cb)``, ``$obj->$m()``) and whose name is not known, or known only as a
  pattern (``upgrade_to_*``) that matches the target's name, which may reach it: a
  function's by any callable, a method's also by a dynamic method call on a receiver of
  its class's hierarchy or of a type not known (listed up to ``LISTED``; a brief answer,
  ``brief.DYNAMIC_LISTED``).

Invariants a change must keep:
- For a target with name ``m``, every line with a call of ``m`` in the corpus is in
  exactly one of: attached to the target (the answer's own sites), ``unresolved``,
  ``external``, ``elsewhere`` (counted by line; a plain function call of a name no
  corpus function has is not a call of ``m``). ``dynamic`` sites name no ``m`` (no grep
  finds them): they are counted apart, never in ``total``.
- Nothing here is new knowledge: it is read from the index (``unresolved_call``,
  the edges), and a listed site's file is touched like any other evidence, so a
  changed file warns.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.kinds import CALL_EDGES, CallKind, EdgeKind, NodeKind, Unresolved
from ragraf.lang.facts import UNKNOWN_NAME
from ragraf.limits import HIERARCHY_DEPTH
from ragraf.model import NodeRow, UnresolvedRow

#: unresolved call sites listed per answer (all are counted)
LISTED = 20
#: external classes named per answer (all are counted)
EXTERNAL_CLASSES = 10
_FORMS: tuple[tuple[NodeKind, tuple[CallKind, ...]], ...] = (
    (NodeKind.FUNCTION, (CallKind.FUNCTION,)),
    (NodeKind.METHOD, (CallKind.METHOD, CallKind.STATIC)),
)


def call_accounting(
    ctx: Ctx,
    targets: list[NodeRow],
    attached: set[tuple[str, int]],
    dynamic_listed: int = LISTED,
) -> dict[str, Any] | None:
    """The same-name call sites of these targets outside ``attached`` (the (path, line)
    of the call edges the answer shows), or None when no target is a function or method;
    ``dynamic_listed``: the most dynamic sites listed (a brief answer lists fewer)."""
    ids = {t.node_id for t in targets}
    rows: list[UnresolvedRow] = []
    elsewhere: set[tuple[str, int]] = set()
    names: set[str] = set()
    for node_kind, call_kinds in _FORMS:
        mine = {t.name.lower() for t in targets if t.kind == node_kind and t.name}
        if not mine:
            continue
        names |= mine
        rows += ctx.graph.unresolved_calls(ctx.rev, mine, call_kinds)
        for dst, path, line in ctx.graph.call_sites_of_name(
            ctx.rev, mine, CALL_EDGES, (node_kind,)
        ):
            if dst not in ids and path is not None and line is not None:
                elsewhere.add((path, line))
    if not names:
        return None
    external = [r for r in rows if r.reason == Unresolved.EXTERNAL_TYPE]
    open_ = [r for r in rows if r.reason != Unresolved.EXTERNAL_TYPE]
    shown = open_[:LISTED]
    callers = ctx.graph.nodes_by_ids(ctx.rev, [r.src for r in shown])
    sites = [_site(ctx, r, callers.get(r.src)) for r in shown]
    by_class = Counter(r.detail or "?" for r in external)
    dynamic = _dynamic(ctx, targets, attached, dynamic_listed)
    out = {
        "total": len(open_),
        "by_reason": dict(sorted(Counter(r.reason for r in open_).items())),
        "sites": sites,
        "external": {
            "total": len(external),
            "by_class": dict(by_class.most_common(EXTERNAL_CLASSES)),
        },
        "elsewhere": len(elsewhere - attached),
        "dynamic": dynamic,
    }
    if open_:
        listed = f", the first {LISTED} listed" if len(open_) > LISTED else ""
        shown_names = ", ".join(f"{n}()" for n in sorted(names))
        ctx.limits.append(
            f"{ctx.op}: {len(open_)} call sites of {shown_names} were not attached to any"
            f" declaration (result.unresolved{listed}): they may call this one"
        )
    if dynamic["total"]:
        listed = f", the first {dynamic_listed} listed" if dynamic["total"] > dynamic_listed else ""
        if dynamic_listed < min(LISTED, dynamic["total"]):
            listed += f"; detail: full lists {min(LISTED, dynamic['total'])}"
        ctx.limits.append(
            f"{ctx.op}: {dynamic['total']} call sites whose callee is computed at run time"
            f" (its name not known, or a pattern it matches) may call it"
            f" (result.unresolved.dynamic{listed})"
        )
    return out


def _site(ctx: Ctx, r: UnresolvedRow, src: NodeRow | None) -> dict[str, Any]:
    ctx.touch(r.path)
    return {
        "evidence": f"{r.path}:{r.line}",
        "path": r.path,
        "line": r.line,
        "name": r.name,
        "form": r.kind,
        "reason": r.reason,
        "detail": sanitize.name(r.detail),
        "from": sanitize.name(src.fqn or src.name) if src else None,
        "text": ctx.line_text(r.path, r.line),
    }


def _dynamic(
    ctx: Ctx, targets: list[NodeRow], attached: set[tuple[str, int]], listed: int
) -> dict[str, Any]:
    """The call sites with a computed callee that may reach the targets (see the module
    docstring), outside ``attached``: their count by form and the first ``listed``."""
    functions = [t for t in targets if t.kind == NodeKind.FUNCTION]
    methods = [t for t in targets if t.kind == NodeKind.METHOD]
    rows: list[UnresolvedRow] = []
    if functions or methods:
        kinds = (
            (CallKind.FUNCTION, CallKind.METHOD, CallKind.STATIC)
            if methods
            else (CallKind.FUNCTION,)
        )
        rows = ctx.graph.dynamic_calls(ctx.rev, kinds)
    fnames = {(t.fqn or t.name or "").lower() for t in functions}
    mnames = {(t.name or "").lower() for t in methods}
    hierarchy = _hierarchy(ctx, methods) if methods else set()
    kept = []
    for r in rows:
        if (r.path, r.line) in attached:
            continue
        if r.kind == CallKind.FUNCTION:
            ok = r.name == UNKNOWN_NAME or any(_matches(r.name, n) for n in fnames)
        else:
            ok = (r.name == UNKNOWN_NAME or any(_matches(r.name, n) for n in mnames)) and (
                r.detail is None or r.detail == "callable" or r.detail.lower() in hierarchy
            )
        if ok:
            kept.append(r)
    srcs = ctx.graph.nodes_by_ids(ctx.rev, [r.src for r in kept[:listed]])
    return {
        "total": len(kept),
        "by_form": dict(sorted(Counter(r.kind for r in kept).items())),
        "sites": [_site(ctx, r, srcs.get(r.src)) for r in kept[:listed]],
    }


def _matches(pattern: str, name: str) -> bool:
    """Whether a name pattern (``*`` one character or more) matches a lower-case name."""
    return re.fullmatch(".+".join(re.escape(p) for p in pattern.split("*")), name, re.S) is not None


def _hierarchy(ctx: Ctx, methods: list[NodeRow]) -> set[str]:
    """The lower fqns of the methods' classes, their ancestors and their descendants
    (``HIERARCHY_DEPTH`` levels each way): a receiver of one of them may run the method."""
    classes = [
        e.src
        for e in ctx.graph.edges_to(ctx.rev, [m.node_id for m in methods], (EdgeKind.CONTAINS,))
    ]
    seen = set(classes)
    rels = (EdgeKind.EXTENDS, EdgeKind.IMPLEMENTS, EdgeKind.USES_TRAIT)
    for direction in ("up", "down"):
        frontier = list(classes)
        for _ in range(HIERARCHY_DEPTH):
            if not frontier:
                break
            if direction == "up":
                nxt = [e.dst for e in ctx.graph.edges_from(ctx.rev, frontier, rels)]
            else:
                nxt = [e.src for e in ctx.graph.edges_to(ctx.rev, frontier, rels)]
            frontier = [n for n in nxt if n not in seen]
            seen.update(frontier)
    nodes = ctx.graph.nodes_by_ids(ctx.rev, seen)
    return {(n.fqn or n.name or "").lower() for n in nodes.values()}

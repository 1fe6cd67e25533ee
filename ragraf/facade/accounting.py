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
- ``elsewhere``: call lines of that name attached to other corpus declarations.

Invariants a change must keep:
- For a target with name ``m``, every line with a call of ``m`` in the corpus is in
  exactly one of: attached to the target (the answer's own sites), ``unresolved``,
  ``external``, ``elsewhere`` (counted by line; a plain function call of a name no
  corpus function has is not a call of ``m``).
- Nothing here is new knowledge: it is read from the index (``unresolved_call``,
  the edges), and a listed site's file is touched like any other evidence, so a
  changed file warns.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.kinds import CALL_EDGES, CallKind, NodeKind, Unresolved
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
    ctx: Ctx, targets: list[NodeRow], attached: set[tuple[str, int]]
) -> dict[str, Any] | None:
    """The same-name call sites of these targets outside ``attached`` (the (path, line)
    of the call edges the answer shows), or None when no target is a function or method."""
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
    sites = []
    for r in shown:
        ctx.touch(r.path)
        src = callers.get(r.src)
        sites.append(
            {
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
        )
    by_class = Counter(r.detail or "?" for r in external)
    out = {
        "total": len(open_),
        "by_reason": dict(sorted(Counter(r.reason for r in open_).items())),
        "sites": sites,
        "external": {
            "total": len(external),
            "by_class": dict(by_class.most_common(EXTERNAL_CLASSES)),
        },
        "elsewhere": len(elsewhere - attached),
    }
    if open_:
        listed = f", the first {LISTED} listed" if len(open_) > LISTED else ""
        shown_names = ", ".join(f"{n}()" for n in sorted(names))
        ctx.limits.append(
            f"{ctx.op}: {len(open_)} call sites of {shown_names} were not attached to any"
            f" declaration (result.unresolved{listed}): they may call this one"
        )
    return out

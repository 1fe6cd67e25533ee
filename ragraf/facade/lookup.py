"""Finding what an operation is about: the ``symbol`` operation and the lookups the
other operations share (the nodes a ``node_id`` / ``fqn`` names, their container, the
answer for a name not found, the call lines of edges).

Invariants a change must keep:
- Not found is an answer: an empty result with a hint (nearest names, or the ledger
  entry that added the name after the revision: read it with live_read).
- Every node shown carries its evidence (path:line) and touches its file, so stale
  warnings cover it (``Ctx.node``).
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.facade.paging import Pager
from ragraf.kinds import INHERIT_EDGES, EdgeKind, NodeKind
from ragraf.limits import HIERARCHY_DEPTH
from ragraf.model import EdgeRow, NodeRow

#: the order of ``symbol`` matches (``page.order``)
ORDER_MATCHES = "by path and line"
#: the most declarations of one name ``symbol`` reads (its ``total`` counts them; a list
#: holds ``limit`` of them)
SYMBOL_ROWS = 10_000
#: difflib ratio above which a symbol name is offered as "nearest" for a name not found
NEAREST_NAME_CUTOFF = 0.7


def not_found_hint(ctx: Ctx, what: str) -> dict[str, Any]:
    """``nearest`` and ``hint`` for a name the revision does not have: the ledger's word
    when a change after the revision added it, else the nearest symbol names."""
    short = re.split(r"[\\:$/]+", what)[-1] or what
    # the ledger may know it: a symbol added (or a file created) after the revision
    added_in = []
    low, short_low = what.lower().lstrip("\\"), short.lower()
    for e in ctx.ledger():
        names = e.names("symbols_added")
        if e.path.lower() == low or any(
            n.lower() == low or re.split(r"[\\:$]+", n)[-1].lower() == short_low for n in names
        ):
            ctx.touch(e.path)
            added_in.append(e.path)
    if added_in:
        return {
            "nearest": [],
            "hint": f"'{what}' is not in {ctx.rev}, but the ledger records it in "
            f"{', '.join(sorted(set(added_in)))} after the revision: read it with live_read.",
        }
    nearest: list[str] = []
    if len(short) >= 3:
        by_short: dict[str, list[str]] = defaultdict(list)
        for name, fqn in ctx.graph.symbol_names(ctx.rev):
            by_short[name.lstrip("$").lower()].append(fqn)
        for s in difflib.get_close_matches(
            short.lstrip("$").lower(), list(by_short), n=5, cutoff=NEAREST_NAME_CUTOFF
        ):
            nearest.extend(sorted(by_short[s])[:3])
        nearest = nearest[:8]
    return {
        "nearest": nearest,
        "hint": f"'{what}' is not in {ctx.rev}. "
        + (f"Nearest names: {', '.join(nearest)}. " if nearest else "")
        + "If it was added after the index, read the file with live_read or search the tree (rg).",
    }


def targets(ctx: Ctx, args: dict[str, Any]) -> list[NodeRow]:
    """Nodes named by node_id or fqn (fqn: exact, case-insensitive; then by a trailing name)."""
    if args.get("node_id"):
        row = ctx.graph.node(ctx.rev, args["node_id"])
        return [row] if row else []
    fqn = args["fqn"].strip().lstrip("\\")
    rows = ctx.graph.nodes_by_fqn(ctx.rev, fqn)
    if not rows and "\\" not in fqn:
        rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, fqn)
    if args.get("path"):
        rows = [r for r in rows if r.path == args["path"]]
    return rows


#: the arguments that pick one of several declarations a name matched, by operation
#: (``impact``'s ``path`` is a file to change, not a filter)
_NARROW_BY = {"impact": ("node_id",), "symbol": ("path", "kind", "fqn")}
_SPELLED = {
    "path": "path (--path FILE)",
    "kind": "kind (--kind KIND)",
    "fqn": "fqn (--fqn NAME)",
    "node_id": "node_id (--node-id ID)",
}
_TELLS = {"path": lambda r: r.path, "kind": lambda r: r.kind, "fqn": lambda r: r.fqn}


def narrow(rows: list[NodeRow], op: str) -> dict[str, str]:
    """``narrow``: for a name that matched several declarations, that they answer together
    and which arguments tell them apart (a path only when they are in different files);
    empty for one declaration."""
    if len(rows) < 2:
        return {}
    by = [
        a
        for a in _NARROW_BY.get(op, ("path", "node_id"))
        if a == "node_id" or len({_TELLS[a](r) for r in rows}) > 1
    ]
    head = f"{len(rows)} distinct definitions answer together"
    if not by:
        return {"narrow": head}
    return {"narrow": f"{head}; to ask about one, give {' or '.join(_SPELLED[a] for a in by)}"}


def container(ctx: Ctx, node_id: str) -> dict[str, Any] | None:
    """The declaration holding a node (its class, its file), namespaces aside."""
    for e in ctx.graph.edges_to(ctx.rev, [node_id], (EdgeKind.CONTAINS,)):
        row = ctx.graph.node(ctx.rev, e.src)
        if row is not None and row.kind != NodeKind.NAMESPACE:
            return {"kind": row.kind, "fqn": row.fqn, "node_id": row.node_id}
    return None


def evidence_lines(edges: Iterable[EdgeRow]) -> set[tuple[str, int]]:
    """The (path, line) evidence of these edges."""
    return {
        (e.evidence_path, e.evidence_line)
        for e in edges
        if e.evidence_path is not None and e.evidence_line is not None
    }


def symbol(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Find a declaration by name or fully qualified name (`App\\Billing\\Invoice::charge`,
    `charge`, `Invoice`): kind, file, lines, signature, visibility, parameters and the
    declaring container. Optional `path` narrows to one file, `kind` to one node kind."""
    raw = (args.get("fqn") or args.get("name") or "").strip()
    what = raw.lstrip("\\")
    rows: list[NodeRow] = []
    most = SYMBOL_ROWS
    if "fqn" in args or "\\" in what or "::" in what:
        rows = ctx.graph.nodes_by_fqn(ctx.rev, what, most)
        if not rows:
            rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, what, most)
    if not rows and "fqn" not in args:
        rows = ctx.graph.nodes_by_name(ctx.rev, what, most)
        if not rows and not what.startswith("$"):
            rows = ctx.graph.nodes_by_name(ctx.rev, "$" + what, most)
    if args.get("path"):
        rows = [r for r in rows if r.path == args["path"]]
    if args.get("kind"):
        rows = [r for r in rows if r.kind == args["kind"]]
    inherited = None
    if not rows and "::" in what:
        inherited = _inherited_member(ctx, what)
        if inherited:
            rows = [inherited[1]]
    pager = Pager(args, ORDER_MATCHES)
    matches = []
    for r in pager.cut("matches", rows):
        m = ctx.node(r, full=True)
        m["declared_in"] = container(ctx, r.node_id)
        if inherited:
            m["inherited_by"] = inherited[0]
        matches.append(m)
    out: dict[str, Any] = {
        "query": sanitize.clean(raw),
        "matches": matches,
        "total": len(rows),
        "page": pager.page(),
        **narrow(rows, "symbol"),
    }
    if not rows:
        out.update(not_found_hint(ctx, what))
    return out


def _inherited_member(ctx: Ctx, fqn: str) -> tuple[str, NodeRow] | None:
    """``Class::member`` declared by an ancestor of the class (up ``HIERARCHY_DEPTH``
    levels of stated inheritance): the class asked for and the ancestor's member."""
    cls, _, member = fqn.partition("::")
    frontier = [r.node_id for r in ctx.graph.nodes_by_fqn(ctx.rev, cls)]
    seen = set(frontier)
    for _depth in range(HIERARCHY_DEPTH):
        nxt = []
        for e in ctx.graph.edges_from(ctx.rev, frontier, INHERIT_EDGES, stated_only=True):
            if e.dst in seen:
                continue
            seen.add(e.dst)
            parent = ctx.graph.node(ctx.rev, e.dst)
            if parent is None:
                continue
            hits = ctx.graph.nodes_by_fqn(ctx.rev, f"{parent.fqn}::{member}")
            if hits:
                return cls, hits[0]
            nxt.append(e.dst)
        frontier = nxt
        if not frontier:
            break
    return None

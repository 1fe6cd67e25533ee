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
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ragraf.facade import names, sanitize
from ragraf.facade.context import Ctx
from ragraf.facade.paging import Pager
from ragraf.kinds import CALL_EDGES, INHERIT_EDGES, SYMBOL, EdgeKind, NodeKind
from ragraf.limits import HIERARCHY_DEPTH
from ragraf.model import EdgeRow, NodeRow

#: the order of ``symbol`` matches (``page.order``)
ORDER_MATCHES = "by path and line"
#: the most declarations of one name ``symbol`` reads (its ``total`` counts them; a list
#: holds ``limit`` of them)
SYMBOL_ROWS = 10_000
#: difflib ratio above which a symbol name is offered as "nearest" for a name not found
NEAREST_NAME_CUTOFF = 0.7
#: the most nearest names a not-found answer offers
NEAREST_SHOWN = 8
#: a partial name (not an fqn) matching more declarations than this is not answered for
#: all of them together: the answer lists them and says how to narrow
TOGETHER = 10
#: the declarations a name matched that an answer lists (``candidates``)
CANDIDATES_SHOWN = 20


def not_found_hint(ctx: Ctx, what: str) -> dict[str, Any]:
    """``nearest`` and ``hint`` for a name the revision does not have: the ledger's word
    when a change after the revision added it, else the nearest symbol names (for any
    form of the name: its last segment is compared with the names the index has, and the
    declarations of the nearest ones are ranked by how like the whole name their fqn is)."""
    short = names.last(what.lstrip("\\")) or what
    # the ledger may know it: a symbol added (or a file created) after the revision
    added_in = []
    low, short_low = what.lower().lstrip("\\"), short.lower().lstrip("$")
    for e in ctx.ledger():
        found = e.names("symbols_added")
        if e.path.lower() == low or any(
            n.lower() == low or names.last(n).lower().lstrip("$") == short_low for n in found
        ):
            ctx.touch(e.path)
            added_in.append(e.path)
    if added_in:
        return {
            "nearest": [],
            "hint": f"'{what}' is not in {ctx.rev}, but the ledger records it in "
            f"{', '.join(sorted(set(added_in)))} after the revision: read it with live_read.",
        }
    nearest = nearest_names(ctx, what) if len(short.lstrip("$")) >= 3 else []
    return {
        "nearest": nearest,
        "hint": f"'{what}' is not in {ctx.rev}. "
        + (f"Nearest names: {', '.join(nearest)}. " if nearest else "")
        + "If it was added after the index, read the file with live_read or search the tree (rg).",
    }


def nearest_names(ctx: Ctx, what: str) -> list[str]:
    """Up to ``NEAREST_SHOWN`` fqns of symbols near ``what``: those of its last segment
    when the index has that name (an owner or module mistyped: ``Sesion.request``), else
    those of the names nearest it; each name's declarations ranked by how like ``what``
    their fqn's tail is."""
    short = names.last(what.lstrip("\\")).lstrip("$")
    typed = ".".join(s.lower() for s in names.segments(what))
    wanted = [n for n in (short, "$" + short) if _symbols_named(ctx, n, 1)]
    if not wanted:
        by_key: dict[str, list[str]] = defaultdict(list)
        for n in ctx.graph.symbol_name_list(ctx.rev):
            by_key[n.lstrip("$").lower()].append(n)
        close = difflib.get_close_matches(
            short.lower(), list(by_key), n=5, cutoff=NEAREST_NAME_CUTOFF
        )
        wanted = [n for key in close for n in by_key[key]]

    def likeness(fqn: str) -> float:
        segs = [s.lower() for s in names.segments(fqn)]
        tail = ".".join(segs[-typed.count(".") - 1 :])
        return difflib.SequenceMatcher(None, typed, tail).ratio()

    nearest: list[str] = []
    each = NEAREST_SHOWN if len(wanted) == 1 else 3
    for name in wanted:
        fqns = {r.fqn for r in _symbols_named(ctx, name, SYMBOL_ROWS) if r.fqn}
        nearest.extend(sorted(fqns, key=lambda f: (-likeness(f), f))[:each])
    return nearest[:NEAREST_SHOWN]


def _symbols_named(ctx: Ctx, name: str, most: int) -> list[NodeRow]:
    return [r for r in ctx.graph.nodes_by_name(ctx.rev, name, most) if r.kind in SYMBOL]


def named(ctx: Ctx, args: dict[str, Any]) -> names.Found:
    """The declarations ``node_id`` or ``fqn`` names (``fqn``: any form ``names`` reads),
    only those in ``path`` when given."""
    if args.get("node_id"):
        row = ctx.graph.node(ctx.rev, args["node_id"])
        return names.Found([row] if row else [], "node_id")
    return names.find(ctx, args["fqn"], path=args.get("path"))


def targets(ctx: Ctx, args: dict[str, Any]) -> list[NodeRow]:
    """Nodes named by node_id or fqn (see ``named``)."""
    return named(ctx, args).rows


def unanswered(
    ctx: Ctx, args: dict[str, Any], found: names.Found, rows: list[NodeRow]
) -> dict[str, Any] | None:
    """What an operation answers instead of walking from ``rows`` (the declarations of
    ``found`` it is about): the nearest names when there are none; the candidates and
    how to narrow when a partial name (not an fqn) matched more than ``TOGETHER``
    declarations. None: answer for ``rows``."""
    what = args.get("fqn") or args.get("node_id", "")
    if not rows:
        return not_found_hint(ctx, what)
    if len(rows) <= TOGETHER or found.form in ("fqn", "node_id"):
        return None
    return {
        "narrow": f"'{sanitize.clean(what)}' names {len(rows)} declarations, too many to"
        f" answer for together; to ask about one, give a longer name"
        f" (Owner.{sanitize.clean(names.last(what))}), path (--path FILE) or node_id (--node-id ID)",
        "candidates": candidates(ctx, rows),
    }


def resolved(args: dict[str, Any], found: names.Found, rows: list[NodeRow]) -> dict[str, Any]:
    """``resolved``: the full name of the one declaration a shorter or other form of its
    name found (``Session.request`` -> ``src.requests.sessions.Session.request``)."""
    what = (args.get("fqn") or "").strip().lstrip("\\")
    if len(rows) != 1 or not what or found.form in ("fqn", "node_id"):
        return {}
    r = rows[0]
    where = f" ({r.path}:{r.start_line})" if r.path else ""
    return {"resolved": f"'{sanitize.clean(what)}' is {r.kind} {sanitize.name(r.fqn)}{where}"}


def candidates(ctx: Ctx, rows: list[NodeRow]) -> list[dict[str, Any]]:
    """The first ``CANDIDATES_SHOWN`` declarations a name matched, each with its place,
    kind and how many callers it has (stated and derived)."""
    shown = rows[:CANDIDATES_SHOWN]
    counts = ctx.graph.caller_counts(ctx.rev, [r.node_id for r in shown], CALL_EDGES)
    out = []
    for r in shown:
        ctx.touch(r.path)
        out.append(
            {
                "node_id": r.node_id,
                "kind": r.kind,
                "fqn": sanitize.name(r.fqn),
                "path": r.path,
                "start_line": r.start_line,
                "callers": counts.get(r.node_id, 0),
            }
        )
    return out


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


def narrow(ctx: Ctx, rows: list[NodeRow], op: str) -> dict[str, Any]:
    """``narrow`` and ``candidates``: for a name that matched several declarations, that
    they answer together, which arguments tell them apart (a path only when they are in
    different files) and each one with how many callers it has; empty for one
    declaration."""
    if len(rows) < 2:
        return {}
    by = [
        a
        for a in _NARROW_BY.get(op, ("path", "node_id"))
        if a == "node_id" or len({_TELLS[a](r) for r in rows}) > 1
    ]
    head = f"{len(rows)} distinct definitions answer together"
    said = f"{head}; to ask about one, give {' or '.join(_SPELLED[a] for a in by)}" if by else head
    return {"narrow": said, "candidates": candidates(ctx, rows)}


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
    """Find a declaration by name or fully qualified name, in any form of it (PHP
    `App\\Billing\\Invoice::charge`, `Invoice::charge`; Python
    `requests.sessions.Session.request`, `Session.request`; JavaScript / TypeScript
    `lib/application.app.set`, `app.set`; Go `mux.Router.NewRoute`; Java
    `net.starlark.java.eval.Starlark#str`; a bare `charge`): kind, file, lines,
    signature, visibility, parameters and the declaring container; several matches are
    also listed in `candidates` with how many callers each. Optional `path` narrows to
    one file, `kind` to one node kind."""
    raw = (args.get("fqn") or args.get("name") or "").strip()
    what = raw.lstrip("\\")
    kinds = (args["kind"],) if args.get("kind") else None
    found = names.Found([])
    if "fqn" not in args and names.segments(what) == [what]:
        # a bare name: every declaration of that name, a property's with or without `$`
        for name in (what, "$" + what) if not what.startswith("$") else (what,):
            rows = names.keep(
                ctx.graph.nodes_by_name(ctx.rev, name, SYMBOL_ROWS), args.get("path"), kinds
            )
            found = names.Found(names.same_case(rows, [name]), "name")
            if found.rows:
                break
    else:
        found = names.find(ctx, what, args.get("path"), kinds, SYMBOL_ROWS)
        if not found.rows and "fqn" not in args:
            # a name that is no qualified name (a route `/health`)
            found = names.Found(
                names.keep(
                    ctx.graph.nodes_by_name(ctx.rev, what, SYMBOL_ROWS), args.get("path"), kinds
                ),
                "name",
            )
    rows = found.rows
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
        **narrow(ctx, rows, "symbol"),
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

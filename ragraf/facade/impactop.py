"""The ``impact`` operation: what a change to a symbol, a file or a table can affect
(architecture §7).

An answer is built in steps: the seeds (``_seeds``: the nodes named, with the members or
columns that change with them), the nodes that depend on them (``_affected``: upstream
along ``IMPACT_EDGES``, and for a table through its Eloquent models), those sorted into the
``hard`` and ``soft`` sections (``_Sections``), the tables the changed code writes, then the
sections ordered and capped (``_Sections.finish``).

Invariants a change must keep:
- Stated and derived facts are never mixed silently: ``hard`` holds what a path of stated
  edges reaches, ``soft`` what needs a derived edge; a file is listed in one section only.
- Every edge an answer rests on is recorded (stale-edge check) and its file touched.
- Not found is an answer: an empty result with a hint.
- A walk stopped by ``IMPACT_REACH_LIMIT`` says so in limits; a list cut to the page
  (``limit`` / ``offset``) says so in ``page``, and ``total`` still counts everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ragraf.facade import brief, lookup, orm, sanitize, schemaops
from ragraf.facade.accounting import call_accounting
from ragraf.facade.context import Ctx
from ragraf.facade.paging import Pager
from ragraf.kinds import (
    CALL_EDGES,
    CALLABLE,
    CLASS_LIKE,
    DB,
    DB_OBJECT,
    DOCS,
    IMPACT_EDGES,
    EdgeKind,
    NodeKind,
    Provenance,
    TableRole,
)
from ragraf.model import SCHEMA_PATH, NodeRow, props_of

#: the most nodes an impact walk visits before it stops (it says so in limits)
IMPACT_REACH_LIMIT = 20_000
#: the order of every list of a section (``page.order``)
ORDER = "each list by depth, then by path and line"
#: the lists of a section, in the order the answer has them
_LISTS = ("symbols", "routes", "tables", "docs", "tests")


def impact(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """What a change to a symbol (`node_id` / `fqn`), a file (`path`) or a table (`table`)
    can affect: files, symbols, tables, routes, tests and docs that depend on it, through
    calls, references, `new`, inheritance, trait use, includes, templates rendered or
    included (soft: a template is matched by its name) and route bindings up to `depth`
    levels. Split by provability: `hard` (a path of stated edges only) and `soft`
    (needs a derived edge); `mode: hard` walks stated edges only. For a symbol or a file,
    `tables` also lists the tables the changed code itself writes (`write_operations`: the
    operations), whose readers see what the change does; for a table, its Eloquent models
    and what depends on them are soft (the mapping is Laravel's convention)."""
    seeds = _seeds(ctx, args)
    if not isinstance(seeds, _Seeds):
        return seeds
    secs = _Sections()
    secs.add(ctx, _affected(ctx, args, seeds))
    if not args.get("table"):
        _written_tables(ctx, seeds.ids, secs)
    pager = Pager(args, ORDER)
    total = secs.finish(pager)
    out: dict[str, Any] = {
        "target": seeds.target,
        "mode": args["mode"],
        "depth": args["depth"],
        **secs.by,
        "total": total,
        "page": pager.page(),
        **seeds.said,
    }
    callables = [r for r in seeds.rows if r.kind in CALLABLE] if not args.get("path") else []
    if callables:
        ids = [r.node_id for r in callables]
        direct = lookup.evidence_lines(ctx.graph.edges_to(ctx.rev, ids, CALL_EDGES))
        acc = call_accounting(ctx, callables, direct, brief.dynamic_listed(args))
        if acc is not None:
            out["unresolved"] = brief.unresolved(acc) if brief.is_brief(args) else acc
    if brief.is_brief(args):
        for sec in ("hard", "soft"):
            for k in _LISTS:
                out[sec][k] = brief.impact_list(out[sec][k], k)
    return out


@dataclass(frozen=True)
class _Seeds:
    """What a change is made to."""

    rows: list[NodeRow]  # the nodes named (a file's: every node in it)
    ids: list[str]  # where the walk starts: the rows and what changes with them
    target: Any  # the answer's ``target``
    models: list[str] = field(default_factory=list)  # a table's Eloquent models (``orm``)
    said: dict[str, Any] = field(default_factory=dict)  # how the name was read (``lookup``)


class _Affected(NamedTuple):
    """A node a change reaches."""

    node_id: str
    depth: int
    soft: bool  # reached through a derived edge


def _seeds(ctx: Ctx, args: dict[str, Any]) -> _Seeds | dict[str, Any]:
    """The seeds of a file (``path``), a table (``table``) or a symbol (``fqn`` /
    ``node_id``); the whole answer when the revision has none."""
    if args.get("path"):
        return _file_seeds(ctx, args["path"])
    if args.get("table"):
        return _table_seeds(ctx, args["table"])
    return _symbol_seeds(ctx, args)


def _not_found(hint: dict[str, Any]) -> dict[str, Any]:
    """The answer when nothing is named: empty sections and the hint."""
    return {
        "target": None,
        "hard": _empty_impact(),
        "soft": _empty_impact(),
        "total": 0,
        **hint,
    }


def _file_seeds(ctx: Ctx, path: str) -> _Seeds | dict[str, Any]:
    """Every node declared in the file."""
    rows = ctx.graph.nodes_in_file(ctx.rev, path)
    if not rows:
        return _not_found(lookup.not_found_hint(ctx, path))
    seeds = _Seeds(rows, [r.node_id for r in rows], {"path": path, "symbols": len(rows)})
    ctx.touch(path)
    return seeds


def _table_seeds(ctx: Ctx, table: str) -> _Seeds | dict[str, Any]:
    """The tables and views of that name with their columns (foreign keys run column ->
    column), and the Eloquent models that map to it; the limits say what the schema
    cannot tell (incomplete, a table known from code only, names made at run time)."""
    ctx.touch(SCHEMA_PATH)  # a schema_change in the ledger warns this answer
    rows = [r for r in ctx.graph.nodes_by_name(ctx.rev, table) if r.kind in DB_OBJECT]
    if not rows:
        return _not_found({"hint": f"table '{table}' is not in {ctx.rev}; check `schema`"})
    schemaops.table_limits(ctx, rows)
    maybe = schemaops.named_at_run_time_count(ctx, table)
    if maybe:
        ctx.limits.append(
            f"impact: {maybe} SQL statement(s) name their table at run time by a name like"
            f" '{sanitize.clean(table)}'; their code is not in this answer"
            " (table_usage lists them as `possible`)"
        )
    ids = [r.node_id for r in rows]
    # a table changes with its columns: foreign keys run column -> column
    ids += [m.dst for m in ctx.graph.edges_from(ctx.rev, ids, (EdgeKind.CONTAINS,))]
    target = [ctx.node(r) for r in rows]
    models = [m["node_id"] for m in orm.models_of(ctx, table)]
    return _Seeds(rows, ids, target, models)


def _symbol_seeds(ctx: Ctx, args: dict[str, Any]) -> _Seeds | dict[str, Any]:
    """The symbols named, a class with its members (it is changed with them)."""
    found = lookup.named(ctx, args)
    rows = found.rows
    stop = lookup.unanswered(ctx, args, found, rows)
    if stop is not None:
        return _not_found(stop)
    ids = [r.node_id for r in rows]
    if any(r.kind in CLASS_LIKE for r in rows):
        ids += [m.dst for m in ctx.graph.edges_from(ctx.rev, ids, (EdgeKind.CONTAINS,))]
    said = lookup.narrow(ctx, rows, "impact") if args.get("fqn") else {}
    return _Seeds(
        rows, ids, [ctx.node(r) for r in rows], said=said | lookup.resolved(args, found, rows)
    )


def _affected(ctx: Ctx, args: dict[str, Any], seeds: _Seeds) -> list[_Affected]:
    """The nodes upstream of the seeds along ``IMPACT_EDGES`` (``mode: hard``: stated
    edges only), up to ``depth`` levels, then those through a table's models."""
    hard_mode = args["mode"] == "hard"
    reach = ctx.graph.reach_upstream(
        ctx.rev, seeds.ids, IMPACT_EDGES, args["depth"], hard_mode, IMPACT_REACH_LIMIT
    )
    if len(reach) >= IMPACT_REACH_LIMIT:
        ctx.limits.append(f"impact: the walk stopped after {IMPACT_REACH_LIMIT} nodes")
    seed_set = set(seeds.ids)
    affected = []
    for r in reach:
        if r.node_id in seed_set:
            continue
        affected.append(_Affected(r.node_id, r.depth, r.soft))
        if r.edge_uid:
            # the edge this answer rests on (stale-edge check)
            ctx.edge_uids[r.edge_uid] = r.evidence_path or ""
    if seeds.models:
        _through_models(ctx, args, seeds.models, seed_set, affected)
    return affected


@dataclass
class _Sections:
    """The ``hard`` and ``soft`` sections of an answer being filled, with their files."""

    by: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {"hard": _empty_impact(), "soft": _empty_impact()}
    )
    files: dict[str, set[str]] = field(default_factory=lambda: {"hard": set(), "soft": set()})

    def add(self, ctx: Ctx, affected: list[_Affected]) -> None:
        """Each affected node in its section's list by kind (routes, tables, docs, other
        symbols; tests by their path or name as well), its file in the section's files."""
        nodes = ctx.graph.nodes_by_ids(ctx.rev, [a.node_id for a in affected])
        for nid, d, soft in affected:
            n = nodes.get(nid)
            if n is None:
                continue
            sec = "soft" if soft else "hard"
            kind, path = n.kind, n.path
            item = {**ctx.node(n), "depth": d}
            if kind == NodeKind.WEB_ROUTE:
                self.by[sec]["routes"].append(item)
            elif kind in DB:
                self.by[sec]["tables"].append(item)
            elif kind == NodeKind.SQL_LITERAL:
                pass  # the symbol holding the SQL is listed through its `queries` edge
            elif kind in DOCS:
                self.by[sec]["docs"].append(item)
            elif kind != NodeKind.FILE:
                self.by[sec]["symbols"].append(item)
            if path:
                self.files[sec].add(path)
                if _is_test(path, n.fqn):
                    self.by[sec]["tests"].append(item)

    def finish(self, pager: Pager) -> int:
        """The sections in answer form: a file in ``hard`` is not repeated in ``soft``, each
        list by depth and place, cut to the page (``pager``); returns the total (symbols,
        routes and tables, all of them)."""
        sections, files = self.by, self.files
        files["soft"] -= files["hard"]
        total = 0
        for sec in sections:
            sections[sec]["files"] = pager.cut(f"{sec}.files", sorted(files[sec]))
            for k in _LISTS:
                lst = sections[sec][k]
                lst.sort(
                    key=lambda x: (
                        x["depth"],
                        x.get("path") or "",
                        x.get("start_line") or 0,
                        x.get("fqn") or "",
                    )
                )
                if k in ("symbols", "routes", "tables"):
                    total += len(lst)
                sections[sec][k] = pager.cut(f"{sec}.{k}", lst)
        return total


def _through_models(
    ctx: Ctx,
    args: dict[str, Any],
    models: list[str],
    seed_set: set[str],
    affected: list[_Affected],
) -> None:
    """A table's Eloquent models (depth 1) and their dependents (one level deeper than
    from the model), all soft: the mapping is Laravel's convention or a `$table` value,
    not a stated edge. In `hard` mode they are left out, and the limits say so."""
    if args["mode"] == "hard":
        ctx.limits.append(
            f"impact: {len(models)} Eloquent model(s) map to this table; `mode: hard` leaves"
            " them and their dependents out (the mapping is derived)"
        )
        return
    seen = seed_set | {a.node_id for a in affected}
    for mid in models:
        if mid not in seen:
            seen.add(mid)
            affected.append(_Affected(mid, 1, True))
    if args["depth"] > 1:
        for r in ctx.graph.reach_upstream(
            ctx.rev, models, IMPACT_EDGES, args["depth"] - 1, False, IMPACT_REACH_LIMIT
        ):
            if r.node_id in seen:
                continue
            seen.add(r.node_id)
            affected.append(_Affected(r.node_id, r.depth + 1, True))
            if r.edge_uid:
                ctx.edge_uids[r.edge_uid] = r.evidence_path or ""
    ctx.limits.append(
        f"impact: {len(models)} Eloquent model(s) map to this table: they and what depends on"
        " them are listed as soft"
    )


def _written_tables(ctx: Ctx, seeds: list[str], secs: _Sections) -> None:
    """The tables the changed code itself writes (its `queries` edges whose roles hold
    "write"): a change to it can change what they hold, so every reader of them is
    affected too (`table_usage`, `impact --table`). Listed at depth 1 with the operations
    (`write_operations`); hard when a stated edge says so. Tables written by the code that calls it
    are not followed (every caller's writes would be listed)."""
    found: dict[str, tuple[set[str], bool]] = {}
    for e in ctx.graph.edges_from(ctx.rev, seeds, (EdgeKind.QUERIES,)):
        p = props_of(e.props) if e.props else {}
        if TableRole.WRITE not in (p.get("roles") or ()):
            continue
        ctx.edge_uids[e.edge_uid] = e.evidence_path or ""
        ops, hard = found.get(e.dst, (set(), False))
        ops.add(str(p.get("operation") or "write"))
        found[e.dst] = (ops, hard or e.provenance == Provenance.STATED)
    if not found:
        return
    nodes = ctx.graph.nodes_by_ids(ctx.rev, list(found))
    sections, files = secs.by, secs.files
    for nid, (ops, hard) in sorted(found.items()):
        n = nodes.get(nid)
        if n is None or n.kind not in DB:
            continue
        sec = "hard" if hard else "soft"
        other = "soft" if hard else "hard"
        sections[other]["tables"] = [t for t in sections[other]["tables"] if t["node_id"] != nid]
        item = next((t for t in sections[sec]["tables"] if t["node_id"] == nid), None)
        if item is None:
            item = {**ctx.node(n), "depth": 1}
            sections[sec]["tables"].append(item)
        item["write_operations"] = sorted(ops)
        if n.path:
            files[sec].add(n.path)


def _empty_impact() -> dict[str, Any]:
    return {"files": [], "symbols": [], "tables": [], "routes": [], "tests": [], "docs": []}


def _is_test(path: str, fqn: str | None) -> bool:
    p = path.lower()
    return (
        p.startswith(("test/", "tests/"))
        or "/tests/" in p
        or "/test/" in p
        or p.endswith("test.php")
        or bool(fqn and fqn.endswith("Test"))
    )

"""Database operations: schema and table_usage (issue 6).

Invariants a change must keep:
- Read-only and revision-scoped like every operation: the tables are the
  revision's db_* rows, the source and completeness come from its rev.json
  ``schema`` block, divergences and migration problems from its coverage.
- An incomplete schema is never served silently: ``complete: false`` with
  the reason, and the reason is added to ``limits``.
- Columns of a SQL string that the text does not list are the explicit
  marker ``"unknown"``, never a guess.
- Every file an answer rests on (migration files, PHP files holding SQL) is
  touched, so stale warnings cover them.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ragraf.facade import orm, sanitize
from ragraf.facade.context import MAX_ITEMS, Ctx
from ragraf.facade.paging import OFFSET, Pager, limit_param
from ragraf.facade.params import OpSpec, Param
from ragraf.kinds import ColumnKey, EdgeKind, NodeKind, Provenance, TableHow, TableRole
from ragraf.model import (
    SCHEMA_PATH,
    CoverageRow,
    DbColumnRow,
    DbTableRow,
    EdgeRow,
    NodeRow,
    props_of,
)
from ragraf.sql.dbschema import SOURCE_CODE

#: difflib ratio above which a table name is offered as "nearest" for a name not found
NEAREST_TABLE_CUTOFF = 0.6

SCHEMA_SPEC = OpSpec(
    "schema",
    (
        Param("table", "string", "One table (default: all tables)."),
        limit_param(what="tables"),
        OFFSET,
    ),
    main="table",
    example=("invoices",),
)
TABLE_USAGE_SPEC = OpSpec(
    "table_usage",
    (
        Param("table", "string", "A table name."),
        Param(
            "role",
            "enum",
            "Only the statements that write the table (`write`: INSERT, UPDATE, DELETE,"
            " REPLACE, DDL...) or only those that read it (`read`); `any` lists both. The"
            " other list is then empty, its size still counted in `counts`.",
            default="any",
            choices=("any", "write", "read"),
        ),
        limit_param(what="statements"),
        OFFSET,
    ),
    main="table",
    required=("table",),
    example=("invoices", "--role", "write"),
)
#: the order of ``schema``'s tables and views (``page.order``)
ORDER_TABLES = "by name"
#: the order of ``table_usage``'s lists
ORDER_USAGE = "stated first, then by path and line"
UNKNOWN = "unknown"


def _schema_state(ctx: Ctx) -> tuple[str, str | None]:
    block = ctx.man.get("schema") if ctx.rev == ctx.active else None
    if block is None and ctx.rev != ctx.active:
        # another retained revision: its rev.json is gone, its coverage rows are not
        cov = {
            m: n
            for m, _v, n in ctx.graph.coverage(ctx.rev)
            if m in ("schema.source", "schema.incomplete")
        }
        block = {
            "source": cov.get("schema.source") or "none",
            "incomplete": cov.get("schema.incomplete"),
        }
    block = block or {}
    source = block.get("source") or "none"
    incomplete = block.get("incomplete")
    if source == "none" and not incomplete:
        incomplete = "no database schema in this revision"
    return source, incomplete


def _limit_incomplete(ctx: Ctx, incomplete: str | None) -> None:
    if incomplete:
        msg = f"database schema incomplete: {incomplete}"
        if msg not in ctx.limits:
            ctx.limits.append(msg)


def table_limits(ctx: Ctx, rows: list[NodeRow]) -> None:
    """An answer about tables says when the schema is incomplete, and when a table is
    known only because SQL in code names it (no schema was found: source ``code``)."""
    _limit_incomplete(ctx, _schema_state(ctx)[1])
    for r in rows:
        p = props_of(r.props)
        if r.kind == NodeKind.DB_TABLE and p.get("source") == SOURCE_CODE:
            msg = (
                f"table '{sanitize.clean(r.name or '')}' is known only from SQL strings in code:"
                " no database schema was found, "
                + (
                    "its columns are those the code creating it defines (the CREATE TABLE or"
                    f" migration at {r.path}:{r.start_line}, then the changes after it), its"
                    " edges derived"
                    if p.get("columns") is not None
                    else "its columns are unknown and its edges derived"
                )
            )
            if msg not in ctx.limits:
                ctx.limits.append(msg)


def _nearest_tables(ctx: Ctx, name: str) -> list[str]:
    names = ctx.graph.db_object_names(ctx.rev)
    by_low = {n.lower(): n for n in names}
    return [
        by_low[m]
        for m in difflib.get_close_matches(
            name.lower(), list(by_low), n=5, cutoff=NEAREST_TABLE_CUTOFF
        )
    ]


def schema(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Tables of the database as the revision knows them: columns (type, nullable, key),
    primary key, foreign keys both ways, views, engine, row estimates, each with the
    evidence path:line of the migration statement that defined it (`db://schema:1` for
    what only the live database has); the source (information_schema or migrations),
    whether the schema is complete (and why not), divergences between the live
    database and the migrations and migration statements that could not be applied;
    `files`: the SQL files the schema was read from (dialect, why, in the order applied)
    and those seen and left out (why: seed data, another dialect, an upgrade script...).
    `table` narrows to one table or view."""
    ctx.touch(SCHEMA_PATH)  # a schema_change in the ledger warns this answer
    from_source, incomplete = _schema_state(ctx)
    _limit_incomplete(ctx, incomplete)
    want = args.get("table")
    pager = Pager(args, ORDER_TABLES)
    all_tables = _table_rows(ctx, want)
    tables = _tables(ctx, pager.cut("tables", all_tables))
    all_views = _view_rows(ctx, want)
    views = _views(ctx, pager.cut("views", all_views))
    coverage = ctx.graph.coverage(ctx.rev)
    files = _schema_files(ctx, coverage)
    divergences, problems = _coverage_notes(ctx, coverage, want)
    out: dict[str, Any] = {
        "source": from_source,
        "complete": incomplete is None,
        "incomplete": incomplete,
        "tables": tables,
        "views": views,
        "divergences": divergences,
        "problems": problems,
        "files": files,
        "total": len(all_tables) + len(all_views),
        "page": pager.page(),
    }
    if not all_tables and not all_views:
        out.update(_nothing_hint(ctx, want, incomplete, files["code_tables"]))
    return out


class _ForeignKeys(NamedTuple):
    """The foreign keys of the schema by lower table name, both ways."""

    outgoing: dict[str, list[dict[str, Any]]]  # the table's columns -> other tables
    incoming: dict[str, list[dict[str, Any]]]  # other tables' columns -> the table


def _foreign_keys(ctx: Ctx) -> _ForeignKeys:
    """Each foreign key once: a relationship declared twice (inline REFERENCES and a
    table-level constraint: the server keeps both constraints) is one to an agent."""
    fks = list(dict.fromkeys(ctx.graph.db_fks(ctx.rev)))
    keys = _ForeignKeys(defaultdict(list), defaultdict(list))
    for ft, fc, tt, tc in fks:
        keys.outgoing[ft.lower()].append(
            {
                "column": sanitize.clean(fc),
                "to_table": sanitize.clean(tt),
                "to_column": sanitize.clean(tc),
            }
        )
        keys.incoming[tt.lower()].append(
            {
                "from_table": sanitize.clean(ft),
                "from_column": sanitize.clean(fc),
                "column": sanitize.clean(tc),
            }
        )
    return keys


def _table_rows(ctx: Ctx, want: str | None) -> list[DbTableRow]:
    """The tables of the revision, by name (``want``: the one of that name)."""
    rows = ctx.graph.db_tables(ctx.rev)
    if want:
        rows = [r for r in rows if r.table_name.lower() == want.lower()]
    return rows


def _tables(ctx: Ctx, rows: list[DbTableRow]) -> list[dict[str, Any]]:
    """The tables with their columns, keys and evidence; the limits say what the schema
    does not know of them."""
    nodes = ctx.graph.nodes_by_ids(ctx.rev, [r.table_id for r in rows])
    table_limits(ctx, sorted(nodes.values(), key=lambda r: (r.name or "").lower()))
    # a table code defines rests on every file that changed its columns (later migrations)
    from_code = [r.table_id for r in rows if r.source == SOURCE_CODE]
    if from_code:
        cols = ctx.graph.edges_from(ctx.rev, from_code, [EdgeKind.CONTAINS])
        for col in ctx.graph.nodes_by_ids(ctx.rev, [e.dst for e in cols]).values():
            ctx.touch(col.path)
    cols_by_table: dict[str, list[DbColumnRow]] = defaultdict(list)
    for c in ctx.graph.db_columns(ctx.rev, [r.table_id for r in rows]):
        cols_by_table[c.table_id].append(c)
    keys = _foreign_keys(ctx)
    tables = []
    for table_id, name, engine, row_estimate, src in rows:
        n = nodes.get(table_id)
        node = ctx.node(n) if n is not None else None
        columns = [
            {
                "name": sanitize.clean(c.column_name),
                "type": c.data_type,
                "nullable": bool(c.is_nullable),
                "key": c.column_key or "",
            }
            for c in cols_by_table.get(table_id, [])
        ]
        tables.append(
            {
                "name": sanitize.clean(name),
                "node_id": table_id,
                "kind": "table",
                "source": src,
                "engine": engine,
                "row_estimate": row_estimate,
                "evidence": node["evidence"] if node else None,
                "columns": columns,
                "primary_key": [c["name"] for c in columns if c["key"] == ColumnKey.PRI],
                "foreign_keys": keys.outgoing.get(name.lower(), []),
                "referenced_by": keys.incoming.get(name.lower(), []),
            }
        )
    return tables


def _view_rows(ctx: Ctx, want: str | None) -> list[NodeRow]:
    """The views of the revision (``want``: the one of that name)."""
    rows = ctx.graph.nodes_of_kind(ctx.rev, NodeKind.DB_VIEW)
    if want:
        rows = [v for v in rows if (v.name or "").lower() == want.lower()]
    return rows


def _views(ctx: Ctx, rows: list[NodeRow]) -> list[dict[str, Any]]:
    """The views, with their evidence."""
    views = []
    for v in rows:
        vn = ctx.node(v)
        views.append({"name": vn["name"], "node_id": v.node_id, "evidence": vn["evidence"]})
    return views


def _schema_files(ctx: Ctx, coverage: list[CoverageRow]) -> dict[str, Any]:
    """``files``: the SQL files the schema was read from (each touched) and those left
    out (the first ``MAX_ITEMS``), out of the revision's coverage rows."""
    from ragraf.sql.schema_notes import schema_files

    files = schema_files(coverage)
    for f in files["used"]:
        ctx.touch(f["path"])
    files = {
        "dialect": files["dialect"],
        "used": [{k: sanitize.clean(v) for k, v in f.items()} for f in files["used"]],
        "rejected": [{k: sanitize.clean(v) for k, v in r.items()} for r in files["rejected"]],
        "code_tables": files["code_tables"],
    }
    if len(files["rejected"]) > MAX_ITEMS:
        ctx.limits.append(
            f"schema: {len(files['rejected'])} SQL files left out, the first {MAX_ITEMS} are listed"
        )
        del files["rejected"][MAX_ITEMS:]
    return files


def _coverage_notes(
    ctx: Ctx, coverage: list[CoverageRow], want: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The divergences between the live database and the migrations (``want``: those of
    that table), by table, column and kind; and the migration statements that could not
    be applied (their files touched)."""
    from ragraf.sql.schema_notes import parse_divergence_note

    divergences, problems = [], []
    for metric, _value, note in coverage:
        if metric == "schema.divergence" and note:
            d = parse_divergence_note(note)
            if not want or d["table"].lower() == want.lower():
                divergences.append(
                    {k: (sanitize.clean(v) if isinstance(v, str) else v) for k, v in d.items()}
                )
        elif metric == "schema.problem" and note:
            path, _, rest = note.partition(" ")
            problems.append({"evidence": sanitize.clean(path), "message": sanitize.clean(rest)})
            ctx.touch(path.rpartition(":")[0])
    divergences.sort(key=lambda d: (d["table"].lower(), d["column"] or "", d["kind"]))
    return divergences, problems


def _nothing_hint(
    ctx: Ctx, want: str | None, incomplete: str | None, code_tables: int
) -> dict[str, Any]:
    """The hint of an answer with no table and no view: a table known only from SQL in
    code, the nearest names of a table not found, or where a schema would come from."""
    code_named = (
        [
            r
            for r in ctx.graph.db_objects_named(ctx.rev, want)
            if props_of(r.props).get("source") == SOURCE_CODE
        ]
        if want
        else []
    )
    if code_named:
        table_limits(ctx, code_named)
        return {
            "hint": f"table '{sanitize.clean(want or '')}' is not in a schema: none was found, it"
            " is known only from SQL in code; table_usage and impact answer for it"
        }
    if want:
        nearest = _nearest_tables(ctx, want)
        return {
            "nearest": nearest,
            "hint": f"table '{sanitize.clean(want)}' is not in the schema of {ctx.rev}"
            + (f"; nearest: {', '.join(nearest)}" if nearest else "")
            + ("" if incomplete is None else " (the schema is incomplete)")
            + "; table_usage lists SQL that names it anyway",
        }
    return {
        "hint": f"no database tables in {ctx.rev}: configure db.dsn or db.schema_source migrations"
        + (
            f"; {code_tables} table(s) are known only from SQL in code (table_usage, impact)"
            if code_tables
            else ""
        )
    }


def _sql_item(
    ctx: Ctx,
    lit: NodeRow,
    holder: dict[str, Any] | None,
    edge: EdgeRow | None,
    table: str,
    entries: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    path, start = lit.path or "", lit.start_line
    ctx.touch(path)
    p = props_of(lit.props)
    mine = (
        entries
        if entries is not None
        else [
            t
            for t in p.get("tables", [])
            # a DQL entity's entry names its class; "table" the table its mapping names
            if (t.get("table") or t.get("name") or "").lower() == table.lower()
        ]
    )
    roles = sorted({t.get("role", TableRole.READ) for t in mine}) or [TableRole.READ]
    how = next(
        (
            h
            for h in (
                TableHow.EXACT,
                TableHow.PREFIX_RESOLVED,
                TableHow.CODE_RESOLVED,
                TableHow.ENTITY,
                TableHow.DYNAMIC,
            )
            if any(t.get("how") == h for t in mine)
        ),
        TableHow.DYNAMIC,
    )
    cols = p.get("columns")
    operation = p.get("operation", "other")
    # a string of several statements says each table's own operation and columns
    own = [t for t in mine if "operation" in t]
    if own:
        operation = own[0]["operation"]
        parts: list[list[str] | None] = [t.get("columns") for t in own]
        cols = None
        if all(c is not None for c in parts):
            cols = list(dict.fromkeys(c for part in parts for c in part or []))
    item: dict[str, Any] = {
        "sql": {
            "node_id": lit.node_id,
            "fqn": sanitize.name(lit.fqn),
            "path": path,
            "start_line": start,
            "end_line": lit.end_line,
            "evidence": f"{path}:{start}",
        },
        "operation": operation,
        "roles": roles,
        "columns": UNKNOWN if cols is None else [sanitize.clean(c) for c in cols],
        "select_star": bool(p.get("select_star")),
        "dynamic": bool(p.get("dynamic")),
        "parsed": bool(p.get("parsed")),
        "table_name": how,
        "symbol": holder,
        "text": ctx.line_text(path, start),
    }
    if p.get("call"):
        item["call"] = sanitize.clean(str(p["call"]))
    exprs = [sanitize.clean(t["expr"]) for t in mine if t.get("expr")]
    if exprs:
        item["runtime_parts"] = exprs
    if edge is not None:
        item.update(
            {
                "provenance": edge.provenance,
                "confidence": edge.confidence,
                "evidence": edge.evidence,
                "edge_uid": edge.edge_uid,
            }
        )
        ep = props_of(edge.props)
        if ep.get("via"):
            item["via"] = ep["via"]
    else:
        item.update({"provenance": None, "confidence": None, "evidence": f"{path}:{start}"})
    return item


#: the confidence of a statement whose run-time table name merely ends like the table's
POSSIBLE_CONFIDENCE = 0.3
#: last names of a run-time table expression that say nothing of which table it is
_GENERIC_NAMES = frozenset(
    {"table", "tables", "tablename", "tbl", "name", "db", "database", "dbname", "source", "target"}
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _stems(table: str) -> set[str]:
    """What a run-time table expression's last name may be for ``table``, lower case
    without ``_``: the name, and the name after a prefix (``pma__column_info``:
    columninfo; ``wp_options``: options)."""
    low = table.lower()
    out = {low, low.rsplit("__", 1)[-1], low.split("_", 1)[-1]}
    flat = {x.replace("_", "") for x in out}
    return {x for x in flat if len(x) >= 4 and x not in _GENERIC_NAMES}


def _last_name(expr: str) -> str:
    """The last name in the table part of a run-time expression (after the database part):
    ``Util::backquote($f->database) . Util::backquote($f->bookmark)`` -> bookmark."""
    names = _NAME.findall(expr.rsplit(" . ", 1)[-1])
    return names[-1].lower().replace("_", "") if names else ""


def _run_time_matches(
    ctx: Ctx, table: str, known: set[str]
) -> list[tuple[NodeRow, list[dict[str, Any]]]]:
    """The SQL literals (not in ``known``) with a table named at run time by an expression
    ending in ``table``'s name (``$bookmarkFeature->bookmark`` for ``pma__bookmark``), each
    with those table entries."""
    stems = _stems(table)
    out = []
    for lit in ctx.graph.sql_literals_named_at_run_time(ctx.rev, stems):
        if lit.node_id in known:
            continue
        entries = [
            t
            for t in props_of(lit.props).get("tables", [])
            if t.get("how") == TableHow.DYNAMIC
            and not t.get("name")
            and _last_name(str(t.get("expr") or "")) in stems
        ]
        if entries:
            out.append((lit, entries))
    return out


def _named_at_run_time(ctx: Ctx, table: str, known: set[str]) -> list[dict[str, Any]]:
    """``_run_time_matches`` as table_usage items: possibly this table, derived
    ``POSSIBLE_CONFIDENCE``, with the expression as ``runtime_parts``."""
    matches = _run_time_matches(ctx, table, known)
    holders: dict[str, str] = {}
    lit_ids = [lit.node_id for lit, _e in matches]
    for e in ctx.graph.edges_to(ctx.rev, lit_ids, (EdgeKind.CONTAINS,)):
        holders.setdefault(e.dst, e.src)
    rows = ctx.graph.nodes_by_ids(ctx.rev, set(holders.values()))
    out: list[dict[str, Any]] = []
    for lit, entries in matches:
        h = rows.get(holders.get(lit.node_id, ""))
        item = _sql_item(ctx, lit, ctx.node(h) if h is not None else None, None, table, entries)
        item.update(
            {
                "provenance": Provenance.DERIVED,
                "confidence": POSSIBLE_CONFIDENCE,
                "via": "runtime_name",
            }
        )
        out.append(item)
    out.sort(key=lambda it: (it["sql"]["path"], it["sql"]["start_line"] or 0))
    return out


def named_at_run_time_count(ctx: Ctx, table: str) -> int:
    """How many statements ``table_usage`` would list as ``possible`` for ``table``
    (counted, not read: no line text, no holder)."""
    return len(_run_time_matches(ctx, table, set()))


def table_usage(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Who reads and writes a table (or view): every SQL string linked to it with its
    operation, the table's role in it (read / write), its columns (or the explicit
    marker "unknown" when the text does not list them, e.g. SELECT * or dynamic SQL),
    evidence path:line, provenance and confidence (stated on an exact name match;
    derived 0.40 for SELECT *, dynamic assembly or a configured prefix); the symbols
    and files holding them. `unlinked` lists SQL that names the table without an edge
    (the table is unknown to the schema, e.g. when the schema is incomplete); `possible`,
    SQL whose table is named at run time by an expression ending in this table's name
    (`$bookmarkFeature->bookmark` for pma__bookmark: derived 0.3, not in `total`);
    `models`, the ORM classes that map to the table, with how many references to them the
    index holds: Eloquent models (by `$table` or Laravel's naming convention) and Doctrine
    entities (by their `Table` mapping, else the naming strategy's name; `mapping` says
    where)."""
    ctx.touch(SCHEMA_PATH)  # a schema_change in the ledger warns this answer
    table = args["table"].strip()
    _source, incomplete = _schema_state(ctx)
    targets = ctx.graph.db_objects_named(ctx.rev, table)
    table_limits(ctx, targets)
    target_nodes = [ctx.node(t) for t in targets]
    usage = _linked_sql(ctx, table, targets)
    role = args.get("role") or "any"
    unlinked = _unlinked_sql(ctx, table, usage)
    possible = _named_at_run_time(
        ctx, table, usage.linked | {it["sql"]["node_id"] for it in unlinked}
    )
    key = lambda it: (  # noqa: E731
        it["provenance"] != Provenance.STATED,
        it["sql"]["path"],
        it["sql"]["start_line"] or 0,
        it["sql"]["fqn"] or "",
    )
    usage.readers.sort(key=key)
    usage.writers.sort(key=key)
    unlinked.sort(key=key)
    total = len(usage.linked)
    if possible:
        ctx.limits.append(
            f"table_usage: {len(possible)} SQL statement(s) name their table at run time by an"
            f" expression ending in a name like '{sanitize.clean(table)}' (e.g."
            f" {possible[0]['runtime_parts'][0]}): listed under `possible`, derived"
            f" {POSSIBLE_CONFIDENCE}, not counted in `total`"
        )
    models = _mapped_classes(ctx, table, list(usage.entities.values()))
    if role != "any":
        unlinked, possible = _keep_role(ctx, role, usage, unlinked, possible)
    pager = Pager(args, ORDER_USAGE)
    out: dict[str, Any] = {
        "table": sanitize.clean(table),
        "role": role,
        "target": target_nodes,
        "readers": pager.cut("readers", usage.readers),
        "writers": pager.cut("writers", usage.writers),
        "symbols": pager.cut(
            "symbols",
            sorted(usage.symbols.values(), key=lambda s: (s["fqn"] or "", s["path"] or "")),
        ),
        "files": pager.cut("files", sorted(usage.files)),
        "unlinked": pager.cut("unlinked", unlinked),
        "possible": pager.cut("possible", possible),
        "models": models,
        "counts": dict(sorted(usage.counts.items())),
        "total": total,
        "page": pager.page(),
    }
    if not targets:
        nearest = _nearest_tables(ctx, table)
        out["nearest"] = nearest
        out["hint"] = (
            f"table '{sanitize.clean(table)}' is not in the schema of {ctx.rev}"
            + (f"; nearest: {', '.join(nearest)}" if nearest else "")
            + ("; `unlinked` lists SQL naming it" if unlinked else "")
            + ("" if incomplete is None else " (the schema is incomplete)")
        )
    return out


def _keep_role(
    ctx: Ctx,
    role: str,
    usage: _Usage,
    unlinked: list[dict[str, Any]],
    possible: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``table_usage`` with ``role`` write or read: the other list emptied, the symbols,
    files, unlinked and possible statements narrowed to those in that role; the limits
    say how many statements were left out (``counts`` still counts them all)."""
    wanted = TableRole(role)
    writes = wanted is TableRole.WRITE

    def keep(it: dict[str, Any]) -> bool:
        return wanted in it["roles"]

    left = usage.readers if writes else usage.writers
    left_out = [it for it in left if not keep(it)]
    if writes:
        usage.readers = []
    else:
        usage.writers = []
    field_name = "writes" if writes else "reads"
    usage.symbols = {k: v for k, v in usage.symbols.items() if v[field_name]}
    kept = [*usage.writers, *usage.readers, *(it for it in unlinked if keep(it))]
    usage.files = {it["sql"]["path"] or "" for it in kept}
    verb, other = ("write", "read") if writes else ("read", "write")
    ctx.limits.append(
        f"table_usage: only what {verb}s the table (role={role}): {len(left_out)} statement(s)"
        f" that only {other} it are left out, and so are the symbols and files that only"
        f" {other} it (`counts` and `total` count every statement; role=any lists them)"
    )
    return [it for it in unlinked if keep(it)], [it for it in possible if keep(it)]


@dataclass
class _Usage:
    """The SQL strings linked to a table, as ``table_usage`` lists them."""

    readers: list[dict[str, Any]] = field(default_factory=list)
    writers: list[dict[str, Any]] = field(default_factory=list)
    symbols: dict[str, dict[str, Any]] = field(default_factory=dict)  # holder id -> its counts
    files: set[str] = field(default_factory=set)
    linked: set[str] = field(default_factory=set)  # the SQL literals' node ids
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # by operation
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)  # ORM entities mapped


def _linked_sql(ctx: Ctx, table: str, targets: list[NodeRow]) -> _Usage:
    """The SQL strings whose ``references_table`` edges reach the targets, each a reader
    and / or a writer, counted for the symbol holding it; the ORM entities whose mapping
    reaches them (Doctrine) apart."""
    usage = _Usage()
    edges = ctx.graph.edges_to(ctx.rev, [t.node_id for t in targets], (EdgeKind.REFERENCES_TABLE,))
    lit_ids = [e.src for e in edges]
    lits = ctx.graph.nodes_by_ids(ctx.rev, lit_ids)
    holders_of: dict[str, str] = {}
    for e in ctx.graph.edges_to(ctx.rev, lit_ids, (EdgeKind.CONTAINS,)):
        holders_of.setdefault(e.dst, e.src)
    holder_rows = ctx.graph.nodes_by_ids(ctx.rev, set(holders_of.values()))
    for e in edges:
        lit = lits.get(e.src)
        if lit is None or e.src in usage.linked:
            continue
        if lit.kind != NodeKind.SQL_LITERAL:  # an ORM entity's mapping (Doctrine)
            usage.entities.setdefault(e.src, orm.entity_item(ctx, lit, e))
            continue
        usage.linked.add(e.src)
        h = holder_rows.get(holders_of.get(e.src, ""))
        holder = ctx.node(h) if h is not None else None
        item = _sql_item(ctx, lit, holder, e, table)
        usage.counts[item["operation"]] += 1
        if TableRole.WRITE in item["roles"]:
            usage.writers.append(item)
        if TableRole.READ in item["roles"]:
            usage.readers.append(item)
        usage.files.add(lit.path or "")
        if holder is not None:
            entry = usage.symbols.setdefault(holder["node_id"], {**holder, "reads": 0, "writes": 0})
            entry["reads"] += 1 if TableRole.READ in item["roles"] else 0
            entry["writes"] += 1 if TableRole.WRITE in item["roles"] else 0
    return usage


def _unlinked_sql(ctx: Ctx, table: str, usage: _Usage) -> list[dict[str, Any]]:
    """The SQL strings naming the table without an edge to it (their files added to
    ``usage.files``)."""
    unlinked = []
    for lit in ctx.graph.sql_literals_naming(ctx.rev, table):
        if lit.node_id in usage.linked:
            continue
        unlinked.append(_sql_item(ctx, lit, None, None, table))
        usage.files.add(lit.path or "")
    return unlinked


def _mapped_classes(ctx: Ctx, table: str, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``models``: the Eloquent models and Doctrine entities that map to the table, by
    name; the limits say their queries are calls, not among the readers and writers."""
    models = orm.models_of(ctx, table)
    for label, group, queries in (
        ("Eloquent model(s)", models, "Model::where(...), $model->save()"),
        ("Doctrine entit(y/ies)", entities, "$em->persist($e), $repo->findBy(...)"),
    ):
        if group:
            names = ", ".join(str(m["fqn"]) for m in group[:3]) + (" ..." if len(group) > 3 else "")
            ctx.limits.append(
                f"table_usage: {len(group)} {label} map to this table ({names}; result.models):"
                f" their queries ({queries}) are calls, not SQL strings, and are not among the"
                " readers and writers; `references` of the class lists its uses"
            )
    return sorted([*models, *entities], key=lambda m: (m["fqn"] or "", m["path"] or ""))

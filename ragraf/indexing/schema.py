"""The database schema of a revision: live information_schema and migrations.

The indexer calls ``build`` before resolving, so SQL found in code can be
matched against the tables it returns (``table_index``).

Invariants a change must keep:
- Migrations are the corpus files matched by the globs of ``db.schema_source``
  (every entry except ``information_schema`` and ``auto``), applied first in
  path order, then, when ``auto`` is listed, the corpus SQL files that
  ``ragraf.sql.discover`` picks (its rule: mostly DDL, one dialect, bases
  before histories, version order). Every corpus SQL file seen is reported:
  ``schema.file`` (used, with its dialect and why) or ``schema.rejected``
  (with why), so ``status`` and ``schema`` can say where the schema came from.
- A duplicate foreign key (the same column pair declared twice) is one
  ``db_fk`` row and one ``fk_to`` edge.
- The live schema is read only when ``information_schema`` is in
  ``db.schema_source`` and a server is configured (``db.dsn`` or the
  ``RAGRAF_DB_*`` variables), with ``db.connect_timeout``. When it is read,
  it is the schema (source ``information_schema``) and the migrations only
  give evidence and divergences; otherwise the migrations are the schema
  (source ``migration``) and ``incomplete`` says why. Nothing here raises on
  an unreachable server, a bad DSN or bad SQL.
- No password reaches a message, a row or a log: reasons come from
  ``ragraf.store.mysql_live``, which scrubs them, and the DSN is never quoted.
- Evidence (P3): a table, column, view or foreign key carries the path:line
  of the migration statement that defined it (the CREATE, or the ALTER that
  last added / changed / renamed a column). A live object that no migration
  defines carries ``db://schema:1`` (the live database as a whole: the same
  path the drift ledger uses for schema changes).
- Ids are content-derived (§5.3): ``node_id(kind, fqn, evidence path,
  evidence line)``; ``table_id`` is the db_table node id; column fqn is
  ``table.column``. Output is sorted, so two builds of one state agree.
- ``db.dsn_from`` names a code file holding credentials: it is never read
  here; only which other PHP files mention it is recorded (coverage).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragraf import ids
from ragraf.config import Config, DbConfig
from ragraf.corpus import ScannedFile
from ragraf.globs import GlobError, GlobSet
from ragraf.indexing.resolve import Resolved
from ragraf.indexing.resolve.link_memo import orm_tables
from ragraf.indexing.resolve.sqlrefs import SYSTEM_SCHEMAS
from ragraf.kinds import EdgeKind, Layer, NodeKind, ParseStatus, Provenance, TableHow
from ragraf.model import (
    SCHEMA_PATH,
    CoverageRow,
    DbColumnRow,
    DbFkRow,
    DbTableRow,
    EdgeRow,
    NodeRow,
    props_of,
)
from ragraf.sql import dbschema, discover, sqltext
from ragraf.sql.schema_notes import divergence_note, file_note
from ragraf.store import mysql_live

LIVE_PATH = SCHEMA_PATH
SOURCE_LIVE_NAME = "information_schema"  # the db.schema_source entry for the live schema
LIVE_EVIDENCE = (LIVE_PATH, 1)
_SOURCES = {
    dbschema.SOURCE_LIVE: json.dumps(["information_schema"]),
    dbschema.SOURCE_MIGRATION: json.dumps(["migration"]),
}
MAX_NOTE_PATHS = 20


@dataclass
class SchemaResult:
    table_rows: list[DbTableRow] = field(default_factory=list)
    column_rows: list[DbColumnRow] = field(default_factory=list)
    fk_rows: list[DbFkRow] = field(default_factory=list)
    nodes: list[NodeRow] = field(default_factory=list)
    edges: list[EdgeRow] = field(default_factory=list)
    coverage: list[CoverageRow] = field(default_factory=list)
    table_index: dict[str, str] = field(default_factory=dict)  # lower table name -> node_id
    source: str = "none"  # information_schema | migration | none
    incomplete: str | None = None  # why the schema may be incomplete
    divergences: list[dbschema.Divergence] = field(default_factory=list)
    problems: list[dbschema.Problem] = field(default_factory=list)
    plan: discover.Plan = field(default_factory=discover.Plan)
    sql_files: int = 0  # .sql files in the corpus
    #: the ids of the nodes ``add_code_tables`` made (tables known only from code, their
    #: columns): rows of the revision as a whole, not of the files they are placed in
    code_nodes: list[str] = field(default_factory=list)


def build(cfg: Config, files: list[ScannedFile]) -> SchemaResult:
    db = cfg.db
    sources = list(db.schema_source)
    res = SchemaResult()
    migr_files, file_problems, res.plan = _migration_files(
        cfg,
        files,
        [g for g in sources if g not in (SOURCE_LIVE_NAME, discover.AUTO)],
        discover.AUTO in sources,
        db.dialect,
    )
    res.sql_files = sum(1 for f in files if _is_sql(f))
    migr: dbschema.Schema | None = None
    problems: list[dbschema.Problem] = list(file_problems)
    if migr_files:
        migr, parse_problems = _from_migrations(cfg, migr_files, res.plan.dialects)
        problems += parse_problems
    live: dbschema.Schema | None = None
    why: str | None = None
    if SOURCE_LIVE_NAME in sources:
        live, why = mysql_live.live_schema(db.connection())
    schema = live if live is not None else migr
    res.source = schema.source if schema is not None else "none"
    if live is None and SOURCE_LIVE_NAME in sources:
        res.incomplete = f"live schema not read ({why}); " + (
            "tables from migrations only"
            if migr is not None
            else _why_no_schema([g for g in sources if g != SOURCE_LIVE_NAME], res)
        )
    elif schema is None:
        res.incomplete = _why_no_schema(sources, res)
    elif live is None and problems:
        res.incomplete = f"{len(problems)} migration statement(s) not applied (see schema.problem)"
    if schema is not None:
        _rows(res, schema, migr)
    if live is not None and migr is not None:
        res.divergences = dbschema.diff_schemas(live, migr)
    res.problems = problems
    _coverage(res, schema, migr_files, db, files)
    return res


#: the last migrations' schema, in the index folder: {"key": digest of the input, "data":
#: ``dbschema.schema_to_data``}, zlib-compressed JSON: parsing the migrations with sqlglot
#: (and importing it) is not paid again by a reindex that did not change them.
SCHEMA_CACHE = "schema-cache.json.z"


#: the schema the CREATE / ALTER strings in code define (``add_code_tables``, a corpus
#: without a schema file), cached the same way: importing sqlglot and parsing the CREATE
#: TABLE strings is not paid again while they are the same
CODE_SCHEMA_CACHE = "code-schema-cache.json.z"


def _from_migrations(
    cfg: Config, files: list[ScannedFile], dialects: Mapping[str, str]
) -> tuple[dbschema.Schema, list[dbschema.Problem]]:
    """``dbschema.schema_from_migrations`` of ``files``, or the cached result of the same
    input: the same files (path and sha256) in the same order, the same dialects, the same
    ragraf code and sqlglot (``cached_migrations``)."""
    return cached_migrations(
        cfg.layout.index_dir / SCHEMA_CACHE,
        [(f.path, f.sha256, dialects.get(f.path, "mysql")) for f in files],
        lambda: dbschema.schema_from_migrations([(f.path, f.text or "") for f in files], dialects),
    )


def cached_migrations(
    path: Path | None,
    what: Any,
    make: Callable[[], tuple[dbschema.Schema, list[dbschema.Problem]]],
) -> tuple[dbschema.Schema, list[dbschema.Problem]]:
    """``make()``, or its cached result at ``path`` when it was made of the same input
    (``what``: JSON data saying what ``make`` reads), with the same ragraf code and
    sqlglot. Only a cache: missing, unreadable or damaged, it is made again (and a
    read-only or missing folder only costs that); ``path`` None: no cache."""
    import zlib

    from ragraf.indexing.resolve.link_memo import code_fingerprint
    from ragraf.lang.registry import tool_versions

    if path is None:
        return make()
    key = hashlib.sha256(
        json.dumps([code_fingerprint(), tool_versions().get("sqlglot", ""), what]).encode()
    ).hexdigest()
    try:
        got = json.loads(zlib.decompress(path.read_bytes()))
        if isinstance(got, dict) and got.get("key") == key:
            return dbschema.schema_from_data(got.get("data"))
    except (OSError, ValueError, zlib.error):
        pass  # no cache yet, or not one we wrote: parse
    schema, problems = make()
    blob = zlib.compress(
        json.dumps({"key": key, "data": dbschema.schema_to_data(schema, problems)}).encode(), 1
    )
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(blob)
        os.replace(tmp, path)
    except OSError:  # no index folder (yet) or a read-only one: parse again next time
        tmp.unlink(missing_ok=True)
    return schema, problems


def may_change_it(cfg: Config) -> Callable[[str], bool] | None:
    """Whether a change of a path may change the schema: a SQL file, or one the
    ``db.schema_source`` globs name; None when anything may (the live schema is read)."""
    sources = list(cfg.db.schema_source)
    if SOURCE_LIVE_NAME in sources:
        from ragraf.errors import ConfigError, SchemaUnavailable

        try:
            mysql_live.connect_params(cfg.db.connection())
            return None  # a server is configured: its schema may change at any time
        except (SchemaUnavailable, ConfigError):
            pass  # none is: the schema is the migrations'
    globs = [g for g in sources if g != discover.AUTO]
    gs = None
    if globs:
        try:
            gs = GlobSet(globs, case_insensitive=cfg.corpus.case_insensitive_globs)
        except GlobError:
            return None
    return lambda p: p.lower().endswith(".sql") or (gs is not None and gs.match_exact(p))


def _is_sql(f: ScannedFile) -> bool:
    return f.lang == "sql" or f.path.lower().endswith(".sql")


def _migration_files(
    cfg: Config, files: list[ScannedFile], globs: list[str], auto: bool, dialect: str
) -> tuple[list[ScannedFile], list[dbschema.Problem], discover.Plan]:
    """The migration files to apply, in order, the files that could not be read, and the
    discovery plan (which files are used and why, which were seen and rejected)."""
    gs: GlobSet | None = None
    if globs:
        try:
            gs = GlobSet(globs, case_insensitive=cfg.corpus.case_insensitive_globs)
        except GlobError:  # config.load validated them; stay safe anyway
            gs = None
    explicit = {f.path for f in files if gs is not None and gs.match_exact(f.path)}
    problems = []
    readable: dict[str, ScannedFile] = {}
    unread: list[discover.Rejected] = []
    for f in sorted(files, key=lambda f: f.path):
        if f.path not in explicit and not (auto and _is_sql(f)):
            continue
        if f.status == ParseStatus.OK and f.text is not None:
            readable[f.path] = f
        elif f.path in explicit:
            problems.append(
                dbschema.Problem(
                    f.path, 1, f"migration file not read ({f.status}: {f.note or 'no text'})"
                )
            )
        else:
            unread.append(
                discover.Rejected(f.path, f"not read ({f.status}: {f.note or 'no text'})")
            )
    plan = discover.plan(
        [(p, f.text or "") for p, f in readable.items()],
        explicit & set(readable),
        dialect,
        discover=auto,
    )
    plan.rejected = sorted(plan.rejected + unread, key=lambda r: r.path)
    return [readable[u.path] for u in plan.used], problems, plan


def _why_no_schema(sources: list[str], res: SchemaResult) -> str:
    if discover.AUTO in sources:
        if not res.sql_files:
            return (
                "no schema file found: the corpus has no .sql file (include globs); configure"
                " db.dsn or db.schema_source"
            )
        return (
            f"no schema file found: none of the {res.sql_files} .sql file(s) of the corpus holds"
            " mostly DDL (see schema.rejected)"
        )
    if any(g != SOURCE_LIVE_NAME for g in sources):
        return "no migration file matches the db.schema_source globs"
    return "no schema source: db.schema_source names neither information_schema nor migration files"


def _edge(
    src: str,
    dst: str,
    kind: str,
    where: tuple[str, int],
    sources: str,
    props: dict[str, Any] | None = None,
) -> EdgeRow:
    path, line = where
    return EdgeRow(
        src,
        dst,
        kind,
        Provenance.STATED,
        path,
        line,
        1.0,
        sources,
        ids.edge_uid(src, dst, kind, path, line),
        json.dumps(props, sort_keys=True) if props else None,
    )


def _rows(res: SchemaResult, schema: dbschema.Schema, migr: dbschema.Schema | None) -> None:
    sources = _SOURCES.get(schema.source, json.dumps([schema.source]))

    def where(*key: str) -> tuple[str, int] | None:
        return migr.where(*key) if migr is not None else None

    col_ids: dict[tuple[str, str], str] = {}
    for low in sorted(schema.tables):
        t = schema.tables[low]
        tpath, tline = where("table", low) or LIVE_EVIDENCE
        tid = ids.node_id(NodeKind.DB_TABLE, t.name, tpath, tline)
        res.table_index[low] = tid
        res.table_rows.append(DbTableRow(tid, t.name, t.engine, t.row_estimate, t.source))
        props: dict[str, Any] = {"source": t.source, "columns": len(t.columns)}
        if t.engine:
            props["engine"] = t.engine
        if t.row_estimate is not None:
            props["row_estimate"] = t.row_estimate
        res.nodes.append(
            NodeRow(
                tid,
                NodeKind.DB_TABLE,
                t.name,
                t.name,
                tpath,
                tline,
                tline,
                json.dumps(props, sort_keys=True),
                Layer.STRUCTURAL,
            )
        )
        for i, c in enumerate(t.columns, 1):
            at = where("column", low, c.name) or LIVE_EVIDENCE
            col_ids[(low, c.name.lower())] = _add_column(res, tid, t.name, i, c, at, sources)
    for low in sorted(schema.views):
        name = schema.view_names.get(low, low)
        vpath, vline = where("view", low) or LIVE_EVIDENCE
        vid = ids.node_id(NodeKind.DB_VIEW, name, vpath, vline)
        res.table_index.setdefault(low, vid)
        res.nodes.append(
            NodeRow(
                vid,
                NodeKind.DB_VIEW,
                name,
                name,
                vpath,
                vline,
                vline,
                json.dumps({"source": schema.source}, sort_keys=True),
                Layer.STRUCTURAL,
            )
        )
    # one relationship declared twice (inline REFERENCES and a table-level FOREIGN KEY: the
    # server keeps both constraints) is one row and one edge
    unique_fks = {
        (k.from_table.lower(), k.from_column.lower(), k.to_table.lower(), k.to_column.lower()): k
        for k in reversed(schema.fks)
    }
    for fk in sorted(
        unique_fks.values(),
        key=lambda k: (
            k.from_table.lower(),
            k.from_column.lower(),
            k.to_table.lower(),
            k.to_column.lower(),
        ),
    ):
        res.fk_rows.append(DbFkRow(fk.from_table, fk.from_column, fk.to_table, fk.to_column))
        src = col_ids.get((fk.from_table.lower(), fk.from_column.lower()))
        dst = col_ids.get((fk.to_table.lower(), fk.to_column.lower()))
        if src is None or dst is None:
            continue  # a key into another database: the row says it, there is no node to link
        ev = where("fk", fk.from_table, fk.from_column, fk.to_table, fk.to_column) or LIVE_EVIDENCE
        res.edges.append(_edge(src, dst, EdgeKind.FK_TO, ev, sources))
    res.edges.sort(key=lambda e: e[8])


#: the edge ``via`` of a link to a table known only from code
VIA_NO_SCHEMA = "no_schema"
#: table names listed in a coverage note before "..."
MAX_NOTE_NAMES = 30


def add_code_tables(
    res: SchemaResult, resolved: Resolved, conf: dict[str, float], cache: Path | None = None
) -> None:
    """After resolving: the tables SQL in code names, as the schema sees them.

    Without a schema (no table known), the resolver linked every table a SQL
    string names to ``dbschema.code_table_id``: each gets a ``db_table`` node of
    source ``code`` (evidence: the first string naming it, by path and line) and
    the edges to it become derived (``via: no_schema``, confidence at most
    ``sql_dynamic``): the table's existence is inferred, its columns unknown.
    With a schema, the names it does not know are listed in coverage
    (``schema.unknown_tables``).

    A scoped run (``resolved.scope_paths``) holds the nodes of some files only: what is
    read of every file then comes from the files' shares (``Resolved.named``, ``uses``,
    ``ddl``, the memo's for the files not resolved again), and the rows made here are
    whole all the same (``code_nodes``: a scoped write replaces them whatever their path).
    ``cache``: where the schema of the DDL in code is kept between builds
    (``CODE_SCHEMA_CACHE``)."""
    names = _names_in_code(res, resolved)
    if res.table_index:
        res.coverage.append(_unknown_tables(res, names))
        return
    code_ids = {dbschema.code_table_id(low): low for low in names.named}
    # every table named is linked (the linker links each name to its code_table_id); a
    # scoped run holds the edges of some files only
    scoped = resolved.scope_paths is not None
    linked = set(code_ids) if scoped else {e.dst for e in resolved.edges if e.dst in code_ids}
    defined = _created_in_code(names.ddl, cache)
    with_columns = _code_table_nodes(res, names, code_ids, linked, defined)
    if resolved.memo is not None:  # what the next scoped write replaces (``scoped``)
        resolved.memo.code_nodes = sorted(res.code_nodes)
    _derive_links(resolved, linked, conf.get("sql_dynamic", 0.4))
    res.coverage.append(
        CoverageRow(
            "schema.code_tables",
            float(len(linked)),
            "no schema found: tables named by SQL strings in code (derived"
            + (
                f"; columns of {with_columns} from the CREATE TABLE statements in code)"
                if with_columns
                else ", columns unknown)"
            )
            if linked
            else None,
        )
    )


#: where a table known from code is defined: (not created, path, line, spelling), the least
#: first (the first CREATE statement naming it, else the first string naming it)
_Definition = tuple[bool, str, int, str]


@dataclass
class _CodeNames:
    """The tables SQL in code names, over every file."""

    named: dict[str, _Definition] = field(default_factory=dict)  # lower name -> definition
    uses: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # -> files
    #: the DDL statements of SQL strings: (path, line, owner fqn, table, statement)
    ddl: list[tuple[str, int, str, str, str]] = field(default_factory=list)


def _names_in_code(res: SchemaResult, resolved: Resolved) -> _CodeNames:
    """The tables the SQL strings name (a scoped run: every file's share, ``Resolved.named``,
    ``uses``, ``ddl``), and those ORM entities map to when there is no schema."""
    names = _CodeNames()
    named, uses = names.named, names.uses
    scoped = resolved.scope_paths is not None
    if scoped:  # some files' nodes only: every file's share
        named.update(resolved.named)
        uses.update((low, set(paths)) for low, paths in resolved.uses.items())
        names.ddl = list(resolved.ddl)
    for n in resolved.nodes if not scoped else ():
        if n.kind != NodeKind.SQL_LITERAL:
            continue
        p = props_of(n.props)
        created = p.get("operation") == "create"
        owner = (n.fqn or "").split("#sql@", 1)[0]
        names.ddl += [
            (n.path or "", n.start_line or 0, owner, str(t), str(x)) for t, x in p.get("ddl") or ()
        ]
        for t in p.get("tables", []):
            name = t.get("name")
            if not name or (t.get("schema") or "").lower() in SYSTEM_SCHEMAS:
                continue
            if t.get("how") == TableHow.ENTITY:  # DQL's entity class: its mapping names the table
                continue
            low = str(name).lower()
            at = (not created, n.path or "", n.start_line or 0, str(name))
            if low not in named or at < named[low]:
                named[low] = at
            uses[low].add(n.path or "")
    # the tables ORM entities map to (with a schema they are tables it knows: nothing to add)
    for name, path, line in orm_tables(resolved.edges if not (scoped or res.table_index) else ()):
        low = name.lower()
        at = (True, path, line, name)
        if low not in named or at < named[low]:
            named[low] = at
        uses[low].add(path)
    return names


def _unknown_tables(res: SchemaResult, names: _CodeNames) -> CoverageRow:
    """With a schema: the names SQL in code uses that it does not know."""
    unknown = sorted(low for low in names.named if low not in res.table_index)
    return CoverageRow(
        "schema.unknown_tables",
        float(len(unknown)),
        ", ".join(names.named[u][3] for u in unknown[:MAX_NOTE_NAMES])
        + (" ..." if len(unknown) > MAX_NOTE_NAMES else "")
        or None,
    )


def _code_table_nodes(
    res: SchemaResult,
    names: _CodeNames,
    code_ids: dict[str, str],
    linked: set[str],
    defined: dbschema.Schema,
) -> int:
    """A ``db_table`` node of source ``code`` for each table linked (evidence: its
    definition), with the columns DDL in code gives it; ``res.code_nodes`` their ids.
    Returns how many tables have columns."""
    with_columns = 0
    first = len(res.nodes)
    for tid in sorted(linked):
        low = code_ids[tid]
        _not_created, path, line, spelling = names.named[low]
        t = defined.tables.get(low)
        props = {
            "source": dbschema.SOURCE_CODE,
            "columns": len(t.columns) if t is not None else None,
            "files": len(names.uses[low]),
        }
        if t is not None:
            with_columns += 1
            _code_columns(res, tid, spelling, t, defined)
        res.nodes.append(
            NodeRow(
                tid,
                NodeKind.DB_TABLE,
                spelling,
                spelling,
                path,
                line,
                line,
                json.dumps(props, sort_keys=True),
                Layer.STRUCTURAL,
            )
        )
    res.code_nodes = [n.node_id for n in res.nodes[first:]]
    return with_columns


def _derive_links(resolved: Resolved, linked: set[str], cap: float) -> None:
    """The edges to a table known only from code become derived (``via: no_schema``,
    confidence at most ``cap``): the table's existence is inferred."""
    for i, e in enumerate(resolved.edges):
        if e.dst not in linked:
            continue
        eprops = props_of(e.props)
        eprops.setdefault("via", VIA_NO_SCHEMA)
        resolved.edges[i] = e._replace(
            provenance=Provenance.DERIVED,
            confidence=min(e.confidence, cap),
            props=json.dumps(eprops, sort_keys=True),
        )


#: a file of schema migrations (by folder or name: ``database/migrations/``, Doctrine's
#: ``Version20231201120000.php``): its ALTER / DROP TABLE statements are applied too
_MIGRATION_PATH = re.compile(r"(?i)(?:^|/)[^/]*migrat[^/]*(?:/|$)|(?:^|/)Version\d{8,}\w*\.php$")


def _created_in_code(
    ddl: list[tuple[str, int, str, str, str]], cache: Path | None = None
) -> dbschema.Schema:
    """The tables the DDL of SQL in code defines, applied in path and line order like
    migrations (the first definition of a name stands: a later CREATE of the same table is a
    problem of the migrator, not applied). CREATE TABLE counts wherever it is; ALTER and DROP
    only in migration files (an upgrade routine elsewhere changes old databases, not the
    current schema), and never in a migration's ``down()`` (it undoes ``up()``)."""
    files = [
        (path, "\n" * (line - 1) + text.replace(sqltext.DDL_TABLE, f"`{name}`", 1) + ";")
        for path, line, owner, name, text in sorted(ddl)
        if "__rg" not in text.replace(sqltext.DDL_TABLE, "", 1)  # a column named at run time
        and (
            text.lstrip().upper().startswith("CREATE")
            or (_MIGRATION_PATH.search(path) is not None and not owner.lower().endswith("::down"))
        )
    ]
    schema, _problems = cached_migrations(
        cache, files, lambda: dbschema.schema_from_migrations(files)
    )
    return schema


def _code_columns(
    res: SchemaResult, tid: str, name: str, t: dbschema.Table, defined: dbschema.Schema
) -> None:
    """The columns of a table known from code that a CREATE TABLE in code defines: rows
    and nodes as a schema's (source ``code``), evidence the statement's line."""
    low = name.lower()
    res.table_rows.append(DbTableRow(tid, name, t.engine, None, dbschema.SOURCE_CODE))
    sources = json.dumps([dbschema.SOURCE_CODE])
    for i, c in enumerate(t.columns, 1):
        at = defined.where("column", low, c.name) or ("", 0)
        _add_column(res, tid, name, i, c, at, sources, dbschema.SOURCE_CODE)


def _add_column(
    res: SchemaResult,
    tid: str,
    table: str,
    ordinal: int,
    c: dbschema.Column,
    at: tuple[str, int],
    sources: str,
    source: str | None = None,
) -> str:
    """A column's db_column row, its node (evidence ``at``) and the contains edge from its
    table; returns the node id. ``source``: the column's own source (``code``), if any."""
    cpath, cline = at
    fqn = f"{table}.{c.name}"
    cid = ids.node_id(NodeKind.DB_COLUMN, fqn, cpath, cline)
    res.column_rows.append(DbColumnRow(tid, c.name, c.data_type, 1 if c.nullable else 0, c.key))
    cprops: dict[str, Any] = {"data_type": c.data_type, "nullable": c.nullable, "ordinal": ordinal}
    if source is not None:
        cprops["source"] = source
    if c.key:
        cprops["key"] = c.key
    res.nodes.append(
        NodeRow(
            cid,
            NodeKind.DB_COLUMN,
            c.name,
            fqn,
            cpath,
            cline,
            cline,
            json.dumps(cprops, sort_keys=True),
            Layer.STRUCTURAL,
        )
    )
    res.edges.append(_edge(tid, cid, EdgeKind.CONTAINS, (cpath, cline), sources))
    return cid


def _coverage(
    res: SchemaResult,
    schema: dbschema.Schema | None,
    migr_files: list[ScannedFile],
    db: DbConfig,
    files: list[ScannedFile],
) -> None:
    cov = res.coverage
    cov.append(CoverageRow("schema.source", None, res.source))
    if res.incomplete:
        cov.append(CoverageRow("schema.incomplete", 1.0, res.incomplete))
    n_tables = len(schema.tables) if schema is not None else 0
    cov.append(CoverageRow("schema.tables", float(n_tables), None))
    cov.append(CoverageRow("schema.columns", float(len(res.column_rows)), None))
    cov.append(CoverageRow("schema.foreign_keys", float(len(res.fk_rows)), None))
    cov.append(
        CoverageRow("schema.views", float(len(schema.views) if schema is not None else 0), None)
    )
    paths = [f.path for f in migr_files]
    cov.append(
        CoverageRow(
            "schema.migration_files",
            float(len(paths)),
            ", ".join(paths[:MAX_NOTE_PATHS]) + (" ..." if len(paths) > MAX_NOTE_PATHS else "")
            or None,
        )
    )
    plan = res.plan
    if plan.dialect:
        cov.append(CoverageRow("schema.dialect", None, plan.dialect))
    for u in plan.used:
        cov.append(CoverageRow("schema.file", None, file_note(u.path, u.dialect, u.why)))
    cov.append(CoverageRow("schema.files_rejected", float(len(plan.rejected)), None))
    for r in plan.rejected:
        cov.append(CoverageRow("schema.rejected", None, f"{r.path}: {r.why}"))
    cov.append(CoverageRow("schema.problems", float(len(res.problems)), None))
    for p in res.problems:
        cov.append(CoverageRow("schema.problem", None, f"{p.path}:{p.line} {p.message}"))
    cov.append(CoverageRow("schema.divergences", float(len(res.divergences)), None))
    for d in res.divergences:
        cov.append(CoverageRow("schema.divergence", None, divergence_note(d)))
    dsn_from = db.dsn_from
    if dsn_from:
        refs = _mentions(str(dsn_from), files)
        cov.append(
            CoverageRow(
                "schema.dsn_from",
                float(len(refs)),
                f"{dsn_from} holds the credentials: its values are never read or indexed; mentioned by "
                + (
                    ", ".join(refs[:MAX_NOTE_PATHS])
                    + (" ..." if len(refs) > MAX_NOTE_PATHS else "")
                    if refs
                    else "no other PHP file"
                ),
            )
        )


def _mentions(target: str, files: list[ScannedFile]) -> list[str]:
    """PHP files (other than ``target``) whose text names ``target``'s file name."""
    base = posixpath.basename(target)
    if not base:
        return []
    out = []
    for f in files:
        if f.path == target or f.lang != "php" or not f.text:
            continue
        if base in f.text:
            out.append(f.path)
    return sorted(out)

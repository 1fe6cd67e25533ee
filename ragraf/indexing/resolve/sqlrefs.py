"""SQL in strings and ORM mappings -> ``sql_literal`` nodes and table edges (§6.2): the
linker's resolver of ``SqlRef``, ``BuilderCallRef``, ``TablePrefixRef`` and ``OrmTableRef``,
whichever language's strings hold the SQL.

Invariants: those of ``ragraf.indexing.resolve`` on SQL in strings, table names from code
and ORM entities. Besides:
- A table name built in code is resolved only through the recorded lookups ``tn_known``
  and ``tn_resolve`` (``TableNames``, made once from every file's facts), an entity's table
  through ``entity_table`` (the entities are read of every file before linking).
- A string's literal node is the file's (fqn ``<owner fqn>#sql@<line>``, ``#2``... for more
  on one line); the file's literals by line are in ``Context.sql_literals`` for the
  handlers that run after (a request's flows to SQL).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, NamedTuple

from ragraf import ids
from ragraf.indexing.resolve.context import Context
from ragraf.indexing.resolve.tablenames import QueryBuilders, TableNames
from ragraf.kinds import (
    EdgeKind,
    FragmentKind,
    Layer,
    NodeKind,
    OrmHow,
    TableHow,
    TableRole,
    TargetKind,
)
from ragraf.lang.facts import (
    BuilderCallRef,
    FileFacts,
    OrmTableRef,
    SqlAnalysis,
    SqlRef,
    SqlTable,
    TableArgRef,
    TableForwardRef,
    TableListRef,
    TableParamRef,
    TablePrefixRef,
    Target,
)
from ragraf.lang.linking import EdgeSpec
from ragraf.model import NodeRow
from ragraf.sql import dbschema, sqltext

SOURCES_SQL = json.dumps(["tree-sitter", "sqlglot"])
SOURCES_SQL_REGEX = json.dumps(["tree-sitter", "regex"])
SOURCES_SQL_CALL = json.dumps(["tree-sitter"])
#: the prop of an ORM entity's ``references_table`` edge that names its table as mapped
ORM_TABLE = "orm_table"
SYSTEM_SCHEMAS = frozenset({"information_schema", "mysql", "performance_schema", "sys"})
#: how many calls deep a table parameter is followed to the SQL naming the table
MAX_FORWARDS = 4
#: the longest name of a sql_literal node (its fqn carries the full identity)
SQL_NAME_CHARS = 120
#: how a table's name was found, surest first: the edge's ``via`` follows the surest
_NAME_HOWS = (TableHow.EXACT, TableHow.PREFIX_RESOLVED, TableHow.CODE_RESOLVED, TableHow.ENTITY)
#: table node id -> (roles, how its names were found, vias) of the names a string gives it
Found = dict[str, tuple[set[str], set[str], set[str]]]


class Analysed(NamedTuple):
    """A SQL string as the linker reads it."""

    info: SqlAnalysis
    call: str | None  # a query-builder call's label
    listed: bool  # a list fragment's names: only the tables the schema or code knows
    #: each table, with the ``via`` of a name resolved from code
    tables: list[tuple[SqlTable, str | None]]
    #: index into ``tables`` -> its own (operation, columns) in a string of several statements
    own: dict[int, tuple[str, tuple[str, ...] | None]]
    #: DQL's entity classes -> (table, node id) their mappings name
    entities: dict[str, tuple[str, str] | None]


class SqlResolver:
    def __init__(
        self,
        ctx: Context,
        files: list[FileFacts],
        tables: dict[str, str],
        prefixes: dict[str, str],
        code_tables: bool,
        table_helpers: tuple[str, ...],
        query_builders: QueryBuilders,
    ) -> None:
        """``files`` is the linker's list (read when the first string is linked),
        ``tables`` lower table name -> db_table node id; ``code_tables``: no schema, every
        table SQL names gets a node."""
        self.ctx = ctx
        self.files = files
        self.code_tables = code_tables
        self.tables = tables
        self.prefixes = prefixes  # db.table_prefixes
        self.prefix_keys = {sqltext.norm_dyn(k) for k in prefixes}
        self.table_helpers = table_helpers  # db.table_helpers
        self.query_builders = query_builders  # db.query_builders
        self._ordinals: dict[tuple[str, int, int], int] = {}  # (path, owner, line) -> last
        self.table_names: TableNames | None = None  # made by the first string
        #: an ORM entity's class fqn (lower) -> the tables its mapping may name, in order
        #: (``OrmTableRef``: Doctrine), for DQL, which names entities where SQL names tables
        self.entity_tables: dict[str, tuple[str, ...]] = {}
        #: a function's node id -> the tables its SQL names by a parameter (``TableParamRef``)
        self._params: dict[str, list[tuple[int, str, str, str]]] | None = None
        self._builders: tuple[str, set[tuple[int, int, str]]] = ("", set())
        self._param_names: set[str] = set()
        self.table_params = ctx.lookup("table_params", self._table_params)
        self.table_param_named = ctx.lookup("table_param_named", self._table_param_named)
        self.tn_known = ctx.lookup("tn_known", self._known)
        self.tn_resolve = ctx.lookup("tn_resolve", self._resolve)
        self.entity_table = ctx.lookup("entity_table", self._entity_tables)

    # -- tables ------------------------------------------------------------------------------
    def collect(self, f: FileFacts, ref: OrmTableRef) -> None:
        """An entity's tables, read of every file before linking (a stated table wins)."""
        key = f.nodes[ref.owner].fqn.lower()
        if key not in self.entity_tables or ref.how == OrmHow.TABLE_ATTRIBUTE:
            self.entity_tables[key] = ref.tables

    def _entity_tables(self, fqn: str) -> tuple[str, ...] | None:
        """The tables the mapping of the ORM entity ``fqn`` (lower case) may name, or None
        when no entity of the corpus has that name."""
        return self.entity_tables.get(fqn.lstrip("\\"))

    def names(self) -> TableNames:
        """The corpus' table-name conventions (made once, from every file's facts)."""
        if self.table_names is None:
            self.table_names = TableNames.of(self.files, self.tables, self.table_helpers)
        return self.table_names

    def _known(self, name: str) -> bool:
        return self.names().is_known(name)

    def _resolve(self, t: SqlTable) -> tuple[str, str] | None:
        return self.names().resolve(t)

    def _mapped_table(self, tables: tuple[str, ...]) -> tuple[str, str] | None:
        """(name, table node id) of the first of an entity's candidate tables the schema
        knows; without a schema the first, as code names it; else None."""
        name = next((t for t in tables if t.lower() in self.tables), None)
        if name is not None:
            return name, self.tables[name.lower()]
        if self.code_tables and tables:
            return tables[0], dbschema.code_table_id(tables[0])
        return None

    def _entity_table(self, cls: str) -> tuple[str, str] | None:
        """(name, table node id) of the table the corpus's entity ``cls`` maps to."""
        tables = self.entity_table(cls.lower())
        return self._mapped_table(tables) if tables else None

    def _table_param_named(self, short: str) -> bool:
        """Whether some function or method of that short name (lower) names its SQL's
        table by a parameter (``_table_params``)."""
        self._table_params("")
        return short in self._param_names

    def _table_params(self, fid: str) -> list[tuple[int, str, str, str]]:
        """(position, operation, role, prefix) of each parameter naming the table of a SQL
        string of function / method ``fid``: its own strings' (``TableParamRef``) and, up to
        ``MAX_FORWARDS`` calls deep, those of the functions it passes the parameter on to
        (``TableForwardRef``), read of every file."""
        if self._params is None:
            got: dict[str, list[tuple[int, str, str, str]]] = {}
            names: set[str] = set()  # the short names (lower) of the functions in ``got``
            forwards: list[tuple[str, str, str, TableForwardRef]] = []
            for f in self.files:
                for r in f.refs:
                    if isinstance(r, TableParamRef):
                        entry = (r.position, r.operation, str(r.role), r.prefix)
                        lst = got.setdefault(f.node_id(r.owner), [])
                        if entry not in lst:
                            lst.append(entry)
                        names.add(f.nodes[r.owner].name.lower())
                    elif isinstance(r, TableForwardRef):
                        own = f.nodes[r.owner].name.lower()
                        forwards.append((f.node_id(r.owner), own, f.path, r))
            for _round in range(MAX_FORWARDS):
                grew = False
                for src, own, path, r in forwards:
                    c = r.callee
                    short = (c.method or (c.candidates or ("",))[0]).rsplit("\\", 1)[-1]
                    if short.lower() not in names:
                        continue  # no function of that name names a table by a parameter
                    for gid in self._callees(path, c):
                        for pos, op, role, prefix in list(got.get(gid, [])):
                            entry = (r.param, op, role, prefix)
                            lst = got.setdefault(src, [])
                            if pos == r.position and entry not in lst:
                                lst.append(entry)
                                names.add(own)
                                grew = True
                if not grew:
                    break
            self._params, self._param_names = got, names
        return self._params.get(fid, [])

    # -- handlers ------------------------------------------------------------------------------
    def _callees(self, path: str, c: Target) -> list[str]:
        """The declarations a call may reach: a function by its candidates (the first that
        names one), a method of its receiver's classes, else the one method of that name."""
        sym = self.ctx.sym
        if c.kind == TargetKind.FUNCTION:
            for cand in c.candidates:
                fids: list[str] = sym.function_ids(cand.lower())
                if fids:
                    return fids
            return []
        if c.kind != TargetKind.METHOD or not c.method:
            return []
        got: list[str] = sym.methods_of(c.receiver, c.method) if c.receiver is not None else []
        if not got and not (c.receiver is not None and sym.types(c.receiver)):
            named = sym.methods_named(c.method.lower(), path)
            got = named if len(named) == 1 else []
        return got

    def on_table_arg(self, f: FileFacts, owner: str, ref: TableArgRef) -> None:
        """A literal passed where a corpus function names its SQL's table by that parameter
        (``save_record($f, 'orders')``): a ``sql_literal`` of the call, read or write as the
        function's SQL is, its table edges derived (``via: helper_param``)."""
        c = ref.callee
        short = (c.method or (c.candidates or ("",))[0]).rsplit("\\", 1)[-1].lower()
        if not self.table_param_named(short):
            return  # no function of that name names its SQL's table by a parameter
        if (ref.owner, ref.line, ref.table) in self._builder_tables(f):
            return  # a query-builder call names it already (``DB::insert('t', ...)``)
        params = [
            p
            for fid in self._callees(f.path, ref.callee)
            for p in self.table_params(fid)
            if p[0] == ref.position
        ]
        if not params:
            return
        ops = list(dict.fromkeys(op for _pos, op, _role, _pre in params))
        writes = [op for _pos, op, role, _pre in params if role == TableRole.WRITE]
        tables: list[SqlTable] = []
        for _pos, _op, role, prefix in params:
            frags = ((FragmentKind.DYN, prefix),) if prefix else ()
            info = sqltext.analyze_call(ops[0], role, (*frags, (FragmentKind.LIT, ref.table)))
            got = SqlAnalysis.of(info)
            if got is not None:
                tables.extend(got.tables)
        if not tables:
            return
        name = ref.callee.method or (ref.callee.candidates or ("?",))[0]
        label = f"{name}() argument {ref.position + 1}"
        op = writes[0] if writes else ops[0]
        analysis = SqlAnalysis(op, tuple(dict.fromkeys(tables)), None, False, False, False, ())
        if self._link_derived(f, owner, ref.owner, ref.line, analysis, label, "helper_param"):
            self.ctx.stats["sql_tables_via_helper"] += 1

    def _builder_tables(self, f: FileFacts) -> set[tuple[int, int, str]]:
        """(owner, line, literal) of the file's query-builder calls naming a table by a
        literal, each line of the call (made once per file)."""
        if self._builders[0] != f.path:
            got = {
                (r.owner, line, t)
                for r in f.refs
                if isinstance(r, SqlRef) and r.fragments and r.fragments[0][0] == "call"
                for k, t in r.fragments[1:]
                if k == FragmentKind.LIT
                for line in range(r.line, min(r.end_line, r.line + 20) + 1)
            }
            self._builders = (f.path, got)
        return self._builders[1]

    def on_table_list(self, f: FileFacts, owner: str, ref: TableListRef) -> None:
        """An array of table names, or keyed by them (``['users' => ['id', 'name']]``):
        when every name is a table the schema or the code's CREATE TABLEs know, a
        ``sql_literal`` reading each, derived (``via: table_list`` / ``table_map``)."""
        if not all(self.tn_known(n) for n in ref.names):
            return
        tables = tuple(SqlTable(n, TableHow.EXACT, TableRole.READ, None, None) for n in ref.names)
        analysis = SqlAnalysis("other", tables, None, False, False, False, ())
        what = "table_map" if ref.keyed else "table_list"
        if self._link_derived(
            f, owner, ref.owner, ref.line, analysis, what.replace("_", " "), what
        ):
            self.ctx.stats["sql_table_lists"] += 1

    def on_table_param(
        self, f: FileFacts, owner: str, ref: TableParamRef | TableForwardRef
    ) -> None:
        """Read by ``table_params`` before linking; no edge of its own."""

    def _link_derived(
        self,
        f: FileFacts,
        owner: str,
        node: int,
        line: int,
        info: SqlAnalysis,
        label: str,
        via: str,
    ) -> bool:
        """A ``sql_literal`` labelled ``label`` at ``line`` of ``owner`` (node index
        ``node``) naming ``info``'s tables, its edges derived with ``via``; False (nothing
        made) when no table is known."""
        ordinal = self._next_ordinal(f, node, line)
        sql = SqlRef(node, line, line, ((FragmentKind.CALL, label),), info, ordinal)
        a = self.analysed(sql)
        if a is None or not self._found(a, count=False):
            return False
        nid = self._literal(f, owner, sql, a)
        self._link_tables(owner, nid, f.path, line, a, via)
        return True

    def _next_ordinal(self, f: FileFacts, node: int, line: int) -> int:
        """The ordinal of a literal the linker adds at ``line`` of node ``node`` (after the
        file's own SQL strings there)."""
        key = (f.path, node, line)
        if key not in self._ordinals:
            for r in f.refs:
                if isinstance(r, SqlRef) and (f.path, r.owner, r.line) == key:
                    self._ordinals[key] = max(self._ordinals.get(key, 0), r.ordinal)
        ordinal = self._ordinals.get(key, 0) + 1
        self._ordinals[key] = ordinal
        return ordinal

    def on_table_prefix(self, f: FileFacts, owner: str, ref: TablePrefixRef) -> None:
        """Read by ``TableNames.of`` before the first SQL string; no edge of its own."""

    def on_orm_table(self, f: FileFacts, owner: str, ref: OrmTableRef) -> None:
        """A class an ORM maps to a table: ``references_table`` from the class (stated when
        its mapping names the table, derived ``orm_convention`` by a naming strategy). With
        a schema, the first candidate it knows; without one, the first candidate, as code
        names it (``ragraf.indexing.schema.add_code_tables`` makes its node)."""
        ctx = self.ctx
        chosen = self._mapped_table(ref.tables)
        if chosen is None:
            ctx.stats["orm_tables_unknown"] += 1
            return
        name, tid = chosen
        derived = ref.how != OrmHow.TABLE_ATTRIBUTE
        conf = ctx.conf["orm_convention"] if derived else 1.0
        props = {"orm": ref.orm, "how": ref.how, ORM_TABLE: name}
        spec = EdgeSpec(conf, derived, props)
        ctx.add(owner, tid, EdgeKind.REFERENCES_TABLE, f.path, ref.line, spec)
        ctx.stats["orm_entities"] += 1

    def on_builder_candidate(self, f: FileFacts, owner: str, ref: BuilderCallRef) -> None:
        """A call ``db.query_builders`` makes a query builder's: linked as the SqlRef a
        recognised builder call would have been (``via: query_builder``)."""
        op = self.query_builders.operation(ref)
        if op is None:
            return
        frags = ((FragmentKind.LIT, ref.table),)
        info = sqltext.analyze_call(
            op, TableRole.READ if op == "select" else TableRole.WRITE, frags
        )
        if info is None:
            return
        ordinal = self._next_ordinal(f, ref.owner, ref.line)
        sep = "->" if ref.receiver.startswith("$") or ")" in ref.receiver else "::"
        label = f"{ref.receiver}{sep}{ref.method}"
        sql = SqlRef(
            ref.owner, ref.line, ref.line, ((FragmentKind.CALL, label), *frags), None, ordinal
        )
        self.on_sql(f, owner, sql._replace(analysis=SqlAnalysis.of(info)))

    def on_sql(self, f: FileFacts, owner: str, ref: SqlRef) -> None:
        """A SQL string: its ``sql_literal`` node, contained in its owner, and the edges to
        the tables it names (``references_table`` from the literal, ``queries`` from the
        owner)."""
        a = self.analysed(ref)
        if a is None:
            return
        nid = self._literal(f, owner, ref, a)
        self._link_tables(owner, nid, f.path, ref.line, a)

    # -- a string ----------------------------------------------------------------------------
    def sql_info(self, ref: SqlRef) -> tuple[SqlAnalysis | None, str | None]:
        """The analysis of a SQL string (again with ``db.table_prefixes`` when a run-time
        part is a configured one) and, for a query-builder call, its label."""
        info = ref.analysis
        frags = ref.fragments
        call = frags[0][1] if frags and frags[0][0] == "call" else None
        if self.prefix_keys and any(
            k == FragmentKind.DYN and sqltext.norm_dyn(t) in self.prefix_keys for k, t in frags
        ):
            if call is None:
                info = SqlAnalysis.of(sqltext.analyze(frags, self.prefixes))
            elif info is not None and info.tables:
                t0 = info.tables[0]
                info = SqlAnalysis.of(
                    sqltext.analyze_call(info.operation, t0.role, frags[1:], self.prefixes)
                )
        return info, call

    def analysed(self, ref: SqlRef) -> Analysed | None:
        """What the linker makes of a string's analysis: a list fragment's known tables only,
        the names built in code resolved (``TableNames``), DQL's entities mapped; None when
        there is nothing to link."""
        info, call = self.sql_info(ref)
        if info is None:
            return None
        listed = info.operation == "fragment" and any(t.how == TableHow.LISTED for t in info.tables)
        if listed:  # a list fragment's names are tables only when the schema or code knows them
            known = [t._replace(how=TableHow.EXACT) for t in info.tables if self.tn_known(t.name)]
            if not known:
                return None
            info = info._replace(tables=tuple(known))
        # a string of several statements: each table's own operation and columns
        own = {} if listed else {i: (op, cols) for i, op, cols in info.by_table}
        tables: list[tuple[SqlTable, str | None]] = []
        for t in info.tables:
            got = self.tn_resolve(t) if t.how == TableHow.DYNAMIC else None
            if got is None:
                tables.append((t, None))
            else:
                tables.append((t._replace(name=got[0], how=TableHow.CODE_RESOLVED), got[1]))
                self.ctx.stats["sql_tables_from_code"] += 1
        entities = {
            t.name: self._entity_table(t.name) for t, _v in tables if t.how == TableHow.ENTITY
        }
        return Analysed(info, call, listed, tables, own, entities)

    def _literal(self, f: FileFacts, owner: str, ref: SqlRef, a: Analysed) -> str:
        """The string's ``sql_literal`` node, contained in ``owner``; its id."""
        ctx = self.ctx
        info, tables = a.info, a.tables
        path, line = f.path, ref.line
        owner_fqn = f.nodes[ref.owner].fqn
        fqn = f"{owner_fqn}#sql@{line}" + (f"#{ref.ordinal}" if ref.ordinal > 1 else "")
        nid = ids.node_id(NodeKind.SQL_LITERAL, fqn, path, line)
        ctx.sql_literals.setdefault(line, []).append(nid)
        names = list(dict.fromkeys(t.name for t, _v in tables if t.name)) or ["?"]
        props: dict[str, Any] = {
            "operation": info.operation,
            "columns": _listed(info.columns),
            "select_star": info.select_star,
            "dynamic": info.dynamic,  # a resolved name was still built at run time
            "parsed": info.parsed,
            "tables": [_table_props(i, t, via, a) for i, (t, via) in enumerate(tables)],
        }
        if a.call is not None:
            props["call"] = a.call
        if info.problems:
            props["problems"] = list(info.problems)
        ddl = [
            [tables[i][0].name, text]
            for i, text in info.ddl
            if i < len(tables) and tables[i][0].name and tables[i][0].how != TableHow.DYNAMIC
        ]
        if ddl:  # the columns code defines, for a corpus without a schema (add_code_tables)
            props["ddl"] = ddl
        ctx.node(
            NodeRow(
                nid,
                NodeKind.SQL_LITERAL,
                f"{info.operation} {', '.join(names)}"[:SQL_NAME_CHARS],
                fqn,
                path,
                line,
                ref.end_line,
                json.dumps(props, sort_keys=True),
                Layer.STRUCTURAL,
            )
        )
        ctx.add(owner, nid, EdgeKind.CONTAINS, path, line)
        st = ctx.stats
        st["sql_literals"] += 1
        st["sql_calls"] += 1 if a.call is not None else 0
        st["sql_parsed"] += 1 if info.parsed else 0
        st["sql_dynamic"] += 1 if info.dynamic else 0
        st["sql_select_star"] += 1 if info.select_star else 0
        return nid

    def _found(self, a: Analysed, count: bool = True) -> Found:
        """The table nodes a string's names reach (a DQL entity: the table its mapping
        names; without a schema, the table as code names it), with how (``count``: the
        names reaching none counted in the stats)."""
        st = self.ctx.stats if count else defaultdict(int)
        found: Found = {}
        for t, via in a.tables:
            if not t.name:
                st["sql_tables_dynamic"] += 1
                continue
            if t.schema and t.schema.lower() in SYSTEM_SCHEMAS:
                continue
            if t.how == TableHow.ENTITY:  # DQL: the table the entity's mapping names
                mapped = a.entities.get(t.name)
                if mapped is None:
                    st["sql_entities_unknown"] += 1
                    continue
                roles, hows, vias = found.setdefault(mapped[1], (set(), set(), set()))
                roles.add(t.role)
                hows.add(t.how)
                continue
            tid = self.tables.get(t.name.lower())
            if tid is None and self.code_tables:  # no schema: the table as code names it
                # (``self.tables`` stays the schema's: ``names`` reads it, whichever
                # file comes first; the id depends on the name alone)
                tid = dbschema.code_table_id(t.name)
            if tid is None:
                st["sql_tables_unknown"] += 1
                continue
            roles, hows, vias = found.setdefault(tid, (set(), set(), set()))
            roles.add(t.role)
            hows.add(t.how)
            if via:
                vias.add(via)
        return found

    def _link_tables(
        self, owner: str, nid: str, path: str, line: int, a: Analysed, why: str | None = None
    ) -> None:
        """``references_table`` from the literal and ``queries`` from its owner to each
        table the string names: stated, or derived with the reason (``_via``; ``why``
        overrides it: a literal the linker made of something that is no SQL string)."""
        ctx = self.ctx
        found = self._found(a)
        info = a.info
        sources = (
            SOURCES_SQL_CALL
            if a.call is not None
            else SOURCES_SQL
            if info.parsed
            else SOURCES_SQL_REGEX
        )
        for tid in sorted(found):
            roles, hows, vias = found[tid]
            name_how = next((h for h in _NAME_HOWS if h in hows), TableHow.DYNAMIC)
            via = why or _via(name_how, vias, a)
            derived = via is not None
            conf = (
                ctx.conf["orm_convention"]
                if via == "orm_entity"
                else ctx.conf["sql_dynamic"]
                if derived
                else 1.0
            )
            eprops: dict[str, Any] = {"operation": info.operation, "roles": sorted(roles)}
            if via:
                eprops["via"] = via
            spec = EdgeSpec(conf, derived, eprops, sources)
            ctx.add(nid, tid, EdgeKind.REFERENCES_TABLE, path, line, spec)
            ctx.add(owner, tid, EdgeKind.QUERIES, path, line, spec)
            ctx.stats["sql_edges_derived" if derived else "sql_edges_stated"] += 1


def _via(name_how: str, vias: set[str], a: Analysed) -> str | None:
    """Why a string's edge to a table is derived (None: stated), given how the surest of
    its names for the table was found."""
    info = a.info
    if name_how == TableHow.ENTITY:
        return "orm_entity"
    if not info.parsed and a.call is None and not a.listed:
        return "not_parsed"
    if name_how == TableHow.DYNAMIC:
        return "dynamic_table_name"
    if name_how == TableHow.CODE_RESOLVED:
        return min(vias)
    if name_how == TableHow.PREFIX_RESOLVED:
        return "table_prefix"
    if a.call is not None:
        return "query_builder"
    if info.operation == "fragment":
        return "sql_fragment"
    if info.select_star:
        return "select_star"
    if info.dynamic:
        return "dynamic_sql"
    return None


def _table_props(i: int, t: SqlTable, via: str | None, a: Analysed) -> dict[str, Any]:
    """A table of a literal's ``tables`` prop (the ``i``-th of the string)."""
    out: dict[str, Any] = {"name": t.name, "how": t.how, "role": t.role}
    if t.schema:
        out["schema"] = t.schema
    if t.expr:
        out["expr"] = t.expr
    if via:
        out["via"] = via
    if m := a.entities.get(t.name):
        out["table"] = m[0]
    if i in a.own:
        op, cols = a.own[i]
        out["operation"] = op
        out["columns"] = _listed(cols)
    return out


def _listed(cols: tuple[str, ...] | None) -> list[str] | None:
    return None if cols is None else list(cols)

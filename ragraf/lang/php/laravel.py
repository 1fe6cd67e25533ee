"""Laravel's schema builder as DDL: ``Schema::create('users', function (Blueprint $t) {...})``.

A migration's ``Schema::create`` / ``Schema::table`` / ``Schema::drop(IfExists)`` /
``Schema::rename`` call becomes the MySQL statement it runs (``CREATE TABLE``, ``ALTER
TABLE``, ``DROP TABLE``, ``RENAME TABLE``), kept like a CREATE TABLE in a SQL string
(``SqlAnalysis.ddl``, the table named ``ragraf.sql.sqltext.DDL_TABLE``): without a schema
file, ``ragraf.indexing.schema.add_code_tables`` applies the statements in path order (Laravel
names migrations by date), so the tables get their columns.

Invariants a change must keep:
- Only what the call states literally: a column whose name is not a string literal is left
  out, a call whose table name is not one gives nothing.
- Column types are what Laravel's MySQL grammar creates (``string`` -> ``varchar(255)``,
  ``id`` -> ``bigint unsigned`` auto-increment primary key, ``timestamps`` -> two nullable
  ``timestamp`` columns); an unknown column method is left out, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ragraf.lang.php.assemble import call_args
from ragraf.sql.sqltext import DDL_TABLE

if TYPE_CHECKING:
    from tree_sitter import Node

#: Schema:: methods that change the database, and the statement each runs
SCHEMA_METHODS = {
    "create": "create",
    "table": "alter",
    "drop": "drop",
    "dropifexists": "drop",
    "rename": "alter",
}

#: column method -> MySQL type; ``{n}`` / ``{p},{s}`` are filled from the call's arguments
_TYPES: dict[str, str] = {
    "string": "varchar({n})",
    "char": "char({n})",
    "text": "text",
    "tinytext": "tinytext",
    "mediumtext": "mediumtext",
    "longtext": "longtext",
    "integer": "int",
    "tinyinteger": "tinyint",
    "smallinteger": "smallint",
    "mediuminteger": "mediumint",
    "biginteger": "bigint",
    "unsignedinteger": "int unsigned",
    "unsignedtinyinteger": "tinyint unsigned",
    "unsignedsmallinteger": "smallint unsigned",
    "unsignedmediuminteger": "mediumint unsigned",
    "unsignedbiginteger": "bigint unsigned",
    "foreignid": "bigint unsigned",
    "boolean": "tinyint(1)",
    "decimal": "decimal({p},{s})",
    "unsigneddecimal": "decimal({p},{s}) unsigned",
    "float": "float",
    "double": "double",
    "date": "date",
    "datetime": "datetime",
    "datetimetz": "datetime",
    "time": "time",
    "timetz": "time",
    "timestamp": "timestamp",
    "timestamptz": "timestamp",
    "year": "year",
    "json": "json",
    "jsonb": "json",
    "binary": "blob",
    "uuid": "char(36)",
    "foreignuuid": "char(36)",
    "ulid": "char(26)",
    "foreignulid": "char(26)",
    "ipaddress": "varchar(45)",
    "macaddress": "varchar(17)",
}
#: auto-increment primary keys: method -> type
_INCREMENTS = {
    "id": "bigint unsigned",
    "bigincrements": "bigint unsigned",
    "increments": "int unsigned",
    "mediumincrements": "mediumint unsigned",
    "smallincrements": "smallint unsigned",
    "tinyincrements": "tinyint unsigned",
}
#: methods that add fixed nullable columns: method -> [(default name, type)]
_FIXED = {
    "timestamps": [("created_at", "timestamp"), ("updated_at", "timestamp")],
    "timestampstz": [("created_at", "timestamp"), ("updated_at", "timestamp")],
    "nullabletimestamps": [("created_at", "timestamp"), ("updated_at", "timestamp")],
    "softdeletes": [("deleted_at", "timestamp")],
    "softdeletestz": [("deleted_at", "timestamp")],
    "remembertoken": [("remember_token", "varchar(100)")],
}

Text = Callable[["Node"], str]
Str = Callable[["Node | None"], "str | None"]


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def schema_call(call: Node, text: Text, string: Str) -> tuple[str, str, str] | None:
    """(operation, table, MySQL statement with the table as ``DDL_TABLE``) of a ``Schema::``
    call that changes the database, or None."""
    name = call.child_by_field_name("name")
    method = text(name).lower() if name is not None else ""
    op = SCHEMA_METHODS.get(method)
    args = call_args(call)
    table = string(args[0]) if args else None
    if op is None or not table:
        return None
    if method in ("drop", "dropifexists"):
        return (
            op,
            table,
            f"DROP TABLE {'IF EXISTS ' if method == 'dropifexists' else ''}{DDL_TABLE}",
        )
    if method == "rename":
        to = string(args[1]) if len(args) > 1 else None
        return (op, table, f"RENAME TABLE {DDL_TABLE} TO {_ident(to)}") if to else None
    body = args[1] if len(args) > 1 else None
    if body is None or body.type not in ("anonymous_function", "arrow_function"):
        return None
    parts = _blueprint(body, text, string, op == "create")
    if not parts:
        return None
    if op == "create":
        return op, table, f"CREATE TABLE {DDL_TABLE} ({', '.join(parts)})"
    return op, table, f"ALTER TABLE {DDL_TABLE} {', '.join(parts)}"


def in_down(call: Node, text: Text) -> bool:
    """Whether the call is in a migration's ``down()`` (which reverts ``up()``)."""
    p = call.parent
    while p is not None:
        if p.type == "method_declaration":
            name = p.child_by_field_name("name")
            return name is not None and text(name).lower() == "down"
        p = p.parent
    return False


def _chain(stmt: Node, text: Text) -> list[tuple[str, Node]]:
    """``$t->string('a')->nullable()`` -> [('string', call), ('nullable', call)], innermost
    first; [] unless the chain starts at a variable (the Blueprint)."""
    out: list[tuple[str, Node]] = []
    n: Node | None = stmt
    while n is not None and n.type == "member_call_expression":
        nm = n.child_by_field_name("name")
        out.append((text(nm).lower() if nm is not None else "", n))
        n = n.child_by_field_name("object")
    if n is None or n.type != "variable_name":
        return []
    return out[::-1]


def _blueprint(body: Node, text: Text, string: Str, create: bool) -> list[str]:
    """The column definitions and changes of a Blueprint closure, as DDL clauses."""
    clauses: list[str] = []
    keys: list[str] = []
    block = body.child_by_field_name("body")
    stmts = block.named_children if block is not None else []
    for st in stmts:
        expr = (
            st.named_children[0]
            if st.type == "expression_statement" and st.named_children
            else None
        )
        chain = _chain(expr, text) if expr is not None else []
        if not chain:
            continue
        method, first = chain[0]
        mods = {m for m, _c in chain[1:]}
        args = call_args(first)
        col = string(args[0]) if args else None
        change = "change" in mods
        if method in _INCREMENTS:
            name = col or "id"
            clauses.append(f"{_ident(name)} {_INCREMENTS[method]} NOT NULL AUTO_INCREMENT")
            keys.append(f"PRIMARY KEY ({_ident(name)})")
        elif method in _FIXED:
            for default, typ in _FIXED[method]:
                clauses.append(
                    _add(
                        create,
                        f"{_ident(col if col and method.startswith('softdelete') else default)} {typ} NULL",
                    )
                )
        elif method in ("morphs", "nullablemorphs", "uuidmorphs", "ulidmorphs") and col:
            null = "NULL" if method == "nullablemorphs" else "NOT NULL"
            idt = {"uuidmorphs": "char(36)", "ulidmorphs": "char(26)"}.get(
                method, "bigint unsigned"
            )
            clauses.append(_add(create, f"{_ident(col + '_type')} varchar(255) {null}"))
            clauses.append(_add(create, f"{_ident(col + '_id')} {idt} {null}"))
        elif method in ("enum", "set") and col and len(args) > 1:
            values = [
                string(v.named_children[-1]) for v in args[1].named_children if v.named_children
            ]
            if values and all(v is not None for v in values):
                typ = (
                    f"{method}("
                    + ", ".join("'" + str(v).replace("'", "''") + "'" for v in values)
                    + ")"
                )
                clauses.append(_column(create, change, col, typ, mods))
        elif method in _TYPES and col:
            clauses.append(_column(create, change, col, _fill(_TYPES[method], args, text), mods))
            if "primary" in mods:
                keys.append(f"PRIMARY KEY ({_ident(col)})")
            elif "unique" in mods:
                keys.append(f"UNIQUE ({_ident(col)})" if create else f"ADD UNIQUE ({_ident(col)})")
        elif method in ("primary", "unique") and args:
            cols = _names(args[0], string)
            if cols:
                k = "PRIMARY KEY" if method == "primary" else "UNIQUE"
                keys.append(f"{'' if create else 'ADD '}{k} ({', '.join(map(_ident, cols))})")
        elif not create and method == "dropcolumn" and args:
            for c in _names(args[0], string) + [string(a) for a in args[1:] if string(a)]:
                clauses.append(f"DROP COLUMN {_ident(str(c))}")
        elif not create and method == "renamecolumn" and len(args) > 1:
            a, b = string(args[0]), string(args[1])
            if a and b:
                clauses.append(f"RENAME COLUMN {_ident(a)} TO {_ident(b)}")
        elif not create and method in ("dropsoftdeletes", "droptimestamps", "dropremembertoken"):
            for c in {
                "dropsoftdeletes": ["deleted_at"],
                "droptimestamps": ["created_at", "updated_at"],
                "dropremembertoken": ["remember_token"],
            }[method]:
                clauses.append(f"DROP COLUMN {_ident(c)}")
    return clauses + keys


def _add(create: bool, definition: str) -> str:
    return definition if create else "ADD COLUMN " + definition


def _column(create: bool, change: bool, col: str, typ: str, mods: set[str]) -> str:
    null = "NULL" if "nullable" in mods else "NOT NULL"
    if "unsigned" in mods and "unsigned" not in typ:
        typ += " unsigned"
    definition = f"{_ident(col)} {typ} {null}"
    if create:
        return definition
    return ("MODIFY COLUMN " if change else "ADD COLUMN ") + definition


def _fill(template: str, args: list[Node], text: Text) -> str:
    """``varchar({n})`` with the call's length (255 by default), ``decimal({p},{s})`` with
    its precision and scale (8, 2)."""
    nums = [text(a) for a in args[1:] if a.type == "integer"]
    if "{n}" in template:
        return template.replace("{n}", nums[0] if nums else "255")
    if "{p}" in template:
        p = nums[0] if nums else "8"
        s = nums[1] if len(nums) > 1 else "2"
        return template.replace("{p}", p).replace("{s}", s)
    return template


def _names(n: Node, string: Str) -> list[str]:
    """``'a'`` or ``['a', 'b']``."""
    one = string(n)
    if one:
        return [one]
    if n.type == "array_creation_expression":
        out = [string(e.named_children[-1]) for e in n.named_children if e.named_children]
        return [x for x in out if x]
    return []

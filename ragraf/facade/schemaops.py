"""Database operations: schema and table_usage (issue 6).

Placeholders until the schema layer lands: honest empty answers.
"""

from __future__ import annotations

from typing import Any

from ragraf.facade.context import Ctx
from ragraf.facade.params import OpSpec, Param

SCHEMA_SPEC = OpSpec("schema", (Param("table", "string", "One table (default: all tables)."),), main="table")
TABLE_USAGE_SPEC = OpSpec("table_usage", (Param("table", "string", "A table name."),), main="table",
                          required=("table",))


def schema(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Tables of the database as the revision knows them: columns (type, nullable, key),
    foreign keys, views, engine, row estimates, the source (information_schema or
    migrations) and divergences between the live database and the migrations."""
    return {"tables": [], "source": "none", "divergences": [], "complete": False,
            "hint": "no database schema in this revision"}


def table_usage(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Who reads and writes a table: the SQL strings (with operation and columns when
    known), the symbols and files holding them, stated or derived with confidence."""
    return {"table": args["table"], "readers": [], "writers": [], "total": 0,
            "hint": "no database schema in this revision"}

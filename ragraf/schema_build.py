"""The database schema of a revision: live information_schema and migrations (issue 6).

Placeholder until the schema layer lands: no tables, nothing to write. The
indexer calls ``build`` before resolving, so SQL found in code can be matched
against the tables it returns (``table_index``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragraf.config import Config
from ragraf.scan import ScannedFile


@dataclass
class SchemaResult:
    table_rows: list[tuple[Any, ...]] = field(default_factory=list)    # (table_id, table_name, engine, row_estimate, source)
    column_rows: list[tuple[Any, ...]] = field(default_factory=list)   # (table_id, column_name, data_type, is_nullable, column_key)
    fk_rows: list[tuple[Any, ...]] = field(default_factory=list)       # (from_table, from_column, to_table, to_column)
    nodes: list[tuple[Any, ...]] = field(default_factory=list)         # node rows as the resolver makes them
    edges: list[tuple[Any, ...]] = field(default_factory=list)         # edge rows as the resolver makes them
    coverage: list[tuple[str, float | None, str | None]] = field(default_factory=list)
    table_index: dict[str, str] = field(default_factory=dict)          # lower table name -> node_id
    source: str = "none"                                               # information_schema | migration | none
    incomplete: str | None = None                                      # why the schema may be incomplete


def build(cfg: Config, files: list[ScannedFile]) -> SchemaResult:
    return SchemaResult()

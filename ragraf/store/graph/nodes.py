"""Reading graph.sqlite's nodes, files, counts and database schema rows of one revision.

Invariants a change must keep:
- Every read is scoped to one revision (the revision's number is the query's first
  parameter, ``?1``) and returns ``ragraf.model`` rows.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable

from ragraf.kinds import NodeKind
from ragraf.model import CoverageRow, DbColumnRow, DbFkRow, DbTableRow, FileRow, MapSymbol, NodeRow
from ragraf.redact import redact
from ragraf.store.db import Database
from ragraf.store.graph.cols import (
    DB_KINDS,
    ENTRY_EDGE_KINDS,
    FILE_COLS,
    MAP_KINDS,
    NODE_COLS,
    SYMBOL_KINDS,
    by_place,
)
from ragraf.store.ranges import rev_no


class NodeReads:
    """The node, file and schema reads of ``GraphStore`` (over its ``db``)."""

    db: Database

    # -- counts and coverage --------------------------------------------------
    def counts_by_kind(self, rev_id: str, table: str) -> dict[str, int]:
        if table not in ("node", "edge"):
            raise ValueError(table)
        return dict(
            self.db.query(
                f"SELECT kind, count(*) FROM {table} WHERE rev_from <= ?1 AND rev_to > ?1 GROUP BY kind ORDER BY kind",
                (rev_no(rev_id),),
            )
        )

    def coverage(self, rev_id: str) -> list[CoverageRow]:
        return self.db.rows(
            CoverageRow,
            "SELECT metric, value, note FROM coverage WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY metric",
            (rev_no(rev_id),),
        )

    def files(self, rev_id: str) -> list[FileRow]:
        return self.db.rows(
            FileRow,
            f"SELECT {FILE_COLS} FROM file WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY path",
            (rev_no(rev_id),),
        )

    def file_count(self, rev_id: str) -> int:
        return int(
            self.db.scalar(
                "SELECT count(*) FROM file WHERE rev_from <= ?1 AND rev_to > ?1", (rev_no(rev_id),)
            )
        )

    def edge_uids(self, rev_id: str) -> set[str]:
        return {
            r[0]
            for r in self.db.query(
                "SELECT edge_uid FROM edge WHERE rev_from <= ?1 AND rev_to > ?1", (rev_no(rev_id),)
            )
        }

    def node_ids(self, rev_id: str) -> set[str]:
        return {
            r[0]
            for r in self.db.query(
                "SELECT node_id FROM node WHERE rev_from <= ?1 AND rev_to > ?1", (rev_no(rev_id),)
            )
        }

    # -- files ----------------------------------------------------------------
    def has_blobs(self, shas: Iterable[str]) -> set[str]:
        """Which of ``shas`` have their text stored, redacted (others are written again)."""
        shas = list(shas)
        if not shas:
            return set()
        return {
            r[0]
            for r in self.db.query(
                "SELECT sha256 FROM file_blob WHERE redacted = 1"
                " AND sha256 IN (SELECT value FROM json_each(?))",
                (json.dumps(shas),),
            )
        }

    def file_text(self, rev_id: str, path: str) -> str | None:
        """The text of ``path`` as the revision indexed it (None if not parsed), its
        credentials redacted (a blob stored before redaction is redacted as it is read)."""
        row = self.db.query_one(
            "SELECT b.data, b.redacted FROM file f JOIN file_blob b ON b.sha256 = f.sha256"
            " WHERE f.rev_from <= ?1 AND f.rev_to > ?1 AND f.path=?",
            (rev_no(rev_id), path),
        )
        if row is None:
            return None
        text = zlib.decompress(row[0]).decode("utf-8", "surrogateescape")
        return text if row[1] else redact(text)[0]

    def file_row(self, rev_id: str, path: str) -> FileRow | None:
        return self.db.row(
            FileRow,
            f"SELECT {FILE_COLS} FROM file WHERE rev_from <= ?1 AND rev_to > ?1 AND path=?",
            (rev_no(rev_id), path),
        )

    # -- nodes ------------------------------------------------------------------
    def node(self, rev_id: str, node_id: str) -> NodeRow | None:
        return self.db.row(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND node_id=?",
            (rev_no(rev_id), node_id),
        )

    def nodes_by_ids(self, rev_id: str, node_ids: Iterable[str]) -> dict[str, NodeRow]:
        ids = list(set(node_ids))
        if not ids:
            return {}
        rows = self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1"
            " AND node_id IN (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(ids)),
        )
        return {r.node_id: r for r in rows}

    def nodes_by_fqn(self, rev_id: str, fqn: str, limit: int = 50) -> list[NodeRow]:
        return by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND fqn=? COLLATE NOCASE LIMIT ?",
                (rev_no(rev_id), fqn, limit),
            )
        )

    def kinds_by_fqn(self, rev_id: str, fqns: Iterable[str]) -> dict[str, set[str]]:
        """The node kinds each of ``fqns`` names in ``rev_id`` (exact spelling; absent when
        no node has it)."""
        names = list(set(fqns))
        if not names:
            return {}
        out: dict[str, set[str]] = {}
        for fqn, kind in self.db.query(
            "SELECT fqn, kind FROM node WHERE rev_from <= ?1 AND rev_to > ?1"
            " AND fqn IN (SELECT value FROM json_each(?))",
            (rev_no(rev_id), json.dumps(names)),
        ):
            out.setdefault(str(fqn), set()).add(str(kind))
        return out

    def nodes_by_fqn_suffix(self, rev_id: str, suffix: str, limit: int = 50) -> list[NodeRow]:
        """fqn ending in ``suffix`` at a namespace or class boundary (a name written without
        its namespace, or a member without its class): ``Application::run`` matches
        ``Ns\\Application::run``, never ``Ns\\SingleCommandApplication::run``; ``charge``
        matches ``Ns\\charge`` and ``Ns\\Invoice::charge``. A scan."""

        def like(sep: str) -> str:
            # backslash is both the LIKE escape and the namespace separator: double it
            esc = (sep + suffix).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            return "%" + esc

        seps = ("\\",) if "::" in suffix else ("\\", "::")
        where = " OR ".join("fqn LIKE ? ESCAPE '\\'" for _ in seps)
        return by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND ({where}) LIMIT ?",
                (rev_no(rev_id), *(like(sep) for sep in seps), limit),
            )
        )

    def nodes_by_name(self, rev_id: str, name: str, limit: int = 50) -> list[NodeRow]:
        return by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND name=? COLLATE NOCASE LIMIT ?",
                (rev_no(rev_id), name, limit),
            )
        )

    def nodes_in_file(self, rev_id: str, path: str) -> list[NodeRow]:
        return self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND path=?"
            " ORDER BY start_line, end_line DESC",
            (rev_no(rev_id), path),
        )

    def nodes_of_kind(self, rev_id: str, kind: NodeKind, limit: int = 5000) -> list[NodeRow]:
        return self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind=? ORDER BY fqn LIMIT ?",
            (rev_no(rev_id), kind, limit),
        )

    def symbol_names(self, rev_id: str) -> list[tuple[str, str]]:
        """(name, fqn) of every named code declaration."""
        return [
            (r[0], r[1])
            for r in self.db.query(
                f"SELECT DISTINCT name, fqn FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN ({SYMBOL_KINDS})",
                (rev_no(rev_id),),
            )
        ]

    def symbol_name_list(self, rev_id: str) -> list[str]:
        """The distinct names of the named code declarations (a scan: for a name not
        found)."""
        return [
            str(r[0])
            for r in self.db.query(
                f"SELECT DISTINCT name FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN ({SYMBOL_KINDS})"
                " AND name IS NOT NULL",
                (rev_no(rev_id),),
            )
        ]

    def top_level_files(self, rev_id: str) -> list[NodeRow]:
        """File nodes whose top-level code calls or instantiates something."""
        return self.db.rows(
            NodeRow,
            f"SELECT {NODE_COLS} FROM node n WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.kind='file' AND EXISTS ("
            " SELECT 1 FROM edge e WHERE e.rev_from <= ?1 AND e.rev_to > ?1 AND e.src=n.node_id"
            f" AND e.kind IN ({ENTRY_EDGE_KINDS})) ORDER BY n.path",
            (rev_no(rev_id),),
        )

    def symbols_for_map(self, rev_id: str) -> list[MapSymbol]:
        return self.db.rows(
            MapSymbol,
            "SELECT n.node_id, n.kind, n.name, n.fqn, n.path, n.start_line, n.props,"
            " coalesce(r.shell, 0) FROM node n"
            " LEFT JOIN node_rank r ON r.rev_from <= ?1 AND r.rev_to > ?1 AND r.node_id = n.node_id"
            f" WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.path IS NOT NULL AND n.kind IN ({MAP_KINDS})",
            (rev_no(rev_id),),
        )

    # -- database schema ------------------------------------------------------------
    def db_tables(self, rev_id: str) -> list[DbTableRow]:
        """Every table, by name."""
        return self.db.rows(
            DbTableRow,
            "SELECT table_id, table_name, engine, row_estimate, source FROM db_table"
            " WHERE rev_from <= ?1 AND rev_to > ?1 ORDER BY table_name COLLATE NOCASE, table_id",
            (rev_no(rev_id),),
        )

    def db_columns(self, rev_id: str, table_ids: Iterable[str]) -> list[DbColumnRow]:
        """Columns in ordinal order (the order the build wrote them)."""
        ids = list(set(table_ids))
        if not ids:
            return []
        return self.db.rows(
            DbColumnRow,
            "SELECT table_id, column_name, data_type, is_nullable, column_key FROM db_column"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND table_id IN (SELECT value FROM json_each(?))"
            " ORDER BY table_id, ord",
            (rev_no(rev_id), json.dumps(ids)),
        )

    def db_fks(self, rev_id: str) -> list[DbFkRow]:
        """Every foreign key column pair."""
        return self.db.rows(
            DbFkRow,
            "SELECT from_table, from_column, to_table, to_column FROM db_fk WHERE rev_from <= ?1 AND rev_to > ?1"
            " ORDER BY from_table COLLATE NOCASE, from_column, to_table, to_column",
            (rev_no(rev_id),),
        )

    def db_objects_named(self, rev_id: str, name: str) -> list[NodeRow]:
        """db_table / db_view nodes called ``name`` (case-insensitive)."""
        return by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND name=? COLLATE NOCASE"
                f" AND kind IN ({DB_KINDS})",
                (rev_no(rev_id), name),
            )
        )

    def db_object_names(self, rev_id: str) -> list[str]:
        return [
            r[0]
            for r in self.db.query(
                f"SELECT DISTINCT name FROM node WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN ({DB_KINDS})"
                " ORDER BY name",
                (rev_no(rev_id),),
            )
        ]

    def sql_literals_named_at_run_time(
        self, rev_id: str, stems: Iterable[str], limit: int = 500
    ) -> list[NodeRow]:
        """sql_literal nodes with a table whose name is made at run time (none resolved) by
        an expression holding one of ``stems`` (lower case, without ``_``)."""
        stems = sorted(set(stems))
        if not stems:
            return []
        holds = " OR ".join(
            ["instr(replace(lower(json_extract(j.value, '$.expr')), '_', ''), ?) > 0"] * len(stems)
        )
        return by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node n WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.kind=?2"
                " AND EXISTS (SELECT 1 FROM json_each(n.props, '$.tables') j"
                " WHERE json_extract(j.value, '$.how') = 'dynamic'"
                " AND coalesce(json_extract(j.value, '$.name'), '') = ''"
                f" AND ({holds})) LIMIT {int(limit)}",
                (rev_no(rev_id), NodeKind.SQL_LITERAL, *stems),
            )
        )

    def sql_literals_naming(self, rev_id: str, table: str, limit: int = 500) -> list[NodeRow]:
        """sql_literal nodes whose analysed tables include ``table`` (case-insensitive)."""
        return by_place(
            self.db.rows(
                NodeRow,
                f"SELECT {NODE_COLS} FROM node n WHERE n.rev_from <= ?1 AND n.rev_to > ?1 AND n.kind=? AND EXISTS ("
                " SELECT 1 FROM json_each(n.props, '$.tables') j"
                " WHERE json_extract(j.value, '$.name') = ? COLLATE NOCASE) LIMIT ?",
                (rev_no(rev_id), NodeKind.SQL_LITERAL, table, limit),
            )
        )

"""The coverage notes that say where a revision's schema came from: written by the build
(``ragraf.indexing.schema``), read by ``status`` and the ``schema`` operation.

Invariants a change must keep:
- One module holds each note's writer and its reader, so the two formats cannot drift apart.
- It imports nothing heavy: ``status`` reads these notes on every call and must not load the
  build, the SQL parser or a database driver for that.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ragraf.kinds import DivergenceKind

if TYPE_CHECKING:
    from ragraf.sql.dbschema import Divergence

_FILE_NOTE = re.compile(r"^(.*?) \[(\w+)\]: (.*)$", re.S)


def file_note(path: str, dialect: str, why: str) -> str:
    """The note of a ``schema.file`` row: ``path [dialect]: why``."""
    return f"{path} [{dialect}]: {why}"


def schema_files(coverage: Iterable[tuple[str, float | None, str | None]]) -> dict[str, Any]:
    """Where a revision's schema came from, out of its coverage rows (for ``status`` and
    ``schema``): ``dialect``, ``used`` (path, dialect, why, in the order applied),
    ``rejected`` (path, why) and ``code_tables`` (tables known only from code)."""
    used: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    out: dict[str, Any] = {"dialect": None, "used": used, "rejected": rejected, "code_tables": 0}
    for metric, value, note in coverage:
        if metric == "schema.dialect":
            out["dialect"] = note
        elif metric == "schema.file" and note:
            m = _FILE_NOTE.match(note)
            if m is not None:
                used.append({"path": m.group(1), "dialect": m.group(2), "why": m.group(3)})
        elif metric == "schema.rejected" and note:
            path, _, why = note.partition(": ")
            rejected.append({"path": path, "why": why})
        elif metric == "schema.code_tables":
            out["code_tables"] = int(value or 0)
    return out


def divergence_note(d: Divergence) -> str:
    """One divergence as a coverage note: ``kind table[.column][ (live: T; migrations: T)]``."""
    note = f"{d.kind} {d.table}" + (f".{d.column}" if d.column else "")
    if d.live_type is not None or d.migration_type is not None:
        note += f" (live: {d.live_type or '-'}; migrations: {d.migration_type or '-'})"
    return note


_DIVERGENCE_NOTE = re.compile(r"^(\w+) (.+?)(?: \(live: (.*?); migrations: (.*)\))?$")


def parse_divergence_note(note: str) -> dict[str, Any]:
    """The inverse of ``divergence_note`` (for the facade), as a plain dict."""
    m = _DIVERGENCE_NOTE.match(note or "")
    if m is None:
        return {
            "kind": "unknown",
            "table": note or "",
            "column": None,
            "live_type": None,
            "migration_type": None,
        }
    kind, name, lt, mt = m.groups()
    table, column = name, None
    if kind.startswith("column_") or kind == DivergenceKind.TYPE_DIFFERS:
        table, _, column = name.rpartition(".")
    return {
        "kind": kind,
        "table": table,
        "column": column,
        "live_type": None if lt in (None, "-") else lt,
        "migration_type": None if mt in (None, "-") else mt,
    }

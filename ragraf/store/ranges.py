"""Revision ranges: how graph and lexvec rows are shared by the revisions that have them
(issue 15; architecture §4.1 "Revision ranges"). Used by the store modules only.

A row of a revision table is visible in revision number n (``rev-NNNN``) when
``rev_from <= n < rev_to``; ``rev_to`` is ``OPEN`` while the row is in the newest revision.

Invariants a change must keep:
- A sealed revision's view never changes: a new revision n only inserts rows with
  ``rev_from = n`` and closes open rows (``rev_to = n``), both invisible to every
  revision below n; rev.json naming n is what makes them visible (its commit point).
- The open rows are exactly the newest revision's rows: a new revision is written
  against them (``write_delta``), and a revision that is undone before its commit point
  (``undo``) deletes its own rows and reopens the ones it closed.
- Pruning (``prune_before``) deletes only rows whose range ended at or before the
  oldest retained revision: no retained revision loses a row.
- The delta is exact as a multiset of row tuples: after ``write_delta(rows)`` the rows
  visible in n are ``rows`` (values as SQLite stores them), whatever the previous
  revision held; a value SQLite converts (say an int in a TEXT column) only costs a
  closed-and-reinserted row, never a wrong one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragraf.errors import StoreError
from ragraf.failpoints import failpoint
from ragraf.store.db import Database

#: rev_to of a row still in the newest revision (above any revision number)
OPEN = 1_000_000_000


def rev_no(rev_id: str) -> int:
    """The number of ``rev-NNNN``."""
    if not rev_id.startswith("rev-") or not rev_id[4:].isdigit():
        raise StoreError(f"not a revision id: {rev_id!r}")
    return int(rev_id[4:])


def live(alias: str = "", param: int = 1) -> str:
    """The SQL condition "this row is in the revision bound as parameter ``?param``"."""
    a = f"{alias}." if alias else ""
    return f"{a}rev_from <= ?{param} AND {a}rev_to > ?{param}"


@dataclass
class Delta:
    """What writing one table of a new revision did."""

    kept: int = 0
    closed: int = 0
    added: int = 0

    def __iadd__(self, other: Delta) -> Delta:
        self.kept += other.kept
        self.closed += other.closed
        self.added += other.added
        return self


#: the temporary table of the paths a scoped write replaces (``set_scope``)
SCOPE = "temp.ragraf_scope"
#: the temporary table of the paths a scoped write replaces the content rows of (texts,
#: chunks, flow units: ``set_scope(..., CONTENT)``), when only some of the scope's have
#: another content
CONTENT = "temp.ragraf_content"


#: the temporary tables of the paths whose open rows a scoped write renames node ids in
#: (``rename_rows``), and of the old ids it renames
RENAMED = "temp.ragraf_renamed"
MOVED = "temp.ragraf_moved"


def set_scope(db: Database, paths: Iterable[str], table: str = SCOPE) -> None:
    """The paths whose rows a scoped ``write_delta`` replaces (``in_scope``), for this
    connection. Inside the caller's write transaction."""
    db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table[5:]} (path TEXT PRIMARY KEY)")
    db.execute(f"DELETE FROM {table}")
    db.executemany(f"INSERT OR IGNORE INTO {table}(path) VALUES (?)", ((p,) for p in paths))


def in_scope(
    column: str, with_null: bool = False, or_whole: str | None = None, table: str = SCOPE
) -> str:
    """The SQL condition "the row's ``column`` is a path of the scope" (or NULL; or, with
    ``or_whole``, that column of the row is one of the ids ``set_whole`` gave)."""
    cond = f"{column} IN (SELECT path FROM {table})"
    if with_null:
        cond = f"{column} IS NULL OR {cond}"
    if or_whole:
        cond += f" OR {or_whole} IN (SELECT id FROM {WHOLE})"
    return f"({cond})" if with_null or or_whole else cond


#: the temporary table of the node ids a scoped write replaces whatever their path
WHOLE = "temp.ragraf_whole"


def set_whole(db: Database, node_ids: Iterable[str], table: str = WHOLE) -> None:
    """The node ids whose rows (and the edges from them) a scoped write replaces wherever
    they are (``in_scope(..., or_whole=)``), for this connection (``table``: another set of
    ids, e.g. ``MOVED``). Inside the caller's write transaction."""
    db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table[5:]} (id TEXT PRIMARY KEY)")
    db.execute(f"DELETE FROM {table}")
    db.executemany(f"INSERT OR IGNORE INTO {table}(id) VALUES (?)", ((i,) for i in node_ids))


def write_delta(
    db: Database,
    table: str,
    cols: str,
    rows: Iterable[Sequence[Any]],
    n: int,
    scope: str | None = None,
) -> Delta:
    """Make the rows of ``table`` visible in revision ``n`` exactly ``rows`` (tuples in
    the order of ``cols``): the open rows equal to one of them stay open, the others are
    closed at n, and the rest of ``rows`` is inserted from n on. Inside the caller's
    write transaction.

    ``scope`` (an SQL condition, ``in_scope``): only the open rows it selects are
    replaced by ``rows`` (which must all satisfy it); the others stay open as they are."""
    names = [c.strip() for c in cols.split(",")]
    # the new rows counted by value (a row that is a tuple already, a NamedTuple, hashes and
    # compares as its values and is taken as it is); the open rows are then read one at a
    # time and only their rowids kept, not every open row of a table, its texts included
    new = [row if isinstance(row, tuple) else tuple(row) for row in rows]
    # a new row's value -> [how many rows have it, how many open rows matched them]
    seen: dict[tuple[Any, ...], list[int]] = {}
    for t in new:
        c = seen.get(t)
        if c is None:
            seen[t] = [1, 0]
        else:
            c[0] += 1
    closed: list[int] = []
    kept = 0
    any_open = False
    where = f"rev_to = {OPEN}" + (f" AND {scope}" if scope else "")
    for r in db.cursor(f"SELECT rowid, {cols} FROM {table} WHERE {where}"):
        any_open = True
        c = seen.get(tuple(r[1:]))
        if c is not None and c[1] < c[0]:
            c[1] += 1
            kept += 1
        else:
            closed.append(r[0])
    # of equal new rows, the first ones are those the open rows stay for
    add: list[tuple[Any, ...]] = []
    if kept:
        for t in new:
            c = seen[t]
            if c[1]:
                c[1] -= 1
            else:
                add.append(t)
    else:
        add = new
    del new, seen
    if closed:
        db.executemany(f"UPDATE {table} SET rev_to = ? WHERE rowid = ?", ((n, i) for i in closed))
    failpoint("delta-closed")
    if add:
        marks = ",".join("?" * len(names))
        insert = f"INSERT INTO {table}(rev_from, rev_to, {cols}) VALUES ({n}, {OPEN}, {marks})"
        # rev_to spelled out: an FTS5 table has no column defaults
        if len(add) >= BULK_ROWS and not any_open and empty(db, table):
            _bulk_insert(db, table, insert, add)
        else:
            db.executemany(insert, add)
    if scope:  # the rows outside the scope are kept as they are
        kept += int(
            db.scalar(f"SELECT count(*) FROM {table} WHERE rev_to = {OPEN} AND NOT {scope}")
        )
    return Delta(kept, len(closed), len(add))


def stage(db: Database, table: str, cols: str, rows: Iterable[Sequence[Any]]) -> int:
    """Rows of ``table`` (tuples in the order of ``cols``) into ``temp.stage_<table>``, for
    ``insert_staged`` to insert later in one statement; returns how many. Inside the
    caller's write transaction (only the connection's temp database is written)."""
    marks = ",".join("?" * len(cols.split(",")))
    db.execute(f"DROP TABLE IF EXISTS temp.stage_{table}")
    db.execute(f"CREATE TEMP TABLE stage_{table}({cols})")
    got = list(map(tuple, rows))
    if got:
        db.executemany(f"INSERT INTO temp.stage_{table} VALUES ({marks})", got)
    return len(got)


def insert_staged(db: Database, table: str, cols: str, n: int, count: int) -> Delta:
    """The rows ``stage`` put in ``temp.stage_<table>`` inserted into the empty ``table``
    from revision n on, in the order they were staged, by one ``INSERT ... SELECT``: it
    runs in SQLite alone, without Python's GIL (a thread can write while Python works).
    The result is ``write_delta``'s into an empty table, row for row and rowid for rowid.
    Inside the caller's write transaction."""
    insert = (
        f"INSERT INTO {table}(rev_from, rev_to, {cols})"
        f" SELECT {n}, {OPEN}, {cols} FROM temp.stage_{table} ORDER BY rowid"
    )
    if count >= BULK_ROWS:
        _bulk_insert(db, table, insert, None)
    elif count:
        db.execute(insert)
    db.execute(f"DROP TABLE temp.stage_{table}")
    return Delta(0, 0, count)


def rename_rows(
    db: Database,
    table: str,
    cols: str,
    n: int,
    where: str,
    fix: Callable[[tuple[Any, ...]], tuple[Any, ...] | None],
) -> Delta:
    """Of the open rows of ``table`` that ``where`` selects, those ``fix`` (a row in the
    order of ``cols`` -> the row it becomes, or None: it stays) changes are closed at n and
    their new rows inserted from n on. Inside the caller's write transaction, after the
    table's ``write_delta`` (which counted those rows kept: the Delta takes them back)."""
    closed: list[int] = []
    add: list[tuple[Any, ...]] = []
    for r in db.cursor(f"SELECT rowid, {cols} FROM {table} WHERE rev_to = {OPEN} AND {where}"):
        new = fix(tuple(r[1:]))
        if new is not None:
            closed.append(r[0])
            add.append(new)
    if closed:
        db.executemany(f"UPDATE {table} SET rev_to = ? WHERE rowid = ?", ((n, i) for i in closed))
        failpoint("renamed-closed")
        marks = ",".join("?" * len(add[0]))
        db.executemany(
            f"INSERT INTO {table}(rev_from, rev_to, {cols}) VALUES ({n}, {OPEN}, {marks})", add
        )
    return Delta(-len(closed), len(closed), len(add))


#: rows inserted into an empty table from which its indexes are built after the rows
#: instead of growing with each row (``_bulk_insert``)
BULK_ROWS = 2000


def empty(db: Database, table: str) -> bool:
    """Whether ``table`` has no row at all (of any revision)."""
    return db.query_one(f"SELECT 1 FROM {table} LIMIT 1") is None


def _bulk_insert(db: Database, table: str, insert: str, rows: list[tuple[Any, ...]] | None) -> None:
    """Rows into an empty table, its secondary indexes dropped first and made again after:
    one sort per index instead of a B-tree insert per row and index (a first build of
    phpMyAdmin's 34K edges: 0.55-0.77 s -> 0.22-0.24 s). Inside the caller's write
    transaction, so a kill rolls the dropped indexes back with the rows; the indexes made
    again are the ones the migrations made (their SQL as sqlite_master holds it)."""
    indexes = db.query(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
        " AND sql IS NOT NULL",
        (table,),
    )
    for name, _sql in indexes:
        db.execute(f'DROP INDEX "{name}"')
    if rows is None:  # an INSERT ... SELECT (``insert_staged``)
        db.execute(insert)
    else:
        db.executemany(insert, rows)
    failpoint("delta-bulk-rows")
    failpoint(f"delta-bulk-rows-{table}")  # one table's (the lexicon's write is a thread's)
    for _name, sql in indexes:
        db.execute(sql)


def visible(db: Database, table: str, n: int) -> list[tuple[Any, ...]]:
    """Every row of ``table`` in revision n, without its range, sorted (for comparing the
    revisions of two builds: tests and benchmarks)."""
    cols = [r[1] for r in db.query(f"PRAGMA table_info({table})")]
    keep = ", ".join(c for c in cols if c not in ("rev_from", "rev_to"))
    rows = db.query(f"SELECT {keep} FROM {table} WHERE {live()}", (n,))
    return sorted((tuple(r) for r in rows), key=repr)


def undo(db: Database, tables: Iterable[str], n: int) -> None:
    """Remove revision n before its commit point: its rows go, the rows it closed are open
    again. Inside the caller's write transaction."""
    for table in tables:
        db.execute(f"DELETE FROM {table} WHERE rev_from = ?", (n,))
        db.execute(f"UPDATE {table} SET rev_to = {OPEN} WHERE rev_to = ?", (n,))


def prune_before(db: Database, tables: Iterable[str], oldest: int) -> int:
    """Delete the rows no revision from ``oldest`` on has (their range ended at or before
    it); returns how many. Inside the caller's write transaction."""
    gone = 0
    for table in tables:
        db.execute(f"DELETE FROM {table} WHERE rev_to <= ?", (oldest,))
        gone += db.changes()
    return gone

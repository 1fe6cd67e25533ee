"""The one module that opens SQLite databases (through apsw).

Invariants a change must keep:
- Every database file of ragraf is opened here; nothing else imports apsw.
- Writers: WAL is switched on once when the file is created (outside any
  transaction); every write runs inside ``Database.write()``, which starts with
  ``BEGIN IMMEDIATE`` so two writers serialise on the lock instead of failing
  half-way, and commits or rolls back as a whole.
- Migrations are SQL files in ``schemas/sql/<store>/NNNN_name.sql``; each is
  applied in the same transaction as the row recording it in ``_migrations``,
  so a fresh and an old database reach the same schema on open.
- Readers open read-only and never run migrations.
- Every connection has the SQL functions the schema's triggers call (``_functions``).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import apsw

from ragraf import resources
from ragraf.errors import DiskFull, NoIndexError, StoreError
from ragraf.store.packed import pack_tokens, sql_token

BUSY_TIMEOUT_MS = 30_000
R = TypeVar("R", bound=tuple[object, ...])  # a NamedTuple row of ragraf.model
Params = Sequence[Any] | dict[str, Any]
#: one row as SQLite returns it; the stores turn rows into ``ragraf.model`` types
RawRow = tuple[Any, ...]  # a row of any table: its column types vary with the query


@functools.cache
def _migrations(store: str) -> tuple[tuple[str, str], ...]:
    folder = resources.schemas_dir() / "sql" / store
    return tuple((p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.sql")))


class Database:
    """A connection to one SQLite file of one store."""

    def __init__(
        self,
        path: Path,
        store: str,
        *,
        readonly: bool = False,
        extra_migrations: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.path = path
        self.store = store
        self.readonly = readonly
        self._kept: dict[tuple[Any, ...], tuple[Any, Any]] = {}  # scalar_kept
        try:
            self._open(extra_migrations)
        except apsw.FullError:
            raise disk_full(path) from None
        except apsw.IOError as e:
            if _disk_is_full(path):  # SQLite reports a -shm or -wal it cannot grow as I/O
                raise disk_full(path) from None
            raise StoreError(f"{path} cannot be opened ({e})") from None
        except (apsw.NotADBError, apsw.CorruptError) as e:
            raise StoreError(
                f"{path} is not a usable SQLite database ({e}); it was not changed. Move it "
                "away and run `ragraf index` to rebuild it (control.sqlite holds the ledger: "
                "keep a copy)"
            ) from None
        except apsw.CantOpenError as e:
            raise StoreError(f"{path} cannot be opened ({e})") from None

    def _open(self, extra_migrations: Sequence[tuple[str, str]]) -> None:
        path = self.path
        if self.readonly:
            if not path.exists():
                raise NoIndexError(f"{path} does not exist; run `ragraf index` first")
            flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
            self.conn = apsw.Connection(path.resolve().as_uri() + "?mode=ro", flags=flags)
            self._functions()
            self.conn.setbusytimeout(BUSY_TIMEOUT_MS)
            self.conn.execute("PRAGMA schema_version").fetchall()  # a corrupt file fails here
            self._check_migrated(extra_migrations)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = apsw.Connection(str(path))
            self._functions()
            self.conn.setbusytimeout(BUSY_TIMEOUT_MS)
            mode = self.conn.execute("PRAGMA journal_mode").fetchall()[0][0]
            if mode != "wal":
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._migrate(list(_migrations(self.store)) + list(extra_migrations))
        self.conn.execute("PRAGMA foreign_keys=OFF")

    def _functions(self) -> None:
        """The SQL functions migrations and triggers call (``ragraf.store.packed``)."""
        fns: list[tuple[str, Any, int]] = [
            ("ragraf_tokens", pack_tokens, 4),
            ("ragraf_token", sql_token, 2),
        ]
        for name, fn, args in fns:
            self.conn.create_scalar_function(name, fn, args, deterministic=True)

    # -- migrations -------------------------------------------------------
    def _check_migrated(self, extra_migrations: Sequence[tuple[str, str]]) -> None:
        """A reader of a file an older ragraf wrote (migrations missing) refuses with what
        upgrades it, instead of failing on the first query that needs the new schema."""
        known = [m[0] for m in _migrations(self.store)] + [m[0] for m in extra_migrations]
        try:
            done = {r[0] for r in self.conn.execute("SELECT name FROM _migrations")}
        except apsw.SQLError:
            done = set()
        missing = [m for m in known if m not in done]
        if missing:
            raise StoreError(
                f"{self.path} was written by an older ragraf (schema migrations not applied: "
                f"{', '.join(missing)}); the next writing command upgrades it in place, keeping "
                "every revision: run `ragraf index` (`ragraf reindex --commit` during a change "
                "effort)"
            )

    def _migrate(self, migrations: list[tuple[str, str]]) -> None:
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        done = {r[0] for r in self.conn.execute("SELECT name FROM _migrations")}
        for name, sql in migrations:
            if name in done:
                continue
            with self.write():
                if self.conn.execute("SELECT 1 FROM _migrations WHERE name=?", (name,)).fetchall():
                    continue  # another process applied it while we waited
                self.conn.execute(sql)
                self.conn.execute(
                    "INSERT INTO _migrations(name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
                    (name,),
                )

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM _migrations ORDER BY name")]

    # -- access -----------------------------------------------------------
    @contextlib.contextmanager
    def write(self) -> Iterator[Database]:
        """One write transaction: BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error)."""
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        if not self.conn.getautocommit():
            # nested: use a savepoint so the outer transaction stays whole
            with self.conn:
                yield self
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException as e:
            with contextlib.suppress(apsw.Error):  # a failed COMMIT may have rolled back already
                self.conn.execute("ROLLBACK")
            if isinstance(e, apsw.FullError) or (
                isinstance(e, apsw.IOError) and _disk_is_full(self.path)
            ):
                raise disk_full(self.path) from None
            raise
        else:
            try:
                self.conn.execute("COMMIT")
            except (apsw.FullError, apsw.IOError) as e:
                with contextlib.suppress(apsw.Error):
                    self.conn.execute("ROLLBACK")
                if isinstance(e, apsw.FullError) or _disk_is_full(self.path):
                    raise disk_full(self.path) from None
                raise

    def execute(self, sql: str, params: Params = ()) -> None:
        self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    def changes(self) -> int:
        """Rows changed by the last INSERT, UPDATE or DELETE on this connection."""
        return int(self.conn.changes())

    def query(self, sql: str, params: Params = ()) -> list[RawRow]:
        return self.conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Params = ()) -> RawRow | None:
        for row in self.conn.execute(sql, params):
            return tuple(row)
        return None

    def rows(self, cls: type[R], sql: str, params: Params = ()) -> list[R]:
        """Every row of the query as a typed row (a ``NamedTuple`` class of ``ragraf.model``
        whose fields are the query's columns, in order). Built by ``tuple.__new__`` in C,
        without the per-row Python call of ``cls._make``: rows stay as cheap as tuples."""
        out: list[R] = list(map(partial(tuple.__new__, cls), self.conn.execute(sql, params)))
        if out:
            _check_width(cls, out[0], sql)
        return out

    def row(self, cls: type[R], sql: str, params: Params = ()) -> R | None:
        for r in self.conn.execute(sql, params):
            made: R = tuple.__new__(cls, r)
            _check_width(cls, made, sql)
            return made
        return None

    def scalar(self, sql: str, params: Params = ()) -> Any:
        row = self.query_one(sql, params)
        return None if row is None else row[0]

    def scalar_kept(self, sql: str, params: Params = ()) -> Any:
        """``scalar``, remembered on a read-only connection until another connection commits
        to the file (``PRAGMA data_version`` moves then): the counts a reader asks on every
        search (chunks and vectors of the revision) are read once while nothing changes. A
        writing connection does not see its own commits move data_version: it always asks."""
        if not self.readonly:
            return self.scalar(sql, params)
        version = self.scalar("PRAGMA data_version")
        key = (sql, tuple(params) if not isinstance(params, dict) else tuple(params.items()))
        got = self._kept.get(key)
        if got is not None and got[0] == version:
            return got[1]
        value = self.scalar(sql, params)
        self._kept[key] = (version, value)
        return value

    def cursor(self, sql: str, params: Params = ()) -> apsw.Cursor:
        return self.conn.execute(sql, params)

    def load_extension(self, path: str) -> None:
        self.conn.enable_load_extension(True)
        self.conn.load_extension(path)
        self.conn.enable_load_extension(False)

    def checkpoint(self) -> None:
        if not self.readonly:
            with contextlib.suppress(apsw.BusyError):
                self.conn.wal_checkpoint(mode=apsw.SQLITE_CHECKPOINT_PASSIVE)

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def disk_full(path: Path) -> DiskFull:
    return DiskFull.at(path.parent)


def _check_width(cls: type, row: Any, sql: str) -> None:
    """A query and its row type agree on the columns (what ``_make`` checked per row)."""
    if len(row) != len(cls._fields):  # type: ignore[attr-defined]
        raise StoreError(
            f"{cls.__name__} has {len(cls._fields)} fields, the query returns {len(row)} "  # type: ignore[attr-defined]
            f"columns: {sql[:120]}"
        )


def _disk_is_full(path: Path, below: int = 1 << 20) -> bool:
    """True when the filesystem holding *path* has less than *below* bytes free."""
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < below


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


SQLiteError = apsw.Error
ConstraintError = apsw.ConstraintError

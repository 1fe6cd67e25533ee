"""Which SQL files of a corpus hold its database schema, found as a newcomer would
(architecture §6.1 "Schema discovery").

``plan(candidates, explicit, dialect)`` takes every ``*.sql`` file of the
corpus and says which ones to apply, in which order and with which sqlglot
dialect, and why every other one was left out.

The rule, in order:

1. Sniff: only the first ``SNIFF_BYTES`` of a file are split into statements
   (a longer file's last, possibly cut, statement is dropped). A file is a
   schema file when it has DDL (CREATE / ALTER / DROP / RENAME of tables,
   views, indexes) and at least as many DDL as data statements (INSERT,
   UPDATE, DELETE, REPLACE, COPY), or when it is a dump: it creates tables
   and its data statements fill only tables it creates. Otherwise it is
   rejected ("mostly DML: seed data", "no DDL statement"). DDL that only
   drops, and down / rollback / uninstall scripts (by name), are rejected.
2. Dialect: a path part naming one (``mysql``, ``mariadb``, ``postgres``,
   ``pgsql``, ``pg``, ``sqlite``...; folders ``sql/mysql/`` or names
   ``mysql.initial.sql``) wins; else markers in the text (``ENGINE=``,
   ``AUTO_INCREMENT``, backticks for MySQL; ``SERIAL``, ``::``, ``$$``,
   ``CREATE EXTENSION`` for PostgreSQL; ``AUTOINCREMENT``, ``PRAGMA`` for
   SQLite); else the file is generic. One dialect is used for the whole
   corpus: ``db.dialect`` when set, else the first of MySQL, PostgreSQL,
   SQLite that some schema file has; schema files of other dialects are the
   same schema shipped again and are rejected; generic files go with the
   chosen dialect. Dialects sqlglot is not used for (SQL Server, Oracle...)
   are rejected.
3. Test data: schema files under a test folder (``tests/``, ``fixtures/``...)
   are rejected when any other schema file exists.
4. Bases and histories: a file named or filed as an upgrade (``upgrade``,
   ``update``, ``patch`` in its name, or under ``archives/``, ``patches/``,
   ``upgrades/``, ``updates/``) is rejected when a base exists, a base being a
   schema file that creates tables and is neither an upgrade nor numbered. A
   numbered file (``001_x.sql``, ``V2__y.sql``, ``20240101_z.sql``) whose
   tables (created, altered or dropped) a base creates too is rejected as the
   history of that base; a numbered file that touches another table is kept.
5. Order: bases in path order, then the rest by folder and natural version
   order of the name (``2_x`` before ``10_x``).

Explicit globs of ``db.schema_source`` bypass steps 1, 3 and 4 for the files
they match: those are used in path order, first, with the dialect of step 2.

Invariants a change must keep:
- Pure and deterministic: the result depends on the paths and texts only.
- Every candidate is either used or rejected with a reason, never dropped.
- A file's text beyond ``SNIFF_BYTES`` is never looked at here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragraf.sql.dbschema import split_statements

#: bytes of a file the classification looks at
SNIFF_BYTES = 64 * 1024
#: the order in which dialects are preferred when a corpus ships several
DIALECT_ORDER = ("mysql", "postgres", "sqlite")
AUTO = "auto"

_DIALECT_WORDS = {
    "mysql": "mysql",
    "mariadb": "mysql",
    "maria": "mysql",
    "postgres": "postgres",
    "postgresql": "postgres",
    "pgsql": "postgres",
    "pg": "postgres",
    "psql": "postgres",
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "mssql": "mssql",
    "sqlserver": "mssql",
    "sqlsrv": "mssql",
    "tsql": "mssql",
    "oracle": "oracle",
    "oci": "oracle",
    "oci8": "oracle",
    "db2": "db2",
    "firebird": "firebird",
    "ibase": "firebird",
    "interbase": "firebird",
}
_MARKERS = {
    "mysql": re.compile(
        r"\bENGINE\s*=|\bAUTO_INCREMENT\b|`|\bUNSIGNED\b|\bCHARSET\b|/\*!|\bTINYINT\b"
        r"|\bMEDIUMTEXT\b|\bLONGTEXT\b|\bVARBINARY\b|/\*\$wgDBTableOptions",
        re.I,
    ),
    "postgres": re.compile(
        r"\b(?:BIG)?SERIAL\b|::|\$\$|\bCREATE\s+EXTENSION\b|\bTIMESTAMPTZ\b|\bWITH\s+TIME\s+ZONE\b"
        r"|\bBYTEA\b|\bJSONB\b|\bTSVECTOR\b|\bnextval\s*\(|\bOWNER\s+TO\b|\bsearch_path\b"
        r"|\bCREATE\s+SEQUENCE\b|\bUSING\s+(?:gin|gist|btree)\b",
        re.I,
    ),
    "sqlite": re.compile(
        r"\bAUTOINCREMENT\b|\bPRAGMA\b|\bWITHOUT\s+ROWID\b|\bCREATE\s+VIRTUAL\s+TABLE\b", re.I
    ),
}
_DDL = re.compile(
    r"\s*(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMPORARY\s+|TEMP\s+|UNLOGGED\s+"
    r"|VIRTUAL\s+|UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+|ALGORITHM\s*=\s*\w+\s+|DEFINER\s*=\s*\S+\s+"
    r"|SQL\s+SECURITY\s+\w+\s+)*(?P<ckind>TABLE|VIEW|INDEX)"
    r"|ALTER\s+(?:IGNORE\s+|ONLINE\s+)?TABLE|(?P<drop>DROP)\s+(?:TABLE|VIEW|INDEX)|RENAME\s+TABLE)\b",
    re.I,
)
_DML = re.compile(r"\s*(?:INSERT|UPDATE|DELETE|REPLACE|COPY|MERGE|UPSERT)\b", re.I)
_NAME = r"(?:`(?:[^`]|``)+`|\"(?:[^\"]|\"\")+\"|\[[^\]]+\]|[\w$]+)"
_TARGET = re.compile(
    r"\s*(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMPORARY\s+|TEMP\s+|UNLOGGED\s+"
    r"|VIRTUAL\s+)*TABLE|ALTER\s+(?:IGNORE\s+|ONLINE\s+)?TABLE|DROP\s+TABLE|RENAME\s+TABLE)"
    rf"\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:ONLY\s+)?(?:/\*.*?\*/\s*)?((?:{_NAME}\s*\.\s*)?{_NAME})",
    re.I | re.S,
)
_DML_TARGET = re.compile(
    r"\s*(?:(?:INSERT|REPLACE)(?:\s+(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE))*(?:\s+INTO)?"
    r"|UPDATE(?:\s+(?:LOW_PRIORITY|IGNORE))*|DELETE(?:\s+(?:LOW_PRIORITY|QUICK|IGNORE))*\s+FROM"
    rf"|COPY)\s+((?:{_NAME}\s*\.\s*)?{_NAME})",
    re.I,
)
_CREATE_TABLE = re.compile(r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:\w+\s+)*?TABLE\b", re.I)
_TEST_DIRS = frozenset(
    {"test", "tests", "testing", "fixture", "fixtures", "testdata", "spec", "specs", "__tests__"}
)
_UPGRADE_DIRS = frozenset(
    {"archive", "archives", "patch", "patches", "upgrade", "upgrades", "update", "updates"}
)
_UPGRADE_WORDS = frozenset({"upgrade", "update", "patch", "upgrades", "updates", "patches"})
_DOWN_WORDS = frozenset({"down", "rollback", "revert", "uninstall", "undo"})
_NUMBERED = re.compile(r"^[vV]?\d")
_WORDS = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Used:
    path: str
    dialect: str  # a sqlglot dialect: mysql | postgres | sqlite
    why: str


@dataclass(frozen=True)
class Rejected:
    path: str
    why: str


@dataclass
class Plan:
    used: list[Used] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    dialect: str | None = None  # the dialect chosen for the corpus (None: no schema file)

    @property
    def dialects(self) -> dict[str, str]:
        return {u.path: u.dialect for u in self.used}


@dataclass
class Sniff:
    """What the first ``SNIFF_BYTES`` of one file say."""

    path: str
    ddl: int = 0
    dml: int = 0
    creates: int = 0  # CREATE TABLE statements
    drops: int = 0
    statements: int = 0
    targets: set[str] = field(default_factory=set)  # lower table names created / altered / dropped
    created: set[str] = field(default_factory=set)  # lower table names created
    filled: set[str] = field(default_factory=set)  # lower table names of data statements
    dialect: str | None = None  # from the path or the text; None = generic
    dialect_from: str = ""  # "path" | "text" | ""

    @property
    def is_dump(self) -> bool:
        """Creates tables and fills only those: a dump (schema and data), not seed data."""
        return self.creates > 0 and self.filled <= self.created

    @property
    def is_schema(self) -> bool:
        return self.ddl > self.drops and (self.ddl >= self.dml or self.is_dump)

    def reject_reason(self) -> str:
        if self.ddl == 0 and self.dml > 0:
            return (
                f"mostly DML ({self.dml} of {self.statements} statements insert or change rows,"
                " no DDL): seed data"
            )
        if self.ddl == 0:
            return f"no DDL statement ({self.statements} statements)"
        if self.dml > self.ddl:
            return (
                f"mostly DML ({self.dml} data statements, {self.ddl} DDL of "
                f"{self.statements}): seed data"
            )
        return f"only DROP statements ({self.drops}): an uninstall, down or clean-up script"


def _name(raw: str) -> str:
    last: tuple[str, ...] = re.findall(
        r"`((?:[^`]|``)+)`|\"((?:[^\"]|\"\")+)\"|\[([^\]]+)\]|([\w$]+)", raw
    )[-1]
    return next(p for p in last if p).lower()


def sniff(path: str, text: str, dialect: str | None = None) -> Sniff:
    """Classify one file from its first ``SNIFF_BYTES`` (``dialect``: a forced one)."""
    cut = len(text) > SNIFF_BYTES
    head = text[:SNIFF_BYTES]
    s = Sniff(path)
    stmts = list(split_statements(head, dollar_quotes=True))
    if cut and stmts:
        stmts.pop()  # may be cut in the middle
    for _line, stmt in stmts:
        s.statements += 1
        m = _DDL.match(stmt)
        if m is not None:
            s.ddl += 1
            if m.group("drop"):
                s.drops += 1
            t = _TARGET.match(stmt)
            if t is not None:
                name = _name(t.group(1))
                s.targets.add(name)
                if _CREATE_TABLE.match(stmt):
                    s.creates += 1
                    s.created.add(name)
        elif _DML.match(stmt):
            s.dml += 1
            t = _DML_TARGET.match(stmt)
            s.filled.add(_name(t.group(1)) if t is not None else "?")
    s.dialect, s.dialect_from = _dialect(path, head, dialect)
    return s


def _dialect(path: str, head: str, forced: str | None) -> tuple[str | None, str]:
    if forced and forced != AUTO:
        return forced, "config"
    for part in reversed(path.lower().split("/")):
        for w in _WORDS.findall(part.removesuffix(".sql")):
            if w in _DIALECT_WORDS:
                return _DIALECT_WORDS[w], "path"
    counts = {d: len(rx.findall(head)) for d, rx in _MARKERS.items()}
    best = max(DIALECT_ORDER, key=lambda d: (counts[d], -DIALECT_ORDER.index(d)))
    return (best, "text") if counts[best] else (None, "")


def _parts(path: str) -> list[str]:
    return path.lower().split("/")


def _words(path: str) -> set[str]:
    return set(_WORDS.findall(_parts(path)[-1].removesuffix(".sql")))


def _is_test(path: str) -> bool:
    return any(p in _TEST_DIRS for p in _parts(path)[:-1])


def _is_upgrade(path: str) -> bool:
    return bool(_words(path) & _UPGRADE_WORDS) or any(p in _UPGRADE_DIRS for p in _parts(path)[:-1])


def _is_down(path: str) -> bool:
    return bool(_words(path) & _DOWN_WORDS) or "down" in _parts(path)[:-1]


def _is_numbered(path: str) -> bool:
    return bool(_NUMBERED.match(path.rsplit("/", 1)[-1]))


def natural_key(path: str) -> tuple[str, tuple[tuple[int, str], ...]]:
    """Folder, then the file name with its numbers compared as numbers."""
    folder, _, name = path.rpartition("/")
    return folder, tuple(
        (int(tok), "") if tok.isdigit() else (-1, tok.lower())
        for tok in re.findall(r"\d+|\D+", name)
    )


def _label(d: str | None) -> str:
    return {"mysql": "MySQL", "postgres": "PostgreSQL", "sqlite": "SQLite"}.get(d or "", d or "")


def plan(
    candidates: Iterable[tuple[str, str]],
    explicit: set[str] | None = None,
    dialect: str = AUTO,
    discover: bool = True,
) -> Plan:
    """The schema files among ``candidates`` (``[(path, text)]``, every corpus SQL file).

    ``explicit``: paths matched by configured globs (always used, first, in path
    order). ``discover``: False applies only the explicit files (the others are
    rejected as "not named by db.schema_source"). ``dialect``: ``auto`` or a
    sqlglot dialect forced for every file."""
    explicit = explicit or set()
    forced = None if dialect == AUTO else dialect
    out = Plan()
    sniffs = {p: sniff(p, t) for p, t in sorted(candidates)}
    chosen_explicit = [s for p, s in sniffs.items() if p in explicit]
    rest = [s for p, s in sniffs.items() if p not in explicit]
    if not discover:
        for s in rest:
            out.rejected.append(Rejected(s.path, "not named by db.schema_source (discovery off)"))
        rest = []
    schema_files = _schema_files(rest, out)
    chosen = _corpus_dialect(schema_files, chosen_explicit, forced)
    out.dialect = chosen
    kept = _one_dialect(schema_files, chosen, out)
    _drop_test_data(kept, bool(chosen_explicit), out)
    bases, later = _bases_and_histories(kept, out)
    _order(out, chosen_explicit, bases, later)
    out.rejected.sort(key=lambda r: r.path)
    return out


def _schema_files(sniffs: list[Sniff], out: Plan) -> list[Sniff]:
    """1. The schema files among the files discovered; the others rejected with why (a
    down script by its name, seed data, no DDL...)."""
    schema_files: list[Sniff] = []
    for s in sniffs:
        if _is_down(s.path):
            out.rejected.append(Rejected(s.path, "a down, rollback or uninstall script (by name)"))
        elif not s.is_schema:
            out.rejected.append(Rejected(s.path, s.reject_reason()))
        else:
            schema_files.append(s)
    return schema_files


def _corpus_dialect(
    schema_files: list[Sniff], explicit: list[Sniff], forced: str | None
) -> str | None:
    """2. The one dialect of the corpus: the forced one, else the first of
    ``DIALECT_ORDER`` some schema file has, else MySQL when there is a schema file."""
    if forced:
        return forced
    present = {s.dialect for s in schema_files + explicit if s.dialect}
    chosen = next((d for d in DIALECT_ORDER if d in present), None)
    if chosen is None and (schema_files or explicit):
        chosen = "mysql"
    return chosen


def _one_dialect(schema_files: list[Sniff], chosen: str | None, out: Plan) -> list[Sniff]:
    """2. The schema files of the chosen dialect or of none; the others rejected (another
    dialect's version of the schema, or a dialect that is not parsed)."""
    kept: list[Sniff] = []
    for s in schema_files:
        if s.dialect is None or s.dialect == chosen:
            kept.append(s)
        elif s.dialect in DIALECT_ORDER:
            out.rejected.append(
                Rejected(
                    s.path,
                    f"{_label(s.dialect)} version of the schema (dialect from the {s.dialect_from});"
                    f" the {_label(chosen)} files are used: one dialect, MySQL first",
                )
            )
        else:
            out.rejected.append(
                Rejected(s.path, f"dialect {s.dialect} (from the {s.dialect_from}) is not parsed")
            )
    return kept


def _drop_test_data(kept: list[Sniff], explicit: bool, out: Plan) -> None:
    """3. Schema files under a test folder leave ``kept`` (rejected) when another schema
    file exists (``explicit``: a file named by a glob)."""
    if any(not _is_test(s.path) for s in kept) or explicit:
        for s in [s for s in kept if _is_test(s.path)]:
            kept.remove(s)
            out.rejected.append(
                Rejected(s.path, "test data (under a test folder); other schema files exist")
            )


def _bases_and_histories(kept: list[Sniff], out: Plan) -> tuple[list[Sniff], list[Sniff]]:
    """4. The bases (files that create tables, neither upgrades nor numbered) and the files
    applied after them; upgrade scripts and the histories of a base (every table they
    touch a base creates) are rejected when there is a base."""
    bases = [s for s in kept if s.creates and not _is_upgrade(s.path) and not _is_numbered(s.path)]
    base_tables: dict[str, str] = {}
    for b in bases:
        for t in sorted(b.created):
            base_tables.setdefault(t, b.path)
    later: list[Sniff] = []
    for s in kept:
        if s in bases:
            continue
        if bases and _is_upgrade(s.path) and not _is_numbered(s.path):
            out.rejected.append(
                Rejected(
                    s.path,
                    f"an upgrade script (by name or folder); base schema files create the current"
                    f" tables ({bases[0].path}" + (" ..." if len(bases) > 1 else "") + ")",
                )
            )
        elif bases and s.targets and all(t in base_tables for t in s.targets):
            first = base_tables[sorted(s.targets)[0]]
            out.rejected.append(
                Rejected(
                    s.path,
                    f"history of {first}: every table it touches ({len(s.targets)}) is created"
                    " there in its current form",
                )
            )
        else:
            later.append(s)
    return bases, later


def _order(out: Plan, explicit: list[Sniff], bases: list[Sniff], later: list[Sniff]) -> None:
    """5. ``out.used`` in the order to apply: the files named by a glob (by path), the
    bases (by path), then the rest in version order (``natural_key``)."""
    chosen = out.dialect
    for s in sorted(explicit, key=lambda s: s.path):
        out.used.append(
            Used(s.path, s.dialect or chosen or "mysql", "named by a db.schema_source glob")
        )
    for s in bases:
        out.used.append(
            Used(
                s.path,
                chosen or "mysql",
                f"{_label(chosen)} schema: {s.creates} CREATE TABLE of {s.statements} statements",
            )
        )
    later.sort(key=lambda s: natural_key(s.path))
    for s in later:
        kind = (
            "numbered migration"
            if _is_numbered(s.path)
            else "upgrade script (no base schema)"
            if _is_upgrade(s.path)
            else "schema file"
        )
        out.used.append(
            Used(
                s.path,
                chosen or "mysql",
                f"{kind}: {s.ddl} DDL of {s.statements} statements, applied after the bases"
                " in version order"
                if bases
                else f"{kind}: {s.ddl} DDL of {s.statements} statements, applied in version order",
            )
        )

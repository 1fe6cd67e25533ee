"""The database schema as an external contract (architecture §4.1 db_*, §6.1, §8.2, §15).

Two sources give a ``Schema``: the live server's ``information_schema``
(``ragraf.store.mysql_live.read_live_schema``, the one module that talks to
the server) and the project's migration files (``schema_from_migrations``);
``diff_schemas`` says where they disagree.

Invariants a change must keep:
- ``schema_from_migrations`` never raises on bad SQL: every statement that
  cannot be parsed, or that could change a table but is not understood, is a
  ``Problem(path, line, message)`` (line = the statement's first line in its
  file) and the statements after it still apply. Statements that cannot
  change the shape of a table (INSERT, SET, triggers, procedures, and
  PostgreSQL / SQLite ones like CREATE EXTENSION, COMMENT ON, PRAGMA) are
  skipped silently.
- A CREATE TABLE sqlglot rejects keeps its table (``salvage_create``): a
  column whose type cannot be read has type ``UNKNOWN_TYPE``, so has a type
  sqlglot only knows as user-defined (``tsvector``); what is left out or
  changed is a Problem of the statement.
- Each file is parsed with its dialect (``DIALECTS``; MySQL by default). MySQL
  types are spelled as below; other dialects' types as the file spells them,
  lower-cased. PostgreSQL ``$tag$`` strings are quotes when splitting.
- ``Schema.tables`` is keyed by the lower-cased table name; ``Table.name``
  keeps the spelling of the source. Columns keep their ordinal order.
- Migration column types are lower-cased MySQL spellings as in
  ``information_schema.COLUMNS.COLUMN_TYPE`` (``int(11) unsigned``,
  ``decimal(10,2)``, ``enum('a','b')``), but a display width or default
  length that the migration does not state is not invented (``INT`` stays
  ``int``). ``type_key`` defines which spellings are the same type; it is the
  only comparison ``diff_schemas`` uses.
- ``mysql.connector`` and ``sqlglot`` are imported inside the functions that
  need them, so importing this module is cheap.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragraf import ids
from ragraf.kinds import ColumnKey, DivergenceKind, NodeKind
from ragraf.sql import sqlglot_setup

if TYPE_CHECKING:
    from sqlglot import exp

SOURCE_LIVE = "information_schema"
SOURCE_MIGRATION = "migration"
#: the type of a column whose declared type sqlglot cannot read (a problem says which)
UNKNOWN_TYPE = "unknown"
#: sqlglot dialects a migration file may be parsed with (MySQL and MariaDB share ``mysql``)
DIALECTS = ("mysql", "postgres", "sqlite")
#: the source of a table known only because SQL in code names it (no schema was found)
SOURCE_CODE = "code"
#: the evidence path in the id of such a table (it has no defining statement)
CODE_PATH = "db://code"


def code_table_id(name: str) -> str:
    """The node id of a table known only from SQL in code: one node per lower-cased
    name, whichever string names it first (architecture §5.3)."""
    return ids.node_id(NodeKind.DB_TABLE, name.lower(), CODE_PATH, 1)


# --------------------------------------------------------------------- model


@dataclass
class Column:
    """One column. ``key`` is COLUMN_KEY: 'PRI', 'UNI', 'MUL' or ''."""

    name: str
    data_type: str | None
    nullable: bool
    key: str = ""


@dataclass
class Table:
    """One base table (views are only named in ``Schema.views``)."""

    name: str
    engine: str | None
    row_estimate: int | None
    columns: list[Column]
    source: str

    def column(self, name: str) -> Column | None:
        low = name.lower()
        for col in self.columns:
            if col.name.lower() == low:
                return col
        return None


@dataclass(frozen=True)
class ForeignKey:
    """One column pair of a foreign key (a composite key gives several)."""

    from_table: str
    from_column: str
    to_table: str
    to_column: str


Where = tuple[str, int]  # (path, line) of the migration statement that defined something


@dataclass
class Schema:
    """``tables`` by lower-cased name; ``views`` are lower-cased names; ``source`` is
    'information_schema' or 'migration'.

    ``view_names`` maps a lower-cased view name to its spelling. ``evidence``
    (migrations only) says which statement defined each thing, as ``(path,
    line)``: keys ``("table", t)`` (the CREATE TABLE), ``("column", t, c)`` (the
    CREATE TABLE, or the last ALTER that added, changed or renamed the column),
    ``("view", v)`` and ``("fk", t, c, to_t, to_c)``; names lower-cased, and a
    renamed table keeps the evidence of its CREATE.
    """

    tables: dict[str, Table]
    fks: list[ForeignKey]
    views: set[str]
    source: str
    evidence: dict[tuple[str, ...], Where] = field(default_factory=dict)
    view_names: dict[str, str] = field(default_factory=dict)

    def table(self, name: str) -> Table | None:
        return self.tables.get(name.lower())

    def where(self, *key: str) -> Where | None:
        """The (path, line) of ``("table", name)`` etc.; names compare case-insensitively."""
        return self.evidence.get((key[0], *(k.lower() for k in key[1:])))


@dataclass(frozen=True)
class Problem:
    """A migration statement that was not applied."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


DIVERGENCE_KINDS = tuple(DivergenceKind)


@dataclass(frozen=True)
class Divergence:
    kind: str
    table: str
    column: str | None = None
    live_type: str | None = None
    migration_type: str | None = None


# ------------------------------------------------------------ type compare
#
# What counts as the same type (``type_key``):
# - case and blanks do not matter; ``decimal(10, 2)`` == ``decimal(10,2)``;
# - an integer type's display width does not matter (MariaDB reports ``int(11)``,
#   MySQL 8 ``int``, a migration may say ``INT``): ``int(11)`` == ``int`` ==
#   ``integer``; ``tinyint(1)`` == ``bool`` == ``boolean``; ``signed`` is
#   dropped; ``unsigned`` matters; ``zerofill`` is dropped (it only implies
#   ``unsigned``, which then matters);
# - defaults the server fills in are equal to their omission: ``decimal`` ==
#   ``decimal(10,0)``, ``decimal(8)`` == ``decimal(8,0)``, ``char`` ==
#   ``char(1)``, ``binary``/``bit`` == ``(1)``, ``year(4)`` == ``year``,
#   ``datetime(0)``/``timestamp(0)``/``time(0)`` == without the ``(0)``;
# - aliases the server rewrites: ``numeric``/``dec``/``fixed`` == ``decimal``,
#   ``real``/``double precision`` == ``double``, ``json`` == ``longtext``
#   (MariaDB stores JSON as LONGTEXT), ``serial`` == ``bigint unsigned``,
#   ``nvarchar``/``national varchar`` == ``varchar``;
# - everything else must match exactly: ``varchar(100)`` != ``varchar(255)``,
#   ``int`` != ``bigint``, ``text`` != ``mediumtext``, enum/set value lists
#   are compared verbatim (quoted values keep their case and spaces).

_INT_TYPES = {"tinyint", "smallint", "mediumint", "int", "bigint"}
_ALIASES = {
    "integer": "int",
    "int4": "int",
    "int1": "tinyint",
    "int2": "smallint",
    "int3": "mediumint",
    "middleint": "mediumint",
    "int8": "bigint",
    "bool": "tinyint",
    "boolean": "tinyint",
    "numeric": "decimal",
    "dec": "decimal",
    "fixed": "decimal",
    "real": "double",
    "double precision": "double",
    "float8": "double",
    "float4": "float",
    "json": "longtext",
    "character varying": "varchar",
    "character": "char",
    "nvarchar": "varchar",
    "nchar": "char",
    "national varchar": "varchar",
    "national char": "char",
    "national character": "char",
}
_TYPE_RE = re.compile(
    r"^(national [a-z]+|double precision|character varying|long [a-z]+|[a-z][a-z0-9_]*)"
    r"(?:\((.*)\))?((?: [a-z]+)*)$",
    re.S,
)


def _squash(text: str) -> str:
    """Lower-case outside quotes, drop blanks around ',', '(' and ')'."""
    out: list[str] = []
    quote = ""
    for ch in text:
        if quote:
            out.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
            out.append(ch)
        elif ch.isspace():
            if out and out[-1] not in " (,":
                out.append(" ")
        elif ch in ",)(":
            while out and out[-1] == " ":
                out.pop()
            out.append(ch)
        else:
            out.append(ch.lower())
    return "".join(out).strip()


def type_key(data_type: str | None) -> str:
    """The canonical form under which two column types count as equal."""
    if not data_type:
        return ""
    text = _squash(data_type)
    m = _TYPE_RE.match(text)
    if not m:
        return text
    base, args, tail = m.group(1).strip(), m.group(2), m.group(3).split()
    if base == "serial":
        base, tail = "bigint", ["unsigned", *tail]
    if base in ("bool", "boolean"):
        args = None
    base = _ALIASES.get(base, base)
    mods = [w for w in tail if w not in ("signed", "zerofill")]
    if "zerofill" in tail and "unsigned" not in mods:
        mods.insert(0, "unsigned")
    if base in _INT_TYPES:
        args = None
    elif base == "decimal":
        if not args:
            args = "10,0"
        elif "," not in args:
            args = f"{args},0"
    elif base in ("char", "binary", "bit") and not args:
        args = "1"
    elif base == "year" and args == "4":
        args = None
    elif base in ("datetime", "timestamp", "time") and args == "0":
        args = None
    mods = sorted(set(mods), key=mods.index)
    return base + (f"({args})" if args is not None else "") + "".join(f" {w}" for w in mods)


def types_equal(live_type: str | None, migration_type: str | None) -> bool:
    return type_key(live_type) == type_key(migration_type)


# --------------------------------------------------------------------- diff


def diff_schemas(live: Schema, migr: Schema) -> list[Divergence]:
    """Tables and columns present on one side only, and columns whose types differ.

    Names compare case-insensitively; types compare by ``type_key``. Views,
    keys and foreign keys are not compared. The order is deterministic: by
    lower-cased table name, then live column order, then migration-only
    columns in migration order.
    """
    out: list[Divergence] = []
    for low in sorted(set(live.tables) | set(migr.tables)):
        lt, mt = live.tables.get(low), migr.tables.get(low)
        if lt is None and mt is not None:
            out.append(Divergence(DivergenceKind.TABLE_ONLY_MIGRATIONS, mt.name))
            continue
        if mt is None and lt is not None:
            out.append(Divergence(DivergenceKind.TABLE_ONLY_LIVE, lt.name))
            continue
        assert lt is not None and mt is not None
        mcols = {c.name.lower(): c for c in mt.columns}
        lcols = {c.name.lower() for c in lt.columns}
        for col in lt.columns:
            mc = mcols.get(col.name.lower())
            if mc is None:
                out.append(
                    Divergence(
                        DivergenceKind.COLUMN_ONLY_LIVE, lt.name, col.name, col.data_type, None
                    )
                )
            elif not types_equal(col.data_type, mc.data_type):
                out.append(
                    Divergence(
                        DivergenceKind.TYPE_DIFFERS, lt.name, col.name, col.data_type, mc.data_type
                    )
                )
        for col in mt.columns:
            if col.name.lower() not in lcols:
                out.append(
                    Divergence(
                        DivergenceKind.COLUMN_ONLY_MIGRATIONS,
                        lt.name,
                        col.name,
                        None,
                        col.data_type,
                    )
                )
    return out


# --------------------------------------------------------------- migrations


def split_statements(text: str, dollar_quotes: bool = False) -> Iterator[tuple[int, str]]:
    """``(first line, statement)`` for each statement of a SQL script.

    Knows quotes (' " `), comments (``-- ``, ``#``, ``/* */``; the MySQL
    executable comments ``/*! ... */`` and ``/*M! ... */`` keep their
    content) and ``DELIMITER`` lines. Comments are replaced by a blank.
    ``dollar_quotes``: PostgreSQL's ``$tag$ ... $tag$`` strings (function
    bodies) are quotes too.
    """
    delim = ";"
    special = _special_chars(delim, dollar_quotes)
    i, n = 0, len(text)
    line = 1
    buf: list[str] = []
    start_line = 0
    while i < n:
        ch = text[i]
        if not buf:
            if ch.isspace():
                if ch == "\n":
                    line += 1
                i += 1
                continue
            # DELIMITER directive: only at the start of a statement
            if text[i : i + 10].upper() == "DELIMITER " and (i == 0 or text[i - 1] in " \t\n"):
                end = text.find("\n", i)
                end = n if end < 0 else end
                new = text[i + 10 : end].strip()
                if new:
                    delim = new
                    special = _special_chars(delim, dollar_quotes)
                i = end
                continue
        if ch == "$" and dollar_quotes:
            tag = _DOLLAR_TAG.match(text, i)
            if tag is not None:
                close = text.find(tag.group(0), tag.end())
                j = n if close < 0 else close + len(tag.group(0))
                chunk = text[i:j]
                if not buf:
                    start_line = line
                buf.append(chunk)
                line += chunk.count("\n")
                i = j
                continue
        if ch in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and ch != "`":
                    j += 2
                    continue
                if text[j] == ch:
                    if j + 1 < n and text[j + 1] == ch:  # doubled quote
                        j += 2
                        continue
                    break
                j += 1
            chunk = text[i : j + 1]
            if not buf:
                start_line = line
            buf.append(chunk)
            line += chunk.count("\n")
            i = j + 1
            continue
        if ch == "#" or (
            ch == "-" and text.startswith("--", i) and (i + 2 >= n or text[i + 2] in " \t\r\n")
        ):
            end = text.find("\n", i)
            i = n if end < 0 else end
            if buf:
                buf.append(" ")
            continue
        if ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            body = text[i + 2 : end]
            m = re.match(r"M?!(\d*)", body)
            if m and not (m.group(1) and int(m.group(1)) >= 999999):
                # executable comment: its content is SQL (999999: never, e.g. the
                # "enable the sandbox mode" line of MariaDB dumps)
                text = text[:i] + " " * (2 + m.end()) + body[m.end() :] + "  " + text[end + 2 :]
                n = len(text)
                continue
            line += body.count("\n")
            i = end + 2
            if buf:
                buf.append(" ")
            continue
        if text.startswith(delim, i):
            stmt = "".join(buf).strip()
            if stmt:
                yield start_line, stmt
            buf = []
            i += len(delim)
            continue
        if not buf:
            start_line = line
        # copy the run of ordinary characters up to the next one that matters
        m = special.search(text, i + 1)
        j = n if m is None else m.start()
        run = text[i:j]
        line += run.count("\n")
        buf.append(run)
        i = j
    stmt = "".join(buf).strip()
    if stmt:
        yield start_line, stmt


def _special_chars(delim: str, dollar_quotes: bool = False) -> re.Pattern[str]:
    return re.compile(("[-'\"`#/$]|" if dollar_quotes else "[-'\"`#/]|") + re.escape(delim))


_DOLLAR_TAG = re.compile(r"\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$")


@dataclass
class _Index:
    name: str
    kind: ColumnKey
    cols: list[str]


@dataclass
class _Fk:
    name: str
    cols: list[str]
    ref_table: str
    ref_cols: list[str]
    named: bool = False  # CONSTRAINT <name> given (else the name is generated)
    evidence: Where | None = None


@dataclass
class _TState:
    name: str
    engine: str | None = None
    cols: list[Column] = field(default_factory=list)
    indexes: list[_Index] = field(default_factory=list)
    fks: list[_Fk] = field(default_factory=list)
    auto_names: int = 0
    evidence: Where | None = None  # the CREATE TABLE
    col_ev: dict[str, Where] = field(default_factory=dict)  # lower column -> defining statement

    def find(self, name: str) -> int:
        low = name.lower()
        for i, c in enumerate(self.cols):
            if c.name.lower() == low:
                return i
        return -1

    def new_name(self, hint: str) -> str:
        self.auto_names += 1
        return f"{hint}_{self.auto_names}"


# Statements that cannot change the shape of a table: skipped without a Problem.
_NO_SHAPE_EFFECT = re.compile(
    r"^\s*(?:INSERT|REPLACE|UPDATE|DELETE|SELECT|SET|USE|START|BEGIN|COMMIT|ROLLBACK|SAVEPOINT"
    r"|RELEASE|LOCK|UNLOCK|CALL|DO|GRANT|REVOKE|FLUSH|ANALYZE|OPTIMIZE|CHECK|REPAIR|TRUNCATE"
    r"|SHOW|DESCRIBE|DESC|EXPLAIN|HANDLER|LOAD|PREPARE|EXECUTE|DEALLOCATE|KILL|PURGE|RESET"
    r"|CREATE\s+(?:DATABASE|SCHEMA|USER|ROLE|SEQUENCE|SERVER|EVENT)\b|DROP\s+(?:DATABASE|SCHEMA"
    r"|USER|ROLE|SEQUENCE|SERVER|EVENT|TRIGGER|PROCEDURE|FUNCTION)\b|ALTER\s+(?:DATABASE|SCHEMA"
    r"|USER|EVENT|SEQUENCE|PROCEDURE|FUNCTION)\b"
    r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:AGGREGATE\s+)?"
    r"(?:TRIGGER|PROCEDURE|FUNCTION)\b"
    # PostgreSQL and SQLite statements without an effect on a table's columns
    r"|(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:EXTENSION|TYPE|DOMAIN|RULE|POLICY|COLLATION"
    r"|OPERATOR|LANGUAGE|PUBLICATION|SUBSCRIPTION|TABLESPACE|TEXT\s+SEARCH|CONVERSION|CAST"
    r"|STATISTICS|FOREIGN\s+DATA\s+WRAPPER|DEFAULT\s+PRIVILEGES)\b"
    r"|COMMENT\s+ON\b|PRAGMA\b|VACUUM\b|REINDEX\b|ATTACH\b|DETACH\b|END\b|CLUSTER\b"
    r"|ALTER\s+(?:TABLE|SEQUENCE|VIEW|INDEX|FUNCTION)\s+(?:ONLY\s+)?\S+\s+OWNER\s+TO\b"
    r"|SECURITY\s+LABEL\b|NOTIFY\b|LISTEN\b|DISCARD\b|CHECKPOINT\b|\\)",
    re.I,
)
_RENAME_TABLE = re.compile(r"^\s*RENAME\s+TABLES?\s+(.*)$", re.I | re.S)
_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?"
_RENAME_PAIR = re.compile(rf"^\s*({_NAME})\s+TO\s+({_NAME})\s*$", re.I | re.S)


def _unquote_name(text: str) -> str:
    last: tuple[str, str] = re.findall(r"`((?:[^`]|``)+)`|([\w$]+)", text)[-1]
    return last[0].replace("``", "`") if last[0] else last[1]


def _snippet(stmt: str) -> str:
    one = " ".join(stmt.split())
    return one if len(one) <= 60 else one[:57] + "..."


class _Migrator:
    def __init__(self) -> None:
        self.tables: dict[str, _TState] = {}
        self.views: dict[str, str] = {}  # lower -> spelling
        self.view_ev: dict[str, Where] = {}
        self.problems: list[Problem] = []
        self.masked_types: dict[str, str] = {}
        self.path = ""
        self.line = 0
        self.dialect = "mysql"  # the sqlglot dialect of the current file

    # -- helpers
    def here(self) -> Where:
        return (self.path, self.line)

    def problem(self, message: str) -> None:
        self.problems.append(Problem(self.path, self.line, message))

    def table(self, name: str) -> _TState | None:
        t = self.tables.get(name.lower())
        if t is None:
            self.problem(f"table {name} is not defined by an earlier migration")
        return t

    # -- entry
    def apply(self, stmt: str) -> None:
        from sqlglot import exp
        from sqlglot.errors import SqlglotError

        if _NO_SHAPE_EFFECT.match(stmt):
            return
        m = _RENAME_TABLE.match(stmt)
        if m:
            self.rename_tables(m.group(1))
            return
        try:
            masked, self.masked_types = _mask_types(stmt) if self.dialect == "mysql" else (stmt, {})
            tree = _parse_one(masked, self.dialect)
        except Exception as exc:  # noqa: BLE001 - sqlglot may fail in many ways on odd input
            salvaged = self.salvage_create(stmt)
            if salvaged is None:
                if isinstance(exc, SqlglotError) and str(exc):
                    first = str(exc).splitlines()[0]
                    # sqlglot's "Line 1, Col: 25." counts inside the statement, not the file
                    first = re.sub(r"\s*Line \d+, Col: \d+\.?", "", first)
                    # "... but got <Token token_type: ..., text: (, line: 1, ...>": the text only
                    first = re.sub(r"<Token [^>]*?\btext: ([^,]*),[^>]*>", r"'\1'", first)
                    first = _snippet(first.strip(" ."))
                else:
                    first = type(exc).__name__
                self.problem(f"unparsable statement ({first or 'syntax error'}): {_snippet(stmt)}")
                return
            tree = salvaged
        if isinstance(tree, exp.Command) and _CREATE_TABLE_HEAD.match(stmt):
            # sqlglot gave up on the statement without an error (e.g. odd table options)
            tree = self.salvage_create(stmt) or tree
        if tree is None:
            return
        if isinstance(tree, exp.Create):
            self.create(tree, stmt)
        elif isinstance(tree, exp.Alter):
            self.alter(tree, stmt)
        elif isinstance(tree, exp.Drop):
            self.drop(tree)
        elif isinstance(tree, (exp.Set, exp.Use, exp.Transaction, exp.Commit, exp.Rollback)):
            return
        else:
            self.problem(f"unsupported statement: {_snippet(stmt)}")

    # -- a CREATE TABLE sqlglot rejects as a whole
    def salvage_create(self, stmt: str) -> exp.Expr | None:
        """The CREATE TABLE ``stmt`` with the parts sqlglot cannot read taken out, parsed;
        None when ``stmt`` is no CREATE TABLE or even its skeleton does not parse.

        Each table element is tried alone: a column whose type is not understood keeps
        its name with the type ``unknown``; a column whose constraints are not understood
        keeps its name and type; any other element that does not parse is dropped. Table
        options after the column list are dropped when they are what fails. Every change
        is a problem of the statement."""
        m = _CREATE_TABLE_HEAD.match(stmt)
        if m is None:
            return None
        close = _matching_paren(stmt, m.end() - 1)
        if close < 0:
            return None
        head, tail = stmt[: m.end() - 1], stmt[close + 1 :]
        name = _unquote_name(m.group(1))
        kept: list[str] = []
        notes: list[str] = []
        for elem in _split_top_commas(stmt[m.end() : close]):
            fixed, note = self.salvage_element(elem.strip())
            if fixed is not None:
                kept.append(fixed)
            if note:
                notes.append(note)
        if not kept:
            return None
        body = "(" + ", ".join(kept) + ")"
        from sqlglot import exp

        def create_or_none(text: str) -> exp.Expr | None:
            try:
                got = _parse_one(text, self.dialect)
            except Exception:  # noqa: BLE001 - "does not parse" is the answer
                return None
            return got if isinstance(got, exp.Create) else None

        tree = create_or_none(head + body + tail)
        if tree is None and tail.strip():
            # keep the table options sqlglot reads, one at a time; drop the others
            opts, dropped = "", []
            for opt in _TABLE_OPTION.findall(tail):
                if create_or_none(head + body + opts + " " + opt) is not None:
                    opts += " " + opt
                else:
                    dropped.append(opt)
            tree = create_or_none(head + body + opts)
            if tree is not None and dropped:
                notes.append(
                    "table options not understood, ignored: " + _snippet(", ".join(dropped))
                )
        if tree is None:
            return None
        for note in notes:
            self.problem(f"CREATE TABLE {name}: {note}")
        return tree

    def salvage_element(self, elem: str) -> tuple[str | None, str | None]:
        """``(element to keep or None, problem note or None)`` for one table element."""
        if self.parses_alone(elem):
            return elem, None
        m = _COLUMN_HEAD.match(elem)
        if m is None or m.group(1).upper() in _ELEMENT_KEYWORDS:
            return None, f"element not understood, left out: {_snippet(elem)}"
        col, typ, rest = m.group(1), m.group(2), m.group(3)
        if self.parses_alone(f"{col} varchar(1) {rest}"):
            mask = f"varchar({_SENTINEL + 500 + len(self.masked_types)})"
            self.masked_types[mask] = UNKNOWN_TYPE
            note = (
                f"column {_unquote_name(col)}: type {_snippet(typ)} not understood, kept as unknown"
            )
            return f"{col} {mask} {rest}", note
        if self.parses_alone(f"{col} {typ}"):
            return (
                f"{col} {typ}",
                f"column {_unquote_name(col)}: constraints not understood: {_snippet(rest)}",
            )
        mask = f"varchar({_SENTINEL + 500 + len(self.masked_types)})"
        self.masked_types[mask] = UNKNOWN_TYPE
        return f"{col} {mask}", (
            f"column {_unquote_name(col)}: definition not understood, kept with type unknown: "
            f"{_snippet(elem)}"
        )

    def parses_alone(self, elem: str) -> bool:
        from sqlglot import exp

        try:
            got = _parse_one(f"CREATE TABLE t ({elem})", self.dialect)
        except Exception:  # noqa: BLE001 - "does not parse" is the answer
            return False
        return isinstance(got, exp.Create)

    # -- RENAME TABLE a TO b, c TO d
    def rename_tables(self, body: str) -> None:
        for pair in _split_top_commas(body):
            m = _RENAME_PAIR.match(pair)
            if not m:
                self.problem(f"unparsable RENAME TABLE clause: {_snippet(pair)}")
                return
            self.rename_table(_unquote_name(m.group(1)), _unquote_name(m.group(2)))

    def rename_table(self, old: str, new: str) -> None:
        low = old.lower()
        if low in self.views:
            del self.views[low]
            self.views[new.lower()] = new
            ev = self.view_ev.pop(low, None)
            if ev is not None:
                self.view_ev[new.lower()] = ev
            return
        t = self.table(old)
        if t is None:
            return
        del self.tables[low]
        t.name = new
        self.tables[new.lower()] = t
        for other in self.tables.values():
            for fk in other.fks:
                if fk.ref_table.lower() == low:
                    fk.ref_table = new

    # -- CREATE TABLE / VIEW / INDEX
    def create(self, tree: exp.Expr, stmt: str) -> None:
        from sqlglot import exp

        kind = str(tree.args.get("kind") or "").upper()
        target = tree.this
        if kind == "VIEW":
            name = target.name if isinstance(target, exp.Table) else target.this.name
            if name.lower() in self.views and not (
                tree.args.get("replace") or tree.args.get("exists")
            ):
                self.problem(f"view {name} already exists")
            self.views[name.lower()] = name
            self.view_ev[name.lower()] = self.here()
            return
        if kind == "INDEX":
            table_node = target.args.get("table")
            t = self.table(table_node.name) if table_node is not None else None
            if t is None:
                return
            cols = [
                o.this.name if isinstance(o, exp.Ordered) else o.name
                for o in (target.args.get("params").args.get("columns") or [])
            ]
            unique = bool(tree.args.get("unique"))
            self.add_index(
                t,
                target.name or t.new_name("idx"),
                ColumnKey.UNI if unique else ColumnKey.MUL,
                cols,
            )
            return
        if kind != "TABLE":
            self.problem(f"unsupported statement: {_snippet(stmt)}")
            return
        props = tree.args.get("properties")
        if props is not None and any(
            isinstance(p, exp.TemporaryProperty) for p in props.expressions
        ):
            return  # a temporary table does not outlive the migration's session
        if isinstance(target, exp.Schema):
            name = target.this.name
            defs = target.expressions
        else:
            name, defs = target.name, None
        low = name.lower()
        if low in self.tables or low in self.views:
            if not tree.args.get("exists"):
                self.problem(f"table {name} already exists")
            return
        like = None
        properties = tree.args.get("properties")
        for prop in properties.expressions if properties is not None else []:
            if isinstance(prop, exp.LikeProperty):
                like = prop.this.name
        if like is not None:
            src = self.table(like)
            if src is None:
                return
            t = _TState(
                name,
                src.engine,
                [Column(c.name, c.data_type, c.nullable, "") for c in src.cols],
                [_Index(i.name, i.kind, list(i.cols)) for i in src.indexes],
                evidence=self.here(),
            )
            t.col_ev = {c.name.lower(): self.here() for c in t.cols}
            self.tables[low] = t
            return
        if defs is None:
            self.problem(
                f"CREATE TABLE {name} without a column list (AS SELECT?) is not "
                f"understood: its columns are unknown"
            )
            self.tables[low] = _TState(name, evidence=self.here())
            return
        t = _TState(name, _engine_of(properties), evidence=self.here())
        for d in defs:
            if isinstance(d, exp.ColumnDef):
                self.add_column(t, d, None)
            else:
                self.add_constraint(t, d)
        _ensure_fk_indexes(t)
        self.tables[low] = t

    # -- columns
    def add_column(self, t: _TState, cd: exp.Expr, position: exp.Expr | None) -> None:
        col, pk, unique, refs = self.column_from_def(t, cd)
        if t.find(col.name) >= 0:
            if not cd.args.get("exists"):
                self.problem(f"column {t.name}.{col.name} already exists")
            return
        self.place(t, col, cd.args.get("position") if position is None else position)
        t.col_ev[col.name.lower()] = self.here()
        self._column_extras(t, col, pk, unique, refs)

    def column_from_def(
        self, t: _TState, cd: exp.Expr
    ) -> tuple[Column, bool, bool, tuple[str, str] | None]:
        col, pk, unique, refs, odd = _column_from_def(cd, self.masked_types, self.dialect)
        if odd is not None:
            self.problem(f"column {t.name}.{col.name}: type {odd} not understood, kept as unknown")
        return col, pk, unique, refs

    def _column_extras(
        self, t: _TState, col: Column, pk: bool, unique: bool, refs: tuple[str, str] | None
    ) -> None:
        if pk:
            self.add_index(t, "PRIMARY", ColumnKey.PRI, [col.name])
        if unique:
            self.add_index(t, col.name, ColumnKey.UNI, [col.name])
        if refs:
            t.fks.append(
                _Fk(
                    t.new_name(f"{t.name}_ibfk"),
                    [col.name],
                    refs[0],
                    [refs[1]],
                    evidence=self.here(),
                )
            )

    def place(self, t: _TState, col: Column, pos: exp.Expr | None) -> None:
        where = str(pos.args.get("position") or "").upper() if pos is not None else ""
        if where == "FIRST":
            t.cols.insert(0, col)
        elif where == "AFTER" and pos is not None:
            i = t.find(pos.this.name)
            if i < 0:
                self.problem(f"AFTER {pos.this.name}: no such column in {t.name}")
                t.cols.append(col)
            else:
                t.cols.insert(i + 1, col)
        else:
            t.cols.append(col)

    def modify_column(self, t: _TState, action: exp.Expr) -> None:
        cd = action.this
        old_name = action.args.get("rename_from")
        old = old_name.name if old_name is not None else cd.name
        i = t.find(old)
        if i < 0:
            self.problem(f"column {t.name}.{old} does not exist")
            return
        col, pk, unique, refs = self.column_from_def(t, cd)
        del t.cols[i]
        t.col_ev.pop(old.lower(), None)
        t.col_ev[col.name.lower()] = self.here()
        pos = cd.args.get("position")
        if pos is None:
            t.cols.insert(i, col)
        else:
            self.place(t, col, pos)
        if col.name != old:
            self.rename_column_refs(t, old, col.name)
        self._column_extras(t, col, pk, unique, refs)

    def rename_column_refs(self, t: _TState, old: str, new: str) -> None:
        low = old.lower()
        for idx in t.indexes:
            idx.cols = [new if c.lower() == low else c for c in idx.cols]
        for fk in t.fks:
            fk.cols = [new if c.lower() == low else c for c in fk.cols]
        for other in self.tables.values():
            for fk in other.fks:
                if fk.ref_table.lower() == t.name.lower():
                    fk.ref_cols = [new if c.lower() == low else c for c in fk.ref_cols]

    def drop_column(self, t: _TState, name: str, if_exists: bool) -> None:
        i = t.find(name)
        if i < 0:
            if not if_exists:
                self.problem(f"column {t.name}.{name} does not exist")
            return
        del t.cols[i]
        low = name.lower()
        t.col_ev.pop(low, None)
        for idx in t.indexes:
            idx.cols = [c for c in idx.cols if c.lower() != low]
        t.indexes = [idx for idx in t.indexes if idx.cols]
        t.fks = [fk for fk in t.fks if low not in (c.lower() for c in fk.cols)]

    # -- keys
    def add_index(self, t: _TState, name: str, kind: ColumnKey, cols: list[str]) -> None:
        if kind == ColumnKey.PRI:
            t.indexes = [i for i in t.indexes if i.kind != ColumnKey.PRI]
            for c in cols:
                j = t.find(c)
                if j >= 0:
                    t.cols[j].nullable = False
            t.indexes.insert(0, _Index("PRIMARY", ColumnKey.PRI, cols))
        else:
            t.indexes.append(_Index(name, kind, cols))

    def add_constraint(self, t: _TState, node: exp.Expr) -> None:
        from sqlglot import exp

        cname = None
        if isinstance(node, exp.Constraint):
            cname = node.name or None
            for inner in node.expressions:
                self.add_constraint_inner(t, inner, cname)
            return
        self.add_constraint_inner(t, node, cname)

    def add_constraint_inner(self, t: _TState, node: exp.Expr, cname: str | None) -> None:
        from sqlglot import exp

        if isinstance(node, exp.PrimaryKey):
            self.add_index(t, "PRIMARY", ColumnKey.PRI, [_ident_name(e) for e in node.expressions])
        elif isinstance(node, exp.UniqueColumnConstraint):
            sch = node.this
            cols = [_ident_name(e) for e in sch.expressions] if isinstance(sch, exp.Schema) else []
            iname = sch.this.name if isinstance(sch, exp.Schema) and sch.this else None
            if cols:
                self.add_index(t, iname or cname or cols[0], ColumnKey.UNI, cols)
        elif isinstance(node, exp.IndexColumnConstraint):
            cols = [_ident_name(e) for e in node.expressions]
            if cols:
                self.add_index(t, node.name or cols[0], ColumnKey.MUL, cols)
        elif isinstance(node, exp.ForeignKey):
            ref = node.args.get("reference")
            sch = ref.this if ref is not None else None
            if not isinstance(sch, exp.Schema):
                self.problem(f"FOREIGN KEY on {t.name} without a referenced column list")
                return
            cols = [_ident_name(e) for e in node.expressions]
            t.fks.append(
                _Fk(
                    cname or t.new_name(f"{t.name}_ibfk"),
                    cols,
                    sch.this.name,
                    [_ident_name(e) for e in sch.expressions],
                    cname is not None,
                    self.here(),
                )
            )
        elif isinstance(node, (exp.CheckColumnConstraint, exp.Check)):
            return
        else:
            self.problem(f"unsupported table element in {t.name}: {_snippet(node.sql('mysql'))}")

    # -- ALTER TABLE
    def alter(self, tree: exp.Expr, stmt: str) -> None:
        from sqlglot import exp

        if str(tree.args.get("kind") or "").upper() != "TABLE":
            self.problem(f"unsupported statement: {_snippet(stmt)}")
            return
        t = self.table(tree.this.name)
        if t is None:
            return
        for opt in tree.args.get("options") or []:
            if isinstance(opt, exp.EngineProperty):
                t.engine = opt.this.name
        for action in tree.args.get("actions") or []:
            self.alter_action(t, action)
        _ensure_fk_indexes(t)

    def alter_action(self, t: _TState, action: exp.Expr) -> None:
        from sqlglot import exp

        if isinstance(action, exp.ColumnDef):
            self.add_column(t, action, None)
        elif isinstance(action, exp.ModifyColumn):
            self.modify_column(t, action)
        elif isinstance(action, exp.RenameColumn):
            old, new = action.this.name, action.args["to"].name
            i = t.find(old)
            if i < 0:
                self.problem(f"column {t.name}.{old} does not exist")
                return
            t.cols[i].name = new
            t.col_ev.pop(old.lower(), None)
            t.col_ev[new.lower()] = self.here()
            self.rename_column_refs(t, old, new)
        elif isinstance(action, exp.AlterRename):
            self.rename_table(t.name, action.this.name)
        elif isinstance(action, exp.AddConstraint):
            for e in action.expressions:
                self.add_constraint(t, e)
        elif isinstance(action, exp.DropPrimaryKey):
            t.indexes = [i for i in t.indexes if i.kind != ColumnKey.PRI]
        elif isinstance(action, exp.Drop):
            kind = str(action.args.get("kind") or "").upper()
            for target in action.args.get("tables") or []:
                name = target.name
                if kind == "COLUMN":
                    self.drop_column(t, name, bool(action.args.get("exists")))
                elif kind in ("INDEX", "KEY"):
                    before = len(t.indexes)
                    t.indexes = [i for i in t.indexes if i.name.lower() != name.lower()]
                    if len(t.indexes) == before and not action.args.get("exists"):
                        self.problem(f"index {name} on {t.name} is not known")
                elif kind == "FOREIGN KEY":
                    t.fks = [f for f in t.fks if f.name.lower() != name.lower()]
                elif kind in ("CONSTRAINT", "CHECK"):
                    t.fks = [f for f in t.fks if f.name.lower() != name.lower()]
                    t.indexes = [i for i in t.indexes if i.name.lower() != name.lower()]
                else:
                    self.problem(f"unsupported ALTER TABLE {t.name} DROP {kind}")
        elif isinstance(action, exp.RenameIndex):
            for ix in t.indexes:
                if ix.name.lower() == action.this.name.lower():
                    ix.name = action.args["to"].name
        elif isinstance(action, exp.AlterColumn):
            return  # SET/DROP DEFAULT, VISIBLE...: no shape change we record
        else:
            self.problem(
                f"unsupported ALTER TABLE {t.name} action: {_snippet(action.sql('mysql'))}"
            )

    # -- DROP TABLE / VIEW / INDEX
    def drop(self, tree: exp.Expr) -> None:
        kind = str(tree.args.get("kind") or "").upper()
        exists = bool(tree.args.get("exists"))
        for target in tree.args.get("tables") or []:
            name, low = target.name, target.name.lower()
            if kind == "TABLE":
                if low in self.tables:
                    del self.tables[low]
                elif not exists:
                    self.problem(f"DROP TABLE {name}: no such table")
            elif kind == "VIEW":
                if low in self.views:
                    del self.views[low]
                    self.view_ev.pop(low, None)
                elif not exists:
                    self.problem(f"DROP VIEW {name}: no such view")
            elif kind == "INDEX":
                on = tree.args.get("cluster")
                t = self.table(on.this.name) if on is not None and on.this is not None else None
                if t is not None:
                    t.indexes = [i for i in t.indexes if i.name.lower() != low]
            else:
                self.problem(f"unsupported statement: DROP {kind} {name}")

    # -- result
    def schema(self) -> Schema:
        tables: dict[str, Table] = {}
        fks: list[ForeignKey] = []
        evidence: dict[tuple[str, ...], Where] = {}
        for low, t in self.tables.items():
            keys = _column_keys(t)
            cols = [
                Column(c.name, c.data_type, c.nullable, keys.get(c.name.lower(), ""))
                for c in t.cols
            ]
            tables[low] = Table(t.name, t.engine, None, cols, SOURCE_MIGRATION)
            if t.evidence is not None:
                evidence[("table", low)] = t.evidence
            for c in t.cols:
                ev = t.col_ev.get(c.name.lower(), t.evidence)
                if ev is not None:
                    evidence[("column", low, c.name.lower())] = ev
            for fk in t.fks:
                for a, b in zip(fk.cols, fk.ref_cols, strict=False):
                    fks.append(ForeignKey(t.name, a, fk.ref_table, b))
                    if fk.evidence is not None:
                        evidence[("fk", low, a.lower(), fk.ref_table.lower(), b.lower())] = (
                            fk.evidence
                        )
        for low, ev in self.view_ev.items():
            if low in self.views:
                evidence[("view", low)] = ev
        return Schema(tables, fks, set(self.views), SOURCE_MIGRATION, evidence, dict(self.views))


def _split_top_commas(text: str) -> list[str]:
    parts: list[str] = []
    depth, quote = 0, ""
    cur: list[str] = []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def _ident_name(node: exp.Expr) -> str:
    from sqlglot import exp

    if isinstance(node, exp.Ordered):
        node = node.this
    return str(node.name)


def _engine_of(props: exp.Expr | None) -> str | None:
    from sqlglot import exp

    if props is None:
        return None
    for p in props.expressions:
        if isinstance(p, exp.EngineProperty):
            return str(p.this.name)
    return None


def _column_from_def(
    cd: exp.Expr, masked: Mapping[str, str] | None = None, dialect: str = "mysql"
) -> tuple[Column, bool, bool, tuple[str, str] | None, str | None]:
    """(column, is primary key, is unique, inline reference, the spelling of a type sqlglot
    does not know or None) of a column definition.

    MySQL types are spelled as MySQL stores them (``_declared_type``); other
    dialects' types as the file spells them, lower-cased (``timestamptz``,
    ``int[]``). A type sqlglot only knows as "user-defined" (``tsvector``, a
    domain, an enum type) is ``UNKNOWN_TYPE``."""
    from sqlglot import exp

    kind = cd.args.get("kind")
    odd = None
    if kind is None:
        dtype = None
    elif dialect == "mysql":
        dtype = _declared_type(kind.sql(dialect="mysql"))
    else:
        dtype = _squash(kind.sql(dialect=dialect))
    if dtype is not None and masked and dtype in masked:
        dtype = masked[dtype]
    if kind is not None and kind.this == exp.DataType.Type.USERDEFINED:
        odd, dtype = _snippet(kind.sql(dialect=dialect)), UNKNOWN_TYPE
    nullable, pk, unique, refs = True, False, False, None
    zerofill = False
    if kind is not None and kind.this == exp.DataType.Type.SERIAL and dialect == "mysql":
        dtype, nullable, unique = "bigint unsigned", False, True
    for c in cd.args.get("constraints") or []:
        k = c.args.get("kind") if isinstance(c, exp.ColumnConstraint) else c
        if isinstance(k, exp.NotNullColumnConstraint):
            nullable = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            pk, nullable = True, False
        elif isinstance(k, exp.UniqueColumnConstraint):
            unique = True
        elif isinstance(k, exp.Reference):
            sch = k.this
            if isinstance(sch, exp.Schema) and sch.expressions:
                refs = (sch.this.name, _ident_name(sch.expressions[0]))
        elif type(k).__name__ == "ZeroFillColumnConstraint":
            zerofill = True
    if zerofill and dtype:
        if " unsigned" not in dtype:
            dtype += " unsigned"
        dtype += " zerofill"
    return Column(cd.name, dtype, nullable and not pk, ""), pk, unique, refs, odd


def _declared_type(rendered: str) -> str:
    """sqlglot's MySQL rendering -> lower case COLUMN_TYPE-like spelling.

    Widths the migration did not state are not added; ``boolean`` becomes
    ``tinyint(1)`` (what the server stores).
    """
    t = _squash(rendered)
    if t in ("boolean", "bool"):
        return "tinyint(1)"
    return t


def _ensure_fk_indexes(t: _TState) -> None:
    """InnoDB adds an index for a foreign key whose columns no index starts with
    (named after the constraint, else after the first column); it stays when the
    foreign key is dropped."""
    for fk in t.fks:
        fcols = [c.lower() for c in fk.cols]
        if not any([c.lower() for c in i.cols[: len(fcols)]] == fcols for i in t.indexes):
            t.indexes.append(
                _Index(fk.name if fk.named else fk.cols[0], ColumnKey.MUL, list(fk.cols))
            )


def _column_keys(t: _TState) -> dict[str, str]:
    """COLUMN_KEY as MariaDB computes it (checked against a live server in tests).

    PRI: a column of the primary key; with no primary key, the columns of the
    first UNIQUE index whose columns are all NOT NULL. UNI: the column of a
    single-column UNIQUE index. MUL: the first column of any other index,
    including the index InnoDB adds for a foreign key (``_ensure_fk_indexes``).
    Priority PRI > UNI > MUL.
    """
    nullable = {c.name.lower(): c.nullable for c in t.cols}
    indexes = list(t.indexes)
    if not any(i.kind == ColumnKey.PRI for i in indexes):
        for i in indexes:
            if i.kind == ColumnKey.UNI and all(nullable.get(c.lower()) is False for c in i.cols):
                indexes = [_Index(i.name, ColumnKey.PRI, i.cols)] + [
                    j for j in indexes if j is not i
                ]
                break
    keys: dict[str, str] = {}
    rank = {ColumnKey.PRI: 3, ColumnKey.UNI: 2, ColumnKey.MUL: 1, "": 0}

    def put(col: str, key: str) -> None:
        low = col.lower()
        if rank[key] > rank[keys.get(low, "")]:
            keys[low] = key

    for i in indexes:
        if i.kind == ColumnKey.PRI:
            for c in i.cols:
                put(c, ColumnKey.PRI)
        elif i.kind == ColumnKey.UNI and len(i.cols) == 1:
            put(i.cols[0], ColumnKey.UNI)
        elif i.cols:
            put(i.cols[0], ColumnKey.MUL)
    return keys


# Column types valid in MariaDB/MySQL that sqlglot's MySQL dialect cannot parse
# (it then rejects the whole CREATE TABLE). They are masked as VARCHAR(<sentinel>)
# before parsing and the original spelling is put back on the column.
_UNPARSED_TYPE = (
    r"(?:multi)?point|(?:multi)?linestring|(?:multi)?polygon|geometrycollection|inet[46]"
    r"(?#)|(?:float|real)(?:\s*\(\s*\d+\s*(?:,\s*\d+\s*)?\))?\s+unsigned(?:\s+zerofill)?"
    r"(?#)|national\s+(?:var)?char(?:acter)?(?:\s+varying)?(?:\s*\(\s*\d+\s*\))?"
    r"|long\s+var(?:char|binary)"
)
_IDENT_RE = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_TYPE_POSITION = re.compile(
    rf"((?:^|[(,]|\b(?:add|modify|change)(?:\s+column)?(?:\s+if\s+not\s+exists)?)\s*"
    rf"(?:{_IDENT_RE}\s+){{1,2}})({_UNPARSED_TYPE})"
    r"(?=\s*(?:$|[,)]|(?:not|null|default|comment|primary|unique|key|auto_increment|character"
    r"|charset|collate|references|check|after|first|invisible|generated|as|srid|stored|virtual"
    r"|persistent|ref_system_id)\b))",
    re.I,
)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"")
_SENTINEL = 9876500


def _mask_types(stmt: str) -> tuple[str, dict[str, str]]:
    """``stmt`` with unparsable column types masked, and ``{mask: original}``."""
    if not re.match(r"\s*(?:create|alter)\b", stmt, re.I):
        return stmt, {}
    masks: dict[str, str] = {}

    def sub(m: re.Match[str]) -> str:
        mask = f"varchar({_SENTINEL + len(masks)})"
        masks[mask] = _squash(m.group(2))
        return m.group(1) + mask

    out, pos = [], 0
    for q in _QUOTED.finditer(stmt):  # only outside quoted strings
        out.append(_TYPE_POSITION.sub(sub, stmt[pos : q.start()]))
        out.append(q.group(0))
        pos = q.end()
    out.append(_TYPE_POSITION.sub(sub, stmt[pos:]))
    return "".join(out), masks


def _parse_one(stmt: str, dialect: str = "mysql") -> exp.Expr:
    import sqlglot

    sqlglot_setup.quiet()
    return sqlglot.parse_one(stmt, read=dialect)


_CREATE_TABLE_HEAD = re.compile(
    r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMPORARY\s+|TEMP\s+|UNLOGGED\s+)?"
    rf"TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?({_NAME}|\"(?:[^\"]|\"\")+\"(?:\\.\"(?:[^\"]|\"\")+\")?)\s*\(",
    re.I | re.S,
)
_COLUMN_HEAD = re.compile(
    r"((?:`(?:[^`]|``)+`|\"(?:[^\"]|\"\")+\"|\[[^\]]+\]|[\w$]+))\s+"
    r"((?:[\w$]+\.)?[\w$]+(?:\s+(?:varying|precision|zone|with|without|time|unsigned|zerofill))*"
    r"(?:\s*\([^)]*\))?(?:\s*\[\s*\d*\s*\])*"
    r"(?:\s+(?:with|without)\s+time\s+zone)?)(.*)$",
    re.I | re.S,
)
_TABLE_OPTION = re.compile(
    r"(?:DEFAULT\s+)?[A-Za-z_]+(?:\s+[A-Za-z_]+)??\s*=?\s*(?:'(?:[^'\\]|\\.|'')*'|[\w.$]+)", re.S
)
_ELEMENT_KEYWORDS = frozenset(
    {
        "PRIMARY",
        "KEY",
        "INDEX",
        "UNIQUE",
        "CONSTRAINT",
        "FOREIGN",
        "CHECK",
        "FULLTEXT",
        "SPATIAL",
        "EXCLUDE",
        "LIKE",
        "PERIOD",
    }
)


def _matching_paren(text: str, open_at: int) -> int:
    """The index of the ')' closing the '(' at ``open_at`` (quotes respected); -1 if none."""
    depth, quote = 0, ""
    for i in range(open_at, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def schema_to_data(schema: Schema, problems: list[Problem]) -> dict[str, Any]:
    """A schema and its problems as plain JSON values (``schema_from_data`` inverts it;
    the order of tables and evidence is kept)."""
    return {
        "tables": [
            [key, t.name, t.engine, t.row_estimate, t.source]
            + [[[c.name, c.data_type, c.nullable, c.key] for c in t.columns]]
            for key, t in schema.tables.items()
        ],
        "fks": [[f.from_table, f.from_column, f.to_table, f.to_column] for f in schema.fks],
        "views": sorted(schema.views),
        "source": schema.source,
        "evidence": [[list(k), w[0], w[1]] for k, w in schema.evidence.items()],
        "view_names": dict(schema.view_names),
        "problems": [[p.path, p.line, p.message] for p in problems],
    }


def schema_from_data(d: Any) -> tuple[Schema, list[Problem]]:
    """The inverse of ``schema_to_data``; ValueError when ``d`` is not such data (a cache
    that does not decode is rebuilt, never trusted)."""

    def text(v: Any) -> str:
        if not isinstance(v, str):
            raise ValueError("not a schema: a name is not a string")
        return v

    def opt_text(v: Any) -> str | None:
        return None if v is None else text(v)

    def num(v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError("not a schema: a number is not an integer")
        return v

    try:
        tables: dict[str, Table] = {}
        for key, name, engine, rows, source, cols in d["tables"]:
            tables[text(key)] = Table(
                text(name),
                opt_text(engine),
                None if rows is None else num(rows),
                [Column(text(a), opt_text(b), bool(c), text(k)) for a, b, c, k in cols],
                text(source),
            )
        schema = Schema(
            tables,
            [ForeignKey(text(a), text(b), text(c), text(e)) for a, b, c, e in d["fks"]],
            {text(v) for v in d["views"]},
            text(d["source"]),
            {tuple(text(k) for k in key): (text(p), num(n)) for key, p, n in d["evidence"]},
            {text(k): text(v) for k, v in dict(d["view_names"]).items()},
        )
        problems = [Problem(text(p), num(n), text(m)) for p, n, m in d["problems"]]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"not a cached schema: {e}") from None
    return schema, problems


def schema_from_migrations(
    files: list[tuple[str, str]], dialects: Mapping[str, str] | None = None
) -> tuple[Schema, list[Problem]]:
    """Apply the migration files in the given order (the caller sorts them).

    ``files`` is ``[(path, text)]``; ``dialects`` maps a path to its sqlglot
    dialect (``mysql``, the default, ``postgres`` or ``sqlite``). Returns the
    resulting schema (source ``'migration'``) and the statements that were not
    applied.
    """
    mig = _Migrator()
    for path, text in files:
        mig.path = str(path)
        mig.dialect = (dialects or {}).get(str(path), "mysql")
        for line, stmt in split_statements(text, dollar_quotes=mig.dialect == "postgres"):
            mig.line = line
            mig.apply(stmt)
    return mig.schema(), mig.problems

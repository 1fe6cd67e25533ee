"""SQL found in PHP strings: which statement, which tables, which columns (§6.2).

The caller hands over the text of one PHP string expression (a literal, an
interpolated string, a heredoc/nowdoc or a concatenation) as fragments:
``("lit", value)`` for literal text (the string's value: PHP escapes such as
``\\n`` or ``\\'`` already decoded, heredoc indentation removed) and
``("dyn", php_expr)`` for everything computed at run time (``$id``,
``{$wpdb->prefix}``, ``Util::backquote($t)``).

Invariants a change must keep:
- ``analyze`` returns None for text that is not SQL. The decision starts with
  a cheap test on the first literal fragment (a statement keyword, all upper
  or all lower case, followed somewhere by its companion keyword: SELECT ...
  FROM, UPDATE ... SET, INSERT ... INTO/VALUES, ...); only text that passes it
  is parsed. Results are cached by (fragments, prefixes).
- Nothing is invented. A table name comes from the text; ``columns`` is None
  whenever the set of columns is not known from the text (``SELECT *``,
  ``t.*``, INSERT without a column list, a dynamic identifier in a column
  position, or no parse); aliases of the select list are not columns.
- ``how`` of a TableRef: 'exact' when the name is entirely literal,
  'prefix_resolved' when a configured prefix (``db.table_prefixes``) was put
  in front of a literal rest, 'dynamic' when any part of the name comes from
  an unknown run-time value; then ``name`` is the literal part of the name
  ('' when there is none, or when it is only a keyword glued to the run-time
  part: ``'UPDATE ' . backquote($t) . 'SET ...'``). ``expr`` holds the PHP
  expression(s) of the run-time parts (``$prefix``, ``Util::backquote($table)``).
- ``dynamic`` is True when a run-time part is neither a configured prefix
  nor a value (a value is: inside a quoted SQL string, after a comparison or
  arithmetic operator, in IN (...)/VALUES (...)/function arguments, after
  LIMIT/OFFSET/LIKE/BETWEEN...). ``?`` and ``:name`` are values; the
  ``sprintf``/``$wpdb->prepare`` placeholders ``%s``/``%d``/``%f`` are values in
  a value position and dynamic in a name position (``FROM %s``, also inside
  backquotes); WordPress' ``%i`` (identifier) is always dynamic.
- A configured prefix may also be a whole table name: ``{"$wpdb->posts":
  "wp_posts"}`` resolves ``FROM {$wpdb->posts}`` to ``wp_posts``.
- When sqlglot cannot parse the text, table names come from a regular
  expression over FROM/JOIN/INTO/UPDATE/TABLE with ``parsed=False``; when that
  finds no table either, the text is not treated as SQL (None).
- Text longer than ``MAX_PARSE_CHARS`` (a data dump in a string) is not given
  to sqlglot (its time grows with the text: ~1 s per 100 KB); its tables come
  from the regular expression, ``parsed=False``. The whole analysis stays
  linear in the length of the text.
- ``sqlglot`` is imported lazily (through ``ragraf.sql.sqlglot_setup``); importing this
  module costs only the stdlib.
- Fragments (issue 12): text that continues a statement (``' FROM orders o,'``,
  ``'LEFT JOIN users u ON ...'``, ``'AND id IN (SELECT ...)'``) is completed
  into a statement around an invented table (``__rgfrag__``, never reported)
  and analysed the same way; operation 'fragment', every table 'read'. It
  must name a table after FROM / JOIN, else it is not treated as SQL.
  ``analyze`` of text that does not start with a statement keyword is
  ``analyze_fragment``.
- Joomla's ``#__`` before a name is a run-time prefix part (``#`` would start
  a MySQL comment).
- ``analyze_call`` reads a query-builder call's table argument (no SQL text):
  ``parsed`` False, ``columns`` None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ragraf.kinds import FragmentKind, TableHow, TableRole
from ragraf.sql import sqlglot_setup

if TYPE_CHECKING:
    from sqlglot import exp

OPERATIONS = (
    "select",
    "insert",
    "update",
    "delete",
    "replace",
    "create",
    "alter",
    "drop",
    "fragment",
    "other",
)


@dataclass(frozen=True)
class TableRef:
    name: str
    how: str  # 'exact' | 'prefix_resolved' | 'dynamic' | 'listed' (``list_fragment``)
    role: str  # 'read' | 'write'
    schema: str | None = None  # the `db` of `db.table`, when literal
    expr: str | None = None  # the PHP expression(s) of the run-time parts of the name


@dataclass
class SqlInfo:
    operation: str
    tables: list[TableRef]
    columns: list[str] | None
    select_star: bool
    dynamic: bool
    parsed: bool
    problems: list[str] = field(default_factory=list)
    #: the CREATE TABLE statements with a column list, ALTER TABLE and DROP TABLE, as (index
    #: into ``tables``, the statement in MySQL with its table named ``DDL_TABLE``): the columns
    #: code defines, for a corpus without a schema (``ragraf.indexing.schema.add_code_tables``)
    ddl: list[tuple[int, str]] = field(default_factory=list)
    #: a string of several statements naming different tables: (index into ``tables``, the
    #: operation of the first statement naming it, the columns of the statements naming it
    #: or None when unknown), for every table; ``operation`` and ``columns`` are the whole
    #: string's (``CREATE TABLE a (...); CREATE TABLE b (...)``: a's columns are not b's)
    by_table: list[tuple[int, str, list[str] | None]] = field(default_factory=list)


Fragment = tuple[str, str]

# ------------------------------------------------------------ the pre-check

# First word of a statement (after blanks, parentheses and /* comments */).
_LEAD = re.compile(r"[\s(]*(?:/\*.*?\*/[\s(]*)*([A-Za-z]+)\b", re.S)
# statement keyword -> what must also occur in the literal text
_COMPANION = {
    "select": re.compile(r"\bfrom\b", re.I),
    "with": re.compile(r"\bselect\b", re.I),
    "insert": re.compile(r"\b(?:into|values?)\b", re.I),
    "replace": re.compile(r"^\s*replace\s+(?:low_priority\s+|delayed\s+)?into\b", re.I),
    "update": re.compile(r"\bset\b", re.I),
    "delete": re.compile(r"\bfrom\b|\bdelete\s+\\?[A-Za-z_]\w*\\", re.I),  # DQL: DELETE App\X u
    "create": re.compile(
        r"^\s*create\s+(?:or\s+replace\s+)?(?:temporary\s+|unique\s+|fulltext\s+)?"
        r"(?:table|view|index)\b",
        re.I,
    ),
    "alter": re.compile(r"^\s*alter\s+(?:ignore\s+)?table\b", re.I),
    "drop": re.compile(r"^\s*drop\s+(?:temporary\s+)?(?:table|view|index)\b", re.I),
    "truncate": re.compile(r"^\s*truncate\s+(?:table\s+)?[`\w{$]", re.I),
    "show": re.compile(
        r"^\s*show\s+(?:full\s+)?(?:tables|columns|fields|index|indexes|keys"
        r"|create\s+table|table\s+status)\b",
        re.I,
    ),
    "describe": re.compile(r"^\s*describe\s+[`\w{$]", re.I),
}
#: the words a statement may start with (the pre-check's first test)
STATEMENT_KEYWORDS = frozenset(_COMPANION)


# English after a table keyword: "delete from the trash", "insert into your page"
_PROSE = re.compile(
    r"\b(?:from|into|update|table|join)\s+(?:the|an|this|that|these|those|your"
    r"|my|our|their|his|her|its|all|any|each|every|some|which|what|of|to|it"
    r"|them|you|here|there|list|menu)\b",
    re.I,
)
# words that are never a table name even when a parser takes them for one
_NOT_A_NAME = {
    "set",
    "where",
    "select",
    "from",
    "values",
    "value",
    "into",
    "join",
    "on",
    "dual",
    "the",
}
# keywords that follow a table name: glued to a run-time name they are not part of it
_GLUED_KEYWORDS = _NOT_A_NAME | {
    "as",
    "inner",
    "left",
    "right",
    "cross",
    "natural",
    "straight_join",
    "using",
    "order",
    "group",
    "limit",
    "having",
    "union",
    "partition",
    "force",
    "use",
    "ignore",
    "lock",
    "for",
    "and",
    "or",
}
# sprintf()/$wpdb->prepare() placeholders inside a backquoted name: `%s`, `%1$s`
_BQ_PLACEHOLDER = re.compile(r"%(?:\d+\$)?[sdi]")


def _first_word(fragments: Any) -> tuple[str, int] | None:
    """The statement keyword the text starts with, and its offset; the fast reject."""
    if isinstance(fragments, str):
        first = fragments
    else:
        if not fragments:
            return None
        kind, first = fragments[0]
        if kind != FragmentKind.LIT:
            return None
    m = _LEAD.match(first)
    if m is None:
        return None
    word = m.group(1)
    if word.lower() not in _COMPANION or not (word.isupper() or word.islower()):
        return None  # "Select a file" / "Update now" are prose, not SQL
    return word, m.start(1)


def _lead_keyword(fragments: tuple[Fragment, ...]) -> str | None:
    head = _first_word(fragments)
    if head is None:
        return None
    word, start = head
    low = word.lower()
    lits = "".join(t for k, t in fragments if k == FragmentKind.LIT)
    if not _COMPANION[low].search(
        lits
        if low not in ("replace", "create", "alter", "drop", "truncate", "show", "describe")
        else lits[start:]
    ):
        return None
    if fragments[-1][0] == FragmentKind.LIT and fragments[-1][1].rstrip()[-1:] in (".", "!"):
        return None  # a sentence
    if word.islower() and _PROSE.search(lits):
        return None
    return low


def looks_like_sql(fragments: Iterable[Fragment] | str) -> bool:
    """The cheap pre-check alone (no parsing)."""
    if not isinstance(fragments, (str, list, tuple)):
        fragments = list(fragments)
    if _first_word(fragments) is None:
        return False
    return _lead_keyword(_as_tuple(fragments)) is not None


def _as_tuple(fragments: Iterable[Fragment] | str) -> tuple[Fragment, ...]:
    if isinstance(fragments, str):
        return ((FragmentKind.LIT, fragments),)
    return tuple((str(k), str(t)) for k, t in fragments)


# ------------------------------------------------------------------- entry


def analyze(
    fragments: Iterable[Fragment] | str, prefixes: Mapping[str, str] | None = None
) -> SqlInfo | None:
    """Analyse one PHP string expression; None when it is not SQL."""
    if not isinstance(fragments, (str, list, tuple)):
        fragments = list(fragments)
    if _first_word(fragments) is None:  # the common case: decided on the first word
        return analyze_fragment(fragments, prefixes)
    frags = _joomla(_as_tuple(fragments))
    lead = _lead_keyword(frags)
    if lead is None:
        return None
    return _copy(_analyze_cached(frags, _pkey(prefixes), lead))


def _pkey(prefixes: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((_norm_dyn(k), v) for k, v in (prefixes or {}).items()))


def _copy(cached: SqlInfo | None) -> SqlInfo | None:
    if cached is None:
        return None
    # fresh lists: callers may mutate what they get without touching the cache
    return SqlInfo(
        cached.operation,
        list(cached.tables),
        None if cached.columns is None else list(cached.columns),
        cached.select_star,
        cached.dynamic,
        cached.parsed,
        list(cached.problems),
        list(cached.ddl),
        [(i, op, None if cols is None else list(cols)) for i, op, cols in cached.by_table],
    )


# ------------------------------------------------------------------ fragments

# How a piece of SQL that is not a statement starts (the clause it continues), matched on
# the first literal: the word must be all upper or all lower case, like a statement's.
_FRAG_LEAD = re.compile(
    r"[\s(]*((?:(?:natural\s+)?(?:left|right|full)\s+(?:outer\s+)?|inner\s+|cross\s+)?join"
    r"|straight_join|from|where|and|or|order\s+by|group\s+by|having|union(?:\s+all)?"
    r"|not\s+exists|exists|not\s+in|in)\b",
    re.I,
)
#: the statement a fragment is completed into, by its first word; ``__rgfrag__`` names the
#: table the completion invents (never reported)
_FRAG_WRAP = {
    "from": "SELECT 1 ",
    "join": "SELECT 1 FROM __rgfrag__ ",
    "where": "SELECT 1 FROM __rgfrag__ ",
    "order": "SELECT 1 FROM __rgfrag__ ",
    "group": "SELECT 1 FROM __rgfrag__ ",
    "having": "SELECT 1 FROM __rgfrag__ ",
    "union": "SELECT 1 FROM __rgfrag__ ",
    "and": "SELECT 1 FROM __rgfrag__ WHERE 1 = 1 ",
    "or": "SELECT 1 FROM __rgfrag__ WHERE 1 = 1 ",
    "exists": "SELECT 1 FROM __rgfrag__ WHERE ",
    "not": "SELECT 1 FROM __rgfrag__ WHERE ",
    "in": "SELECT 1 FROM __rgfrag__ WHERE 1 ",
}
_FRAG_NAMES = re.compile(r"\b(?:from|join)\s+[`\w\x01{$]", re.I)
_FRAG_TABLE = "__rgfrag__"


def fragment_lead(fragments: Iterable[Fragment] | str) -> str | None:
    """The clause a SQL fragment continues ('from', 'join', 'where', 'and'...) when its
    text starts like one and names a table (FROM / JOIN and a name follow); else None."""
    frags = _as_tuple(fragments if isinstance(fragments, (str, list, tuple)) else list(fragments))
    if not frags or frags[0][0] != FragmentKind.LIT:
        return None
    m = _FRAG_LEAD.match(frags[0][1])
    if m is None:
        return None
    word = m.group(1)
    if not (word.isupper() or word.islower()):
        return None
    lits = "".join(t if k == FragmentKind.LIT else "\x01" for k, t in frags)
    if not _FRAG_NAMES.search(lits):
        return None
    if word.islower() and _PROSE.search(lits):
        return None
    if frags[-1][0] == FragmentKind.LIT and frags[-1][1].rstrip()[-1:] in (".", "!", "?", ":"):
        return None  # a sentence
    first = word.split()[0].lower()
    if first == "not" and word.lower().split()[-1] == "in":
        return "in"
    return (
        "join"
        if first in ("left", "right", "full", "inner", "cross", "natural")
        or (first == "straight_join")
        else first
    )


def analyze_fragment(
    fragments: Iterable[Fragment] | str, prefixes: Mapping[str, str] | None = None
) -> SqlInfo | None:
    """Analyse a piece of SQL that is not a whole statement (``' FROM orders o'``,
    ``'LEFT JOIN users u ON ...'``, ``'AND id IN (SELECT ...)'``): the tables it names,
    all read (the statement it ends up in is not known), operation 'fragment'. None when
    it does not look like one or names no table."""
    if not isinstance(fragments, (str, list, tuple)):
        fragments = list(fragments)
    lead = fragment_lead(fragments)
    if lead is None:
        return list_fragment(fragments)
    frags = _joomla(_as_tuple(fragments))
    if frags[-1][0] == FragmentKind.LIT:  # a list item: `orders o,`
        frags = (*frags[:-1], (FragmentKind.LIT, frags[-1][1].rstrip().rstrip(",")))
    wrapped = ((FragmentKind.LIT, _FRAG_WRAP[lead]), *frags)
    merged: list[Fragment] = []
    for k, v in wrapped:
        if k == FragmentKind.LIT and merged and merged[-1][0] == FragmentKind.LIT:
            merged[-1] = (FragmentKind.LIT, merged[-1][1] + v)
        else:
            merged.append((k, v))
    info = _copy(_analyze_cached(tuple(merged), _pkey(prefixes), "select"))
    if info is None:
        return None
    tables = [
        TableRef(t.name, t.how, TableRole.READ, t.schema, t.expr)
        for t in info.tables
        if t.name.lower() != _FRAG_TABLE
    ]
    if not tables:
        return None
    info.operation = "fragment"
    info.tables = list(dict.fromkeys(tables))
    return info


_QUALIFIED_ITEM = re.compile(
    r"\s*`?([A-Za-z_]\w*)`?\.`?(?:[A-Za-z_]\w*|\*)`?(?:\s+(?:AS\s+)?`?\w+`?)?\s*", re.I
)
_TABLE_ITEM = re.compile(r"\s*([a-z_][a-z0-9_]*)(?:\s+(?:as\s+)?[a-z][a-z0-9_]{0,3})?\s*")


def list_fragment(fragments: Iterable[Fragment] | str) -> SqlInfo | None:
    """A fragment that starts with a name, not a keyword: a select list of qualified
    columns (``'orders.title AS t, orders.id,'``: the qualifiers) or a table list with
    aliases (``'orders o, order_lines l,'``). Literal text only. Its tables come back
    ``how='listed'``: names a string gives that could be anything else, tables only when
    the schema or the code's CREATE TABLEs know them (the linker checks). None when the
    text is neither."""
    frags = _as_tuple(fragments if isinstance(fragments, (str, list, tuple)) else list(fragments))
    if not frags or any(k != FragmentKind.LIT for k, _t in frags):
        return None
    items = "".join(t for _k, t in frags).split(",")
    if items and not items[-1].strip():
        items, trailing = items[:-1], True
    else:
        trailing = False
    if not items or any(not it.strip() for it in items):
        return None
    names: list[str] = []
    qualified = [_QUALIFIED_ITEM.fullmatch(it) for it in items]
    if qualified[0] is not None:
        names = [m.group(1) for m in qualified if m is not None]
    elif len(items) >= 2 or trailing:
        listed = [_TABLE_ITEM.fullmatch(it) for it in items]
        if any(m is None for m in listed):
            return None
        names = [m.group(1) for m in listed if m is not None]
    if not names:
        return None
    tables = [TableRef(n, TableHow.LISTED, TableRole.READ) for n in dict.fromkeys(names)]
    return SqlInfo("fragment", tables, None, False, False, False)


def analyze_call(
    operation: str, role: str, table: Iterable[Fragment], prefixes: Mapping[str, str] | None = None
) -> SqlInfo | None:
    """A query-builder call (``$wpdb->update($wpdb->options, ...)``, ``DB::table('t')``):
    the table its argument names (``table``: the argument's fragments; a literal may carry
    a ``db.`` qualifier, backquotes and an alias: ``'users u'``, ``'users AS u'``). No SQL
    text: ``columns`` is None, ``parsed`` is False. None when the argument names nothing."""
    frags = _joomla(_as_tuple(list(table)))
    if not frags:
        return None
    pre = {_norm_dyn(k): v for k, v in (prefixes or {}).items()}
    if frags[-1][0] == FragmentKind.LIT:  # an alias after the name
        frags = (
            *frags[:-1],
            (FragmentKind.LIT, re.split(r"\s", frags[-1][1].strip(), maxsplit=1)[0]),
        )
    lits = "".join(v for k, v in frags if k == FragmentKind.LIT).strip().replace("`", "")
    if lits and not re.fullmatch(r"[\w$.]+", lits):
        return None  # not a name: `'id = 1'`, `'me@example.org'`
    dyn = [_norm_dyn(v) for k, v in frags if k == FragmentKind.DYN]
    schema = None
    if not dyn:
        schema, _dot, name = lits.rpartition(".")
        return SqlInfo(
            operation,
            [TableRef(name, TableHow.EXACT, role, schema or None)],
            None,
            False,
            False,
            False,
        )
    if all(d in pre for d in dyn):
        name = "".join(pre[_norm_dyn(v)] if k == FragmentKind.DYN else v for k, v in frags).replace(
            "`", ""
        )
        ref = TableRef(name.strip(), TableHow.PREFIX_RESOLVED, role, None, " . ".join(dyn))
        return SqlInfo(operation, [ref], None, False, False, False)
    ref = TableRef(lits.strip("._"), TableHow.DYNAMIC, role, None, " . ".join(dyn))
    return SqlInfo(
        operation, [ref], None, False, True, False, [f"dynamic table name: {ref.name or ref.expr}"]
    )


_JOOMLA = re.compile(r"#__(?=\w)")


def _joomla(frags: tuple[Fragment, ...]) -> tuple[Fragment, ...]:
    """Joomla's table prefix placeholder ``#__users`` (a ``#`` comment to MySQL) as a
    run-time prefix part ``#__``."""
    if not any(k == FragmentKind.LIT and "#__" in t for k, t in frags):
        return frags
    out: list[Fragment] = []
    for k, t in frags:
        if k != FragmentKind.LIT or "#__" not in t:
            out.append((k, t))
            continue
        pieces = _JOOMLA.split(t)
        for i, piece in enumerate(pieces):
            if i:
                out.append((FragmentKind.DYN, "#__"))
            if piece:
                out.append((FragmentKind.LIT, piece))
    return tuple(out)


def warm() -> None:
    """Import sqlglot and its MySQL dialect now (before extraction workers fork)."""
    analyze("SELECT a FROM t WHERE b = 1")


def cache_clear() -> None:
    _analyze_cached.cache_clear()


def norm_dyn(text: str) -> str:
    """The key a run-time part is looked up under in ``db.table_prefixes``."""
    return _norm_dyn(text)


def _norm_dyn(text: str) -> str:
    """``{$wpdb->prefix}`` / ``${prefix}`` / `` $prefix `` -> ``$wpdb->prefix`` / ``$prefix``."""
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        t = t[1:-1].strip()
    elif t.startswith("${") and t.endswith("}"):
        t = "$" + t[2:-1].strip()
    return t


# ------------------------------------------------- placeholders for dyn parts

_PH = re.compile(r"__rg([dp])(\d+)__")
_MARK = re.compile(r"\x01(\d+)\x02")
# tokens of the marked-up text outside quotes
_TOKENS = re.compile(
    r"'(?:[^'\\]|\\.|'')*(?:'|$)"  # single-quoted string (maybe unterminated)
    r'|"(?:[^"\\]|\\.|"")*(?:"|$)'  # double-quoted string (a string in MySQL)
    r"|`(?:[^`]|``)*(?:`|$)"  # backquoted identifier
    r"|\x01\d+\x02"  # a dyn fragment
    r"|%%|%(?:\d+\$)?[sdfFi]"  # $wpdb->prepare() placeholders
    r"|[^'\"`\x01%]+|%",
    re.S,
)
# the next token starts another expression (a name, a dyn part, a string, a number, '*')
_STARTS_EXPR = re.compile(r"\s*(?!(?:from|as|into)\b)(?:[\w`'\"*\x01@])", re.I)
_VALUE_KEYWORDS = {
    "in",
    "like",
    "limit",
    "offset",
    "between",
    "regexp",
    "rlike",
    "is",
    "interval",
    "then",
    "else",
    "when",
    "values",
    "value",
    "against",
    "div",
    "mod",
    "escape",
    "sounds",
    "case",
    "return",
}
_IDENT_KEYWORDS = {
    "from",
    "join",
    "into",
    "update",
    "table",
    "tables",
    "exists",
    "by",
    "select",
    "distinct",
    "where",
    "and",
    "or",
    "not",
    "on",
    "set",
    "as",
    "using",
    "having",
    "delete",
    "straight_join",
    "ignore",
    "replace",
    "insert",
    "low_priority",
    "quick",
    "sql_calc_found_rows",
    "alter",
    "drop",
    "create",
    "truncate",
    "describe",
    "index",
    "key",
    "column",
    "add",
    "modify",
    "change",
    "rename",
    "to",
    "xor",
    "high_priority",
    "delayed",
    "temporary",
}


@dataclass
class _Built:
    sql: str
    dyn_text: dict[int, str]  # placeholder number -> PHP expression
    prefix_of: dict[int, str]  # placeholder number -> configured prefix value
    dynamic: bool
    problems: list[str]


# How much of the text before a position the role decisions look at: they only read
# its end, and looking at all of it made long statements quadratic.
_TAIL = 4096


class _Out:
    """The marked-up SQL being built, with (at least) its last ``_TAIL`` characters at hand."""

    __slots__ = ("parts", "tail")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.tail = ""

    def append(self, piece: str) -> None:
        self.parts.append(piece)
        self.tail += piece
        if len(self.tail) > 2 * _TAIL:
            self.tail = self.tail[-_TAIL:]


def _build(frags: tuple[Fragment, ...], prefixes: dict[str, str], lead: str) -> _Built:
    marked: list[str] = []
    dyn_text: dict[int, str] = {}
    for kind, text in frags:
        if kind == FragmentKind.LIT:
            marked.append(text.replace("\x01", " ").replace("\x02", " "))
        else:
            n = len(dyn_text)
            dyn_text[n] = text
            marked.append(f"\x01{n}\x02")
    text = "".join(marked)
    out = _Out()
    prefix_of: dict[int, str] = {}
    dynamic = False
    problems: list[str] = []
    depth_ctx: list[str] = []  # per open paren: 'value' or 'ident'
    next_ph = len(dyn_text)
    spans = [(m.group(0), m.end()) for m in _TOKENS.finditer(text)]
    for tok, end in spans:
        c = tok[0]
        if c in "'\"":
            out.append(_MARK.sub("0", tok))  # a value inside a string literal
        elif c == "`":

            def ident(m: re.Match[str]) -> str:
                nonlocal dynamic
                n = int(m.group(1))
                key = _norm_dyn(dyn_text[n])
                if key in prefixes:
                    prefix_of[n] = prefixes[key]
                    return f"__rgp{n}__"
                dynamic = True
                return f"__rgd{n}__"

            if "%" in tok:

                def placeholder(m: re.Match[str]) -> str:
                    nonlocal dynamic, next_ph
                    dynamic = True
                    dyn_text[next_ph] = m.group(0)
                    next_ph += 1
                    return f"__rgd{next_ph - 1}__"

                tok = _BQ_PLACEHOLDER.sub(placeholder, tok)
            out.append(_MARK.sub(ident, tok))
        elif c == "\x01":
            n = int(tok[1:-1])
            key = _norm_dyn(dyn_text[n])
            if key in prefixes:
                prefix_of[n] = prefixes[key]
                out.append(f"__rgp{n}__")
                continue
            role = _dyn_role(out.tail, text[end : end + 80], depth_ctx)
            if role == "value":
                out.append("0")
            else:
                dynamic = True
                out.append(f"__rgd{n}__" if role == "ident" else " ")
                if role == "clause":
                    problems.append(f"dynamic SQL fragment {dyn_text[n]}")
        elif c == "%" and len(tok) > 1:
            if tok == "%%":
                out.append("%")
                continue
            # sprintf()/$wpdb->prepare() placeholder: a value, or a name (%i always)
            role = (
                "ident"
                if tok.endswith("i")
                else _dyn_role(out.tail, text[end : end + 80], depth_ctx)
            )
            if role == "value":
                out.append("0")
            else:
                dynamic = True
                dyn_text[next_ph] = tok
                out.append(f"__rgd{next_ph}__" if role == "ident" else " ")
                next_ph += 1
        else:
            before = out.tail
            out.append(tok)
            if "(" in tok or ")" in tok:
                for j, ch in enumerate(tok):
                    if ch == "(":
                        # _paren_kind reads the name before the paren: the last few hundred characters
                        head = tok[max(0, j - 256) : j] if j >= 256 else (before + tok[:j])[-256:]
                        depth_ctx.append(_paren_kind(head))
                    elif ch == ")" and depth_ctx:
                        depth_ctx.pop()
    sql = "".join(out.parts)
    if lead == "replace":  # sqlglot's MySQL dialect reads REPLACE INTO as a Command
        sql = re.sub(r"^(\s*)replace\b", r"\1INSERT", sql, count=1, flags=re.I)
    return _Built(sql, dyn_text, prefix_of, dynamic, problems)


def _paren_kind(before: str) -> str:
    b = before.rstrip()
    if re.search(r"\binto\s+[\w`.]+\s*$", b, re.I) or re.search(r"\busing\s*$", b, re.I):
        return "ident"
    return "value"


def _dyn_role(prev: str, nxt: str, depth_ctx: list[str]) -> str:
    """'ident', 'value' or 'clause' (a whole piece of SQL, e.g. ``$where``)."""
    glued_left = prev[-1:].isalnum() or prev[-1:] in ("_", ".", "`", "$")
    glued_right = nxt[:1].isalnum() or nxt[:1] in ("_", ".", "`", "\x01")
    if glued_left or glued_right:
        return "ident"  # part of a name: {$prefix}users, wp_$t, $db.users
    p = prev.rstrip()
    if not p:
        return "ident"
    last = p[-1]
    if last == ",":
        if depth_ctx:
            return depth_ctx[-1]
        clause = re.findall(r"\b(select|from|by|set|limit|values|into|join)\b", p, re.I)
        return "value" if clause and clause[-1].lower() in ("limit", "values") else "ident"
    if last == "(":
        return _paren_kind(p[:-1])
    if last in "=<>!+-/%^|&~":
        return "value"
    m = re.search(r"([A-Za-z_]+)$", p)
    if m:
        word = m.group(1).lower()
        if word in _VALUE_KEYWORDS:
            return "value"
        if word in ("select", "distinct") and _STARTS_EXPR.match(nxt):
            return "clause"  # SELECT $distinct col / SELECT $found_rows $fields
        if word in _IDENT_KEYWORDS:
            return "ident"
    return "clause"


def _resolve(name: str, built: _Built) -> tuple[str, str, str | None]:
    """(name, how, PHP expression of the run-time parts) of one identifier.

    A dynamic name keeps its literal characters (and a resolved prefix); a name
    with no literal character at all is '' (unknown).
    """
    if "__rg" not in name:
        return name, TableHow.EXACT, None
    how = TableHow.PREFIX_RESOLVED
    exprs: list[str] = []
    for m in _PH.finditer(name):
        n = int(m.group(2))
        exprs.append(_norm_dyn(built.dyn_text.get(n, "?")))
        if not (m.group(1) == "p" and n in built.prefix_of):
            how = TableHow.DYNAMIC
    resolved = _PH.sub(
        lambda m: built.prefix_of.get(int(m.group(2)), "") if m.group(1) == "p" else "", name
    )
    literal = _PH.sub("", name).strip("_.")
    if how == TableHow.DYNAMIC and (not literal or literal.lower() in _GLUED_KEYWORDS):
        # nothing literal: the name is unknown; `'UPDATE ' . backquote($t) . 'SET ...'`
        # glues a keyword to the run-time name, which is no part of it
        resolved = ""
    return resolved.lstrip("."), how, " . ".join(exprs)


# ------------------------------------------------------------------ parsing


MAX_PARSE_CHARS = 20_000


@lru_cache(maxsize=32768)
def _analyze_cached(
    frags: tuple[Fragment, ...], pkey: tuple[tuple[str, str], ...], lead: str
) -> SqlInfo | None:
    built = _build(frags, dict(pkey), lead)
    dql = _from_dql(built, lead)
    if dql is not None:
        return dql
    if len(built.sql) > MAX_PARSE_CHARS:
        built.problems.append(f"{len(built.sql)} characters: too long for the parser")
        return _from_regex(built, lead)
    info = _from_sqlglot(built, lead)
    if info is None:
        info = _from_regex(built, lead)
    return info


#: an entity named by its class in DQL: ``FROM App\Entity\User u``, ``JOIN App\X x``,
#: ``UPDATE App\Entity\User u``, ``DELETE App\Entity\User u`` (an association path
#: ``JOIN u.posts p`` names no class: no backslash)
_DQL_ENTITY = re.compile(
    r"\b(from|join|update|delete)\s+\\?([A-Za-z_]\w*(?:\\[A-Za-z_]\w*)+)\b", re.I
)


def _from_dql(built: _Built, lead: str) -> SqlInfo | None:
    """Doctrine's DQL, which names entity classes where SQL names tables: each class is a
    table reference of ``how`` ``TableHow.ENTITY`` (the linker maps it through the entity's
    mapping); None when the text names no class so (SQL)."""
    refs: list[TableRef] = []
    for m in _DQL_ENTITY.finditer(built.sql):
        kw = m.group(1).lower()
        role = (
            TableRole.WRITE
            if kw in ("update", "delete") or (kw == "from" and lead == "delete")
            else TableRole.READ
        )
        r = TableRef(m.group(2), TableHow.ENTITY, role, None, None)
        if r not in refs:
            refs.append(r)
    if not refs:
        return None
    problems = [*built.problems, "Doctrine DQL: entity classes, mapped to tables by the linker"]
    return SqlInfo(lead, refs, None, False, built.dynamic, False, _dedupe(problems))


def _parse(sql: str) -> list[exp.Expr] | None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    sqlglot_setup.quiet()
    try:
        trees = sqlglot.parse(sql, read="mysql")
    except SqlglotError:
        return None
    except Exception:  # noqa: BLE001 - odd input can break sqlglot in other ways
        return None
    found = [t for t in trees if t is not None]
    if not found or any(isinstance(t, exp.Command) for t in found):
        return None
    return found


def _operation(tree: exp.Expr, lead: str) -> str:
    from sqlglot import exp

    if isinstance(tree, (exp.Select, exp.SetOperation, exp.Subquery)):
        return "select"
    if isinstance(tree, exp.Insert):
        return "replace" if lead == "replace" else "insert"
    for cls, name in (
        (exp.Update, "update"),
        (exp.Delete, "delete"),
        (exp.Create, "create"),
        (exp.Alter, "alter"),
        (exp.Drop, "drop"),
    ):
        if isinstance(tree, cls):
            return name
    return "other"


def _from_sqlglot(built: _Built, lead: str) -> SqlInfo | None:
    """The string parsed by sqlglot (MySQL), statement by statement: the tables each names
    and their roles, the columns, the DDL of the tables it defines; None when it does not
    parse, or names no table where a table is expected (``SELECT NOW()``)."""
    trees = _parse(built.sql)
    if trees is None:
        return None
    found = _Found(built, list(built.problems))
    for tree in trees:
        named = found.tables_of(tree)
        columns = found.columns_of(tree)
        found.statements.append(
            (_operation(tree, lead if not found.statements else ""), named, columns)
        )
    op = _operation(trees[0], lead)
    if found.select_star:
        found.columns_known = False
    if op in ("select", "insert", "update", "delete", "replace") and not found.refs:
        return None  # e.g. SELECT NOW(): no table, nothing this module reports
    refs = found.refs
    return SqlInfo(
        op,
        refs,
        found.columns if found.columns_known else None,
        found.select_star,
        built.dynamic or any(r.how == TableHow.DYNAMIC for r in refs),
        True,
        _dedupe(found.problems),
        [(refs.index(r), text) for r, text in found.ddl if r in refs],
        _by_table(found.statements) if len(found.statements) > 1 and len(refs) > 1 else [],
    )


@dataclass
class _Found:
    """What the parsed statements of one string name, gathered statement by statement."""

    built: _Built
    problems: list[str]
    refs: list[TableRef] = field(default_factory=list)
    ddl: list[tuple[TableRef, str]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)  # of every statement, first seen first
    columns_known: bool = True
    select_star: bool = False
    #: per statement: its operation, the tables it names (indexes into refs), its columns
    statements: list[tuple[str, set[int], list[str] | None]] = field(default_factory=list)

    def tables_of(self, tree: exp.Expr) -> set[int]:
        """The tables one statement names, written ones first (indexes into ``refs``); the
        DDL of the table it defines or changes."""
        from sqlglot import exp

        ctes = {c.alias.lower() for c in tree.find_all(exp.CTE) if c.alias}
        named: set[int] = set()
        write_ids = set()
        for t in _write_targets(tree):
            write_ids.add(id(t))
            self.ref(t, TableRole.WRITE, ctes, named)
        created = _created_table(tree)
        if created is not None:
            cname, _chow, cexpr = _resolve(created.name, self.built)
            made = [
                r
                for r in self.refs
                if r.role == TableRole.WRITE and (r.name, r.expr) == (cname, cexpr)
            ]
            if made and (cname or cexpr):
                self.ddl.append((made[0], _ddl_of(tree)))
        for t in tree.find_all(exp.Table):
            if id(t) in write_ids or _not_a_table(t, tree):
                continue
            self.ref(t, TableRole.READ, ctes, named)
        target = tree.args.get("target") if isinstance(tree, exp.Show) else None
        if isinstance(target, exp.Identifier):
            self.ref(exp.Table(this=target.copy()), TableRole.READ, ctes, named)
        return named

    def ref(self, t: exp.Expr, role: str, ctes: set[str], named: set[int]) -> None:
        """A Table node as a ``TableRef`` (its name and schema resolved against the
        placeholders), added to ``refs`` once and to the statement's ``named``; a CTE's
        name and words that name no table are skipped."""
        from sqlglot import exp

        raw = t.name
        if not raw or (raw.lower() in ctes and not t.args.get("db")) or raw.lower() in _NOT_A_NAME:
            return
        name, how, expr = _resolve(raw, self.built)
        schema = None
        db = t.args.get("db")
        # `a..b` (MSSQL's default schema) leaves the db a bare string, often empty
        db_name = db.name if isinstance(db, exp.Expr) else str(db or "")
        if db_name:
            sname, show, sexpr = _resolve(db_name, self.built)
            schema = sname if show != TableHow.DYNAMIC else None
            if show == TableHow.DYNAMIC:
                how = TableHow.DYNAMIC
                expr = " . ".join(x for x in (sexpr, expr or name) if x)
        if how == TableHow.DYNAMIC:
            self.problems.append(f"dynamic table name: {name or expr}")
        r = TableRef(name, how, role, schema, expr)
        if r not in self.refs:
            self.refs.append(r)
        named.add(self.refs.index(r))

    def columns_of(self, tree: exp.Expr) -> list[str] | None:
        """The columns one statement names (added to ``columns``); None when they are not
        all known: ``SELECT *``, an INSERT without a column list, a column named at run
        time."""
        from sqlglot import exp

        stmt_columns: list[str] = []
        stmt_known = True
        stmt_star = False
        proj_aliases = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
        for sel in tree.find_all(exp.Select):
            if sel.find_ancestor(exp.Exists) is not None:
                continue  # EXISTS (SELECT * ...) reads no column
            for e in sel.expressions:
                if isinstance(e, exp.Star) or (
                    isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
                ):
                    self.select_star = stmt_star = True
        if isinstance(tree, exp.Insert) and not isinstance(tree.this, exp.Schema):
            self.columns_known = stmt_known = False
        for node in tree.walk():
            name = None
            if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
                name = node.name
                if not node.table and name.lower() in proj_aliases:
                    continue
            elif isinstance(node, exp.ColumnDef):
                name = node.name
            elif (
                isinstance(node, exp.Identifier)
                and isinstance(node.parent, exp.Schema)
                and isinstance(node.parent.parent, exp.Insert)
            ):
                name = node.name
            elif isinstance(node, exp.Identifier) and node.arg_key == "using":
                name = node.name
            if not name:
                continue
            if "__rg" in name:
                self.columns_known = stmt_known = False
                self.problems.append("dynamic identifier in a column position")
                continue
            if name not in self.columns:
                self.columns.append(name)
            if name not in stmt_columns:
                stmt_columns.append(name)
        return stmt_columns if stmt_known and not stmt_star else None


def _by_table(
    statements: list[tuple[str, set[int], list[str] | None]],
) -> list[tuple[int, str, list[str] | None]]:
    """``SqlInfo.by_table`` of the statements of one string."""
    got: dict[int, tuple[str, list[str] | None]] = {}
    for op, named, cols in statements:
        for i in sorted(named):
            if i not in got:
                got[i] = (op, None if cols is None else list(cols))
                continue
            first, have = got[i]
            if have is not None and cols is not None:
                have.extend(c for c in cols if c not in have)
            else:
                got[i] = (first, None)
    return [(i, op, cols) for i, (op, cols) in sorted(got.items())]


#: how a CREATE TABLE statement of ``SqlInfo.ddl`` names its table
DDL_TABLE = "__rgtable__"


def _created_table(tree: exp.Expr) -> exp.Expr | None:
    """The Table node a DDL statement of ``SqlInfo.ddl`` defines or changes: ``CREATE TABLE
    name (columns...)`` (not ... AS SELECT / LIKE), ``ALTER TABLE name``, ``DROP TABLE
    name`` (one table); None for any other statement."""
    from sqlglot import exp

    if str(tree.args.get("kind") or "").upper() != "TABLE":
        return None
    if isinstance(tree, exp.Alter):
        return tree.this if isinstance(tree.this, exp.Table) else None
    if isinstance(tree, exp.Drop):
        tables = tree.args.get("tables") or []
        return tables[0] if len(tables) == 1 and isinstance(tables[0], exp.Table) else None
    if not isinstance(tree, exp.Create):
        return None
    schema = tree.this
    if not isinstance(schema, exp.Schema) or not isinstance(schema.this, exp.Table):
        return None
    if not any(isinstance(e, exp.ColumnDef) for e in schema.expressions):
        return None
    return schema.this


def _ddl_of(tree: exp.Expr) -> str:
    """The statement in MySQL, its table renamed ``DDL_TABLE`` (the caller knows the name)."""
    from sqlglot import exp

    copy = tree.copy()
    target = _created_table(copy)
    assert target is not None  # the caller checked the original
    target.replace(exp.Table(this=exp.to_identifier(DDL_TABLE)))
    from sqlglot.errors import ErrorLevel

    # what MySQL cannot spell is left out silently (no warning on stderr: it is the
    # migrator's to refuse the statement, as a problem)
    return str(copy.sql(dialect="mysql", unsupported_level=ErrorLevel.IGNORE))


def _not_a_table(t: exp.Expr, tree: exp.Expr) -> bool:
    """Table nodes that name no table to read: the alias list of ``DELETE a FROM t a``
    (already a write) and the index/key/constraint of ``ALTER TABLE .. DROP INDEX i``."""
    from sqlglot import exp

    parent = t.parent
    if isinstance(tree, exp.Delete) and t.arg_key == "tables" and parent is tree:
        return True
    if isinstance(parent, exp.Drop) and parent is not tree:
        return str(parent.args.get("kind") or "").upper() not in ("TABLE", "VIEW")
    return False


def _write_targets(tree: exp.Expr) -> list[exp.Expr]:
    """The Table nodes a statement writes to."""
    from sqlglot import exp

    if isinstance(tree, exp.Insert):
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        return [target] if isinstance(target, exp.Table) else []
    if isinstance(tree, exp.Update):
        first = tree.this
        in_clause = [
            first,
            *[j.this for j in (first.args.get("joins") or []) if isinstance(j.this, exp.Table)],
        ]
        in_clause += [
            j.this for j in (tree.args.get("joins") or []) if isinstance(j.this, exp.Table)
        ]
        by_name: dict[str, exp.Expr] = {}
        for t in in_clause:
            by_name.setdefault((t.alias or t.name).lower(), t)
            by_name.setdefault(t.name.lower(), t)
        out: list[exp.Expr] = []
        for eq in tree.expressions:
            col = eq.this if isinstance(eq, exp.EQ) else None
            qual = col.table.lower() if isinstance(col, exp.Column) and col.table else ""
            t = by_name.get(qual) if qual else first
            if t is not None and t not in out:
                out.append(t)
        return out or [first]
    if isinstance(tree, exp.Delete):
        listed = tree.args.get("tables") or []
        if listed:
            base = [tree.this] + [j.this for j in (tree.this.args.get("joins") or [])]
            for u in tree.args.get("using") or []:
                base += [u] + [j.this for j in (u.args.get("joins") or [])]
            out = []
            for t in listed:
                key = t.name.lower()
                match = next(
                    (
                        b
                        for b in base
                        if isinstance(b, exp.Table)
                        and ((b.alias or "").lower() == key or b.name.lower() == key)
                    ),
                    None,
                )
                out.append(match if match is not None else t)
            return out
        return [tree.this] if isinstance(tree.this, exp.Table) else []
    if isinstance(tree, exp.Create):
        target = tree.this
        if isinstance(target, exp.Schema):
            target = target.this
        if isinstance(target, exp.Index):
            target = target.args.get("table")
        return [target] if isinstance(target, exp.Table) else []
    if isinstance(tree, exp.Alter):
        out = [tree.this] if isinstance(tree.this, exp.Table) else []
        out += [
            a.this
            for a in tree.args.get("actions") or []
            if isinstance(a, exp.AlterRename) and isinstance(a.this, exp.Table)
        ]
        return out
    if isinstance(tree, exp.Drop):
        return [t for t in tree.args.get("tables") or [] if isinstance(t, exp.Table)]
    if isinstance(tree, exp.TruncateTable):
        return [t for t in tree.expressions if isinstance(t, exp.Table)]
    return []


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


# ----------------------------------------------------------- regex fallback

_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_QNAME = rf"{_NAME}(?:\s*\.\s*{_NAME})?"
_CLAUSE_WORDS = (
    r"(?:where|set|join|inner|left|right|outer|cross|natural|straight_join|on|using"
    r"|group|order|limit|having|union|values?|select|for|lock|window|force|use"
    r"|ignore|partition|\()"
)
# one item of a FROM list: a (qualified) name and an optional alias
_ITEM = rf"{_QNAME}(?:\s+(?:as\s+)?(?!{_CLAUSE_WORDS}\b){_NAME})?"
_FALLBACK = re.compile(
    rf"\b(from|join|straight_join|into|update|table)\s+({_ITEM}(?:\s*,\s*{_ITEM})*)", re.I
)
_LIST_ITEM = re.compile(rf"\s*({_QNAME})", re.I)
_NOT_TABLES = {
    "select",
    "where",
    "set",
    "values",
    "value",
    "dual",
    "if",
    "not",
    "exists",
    "ignore",
    "low_priority",
    "delayed",
    "high_priority",
    "quick",
    "temporary",
    "only",
    "lateral",
}


def _from_regex(built: _Built, lead: str) -> SqlInfo | None:
    refs: list[TableRef] = []
    seen_from = False
    found: list[tuple[str, str]] = []
    for m in _FALLBACK.finditer(built.sql):
        kw = m.group(1).lower()
        items = [
            im.group(1) for x in m.group(2).split(",") if (im := _LIST_ITEM.match(x)) is not None
        ]
        found += [(kw if j == 0 else "from-list", it) for j, it in enumerate(items)]
    for kw, raw in found:
        parts = [p.strip().strip("`") for p in re.split(r"\s*\.\s*(?=[`\w$])", raw)]
        tname = parts[-1]
        if tname.lower() in _NOT_TABLES or tname.lower() in _NOT_A_NAME or tname.isdigit():
            continue
        role = TableRole.READ
        if kw in ("into", "update", "table"):
            role = TableRole.WRITE
        elif kw == "from" and lead == "delete" and not seen_from:
            role = TableRole.WRITE
        if kw == "from":
            seen_from = True
        name, how, expr = _resolve(tname, built)
        schema = None
        if len(parts) > 1:
            sname, show, sexpr = _resolve(parts[-2], built)
            if show == TableHow.DYNAMIC:
                how = TableHow.DYNAMIC
                expr = " . ".join(x for x in (sexpr, expr or tname) if x)
            else:
                schema = sname
        r = TableRef(name, how, role, schema, expr)
        if r not in refs:
            refs.append(r)
    if not refs:
        return None
    op = {"with": "select", "truncate": "other", "show": "other", "describe": "other"}.get(
        lead, lead
    )
    star = re.search(r"\bselect\s+(?:distinct\s+)?(?:[\w`]+\.)?\*", built.sql, re.I) is not None
    problems = [*built.problems, "not parsed by sqlglot: tables from a regular expression"]
    problems += [
        f"dynamic table name: {r.name or r.expr}" for r in refs if r.how == TableHow.DYNAMIC
    ]
    return SqlInfo(
        op,
        refs,
        None,
        star,
        built.dynamic or any(r.how == TableHow.DYNAMIC for r in refs),
        False,
        _dedupe(problems),
    )

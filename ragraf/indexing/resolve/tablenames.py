"""Table names that come from code (issue 12): what the run-time part of a name is.

SQL strings and query-builder calls often name a table through code:
``$wpdb->options``, ``{$wpdb->prefix}options``, ``$this->prefix . 'users'``,
``$db->quoteName('#__users')``, ``$db->table_name('users')``. ``sqltext``
keeps such a name as a dynamic ``TableRef`` (the literal rest in ``name``, the
PHP expression in ``expr``); ``TableNames.resolve`` says which table it is when
the corpus tells, without any hand-written map:

- *prefixes*: literals assigned to table-prefix names (``$table_prefix =
  'wp_'`` in ``wp-config-sample.php``; ``TablePrefixRef`` facts): a specific
  name (``table_prefix``, ``DB_PREFIX``, ``dbprefix``...) before a bare
  ``prefix`` (an array key ``'prefix' => 'simplepie_'`` is often a cache key
  prefix), then the most frequent; ``db.table_prefixes`` entries are
  configured prefixes.
- *table properties*: ``$obj->X`` used as a whole table name in a CREATE TABLE
  string of the code (WordPress' ``CREATE TABLE $wpdb->options``): X names a
  table, the prefix is put in front.
- *known tables*: the schema's tables and the tables CREATE TABLE strings in
  the code create (``code_tables``), matched exactly, with a prefix, or by a
  unique suffix (``X`` -> the one known table ``<p>_X``).
- *helpers*: a call whose argument is a literal table name
  (``table_name('users')``, ``quoteName('#__users')``); the common names are
  known (``DEFAULT_HELPERS``), ``db.table_helpers`` adds more.

Invariants a change must keep:
- Nothing is resolved by guessing alone: a property is a table only when a
  known table or a CREATE TABLE in the code says so; a prefix part resolves
  only with a discovered prefix or a unique known suffix match. Otherwise the
  name stays what ``sqltext`` made of it (dynamic) and ``resolve`` returns None.
- Every resolution says how (``via``): 'table_property', 'discovered_prefix',
  'schema_suffix', 'helper_call'. Edges built on them are derived.
- Deterministic: prefixes are ordered by (specific name first, count, value).

``QueryBuilders`` is ``db.query_builders``: the query-builder calls a project's
own code has besides the common ones ``ragraf.lang.php.strings`` recognises.
The extractor keeps every method call whose first argument is a literal shaped
like a table name (``BuilderCallRef``); only a configured method, or a common
builder method on a configured receiver, makes one a table reference. Facts
stay independent of the configuration (they are cached by content).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ragraf.kinds import TableHow, TableRole
from ragraf.lang.facts import BuilderCallRef, FileFacts, SqlRef, SqlTable, TablePrefixRef
from ragraf.linear_re import Pattern, compile_linear

#: functions / methods whose first argument is a (literal) table name
DEFAULT_HELPERS = (
    "table_name",
    "tablename",
    "gettablename",
    "get_table_name",
    "quotename",
    "quotetable",
    "quotetablename",
    "quoteidentifier",
    "prefixtable",
    "prefix_table",
    "table",
    "gettable",
    "backquote",
    "escape_identifier",
    "protect_identifiers",
    "dbprefix",
)
# `$obj->X`, `$this->X`, `self::$X`, `static::X`
_PROPERTY = re.compile(r"^\$?[A-Za-z_]\w*(?:->|::\$?)([A-Za-z_]\w*)$")
# `name('lit')`, `$db->name("lit")`, `X::name('lit', ...)`
_HELPER = re.compile(r"^(?:.*(?:->|::))?\\?([A-Za-z_]\w*)\s*\(\s*(['\"])([#\w.`]+)\2\s*[,)]")
_PREFIX_EXPR = re.compile(r"prefix|^#__$", re.I)
_PREFIX_SHAPE = re.compile(r"^\w*_$")


#: builder methods a configured receiver's call names a table with -> operation
RECEIVER_METHODS = {
    "insert": "insert",
    "update": "update",
    "delete": "delete",
    "replace": "replace",
    "into": "insert",
    "table": "select",
    "from": "select",
}
#: the operations ``db.query_builders.methods`` may name
BUILDER_OPERATIONS = ("select", "insert", "update", "delete", "replace")


@dataclass(frozen=True)
class QueryBuilders:
    methods: Mapping[str, str] = field(default_factory=dict)  # lower method -> operation
    receivers: tuple[Pattern, ...] = ()  # RE2: linear time, whatever the configuration

    @classmethod
    def of(cls, conf: Mapping[str, object] | None) -> QueryBuilders:
        """From ``db.query_builders`` ({methods: {name: operation}, receivers: [regex]})."""
        conf = conf or {}
        methods = conf.get("methods") or {}
        receivers = conf.get("receivers") or []
        assert isinstance(methods, Mapping) and isinstance(receivers, list)
        return cls(
            {str(k).lower(): str(v).lower() for k, v in methods.items()},
            tuple(compile_linear(str(r)) for r in receivers),
        )

    def __bool__(self) -> bool:
        return bool(self.methods or self.receivers)

    def operation(self, ref: BuilderCallRef) -> str | None:
        """The operation of a candidate call, or None when the configuration does not make
        it a query builder's."""
        low = ref.method.lower()
        if low in self.methods:
            return self.methods[low]
        if low in RECEIVER_METHODS and any(r.search(ref.receiver) for r in self.receivers):
            return RECEIVER_METHODS[low]
        return None


@dataclass
class TableNames:
    known: set[str]  # lower names of the schema's tables
    prefixes: list[str] = field(default_factory=list)  # discovered, most frequent first
    properties: set[str] = field(default_factory=set)  # lower X of `CREATE TABLE $obj->X`
    code_tables: dict[str, str] = field(default_factory=dict)  # lower -> name (CREATE TABLE)
    helpers: frozenset[str] = frozenset(DEFAULT_HELPERS)

    @classmethod
    def of(
        cls,
        files: Iterable[FileFacts],
        schema_tables: Iterable[str],
        helpers: Iterable[str] = (),
    ) -> TableNames:
        """The conventions of a corpus: its prefixes, table properties and CREATE TABLEs."""
        counts: Counter[tuple[int, str]] = Counter()  # (0 specific name / 1 'prefix', value)
        creates: list[SqlTable] = []
        for f in files:
            for r in f.refs:
                if isinstance(r, TablePrefixRef):
                    generic = re.search(r"(?:^|[^A-Za-z_])prefix\W*$", r.name, re.I) is not None
                    counts[(1 if generic else 0, r.value)] += 1
                elif isinstance(r, SqlRef) and r.analysis and r.analysis.operation == "create":
                    creates += [t for t in r.analysis.tables if t.role == TableRole.WRITE]
        out = cls(
            {t.lower() for t in schema_tables},
            list(
                dict.fromkeys(
                    v
                    for (_g, v), _n in sorted(
                        counts.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1])
                    )
                )
            ),
            helpers=frozenset(DEFAULT_HELPERS) | {h.lower() for h in helpers},
        )
        for t in creates:
            if t.how != TableHow.DYNAMIC:
                out.code_tables.setdefault(t.name.lower(), t.name)
            elif not t.name and t.expr and (m := _PROPERTY.match(t.expr)):
                out.properties.add(m.group(1).lower())
        for t in creates:
            if t.how == TableHow.DYNAMIC:
                got = out.resolve(t)
                if got is not None:
                    out.code_tables.setdefault(got[0].lower(), got[0])
        return out

    def is_known(self, name: str) -> bool:
        low = name.lower()
        return low in self.known or low in self.code_tables

    def resolve(self, t: SqlTable) -> tuple[str, str] | None:
        """(table name, via) for a dynamic name the corpus explains; else None."""
        if t.how != TableHow.DYNAMIC or not t.expr:
            return None
        parts = [p.strip() for p in t.expr.split(" . ")]
        if len(parts) != 1:
            return None
        expr = parts[0]
        m = _HELPER.match(expr)
        if m is not None and m.group(1).lower() in self.helpers:
            lit = m.group(3).replace("`", "").rsplit(".", 1)[-1]
            if lit.startswith("#__"):
                return self._prefixed(lit[3:], "helper_call")
            return lit, "helper_call"
        if _PREFIX_EXPR.search(expr) and t.name:
            return self._prefixed(t.name, "discovered_prefix")
        m = _PROPERTY.match(expr)
        if m is not None and not t.name:
            return self._property(m.group(1))
        return None

    def _prefixed(self, rest: str, via: str) -> tuple[str, str] | None:
        """A run-time prefix followed by ``rest``."""
        for p in self.prefixes:
            if self.is_known(p + rest):
                return self._name(p + rest), via
        if self.is_known(rest):
            return None  # the literal rest names a known table: sqltext's name stands
        suffix = self._suffix(rest)
        if suffix is not None:
            return suffix, "schema_suffix"
        if self.prefixes:
            return self.prefixes[0] + rest, "discovered_prefix"
        return None

    def _property(self, prop: str) -> tuple[str, str] | None:
        """``$obj->X`` as a whole table name."""
        low = prop.lower()
        if self.is_known(prop):
            return self._name(prop), "table_property"
        for p in self.prefixes:
            if self.is_known(p + prop):
                return self._name(p + prop), "table_property"
        suffix = self._suffix(prop)
        if suffix is not None:
            return suffix, "schema_suffix"
        if low in self.properties and self.prefixes:
            return self.prefixes[0] + prop, "table_property"
        return None

    def _suffix(self, rest: str) -> str | None:
        """The one known table named ``<prefix>rest`` (a prefix ending in ``_``)."""
        low = rest.lower()
        hits = {
            n
            for n in (*self.known, *self.code_tables)
            if n.endswith(low) and n != low and _PREFIX_SHAPE.match(n[: -len(low)])
        }
        return self._name(hits.pop()) if len(hits) == 1 else None

    def _name(self, name: str) -> str:
        return self.code_tables.get(name.lower(), name)


def configured(prefixes: Mapping[str, str]) -> set[str]:
    """The lower-case expressions ``db.table_prefixes`` configures (they win over discovery)."""
    return {k.strip().lower() for k in prefixes}

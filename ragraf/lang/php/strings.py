"""PHP string literals and the SQL in them (issues 6 and 12, architecture §6.2).

A capture ``@sql.string`` is a string whose text starts with a SQL statement
keyword or a clause keyword (FROM, JOIN, WHERE, AND...; the query's
predicates). It is followed up to its outermost concatenation (or the
``sprintf`` whose format it is) and kept; at the end of the walk
(``finish_sql``) the kept expressions of each scope are turned into fragments
by ``ragraf.lang.php.assemble`` (string variables of the scope substituted):
``("lit", text)`` for literal text decoded as PHP decodes it (escapes of
single- and double-quoted strings, heredoc indentation) and ``("dyn", php)``
for run-time parts (their PHP source, cut to ``MAX_SQL_DYN`` characters).
A capture ``@sql.call`` is a call that may be a query builder's naming a
table (``$wpdb->update($t, ...)``, ``DB::table('t')``, ``->from('t')``);
``@sql.prefix`` a literal assigned to a table-prefix name.

Invariants a change must keep:
- Each piece of SQL is analysed once, with ``ragraf.sql.sqltext`` *without*
  configured table prefixes (the resolver re-analyses the few whose run-time
  parts a prefix in ``db.table_prefixes`` names): a statement built from a
  variable's assignment and appends is one SqlRef at the assignment's line
  (``end_line`` the last append's); a string a statement took in is not
  analysed again; a clause fragment no statement took in is analysed as a
  fragment (``sqltext.analyze_fragment``).
- A query-builder call is recognised only when its receiver is a database
  connection or builder (``_DB_RECEIVER``) or, for ``table``/``from``/``join``,
  when the chain around it calls builder methods; its first argument (a
  Doctrine ``join``'s second) must not be an array, closure or number. Its
  SqlRef's fragments start with ``("call", "<receiver>-><method>")``.
- The ref is a ``SqlRef`` (or ``TablePrefixRef``) whose owner is a node index
  already: the innermost function / method (a closure belongs to its
  enclosing one), else the class (constants, property defaults), else the
  file; ``ordinal`` counts the SQL refs of one owner on one line, in source
  order.
- ``pack_sql`` keeps the analysis as plain data (FileFacts cross process
  borders and are cached).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ragraf.kinds import FragmentKind, TableHow, TableRole
from ragraf.lang.facts import UNKNOWN, SqlAnalysis, SqlRef, TablePrefixRef, known_analysis
from ragraf.lang.php import assemble, laravel
from ragraf.lang.php.names import Names
from ragraf.lang.php.state import FrameKind
from ragraf.sql import sqltext

if TYPE_CHECKING:
    from tree_sitter import Node

# PHP escapes of double-quoted strings and heredocs (single quotes know only \\ and \')
_DQ_ESCAPE = re.compile(
    r'\\(?:([nrtvef\\$"])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u\{([0-9A-Fa-f]+)\})'
)
_DQ_SIMPLE = {
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "e": "\x1b",
    "f": "\f",
    "\\": "\\",
    "$": "$",
    '"': '"',
}
_SQ_ESCAPE = re.compile(r"\\([\\'])")
_STRINGS = frozenset({"string", "encapsed_string", "heredoc", "nowdoc"})
_TEXT_PARTS = frozenset({"string_content", "escape_sequence", "nowdoc_string", "string_value"})
#: characters of a run-time part's PHP source kept in a ``("dyn", php)`` fragment: enough
#: for the resolver to match a ``db.table_prefixes`` expression, bounded for long ones
MAX_SQL_DYN = 120
#: a literal shaped like a table name (an argument, an array's element or key)
TABLE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{1,63}")
#: arrays with more elements are no list of tables (data)
MAX_TABLE_LIST = 200
#: PHP keeps the low byte of an octal escape above \377 ("\400" is "\0")
_OCTAL_BYTE_MASK = 0xFF


class Strings(Names):
    """SQL candidates of the walk and the decoding of PHP strings."""

    def on_sql(self, n: Node) -> None:
        """A string starting with a SQL keyword or clause: keep its outermost concatenation
        for ``finish_sql`` (once)."""
        head = _LEAD_WORD.match(self.src, n.start_byte, min(n.end_byte, n.start_byte + 64))
        if head is not None and not (head.group(1).isupper() or head.group(1).islower()):
            return  # "In this case ...", "Order now": prose (sqltext would say so too)
        outer = n
        p = outer.parent
        while p is not None:
            if not (
                _is_concat(p) or (p.type == "parenthesized_expression" and _is_concat(p.parent))
            ):
                break
            outer = p
            p = outer.parent
        call = _format_call(outer)
        if call is not None:
            outer = call
        key = (outer.start_byte, outer.end_byte)
        if key in self.sql_done:
            return
        self.sql_done.add(key)
        self.sql_pending.append((self.sql_owner(), outer))

    def finish_sql(self) -> None:
        """Analyse the kept strings scope by scope: variables assembled (``assemble``), whole
        statements first (newest first: a later statement takes in the pieces it is built
        from), then the fragments no statement took in."""
        by_scope: dict[int, tuple[Node, list[tuple[int, Node]], list[tuple[int, Node]]]] = {}
        for owner, outer in self.sql_pending:
            sc = assemble.scope_of(outer)
            by_scope.setdefault(sc.start_byte, (sc, [], []))[1].append((owner, outer))
        for owner, call in self.sql_calls:
            sc = assemble.scope_of(call)
            by_scope.setdefault(sc.start_byte, (sc, [], []))[2].append((owner, call))
        found: list[tuple[int, int, int, int, tuple[tuple[str, str], ...], SqlAnalysis | None]] = []
        builders: set[int] = set()  # start bytes of the calls recognised as query builders'
        for sc, items, calls in by_scope.values():
            asm = assemble.Assembler(sc, self.t, self.literal_fragments)
            for owner, call in calls:
                got = self.builder_call(asm, call)
                if got is not None:
                    line = call.start_point[0] + 1
                    found.append((call.start_byte, owner, line, call.end_point[0] + 1, *got))
                    builders.add(call.start_byte)
            todo = sorted(items, key=lambda it: it[1].start_byte, reverse=True)
            later: list[tuple[int, Node]] = []
            for owner, outer in todo:
                if outer.start_byte in asm.consumed:
                    continue
                mark = asm.checkpoint()
                frags, end = self.assembled(asm, outer)
                if not sqltext.looks_like_sql(frags):
                    asm.rollback(mark)  # not a statement: it took nothing in
                    later.append((owner, outer))
                    continue
                packed = known_analysis(frags)  # an earlier extraction's (``known_sql``)
                if packed is UNKNOWN:
                    info = sqltext.analyze(frags)
                    if info is None and not any(k == FragmentKind.DYN for k, _t in frags):
                        continue
                    packed = pack_sql(info)
                found.append(
                    (outer.start_byte, owner, outer.start_point[0] + 1, end, frags, packed)
                )
            for owner, outer in later:
                if outer.start_byte in asm.consumed:
                    continue
                frags, end = self.assembled(asm, outer)
                packed = known_analysis(frags)
                if packed is UNKNOWN:
                    info = sqltext.analyze_fragment(frags)
                    if info is None:
                        continue
                    packed = pack_sql(info)
                found.append(
                    (outer.start_byte, owner, outer.start_point[0] + 1, end, frags, packed)
                )
        self.sql_calls.clear()
        for start, owner, line, end_line, cls, method in self.repo_calls:
            entity = self.repo_entities.get(cls)
            if entity is not None:  # the repository of an entity reads the entity's table
                ref = sqltext.TableRef(entity, TableHow.ENTITY, TableRole.READ, None, None)
                problems = ["Doctrine repository of an entity, mapped to its table by the linker"]
                info = sqltext.SqlInfo("select", [ref], None, False, False, False, problems)
                frags = ((FragmentKind.CALL, f"$this->{method}"), (FragmentKind.LIT, entity))
                found.append((start, owner, line, end_line, frags, pack_sql(info)))
        self.repo_calls.clear()
        found.sort(key=lambda x: x[0])
        for _start, owner, line, end_line, frags, packed in found:
            ordinal = self.sql_lines.get((owner, line), 0) + 1
            self.sql_lines[(owner, line)] = ordinal
            # owner is already a node index here (not a scope): finish() keeps it as is
            self.raw_refs.append(SqlRef(owner, line, end_line, frags, packed, ordinal))
        self.sql_pending.clear()
        self.raw_refs.extend(c for start, c in self.builder_pending if start not in builders)
        self.builder_pending.clear()

    def on_sql_call(self, n: Node) -> None:
        """A call that may be a query builder's naming a table: kept for ``finish_sql``."""
        self.sql_calls.append((self.sql_owner(), n))

    def builder_call(
        self, asm: assemble.Assembler, n: Node
    ) -> tuple[tuple[tuple[str, str], ...], SqlAnalysis | None] | None:
        """A query-builder call naming a table in its first argument (the second of a
        Doctrine-style ``join('alias', 'table', 'a', ...)``): fragments starting with
        ``("call", ...)``, then the argument's (variables assembled)."""
        name_node = n.child_by_field_name("name")
        method = self.t(name_node).lower() if name_node is not None else ""
        recv = n.child_by_field_name("object" if n.type != "scoped_call_expression" else "scope")
        rtext = self.t(recv) if recv is not None else ""
        if n.type == "scoped_call_expression" and is_schema_facade(rtext):
            return self.schema_builder(n, method)
        args = assemble.call_args(n)
        if not args:
            return None
        first = args[0]
        if "join" in method and len(args) >= 3 and self._doctrine_join(args):
            first = args[1]
        op, role = _builder_role(n, method, rtext, self.t, len(args))
        if op is None:
            return None
        if first.type == "array_creation_expression" and method in _TABLE_LIST_METHODS:
            # MediaWiki's `$dbr->select( [ 'page', 'r' => 'revision' ], ...)`: every value
            names = [self.string_value(v) for v in _array_values(first)]
            if not names or any(v is None or not v for v in names):
                return None
            table: list[tuple[str, str]] = [(FragmentKind.LIT, ", ".join(v for v in names if v))]
            infos = [sqltext.analyze_call(op, role, [(FragmentKind.LIT, v)]) for v in names if v]
            if any(i is None for i in infos):
                return None
            info = infos[0]
            assert info is not None
            info.tables = [t for i in infos if i is not None for t in i.tables]
        elif first.type in _NOT_A_TABLE_ARG:
            return None
        elif first.type == "class_constant_access_expression":
            # Doctrine's `->from(User::class, 'u')`: an entity class, not a table name
            got_entity = self._entity_arg(first, op, role)
            if got_entity is None:
                return None
            table, info = got_entity
        else:
            table = asm.fragments(first)
            got = sqltext.analyze_call(op, role, table)
            if got is None:
                return None
            info = got
        sep = "::" if n.type == "scoped_call_expression" else "->"
        recv_short = " ".join(rtext.split())[-60:]  # one line: chains span several
        label = f"{recv_short}{sep}{self.t(name_node) if name_node is not None else method}"
        return ((FragmentKind.CALL, label), *table), pack_sql(info)

    def _entity_arg(
        self, n: Node, op: str, role: str
    ) -> tuple[list[tuple[str, str]], sqltext.SqlInfo] | None:
        """``X::class`` as a query builder's table argument (Doctrine's QueryBuilder takes
        entity classes: ``from(User::class, 'u')``, ``leftJoin(Post::class, 'p', ...)``): a
        table reference of ``how`` ``ENTITY``, which the linker maps through the entity's
        mapping like DQL's; None for any other class constant."""
        fqn = self.class_literal(n)
        if fqn is None:
            return None
        ref = sqltext.TableRef(fqn, TableHow.ENTITY, role, None, None)
        problems = ["Doctrine entity class, mapped to its table by the linker"]
        return [(FragmentKind.LIT, fqn)], sqltext.SqlInfo(
            op, [ref], None, False, False, False, problems
        )

    def schema_builder(
        self, n: Node, method: str
    ) -> tuple[tuple[tuple[str, str], ...], SqlAnalysis | None] | None:
        """Laravel's ``Schema::create('users', function (Blueprint $t) {...})`` and the other
        calls that change tables (``ragraf.lang.php.laravel``): the statement they run, its
        DDL kept for the columns of a corpus without a schema file."""
        got = laravel.schema_call(n, self.t, self.string_value)
        if got is None:
            return None
        op, table, ddl = got
        ref = sqltext.TableRef(table, TableHow.EXACT, TableRole.WRITE)
        # a migration's down() undoes it: the table is named, its statement not applied
        undo = laravel.in_down(n, self.t)
        info = sqltext.SqlInfo(op, [ref], None, False, False, True, [], [] if undo else [(0, ddl)])
        label = self.t(n.child_by_field_name("name") or n)
        return ((FragmentKind.CALL, f"Schema::{label}"), (FragmentKind.LIT, table)), pack_sql(info)

    def _doctrine_join(self, args: list[Node]) -> bool:
        """Doctrine's ``join('u', 'phonenumbers', 'p', ...)`` names the table second, after a
        short alias; MediaWiki's ``join('actor', 'rev_actor', ...)`` and Laravel's
        ``join('contacts', 'users.id', '=', ...)`` name it first."""
        alias, table = self.string_value(args[0]), self.string_value(args[1])
        return (
            alias is not None
            and table is not None
            and len(alias) <= 3
            and re.fullmatch(r"[A-Za-z_]\w*", table) is not None
        )

    def on_sql_prefix(self, n: Node) -> None:
        """A literal assigned to a table-prefix name: a ``TablePrefixRef``."""
        name = value = None
        if n.type == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and right is not None and right.type == "string":
                name, value = self.t(left), self.single_quoted(right)
        elif n.type == "function_call_expression":  # define('DB_PREFIX', 'x_')
            args = n.child_by_field_name("arguments")
            vals = [
                a.named_children[0]
                for a in (args.named_children if args else [])
                if a.named_children
            ]
            if len(vals) >= 2 and vals[0].type == "string" and vals[1].type == "string":
                name, value = self.single_quoted(vals[0]), self.single_quoted(vals[1])
        elif n.named_child_count == 2:  # 'dbprefix' => 'x_'
            k, v = n.named_children
            if k.type == "string" and v.type == "string":
                name, value = self.single_quoted(k), self.single_quoted(v)
        if name is None or value is None or not _PREFIX_VALUE.match(value):
            return
        if not _is_prefix_name(name):
            return
        self.raw_refs.append(
            TablePrefixRef(self.sql_owner(), n.start_point[0] + 1, name[:MAX_SQL_DYN], value)
        )

    def assembled(
        self, asm: assemble.Assembler, outer: Node
    ) -> tuple[tuple[tuple[str, str], ...], int]:
        """The fragments of one kept string expression and its end line."""
        built = asm.statement(outer)
        if built is not None:
            frags, last = built
            end_line = last.end_point[0] + 1
        else:
            frags = asm.fragments(outer)
            end_line = outer.end_point[0] + 1
        return tuple(frags), end_line

    def literal_fragments(self, n: Node) -> list[tuple[str, str]]:
        """A string node's fragments (decoded literal text and run-time parts)."""
        if n.type == "string":
            return [(FragmentKind.LIT, self.single_quoted(n))]
        return self.interpolated(n)

    def sql_owner(self) -> int:
        """The node index a SQL string belongs to: the innermost function or method (for a
        method of an anonymous class, the node of the scope around the class), else the class,
        else the file."""
        for _end, what, payload in reversed(self.stack):
            if what == FrameKind.FUNCTION:
                return int(payload)
            if what == FrameKind.SCOPE:
                return self.scope().node
            if what == FrameKind.CLASS:
                return int(payload.node)
        return 0

    def single_quoted(self, n: Node) -> str:
        """The value of a literal without interpolation (``'...'``, ``b'...'``, ``"..."``)."""
        raw = self.t(n)
        if raw[:1] in "bB":
            raw = raw[1:]
        if raw[:1] == '"':  # a double-quoted string without interpolation
            return _decode_dq(raw[1:-1])
        return _SQ_ESCAPE.sub(r"\1", raw[1:-1])

    def interpolated(self, n: Node) -> list[tuple[str, str]]:
        """Fragments of a double-quoted string, heredoc or nowdoc (heredoc indentation removed)."""
        src = self.src
        kids = n.children
        if n.type == "encapsed_string":
            # b"...": the grammar has no token for the opening b" (only for the closing quote)
            binary = src[n.start_byte : n.start_byte + 1] in (b"b", b"B")
            start = n.start_byte + len(b'b"' if binary else b'"')
            end = n.end_byte - 1 if src[n.end_byte - 1 : n.end_byte] == b'"' else n.end_byte
            if end <= start:
                return []
            return _decode_pieces(self.text_pieces(kids, start, end), dq=True)
        body = next((c for c in kids if c.type in ("heredoc_body", "nowdoc_body")), None)
        end_node = next((c for c in kids if c.type == "heredoc_end"), None)
        if body is None or end_node is None:
            return []
        start = body.start_byte
        if src[start : start + 2] == b"\r\n":
            start += 2
        elif src[start : start + 1] == b"\n":
            start += 1
        nl = src.rfind(b"\n", 0, end_node.start_byte)
        stop = nl - 1 if nl > 0 and src[nl - 1 : nl] == b"\r" else nl
        stop = max(stop, start)
        indent = src[nl + 1 : end_node.start_byte]
        if indent.strip(b" \t"):
            indent = b""
        pieces = self.text_pieces(body.children, start, stop)
        if indent:
            pieces = _dedent(pieces, indent.decode("utf-8", "surrogateescape"))
        return _decode_pieces(pieces, dq=n.type == "heredoc")

    def text_pieces(self, kids: list[Node], start: int, end: int) -> list[tuple[str, str]]:
        """("raw", source text) / ("dyn", PHP expression) pieces of [start, end)."""
        src = self.src
        out: list[tuple[str, str]] = []
        cur = start
        i = 0
        while i < len(kids):
            c = kids[i]
            i += 1
            if c.end_byte <= cur or c.start_byte >= end:
                continue
            if c.start_byte > cur:
                out.append(
                    (FragmentKind.RAW, src[cur : c.start_byte].decode("utf-8", "surrogateescape"))
                )
                cur = c.start_byte
            ty = c.type
            if ty in _TEXT_PARTS:
                stop = min(c.end_byte, end)
                out.append((FragmentKind.RAW, src[cur:stop].decode("utf-8", "surrogateescape")))
                cur = stop
            elif ty == "{":  # complex interpolation {$expr}: one run-time part
                j = i
                while j < len(kids) and kids[j].type != "}":
                    j += 1
                stop = kids[j].end_byte if j < len(kids) else c.end_byte
                out.append(
                    (
                        FragmentKind.DYN,
                        src[c.start_byte : stop].decode("utf-8", "surrogateescape")[:MAX_SQL_DYN],
                    )
                )
                cur = stop
                i = j + 1
            else:
                out.append((FragmentKind.DYN, self.t(c)[:MAX_SQL_DYN]))
                cur = c.end_byte
        if cur < end:
            out.append((FragmentKind.RAW, src[cur:end].decode("utf-8", "surrogateescape")))
        return out


# the first word of a string node's source (after the quote or heredoc line)
_LEAD_WORD = re.compile(rb"(?:[bB]?['\"]|<<<[^\n]*\n)[\s(]*([A-Za-z_]+)")
# a first argument that is no table name
_NOT_A_TABLE_ARG = frozenset(
    {
        "array_creation_expression",
        "anonymous_function",
        "arrow_function",
        "integer",
        "float",
        "boolean",
        "null",
    }
)
# receivers that are a database connection or a query builder
_DB_RECEIVER = re.compile(
    r"(?:^|[>$:])(?:wpdb|dbo|conn|pdo|dbal|adapter|capsule|qb"
    r"|query|querybuilder|builder|sql|mysqli)\b|^\\?(?:DB|Db|Capsule)$"
    # a name that ends in db / dbr / dbw / dbh / database / connection: `$dbr`, `$this->mDb`
    r"|(?:^|[>$:])\w*(?:db[rwh]?|database|connection)\b"
    # a call that returns a connection or a builder: `wfGetDB(DB_REPLICA)`, `$this->getDB()`,
    # `->getReplicaDatabase()`, `->getConnectionRef(...)`, `->newSelectQueryBuilder()`
    r"|(?:^|[>$:\\])(?:wf)?get\w*(?:db|database|connection|conn|dbo)\w*\("
    r"|\w*querybuilder\(|->select\(|::table\(|->table\(",
    re.I,
)
# a connection's read methods whose first argument is the table (or an array of tables)
# -> the arguments they take at least (MediaWiki's IReadableDatabase)
_CONNECTION_READS = {
    "select": 3,
    "selectfield": 2,
    "selectfieldvalues": 2,
    "selectrow": 2,
    "selectrowcount": 2,
    "estimaterowcount": 1,
    "selectsqltext": 2,
}
# a connection's (or write builder's) write methods whose first argument is the table
_CONNECTION_WRITES = {
    "upsert": "insert",
    "insertselect": "insert",
    "insertinto": "insert",
    "replaceinto": "replace",
    "deletefrom": "delete",
    "deletejoin": "delete",
}
# builder methods whose first argument may be an array of tables
_TABLE_LIST_METHODS = frozenset({*_CONNECTION_READS, "from", "table"})
_WRITE_METHODS = {
    "insert": "insert",
    "insertgetid": "insert",
    "insertorignore": "insert",
    "insertusing": "insert",
    "upsert": "insert",
    "update": "update",
    "updateorinsert": "update",
    "increment": "update",
    "decrement": "update",
    "delete": "delete",
    "truncate": "delete",
    "forcedelete": "delete",
    "replace": "replace",
}
_READ_METHODS = frozenset(
    {
        "get",
        "first",
        "find",
        "value",
        "pluck",
        "count",
        "exists",
        "select",
        "where",
        "orderby",
        "groupby",
        "join",
        "leftjoin",
        "limit",
        "paginate",
        "chunk",
        "cursor",
        "max",
        "min",
        "sum",
        "avg",
        "lists",
        "fetch",
        "fetchall",
        "execute",
        "getquery",
        "getresult",
        "setparameter",
        "andwhere",
        "orwhere",
        "wherein",
    }
)
_PREFIX_VALUE = re.compile(r"^[A-Za-z][A-Za-z0-9]*_$")
_PREFIX_NAMES = frozenset(
    {
        "table_prefix",
        "tableprefix",
        "db_prefix",
        "dbprefix",
        "tbl_prefix",
        "tblprefix",
        "database_prefix",
        "db_table_prefix",
        "prefix",
    }
)


def _is_prefix_name(name: str) -> bool:
    """``$table_prefix``, ``DB_PREFIX``, ``'dbprefix'``, ``$this->prefix`` (a property or
    array key named just ``prefix``; a plain ``$prefix`` variable is too often something else)."""
    m = re.search(r"([A-Za-z_]\w*)\W*$", name)
    if m is None:
        return False
    last = m.group(1).lower()
    if last not in _PREFIX_NAMES:
        return False
    return last != "prefix" or not name.lstrip().startswith("$") or "->" in name


def _chain_up(n: Node, text: Callable[[Node], str]) -> list[str]:
    """The (lower) method names called on the result of ``n``: ``n->a()->b()`` -> [a, b]."""
    out = []
    cur = n
    p = cur.parent
    while p is not None and p.type in ("member_call_expression", "nullsafe_member_call_expression"):
        obj = p.child_by_field_name("object")
        if obj is None or obj.start_byte != cur.start_byte or obj.end_byte != cur.end_byte:
            break
        nm = p.child_by_field_name("name")
        if nm is not None:
            out.append(text(nm).lower())
        cur = p
        p = cur.parent
    return out


def _array_values(n: Node) -> list[Node]:
    """The value expressions of an array literal (``['a', 'k' => 'b']`` -> 'a', 'b')."""
    out = []
    for el in n.named_children:
        if el.type == "array_element_initializer" and el.named_children:
            out.append(el.named_children[-1])
    return out


def _builder_role(
    n: Node, method: str, receiver: str, text: Callable[[Node], str], nargs: int = 1
) -> tuple[str | None, str]:
    """(operation, role) of a query-builder call, or (None, '') when it is none."""
    db = _DB_RECEIVER.search(receiver) is not None
    if method in ("insert", "update", "delete", "replace"):
        # `$wpdb->update($table, ...)`, `$conn->delete('t', ...)`, `$qb->update('t')`
        return (method, TableRole.WRITE) if db else (None, "")
    if method in _CONNECTION_WRITES:
        # MediaWiki's `$dbw->upsert('t', ...)`, `->newInsertQueryBuilder()->insertInto('t')`
        return (_CONNECTION_WRITES[method], TableRole.WRITE) if db else (None, "")
    if method in _CONNECTION_READS:
        # MediaWiki's `$dbr->select('t', $vars, $conds, ...)`, `->selectField('t', ...)`; a
        # one- or two-argument `select('a, b')` is a column list (CodeIgniter, query builders)
        return (
            ("select", TableRole.READ) if db and nargs >= _CONNECTION_READS[method] else (None, "")
        )
    chain = _chain_up(n, text)
    if method == "into":
        return ("insert", TableRole.WRITE) if db or chain else (None, "")
    if not db and not any(c in _READ_METHODS or c in _WRITE_METHODS for c in chain):
        return None, ""
    for c in chain:
        if c in _WRITE_METHODS:
            return _WRITE_METHODS[c], TableRole.WRITE
    return "select", TableRole.READ


def _format_call(n: Node) -> Node | None:
    """The ``sprintf(...)`` / ``vsprintf(...)`` call whose format ``n`` is."""
    arg = n.parent
    if arg is None or arg.type != "argument":
        return None
    args = arg.parent
    call = args.parent if args is not None else None
    if (
        call is None
        or call.type != "function_call_expression"
        or args is None
        or args.named_children[0].start_byte != arg.start_byte
    ):
        return None
    fn = call.child_by_field_name("function")
    src = fn.text if fn is not None else None
    name = src.decode("utf-8", "replace").lower().lstrip("\\") if src else ""
    return call if name in ("sprintf", "vsprintf") else None


def _is_concat(n: Node | None) -> bool:
    """Whether ``n`` is a ``.`` concatenation."""
    if n is None or n.type != "binary_expression":
        return False
    op = n.child_by_field_name("operator")
    return op is not None and op.type == "."


def _decode_dq(text: str) -> str:
    """PHP's escapes of double-quoted strings and heredocs decoded (unknown ones stay)."""

    def one(m: re.Match[str]) -> str:
        simple, octal, hexa, uni = m.groups()
        if simple is not None:
            return _DQ_SIMPLE[simple]
        if octal is not None:
            return chr(int(octal, 8) & _OCTAL_BYTE_MASK)
        if hexa is not None:
            return chr(int(hexa, 16))
        try:
            return chr(int(uni, 16))
        except (ValueError, OverflowError):
            return m.group(0)

    return _DQ_ESCAPE.sub(one, text) if "\\" in text else text


def _merge_raw(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent raw pieces joined."""
    out: list[tuple[str, str]] = []
    for k, v in pieces:
        if k == FragmentKind.RAW and out and out[-1][0] == FragmentKind.RAW:
            out[-1] = (FragmentKind.RAW, out[-1][1] + v)
        else:
            out.append((k, v))
    return out


def _dedent(pieces: list[tuple[str, str]], indent: str) -> list[tuple[str, str]]:
    """Remove a closing-marker indentation from every line start (PHP >= 7.3 heredocs)."""
    out = []
    at_start = True
    for k, v in _merge_raw(pieces):
        if k != FragmentKind.RAW:
            out.append((k, v))
            at_start = False
            continue
        lines = v.split("\n")
        for i, ln in enumerate(lines):
            if (i > 0 or at_start) and ln.startswith(indent):
                lines[i] = ln[len(indent) :]
        out.append((FragmentKind.RAW, "\n".join(lines)))
        at_start = v.endswith("\n")
    return out


def _decode_pieces(pieces: list[tuple[str, str]], dq: bool) -> list[tuple[str, str]]:
    """Raw pieces -> ``lit`` fragments (escapes decoded when ``dq``), the rest ``dyn``."""
    return [
        (FragmentKind.LIT, _decode_dq(v) if dq else v)
        if k == FragmentKind.RAW
        else (FragmentKind.DYN, v)
        for k, v in _merge_raw(pieces)
    ]


def is_schema_facade(receiver: str) -> bool:
    """``Schema`` / ``\\Illuminate\\Support\\Facades\\Schema``: Laravel's schema builder."""
    return receiver.rsplit("\\", 1)[-1].lower() == "schema"


def pack_sql(info: sqltext.SqlInfo | None) -> SqlAnalysis | None:
    """A SqlInfo as plain data (FileFacts cross process borders and are cached)."""
    return SqlAnalysis.of(info)

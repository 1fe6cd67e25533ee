"""PHP string literals and the SQL in them (issue 6, architecture §6.2).

A capture ``@sql.string`` is a string whose text starts with a SQL statement
keyword (the query's predicate). It is followed up to its outermost
concatenation, which is turned into fragments: ``("lit", text)`` for literal
text decoded as PHP decodes it (escapes of single- and double-quoted strings,
heredoc indentation) and ``("dyn", php)`` for run-time parts (their PHP
source, cut to ``MAX_SQL_DYN`` characters).

Invariants a change must keep:
- Each outermost concatenation is analysed once, with ``ragraf.sql.sqltext``
  *without* configured table prefixes; the resolver re-analyses the few whose
  run-time parts a prefix in ``db.table_prefixes`` names.
- The ref is a ``SqlRef`` whose owner is a node index already: the innermost
  function / method (a closure belongs to its enclosing one), else the class
  (constants, property defaults), else the file; ``ordinal`` counts the SQL
  strings of one owner on one line.
- ``pack_sql`` keeps the analysis as plain data (FileFacts cross process
  borders and are cached).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.lang.facts import SqlAnalysis, SqlRef
from ragraf.lang.php import assemble
from ragraf.lang.php.state import State
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
#: PHP keeps the low byte of an octal escape above \377 ("\400" is "\0")
_OCTAL_BYTE_MASK = 0xFF


class Strings(State):
    """SQL candidates of the walk and the decoding of PHP strings."""

    def on_sql(self, n: Node) -> None:
        """A string starting with a SQL keyword or clause: keep its outermost concatenation
        for ``finish_sql`` (once)."""
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
        by_scope: dict[int, tuple[Node, list[tuple[int, Node]]]] = {}
        for owner, outer in self.sql_pending:
            sc = assemble.scope_of(outer)
            by_scope.setdefault(sc.start_byte, (sc, []))[1].append((owner, outer))
        found: list[tuple[int, int, int, int, tuple[tuple[str, str], ...], SqlAnalysis | None]] = []
        for sc, items in by_scope.values():
            asm = assemble.Assembler(sc, self.t, self.literal_fragments)
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
                info = sqltext.analyze(frags)
                if info is None and not any(k == "dyn" for k, _t in frags):
                    continue
                found.append(
                    (outer.start_byte, owner, outer.start_point[0] + 1, end, frags, pack_sql(info))
                )
            for owner, outer in later:
                if outer.start_byte in asm.consumed:
                    continue
                frags, end = self.assembled(asm, outer)
                info = sqltext.analyze_fragment(frags)
                if info is None:
                    continue
                found.append(
                    (outer.start_byte, owner, outer.start_point[0] + 1, end, frags, pack_sql(info))
                )
        found.sort(key=lambda x: x[0])
        for _start, owner, line, end_line, frags, packed in found:
            ordinal = self.sql_lines.get((owner, line), 0) + 1
            self.sql_lines[(owner, line)] = ordinal
            # owner is already a node index here (not a scope): finish() keeps it as is
            self.raw_refs.append(SqlRef(owner, line, end_line, frags, packed, ordinal))
        self.sql_pending.clear()

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
            return [("lit", self.single_quoted(n))]
        return self.interpolated(n)

    def sql_owner(self) -> int:
        """The node index a SQL string belongs to: the innermost function or method (for a
        method of an anonymous class, the node of the scope around the class), else the class,
        else the file."""
        for _end, what, payload in reversed(self.stack):
            if what == "function":
                return int(payload)
            if what == "scope":
                return self.scope().node
            if what == "class":
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
                out.append(("raw", src[cur : c.start_byte].decode("utf-8", "surrogateescape")))
                cur = c.start_byte
            ty = c.type
            if ty in _TEXT_PARTS:
                stop = min(c.end_byte, end)
                out.append(("raw", src[cur:stop].decode("utf-8", "surrogateescape")))
                cur = stop
            elif ty == "{":  # complex interpolation {$expr}: one run-time part
                j = i
                while j < len(kids) and kids[j].type != "}":
                    j += 1
                stop = kids[j].end_byte if j < len(kids) else c.end_byte
                out.append(
                    (
                        "dyn",
                        src[c.start_byte : stop].decode("utf-8", "surrogateescape")[:MAX_SQL_DYN],
                    )
                )
                cur = stop
                i = j + 1
            else:
                out.append(("dyn", self.t(c)[:MAX_SQL_DYN]))
                cur = c.end_byte
        if cur < end:
            out.append(("raw", src[cur:end].decode("utf-8", "surrogateescape")))
        return out


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
        if k == "raw" and out and out[-1][0] == "raw":
            out[-1] = ("raw", out[-1][1] + v)
        else:
            out.append((k, v))
    return out


def _dedent(pieces: list[tuple[str, str]], indent: str) -> list[tuple[str, str]]:
    """Remove a closing-marker indentation from every line start (PHP >= 7.3 heredocs)."""
    out = []
    at_start = True
    for k, v in _merge_raw(pieces):
        if k != "raw":
            out.append((k, v))
            at_start = False
            continue
        lines = v.split("\n")
        for i, ln in enumerate(lines):
            if (i > 0 or at_start) and ln.startswith(indent):
                lines[i] = ln[len(indent) :]
        out.append(("raw", "\n".join(lines)))
        at_start = v.endswith("\n")
    return out


def _decode_pieces(pieces: list[tuple[str, str]], dq: bool) -> list[tuple[str, str]]:
    """Raw pieces -> ``lit`` fragments (escapes decoded when ``dq``), the rest ``dyn``."""
    return [
        ("lit", _decode_dq(v) if dq else v) if k == "raw" else ("dyn", v)
        for k, v in _merge_raw(pieces)
    ]


def pack_sql(info: sqltext.SqlInfo | None) -> SqlAnalysis | None:
    """A SqlInfo as plain data (FileFacts cross process borders and are cached)."""
    return SqlAnalysis.of(info)

"""Small helpers over a tree-sitter tree that every extractor uses.

Invariants a change must keep:
- tree-sitter is imported inside the functions only, so importing this is free
  (``ragraf --help`` must not load it); queries and parsers are cached per process.
- Part of every language's facts key (registry ``_COMMON``): a change here re-extracts.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ragraf.kinds import CalleeKind, ParseStatus
from ragraf.lang.typedesc import TypeDesc, any_of

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query

    from ragraf.lang.facts import FileFacts, TextFact


@cache
def query(language: str, file: str) -> Query:
    """The compiled query ``ragraf/queries/<file>`` for a grammar (once per process)."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    from ragraf import resources

    src = (resources.queries_dir() / file).read_text(encoding="utf-8")
    return Query(get_language(language), src)  # type: ignore[arg-type]


@cache
def parser(language: str) -> Parser:
    """The parser of a grammar of tree-sitter-language-pack (once per process)."""
    from tree_sitter_language_pack import get_parser

    return get_parser(language)  # type: ignore[arg-type]


def innermost(spans: list[tuple[int, int, int]], line: int) -> int | None:
    """The innermost (start, end, index) span around a line (spans sorted by start line)."""
    best = None
    for s, e, i in spans:
        if s > line:
            break
        if s <= line <= e:
            best = i
    return best


def first_error(root: Node) -> int | None:
    """The line of the first syntax error (an ``ERROR`` or missing node)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return int(n.start_point[0]) + 1
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


def nearest(cands: list[str], importer: str, sep: str) -> str | None:
    """Among several candidates for an imported name (modules, package directories), the
    one sharing the most leading ``sep``-separated segments with the importer; a tie:
    None. One candidate: it."""
    if len(cands) == 1:
        return cands[0]
    if not cands:
        return None
    mine = importer.split(sep)

    def shared(c: str) -> int:
        n = 0
        for a, b in zip(c.split(sep), mine, strict=False):
            if a != b:
                break
            n += 1
        return n

    ranked = sorted(cands, key=lambda c: (-shared(c), c))
    return ranked[0] if shared(ranked[0]) > shared(ranked[1]) else None


union = any_of


class Callee(NamedTuple):
    """What a call's callee is, as a language's names see it in one file."""

    kind: str  # ragraf.kinds.CalleeKind
    name: str = ""  # an fqn, an import key, a dotted name, a builtin's name
    receiver: TypeDesc | None = None  # METHOD: the receiver; TYPE: the type converted to
    path: str = ""  # QUALIFIED: the import path of the package


DYNAMIC = Callee(CalleeKind.DYNAMIC)


def lookup(scope: Any, name: str) -> list[Any] | None:
    """The bindings of ``name`` in the innermost scope of a chain (``.binds`` dicts linked
    by ``.parent``) that binds it; None: unbound."""
    sc = scope
    while sc is not None:
        got: list[Any] | None = sc.binds.get(name)
        if got:
            return got
        sc = sc.parent
    return None


def captures(q: Query, root: Node) -> list[tuple[int, int, str, Node]]:
    """The captures of a query over a tree in document order, outer nodes first, as
    (start byte, -end byte, capture name, node); ``name.*`` captures (which only mark where
    a name sits) are left out, and a node captured twice under one name counts once."""
    from tree_sitter import QueryCursor

    caps = QueryCursor(q).captures(root)
    items: list[tuple[int, int, str, Node]] = []
    seen: set[tuple[int, int, str]] = set()
    for cap, nodes in caps.items():
        if cap.startswith("name."):
            continue
        for node in nodes:
            key = (node.start_byte, -node.end_byte, cap)
            if key not in seen:
                seen.add(key)
                items.append((node.start_byte, -node.end_byte, cap, node))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return items


def signature(src: bytes, n: Node, max_chars: int, strip: str = " ") -> str:
    """A declaration's text up to its body, on one line, cut at ``max_chars``."""
    body = n.child_by_field_name("body")
    end = body.start_byte if body is not None else n.end_byte
    sig = src[n.start_byte : end].decode("utf-8", "surrogateescape")
    return " ".join(sig.split()).rstrip(strip)[:max_chars]


def merge_comments(
    comments: list[tuple[int, int, str, int | None]], spans: list[tuple[int, int, int]]
) -> list[TextFact]:
    """Comments and docstrings as text facts: (start, end, text, owner) with an owner are
    docblocks of that node; the others are comments owned by the innermost declaration
    span around them (``innermost``), adjacent ones of one owner merged into one."""
    from ragraf.kinds import TextKind
    from ragraf.lang.facts import TextFact

    merged: list[list[Any]] = []
    for start, end, txt, owner in sorted(comments, key=lambda c: (c[0], c[1])):
        kind = TextKind.DOCBLOCK if owner is not None else TextKind.COMMENT
        if owner is None:
            owner = innermost(spans, start)
        if (
            kind == TextKind.COMMENT
            and merged
            and merged[-1][2] == TextKind.COMMENT
            and merged[-1][1] + 1 >= start
            and merged[-1][4] == owner
        ):
            merged[-1][1] = end
            merged[-1][3] += "\n" + txt
            continue
        merged.append([start, end, kind, txt, owner])
    return [TextFact(m[0], m[1], m[2], m[3], m[4]) for m in merged]


class Walk:
    """What every tree-sitter walk of one file shares: the source, the FileFacts being
    built (node 0 is the file), a stack of open scopes closed by end byte, comments
    collected for ``merge_comments``. A language's extractor subclasses it."""

    lang = ""

    def __init__(self, path: str, text: str, max_chunk_lines: int) -> None:
        from ragraf.lang.facts import FileFacts

        self.path = path
        self.text = text
        self.src = text.encode("utf-8", "surrogateescape")
        self.max_chunk_lines = max_chunk_lines
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        self.facts = FileFacts(path, self.lang, ParseStatus.OK, None, lines)
        self.stack: list[tuple[int, Any]] = []
        self.comments: list[tuple[int, int, str, int | None]] = []
        #: id of a ClassDecl's methods -> its keys that are another name's lower-case alias
        self.method_aliases: dict[int, set[str]] = {}

    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    def start(self, root: Node) -> None:
        """The file node, and ``partial`` with a note for a tree with syntax errors."""
        self.file_node()
        if root.has_error:
            f = self.facts
            f.status = ParseStatus.PARTIAL
            err = first_error(root)
            f.note = f"syntax error near line {err}" if err else "syntax errors"

    def file_node(self) -> None:
        """Node 0: the file."""
        from ragraf import ids
        from ragraf.kinds import Layer, NodeKind
        from ragraf.lang.facts import FactNode

        f = self.facts
        f.nodes.append(
            FactNode(
                ids.node_id(NodeKind.FILE, self.path, self.path, 1),
                NodeKind.FILE,
                self.path.rsplit("/", 1)[-1],
                self.path,
                1,
                max(f.lines, 1),
                {"lang": self.lang},
                Layer.STRUCTURAL,
            )
        )

    def add_node(
        self,
        kind: str,
        name: str,
        fqn: str,
        n: Node,
        props: dict[str, Any],
        start_at: Node | None = None,
    ) -> int:
        """A declaration spanning node ``n`` (from ``start_at`` when given: a declaration
        starts after its annotations or decorators)."""
        from ragraf import ids
        from ragraf.kinds import Layer
        from ragraf.lang.facts import FactNode

        start, end = (start_at or n).start_point[0] + 1, n.end_point[0] + 1
        self.facts.nodes.append(
            FactNode(
                ids.node_id(kind, fqn, self.path, start),
                kind,
                name,
                fqn,
                start,
                end,
                props,
                Layer.STRUCTURAL,
            )
        )
        return len(self.facts.nodes) - 1

    def edge(self, src: int, dst: int, kind: str, line: int) -> None:
        from ragraf.lang.facts import LocalEdge

        f = self.facts
        f.edges.append(LocalEdge(f.node_id(src), f.node_id(dst), kind, line))

    def advance(self, start: int) -> None:
        while self.stack and self.stack[-1][0] <= start:
            self.stack.pop()

    def walk(self, q: Query, root: Node, handlers: dict[str, Any]) -> None:
        """Every capture of the query, in document order, to its handler (scopes that
        ended before the capture closed first)."""
        for _s, _e, cap, node in captures(q, root):
            self.advance(node.start_byte)
            handlers[cap](node)

    def on_comment(self, n: Node) -> None:
        self.comments.append((n.start_point[0] + 1, n.end_point[0] + 1, self.t(n), None))

    def add_method(self, methods: dict[str, int], name: str, idx: int) -> None:
        """A method of a case-sensitive language in its ``ClassDecl``: under its exact
        name (the linker tries it first; the first declaration of a name wins, and an exact
        name takes its key back from another's lower-case alias: ``walk`` after ``Walk``)
        and under its lower-case one (what the linker's case-insensitive lookups use)."""
        aliases = self.method_aliases.setdefault(id(methods), set())
        if name not in methods or name in aliases:
            methods[name] = idx
            aliases.discard(name)
        low = name.lower()
        if low not in methods:
            methods[low] = idx
            aliases.add(low)

    def docblock(self, start: int, end: int, text: str, owner: int) -> None:
        """Lines ``start..end`` document node ``owner`` (the comments captured there
        before the declaration was seen become its docblock)."""
        self.comments = [c for c in self.comments if c[3] is not None or not start <= c[0] <= end]
        self.comments.append((start, end, text, owner))

    def texts(self, kinds: tuple[str, ...]) -> None:
        """The comments as text facts, each owned by the innermost declaration of these
        kinds around it."""
        spans = sorted(
            (n.start_line, n.end_line, i)
            for i, n in enumerate(self.facts.nodes)
            if i > 0 and n.kind in kinds
        )
        self.facts.texts = merge_comments(self.comments, spans)


def safe_extract(walk: type[Walk], path: str, text: str, max_chunk_lines: int) -> FileFacts:
    """Run one file's walk (``walk(path, text, max_chunk_lines).run()``); never raises for
    bad input: a file the walk cannot handle comes back ``failed`` with a note (a
    RecursionError goes up: the registry reports it)."""
    from ragraf.lang.facts import FileFacts

    try:
        facts: FileFacts = walk(path, text, max_chunk_lines).run()  # type: ignore[attr-defined]
        return facts
    except RecursionError:
        raise
    except Exception as e:  # noqa: BLE001 - one file must not stop a build
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        return FileFacts(
            path, walk.lang, ParseStatus.FAILED, f"extractor error: {type(e).__name__}", lines
        )

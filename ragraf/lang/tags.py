"""Tags-level extraction (issue 14): one extractor for every language whose support is
its ``queries/<lang>-tags.scm`` alone (Ruby, C#, Rust, Kotlin, C, C++, Swift, Scala,
Lua, Bash): definitions, references by name, imports where the syntax names a file.

The query's captures say everything (the tags convention, as Aider's tags queries):

- ``@definition.<kind>`` on a declaration and ``@name.definition.<kind>`` on its name:
  ``class`` / ``struct`` / ``object`` / ``record`` (a ``class`` node, ``props.tag`` says
  which), ``interface`` / ``protocol`` (``interface``), ``trait``, ``enum``, ``module``,
  ``namespace``, ``function``, ``method``, ``constructor`` (a ``method``). A function
  directly inside a class-like or a ``@scope`` is a method; a qualified name
  (``Circle::area``, ``Circle.new``, ``Circle:area``) is a method of its qualifier.
- ``@scope`` / ``@name.scope``: a container that names its members without being a
  declaration itself (Rust ``impl Circle``): members' fqns get its name.
- ``@package`` / ``@name.package``: the package or file-scoped namespace that prefixes
  every later fqn of the file (Kotlin, Scala, C# ``namespace X;``).
- ``@reference.call`` / ``@name.reference.call``: a call by name (``NameRef`` kind
  ``call``); ``@reference.new`` / ``@name.reference.new``: an instantiation by class
  name (kind ``new``). The linker matches names only (``ragraf.indexing.resolve.calls``
  ``on_name``): every result is derived.
- ``@reference.import`` / ``@name.reference.import.<how>``: an import; ``how`` says how
  its text names a corpus file (``path``: relative to the importing file's folder, then
  to the root; ``lua``: a dotted module ``a.b`` -> ``a/b.lua`` / ``a/b/init.lua``;
  ``rustmod``: ``mod foo;`` -> ``foo.rs`` / ``foo/mod.rs``; ``fqn``: a dotted name of a
  declaration). ``prepare`` turns it into an ``ImportRef`` of kind ``module`` (the
  file's path) once every file is known, or drops it.
- ``@text.comment``: a comment (layer text).

Invariants a change must keep:
- Node 0 is the file; every declaration is contained in the innermost declaration
  around it, else in the file. Ids are final (``ids.node_id`` over kind, fqn, path, line).
- Declarations do not enter ``FileFacts.classes`` / ``functions``: those feed the deep
  languages' resolution (a PHP name match must never land on a Ruby method). Chunking
  sees the class-likes' methods for this call only.
- The language is the registry's language of the path (its suffix); fqns join names with
  ``Language.name_sep``. Same file + same extractor source + same query => same facts.
- A syntax error makes the file ``partial``; extraction goes on. tree-sitter is imported
  lazily.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from typing import TYPE_CHECKING, Any

from ragraf import ids
from ragraf.kinds import CLASS_LIKE, EdgeKind, ImportKind, Layer, NodeKind, ParseStatus, TextKind
from ragraf.lang import registry, tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    ClassDecl,
    FactNode,
    FileFacts,
    ImportRef,
    LocalEdge,
    NameRef,
    Ref,
    TextFact,
)
from ragraf.lang.tstree import first_error, innermost

if TYPE_CHECKING:
    from tree_sitter import Node

#: capture kind -> (node kind, tag kept in props when it differs from the kind)
KINDS: dict[str, str] = {
    "class": NodeKind.CLASS,
    "struct": NodeKind.CLASS,
    "object": NodeKind.CLASS,
    "record": NodeKind.CLASS,
    "interface": NodeKind.INTERFACE,
    "protocol": NodeKind.INTERFACE,
    "trait": NodeKind.TRAIT,
    "enum": NodeKind.ENUM,
    "module": NodeKind.MODULE,
    "namespace": NodeKind.NAMESPACE,
    "function": NodeKind.FUNCTION,
    "method": NodeKind.METHOD,
    "constructor": NodeKind.METHOD,
}
#: what separates a qualifier from a name in a declaration's name (``A::f``, ``A.f``, ``A:f``)
QUALIFIERS = ("::", ".", ":")
_QUALIFIER = re.compile(r"::|\.|:")
MAX_SIGNATURE_CHARS = 300
#: the import kind of an unresolved tags import (``prepare`` rewrites or drops it)
RAW_IMPORT = "tags:"


def _query_file(lang: str) -> str:
    return f"{lang}-tags.scm"


def _split(name: str) -> tuple[str, str]:
    """(qualifier, short name) of a declaration's name as written."""
    last = None
    for m in _QUALIFIER.finditer(name):  # the last qualifier wins: ``Date.Interval:_init``
        last = m
    if last is None:
        return "", name
    return name[: last.start()], name[last.end() :]


class _Scope:
    __slots__ = ("end", "node", "fqn", "kind")

    def __init__(self, end: int, node: int | None, fqn: str, kind: str | None) -> None:
        self.end = end
        self.node = node  # None: a @scope (no node)
        self.fqn = fqn
        self.kind = kind  # a NodeKind; None for a @scope (members inside are methods)


class Extractor:
    def __init__(self, path: str, lang: registry.Language, text: str, max_lines: int) -> None:
        self.path = path
        self.lang = lang
        self.grammar = lang.grammar or lang.name
        self.sep = lang.name_sep
        self.text = text
        self.src = text.encode("utf-8", "surrogateescape")
        self.max_lines = max_lines
        self.facts = FileFacts(path, lang.name, ParseStatus.OK, None, 0)
        self.stack: list[_Scope] = []
        self.package = ""
        self.refs: list[Ref] = []
        self.comments: list[tuple[int, int, str]] = []
        self.methods: dict[int, dict[str, int]] = {}  # class node -> method name -> node

    def t(self, n: Node) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    def run(self) -> FileFacts:
        from tree_sitter import QueryCursor

        root = tstree.parser(self.grammar).parse(self.src).root_node
        f = self.facts
        f.lines = self.text.count("\n") + (0 if self.text.endswith("\n") or not self.text else 1)
        f.nodes.append(
            FactNode(
                ids.node_id(NodeKind.FILE, self.path, self.path, 1),
                NodeKind.FILE,
                self.path.rsplit("/", 1)[-1],
                self.path,
                1,
                max(f.lines, 1),
                {"lang": self.lang.name},
                Layer.STRUCTURAL,
            )
        )
        if root.has_error:
            f.status = ParseStatus.PARTIAL
            err = first_error(root)
            f.note = f"syntax error near line {err}" if err else "syntax errors"
        query = tstree.query(self.grammar, _query_file(self.lang.name))
        matches = QueryCursor(query).matches(root)
        items: list[tuple[int, int, str, Node, Node | None, str]] = []
        seen: set[tuple[int, int, str]] = set()
        #: a node several definition patterns match is the first pattern's (the query
        #: lists the specific forms first: Kotlin's ``enum class`` before ``class``)
        best: dict[tuple[int, int], tuple[int, str, Node, Node | None]] = {}
        for pattern, caps in matches:
            for cap, ns in caps.items():
                if cap.startswith("name.") or cap.startswith("_") or not ns:
                    continue
                node = ns[0]
                name = _name_of(caps, cap)
                if cap.startswith("definition."):
                    span = (node.start_byte, node.end_byte)
                    if span not in best or pattern < best[span][0]:
                        best[span] = (pattern, cap, node, name)
                    continue
                key = (node.start_byte, node.end_byte, cap)
                if key not in seen:
                    seen.add(key)
                    items.append((node.start_byte, -node.end_byte, cap, node, name, _how(caps)))
        for _p, cap, node, name in best.values():
            items.append((node.start_byte, -node.end_byte, cap, node, name, ""))
        items.sort(key=lambda x: (x[0], x[1], x[2]))
        # a call that is also an import or an instantiation (``require_relative "x"``,
        # ``source f``, ``Foo.new``) is that only
        special = {(x[0], x[1]) for x in items if x[2] in ("reference.import", "reference.new")}
        for start, _e, cap, node, name, how in items:
            while self.stack and self.stack[-1].end <= start:
                self.stack.pop()
            head, _, rest = cap.partition(".")
            if head == "definition" and name is not None:
                self.on_definition(rest, node, name)
            elif cap == "scope" and name is not None:
                self.on_scope(node, name)
            elif cap == "package" and name is not None:
                self.package = self.t(name).strip()
            elif cap in ("reference.call", "reference.new") and name is not None:
                if cap == "reference.new" or (start, _e) not in special:
                    self.on_reference(rest, name)
            elif cap == "reference.import" and name is not None:
                self.on_import(node, name, how)
            elif cap == "text.comment":
                self.comments.append((node.start_point[0] + 1, node.end_point[0] + 1, self.t(node)))
        self.finish()
        return f

    # -- declarations ----------------------------------------------------------------------
    def prefix(self) -> str:
        return self.stack[-1].fqn if self.stack else self.package

    def on_definition(self, tag: str, n: Node, name_node: Node) -> None:
        kind = KINDS.get(tag)
        if kind is None:
            return
        qualifier, name = _split(self.t(name_node).strip())
        if not name:
            return
        parent = self.stack[-1] if self.stack else None
        if kind == NodeKind.FUNCTION and (
            qualifier or (parent is not None and (parent.kind is None or parent.kind in CLASS_LIKE))
        ):
            kind = NodeKind.METHOD
        base = self.prefix()
        if qualifier:
            qualifier = self.sep.join(p for p in _parts(qualifier) if p)
            base = f"{base}{self.sep}{qualifier}" if base else qualifier
        fqn = f"{base}{self.sep}{name}" if base else name
        props: dict[str, Any] = {"signature": self.signature(n)}
        if KINDS[tag] != tag:  # struct, object, record, protocol, constructor
            props["tag"] = tag
        start, end = n.start_point[0] + 1, n.end_point[0] + 1
        if name_node.start_point[0] + 1 != start:  # annotations or modifiers above the name
            props["name_line"] = name_node.start_point[0] + 1
        f = self.facts
        f.nodes.append(
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
        idx = len(f.nodes) - 1
        owner = next((s.node for s in reversed(self.stack) if s.node is not None), 0)
        f.edges.append(LocalEdge(f.node_id(owner), f.node_id(idx), EdgeKind.CONTAINS, start))
        if kind == NodeKind.METHOD and owner and f.nodes[owner].kind in CLASS_LIKE:
            self.methods.setdefault(owner, {}).setdefault(name.lower(), idx)
        self.stack.append(_Scope(n.end_byte, idx, fqn, kind))

    def on_scope(self, n: Node, name_node: Node) -> None:
        _q, name = _split(self.t(name_node).strip())
        base = self.prefix()
        self.stack.append(
            _Scope(n.end_byte, None, f"{base}{self.sep}{name}" if base else name, None)
        )

    def signature(self, n: Node) -> str:
        body = n.child_by_field_name("body")
        end = body.start_byte if body is not None else n.end_byte
        sig = self.src[n.start_byte : end].decode("utf-8", "surrogateescape")
        first = sig.split("\n", 1)[0] if body is None else sig
        return " ".join(first.split()).rstrip(" {:=")[:MAX_SIGNATURE_CHARS]

    # -- references ------------------------------------------------------------------------
    def owner(self) -> int:
        return next((s.node for s in reversed(self.stack) if s.node is not None), 0)

    def on_reference(self, kind: str, name_node: Node) -> None:
        _q, name = _split(self.t(name_node).strip())
        if name:
            self.refs.append(NameRef(self.owner(), name_node.start_point[0] + 1, kind, name))

    def on_import(self, n: Node, name_node: Node, how: str) -> None:
        text = self.t(name_node).strip().strip("\"'<>")
        if how == "fqn":  # Scala captures the whole ``import a.b.C``
            text = "".join(text.removeprefix("import").split())
        if text:
            self.refs.append(ImportRef(self.owner(), n.start_point[0] + 1, RAW_IMPORT + how, text))

    # -- finish ----------------------------------------------------------------------------
    def finish(self) -> None:
        f = self.facts
        self.refs.sort(key=lambda r: (r.line, r.owner, type(r).__name__, tuple(map(str, r))))
        f.refs = self.refs
        spans = sorted((nd.start_line, nd.end_line, i) for i, nd in enumerate(f.nodes) if i > 0)
        merged: list[list[Any]] = []
        for start, end, txt in sorted(self.comments):
            owner = innermost(spans, start)
            if merged and merged[-1][1] + 1 >= start and merged[-1][4] == owner:
                merged[-1][1] = end
                merged[-1][3] += "\n" + txt
                continue
            merged.append([start, end, TextKind.COMMENT, txt, owner])
        f.texts = [TextFact(m[0], m[1], m[2], m[3], m[4]) for m in merged]
        # chunking cuts a class-like's header at its first method: it needs the methods
        f.classes = [
            ClassDecl(i, f.nodes[i].fqn, f.nodes[i].kind, methods=m)
            for i, m in sorted(self.methods.items())
        ]
        f.chunks = make_chunks(self.path, self.text, f, self.lang.name, self.max_lines)
        f.classes = []


def _parts(qualifier: str) -> list[str]:
    out = [qualifier]
    for q in QUALIFIERS:
        out = [p for part in out for p in part.split(q)]
    return out


def _name_of(caps: dict[str, list[Node]], cap: str) -> Node | None:
    """The ``@name.<cap>`` node of a match (for an import: any ``@name.<cap>.<how>``)."""
    want = "name." + cap
    for c, ns in caps.items():
        if ns and (c == want or c.startswith(want + ".")):
            return ns[0]
    return None


def _how(caps: dict[str, list[Node]]) -> str:
    """How an import's text names a file (``@name.reference.import.<how>``)."""
    for c in caps:
        if c.startswith("name.reference.import."):
            return c.rsplit(".", 1)[-1]
    return "path"


# -- the cross-file step: imports --------------------------------------------------------
def _candidates(how: str, text: str, importer: str) -> list[str]:
    """The corpus paths an import may name, in order of preference."""
    here = posixpath.dirname(importer)
    if how == "path":
        text = text.removeprefix("./") if text.startswith("./") else text
        out = [posixpath.normpath(posixpath.join(here, text)), posixpath.normpath(text)]
        suffixes = registry.suffixes_of(registry.lang_of(importer) or "")
        if not posixpath.splitext(text)[1]:  # require_relative "util": the suffix is implied
            out = [p + s for p in out for s in suffixes] + out
        return out
    if how == "lua":
        rel = text.replace(".", "/")
        return [f"{rel}.lua", f"{rel}/init.lua"] + [
            posixpath.normpath(posixpath.join(here, f"{rel}.lua"))
        ]
    if how == "rustmod":
        stem = posixpath.splitext(posixpath.basename(importer))[0]
        base = here if stem in ("main", "lib", "mod") else posixpath.join(here, stem)
        return [posixpath.join(base, f"{text}.rs"), posixpath.join(base, text, "mod.rs")]
    return []


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """The files' raw imports resolved to the corpus files they name (``ImportRef`` kind
    ``module`` with the file's path); one that names no corpus file, or a declaration
    declared in several files, is dropped. Other facts are kept as they are."""
    paths = {f.path for f in all_files if f.nodes}
    by_fqn: dict[str, set[str]] = {}
    for f in files:
        for nd in f.nodes[1:]:
            by_fqn.setdefault(nd.fqn, set()).add(f.path)
    out: list[FileFacts] = []
    for f in files:
        if not any(isinstance(r, ImportRef) and r.kind.startswith(RAW_IMPORT) for r in f.refs):
            out.append(f)
            continue
        refs: list[Ref] = []
        for r in f.refs:
            if not (isinstance(r, ImportRef) and r.kind.startswith(RAW_IMPORT)):
                refs.append(r)
                continue
            how = r.kind[len(RAW_IMPORT) :]
            target: str | None = None
            if how == "fqn":
                got = by_fqn.get(r.fqn, set())
                target = next(iter(got)) if len(got) == 1 else None
            else:
                target = next((p for p in _candidates(how, r.fqn, f.path) if p in paths), None)
            if target is not None and target != f.path:
                refs.append(r._replace(kind=ImportKind.MODULE, fqn=target))
        out.append(dataclasses.replace(f, refs=refs))
    return out


def warm() -> None:
    """Nothing to load before the fork: each language's grammar loads on first use."""


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one file of a tags-level language (its language by suffix); never
    raises for bad input: a file the extractor cannot handle comes back ``failed``."""
    lang = registry.language_of(path)
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lang is None:
        return FileFacts(
            path, None, ParseStatus.FAILED, "no tags-level language for this suffix", lines
        )
    try:
        return Extractor(path, lang, text, max_chunk_lines).run()
    except RecursionError:
        raise  # the registry reports it ("too deeply nested to parse")
    except Exception as e:  # noqa: BLE001 - one file must not stop a build
        return FileFacts(
            path, lang.name, ParseStatus.FAILED, f"extractor error: {type(e).__name__}", lines
        )

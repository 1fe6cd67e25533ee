"""The JavaScript / TypeScript walk: one query run over the file
(``queries/<grammar>-tags.scm``), its captures handled in document order, then ``finish``
resolves every use over the final bindings of its scope and turns what was collected into
FileFacts.

The extractor is one object made of mixins over one state, one module per concern:
``state`` (what the walk shares), ``routes`` (framework route patterns), ``declarations``
(classes, functions, methods, fields, parameters), ``uses`` (imports, exports,
assignments, calls, ``new``, returns, JSX, SQL), and this one (the run, ``finish``).

Invariants a change must keep (each module states the ones it keeps):
- Captures are handled in document order (start byte, the outer node first); of one node,
  an export or declarator before the function it names (``_CAPTURE_ORDER``).
- Uses are resolved in ``finish``, flow-insensitively, after the bases, parameter,
  property and return types; refs come out in line order (``_ref_order``).
- Comments go to ``texts`` (a ``/** */`` block right above a declaration is its
  docblock), never into props (P6). A syntax error makes the file ``partial``.
- tree-sitter is imported lazily (``ragraf --help`` must not load it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf import ids
from ragraf.kinds import BindKind, EdgeKind, Layer, NodeKind, ParseStatus
from ragraf.lang import tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import DynamicCallRef, FactNode, FileFacts, LocalEdge, NewRef, Ref, RouteRef
from ragraf.lang.js import flow
from ragraf.lang.js.names import Bind, Scope, union
from ragraf.lang.js.state import grammar_of
from ragraf.lang.js.uses import Uses

if TYPE_CHECKING:
    from tree_sitter import Node


class Extractor(Uses):
    """One file's extraction: ``Extractor(path, text).run()`` -> FileFacts."""

    # -- the run ------------------------------------------------------------------------
    def run(self) -> FileFacts:
        root = tstree.parser(self.grammar).parse(self.src).root_node
        f = self.facts
        end = max(f.lines, 1)
        self.start(root)  # node 0: the file; partial with a note on syntax errors
        f.nodes.append(
            FactNode(
                ids.node_id(NodeKind.MODULE, self.module, self.path, 1),
                NodeKind.MODULE,
                self.module.rsplit("/", 1)[-1],
                self.module,
                1,
                end,
                {},
                Layer.STRUCTURAL,
            )
        )
        f.edges.append(LocalEdge(f.node_id(0), f.node_id(1), EdgeKind.CONTAINS, 1))
        self.top = Scope(NodeKind.MODULE, 0, None, self.module)
        handlers = {
            "definition.class": self.on_class,
            "definition.interface": self.on_interface,
            "definition.enum": self.on_enum,
            "definition.namespace": self.on_namespace,
            "definition.function": self.on_function,
            "reference.field": self.on_field,
            "reference.import": self.on_import,
            "reference.export": self.on_export,
            "reference.assignment": self.on_assignment,
            "reference.call": self.on_call,
            "reference.new": self.on_new,
            "reference.return": self.on_return,
            "reference.jsx": self.on_jsx,
            "text.comment": self.on_comment,
            "sql.string": self.on_sql,
        }
        for _s, _e, cap, node in _captures(root, self.grammar):
            self.advance(node.start_byte)
            handlers[cap](node)
        self.finish()
        self.flows(root)
        return f

    def flows(self, root: Node) -> None:
        """The data-flow layer (``ragraf.lang.js.flow``); a file it cannot walk keeps its
        other facts, without the layer (``flow_failed``)."""
        f = self.facts
        try:
            f.flows, too_big = flow.build(
                root,
                self.src,
                self.fn_scopes,
                [n.kind for n in f.nodes],
                {fqn.rsplit(".", 1)[-1] for fqn, _i in f.functions},
            )
        except Exception:  # noqa: BLE001 - the layer must not cost the file its other facts
            f.flows = []
            f.stats["flow_failed"] = 1
            return
        if too_big:
            f.stats["flow_too_big"] = too_big

    # -- finish ---------------------------------------------------------------------------
    def finish(self) -> None:
        f = self.facts
        self.bind_definers()
        for scope, pname, tnode in self.pending_params:
            for d in self.annotation(tnode, scope):
                scope.bind(pname, Bind(BindKind.DESC, desc=d))
        for decl, scope, bnode, rel in self.pending_bases:
            target = decl.extends if rel == EdgeKind.EXTENDS else decl.implements
            base = self.base_name(bnode, scope)
            if base:
                target.append((base, bnode.start_point[0] + 1))
        for decl, name, scope, node, is_ann in self.pending_props:
            got = self.annotation(node, scope) if is_ann else [self.desc(node, scope)]
            for pd in got:
                if pd is not None and pd not in decl.props.get(name, []):
                    decl.props.setdefault(name, []).append(pd)
        for idx, scope, rnode in self.pending_rtypes:
            descs = self.annotation(rnode, scope.parent or scope)
            if descs:
                f.returns[idx] = descs
        for idx, rets in self.returns.items():
            if idx in f.returns:
                continue
            ret = union([x for sc, e in rets if (x := self.desc(e, sc)) is not None])
            if ret is not None:
                f.returns[idx] = [ret]
        refs: list[Ref] = [*self.imports]
        for scope, n in self.calls:
            fn = n.child_by_field_name("function")
            if fn is not None:
                ref = self.call_ref(scope, fn)
                if ref is not None:
                    refs.append(ref)
        for scope, n in self.jsx:
            ref = self.call_ref(scope, n)
            if ref is not None and not isinstance(ref, DynamicCallRef):
                refs.append(ref)
        for scope, n in self.news:
            ctor = n.child_by_field_name("constructor")
            cls = self.instance(ctor, scope) if ctor is not None else None
            if cls is not None:
                refs.append(NewRef(scope.node, n.start_point[0] + 1, cls))
        for scope, n, methods, path, hnode in self.routes:
            handler = self.handler(hnode, scope)
            if handler is not None:
                refs.append(RouteRef(scope.node, n.start_point[0] + 1, methods, path, handler))
        refs.extend(self.decorated_routes)
        refs.extend(self.file_routes())
        refs.extend(self.sql)
        refs.sort(key=_ref_order)
        f.refs = refs
        self.export_table()
        self.attach_docblocks()
        self.texts(_DOCUMENTED)
        f.chunks = make_chunks(self.path, self.text, f, self.lang, self.max_chunk_lines)

    def attach_docblocks(self) -> None:
        """A ``/**`` comment right before a declaration is its docblock (the others belong
        to the innermost declaration around them: ``tstree.Walk.texts``)."""
        starts: dict[int, int] = {}
        spans = sorted(
            (n.start_line, n.end_line, i)
            for i, n in enumerate(self.facts.nodes)
            if i > 1 and n.kind in _DOCUMENTED
        )
        for start, _end, i in spans:
            starts.setdefault(start, i)
        self.comments = [
            (start, end, txt, starts.get(end + 1) if txt.startswith("/**") else None)
            for start, end, txt, _owner in self.comments
        ]


_DOCUMENTED = (NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.FUNCTION, NodeKind.METHOD)


def _ref_order(r: Ref) -> tuple[int, int, str]:
    return (r.line, r.owner, type(r).__name__)


def _captures(root: Node, grammar: str) -> list[tuple[int, int, str, Node]]:
    from tree_sitter import QueryCursor

    caps = QueryCursor(tstree.query(grammar, f"{grammar}-tags.scm")).captures(root)
    items: list[tuple[int, int, str, Node]] = []
    seen: set[tuple[int, int, str]] = set()
    for cap, nodes in caps.items():
        for node in nodes:
            key = (node.start_byte, -node.end_byte, cap)
            if key not in seen:
                seen.add(key)
                items.append((node.start_byte, -node.end_byte, cap, node))
    items.sort(key=lambda x: (x[0], x[1], _CAPTURE_ORDER.get(x[2], 9), x[2]))
    return items


#: captures of one node, in the order they must be handled (a declarator binds before the
#: function it names is walked)
_CAPTURE_ORDER = {"reference.export": 0, "reference.assignment": 1, "reference.field": 1}


def warm() -> None:
    """Load the grammars, compile the queries and import sqlglot before workers fork."""
    from ragraf.sql import sqltext

    for g in ("javascript", "typescript", "tsx"):
        tstree.query(g, f"{g}-tags.scm")
        tstree.parser(g)
    sqltext.warm()


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one JavaScript / TypeScript file (what the language registry calls);
    never raises for bad input: a file the walk cannot handle comes back ``failed``."""
    try:
        return Extractor(path, text, max_chunk_lines).run()
    except RecursionError:
        raise  # the registry reports it ("too deeply nested to parse")
    except Exception as e:  # noqa: BLE001 - one file must not stop a build
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        lang = "javascript" if grammar_of(path) == "javascript" else grammar_of(path)
        return FileFacts(
            path, lang, ParseStatus.FAILED, f"extractor error: {type(e).__name__}", lines
        )

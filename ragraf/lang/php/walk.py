"""The walk: one query run over the file, its captures dispatched in document
order, then ``finish`` turns what was collected into FileFacts.

Invariants a change must keep:
- Captures are handled in document order (start byte, outer node first, then
  capture name), each (node, capture) once; the stack of declarations and the
  namespace segment are advanced before each one.
- ``finish`` closes every descriptor over the bindings of its scope that
  reach its position (``Names.close``) and replaces scope indexes by node
  indexes, so no ('var', ...) descriptor and no scope index leaves the package.
- Comments and docblocks go to ``texts`` (layer text), never into props of
  structural nodes (principle P6); a docblock belongs to the declaration that
  follows it, any other comment to the innermost class or function around it,
  and adjacent plain comments with one owner merge into one text.
- A syntax error makes the file ``partial`` with the first error line;
  extraction goes on.
- tree-sitter is imported lazily (``ragraf --help`` must not load it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragraf import ids
from ragraf.kinds import (
    CALLABLE,
    CLASS_LIKE,
    HandlerKind,
    HookRole,
    Layer,
    NodeKind,
    ParseStatus,
    TableHow,
    TargetKind,
    TextKind,
)
from ragraf.lang import template_calls, templates, tstree
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    CallableRef,
    CallbackRef,
    DispatchRef,
    DynamicCallRef,
    FactNode,
    FileFacts,
    HookRef,
    MethodCallRef,
    OrmTableRef,
    Ref,
    RouteRef,
    SqlRef,
    StaticCallRef,
    TableArgRef,
    TableForwardRef,
    TableParamRef,
    TablePrefixRef,
    Target,
    TemplateRef,
    TextFact,
    TypeDesc,
)
from ragraf.lang.php import flow
from ragraf.lang.php.declarations import CLASS_KINDS, Declarations
from ragraf.lang.php.hooks import CLASS_HOOK
from ragraf.lang.php.names import DOC_VAR
from ragraf.lang.php.state import SCOPED_FRAMES, Scope
from ragraf.lang.php.strings import Strings
from ragraf.lang.php.strvals import UNKNOWN
from ragraf.lang.php.ui_strings import ui_tokens
from ragraf.lang.php.uses import Uses
from ragraf.lang.tstree import first_error, innermost
from ragraf.lang.typedesc import Cls, Var, alternatives

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query


#: the declarations a comment can sit in (``attach_texts``)
_SPANNED = (*CLASS_LIKE, *CALLABLE)


def _query() -> Query:
    return tstree.query("php", "php-tags.scm")


def _parser() -> Parser:
    return tstree.parser("php")


class Extractor(Declarations, Uses, Strings):
    """One file's extraction: ``Extractor(path, text).run()`` -> FileFacts."""

    def run(self) -> FileFacts:
        """Parse, walk every capture in document order, finish."""
        root = _parser().parse(self.src).root_node
        f = self.facts
        f.lines = self.text.count("\n") + (0 if self.text.endswith("\n") or not self.text else 1)
        fid = ids.node_id(NodeKind.FILE, self.path, self.path, 1)
        f.nodes.append(
            FactNode(
                fid,
                NodeKind.FILE,
                self.path.rsplit("/", 1)[-1],
                self.path,
                1,
                max(f.lines, 1),
                {"lang": "php"},
                Layer.STRUCTURAL,
            )
        )
        self.push_scope(Scope(0, None, len(self.src) + 1))
        f.scope_nodes.append(0)
        if root.has_error:
            f.status = ParseStatus.PARTIAL
            err = first_error(root)
            f.note = f"syntax error near line {err}" if err else "syntax errors"
        handlers = self.handlers()
        last = None
        for start, negend, cap, node in _captures(root):
            key = (start, negend, cap)
            if key == last:
                continue
            last = key
            self.advance(start)
            handlers[cap](node)
        self.stack.clear()
        self.finish()
        f.flows, too_big = flow.build(root, self.src, self.decl_at)
        if too_big:
            f.stats["flow_too_big"] = too_big
        return f

    def handlers(self) -> dict[str, Callable[[Node], None]]:
        """The handler of each capture name of the query (``@name.*`` ones aside)."""

        def class_like(n: Node) -> None:
            self.on_class(n, CLASS_KINDS[n.type])

        return {
            "definition.namespace": self.on_namespace,
            "reference.import": self.on_import,
            "definition.class": class_like,
            "definition.interface": class_like,
            "definition.trait": class_like,
            "definition.enum": class_like,
            "definition.function": lambda n: self.on_function(n, False),
            "definition.method": lambda n: self.on_function(n, True),
            "definition.anonymous_class": self.on_anonymous_class,
            "definition.property": self.on_property,
            "definition.constant": self.on_class_const_decl,
            "definition.enum_case": self.on_enum_case,
            "reference.trait_use": self.on_trait_use,
            "reference.call": self.on_call,
            "reference.method_call": self.on_method_call,
            "reference.static_call": self.on_static_call,
            "reference.new": self.on_new,
            "reference.class_constant": self.on_class_constant,
            "reference.array": self.on_array,
            "reference.keyed_callback": self.on_keyed_callback,
            "reference.name_string": self.on_name_string,
            "reference.include": self.on_include,
            "reference.global": self.on_global,
            "reference.assignment": self.on_assignment,
            "reference.catch": self.on_catch,
            "reference.return": self.on_return,
            "reference.foreach": self.on_foreach,
            "reference.instanceof": self.on_instanceof,
            "reference.superglobal": self.on_superglobal,
            "definition.closure": self.on_closure,
            "text.comment": self.on_comment,
            "sql.string": self.on_sql,
            "sql.call": self.on_sql_call,
            "sql.prefix": self.on_sql_prefix,
        }

    def on_class_const_decl(self, n: Node) -> None:
        """A ``const`` declaration: its nodes, and a class constant's string value."""
        self.on_constant(n)
        self.str_const(n)

    def advance(self, start: int) -> None:
        """Leave the declarations, scopes and braced namespace that end before ``start``."""
        while self.stack and self.stack[-1][0] <= start:
            _e, what, _p = self.stack.pop()
            if what in SCOPED_FRAMES:
                self.scopes.pop()
        if self.seg.end is not None and start >= self.seg.end:
            self.seg = self.global_seg
            self.seg_node = None

    def on_comment(self, n: Node) -> None:
        """Keep the comment for ``texts``; a ``/** @var Type $name */`` types a variable from
        there on (and the assignment right after it)."""
        self.comments.append(n)
        txt = self.t(n)
        if "@var" in txt and "$" in txt:  # `/** @var Type $name */` types a local variable
            block: tuple[int, int] | None = None
            for m in DOC_VAR.finditer(txt):
                descs = self.doc_types(m.group(1))
                if descs:
                    block = block or self.block_of(n)
                    self.bind(self.scope(), m.group(2), descs, n.end_byte, block)
                    self.doc_vars.setdefault(n.start_byte, {})[m.group(2)] = descs

    def finish(self) -> None:
        """Close descriptors over their scopes, give refs node owners, texts and chunks."""
        self.finish_sql()
        f = self.facts
        # close variable descriptors over the bindings of each scope that reach them
        all_scopes = self.all_scopes
        for sc in all_scopes:
            for binds in sc.vars.values():
                binds.sort(key=lambda b: b[0])
        for sc_i, line, call, d in self.pending_dispatches:
            cd = self.close(d, all_scopes[sc_i])
            for a in dict.fromkeys(alternatives(cd) if cd is not None else ()):
                if isinstance(a, Cls) and a.fqn:
                    hook = CLASS_HOOK + a.fqn
                    self.raw_refs.append(HookRef(sc_i, line, HookRole.FIRE, hook, call))
        for sc_i, idx, d in self.pending_returns:
            cd = self.close(d, all_scopes[sc_i])
            if cd is not None:
                rets = f.returns.setdefault(idx, [])
                if cd not in rets:
                    rets.append(cd)
        for sc_i, name, d in self.pending_globals:
            cd = self.close(d, all_scopes[sc_i])
            if cd is not None:
                f.global_assigns.append((name, cd))
        for sc_i, decl, pname, d in self.pending_props:
            cd = self.close(d, all_scopes[sc_i])
            if cd is not None:
                decl.props.setdefault(pname, []).append(cd)
        refs: list[Ref] = []
        for r in self.raw_refs:
            if isinstance(r, SqlRef | TablePrefixRef | OrmTableRef):  # owner: a node index
                refs.append(r)
                continue
            sc = all_scopes[r.owner]
            node = sc.node
            if isinstance(r, MethodCallRef | CallableRef | DispatchRef):
                refs.append(r._replace(owner=node, receiver=self.close(r.receiver, sc)))
            elif isinstance(r, CallbackRef):
                c = r.callee
                if c.kind == TargetKind.METHOD:
                    c = c._replace(receiver=self.close(c.receiver, sc))
                t = r.target
                if t.kind == TargetKind.METHOD:
                    t = t._replace(receiver=self.close(t.receiver, sc))
                refs.append(r._replace(owner=node, callee=c, target=t))
            elif isinstance(r, StaticCallRef):
                refs.append(r._replace(owner=node, cls=self.close(r.cls, sc)))
            elif isinstance(r, HookRef):
                cb = r.callback
                if cb is not None and cb.kind == TargetKind.METHOD:
                    cb = cb._replace(receiver=self.close(cb.receiver, sc))
                refs.append(r._replace(owner=node, callback=cb))
            elif isinstance(r, RouteRef):
                h = r.handler
                if h.kind != HandlerKind.CLOSURE:
                    h = h._replace(cls=self.close(h.cls, sc))
                refs.append(r._replace(owner=node, handler=h))
            elif isinstance(r, TableArgRef | TableForwardRef):
                c = r.callee
                if c.kind == TargetKind.METHOD:
                    c = c._replace(receiver=self.close(c.receiver, sc))
                refs.append(r._replace(owner=node, callee=c))
            elif isinstance(r, TemplateRef) and r.vars:
                closed = ((k, self.close(d, sc)) for k, d in r.vars)
                tvars = tuple((k, d) for k, d in closed if d is not None)
                refs.append(r._replace(owner=node, vars=tvars))
            elif isinstance(r, DynamicCallRef):
                targets, obj = self.close_targets(r.targets, sc)
                if obj is not None:  # `$handler($x)` on an object: its __invoke
                    refs.append(MethodCallRef(node, r.line, obj, "__invoke"))
                    if not targets:
                        continue
                refs.append(r._replace(owner=node, targets=targets))
            else:
                refs.append(r._replace(owner=node))
        refs.extend(table_params(f, refs))
        if self.path.endswith(".blade.php"):  # @include('partials.nav'), @extends(...)
            for line, how, name in templates.blade_refs(self.text):
                if templates.shaped(name):
                    refs.append(TemplateRef(0, line, how, name, templates.file_names(name)))
            refs.extend(template_calls.blade_calls(self.text))  # {{ $user->name() }}
        f.refs = refs
        self.attach_texts()
        f.chunks = make_chunks(self.path, self.text, f, "php", self.max_chunk_lines)
        for chunk in f.chunks:
            chunk.ui_tokens = ui_tokens(chunk.code)

    def close_targets(
        self, targets: tuple[Target, ...], sc: Scope
    ) -> tuple[tuple[Target, ...], TypeDesc | None]:
        """A dynamic call's targets closed over its scope: a ``VARIABLE`` target becomes
        the functions and callable arrays the variable holds (and the object it holds,
        whose ``__invoke`` is called: returned apart; an unknown function name
        (``UNKNOWN``) then goes: the variable holds that object)."""
        out: list[Target] = []
        obj: TypeDesc | None = None
        for t in targets:
            if t.kind == TargetKind.VARIABLE:
                at = t.receiver.pos if isinstance(t.receiver, Var) else 0
                got, obj = self.var_function_target(sc, t.method, at)
                out.extend(got)
            elif t.kind == TargetKind.METHOD:
                out.append(t._replace(receiver=self.close(t.receiver, sc)))
            else:
                out.append(t)
        if obj is not None:  # an object: what the string walk could not read is it
            out = [t for t in out if t.candidates != (UNKNOWN,)]
        return tuple(dict.fromkeys(out)), obj

    def attach_texts(self) -> None:
        """Comments and docblocks -> ``texts`` with the declaration they document or sit in."""
        f = self.facts
        spans = sorted(
            (
                (n.start_line, n.end_line, i)
                for i, n in enumerate(f.nodes)
                if i and n.kind in _SPANNED
            ),
        )
        merged: list[list[Any]] = []
        for c in self.comments:
            txt = self.t(c)
            start, end = c.start_point[0] + 1, c.end_point[0] + 1
            kind = TextKind.DOCBLOCK if txt.startswith("/**") else TextKind.COMMENT
            owner = None
            if kind == TextKind.DOCBLOCK:
                nxt = c.next_named_sibling
                if nxt is not None and nxt.start_byte in self.decl_at:
                    owner = self.decl_at[nxt.start_byte]
                elif nxt is not None and nxt.type in ("property_declaration", "const_declaration"):
                    el = next(
                        (
                            e
                            for e in nxt.named_children
                            if e.type in ("property_element", "const_element")
                        ),
                        None,
                    )
                    if el is not None and el.start_byte in self.decl_at:
                        owner = self.decl_at[el.start_byte]
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
        f.texts = [TextFact(m[0], m[1], m[2], m[3], m[4]) for m in merged]


def _captures(root: Node) -> list[tuple[int, int, str, Node]]:
    """The query's captures of the file as (start byte, -end byte, capture name, node), in
    document order: by start, the outer node first, then by capture name."""
    from tree_sitter import QueryCursor

    caps = QueryCursor(_query()).captures(root)
    items: list[tuple[int, int, str, Node]] = []
    for cap, nodes in caps.items():
        if cap.startswith("name."):
            continue
        for node in nodes:
            items.append((node.start_byte, -node.end_byte, cap, node))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return items


def warm() -> None:
    """Load the grammar, compile the query and import sqlglot now (before workers fork:
    they inherit all three instead of each loading them)."""
    from ragraf.sql import sqltext

    _query()
    _parser()
    sqltext.warm()


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    """The facts of one PHP file (what the language registry calls)."""
    return Extractor(path, text, max_chunk_lines).run()


#: a run-time table name that is a parameter, after an optional prefix (``DB_PREFIX .
#: $table``): (prefix, parameter)
_PARAM_TABLE = re.compile(r"^(?:(.{1,80}?) \. )?\$([A-Za-z_]\w*)$")


def table_params(f: FileFacts, refs: list[Ref]) -> list[TableParamRef]:
    """The SQL strings of functions and methods naming their table by a parameter of
    theirs: ``TableParamRef``s (one per function, parameter, line and role)."""
    out: dict[TableParamRef, None] = {}
    for r in refs:
        if not isinstance(r, SqlRef) or r.analysis is None or not r.owner:
            continue
        params = f.nodes[r.owner].props.get("parameters") or []
        if not params:
            continue
        names = [p.get("name") for p in params]
        own = {i: op for i, op, _cols in r.analysis.by_table}
        for i, t in enumerate(r.analysis.tables):
            if t.how != TableHow.DYNAMIC or not t.expr or t.name:
                continue
            m = _PARAM_TABLE.match(t.expr)
            if m is None or m.group(2) not in names:
                continue
            op = own.get(i, r.analysis.operation)
            pos = names.index(m.group(2))
            out[TableParamRef(r.owner, r.line, pos, op, t.role, m.group(1) or "")] = None
    return list(out)

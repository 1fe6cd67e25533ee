"""Calls and the class hierarchy: the resolver's handlers of calls (``f()``, ``$x->m()``,
``C::m()``, ``new C``, dynamic calls, uses by name of the tags-level languages), class
constants, routes' handlers, and the class edges of every class (extends / implements /
traits / overrides).

Invariants: those of ``ragraf.indexing.resolve`` on calls (one outcome per call, counted
in stats; a known receiver type never falls back to a name match; name matches capped by
``max_candidates`` / ``max_ambiguous``, and in a language with
``builtin_methods`` (PHP) kept to one method and its overrides; duplicate functions decided by the include graph).
Besides:
- Every corpus-wide question goes through ``ctx.sym`` (recorded per file); the tables
  this module builds for it (``by_name``, ``loading``) are made once, of every file, with
  no file's log open.
- The include graph (``loading``) is what the languages' includes load
  (``ragraf.lang.linking.Linking.includes``) given which files call each function.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ragraf import ids
from ragraf.indexing.resolve import reach
from ragraf.indexing.resolve.context import Context
from ragraf.indexing.resolve.symbols import SymbolTable, bare_method
from ragraf.kinds import (
    CALLABLE,
    CLASS_LIKE,
    CallKind,
    CallOutcome,
    DynamicHow,
    EdgeKind,
    HandlerKind,
    Layer,
    NameUse,
    NodeKind,
    TargetKind,
    Unresolved,
)
from ragraf.lang import registry
from ragraf.lang.facts import (
    UNKNOWN_NAME,
    CallRef,
    ClassConstRef,
    ClassDecl,
    DynamicCallRef,
    FileFacts,
    MethodCallRef,
    NameRef,
    NewRef,
    RouteRef,
    StaticCallRef,
    TypeDesc,
    called_functions,
)
from ragraf.lang.linking import EdgeSpec, Includes
from ragraf.model import NodeRow, RouteRow, UnresolvedRow

_EXTERNAL = EdgeSpec(props={"external": True})
#: the outcome of a call left unresolved for a reason (an external type's call is external)
_OUTCOME_OF = {
    Unresolved.TOO_MANY_CANDIDATES: CallOutcome.UNRESOLVED_TOO_MANY_CANDIDATES,
    Unresolved.EXTERNAL_TYPE: CallOutcome.EXTERNAL,
    Unresolved.UNKNOWN_MEMBER: CallOutcome.UNRESOLVED_UNKNOWN_MEMBER,
    Unresolved.DYNAMIC_NAME: CallOutcome.UNRESOLVED_DYNAMIC_NAME,
}

#: the ``via`` of a dynamic call's edges by its form (else ``variable-function``)
_DYNAMIC_VIA: dict[str, str] = {
    DynamicHow.CALL_USER_FUNC: "call_user_func",
    DynamicHow.DYNAMIC_METHOD: "dynamic-method",
}


class Calls:
    def __init__(
        self,
        ctx: Context,
        files: list[FileFacts],
        symtab: SymbolTable,
        includes: Sequence[Includes],
    ) -> None:
        """``files`` is the linker's list (read when a table is first needed), ``includes``
        the languages' parts of the include graph."""
        self.ctx = ctx
        self.sym = ctx.sym
        self.conf = ctx.conf
        self.max_candidates = ctx.max_candidates
        self.max_ambiguous = ctx.max_ambiguous
        self.files = files
        self.symtab = symtab
        self.includes = includes
        self._loading: reach.Loading | None = None
        self._by_name: dict[tuple[str, str, str], list[str]] | None = None
        ctx.lookup("reachable", self._reachable)
        ctx.lookup("by_name", self._by_name_of)

    def _count(self, outcome: str) -> None:
        """One call's outcome (a ``CallOutcome``)."""
        self.ctx.stats[f"calls_{outcome}"] += 1

    def _unresolved(
        self,
        name: str,
        kind: str,
        src: str,
        path: str,
        line: int,
        reason: Unresolved,
        detail: str | None = None,
    ) -> str:
        """Keep a call site no declaration was attached to, when some corpus declaration
        has its name (an answer about that declaration lists it); returns the outcome."""
        low = name.lower()
        known = (
            self.sym.has_function_named(low)
            if kind == CallKind.FUNCTION
            else bool(self.sym.methods_named(low, path))
        )
        if known:
            self.ctx.unresolved(UnresolvedRow(low, kind, src, path, line, reason, detail))
        return _OUTCOME_OF[reason]

    # -- class edges ------------------------------------------------------------------
    def class_edges(self, f: FileFacts, cd: ClassDecl) -> None:
        src = f.node_id(cd.node)
        for rel, items, ext_kind in (
            (
                EdgeKind.EXTENDS,
                cd.extends,
                NodeKind.INTERFACE if cd.kind == NodeKind.INTERFACE else NodeKind.CLASS,
            ),
            (EdgeKind.IMPLEMENTS, cd.implements, NodeKind.INTERFACE),
            (EdgeKind.USES_TRAIT, cd.traits, NodeKind.TRAIT),
        ):
            for fqn, line in items:
                targets = self.sym.class_ids(fqn)
                if not targets:
                    ext = self.ctx.out.external(ext_kind, fqn)
                    self.ctx.add(src, ext, rel, f.path, line, _EXTERNAL)
                elif len(targets) == 1:
                    self.ctx.add(src, targets[0], rel, f.path, line)
                else:
                    props = {"via": "duplicate-class", "candidates": len(targets)}
                    spec = EdgeSpec(self.conf["heuristic_ambiguous"], True, props)
                    for t in targets:
                        self.ctx.add(src, t, rel, f.path, line, spec)
        # overrides: a method redeclared from a parent, a trait or an interface
        lang = registry.get(f.lang)
        ctor = lang.constructor if lang else "__construct"
        # a language with overloads keys each method by its arity too (``name(N)``): those
        # keys decide which declaration a redeclaration overrides, and constructors
        # (``<init>(N)``) override nothing
        by_arity = {k.split("(", 1)[0] for k in cd.methods if k.endswith(")")}
        for mname, idx in cd.methods.items():
            if mname == ctor or mname.startswith(ctor + "("):
                continue
            if not mname.endswith(")") and (
                "(" in mname or mname in by_arity or mname.lower() in by_arity
            ):
                continue
            for p, _l in (*cd.extends, *cd.implements):
                found = self.sym.find_method(p.lower(), mname)
                if len(found) == 1:
                    node = f.nodes[idx]
                    self.ctx.add(
                        node.node_id, found[0], EdgeKind.OVERRIDES, f.path, node.start_line
                    )
                    break

    # -- calls ------------------------------------------------------------------------
    def on_call(self, f: FileFacts, src: str, ref: CallRef) -> None:
        st = self.ctx.stats
        st["calls_total"] += 1
        for cand in ref.candidates:
            fids = self.sym.function_ids(cand.lower(), cand)
            if fids:
                if len(fids) == 1:
                    self.ctx.add(src, fids[0], EdgeKind.CALLS, f.path, ref.line)
                    st["calls_stated"] += 1
                else:
                    st[f"calls_{self.duplicate_call(f.path, src, ref.line, fids)}"] += 1
                return
        st["calls_unresolved_function"] += 1

    def duplicate_call(self, path: str, src: str, line: int, fids: list[str]) -> str:
        """A call of a function declared more than once: the declarations the include graph
        lets the caller's file reach (``reach.Loading``), the ones guarded by
        ``if (!function_exists(...))`` set aside while an unguarded one remains (PHP skips a
        fallback when the name is already declared). One left: stated, with how it was
        chosen; several: derived ``duplicate-function`` with the reason. Returns the outcome."""
        found, why = self.sym.reachable(path, tuple(fids))
        unguarded = [fid for fid in found if not self.sym.is_guarded(fid)]
        fallbacks = len(found) - len(unguarded) if unguarded else 0
        if unguarded:
            found = unguarded
        if len(found) == 1:
            props: dict[str, Any] = {"declarations": len(fids), "chosen_by": why}
            if fallbacks:
                props["fallbacks_skipped"] = fallbacks
            self.ctx.add(src, found[0], EdgeKind.CALLS, path, line, EdgeSpec(props=props))
            return CallOutcome.STATED
        dprops = {"via": "duplicate-function", "candidates": len(found), "why": why}
        if len(found) < len(fids):
            dprops["declarations"] = len(fids)
        spec = EdgeSpec(self.conf["heuristic_ambiguous"], True, dprops)
        for t in found:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, path, line, spec)
        return CallOutcome.DERIVED

    @property
    def loading(self) -> reach.Loading:
        """The include graph (``reach.Loading``), built on first use, once per build, of
        what the languages' includes load (``ragraf.lang.linking.Linking.includes``) given
        the files that call each function by name or pass it as a callback: an include
        inside a function runs where the function is called."""
        if self._loading is None:
            sym = self.symtab
            log, self.sym.log = self.sym.log, None  # the whole corpus, no file's question
            callers: dict[str, set[str]] = defaultdict(set)
            for f in self.files:
                for ref in f.refs:
                    cands = called_functions(ref)
                    if cands is None:
                        continue
                    for c in cands:
                        if c.lower() in sym.functions:
                            callers[c.lower()].add(f.path)
                            break
            edges: list[tuple[str, str, bool]] = []
            open_files: set[str] = set()
            for graph in self.includes:  # what the languages' includes load
                got = graph(callers)
                edges += got.edges
                open_files |= got.open
            self._loading = reach.Loading(
                sym.paths,
                edges,
                open_files,
                [fids for fids in sym.functions.values() if len(fids) > 1],
                sym.function_paths,
                sym.guarded,
            )
            self.sym.log = log
        return self._loading

    def _reachable(self, path: str, fids: tuple[str, ...]) -> tuple[list[str], str]:
        return self.loading.reachable(path, list(fids))

    def on_method_call(self, f: FileFacts, src: str, ref: MethodCallRef) -> None:
        self.ctx.stats["calls_total"] += 1
        self._count(self.method_call(src, f.path, ref.line, ref.receiver, ref.method))

    def method_call(
        self,
        src: str,
        path: str,
        line: int,
        recv: TypeDesc | None,
        m: str,
        kind: str = CallKind.METHOD,
    ) -> str:
        """Link ``<recv>->m()`` (or ``<recv>::m()``): the methods the receiver's classes have;
        a receiver of builtin or vendor classes only calls outside the corpus (external,
        never a name match); an untyped one falls back to a name match. ``m`` may carry
        the call's arity (``name(N)``, ``SymbolTable.lookup_method``)."""
        called = m
        m = bare_method(m)
        tys = self.sym.types(recv) if recv is not None else {}
        if not tys:
            if kind == CallKind.STATIC:
                return self._unresolved(m, kind, src, path, line, Unresolved.DYNAMIC_NAME)
            outside = self.sym.external_root(recv) if recv is not None else None
            if outside:  # a member or element of a builtin or vendor value: never a name match
                return self._unresolved(
                    m, kind, src, path, line, Unresolved.EXTERNAL_TYPE, self.sym.display(outside)
                )
            return self.name_match(src, path, line, m)
        targets: dict[str, bool] = {}
        external: list[str] = []
        known: list[str] = []
        for cls, der in sorted(tys.items()):
            found = self.sym.lookup_method(cls, called)
            if found:
                for t in found:
                    targets[t] = targets.get(t, True) and der
            elif self.sym.has_class(cls):
                outside = self.sym.external_ancestor(cls)
                (external if outside else known).append(outside or cls)
            else:
                external.append(cls)
        if targets:
            derived = all(targets.values())
            via = None
            if derived:
                via = "global-single-type" if len(tys) == 1 else "global"
            elif external or known:
                # a union whose other members call outside the corpus or have no such
                # method: the call may not reach these declarations at all
                derived, via = True, "union"
            return (
                self.ctx.out.link_targets(
                    src, sorted(targets), EdgeKind.CALLS, path, line, derived, via
                )
                or CallOutcome.STATED
            )
        if kind != CallKind.STATIC and known and not external:
            # no corpus class it may be declares m: the object may be of a subclass that
            # does (WP_List_Table's $this->inline_edit() on a WP_Terms_List_Table), before
            # __call; a vendor interface's implementations in the corpus are no such guess
            sub = sorted(
                {t for cls in known for t in self.sym.subclass_methods(cls.lower(), m.lower())}
            )
            if sub:
                self.ctx.out.link_targets(src, sub, EdgeKind.CALLS, path, line, True, "subclass")
                return CallOutcome.DERIVED
        magic_name = "__callstatic" if kind == CallKind.STATIC else "__call"
        magic = sorted({t for cls in tys for t in self.sym.find_method(cls, magic_name)})
        if magic:
            self.ctx.out.link_targets(
                src, magic, EdgeKind.CALLS, path, line, True, "magic", magic=True
            )
            return CallOutcome.DERIVED
        if external:
            return self._unresolved(
                m, kind, src, path, line, Unresolved.EXTERNAL_TYPE, self.sym.display(external[0])
            )
        return self._unresolved(
            m, kind, src, path, line, Unresolved.UNKNOWN_MEMBER, self.sym.display(known[0])
        )

    def name_match(self, src: str, path: str, line: int, m: str) -> str:
        """An untyped receiver: every method of that name may be the one, up to
        ``max_ambiguous`` of them; above ``max_candidates`` they are marked ``ambiguous``
        with the chance of one of N as confidence. In a language whose calls by name keep
        to one hierarchy (PHP), methods of unrelated classes, or a name the language's own
        classes declare, leave the site unresolved (``_unrelated``), listed as a call
        site of that name that was not attached."""
        cands = self.sym.methods_named(m.lower(), path, m)
        if not cands:
            return CallOutcome.EXTERNAL  # no corpus method has that name: a builtin or vendor one
        n = len(cands)
        if n > self.max_ambiguous:
            return self._unresolved(
                m, CallKind.METHOD, src, path, line, Unresolved.TOO_MANY_CANDIDATES, str(n)
            )
        unrelated = self._unrelated(path, m.lower(), cands)
        if unrelated:
            return self._unresolved(
                m, CallKind.METHOD, src, path, line, Unresolved.TOO_MANY_CANDIDATES, unrelated
            )
        if n <= self.max_candidates:
            self.ctx.out.link_targets(src, cands, EdgeKind.CALLS, path, line, True, "name-match")
            return CallOutcome.DERIVED
        conf = round(min(self.conf["heuristic_ambiguous"], self.conf["heuristic_many"] / n), 4)
        spec = EdgeSpec(conf, True, {"via": "name-match", "ambiguous": True, "candidates": n})
        for t in cands:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, path, line, spec)
        return CallOutcome.DERIVED

    def _unrelated(self, path: str, low: str, cands: list[str]) -> str | None:
        """Why a name match of ``low`` from ``path`` links nothing, in a language whose
        calls by name keep to one hierarchy (``registry.builtin_methods``): the language's
        own classes declare the name (the receiver may be one: ``"n + builtin"``), or no
        candidate's class is above all the others' (``"n in k hierarchies"``: unrelated
        classes that share a name are no evidence of which one runs); None: link them."""
        builtin = registry.builtin_methods(registry.lang_of(path))
        if builtin is None:
            return None
        n = len(cands)
        if low in builtin:
            return f"{n} + builtin"
        if n == 1:
            return None
        roots = 0
        below: set[str] = set()
        for c in cands:
            if c in below:
                continue
            cls = self.sym.method_class(c)
            subs = set(self.sym.subclass_methods(cls, low)) if cls else set()
            if all(o == c or o in subs for o in cands):
                return None
            below |= subs
            roots += 1
        return f"{n} in {roots} hierarchies"

    # -- uses by name (tags-level languages) ----------------------------------------------
    @property
    def by_name(self) -> dict[tuple[str, str, str], list[str]]:
        """(name group, ``callable`` | ``class``, name) -> the node ids of the tags-level
        declarations of that name (sorted); built on first use."""
        if self._by_name is None:
            out: dict[tuple[str, str, str], list[str]] = defaultdict(list)
            for f in self.files:
                group = registry.name_group(f.lang)
                if group is None:
                    continue
                for nd in f.nodes[1:]:
                    what = (
                        "callable"
                        if nd.kind in CALLABLE
                        else "class"
                        if nd.kind in CLASS_LIKE
                        else None
                    )
                    if what is not None:
                        out[(group, what, nd.name)].append(nd.node_id)
            for lst in out.values():
                lst.sort()
            self._by_name = dict(out)
        return self._by_name

    def _by_name_of(self, key: tuple[str, str, str]) -> list[str]:
        return self.by_name.get(key, [])

    def on_name(self, f: FileFacts, src: str, ref: NameRef) -> None:
        """A use by name in a tags-level language: every declaration of that name in the
        language's group may be the one (a call: the callables, else the classes it would
        instantiate), so every edge is derived, with the name-match rules of ``name_match``
        (one candidate: ``heuristic_single``; up to ``max_candidates``: ``heuristic_ambiguous``;
        up to ``max_ambiguous``: ``heuristic_many / n`` marked ambiguous; above: unresolved)."""
        self.ctx.stats["calls_total"] += 1
        group = registry.name_group(f.lang) or ""
        kind = EdgeKind.CALLS
        cands = self.sym.by_name((group, "callable", ref.name)) if ref.kind == NameUse.CALL else []
        if not cands:
            kind = EdgeKind.INSTANTIATES
            cands = self.sym.by_name((group, "class", ref.name))
        n = len(cands)
        if not n:
            self._count(CallOutcome.EXTERNAL)
        elif n > self.max_ambiguous:
            self._count(CallOutcome.UNRESOLVED_TOO_MANY_CANDIDATES)
        elif n <= self.max_candidates:
            self.ctx.out.link_targets(src, cands, kind, f.path, ref.line, True, "name-match")
            self._count(CallOutcome.DERIVED)
        else:
            conf = round(min(self.conf["heuristic_ambiguous"], self.conf["heuristic_many"] / n), 4)
            spec = EdgeSpec(conf, True, {"via": "name-match", "ambiguous": True, "candidates": n})
            ekind = EdgeKind.CALLS_HEURISTIC if kind == EdgeKind.CALLS else kind
            for t in cands:
                self.ctx.add(src, t, ekind, f.path, ref.line, spec)
            self._count(CallOutcome.DERIVED)

    def on_static_call(self, f: FileFacts, src: str, ref: StaticCallRef) -> None:
        self.ctx.stats["calls_total"] += 1
        self._count(self.method_call(src, f.path, ref.line, ref.cls, ref.method, CallKind.STATIC))

    def on_new(self, f: FileFacts, src: str, ref: NewRef) -> None:
        st = self.ctx.stats
        lang = registry.get(f.lang)
        ctor_name = lang.constructor if lang else "__construct"
        for cls in sorted(self.sym.types(ref.cls)):
            cids = self.sym.class_ids(cls)
            if len(cids) == 1:
                self.ctx.add(src, cids[0], EdgeKind.INSTANTIATES, f.path, ref.line)
            ctor = self.sym.find_method(cls, ctor_name)
            if ctor:
                st["calls_total"] += 1
                self.ctx.out.link_targets(src, ctor, EdgeKind.CALLS, f.path, ref.line, False, None)
                st["calls_stated" if len(ctor) == 1 else "calls_derived"] += 1

    def on_class_const(self, f: FileFacts, src: str, ref: ClassConstRef) -> None:
        for cls in sorted(self.sym.types(ref.cls)):
            if ref.member.lower() == "class":
                cids = self.sym.class_ids(cls)
            else:
                cids = self.sym.find_const(cls, ref.member)
            if len(cids) == 1:
                self.ctx.add(src, cids[0], EdgeKind.REFERENCES, f.path, ref.line)

    def on_dynamic_call(self, f: FileFacts, src: str, ref: DynamicCallRef) -> None:
        """A call whose callee is computed (``$fn()``, ``call_user_func($cb)``,
        ``$obj->$m()``): derived calls of what its targets name (a literal name, a
        callable array; a pattern ``upgrade_to_*`` of every declaration it matches, up to
        ``max_candidates``, the confidence divided among them); a target whose name nothing
        is known of (``UNKNOWN_NAME``), or a pattern matching none or too many, is kept as
        an unresolved call site of that name (``*`` or the pattern): an answer about a
        declaration it may reach lists it (``ragraf.facade.accounting``)."""
        if ref.how == DynamicHow.AMBIGUOUS_IMPORT:
            self._ambiguous_import(f, src, ref)
            return
        st = self.ctx.stats
        st["calls_total"] += 1
        conf = self.conf["variable_function"]
        plain: list[str] = []
        matched: list[tuple[str, list[str]]] = []  # (pattern, its declarations)
        open_: list[tuple[str, str, str | None]] = []  # (name, call kind, detail)
        for alt in ref.targets:
            if alt.kind == TargetKind.FUNCTION:
                for cand in alt.candidates:
                    if UNKNOWN_NAME in cand:
                        pat = cand.lower()
                        found = self.sym.functions_matching(pat) if pat != UNKNOWN_NAME else []
                        if found and len(found) <= self.max_candidates:
                            matched.append((cand, found))
                        else:
                            open_.append((pat, CallKind.FUNCTION, "callable"))
                        break
                    fids = self.sym.function_ids(cand.lower())
                    if fids:
                        plain.extend(fids)
                        break
            elif alt.kind == TargetKind.METHOD:
                got = self._dynamic_method(f.path, alt.receiver, alt.method, open_)
                if got is not None and UNKNOWN_NAME in alt.method:
                    matched.append((alt.method, got))
                elif got is not None:
                    plain.extend(got)
        for name, kind, detail in dict.fromkeys(open_):
            self.ctx.unresolved(
                UnresolvedRow(name, kind, src, f.path, ref.line, Unresolved.DYNAMIC_NAME, detail)
            )
        plain = sorted(set(plain))
        if not plain and not matched:
            st["calls_unresolved_dynamic"] += 1
            return
        via = _DYNAMIC_VIA.get(ref.how, "variable-function")
        spec = EdgeSpec(conf, True, {"via": via})
        for t in plain:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, spec)
        for pattern, found in matched:
            props = {"via": via, "pattern": pattern, "candidates": len(found)}
            pspec = EdgeSpec(round(conf / len(found), 4), True, props)
            for t in found:
                if t not in plain:
                    self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, pspec)
        st["calls_derived"] += 1

    def _ambiguous_import(self, f: FileFacts, src: str, ref: DynamicCallRef) -> None:
        """A call of a name several modules of one name declare (Python): derived calls of
        each (``via: ambiguous-import``)."""
        st = self.ctx.stats
        st["calls_total"] += 1
        targets: list[str] = []
        for alt in ref.targets:
            if alt.kind == TargetKind.FUNCTION:
                for cand in alt.candidates:
                    fids = self.sym.function_ids(cand.lower())
                    if fids:
                        targets.extend(fids)
                        break
            elif alt.kind == TargetKind.METHOD and alt.receiver is not None:
                targets.extend(self.sym.methods_of(alt.receiver, alt.method))
        targets = sorted(set(targets))
        if not targets:
            st["calls_unresolved_dynamic"] += 1
            return
        props: dict[str, Any] = {"via": "ambiguous-import", "candidates": len(targets)}
        spec = EdgeSpec(self.conf["heuristic_ambiguous"], True, props)
        for t in targets:
            self.ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, spec)
        st["calls_derived"] += 1

    def _dynamic_method(
        self,
        path: str,
        recv: TypeDesc | None,
        method: str,
        open_: list[tuple[str, str, str | None]],
    ) -> list[str] | None:
        """The methods ``<recv>->method()`` may call when ``method`` is a name or a pattern
        (None when it is not known, kept in ``open_`` with the receiver's class): those of
        the receiver's classes; an untyped receiver's by name, up to ``max_candidates``
        (a pattern: none, too vague without a class)."""
        tys = self.sym.types(recv) if recv is not None else {}
        detail = self.sym.display(sorted(tys)[0]) if len(tys) == 1 else None
        if method == UNKNOWN_NAME:
            open_.append((UNKNOWN_NAME, CallKind.METHOD, detail))
            return None
        if UNKNOWN_NAME in method:
            found: list[str] = self.sym.methods_matching(recv, method.lower()) if tys else []
            if found and len(found) <= self.max_candidates:
                return found
            open_.append((method.lower(), CallKind.METHOD, detail))
            return None
        if tys:
            got: list[str] = self.sym.methods_of(recv, method)
            return got
        cands: list[str] = self.sym.methods_named(method.lower(), path)
        return cands if len(cands) <= self.max_candidates else []

    # -- entry points ----------------------------------------------------------------
    def on_route(self, f: FileFacts, src: str, ref: RouteRef) -> None:
        method = "|".join(ref.methods)
        fqn = f"{method} {ref.route}"
        nid = ids.node_id(NodeKind.WEB_ROUTE, fqn, f.path, ref.line)
        handler = ref.handler
        targets: list[str] = []
        if handler.kind == HandlerKind.CLASS:
            for cls in sorted(self.sym.types(handler.cls)):
                inv = self.sym.find_method(cls, "__invoke")
                targets.extend(inv or self.sym.class_ids(cls))
        elif handler.kind == HandlerKind.METHOD:
            for cls in sorted(self.sym.types(handler.cls)):
                targets.extend(self.sym.find_method(cls, handler.method.lower()))
        elif handler.kind == HandlerKind.FUNCTION:  # by fqn (a Django view, an Express handler)
            targets.extend(self.sym.function_ids(handler.method.lower()) if handler.method else [])
        else:
            targets.append(src)  # a closure: the code registering it handles the route
        self.ctx.node(
            NodeRow(
                nid,
                NodeKind.WEB_ROUTE,
                ref.route,
                fqn,
                f.path,
                ref.line,
                ref.line,
                json.dumps({"method": method, "route": ref.route}),
                Layer.STRUCTURAL,
            )
        )
        self.ctx.route(RouteRow(nid, ref.route, method, f.path, ref.line))
        spec = EdgeSpec(self.conf["heuristic_single"], True, {"via": "router-call"})
        for t in sorted(set(targets)):
            self.ctx.add(nid, t, EdgeKind.HANDLES, f.path, ref.line, spec)

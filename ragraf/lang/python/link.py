"""Python's cross-file step (``Language.prepare``): what imported names are, once every
file is known, so that ``ragraf.indexing.resolve`` links Python facts with its usual rules.

A dotted name (``pkg.mod.Foo.bar``) resolves by its longest prefix that is a corpus
module, then member by member: a top-level class (nested classes followed), function,
or a module-level binding — an import (a re-export, followed up to ``MAX_HOPS``), a
``from m import *`` of the module, or a typed value. A prefix no corpus module has is
external (stdlib, third-party).

Invariants a change must keep:
- Only Python files are rewritten, into new FileFacts (the cached ones are not
  touched); their order is kept.
- Modules are named by path (``ragraf.lang.python.names.module_of``); an import names
  one exactly, or by a suffix that only one corpus module has, or, among several, the
  one sharing the longest leading path with the importer (a tie: none — external).
- After the rewrite no ``pyinst`` / ``pyret`` / ``pyval`` / ``pybind`` descriptor and
  no ``?`` base class is left: a call of a corpus function is a ``CallRef`` with its
  fqn, of a corpus class a ``NewRef``, through a class or typed value a
  ``MethodCallRef``; an external callee keeps its dotted name (no corpus function has
  it: the linker counts it external); an import becomes ``ImportRef`` ``class`` /
  ``function`` / ``module`` (the module's path), an external one is dropped.
- A package's module contains the modules directly below it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ragraf.kinds import EdgeKind, HandlerKind, ImportKind
from ragraf.lang import tstree
from ragraf.lang.facts import (
    CallRef,
    ClassDecl,
    FileFacts,
    Handler,
    ImportRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
    TypeDesc,
)
from ragraf.lang.python.names import is_package, module_of

#: re-exports followed for one name (a cycle of imports must end)
MAX_HOPS = 8
#: how deep a descriptor is rewritten
MAX_DEPTH = 12

#: what a dotted name is: ("module", name) | ("class", fqn) | ("function", fqn) |
#: ("value", desc, module) | ("external", dotted) | ("missing", dotted)
Entity = tuple[Any, ...]


class _Module:
    __slots__ = ("facts", "classes", "functions", "binds", "stars")

    def __init__(self, facts: FileFacts, name: str) -> None:
        self.facts = facts
        self.classes: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        self.binds: dict[str, list[tuple[str, Any]]] = {}
        self.stars: list[str] = []
        prefix = name + "."
        for cd in facts.classes:
            short = cd.fqn[len(prefix) :]
            if cd.fqn.startswith(prefix) and "." not in short:
                self.classes[short] = cd.fqn
        for fqn, _i in facts.functions:
            short = fqn[len(prefix) :]
            if fqn.startswith(prefix) and "." not in short:
                self.functions[short] = fqn
        for bname, d in facts.global_assigns:
            if d and d[0] == "pybind":
                if bname == "*":
                    self.stars.append(d[2])
                else:
                    self.binds.setdefault(bname, []).append((d[1], d[2]))


class Modules:
    """Every Python module of the corpus, by dotted name and by dotted suffix."""

    def __init__(self, files: list[FileFacts]) -> None:
        self.mods: dict[str, _Module] = {}
        self.suffix: dict[str, list[str]] = {}
        self.class_fqns: set[str] = set()
        self.function_fqns: set[str] = set()
        for f in files:
            if not f.nodes:
                continue
            name = module_of(f.path)
            if name in self.mods:
                continue
            self.mods[name] = _Module(f, name)
            segs = name.split(".")
            for k in range(1, len(segs)):
                self.suffix.setdefault(".".join(segs[k:]), []).append(name)
            self.class_fqns.update(cd.fqn for cd in f.classes)
            self.function_fqns.update(fqn for fqn, _i in f.functions)
        self._cache: dict[tuple[str, str], str | None] = {}

    # -- modules ---------------------------------------------------------------------
    def find_module(self, dotted: str, importer: str) -> str | None:
        if dotted in self.mods:
            return dotted
        key = (dotted, importer)
        if key in self._cache:
            return self._cache[key]
        got = tstree.nearest(self.suffix.get(dotted, []), importer, ".")
        self._cache[key] = got
        return got

    # -- names -------------------------------------------------------------------------
    def entity(self, dotted: str, importer: str, hops: int = 0) -> tuple[Entity, list[str]]:
        """What ``dotted`` names, and the attributes left after it."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            m = self.find_module(".".join(parts[:i]), importer)
            if m is not None:
                return self.member(m, parts[i:], hops)
        return ("external", dotted), []

    def member(self, m: str, rest: list[str], hops: int) -> tuple[Entity, list[str]]:
        if not rest:
            return ("module", m), []
        mod = self.mods[m]
        name = rest[0]
        if name in mod.classes:
            fqn = mod.classes[name]
            rest = rest[1:]
            while rest and f"{fqn}.{rest[0]}" in self.class_fqns:
                fqn, rest = f"{fqn}.{rest[0]}", rest[1:]
            return ("class", fqn), rest
        if name in mod.functions:
            return ("function", mod.functions[name]), rest[1:]
        if hops < MAX_HOPS:
            for kind, val in mod.binds.get(name, []):
                if kind == "import":
                    e, left = self.entity(".".join([val, *rest[1:]]), m, hops + 1)
                    if e[0] not in ("external", "missing") or len(mod.binds[name]) == 1:
                        return e, left
                elif kind == "value":
                    return ("value", val, m), rest[1:]
            for star in mod.stars:
                e, left = self.entity(".".join([star, *rest]), m, hops + 1)
                if e[0] not in ("external", "missing", "module"):
                    return e, left
        return ("missing", f"{m}.{'.'.join(rest)}"), []

    # -- descriptors -----------------------------------------------------------------
    def base_desc(self, e: Entity, module: str, depth: int) -> TypeDesc | None:
        """The receiver an entity is when an attribute of it is called."""
        if e[0] == "class":
            return ("class", e[1])
        if e[0] == "value":
            return self.fix(e[1], e[2], depth + 1)
        if e[0] == "external":
            return ("class", e[1])
        return None

    def chain(self, e: Entity, attrs: list[str], module: str, depth: int = 0) -> TypeDesc | None:
        d = self.base_desc(e, module, depth)
        for a in attrs:
            if d is None:
                return None
            d = ("prop", d, a)
        return d

    def fix(self, d: TypeDesc | None, module: str, depth: int = 0) -> TypeDesc | None:
        """A descriptor with every dotted name resolved (None: it denotes nothing known)."""
        if d is None or depth > MAX_DEPTH:
            return None
        tag = d[0]
        if tag in ("pyinst", "pyret", "pyval"):
            e, rest = self.entity(d[1], module)
            kind = e[0]
            if kind == "external":
                return ("class", d[1])
            if kind == "missing" or kind == "module":
                return None
            if tag == "pyinst":
                return ("class", e[1]) if kind == "class" and not rest else None
            if tag == "pyval":
                return self.chain(e, rest, module, depth)
            # pyret: what calling it returns
            if not rest:
                if kind == "class":
                    return ("class", e[1])
                if kind == "function":
                    return ("func", (e[1],))
                return None
            recv = self.chain(e, rest[:-1], module, depth)
            return ("call", recv, rest[-1]) if recv is not None else None
        if tag == "any":
            alts = [x for a in d[1] if (x := self.fix(a, module, depth + 1)) is not None]
            if not alts:
                return None
            return alts[0] if len(alts) == 1 else ("any", tuple(dict.fromkeys(alts)))
        if tag in ("prop", "call", "sprop", "scall"):
            inner = self.fix(d[1], module, depth + 1)
            return (tag, inner, d[2]) if inner is not None else None
        return d

    # -- refs ----------------------------------------------------------------------------
    def call(self, ref: CallRef, module: str) -> Ref:
        for cand in ref.candidates:
            if cand in self.function_fqns:  # a function of the file, nested ones included
                return ref._replace(candidates=(cand,))
            e, rest = self.entity(cand, module)
            kind = e[0]
            if kind == "function" and not rest:
                return ref._replace(candidates=(e[1],))
            if kind == "class" and not rest:
                return NewRef(ref.owner, ref.line, ("class", e[1]))
            if kind in ("class", "value") and rest:
                recv = self.chain(e, rest[:-1], module)
                if recv is not None:
                    return MethodCallRef(ref.owner, ref.line, recv, rest[-1])
            if kind not in ("external", "missing"):
                break
        return ref

    def import_ref(self, ref: ImportRef, module: str) -> ImportRef | None:
        e, rest = self.entity(ref.fqn, module)
        if e[0] == "module":
            return ref._replace(kind=ImportKind.MODULE, fqn=self.mods[e[1]].facts.path)
        if rest:
            return None
        if e[0] == "class":
            return ref._replace(kind=ImportKind.CLASS, fqn=e[1])
        if e[0] == "function":
            return ref._replace(kind=ImportKind.FUNCTION, fqn=e[1])
        if e[0] == "value":
            return ref._replace(kind=ImportKind.MODULE, fqn=self.mods[e[2]].facts.path)
        return None

    def view(self, dotted: str, module: str) -> Handler:
        """The function or class an imported view names (``ragraf.lang.python.routes``);
        anything else handles nothing the corpus declares."""
        e, rest = self.entity(dotted, module)
        if e[0] == "function" and not rest:
            return Handler(HandlerKind.FUNCTION, None, e[1])
        if e[0] == "class" and not rest:
            return Handler(HandlerKind.CLASS, ("class", e[1]))
        return Handler(HandlerKind.FUNCTION, None, "")

    def rewrite(self, f: FileFacts) -> FileFacts:
        if not f.nodes:
            return f
        module = module_of(f.path)
        refs: list[Ref] = []
        for r in f.refs:
            if isinstance(r, CallRef):
                refs.append(self.call(r, module))
            elif isinstance(r, MethodCallRef):
                refs.append(r._replace(receiver=self.fix(r.receiver, module)))
            elif isinstance(r, NewRef):
                cls = self.fix(r.cls, module)
                if cls is not None:
                    refs.append(r._replace(cls=cls))
            elif isinstance(r, ImportRef):
                imp = self.import_ref(r, module)
                if imp is not None:
                    refs.append(imp)
            elif isinstance(r, RouteRef) and r.handler.method.startswith("?"):
                refs.append(r._replace(handler=self.view(r.handler.method[1:], module)))
            else:
                refs.append(r)
        classes = [self.decl(cd, module) for cd in f.classes]
        returns = {
            i: fixed
            for i, descs in f.returns.items()
            if (fixed := [x for d in descs if (x := self.fix(d, module)) is not None])
        }
        edges = list(f.edges)
        if is_package(f.path):
            pkg_node = f.node_id(1)
            prefix = module + "." if module else ""
            for name, mod in sorted(self.mods.items()):
                short = name[len(prefix) :]
                if name.startswith(prefix) and short and "." not in short and mod.facts is not f:
                    edges.append(LocalEdge(pkg_node, mod.facts.node_id(1), EdgeKind.CONTAINS, 1))
        return dataclasses.replace(
            f, refs=refs, classes=classes, returns=returns, global_assigns=[], edges=edges
        )

    def decl(self, cd: ClassDecl, module: str) -> ClassDecl:
        extends: list[tuple[str, int]] = []
        for base, line in cd.extends:
            if base.startswith("?"):
                e, rest = self.entity(base[1:], module)
                base = e[1] if e[0] == "class" and not rest else base[1:]
            extends.append((base, line))
        props = {
            name: fixed
            for name, descs in cd.props.items()
            if (fixed := [x for d in descs if (x := self.fix(d, module)) is not None])
        }
        return dataclasses.replace(cd, extends=extends, props=props)


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """The Python files' facts with imported names resolved (see the module docstring)."""
    mods = Modules(files)
    return [mods.rewrite(f) for f in files]

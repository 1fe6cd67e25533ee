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
- After the rewrite no ``Pending`` descriptor, no ``Export`` row and no ``?`` base class
  is left: a call of a corpus function is a ``CallRef`` with its
  fqn, of a corpus class a ``NewRef``, through a class or typed value a
  ``MethodCallRef``; an external callee keeps its dotted name (no corpus function has
  it: the linker counts it external); an import becomes ``ImportRef`` ``class`` /
  ``function`` / ``module`` (the module's path), an external one is dropped.
- A package's module contains the modules directly below it.
"""

from __future__ import annotations

import dataclasses

from ragraf.kinds import BindKind, EdgeKind, EntityKind, HandlerKind, ImportKind
from ragraf.lang import tstree
from ragraf.lang.crossfile import Entity, EntityNames, rewrite_all
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
)
from ragraf.lang.python.names import is_package, module_of
from ragraf.lang.typedesc import Cls, Export

#: re-exports followed for one name (a cycle of imports must end)
MAX_HOPS = 8


class _Module:
    __slots__ = ("facts", "classes", "functions", "binds", "stars")

    def __init__(self, facts: FileFacts, name: str) -> None:
        self.facts = facts
        self.classes: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        self.binds: dict[str, list[Export]] = {}
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
        for bname, b in facts.global_assigns:
            if isinstance(b, Export):
                if bname == "*":
                    self.stars.append(b.name)
                else:
                    self.binds.setdefault(bname, []).append(b)


class Modules(EntityNames):
    """Every Python module of the corpus, by dotted name and by dotted suffix."""

    external_as_written = True

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
    def entity(self, name: str, where: str, hops: int = 0) -> tuple[Entity, list[str]]:
        """What the dotted ``name`` names (seen from module ``where``), and the attributes
        left after it."""
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            m = self.find_module(".".join(parts[:i]), where)
            if m is not None:
                return self.member(m, parts[i:], hops)
        return Entity(EntityKind.EXTERNAL, name), []

    def member(self, m: str, rest: list[str], hops: int) -> tuple[Entity, list[str]]:
        if not rest:
            return Entity(EntityKind.MODULE, m), []
        mod = self.mods[m]
        name = rest[0]
        if name in mod.classes:
            fqn = mod.classes[name]
            rest = rest[1:]
            while rest and f"{fqn}.{rest[0]}" in self.class_fqns:
                fqn, rest = f"{fqn}.{rest[0]}", rest[1:]
            return Entity(EntityKind.CLASS, fqn), rest
        if name in mod.functions:
            return Entity(EntityKind.FUNCTION, mod.functions[name]), rest[1:]
        if hops < MAX_HOPS:
            for b in mod.binds.get(name, []):
                if b.kind == BindKind.IMPORT:
                    e, left = self.entity(".".join([b.name, *rest[1:]]), m, hops + 1)
                    unknown = e.kind in (EntityKind.EXTERNAL, EntityKind.MISSING)
                    if not unknown or len(mod.binds[name]) == 1:
                        return e, left
                elif b.kind == BindKind.VALUE:
                    return Entity(EntityKind.VALUE, desc=b.desc, where=m), rest[1:]
            for star in mod.stars:
                e, left = self.entity(".".join([star, *rest]), m, hops + 1)
                if e.kind not in (EntityKind.EXTERNAL, EntityKind.MISSING, EntityKind.MODULE):
                    return e, left
        return Entity(EntityKind.MISSING, f"{m}.{'.'.join(rest)}"), []

    # -- refs ----------------------------------------------------------------------------
    def call(self, ref: CallRef, module: str) -> Ref:
        for cand in ref.candidates:
            if cand in self.function_fqns:  # a function of the file, nested ones included
                return ref._replace(candidates=(cand,))
            e, rest = self.entity(cand, module)
            kind = e.kind
            if kind == EntityKind.FUNCTION and not rest:
                return ref._replace(candidates=(e.name,))
            if kind == EntityKind.CLASS and not rest:
                return NewRef(ref.owner, ref.line, Cls(e.name))
            if kind in (EntityKind.CLASS, EntityKind.VALUE) and rest:
                recv = self.chain(e, rest[:-1])
                if recv is not None:
                    return MethodCallRef(ref.owner, ref.line, recv, rest[-1])
            if kind not in (EntityKind.EXTERNAL, EntityKind.MISSING):
                break
        return ref

    def import_ref(self, ref: ImportRef, module: str) -> ImportRef | None:
        e, rest = self.entity(ref.fqn, module)
        if e.kind == EntityKind.MODULE:
            return ref._replace(kind=ImportKind.MODULE, fqn=self.mods[e.name].facts.path)
        if rest:
            return None
        if e.kind == EntityKind.CLASS:
            return ref._replace(kind=ImportKind.CLASS, fqn=e.name)
        if e.kind == EntityKind.FUNCTION:
            return ref._replace(kind=ImportKind.FUNCTION, fqn=e.name)
        if e.kind == EntityKind.VALUE:
            return ref._replace(kind=ImportKind.MODULE, fqn=self.mods[e.where].facts.path)
        return None

    def view(self, dotted: str, module: str) -> Handler:
        """The function or class an imported view names (``ragraf.lang.python.routes``);
        anything else handles nothing the corpus declares."""
        e, rest = self.entity(dotted, module)
        if e.kind == EntityKind.FUNCTION and not rest:
            return Handler(HandlerKind.FUNCTION, None, e.name)
        if e.kind == EntityKind.CLASS and not rest:
            return Handler(HandlerKind.CLASS, Cls(e.name))
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
            if (fixed := rewrite_all(descs, lambda d: self.fix(d, module)))
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
                base = e.name if e.kind == EntityKind.CLASS and not rest else base[1:]
            extends.append((base, line))
        props = {
            name: fixed
            for name, descs in cd.props.items()
            if (fixed := rewrite_all(descs, lambda d: self.fix(d, module)))
        }
        return dataclasses.replace(cd, extends=extends, props=props)


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """The Python files' facts with imported names resolved (see the module docstring)."""
    mods = Modules(files)
    return [mods.rewrite(f) for f in files]

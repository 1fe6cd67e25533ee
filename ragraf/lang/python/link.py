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
- Modules are named as they are imported (``ragraf.lang.python.names.module_of``, the
  ``src`` layout included) and also by their ``__init__.py`` chain (``import_name``) and
  below the package roots a ``pyproject.toml`` / ``setup.cfg`` states (``roots``); an
  import names a module by one of those names, else by a suffix; among several, the
  best ranked (a package's module before a loose one, outside tests and examples before
  inside), then the one whose file shares the most leading folders with the importer's.
  Still several: the import is ambiguous, never dropped: ``ImportKind.AMBIGUOUS`` to each
  candidate's file and calls through it a ``DynamicCallRef`` ``ambiguous_import`` to each
  candidate's callee (both linked derived).
- After the rewrite no ``Pending`` or ``Holder`` descriptor, no ``Export`` row and no
  ``?`` base class is left: a call of a corpus function is a
  ``CallRef`` with its fqn, of a corpus class a ``NewRef``, through a class or typed
  value a ``MethodCallRef``; an external callee keeps its dotted name (no corpus
  function has it: the linker counts it external); an import becomes ``ImportRef``
  ``class`` / ``function`` / ``module`` (the module's path), an external one is dropped.
  A ``ContextVar[T]``'s ``get()`` is a T.
- A package's module contains the modules directly below it.
"""

from __future__ import annotations

import dataclasses

from ragraf.kinds import (
    BindKind,
    DynamicHow,
    EdgeKind,
    EntityKind,
    HandlerKind,
    ImportKind,
    TargetKind,
)
from ragraf.lang import tstree
from ragraf.lang.crossfile import MAX_DEPTH, Entity, EntityNames, rewrite, rewrite_all
from ragraf.lang.facts import (
    CallRef,
    ClassDecl,
    DynamicCallRef,
    FileFacts,
    Handler,
    ImportRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
    Target,
)
from ragraf.lang.python.names import is_package, module_of
from ragraf.lang.typedesc import (
    AnyOf,
    Call,
    Cls,
    Export,
    Holder,
    Pending,
    Prop,
    TypeDesc,
    any_of,
)

#: re-exports followed for one name (a cycle of imports must end)
MAX_HOPS = 8
#: what a ``ContextVar`` is when not called (external)
CONTEXTVAR = Cls("contextvars.ContextVar")
#: folders whose modules an import prefers others to (a test fixture, an example app
#: named like the package: flask's ``tests/test_apps/cliapp/inner1/inner2/flask.py``)
AUX_DIRS = frozenset({"tests", "test", "testing", "examples", "example", "docs", "doc"})


def _seal(d: TypeDesc | None) -> TypeDesc | None:
    """A descriptor without ``Holder``: a ContextVar not called is the external class."""
    match d:
        case None:
            return None
        case Holder():
            return CONTEXTVAR
        case AnyOf(alts):
            return any_of(x for a in alts if (x := _seal(a)) is not None)
        case Prop(of) | Call(of):
            inner = _seal(of)
            return d._replace(of=inner) if inner is not None else None
    return d


def import_name(path: str, packages: set[str]) -> str:
    """The name Python imports a file by, from its ``__init__.py`` chain: the folders
    above it that are packages (``packages``: the folders holding an ``__init__.py``)
    name it; a file outside any package is a top-level module (its folder is on
    ``sys.path``: a script's, a test's)."""
    d, _sep, stem = path.rpartition("/")
    names = [] if is_package(path) else [stem[:-3] if stem.endswith(".py") else stem]
    while d and d in packages:
        d, _sep, base = d.rpartition("/")
        names.insert(0, base)
    return ".".join(names)


def _rooted(path: str, stated: list[tuple[str, str]]) -> list[str]:
    """The names a file is imported by below the package roots a config file states."""
    out: list[str] = []
    for prefix, folder in stated:
        if folder and not path.startswith(folder + "/"):
            continue
        rel = path[len(folder) + 1 :] if folder else path
        name = module_of(rel)
        out.append(f"{prefix}.{name}" if prefix and name else prefix or name)
    return out


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
    """Every Python module of the corpus, by the names it is imported by and by suffix."""

    external_as_written = True

    def __init__(self, files: list[FileFacts]) -> None:
        self.mods: dict[str, _Module] = {}
        #: an import name -> the modules it may name: by ``module_of``, by the
        #: ``__init__.py`` chain (``import_name``) and below the stated roots (``_rooted``)
        self.names: dict[str, list[str]] = {}
        self.suffix: dict[str, list[str]] = {}
        self.class_fqns: set[str] = set()
        self.function_fqns: set[str] = set()
        packages = {f.path.rpartition("/")[0] for f in files if is_package(f.path)}
        #: the package roots the project's pyproject.toml / setup.cfg state (``roots``)
        stated = [
            (n, b.name)
            for f in files
            for n, b in f.global_assigns
            if isinstance(b, Export) and b.kind == BindKind.ROOT
        ]
        #: a module -> its rank among modules of one name (lower first): outside tests and
        #: examples before inside, in a package before a loose module
        self.rank: dict[str, tuple[int, int]] = {}
        for f in files:
            if not f.nodes or not f.path.endswith(".py"):
                continue
            name = module_of(f.path)
            if name in self.mods:
                continue
            self.mods[name] = _Module(f, name)
            folder = f.path.rpartition("/")[0]
            aux = any(seg in AUX_DIRS for seg in folder.split("/"))
            loose = not is_package(f.path) and folder not in packages
            self.rank[name] = (int(aux), int(loose))
            keys = [name, import_name(f.path, packages), *_rooted(f.path, stated)]
            for key in dict.fromkeys(keys):
                self.names.setdefault(key, []).append(name)
                segs = key.split(".")
                for k in range(1, len(segs)):
                    self.suffix.setdefault(".".join(segs[k:]), []).append(name)
            self.class_fqns.update(cd.fqn for cd in f.classes)
            self.function_fqns.update(fqn for fqn, _i in f.functions)
        self._cache: dict[tuple[str, str], tuple[str, ...]] = {}

    # -- modules ---------------------------------------------------------------------
    def find_modules(self, dotted: str, importer: str) -> tuple[str, ...]:
        """The modules ``dotted`` names seen from the module ``importer``: one; several
        (ambiguous: a derived link to each); none (external). By import name first, else by
        a suffix; among several, the best ranked (``rank``), then the one whose file shares
        the most leading folders with the importer's."""
        key = (dotted, importer)
        got = self._cache.get(key)
        if got is None:
            got = self._choose(self.names.get(dotted) or self.suffix.get(dotted) or [], importer)
            self._cache[key] = got
        return got

    def _choose(self, cands: list[str], importer: str) -> tuple[str, ...]:
        cands = list(dict.fromkeys(cands))
        if len(cands) <= 1:
            return tuple(cands)
        best = min(self.rank[c] for c in cands)
        cands = [c for c in cands if self.rank[c] == best]
        mod = self.mods.get(importer)
        if len(cands) > 1 and mod is not None:
            paths = {self.mods[c].facts.path: c for c in cands}
            near = tstree.nearest(sorted(paths), mod.facts.path, "/")
            if near is not None:
                return (paths[near],)
        return tuple(sorted(cands))

    # -- names -------------------------------------------------------------------------
    def entities(self, name: str, where: str, hops: int = 0) -> list[tuple[Entity, list[str]]]:
        """What the dotted ``name`` may name seen from module ``where``, each with the
        attributes left after it: one entity unless a module on the way is ambiguous."""
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            ms = self.find_modules(".".join(parts[:i]), where)
            if ms:
                out: list[tuple[Entity, list[str]]] = []
                for m in ms:
                    out.extend(self._flat(*self.member(m, parts[i:], hops), hops))
                return out
        return [(Entity(EntityKind.EXTERNAL, name), [])]

    def _flat(self, e: Entity, rest: list[str], hops: int) -> list[tuple[Entity, list[str]]]:
        """An entity and its attributes left, the candidates of an ambiguous one listed."""
        if e.kind != EntityKind.AMBIGUOUS:
            return [(e, rest)]
        return [(e2, [*r2, *rest]) for e2, r2 in self.entities(e.name, e.where, hops + 1)]

    def entity(self, name: str, where: str, hops: int = 0) -> tuple[Entity, list[str]]:
        """What the dotted ``name`` names (seen from module ``where``), and the attributes
        left after it; several candidates: ``AMBIGUOUS`` (``entities`` lists them)."""
        got = self.entities(name, where, hops)
        if len(got) == 1:
            return got[0]
        return Entity(EntityKind.AMBIGUOUS, name, where=where), []

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

    # -- descriptors -------------------------------------------------------------------
    def fix(self, d: TypeDesc | None, where: str, depth: int = 0) -> TypeDesc | None:
        """``d`` with every imported name resolved (a name of an ambiguous module: the
        union of what each candidate makes of it) and a ``Holder``'s ``get()`` its value;
        a ``Holder`` itself is kept (``public`` seals it)."""
        got = rewrite(d, lambda p, at: self.pending(p, where, at), depth)
        return self._hold(got, where, depth)

    def _hold(self, d: TypeDesc | None, where: str, depth: int) -> TypeDesc | None:
        if d is None or depth > MAX_DEPTH:
            return None
        match d:
            case Holder(of):
                inner = self.fix(of, where, depth + 1)
                return Holder(inner) if inner is not None else CONTEXTVAR
            case AnyOf(alts):
                return any_of(x for a in alts if (x := self._hold(a, where, depth + 1)))
            case Prop(of) | Call(of):
                inner = self._hold(of, where, depth + 1)
                if isinstance(inner, Holder):
                    if isinstance(d, Call) and d.name == "get":
                        return inner.of
                    inner = CONTEXTVAR
                return d._replace(of=inner) if inner is not None else None
        return d

    def pending(self, p: Pending, where: str, depth: int) -> TypeDesc | None:
        """What an imported name's instance, return value or value is; a name several
        modules may be: each candidate's, united."""
        alts = self.entities(p.names[0], where)
        if len(alts) == 1 and alts[0][0].kind == EntityKind.EXTERNAL:
            return Cls(p.names[0])
        return any_of(x for e, rest in alts if (x := self.pending_of(p, e, rest, depth)))

    def public(self, d: TypeDesc | None, module: str) -> TypeDesc | None:
        """``fix`` for what leaves the rewrite (``_seal``)."""
        return _seal(self.fix(d, module))

    # -- refs ----------------------------------------------------------------------------
    def call(self, ref: CallRef, module: str) -> Ref:
        for cand in ref.candidates:
            if cand in self.function_fqns:  # a function of the file, nested ones included
                return ref._replace(candidates=(cand,))
            alts = self.entities(cand, module)
            if len(alts) > 1:
                return self.ambiguous_call(ref, alts)
            e, rest = alts[0]
            kind = e.kind
            if kind == EntityKind.FUNCTION and not rest:
                return ref._replace(candidates=(e.name,))
            if kind == EntityKind.CLASS and not rest:
                return NewRef(ref.owner, ref.line, Cls(e.name))
            if kind in (EntityKind.CLASS, EntityKind.VALUE) and rest:
                recv = _seal(self._hold(self.chain(e, rest[:-1]), module, 0))
                if recv is not None:
                    return MethodCallRef(ref.owner, ref.line, recv, rest[-1])
            if kind not in (EntityKind.EXTERNAL, EntityKind.MISSING):
                break
        return ref

    def ambiguous_call(self, ref: CallRef, alts: list[tuple[Entity, list[str]]]) -> Ref:
        """A call through a module name several corpus modules have: each candidate's
        callee, derived (``DynamicHow.AMBIGUOUS_IMPORT``); none: the call as it is."""
        targets: list[Target] = []
        for e, rest in alts:
            if e.kind == EntityKind.FUNCTION and not rest:
                targets.append(Target(TargetKind.FUNCTION, (e.name,)))
            elif e.kind == EntityKind.CLASS and not rest:
                targets.append(Target(TargetKind.METHOD, (), Cls(e.name), "__init__"))
            elif e.kind in (EntityKind.CLASS, EntityKind.VALUE) and rest:
                recv = _seal(self.chain(e, rest[:-1]))
                if recv is not None:
                    targets.append(Target(TargetKind.METHOD, (), recv, rest[-1]))
        if not targets:
            return ref
        return DynamicCallRef(ref.owner, ref.line, DynamicHow.AMBIGUOUS_IMPORT, tuple(targets))

    def import_refs(self, ref: ImportRef, module: str) -> list[ImportRef]:
        """What an import names in the corpus: one ``ImportRef``; several modules may be
        the one: ``ImportKind.AMBIGUOUS`` to each candidate's file (linked derived);
        external or unknown: none."""
        alts = self.entities(ref.fqn, module)
        got = [x for e, rest in alts if (x := self.import_of(ref, e, rest)) is not None]
        if len(got) > 1:
            paths = dict.fromkeys(self.path_of(e) for e, _rest in alts)
            return [ref._replace(kind=ImportKind.AMBIGUOUS, fqn=p) for p in paths if p]
        return got

    def path_of(self, e: Entity) -> str:
        """The file of the module an entity is, or is declared in."""
        if e.kind == EntityKind.MODULE:
            return self.mods[e.name].facts.path
        if e.kind == EntityKind.VALUE:
            return self.mods[e.where].facts.path
        if e.kind in (EntityKind.CLASS, EntityKind.FUNCTION):
            for name, mod in self.mods.items():
                short = e.name[len(name) + 1 :]
                if e.name.startswith(name + ".") and (
                    short in mod.classes or short in mod.functions
                ):
                    return mod.facts.path
        return ""

    def import_of(self, ref: ImportRef, e: Entity, rest: list[str]) -> ImportRef | None:
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
        if not f.path.endswith(".py"):  # a pyproject.toml / setup.cfg: its roots are read
            return dataclasses.replace(f, global_assigns=[])
        module = module_of(f.path)
        refs: list[Ref] = []
        for r in f.refs:
            if isinstance(r, CallRef):
                refs.append(self.call(r, module))
            elif isinstance(r, MethodCallRef):
                refs.append(r._replace(receiver=self.public(r.receiver, module)))
            elif isinstance(r, NewRef):
                cls = self.public(r.cls, module)
                if cls is not None:
                    refs.append(r._replace(cls=cls))
            elif isinstance(r, ImportRef):
                refs.extend(self.import_refs(r, module))
            elif isinstance(r, RouteRef) and r.handler.method.startswith("?"):
                refs.append(r._replace(handler=self.view(r.handler.method[1:], module)))
            elif isinstance(r, RouteRef) and r.handler.cls is not None:
                hcls = self.public(r.handler.cls, module)
                none = Handler(HandlerKind.FUNCTION, None, "")
                refs.append(r._replace(handler=r.handler._replace(cls=hcls) if hcls else none))
            else:
                refs.append(r)
        classes = [self.decl(cd, module) for cd in f.classes]
        returns = {
            i: fixed
            for i, descs in f.returns.items()
            if (fixed := rewrite_all(descs, lambda d: self.public(d, module)))
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
            if (fixed := rewrite_all(descs, lambda d: self.public(d, module)))
        }
        return dataclasses.replace(cd, extends=extends, props=props)


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """The Python files' facts with imported names resolved (see the module docstring)."""
    mods = Modules(files)
    return [mods.rewrite(f) for f in files]

"""JavaScript / TypeScript's cross-file step (``Language.prepare``): what imported bindings
are, once every file is known, so that ``ragraf.indexing.resolve`` links the facts with its
usual rules.

An import key (``names.imp_key``: a specifier and names) resolves in two steps. The
specifier names a module: a relative one (``./x``, ``../y/z``) by the importing file's
folder, probing the exact path, then each suffix (``names.SUFFIXES``: TypeScript before
JavaScript), then ``<path>/index.<suffix>``; ``./x.js`` also finds ``x.ts`` (TypeScript's
ESM convention); a bare one (``pkg``, ``pkg/sub``) names a corpus folder of that name
that has an ``index`` file — after the manifests (``packages``: ``tsconfig.json`` paths,
a corpus ``package.json`` by name) —, else it is a package outside the corpus (external). Then the
names walk the module's exports: ``default``, ``*`` (the namespace), ``=`` (what
``require`` returns: ``module.exports`` when set, else the namespace), a named export
(a declaration, a re-export followed up to ``MAX_HOPS``, ``export * from`` modules
searched in order), then members of what was found (a class's static methods, an object
literal's methods and values).

Invariants a change must keep:
- Only this package's languages' files are rewritten, into new FileFacts (the cached
  ones are not touched); their order is kept. Every language of the package sees every
  file of the package's languages (a TypeScript file may import a JavaScript one).
- After the rewrite no import key, ``Pending`` descriptor or ``Export`` row is left: a call of a corpus function is a ``CallRef`` with its
  fqn, of a corpus class a ``NewRef``, of a method through a class or typed value a
  ``MethodCallRef``; an external callee is a ``CallRef`` naming ``<specifier>.<names>``
  (no corpus function has it: the linker counts it external); an import becomes
  ``ImportRef`` ``class`` / ``function`` / ``module`` (the module's path), an external
  one is dropped; a route whose handler resolves to nothing is dropped.
- Resolution is deterministic: probing order is fixed, and candidates are corpus paths.
- An object, a function object or an ES5 constructor (a class-like of its file:
  ``declarations.object_decl``) is a class wherever a class is: ``new`` of it, a member
  of it, a value of it.
- An untyped receiver is guessed by its name, or matched by name within its own copy of
  the tree and among classes only (``hints``): a guess is derived, never stated.
"""

from __future__ import annotations

import dataclasses
import posixpath

from ragraf.kinds import BindKind, Denotes, EntityKind, HandlerKind, ImportKind
from ragraf.lang.crossfile import MISSING, Entity, EntityNames, rewrite_all
from ragraf.lang.facts import (
    CallRef,
    ClassDecl,
    FileFacts,
    Handler,
    ImportRef,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
)
from ragraf.lang.js.hints import HINT, Hints, rows
from ragraf.lang.js.manifest import is_manifest
from ragraf.lang.js.names import SUFFIXES, parse_imp
from ragraf.lang.js.packages import Manifests
from ragraf.lang.typedesc import AnyOf, Call, Cls, Export, Pending, Prop, TypeDesc

#: re-exports followed for one name (a cycle of re-exports must end)
MAX_HOPS = 8
#: the languages whose files this step reads and rewrites
LANGS = frozenset({"javascript", "typescript", "tsx"})
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx")
_TS_FOR_JS = (".ts", ".tsx", ".mts", ".cts", ".d.ts")


class _Module:
    __slots__ = ("facts", "exports", "stars", "objvals", "functions")

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.exports: dict[str, Export] = {}
        self.stars: list[str] = []
        self.objvals: dict[str, dict[str, Export]] = {}
        self.functions = {fqn for fqn, _i in facts.functions}
        for name, b in facts.global_assigns:
            if not isinstance(b, Export):
                continue
            if b.member is not None:
                self.objvals.setdefault(name, {}).setdefault(b.member, b)
            elif b.kind == BindKind.STAR:
                self.stars.append(b.name)
            else:
                self.exports.setdefault(name, b)


class Modules(EntityNames):
    """Every JavaScript / TypeScript module of the corpus, by path."""

    def __init__(self, files: list[FileFacts], manifests: list[FileFacts] | None = None) -> None:
        self.manifests = Manifests(manifests or [])
        self.mods: dict[str, _Module] = {}
        self.class_fqns: set[str] = set()
        self.function_fqns: set[str] = set()
        for f in files:
            if not f.nodes or f.path in self.mods:
                continue
            self.mods[f.path] = _Module(f)
            self.class_fqns.update(cd.fqn for cd in f.classes)
            self.function_fqns.update(fqn for fqn, _i in f.functions)
        self.dirs: dict[str, list[str]] = {}
        for p in self.mods:
            parts = p.split("/")
            for i in range(len(parts) - 1):
                self.dirs.setdefault(parts[i], []).append("/".join(parts[: i + 1]))
        self._cache: dict[tuple[str, str], str | None] = {}
        self.hints = Hints(files)
        #: the guesses the file being rewritten made (``hints.rows``)
        self.used: dict[str, list[str]] = {}

    # -- modules -------------------------------------------------------------------------
    def find_module(self, spec: str, importer: str) -> str | None:
        key = (spec, posixpath.dirname(importer))
        if key in self._cache:
            return self._cache[key]
        got: str | None = None
        if spec.startswith((".", "/")):
            base = posixpath.normpath(posixpath.join(key[1], spec)).lstrip("/")
            got = self.probe(base)
        else:
            got = self.manifests.resolve(spec, importer, self.probe) or self.bare(spec)
        self._cache[key] = got
        return got

    def probe(self, base: str) -> str | None:
        if base in self.mods:
            return base
        if base.endswith(_JS_SUFFIXES):
            stem = base.rsplit(".", 1)[0]
            for suffix in _TS_FOR_JS:
                if stem + suffix in self.mods:
                    return stem + suffix
        for suffix in SUFFIXES:
            if base + suffix in self.mods:
                return base + suffix
        for suffix in SUFFIXES:
            if f"{base}/index{suffix}" in self.mods:
                return f"{base}/index{suffix}"
        return None

    def bare(self, spec: str) -> str | None:
        """``pkg`` / ``pkg/sub``: the one corpus folder named ``pkg`` (a workspace package
        or a vendored one) that has the module; several or none: outside the corpus."""
        head, _, rest = spec.partition("/")
        if head.startswith("@") and rest:  # @scope/pkg/sub
            sub_head, _, rest = rest.partition("/")
            head = f"{head}/{sub_head}"
            cands = sorted({d for d in self.dirs.get(sub_head, []) if d.endswith(head)})
        else:
            cands = sorted(set(self.dirs.get(head, [])))
        found = []
        for d in cands:
            got = self.probe(f"{d}/{rest}" if rest else d)
            if got is None and not rest:
                got = self.probe(f"{d}/src") or self.probe(f"{d}/lib")
            if got is not None:
                found.append(got)
        return found[0] if len(found) == 1 else None

    # -- names ---------------------------------------------------------------------------
    def entity(self, name: str, where: str, hops: int = 0) -> tuple[Entity, list[str]]:
        """What an import key names (seen from the file ``where``), and the member names
        left after it."""
        got = parse_imp(name)
        if got is None:
            return MISSING, []
        spec, names = got
        path = self.find_module(spec, where)
        if path is None:
            external = ".".join([spec, *[n for n in names if n not in "*="]])
            return Entity(EntityKind.EXTERNAL, external), []
        return self.member(path, names, hops)

    def member(self, path: str, names: list[str], hops: int) -> tuple[Entity, list[str]]:
        module = Entity(EntityKind.MODULE, path)
        if not names:
            return module, []
        if hops > MAX_HOPS:
            return MISSING, []
        mod = self.mods[path]
        first, rest = names[0], names[1:]
        if first == "*":
            return self.member(path, rest, hops + 1) if rest else (module, [])
        if first == "=":
            whole = mod.exports.get("=")
            if whole is not None:
                return self.follow(whole, rest, path, hops)
            return self.member(path, rest, hops + 1) if rest else (module, [])
        if first == "default":
            b = mod.exports.get("default") or mod.exports.get("=")
            return self.follow(b, rest, path, hops) if b else (MISSING, [])
        b = mod.exports.get(first)
        if b is not None:
            return self.follow(b, rest, path, hops)
        for star in mod.stars:
            target = self.find_module(star, path)
            if target is not None and target != path:
                e, left = self.member(target, names, hops + 1)
                if e.kind != EntityKind.MISSING:
                    return e, left
        whole = mod.exports.get("=")
        if whole is not None:
            return self.follow(whole, names, path, hops)
        fqn = f"{mod.facts.nodes[1].fqn}.{first}" if len(mod.facts.nodes) > 1 else ""
        if fqn in mod.functions:
            return Entity(EntityKind.FUNCTION, fqn), rest
        return MISSING, []

    def follow(self, b: Export, rest: list[str], path: str, hops: int) -> tuple[Entity, list[str]]:
        kind = b.kind
        if kind == BindKind.IMPORT:
            got = parse_imp(b.name)
            if got is None:
                return MISSING, []
            spec, names = got
            target = self.find_module(spec, path)
            if target is None:
                external = ".".join([spec, *[n for n in names + rest if n not in "*="]])
                return Entity(EntityKind.EXTERNAL, external), []
            return self.member(target, [*names, *rest], hops + 1)
        if kind == BindKind.FUNCTION:
            return Entity(EntityKind.FUNCTION, b.name), rest
        if kind == BindKind.CLASS:
            fqn = b.name
            while rest and f"{fqn}.{rest[0]}" in self.class_fqns:
                fqn, rest = f"{fqn}.{rest[0]}", rest[1:]
            return Entity(EntityKind.CLASS, fqn), rest
        if kind == BindKind.OBJECT:
            fqn = b.name
            while rest:
                cand = f"{fqn}.{rest[0]}"
                if cand in self.function_fqns:
                    return Entity(EntityKind.FUNCTION, cand), rest[1:]
                held = self.mods[path].objvals.get(fqn, {}).get(rest[0])
                if held is not None and hops < MAX_HOPS:
                    return self.follow(held, rest[1:], path, hops + 1)
                if cand in self.class_fqns:
                    return Entity(EntityKind.CLASS, cand), rest[1:]
                return MISSING, []
            return Entity(EntityKind.OBJECT, fqn, where=path), []
        if kind == BindKind.VALUE:
            return Entity(EntityKind.VALUE, desc=b.desc, where=path), rest
        return MISSING, []

    # -- descriptors -----------------------------------------------------------------------
    def class_like(self, e: Entity) -> bool:
        """An object, a function object or an ES5 constructor: a class-like of its file."""
        return e.kind in (EntityKind.FUNCTION, EntityKind.OBJECT) and e.name in self.class_fqns

    def pending(self, p: Pending, where: str, depth: int) -> TypeDesc | None:
        name = p.names[0]
        if name.startswith(HINT):  # an untyped receiver's name
            return self.hints.guess(name[len(HINT) :], self.used, where)
        e, rest = self.entity(name, where)
        if self.class_like(e):
            if p.use == Denotes.INSTANCE:
                return Cls(e.name) if not rest else None
            if p.use == Denotes.VALUE:
                return self.chain(e, rest, depth)
        if p.use == Denotes.RETURN and not rest and e.kind == EntityKind.VALUE:
            held = self.chain(e, [], depth)
            if isinstance(held, Prop):
                return Call(held.of, held.name)  # `const string = ZodString.create`
        return super().pending(p, where, depth)

    def chain(self, e: Entity, attrs: list[str], depth: int = 0) -> TypeDesc | None:
        if self.class_like(e):
            e = Entity(EntityKind.CLASS, e.name)
        return super().chain(e, attrs, depth)

    def fix(self, d: TypeDesc | None, where: str, depth: int = 0) -> TypeDesc | None:
        """``EntityNames.fix``, then a member of a class-like no declaration types guessed
        by its name (``this.req`` of express's ``res``)."""
        return self.guess_members(super().fix(d, where, depth), where)

    def guess_members(self, d: TypeDesc | None, where: str) -> TypeDesc | None:
        match d:
            case Prop(of, name):
                inner = self.guess_members(of, where)
                if isinstance(inner, Cls) and self.hints.unknown_member(inner.fqn, name):
                    guess = self.hints.guess(name, self.used, where)
                    if guess is not None:
                        return guess
                return d._replace(of=inner) if inner is not None else None
            case Call(of):
                inner = self.guess_members(of, where)
                return d._replace(of=inner) if inner is not None else None
            case AnyOf(alts):
                got = [x for a in alts if (x := self.guess_members(a, where)) is not None]
                if not got:
                    return None
                return AnyOf(tuple(dict.fromkeys(got))) if len(got) > 1 else got[0]
        return d

    # -- refs ------------------------------------------------------------------------------
    def call(self, ref: CallRef, importer: str) -> Ref:
        cand = ref.candidates[0] if ref.candidates else ""
        if parse_imp(cand) is None:
            return ref
        e, rest = self.entity(cand, importer)
        kind = e.kind
        if kind == EntityKind.FUNCTION and not rest:
            return ref._replace(candidates=(e.name,))
        if kind == EntityKind.CLASS and not rest:
            return NewRef(ref.owner, ref.line, Cls(e.name))
        known = (EntityKind.CLASS, EntityKind.VALUE, EntityKind.EXTERNAL)
        if (kind in known or self.class_like(e)) and rest:
            recv = self.chain(e, rest[:-1])
            if recv is not None:
                return MethodCallRef(ref.owner, ref.line, recv, rest[-1])
        if kind == EntityKind.EXTERNAL:
            return ref._replace(candidates=(e.name,))
        return ref._replace(candidates=(ref.raw,))

    def import_ref(self, ref: ImportRef, importer: str) -> ImportRef | None:
        e, rest = self.entity(ref.fqn, importer)
        if e.kind == EntityKind.MODULE:
            return ref._replace(kind=ImportKind.MODULE, fqn=e.name)
        if rest:
            return None
        if e.kind == EntityKind.CLASS:
            return ref._replace(kind=ImportKind.CLASS, fqn=e.name)
        if e.kind == EntityKind.FUNCTION:
            return ref._replace(kind=ImportKind.FUNCTION, fqn=e.name)
        if e.kind in (EntityKind.VALUE, EntityKind.OBJECT):
            return ref._replace(kind=ImportKind.MODULE, fqn=e.where)
        return None

    def handler(self, h: Handler, importer: str) -> Handler | None:
        if h.kind == HandlerKind.METHOD:
            cls = self.fix(h.cls, importer)
            return h._replace(cls=cls) if cls is not None else None
        if h.kind != HandlerKind.FUNCTION or parse_imp(h.method) is None:
            return h
        e, rest = self.entity(h.method, importer)
        if e.kind == EntityKind.FUNCTION and not rest:
            return h._replace(method=e.name)
        if e.kind in (EntityKind.CLASS, EntityKind.VALUE) and len(rest) == 1:
            recv = self.chain(e, [])
            return Handler(HandlerKind.METHOD, recv, rest[0]) if recv is not None else None
        return None

    def rewrite(self, f: FileFacts) -> FileFacts:
        if not f.nodes:
            return f
        me = f.path
        self.used = {}
        refs: list[Ref] = []
        for r in f.refs:
            if isinstance(r, CallRef):
                refs.append(self.call(r, me))
            elif isinstance(r, MethodCallRef):
                recv = self.fix(r.receiver, me)
                if self.hints.nothing(recv):
                    recv = self.hints.by_name(r.method, self.used, me) or recv
                refs.append(r._replace(receiver=recv))
            elif isinstance(r, NewRef):
                cls = self.fix(r.cls, me)
                if cls is not None:
                    refs.append(r._replace(cls=cls))
            elif isinstance(r, ImportRef):
                imp = self.import_ref(r, me)
                if imp is not None and imp not in refs:
                    refs.append(imp)
            elif isinstance(r, RouteRef):
                h = self.handler(r.handler, me)
                if h is not None:
                    refs.append(r._replace(handler=h))
            else:
                refs.append(r)
        classes = [self.decl(cd, me) for cd in f.classes]
        returns = {
            i: fixed
            for i, descs in f.returns.items()
            if (fixed := rewrite_all(descs, lambda d: self.fix(d, me)))
        }
        return dataclasses.replace(
            f, refs=refs, classes=classes, returns=returns, global_assigns=list(rows(self.used))
        )

    def decl(self, cd: ClassDecl, importer: str) -> ClassDecl:
        def base(name: str) -> str:
            if parse_imp(name) is None:
                return name
            e, rest = self.entity(name, importer)
            if e.kind == EntityKind.CLASS and not rest:
                return e.name
            if e.kind == EntityKind.EXTERNAL:
                return e.name
            got = parse_imp(name)
            return ".".join(n for n in (got[1] if got else []) if n not in "*=") or name

        props = {
            name: fixed
            for name, descs in cd.props.items()
            if (fixed := rewrite_all(descs, lambda d: self.fix(d, importer)))
        }
        return dataclasses.replace(
            cd,
            extends=[(base(b), ln) for b, ln in cd.extends],
            implements=[(base(b), ln) for b, ln in cd.implements],
            props=props,
        )


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """These files' facts with imported bindings resolved (see the module docstring)."""
    mods = Modules(
        [f for f in all_files if f.lang in LANGS], [f for f in all_files if is_manifest(f.path)]
    )
    return [mods.rewrite(f) if f.lang in LANGS else f for f in files]

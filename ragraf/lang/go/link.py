"""Go's cross-file step (``Language.prepare``): which package an import path names, what a
qualified name is, and which file declares a method's type, once every file is known, so
that ``ragraf.indexing.resolve`` links Go facts with its usual rules.

An import path names a corpus package (a directory) through the ``module`` line of a
``go.mod`` of the corpus (the longest module path it starts with: ``<module>/<sub>`` is
the directory ``<go.mod's dir>/<sub>``), else a directory whose path ends with the
import path (a ``vendor/`` copy, a tree without ``go.mod``: one such directory, or the
one sharing the longest leading path with the importer); none: external (the standard
library, a dependency).

Invariants a change must keep:
- Only Go files are rewritten, into new FileFacts (the cached ones are not touched);
  their order is kept.
- After the rewrite no ``Pending`` descriptor, no ``Export`` row, no ``@`` call candidate
  and no ``?`` embedded type is left: a call of a corpus function is a ``CallRef`` with its fqn,
  a conversion to a corpus type is dropped, an external callee keeps ``<path>.<Name>``
  (no corpus function has it: the linker counts it); a value of an external type is
  ``Cls("<path>.<Name>")`` (external to the linker, never a name match).
- An import of a corpus package is an ``ImportRef`` ``module`` to each file of the
  package but its ``_test.go`` ones (a package has no node of its own); an external one
  is dropped.
- The type a method's ``CLASS_EXTENSION`` adds to defines the method (a ``defines``
  edge from the type's node, in the method's file).
"""

from __future__ import annotations

import dataclasses
import posixpath

from ragraf.kinds import CLASS_EXTENSION, BindKind, Denotes, EdgeKind, HandlerKind
from ragraf.lang import tstree
from ragraf.lang.crossfile import rewrite, rewrite_all
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
from ragraf.lang.typedesc import Cls, Export, Func, Pending


class Packages:
    """Every Go package of the corpus by directory, the modules, and what they declare."""

    def __init__(self, files: list[FileFacts]) -> None:
        self.prefix: dict[str, str] = {}  # dir -> fqn prefix
        self.files: dict[str, list[str]] = {}  # dir -> paths
        self.modules: list[tuple[str, str]] = []  # (module path, dir), longest first
        self.types: dict[str, str] = {}  # type fqn -> node id
        self.functions: set[str] = set()
        for f in files:
            for where, b in f.global_assigns:
                if not isinstance(b, Export):
                    continue
                if b.kind == BindKind.MODULE:
                    self.modules.append((b.name, where))
                elif b.kind == BindKind.PACKAGE:
                    self.prefix.setdefault(where, b.name)
                    self.files.setdefault(where, []).append(f.path)
            for cd in f.classes:
                if cd.kind != CLASS_EXTENSION:
                    self.types.setdefault(cd.fqn, f.node_id(cd.node))
            self.functions.update(fqn for fqn, _i in f.functions)
        self.modules.sort(key=lambda m: (-len(m[0]), m))
        for paths in self.files.values():
            paths.sort()
        self._dirs: dict[tuple[str, str], str | None] = {}

    def package(self, ip: str, importer: str) -> str | None:
        """The directory of the corpus package an import path names (None: external)."""
        key = (ip, importer)
        if key in self._dirs:
            return self._dirs[key]
        got: str | None = None
        for mod, mdir in self.modules:
            if ip == mod or ip.startswith(mod + "/"):
                d = posixpath.normpath(posixpath.join(mdir, ip[len(mod) :].lstrip("/")))
                d = "" if d == "." else d
                if d in self.prefix:
                    got = d
                    break
        if got is None:
            cands = sorted(d for d in self.prefix if d == ip or d.endswith("/" + ip))
            got = tstree.nearest(cands, importer, "/")
        self._dirs[key] = got
        return got

    def qualified(self, ip: str, name: str, importer: str) -> tuple[str, bool]:
        """The fqn ``path.Name`` stands for, and whether it is a corpus package's."""
        d = self.package(ip, importer)
        if d is None:
            return f"{ip}.{name}", False
        return f"{self.prefix[d]}.{name}", True

    def fix(self, d: TypeDesc | None, importer: str) -> TypeDesc | None:
        """``d`` with every name of another package qualified (None: nothing known)."""
        return rewrite(d, lambda p, _depth: self.pending(p, importer))

    def pending(self, p: Pending, importer: str) -> TypeDesc | None:
        """An instance of ``path.Name``, or what calling it returns."""
        path, name = p.names
        fqn, inside = self.qualified(path, name, importer)
        if p.use == Denotes.INSTANCE:
            return Cls(fqn)
        if not inside:
            return Cls(fqn)  # what an external function returns: external
        if fqn in self.types:
            return Cls(fqn)
        return Func((fqn,)) if fqn in self.functions else None

    def call(self, ref: CallRef, importer: str) -> Ref | None:
        cand = ref.candidates[0] if ref.candidates else ""
        if cand.startswith("@"):
            ip, _, name = cand[1:].partition("#")
            fqn, _inside = self.qualified(ip, name, importer)
        else:
            fqn = cand
        if fqn in self.types:
            return None  # a conversion
        return ref._replace(candidates=(fqn,))

    def handler(self, h: Handler, importer: str) -> Handler:
        """A route's handler with its function qualified or its receiver resolved."""
        if h.kind == HandlerKind.FUNCTION and h.method.startswith("@"):
            ip, _, name = h.method[1:].partition("#")
            return h._replace(method=self.qualified(ip, name, importer)[0])
        if h.kind == HandlerKind.METHOD:
            return h._replace(cls=self.fix(h.cls, importer))
        return h

    def import_refs(self, ref: ImportRef, importer: str) -> list[ImportRef]:
        """An import of a corpus package: one ``ImportRef`` per file the package is made of
        (its ``_test.go`` files are not: an import does not compile them)."""
        d = self.package(ref.fqn, importer)
        if d is None or not self.files.get(d):
            return []
        paths = [p for p in self.files[d] if not p.endswith("_test.go")] or self.files[d]
        return [ref._replace(fqn=p) for p in paths]

    def rewrite(self, f: FileFacts) -> FileFacts:
        if not f.nodes:
            return f
        importer = posixpath.dirname(f.path)
        refs: list[Ref] = []
        for r in f.refs:
            if isinstance(r, CallRef):
                got = self.call(r, importer)
                if got is not None:
                    refs.append(got)
            elif isinstance(r, MethodCallRef):
                refs.append(r._replace(receiver=self.fix(r.receiver, importer)))
            elif isinstance(r, NewRef):
                cls = self.fix(r.cls, importer)
                if cls is not None:
                    refs.append(r._replace(cls=cls))
            elif isinstance(r, ImportRef):
                refs.extend(i for i in self.import_refs(r, importer) if i.fqn != f.path)
            elif isinstance(r, RouteRef):
                refs.append(r._replace(handler=self.handler(r.handler, importer)))
            else:
                refs.append(r)
        edges = list(f.edges)
        classes: list[ClassDecl] = []
        for cd in f.classes:
            classes.append(self.decl(cd, importer))
            home = self.types.get(cd.fqn)
            if cd.kind == CLASS_EXTENSION and home is not None:
                for idx in sorted(cd.methods.values()):
                    node = f.nodes[idx]
                    edges.append(LocalEdge(home, node.node_id, EdgeKind.DEFINES, node.start_line))
        returns = {
            i: fixed
            for i, descs in f.returns.items()
            if (fixed := rewrite_all(descs, lambda d: self.fix(d, importer)))
        }
        return dataclasses.replace(
            f, refs=refs, classes=classes, returns=returns, global_assigns=[], edges=edges
        )

    def decl(self, cd: ClassDecl, importer: str) -> ClassDecl:
        extends: list[tuple[str, int]] = []
        for base, line in cd.extends:
            if base.startswith("?"):
                ip, _, name = base[1:].partition("#")
                base, _inside = self.qualified(ip, name, importer)
            extends.append((base, line))
        props = {
            name: rewrite_all(descs, lambda d: self.fix(d, importer))
            for name, descs in cd.props.items()
        }
        return dataclasses.replace(cd, extends=extends, props=props)


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """The Go files' facts with import paths and qualified names resolved (see the module
    docstring)."""
    pkgs = Packages(files)
    return [pkgs.rewrite(f) for f in files]

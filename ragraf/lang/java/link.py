"""Java's cross-file step (``Language.prepare``): which class a simple type name is, once
every file is known, so that ``ragraf.indexing.resolve`` links Java facts with its usual
rules.

A type the walk left as candidates (``Pending(Denotes.INSTANCE, (fqn, ...))``, ``?c1|c2`` super types)
is the first candidate a corpus class has (Java's order: single-type import, same
package, on-demand imports, ``java.lang``); none: external, named by its single-type
import, as ``java.lang.<Name>`` for a ``java.lang`` type, else by the simple name.

Invariants a change must keep:
- Only Java files are rewritten, into new FileFacts (the cached ones are not touched);
  their order is kept.
- After the rewrite no ``jt`` descriptor and no ``?`` super type is left; an external
  type is ``Cls(<name>)`` (external to the linker, never a name match).
- An import of a corpus class is an ``ImportRef`` ``class``; an external one is dropped.
- A constructor call (``<init>(N)``: ``new``, ``this(...)``, ``super(...)``) of a corpus
  class that declares no constructor is dropped (its implicit one has no declaration),
  as is ``super(...)`` of a class that extends nothing (``Object``'s).
"""

from __future__ import annotations

import dataclasses

from ragraf.kinds import NodeKind
from ragraf.lang.crossfile import rewrite, rewrite_all
from ragraf.lang.facts import ClassDecl, FileFacts, ImportRef, MethodCallRef, NewRef, Ref, TypeDesc
from ragraf.lang.java.builtins import JAVA_LANG
from ragraf.lang.typedesc import Cls, Parent

#: the key prefix of a constructor's arity keys (``<init>(N)``)
CTOR = "<init>("


class Classes:
    def __init__(self, files: list[FileFacts]) -> None:
        self.fqns: set[str] = {cd.fqn for f in files for cd in f.classes}
        #: corpus classes that declare a constructor
        self.with_ctor: set[str] = {
            cd.fqn for f in files for cd in f.classes if any(k.startswith(CTOR) for k in cd.methods)
        }
        self.parent: dict[str, str | None] = {}
        for f in files:
            for cd in f.classes:
                sup = cd.extends[0][0] if cd.extends and cd.kind == NodeKind.CLASS else None
                self.parent.setdefault(
                    cd.fqn,
                    self.pick(tuple(sup[1:].split("|"))) if sup and sup.startswith("?") else sup,
                )

    def implicit_ctor(self, recv: TypeDesc | None) -> bool:
        """Does a constructor call go to a corpus class that declares none (the implicit
        one: no declaration to link), or to ``Object`` through ``super()``?"""
        if recv is None:
            return False
        cls: str | None
        if isinstance(recv, Parent):
            if recv.fqn not in self.fqns:
                return False
            cls = self.parent.get(recv.fqn)
            if cls is None:
                return True
        elif isinstance(recv, Cls):
            cls = recv.fqn
        else:
            return False
        return cls in self.fqns and cls not in self.with_ctor

    def pick(self, cands: tuple[str, ...]) -> str:
        for c in cands:
            if c in self.fqns:
                return c
        if len(cands) == 1:
            return cands[0]
        simple = cands[-1].rsplit(".", 1)[-1]
        return f"java.lang.{simple}" if simple in JAVA_LANG else simple

    def fix(self, d: TypeDesc | None) -> TypeDesc | None:
        """``d`` with every type candidates picked."""
        return rewrite(d, lambda p, _depth: Cls(self.pick(p.names)))

    def rewrite(self, f: FileFacts) -> FileFacts:
        if not f.nodes:
            return f
        refs: list[Ref] = []
        for r in f.refs:
            if isinstance(r, MethodCallRef):
                recv = self.fix(r.receiver)
                if r.method.startswith(CTOR) and self.implicit_ctor(recv):
                    continue
                refs.append(r._replace(receiver=recv))
            elif isinstance(r, NewRef):
                cls = self.fix(r.cls)
                if cls is not None:
                    refs.append(r._replace(cls=cls))
            elif isinstance(r, ImportRef):
                if r.fqn in self.fqns:
                    refs.append(r)
            else:
                refs.append(r)
        returns = {
            i: fixed for i, descs in f.returns.items() if (fixed := rewrite_all(descs, self.fix))
        }
        classes = [self.decl(cd) for cd in f.classes]
        return dataclasses.replace(f, refs=refs, classes=classes, returns=returns)

    def decl(self, cd: ClassDecl) -> ClassDecl:
        def names(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
            return [
                (self.pick(tuple(b[1:].split("|"))) if b.startswith("?") else b, line)
                for b, line in items
            ]

        props = {name: rewrite_all(descs, self.fix) for name, descs in cd.props.items()}
        return dataclasses.replace(
            cd, extends=names(cd.extends), implements=names(cd.implements), props=props
        )


def prepare(files: list[FileFacts], all_files: list[FileFacts]) -> list[FileFacts]:
    """The Java files' facts with type names resolved (see the module docstring)."""
    classes = Classes(files)
    return [classes.rewrite(f) for f in files]

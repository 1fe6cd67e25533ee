"""What the languages' ``prepare`` hooks share: rewriting the type descriptors whose names
only other files resolve (``typedesc.Pending``) into descriptors the linker evaluates.

``rewrite`` walks a descriptor and replaces each ``Pending`` by what a language's hook
makes of it. A language whose imported names resolve to entities (JavaScript's import
keys, Python's dotted names) subclasses ``EntityNames``: it says what a name is
(``entity``: a module, class, function, object literal, typed value, something outside
the corpus or nothing, with the member names left after it) and the class here turns that
into a descriptor the same way for every such language.

Invariants a change must keep:
- The result holds no ``Pending``: one that resolves to nothing known is dropped, and so
  is a ``Prop`` / ``Call`` of it; an ``AnyOf`` keeps the alternatives that resolve.
- Rewriting stops at ``MAX_DEPTH`` (a value typed by another module's value, and so on:
  a cycle of re-exports must end).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import NamedTuple

from ragraf.kinds import Denotes, EntityKind
from ragraf.lang.typedesc import AnyOf, Call, Cls, Func, Pending, Prop, TypeDesc

#: how deep a descriptor is rewritten
MAX_DEPTH = 12


def rewrite(
    d: TypeDesc | None, leaf: Callable[[Pending, int], TypeDesc | None], depth: int = 0
) -> TypeDesc | None:
    """``d`` with each ``Pending`` replaced by ``leaf(pending, depth)`` (None: it denotes
    nothing known), through ``AnyOf``, ``Prop`` and ``Call``."""
    if d is None or depth > MAX_DEPTH:
        return None
    match d:
        case Pending():
            return leaf(d, depth)
        case AnyOf(alts):
            got = [x for a in alts if (x := rewrite(a, leaf, depth + 1)) is not None]
            if not got:
                return None
            return got[0] if len(got) == 1 else AnyOf(tuple(dict.fromkeys(got)))
        case Prop(of) | Call(of):
            inner = rewrite(of, leaf, depth + 1)
            return d._replace(of=inner) if inner is not None else None
    return d


def rewrite_all(
    descs: list[TypeDesc], leaf: Callable[[TypeDesc], TypeDesc | None]
) -> list[TypeDesc]:
    """The descriptors ``leaf`` rewrites to something (the others left out)."""
    return [x for d in descs if (x := leaf(d)) is not None]


class Entity(NamedTuple):
    """What a name another file declares is (``EntityKind``)."""

    kind: str  # ragraf.kinds.EntityKind
    name: str = ""  # an fqn, a module, an external name, the name that was missing
    desc: TypeDesc | None = None  # VALUE: what the value is
    where: str = ""  # VALUE / OBJECT: the module it is in (the names in ``desc`` are its)


MISSING = Entity(EntityKind.MISSING)


class EntityNames(ABC):
    """Descriptors of imported names through what they name (``entity``)."""

    #: an external name is kept as the descriptor spells it (else as ``entity`` names it:
    #: the end of a chain of re-exports)
    external_as_written = False

    @abstractmethod
    def entity(self, name: str, where: str) -> tuple[Entity, list[str]]:
        """What ``name`` seen from module ``where`` names, and the member names after it."""

    def fix(self, d: TypeDesc | None, where: str, depth: int = 0) -> TypeDesc | None:
        """``d`` with every imported name resolved (None: it denotes nothing known)."""
        return rewrite(d, lambda p, at: self.pending(p, where, at), depth)

    def pending(self, p: Pending, where: str, depth: int) -> TypeDesc | None:
        """What an imported name's instance, return value or value is."""
        e, rest = self.entity(p.names[0], where)
        if e.kind == EntityKind.EXTERNAL:
            return Cls(p.names[0] if self.external_as_written else e.name)
        return self.pending_of(p, e, rest, depth)

    def pending_of(self, p: Pending, e: Entity, rest: list[str], depth: int) -> TypeDesc | None:
        """What ``p`` is when its first name is the entity ``e`` with ``rest`` after it
        (None for an external entity: ``pending`` decides how one is written)."""
        kind = e.kind
        if kind in (EntityKind.EXTERNAL, EntityKind.MISSING, EntityKind.MODULE, EntityKind.OBJECT):
            return None
        if p.use == Denotes.INSTANCE:
            return Cls(e.name) if kind == EntityKind.CLASS and not rest else None
        if p.use == Denotes.VALUE:
            return self.chain(e, rest, depth)
        if not rest:  # RETURN: what calling it returns
            if kind == EntityKind.CLASS:
                return Cls(e.name)
            if kind == EntityKind.FUNCTION:
                return Func((e.name,))
            return None
        recv = self.chain(e, rest[:-1], depth)
        return Call(recv, rest[-1]) if recv is not None else None

    def chain(self, e: Entity, attrs: list[str], depth: int = 0) -> TypeDesc | None:
        """The receiver an entity with member names after it is."""
        d: TypeDesc | None
        if e.kind in (EntityKind.CLASS, EntityKind.EXTERNAL):
            d = Cls(e.name)
        elif e.kind == EntityKind.VALUE:
            d = self.fix(e.desc, e.where, depth + 1)
        else:
            return None
        for a in attrs:
            if d is None:
                return None
            d = Prop(d, a)
        return d

"""What an untyped JavaScript / TypeScript receiver may be, by its name: the guesses the
cross-file step (``ragraf.lang.js.link``) makes for a method call whose receiver the code
does not type.

A parameter ``res`` in ``function sendOptionsResponse(res, ...)``, the member
``this.req`` of an object whose ``req`` is set by another module at run time: the code
does not say what they are, but a receiver named like one class-like of the corpus (the
class ``Layer`` for ``layer``, the object ``res`` for ``res``; case-insensitive, by the
last part of its fqn) is that one as a guess (the extractor leaves ``Pending(INSTANCE,
(HINT + name,))``). The guess is a ``Global(<key>)``
descriptor whose rows (``HINT`` + name -> the class-likes) the rewritten file carries in
``global_assigns``, so the linker states the call ``derived``; a class-like without the
method leaves the call unresolved (``unknown_member``) instead of a match by name over the
whole corpus. A receiver named like no class-like, matched by name, may be an instance of a
class, not an object (``$(el).append()`` is not ``ConsoleMessages.append``, ``s.trim()``
not an object literal's ``trim``: an object's method is reached through the object's
name), nor a class of another copy of its tree (``Copies``). A guess's key carries a digest of
its class-likes: files of two copies guess apart.

Invariants a change must keep:
- A guess is derived, never stated; only class-likes of this package's languages are
  guessed; a name shared by several class-likes guesses all of them.
- A member of a class-like the code types is guessed only when no declaration of that
  class-like (nor a parent: a class-like that extends another is left alone) has it.
"""

from __future__ import annotations

import hashlib

from ragraf.kinds import CLASS_EXTENSION
from ragraf.lang.facts import FileFacts, TypeDesc
from ragraf.lang.js.builtins import GLOBAL
from ragraf.lang.js.names import module_of
from ragraf.lang.typedesc import Cls, Global, Prop

#: the prefix of a guess's global name (no PHP or Python global is named so), and of the
#: name in the ``Pending`` the extractor leaves for an untyped receiver
HINT = "jshint:"
#: a receiver's name shorter than this guesses nothing
MIN_NAME = 3
#: a match by name over more class-likes than this is left to the linker
MAX_GUESSES = 8
#: how many leading folders a copy of a tree may differ by
MAX_PREFIX = 2


class Hints:
    """The class-likes of the corpus by short name and by method, and what each has."""

    def __init__(self, files: list[FileFacts]) -> None:
        self.by_short: dict[str, list[str]] = {}
        self.members: dict[str, set[str]] = {}
        #: class fqn -> what it extends (fqns of the file, import keys, names as written)
        self.bases: dict[str, set[str]] = {}
        #: lower method name -> the class-likes that have it; class fqn -> its files
        self.having: dict[str, set[str]] = {}
        self.paths: dict[str, set[str]] = {}
        #: the objects (``declarations.object_decl``) among the class-likes
        self.objects: set[str] = set()
        self.copies = Copies([f.path for f in files])
        for f in files:
            for cd in f.classes:
                if cd.fqn.startswith(GLOBAL + "."):
                    continue
                owner, _, short = cd.fqn.rpartition(".")
                module = f.nodes[1].fqn if len(f.nodes) > 1 else ""
                # an object is guessed by its name when it is one of its module's (a local
                # object's or a nested literal's name says little elsewhere)
                if cd.kind != CLASS_EXTENSION or owner == module:
                    fqns = self.by_short.setdefault(short.lower(), [])
                    if cd.fqn not in fqns:
                        fqns.append(cd.fqn)
                has = self.members.setdefault(cd.fqn, set())
                has.update(cd.props)
                has.update(m.lower() for m in cd.methods)
                for m in cd.methods:
                    self.having.setdefault(m.lower(), set()).add(cd.fqn)
                self.paths.setdefault(cd.fqn, set()).add(f.path)
                if cd.kind == CLASS_EXTENSION:
                    self.objects.add(cd.fqn)
                self.bases.setdefault(cd.fqn, set()).update(b for b, _l in cd.extends)

    def guess(self, name: str, used: dict[str, list[str]], caller: str) -> TypeDesc | None:
        """The guess for a receiver named ``name`` in file ``caller`` (None: no class-like
        has that name); ``used`` collects the rows the file must carry."""
        if len(name) < MIN_NAME:
            return None  # `e`, `t`: a minifier's names say nothing
        fqns = [c for c in self.by_short.get(name.lower(), []) if self.mine(c, caller)]
        if not fqns:
            return None
        return _row(f"{HINT}{name.lower()}:{_digest(fqns)}", fqns, used)

    def by_name(self, m: str, used: dict[str, list[str]], caller: str) -> TypeDesc | None:
        """An untyped receiver's call of method ``m``: None when the linker's match by
        name is the answer; else the class-likes that have it but objects (a call reaches
        an object's method through the object's name: ``guess``) and those of another copy
        of the caller's tree (``Copies``); a builtin value when none is left."""
        having = sorted(self.having.get(m.lower(), ()))
        if not having:
            return None
        fqns = [c for c in having if c not in self.objects and self.mine(c, caller)]
        if len(fqns) == len(having) or len(fqns) > MAX_GUESSES:
            return None
        if not fqns:
            return Cls(f"{GLOBAL}.Object")
        return _row(f"{HINT}{m.lower()}:{_digest(fqns)}", fqns, used)

    def mine(self, cls: str, caller: str) -> bool:
        """Whether class-like ``cls`` may be the one a call in ``caller`` reaches: declared
        in a file that is not another copy of a module of the caller's tree."""
        return any(not self.copies.crosses(caller, p) for p in self.paths.get(cls, ()))

    def unknown_member(self, cls: str, member: str, depth: int = 0) -> bool:
        """Whether no declaration of class-like ``cls`` nor of its parents types its
        ``member`` (False when a parent is not a class-like of these languages' files)."""
        has = self.members.get(cls)
        if has is None or depth > MAX_PREFIX * 4:
            return False
        if member in has or member.lower() in has:
            return False
        return all(self.unknown_member(b, member, depth + 1) for b in self.bases.get(cls, ()))

    def nothing(self, d: TypeDesc | None) -> bool:
        """Whether a receiver surely evaluates to no class-like: an untyped member
        (``unknown_member``) of one, or a member of such."""
        if d is None:
            return True
        if not isinstance(d, Prop):
            return False
        inner = d.of
        if self.nothing(inner):
            return True
        return isinstance(inner, Cls) and self.unknown_member(inner.fqn, d.name)


def _row(key: str, fqns: list[str], used: dict[str, list[str]]) -> TypeDesc:
    used[key] = sorted(fqns)
    return Global(key)


def _digest(fqns: list[str]) -> str:
    return hashlib.sha1("\0".join(fqns).encode()).hexdigest()[:12]


class Copies:
    """Copies of one tree of modules (``src/`` and ``dist/``, ``src/v3`` and ``v3``): a
    module ``<P'>/<T>`` is another copy for a caller ``<P>/<U>`` (``P`` ≠ ``P'``, each at
    most ``MAX_PREFIX`` leading folders, ``P`` maybe none) when ``<P>/<T>`` is a module of
    the corpus too: the caller's tree has its own copy of it."""

    def __init__(self, paths: list[str]) -> None:
        self.modules = {_module(p) for p in paths}
        self._memo: dict[tuple[str, str], bool] = {}

    def crosses(self, caller: str, decl: str) -> bool:
        key = (caller, decl)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._crosses(_module(caller), _module(decl))
        return got

    def _crosses(self, caller: str, decl: str) -> bool:
        if caller == decl:
            return False
        mine = _prefixes(caller, with_none=True)
        for p2, tail in _splits(decl):
            for p in mine:
                if p == p2:
                    continue
                twin = f"{p}/{tail}" if p else tail
                if twin != decl and twin in self.modules:
                    return True
        return False


def _module(path: str) -> str:
    stem = module_of(path)
    return stem[:-2] if stem.endswith(".d") else stem


def _splits(module: str) -> list[tuple[str, str]]:
    parts = module.split("/")
    return [
        ("/".join(parts[:i]), "/".join(parts[i:]))
        for i in range(1, min(MAX_PREFIX, len(parts) - 1) + 1)
    ]


def _prefixes(module: str, with_none: bool) -> list[str]:
    parts = module.split("/")
    out = [""] if with_none else []
    out += ["/".join(parts[:i]) for i in range(1, min(MAX_PREFIX, len(parts) - 1) + 1)]
    return out


def rows(used: dict[str, list[str]]) -> list[tuple[str, TypeDesc]]:
    """The ``global_assigns`` rows of the guesses a file made."""
    return [(key, Cls(fqn)) for key, fqns in sorted(used.items()) for fqn in fqns]

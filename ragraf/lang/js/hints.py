"""What an untyped JavaScript / TypeScript receiver may be, by its name: the guesses the
cross-file step (``ragraf.lang.js.link``) makes for a method call whose receiver the code
does not type.

A parameter ``res`` in ``function sendOptionsResponse(res, ...)``, the member
``this.req`` of an object whose ``req`` is set by another module at run time: the code
does not say what they are, but a receiver named like one class-like of the corpus (the
class ``Layer`` for ``layer``, the object ``res`` for ``res``; case-insensitive, by the
last part of its fqn) is that one as a guess. The guess is a ``("global", <key>)``
descriptor whose rows (``HINT`` + name -> the class-likes) the rewritten file carries in
``global_assigns``, so the linker states the call ``derived``; a class-like without the
method leaves the call unresolved (``unknown_member``) instead of a match by name over the
whole corpus. A receiver named like no class-like calling a method every builtin string,
array or function has (``s.trim()``, ``xs.map()``) calls outside the corpus.

Invariants a change must keep:
- A guess is derived, never stated; only class-likes of this package's languages are
  guessed; a name shared by several class-likes guesses all of them.
- A member of a class-like the code types is guessed only when no declaration of that
  class-like (nor a parent: a class-like that extends another is left alone) has it.
"""

from __future__ import annotations

from ragraf.lang.facts import FileFacts, TypeDesc
from ragraf.lang.js.builtins import GLOBAL

#: the prefix of a guess's global name (no PHP or Python global is named so)
HINT = "jshint:"
#: the descriptor tag the extractor writes for an untyped receiver's name
HINT_TAG = "jshint"
#: methods of the builtin String, Array and Function values: an untyped receiver calling
#: one of these calls outside the corpus unless its name guesses a class-like
BUILTIN_METHODS = frozenset(
    """
    trim trimStart trimEnd toUpperCase toLowerCase split substring substr charAt
    charCodeAt codePointAt padStart padEnd startsWith endsWith localeCompare normalize
    repeat toFixed toPrecision push pop shift unshift splice concat join indexOf
    lastIndexOf forEach filter reduce reduceRight some every findIndex findLast
    findLastIndex flatMap fill copyWithin sort reverse includes hasOwnProperty
    isPrototypeOf propertyIsEnumerable toLocaleString valueOf call apply bind
    """.split()
)


class Hints:
    """The class-likes of the corpus by short name, and what each class-like has."""

    def __init__(self, files: list[FileFacts]) -> None:
        self.by_short: dict[str, list[str]] = {}
        self.members: dict[str, set[str]] = {}
        self.extending: set[str] = set()
        for f in files:
            for cd in f.classes:
                if cd.fqn.startswith(GLOBAL + "."):
                    continue
                short = cd.fqn.rsplit(".", 1)[-1].lower()
                fqns = self.by_short.setdefault(short, [])
                if cd.fqn not in fqns:
                    fqns.append(cd.fqn)
                has = self.members.setdefault(cd.fqn, set())
                has.update(cd.props)
                has.update(m.lower() for m in cd.methods)
                if cd.extends:
                    self.extending.add(cd.fqn)

    def guess(self, name: str, used: dict[str, list[str]]) -> TypeDesc | None:
        """The guess for a receiver named ``name`` (None: no class-like has that name);
        ``used`` collects the rows the file must carry."""
        fqns = self.by_short.get(name.lower())
        if not fqns:
            return None
        used[HINT + name.lower()] = sorted(fqns)
        return ("global", HINT + name.lower())

    def unknown_member(self, cls: str, member: str) -> bool:
        """Whether ``member`` of class-like ``cls`` is set nowhere the corpus says."""
        has = self.members.get(cls)
        if has is None or cls in self.extending:
            return False
        return member not in has and member.lower() not in has


def rows(used: dict[str, list[str]]) -> list[tuple[str, TypeDesc]]:
    """The ``global_assigns`` rows of the guesses a file made."""
    return [(key, ("class", fqn)) for key, fqns in sorted(used.items()) for fqn in fqns]

"""Type descriptors: what an expression evaluates to, as an extractor describes it for the
resolver (``ragraf.indexing.resolve.symbols.SymbolTable.types`` evaluates them).

A descriptor is one of the variants of ``TypeDesc``, nested: ``Prop(Call(Cls("App\\Db"),
"get"), "conn")`` is the property ``conn`` of what method ``get`` of an ``App\\Db``
returns. Match on it (``match d: case Prop(of, name): ...``) or test ``isinstance``.

Invariants a change must keep:
- Descriptors are hashable values (they key the evaluation caches and the resolve memo's
  questions) and plain data (the facts cache stores them: ``ragraf.lang.codec`` writes
  every type of ``FACT_TYPES`` in ``ragraf.lang.facts``, which lists ``VARIANTS``).
- Each variant ends with a ``tag`` field whose default names it and which nothing sets:
  NamedTuples compare as tuples, so without it ``Cls("X")`` would equal ``Parent("X")``
  and share its cache entries. The codec does not write it.
- ``Var``, ``FuncName`` and ``CallableOf`` never leave an extractor (PHP's closes them
  over its scopes); ``Pending`` never leaves a language's ``prepare`` hook (it
  resolves the names once every file is known), nor does ``Holder`` Python's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple


class Cls(NamedTuple):
    """An instance of class ``fqn`` (or the class itself: its static members)."""

    fqn: str
    tag: Literal["class"] = "class"


class Static(NamedTuple):
    """The late-bound class (PHP's ``static``): the class the caller is evaluated in."""

    tag: Literal["static"] = "static"


class Parent(NamedTuple):
    """The parents of class ``fqn`` (``parent::``, ``super``)."""

    fqn: str
    tag: Literal["parent"] = "parent"


class Prop(NamedTuple):
    """Property ``name`` of what ``of`` describes (``static``: ``C::$name``)."""

    of: TypeDesc
    name: str
    static: bool = False
    tag: Literal["prop"] = "prop"


class Call(NamedTuple):
    """What method ``name`` of what ``of`` describes returns (``static``: ``C::name()``)."""

    of: TypeDesc
    name: str
    static: bool = False
    tag: Literal["call"] = "call"


class Func(NamedTuple):
    """What the function returns, the first of ``candidates`` (fqns) declared."""

    candidates: tuple[str, ...]
    tag: Literal["func"] = "func"


class Global(NamedTuple):
    """What the global variable ``name`` is assigned anywhere (derived)."""

    name: str
    tag: Literal["global"] = "global"


class Array(NamedTuple):
    """An array of what ``of`` describes (``Foo[]``): it describes no class itself."""

    of: TypeDesc
    tag: Literal["array"] = "array"


class Elem(NamedTuple):
    """An element of the array ``of`` describes (or what an object's ``offsetGet`` /
    ``current`` returns)."""

    of: TypeDesc
    tag: Literal["elem"] = "elem"


class AnyOf(NamedTuple):
    """One of several (each once, in order)."""

    alts: tuple[TypeDesc, ...]
    tag: Literal["any"] = "any"


class Var(NamedTuple):
    """Inside an extractor only: local variable ``name`` used at byte ``pos``."""

    name: str
    pos: int
    tag: Literal["var"] = "var"


class FuncName(NamedTuple):
    """Inside an extractor only: a value naming a function (a string)."""

    candidates: tuple[str, ...]
    tag: Literal["fname"] = "fname"


class CallableOf(NamedTuple):
    """Inside an extractor only: a callable array ``[receiver, 'method']``."""

    of: TypeDesc
    method: str
    tag: Literal["callable"] = "callable"


class Pending(NamedTuple):
    """A name the file alone cannot resolve, until its language's ``prepare`` hook does:
    ``use`` says what of it (``ragraf.kinds.Denotes``), ``names`` the name as the language
    keeps it (an import key, a dotted name, an import path and a name, candidates)."""

    use: str  # ragraf.kinds.Denotes
    names: tuple[str, ...]
    tag: Literal["pending"] = "pending"


class Holder(NamedTuple):
    """Inside Python's extractor and ``prepare`` hook only: a ``contextvars.ContextVar[T]``
    (``of``: what T describes): calling its ``get`` gives a T; anything else of it is the
    external class ``contextvars.ContextVar``."""

    of: TypeDesc
    tag: Literal["holder"] = "holder"


TypeDesc = (
    Cls
    | Static
    | Parent
    | Prop
    | Call
    | Func
    | Global
    | Array
    | Elem
    | AnyOf
    | Var
    | FuncName
    | CallableOf
    | Pending
    | Holder
)

#: every variant (the codec's list of what a cache row may hold takes them from here)
VARIANTS: tuple[type, ...] = (
    Cls,
    Static,
    Parent,
    Prop,
    Call,
    Func,
    Global,
    Array,
    Elem,
    AnyOf,
    Var,
    FuncName,
    CallableOf,
    Pending,
    Holder,
)


def any_of(descs: Iterable[TypeDesc]) -> TypeDesc | None:
    """One descriptor for several: None, the one, or ``AnyOf`` (order kept, each once)."""
    uniq = list(dict.fromkeys(descs))
    if not uniq:
        return None
    return uniq[0] if len(uniq) == 1 else AnyOf(tuple(uniq))


def alternatives(d: TypeDesc) -> tuple[TypeDesc, ...]:
    """The alternatives of ``AnyOf``, else ``d`` alone."""
    return d.alts if isinstance(d, AnyOf) else (d,)


class Export(NamedTuple):
    """A module-level binding another file may import, as an extractor leaves it in
    ``FileFacts.global_assigns`` for its language's ``prepare`` hook (which drops it): a
    JavaScript export (``member``: a key of the object literal the row names), a Python
    module binding, a Go ``go.mod`` module or package line. Never a type descriptor the
    linker sees."""

    kind: str  # ragraf.kinds.BindKind
    name: str = ""  # an fqn, an import key or dotted name, a specifier, a path
    desc: TypeDesc | None = None  # BindKind.VALUE: what the value is
    member: str | None = None

"""What a language's link step may use of the linker (``Language.link``).

The resolver (``ragraf.indexing.resolve``) links the references of every file once the
whole corpus is known. It links calls, class edges, imports, documentation and SQL itself;
the reference types only some language produces (PHP's callbacks, hooks, includes,
superglobals, templates) are linked by handlers that language registers: each module its
registry entry names in ``link`` has ``linking(ctx: LinkContext) -> Linking``, called once
per resolution, which gives the handlers of its reference types, what it reads of every
file up front and what it knows at link time (the spelling of builtin classes). A
language's code imports this module, never the resolver (``tests/test_layers.py``).

Invariants a change must keep:
- A handler reads the corpus only through lookups: ``ctx.sym`` (the resolver's) and those
  its module registered with ``ctx.lookup``. Those calls are recorded per file (the
  resolve memo, ``ragraf.indexing.resolve.link_memo``): a file is linked again when an
  answer it got changes, so a lookup is a pure function of its arguments and the corpus.
  ``ctx.paths`` / ``path_set`` / ``declaring`` and what a module collects (``Linking.
  collect``) are a lookup's tables, never read by a handler directly.
- Per-file output (``stats``, what ``add``, ``node``, ``route``, ``unresolved`` collect,
  ``sql_literals``) is the file's at hand: a handler reads ``ctx.stats`` / ``ctx.add``
  when it runs and never keeps them.
- A file's references go to its language's handlers: the resolver's own and those of
  the modules its entry names, one per reference type (the linker refuses a second). A
  module several languages name is set up once and serves each of them.
- What a module collects is read before any file is linked, of every file of the
  languages naming it, whole or as a scoped build keeps it
  (``ragraf.indexing.extract.interface`` keeps the references the tables are made of: a
  type collected anew must be kept there too).
- Link modules shape links, not facts: no extractor imports them (the registry leaves
  them out of the facts key).
- An edge is added with its ends, kind and evidence (path, line) and an ``EdgeSpec``
  saying how it is known; ``STATED`` (the default) is a stated edge of tree-sitter's with
  confidence 1.0 and no props.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence, Set
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

if TYPE_CHECKING:
    from ragraf.lang.facts import FileFacts, TypeDesc
    from ragraf.model import NodeRow, RouteRow, UnresolvedRow

#: the analysers of an edge an extractor's tree-sitter walk found (``EdgeSpec.sources``)
SOURCES_TS = json.dumps(["tree-sitter"])

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class EdgeSpec(NamedTuple):
    """How an edge is known besides its ends, kind and evidence: its confidence, whether
    it is derived (else stated), its props and the analysers that found it (a JSON list).
    One spec serves every edge a use adds (it is read, never changed)."""

    conf: float = 1.0
    derived: bool = False
    props: dict[str, Any] | None = None
    sources: str = SOURCES_TS


#: a stated edge of tree-sitter's, confidence 1.0, no props
STATED = EdgeSpec()

#: links one reference: (the file, its owner's node id, the reference)
Handler = Callable[["FileFacts", str, Any], None]
#: reads one reference of every file, before any file is linked: (the file, the reference)
Collect = Callable[["FileFacts", Any], None]


class IncludeGraph(NamedTuple):
    """What a language's includes load, for the resolver's include graph
    (``ragraf.indexing.resolve.reach``): (the including file, a file it may load, whether
    the include is at the file's top level) and the files with an include it could not
    follow (it may load files it does not know)."""

    edges: list[tuple[str, str, bool]]
    open: set[str]


#: lower function fqn -> the files that call it by name -> the include graph's part
Includes = Callable[[Mapping[str, set[str]]], IncludeGraph]


class Linking(NamedTuple):
    """What one link module gives the linker (its ``linking(ctx)``)."""

    #: reference type -> its handler
    handlers: Mapping[type, Handler] = MappingProxyType({})
    #: reference type -> what reads it of every file (a lookup's table), before linking
    collect: Mapping[type, Collect] = MappingProxyType({})
    #: run on each file once its references are linked
    finish: Callable[[FileFacts], None] | None = None
    #: the files the language's includes load (``IncludeGraph``); None: it has none
    includes: Includes | None = None
    #: lower class fqn -> its spelling, of the classes outside the corpus the language
    #: knows (builtins), for the detail of an unresolved call
    spellings: Mapping[str, str] = MappingProxyType({})


class AddEdge(Protocol):
    """``ragraf.indexing.resolve.edges.EdgeSet.add``."""

    def __call__(
        self,
        src: str,
        dst: str,
        kind: str,
        path: str | None,
        line: int | None,
        spec: EdgeSpec = ...,
    ) -> None: ...


class Lookups(Protocol):
    """The resolver's corpus-wide lookups a language's handler may make (``ctx.sym``;
    ``ragraf.indexing.resolve.symbols.SymbolTable`` answers them)."""

    def function_ids(self, low: str) -> list[str]: ...
    def class_ids(self, fqn: str) -> list[str]: ...
    def file_id(self, path: str) -> str | None: ...
    def types(self, d: TypeDesc | None) -> dict[str, bool]: ...
    def find_method(self, cls: str, m: str) -> list[str]: ...
    def methods_of(self, d: TypeDesc | None, method: str) -> list[str]: ...
    def methods_named(self, low: str, path: str) -> list[str]: ...
    def takes_callable(self, node_id: str, position: int) -> bool: ...
    def const_value(self, name: str) -> str | None: ...
    def functions_matching(self, pattern: str) -> list[str]: ...
    def methods_matching(self, d: TypeDesc | None, pattern: str) -> list[str]: ...
    def subclass_methods(self, cls: str, m: str) -> list[str]: ...
    def method_class(self, node_id: str) -> str | None: ...


class LinkContext(Protocol):
    """What a handler may use of the linker."""

    # -- parameters ----------------------------------------------------------------------
    @property
    def conf(self) -> Mapping[str, float]:
        """confidence.yaml"""

    @property
    def max_candidates(self) -> int:
        """``resolve.max_heuristic_candidates``"""

    @property
    def max_ambiguous(self) -> int:
        """``resolve.max_ambiguous_candidates`` (never below ``max_candidates``)"""

    # -- the corpus, through recorded lookups ---------------------------------------------
    @property
    def sym(self) -> Lookups:
        """The resolver's lookups."""

    def lookup(self, name: str, fn: F) -> F:
        """Register a corpus-wide lookup of the module's (at set-up, ``name`` unique): the
        callable to use, which records each call for the file at hand."""

    def remembered(self, name: str) -> Mapping[Any, Any]:
        """The previous build's answers to lookup ``name`` (arguments as tuples -> the
        answer as JSON data) when the corpus paths are the same, else none: only for a
        lookup that reads the corpus paths alone. Asked once set-up is over."""

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, made once per resolution for ``key``: each file asking it again
        gets its value and the lookups it took (recorded for that file too)."""

    def reachable(self, path: str, fids: list[str]) -> list[str]:
        """Of several declarations of one function, those the include graph lets ``path``
        load (all of them when it cannot tell), through the recorded lookup the
        resolver's calls make (``reach.Loading``)."""

    @property
    def paths(self) -> Sequence[str]:
        """The corpus's files with nodes, in order (a lookup's table)."""

    @property
    def path_set(self) -> Set[str]:
        """``paths`` as a set."""

    @property
    def declaring(self) -> Set[str]:
        """The files that declare a class-like or a function (a lookup's table)."""

    # -- the file at hand ------------------------------------------------------------------
    @property
    def stats(self) -> dict[str, int]:
        """Counters of the file at hand (missing keys count 0)."""

    @property
    def add(self) -> AddEdge:
        """Add an edge (``EdgeSet.add``)."""

    def link_targets(
        self,
        src: str,
        targets: list[str],
        kind: str,
        path: str,
        line: int,
        derived: bool,
        via: str | None,
    ) -> str | None:
        """Link a use to its target declaration(s) (``EdgeSet.link_targets``)."""

    def node(self, row: NodeRow) -> None:
        """A node the linker makes (the last one of an id wins)."""

    def has_node(self, node_id: str) -> bool:
        """Whether the file at hand made that node already."""

    def route(self, row: RouteRow) -> None:
        """A route the file at hand registers."""

    def unresolved(self, row: UnresolvedRow) -> None:
        """A call site of the file at hand no declaration was attached to (kept when some
        corpus declaration has its name: an answer about it lists the site)."""

    @property
    def sql_literals(self) -> Mapping[int, Sequence[str]]:
        """Line -> the ``sql_literal`` nodes of the file at hand made so far."""

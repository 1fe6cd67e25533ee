"""The linker's state its handlers share: the parameters, the recorded lookups and the
output of the file at hand (``ragraf.lang.linking.LinkContext``, what a language's link
module may use; the resolver's own handlers use it too).

Invariants a change must keep:
- Every lookup goes through ``sym`` (``link_memo.Lookups``): ``lookup`` registers one
  there, so the memo records it and ``Linker.stale`` can ask it again; what it returns
  reaches the lookup through ``sym``, so ``Lookups.close`` lets every table go.
- ``start`` gives each file fresh output (edges, nodes, routes, unresolved call sites,
  stats, SQL literals): what a file adds is its share alone (``link_memo.FileOut``).
- ``once`` hands each asking file the lookups the value took, so a file that reuses a
  value computed for another still records what it depends on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence, Set
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ragraf.indexing.resolve import link_memo
from ragraf.indexing.resolve.edges import EdgeSet
from ragraf.lang.codec import from_data
from ragraf.model import NodeRow, RouteRow, UnresolvedRow

if TYPE_CHECKING:
    from ragraf.indexing.resolve.symbols import SymbolTable
    from ragraf.lang.linking import LinkContext, Lookups

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class Context:
    def __init__(
        self, conf: dict[str, float], max_candidates: int, max_ambiguous: int, record: bool
    ) -> None:
        self.conf = conf
        self.max_candidates = max_candidates
        self.max_ambiguous = max(max_ambiguous, max_candidates)
        #: every corpus-wide lookup of a handler (recorded per file when ``record``)
        self.sym = link_memo.Lookups({}, record=record)
        #: what the tables were made of (set by the linker once they are built)
        self.symtab: SymbolTable | None = None
        #: (name, args) -> answer of the lookups whose answers the memo may give
        #: (``remembered``), set by the linker when the corpus paths are the same
        self.memo: link_memo.Memo | None = None
        self._remembered: dict[str, dict[Any, Any]] = {}
        #: key -> (the value made once, the lookups asked making it)
        self._once: dict[Hashable, tuple[object, dict[link_memo.Query, Any]]] = {}
        self.start()

    def start(self) -> None:
        """Fresh output for the next file."""
        self.out = EdgeSet(self.conf)
        self.add = self.out.add
        self.routes: list[RouteRow] = []
        self.unresolved_rows: list[UnresolvedRow] = []
        self.stats: dict[str, int] = defaultdict(int)
        self.sql_literals: dict[int, list[str]] = {}

    # -- output ----------------------------------------------------------------------------
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
        return self.out.link_targets(src, targets, kind, path, line, derived, via)

    def node(self, row: NodeRow) -> None:
        self.out.node(row)

    def has_node(self, node_id: str) -> bool:
        return node_id in self.out.extra_nodes

    def route(self, row: RouteRow) -> None:
        self.routes.append(row)

    def unresolved(self, row: UnresolvedRow) -> None:
        self.unresolved_rows.append(row)

    # -- lookups ---------------------------------------------------------------------------
    def reachable(self, path: str, fids: list[str]) -> list[str]:
        found: list[str] = self.sym.reachable(path, tuple(fids))[0]
        return found or fids

    def lookup(self, name: str, fn: F) -> F:
        sym = self.sym
        sym.add(name, fn)
        lookups = sym.__dict__

        def ask(*args: Any) -> Any:
            # through ``sym``, not the callable ``add`` made: a module keeps ``ask``, which
            # must not hold its own bound methods (a cycle ``Lookups.close`` could not
            # break, left for a collector a build keeps paused)
            return lookups[name](*args)

        return cast(F, ask)

    def remembered(self, name: str) -> Mapping[Any, Any]:
        got = self._remembered.get(name)
        if got is None:
            memo = self.memo
            got = self._remembered[name] = (
                {from_data(args): ans for n, args, ans in memo.queries if n == name}
                if memo is not None
                else {}
            )
        return got

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        sym = self.sym
        got = self._once.get(key)
        if got is not None:  # the lookups it took count for this file too
            if sym.log is not None:
                sym.log.update(got[1])
            return cast(T, got[0])
        outer, sym.log = sym.log, {}
        try:
            value = compute()
        finally:
            asked, sym.log = sym.log, outer
        if outer is not None:
            outer.update(asked)
        self._once[key] = (value, asked)
        return value

    # -- the corpus (lookups' tables) -------------------------------------------------------
    @property
    def paths(self) -> Sequence[str]:
        assert self.symtab is not None
        return self.symtab.paths

    @property
    def path_set(self) -> Set[str]:
        assert self.symtab is not None
        return self.symtab.path_set

    @property
    def declaring(self) -> Set[str]:
        assert self.symtab is not None
        return self.symtab.declaring


if TYPE_CHECKING:

    def _is_a_link_context(ctx: Context) -> LinkContext:
        return ctx  # mypy checks that Context gives what ``LinkContext`` promises

    def _answers_the_lookups(t: SymbolTable) -> Lookups:
        return t  # mypy checks that the symbol table answers what ``Lookups`` promises

"""What resolution is given besides the facts: its inputs (``ResolveInputs``) and the
scoped-reindex protocol between a build and the linker (``Scoping``).

Invariants a change must keep:
- Everything of ``ResolveInputs`` goes into a memo's parameters (``params``): a memo
  written under other inputs is never used, so an input added here is added there too.
- ``Unscoped`` is a run that resolves every file and reuses nothing; each ``Scoping``
  hook is called at most once per run, in the order ``same_tables`` / ``same_shape`` (while
  the linker finds the stale files), ``plan``, ``whole``, ``before_linking``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ragraf.indexing.resolve import link_memo
from ragraf.indexing.resolve.tablenames import QueryBuilders
from ragraf.lang.facts import FileFacts

if TYPE_CHECKING:
    from ragraf.config import Config
    from ragraf.indexing.resolve.linker import OldNodes


@dataclass(frozen=True)
class ResolveInputs:
    """How the references are linked: the confidences of confidence.yaml, the name-match
    limits (``resolve.max_heuristic_candidates`` / ``.max_ambiguous_candidates``), the
    schema's tables (lower table name -> db_table node id), the table-name conventions of
    ``db`` (``table_prefixes``, ``table_helpers``, ``query_builders``), and ``code_tables``:
    there is no schema, a table SQL names is linked to ``dbschema.code_table_id``
    (``ragraf.indexing.schema.add_code_tables`` makes the nodes)."""

    conf: dict[str, float]
    max_candidates: int = 5
    max_ambiguous: int = 50
    tables: dict[str, str] = field(default_factory=dict)
    prefixes: dict[str, str] = field(default_factory=dict)
    code_tables: bool = False
    helpers: tuple[str, ...] = ()
    builders: QueryBuilders = field(default_factory=QueryBuilders)

    @classmethod
    def of(cls, cfg: Config, tables: dict[str, str]) -> ResolveInputs:
        """The inputs a build gives: the configuration's, and the schema's ``tables`` (none:
        the tables are the code's)."""
        qb = cfg.db.query_builders
        return cls(
            cfg.confidence,
            cfg.resolve.max_heuristic_candidates,
            cfg.resolve.max_ambiguous_candidates,
            tables,
            dict(cfg.db.table_prefixes),
            code_tables=not tables,
            helpers=cfg.db.table_helpers,
            builders=QueryBuilders.of({"methods": qb.methods, "receivers": list(qb.receivers)}),
        )

    def params(self, context: str) -> str:
        """The key of a memo's parameters: these inputs and ``context`` (what else the rows
        depend on: the config hash)."""
        return link_memo.params_key(
            [
                sorted(self.conf.items()),
                self.max_candidates,
                sorted(self.tables.items()),
                sorted(self.prefixes.items()),
                self.max_ambiguous,
                self.code_tables,
                self.helpers,
                sorted(self.builders.methods.items()),
                [r.pattern for r in self.builders.receivers],
                context,
            ]
        )


class Scoping(Protocol):
    """The scoped-reindex protocol (issue 15, ``resolve.scoped``): how one run of
    ``ragraf.indexing.resolve.resolve`` takes part in a build. ``Unscoped`` is the run that
    resolves every file; a build implements it (``ragraf.indexing.indexer``).

    ``keys`` (path -> the key of its cached facts) makes the run record a memo
    (``Resolved.memo``, ``scope``), written under the inputs and ``context`` (what else
    the rows depend on, the config hash). ``memo``: the memo of revision ``parent``; used
    only when written under the same parameters, it lets the linker find the files whose
    rows still stand (``Linker.stale``), and the run resolve only the others (``plan``).
    ``prepared``: the facts (and what ``whole`` gives) are prepared already (the ``prepare``
    hooks ran: ``ragraf.indexing.extract.Facts``). ``old_nodes`` (paths -> their nodes in
    revision ``parent``) lets a file whose answers changed only by the ids of declarations
    that moved keep its rows renamed (``Resolved.moved`` / ``renamed``) instead of being
    linked again."""

    keys: dict[str, str] | None
    memo: link_memo.Memo | None
    context: str
    parent: str | None
    prepared: bool
    old_nodes: OldNodes | None

    def same_tables(self, changed: dict[str, tuple[str, str]]) -> bool:
        """({path: (memo key, key now)} of the changed files) whether the corpus-wide tables
        read the same of each: then ``Linker.stale`` asks no recorded question again."""
        ...

    def same_shape(self, changed: dict[str, tuple[str, str]], moved: dict[str, str]) -> bool:
        """The same but for the ids of the declarations that moved (``moved``, old -> new):
        then ``Linker.stale`` asks again only the questions naming a moved id."""
        ...

    def plan(self, stale: set[str], changed: set[str]) -> set[str] | None:
        """The files to resolve, given the paths the memo cannot stand for (``stale``) and,
        of them, those whose content changed; the others keep their rows
        (``Resolved.scope_paths``). None: every file. Called only with a usable memo."""
        ...

    def whole(self, only: set[str] | None) -> list[FileFacts] | None:
        """When the facts given hold only the interfaces of some files
        (``ragraf.indexing.extract.Facts``): the facts with those of the files to resolve
        (``only``; None: all) whole or as linking reads them (``facts.for_linking``), in the
        same order. None: the facts given."""
        ...

    def before_linking(self, only: set[str] | None, linking: list[FileFacts]) -> None:
        """Called once the files to resolve (``only``; None: all) are known, before any is
        linked, with the facts linking will read (a build writes the rows that need no link
        meanwhile); what it leaves of those facts must hold what linking reads
        (``ragraf.lang.facts.for_linking``)."""
        ...


class Unscoped:
    """``Scoping`` for a run that resolves every file: nothing to reuse; with ``keys`` it
    records a memo under ``context``."""

    def __init__(self, keys: dict[str, str] | None = None, context: str = "") -> None:
        self.keys, self.context = keys, context
        self.memo: link_memo.Memo | None = None
        self.parent: str | None = None
        self.prepared = False
        self.old_nodes: OldNodes | None = None

    def same_tables(self, changed: dict[str, tuple[str, str]]) -> bool:
        return False

    def same_shape(self, changed: dict[str, tuple[str, str]], moved: dict[str, str]) -> bool:
        return False

    def plan(self, stale: set[str], changed: set[str]) -> set[str] | None:
        return None

    def whole(self, only: set[str] | None) -> list[FileFacts] | None:
        return None

    def before_linking(self, only: set[str] | None, linking: list[FileFacts]) -> None:
        return None

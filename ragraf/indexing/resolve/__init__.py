"""Cross-file linking: references of every file -> edges with evidence (§5.2, §6.2).

The package's parts: ``inputs`` (what a run is given: ``ResolveInputs``, and the
scoped-reindex protocol ``Scoping``), ``symbols`` (what the corpus declares, the class
hierarchy and the evaluation of type descriptors), ``edges`` (the edge set and how a use
becomes stated or derived edges), ``reach`` (the include graph: which declaration of a
function declared more than once a file can run), ``tablenames`` (the corpus' conventions
for table names built in code), ``calls`` (calls, class constants, routes' handlers and
class edges), ``imports`` (imports and documentation links and names), ``sqlrefs`` (SQL in
strings and ORM mappings), ``context`` (what the handlers share), ``link_memo`` (the
per-file memo of a scoped run) and ``linker`` (the run: one handler per reference kind,
the languages' own reference types through their ``link`` modules,
``ragraf.lang.linking``, file by file with the memo).

Invariants a change must keep:
- No edge without evidence: every edge carries the path and line of the use
  or declaration that proves it (P3).
- ``stated`` only when the use resolves to exactly one declaration through
  names, ``use`` aliases, the class hierarchy and declared / assigned types
  (for a function declared more than once: the one declaration the include
  graph leaves, ``props.chosen_by`` saying how, ``function_exists`` fallbacks
  set aside; an include path: constants with one literal value substituted).
  Everything else is ``derived`` with a confidence from confidence.yaml and
  a ``via`` mark in props: a name match (one candidate / several), a global
  variable typed from assignments elsewhere, call_user_func / variable
  functions, magic ``__call``, dynamic include paths, several declarations of
  a function a file may run (``duplicate-function``, with ``why``).
- Every call has one outcome, counted in stats: ``stated``, ``derived``,
  ``external`` (the callee is outside the corpus: a PHP builtin function, a
  receiver typed by a builtin or vendor class, a method name no corpus class
  declares) or ``unresolved_<reason>`` (``ragraf.kinds.Unresolved``). A
  receiver whose type is known never falls back to a name match.
- A call site no declaration was attached to is kept (``unresolved_call``)
  when some corpus declaration has its name, with the reason, so an answer
  about that declaration can list it.
- Name matches (untyped receivers) link every candidate: up to
  ``resolve.max_heuristic_candidates`` as ``name-match``; up to
  ``resolve.max_ambiguous_candidates`` marked ``ambiguous`` with confidence
  ``heuristic_many / candidates``; above that the site is unresolved
  (``too_many_candidates``).
- A receiver typed only through globals is derived: ``global_single_type``
  when its assignments agree on one class, else ``global_variable``.
- Output is deterministic: it depends on the facts only, never on dict or
  process order (edges are keyed by edge_uid).
- SQL in strings (§6.2): every analysed string becomes a ``sql_literal`` node
  (fqn ``<owner fqn>#sql@<line>``, ``#2``... for more on one line) contained
  in its owner. Each table it names that the schema knows (``tables``) gets a
  ``references_table`` edge from the literal and a ``queries`` edge from the
  owner, both with the string's line as evidence: stated only when the text
  parsed, is neither ``SELECT *`` nor assembled from run-time identifiers and
  the name is entirely literal; otherwise derived with ``sql_dynamic``
  confidence and a ``via`` reason. A name the schema does not know, or with
  no literal character, gets no edge (counted in stats, never guessed).
  Without any schema (``code_tables``) every named table is linked to a
  ``db_table`` node of source ``code``; ``ragraf.indexing.schema.add_code_tables``
  makes those nodes and turns the edges to them derived.
- Table names from code (issue 12, ``ragraf.indexing.resolve.tablenames``): a dynamic name
  the corpus explains (a discovered prefix, a table property such as
  ``$wpdb->options``, a helper call with a literal argument, a unique suffix
  match) is resolved, marked ``how: code_resolved`` with its ``via``, and its
  edges are derived. A query-builder call (``$wpdb->update($wpdb->options,
  ...)``, ``DB::table('t')``) is a ``sql_literal`` with a ``call`` prop whose
  edges are derived (``via: query_builder``).
- ORM entities (``OrmTableRef``, Doctrine): a ``references_table`` edge from the class to
  the table its mapping names (stated) or the first of its naming strategies' names the
  schema knows (derived ``orm_convention``); without a schema, to the first name as code
  names it, which the edge's ``orm_table`` prop makes a table of code like a SQL
  string's (``link_memo.orm_tables``). No table known: no edge (``orm_tables_unknown``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ragraf.indexing.resolve.inputs import ResolveInputs, Scoping, Unscoped
from ragraf.indexing.resolve.linker import Linker, Resolved
from ragraf.lang import registry
from ragraf.lang.facts import FileFacts

__all__ = ["ResolveInputs", "Resolved", "Scoping", "Unscoped", "resolve"]


def resolve(
    files: Iterable[FileFacts], inputs: ResolveInputs, scoping: Scoping | None = None
) -> Resolved:
    """Link the references of every file as ``inputs`` say (``ResolveInputs``). A
    language's ``prepare`` hook (``ragraf.lang.registry.prepare``) runs first, unless
    ``scoping.prepared``.

    ``scoping`` is the scoped-reindex protocol (``Scoping``, documented there): with its
    ``keys`` the run records a memo; with the memo of its ``parent`` written under the same
    parameters, the linker finds the paths the memo cannot stand for (``Linker.stale``,
    asking ``same_tables`` / ``same_shape``) and, of them, those whose content changed
    (``Linker.changed``), ``plan`` picks the files to resolve (the rest keep their rows:
    ``Resolved.scope_paths``), ``whole`` puts their facts in place of the interfaces
    ``files`` may hold, and ``before_linking`` hears of them before any is linked."""
    scoping = scoping if scoping is not None else Unscoped()
    memo = scoping.memo
    params = ""
    if scoping.keys is not None:
        params = inputs.params(scoping.context)
        if memo is not None and (memo.params != params or memo.rev != scoping.parent):
            memo = None
    given = list(files)
    linker = Linker(
        list(given) if scoping.prepared else registry.prepare(given),
        inputs,
        scoping,
        memo=memo,
        params=params,
    )
    only = None
    stale = linker.stale(scoping.same_tables, scoping.same_shape)
    if stale is not None:  # a memo stands for some files: the scoping picks those to resolve
        only = scoping.plan(stale, linker.changed)
    whole = scoping.whole(only)
    if whole is not None:  # the files to resolve, whole (a hook's files are whole already)
        for i, f in enumerate(whole):
            if linker.files[i] is given[i] and f is not given[i]:
                linker.files[i] = f
    scoping.before_linking(only, linker.files)
    out = linker.run(only)
    out.memo = linker.memo_out
    out.scope = linker.scope_counts
    linker.release()
    return out

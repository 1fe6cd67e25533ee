"""PHP extraction with tree-sitter (architecture §5, §6).

One query (``queries/php-tags.scm``) runs over the whole file in C; Python
then walks the captured nodes in document order. Declarations become nodes
with final ids; uses (calls, ``new``, includes, superglobals...) become
``refs`` that ``ragraf.indexing.resolve`` links once every file is known.

``extract(path, text, max_chunk_lines)`` is what the language registry calls;
``pack_sql`` turns a ``ragraf.sql.sqltext.SqlInfo`` into the plain data the
facts carry. The extractor is one object, ``walk.Extractor``, made of mixins
that share the state of the walk, one module per concern:

- ``state``: where the walk is (declaration stack, variable scopes, namespace
  segment) and small node helpers;
- ``names``: PHP name resolution and type descriptors;
- ``strings``: PHP string decoding and SQL in strings;
- ``routes``: router registrations;
- ``declarations``: namespaces, ``use`` imports, classes, functions and
  methods, properties, constants;
- ``uses``: calls, ``new``, class constants, callables, includes, superglobals;
- ``bindings``: what variables hold (assignments, ``global``, ``foreach``,
  ``catch``, ``return``, narrowing);
- ``framework_calls``: calls that are framework hooks, events and template
  renders;
- ``walk``: the query run and its handler table, comments, and ``finish``.

``link`` is no part of the extractor: the resolver's handlers of the references only PHP
produces (the registry's ``link`` hook, ``ragraf.lang.linking``), left out of the facts key.

Invariants a change must keep (each module states the ones it keeps):
- Names are resolved the way PHP resolves them, per file (``names``).
- No ('var', ...) type descriptor leaves the package: ``finish`` closes every
  receiver over the bindings of its scope that reach the use, flow-sensitively
  (``names``, ``walk``).
- Comments and docblocks go to ``texts`` (layer text), never into props of
  structural nodes (principle P6; ``walk``).
- Evidence lines are the line of the name at the use site (``uses``).
- A SQL string is analysed once, at its outermost concatenation, and owned by
  the innermost function / method, else the class, else the file (``strings``).
"""

from typing import Any

__all__ = ["extract", "pack_sql", "warm"]


def __getattr__(name: str) -> Any:
    """``extract``, ``warm`` and ``pack_sql``, imported on first use: the modules of this
    package that resolution reads (``link``, ``hooks``) do not load the extractor."""
    if name in ("extract", "warm"):
        from ragraf.lang.php import walk

        return getattr(walk, name)
    if name == "pack_sql":
        from ragraf.lang.php.strings import pack_sql

        return pack_sql
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

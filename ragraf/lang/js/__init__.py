"""JavaScript and TypeScript (+ JSX / TSX) extraction with tree-sitter (issue 14), and the
cross-file step before linking.

One package serves the registry's three languages ``javascript`` (``.js .mjs .cjs
.jsx``), ``typescript`` (``.ts .mts .cts``) and ``tsx`` (``.tsx``): the grammar comes from
the suffix (``state.grammar_of``), each grammar has its query file
(``queries/<grammar>-tags.scm``). ``walk`` handles the captures in document order
(``declarations``, ``uses``, ``routes`` over a shared ``state``) and resolves uses over the
file's scopes (``names``). What the file alone cannot know — what an imported binding
is — ``link.prepare`` settles once every file is known, before
``ragraf.indexing.resolve`` links the facts with the same rules as PHP's and Python's:
modules by path (relative specifiers with extension and ``index`` probing, a corpus
package's ``main`` by its folder, ``package.json`` ``exports`` and ``tsconfig.json``
``paths`` read from the manifests), ES modules and CommonJS alike (``import``, ``require``,
``export``, ``module.exports``, re-exports followed), bare specifiers of packages not in
the corpus external.

Invariants a change must keep (each module states the ones it keeps):
- The facts use the existing fact types (``CallRef``, ``MethodCallRef``, ``NewRef``,
  ``ImportRef``, ``RouteRef``, ``SqlRef``...), so resolution, drift, chunking and answers
  work as for PHP; import keys (``names.imp_key``), ``Pending`` descriptors and the
  ``Export`` rows never reach the linker (``link`` rewrites them).
- fqns are ``<path without extension>.<name>...`` and case-sensitive in the file; the
  linker keys them in lower case like PHP's.
"""

from ragraf.lang.js.walk import extract, warm

__all__ = ["extract", "warm"]

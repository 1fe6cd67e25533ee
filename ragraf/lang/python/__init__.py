"""Python extraction with tree-sitter (issue 14), and the cross-file step before linking.

One query (``queries/python-tags.scm``) runs over the whole file; ``walk`` handles its
captures in document order and resolves uses over the file's scopes (``names``).
What the file alone cannot know — what an imported name is — ``link.prepare`` settles
once every file is known, before ``ragraf.indexing.resolve`` links the facts with the
same rules as PHP's: modules by dotted name (``a/b/c.py`` is ``a.b.c``, an absolute
import may name it by a unique suffix, e.g. under ``src/``), ``__init__`` re-exports
followed, stdlib and third-party names external.

Invariants a change must keep (each module states the ones it keeps):
- The facts use the existing fact types (``CallRef``, ``MethodCallRef``, ``NewRef``,
  ``ImportRef``, ``SqlRef``...), so resolution, drift, chunking and answers work as
  for PHP; ``Pending`` descriptors, ``Export`` rows and ``?``-prefixed dotted base
  classes never reach the linker (``link`` rewrites them).
- fqns are dotted and case-sensitive in the file; the linker keys them in lower case
  like PHP's (two names of one module differing only by case collide there).
"""

from ragraf.lang.python.walk import extract, warm

__all__ = ["extract", "warm"]

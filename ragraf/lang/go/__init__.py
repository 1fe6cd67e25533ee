"""Go extraction with tree-sitter (issue 14), and the cross-file step before linking.

A package is a directory: every declaration's fqn is ``<dir>.<Name>`` (a method's
``<dir>.<Type>.<Method>``; files at the root use the package clause's name, an external
test package ``<dir>_test``), so a file's facts depend on its path and content alone.
What the file alone cannot know — which directory an import path names (through the
``module`` line of the ``go.mod`` files of the corpus), what a name of another file of
the package is, which file declares a method's type — ``link.prepare`` settles once every
file is known, before ``ragraf.indexing.resolve`` links the facts with the same rules as
PHP's and Python's: a struct or interface is a class-like (``ClassDecl``) whose
embedded types are ``extends`` (their methods and fields promoted), methods of a type
declared in another file of the package come as a ``CLASS_EXTENSION`` declaration of
that type in their own file.

Invariants a change must keep (each module states the ones it keeps):
- The facts use the existing fact types (``CallRef``, ``MethodCallRef``, ``NewRef``,
  ``ImportRef``...); the Go-only descriptor tags (``goq``, ``gocall``) and ``@`` /
  ``?`` prefixed names never reach the linker (``link`` rewrites them).
- fqns are case-sensitive in the file; the linker keys them in lower case like PHP's.
"""

from ragraf.lang.go.walk import extract, warm

__all__ = ["extract", "warm"]

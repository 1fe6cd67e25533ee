"""Java extraction with tree-sitter (issue 14), and the cross-file step before linking.

One query (``queries/java-tags.scm``) runs over the whole file; ``walk`` handles its
captures in document order and resolves uses over the file's scopes (``names``). What
the file alone cannot know — which class a simple type name is (single-type import,
same package, on-demand import, ``java.lang``) — ``link.prepare`` settles once every file
is known, before ``ragraf.indexing.resolve`` links the facts with the same rules as PHP's:
classes, interfaces, enums and records are class-likes (``ClassDecl``), fields typed by
their declarations, methods by their return types, a constructor is the method
``<init>`` (``new C()``, ``this(...)`` and ``super(...)`` call it).

Invariants a change must keep (each module states the ones it keeps):
- The facts use the existing fact types; the Java-only descriptor tag ``jt`` and
  ``?``-prefixed super types never reach the linker (``link`` rewrites them).
- fqns are dotted source names (``pkg.Outer.Inner``, ``pkg.C.m``; a constructor
  ``pkg.C.C``; an anonymous class ``pkg.C$1``), case-sensitive in the file; the linker
  keys them in lower case like PHP's. Overloads are separate nodes; a call links to the
  first declared overload of its name (the linker knows no arity).
"""

from ragraf.lang.java.walk import extract, warm

__all__ = ["extract", "warm"]

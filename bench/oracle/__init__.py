"""The bench's type oracle for PHP call sites (issue 11): an independent static analysis that
judges the resolver's derived call edges. It imports nothing from ``ragraf``."""

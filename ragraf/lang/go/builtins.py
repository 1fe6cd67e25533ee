"""Go's predeclared identifiers (the universe block of the Go spec): a type of these
names is no corpus type, a call of one of these functions, when the file binds no such
name, calls outside the corpus (external)."""

from __future__ import annotations

TYPES = frozenset(
    """
    any bool byte comparable complex64 complex128 error float32 float64 int int8 int16
    int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr
    """.split()
)

FUNCTIONS = frozenset(
    """
    append cap clear close complex copy delete imag len make max min new panic print
    println real recover
    """.split()
)

#: the package the extractor names builtin functions under (builtin.len): no corpus
#: package is it
BUILTIN_PACKAGE = "builtin"

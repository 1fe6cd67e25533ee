"""The build's memory: what it frees is handed back to the system.

A build frees large blocks in the middle of its run (the files' contents once their rows
are written, the facts and resolution before the last writes). CPython's small objects
live in arenas of their own; the blocks it asked the C library for stay mapped by the C
allocator, kept for reuse that small objects never make, so the process's resident size
stays at its high-water mark while new arenas are mapped beside them. glibc's
``malloc_trim`` gives those free pages back.

Invariants a change must keep:
- Only memory already freed is handed back: calling it never changes a result.
- Where the C library has no ``malloc_trim`` (musl, macOS) it does nothing.
"""

from __future__ import annotations

from typing import Any

_trim: Any = None


def give_back() -> None:
    """Return the C heap's free pages to the system (glibc ``malloc_trim(0)``)."""
    global _trim
    if _trim is None:
        import ctypes

        try:
            _trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)

"""Regular expressions a project's configuration supplies, compiled by RE2: matching takes
time linear in the text, whatever the pattern.

A pattern written in ``project.yaml`` (``db.query_builders.receivers``) is input a cloned
repository controls: Python's backtracking engine runs ``(a+)+$`` for hours on a line of
``a``s. RE2 (google-re2) has no backreferences or lookarounds, so it never backtracks.

Invariants a change must keep:
- Every regular expression read from a configuration file is compiled here, never by
  ``re``; a pattern RE2 refuses (a lookaround, a backreference) is a ``ValueError`` with
  RE2's reason, which the configuration turns into a ConfigError naming the key.
- RE2 logs nothing (its errors come back as the exception only).
"""

from __future__ import annotations

from typing import Any, Protocol


class Pattern(Protocol):
    """What ragraf uses of a compiled pattern."""

    pattern: str

    def search(self, text: str) -> Any: ...


def compile_linear(pattern: str) -> Pattern:
    """``pattern`` compiled by RE2 (linear-time matching); ValueError when RE2 refuses it."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        compiled: Pattern = re2.compile(pattern, options=options)
    except re2.error as e:
        reason = (
            e.args[0].decode("utf-8", "replace")
            if e.args and isinstance(e.args[0], bytes)
            else str(e)
        )
        raise ValueError(
            f"{reason} (patterns here are RE2: no lookaround, no backreference)"
        ) from None
    return compiled

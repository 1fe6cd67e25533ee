"""Limits shared by several layers, each with the reason for its value.

A limit used by one module lives in that module as a named constant; only the
ones two parts must agree on are here.
"""

from __future__ import annotations

#: how many levels of extends / traits / interfaces are climbed when looking for an
#: inherited member, both when resolving calls at index time and when `symbol` answers
#: `Class::member`; real hierarchies seen (phpMyAdmin, WordPress, MediaWiki) stay under 8,
#: and broken code with a cycle stops here instead of recursing
HIERARCHY_DEPTH = 12

#: the longest text argument ragraf takes (a name, a query, a note of ``drift --note`` or
#: ``drift_ack``), in characters: the facade's parameter checks and the ledger's manual
#: entries agree on it, so a note the MCP tool refuses is refused by the CLI too
MAX_TEXT_ARG = 512

#: a constant's literal value (``define('WPINC', 'wp-includes')``, ``const X = '...'``) is
#: kept in its ``value`` prop up to this many characters, by both the ``define()`` and the
#: ``const`` handlers of the PHP extractor; include paths read it (a path or a name is short)
MAX_CONST_VALUE_CHARS = 200

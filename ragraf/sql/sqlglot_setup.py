"""sqlglot as ragraf uses it: imported lazily, its logger quietened once.

sqlglot logs a warning whenever it falls back to parsing a statement as a
generic 'Command'; for ragraf that is a known outcome ("not parsed", recorded
as a problem or a derived edge), never something to print. Both SQL analysers
(``sqltext`` for SQL in code, ``dbschema`` for migrations) call ``quiet()``
before parsing.
"""

from __future__ import annotations

import logging

_FALLBACK = "Falling back to parsing as a 'Command'"


class _CommandFallbackFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return _FALLBACK not in record.getMessage()


def quiet() -> None:
    """Drop sqlglot's Command-fallback warning (idempotent)."""
    logger = logging.getLogger("sqlglot")
    if not any(isinstance(f, _CommandFallbackFilter) for f in logger.filters):
        logger.addFilter(_CommandFallbackFilter())

"""The one clock of ragraf: timestamps in rows, the ledger, reports and logs.

Invariant: timestamps are UTC ISO-8601 with seconds (``2026-12-01T08:24:50+00:00``);
they never enter an identifier (§9.3).
"""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")

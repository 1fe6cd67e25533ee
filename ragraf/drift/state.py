"""What the ledger says of each file now: its last file-level entry per path (a light
module: every answer's stale warnings read it, without the scanner's imports).

Invariants a change must keep:
- A rename's entry also leaves its old path deleted (its note names the old path after
  ``RENAMED_FROM``, as ``ragraf.drift.scan`` writes it).
"""

from __future__ import annotations

from ragraf.kinds import FILE_CHANGES, ChangeKind
from ragraf.model import LedgerEntry

#: how a rename's ledger note starts, before the old path
RENAMED_FROM = "renamed from "


def ledger_state(entries: list[LedgerEntry]) -> dict[str, LedgerEntry]:
    """The last file-level entry per path; a rename also leaves its old path deleted."""
    state: dict[str, LedgerEntry] = {}
    for e in entries:
        if e.kind in FILE_CHANGES:
            state[e.path] = e
            if e.kind == ChangeKind.RENAME and (e.note or "").startswith(RENAMED_FROM):
                old = (e.note or "")[len(RENAMED_FROM) :]
                state[old] = e._replace(kind=ChangeKind.DELETE, new_hash=None)
    return state

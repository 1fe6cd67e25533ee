"""control.sqlite: revision history, coverage history, the drift ledger.

Invariants a change must keep:
- Nothing here is ever deleted. rev_history keeps every revision ever
  allocated (ready, failed or archived) with its counts.
- Revision numbers are allocated from here and graph.sqlite together, so a
  number is never reused, not even after a crashed build.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragraf.store.db import Database


class ControlStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "control", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    def rev_ids(self) -> list[str]:
        return [r[0] for r in self.db.query("SELECT rev_id FROM rev_history ORDER BY rev_id")]

    def record_rev(self, rev_id: str, parent: str | None, state: str, created_at: str, sealed_at: str | None,
                   corpus_hash: str, config_hash: str, files: int, nodes: int, edges: int,
                   note: str | None = None, coverage: Iterable[tuple[str, float | None, str | None]] = ()) -> None:
        with self.db.write():
            self.db.execute(
                "INSERT OR REPLACE INTO rev_history(rev_id, parent_rev, state, created_at, sealed_at, corpus_hash,"
                " files, nodes, edges, joern_used, config_hash, note) VALUES (?,?,?,?,?,?,?,?,?,0,?,?)",
                (rev_id, parent, state, created_at, sealed_at, corpus_hash, files, nodes, edges, config_hash, note),
            )
            self.db.executemany(
                "INSERT INTO rev_coverage(rev_id, metric, value, note) VALUES (?,?,?,?)",
                ((rev_id, *c) for c in coverage),
            )

    def set_state(self, rev_id: str, state: str, note: str | None = None) -> None:
        with self.db.write():
            self.db.execute(
                "UPDATE rev_history SET state=?, note=coalesce(?, note) WHERE rev_id=?", (state, note, rev_id)
            )

    def history(self) -> list[dict[str, Any]]:
        keys = ("rev_id", "parent_rev", "state", "created_at", "sealed_at", "corpus_hash", "files", "nodes",
                "edges", "joern_used", "config_hash", "note")
        return [dict(zip(keys, r, strict=True)) for r in self.db.query(
            f"SELECT {', '.join(keys)} FROM rev_history ORDER BY rev_id")]

    def ledger_size(self, rev_id: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM drift_entry WHERE index_rev=?", (rev_id,)))

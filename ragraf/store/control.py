"""control.sqlite: revision history, coverage history, the drift ledger.

Invariants a change must keep:
- Nothing here is ever deleted. rev_history keeps every revision ever
  allocated (ready, failed or archived) with its counts.
- The ledger tables (drift_entry, drift_ack, stale_edge, drift_archive) are
  append-only; triggers abort UPDATE and DELETE (migration 0002).
- Revision numbers are allocated from here and graph.sqlite together, so a
  number is never reused, not even after a crashed build.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragraf.model import (
    ArchiveRow,
    CoverageRow,
    LedgerAck,
    LedgerEntry,
    RevHistoryRow,
    StaleEdge,
)
from ragraf.store.db import Database

GENESIS = "0" * 64
ENTRY_COLS = LedgerEntry._fields
ACK_COLS = LedgerAck._fields


class ControlStore:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "control", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ControlStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rev_ids(self) -> list[str]:
        return [r[0] for r in self.db.query("SELECT rev_id FROM rev_history ORDER BY rev_id")]

    def record_rev(self, row: RevHistoryRow, coverage: Iterable[CoverageRow] = ()) -> None:
        """Record (or replace) a revision's history row, and add its coverage rows."""
        with self.db.write():
            self.db.execute(
                "INSERT OR REPLACE INTO rev_history(rev_id, parent_rev, state, created_at, sealed_at, corpus_hash,"
                " files, nodes, edges, joern_used, config_hash, note) VALUES (?,?,?,?,?,?,?,?,?,0,?,?)",
                (
                    row.rev_id,
                    row.parent_rev,
                    row.state,
                    row.created_at,
                    row.sealed_at,
                    row.corpus_hash,
                    row.files,
                    row.nodes,
                    row.edges,
                    row.config_hash,
                    row.note,
                ),
            )
            self.db.executemany(
                "INSERT INTO rev_coverage(rev_id, metric, value, note) VALUES (?,?,?,?)",
                ((row.rev_id, *c) for c in coverage),
            )

    def set_state(self, rev_id: str, state: str, note: str | None = None) -> None:
        with self.db.write():
            self.db.execute(
                "UPDATE rev_history SET state=?, note=coalesce(?, note) WHERE rev_id=?",
                (state, note, rev_id),
            )

    def history(self) -> list[dict[str, Any]]:
        keys = (
            "rev_id",
            "parent_rev",
            "state",
            "created_at",
            "sealed_at",
            "corpus_hash",
            "files",
            "nodes",
            "edges",
            "joern_used",
            "config_hash",
            "note",
        )
        return [
            dict(zip(keys, r, strict=True))
            for r in self.db.query(f"SELECT {', '.join(keys)} FROM rev_history ORDER BY rev_id")
        ]

    def ledger_size(self, rev_id: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM drift_entry WHERE index_rev=?", (rev_id,)))

    # -- the drift ledger (append-only, hash-chained) -----------------------------------
    def ledger_head(self) -> tuple[int, str]:
        """(last entry id, its hash) over the whole ledger; (0, GENESIS) when empty."""
        row = self.db.query_one("SELECT id, entry_hash FROM drift_entry ORDER BY id DESC LIMIT 1")
        return (0, GENESIS) if row is None else (row[0], row[1])

    def ack_head(self) -> tuple[int, str]:
        row = self.db.query_one("SELECT id, ack_hash FROM drift_ack ORDER BY id DESC LIMIT 1")
        return (0, GENESIS) if row is None else (row[0], row[1])

    def insert_entry(self, entry: LedgerEntry) -> None:
        self.db.execute(
            f"INSERT INTO drift_entry({', '.join(ENTRY_COLS)})"
            f" VALUES ({', '.join('?' * len(ENTRY_COLS))})",
            entry,
        )

    def insert_stale_edges(self, rev_id: str, entry_id: int, rows: list[tuple[str, str]]) -> None:
        """rows: (edge_uid, reason)."""
        self.db.executemany(
            "INSERT INTO stale_edge(index_rev, edge_uid, reason, drift_entry_id) VALUES (?,?,?,?)",
            ((rev_id, uid, reason, entry_id) for uid, reason in rows),
        )

    def insert_ack(self, ack: LedgerAck) -> None:
        self.db.execute(
            f"INSERT INTO drift_ack({', '.join(ACK_COLS)}) VALUES ({', '.join('?' * len(ACK_COLS))})",
            ack,
        )

    def entries(
        self, rev_id: str | None = None, since_id: int = 0, since_ts: str | None = None
    ) -> list[LedgerEntry]:
        sql = f"SELECT {', '.join(ENTRY_COLS)} FROM drift_entry WHERE id > ?"
        params: list[Any] = [since_id]
        if rev_id is not None:
            sql += " AND index_rev = ?"
            params.append(rev_id)
        if since_ts is not None:
            sql += " AND ts >= ?"
            params.append(since_ts)
        return self.db.rows(LedgerEntry, sql + " ORDER BY id", params)

    def entry_ids(self, ids: list[int]) -> set[int]:
        return {
            r[0]
            for r in self.db.query(
                "SELECT id FROM drift_entry WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids),),
            )
        }

    def acks(self, entry_ids: list[int] | None = None) -> list[LedgerAck]:
        sql = f"SELECT {', '.join(ACK_COLS)} FROM drift_ack"
        if entry_ids is None:
            return self.db.rows(LedgerAck, sql + " ORDER BY id")
        return self.db.rows(
            LedgerAck,
            sql + " WHERE entry_id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (json.dumps(entry_ids),),
        )

    def triggers(self) -> set[str]:
        """Names of the triggers that keep the ledger append-only."""
        return {r[0] for r in self.db.query("SELECT name FROM sqlite_master WHERE type='trigger'")}

    def stale_by_entry(self) -> dict[int, set[tuple[str, str]]]:
        """entry id -> the (edge uid, revision) pairs its stale_edge rows invalidate."""
        out: dict[int, set[tuple[str, str]]] = {}
        for uid, rev, entry_id in self.db.query(
            "SELECT edge_uid, index_rev, drift_entry_id FROM stale_edge"
        ):
            out.setdefault(int(entry_id), set()).add((uid, rev))
        return out

    def stale_edges(self, rev_id: str) -> list[StaleEdge]:
        return self.db.rows(
            StaleEdge,
            "SELECT edge_uid, reason, drift_entry_id FROM stale_edge WHERE index_rev=? ORDER BY id",
            (rev_id,),
        )

    def stale_edges_among(self, rev_id: str, uids: list[str]) -> list[StaleEdge]:
        if not uids:
            return []
        return self.db.rows(
            StaleEdge,
            "SELECT edge_uid, reason, drift_entry_id FROM stale_edge WHERE index_rev=?"
            " AND edge_uid IN (SELECT value FROM json_each(?))",
            (rev_id, json.dumps(uids)),
        )

    def record_archive(self, row: ArchiveRow) -> None:
        """Append an archive row (its ``id`` is assigned here)."""
        with self.db.write():
            self.db.execute(
                f"INSERT INTO drift_archive({', '.join(ArchiveRow._fields[1:])})"
                f" VALUES ({', '.join('?' * (len(ArchiveRow._fields) - 1))})",
                tuple(row)[1:],
            )

    def archive_head(self) -> tuple[int, str]:
        """(id, hash) of the last chained archive row; (0, GENESIS) when there is none."""
        row = self.db.query_one(
            "SELECT id, archive_hash FROM drift_archive WHERE archive_hash IS NOT NULL"
            " ORDER BY id DESC LIMIT 1"
        )
        return (int(row[0]), str(row[1])) if row else (0, GENESIS)

    def archives(self) -> list[ArchiveRow]:
        return self.db.rows(
            ArchiveRow,
            f"SELECT {', '.join(ArchiveRow._fields)} FROM drift_archive ORDER BY id",
        )

    # -- calibration (thresholds recomputed from labelled samples) ------------------------
    def record_calibration(
        self, created_at: str, kind: str, params: dict[str, Any], sample_size: int, note: str | None
    ) -> int:
        with self.db.write():
            self.db.execute(
                "INSERT INTO calibration(created_at, kind, params, sample_size, note) VALUES (?,?,?,?,?)",
                (created_at, kind, json.dumps(params, sort_keys=True), sample_size, note),
            )
            return int(self.db.scalar("SELECT max(id) FROM calibration"))

    def latest_calibration(self, kind: str) -> tuple[int, dict[str, Any]] | None:
        row = self.db.query_one(
            "SELECT id, params FROM calibration WHERE kind=? ORDER BY id DESC LIMIT 1", (kind,)
        )
        return None if row is None else (row[0], json.loads(row[1]))

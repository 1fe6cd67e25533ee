-- The ledger is append-only (I2): rows of drift_entry, drift_ack and stale_edge can
-- be neither updated nor deleted. Each entry and each ack carries a hash over a
-- canonical encoding of (sequence, row, previous hash): a chain whose head is also
-- written to LEDGER.md and into every archive report.
ALTER TABLE drift_entry ADD COLUMN prev_hash TEXT;
ALTER TABLE drift_entry ADD COLUMN entry_hash TEXT;
CREATE INDEX idx_drift_entry_rev ON drift_entry(index_rev, id);
CREATE INDEX idx_drift_entry_path ON drift_entry(index_rev, path);

CREATE TABLE drift_ack (
  id INTEGER PRIMARY KEY,
  entry_id INTEGER NOT NULL,
  by TEXT NOT NULL,
  ts TEXT NOT NULL,
  note TEXT,
  prev_hash TEXT NOT NULL,
  ack_hash TEXT NOT NULL
);
CREATE INDEX idx_drift_ack_entry ON drift_ack(entry_id);
CREATE INDEX idx_stale_edge_rev ON stale_edge(index_rev, edge_uid);

CREATE TRIGGER drift_entry_no_update BEFORE UPDATE ON drift_entry
BEGIN SELECT RAISE(ABORT, 'drift_entry is append-only: write a new entry instead'); END;
CREATE TRIGGER drift_entry_no_delete BEFORE DELETE ON drift_entry
BEGIN SELECT RAISE(ABORT, 'drift_entry is append-only: entries are never deleted'); END;
CREATE TRIGGER drift_ack_no_update BEFORE UPDATE ON drift_ack
BEGIN SELECT RAISE(ABORT, 'drift_ack is append-only'); END;
CREATE TRIGGER drift_ack_no_delete BEFORE DELETE ON drift_ack
BEGIN SELECT RAISE(ABORT, 'drift_ack is append-only'); END;
CREATE TRIGGER stale_edge_no_update BEFORE UPDATE ON stale_edge
BEGIN SELECT RAISE(ABORT, 'stale_edge is append-only'); END;
CREATE TRIGGER stale_edge_no_delete BEFORE DELETE ON stale_edge
BEGIN SELECT RAISE(ABORT, 'stale_edge is append-only'); END;
CREATE TRIGGER drift_archive_no_update BEFORE UPDATE ON drift_archive
BEGIN SELECT RAISE(ABORT, 'drift_archive is append-only'); END;
CREATE TRIGGER drift_archive_no_delete BEFORE DELETE ON drift_archive
BEGIN SELECT RAISE(ABORT, 'drift_archive is append-only'); END;

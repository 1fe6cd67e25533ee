-- control.sqlite after its migrations (tests/test_store_schema.py)
-- migrations: 0001_init, 0002_ledger_chain, 0003_archive_chain

-- table _migrations
CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);

-- table calibration
CREATE TABLE calibration (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL, kind TEXT NOT NULL,
  params TEXT NOT NULL,
  sample_size INTEGER NOT NULL, note TEXT
);

-- table drift_ack
CREATE TABLE drift_ack (
  id INTEGER PRIMARY KEY,
  entry_id INTEGER NOT NULL,
  by TEXT NOT NULL,
  ts TEXT NOT NULL,
  note TEXT,
  prev_hash TEXT NOT NULL,
  ack_hash TEXT NOT NULL
);

-- trigger drift_ack_no_delete
CREATE TRIGGER drift_ack_no_delete BEFORE DELETE ON drift_ack
BEGIN SELECT RAISE(ABORT, 'drift_ack is append-only'); END;

-- trigger drift_ack_no_update
CREATE TRIGGER drift_ack_no_update BEFORE UPDATE ON drift_ack
BEGIN SELECT RAISE(ABORT, 'drift_ack is append-only'); END;

-- table drift_archive
CREATE TABLE drift_archive (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  from_rev TEXT NOT NULL, to_rev TEXT NOT NULL,
  archived_at TEXT NOT NULL, entries INTEGER NOT NULL,
  report_path TEXT NOT NULL
, report_sha256 TEXT, prev_hash TEXT, archive_hash TEXT);

-- trigger drift_archive_no_delete
CREATE TRIGGER drift_archive_no_delete BEFORE DELETE ON drift_archive
BEGIN SELECT RAISE(ABORT, 'drift_archive is append-only'); END;

-- trigger drift_archive_no_update
CREATE TRIGGER drift_archive_no_update BEFORE UPDATE ON drift_archive
BEGIN SELECT RAISE(ABORT, 'drift_archive is append-only'); END;

-- table drift_entry
CREATE TABLE drift_entry (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  index_rev TEXT NOT NULL,
  ts TEXT NOT NULL,
  path TEXT NOT NULL,
  kind TEXT NOT NULL,
  old_hash TEXT, new_hash TEXT,
  symbols_added TEXT, symbols_removed TEXT, symbols_changed TEXT,
  edges_invalidated TEXT,
  detected_by TEXT NOT NULL,
  commit_sha TEXT,
  ack TEXT,
  note TEXT,
  dedupe_key TEXT NOT NULL UNIQUE
, prev_hash TEXT, entry_hash TEXT);

-- trigger drift_entry_no_delete
CREATE TRIGGER drift_entry_no_delete BEFORE DELETE ON drift_entry
BEGIN SELECT RAISE(ABORT, 'drift_entry is append-only: entries are never deleted'); END;

-- trigger drift_entry_no_update
CREATE TRIGGER drift_entry_no_update BEFORE UPDATE ON drift_entry
BEGIN SELECT RAISE(ABORT, 'drift_entry is append-only: write a new entry instead'); END;

-- index idx_drift_ack_entry
CREATE INDEX idx_drift_ack_entry ON drift_ack(entry_id);

-- index idx_drift_entry_path
CREATE INDEX idx_drift_entry_path ON drift_entry(index_rev, path);

-- index idx_drift_entry_rev
CREATE INDEX idx_drift_entry_rev ON drift_entry(index_rev, id);

-- index idx_stale_edge_rev
CREATE INDEX idx_stale_edge_rev ON stale_edge(index_rev, edge_uid);

-- table rev_coverage
CREATE TABLE rev_coverage (
  rev_id TEXT NOT NULL, metric TEXT NOT NULL, value REAL, note TEXT
);

-- table rev_history
CREATE TABLE rev_history (
  rev_id TEXT PRIMARY KEY, parent_rev TEXT,
  state TEXT NOT NULL,              -- 'ready' | 'failed' | 'archived'
  created_at TEXT NOT NULL, sealed_at TEXT,
  corpus_hash TEXT NOT NULL, files INTEGER, nodes INTEGER, edges INTEGER,
  joern_used INTEGER NOT NULL,
  config_hash TEXT,                 -- extension
  note TEXT                         -- extension: failure reason, pruning
);

-- index sqlite_autoindex__migrations_1 (automatic)

-- index sqlite_autoindex_drift_entry_1 (automatic)

-- index sqlite_autoindex_rev_history_1 (automatic)

-- table sqlite_sequence
CREATE TABLE sqlite_sequence(name,seq);

-- table stale_edge
CREATE TABLE stale_edge (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  index_rev TEXT NOT NULL, edge_uid TEXT NOT NULL,
  reason TEXT NOT NULL, drift_entry_id INTEGER NOT NULL,
  acked_at TEXT
);

-- trigger stale_edge_no_delete
CREATE TRIGGER stale_edge_no_delete BEFORE DELETE ON stale_edge
BEGIN SELECT RAISE(ABORT, 'stale_edge is append-only'); END;

-- trigger stale_edge_no_update
CREATE TRIGGER stale_edge_no_update BEFORE UPDATE ON stale_edge
BEGIN SELECT RAISE(ABORT, 'stale_edge is append-only'); END;

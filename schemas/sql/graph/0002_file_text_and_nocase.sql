-- The indexed text of every parsed file, keyed by content (shared across
-- revisions; pruned when no retained revision references it). It lets the
-- facade show indexed code, mark what live_read finds changed, and diff
-- symbols for the ledger without trusting the working tree.
CREATE TABLE file_blob (
  sha256 TEXT PRIMARY KEY,
  data BLOB NOT NULL                -- zlib-compressed UTF-8 text
);
-- PHP names are case-insensitive: fqn lookups use NOCASE and need their own index.
CREATE INDEX idx_node_fqn_nocase ON node(rev_id, fqn COLLATE NOCASE);
-- Revision-constant ranking inputs (k-core shell), computed at index time.
CREATE TABLE node_rank (
  rev_id TEXT NOT NULL, node_id TEXT NOT NULL, shell INTEGER NOT NULL,
  PRIMARY KEY (rev_id, node_id)
);
